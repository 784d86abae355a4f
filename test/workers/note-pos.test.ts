import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { locations, notes, paServices } from "~/db/schema";
import { NOTE_MESSAGES } from "~/domain/note-rules";
import type { NoteType } from "~/domain/notes";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A note's place of service is one of its location's codes, what the form's select offers (probe 8892): RBT, BCBA
 * and combined notes, the API and the screens alike. An edit that leaves the stored POS as it is keeps it even when
 * the location no longer offers it (decision 017).
 */

const CODES = ["02", "11", "12"];
const REFUSED = NOTE_MESSAGES.pos(CODES);
// Not codes at all, and "03": a real code this location does not offer.
const BAD = ["77", "ZZ", "Q1", "03"];
const TYPES: [NoteType, string][] = [
  ["rbt", "97153"],
  ["bcba", "97155"],
  ["combined", "97156"],
];

const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());

let w: { locationId: number; manager: number; token: string; cookie: string };

beforeAll(async () => {
  const loc = await createLocation({ posCodes: CODES.join(",") });
  const manager = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [loc.id] });
  w = { locationId: loc.id, manager: manager.id, token: await apiToken(manager), cookie: await signInCookie(manager) };
});

/** A fresh client with a PA service for the type's CPT: its notes never meet another test's. */
async function client(cpt: string) {
  const patient = await createPatient({ locationId: w.locationId });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Auth", cpt, nUnits: 4000, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
  return { patientId: patient.id, paId: pa!.id };
}

let slot = 0;
/** A session of its own: another day and hour each time (the manager is every note's provider). */
function session() {
  const n = slot++;
  const h = 6 + (n % 7) * 2;
  return { session_date: addDays(today(), -1 - Math.floor(n / 7)), time_in: `${String(h).padStart(2, "0")}:00`, time_out: `${String(h).padStart(2, "0")}:45` };
}

function fields(type: NoteType, cpt: string, c: { patientId: number; paId: number }, pos: string) {
  return { type, patient_id: String(c.patientId), provider_id: String(w.manager), pa_service_id: String(c.paId), cpt_code: cpt, pos, diagnosis_code: "F84.0", ...(type === "combined" ? { unit_price_cents: "2500" } : {}), ...session() };
}

function postForm(path: string, f: Record<string, string>) {
  return request(path, { method: "POST", body: new URLSearchParams(f), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

async function apiCall(method: string, path: string, body: unknown) {
  const res = await api(path, { method, token: w.token, body });
  return { status: res.status, json: (await res.json()) as { data: { id: number; pos: string; version: number }; errors?: Record<string, string> } };
}

async function notesOf(patientId: number) {
  return db().select().from(notes).where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt)));
}

async function noteRow(id: number) {
  const [r] = await db().select().from(notes).where(eq(notes.id, id));
  return r!;
}

/** Creates a note through the API with a listed POS; answers its id. */
async function created(type: NoteType, cpt: string, c: { patientId: number; paId: number }, pos = "12") {
  const r = await apiCall("POST", `/v2/notes-${type}`, fields(type, cpt, c, pos));
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json.data.id;
}

