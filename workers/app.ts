import { createRequestHandler, type ServerBuild } from "@remix-run/cloudflare";
import { Hono, type Context } from "hono";
import * as build from "../build/index.js";
import { isApiRequest, passBookmark } from "~/services/bookmark.server";
import { configurationProblem, createAppContext, isDevelopment } from "~/services/context.server";
import { api } from "./api";
import { HTTPException } from "hono/http-exception";
import { ENDPOINT_NOT_FOUND, jsonError, type AppEnv } from "./api/env";
import { MOCK_REFUSED_MESSAGE, mockMode } from "./api/mock";
import { handleQueue } from "./jobs";
import { applySecurityHeaders } from "./security-headers";
import { d1Database, flushCarriedWrites } from "~/db/client.server";
import { purgeExpiredDrafts } from "~/services/note-drafts.server";
import { expirePdfFiles } from "~/models/pdf-jobs.server";
import { allSettledOrThrow, pruneSignInRecords } from "~/services/housekeeping.server";
import { ERROR_500_HTML } from "./error-page";
import { asFormChange } from "./form-bodies";
import { forgedFlashTarget, sealFlashRedirects, withoutPostedFlash } from "~/services/flash.server";

const remix = createRequestHandler(build as unknown as ServerBuild);

/** A form POST must come from this site: the Origin (or Referer) must match the request's own origin. */
export function isCrossSitePost(request: Request): boolean {
  if (request.method === "GET" || request.method === "HEAD") return false;
  const own = new URL(request.url).origin;
  const origin = request.headers.get("Origin");
  if (origin) return origin !== own;
  const referer = request.headers.get("Referer");
  if (referer) {
    try {
      return new URL(referer).origin !== own;
    } catch {
      return true;
    }
  }
  return true;
}

/**
 * The middleware every request passes, API call or page: configuration check, the request's context, and on
 * the way out the D1 bookmark, security headers, request id and (local development) Server-Timing.
 */
export function withAppMiddleware(app: Hono<AppEnv>): Hono<AppEnv> {
  // A production Worker without its secrets answers nothing but 500 (and says why in the log): it never falls
  // back to development defaults such as the published JWT secret.
  app.use("*", async (c, next) => {
    const problem = configurationProblem(c.env);
    if (!problem) return next();
    console.error(`misconfigured: ${problem}`);
    const message = "The service is misconfigured. Please try again later.";
    return c.req.path.startsWith("/api/") ? c.json({ message }, 500) : c.text(message, 500);
  });

  app.use("*", async (c, next) => {
    const started = performance.now();
    // A fake backend beside real data must never face users: refused outright outside development.
    if (mockMode(c.env) === "refused") return c.json({ message: MOCK_REFUSED_MESSAGE }, 503);
    c.set("app", await createAppContext(c.req.raw, c.env, c.executionCtx));
    await next();
    // A last-seen touch no batch of the request carried (decision 001); a failure there must not fail the answer.
    await flushCarriedWrites(c.var.app.db).catch((e: unknown) => console.error(`[${c.var.app.requestId}] last-seen touch not written`, e));
    await passBookmark(c.req.raw, c.res, c.var.app);
    applySecurityHeaders(c.req.raw, c.res.headers, c.var.app.cspNonce);
    c.res.headers.set("X-Request-Id", c.var.app.requestId);
    // The Worker's own time (documents are rendered whole before they are returned), for `npm run bench`.
    // Local development only: deployed, it would tell anyone how long a lookup took.
    if (isDevelopment(c.env)) c.res.headers.set("Server-Timing", `app;dur=${(performance.now() - started).toFixed(1)}`);
  });

  app.onError((err, c) => {
    // An answer decided deep in a handler (415 for a body that is not JSON): not an error.
    if (err instanceof HTTPException) return err.getResponse();
    // An answer thrown as a Response (the audit chain stayed busy: 503 JSON with Retry-After, chainBusy).
    if (err instanceof Response) return err;
    console.error(`[${c.var.app?.requestId ?? "-"}]`, err);
    if (c.req.path.startsWith("/api/")) return jsonError(c, 500, "Something went wrong. Please try again later.", { request_id: c.var.app?.requestId });
    // The error page itself failed (a broken bundle, D1 unreachable before routing): a plain page, not a redirect
    // to itself, which browsers end with "too many redirects".
    if (c.req.path === "/error/error500") return c.html(ERROR_500_HTML, 500);
    return c.redirect("/error/error500", 303);
  });
  return app;
}

/** The screens: Remix, behind the same-origin check for form posts; only the server's own flashes are shown, and only to a GET. */
const pages = async (c: Context<AppEnv>) => {
  if (isCrossSitePost(c.req.raw)) return c.text("Cross-site form posts are not accepted.", 403);
  const request = await asFormChange(c.req.raw);
  if (!(request instanceof Request)) {
    const { status, message } = request;
    return c.req.header("Accept")?.includes("application/json") ? c.json({ message }, status) : c.text(message, status);
  }
  const forged = await forgedFlashTarget(c.env, request);
  if (forged !== null) return c.redirect(forged, 303);
  // A form post never sees the page's flash: a refused save is not shown beside the previous save's message.
  const response = await remix(withoutPostedFlash(request), { app: c.var.app });
  await sealFlashRedirects(c.env, request, response);
  return response;
};

// The REST API (every request under /api comes here). A path no call serves answers 404 JSON, as every API error
// does; it used to fall through to the screens' not-found page (an HTML redirect, or the cross-site 403 for a
// POST), which no API client can read.
const apiApp = withAppMiddleware(new Hono<AppEnv>());
apiApp.route("/api", api);
apiApp.all("*", (c) => jsonError(c, 404, ENDPOINT_NOT_FOUND, { endpoint: `${c.req.method} ${c.req.path}` }));

// Every other request is a screen: a router with the one catch-all route, so a page does not first search
// the API's hundreds of routes (decision 042).
const pagesApp = withAppMiddleware(new Hono<AppEnv>());
pagesApp.all("*", pages);

function fetchHandler(request: Request, env: Env, ctx: ExecutionContext): Response | Promise<Response> {
  return (isApiRequest(request) ? apiApp : pagesApp).fetch(request, env, ctx);
}

/**
 * The hourly cron (wrangler.toml [triggers]): note drafts kept past their 24 hours are deleted (decision
 * 025), PDF job files older than 30 days that are not shared with parents are deleted from R2 in
 * bounded steps (decision 041), and ended sessions, revoked token ids and old two-factor challenges are
 * deleted in bounded steps (decision 001). One task failing does not stop the others; the run then fails (logged).
 */
export async function scheduled(_controller: ScheduledController, env: Env): Promise<void> {
  const now = new Date();
  const db = d1Database(env.DB);
  await allSettledOrThrow([purgeExpiredDrafts(db, now), expirePdfFiles(env, now), pruneSignInRecords(db, now)]);
}

export default {
  fetch: fetchHandler,
  queue: handleQueue,
  scheduled,
} satisfies ExportedHandler<Env>;
