import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insuranceServices, insurances, paServices, patients, rateRecords, userLocations } from "~/db/schema";
import { api, apiToken, BASE, createLocation, createParent, createPatient, createUser, db, form, signInCookie } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * Issue 9: record scope by the stored location, reference ids checked against the actor's scope, the list
 * cache keyed by scope, bounded numbers and plain text, JSON-only API bodies, non-empty PATCHes, and 405
 * for a method a generic path does not serve.
 */

type Json = { message: string; errors?: Record<string, string>; data?: unknown };

async function rawApi(path: string, init: { method: string; token: string; body?: string; type?: string }) {
  const headers = new Headers({ Accept: "application/json", Authorization: `Bearer ${init.token}` });
  if (init.type) headers.set("Content-Type", init.type);
  return appFetch(`${BASE}/api${path}`, { method: init.method, headers, body: init.body });
}

describe("a record's stored location decides who may read, change or move it", () => {
  it("an insurer service of another location is hidden, and cannot be re-priced, moved or deleted (404)", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const [insurer] = await db().insert(insurances).values({ name: "Acme Health" }).returning();
    const [service] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, locationId: theirs.id, cptCode: "97153", unitPrice: 20 }).returning();
    const [shared] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, locationId: null, cptCode: "97155", unitPrice: 30 }).returning();
    const token = await apiToken(await createUser({ permissions: ["manage_insurances"], locations: [mine.id] }));

    const byInsurer = (await (await api(`/insurance/servicebyInsurance/${insurer!.id}`, { token })).json()) as { data: { id: number }[] };
    expect(byInsurer.data.map((s) => s.id)).toEqual([shared!.id]);
    const all = (await (await api("/insurance/service", { token })).json()) as { data: { id: number }[] };
    expect(all.data.map((s) => s.id)).toEqual([shared!.id]);
    const show = (await (await api(`/insurance/show/${insurer!.id}`, { token })).json()) as { data: { services: { id: number }[] } };
    expect(show.data.services.map((s) => s.id)).toEqual([shared!.id]);
    expect((await api(`/insurance/showInsuranceCpt/${insurer!.id}/97153/rbt`, { token })).status).toBe(404);

    for (const method of ["PATCH", "PUT"]) {
      const res = await api(`/insurance/update/service/${service!.id}`, { method, token, body: { code: "97153", unit_price: 1, location_id: mine.id } });
      expect(res.status).toBe(404);
    }
    expect((await api(`/insurance/destroy/service/${service!.id}`, { method: "DELETE", token })).status).toBe(404);
    const [after] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, service!.id));
    expect(after).toMatchObject({ unitPrice: 20, locationId: theirs.id, deletedAt: null, version: 1 });

    // Moving a shared service into another location needs that location too.
    const move = await api(`/insurance/update/service/${shared!.id}`, { method: "PATCH", token, body: { location_id: theirs.id } });
    expect(move.status).toBe(422);
    expect(((await move.json()) as Json).errors).toEqual({ location_id: "Choose a valid option." });
  });

  it("a client cannot be linked to a parent of a location the user cannot see: the same 422 as a missing parent", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const patient = await createPatient({ locationId: mine.id });
    const hidden = await createParent({ locationId: theirs.id });
    const visible = await createParent({ locationId: mine.id });
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [mine.id] }));
    const answers: Json[] = [];
    for (const parentId of [hidden.id, 999_999]) {
      const res = await api(`/v2/patients/${patient.id}`, { method: "PATCH", token, body: { parent_id: parentId } });
      expect(res.status).toBe(422);
      answers.push((await res.json()) as Json);
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(answers[0]!.errors).toEqual({ parent_id: "Choose a parent from the list." });
    const [row] = await db().select().from(patients).where(eq(patients.id, patient.id));
    expect(row).toMatchObject({ parentId: null, version: 1 });

    expect((await api(`/v2/patients/${patient.id}`, { method: "PATCH", token, body: { parent_id: visible.id } })).status).toBe(200);
  });
});

describe("cached lists follow the user's scope", () => {
  it("a user who loses a location stops seeing its clients at once, even with cache=true", async () => {
    const a = await createLocation();
    const b = await createLocation();
    const inB = await createPatient({ locationId: b.id });
    const user = await createUser({ permissions: ["view_clients"], locations: [a.id, b.id] });
    const token = await apiToken(user);
    const ids = async () => ((await (await api("/v2/patients?cache=true&per_page=100", { token })).json()) as { data: { id: number }[] }).data.map((p) => p.id);
    expect(await ids()).toContain(inB.id);
    await db().delete(userLocations).where(eq(userLocations.locationId, b.id));
    expect(await ids()).not.toContain(inB.id);
  });
});

