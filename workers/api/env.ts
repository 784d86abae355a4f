import type { Context, MiddlewareHandler } from "hono";
import { HTTPException } from "hono/http-exception";
import type { Actor, Permission } from "~/domain/permissions";
import { canAll } from "~/domain/permissions";
import { isPlainObject, repeatedJsonKey } from "~/domain/validation";
import { givenOnceMessage } from "~/domain/list-filters";
import type { KnownTail } from "~/services/audit.server";
import type { AppContext } from "~/services/context.server";
import { verifyAccessToken, type TokenClaims } from "~/services/tokens.server";
import { BODY_TOO_LARGE, readBoundedBody } from "../body-limit";

export interface AppEnv {
  Bindings: Env;
  /** auditTail: the audit chain's tail as the guard read it, for the request's read audit (docs/decisions/019). */
  Variables: { app: AppContext; actor: Actor; claims: TokenClaims; auditTail: KnownTail };
}

/** Marks a middleware with the guard it applies, for the route-coverage test. */
export type GuardMiddleware = MiddlewareHandler<AppEnv> & { guard: "principal" | "staff" | Permission };

/** The answer to a path under /api that no call serves (the spec's mock mode words it the same). */
export const ENDPOINT_NOT_FOUND = "Endpoint not found";

export function jsonError(c: Context<AppEnv>, status: 400 | 401 | 403 | 404 | 405 | 409 | 410 | 422 | 423 | 429 | 500 | 502, message: string, extra: Record<string, unknown> = {}) {
  return c.json({ message, ...extra }, status);
}

function bearer(c: Context<AppEnv>): string | null {
  const h = c.req.header("Authorization") ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(h);
  return m ? m[1]!.trim() : null;
}

function guardWith(guard: GuardMiddleware["guard"], check: (actor: Actor) => boolean): GuardMiddleware {
  const mw: MiddlewareHandler<AppEnv> = async (c, next) => {
    const token = bearer(c);
    if (!token) {
      c.header("WWW-Authenticate", "Bearer");
      return jsonError(c, 401, "Unauthenticated.");
    }
    const { db, env, now } = c.var.app;
    const result = await verifyAccessToken(db, env, token, now());
    if (!result.ok) {
      // RFC 6750 §3.1: a token that was sent but is not (or no longer) good says so in the challenge.
      c.header("WWW-Authenticate", 'Bearer error="invalid_token"');
      return jsonError(c, 401, result.reason === "expired" ? "Token has expired." : "Unauthenticated.");
    }
    const { actor, tail } = result;
    if (!check(actor)) return jsonError(c, 403, "You don't have permission to access this resource.");
    c.set("actor", actor);
    c.set("claims", result.claims);
    c.set("auditTail", tail);
    await next();
  };
  return Object.assign(mw, { guard });
}

/** Any valid bearer token (staff or parent). */
export const requireApiPrincipal = guardWith("principal", () => true);
/** A staff user's bearer token. */
export const requireApiStaff = guardWith("staff", (a) => a.kind === "user");
/**
 * A staff user holding the permission, and each of `also`: a call that answers a record needs the record's
 * view permission besides the one that changes it (decision 007, 2026-11-27).
 */
export function requireApiPermission(permission: Permission, ...also: Permission[]): GuardMiddleware {
  return guardWith(permission, (a) => a.kind === "user" && canAll(a, [permission, ...also]));
}

/** The answer to a body that is not JSON (platform §7 API bodies are JSON). */
export const NOT_JSON = "The request body must be JSON (Content-Type: application/json).";

function isJsonType(type: string): boolean {
  const media = type.split(";")[0]!.trim().toLowerCase();
  return media === "application/json" || (media.startsWith("application/") && media.endsWith("+json"));
}

/** How deep a JSON body may nest: no call takes more than a few levels; deeper is refused before any handler. */
export const MAX_JSON_DEPTH = 32;
export const BAD_JSON_MESSAGE = "The request body must be JSON.";
/** Every call's body is an object of fields: valid JSON that is not one (`[]`, `null`, `123`, `"str"`) is refused alike. */
export const NOT_OBJECT_MESSAGE = "The request body must be a JSON object.";
export const TOO_DEEP_MESSAGE = `The request body nests more than ${MAX_JSON_DEPTH} levels deep.`;

