import { Hono, type Context } from "hono";
import { listOutbox } from "~/services/email.server";
import { authApi } from "./auth";
import { bipsV1, bipsV2 } from "./bips";
import { claimsV2 } from "./claims";
import { dashboardApi } from "./dashboard";
import { jsonError, refuseMalformedJson, refuseRepeatedQuery, type AppEnv } from "./env";
import { insurancesV1, insurancesV2 } from "./insurances";
import { intakeAssessmentsV2 } from "./intake-assessments";
import { clientsApi } from "./clients";
import { clientReportsApi } from "./client-reports";
import { consentsApi } from "./consents";
import { employeesApi } from "./employees";
import { locationsV1, locationsV2 } from "./locations";
import { mockApi, mockMode } from "./mock";
import { notePdfsApi } from "./note-pdfs";
import { noteSummaryApi } from "./note-summary";
import { paPacingApi } from "./pa-pacing";
import { pdfJobsApi } from "./pdf-jobs";
import { refuseOtherMethods, unsupported } from "./rest";
import { noteBcbaV1, noteRbtV1, notesBcbaV2, notesCombinedV2, notesRbtV2 } from "./notes";
import { objectivesV2, plansV2 } from "./plans";
import { rateRecordsV2 } from "./rate-records";
import { remittancesV2 } from "./remittances";
import { rolesV1, rolesV2 } from "./roles";
import { scheduledSessionsV2 } from "./scheduled-sessions";
import { scrubberApi } from "./scrubber";
import { ticketsV2 } from "./tickets";
import { chartCommentsV2, weeklyReportsV2 } from "./weekly-reports";

/**
 * The REST API under /api. Routes reachable without a bearer token are listed in PUBLIC_API_ROUTES;
 * every other route carries a guard middleware (see ./env.ts), which the route-coverage test checks.
 */
export const PUBLIC_API_ROUTES = [
  "POST /auth/login",
  "GET /auth/refresh",
  "POST /two-factor/verify",
  "POST /two-factor/backup-code",
  "POST /two-factor/resend",
  "POST /two-factor/send-code",
  "POST /password-reset/request",
  "POST /password-reset/verify",
  "POST /password-reset/change",
  "GET /version",
  "GET /dev/outbox",
] as const;

