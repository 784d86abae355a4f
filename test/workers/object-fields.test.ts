import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { intakeAssessments, notes, paServices, rateRecords } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createBip, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * An object-valued body field refuses a list as it refuses null, text or a number (probe 8913 §1, stop 28): valibot's
 * object schemas, like `typeof`, take an array for an object, so `"content": []` answered 200 and erased a note's
 * clinical content (summary included). Now 422 "… must be an object." and nothing written, on every note type and
 * every path that takes content, and on the other object-valued fields (BIP sections, intake sections, rate info,
 * list entries).
 */

const NOTHING = "Nothing to change: send at least one field to update.";
const CONTENT = "Content must be an object.";
const day = (offset: number) => addDays(todayIn(new Date(), "America/New_York"), offset);

let location: { id: number };
let token: string;

beforeAll(async () => {
  location = await createLocation();
  const user = await createUser({ permissions: ["view_notes", "manage_notes", "view_bips", "manage_bips", "view_clients", "manage_clients", "manage_insurances"], locations: [location.id] });
  token = await apiToken(user);
});

async function call(method: string, path: string, body?: unknown) {
  const res = await api(path, { method, token, body });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const CONTENT_SENT = {
  participants: "Client and RBT",
  summary_note: "Met with client at home; worked on manding.",
  maladaptives: [{ name: "Hitting", frequency: 3 }],
  client_appeared: "Calm",
};

/** [type, v2 path, v1 path (the combined note has none), CPT] */
const TYPES = [
  ["rbt", "/v2/notes-rbt", "/note_rbt", "97153"],
  ["bcba", "/v2/notes-bcba", "/note_bcba", "97155"],
  ["combined", "/v2/notes-combined", null, "97153"],
] as const;

/** Every kind of value that is not an object, and the empty object, with the answer each gets on a PATCH. */
const BAD: [label: string, content: unknown, message: string][] = [
  ["[]", [], CONTENT],
  ["[1,2,3]", [1, 2, 3], CONTENT],
  ["10,000 items", Array.from({ length: 10_000 }, (_, i) => i), CONTENT],
  ["[{…}]", [{ summary_note: "" }], CONTENT],
  ["null", null, CONTENT],
  ['"x"', "x", CONTENT],
  ["1", 1, CONTENT],
  ["{}", {}, NOTHING],
];

describe.each(TYPES)("a %s note's content that is not an object", (_type, path, v1, cpt) => {
  let patientId: number;
  let body: Record<string, unknown>;
  let noteId: number;
  let providerId: number;

  beforeAll(async () => {
    // A provider of its own per note type, so the sessions never overlap.
    providerId = (await createUser({ permissions: ["view_notes"], locations: [location.id] })).id;
    const patient = await createPatient({ locationId: location.id });
    patientId = patient.id;
    const [pa] = await db().insert(paServices).values({ patientId, paService: "Therapy", cpt, nUnits: 400, startDate: day(-200), endDate: day(200) }).returning();
    body = { patient_id: patientId, provider_id: providerId, pa_service_id: pa!.id, cpt_code: cpt, session_date: day(-1), time_in: "09:00", time_out: "10:00", pos: "12" };
    const created = await call("POST", path, { ...body, content: CONTENT_SENT });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    noteId = created.json.data.id;
  });

  const stored = async () => {
    const r = await call("GET", `${path}/${noteId}`);
    expect(r.status).toBe(200);
    return { content: r.json.data.content, version: r.json.data.version };
  };

  it.each(BAD)("PATCH content %s: 422 and the note unchanged (content, version)", async (_label, content, message) => {
    const before = await stored();
    expect(before.content.summary_note).toBe(CONTENT_SENT.summary_note);
    const r = await call("PATCH", `${path}/${noteId}`, { content, version: before.version });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(message);
    if (message === CONTENT) expect(r.json.errors).toEqual({ content: CONTENT });
    expect(await stored()).toEqual(before);
  });

  it.each(BAD.filter(([, content]) => !(content && typeof content === "object" && !Array.isArray(content))))("PUT (v2 and v1) content %s: 422 and the note unchanged", async (_label, content) => {
    const before = await stored();
    for (const at of [`${path}/${noteId}`, ...(v1 ? [`${v1}/update/${noteId}`] : [])]) {
      const r = await call("PUT", at, { ...body, content, version: before.version });
      expect(r.status, at).toBe(422);
      expect(r.json.errors, at).toEqual({ content: CONTENT });
    }
    expect(await stored()).toEqual(before);
  });

  it("a create with content [] is refused and writes no note", async () => {
    const count = async () => (await db().select().from(notes).where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt)))).length;
    const n = await count();
    const r = await call("POST", path, { ...body, session_date: day(-2), content: [] });
    expect(r.status).toBe(422);
    expect(r.json.errors).toEqual({ content: CONTENT });
    expect(await count()).toBe(n);
  });

  it("a list entry that is a list is refused at its list; the note unchanged", async () => {
    const before = await stored();
    const r = await call("PATCH", `${path}/${noteId}`, { content: { maladaptives: [[]] }, version: before.version });
    expect(r.status).toBe(422);
    expect(r.json.errors).toEqual({ "content.maladaptives": "Each entry of Maladaptives must be an object." });
    expect(await stored()).toEqual(before);
  });

  it("an object content still saves the keys it names and keeps the others", async () => {
    const before = await stored();
    const r = await call("PATCH", `${path}/${noteId}`, { content: { client_appeared: "Tired" }, version: before.version });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data.content).toMatchObject({ ...CONTENT_SENT, client_appeared: "Tired" });
    expect(r.json.data.version).toBe(before.version + 1);
  });
});

