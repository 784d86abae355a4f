import { decodeJwt, errors, jwtVerify, SignJWT } from "jose";
import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { deleteInSteps, PRUNE_LIMITS } from "~/db/prune.server";
import { revokedTokens, tokenRefreshes } from "~/db/schema";
import { ACCESS_TOKEN_SECONDS, REFRESH_LIMIT, refreshWaitSeconds } from "~/domain/auth-rules";
import type { Actor } from "~/domain/permissions";
import { SETTING_BOUNDS } from "~/domain/settings";
import { withConditionalAudit, type AuditEntry, type AuditWho, type KnownTail } from "./audit.server";
import { getTokenPrincipal, type PrincipalType, type PrincipalWithGeneration } from "~/models/actors.server";
import { getAuthSettings } from "~/models/settings.server";

/** API bearer tokens: short-lived HS256 JWTs, refreshable until the absolute session limit, revocable. */

const DEV_SECRET = "baseline-development-secret-not-for-production";
const ISSUER = "baseline";

type TokenEnv = Pick<Env, "JWT_SECRET" | "APP_ENV">;

/** The published development secret is accepted in development only; elsewhere JWT_SECRET is required. */
export function secretKey(env: TokenEnv): Uint8Array {
  if (env.JWT_SECRET) return new TextEncoder().encode(env.JWT_SECRET);
  if (env.APP_ENV === "development") return new TextEncoder().encode(DEV_SECRET);
  throw new Error("JWT_SECRET is required outside development");
}

export interface TokenClaims {
  type: PrincipalType;
  id: number;
  jti: string;
  exp: number;
  /** When the principal first authenticated (seconds); bounds refreshing. */
  authTime: number;
  /** The principal's access generation the token was issued with (a refresh carries it on). */
  accessGeneration: number;
}

/**
 * `family` carries the sign-in's token family on through refreshes; a sign-in starts a new one. `gen`: the access
 * generation read with the password hash at sign-in (or carried by the refreshed token); the token is valid only
 * while it is the principal's (decision 015).
 */
export async function issueAccessToken(env: TokenEnv, principal: PrincipalWithGeneration, now: Date, authTime?: number, family?: string) {
  const iat = Math.floor(now.getTime() / 1000);
  const jti = crypto.randomUUID();
  const token = await new SignJWT({ typ: principal.type, auth_time: authTime ?? iat, fam: family ?? crypto.randomUUID(), gen: principal.accessGeneration })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(String(principal.id))
    .setIssuer(ISSUER)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_SECONDS)
    .sign(secretKey(env));
  return { access_token: token, token_type: "bearer" as const, expires_in: ACCESS_TOKEN_SECONDS };
}

export type TokenCheck = { ok: true; claims: TokenClaims; actor: Actor; tail: KnownTail } | { ok: false; reason: "invalid" | "expired" | "revoked" };

/**
 * Verifies a bearer token. With `allowExpiredUntilAbsolute`, a token whose 15 minutes have passed is still
 * accepted (for refresh only) while its original sign-in is younger than the absolute session limit.
 * A token whose access generation is no longer the principal's (endAllAccess since its sign-in read the
 * password), a revoked one, or one whose principal is gone or inactive is refused. Answers the principal as
 * an actor, so a guard needs no second read.
 */
export async function verifyAccessToken(db: Db, env: TokenEnv, token: string, now: Date, allowExpiredUntilAbsolute = false): Promise<TokenCheck> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, secretKey(env), {
      issuer: ISSUER,
      algorithms: ["HS256"],
      currentDate: allowExpiredUntilAbsolute ? new Date(0) : now,
    }));
  } catch (e) {
    return { ok: false, reason: e instanceof errors.JWTExpired ? "expired" : "invalid" };
  }
  const type = payload.typ;
  const id = Number(payload.sub);
  const authTime = Number(payload.auth_time);
  const generation = payload.gen;
  if ((type !== "user" && type !== "parent") || !Number.isInteger(id) || !payload.jti || !payload.exp || !Number.isFinite(authTime)) {
    return { ok: false, reason: "invalid" };
  }
  if (allowExpiredUntilAbsolute) {
    const { absoluteHours } = await getAuthSettings(db);
    if (now.getTime() / 1000 - authTime >= absoluteHours * 3600) return { ok: false, reason: "expired" };
  }
  // One statement: the principal, its access generation (endAllAccess), and this token's revocation.
  const found = await getTokenPrincipal(db, type, id, payload.jti);
  if (found.revoked || !(typeof generation === "number" ? generation === found.accessGeneration : legacyTokenHolds(payload, found))) return { ok: false, reason: "revoked" };
  if (!found.actor) return { ok: false, reason: "invalid" };
  const claims: TokenClaims = { type, id, jti: payload.jti, exp: payload.exp, authTime, accessGeneration: typeof generation === "number" ? generation : 0 };
  return { ok: true, claims, actor: found.actor, tail: found.tail };
}

/**
 * A token issued before the `gen` claim (2026-11-27) holds while no change has ended access since the counter was
 * added (generation 0) and it was issued after the last one before that (`tokens_valid_after`, no longer written).
 * Refreshing it gives a token with generation 0; neither outlives the 12 hours of its sign-in.
 */
