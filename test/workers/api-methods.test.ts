import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { apiToken, createLocation, createUser, expectUnsupportedMethods } from "./helpers";

/**
 * A method a path does not serve answers 405 JSON "Unsupported HTTP method" (platform §7) on the billing, claims,
 * scrubber, pacing, note PDF and AI summary routers, and the employees', insurers' and clients' own calls — never a fall-through to the screens (their cross-site 403
 * or the HTML 404 page). The other routers' paths are covered beside their own tests.
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
  ] as const)("%s", async (_, cases) => {
    await expectUnsupportedMethods(token, cases);
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
    const res = await SELF.fetch(`http://localhost${path}`, { method, headers: { Authorization: `Bearer ${token}`, Accept: "application/json" }, redirect: "manual" });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ message: "Endpoint not found" });
  });
});