/** The nesting depth of a parsed JSON value, counted without recursion (a hostile body cannot overflow the stack). */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length) {
    const [v, d] = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (d + 1 > deepest) deepest = d + 1;
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, d + 1]);
  }
  return deepest;
}

/**
 * Every API body is at most MAX_REQUEST_BODY_BYTES (workers/body-limit.ts): 413 `{ message }` before it is read whole.
 * Every API request that says it carries JSON must carry a JSON object, nested at most MAX_JSON_DEPTH levels: 400 before
 * any handler runs otherwise. An object that gives a key twice (at any depth) answers 422 naming it ("Give name once.",
 * keyed by its path): JSON.parse would keep the last silently, and the API never picks one of two (as for a query
 * parameter, refuseRepeatedQuery); readBody then reads a body this has passed. So a call that reads no body (cancel, mark-read, reset two-factor, withdraw) does
 * not act on a garbled one, and no handler meets a value so deep that turning it into a string or number
 * overflows the stack (`Number([[[…]]])` recurses). The text is cached by Hono: handlers read it again for free.
 */
export async function refuseMalformedJson(c: Context<AppEnv>, next: () => Promise<void>) {
  if (c.req.method === "GET" || c.req.method === "HEAD") return next();
  // Every body, whatever its type, is read at most MAX_REQUEST_BODY_BYTES (decision 017, stop 42): a larger one is
  // refused 413 before it is read whole. The bytes read are Hono's cached body, which every handler reads from.
  const bytes = await readBoundedBody(c.req.raw);
  if (bytes === null) return c.json({ message: BODY_TOO_LARGE }, 413);
  const cache = c.req.bodyCache as Record<string, Promise<unknown>>;
  cache.arrayBuffer = Promise.resolve(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  if (isJsonType(c.req.header("Content-Type") ?? "")) {
    const text = new TextDecoder().decode(bytes);
    cache.text = Promise.resolve(text);
    if (text.trim() !== "") {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        return c.json({ message: BAD_JSON_MESSAGE }, 400);
      }
      if (jsonDepth(parsed) > MAX_JSON_DEPTH) return c.json({ message: TOO_DEEP_MESSAGE }, 400);
      if (!isPlainObject(parsed)) return c.json({ message: NOT_OBJECT_MESSAGE }, 400);
      const repeated = repeatedJsonKey(text);
      if (repeated !== null) {
        const key = repeated.slice(0, 80);
        const message = `Give ${key} once.`;
        return c.json({ message, errors: { [key]: message } }, 422);
      }
    }
  }
  await next();
}

/**
 * A query parameter given twice with different values (`?date_start=…&date_start=…`) answers 422 naming it: the API
 * reads one value a name and never picks one of two silently (probe 8914). The same value twice is one value.
 */
export async function refuseRepeatedQuery(c: Context<AppEnv>, next: () => Promise<void>) {
  const params = new URL(c.req.url).searchParams;
  for (const key of new Set(params.keys())) {
    if (new Set(params.getAll(key)).size > 1) {
      const message = givenOnceMessage(key);
      return c.json({ message, errors: { [key.slice(0, 40)]: message } }, 422);
    }
  }
  await next();
}

/**
 * The one reader of a call's JSON body: its object of fields. A body that is not JSON, or JSON that is not an object,
 * answers 400 with the message refuseMalformedJson gives (thrown, like every refusal here, and turned into the JSON
 * answer by the Worker's error handler), so every call answers the same body the same way. A body sent with another
 * content type, or a PUT/PATCH without `Content-Type: application/json`, answers 415. A POST with no body at all
 * (sign out, mark as read) reads as `{}`.
 */
export async function readBody(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header("Content-Type") ?? "";
  if (!isJsonType(type)) {
    const text = type ? "x" : await c.req.text();
    if (text || c.req.method !== "POST") throw new HTTPException(415, { res: c.json({ message: NOT_JSON }, 415) });
    return {};
  }
  const text = await c.req.text();
  // An empty POST says nothing, whatever its type: read as no fields, as one without a type is (a bodiless
  // reopen answered 400 before the ticket's own 404; probe 8955 #2).
  if (!text.trim() && c.req.method === "POST") return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HTTPException(400, { res: c.json({ message: BAD_JSON_MESSAGE }, 400) });
  }
  if (!isPlainObject(body)) throw new HTTPException(400, { res: c.json({ message: NOT_OBJECT_MESSAGE }, 400) });
  return body;
}