function legacyTokenHolds(payload: { iat_ms?: unknown; iat?: number }, found: { accessGeneration: number; tokensValidAfter: number }): boolean {
  const issuedMs = Number.isFinite(Number(payload.iat_ms)) ? Number(payload.iat_ms) : Number(payload.iat ?? 0) * 1000;
  return found.accessGeneration === 0 && issuedMs > found.tokensValidAfter;
}

/**
 * Until when a revoked token's id must be kept: until the token itself expires (a refresh made just before the
 * absolute limit gives a token that lives past it) and no refresh could accept it, whatever the absolute limit is
 * set to later (at most SETTING_BOUNDS.absolute_hours.max hours after its sign-in).
 */
export function revokedUntil(claims: Pick<TokenClaims, "exp" | "authTime">): Date {
  return new Date(Math.max(claims.exp, claims.authTime + SETTING_BOUNDS.absolute_hours.max * 3600) * 1000);
}

/**
 * Logout: revokes the token with `entry`'s audit row in one batch; the row is written only by the call whose revoke
 * landed, so a token logged out twice at once is recorded once. `tail` as read with the token's check.
 */
export async function revokeToken(db: Db, claims: Pick<TokenClaims, "jti" | "exp" | "authTime">, audit: { who: AuditWho; entry: AuditEntry; tail: KnownTail }): Promise<void> {
  await withConditionalAudit(
    db,
    audit.who,
    audit.entry,
    (row) => [db.insert(revokedTokens).values({ jti: claims.jti, expiresAt: revokedUntil(claims).toISOString() }).onConflictDoNothing(), row(sql`changes() = 1`)],
    audit.tail,
  );
}

/** The hourly clean-up: revoked ids no token they name could use any more (past revokedUntil). */
export async function pruneRevokedTokens(db: Db, now: Date, limits = PRUNE_LIMITS): Promise<number> {
  return deleteInSteps(db, revokedTokens, lte(revokedTokens.expiresAt, now.toISOString()), limits);
}

/**
 * The token family of a verified token: every token refreshed from one sign-in carries the same `fam` claim.
 * Tokens issued before the claim existed fall back to the principal and its sign-in time.
 */
export function tokenFamily(token: string, claims: Pick<TokenClaims, "type" | "id" | "authTime">): string {
  const fam = decodeJwt(token).fam;
  return typeof fam === "string" && fam ? fam : `${claims.type}:${claims.id}:${claims.authTime}`;
}

export type Rotation = { kind: "rotated" } | { kind: "spent" } | { kind: "limited"; wait: number };

/**
 * Spends a token on its successor, in one batch (one transaction), so that one token gives at most one successor
 * whatever the timing (probe 9037 M1): the revoke of the token's id is the claim. It is an insert that lands only
 * while the family has refreshed fewer than REFRESH_LIMIT.max times in the window and the id is not revoked yet
 * (`on conflict do nothing`); the family's refresh and `entry`'s audit row follow only when it landed
 * (`changes() = 1`). `rotated`: this caller's revoke landed, it alone may issue the successor. `spent`: another
 * refresh or a logout revoked the token first (answered as a reused token). `limited`: the family must wait; nothing
 * was written and the token stays valid (decision 016). `tail`: the chain's tail read with the token's check.
 */
export async function rotateToken(
  db: Db,
  claims: Pick<TokenClaims, "jti" | "exp" | "authTime">,
  family: string,
  now: Date,
  audit: { who: AuditWho; entry: AuditEntry; tail: KnownTail },
): Promise<Rotation> {
  const since = new Date(now.getTime() - REFRESH_LIMIT.windowMs).toISOString();
  const inWindow = and(eq(tokenRefreshes.family, family), gt(tokenRefreshes.at, since));
  const [revoked, recent, landed] = await withConditionalAudit(
    db,
    audit.who,
    audit.entry,
    (row) => [
      db.select({ jti: revokedTokens.jti }).from(revokedTokens).where(eq(revokedTokens.jti, claims.jti)),
      db.select({ at: tokenRefreshes.at }).from(tokenRefreshes).where(inWindow),
      db
        .insert(revokedTokens)
        .select(sql`select ${claims.jti}, ${revokedUntil(claims).toISOString()} where (select count(*) from ${tokenRefreshes} where ${inWindow}) < ${REFRESH_LIMIT.max}`)
        .onConflictDoNothing()
        .returning({ jti: revokedTokens.jti }),
      // Refreshes out of the window go in the hourly clean-up (pruneTokenRefreshes), not on each refresh.
      db.insert(tokenRefreshes).select(sql`select null, ${family}, ${now.toISOString()} where changes() = 1`),
      row(sql`changes() = 1`),
    ],
    audit.tail,
  );
  if (landed.length === 1) return { kind: "rotated" };
  if (revoked.length > 0) return { kind: "spent" };
  const wait = refreshWaitSeconds(
    recent.map((r) => r.at),
    now,
  );
  // Not revoked and under the limit, yet not landed, cannot happen in one transaction; answered as spent if it did.
  return wait > 0 ? { kind: "limited", wait } : { kind: "spent" };
}

/** The hourly clean-up: refreshes out of the refresh limit's window (claimRefresh counts only those after it). */
export async function pruneTokenRefreshes(db: Db, now: Date, limits = PRUNE_LIMITS): Promise<number> {
  return deleteInSteps(db, tokenRefreshes, lte(tokenRefreshes.at, new Date(now.getTime() - REFRESH_LIMIT.windowMs).toISOString()), limits);
}