describe("bounded numbers and plain text", () => {
  it.each([
    [{ name: "Huge", rbt: 1e308 }, "rbt", "RBT amount must be at most 1,000,000."],
    [{ name: "Cents", bcba: 12.345 }, "bcba", "BCBA amount takes at most 2 decimals (whole cents)."],
    [{ name: "Nul\u0000name" }, "name", "Name: remove control or text-direction characters."],
    [{ name: "\u202Eevil.exe" }, "name", "Name: remove control or text-direction characters."],
    [{ name: "Info", info: { rbt: ["ok", "bad\u0007bell"] } }, "info", "RBT info: remove control or text-direction characters."],
  ])("refuses %j with 422 on the field and writes nothing", async (input, field, message) => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["manage_insurances"], locations: [loc.id] }));
    const before = (await db().select().from(rateRecords)).length;
    const res = await api("/v2/rate-records", { method: "POST", token, body: { location_id: loc.id, ...input } });
    expect(res.status).toBe(422);
    // A list's item is reported on the list ("info.rbt" for an RBT info line).
    expect(Object.entries(((await res.json()) as Json).errors ?? {}).find(([k]) => k.startsWith(field))?.[1]).toBe(message);
    expect((await db().select().from(rateRecords)).length).toBe(before);
  });

  it("accepts the largest amount a clinic uses, in cents", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["manage_insurances"], locations: [loc.id] }));
    const res = await api("/v2/rate-records", { method: "POST", token, body: { name: "Top", location_id: loc.id, rbt: 1_000_000, bcba: "45.50", client: 0.1 } });
    expect(res.status).toBe(201);
  });
});

describe("API bodies", () => {
  async function setup() {
    const loc = await createLocation();
    const patient = await createPatient({ locationId: loc.id });
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const version = async () => (await db().select().from(patients).where(eq(patients.id, patient.id)))[0]!.version;
    return { patient, token, version };
  }

  it("a body that is not JSON answers 415 with a message and changes nothing", async () => {
    const { patient, token, version } = await setup();
    for (const [body, type] of [["first_name=Eve", undefined], ["first_name=Eve", "application/x-www-form-urlencoded"], ['{"first_name":"Eve"}', "text/plain"], ["", undefined]] as const) {
      const res = await rawApi(`/v2/patients/${patient.id}`, { method: "PATCH", token, body, type });
      expect(res.status).toBe(415);
      expect(((await res.json()) as Json).message).toBe("The request body must be JSON (Content-Type: application/json).");
    }
    expect((await rawApi("/v2/patients", { method: "POST", token, body: "first_name=Eve" })).status).toBe(415);
    expect(await version()).toBe(1);
  });

  it("a PATCH that names no field answers 422 and leaves the version as it was", async () => {
    const { patient, token, version } = await setup();
    for (const body of [{}, { version: 1 }]) {
      const res = await api(`/v2/patients/${patient.id}`, { method: "PATCH", token, body });
      expect(res.status).toBe(422);
      expect(((await res.json()) as Json).message).toBe("Nothing to change: send at least one field to update.");
    }
    expect(await version()).toBe(1);
    expect((await api(`/v2/patients/${patient.id}`, { method: "PATCH", token, body: { first_name: "Eve", version: 1 } })).status).toBe(200);
    expect(await version()).toBe(2);
  });
});

