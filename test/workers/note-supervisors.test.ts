import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices } from "~/db/schema";
import { NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import type { NoteType } from "~/domain/notes";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie, type TestUser } from "./helpers";

/**
 * A note's supervisor (decision 023, probe 8903 §3): someone who can supervise (a BCBA or BCaBA, the credential the
 * price lookup reads from a user's roles) and never the note's provider — refused with 422 at `supervisor_id` on
 * the API and the screens, for every note type, on create and on an edit that changes the supervisor (or the
 * provider). The form offers only those supervisors, and the provider never countersigns their own note. And the new
 * note form types the writer's name as the provider's signature only when the writer is the provider (§7).
 */

const today = () => todayIn(new Date(), "America/New_York");
const day = (offset: number) => addDays(today(), offset);
const PATHS: Record<NoteType, string> = { rbt: "/v2/notes-rbt", bcba: "/v2/notes-bcba", combined: "/v2/notes-combined" };
const CPT: Record<NoteType, string> = { rbt: "97153", bcba: "97155", combined: "97155" };

let location: { id: number };
type Staff = TestUser & { token: string; cookie: string };
let manager: Staff;
let bcba: Staff;
let bcaba: Staff;
let rbt: Staff;
let rbt2: Staff;
let office: Staff;
let slot = 0;

async function staff(name: string, role: string | undefined, permissions: ("view_notes" | "manage_notes")[]): Promise<Staff> {
  const u = await createUser({ name, role, permissions, locations: [location.id] });
  return { ...u, token: await apiToken(u), cookie: await signInCookie(u) };
}

beforeAll(async () => {
  location = await createLocation();
  manager = await staff("Marcus", undefined, ["view_notes", "manage_notes"]);
  bcba = await staff("Elena", "BCBA", ["view_notes"]);
  bcaba = await staff("Tyler", "BCaBA", ["view_notes"]);
  rbt = await staff("Jasmine", "RBT", ["view_notes"]);
  rbt2 = await staff("Maya", "RBT", ["view_notes"]);
  office = await staff("Hannah", undefined, ["view_notes"]);
});

/** A fresh client with a PA service for the type's CPT; each note in its own hour so no rule but the supervisor's refuses. */
async function scene(type: NoteType) {
  const patient = await createPatient({ locationId: location.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Auth", cpt: CPT[type], nUnits: 400, startDate: day(-200), endDate: day(200) }).returning();
  return { patient, pa: pa! };
}

function body(s: Awaited<ReturnType<typeof scene>>, type: NoteType, over: Record<string, unknown> = {}) {
  const h = 8 + (slot++ % 10);
  return { patient_id: s.patient.id, pa_service_id: s.pa.id, cpt_code: CPT[type], session_date: day(-1 - Math.floor(slot / 10)), time_in: `${String(h).padStart(2, "0")}:00`, time_out: `${String(h).padStart(2, "0")}:30`, pos: "12", ...over };
}

async function call(token: string, method: string, path: string, b?: unknown) {
  const res = await api(path, { method, token, body: b });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

/** A page's text with React's escapes read back ("note&#x27;s" → "note's"). */
const textOf = async (res: Response) => (await res.text()).replaceAll("&#x27;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");

const liveNotes = async (patientId: number) => db().select().from(notes).where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt)));

