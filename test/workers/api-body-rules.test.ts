import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { insuranceServices, notes, parents, patients, plans, tickets, userLocations, users, weeklyReports } from "~/db/schema";
import { EMPLOYEE_EDIT_SET_ELSEWHERE, EMPLOYEE_SET_ELSEWHERE } from "~/domain/employees";
import { SERVICE_SET_ELSEWHERE } from "~/domain/insurance";
import { PARENT_PASSWORD_ON_PROFILE } from "~/domain/parents";
import { PASSWORD_MESSAGES } from "~/domain/passwords";
import { PATIENT_SET_ELSEWHERE } from "~/domain/patients";
import { PLAN_SET_ELSEWHERE } from "~/domain/plans";
import { api, apiToken, createLocation, createParent, createPatient, createUser, createWeeklyReport, db, form, oneRecordOfEach, signInCookie, type TestUser } from "./helpers";

/**
 * Decision 044 (stop 35, probe 8982 D1 and D5): a body never gets a success that dropped part of it. A spec field a call
 * does not write answers 422 at that field, saying where it is set, beside fields the call writes or alone, and nothing
 * is written; a parent's password is written by the API's parent create and edit, as the profile's Set password does.
 * An update body's `id` that is not the path's record answers 422 at `id`, and nothing is written.
 */

type Json = { message: string; errors?: Record<string, string>; data?: { id: number } };
let fixture: Awaited<ReturnType<typeof oneRecordOfEach>>;
beforeAll(async () => {
  fixture = await oneRecordOfEach();
});

/** The stored rows a refused call must leave as they were. */
async function stored() {
  const { patient, parent, employee, plan, service, ticket, note } = fixture;
  return {
    patient: await db().select().from(patients).where(eq(patients.id, patient.id)),
    parent: await db().select().from(parents).where(eq(parents.id, parent.id)),
    employee: await db().select().from(users).where(eq(users.id, employee.id)),
    employment: await db().select().from(userLocations).where(eq(userLocations.userId, employee.id)),
    plan: await db().select().from(plans).where(eq(plans.id, plan.id)),
    service: await db().select().from(insuranceServices).where(eq(insuranceServices.id, service.id)),
    weeklyReports: await db().select().from(weeklyReports).where(eq(weeklyReports.planId, plan.id)),
    ticket: await db().select().from(tickets).where(eq(tickets.id, ticket.id)),
    note: await db().select().from(notes).where(eq(notes.id, note.id)),
    counts: {
      patients: (await db().select({ id: patients.id }).from(patients)).length,
      users: (await db().select({ id: users.id }).from(users)).length,
      plans: (await db().select({ id: plans.id }).from(plans)).length,
      services: (await db().select({ id: insuranceServices.id }).from(insuranceServices)).length,
    },
  };
}

async function shown(path: string): Promise<Record<string, unknown>> {
  const res = await api(path, { token: fixture.token });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { data: Record<string, unknown> }).data;
}

