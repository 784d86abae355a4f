import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { PERMISSIONS } from "~/domain/permissions";
import worker from "../../workers/app";
import { mockMode } from "../../workers/api/mock";
import { api } from "./helpers";

/**
 * Mock mode (platform §7, §9): with MOCK_MODE=true the spec's mock calls answer its shapes, every other API
 * call "Endpoint not found", and D1 is never touched. Outside development it refuses to run.
 */

/** A D1 binding that records and refuses every use. */
function untouchableDb() {
  const uses: string[] = [];
  const refuse = (what: string) => () => {
    uses.push(what);
    throw new Error(`D1 touched in mock mode: ${what}`);
  };
  // Opening a Sessions API session (every request does, decision 022) queries nothing; its queries are refused.
  const session = { prepare: refuse("prepare"), batch: refuse("batch"), getBookmark: () => null };
  const binding = { prepare: refuse("prepare"), batch: refuse("batch"), exec: refuse("exec"), dump: refuse("dump"), withSession: () => session } as unknown as D1Database;
  return { binding, uses };
}

async function call(path: string, init: { method?: string; body?: unknown; token?: string } = {}, over: Partial<Env> = {}) {
  const db = untouchableDb();
  const headers = new Headers({ Accept: "application/json" });
  if (init.body !== undefined) headers.set("Content-Type", "application/json");
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  const request = new Request(`http://localhost${path}`, { method: init.method ?? "GET", headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const ctx = createExecutionContext();
  const res = await worker.fetch(request, { ...env, MOCK_MODE: "true", ...over, DB: db.binding } as Env, ctx);
  await waitOnExecutionContext(ctx);
  return { res, body: (await res.json()) as Record<string, any>, dbUses: db.uses };
}

const USER_FIELDS = ["id", "name", "surname", "avatar", "roles", "email", "location_id", "permissions", "two_factor_enabled"];

describe("mock mode", () => {
  it("is on only for the exact string \"true\" in development; refused elsewhere; off by default", () => {
    expect(
      [
        { MOCK_MODE: undefined, APP_ENV: "development" },
        { MOCK_MODE: "false", APP_ENV: "development" },
        { MOCK_MODE: "TRUE", APP_ENV: "development" },
        { MOCK_MODE: "1", APP_ENV: "development" },
        { MOCK_MODE: "true", APP_ENV: "development" },
        { MOCK_MODE: "true", APP_ENV: "production" },
        { MOCK_MODE: "true", APP_ENV: "" },
      ].map((e) => mockMode(e)),
    ).toEqual(["off", "off", "off", "off", "on", "refused", "refused"]);
    // The configured Worker (wrangler.toml) runs the real API.
    expect(mockMode(env)).toBe("off");
  });

  it("login answers the spec's mock shape (32400-second token), without touching D1", async () => {
    const { res, body, dbUses } = await call("/api/auth/login", { method: "POST", body: { email: "anyone@example.com", password: "anything", parent: false } });
    expect(res.status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(["access_token", "message", "token_type", "user"]);
    expect(body.message).toEqual(expect.any(String));
    expect(body.token_type).toBe("bearer");
    expect(Object.keys(body.user).sort()).toEqual([...USER_FIELDS].sort());
    expect(body.user.permissions).toEqual([...PERMISSIONS]);
    expect(body.access_token).toMatchObject({ token_type: "bearer", expires_in: 32400, user: body.user });
    expect(body.access_token.original).toMatchObject({ access_token: expect.any(String), token_type: "bearer", expires_in: 32400 });
    expect(dbUses).toEqual([]);
  });

  it("the refusing D1 binding does catch a use: with mock mode off, the same login reaches D1", async () => {
    // The Worker logs the refused use as an unexpected error: expected here.
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const { res, dbUses } = await call("/api/auth/login", { method: "POST", body: { email: "anyone@example.com", password: "anything" } }, { MOCK_MODE: "false" });
    expect(res.status).toBe(500);
    expect(dbUses.length).toBeGreaterThan(0);
    expect(String(logged.mock.calls[0]?.[1])).toContain("D1 touched");
  });

  it("login without an email or password is refused (422), still without D1", async () => {
    const { res, body, dbUses } = await call("/api/auth/login", { method: "POST", body: { email: "a@b.co" } });
    expect(res.status).toBe(422);
    expect(body.message).toBe("The email and password are required.");
    expect(dbUses).toEqual([]);
  });

  it.each([
    ["POST", "/api/auth/register", 201, (b: Record<string, any>) => expect(b).toMatchObject({ message: expect.any(String), token_type: "bearer", user: { id: 1 } })],
    ["POST", "/api/auth/logout", 200, (b: Record<string, any>) => expect(b).toEqual({ message: "Successfully logged out" })],
    ["POST", "/api/auth/me", 200, (b: Record<string, any>) => expect(Object.keys(b).sort()).toEqual([...USER_FIELDS].sort())],
    [
      "GET",
      "/api/dashboard/admin",
      200,
      (b: Record<string, any>) =>
        expect(Object.keys(b).sort()).toEqual(
          [
            "bips", "locations", "total_bips", "total_patients", "total_noteRbts", "total_noteBcbas", "total_employees", "recent_patients",
            "num_bips_current", "num_bips_before", "porcentaje_d", "total_bips_attention", "num_bips_attention_current", "num_bips_attention_before", "porcentaje_da",
            "num_patients_current", "num_patients_before", "porcentajeDP",
          ].sort(),
        ),
    ],
    [
      "GET",
      "/api/dashboard/admin-year?year=2025",
      200,
      (b: Record<string, any>) => {
        expect(b.months_name).toEqual(["Enero", "Febrero", "Marzo", "Abril", "Mayo", "Junio", "Julio", "Agosto", "Septiembre", "Octubre", "Noviembre", "Diciembre"]);
        expect(b.query_patients_by_gender).toHaveLength(12);
        expect(b.query_patients_by_gender[0]).toEqual({ year: 2025, month: 1, hombre: expect.any(Number), mujer: expect.any(Number), no_indicado: expect.any(Number) });
      },
    ],
  ] as const)("%s %s answers its mock shape without a token or D1", async (method, path, status, check) => {
    const { res, body, dbUses } = await call(path, { method, body: method === "POST" ? {} : undefined });
    expect(res.status).toBe(status);
    check(body);
    expect(dbUses).toEqual([]);
  });

  it.each([
    ["GET", "/api/v2/parents"],
    ["GET", "/api/version"],
    ["GET", "/api/auth/refresh"],
    ["GET", "/api/auth/login"],
    ["POST", "/api/two-factor/verify"],
    ["DELETE", "/api/v2/patients/1"],
    ["GET", "/api/nothing/here"],
  ])("any other call (%s %s) answers 404 'Endpoint not found' without D1", async (method, path) => {
    const { res, body, dbUses } = await call(path, { method, body: method === "GET" ? undefined : {}, token: "mock-access-token" });
    expect(res.status).toBe(404);
    expect(body.message).toBe("Endpoint not found");
    expect(dbUses).toEqual([]);
  });

  it("refuses to run outside development: every request answers 503, the real API and screens included", async () => {
    for (const path of ["/api/auth/login", "/api/v2/parents", "/login"]) {
      const { res, body, dbUses } = await call(path, {}, { APP_ENV: "production", JWT_SECRET: "a-production-secret-of-enough-length", RESEND_API_KEY: "re_production_key" });
      expect(res.status, path).toBe(503);
      expect(body.message).toBe("Mock mode is not allowed outside development. Unset MOCK_MODE.");
      expect(dbUses).toEqual([]);
    }
  });

  it("is off in the configured Worker: login is the real one, and the mock token is refused", async () => {
    const login = await api("/auth/login", { method: "POST", body: { email: "nobody@example.com", password: "anything" } });
    expect(login.status).toBe(401);
    const me = await api("/auth/me", { method: "POST", token: "mock-access-token", body: {} });
    expect(me.status).toBe(401);
  });
});
