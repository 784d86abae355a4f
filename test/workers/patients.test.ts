import { asc, eq, sql } from "drizzle-orm";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { auditLog, insuranceServices, insurances, paServices, patients, userLocations, users } from "~/db/schema";
import { CPT_MESSAGE } from "~/domain/insurance";
import { ListQuery } from "~/domain/paging";
import type { Permission } from "~/domain/permissions";
import { getUserActor } from "~/models/actors.server";
import { getPatientProfile, patientListScreen } from "~/models/patients.server";
import { verifyAuditChain } from "~/services/audit.server";
import { api, apiToken, countingDb, createLocation, createParent, createPatient, createUser, db, request, scrollRegionNames, signInCookie, withoutFlashTag } from "./helpers";

/** Clients (clinical §3 Patient, platform §2 patient routes): API and screens (JavaScript off). */

const VIEW: Permission[] = ["view_clients"];
const MANAGE: Permission[] = ["view_clients", "manage_clients"];

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

let n = 0;
const ident = () => `ID-${Date.now().toString(36)}-${++n}`;
const valid = (locationId: number, over: Record<string, unknown> = {}) => ({ patient_identifier: ident(), first_name: "Mia", last_name: "Lopez", status: "active", location_id: locationId, birth_date: "2019-05-01", gender: 2, deductible: 100, pos_covered: ["03", "12"], welcome: "yes", telehealth: true, ...over });

async function row(id: number) {
  const [r] = await db().select().from(patients).where(eq(patients.id, id));
  return r!;
}
async function auditRows(entity: string, entityId: number) {
  return db().select().from(auditLog).where(sql`${auditLog.entity} = ${entity} and ${auditLog.entityId} = ${String(entityId)}`).orderBy(asc(auditLog.id));
}

