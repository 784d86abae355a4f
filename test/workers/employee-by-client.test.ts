import { count, desc } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, notes } from "~/db/schema";
import { dayNumber } from "~/domain/weeks";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * /client-report/employee-by-client's Provider "All" (clinical §5: an empty filter is left out of the query;
 * decision 030, stop 41): no employee lists every provider's clients in the actor's locations, and a client's
 * report with every provider's notes; a chosen provider narrows both.
 */

let here: { id: number };
let there: { id: number };
let alice: { id: number };
let bob: { id: number };
let faraway: { id: number };
let rita: { id: number };
let omar: { id: number };
let manager: string;
const PERIOD = "date_from=2026-03-01&date_to=2026-03-31";

async function note(patientId: number, locationId: number, providerId: number, date: string) {
  const s = dayNumber(date)! * 1440 + 9 * 60;
  const [row] = await db()
    .insert(notes)
    .values({ type: "rbt", patientId, locationId, providerId, cptCode: "97153", pos: "12", diagnosisCode: "F84.0", sessionDate: date, timeIn: "09:00", timeOut: "10:00", start1At: s, end1At: s + 60, startAt: s, endAt: s + 60, minutes: 60, units: 4 })
    .returning();
  return row!;
}

const html = async (res: Response) => {
  expect(res.status, res.headers.get("Location") ?? "").toBe(200);
  return res.text();
};
const audits = async () => (await db().select({ n: count() }).from(auditLog))[0]!.n;

beforeAll(async () => {
  here = await createLocation();
  there = await createLocation();
  alice = await createPatient({ locationId: here.id, firstName: "Alice", lastName: "Anders" });
  bob = await createPatient({ locationId: here.id, firstName: "Bob", lastName: "Brooks" });
  faraway = await createPatient({ locationId: there.id, firstName: "Fay", lastName: "Faraway" });
  rita = await createUser({ permissions: ["view_notes"], locations: [here.id], name: "Rita" });
  omar = await createUser({ permissions: ["view_notes"], locations: [here.id, there.id], name: "Omar" });
  await note(alice.id, here.id, rita.id, "2026-03-02");
  await note(alice.id, here.id, omar.id, "2026-03-03");
  await note(bob.id, here.id, omar.id, "2026-03-04");
  await note(faraway.id, there.id, omar.id, "2026-03-05");
  // The signed-in user has no notes: "All" must not fall back to them.
  manager = await signInCookie(await createUser({ role: "MANAGER", permissions: ["manage_claims"], locations: [here.id] }));
});

describe("employee by client: Provider 'All'", () => {
  it("the filter form's empty Provider is left out of the address, and stays 'All' (never the signed-in user)", async () => {
    const res = await request(`/client-report/employee-by-client?location_id=${here.id}&provider_id=&${PERIOD}&status=`, { cookie: manager });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`/client-report/employee-by-client?location_id=${here.id}&${PERIOD}`);
  });

  it("lists every provider's clients in the actor's locations, one audited read, links without an employee", async () => {
    const before = await audits();
    const page = await html(await request(`/client-report/employee-by-client?location_id=${here.id}&${PERIOD}`, { cookie: manager }));
    expect(page).toContain("Alice Anders");
    expect(page).toContain("Bob Brooks");
    expect(page).not.toContain("Fay Faraway");
    expect(page).not.toContain("No data to display.");
    expect(page).toContain(`href="/client-report/employee-by-client?patient_id=${alice.id}&amp;from=2026-03-01&amp;to=2026-03-31"`);
    // Provider shows "All": no provider option is selected.
    const select = /<select[^>]*name="provider_id"[\s\S]*?<\/select>/.exec(page)?.[0] ?? "";
    expect(select).toContain("All");
    expect(select).not.toMatch(/<option value="\d+" selected/);
    expect(await audits()).toBe(before + 1);
    const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(JSON.stringify(row)).toContain(String(alice.id));
    expect(JSON.stringify(row)).toContain(String(bob.id));
  });

  it("with no location either, every location of the actor (and no other)", async () => {
    const page = await html(await request(`/client-report/employee-by-client?${PERIOD}`, { cookie: manager }));
    expect(page).toContain("Alice Anders");
    expect(page).toContain("Bob Brooks");
    expect(page).not.toContain("Fay Faraway");
  });

  it("a chosen provider narrows the list to their clients", async () => {
    const byRita = await html(await request(`/client-report/employee-by-client?provider_id=${rita.id}&${PERIOD}`, { cookie: manager }));
    expect(byRita).toContain("Alice Anders");
    expect(byRita).not.toContain("Bob Brooks");
    expect(byRita).toContain(`href="/client-report/employee-by-client?patient_id=${alice.id}&amp;employee_id=${rita.id}&amp;from=2026-03-01&amp;to=2026-03-31"`);
  });

  it("a client's report without an employee has every provider's notes; its filter form and Reset keep the client", async () => {
    const all = await html(await request(`/client-report/employee-by-client?patient_id=${alice.id}&from=2026-03-01&to=2026-03-31`, { cookie: manager }));
    expect(all).toContain("2026-03-02");
    expect(all).toContain("2026-03-03");
    const filter = /<form method="get"[\s\S]*?<\/form>/.exec(all)?.[0] ?? "";
    expect(filter).toContain(`<input type="hidden" name="patient_id" value="${alice.id}"/>`);
    expect(filter).not.toContain('name="employee_id"');
    expect(filter).toContain(`href="/client-report/employee-by-client?patient_id=${alice.id}"`);

    const ritas = await html(await request(`/client-report/employee-by-client?patient_id=${alice.id}&employee_id=${rita.id}&from=2026-03-01&to=2026-03-31`, { cookie: manager }));
    expect(ritas).toContain("2026-03-02");
    expect(ritas).not.toContain("2026-03-03");
  });
});
