import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { patients, userRoles, users } from "~/db/schema";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * What a claim carries is refused at entry (probe 8974 §3, §4; decision 017): the client's principal diagnosis code
 * takes the secondary codes' rule, the secondary list drops repeats, and an employee's NPI the location's rule.
 */

const DIAGNOSIS = "Diagnosis codes are letters, digits and dots (for example F84.0).";
const NPI = "Enter a valid 10-digit NPI (its last digit is a check digit).";

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}
const detailsOf = async (id: number) => JSON.parse((await db().select({ d: patients.details }).from(patients).where(eq(patients.id, id)))[0]!.d) as Record<string, unknown>;

describe("the principal diagnosis code (API)", () => {
  it.each([["F84.0~"], ["F84:0"], ["F84*0"], ["F84 0"], ["F84.0^"], ["."], ["..."]])("%s is refused on diagnosis_code, nothing stored", async (code) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id, details: JSON.stringify({ diagnosis_code: "F84.0" }) });
    const res = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { diagnosis_code: code } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.diagnosis_code).toBe(DIAGNOSIS);
    expect((await detailsOf(p.id)).diagnosis_code).toBe("F84.0");
  });

  it("a good code is stored upper case; the secondary list drops exact repeats of itself and of the principal", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id });
    const res = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { diagnosis_code: " f84.0 ", secondary_diagnosis_codes: ["F84.0", "Z13.41", "f84.0", "z13.41", "F80.2"] } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await detailsOf(p.id)).toMatchObject({ diagnosis_code: "F84.0", secondary_diagnosis_codes: ["Z13.41", "F80.2"] });
  });

  // Probe 8975 §3: the repeat was dropped only when the secondary list itself was sent and changed.
  it.each([
    ["PATCH of the principal alone", "PATCH", (p: { id: number }) => `/v2/patients/${p.id}`, (_read: Record<string, unknown>) => ({ diagnosis_code: "z13.41" })],
    ["PUT of the read sent back with the principal changed", "PUT", (p: { id: number }) => `/v2/patients/${p.id}`, (read: Record<string, unknown>) => ({ ...read, diagnosis_code: "Z13.41" })],
  ])("a principal code that is also a secondary one drops it from the secondary list (%s)", async (_label, method, path, bodyOf) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id, details: JSON.stringify({ diagnosis_code: "F84.0", secondary_diagnosis_codes: ["Z13.41", "F80.2"] }) });
    const read = ((await (await api(`/v2/patients/${p.id}`, { token })).json()) as { data: Record<string, unknown> }).data;
    const res = await api(path(p), { method, token, body: bodyOf(read) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await detailsOf(p.id)).toMatchObject({ diagnosis_code: "Z13.41", secondary_diagnosis_codes: ["F80.2"] });
  });

  it("a stored code today's rule refuses does not block an edit of another field", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id, details: JSON.stringify({ diagnosis_code: "F84.0~" }) });
    const res = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { special_note: "kept" } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await detailsOf(p.id)).toMatchObject({ diagnosis_code: "F84.0~", special_note: "kept" });
  });
});

describe("the principal diagnosis code (client screen, JavaScript off)", () => {
  it("refuses a separator with the field's message and keeps the typed value", async () => {
    const loc = await createLocation();
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const p = await createPatient({ locationId: loc.id, details: JSON.stringify({ diagnosis_code: "F84.0" }) });
    const res = await post(`/patients/list/edit/${p.id}`, { intent: "save", version: "1", patient_identifier: p.patientIdentifier, first_name: p.firstName, last_name: p.lastName, status: "active", location_id: String(loc.id), diagnosis_code: "F84:0" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(DIAGNOSIS);
    expect(html).toContain('value="F84:0"');
    expect((await detailsOf(p.id)).diagnosis_code).toBe("F84.0");
  });
});

describe("an employee's NPI", () => {
  async function setup() {
    const loc = await createLocation();
    const me = await createUser({ permissions: ["manage_employees"], locations: [loc.id] });
    const target = await createUser({ permissions: [], locations: [loc.id] });
    return { loc, me, target, token: await apiToken(me), cookie: await signInCookie(me) };
  }
  const npiOf = async (id: number) => (JSON.parse((await db().select({ p: users.profile }).from(users).where(eq(users.id, id)))[0]!.p) as { npi?: string | null }).npi;

  it.each([["NPI~12"], ["20011*8663"], ["123456789"], ["2001188663"]])("%s is refused at entry (API), nothing stored", async (npi) => {
    const s = await setup();
    const res = await api(`/v2/employees/${s.target.id}`, { method: "PATCH", token: s.token, body: { npi } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.npi).toBe(NPI);
    expect(await npiOf(s.target.id)).toBe("1112223338");
  });

  it.each([["1306849450", "1306849450"], ["1306-849-450", "1306849450"], ["", null]])("%j is stored as %j", async (npi, stored) => {
    const s = await setup();
    const res = await api(`/v2/employees/${s.target.id}`, { method: "PATCH", token: s.token, body: { npi } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await npiOf(s.target.id)).toBe(stored);
  });

  it("a stored NPI today's rule refuses does not block another field's edit", async () => {
    const s = await setup();
    await db().update(users).set({ profile: JSON.stringify({ npi: "NPI~12" }) }).where(eq(users.id, s.target.id));
    const res = await api(`/v2/employees/${s.target.id}`, { method: "PATCH", token: s.token, body: { phone: "555-999-0042" } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await npiOf(s.target.id)).toBe("NPI~12");
  });

  it("the employee screen refuses it with the field's message and keeps the typed value", async () => {
    const s = await setup();
    const [u] = await db().select().from(users).where(eq(users.id, s.target.id));
    const [held] = await db().select().from(userRoles).where(eq(userRoles.userId, s.target.id));
    const fields = { intent: "save", version: String(u!.version), name: u!.name, surname: u!.surname, email: u!.email, status: "active", roles: [String(held!.roleId)], locations: [String(s.loc.id)], npi: "20011*8663" };
    const res = await post(`/doctors/list/edit/${s.target.id}`, fields, s.cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(NPI);
    expect(html).toContain('value="20011*8663"');
    expect(await npiOf(s.target.id)).toBe("1112223338");
  });
});