describe("a spec field the call does not write (decision 044, probe 8982 D1)", () => {
  type Case = [name: string, method: string, path: () => string, body: () => Promise<Record<string, unknown>> | Record<string, unknown>, field: string, message: string];
  const cases: Case[] = [
    ["employee PATCH v2: phone + salary", "PATCH", () => `/v2/employees/${fixture.employee.id}`, () => ({ phone: "555-222-3334", salary: 10 }), "salary", "Pay is set per location: send it as locations[].salary."],
    ["employee PATCH v2: salary alone (was 'Nothing to change')", "PATCH", () => `/v2/employees/${fixture.employee.id}`, () => ({ salary: 10 }), "salary", EMPLOYEE_SET_ELSEWHERE.salary!],
    ["employee PUT v2: the record read + telehealth_salary", "PUT", () => `/v2/employees/${fixture.employee.id}`, async () => ({ ...(await shown(`/v2/employees/${fixture.employee.id}`)), telehealth_salary: 44 }), "telehealth_salary", EMPLOYEE_SET_ELSEWHERE.telehealth_salary!],
    ["employee v1 update: the record read + salary", "POST", () => `/doctors/update/${fixture.employee.id}`, async () => ({ ...(await shown(`/doctors/show/${fixture.employee.id}`)), salary: 55 }), "salary", EMPLOYEE_SET_ELSEWHERE.salary!],
    ["employee editUser: phone + position_id", "POST", () => `/v2/users/editUser/${fixture.employee.id}`, () => ({ phone: "555-222-3335", position_id: 2 }), "position_id", EMPLOYEE_SET_ELSEWHERE.position_id!],
    ["employee PATCH v2: permissions", "PATCH", () => `/v2/employees/${fixture.employee.id}`, () => ({ phone: "555-222-3336", permissions: ["view_notes"] }), "permissions", EMPLOYEE_SET_ELSEWHERE.permissions!],
    ["employee PATCH v2: a compliance date at the top level", "PATCH", () => `/v2/employees/${fixture.employee.id}`, () => ({ phone: "555-222-3337", cpr_every_2_years: "2027-01-01" }), "cpr_every_2_years", EMPLOYEE_SET_ELSEWHERE.cpr_every_2_years!],
    ["employee PATCH v2: password (its own call sets it)", "PATCH", () => `/v2/employees/${fixture.employee.id}`, () => ({ phone: "555-222-3338", password: "a strong passphrase", password_confirmation: "a strong passphrase" }), "password", EMPLOYEE_EDIT_SET_ELSEWHERE.password!],
    ["employee create v2: salary", "POST", () => "/v2/employees", () => newEmployee({ salary: 20 }), "salary", EMPLOYEE_SET_ELSEWHERE.salary!],
    ["employee createUser: telehealth_salary", "POST", () => "/v2/users/createUser", () => newEmployee({ telehealth_salary: 20 }), "telehealth_salary", EMPLOYEE_SET_ELSEWHERE.telehealth_salary!],
    ["client PATCH v2: city + avatar", "PATCH", () => `/v2/patients/${fixture.patient.id}`, () => ({ city: "Miami", avatar: "x.png" }), "avatar", PATIENT_SET_ELSEWHERE.avatar!],
    ["client PATCH v2: city + pa_services", "PATCH", () => `/v2/patients/${fixture.patient.id}`, () => ({ city: "Miami", pa_services: [{ pa_service: "x", cpt: "97153", n_units: 1 }] }), "pa_services", PATIENT_SET_ELSEWHERE.pa_services!],
    ["client v1 update: the record read + avatar", "PUT", () => `/patient/update/${fixture.patient.id}`, async () => ({ ...(await shown(`/patient/show/${fixture.patient.id}`)), avatar: "x.png" }), "avatar", PATIENT_SET_ELSEWHERE.avatar!],
    ["client create v2: pa_services", "POST", () => "/v2/patients", () => ({ first_name: "New", last_name: "Client", location_id: fixture.location.id, pa_services: [] }), "pa_services", PATIENT_SET_ELSEWHERE.pa_services!],
    ["client create v1: avatar", "POST", () => "/patient/store", () => ({ first_name: "New", last_name: "Client", location_id: fixture.location.id, avatar: "x.png" }), "avatar", PATIENT_SET_ELSEWHERE.avatar!],
    ["plan PATCH v2: name + chartComments", "PATCH", () => `/v2/plans/${fixture.plan.id}`, () => ({ name: "Fewer outbursts", chartComments: [] }), "chartComments", PLAN_SET_ELSEWHERE.chartComments!],
    ["plan create v2: chartComments", "POST", () => "/v2/plans", () => ({ bip_id: fixture.bip.id, name: "New goal", chartComments: [] }), "chartComments", PLAN_SET_ELSEWHERE.chartComments!],
    ["insurer service PATCH v1: unit_price + provider_types", "PATCH", () => `/insurance/update/service/${fixture.service.id}`, () => ({ unit_price: 25, provider_types: "rbt,bcba" }), "provider_types", SERVICE_SET_ELSEWHERE.provider_types!],
    ["insurer service create v1: provider_types", "POST", () => "/insurance/store/service", () => ({ insurance_id: fixture.insurer.id, code: "97155", unit_price: 30, provider_types: "rbt,bcba" }), "provider_types", SERVICE_SET_ELSEWHERE.provider_types!],
  ];

  it.each(cases)("%s: 422 at the field with where to set it, nothing written", async (_name, method, path, body, field, message) => {
    const sent = await body();
    const before = await stored();
    const res = await api(path(), { method, token: fixture.token, body: sent });
    const answer = (await res.json()) as Json;
    expect(res.status, JSON.stringify(answer)).toBe(422);
    expect(answer.errors?.[field]).toBe(message);
    expect(await stored()).toEqual(before);
  });

  it("the same bodies without the field are written (the refusal is the field's, not the call's)", async () => {
    const res = await api(`/v2/employees/${fixture.employee.id}`, { method: "PATCH", token: fixture.token, body: { phone: "555-222-3339" } });
    expect(res.status, await res.clone().text()).toBe(200);
    const city = await api(`/v2/patients/${fixture.patient.id}`, { method: "PATCH", token: fixture.token, body: { city: "Orlando" } });
    expect(city.status, await city.clone().text()).toBe(200);
    // Pay sent where the message says is written.
    const pay = await api(`/v2/employees/${fixture.employee.id}`, { method: "PATCH", token: fixture.token, body: { locations: [{ id: fixture.location.id, salary: 31 }] } });
    expect(pay.status, await pay.clone().text()).toBe(200);
    const [membership] = await db().select().from(userLocations).where(eq(userLocations.userId, fixture.employee.id));
    expect(membership!.salary).toBe(31);
  });
});