describe("/api/v2/patients", () => {
  it("lists only clients of the user's locations, searchable and filterable", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const rbt = await createUser({ permissions: [], locations: [mine.id] });
    const a = await createPatient({ locationId: mine.id, firstName: "Zed", lastName: "Alpha", status: "active", rbtHomeId: rbt.id });
    const b = await createPatient({ locationId: mine.id, firstName: "Zed", lastName: "Beta", status: "inactive" });
    await createPatient({ locationId: other.id, firstName: "Zed", lastName: "Gamma" });
    const token = await apiToken(await createUser({ permissions: VIEW, locations: [mine.id] }));
    const all = (await (await api("/v2/patients?search=Zed", { token })).json()) as { data: { id: number }[]; total: number };
    expect(all.data.map((p) => p.id)).toEqual([a.id, b.id]);
    const inactive = (await (await api("/v2/patients?search=Zed&status=inactive", { token })).json()) as { data: { id: number }[] };
    expect(inactive.data.map((p) => p.id)).toEqual([b.id]);
    const byStaff = (await (await api(`/v2/patients?staff_id=${rbt.id}`, { token })).json()) as { data: { id: number }[] };
    expect(byStaff.data.map((p) => p.id)).toEqual([a.id]);
    const byIdent = (await (await api(`/v2/patients?search=${a.patientIdentifier}`, { token })).json()) as { data: { id: number }[] };
    expect(byIdent.data.map((p) => p.id)).toEqual([a.id]);
    expect((await api("/v2/patients?status=gone", { token })).status).toBe(422);
  });

  it("show: 200 and one audit read row; 404 for another location; 403 without view_clients; parents refused", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const p = await createPatient({ locationId: mine.id, details: JSON.stringify({ welcome: "yes", deductible: 50 }) });
    const q = await createPatient({ locationId: other.id });
    const token = await apiToken(await createUser({ permissions: VIEW, locations: [mine.id] }));
    const res = await api(`/v2/patients/${p.id}`, { token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Record<string, unknown> }).data).toMatchObject({ id: p.id, welcome: "yes", deductible: 50, consent: null });
    const reads = await auditRows("patient", p.id);
    expect(reads.map((r) => r.action)).toEqual(["read"]);
    expect(reads[0]!.patientId).toBe(p.id);
    expect((await api(`/v2/patients/${q.id}`, { token })).status).toBe(404);
    expect((await api(`/patient/show/${q.id}`, { token })).status).toBe(404);
    expect(await auditRows("patient", q.id)).toHaveLength(0);
    const none = await apiToken(await createUser({ permissions: ["view_notes"], locations: [mine.id] }));
    expect((await api(`/v2/patients/${p.id}`, { token: none })).status).toBe(403);
    const parent = await createParent();
    await db().update(patients).set({ parentId: parent.id }).where(eq(patients.id, p.id));
    expect((await api(`/v2/patients/${p.id}`, { token: await apiToken(parent, true) })).status).toBe(403);
  });

  it("creates with 201 and an audit row; 403 for a viewer", async () => {
    const loc = await createLocation();
    const staff = await createUser({ permissions: [], locations: [loc.id] });
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const res = await api("/v2/patients", { method: "POST", token, body: valid(loc.id, { bcba_home_id: staff.id }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { data: { id: number; bcba_home_id: number; pos_covered: string[]; version: number }; message: string };
    expect(body.message).toBe("Client created.");
    expect(body.data).toMatchObject({ bcba_home_id: staff.id, pos_covered: ["03", "12"], version: 1 });
    expect((await auditRows("patient", body.data.id)).map((r) => r.action)).toEqual(["create"]);
    const viewer = await apiToken(await createUser({ permissions: VIEW, locations: [loc.id] }));
    expect((await api("/v2/patients", { method: "POST", token: viewer, body: valid(loc.id) })).status).toBe(403);
  });

  it.each([
    [{ first_name: "" }, "first_name", "First name is required."],
    [{ status: "gone" }, "status", "Choose a status from the list."],
    [{ deductible: -5 }, "deductible", "Deductible must be 0 or more."],
    [{ pos_covered: ["77"] }, "pos_covered", "Choose place-of-service codes from the list."],
    [{ consent: "maybe" }, "consent", "Consent: choose waiting, requested, reviewing or yes."],
  ])("refuses bad input with 422 and writes nothing (%#)", async (over, field, message) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const [before] = await db().select({ n: sql<number>`count(*)` }).from(patients);
    const [auditBefore] = await db().select({ n: sql<number>`count(*)` }).from(auditLog);
    const res = await api("/v2/patients", { method: "POST", token, body: valid(loc.id, over) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors[field]).toBe(message);
    const [after] = await db().select({ n: sql<number>`count(*)` }).from(patients);
    const [auditAfter] = await db().select({ n: sql<number>`count(*)` }).from(auditLog);
    expect(after!.n).toBe(before!.n);
    expect(auditAfter!.n).toBe(auditBefore!.n);
  });

  it("refuses staff who do not work at the client's location, and a location outside the user's", async () => {
    const loc = await createLocation();
    const elsewhere = await createLocation();
    const outsider = await createUser({ permissions: [], locations: [elsewhere.id] });
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const res = await api("/v2/patients", { method: "POST", token, body: valid(loc.id, { rbt_home_id: outsider.id }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ rbt_home_id: "Choose an employee of the client's location." });
    const res2 = await api("/v2/patients", { method: "POST", token, body: valid(elsewhere.id) });
    expect(res2.status).toBe(422);
    expect(((await res2.json()) as { errors: Record<string, string> }).errors.location_id).toBe("Choose one of your locations.");
  });

  it("update: versioned (409 on stale, nothing changed), PATCH merges, status, soft delete; each audited", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id, firstName: "Old" });
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const put = await api(`/v2/patients/${p.id}`, { method: "PUT", token, body: valid(loc.id, { patient_identifier: p.patientIdentifier, first_name: "First", version: 1 }) });
    expect(put.status).toBe(200);
    const stale = await api(`/v2/patients/${p.id}`, { method: "PUT", token, body: valid(loc.id, { patient_identifier: p.patientIdentifier, first_name: "Second", version: 1 }) });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { first_name: string; version: number } }).current).toMatchObject({ first_name: "First", version: 2 });
    expect((await row(p.id)).firstName).toBe("First");
    const patch = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { city: "Tampa" } });
    expect(((await patch.json()) as { data: Record<string, unknown> }).data).toMatchObject({ first_name: "First", city: "Tampa", deductible: 100 });
    expect((await api(`/v2/patients/update-status/${p.id}`, { method: "PUT", token, body: { status: "inactive" } })).status).toBe(200);
    expect((await row(p.id)).status).toBe("inactive");
    expect((await api(`/patient/destroy/${p.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await row(p.id)).deletedAt).not.toBeNull();
    expect((await api(`/v2/patients/${p.id}`, { token })).status).toBe(404);
    expect((await auditRows("patient", p.id)).map((r) => r.action)).toEqual(["update", "read", "update", "status", "delete"]);
  });

  it("by identifier: found in scope and audited", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const token = await apiToken(await createUser({ permissions: VIEW, locations: [loc.id] }));
    const res = await api(`/v2/patients/by-identifier/${p.patientIdentifier}`, { token });
    expect(res.status).toBe(200);
    expect((await auditRows("patient", p.id)).map((r) => r.action)).toEqual(["read"]);
  });
});

describe("/api/v2/pa-services", () => {
  async function setup() {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const [ins] = await db().insert(insurances).values({ name: `Ins ${Date.now()}` }).returning();
    // The insurer covers the PA services' CPT (a PA service's CPT must be one its insurer has a service for).
    await db().insert(insuranceServices).values({ insuranceId: ins!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 15 });
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    return { loc, p, ins: ins!, token };
  }
  const pa = (patientId: number, over: Record<string, unknown> = {}) => ({ patient_id: patientId, pa_service: "Direct therapy", cpt: "97153", n_units: 120, start_date: "2026-01-01", end_date: "2026-06-30", ...over });

  it("creates, lists by patient with available/spent units, updates with a version, deletes; each audited", async () => {
    const { p, ins, token } = await setup();
    const res = await api("/v2/pa-services", { method: "POST", token, body: pa(p.id, { insurance_id: ins.id, is_primary: true }) });
    expect(res.status).toBe(201);
    const created = ((await res.json()) as { data: { id: number; available_units: number; spent_units: number; insurance_name: string; patient_name: string } }).data;
    expect(created).toMatchObject({ available_units: 120, spent_units: 0, insurance_name: ins.name, patient_name: `${p.firstName} ${p.lastName}` });
    const list = (await (await api(`/v2/pa-services?patient_id=${p.id}`, { token })).json()) as { data: { id: number }[] };
    expect(list.data.map((x) => x.id)).toEqual([created.id]);
    const nested = (await (await api(`/v2/patients/${p.id}/pa-services`, { token })).json()) as { data: { id: number }[] };
    expect(nested.data.map((x) => x.id)).toEqual([created.id]);
    const [nestedRead] = await db().select().from(auditLog).where(sql`${auditLog.entity} = 'pa_service' and ${auditLog.action} = 'read' and ${auditLog.patientId} = ${p.id}`);
    expect(nestedRead).toBeTruthy();
    expect((await api(`/v2/pa-services/${created.id}`, { method: "PUT", token, body: pa(p.id, { n_units: 80, version: 1 }) })).status).toBe(200);
    expect((await api(`/v2/pa-services/${created.id}`, { method: "PUT", token, body: pa(p.id, { n_units: 90, version: 1 }) })).status).toBe(409);
    expect((await api(`/v2/pa-services/${created.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await auditRows("pa_service", created.id)).map((r) => r.action)).toEqual(["create", "update", "read", "delete"]);
  });

  it("refuses end before start with the message, and writes nothing (a one-day authorization, end = start, is valid)", async () => {
    const { p, token } = await setup();
    const res = await api("/v2/pa-services", { method: "POST", token, body: pa(p.id, { end_date: "2025-12-01" }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.end_date).toBe("The end date cannot be before the start date.");
    expect(await db().select().from(paServices).where(eq(paServices.patientId, p.id))).toHaveLength(0);
  });

  // One CPT rule for authorizations and insurer services (decision 017, stop 36).
  it.each<[cpt: string, status: number]>([
    ["ABCDE", 422],
    ["9715", 422],
    ["97-53", 422],
    ["971533", 422],
    ["97153", 201],
    ["0364t", 201],
  ])("POST with CPT %j answers %s; a refused one is written nowhere", async (cpt, status) => {
    const { p, token } = await setup();
    const res = await api("/v2/pa-services", { method: "POST", token, body: pa(p.id, { cpt }) });
    expect(res.status).toBe(status);
    const rows = await db().select().from(paServices).where(eq(paServices.patientId, p.id));
    if (status === 422) {
      expect(((await res.json()) as { errors: Record<string, string> }).errors.cpt).toBe(CPT_MESSAGE);
      expect(rows).toHaveLength(0);
    } else expect(rows.map((r) => r.cpt)).toEqual([cpt.toUpperCase()]);
  });

  it("a CPT stored before the rule stays while a save keeps it; changing it to another refused one is 422", async () => {
    const { p, token } = await setup();
    const [s] = await db().insert(paServices).values({ patientId: p.id, paService: "Old", cpt: "9715", nUnits: 5, startDate: "2026-01-01", endDate: "2026-02-01" }).returning();
    const patch = await api(`/v2/pa-services/${s!.id}`, { method: "PATCH", token, body: { n_units: 6 } });
    expect(patch.status).toBe(200);
    const put = await api(`/v2/pa-services/${s!.id}`, { method: "PUT", token, body: pa(p.id, { cpt: "9715", n_units: 7 }) });
    expect(put.status).toBe(200);
    const changed = await api(`/v2/pa-services/${s!.id}`, { method: "PATCH", token, body: { cpt: "ABCDE" } });
    expect(changed.status).toBe(422);
    expect(((await changed.json()) as { errors: Record<string, string> }).errors.cpt).toBe(CPT_MESSAGE);
    expect((await db().select().from(paServices).where(eq(paServices.id, s!.id)))[0]).toMatchObject({ cpt: "9715", nUnits: 7 });
  });

  // A PA service is its client's: another patient_id is refused, never dropped (decision 044).
  it.each<[label: string, method: "PUT" | "PATCH", body: (own: number, other: number) => Record<string, unknown>, status: number]>([
    ["PUT with another client", "PUT", (_own, other) => pa(other, { n_units: 12 }), 422],
    ["PATCH with another client alone", "PATCH", (_own, other) => ({ patient_id: other }), 422],
    ["PATCH with another client and units", "PATCH", (_own, other) => ({ patient_id: other, n_units: 12 }), 422],
    ["PATCH with null", "PATCH", () => ({ patient_id: null, n_units: 12 }), 422],
    ["PUT with its own client", "PUT", (own) => pa(own, { n_units: 12 }), 200],
    ["PATCH with its own client as text", "PATCH", (own) => ({ patient_id: String(own), n_units: 12 }), 200],
  ])("%s → %s", async (_label, method, body, status) => {
    const { loc, p, token } = await setup();
    const other = await createPatient({ locationId: loc.id });
    const [s] = await db().insert(paServices).values({ patientId: p.id, paService: "X", cpt: "97153", nUnits: 5, startDate: "2026-01-01", endDate: "2026-06-30" }).returning();
    const res = await api(`/v2/pa-services/${s!.id}`, { method, token, body: body(p.id, other.id) });
    expect(res.status).toBe(status);
    const after = (await db().select().from(paServices).where(eq(paServices.id, s!.id)))[0]!;
    expect(after.patientId).toBe(p.id);
    if (status === 422) {
      expect(((await res.json()) as { errors: Record<string, string> }).errors.patient_id).toBe("A PA service cannot be moved to another client.");
      expect(after).toEqual(s);
    } else expect(after.nUnits).toBe(12);
  });

  it("a client of another location: 422 on create, 404 on its services", async () => {
    const { token } = await setup();
    const other = await createPatient({ locationId: (await createLocation()).id });
    const [s] = await db().insert(paServices).values({ patientId: other.id, paService: "X", cpt: "97153", nUnits: 5, startDate: "2026-01-01", endDate: "2026-02-01" }).returning();
    expect((await api("/v2/pa-services", { method: "POST", token, body: pa(other.id) })).status).toBe(422);
    expect((await api(`/v2/pa-services/${s!.id}`, { token })).status).toBe(404);
    expect((await api(`/v2/patients/${other.id}/pa-services`, { token })).status).toBe(404);
    const viewer = await apiToken(await createUser({ permissions: ["view_notes"] }));
    expect((await api("/v2/pa-services", { token: viewer })).status).toBe(403);
  });
});