describe("other object-valued fields refuse a list (probe 8913 §1)", () => {
  it("BIP document sections, an intake section, rate info and list entries: 422 at the field, nothing written", async () => {
    const patient = await createPatient({ locationId: location.id });
    const bip = await createBip(patient, { document: JSON.stringify({ crisis_plan: { description: "Call the parent", prevention: "Breaks" }, sensory: [{ strategy: "Headphones" }] }) });
    const [intake] = await db().insert(intakeAssessments).values({ patientId: patient.id }).returning();
    const [rate] = await db().insert(rateRecords).values({ name: "Standard", locationId: location.id }).returning();
    const cases: [path: string, body: Record<string, unknown>, field: string, message: string][] = [
      [`/v2/bips/${bip.id}`, { crisis_plan: [] }, "crisis_plan", "This section must be an object of texts (field: text)."],
      [`/v2/bips/${bip.id}`, { consent_to_treatment: [] }, "consent_to_treatment", "Consent to treatment must be an object."],
      [`/v2/bips/${bip.id}`, { consent_to_treatment: { analyst_1: [1] } }, "consent_to_treatment.analyst_1", "Analyst 1 must be an object."],
      [`/v2/bips/${bip.id}`, { schedule_of_services_breakdown: [] }, "schedule_of_services_breakdown", "Schedule of services breakdown must be an object."],
      [`/v2/bips/${bip.id}`, { sensory: [[]] }, "sensory", "Each entry of Sensory must be an object."],
      [`/v2/intake-assessments/${intake!.id}`, { medical_development_history: [] }, "medical_development_history", "Send this record as an object."],
      [`/v2/intake-assessments/${intake!.id}`, { household_members: [[]] }, "household_members.0", "Send this record as an object."],
      [`/v2/rate-records/${rate!.id}`, { info: [] }, "info", "Info must be an object with rbt, bcba and manager lists."],
      [`/v2/patients/${patient.id}`, { pa_assessments: [[]] }, "pa_assessments.0", "Each PA assessment must be an object."],
    ];
    for (const [path, body, field, message] of cases) {
      const before = await call("GET", path);
      expect(before.status, path).toBe(200);
      for (const method of ["PATCH", "PUT"]) {
        const r = await call(method, path, { ...body, version: before.json.data.version });
        expect(r.status, `${method} ${path} ${JSON.stringify(body)}`).toBe(422);
        expect(r.json.errors[field], `${method} ${path} ${JSON.stringify(r.json)}`).toBe(message);
      }
      expect((await call("GET", path)).json.data, path).toEqual(before.json.data);
    }
  });

  it("an employee's employment entry that is a list is refused", async () => {
    const admin = await createUser({ role: "SUPERADMIN", locations: [location.id] });
    const adminToken = await apiToken(admin);
    const employee = await createUser({ permissions: ["view_notes"], locations: [location.id] });
    const res = await api(`/v2/employees/${employee.id}`, { method: "PATCH", token: adminToken, body: { employment: [[]] } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.employment).toBe("Each entry of Employment must be an object.");
  });
});
