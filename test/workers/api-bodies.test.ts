import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { claims, locations } from "~/db/schema";
import { VERSION_MESSAGE } from "~/domain/validation";
import { createClaim } from "./claim-fixtures";
import { jsonDepth, MAX_JSON_DEPTH } from "../../workers/api/env";
import { api, apiToken, BASE, createLocation, createPatient, createUser, db } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * A body that says it is JSON must be JSON, nested at most MAX_JSON_DEPTH levels (refuseMalformedJson, decision
 * 017 stop 24): 400 JSON with a message before any handler, so nothing changes. A black-box probe had a 5,000-level
 * array in `version` crash the Worker (500, stack overflow in Number()), and a garbled body on calls that read none
 * (logout, cancel, mark-read, reset two-factor, withdraw a consent) still act.
 */
function raw(path: string, method: string, token: string, body: string) {
  return appFetch(`${BASE}/api${path}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json" }, body });
}

describe("JSON bodies", () => {
  it.each([
    [0, 0],
    [{}, 1],
    [{ a: [1, { b: 2 }] }, 3],
    [[[[]]], 3],
  ])("jsonDepth(%j) = %i", (value, depth) => {
    expect(jsonDepth(value)).toBe(depth);
  });

  it("stops counting past the limit without recursion (no stack overflow on 100,000 levels)", () => {
    const deep = JSON.parse("[".repeat(100_000) + "]".repeat(100_000));
    expect(jsonDepth(deep)).toBe(MAX_JSON_DEPTH + 1);
  });

  it("a body nested deeper than the limit: 400 with a message, the record untouched (was a 500)", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const deep = "[".repeat(5000) + "]".repeat(5000);
    const res = await raw(`/v2/locations/${loc.id}`, "PATCH", token, `{"version":${deep},"title":"Renamed"}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe(`The request body nests more than ${MAX_JSON_DEPTH} levels deep.`);
    const [row] = await db().select().from(locations).where(eq(locations.id, loc.id));
    expect([row!.title, row!.version]).toEqual([loc.title, loc.version]);
  });

  it("a garbled body on a call that reads none is refused: sign-out with it leaves the token working", async () => {
    const token = await apiToken(await createUser({ permissions: [] }));
    const res = await raw("/auth/logout", "POST", token, "this is not json");
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ message: "The request body must be JSON." });
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(200);
    expect((await raw("/auth/logout", "POST", token, "")).status).toBe(200);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(401);
  });
});

describe("a key given twice in a JSON body (decision 017, stop 38)", () => {
  it.each([
    ["top level", '{"title":"A","title":"B"}', "title"],
    ["escaped equal to plain", '{"title":"A","t\\u0069tle":"B"}', "title"],
    ["nested, inside an array", '{"title":"A","extra":[{"x":1},{"y":1,"y":2}]}', "extra.1.y"],
  ])("%s: 422 naming the key, the record untouched", async (_, body, key) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const res = await raw(`/v2/locations/${loc.id}`, "PATCH", token, body);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: `Give ${key} once.`, errors: { [key]: `Give ${key} once.` } });
    const [row] = await db().select().from(locations).where(eq(locations.id, loc.id));
    expect([row!.title, row!.version]).toEqual([loc.title, loc.version]);
  });

  it("the same key in two entries is not a repeat: the change saves", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const res = await raw(`/v2/locations/${loc.id}`, "PATCH", token, '{"title":"Renamed twice over","extra":[{"id":1},{"id":2}]}');
    expect(res.status).toBe(200);
  });
});