describe("audit chain", () => {
  it("verifyAuditChain detects a row edited directly with SQL", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const token = await apiToken(await createUser({ permissions: VIEW, locations: [loc.id] }));
    await api(`/v2/patients/${p.id}`, { token });
    expect((await verifyAuditChain(db())).ok).toBe(true);
    const [r] = await auditRows("patient", p.id);
    await db().run(sql`update audit_log set ip = '198.51.100.1' where id = ${r!.id}`);
    const check = await verifyAuditChain(db());
    expect(check.ok).toBe(false);
    expect(check.brokenAt).toBe(r!.id);
    // Restore so later tests in this file see a valid chain.
    await db().run(sql`update audit_log set ip = ${r!.ip} where id = ${r!.id}`);
  });
});

describe("client screens", () => {
  it("/patients redirects to the list; the list shows only in-scope clients with filters", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    await createPatient({ locationId: mine.id, firstName: "Screen", lastName: "Mine" });
    await createPatient({ locationId: other.id, firstName: "Screen", lastName: "Theirs" });
    const cookie = await signInCookie(await createUser({ permissions: VIEW, locations: [mine.id] }));
    const redirect = await request("/patients", { cookie });
    expect(redirect.headers.get("Location")).toBe("/patients/list");
    const html = await (await request("/patients/list?search=Screen", { cookie })).text();
    expect(html).toContain("Screen Mine");
    expect(html).not.toContain("Screen Theirs");
    expect(html).not.toContain("Add client");
    expect(html).toContain('name="staff_id"');
    expect(html).toContain("Showing 1 to 1 of 1 entries");
    // The table's scroll box is a keyboard stop: a region named by the table's caption (probe 8923 L9).
    expect(scrollRegionNames(html)).toEqual(["Clients"]);
  });

  it("a view_notes-only user (the sidebar's permission) and a parent get 403 on client screens", async () => {
    const loc = await createLocation();
    const parent = await createParent();
    const p = await createPatient({ locationId: loc.id, parentId: parent.id });
    const notes = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [loc.id] }));
    const parentCookie = await signInCookie(parent, true);
    for (const path of ["/patients/list", `/patients/profile/${p.id}`, "/patients/add", `/patients/list/edit/${p.id}`]) {
      expect((await request(path, { cookie: notes })).status, path).toBe(403);
      expect((await request(path, { cookie: parentCookie })).status, path).toBe(403);
    }
  });

  it("add: bad input re-renders with the message and writes nothing; good input redirects to the profile", async () => {
    const loc = await createLocation();
    const staff = await createUser({ permissions: [], locations: [loc.id], name: "Rita" });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const form = await (await request("/patients/add", { cookie })).text();
    expect(form).toContain("Rita User");
    expect(form).toContain("Onboarding documents");
    const identifier = ident();
    const bad = await post("/patients/add", { intent: "save", patient_identifier: identifier, first_name: "", last_name: "X", location_id: String(loc.id) }, cookie);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("First name is required.");
    expect(await db().select().from(patients).where(eq(patients.patientIdentifier, identifier))).toHaveLength(0);
    const good = await post("/patients/add", { intent: "save", patient_identifier: identifier, first_name: "Nia", last_name: "Vega", status: "incoming", location_id: String(loc.id), rbt_home_id: String(staff.id), pos_covered: ["12", "03"], telehealth: "true" }, cookie);
    expect(good.status).toBe(303);
    const [created] = await db().select().from(patients).where(eq(patients.patientIdentifier, identifier));
    expect(withoutFlashTag(good.headers.get("Location"))).toMatch(new RegExp(`^/patients/profile/${created!.id}\\?flash=`));
    expect(created).toMatchObject({ status: "incoming", rbtHomeId: staff.id });
    expect(JSON.parse(created!.details)).toMatchObject({ pos_covered: ["03", "12"], telehealth: true });
  });

  it("edit: staff select lists only the location's employees; a stale save answers 409; other location 404", async () => {
    const loc = await createLocation();
    const other = await createLocation();
    await createUser({ permissions: [], locations: [loc.id], name: "Inside" });
    const outsider = await createUser({ permissions: [], locations: [other.id], name: "Outside" });
    const p = await createPatient({ locationId: loc.id, firstName: "Edit" });
    const q = await createPatient({ locationId: other.id });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const html = await (await request(`/patients/list/edit/${p.id}`, { cookie })).text();
    expect(html).toContain("Inside User");
    expect(html).not.toContain("Outside User");
    expect((await request(`/patients/list/edit/${q.id}`, { cookie })).status).toBe(404);
    const base = { intent: "save", patient_identifier: p.patientIdentifier, first_name: "Edited", last_name: p.lastName, status: "active", location_id: String(loc.id) };
    const refused = await post(`/patients/list/edit/${p.id}`, { ...base, version: "1", rbt_home_id: String(outsider.id) }, cookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("Choose an employee of the client&#x27;s location.");
    expect((await post(`/patients/list/edit/${p.id}`, { ...base, version: "1" }, cookie)).status).toBe(303);
    const stale = await post(`/patients/list/edit/${p.id}`, { ...base, first_name: "Again", version: "1" }, cookie);
    expect(stale.status).toBe(409);
    expect((await row(p.id)).firstName).toBe("Edited");
  });

  it("profile with PA service forms: every id on the page is unique, so each form's fields keep their labels (probe 8897, stop 25)", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    for (const cpt of ["97153", "97155"]) await db().insert(paServices).values({ patientId: p.id, paService: `PA ${cpt}`, cpt, nUnits: 40, startDate: "2026-01-01", endDate: "2026-12-31" });
    const cookie = await signInCookie(await createUser({ permissions: [...VIEW, "manage_clients"], locations: [loc.id] }));
    const html = await (await request(`/patients/profile/${p.id}`, { cookie })).text();
    expect(html).toContain("Add PA service");
    const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
    expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
    const controls = [...html.matchAll(/<(?:input|select|textarea)[^>]*\sid="([^"]+)"/g)].map((m) => m[1]);
    expect(controls.filter((id) => id!.startsWith("pa-")).length).toBe(21);
    for (const id of controls) expect(html).toContain(`for="${id}"`);
  });

  it("profile: every group, missing onboarding, PA table with units and expiry warning; the view is audited", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id, firstName: "Prof", details: JSON.stringify({ welcome: "yes", consent: "reviewing", deductible: 25 }) });
    const soon = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    await db().insert(paServices).values({ patientId: p.id, paService: "Supervision", cpt: "97155", nUnits: 40, startDate: "2026-01-01", endDate: soon });
    const cookie = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    const res = await request(`/patients/profile/${p.id}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const group of ["Identity", "Contact and address", "Parent or guardian", "Education", "Insurance", "Claim flags", "Diagnosis", "Referral and provider", "Eligibility", "Onboarding documents", "Staff assignments"]) expect(html).toContain(group);
    expect(html).toContain("<li>Consent<!-- -->: <span class=\"muted\">reviewing</span>");
    expect(html).not.toContain("<li>Welcome");
    expect(html).toContain("Supervision");
    expect(html).toContain("Ends within 14 days");
    expect(html).not.toContain("Add PA service");
    expect((await auditRows("patient", p.id)).map((r) => r.action)).toEqual(["read"]);
    const other = await createPatient({ locationId: (await createLocation()).id });
    expect((await request(`/patients/profile/${other.id}`, { cookie })).status).toBe(404);
  });

  it("profile PA intents: add (bad dates refused), edit, delete; a viewer gets 403", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const path = `/patients/profile/${p.id}`;
    const fields = { pa_service: "Direct", cpt: "97153", n_units: "100", start_date: "2026-01-01", end_date: "2026-07-01" };
    const bad = await post(path, { intent: "pa-create", ...fields, end_date: "2025-01-01" }, cookie);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("The end date cannot be before the start date.");
    const badCpt = await post(path, { intent: "pa-create", ...fields, cpt: "ABCDE" }, cookie);
    expect(badCpt.status).toBe(422);
    expect(await badCpt.text()).toContain("Enter a 5-character CPT code: 4 digits, then a digit or a letter (for example 97153).");
    expect(await db().select().from(paServices).where(eq(paServices.patientId, p.id))).toHaveLength(0);
    expect((await post(path, { intent: "pa-create", ...fields }, cookie)).status).toBe(303);
    const [s] = await db().select().from(paServices).where(eq(paServices.patientId, p.id));
    expect((await post(path, { intent: "pa-update", pa_id: String(s!.id), version: "1", ...fields, n_units: "60" }, cookie)).status).toBe(303);
    const html = await (await request(path, { cookie })).text();
    expect(html).toContain("<td>60</td>");
    const viewer = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    expect((await post(path, { intent: "pa-delete", pa_id: String(s!.id), confirmed: "yes" }, viewer)).status).toBe(403);
    // Delete asks first (probe 8972): the row's Delete is a link to the confirm step, whose 'Yes, delete it' sends
    // `confirmed`; a post without it is sent to that step and deletes nothing.
    expect(html).toContain(`href="${path}?confirm=delete-pa-${s!.id}#pa-services"`);
    expect(html).not.toContain("Yes, delete it");
    const confirm = await (await request(`${path}?confirm=delete-pa-${s!.id}`, { cookie })).text();
    expect(confirm).toContain("Are you sure you want to delete the PA service “Direct (97153)”?");
    expect(confirm).toContain("This action cannot be undone.");
    expect(confirm).toContain("Yes, delete it");
    expect(confirm).toContain('name="confirmed" value="yes"');
    expect(confirm).toMatch(new RegExp(`<a[^>]*href="${path}"[^>]*>Cancel</a>`));
    const unconfirmed = await post(path, { intent: "pa-delete", pa_id: String(s!.id) }, cookie);
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.get("location")).toBe(`${path}?confirm=delete-pa-${s!.id}#pa-services`);
    const [kept] = await db().select().from(paServices).where(eq(paServices.id, s!.id));
    expect(kept!.deletedAt).toBeNull();
    // A confirm step for a service of no row here shows no question.
    expect(await (await request(`${path}?confirm=delete-pa-999999`, { cookie })).text()).not.toContain("Yes, delete it");
    const deleted = await post(`${path}?confirm=delete-pa-${s!.id}`, { intent: "pa-delete", pa_id: String(s!.id), confirmed: "yes" }, cookie);
    expect(deleted.status).toBe(303);
    expect(withoutFlashTag(deleted.headers.get("location"))).toBe(`${path}?flash=${encodeURIComponent("PA service deleted.")}`);
    const [gone] = await db().select().from(paServices).where(eq(paServices.id, s!.id));
    expect(gone!.deletedAt).not.toBeNull();
  });
});

