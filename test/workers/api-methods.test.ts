import { beforeAll, describe, expect, it } from "vitest";
import { allowedMethods, api as apiApp } from "../../workers/api";
import { unsupported } from "../../workers/api/rest";
import { api, apiToken, createLocation, createUser, expectUnsupportedMethods } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * A method a path does not serve answers 405 JSON "Unsupported HTTP method" (platform §7) on the billing, claims,
 * scrubber, pacing, note PDF and AI summary routers, the employees', insurers' and clients' own calls, and sign-in,
 * two-factor, password reset and version — never a fall-through to the screens (their cross-site 403 or the HTML 404
 * page), a 404, or a sibling `/:id` call. The walk below checks every path of the API router the same way.
 */
let token: string;

beforeAll(async () => {
  const location = await createLocation();
  token = await apiToken(await createUser({ permissions: ["view_notes", "manage_notes", "manage_claims"], locations: [location.id] }));
});

describe("405 JSON for a method the path does not serve", () => {
  it.each([
    ["claims", [["PUT", "/v2/claims"], ["DELETE", "/v2/claims/1"], ["POST", "/v2/claims/billable-notes"], ["PUT", "/v2/claims/1/download"], ["GET", "/v2/claims/1/send"], ["GET", "/v2/claims/1/status"], ["GET", "/v2/claims/1/lines/2"], ["POST", "/v2/claims/1/lines/2"]]],
    ["scrubber", [["POST", "/v2/billing/scrubber"], ["DELETE", "/v2/billing/scrubber/notes/1"]]],
    ["pacing", [["POST", "/v2/pa-service-calculator/1"], ["PUT", "/v2/pa-services/1/pacing"], ["DELETE", "/v2/pa-pacing"]]],
    ["note PDFs", [["POST", "/v2/note_rbt/pdf/1"], ["DELETE", "/v2/note_bcba/pdf/1"], ["PUT", "/v2/note_combined/pdf/1"]]],
    ["AI summary", [["GET", "/note_rbt/generate-summary"], ["PUT", "/note_bcba/generate-summary"], ["GET", "/note_combined/generate-summary"]]],
    ["employees (first-generation calls)", [["PUT", "/doctors/config"], ["DELETE", "/doctors/show/1"]]],
    [
      "user administration",
      [["GET", "/v2/users/createUser"], ["PUT", "/v2/users/editUser/1"], ["GET", "/v2/users/1/change-password"], ["POST", "/v2/users/1/change-password"], ["GET", "/v2/users/1/reset-two-factor"], ["DELETE", "/v2/users/1/reset-two-factor"]],
    ],
    ["insurers' calls", [["PUT", "/insurance/service"], ["GET", "/insurance/store/service"], ["POST", "/insurance/servicebyInsurance/1"]]],
    ["clients' extra calls", [["POST", "/v2/patients/1/pa-services"], ["DELETE", "/v2/patients/by-identifier/X"]]],
    [
      "sign-in, two-factor, password reset and version",
      [
        ["GET", "/auth/login"], ["GET", "/auth/me"], ["GET", "/auth/logout"], ["POST", "/auth/refresh"], ["DELETE", "/auth/me"],
        ["GET", "/two-factor/verify"], ["PUT", "/two-factor/backup-code"], ["GET", "/two-factor/resend"], ["GET", "/two-factor/send-code"], ["POST", "/two-factor/status"],
        ["GET", "/password-reset/request"], ["GET", "/password-reset/verify"], ["PATCH", "/password-reset/change"], ["POST", "/version"],
      ],
    ],
    // POST-only calls beside a `/:id` route, which must not read them as an id ("Weekly report not found.").
    [
      "POST-only calls beside an id",
      [["GET", "/v2/weekly-reports/check-excel"], ["GET", "/v2/weekly-reports/import-data"], ["PUT", "/v2/weekly-reports/import-data"], ["DELETE", "/v2/weekly-reports/check-excel"], ["GET", "/v2/weekly-reports/from-notes"], ["GET", "/v2/claims/generate"], ["GET", "/v2/objectives/reorder"]],
    ],
  ] as const)("%s", async (_, cases) => {
    await expectUnsupportedMethods(token, cases);
  });

  it.each([
    ["GET", "/auth/me"],
    ["GET", "/two-factor/verify"],
    ["GET", "/v2/claims/generate"],
    ["GET", "/v2/weekly-reports/check-excel"],
  ])("%s %s answers 405 without a token too (before authentication)", async (method, path) => {
    const res = await api(path, { method });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ message: "Unsupported HTTP method" });
  });

  /**
   * Every path some call serves, with every other method: the first handler the router picks (after the API-wide
   * middleware) is `unsupported`, not another call's guard or handler (a `/:id` route reading "generate" as an id, or
   * nothing at all). No request is made: the routes come from the router itself, so a new call is covered.
   * /dev/outbox is left out: outside development it does not exist (404 for every method).
   */
  it("every path the API serves refuses the methods it does not serve, before any guard", () => {
    const methods = ["GET", "POST", "PUT", "PATCH", "DELETE"];
    const global = new Set(apiApp.routes.filter((r) => r.path === "/*").map((r) => r.handler));
    const paths = [...new Set(apiApp.routes.map((r) => r.path))].filter((p) => p !== "/*" && p !== "/dev/outbox");
    const wrong: string[] = [];
    for (const path of paths) {
      for (const method of methods) {
        if (apiApp.routes.some((r) => r.method === method && r.path === path)) continue;
        const [matched] = apiApp.router.match(method, path.replace(/:[^/]+/g, "1"));
        const first = matched.map(([entry]) => entry[1]).find((route) => !global.has(route.handler));
        if (first?.handler !== unsupported) wrong.push(`${method} ${path} → ${first ? `${first.method} ${first.path}` : "no route"}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("Allow, OPTIONS and WWW-Authenticate (decision 016, stop 38)", () => {
  it.each([
    ["POST", "/v2/roles/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
    ["DELETE", "/v2/roles", "GET, HEAD, POST, OPTIONS"],
    ["PUT", "/v2/roles", "GET, HEAD, POST, OPTIONS"],
    ["GET", "/v2/claims/generate", "POST, OPTIONS"],
    ["POST", "/version", "GET, HEAD, OPTIONS"],
    ["GET", "/auth/login", "POST, OPTIONS"],
  ])("%s %s answers 405 with Allow: %s", async (method, path, allow) => {
    const res = await api(path, { method, token });
    expect(res.status).toBe(405);
    expect(res.headers.get("Allow")).toBe(allow);
    expect(await res.json()).toEqual({ message: "Unsupported HTTP method" });
  });

  it.each([
    ["/v2/roles", "GET, HEAD, POST, OPTIONS"],
    ["/v2/roles/1", "GET, HEAD, PUT, PATCH, DELETE, OPTIONS"],
    ["/v2/tickets/1/reopen", "POST, OPTIONS"],
  ])("OPTIONS %s answers 204 with Allow, without a token and without CORS headers", async (path, allow) => {
    const res = await appFetch(`http://localhost/api${path}`, { method: "OPTIONS", headers: { Origin: "https://elsewhere.example", "Access-Control-Request-Method": "POST" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("Allow")).toBe(allow);
    expect([...res.headers.keys()].filter((k) => k.startsWith("access-control-"))).toEqual([]);
    expect(await res.text()).toBe("");
  });

  it.each(["/api/v2/no-such-call", "/api/v2/insurances/update-status/1"])("OPTIONS %s (no call serves it) is 404", async (path) => {
    const res = await appFetch(`http://localhost${path}`, { method: "OPTIONS" });
    expect(res.status).toBe(404);
  });

  // Insurers have no status call (not per-location, no status): the path does not exist rather than a 405 listing nothing.
  it.each(["GET", "PUT"])("%s /v2/insurances/update-status/1 is 404", async (method) => {
    const res = await api("/v2/insurances/update-status/1", { method, token, body: method === "PUT" ? { status: "x" } : undefined });
    expect(res.status).toBe(404);
  });

  it.each([
    ["no token", undefined, "Bearer"],
    ["a token that is not one", "not-a-token", 'Bearer error="invalid_token"'],
  ])("401 with %s carries WWW-Authenticate", async (_, bad, challenge) => {
    const res = await api("/v2/patients/1", { token: bad });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe(challenge);
  });

  it("a failed sign-in's 401 carries WWW-Authenticate too", async () => {
    const res = await api("/auth/login", { method: "POST", body: { email: "nobody@example.com", password: "wrong-password-1" } });
    expect(res.status).toBe(401);
    expect(res.headers.get("WWW-Authenticate")).toBe("Bearer");
  });

  /** From the route table: every method a path registers is in its Allow, and none it refuses. */
  it("Allow lists exactly the methods each path registers", () => {
    const wrong: string[] = [];
    const paths = [...new Set(apiApp.routes.map((r) => r.path))].filter((p) => p !== "/*");
    for (const path of paths) {
      const concrete = path.replace(/:[^/]+/g, "1");
      const allow = allowedMethods(concrete);
      for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
        const registered = apiApp.routes.some((r) => r.method === method && r.path === path && r.handler !== unsupported);
        if (registered && !allow.includes(method)) wrong.push(`${method} ${path} missing from ${allow.join(", ")}`);
        if (!registered && allow.includes(method)) {
          // Another path's route may serve the concrete address (a `/:id` beside `/1`): only then is it allowed.
          const other = apiApp.routes.some((r) => r.method === method && r.handler !== unsupported && r.path !== path && r.path.replace(/:[^/]+/g, "1") === concrete);
          if (!other) wrong.push(`${method} ${path} listed in ${allow.join(", ")}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});

describe("a path under /api that no call serves", () => {
  it.each([
    ["GET", "/api/v2/no-such-call"],
    ["POST", "/api/v2/no-such-call"],
    ["GET", "/api/v2/pa-service-calculator/"],
    ["GET", "/api"],
    ["DELETE", "/api/v2/remittances/1/lines"],
    // The user administration calls live under /api/v2/users, not under the doctors' calls.
    ["POST", "/api/doctors/createUser"],
    ["GET", "/api/doctors/1/change-password"],
  ])("%s %s answers 404 JSON 'Endpoint not found', never the screens' HTML", async (method, path) => {
    const res = await appFetch(`http://localhost${path}`, { method, headers: { Authorization: `Bearer ${token}`, Accept: "application/json" }, redirect: "manual" });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ message: "Endpoint not found" });
  });
});
