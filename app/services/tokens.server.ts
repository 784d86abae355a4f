import { errors, jwtVerify, SignJWT } from "jose";
import { eq, lt } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { revokedTokens } from "~/db/schema";
import { ACCESS_TOKEN_SECONDS } from "~/domain/auth-rules";
import type { PrincipalType } from "~/models/actors.server";
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
  const token = await new SignJWT({ typ: principal.type, auth_time: authTime ?? iat })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(String(principal.id))
    .setIssuer(ISSUER)
    .setJti(jti)
    .setIssuedAt(iat)
    .setExpirationTime(iat + ACCESS_TOKEN_SECONDS)
    .sign(secretKey(env));
  return { access_token: token, token_type: "bearer" as const, expires_in: ACCESS_TOKEN_SECONDS };
}

export type TokenCheck = { ok: true; claims: TokenClaims } | { ok: false; reason: "invalid" | "expired" | "revoked" };

/**
 * Verifies a bearer token. With `allowExpiredUntilAbsolute`, a token whose 15 minutes have passed is still
 * accepted (for refresh only) while its original sign-in is younger than the absolute session limit.
 */
export async function verifyAccessToken(db: Db, env: Pick<Env, "JWT_SECRET">, token: string, now: Date, allowExpiredUntilAbsolute = false): Promise<TokenCheck> {
  const read = await readAccessToken(env, token, now, allowExpiredUntilAbsolute);
  if (!read.ok) return read;
  if (allowExpiredUntilAbsolute) {
    const { absoluteHours } = await getAuthSettings(db);
    if (now.getTime() / 1000 - read.claims.authTime >= absoluteHours * 3600) return { ok: false, reason: "expired" };
  }
  const [revoked] = await revokedTokenQuery(db, read.claims.jti);
  if (revoked) return { ok: false, reason: "revoked" };
  return read;
}

/**
 * A token's signature, issuer, expiry and claims, without the database (the revocation list is
 * `revokedTokenQuery`, which the API guard reads in one batch with the actor).
 */
export async function readAccessToken(env: Pick<Env, "JWT_SECRET">, token: string, now: Date, allowExpired = false): Promise<TokenCheck> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, secretKey(env), {
      issuer: ISSUER,
      algorithms: ["HS256"],
      currentDate: allowExpired ? new Date(0) : now,
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
  return { ok: true, claims: { type, id, jti: payload.jti, exp: payload.exp, authTime } };
}

/** The revocation of a token id (a row when revoked), as a statement for a batch. */
export function revokedTokenQuery(db: Db, jti: string) {
  return db.select({ jti: revokedTokens.jti }).from(revokedTokens).where(eq(revokedTokens.jti, jti));
}

export async function revokeToken(db: Db, claims: Pick<TokenClaims, "jti" | "authTime">, absoluteHours: number): Promise<void> {
  // Keep the id until no refresh could accept the token any more.
  const keepUntil = new Date((claims.authTime + absoluteHours * 3600) * 1000).toISOString();
  await db.insert(revokedTokens).values({ jti: claims.jti, expiresAt: keepUntil }).onConflictDoNothing();
}

export async function pruneRevokedTokens(db: Db, now: Date): Promise<void> {
  await db.delete(revokedTokens).where(lt(revokedTokens.expiresAt, now.toISOString()));
}
