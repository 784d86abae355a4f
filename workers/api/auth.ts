import { Hono, type Context } from "hono";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import {
  BackupCodeInput,
  LoginInput,
  ResendInput,
  ResetChangeInput,
  ResetRequestInput,
  ResetVerifyInput,
  TwoFactorVerifyInput,
} from "~/domain/auth-schemas";
import { parseWith } from "~/domain/validation";
import { actorJson, getActor, type PrincipalWithGeneration } from "~/models/actors.server";
import {
  completePasswordReset,
  countUnusedBackupCodes,
  resendLoginCode,
  requestPasswordReset,
  signIn,
  signInChangeEntry,
  verifyBackupCode,
  verifyLoginCode,
  verifyPasswordResetCode,
  type CodeResult,
} from "~/models/auth.server";
import { getAuthSettings } from "~/models/settings.server";
import { issueAccessToken, revokeToken, rotateToken, tokenFamily, verifyAccessToken, type TokenClaims } from "~/services/tokens.server";
import { jsonError, readBody, requireApiPrincipal, type AppEnv } from "./env";
import { refuseOtherMethods } from "./rest";

/** Sign-in, refresh, logout, two-factor and password reset (platform §7 authentication table). */

/** A token for the principal at the access generation its sign-in read (or the refreshed token carried). */
async function tokenAnswer(c: Context<AppEnv>, principal: PrincipalWithGeneration, authTime?: number, family?: string) {
  const { db, env, now } = c.var.app;
  const actor = await getActor(db, principal.type, principal.id);
  if (!actor) return jsonError(c, 401, "Unauthenticated.");
  const token = await issueAccessToken(env, principal, now(), authTime, family);
  return c.json({ ...token, user: actorJson(actor) });
}

/** The audit row of a token's refresh or logout: on the account, through the API (decision 019, stop 43). */
function tokenEntry(claims: Pick<TokenClaims, "type" | "id">, action: "token_refresh" | "sign_out") {
  return { ...signInChangeEntry(claims, action), detail: { via: "api" } };
}

/** 429 with the wait in the body and in `Retry-After`: a throttled sign-in or code, a reset request past its address's allowance. */
function throttledAnswer(c: Context<AppEnv>, refused: { retryAfter: number; message: string }) {
  c.header("Retry-After", String(refused.retryAfter));
  return jsonError(c, 429, refused.message, { retry_after: refused.retryAfter });
}

function codeFailure(c: Context<AppEnv>, result: Exclude<CodeResult, { kind: "ok" }>) {
  if (result.kind === "throttled") return throttledAnswer(c, result);
  if (result.kind === "no_challenge") return jsonError(c, 422, result.message, { attempts_remaining: 0 });
  if (result.kind === "expired") return jsonError(c, 422, result.message, { code_expired: true, attempts_remaining: result.attemptsRemaining });
  return jsonError(c, 422, result.message, { code_expired: false, attempts_remaining: result.attemptsRemaining, challenge_ended: result.voided });
}