describe("who may be a note's supervisor (API)", () => {
  const cases = (["rbt", "bcba", "combined"] as const).flatMap((type) => [
    [type, "the provider herself", () => (type === "rbt" ? rbt : bcba), () => (type === "rbt" ? rbt : bcba), NOTE_MESSAGES.supervisorIsProvider],
    [type, "another RBT", () => (type === "rbt" ? rbt : bcba), () => rbt2, NOTE_MESSAGES.supervisorNotQualified],
    [type, "office staff without a BCBA or BCaBA role", () => (type === "rbt" ? rbt : bcba), () => office, NOTE_MESSAGES.supervisorNotQualified],
  ] as const);

  it.each(cases)("%s note, supervisor = %s: 422 at supervisor_id on create, nothing written", async (type, _label, provider, supervisor, message) => {
    const s = await scene(type);
    const r = await call(manager.token, "POST", PATHS[type], body(s, type, { provider_id: provider().id, supervisor_id: supervisor().id }));
    expect(r.status, JSON.stringify(r.json)).toBe(422);
    expect(r.json.errors).toEqual({ supervisor_id: message });
    expect(await liveNotes(s.patient.id)).toHaveLength(0);
  });

  it.each([
    ["rbt", () => rbt, () => bcba],
    ["rbt", () => rbt, () => bcaba],
    ["bcba", () => bcaba, () => bcba],
    ["combined", () => bcba, () => bcaba],
  ] as const)("%s note: a BCBA or BCaBA who is not the provider supervises", async (type, provider, supervisor) => {
    const s = await scene(type);
    const r = await call(manager.token, "POST", PATHS[type], body(s, type, { provider_id: provider().id, supervisor_id: supervisor().id }));
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.data.supervisor_id).toBe(supervisor().id);
  });

  it("an edit checks the supervisor only when it changes it (or the provider): a stored one stays", async () => {
    const s = await scene("rbt");
    const created = await call(rbt.token, "POST", PATHS.rbt, body(s, "rbt", { provider_id: rbt.id, supervisor_id: bcba.id }));
    expect(created.status).toBe(201);
    const id = created.json.data.id as number;
    // A note stored before the rule with an RBT as its supervisor.
    await db().update(notes).set({ supervisorId: rbt2.id }).where(eq(notes.id, id));
    const kept = await call(rbt.token, "PATCH", `${PATHS.rbt}/${id}`, { participants: "Mother", version: created.json.data.version });
    expect(kept.status, JSON.stringify(kept.json)).toBe(200);
    expect(kept.json.data.supervisor_id).toBe(rbt2.id);
    const version = kept.json.data.version as number;
    for (const [change, message] of [
      [{ supervisor_id: rbt.id }, NOTE_MESSAGES.supervisorIsProvider],
      [{ supervisor_id: office.id }, NOTE_MESSAGES.supervisorNotQualified],
      [{ provider_id: rbt2.id }, NOTE_MESSAGES.supervisorIsProvider],
    ] as const) {
      const r = await call(manager.token, "PATCH", `${PATHS.rbt}/${id}`, { ...change, version });
      expect(r.status, JSON.stringify(change)).toBe(422);
      expect(r.json.errors).toEqual({ supervisor_id: message });
    }
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    expect(row).toMatchObject({ version, providerId: rbt.id, supervisorId: rbt2.id });
    const fixed = await call(rbt.token, "PATCH", `${PATHS.rbt}/${id}`, { supervisor_id: bcaba.id, version });
    expect(fixed.status).toBe(200);
    expect(fixed.json.data.supervisor_id).toBe(bcaba.id);
  });
});

