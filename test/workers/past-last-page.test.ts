import { describe, expect, it } from "vitest";
import { paServices } from "~/db/schema";
import { createBip, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A page past the last one says which page is last, and never the list's empty text: the list is not empty (probe 8984
 * §L1; probe 8987 §1 found four screens that draw their own table).
 */
describe("a page past the last, on the screens that draw their own table", () => {
  it.each([
    ["behavior plans", () => "/bip/list?page=9"],
    ["billing by client", (p: number) => `/billing/by-client/${p}?page=9`],
    ["client report by client", (p: number) => `/client-report/by-client/${p}?page=9`],
    ["employee by client", (p: number, e: number) => `/client-report/employee-by-client?patient_id=${p}&employee_id=${e}&page=9`],
  ] as const)("%s", async (_label, path) => {
    const location = await createLocation();
    const patient = await createPatient({ locationId: location.id });
    await createBip(patient);
    // A PA service, so that the billing screens' PA table is not empty: "No data to display." is then only the list's.
    await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 320, startDate: "2026-01-01", endDate: "2026-12-31" });
    const user = await createUser({ permissions: ["view_bips", "manage_claims", "view_clients", "manage_notes"], locations: [location.id] });
    const res = await request(path(patient.id, user.id), { cookie: await signInCookie(user) });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("There is no page 9: the last page is 1.");
    expect(html).not.toContain("No data to display.");
  });
});
