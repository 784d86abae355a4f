import { errors, jwtVerify, SignJWT } from "jose";
import { lt } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { revokedTokens } from "~/db/schema";
import { ACCESS_TOKEN_SECONDS } from "~/domain/auth-rules";
import type { Actor } from "~/domain/permissions";
import { getTokenPrincipal, type PrincipalType } from "~/models/actors.server";
import { getAuthSettings } from "~/models/settings.server";

/** API bearer tokens: short-lived HS256 JWTs, refreshable until the absolute session limit, revocable. */

const DEV_SECRET = "baseline-development-secret-not-for-production";
const ISSUER = "baseline";

function secretKey(env: Pick<Env, "JWT_SECRET">): Uint8Array {
  return new TextEncoder().encode(env.JWT_SECRET || DEV_SECRET);
}

export interface TokenClaims {
  type: PrincipalType;
  id: number;
  jti: string;
  exp: number;
  /** When the principal first authenticated (seconds); bounds refreshing. */
  authTime: number;
}

export async function issueAccessToken(env: Pick<Env, "JWT_SECRET">, principal: { type: PrincipalType; id: number }, now: Date, authTime?: number) {
  const iat = Math.floor(now.getTime() / 1000);
  const jti = crypto.randomUUID();
  // iat_ms: the issue time to the millisecond, compared with the principal's tokens_valid_after.
  const token = await new SignJWT({ typ: principal.type, auth_time: authTime ?? iat, iat_ms: now.getTime() })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(String(principal.id))
    .setIssuer(ISSUER)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_SECONDS)
    .sign(secretKey(env));
  return { access_token: token, token_type: "bearer" as const, expires_in: ACCESS_TOKEN_SECONDS };
}

export type TokenCheck = { ok: true; claims: TokenClaims; actor: Actor } | { ok: false; reason: "invalid" | "expired" | "revoked" };

/**
 * Verifies a bearer token. With `allowExpiredUntilAbsolute`, a token whose 15 minutes have passed is still
 * accepted (for refresh only) while its original sign-in is younger than the absolute session limit.
 * A token issued at or before the principal's last endAllAccess, a revoked one, or one whose principal
 * is gone or inactive is refused. Answers the principal as an actor, so a guard needs no second read.
 */
export async function verifyAccessToken(db: Db, env: Pick<Env, "JWT_SECRET">, token: string, now: Date, allowExpiredUntilAbsolute = false): Promise<TokenCheck> {
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
  if ((type !== "user" && type !== "parent") || !Number.isInteger(id) || !payload.jti || !payload.exp || !Number.isFinite(authTime)) {
    return { ok: false, reason: "invalid" };
  }
  if (allowExpiredUntilAbsolute) {
    const { absoluteHours } = await getAuthSettings(db);
    if (now.getTime() / 1000 - authTime >= absoluteHours * 3600) return { ok: false, reason: "expired" };
  }
  // One statement: the principal, when its tokens were last ended (endAllAccess), and this token's revocation.
  const found = await getTokenPrincipal(db, type, id, payload.jti);
  const issuedMs = Number.isFinite(Number(payload.iat_ms)) ? Number(payload.iat_ms) : Number(payload.iat ?? 0) * 1000;
  if (found.revoked || issuedMs <= found.tokensValidAfter) return { ok: false, reason: "revoked" };
  if (!found.actor) return { ok: false, reason: "invalid" };
  return { ok: true, claims: { type, id, jti: payload.jti, exp: payload.exp, authTime }, actor: found.actor };
}

export async function revokeToken(db: Db, claims: Pick<TokenClaims, "jti" | "authTime">, absoluteHours: number): Promise<void> {
  // Keep the id until no refresh could accept the token any more.
  const keepUntil = new Date((claims.authTime + absoluteHours * 3600) * 1000).toISOString();
  await db.insert(revokedTokens).values({ jti: claims.jti, expiresAt: keepUntil }).onConflictDoNothing();
}

export async function pruneRevokedTokens(db: Db, now: Date): Promise<void> {
  await db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, now.toISOString()));
}