describe("client search (trigram index, docs/decisions/012)", () => {
  async function found(token: string, search: string) {
    const res = await api(`/v2/patients?per_page=100&search=${encodeURIComponent(search)}`, { token });
    expect(res.status, search).toBe(200);
    return ((await res.json()) as { data: { id: number }[] }).data.map((p) => p.id);
  }

  it.each([
    ["a first name", "Quillon", ["a"]],
    ["a last name", "Verbeck", ["a", "b"]],
    ["first and last", "Quillon Verbeck", ["a"]],
    ["any case", "qUILLON vERBECK", ["a"]],
    ["the middle of a name", "illon Verb", ["a"]],
    ["a whole identifier", "SRCH-7Q-0001", ["a"]],
    ["part of an identifier", "7Q-0002", ["b"]],
    ["two characters (below the index: a scan)", "Qz", ["c"]],
    ["quotes and FTS syntax are plain text", 'Verbeck" OR "x', []],
    ["an apostrophe", "O'Dell", ["c"]],
  ])("finds clients by %s", async (_, search, expected) => {
    const loc = await createLocation();
    const stamp = Date.now().toString(36);
    const made = {
      a: await createPatient({ locationId: loc.id, firstName: "Quillon", lastName: "Verbeck", patientIdentifier: `SRCH-7Q-0001-${stamp}` }),
      b: await createPatient({ locationId: loc.id, firstName: "Marta", lastName: "Verbeck", patientIdentifier: `SRCH-7Q-0002-${stamp}` }),
      c: await createPatient({ locationId: loc.id, firstName: "Qz", lastName: "O'Dell", patientIdentifier: `SRCH-8R-0003-${stamp}` }),
    };
    const token = await apiToken(await createUser({ permissions: VIEW, locations: [loc.id] }));
    const ids = new Set(Object.values(made).map((p) => p.id));
    const got = (await found(token, search)).filter((id) => ids.has(id));
    expect(got.sort()).toEqual(expected.map((k) => made[k as keyof typeof made].id).sort());
  });

  it("follows renames and deletes, and stays within the user's locations", async () => {
    const loc = await createLocation();
    const other = await createLocation();
    const p = await createPatient({ locationId: loc.id, firstName: "Ximena", lastName: "Oldsurname" });
    const theirs = await createPatient({ locationId: other.id, firstName: "Ximena", lastName: "Oldsurname" });
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    expect(await found(token, "Ximena Oldsur")).toEqual([p.id]);
    expect((await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { last_name: "Newsurname" } })).status).toBe(200);
    expect(await found(token, "Oldsurname")).toEqual([]);
    expect(await found(token, "Ximena Newsur")).toEqual([p.id]);
    expect((await api(`/v2/patients/${p.id}`, { method: "DELETE", token })).status).toBe(200);
    expect(await found(token, "Newsurname")).toEqual([]);
    // A hard delete removes the index row too.
    await db().delete(patients).where(eq(patients.id, theirs.id));
    const [left] = await db().select({ n: sql<number>`count(*)` }).from(sql`patients_search`).where(sql`rowid = ${theirs.id}`);
    expect(left!.n).toBe(0);
  });

  it("the list screen finds the same clients", async () => {
    const loc = await createLocation();
    await createPatient({ locationId: loc.id, firstName: "Screenfind", lastName: "Alvarez" });
    const cookie = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    const html = await (await request("/patients/list?search=screenfind+alv", { cookie })).text();
    expect(html).toContain("Screenfind Alvarez");
    expect(html).toContain("Showing 1 to 1 of 1 entries");
  });
});

