import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, intakeAssessments } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import type { Permission } from "~/domain/permissions";
import { addDays } from "~/domain/weeks";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { createIntakeAssessment } from "~/models/intake-assessments.server";
import { api, apiToken, countingDb, createBip, createLocation, createPatient, createUser, db, request, signInCookie, withoutFlashTag } from "./helpers";

/** Intake assessments (clinical §3, §5; platform medical/initial-assessment): API and screens with JavaScript off. */

const VIEW: Permission[] = ["view_bips"];
const MANAGE: Permission[] = ["view_bips", "manage_bips"];

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

/** An intake written straight to the database (the factory of this file). */
async function createIntake(patient: { id: number }, over: Partial<typeof intakeAssessments.$inferInsert> = {}) {
  const [row] = await db()
    .insert(intakeAssessments)
    .values({ patientId: patient.id, personResponding: "Mother", observationDate: "2025-03-01", document: JSON.stringify({ patient_summary: "Stored summary" }), ...over })
    .returning();
  return row!;
}

async function stored(id: number) {
  const [r] = await db().select().from(intakeAssessments).where(eq(intakeAssessments.id, id));
  return { ...r!, doc: JSON.parse(r!.document) as Record<string, unknown> };
}
async function auditRows(entityId: number) {
  return db().select().from(auditLog).where(sql`${auditLog.entity} = 'intake_assessment' and ${auditLog.entityId} = ${String(entityId)}`).orderBy(asc(auditLog.id));
}
/** Intakes, and audit rows of changes (not sign-ins, nor the reads a form shown again records: decision 019, 2026-11-28). */
async function counts() {
  const [a] = await db().select({ n: sql<number>`count(*)` }).from(intakeAssessments);
  const [b] = await db().select({ n: sql<number>`count(*)` }).from(auditLog).where(sql`${auditLog.action} not like 'sign_in%' and ${auditLog.action} <> 'read'`);
  return { intakes: a!.n, audit: b!.n };
}

/** A clinic with a client, and a BCBA (manage) and a viewer there; a client of another clinic. */
async function world() {
  const loc = await createLocation();
  const other = await createLocation();
  const patient = await createPatient({ locationId: loc.id, firstName: "Ivy", lastName: `Intake${Date.now().toString(36)}` });
  const stranger = await createPatient({ locationId: other.id, firstName: "Otto", lastName: "Elsewhere" });
  const bcba = await createUser({ permissions: MANAGE, locations: [loc.id] });
  const viewer = await createUser({ permissions: VIEW, locations: [loc.id] });
  const clientsOnly = await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] });
  return { loc, other, patient, stranger, bcba, viewer, clientsOnly };
}

const valid = (patientId: number, over: Record<string, unknown> = {}) => ({
  patient_id: patientId,
  person_responding: "Mother",
  observation_date: "2025-04-02",
  current_insurance: "Sunshine Health",
  impairs_other_services_without_rbt: "yes",
  impairs_other_services_description: "Cannot attend speech therapy without support.",
  medical_necessity_statement: "ABA is medically necessary.",
  household_members: [{ name: "Ana", relationship: "Mother", age: "34" }],
  educational_programs: [{ name: "Speech", type: "Therapy", weekly_frequency: "2", hours_per_session: "1.5", location: "Clinic" }],
  health_behaviors: { elopement: true, elopement_description: "Runs toward the street." },
  prior_aba_services: { received: "1", start_date: "2023-01-10", end_date: "2024-01-10", treatment_response: "Good" },
  ...over,
});