describe("the note form's supervisor (screens)", () => {
  const fields = (s: Awaited<ReturnType<typeof scene>>, over: Record<string, string>) => {
    const b = body(s, "rbt");
    return { intent: "save", form_token: crypto.randomUUID(), type: "rbt", patient_id: String(s.patient.id), provider_id: String(rbt.id), supervisor_id: "", session_date: b.session_date, cpt_code: "97153", pa_service_id: String(s.pa.id), pos: "12", time_in: b.time_in, time_out: b.time_out, provider_name: "", provider_signed_on: "", ...over };
  };

  it("offers only BCBAs and BCaBAs, never the provider", async () => {
    const s = await scene("rbt");
    const page = await (await request(`/note-rbt?patient_id=${s.patient.id}`, { cookie: rbt.cookie })).text();
    const select = /<select[^>]*name="supervisor_id"[^>]*>([\s\S]*?)<\/select>/.exec(page)![1]!;
    const offered = [...select.matchAll(/<option value="(\d+)"(?![^>]*disabled)/g)].map((m) => Number(m[1]));
    expect(offered.sort()).toEqual([bcba.id, bcaba.id].sort());
    // A BCBA writing her own note is not offered as her own supervisor.
    const own = await (await request(`/note-bcba?patient_id=${s.patient.id}`, { cookie: bcba.cookie })).text();
    const ownSelect = /<select[^>]*name="supervisor_id"[^>]*>([\s\S]*?)<\/select>/.exec(own)![1]!;
    expect([...ownSelect.matchAll(/<option value="(\d+)"(?![^>]*disabled)/g)].map((m) => Number(m[1]))).toEqual([bcaba.id]);
  });

  it.each([
    ["herself", () => rbt, NOTE_MESSAGES.supervisorIsProvider],
    ["another RBT", () => rbt2, NOTE_MESSAGES.supervisorNotQualified],
  ] as const)("an RBT naming %s as supervisor: 422 with the message at the field, nothing written (create and edit)", async (_label, supervisor, message) => {
    const s = await scene("rbt");
    const refused = await post(`/note-rbt?patient_id=${s.patient.id}`, fields(s, { supervisor_id: String(supervisor().id) }), rbt.cookie);
    expect(refused.status).toBe(422);
    expect(await textOf(refused)).toContain(message);
    expect(await liveNotes(s.patient.id)).toHaveLength(0);
    const saved = await post(`/note-rbt?patient_id=${s.patient.id}`, fields(s, { supervisor_id: String(bcba.id) }), rbt.cookie);
    expect(saved.status).toBe(303);
    const id = Number(/\/view\/(\d+)/.exec(saved.headers.get("Location")!)![1]);
    const edit = await post(`/note-rbt/edit/${id}`, { ...fields(s, { supervisor_id: String(supervisor().id) }), form_token: "", version: "1" }, rbt.cookie);
    expect(edit.status).toBe(422);
    expect(await textOf(edit)).toContain(message);
    expect((await liveNotes(s.patient.id))[0]).toMatchObject({ supervisorId: bcba.id, version: 1 });
  });

  it("the provider never countersigns their own note, even one stored with them as supervisor", async () => {
    const s = await scene("rbt");
    const saved = await post(`/note-rbt?patient_id=${s.patient.id}`, fields(s, { supervisor_id: String(bcba.id), provider_name: "Jasmine User", provider_signed_on: today() }), rbt.cookie);
    expect(saved.status).toBe(303);
    const id = Number(/\/view\/(\d+)/.exec(saved.headers.get("Location")!)![1]);
    await db().update(notes).set({ supervisorId: rbt.id }).where(eq(notes.id, id));
    expect(await (await request(`/note-rbt/view/${id}`, { cookie: rbt.cookie })).text()).not.toContain("Countersign as supervisor");
    const r = await post(`/note-rbt/view/${id}`, { intent: "countersign", version: "1", supervisor_name: "Jasmine User", supervisor_signed_on: today(), supervisor_signature: "" }, rbt.cookie);
    expect(r.status).toBe(403);
    expect((await liveNotes(s.patient.id))[0]).toMatchObject({ supervisorName: "", supervisorSignedOn: null, version: 1 });
  });

  it("a supervisor who cannot supervise now never countersigns: an old note stored with an RBT as supervisor (422 with the reason, nothing written)", async () => {
    const s = await scene("rbt");
    const saved = await post(`/note-rbt?patient_id=${s.patient.id}`, fields(s, { supervisor_id: String(bcba.id), provider_name: "Jasmine User", provider_signed_on: today() }), rbt.cookie);
    expect(saved.status).toBe(303);
    const id = Number(/\/view\/(\d+)/.exec(saved.headers.get("Location")!)![1]);
    await db().update(notes).set({ supervisorId: rbt2.id }).where(eq(notes.id, id));
    expect(await (await request(`/note-rbt/view/${id}`, { cookie: rbt2.cookie })).text()).not.toContain("Countersign as supervisor");
    const r = await post(`/note-rbt/view/${id}`, { intent: "countersign", version: "1", supervisor_name: "Maya User", supervisor_signed_on: today(), supervisor_signature: "" }, rbt2.cookie);
    expect(r.status).toBe(422);
    expect(await textOf(r)).toContain(NOTE_MESSAGES.countersignNotQualified);
    expect((await liveNotes(s.patient.id))[0]).toMatchObject({ supervisorId: rbt2.id, supervisorName: "", supervisorSignedOn: null, version: 1 });
    // With a BCBA named as its supervisor, she countersigns it.
    await db().update(notes).set({ supervisorId: bcba.id }).where(eq(notes.id, id));
    expect(await (await request(`/note-rbt/view/${id}`, { cookie: bcba.cookie })).text()).toContain("Countersign as supervisor");
    const done = await post(`/note-rbt/view/${id}`, { intent: "countersign", version: "1", supervisor_name: "Elena User", supervisor_signed_on: today(), supervisor_signature: "" }, bcba.cookie);
    expect(done.status).toBe(303);
    expect((await liveNotes(s.patient.id))[0]).toMatchObject({ supervisorName: "Elena User", supervisorSignedOn: today(), version: 2 });
  });

  it.each([
    ["another RBT", () => rbt2, "Maya User (not a BCBA or BCaBA)"],
    ["office staff", () => office, "Hannah User (not a BCBA or BCaBA)"],
  ] as const)("a refused supervisor (%s) stays chosen in the select, named and marked (create and edit)", async (_label, supervisor, label) => {
    const s = await scene("rbt");
    // The options holding the refused person's id: one, with their name and mark, and chosen (not the bare id).
    const optionsFor = (page: string) =>
      [...(/<select[^>]*name="supervisor_id"[^>]*>([\s\S]*?)<\/select>/.exec(page)![1]!.matchAll(/<option value="(\d*)"([^>]*)>([^<]*)<\/option>/g))]
        .filter((m) => m[1] === String(supervisor().id))
        .map((m) => ({ label: m[3], chosen: m[2]!.includes("selected") }));
    const refused = await post(`/note-rbt?patient_id=${s.patient.id}`, fields(s, { supervisor_id: String(supervisor().id) }), rbt.cookie);
    expect(refused.status).toBe(422);
    expect(optionsFor(await textOf(refused))).toEqual([{ label, chosen: true }]);
    const saved = await post(`/note-rbt?patient_id=${s.patient.id}`, fields(s, { supervisor_id: String(bcba.id) }), rbt.cookie);
    const id = Number(/\/view\/(\d+)/.exec(saved.headers.get("Location")!)![1]);
    const edit = await post(`/note-rbt/edit/${id}`, { ...fields(s, { supervisor_id: String(supervisor().id) }), form_token: "", version: "1" }, rbt.cookie);
    expect(edit.status).toBe(422);
    expect(optionsFor(await textOf(edit))).toEqual([{ label, chosen: true }]);
  });
});