describe("a note's place of service must be one its location offers", () => {
  it.each(TYPES)("%s: API create, API update and screen create refuse a POS not in the list, with the message, and write nothing", async (type, cpt) => {
    const c = await client(cpt);
    const id = await created(type, cpt, c);
    const before = await noteRow(id);
    for (const pos of BAD) {
      const create = await apiCall("POST", `/v2/notes-${type}`, fields(type, cpt, c, pos));
      expect(create.status, `API create ${pos}`).toBe(422);
      expect(create.json.errors, `API create ${pos}`).toEqual({ pos: REFUSED });

      const update = await apiCall("PATCH", `/v2/notes-${type}/${id}`, { pos });
      expect(update.status, `API update ${pos}`).toBe(422);
      expect(update.json.errors, `API update ${pos}`).toEqual({ pos: REFUSED });

      const screen = await postForm(`/note-${type}?patient_id=${c.patientId}`, { intent: "save", form_token: crypto.randomUUID(), ...fields(type, cpt, c, pos) });
      expect(screen.status, `screen create ${pos}`).toBe(422);
      expect(await screen.text(), `screen create ${pos}`).toContain(REFUSED);

      const edit = await postForm(`/note-${type}/edit/${id}`, { intent: "save", version: String(before.version), ...fields(type, cpt, c, pos), session_date: before.sessionDate, time_in: before.timeIn!, time_out: before.timeOut! });
      expect(edit.status, `screen edit ${pos}`).toBe(422);
      expect(await edit.text(), `screen edit ${pos}`).toContain(REFUSED);
    }
    expect(await notesOf(c.patientId)).toHaveLength(1);
    expect(await noteRow(id)).toMatchObject({ pos: "12", version: before.version });
  });

  it.each(TYPES)("%s: every listed POS is accepted, by the API and the screen", async (type, cpt) => {
    const c = await client(cpt);
    for (const pos of CODES) {
      const viaApi = await apiCall("POST", `/v2/notes-${type}`, fields(type, cpt, c, pos));
      expect(viaApi.status, `API ${pos}: ${JSON.stringify(viaApi.json)}`).toBe(201);
      expect(viaApi.json.data.pos).toBe(pos);
      const viaScreen = await postForm(`/note-${type}?patient_id=${c.patientId}`, { intent: "save", form_token: crypto.randomUUID(), ...fields(type, cpt, c, pos) });
      expect(viaScreen.status, `screen ${pos}`).toBe(303);
    }
    expect((await notesOf(c.patientId)).map((n) => n.pos).sort()).toEqual([...CODES, ...CODES].sort());
  });

  it("an edit that leaves a POS the location has since dropped keeps it; changing to a code not offered is refused", async () => {
    const loc = await createLocation({ posCodes: "11,12" });
    const manager = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [loc.id] });
    const token = await apiToken(manager);
    const patient = await createPatient({ locationId: loc.id });
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Auth", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
    const body = { patient_id: patient.id, provider_id: manager.id, pa_service_id: pa!.id, cpt_code: "97153", pos: "12", session_date: addDays(today(), -1), time_in: "09:00", time_out: "10:00" };
    const res = await api("/v2/notes-rbt", { method: "POST", token, body });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { id: number } }).data.id;
    await db().update(locations).set({ posCodes: "11" }).where(eq(locations.id, loc.id));

    const patch = await api(`/v2/notes-rbt/${id}`, { method: "PATCH", token, body: { diagnosis_code: "F84.9" } });
    expect(patch.status).toBe(200);
    const cookie = await signInCookie(manager);
    const fields = Object.fromEntries(Object.entries({ ...body, type: "rbt", intent: "save", version: "2", diagnosis_code: "F84.1" }).map(([k, x]) => [k, String(x)]));
    const edit = await request(`/note-rbt/edit/${id}`, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(edit.status).toBe(303);
    expect(await noteRow(id)).toMatchObject({ pos: "12", diagnosisCode: "F84.1", version: 3 });

    const moved = await api(`/v2/notes-rbt/${id}`, { method: "PATCH", token, body: { pos: "02" } });
    expect(moved.status).toBe(422);
    expect(((await moved.json()) as { errors: Record<string, string> }).errors).toEqual({ pos: NOTE_MESSAGES.pos(["11"]) });
    expect(await noteRow(id)).toMatchObject({ pos: "12", version: 3 });
  });
});

describe("a note's place of service is shown with its meaning (clinical §3)", () => {
  it.each(TYPES)("%s: the form's select offers '12 Home', and the view and the PDF show it", async (type, cpt) => {
    const c = await client(cpt);
    const form = await (await request(`/note-${type}?patient_id=${c.patientId}`, { cookie: w.cookie })).text();
    const select = /<select[^>]*name="pos"[\s\S]*?<\/select>/.exec(form)?.[0] ?? "";
    expect(select).toContain('<option value="02">02 Telehealth</option>');
    expect(select).toContain('<option value="11">11 Office</option>');
    expect(select).toContain('<option value="12">12 Home</option>');

    const id = await created(type, cpt, c, "12");
    const view = await (await request(`/note-${type}/view/${id}`, { cookie: w.cookie })).text();
    expect(view).toMatch(/<dt>Place of service<\/dt><dd>12 Home<\/dd>/);
  });
});
