import type { Context, MiddlewareHandler } from "hono";
import type { Actor, Permission } from "~/domain/permissions";
import { can } from "~/domain/permissions";
import type { KnownTail } from "~/services/audit.server";
import type { AppContext } from "~/services/context.server";
import { verifyAccessToken, type TokenClaims } from "~/services/tokens.server";

export interface AppEnv {
  Bindings: Env;
  /** auditTail: the audit chain's tail as the guard read it, for the request's read audit (docs/decisions/019). */
  Variables: { app: AppContext; actor: Actor; claims: TokenClaims; auditTail: KnownTail };
}

/** Marks a middleware with the guard it applies, for the route-coverage test. */
export type GuardMiddleware = MiddlewareHandler<AppEnv> & { guard: "principal" | "staff" | Permission };

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
    if (!token) return jsonError(c, 401, "Unauthenticated.");
    const { db, env, now } = c.var.app;
    const result = await verifyAccessToken(db, env, token, now());
    if (!result.ok) return jsonError(c, 401, result.reason === "expired" ? "Token has expired." : "Unauthenticated.");
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
/** A staff user holding the permission. */
export function requireApiPermission(permission: Permission): GuardMiddleware {
  return guardWith(permission, (a) => a.kind === "user" && can(a, permission));
}

/** Reads a JSON body (or a form body) without throwing on bad JSON. */
export async function readBody(c: Context<AppEnv>): Promise<Record<string, unknown> | null> {
  const type = c.req.header("Content-Type") ?? "";
  try {
    if (type.includes("application/json")) {
      const body = await c.req.json();
      return body && typeof body === "object" && !Array.isArray(body) ? (body as Record<string, unknown>) : null;
    }
    if (type.includes("form")) return Object.fromEntries([...(await c.req.formData()).entries()].filter(([, v]) => typeof v === "string"));
    const text = await c.req.text();
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return null;
  }
}
