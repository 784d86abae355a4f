import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { and, desc, eq, gt } from "drizzle-orm";
import { decodeJwt } from "jose";
import { describe, expect, it, vi } from "vitest";
import { auditLog, outboxEmails, sessions, twoFactorChallenges, users } from "~/db/schema";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { requestPasswordReset } from "~/models/auth.server";
import { forgetAuthSettings, getAuthSettings } from "~/models/settings.server";
import { issueAccessToken } from "~/services/tokens.server";
import { verifyAuditChain } from "~/services/audit.server";
import { outboxSender } from "~/services/email.server";
import worker from "../../workers/app";
import countingWorker from "../bench/d1-count-worker";
import { D1_COUNT_HEADER } from "../bench/d1-count-header";
import { api, apiToken, codeIn, cookiesFrom, countingDb, createParent, createUser, db, lastEmail, request, signInCookie, type TestUser } from "./helpers";
import { appFetch } from "./app-fetch";

// Password hashing (PBKDF2, 100,000 rounds) makes the guessing loops slow on a busy machine.
vi.setConfig({ testTimeout: 30_000 });

let ipSeq = 0;
/** Each test guesses from its own address, so the per-address throttle of one test never reaches another. */
const newIp = () => `203.0.113.${++ipSeq}`;

/** An API call from a given address. */
function apiFrom(ip: string, path: string, body: unknown): Promise<Response> {
  return appFetch(`http://localhost/api${path}`, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json", "CF-Connecting-IP": ip }, body: JSON.stringify(body) });
}

function formFrom(ip: string, path: string, fields: Record<string, string>, cookie?: string): Promise<Response> {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded", "CF-Connecting-IP": ip } });
}

/** Sign-in hardening (issue 9): production by default, the refresh limit, throttled password checks, bound two-factor challenges. */

async function fetchWith(vars: Partial<Env>, path: string): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://localhost${path}`, { redirect: "manual" }) as Request<unknown, IncomingRequestCfProperties>, { ...env, ...vars }, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

describe("production configuration", () => {
  const SECRETS = { JWT_SECRET: "a-real-production-secret-of-enough-length", RESEND_API_KEY: "re_production_key" };
  it.each([
    ["/login", { JWT_SECRET: undefined }, "JWT_SECRET"],
    ["/api/version", { JWT_SECRET: undefined }, "JWT_SECRET"],
    ["/api/auth/refresh", { JWT_SECRET: undefined }, "JWT_SECRET"],
    // Without Resend, sign-in codes would land in the development outbox and the log instead of the user's inbox.
    ["/login", { RESEND_API_KEY: undefined }, "RESEND_API_KEY"],
    ["/api/auth/login", { RESEND_API_KEY: undefined }, "RESEND_API_KEY"],
    ["/login", { JWT_SECRET: undefined, RESEND_API_KEY: undefined }, "JWT_SECRET, RESEND_API_KEY"],
  ] as const)("a production Worker answers %s with 500 and logs why when a secret is missing (%o)", async (path, missing, named) => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await fetchWith({ APP_ENV: "production", ...SECRETS, ...missing }, path);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("misconfigured");
    expect(logged).toHaveBeenCalledWith(`misconfigured: Missing required secrets: ${named}`);
  });

  it("a production Worker does not accept tokens signed with the development secret", async () => {
    const token = await apiToken(await createUser());
    const ctx = createExecutionContext();
    const req = new Request("http://localhost/api/auth/me", { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, { ...env, APP_ENV: "production", JWT_SECRET: "a-real-production-secret-of-enough-length", RESEND_API_KEY: "re_production_key" }, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(401);
  });

  it.each([["/dev/outbox"], ["/api/dev/outbox"]])("%s does not exist in production", async (path) => {
    const res = await fetchWith({ APP_ENV: "production", JWT_SECRET: "a-real-production-secret-of-enough-length", RESEND_API_KEY: "re_production_key" }, path);
    expect(res.status).toBe(404);
  });
});

describe("GET /api/auth/refresh limit", () => {
  it("allows 5 refreshes in 5 minutes per sign-in, then answers 429 with retry_after; another sign-in is not affected", async () => {
    const user = await createUser();
    let token = await apiToken(user);
    for (let i = 0; i < 5; i++) {
      const res = await api("/auth/refresh", { token });
      expect(res.status).toBe(200);
      token = ((await res.json()) as { access_token: string }).access_token;
    }
    const limited = await api("/auth/refresh", { token });
    expect(limited.status).toBe(429);
    const body = (await limited.json()) as { message: string; retry_after: number };
    expect(body.message).toBe("Too many token refreshes. Please wait and try again.");
    expect(body.retry_after).toBeGreaterThan(0);
    expect(body.retry_after).toBeLessThanOrEqual(300);
    expect(limited.headers.get("Retry-After")).toBe(String(body.retry_after));
    // The refused token was not revoked: it still works for calls.
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(200);

    const other = await apiToken(user);
    expect((await api("/auth/refresh", { token: other })).status).toBe(200);
  });
});

async function counted(path: string, method: string, token: string) {
  const req = new Request(`http://localhost${path}`, { method, headers: { Accept: "application/json", Authorization: `Bearer ${token}` } });
  const res = await countingWorker.fetch(req as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
  const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
  return { res, roundTrips: roundTrips! };
}

describe("GET /api/auth/refresh at the same moment (probe 9037 M1)", () => {
  const tokenOf = async (res: Response) => ((await res.json()) as { access_token: string }).access_token;

  it.each([[2], [5], [8]])("%i refreshes of one token at once: exactly one 200 and one live token, the others 401 as a reused token", async (n) => {
    const user = await createUser();
    const token = await apiToken(user);
    const answers = await Promise.all(Array.from({ length: n }, () => api("/auth/refresh", { token })));
    const ok = answers.filter((r) => r.status === 200);
    const refused = answers.filter((r) => r.status !== 200);
    expect(ok).toHaveLength(1);
    for (const r of refused) {
      expect(r.status).toBe(401);
      expect(((await r.json()) as { message: string }).message).toBe("Unauthenticated.");
    }
    const successor = await tokenOf(ok[0]!);
    expect((await api("/auth/me", { method: "POST", token: successor })).status).toBe(200);
    // The old token is spent: a later refresh is refused as a reused one, and only the successor refreshes.
    const again = await api("/auth/refresh", { token });
    expect(again.status).toBe(401);
    expect(((await again.json()) as { message: string }).message).toBe("Unauthenticated.");
    // One refresh counted for the family, whatever the number of tries.
    const [{ n: counted }] = (await env.DB.prepare("select count(*) as n from token_refreshes where family = ?").bind(decodeJwt(token).fam).all<{ n: number }>()).results as [{ n: number }];
    expect(counted).toBe(1);
    // Logging out the successor leaves nothing of the family alive.
    expect((await api("/auth/logout", { method: "POST", token: successor })).status).toBe(200);
    expect((await api("/auth/me", { method: "POST", token: successor })).status).toBe(401);
  });

  it("a refresh costs 3 round trips (token check, the rotation's batch, the user's answer) and a logout 2", async () => {
    const user = await createUser();
    const token = await apiToken(user);
    await getAuthSettings(db());
    const refreshed = await counted("/api/auth/refresh", "GET", token);
    expect(refreshed.res.status).toBe(200);
    expect(refreshed.roundTrips).toBeLessThanOrEqual(3);
    const successor = ((await refreshed.res.json()) as { access_token: string }).access_token;
    const out = await counted("/api/auth/logout", "POST", successor);
    expect(out.res.status).toBe(200);
    expect(out.roundTrips).toBeLessThanOrEqual(2);
  });

  it("the family's 5 refreshes in 5 minutes hold when its tokens refresh at the same moment", async () => {
    const user = await createUser();
    const [row] = await db().select({ g: users.accessGeneration }).from(users).where(eq(users.id, user.id));
    const principal = { type: "user" as const, id: user.id, accessGeneration: row!.g };
    const now = new Date();
    const family = crypto.randomUUID();
    // Eight distinct tokens of one sign-in (one family), each refreshed once, all at once.
    const tokens = await Promise.all(Array.from({ length: 8 }, async () => (await issueAccessToken(env as unknown as Env, principal, now, Math.floor(now.getTime() / 1000), family)).access_token));
    const answers = await Promise.all(tokens.map((token) => api("/auth/refresh", { token })));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(5);
    const limited = answers.filter((r) => r.status === 429);
    expect(limited).toHaveLength(3);
    for (const r of limited) expect(Number(r.headers.get("Retry-After"))).toBeGreaterThan(0);
    // A refused refresh revokes nothing: its token still works for calls.
    const refusedTokens = tokens.filter((_, i) => answers[i]!.status === 429);
    for (const t of refusedTokens) expect((await api("/auth/me", { method: "POST", token: t })).status).toBe(200);
  });
});

describe("password checks use the sign-in throttle", () => {
  const idle = (user: TestUser) =>
    db()
      .update(sessions)
      .set({ lastSeenAt: new Date(Date.now() - 31 * 60_000).toISOString() })
      .where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, user.id)));

  it("the lock screen allows 5 wrong passwords, then ends the session: 40 guesses and the right password do not unlock it", async () => {
    const ip = newIp();
    const user = await createUser();
    const cookie = await signInCookie(user);
    await idle(user);
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await formFrom(ip, "/lock-screen", { password: `wrong-${i}`, redirectTo: "/dashboard" }, cookie)).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([303]));

    const right = await formFrom(ip, "/lock-screen", { password: user.password, redirectTo: "/dashboard" }, cookie);
    expect(right.status).toBe(303);
    expect(right.headers.get("Location")).toBe("/login");
    const after = await request("/dashboard", { cookie });
    expect(after.headers.get("Location")).toMatch(/^\/login/);
  });

  it("the sixth lock-screen guess ends the session and clears its cookie", async () => {
    const ip = newIp();
    const user = await createUser();
    const cookie = await signInCookie(user);
    await idle(user);
    for (let i = 0; i < 5; i++) expect((await formFrom(ip, "/lock-screen", { password: `wrong-${i}` }, cookie)).status).toBe(401);
    const ended = await formFrom(ip, "/lock-screen", { password: user.password }, cookie);
    expect(ended.headers.get("Location")).toBe("/login");
    expect(cookiesFrom(ended, cookie)).not.toMatch(/__session=/);
    const [left] = await db().select().from(sessions).where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, user.id)));
    expect(left).toBeUndefined();
  });

  it("change-password answers 429 with the throttle message after 5 wrong current passwords, and keeps the password", async () => {
    const ip = newIp();
    const user = await createUser();
    const cookie = await signInCookie(user);
    const [before] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    const fields = { password: "brand-new-pass-1", password_confirmation: "brand-new-pass-1" };
    for (let i = 0; i < 5; i++) {
      const wrong = await formFrom(ip, "/change-password", { ...fields, current_password: `wrong-${i}` }, cookie);
      expect(wrong.status).toBe(422);
      expect(await wrong.text()).toContain(AUTH_MESSAGES.currentPasswordWrong);
    }
    for (let i = 0; i < 10; i++) await formFrom(ip, "/change-password", { ...fields, current_password: `more-${i}` }, cookie);
    const right = await formFrom(ip, "/change-password", { ...fields, current_password: user.password }, cookie);
    expect(right.status).toBe(429);
    // Their own account: what happened and when to try again, not "sign-in attempts" (probe 9043 §6).
    expect(await right.text()).toMatch(/Too many wrong passwords\. Please try again in \d+ minutes?\./);
    const [after] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    expect(after!.hash).toBe(before!.hash);
  });

  it("the profile's two-factor switch is throttled the same way", async () => {
    const ip = newIp();
    const user = await createUser();
    const cookie = await signInCookie(user);
    for (let i = 0; i < 5; i++) expect((await formFrom(ip, "/profile", { intent: "two-factor", enabled: "on", current_password: `wrong-${i}` }, cookie)).status).toBe(422);
    const right = await formFrom(ip, "/profile", { intent: "two-factor", enabled: "on", current_password: user.password }, cookie);
    expect(right.status).toBe(429);
    expect(await right.text()).toMatch(/Too many wrong passwords\. Please try again in \d+ minutes?\./);
    const [row] = await db().select({ on: users.twoFactorEnabled }).from(users).where(eq(users.id, user.id));
    expect(row!.on).toBe(false);
  });

  it("guesses on the lock screen count toward the sign-in throttle of the account", async () => {
    const ip = newIp();
    const user = await createUser();
    const cookie = await signInCookie(user);
    await idle(user);
    for (let i = 0; i < 5; i++) await formFrom(ip, "/lock-screen", { password: `wrong-${i}` }, cookie);
    const login = await api("/auth/login", { method: "POST", body: { email: user.email, password: user.password } });
    expect(login.status).toBe(429);
  });
});