describe("an employee's per-location errors name the entry as sent (decision 017, stop 38)", () => {
  it.each([
    ["a location's salary", () => ({ locations: [{ id: fixture.location.id, salary: "abc" }] }), "locations.0.salary"],
    ["a location's date under compliance", () => ({ locations: [{ id: fixture.location.id, compliance: { cpr_every_2_years: "2026-02-30" } }] }), "locations.0.compliance.cpr_every_2_years"],
    ["an employment entry's salary", () => ({ locations: [fixture.location.id], employment: [{ location_id: fixture.location.id, salary: "abc" }] }), "employment.0.salary"],
  ] as const)("%s: 422 at %s, no employment.* key, nothing written", async (_, body, key) => {
    const before = await db().select().from(userLocations).where(eq(userLocations.userId, fixture.employee.id));
    const res = await api(`/v2/employees/${fixture.employee.id}`, { method: "PATCH", token: fixture.token, body: body() });
    const answer = (await res.json()) as { errors: Record<string, string> };
    expect(res.status, JSON.stringify(answer)).toBe(422);
    expect(Object.keys(answer.errors)).toContain(key);
    expect(Object.keys(answer.errors).filter((k) => /^employment\.[a-z]/.test(k))).toEqual([]);
    expect(await db().select().from(userLocations).where(eq(userLocations.userId, fixture.employee.id))).toEqual(before);
  });
});

function newEmployee(extra: Record<string, unknown>) {
  return { name: "New", surname: "Hire", email: `hire-${Date.now().toString(36)}@test.example`, roles: [], locations: [fixture.location.id], password: "a strong passphrase", password_confirmation: "a strong passphrase", ...extra };
}

describe("a parent's password through the API (P §3 Parent, decision 044 stop 35)", () => {
  const NEW_PASSWORD = "Parent-pass-2026!";
  const signIn = (email: string, password: string) => api("/auth/login", { method: "POST", body: { email, password, parent: true } });
  let n = 0;
  const email = () => `pw-parent-${Date.now().toString(36)}-${++n}@test.example`;

  it.each([
    ["v2", "/v2/parents"],
    ["v1", "/parent/store"],
  ])("create (%s) with password + confirmation: 201, and the parent signs in with it", async (_v, path) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    const address = email();
    const res = await api(path, { method: "POST", token, body: { name: "Pat", surname: "Probe", email: address, location_id: loc.id, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD } });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(JSON.stringify(await res.json())).not.toContain(NEW_PASSWORD);
    expect((await signIn(address, NEW_PASSWORD)).status).toBe(200);
  });

  it.each([
    ["v2 PUT", "PUT", (id: number) => `/v2/parents/${id}`],
    ["v2 PATCH", "PATCH", (id: number) => `/v2/parents/${id}`],
    ["v1 update", "PUT", (id: number) => `/parent/update/${id}`],
  ])("edit (%s) with the record and a new password: 200, the old password and the parent's tokens end", async (_v, method, path) => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const parentToken = await apiToken(parent, true);
    const token = await apiToken(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    const record = (await (await api(`/v2/parents/${parent.id}`, { token })).json()) as { data: Record<string, unknown> };
    const res = await api(path(parent.id), { method, token, body: { ...record.data, phone: "813-555-0101", password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD } });
    expect(res.status, await res.clone().text()).toBe(200);
    const [row] = await db().select().from(parents).where(eq(parents.id, parent.id));
    expect(row!.phone).toBe("813-555-0101");
    expect((await signIn(parent.email, parent.password)).status).toBe(401);
    expect((await signIn(parent.email, NEW_PASSWORD)).status).toBe(200);
    expect((await api("/auth/me", { method: "POST", token: parentToken })).status).toBe(401);
  });

  it.each([
    ["no confirmation", { password: NEW_PASSWORD }, "password_confirmation", PASSWORD_MESSAGES.mismatch],
    ["a different confirmation", { password: NEW_PASSWORD, password_confirmation: "Parent-pass-2027!" }, "password_confirmation", PASSWORD_MESSAGES.mismatch],
    ["too short", { password: "short", password_confirmation: "short" }, "password", PASSWORD_MESSAGES.tooShort],
  ])("a password the profile's form refuses (%s): 422 with its message, nothing written", async (_case, fields, field, message) => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const token = await apiToken(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    const [before] = await db().select().from(parents).where(eq(parents.id, parent.id));
    const res = await api(`/v2/parents/${parent.id}`, { method: "PATCH", token, body: { phone: "813-555-0102", ...fields } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).errors?.[field]).toBe(message);
    const [after] = await db().select().from(parents).where(eq(parents.id, parent.id));
    expect(after).toEqual(before);
  });

  it("who may set it is the profile's rule: staff who do not cover a child's location get 403, and nothing is written", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const parent = await createParent({ locationId: mine.id });
    await createPatient({ locationId: other.id, parentId: parent.id });
    const token = await apiToken(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [mine.id] }));
    const [before] = await db().select().from(parents).where(eq(parents.id, parent.id));
    const res = await api(`/v2/parents/${parent.id}`, { method: "PATCH", token, body: { phone: "813-555-0103", password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD } });
    expect(res.status).toBe(403);
    const [after] = await db().select().from(parents).where(eq(parents.id, parent.id));
    expect(after).toEqual(before);
    // The phone alone is theirs to change.
    expect((await api(`/v2/parents/${parent.id}`, { method: "PATCH", token, body: { phone: "813-555-0103" } })).status).toBe(200);
  });

  it("the profile's save does not take it (its Set password form does): 422 at password, nothing written", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const staff: TestUser = await createUser({ role: "ADMIN", locations: [loc.id] });
    const [before] = await db().select().from(parents).where(eq(parents.id, parent.id));
    const res = await form(
      `/parents/profile/${parent.id}`,
      { intent: "save", version: String(before!.version), name: "Pat", surname: "Parent", email: parent.email, location_id: String(loc.id), status: "active", password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD },
      await signInCookie(staff),
    );
    expect(res.status).toBe(422);
    expect(await res.text()).toContain(PARENT_PASSWORD_ON_PROFILE.replace("'", "&#x27;"));
    const [after] = await db().select().from(parents).where(eq(parents.id, parent.id));
    expect(after).toEqual(before);
  });
});

