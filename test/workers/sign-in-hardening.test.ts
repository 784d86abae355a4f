import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { sessions, users } from "~/db/schema";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import worker from "../../workers/app";
import { api, apiToken, cookiesFrom, createUser, db, request, signInCookie, type TestUser } from "./helpers";

let ipSeq = 0;
/** Each test guesses from its own address, so the per-address throttle of one test never reaches another. */
const newIp = () => `203.0.113.${++ipSeq}`;

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
  it.each([["/login"], ["/api/version"], ["/api/auth/refresh"]])("a production Worker without JWT_SECRET answers %s with 500 and logs why", async (path) => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const res = await fetchWith({ APP_ENV: "production", JWT_SECRET: undefined }, path);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain("misconfigured");
    expect(logged).toHaveBeenCalledWith("misconfigured: Missing required secrets: JWT_SECRET");
  });

  it("a production Worker does not accept tokens signed with the development secret", async () => {
    const token = await apiToken(await createUser());
    const ctx = createExecutionContext();
    const req = new Request("http://localhost/api/auth/me", { method: "POST", headers: { Authorization: `Bearer ${token}` } });
    const res = await worker.fetch(req as Request<unknown, IncomingRequestCfProperties>, { ...env, APP_ENV: "production", JWT_SECRET: "a-real-production-secret-of-enough-length" }, ctx);
    await waitOnExecutionContext(ctx);
    expect(res.status).toBe(401);
  });

  it.each([["/dev/outbox"], ["/api/dev/outbox"]])("%s does not exist in production", async (path) => {
    const res = await fetchWith({ APP_ENV: "production", JWT_SECRET: "a-real-production-secret-of-enough-length" }, path);
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
    for (let i = 0; i < 35; i++) await formFrom(ip, "/change-password", { ...fields, current_password: `more-${i}` }, cookie);
    const right = await formFrom(ip, "/change-password", { ...fields, current_password: user.password }, cookie);
    expect(right.status).toBe(429);
    expect(await right.text()).toContain(AUTH_MESSAGES.throttled);
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