describe("the provider's typed name on a new note (probe 8903 §7)", () => {
  const typedName = (page: string) => /<input[^>]*name="provider_name"[^>]*>/.exec(page)![0].match(/value="([^"]*)"/)?.[1] ?? "";

  it("starts as the writer's name only when the writer is the provider", async () => {
    const s = await scene("bcba");
    expect(typedName(await (await request(`/note-bcba?patient_id=${s.patient.id}`, { cookie: manager.cookie })).text())).toBe("Marcus User");
    // Opened for another provider (a scheduled session's "Write the note").
    expect(typedName(await (await request(`/note-bcba?patient_id=${s.patient.id}&provider_id=${bcba.id}`, { cookie: manager.cookie })).text())).toBe("");
  });

  it.each([
    ["another provider chosen: the writer's name is cleared", () => bcba.id, "Marcus User", ""],
    ["another provider chosen: a name typed for them stays", () => bcba.id, "Elena User", "Elena User"],
    ["the writer chosen again: their name fills an empty field", () => manager.id, "", "Marcus User"],
  ] as const)("Update the form without JavaScript — %s", async (_label, provider, typed, shown) => {
    const s = await scene("bcba");
    const res = await post(`/note-bcba?patient_id=${s.patient.id}`, { intent: "options", type: "bcba", patient_id: String(s.patient.id), provider_id: String(provider()), provider_name: typed, cpt_code: "97155", session_date: day(-1) }, manager.cookie);
    expect(res.status).toBe(200);
    expect(typedName(await res.text())).toBe(shown);
  });
});