describe("valid JSON that is not an object (probe 8982 D6)", () => {
  // Every call, signed in or not, answers the same 400 before reading anything: it used to be "must be JSON." on most,
  // a 422 with every field's error on password-reset change, and "Email not found" on two-factor verify.
  const paths: [method: string, path: string][] = [
    ["POST", "/v2/patients"],
    ["POST", "/v2/tickets"],
    ["POST", "/auth/login"],
    ["POST", "/client_report/store"],
    ["POST", "/password-reset/change"],
    ["POST", "/two-factor/verify"],
    ["POST", "/v2/scheduled-sessions"],
    ["POST", "/v2/remittances"],
    ["PATCH", "/v2/locations/1"],
    ["POST", "/auth/logout"],
  ];
  it.each(["[]", "null", "123", '"str"', "true"])("%s: 400 'The request body must be a JSON object.' on every call alike", async (body) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ role: "ADMIN", locations: [loc.id] }));
    for (const [method, path] of paths) {
      const res = await raw(path.replace("/1", `/${loc.id}`), method, token, body);
      expect([res.status, await res.json()], `${method} ${path}`).toEqual([400, { message: "The request body must be a JSON object." }]);
    }
    const [row] = await db().select().from(locations).where(eq(locations.id, loc.id));
    expect(row!.version).toBe(loc.version);
    // The token still works: the sign-out with a bad body did nothing.
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(200);
  });
});

describe("when the error page itself fails", () => {
  it("a screen error redirects to the error page; an error on the error page answers a plain 500 page, never a redirect loop", async () => {
    const { Hono } = await import("hono");
    const { env, createExecutionContext } = await import("cloudflare:test");
    const { withAppMiddleware } = await import("../../workers/app");
    const { ERROR_500_HTML } = await import("../../workers/error-page");
    const app = withAppMiddleware(new Hono());
    app.all("*", () => {
      throw new Error("broken bundle");
    });
    const errors: unknown[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((...a) => void errors.push(a));
    const screen = await app.fetch(new Request(`${BASE}/login`), env, createExecutionContext());
    expect([screen.status, screen.headers.get("Location")]).toEqual([303, "/error/error500"]);
    const page = await app.fetch(new Request(`${BASE}/error/error500`), env, createExecutionContext());
    expect(page.status).toBe(500);
    expect(page.headers.get("Location")).toBeNull();
    expect(await page.text()).toBe(ERROR_500_HTML);
    spy.mockRestore();
    expect(errors).toHaveLength(2);
  });
});

describe("a malformed version is refused, never read as 'no version' (probe, stop 24)", () => {
  it.each([["abc"], [1.5], [[1]], [true], ["1e0"], [-1]])("PATCH with version %j: 422 at version, the record unchanged", async (version) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const res = await api(`/v2/locations/${loc.id}`, { method: "PATCH", token, body: { version, title: "Renamed" } });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: VERSION_MESSAGE, errors: { version: VERSION_MESSAGE } });
    const [row] = await db().select().from(locations).where(eq(locations.id, loc.id));
    expect(row!.title).toBe(loc.title);
  });

  it("a whole number (or its digits) still checks: the current one saves, a stale one answers 409", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    expect((await api(`/v2/locations/${loc.id}`, { method: "PATCH", token, body: { version: ` ${loc.version} `, title: "Renamed" } })).status).toBe(200);
    expect((await api(`/v2/locations/${loc.id}`, { method: "PATCH", token, body: { version: loc.version, title: "Again" } })).status).toBe(409);
  });

  it("a claim's status with version 'abc' is refused and the claim stays as it was (it was voided)", async () => {
    const loc = await createLocation();
    const patient = await createPatient({ locationId: loc.id });
    const { claim } = await createClaim(patient, [{ cpt: "97153", serviceDate: "2026-11-02", units: 4, chargeCents: 5000 }], { status: "generated" });
    const token = await apiToken(await createUser({ permissions: ["manage_claims"], locations: [loc.id] }));
    const res = await api(`/v2/claims/${claim.id}/status`, { method: "POST", token, body: { status: "rejected", version: "abc" } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ version: VERSION_MESSAGE });
    const [after] = await db().select().from(claims).where(eq(claims.id, claim.id));
    expect([after!.status, after!.version]).toEqual(["generated", claim.version]);
  });
});