describe("/api/v2/intake-assessments", () => {
  it("list: only the user's clients, filter patient_id, search by client; 422 on a bad filter; 403 without view_bips", async () => {
    const w = await world();
    const second = await createPatient({ locationId: w.loc.id, firstName: "Quinn", lastName: "Second" });
    const a = await createIntake(w.patient);
    const b = await createIntake(second);
    await createIntake(w.stranger);
    const token = await apiToken(w.viewer);
    const all = (await (await api("/v2/intake-assessments", { token })).json()) as { data: { id: number; assessment_id: number }[]; total: number };
    expect(all.data.map((x) => x.id).sort()).toEqual([a.id, b.id].sort());
    expect(all.data.every((x) => x.assessment_id === x.id)).toBe(true);
    const mine = (await (await api(`/v2/intake-assessments?patient_id=${second.id}`, { token })).json()) as { data: { id: number }[] };
    expect(mine.data.map((x) => x.id)).toEqual([b.id]);
    const search = (await (await api("/v2/intake-assessments?search=Quinn", { token })).json()) as { data: { id: number }[] };
    expect(search.data.map((x) => x.id)).toEqual([b.id]);
    const bad = await api("/v2/intake-assessments?patient_id=abc", { token });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { message: string }).message).toBe("Filters take a record id.");
    expect((await api("/v2/intake-assessments", { token: await apiToken(w.clientsOnly) })).status).toBe(403);
  });

  it("show: 200 with every sub-record and one audit read row; 404 for another location (not audited); 403 without view_bips", async () => {
    const w = await world();
    const mine = await createIntake(w.patient);
    const theirs = await createIntake(w.stranger);
    const token = await apiToken(w.viewer);
    const res = await api(`/v2/intake-assessments/${mine.id}`, { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Record<string, unknown> };
    expect(body.data).toMatchObject({ assessment_id: mine.id, patient_id: w.patient.id, person_responding: "Mother", patient_summary: "Stored summary", household_members: [], educational_programs: [] });
    expect(body.data.health_behaviors).toMatchObject({ elopement: false, self_injury: false });
    const reads = await auditRows(mine.id);
    expect(reads.map((r) => [r.action, r.patientId])).toEqual([["read", w.patient.id]]);
    expect((await api(`/v2/intake-assessments/${theirs.id}`, { token })).status).toBe(404);
    expect(await auditRows(theirs.id)).toHaveLength(0);
    expect((await api(`/v2/intake-assessments/${mine.id}`, { token: await apiToken(w.clientsOnly) })).status).toBe(403);
  });

  it("create: 201 with the yes/true/1 rule applied and an audit row; 403 for a viewer; 422 for a client of another location", async () => {
    const w = await world();
    const bip = await createBip(w.patient);
    const token = await apiToken(w.bcba);
    const res = await api("/v2/intake-assessments", { method: "POST", token, body: valid(w.patient.id, { bip_id: bip.id }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { data: Record<string, unknown> & { id: number }; message: string };
    expect(body.message).toBe("Intake assessment created.");
    expect(body.data).toMatchObject({
      bip_id: bip.id,
      impairs_other_services_without_rbt: true,
      version: 1,
      household_members: [{ name: "Ana", relationship: "Mother", age: 34 }],
      educational_programs: [{ name: "Speech", type: "Therapy", weekly_frequency: 2, hours_per_session: 1.5, location: "Clinic" }],
      prior_aba_services: { received: true, start_date: "2023-01-10", end_date: "2024-01-10" },
    });
    const row = await stored(body.data.id);
    expect(row).toMatchObject({ patientId: w.patient.id, personResponding: "Mother", observationDate: "2025-04-02", currentInsurance: "Sunshine Health", impairsOtherServicesWithoutRbt: true, bipId: bip.id });
    expect(row.doc.health_behaviors).toMatchObject({ elopement: true, elopement_description: "Runs toward the street." });
    expect((await auditRows(body.data.id)).map((r) => [r.action, r.patientId])).toEqual([["create", w.patient.id]]);
    const before = await counts();
    expect((await api("/v2/intake-assessments", { method: "POST", token: await apiToken(w.viewer), body: valid(w.patient.id) })).status).toBe(403);
    // Another location's client is a body reference: 422 at patient_id (decision 017), nothing written.
    expect((await api("/v2/intake-assessments", { method: "POST", token, body: valid(w.stranger.id) })).status).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it.each([
    [{ impairs_other_services_without_rbt: "maybe" }, "impairs_other_services_without_rbt", "Impairs other services without RBT must be yes or no (yes, true or 1; no, false, 0 or empty)."],
    [{ impairs_other_services_without_rbt: 2 }, "impairs_other_services_without_rbt", "Impairs other services without RBT must be yes or no (yes, true or 1; no, false, 0 or empty)."],
    [{ impairs_other_services_description: "" }, "impairs_other_services_description", 'How other services are impaired is required when "Impairs other services without RBT" is yes.'],
    [{ person_responding: "" }, "person_responding", "Person responding is required."],
    [{ observation_date: "2025-02-30" }, "observation_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ patient_id: "" }, "patient_id", "Client is required."],
    [{ educational_programs: [{ name: "OT", weekly_frequency: "-1" }] }, "educational_programs.0.weekly_frequency", "Weekly frequency must be 0 or more."],
    [{ educational_programs: [{ name: "OT" }, { name: "", hours_per_session: "2" }] }, "educational_programs.1.name", "Program name is required."],
    [{ household_members: [{ name: "Ana", age: "x" }] }, "household_members.0.age", "Age must be a number."],
    [{ prior_aba_services: { start_date: "2024-05-01", end_date: "2024-04-01" } }, "prior_aba_services.end_date", "The end date must be after the start date."],
    [{ health_behaviors: { self_injury: "yes" } }, "health_behaviors.self_injury_description", 'Self injury: description is required when "Self injury" is yes.'],
  ])("create refuses bad input with 422 and writes nothing (%#)", async (over, field, message) => {
    const w = await world();
    const token = await apiToken(w.bcba);
    const before = await counts();
    const res = await api("/v2/intake-assessments", { method: "POST", token, body: valid(w.patient.id, over) });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { message: string; errors: Record<string, string> };
    expect(body.errors[field]).toBe(message);
    expect(body.message).toBeTruthy();
    expect(await counts()).toEqual(before);
  });

  it("create refuses a BIP of another client (422), and a BIP of another location the same way", async () => {
    const w = await world();
    const otherClient = await createPatient({ locationId: w.loc.id });
    const foreign = await createBip(otherClient);
    const hidden = await createBip(w.stranger);
    const token = await apiToken(w.bcba);
    const before = await counts();
    for (const bipId of [foreign.id, hidden.id]) {
      const res = await api("/v2/intake-assessments", { method: "POST", token, body: valid(w.patient.id, { bip_id: bipId }) });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ bip_id: "Choose a behavior intervention plan of this client." });
    }
    expect(await counts()).toEqual(before);
  });

  it("update: PUT with the version (409 stale with the current values, nothing changed), PATCH merges, DELETE soft; each audited", async () => {
    const w = await world();
    const token = await apiToken(w.bcba);
    const created = (await (await api("/v2/intake-assessments", { method: "POST", token, body: valid(w.patient.id) })).json()) as { data: { id: number } };
    const id = created.data.id;
    const put = await api(`/v2/intake-assessments/${id}`, { method: "PUT", token, body: valid(w.patient.id, { version: 1, person_responding: "Father", impairs_other_services_without_rbt: "false", educational_programs: [] }) });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { data: Record<string, unknown> }).data).toMatchObject({ person_responding: "Father", impairs_other_services_without_rbt: false, educational_programs: [], version: 2 });
    const before = await counts();
    const stale = await api(`/v2/intake-assessments/${id}`, { method: "PUT", token, body: valid(w.patient.id, { version: 1, person_responding: "Aunt" }) });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { person_responding: string; version: number } }).current).toMatchObject({ person_responding: "Father", version: 2 });
    expect(await counts()).toEqual(before);
    expect((await stored(id)).personResponding).toBe("Father");
    const patch = await api(`/v2/intake-assessments/${id}`, { method: "PATCH", token, body: { version: 2, patient_summary: "Progressing well." } });
    expect(patch.status).toBe(200);
    expect(((await patch.json()) as { data: Record<string, unknown> }).data).toMatchObject({ person_responding: "Father", patient_summary: "Progressing well.", household_members: [{ name: "Ana" }], version: 3 });
    const badPatch = await api(`/v2/intake-assessments/${id}`, { method: "PATCH", token, body: { observation_date: "2025-13-01" } });
    expect(badPatch.status).toBe(422);
    expect((await stored(id)).observationDate).toBe("2025-04-02");
    expect((await api(`/v2/intake-assessments/${id}`, { method: "DELETE", token: await apiToken(w.viewer) })).status).toBe(403);
    expect((await api(`/v2/intake-assessments/${id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await stored(id)).deletedAt).not.toBeNull();
    expect((await api(`/v2/intake-assessments/${id}`, { token })).status).toBe(404);
    expect((await auditRows(id)).map((r) => r.action)).toEqual(["create", "update", "read", "update", "delete"]);
  });

  it("another location's intake: PUT, PATCH and DELETE answer 404 and change nothing", async () => {
    const w = await world();
    const theirs = await createIntake(w.stranger);
    const token = await apiToken(w.bcba);
    for (const method of ["PUT", "PATCH", "DELETE"]) {
      const res = await api(`/v2/intake-assessments/${theirs.id}`, { method, token, body: method === "DELETE" ? undefined : valid(w.stranger.id) });
      expect(res.status, method).toBe(404);
    }
    expect(await stored(theirs.id)).toMatchObject({ personResponding: "Mother", version: 1, deletedAt: null });
    expect(await auditRows(theirs.id)).toHaveLength(0);
  });
});

describe("intake screens (JavaScript off)", () => {
  it("list: the user's clients only, search by client, a link per client; 403 without view_bips", async () => {
    const w = await world();
    await createIntake(w.patient, { personResponding: "Grandmother" });
    await createIntake(w.stranger, { personResponding: "Stranger's father" });
    const cookie = await signInCookie(w.viewer);
    const res = await request("/medical/initial-assessment", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Grandmother");
    expect(html).not.toContain("Otto Elsewhere");
    expect(html).toContain(`/medical/initial-assessment?patient_id=${w.patient.id}`);
    expect(html).not.toContain("New intake assessment");
    const found = await (await request(`/medical/initial-assessment?search=${encodeURIComponent(w.patient.lastName)}`, { cookie })).text();
    expect(found).toContain("Showing 1 to 1 of 1 entries");
    const none = await (await request("/medical/initial-assessment?search=Nobody", { cookie })).text();
    expect(none).toContain("No data to display.");
    expect((await request("/medical/initial-assessment", { cookie: await signInCookie(w.clientsOnly) })).status).toBe(403);
  });

  it("create: a picker without a client, the form with ?patient_id=; 404 for another location; 403 for a viewer", async () => {
    const w = await world();
    const bip = await createBip(w.patient);
    const cookie = await signInCookie(w.bcba);
    const picker = await (await request(`/medical/initial-assessment/create?search=${encodeURIComponent(w.patient.lastName)}`, { cookie })).text();
    expect(picker).toContain(`?patient_id=${w.patient.id}`);
    const formPage = await request(`/medical/initial-assessment/create?patient_id=${w.patient.id}`, { cookie });
    expect(formPage.status).toBe(200);
    const html = await formPage.text();
    expect(html).toContain(`New intake assessment for Ivy ${w.patient.lastName}`);
    expect(html).toContain(`name="patient_id" value="${w.patient.id}"`);
    expect(html).toContain(`BIP #${bip.id}`);
    expect(html).toContain("Medical necessity statement");
    expect((await request(`/medical/initial-assessment/create?patient_id=${w.stranger.id}`, { cookie })).status).toBe(404);
    const viewer = await signInCookie(w.viewer);
    expect((await request("/medical/initial-assessment/create", { cookie: viewer })).status).toBe(403);
    const before = await counts();
    expect((await post("/medical/initial-assessment/create", { intent: "save", patient_id: String(w.patient.id), person_responding: "X", observation_date: "2025-01-01" }, viewer)).status).toBe(403);
    expect((await post("/medical/initial-assessment/create", { intent: "save", patient_id: String(w.stranger.id), person_responding: "X", observation_date: "2025-01-01" }, cookie)).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it("create with bad input re-renders with the field messages and the typed values, and writes nothing", async () => {
    const w = await world();
    const cookie = await signInCookie(w.bcba);
    const before = await counts();
    const res = await post(
      `/medical/initial-assessment/create?patient_id=${w.patient.id}`,
      {
        intent: "save",
        patient_id: String(w.patient.id),
        person_responding: "Typed Person",
        observation_date: "2025-02-30",
        "educational_programs[0][name]": "Typed Program",
        "educational_programs[0][weekly_frequency]": "-3",
        "health_behaviors[throwing]": "yes",
      },
      cookie,
    );
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Enter a valid date (YYYY-MM-DD).");
    expect(html).toContain("Weekly frequency must be 0 or more.");
    expect(html).toContain("Throwing: description is required when &quot;Throwing&quot; is yes.");
    expect(html).toContain('value="Typed Person"');
    expect(html).toContain('value="Typed Program"');
    expect(html).toContain('value="-3"');
    expect(await counts()).toEqual(before);
  });

  it("a no-JS create with two programs and a household member, then an edit that removes one row", async () => {
    const w = await world();
    const cookie = await signInCookie(w.bcba);
    const url = `/medical/initial-assessment/create?patient_id=${w.patient.id}`;
    const base = { patient_id: String(w.patient.id), person_responding: "Mother", observation_date: "2025-05-03", impairs_other_services_without_rbt: "no" };

    // "Add a row" re-renders the form with one more empty row and keeps what was typed; nothing is saved.
    const before = await counts();
    const added = await post(url, { ...base, intent: "add-row:educational_programs", "educational_programs[0][name]": "Speech therapy" }, cookie);
    expect(added.status).toBe(200);
    const addedHtml = await added.text();
    expect(addedHtml).toContain('value="Speech therapy"');
    expect(addedHtml).toContain('name="educational_programs[1][name]"');
    expect(addedHtml).not.toContain('name="educational_programs[2][name]"');
    expect(addedHtml).toContain('value="remove-row:educational_programs:1"');
    const addedMember = await (await post(url, { ...base, intent: "add-row:household_members" }, cookie)).text();
    expect(addedMember).toContain('name="household_members[0][name]"');
    expect(await counts()).toEqual(before);

    const saved = await post(
      url,
      {
        ...base,
        intent: "save",
        "household_members[0][name]": "Ana",
        "household_members[0][relationship]": "Mother",
        "household_members[0][age]": "34",
        "educational_programs[0][name]": "Speech therapy",
        "educational_programs[0][weekly_frequency]": "2",
        "educational_programs[0][hours_per_session]": "1",
        "educational_programs[1][name]": "Occupational therapy",
        "educational_programs[1][weekly_frequency]": "1",
        "educational_programs[1][hours_per_session]": "0.75",
      },
      cookie,
    );
    expect(saved.status).toBe(303);
    const location = saved.headers.get("Location")!;
    const id = Number(/^\/medical\/initial-assessment\/(\d+)\?flash=/.exec(location)?.[1]);
    expect(id).toBeGreaterThan(0);
    let row = await stored(id);
    expect(row.doc.household_members).toEqual([{ name: "Ana", relationship: "Mother", age: 34 }]);
    expect((row.doc.educational_programs as { name: string }[]).map((p) => p.name)).toEqual(["Speech therapy", "Occupational therapy"]);
    expect(row.impairsOtherServicesWithoutRbt).toBe(false);

    const view = await (await request(location, { cookie })).text();
    expect(view).toContain("Intake assessment created.");
    expect(view).toContain("Occupational therapy");

    // Edit: "Remove" drops the first program from the form (not yet saved), then Save stores what is left.
    const edit = await (await request(`/medical/initial-assessment/${id}?edit`, { cookie })).text();
    expect(edit).toContain('name="educational_programs[1][name]"');
    expect(edit).toContain('name="version" value="1"');
    const fields = {
      ...base,
      version: "1",
      "household_members[0][name]": "Ana",
      "household_members[0][relationship]": "Mother",
      "household_members[0][age]": "34",
      "educational_programs[0][name]": "Speech therapy",
      "educational_programs[0][weekly_frequency]": "2",
      "educational_programs[1][name]": "Occupational therapy",
      "educational_programs[1][weekly_frequency]": "1",
      "educational_programs[1][hours_per_session]": "0.75",
    };
    const removed = await post(`/medical/initial-assessment/${id}?edit`, { ...fields, intent: "remove-row:educational_programs:0" }, cookie);
    expect(removed.status).toBe(200);
    const removedHtml = await removed.text();
    expect(removedHtml).not.toContain("Speech therapy");
    expect(removedHtml).toContain('value="Occupational therapy"');
    expect((await stored(id)).version).toBe(1);
    const { ["educational_programs[0][name]"]: _a, ["educational_programs[0][weekly_frequency]"]: _b, ...kept } = fields;
    const resaved = await post(`/medical/initial-assessment/${id}?edit`, { ...kept, intent: "save" }, cookie);
    expect(resaved.status).toBe(303);
    row = await stored(id);
    expect(row.doc.educational_programs).toEqual([{ name: "Occupational therapy", type: null, weekly_frequency: 1, hours_per_session: 0.75, location: null }]);
    expect(row.doc.household_members).toHaveLength(1);
    expect(row.version).toBe(2);
    // Reads: the view after the create, the edit form, and the form shown again after "Remove".
    expect((await auditRows(id)).map((r) => r.action)).toEqual(["create", "read", "read", "read", "update"]);
  });

  it("view: audited, read-only for a viewer (POST 403), 404 for another location; a stale save answers 409 with the current values", async () => {
    const w = await world();
    const mine = await createIntake(w.patient, { version: 3, personResponding: "Current Person" });
    const theirs = await createIntake(w.stranger);
    const viewer = await signInCookie(w.viewer);
    const page = await request(`/medical/initial-assessment/${mine.id}`, { cookie: viewer });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Stored summary");
    expect(html).toContain("Current Person");
    expect(html).not.toContain("Edit intake assessment");
    expect((await auditRows(mine.id)).map((r) => r.action)).toEqual(["read"]);
    expect((await request(`/medical/initial-assessment/${theirs.id}`, { cookie: viewer })).status).toBe(404);
    expect(await auditRows(theirs.id)).toHaveLength(0);
    expect((await post(`/medical/initial-assessment/${mine.id}`, { intent: "delete", confirmed: "yes" }, viewer)).status).toBe(403);

    const cookie = await signInCookie(w.bcba);
    expect((await post(`/medical/initial-assessment/${theirs.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(404);
    const before = await counts();
    const stale = await post(`/medical/initial-assessment/${mine.id}?edit`, { intent: "save", version: "2", patient_id: String(w.patient.id), person_responding: "Stale Person", observation_date: "2025-06-07" }, cookie);
    expect(stale.status).toBe(409);
    const staleHtml = await stale.text();
    expect(staleHtml).toContain("Someone else saved a newer version of this record.");
    expect(staleHtml).toContain('value="Current Person"');
    expect(staleHtml).toContain('name="version" value="3"');
    expect((await counts()).intakes).toBe(before.intakes);
    expect(await stored(mine.id)).toMatchObject({ personResponding: "Current Person", version: 3 });
    expect((await auditRows(mine.id)).map((r) => r.action)).not.toContain("update");

    const deleted = await post(`/medical/initial-assessment/${mine.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(deleted.status).toBe(303);
    expect(withoutFlashTag(deleted.headers.get("Location"))).toMatch(/^\/medical\/initial-assessment\?flash=/);
    expect((await stored(mine.id)).deletedAt).not.toBeNull();
    expect((await request(`/medical/initial-assessment/${mine.id}`, { cookie })).status).toBe(404);
  });
});

/**
 * An intake records an interview that took place (decision 011): its observation date, and the prior ABA services'
 * start and end dates, cannot be after today at the client's location (probe 8983 L4). Kiritimati (UTC+14) and
 * Pago Pago (UTC-11) are 25 hours apart, so "today" there is never UTC's for both.
 */
describe("dates of what has happened: none after today at the client's location", () => {
  const EAST = "Pacific/Kiritimati";
  const WEST = "Pacific/Pago_Pago";
  async function clinicIn(zone: string) {
    const loc = await createLocation({ timeZone: zone });
    const patient = await createPatient({ locationId: loc.id });
    const bcba = await createUser({ permissions: MANAGE, locations: [loc.id] });
    return { patient, today: todayAtLocation(new Date(), zone), token: await apiToken(bcba), cookie: await signInCookie(bcba) };
  }
  const prior = (start: string | null, end: string | null) => ({ prior_aba_services: { received: "1", provider: "Early Steps", start_date: start, end_date: end } });

  it.each<[string, (today: string) => Record<string, unknown>, Record<string, string>]>([
    ["an observation date tomorrow", (t) => ({ observation_date: addDays(t, 1) }), { observation_date: "Observation date cannot be in the future." }],
    ["an observation date in 2099", () => ({ observation_date: "2099-12-31" }), { observation_date: "Observation date cannot be in the future." }],
    ["a prior ABA start date tomorrow", (t) => prior(addDays(t, 1), null), { "prior_aba_services.start_date": "Start date cannot be in the future." }],
    ["a prior ABA end date tomorrow", (t) => prior("2023-01-10", addDays(t, 1)), { "prior_aba_services.end_date": "End date cannot be in the future." }],
    [
      "prior ABA start and end dates both next year",
      (t) => prior(addDays(t, 365), addDays(t, 400)),
      { "prior_aba_services.start_date": "Start date cannot be in the future.", "prior_aba_services.end_date": "End date cannot be in the future." },
    ],
  ])("API create: %s is refused with 422 and writes nothing", async (_case, over, errors) => {
    const c = await clinicIn(EAST);
    const before = await counts();
    const res = await api("/v2/intake-assessments", { method: "POST", token: c.token, body: valid(c.patient.id, over(c.today)) });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { message: string; errors: Record<string, string> };
    expect(body.errors).toEqual(errors);
    expect(body.message).toBeTruthy();
    expect(await counts()).toEqual(before);
  });

  it("today at the client's location (Kiritimati, UTC+14) is taken; the same date where it is still yesterday (Pago Pago) is refused", async () => {
    const east = await clinicIn(EAST);
    const res = await api("/v2/intake-assessments", { method: "POST", token: east.token, body: valid(east.patient.id, { observation_date: east.today, ...prior("2023-01-10", east.today) }) });
    expect(res.status, await res.clone().text()).toBe(201);
    const west = await clinicIn(WEST);
    const there = await api("/v2/intake-assessments", { method: "POST", token: west.token, body: valid(west.patient.id, { observation_date: east.today }) });
    expect(there.status).toBe(422);
    expect(((await there.json()) as { errors: Record<string, string> }).errors).toEqual({ observation_date: "Observation date cannot be in the future." });
  });

  it("an edit that sets a future date is refused (PUT and PATCH); one stored before the rule is kept when another field is saved", async () => {
    const c = await clinicIn(EAST);
    const created = (await (await api("/v2/intake-assessments", { method: "POST", token: c.token, body: valid(c.patient.id) })).json()) as { data: { id: number } };
    const id = created.data.id;
    const before = await counts();
    const put = await api(`/v2/intake-assessments/${id}`, { method: "PUT", token: c.token, body: valid(c.patient.id, { observation_date: addDays(c.today, 1) }) });
    expect(put.status).toBe(422);
    expect(((await put.json()) as { errors: Record<string, string> }).errors).toEqual({ observation_date: "Observation date cannot be in the future." });
    const patch = await api(`/v2/intake-assessments/${id}`, { method: "PATCH", token: c.token, body: prior("2023-01-10", addDays(c.today, 2)) });
    expect(patch.status).toBe(422);
    expect(((await patch.json()) as { errors: Record<string, string> }).errors).toEqual({ "prior_aba_services.end_date": "End date cannot be in the future." });
    expect(await counts()).toEqual(before);
    expect(await stored(id)).toMatchObject({ observationDate: "2025-04-02", version: 1 });
    expect((await stored(id)).doc.prior_aba_services).toMatchObject({ end_date: "2024-01-10" });

    const old = await createIntake(c.patient, { observationDate: "2099-12-31", document: JSON.stringify({ prior_aba_services: { start_date: "2099-01-01" } }) });
    const kept = await api(`/v2/intake-assessments/${old.id}`, { method: "PATCH", token: c.token, body: { person_responding: "Grandmother" } });
    expect(kept.status, await kept.clone().text()).toBe(200);
    expect(await stored(old.id)).toMatchObject({ personResponding: "Grandmother", observationDate: "2099-12-31" });
  });

  it("the screens (JavaScript off): the field's message, the typed values kept, nothing written; the edit screen too", async () => {
    const c = await clinicIn(EAST);
    const before = await counts();
    const tomorrow = addDays(c.today, 1);
    const fields = {
      intent: "save",
      patient_id: String(c.patient.id),
      person_responding: "Typed Person",
      observation_date: tomorrow,
      "prior_aba_services[received]": "yes",
      "prior_aba_services[provider]": "Typed Provider",
      "prior_aba_services[start_date]": "2099-01-01",
    };
    const res = await post(`/medical/initial-assessment/create?patient_id=${c.patient.id}`, fields, c.cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Observation date cannot be in the future.");
    expect(html).toContain("Start date cannot be in the future.");
    expect(html).toContain('value="Typed Person"');
    expect(html).toContain('value="Typed Provider"');
    expect(html).toContain(`value="${tomorrow}"`);
    expect(html).toContain('value="2099-01-01"');
    expect(await counts()).toEqual(before);

    const mine = await createIntake(c.patient);
    const edit = await post(`/medical/initial-assessment/${mine.id}?edit`, { ...fields, version: "1" }, c.cookie);
    expect(edit.status).toBe(422);
    expect(await edit.text()).toContain("Observation date cannot be in the future.");
    expect(await stored(mine.id)).toMatchObject({ observationDate: "2025-03-01", version: 1 });
  });
});

describe("one submit lists every field error: the required fields, future dates and the BIP together (decision 011, stop 43)", () => {
  /** An empty required field, a future observation date, another client's BIP and future prior-ABA dates. */
  async function everythingWrong() {
    const w = await world();
    const today = todayAtLocation(new Date(), "UTC");
    const foreign = await createBip(await createPatient({ locationId: w.loc.id }));
    const wrong = { person_responding: "", observation_date: addDays(today, 30), bip_id: foreign.id, prior_aba_services: { received: "1", start_date: addDays(today, 60), end_date: addDays(today, 90) } };
    return { w, wrong, foreign, today };
  }
  const EVERY_ERROR = {
    person_responding: "Person responding is required.",
    observation_date: "Observation date cannot be in the future.",
    bip_id: "Choose a behavior intervention plan of this client.",
    "prior_aba_services.start_date": "Start date cannot be in the future.",
    "prior_aba_services.end_date": "End date cannot be in the future.",
  };

  it.each<[string, (id: number) => string]>([
    ["POST", () => "/v2/intake-assessments"],
    ["PUT", (id) => `/v2/intake-assessments/${id}`],
    ["PATCH", (id) => `/v2/intake-assessments/${id}`],
  ])("API %s: every error in one 422, nothing written", async (method, path) => {
    const { w, wrong } = await everythingWrong();
    const mine = await createIntake(w.patient);
    const token = await apiToken(w.bcba);
    const before = await counts();
    const res = await api(path(mine.id), { method, token, body: method === "PATCH" ? wrong : valid(w.patient.id, { ...wrong, version: 1 }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual(EVERY_ERROR);
    expect(await counts()).toEqual(before);
    expect(await stored(mine.id)).toMatchObject({ personResponding: "Mother", observationDate: "2025-03-01", bipId: null, version: 1 });
  });

  it("a field that does not parse keeps its own message; the other fields are still checked", async () => {
    const { w, wrong } = await everythingWrong();
    const token = await apiToken(w.bcba);
    const res = await api("/v2/intake-assessments", {
      method: "POST",
      token,
      body: valid(w.patient.id, { ...wrong, observation_date: "2999-02-30", prior_aba_services: { received: "1", start_date: "2024-05-01", end_date: addDays(wrong.observation_date, 1) } }),
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({
      person_responding: "Person responding is required.",
      observation_date: "Enter a valid date (YYYY-MM-DD).",
      bip_id: "Choose a behavior intervention plan of this client.",
      "prior_aba_services.end_date": "End date cannot be in the future.",
    });
    const badBip = await api("/v2/intake-assessments", { method: "POST", token, body: valid(w.patient.id, { ...wrong, bip_id: "abc" }) });
    expect(((await badBip.json()) as { errors: Record<string, string> }).errors).toEqual({ ...EVERY_ERROR, bip_id: "Choose a valid option." });
  });

  it("the screens (JavaScript off): create and edit show every message at once, typed values kept, nothing written", async () => {
    const { w, wrong, foreign } = await everythingWrong();
    const cookie = await signInCookie(w.bcba);
    const mine = await createIntake(w.patient);
    const fields = {
      intent: "save",
      patient_id: String(w.patient.id),
      person_responding: "",
      observation_date: wrong.observation_date,
      bip_id: String(foreign.id),
      "prior_aba_services[received]": "yes",
      "prior_aba_services[provider]": "Typed Provider",
      "prior_aba_services[start_date]": wrong.prior_aba_services.start_date,
      "prior_aba_services[end_date]": wrong.prior_aba_services.end_date,
    };
    const before = await counts();
    for (const [path, body] of [
      [`/medical/initial-assessment/create?patient_id=${w.patient.id}`, fields],
      [`/medical/initial-assessment/${mine.id}?edit`, { ...fields, version: "1" }],
    ] as const) {
      const res = await post(path, body, cookie);
      expect(res.status).toBe(422);
      const html = await res.text();
      for (const message of Object.values(EVERY_ERROR)) expect(html).toContain(message);
      expect(html).toContain('value="Typed Provider"');
      expect(html).toContain(`value="${wrong.observation_date}"`);
    }
    expect(await counts()).toEqual(before);
    expect(await stored(mine.id)).toMatchObject({ personResponding: "Mother", version: 1 });
  });

  it("round trips inside the model: a refused save reads once for its checks; a valid save with a BIP checks in one", async () => {
    const { w, wrong } = await everythingWrong();
    const bip = await createBip(w.patient);
    const actor = (await getUserActor(db(), w.bcba.id))!;
    const ctx = (database = db()): ModelContext => ({ db: database, actor, ip: "203.0.113.9", now: () => new Date() });
    const refused = countingDb();
    expect(await createIntakeAssessment(ctx(refused.db), valid(w.patient.id, wrong))).toMatchObject({ ok: false, status: 422, errors: EVERY_ERROR });
    // The client in scope, then the checks' one batch.
    expect(refused.roundTrips()).toBe(2);
    const saved = countingDb();
    const created = await createIntakeAssessment(ctx(saved.db), valid(w.patient.id, { bip_id: bip.id }));
    expect(created).toMatchObject({ ok: true, data: { bip_id: bip.id } });
    // The client, the checks (time zone and BIP in one batch), the next id, the audit chain's tail, the insert's batch,
    // the saved intake: the BIP check adds no round trip of its own.
    expect(saved.roundTrips()).toBeLessThanOrEqual(6);
  });
});