describe("statement budgets (platform: at most 5 D1 statements per request)", () => {
  it("the list screen's page, total and options are one batch of two statements, then the read's audit row naming the page's clients; the options honour the scope", async () => {
    const loc = await createLocation({ title: "Budget Clinic" });
    const hidden = await createLocation({ title: "Hidden Clinic" });
    const staff = await createUser({ permissions: [], locations: [loc.id], name: "Budgetstaff" });
    await createPatient({ locationId: loc.id, firstName: "Budget", lastName: "Client", rbtHomeId: staff.id });
    const user = await createUser({ permissions: VIEW, locations: [loc.id] });
    const actor = (await getUserActor(db(), user.id))!;
    const counting = countingDb();
    const ctx = { db: counting.db, actor, ip: "203.0.113.5", now: () => new Date() };
    const screen = await patientListScreen(ctx, v.parse(ListQuery, { search: "Budget" }), { location_id: String(loc.id) });
    expect(counting.statements()).toBe(3);
    expect(counting.roundTrips()).toBe(2);
    expect(screen.page.data.map((p) => p.full_name)).toEqual(["Budget Client"]);
    expect(screen.page.total).toBe(1);
    expect(screen.locations.map((l) => l.title)).toContain("Budget Clinic");
    expect(screen.locations.map((l) => l.id)).not.toContain(hidden.id);
    expect(screen.staff.map((s) => `${s.name} ${s.surname}`)).toEqual(["Budgetstaff User", "Test User"]);
    const bad = await patientListScreen(ctx, v.parse(ListQuery, {}), { status: "gone" });
    expect(bad.filterError).toBe("Choose a status from the list.");
  });

  it("the profile is two statements: the record with its names and the audit tail, then the audit row", async () => {
    const loc = await createLocation({ title: "Profile Clinic" });
    const staff = await createUser({ permissions: [], locations: [loc.id], name: "Profstaff" });
    const parent = await createParent({ name: "Pam", surname: "Guard" });
    const p = await createPatient({ locationId: loc.id, parentId: parent.id, bcbaHomeId: staff.id });
    const actor = (await getUserActor(db(), (await createUser({ permissions: [...VIEW, "view_parents"], locations: [loc.id] })).id))!;
    const counting = countingDb();
    const profile = await getPatientProfile({ db: counting.db, actor, ip: "203.0.113.5", now: () => new Date() }, p.id);
    expect(counting.statements()).toBe(2);
    expect(profile!.options.locations).toEqual([{ id: loc.id, title: "Profile Clinic" }]);
    expect(profile!.options.parents).toEqual([{ id: parent.id, name: `Pam Guard (${parent.email})` }]);
    expect(profile!.options.staff[0]!.options).toEqual([{ id: staff.id, name: "Profstaff User" }]);
    expect((await auditRows("patient", p.id)).map((r) => r.action)).toEqual(["read"]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("client screens: profile by identifier, settings, log report", () => {
  it("profile-by-patient-id opens the profile of the client with that identifier; 404 elsewhere; 403 without view_clients", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const q = await createPatient({ locationId: (await createLocation()).id });
    const cookie = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    const res = await request(`/patients/profile-by-patient-id/${encodeURIComponent(p.patientIdentifier)}`, { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`/patients/profile/${p.id}`);
    expect(await auditRows("patient", p.id)).toHaveLength(0); // the profile records the read
    expect((await request(`/patients/profile-by-patient-id/${encodeURIComponent(q.patientIdentifier)}`, { cookie })).status).toBe(404);
    expect((await request("/patients/profile-by-patient-id/NO-SUCH-ID", { cookie })).status).toBe(404);
    const notes = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [loc.id] }));
    expect((await request(`/patients/profile-by-patient-id/${encodeURIComponent(p.patientIdentifier)}`, { cookie: notes })).status).toBe(403);
  });

  it("edit-patient is the edit screen's legacy path", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const res = await request(`/patients/edit-patient/${p.id}`, { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`/patients/list/edit/${p.id}`);
    const viewer = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    expect((await request(`/patients/edit-patient/${p.id}`, { cookie: viewer })).status).toBe(403);
  });

  it("setting: status and staff of the client's location; bad staff 422 with nothing written; stale 409; audited", async () => {
    const loc = await createLocation();
    const other = await createLocation();
    const inside = await createUser({ permissions: [], locations: [loc.id], name: "Settingin" });
    const outsider = await createUser({ permissions: [], locations: [other.id], name: "Settingout" });
    const p = await createPatient({ locationId: loc.id, status: "incoming" });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const path = `/patients/setting/${p.id}`;
    const html = await (await request(path, { cookie })).text();
    expect(html).toContain("Staff assignments");
    expect(html).toContain("Settingin User");
    expect(html).not.toContain("Settingout User");
    expect(html).toContain('<option value="incoming" selected="">Incoming</option>');

    const status = await post(path, { intent: "status", status: "active" }, cookie);
    expect(status.status).toBe(303);
    expect(withoutFlashTag(status.headers.get("Location"))).toMatch(new RegExp(`^${path}\\?flash=`));
    expect((await row(p.id)).status).toBe("active");
    const badStatus = await post(path, { intent: "status", status: "gone" }, cookie);
    expect(badStatus.status).toBe(422);
    expect(await badStatus.text()).toContain("Choose a status from the list.");

    const refused = await post(path, { intent: "staff", version: "2", rbt_home_id: String(outsider.id) }, cookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("Choose an employee of the client&#x27;s location.");
    expect((await row(p.id)).rbtHomeId).toBeNull();

    const saved = await post(path, { intent: "staff", version: "2", rbt_home_id: String(inside.id), case_manager_id: String(inside.id) }, cookie);
    expect(saved.status).toBe(303);
    expect(await row(p.id)).toMatchObject({ rbtHomeId: inside.id, caseManagerId: inside.id, bcbaHomeId: null, status: "active" });
    const stale = await post(path, { intent: "staff", version: "2", rbt_home_id: "" }, cookie);
    expect(stale.status).toBe(409);
    expect((await row(p.id)).rbtHomeId).toBe(inside.id);
    // Reads are recorded each time the screen shows the record (re-renders after bad input included).
    expect((await auditRows("patient", p.id)).map((r) => r.action).filter((a) => a !== "read")).toEqual(["status", "update"]);
  });

  it("setting: a viewer gets 403, another location 404, an unknown intent 400", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const q = await createPatient({ locationId: (await createLocation()).id });
    const viewer = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    expect((await request(`/patients/setting/${p.id}`, { cookie: viewer })).status).toBe(403);
    expect((await post(`/patients/setting/${p.id}`, { intent: "status", status: "inactive" }, viewer)).status).toBe(403);
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    expect((await request(`/patients/setting/${q.id}`, { cookie })).status).toBe(404);
    expect((await post(`/patients/setting/${q.id}`, { intent: "status", status: "inactive" }, cookie)).status).toBe(404);
    expect((await row(q.id)).status).toBe("active");
    expect((await post(`/patients/setting/${p.id}`, { intent: "nope" }, cookie)).status).toBe(400);
  });

  it("ws: the client's audit rows newest first with who acted, paginated; needs manage_notes; 404 elsewhere; the look is recorded", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id });
    const q = await createPatient({ locationId: (await createLocation()).id });
    const reader = await createUser({ permissions: VIEW, locations: [loc.id], name: "Reada" });
    const readerToken = await apiToken(reader);
    await api(`/v2/patients/${p.id}`, { token: readerToken });
    const manager = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id], name: "Changer" }));
    await api(`/v2/patients/update-status/${p.id}`, { method: "PUT", token: manager, body: { status: "inactive" } });
    await api(`/v2/patients/${q.id}`, { token: readerToken }); // another client's row is not shown

    const cookie = await signInCookie(await createUser({ permissions: ["manage_notes"], locations: [loc.id] }));
    const first = await request(`/patients/ws/${p.id}?per_page=1`, { cookie });
    expect(first.status).toBe(200);
    const html = (await first.text()).replaceAll("<!-- -->", "");
    expect(html).toContain("Changer User");
    expect(html).toContain("Status changed");
    expect(html).not.toContain("Reada User");
    expect(html).toContain("Showing 1 to 1 of 2 entries");
    // The first look is now the newest row, so the oldest (the read) is on page 3.
    const oldest = (await (await request(`/patients/ws/${p.id}?per_page=1&page=3`, { cookie })).text()).replaceAll("<!-- -->", "");
    expect(oldest).toContain("Reada User");
    expect(oldest).toContain("Viewed");
    expect(oldest).toContain("Showing 3 to 3 of 3 entries");
    expect((await auditRows("patient_log", p.id)).length).toBe(2);

    expect((await request(`/patients/ws/${q.id}`, { cookie })).status).toBe(404);
    const clients = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    expect((await request(`/patients/ws/${p.id}`, { cookie: clients })).status).toBe(403);
  });
});