export const authApi = new Hono<AppEnv>()
  .post("/auth/login", async (c) => {
    const raw = await readBody(c);
    const parsed = parseWith(LoginInput, raw);
    if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
    const result = await signIn(c.var.app, parsed.data, "api");
    switch (result.kind) {
      case "throttled":
        return throttledAnswer(c, result);
      case "invalid":
        return jsonError(c, 401, result.message);
      case "send_failed":
        return jsonError(c, 502, result.message);
      case "two_factor":
        return c.json(
          {
            message: "Two-factor verification required.",
            two_factor_required: true,
            // Added to the spec's fields: verify, backup-code and resend need it with the email (docs/decisions/016).
            challenge_id: result.challengeId,
            method_selection_required: false,
            attempts_remaining: result.attemptsRemaining,
            expires_in_minutes: result.expiresInMinutes,
            development_mode: c.var.app.isDev,
            sms_service_active: false,
          },
          202,
        );
      case "signed_in":
        return tokenAnswer(c, result.principal);
    }
  })
  .get("/auth/refresh", async (c) => {
    const token = /^Bearer\s+(.+)$/i.exec(c.req.header("Authorization") ?? "")?.[1];
    if (!token) return jsonError(c, 401, "Unauthenticated.");
    const { db, env, now } = c.var.app;
    const check = await verifyAccessToken(db, env, token, now(), true);
    if (!check.ok) return jsonError(c, 401, check.reason === "expired" ? "Session has expired. Please sign in again." : "Unauthenticated.");
    // At most 5 refreshes in 5 minutes per token family (platform §8, §9); the token stays valid for a later try.
    // The revoke is the claim: of refreshes of one token at the same moment, only the one whose revoke landed gets a
    // successor; the others are answered as a reused token (decision 001, stop 43).
    const family = tokenFamily(token, check.claims);
    const { actor, claims } = check;
    const rotation = await rotateToken(db, claims, family, now(), { who: { actor: { kind: actor.kind, id: actor.id }, ip: c.var.app.ip }, entry: tokenEntry(claims, "token_refresh"), tail: check.tail });
    if (rotation.kind === "limited") {
      c.header("Retry-After", String(rotation.wait));
      return jsonError(c, 429, AUTH_MESSAGES.refreshThrottled, { retry_after: rotation.wait });
    }
    if (rotation.kind === "spent") return jsonError(c, 401, "Unauthenticated.");
    return tokenAnswer(c, claims, claims.authTime, family);
  })
  .post("/auth/logout", requireApiPrincipal, async (c) => {
    const { actor, claims, app } = c.var;
    await revokeToken(app.db, claims, { who: { actor: { kind: actor.kind, id: actor.id }, ip: app.ip }, entry: tokenEntry(claims, "sign_out"), tail: c.var.auditTail });
    return c.json({ message: "Successfully logged out" });
  })
  .post("/auth/me", requireApiPrincipal, (c) => c.json(actorJson(c.var.actor)))
  .post("/two-factor/verify", async (c) => {
    const raw = await readBody(c);
    if (!raw.email) return jsonError(c, 422, AUTH_MESSAGES.emailMissingVerify);
    const parsed = parseWith(TwoFactorVerifyInput, raw);
    if (!parsed.ok) return jsonError(c, 422, parsed.errors.code ?? AUTH_MESSAGES.verificationFailed, { errors: parsed.errors });
    const result = await verifyLoginCode(c.var.app, { id: parsed.data.challenge_id, email: parsed.data.email }, parsed.data.code, "api");
    return result.kind === "ok" ? tokenAnswer(c, result.principal) : codeFailure(c, result);
  })
  .post("/two-factor/backup-code", async (c) => {
    const raw = await readBody(c);
    if (!raw.email) return jsonError(c, 422, AUTH_MESSAGES.emailMissingBackup);
    const parsed = parseWith(BackupCodeInput, raw);
    if (!parsed.ok) return jsonError(c, 422, AUTH_MESSAGES.backupFailed, { errors: parsed.errors });
    const result = await verifyBackupCode(c.var.app, { id: parsed.data.challenge_id, email: parsed.data.email }, parsed.data.backup_code, "api");
    return result.kind === "ok" ? tokenAnswer(c, result.principal) : codeFailure(c, result);
  })
  .post("/two-factor/resend", async (c) => {
    const raw = await readBody(c);
    if (!raw.email) return jsonError(c, 422, AUTH_MESSAGES.emailMissingResend);
    return resendAnswer(c, raw, AUTH_MESSAGES.resendFailed);
  })
  .post("/two-factor/send-code", async (c) => {
    const raw = await readBody(c);
    if (!raw.email) return jsonError(c, 422, AUTH_MESSAGES.emailMissingSend);
    if (raw.context === "password_reset") {
      const parsed = parseWith(ResetRequestInput, raw);
      if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
      const asked = await requestPasswordReset(c.var.app, parsed.data.email, parsed.data.parent ? "parent" : "user", "api");
      if (asked.kind === "throttled") return throttledAnswer(c, asked);
      return c.json({ ...codeAnswer(c, (await getAuthSettings(c.var.app.db)).codeExpiryMinutes, 5, AUTH_MESSAGES.resetSent), challenge_id: asked.challengeId });
    }
    return resendAnswer(c, raw, AUTH_MESSAGES.sendFailed);
  })
  .get("/two-factor/status", requireApiPrincipal, async (c) => {
    const actor = c.var.actor;
    const { codeExpiryMinutes } = await getAuthSettings(c.var.app.db);
    return c.json({
      two_factor_enabled: actor.twoFactorEnabled,
      method: actor.twoFactorEnabled ? "email" : null,
      available_methods: ["email"],
      backup_codes_remaining: await countUnusedBackupCodes(c.var.app.db, { type: actor.kind, id: actor.id }),
      expires_in_minutes: codeExpiryMinutes,
      sms_service_active: false,
      development_mode: c.var.app.isDev,
    });
  })
  .post("/password-reset/request", async (c) => {
    const parsed = parseWith(ResetRequestInput, await readBody(c));
    if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
    // challenge_id (added to the spec's answer) goes with the email and code to verify; an unknown email gets one too.
    // `parent: true` resets the parent account of the email, as on sign-in; without it, the staff account.
    const asked = await requestPasswordReset(c.var.app, parsed.data.email, parsed.data.parent ? "parent" : "user", "api");
    if (asked.kind === "throttled") return throttledAnswer(c, asked);
    return c.json({ message: AUTH_MESSAGES.resetSent, challenge_id: asked.challengeId });
  })
  .post("/password-reset/verify", async (c) => {
    const parsed = parseWith(ResetVerifyInput, await readBody(c));
    if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
    const result = await verifyPasswordResetCode(c.var.app, parsed.data.challenge_id, parsed.data.email, parsed.data.code, "api");
    if (result.kind !== "ok") return codeFailure(c, result);
    return c.json({ message: "Code verified.", reset_token: result.resetToken });
  })
  .post("/password-reset/change", async (c) => {
    const parsed = parseWith(ResetChangeInput, await readBody(c));
    if (!parsed.ok) return jsonError(c, 422, Object.values(parsed.errors)[0]!, { errors: parsed.errors });
    const result = await completePasswordReset(c.var.app, parsed.data.email, parsed.data.reset_token, parsed.data.password);
    if (result.kind !== "ok") return jsonError(c, 422, result.message);
    return c.json({ message: AUTH_MESSAGES.passwordChanged });
  });