describe("two-factor challenges are bound to the client that signed in", () => {
  /** Signs a two-factor user in through the API from `ip`; answers the challenge id and the emailed code. */
  async function startApiChallenge(user: TestUser, ip = newIp()) {
    const res = await apiFrom(ip, "/auth/login", { email: user.email, password: user.password });
    expect(res.status).toBe(202);
    const body = (await res.json()) as { challenge_id: string };
    return { challengeId: body.challenge_id, code: codeIn((await lastEmail(user.email))!.text) };
  }
  const otherCode = (code: string, step = 1) => String((Number(code) + step) % 1_000_000).padStart(6, "0");
  const challengeRow = async (id: string) => (await db().select().from(twoFactorChallenges).where(eq(twoFactorChallenges.id, id)))[0]!;
  const emailsTo = async (to: string) => (await db().select({ id: outboxEmails.id }).from(outboxEmails).where(eq(outboxEmails.to, to))).length;

  it("a stranger who knows only the email cannot spend the attempts, resend, or void the challenge", async () => {
    const user = await createUser({ twoFactor: true });
    const { challengeId, code } = await startApiChallenge(user);
    const stranger = newIp();
    for (let i = 1; i <= 6; i++) {
      const res = await apiFrom(stranger, "/two-factor/verify", { email: user.email, code: otherCode(code, i) });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe(AUTH_MESSAGES.noChallenge);
    }
    const guessedId = await apiFrom(stranger, "/two-factor/verify", { email: user.email, code: otherCode(code), challenge_id: "x".repeat(32) });
    expect(guessedId.status).toBe(422);
    expect((await apiFrom(stranger, "/two-factor/backup-code", { email: user.email, backup_code: "AAAAA-BBBBB" })).status).toBe(422);
    expect((await apiFrom(stranger, "/two-factor/resend", { email: user.email })).status).toBe(422);
    expect(await emailsTo(user.email)).toBe(1);
    expect((await challengeRow(challengeId)).attemptsRemaining).toBe(5);

    const owner = await apiFrom(newIp(), "/two-factor/verify", { email: user.email, code, challenge_id: challengeId });
    expect(owner.status).toBe(200);
    expect(((await owner.json()) as { access_token: string }).access_token).toBeTruthy();
  });

  it("the challenge id only works with its own account's email", async () => {
    const user = await createUser({ twoFactor: true });
    const other = await createUser({ twoFactor: true });
    const { challengeId, code } = await startApiChallenge(user);
    expect((await apiFrom(newIp(), "/two-factor/verify", { email: other.email, code, challenge_id: challengeId })).status).toBe(422);
    expect((await challengeRow(challengeId)).attemptsRemaining).toBe(5);
  });

  it("a stranger's guesses count against the stranger's address: past the allowance they answer 429", async () => {
    const user = await createUser({ twoFactor: true });
    const { challengeId, code } = await startApiChallenge(user);
    const stranger = newIp();
    for (let i = 1; i <= 20; i++) await apiFrom(stranger, "/two-factor/verify", { email: user.email, code: otherCode(code, i) });
    const limited = await apiFrom(stranger, "/two-factor/verify", { email: user.email, code: otherCode(code, 21) });
    expect(limited.status).toBe(429);
    const body = (await limited.json()) as { message: string; retry_after: number };
    expect(body.message).toBe(AUTH_MESSAGES.codeThrottled);
    expect(body.retry_after).toBeGreaterThan(0);
    // The owner, elsewhere, is not affected.
    expect((await apiFrom(newIp(), "/two-factor/verify", { email: user.email, code, challenge_id: challengeId })).status).toBe(200);
  });

  it("wrong codes with the right challenge id still count down the challenge's attempts", async () => {
    const user = await createUser({ twoFactor: true });
    const { challengeId, code } = await startApiChallenge(user);
    const res = await apiFrom(newIp(), "/two-factor/verify", { email: user.email, code: otherCode(code), challenge_id: challengeId });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { attempts_remaining: number }).attempts_remaining).toBe(4);
  });

  it("allows 3 resends per challenge, then 429", async () => {
    const user = await createUser({ twoFactor: true });
    const { challengeId } = await startApiChallenge(user);
    const ip = newIp();
    for (let i = 0; i < 3; i++) expect((await apiFrom(ip, "/two-factor/resend", { email: user.email, challenge_id: challengeId })).status).toBe(200);
    const fourth = await apiFrom(ip, "/two-factor/send-code", { email: user.email, method: "email", challenge_id: challengeId });
    expect(fourth.status).toBe(429);
    expect(((await fourth.json()) as { message: string }).message).toBe(AUTH_MESSAGES.resendLimit);
    expect(await emailsTo(user.email)).toBe(4);
  });

  it("sends an account at most 10 sign-in codes an hour", async () => {
    const user = await createUser({ twoFactor: true });
    const ip = newIp();
    let last = "";
    for (let signIn = 0; signIn < 3; signIn++) {
      last = (await startApiChallenge(user, ip)).challengeId;
      const resends = signIn < 2 ? 3 : 1;
      for (let i = 0; i < resends; i++) expect((await apiFrom(ip, "/two-factor/resend", { email: user.email, challenge_id: last })).status).toBe(200);
    }
    expect(await emailsTo(user.email)).toBe(10);
    const refused = await apiFrom(ip, "/two-factor/resend", { email: user.email, challenge_id: last });
    expect(refused.status).toBe(429);
    const body = (await refused.json()) as { message: string; retry_after: number };
    expect(body.message).toBe(AUTH_MESSAGES.codeEmailsLimit);
    expect(body.retry_after).toBeGreaterThan(3000);
    expect(refused.headers.get("Retry-After")).toBe(String(body.retry_after));
    expect(await emailsTo(user.email)).toBe(10);
    // A new sign-in with the right password sends no 11th code either (probe 8895, stop 25): 429 with the wait.
    const again = await apiFrom(ip, "/auth/login", { email: user.email, password: user.password });
    expect(again.status).toBe(429);
    const signInBody = (await again.json()) as { message: string; retry_after: number };
    expect(signInBody.message).toBe(AUTH_MESSAGES.codeEmailsLimit);
    expect(signInBody.retry_after).toBeGreaterThan(3000);
    expect(await emailsTo(user.email)).toBe(10);
  });

  it("a challenge lives 15 minutes whatever is resent: a resent code expires with it, and after it nothing works", async () => {
    const user = await createUser({ twoFactor: true });
    const { challengeId } = await startApiChallenge(user);
    const ip = newIp();
    await db().update(twoFactorChallenges).set({ createdAt: new Date(Date.now() - 13 * 60_000).toISOString() }).where(eq(twoFactorChallenges.id, challengeId));
    const resent = await apiFrom(ip, "/two-factor/resend", { email: user.email, challenge_id: challengeId });
    expect(resent.status).toBe(200);
    expect(((await resent.json()) as { expires_in_minutes: number }).expires_in_minutes).toBe(2);
    const code = codeIn((await lastEmail(user.email))!.text);
    expect(new Date((await challengeRow(challengeId)).expiresAt!).getTime()).toBeLessThanOrEqual(Date.now() + 2 * 60_000 + 1000);

    await db().update(twoFactorChallenges).set({ createdAt: new Date(Date.now() - 16 * 60_000).toISOString() }).where(eq(twoFactorChallenges.id, challengeId));
    expect((await apiFrom(ip, "/two-factor/verify", { email: user.email, code, challenge_id: challengeId })).status).toBe(422);
    expect((await apiFrom(ip, "/two-factor/resend", { email: user.email, challenge_id: challengeId })).status).toBe(422);
  });

  it("the screens: resend is limited to 3 per challenge, and a post without the challenge cookie touches nothing", async () => {
    const user = await createUser({ twoFactor: true });
    const ip = newIp();
    const login = await formFrom(ip, "/login", { email: user.email, password: user.password, redirectTo: "/dashboard" });
    const jar = cookiesFrom(login);
    expect(jar).toMatch(/__2fa=/);
    for (let i = 0; i < 3; i++) expect((await formFrom(ip, "/two-factor-verify", { intent: "resend", redirectTo: "/dashboard" }, jar)).status).toBe(303);
    const fourth = await formFrom(ip, "/two-factor-verify", { intent: "resend", redirectTo: "/dashboard" }, jar);
    expect(fourth.status).toBe(429);
    expect(await fourth.text()).toContain(AUTH_MESSAGES.resendLimit);

    const code = codeIn((await lastEmail(user.email))!.text);
    for (let i = 1; i <= 5; i++) {
      const stranger = await formFrom(newIp(), "/two-factor-verify", { intent: "verify", code: otherCode(code, i), email: user.email });
      expect(stranger.headers.get("Location")).toBe("/login");
    }
    const ok = await formFrom(ip, "/two-factor-verify", { intent: "verify", code, redirectTo: "/dashboard" }, jar);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toBe("/dashboard");
  });
});

