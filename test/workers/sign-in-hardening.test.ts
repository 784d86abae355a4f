import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import worker from "../../workers/app";
import { api, apiToken, createUser } from "./helpers";

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