describe("PA assessments (clinical §3 Authorizations)", () => {
  const service = (cpt: string, over: Record<string, unknown> = {}) => ({ start_date: "2024-02-01", end_date: "2024-03-01", cpt, n_units: 40, provider: "Dr. Ruiz", ...over });
  const assessment = (name: string, services: unknown[]) => ({ assessment: name, start_date: "2024-01-01", end_date: "2024-06-30", services });

  it("API: create and update round-trip pa_assessments; PATCH keeps them; old records answer an empty list", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const pa = [assessment("Initial", [service("97151"), service("97153", { provider: null, n_units: "0" })])];
    const created = await api("/v2/patients", { method: "POST", token, body: valid(loc.id, { pa_assessments: pa }) });
    expect(created.status).toBe(201);
    const { data } = (await created.json()) as { data: { id: number; patient_identifier: string; pa_assessments: unknown } };
    const expected = [assessment("Initial", [service("97151"), service("97153", { provider: null, n_units: 0 })])];
    expect(data.pa_assessments).toEqual(expected);
    expect(JSON.parse((await row(data.id)).details).pa_assessments).toEqual(expected);
    const shown = (await (await api(`/v2/patients/${data.id}`, { token })).json()) as { data: { pa_assessments: unknown } };
    expect(shown.data.pa_assessments).toEqual(expected);
    const next = [...expected, assessment("Reassessment", [])];
    const put = await api(`/v2/patients/${data.id}`, { method: "PUT", token, body: valid(loc.id, { patient_identifier: data.patient_identifier, pa_assessments: next, version: 1 }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { data: { pa_assessments: unknown } }).data.pa_assessments).toEqual(next);
    const patch = await api(`/v2/patients/${data.id}`, { method: "PATCH", token, body: { city: "Tampa" } });
    expect(((await patch.json()) as { data: { pa_assessments: unknown } }).data.pa_assessments).toEqual(next);
    const old = await createPatient({ locationId: loc.id });
    expect(((await (await api(`/v2/patients/${old.id}`, { token })).json()) as { data: { pa_assessments: unknown } }).data.pa_assessments).toEqual([]);
  });

  it.each([
    ["pa_assessments.0.services.1.cpt", CPT_MESSAGE, [assessment("A", [service("97151"), service("97-53")])]],
    ["pa_assessments.0.services.0.cpt", CPT_MESSAGE, [assessment("A", [service("ABCDE")])]],
    ["pa_assessments.0.services.0.cpt", CPT_MESSAGE, [assessment("A", [service("9715")])]],
    ["pa_assessments.1.end_date", "The end date cannot be before the start date.", [assessment("A", []), { ...assessment("B", []), end_date: "2023-12-31" }]],
    ["pa_assessments.0.services.0.end_date", "The end date cannot be before the start date.", [assessment("A", [service("97151", { end_date: "2024-01-31" })])]],
    ["pa_assessments.0.services.1.start_date", "The service dates must fall within the assessment's dates (2024-01-01 to 2024-06-30).", [assessment("A", [service("97151"), service("97153", { start_date: "2023-12-01" })])]],
    ["pa_assessments.0.services.0.end_date", "The service dates must fall within the assessment's dates (2024-01-01 to 2024-06-30).", [assessment("A", [service("97151", { start_date: "2027-04-01", end_date: "2027-05-01" })])]],
    ["pa_assessments.0.assessment", "Assessment is required.", [assessment("", [])]],
    ["pa_assessments.0.services.0.n_units", "Units must be 0 or more.", [assessment("A", [service("97151", { n_units: -2 })])]],
  ])("API: bad nested input answers 422 at %s (%s) and changes nothing", async (key, message, pa) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const good = [assessment("Kept", [service("97151")])];
    const p = await createPatient({ locationId: loc.id, details: JSON.stringify({ pa_assessments: good }) });
    const before = await row(p.id);
    const put = await api(`/v2/patients/${p.id}`, { method: "PUT", token, body: valid(loc.id, { patient_identifier: p.patientIdentifier, pa_assessments: pa, version: 1 }) });
    expect(put.status).toBe(422);
    const body = (await put.json()) as { message: string; errors: Record<string, string> };
    expect(body.message).toBeTruthy();
    expect(body.errors[key]).toBe(message);
    expect(await row(p.id)).toEqual(before);
    const ident0 = ident();
    expect((await api("/v2/patients", { method: "POST", token, body: valid(loc.id, { patient_identifier: ident0, pa_assessments: pa }) })).status).toBe(422);
    expect(await db().select().from(patients).where(eq(patients.patientIdentifier, ident0))).toHaveLength(0);
    expect((await auditRows("patient", p.id)).map((r) => r.action)).toEqual([]);
  });

  it("API: a one-day assessment and service (end = start) are saved, as a one-day PA service is", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id });
    const day = [{ ...assessment("A", [service("97151", { start_date: "2024-01-01", end_date: "2024-01-01" })]), end_date: "2024-01-01" }];
    const res = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { pa_assessments: day } });
    expect(res.status).toBe(200);
    expect(JSON.parse((await row(p.id)).details).pa_assessments).toEqual(day);
  });

  it("API and screen: assessments stored before the CPT and date rules stay editable; a new value is checked", async () => {
    const loc = await createLocation();
    const user = await createUser({ permissions: MANAGE, locations: [loc.id] });
    const token = await apiToken(user);
    const legacy = [assessment("Old", [service("ABCDE", { end_date: "2024-09-01" })])];
    const p = await createPatient({ locationId: loc.id, details: JSON.stringify({ pa_assessments: legacy }) });
    // Shown as stored, and a PATCH of another field or the list sent back as it is saves.
    const shown = (await (await api(`/v2/patients/${p.id}`, { token })).json()) as { data: { pa_assessments: unknown } };
    expect(shown.data.pa_assessments).toEqual(legacy);
    expect((await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { city: "Tampa" } })).status).toBe(200);
    // The list sent back as it is is not refused: it changes nothing (decision 017, stop 44).
    const resent = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { pa_assessments: legacy } });
    expect([resent.status, ((await resent.json()) as { message: string }).message]).toEqual([422, "Nothing to change: send at least one field to update."]);
    // A changed CPT must pass.
    const bad = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { pa_assessments: [assessment("Old", [service("ABCDF", { end_date: "2024-09-01" })])] } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: Record<string, string> }).errors["pa_assessments.0.services.0.cpt"]).toBe(CPT_MESSAGE);
    // The edit form without JavaScript saves the untouched rows.
    const cookie = await signInCookie(user);
    const fields = {
      patient_identifier: p.patientIdentifier, first_name: p.firstName, last_name: p.lastName, status: "active", location_id: String(loc.id), version: "2", intent: "save",
      "pa_assessments[0][assessment]": "Old", "pa_assessments[0][start_date]": "2024-01-01", "pa_assessments[0][end_date]": "2024-06-30",
      "pa_assessments[0][services][0][start_date]": "2024-02-01", "pa_assessments[0][services][0][end_date]": "2024-09-01", "pa_assessments[0][services][0][cpt]": "ABCDE", "pa_assessments[0][services][0][n_units]": "40", "pa_assessments[0][services][0][provider]": "Dr. Ruiz",
    };
    expect((await post(`/patients/list/edit/${p.id}`, fields, cookie)).status).toBe(303);
    expect(JSON.parse((await row(p.id)).details).pa_assessments).toEqual(legacy);
  });

  it("edit form without JavaScript: add an assessment with two services, save, the profile shows them; Remove re-renders without saving", async () => {
    const loc = await createLocation();
    const p = await createPatient({ locationId: loc.id, firstName: "Pam" });
    const cookie = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const path = `/patients/list/edit/${p.id}`;
    const page = await (await request(path, { cookie })).text();
    expect(page).toContain("PA assessments");
    expect(page).toContain('value="pa-add-assessment"');
    // The hidden default Save comes first, so Enter saves rather than adding or removing a row.
    expect(page.indexOf('value="save"')).toBeLessThan(page.indexOf('value="pa-add-assessment"'));
    const base = { patient_identifier: p.patientIdentifier, first_name: "Pam", last_name: p.lastName, status: "active", location_id: String(loc.id), version: "1" };

    const one = await post(path, { ...base, intent: "pa-add-assessment" }, cookie);
    expect(one.status).toBe(200);
    const oneHtml = await one.text();
    expect(oneHtml).toContain('name="pa_assessments[0][assessment]"');
    expect(oneHtml).not.toContain("pa_assessments[0][services]");
    const typed = { ...base, "pa_assessments[0][assessment]": "Initial ABA", "pa_assessments[0][start_date]": "2024-01-01", "pa_assessments[0][end_date]": "2024-06-30" };
    const withService = await (await post(path, { ...typed, intent: "pa-add-service:0" }, cookie)).text();
    expect(withService).toContain('name="pa_assessments[0][services][0][cpt]"');
    expect(withService).toContain('value="Initial ABA"');
    const s0 = { "pa_assessments[0][services][0][start_date]": "2024-01-01", "pa_assessments[0][services][0][end_date]": "2024-03-31", "pa_assessments[0][services][0][cpt]": "97151", "pa_assessments[0][services][0][n_units]": "8", "pa_assessments[0][services][0][provider]": "Dr. Ruiz" };
    const twoServices = await (await post(path, { ...typed, ...s0, intent: "pa-add-service:0" }, cookie)).text();
    expect(twoServices).toContain('name="pa_assessments[0][services][1][cpt]"');
    expect(twoServices).toContain('value="97151"');
    const s1 = { "pa_assessments[0][services][1][start_date]": "2024-02-01", "pa_assessments[0][services][1][end_date]": "2024-06-30", "pa_assessments[0][services][1][cpt]": "97153", "pa_assessments[0][services][1][n_units]": "120", "pa_assessments[0][services][1][provider]": "" };
    expect((await row(p.id)).version).toBe(1);

    const badCpt = await post(path, { ...typed, ...s0, ...s1, "pa_assessments[0][services][1][cpt]": "9", intent: "save" }, cookie);
    expect(badCpt.status).toBe(422);
    const badHtml = await badCpt.text();
    expect(badHtml).toContain('id="f-pa_assessments-0-services-1-cpt-error"');
    expect(badHtml).toContain("Enter a 5-character CPT code: 4 digits, then a digit or a letter (for example 97153).");
    expect(badHtml).toContain('value="Dr. Ruiz"');
    expect((await row(p.id)).version).toBe(1);
    for (const cpt of ["ABCDE", "9715"]) {
      const refused = await post(path, { ...typed, ...s0, ...s1, "pa_assessments[0][services][1][cpt]": cpt, intent: "save" }, cookie);
      expect(refused.status, cpt).toBe(422);
      expect(await refused.text()).toContain(`value="${cpt}"`);
    }
    // A service outside its assessment's dates: a field error on that row, what was typed kept, nothing saved.
    const outside = await post(path, { ...typed, ...s0, ...s1, "pa_assessments[0][services][1][start_date]": "2027-04-01", "pa_assessments[0][services][1][end_date]": "2027-05-01", intent: "save" }, cookie);
    expect(outside.status).toBe(422);
    const outsideHtml = await outside.text();
    expect(outsideHtml).toContain('id="f-pa_assessments-0-services-1-end_date-error"');
    expect(outsideHtml).toContain("The service dates must fall within the assessment&#x27;s dates (2024-01-01 to 2024-06-30).");
    expect(outsideHtml).toContain('value="2027-04-01"');
    expect((await row(p.id)).version).toBe(1);

    const saved = await post(path, { ...typed, ...s0, ...s1, intent: "save" }, cookie);
    expect(saved.status).toBe(303);
    const stored = JSON.parse((await row(p.id)).details).pa_assessments as { assessment: string; services: { cpt: string; n_units: number; provider: string | null }[] }[];
    expect(stored).toEqual([
      {
        assessment: "Initial ABA",
        start_date: "2024-01-01",
        end_date: "2024-06-30",
        services: [
          { start_date: "2024-01-01", end_date: "2024-03-31", cpt: "97151", n_units: 8, provider: "Dr. Ruiz" },
          { start_date: "2024-02-01", end_date: "2024-06-30", cpt: "97153", n_units: 120, provider: null },
        ],
      },
    ]);
    const profile = await (await request(`/patients/profile/${p.id}`, { cookie })).text();
    // The assessment's caption stays visible (no class) and names the table's scroll box.
    expect(profile).toMatch(/<caption id="[^"]+">Initial ABA: 2024-01-01 to 2024-06-30<\/caption>/);
    expect(scrollRegionNames(profile)).toEqual(["Initial ABA: 2024-01-01 to 2024-06-30"]);
    for (const text of ["97151", "97153", "Dr. Ruiz", "<td>120</td>", "<td>8</td>"]) expect(profile).toContain(text);

    // The edit form shows the stored rows; Remove re-renders without them and saves nothing.
    const edit = await (await request(path, { cookie })).text();
    expect(edit).toContain('value="97153"');
    const removed = await post(path, { ...typed, ...s0, ...s1, version: "2", intent: "pa-remove-service:0:0" }, cookie);
    expect(removed.status).toBe(200);
    const removedHtml = await removed.text();
    expect(removedHtml).not.toContain('value="97151"');
    expect(removedHtml).toContain('value="97153"');
    expect(removedHtml).toContain('value="Initial ABA"');
    const afterRemove = await row(p.id);
    expect(afterRemove.version).toBe(2);
    expect(JSON.parse(afterRemove.details).pa_assessments[0].services).toHaveLength(2);
    const noAssessment = await (await post(path, { ...typed, ...s0, ...s1, version: "2", intent: "pa-remove-assessment:0" }, cookie)).text();
    expect(noAssessment).not.toContain("pa_assessments[0]");
    expect(noAssessment).toContain("No PA assessments yet.");
    expect((await row(p.id)).version).toBe(2);
  });

  it("row intents: a viewer gets 403, another location 404; the add screen keeps typed rows too", async () => {
    const loc = await createLocation();
    const other = await createLocation();
    const q = await createPatient({ locationId: other.id });
    const viewer = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    const manager = await signInCookie(await createUser({ permissions: MANAGE, locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id });
    expect((await post(`/patients/list/edit/${p.id}`, { intent: "pa-add-assessment" }, viewer)).status).toBe(403);
    expect((await post(`/patients/list/edit/${q.id}`, { intent: "pa-add-assessment" }, manager)).status).toBe(404);
    const identifier = ident();
    const added = await post("/patients/add", { first_name: "Ana", patient_identifier: identifier, "pa_assessments[0][assessment]": "Intake", intent: "pa-add-service:0" }, manager);
    expect(added.status).toBe(200);
    const html = await added.text();
    expect(html).toContain('value="Intake"');
    expect(html).toContain('name="pa_assessments[0][services][0][cpt]"');
    expect(await db().select().from(patients).where(eq(patients.patientIdentifier, identifier))).toHaveLength(0);
  });
});