refuseOtherMethods(authApi, [
  "/auth/login",
  "/auth/refresh",
  "/auth/logout",
  "/auth/me",
  "/two-factor/verify",
  "/two-factor/backup-code",
  "/two-factor/resend",
  "/two-factor/send-code",
  "/two-factor/status",
  "/password-reset/request",
  "/password-reset/verify",
  "/password-reset/change",
]);

function codeAnswer(c: Context<AppEnv>, expiresInMinutes: number, attemptsRemaining: number, message: string) {
  return { message, expires_in_minutes: expiresInMinutes, attempts_remaining: attemptsRemaining, development_mode: c.var.app.isDev, sms_service_active: false };
}

async function resendAnswer(c: Context<AppEnv>, raw: Record<string, unknown>, failMessage: string) {
  const parsed = parseWith(ResendInput, raw);
  if (!parsed.ok) return jsonError(c, 422, failMessage, { errors: parsed.errors });
  const result = await resendLoginCode(c.var.app, { id: parsed.data.challenge_id, email: parsed.data.email }, parsed.data.method, failMessage);
  if (result.kind === "no_challenge") return jsonError(c, 422, result.message, { attempts_remaining: 0 });
  if (result.kind === "limited") {
    if (result.retryAfter) c.header("Retry-After", String(result.retryAfter));
    return jsonError(c, 429, result.message, result.retryAfter ? { retry_after: result.retryAfter } : {});
  }
  if (result.kind === "unsupported_method") return jsonError(c, 422, result.message);
  if (result.kind === "send_failed") return jsonError(c, 502, result.message);
  return c.json(codeAnswer(c, result.expiresInMinutes, result.attemptsRemaining, "A new verification code has been sent."));
}