describe("POST /api/password-reset/request does the same work for known and unknown emails", () => {
  it.each([["a staff user"], ["a parent"]])("answers the same status and body for %s and for an unknown email", async (who) => {
    const parent = who === "a parent";
    const account = parent ? await createParent() : await createUser();
    const known = await apiFrom(newIp(), "/password-reset/request", { email: account.email, parent });
    const unknown = await apiFrom(newIp(), "/password-reset/request", { email: `nobody-${account.id}@test.example`, parent });
    expect(known.status).toBe(200);
    expect(unknown.status).toBe(known.status);
    const { challenge_id: knownId, ...knownBody } = (await known.json()) as { challenge_id: string };
    const { challenge_id: unknownId, ...unknownBody } = (await unknown.json()) as { challenge_id: string };
    expect(unknownBody).toEqual(knownBody);
    // Both get an opaque challenge id of the same shape; the unknown email's leads nowhere.
    expect(knownId).toMatch(/^[\w-]{32}$/);
    expect(unknownId).toMatch(/^[\w-]{32}$/);
    expect(codeIn((await lastEmail(account.email))!.text)).toMatch(/^\d{6}$/);
  });

  /**
   * Runs the request against a statement-counting database, counting SHA-256 digests and deferred sends; `sql`: the
   * text of its statements in order, and `rows`: the audit rows it wrote.
   */
  async function measure(email: string, kind: "user" | "parent" = "user", ip = newIp()) {
    // The settings are cached per isolate for 30 s: a fresh copy for each call, so none expires halfway through one.
    forgetAuthSettings();
    await getAuthSettings(db());
    const counting = countingDb();
    const deferred: Promise<unknown>[] = [];
    const [newest] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const digest = vi.spyOn(crypto.subtle, "digest");
    const answer = await requestPasswordReset(
      { db: counting.db, env, email: outboxSender(db()), ip, isDev: true, now: () => new Date(), waitUntil: (p) => deferred.push(p) },
      email,
      kind,
      "api",
    );
    const hashes = digest.mock.calls.length;
    digest.mockRestore();
    await Promise.all(deferred);
    const rows = await db()
      .select({ action: auditLog.action, entity: auditLog.entity, entityId: auditLog.entityId, detail: auditLog.detail })
      .from(auditLog)
      .where(gt(auditLog.id, newest?.id ?? 0));
    return { statements: counting.statements(), roundTrips: counting.roundTrips(), hashes, deferred: deferred.length, sql: counting.queries(), rows, answer: answer.kind };
  }

  it("runs the same D1 statements in the same round trips and the same hashing, within the hour's 5 or past them, and past the address's 20; only a real account gets an email, after the answer", async () => {
    const user = await createUser();
    const parent = await createParent();
    const limited = await createUser();
    const limitedUnknown = "nobody-limited@test.example";
    for (let i = 0; i < 5; i++) await measure(limited.email);
    for (let i = 0; i < 5; i++) await measure(limitedUnknown);
    // An address that has made its 20 requests of the hour (decision 016, stop 45).
    const flooded = newIp();
    for (let i = 0; i < 20; i++) await measure(`nobody-flood-${i}@test.example`, "user", flooded);
    const addressed = await createUser();
    const before = await emailsCount();
    const forUser = await measure(user.email);
    const forParent = await measure(parent.email, "parent");
    const forUnknown = await measure("nobody-at-all@test.example");
    // A parent's email asked for as staff (no parent tick) is an unknown email.
    const forParentAsStaff = await measure(parent.email);
    const forLimited = await measure(limited.email);
    const forLimitedUnknown = await measure(limitedUnknown);
    const forFloodedAccount = await measure(addressed.email, "user", flooded);
    const forFloodedUnknown = await measure("nobody-flood-next@test.example", "user", flooded);
    const work = ({ statements, roundTrips, hashes, sql }: Awaited<ReturnType<typeof measure>>) => ({ statements, roundTrips, hashes, sql });
    // One batch reads the account, the hour's count and the chain's tail; one batch writes the challenge (or decoy),
    // voids the ones it replaces and appends the audit row: the tag, the code and the row are hashed (decision 019, stop 44).
    expect(work(forUser)).toMatchObject({ statements: 5, roundTrips: 2, hashes: 3 });
    expect(forUser.deferred).toBe(1);
    expect(forParent.deferred).toBe(1);
    // The same statements, in the same order, for every case; past the hour's 5 requests too (their writes then store
    // nothing, in their own WHERE).
    for (const other of [forUnknown, forParentAsStaff, forLimited, forLimitedUnknown, forFloodedAccount, forFloodedUnknown]) {
      expect(work(other)).toEqual(work(forUser));
      expect(other.deferred).toBe(0);
    }
    // Past the address's 20 the answer is the refusal, the same for an account's email and an unknown one.
    expect([forUser.answer, forFloodedAccount.answer, forFloodedUnknown.answer]).toEqual(["requested", "throttled", "throttled"]);
    // A parent's account is read from its own table (its own columns); every other statement is the staff account's.
    expect({ ...work(forParent), sql: forParent.sql.slice(1) }).toEqual({ ...work(forUser), sql: forUser.sql.slice(1) });
    expect(forParent.sql[0]).toMatch(/ from "parents" where/);
    expect((await emailsCount()) - before).toBe(2);

    // Each request writes one row, whatever the email: on the account when the email has one of the kind asked for.
    const detail = (r: { detail: string | null }) => JSON.parse(r.detail ?? "null");
    const row = (m: Awaited<ReturnType<typeof measure>>) => (expect(m.rows).toHaveLength(1), { ...m.rows[0]!, detail: detail(m.rows[0]!) });
    expect(row(forUser)).toEqual({ action: "password_reset_requested", entity: "employee", entityId: String(user.id), detail: { email: user.email, via: "api" } });
    expect(row(forParent)).toEqual({ action: "password_reset_requested", entity: "parent", entityId: String(parent.id), detail: { email: parent.email, via: "api", parent: true } });
    expect(row(forUnknown)).toEqual({ action: "password_reset_requested", entity: "session", entityId: null, detail: { email: "nobody-at-all@test.example", via: "api" } });
    expect(row(forParentAsStaff)).toEqual({ action: "password_reset_requested", entity: "session", entityId: null, detail: { email: parent.email, via: "api" } });
    expect(row(forLimited)).toEqual({ action: "password_reset_requested", entity: "employee", entityId: String(limited.id), detail: { email: limited.email, via: "api", limited: true } });
    expect(row(forLimitedUnknown)).toEqual({ action: "password_reset_requested", entity: "session", entityId: null, detail: { email: limitedUnknown, via: "api", limited: true } });
    // The address's first refusal in the hour is written, on no account whatever the email; the next ones are not.
    expect(row(forFloodedAccount)).toEqual({ action: "password_reset_request_throttled", entity: "session", entityId: null, detail: { email: addressed.email, via: "api", per_address: 20 } });
    expect(forFloodedUnknown.rows).toEqual([]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  async function emailsCount() {
    return (await db().select({ id: outboxEmails.id }).from(outboxEmails)).length;
  }
});

describe("password-reset codes are bound to the request that asked for them", () => {
  const otherCode = (code: string, step = 1) => String((Number(code) + step) % 1_000_000).padStart(6, "0");

  it("API: a verify without the request's challenge_id never spends the attempts; with it the code works", async () => {
    const user = await createUser();
    const asked = await apiFrom(newIp(), "/password-reset/request", { email: user.email });
    const { challenge_id } = (await asked.json()) as { challenge_id: string };
    const code = codeIn((await lastEmail(user.email))!.text);
    const stranger = newIp();
    for (let i = 1; i <= 6; i++) {
      const res = await apiFrom(stranger, "/password-reset/verify", { email: user.email, code: otherCode(code, i) });
      expect(res.status).toBe(422);
    }
    expect((await apiFrom(stranger, "/password-reset/verify", { email: user.email, code, challenge_id: "y".repeat(32) })).status).toBe(422);
    const owner = await apiFrom(newIp(), "/password-reset/verify", { email: user.email, code, challenge_id });
    expect(owner.status).toBe(200);
    expect(((await owner.json()) as { reset_token: string }).reset_token).toBeTruthy();
  });

  it("screens: a browser without the reset challenge cookie cannot spend the code's attempts", async () => {
    const user = await createUser();
    const ip = newIp();
    const jar = cookiesFrom(await formFrom(ip, "/forgot-password", { email: user.email }));
    expect(jar).toMatch(/__reset_challenge=/);
    const code = codeIn((await lastEmail(user.email))!.text);
    // Another browser that asked for nothing but sets the email cookie by hand.
    const strangerJar = `__reset_email=${encodeURIComponent(user.email)}`;
    for (let i = 1; i <= 5; i++) expect((await formFrom(newIp(), "/reset-password-verify", { intent: "verify", code: otherCode(code, i) }, strangerJar)).status).toBe(422);
    const verified = await formFrom(ip, "/reset-password-verify", { intent: "verify", code }, jar);
    expect(verified.status).toBe(303);
    expect(verified.headers.get("Location")).toBe("/reset-password-change");
  });
});