describe("a staff link whose employee has left the client's location (decision 017, stop 24)", () => {
  /** A client whose RBT (home) has since moved to another location, and a manager of the client's location. */
  async function staleLink() {
    const loc = await createLocation();
    const other = await createLocation();
    const left = await createUser({ permissions: [], locations: [loc.id], name: "Leftstaff" });
    const inside = await createUser({ permissions: [], locations: [loc.id], name: "Stayed" });
    const p = await createPatient({ locationId: loc.id, firstName: "Stale", rbtHomeId: left.id, bcbaHomeId: inside.id });
    await db().delete(userLocations).where(eq(userLocations.userId, left.id));
    await db().insert(userLocations).values({ userId: left.id, locationId: other.id });
    const outsider = await createUser({ permissions: [], locations: [other.id], name: "Neverhere" });
    const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
    return { loc, left, inside, outsider, p, manager };
  }

  it("API: a PATCH of the phone succeeds and keeps the link; newly naming an outsider is still refused and changes nothing", async () => {
    const { left, inside, outsider, p, manager } = await staleLink();
    const token = await apiToken(manager);
    const res = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { phone: "305-555-1235" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: Record<string, unknown> }).data).toMatchObject({ phone: "305-555-1235", rbt_home_id: left.id, bcba_home_id: inside.id });
    expect((await row(p.id)).rbtHomeId).toBe(left.id);
    for (const body of [{ bcba_home_id: outsider.id }, { phone: "305-555-0000", case_manager_id: outsider.id }]) {
      const refused = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { errors: Record<string, string> }).errors).toEqual({ [Object.keys(body).at(-1)!]: "Choose an employee of the client's location." });
    }
    expect(await row(p.id)).toMatchObject({ rbtHomeId: left.id, bcbaHomeId: inside.id, caseManagerId: null, version: 2 });
    expect(JSON.parse((await row(p.id)).details)).toMatchObject({ phone: "305-555-1235" });
  });

  it("edit and settings screens show the stored employee, marked, and saving them unchanged keeps the link", async () => {
    const { loc, left, p, manager } = await staleLink();
    const cookie = await signInCookie(manager);
    const marked = `<option value="${left.id}" selected="">Leftstaff User (not at the client&#x27;s location)</option>`;
    const path = `/patients/list/edit/${p.id}`;
    expect(await (await request(path, { cookie })).text()).toContain(marked);
    const base = { intent: "save", patient_identifier: p.patientIdentifier, first_name: "Stale", last_name: p.lastName, status: "active", location_id: String(loc.id) };
    const saved = await post(path, { ...base, version: "1", phone: "305-555-4444", rbt_home_id: String(left.id), bcba_home_id: String(p.bcbaHomeId) }, cookie);
    expect(saved.status).toBe(303);
    expect((await row(p.id)).rbtHomeId).toBe(left.id);
    const settings = `/patients/setting/${p.id}`;
    expect(await (await request(settings, { cookie })).text()).toContain(marked);
    const staff = await post(settings, { intent: "staff", version: "2", rbt_home_id: String(left.id), bcba_home_id: String(p.bcbaHomeId) }, cookie);
    expect(staff.status).toBe(303);
    expect((await row(p.id)).rbtHomeId).toBe(left.id);
  });

  it("a stored employee no longer choosable is offered only in the field that stores them, named with why (probe 8931 §9)", async () => {
    const { left, p, manager } = await staleLink();
    const gone = await createUser({ permissions: [], locations: [p.locationId], name: "Maya" });
    await db().update(users).set({ deletedAt: new Date().toISOString() }).where(eq(users.id, gone.id));
    await db().update(patients).set({ caseManagerId: gone.id }).where(eq(patients.id, p.id));
    const cookie = await signInCookie(manager);
    for (const path of [`/patients/list/edit/${p.id}`, `/patients/setting/${p.id}`]) {
      const html = await (await request(path, { cookie })).text();
      const offered = (id: number) => [...html.matchAll(new RegExp(`<option value="${id}"[^>]*>([^<]*)</option>`, "g"))].map((m) => m[0]);
      // [employee, the one option they have, in the field that stores them]
      for (const [id, option, field] of [
        [gone.id, `<option value="${gone.id}" selected="">Maya User (deleted)</option>`, "case_manager_id"],
        [left.id, `<option value="${left.id}" selected="">Leftstaff User (not at the client&#x27;s location)</option>`, "rbt_home_id"],
      ] as const) {
        expect(offered(id), path).toEqual([option]);
        expect(html.slice(html.indexOf(`name="${field}"`)).split("</select>")[0], path).toContain(option);
      }
    }
  });
});

describe("a client that is not there has one wording everywhere", () => {
  it.each([
    ["GET", "/v2/patients/999999999"],
    ["PATCH", "/v2/patients/999999999"],
    ["DELETE", "/v2/patients/999999999"],
    ["GET", "/patient/show/999999999"],
    ["GET", "/v2/patients/999999999/pa-services"],
    ["GET", "/note_rbt/byclient/999999999"],
    ["GET", "/v2/pa-pacing?patient_id=999999999"],
  ])("%s %s answers 404 'Client not found.'", async (method, path) => {
    const location = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients", "view_notes"], locations: [location.id] }));
    const res = await api(path, { method, token, body: method === "PATCH" ? { first_name: "Mia" } : undefined });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ message: "Client not found." });
  });
});