export const api = new Hono<AppEnv>()
  // Mock mode (./mock.ts): the fake backend answers every API call, before any guard or database read.
  .use("*", async (c, next) => {
    if (mockMode(c.env) === "on") return mockApi.fetch(c.req.raw, c.env);
    await next();
  })
  .use("*", (c, next) => answerAllowedMethods(c, next))
  .use("*", refuseMalformedJson)
  .use("*", refuseRepeatedQuery)
  .get("/version", (c) => c.json({ version: c.env.APP_VERSION }))
  .get("/dev/outbox", async (c) => {
    // Development only: in production the outbox does not exist.
    if (!c.var.app.isDev) return jsonError(c, 404, "Not Found");
    const to = c.req.query("to");
    return c.json({ data: await listOutbox(c.var.app.db, to || undefined) });
  })
  .route("/", authApi)
  .route("/", dashboardApi)
  // Tickets (./tickets.ts), after the dashboard's router, which answers GET /v2/tickets/notifications/summary.
  .route("/v2/tickets", ticketsV2)
  .route("/v2/locations", locationsV2)
  .route("/v2/insurances", insurancesV2)
  .route("/insurance", insurancesV1)
  .route("/location", locationsV1)
  .route("/v2/roles", rolesV2)
  .route("/roles", rolesV1)
  .route("/v2/rate-records", rateRecordsV2)
  // Claims: build, generate the 837P, send, status, download (./claims.ts).
  .route("/v2/claims", claimsV2)
  // PDF jobs: plan, weekly-report and chart-comment PDFs through the queue (./pdf-jobs.ts, decision 041),
  // before the plans' and BIPs' routers answer 405 on their other paths.
  .route("/v2", pdfJobsApi)
  // Goals (plans) and objectives of a BIP (./plans.ts).
  .route("/v2/plans", plansV2)
  .route("/v2/objectives", objectivesV2)
  // Weekly reports and chart comments (./weekly-reports.ts).
  .route("/v2/weekly-reports", weeklyReportsV2)
  .route("/v2/chart-comments", chartCommentsV2)
  .route("/v2/intake-assessments", intakeAssessmentsV2)
  // Behavior intervention plans (./bips.ts).
  .route("/v2/bips", bipsV2)
  .route("/bip", bipsV1)
  // The PA calculator and pacing (./pa-pacing.ts), before the PA services' router answers 405 on its other paths.
  .route("/v2", paPacingApi)
  // Client consents: store, list, sections, PDF (./consents.ts, decision 040).
  .route("/v2", consentsApi)
  // Clients, PA services and parents (see ./clients.ts); employees and user administration (./employees.ts).
  .route("/", clientsApi)
  .route("/", employeesApi)
  // The notes' AI summary (./note-summary.ts), before the notes' routers answer 405 on their other paths.
  .route("/", noteSummaryApi)
  // Session notes (./notes.ts). generate-summary and the note PDFs are mounted by their own routers.
  .route("/note_rbt", noteRbtV1)
  .route("/note_bcba", noteBcbaV1)
  .route("/v2/notes-rbt", notesRbtV2)
  .route("/v2/notes-bcba", notesBcbaV2)
  .route("/v2/notes-combined", notesCombinedV2)
  // Note PDFs: /v2/note_rbt/pdf/:id, /v2/note_bcba/pdf/:id, /v2/note_combined/pdf/:id (./note-pdfs.ts).
  .route("/v2", notePdfsApi)
  // Billing by client: the client_report calls (./client-reports.ts; decision 030).
  .route("/client_report", clientReportsApi)
  // Remittances: X12 835 import, list and detail (./remittances.ts, decision 033).
  .route("/v2/remittances", remittancesV2)
  // The pre-billing scrubber's report and one note's reasons (./scrubber.ts).
  .route("/v2/billing/scrubber", scrubberApi)
  // Issue 12: scheduled sessions and the calendar (decision 037).
  .route("/v2/scheduled-sessions", scheduledSessionsV2);

/** The methods a call of the API may carry, in the order an `Allow` header lists them. */
const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;

/**
 * The methods the API serves on `path` (a path under /api, without the prefix), read from the router itself: a method
 * is served when the first route it reaches (after the middleware every path runs) is one of its own, not `unsupported`.
 * HEAD comes with GET (Hono answers it as GET without a body) and OPTIONS with any. Empty: no call serves the path.
 */
export function allowedMethods(path: string): string[] {
  const served = METHODS.filter((method) => {
    const [matched] = api.router.match(method, path);
    const first = matched.map(([entry]) => entry[1]).find((route) => route.method !== "ALL" || route.handler === unsupported);
    return first !== undefined && first.handler !== unsupported && first.method === method;
  });
  if (served.length === 0) return [];
  return [...served.flatMap((m) => (m === "GET" ? ["GET", "HEAD"] : [m])), "OPTIONS"];
}

/**
 * The HTTP details of every answer (decision 016, stop 38): OPTIONS on a path the API serves answers 204 with `Allow`
 * (no CORS headers: the API is same-origin, by bearer token); every 405 lists in `Allow` the methods the path serves
 * (RFC 9110 §15.5.6); every 401 carries `WWW-Authenticate: Bearer` (RFC 6750), whichever call answered it.
 */
async function answerAllowedMethods(c: Context<AppEnv>, next: () => Promise<void>) {
  const path = c.req.path.replace(/^\/api(?=\/|$)/, "") || "/";
  if (c.req.method === "OPTIONS") {
    const allow = allowedMethods(path);
    if (allow.length > 0) return c.body(null, 204, { Allow: allow.join(", ") });
  }
  await next();
  if (c.res.status === 405 && !c.res.headers.has("Allow")) c.res.headers.set("Allow", allowedMethods(path).join(", "));
  if (c.res.status === 401 && !c.res.headers.has("WWW-Authenticate")) c.res.headers.set("WWW-Authenticate", "Bearer");
}

// /dev/outbox is left out: outside development it does not exist, for any method.
refuseOtherMethods(api, ["/version"]);
api.notFound((c) => jsonError(c, 404, "Not Found"));