describe("a key left out or of the wrong kind answers in the product's words (probe 8882, defect 4)", () => {
  /** valibot's own wording, which must never reach an answer. */
  const RAW = /Invalid key|Invalid type|Expected/;

  it("every create and full update: 422, a message, the field's own words, never the validation library's", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ role: "SUPERADMIN", locations: [loc.id] }));
    const patient = await createPatient({ locationId: loc.id });
    const parent = await createParent({ locationId: loc.id });
    const employee = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
    const [insurer] = await db().insert(insurances).values({ name: "Acme Health" }).returning();
    const [rate] = await db().insert(rateRecords).values({ name: "Standard", locationId: loc.id }).returning();
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Assessment", cpt: "97151", nUnits: 32, startDate: "2026-01-01", endDate: "2026-06-30" }).returning();
    const cases: [method: string, path: string, body: unknown, field: string, message: string][] = [
      ["POST", "/v2/employees", { name: "X" }, "surname", "Surname is required."],
      ["POST", "/v2/users/createUser", { name: "X" }, "email", "Email is required."],
      ["PUT", `/v2/employees/${employee.id}`, { name: "X" }, "surname", "Surname is required."],
      ["POST", `/doctors/update/${employee.id}`, { name: "X" }, "surname", "Surname is required."],
      ["POST", "/v2/parents", { name: "X" }, "surname", "Surname is required."],
      ["POST", "/parent/store", {}, "name", "Name is required."],
      ["PUT", `/parent/update/${parent.id}`, { name: "X" }, "email", "Email is required."],
      ["POST", "/v2/patients", { first_name: "X" }, "last_name", "Last name is required."],
      ["POST", "/patient/store", { first_name: "X" }, "patient_identifier", "Patient identifier is required."],
      ["PUT", `/patient/update/${patient.id}`, { first_name: "x" }, "last_name", "Last name is required."],
      ["PUT", `/v2/patients/${patient.id}`, { first_name: "x" }, "location_id", "Location is required."],
      ["PATCH", `/v2/patients/${patient.id}`, { pa_assessments: [null] }, "pa_assessments.0", "Each PA assessment must be an object."],
      ["PATCH", `/v2/patients/${patient.id}`, { pa_assessments: "none" }, "pa_assessments", "PA assessments must be a list."],
      [
        "PATCH",
        `/v2/patients/${patient.id}`,
        { pa_assessments: [{ assessment: "x", start_date: "2026-01-01", end_date: "2026-02-01", services: [{ cpt: "97151", n_units: 1 }] }] },
        "pa_assessments.0.services.0.start_date",
        "Service start date is required.",
      ],
      ["PATCH", `/v2/patients/${patient.id}`, { pa_assessments: [{ assessment: "x", start_date: "2026-01-01", end_date: "2026-02-01", services: [7] }] }, "pa_assessments.0.services.0", "Each service must be an object."],
      ["POST", "/v2/insurances", {}, "name", "Name is required."],
      ["POST", "/insurance/store", {}, "name", "Name is required."],
      ["PUT", `/v2/insurances/${insurer!.id}`, { city: "Miami" }, "name", "Name is required."],
      // A PUT that names no field at all is told so, as a PATCH is (probe 8913 §2, stop 28).
      ["PUT", `/v2/insurances/${insurer!.id}`, {}, "form", "Nothing to change: send at least one field to update."],
      ["POST", "/v2/rate-records", {}, "name", "Name is required."],
      ["PUT", `/v2/rate-records/${rate!.id}`, { rbt: 1 }, "name", "Name is required."],
      ["POST", "/v2/pa-services", {}, "cpt", "CPT is required."],
      ["POST", "/v2/pa-services", { patient_id: patient.id }, "start_date", "Start date is required."],
      ["PUT", `/v2/pa-services/${pa!.id}`, { cpt: "97151" }, "n_units", "Units is required."],
    ];
    for (const [method, path, body, field, message] of cases) {
      const res = await api(path, { method, token, body });
      const json = (await res.json()) as Json;
      expect([method, path, res.status]).toEqual([method, path, 422]);
      expect(json.message, `${method} ${path}`).toEqual(expect.any(String));
      expect(json.errors?.[field], `${method} ${path}: ${JSON.stringify(json)}`).toBe(message);
      expect(JSON.stringify(json), `${method} ${path}`).not.toMatch(RAW);
    }
    // Nothing was written by any of them.
    expect((await db().select().from(patients).where(eq(patients.id, patient.id)))[0]!.version).toBe(1);
  });

  it("a screen post without a field shows the field's message, not the library's", async () => {
    const loc = await createLocation();
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const res = await form("/patients/add", { first_name: "Only" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Last name is required.");
    expect(html).not.toMatch(RAW);
  });
});

describe("a method a generic path does not serve answers 405 'Unsupported HTTP method'", () => {
  it.each([
    ["PATCH", "/patient/update/1"],
    ["POST", "/patient/update/1"],
    ["GET", "/patient/update/1"],
    ["DELETE", "/patient/show/1"],
    ["PUT", "/patient/store"],
    ["GET", "/patient/destroy/1"],
    ["GET", "/v2/patients/update-status/1"],
    ["PATCH", "/v2/patients/update-status/1"],
    ["POST", "/v2/patients/1"],
    ["PUT", "/v2/patients"],
    ["PATCH", "/location/update/1"],
  ])("%s %s", async (method, path) => {
    const token = await apiToken(await createUser({ role: "SUPERADMIN" }));
    const res = await api(path, { method, token, body: method === "GET" || method === "DELETE" ? undefined : { name: "x" } });
    expect(res.status).toBe(405);
    expect(await res.json()).toEqual({ message: "Unsupported HTTP method" });
  });
});