describe("an update body whose id is not the path's record (probe 8982 D5)", () => {
  type Case = [name: string, method: string, path: () => string, body: () => Record<string, unknown>, recordId: () => number];
  const cases: Case[] = [
    ["weekly report (v2 PUT)", "PUT", () => `/v2/weekly-reports/${ids.report}`, () => ({ plan_id: fixture.plan.id, week_end: "2026-01-03", value: 6, total_units: null }), () => ids.report],
    ["client (v2 PATCH)", "PATCH", () => `/v2/patients/${fixture.patient.id}`, () => ({ city: "Tampa" }), () => fixture.patient.id],
    ["client (v1 update)", "PUT", () => `/patient/update/${fixture.patient.id}`, () => ({ city: "Tampa" }), () => fixture.patient.id],
    ["parent (v2 update-status)", "PUT", () => `/v2/parents/update-status/${fixture.parent.id}`, () => ({ status: "inactive" }), () => fixture.parent.id],
    ["employee (v1 update)", "POST", () => `/doctors/update/${fixture.employee.id}`, () => ({ phone: "555-0199" }), () => fixture.employee.id],
    ["employee (editUser)", "POST", () => `/v2/users/editUser/${fixture.employee.id}`, () => ({ phone: "555-0199" }), () => fixture.employee.id],
    ["insurer service (v1 PATCH)", "PATCH", () => `/insurance/update/service/${fixture.service.id}`, () => ({ unit_price: 26 }), () => fixture.service.id],
    ["ticket (v2 PATCH)", "PATCH", () => `/v2/tickets/${fixture.ticket.id}`, () => ({ subject: "Printer on fire" }), () => fixture.ticket.id],
    ["RBT note (v1 update)", "PUT", () => `/note_rbt/update/${fixture.note.id}`, () => ({ next_session_is_scheduled_for: "Friday" }), () => fixture.note.id],
  ];
  const ids = { report: 0 };
  beforeAll(async () => {
    ids.report = (await createWeeklyReport(fixture.plan, "2026-01-03", 4)).id;
  });

  it.each(cases)("%s: another id (999, as text, or a real other record) answers 422 at id, nothing written", async (_name, method, path, body, recordId) => {
    for (const other of [999, "999", recordId() + 1]) {
      const before = await stored();
      const res = await api(path(), { method, token: fixture.token, body: { ...body(), id: other } });
      const answer = (await res.json()) as Json;
      expect(res.status, JSON.stringify(answer)).toBe(422);
      expect(answer.errors?.id).toBe(`The id in the body (${JSON.stringify(other)}) is not the record's id (${recordId()}).`);
      expect(await stored()).toEqual(before);
    }
  });

  it("the record's own id (a number or its digits), or none, is fine", async () => {
    // Each with another city: the same one sent again would change nothing (decision 017, stop 44).
    for (const [i, id] of [fixture.patient.id, String(fixture.patient.id), null, undefined].entries()) {
      const res = await api(`/v2/patients/${fixture.patient.id}`, { method: "PATCH", token: fixture.token, body: { city: `Tampa ${i}`, ...(id === undefined ? {} : { id }) } });
      expect(res.status, await res.clone().text()).toBe(200);
    }
  });
});
