import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices } from "~/db/schema";
import { NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import type { Permission } from "~/domain/permissions";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * The note fields of clinical §3 ("BCBA note", "RBT note", "Combined note") that the API used to drop without a
 * word (probe 8896 §1–2, stop 25): stored on create, kept by PATCH, answered by every read (v1 show and v2).
 */

const today = () => todayIn(new Date(), "America/New_York");
const day = (offset: number) => addDays(today(), offset);

let location: { id: number };

async function staff(permissions: Permission[], locations: number[]) {
  const user = await createUser({ permissions, locations });
  return { id: user.id, token: await apiToken(user) };
}

/** A fresh client with a PA service of `cpt` and a provider of their own (no overlap with another test's session). */
async function scene(cpt: string) {
  const user = await staff(["view_notes", "manage_notes"], [location.id]);
  const patient = await createPatient({ locationId: location.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Therapy", cpt, nUnits: 400, startDate: day(-200), endDate: day(200) }).returning();
  return { user, patient, pa: pa! };
}

type Scene = Awaited<ReturnType<typeof scene>>;

async function call(s: Scene, method: string, path: string, b?: unknown) {
  const res = await api(path, { method, token: s.user.token, body: b });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function post(s: Scene, path: string, b: unknown) {
  const h = new Headers({ Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${s.user.token}` });
  const res = await appFetch(`http://localhost/api${path}`, { method: "POST", headers: h, body: JSON.stringify(b) });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function notesOf(patientId: number) {
  return db().select().from(notes).where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt)));
}

beforeAll(async () => {
  location = await createLocation();
});

const base = (s: Scene, cpt: string, over: Record<string, unknown> = {}) => ({
  patient_id: s.patient.id,
  provider_id: s.user.id,
  pa_service_id: s.pa.id,
  cpt_code: cpt,
  session_date: day(-1),
  time_in: "09:00",
  time_out: "10:00",
  pos: "12",
  ...over,
});

/** [type, v2 path, legacy show path, CPT, field, value sent, value answered]. */
const FIELDS: [string, string, string | null, string, string, unknown, unknown][] = [
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "note_description", "Observed a session", "Observed a session"],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "rbt_training_goals", " Prompt fading ", "Prompt fading"],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "meet_with_client_at", "home", "home"],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "BCBA_conducted_client_observations", true, true],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "BCBA_conducted_assessments", "true", true],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "was_the_rbt_present", true, true],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "modifications_needed_at_this_time", false, false],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "replacement_protocols", [{ name: "Manding" }], [{ plan_id: null, name: "Manding", percent: null }]],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "intervention_protocols", [{ name: "DRA", percent: 40 }], [{ plan_id: null, name: "DRA", percent: 40 }]],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "behavior_protocols", [{ name: "Elopement" }], [{ plan_id: null, name: "Elopement", percent: null }]],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97156", "teacher_goals", [{ name: "Visual schedule", percent: 50 }], [{ plan_id: null, name: "Visual schedule", percent: 50 }]],
  ["bcba", "/v2/notes-bcba", "/note_bcba/show", "97155", "additional_goals_or_interventions", "Toilet training", "Toilet training"],
  ["rbt", "/v2/notes-rbt", "/note_rbt/show", "97153", "provider_credential", "RBT", "RBT"],
  ["rbt", "/v2/notes-rbt", "/note_rbt/show", "97153", "provider_name_g", "Ana Ruiz", "Ana Ruiz"],
  ["rbt", "/v2/notes-rbt", "/note_rbt/show", "97153", "meet_with_client_at", "school", "school"],
  ["combined", "/v2/notes-combined", null, "97155", "note_description", "Joint session", "Joint session"],
];

describe("clinical §3 note fields are stored, kept and answered (probe 8896 §1)", () => {
  it.each(FIELDS)("%s %s (%s) %s: a create stores it, PATCH changes it, other PATCHes keep it, every read answers it", async (_type, v2, legacy, cpt, field, sent, answered) => {
    const s = await scene(cpt);
    const created = await post(s, v2, base(s, cpt, { [field]: sent }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data.content[field]).toEqual(answered);
    const id = created.json.data.id as number;
    expect((await call(s, "GET", `${v2}/${id}`)).json.data.content[field]).toEqual(answered);
    if (legacy) expect((await call(s, "GET", `${legacy}/${id}`)).json.data.content[field]).toEqual(answered);
    // A PATCH naming another field keeps it.
    const other = await call(s, "PATCH", `${v2}/${id}`, { participants: "Mother" });
    expect(other.status, JSON.stringify(other.json)).toBe(200);
    expect(other.json.data.content[field]).toEqual(answered);
    // A PATCH naming it alone (flat, as the spec sends it) changes it.
    const cleared = typeof answered === "boolean" ? !answered : Array.isArray(answered) ? [] : "changed";
    const patched = await call(s, "PATCH", `${v2}/${id}`, { [field]: cleared });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect((await call(s, "GET", `${v2}/${id}`)).json.data.content[field]).toEqual(cleared);
  });

  it("a BCBA replacement entry keeps its percent (0–100); 101 is refused at it", async () => {
    const s = await scene("97155");
    const created = await post(s, "/v2/notes-bcba", base(s, "97155", { replacements: [{ name: "Manding", percent: 80 }] }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data.content.replacements).toEqual([{ plan_id: null, name: "Manding", total_trials: null, correct_responses: null, percent: 80 }]);
    const read = await call(s, "GET", `/note_bcba/show/${created.json.data.id}`);
    expect(read.json.data.content.replacements[0].percent).toBe(80);
    const bad = await call(s, "PATCH", `/v2/notes-bcba/${created.json.data.id}`, { replacements: [{ name: "Manding", percent: 101 }] });
    expect(bad.status, JSON.stringify(bad.json)).toBe(422);
    expect(bad.json.errors["content.replacements.percent"]).toBe("Percent is too large.");
  });
});

describe("a combined note's unit_price in dollars (probe 8896 §2)", () => {
  it("unit_price 31.5 is stored as 3150 cents and answered as \"31.50\", with note_type and doctor_id", async () => {
    const s = await scene("97155");
    const created = await post(s, "/v2/notes-combined", base(s, "97155", { unit_price: 31.5, note_type: "combined", doctor_id: s.user.id }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data).toMatchObject({ unit_price_cents: 3150, unit_price: "31.50", note_type: "combined", doctor_id: s.user.id });
    const [row] = await notesOf(s.patient.id);
    expect(row!.unitPriceCents).toBe(3150);
    const patched = await call(s, "PATCH", `/v2/notes-combined/${created.json.data.id}`, { unit_price: "29.75" });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect((await call(s, "GET", `/v2/notes-combined/${created.json.data.id}`)).json.data).toMatchObject({ unit_price_cents: 2975, unit_price: "29.75" });
  });

  it.each([
    [-1, "Unit price must be 0 or more."],
    ["abc", "Unit price must be a number."],
    [1.234, "Unit price takes at most 2 decimals (whole cents)."],
  ])("unit_price %s: 422 at unit_price, nothing written (create and PATCH)", async (price, message) => {
    const s = await scene("97155");
    const r = await post(s, "/v2/notes-combined", base(s, "97155", { unit_price: price }));
    expect(r.status).toBe(422);
    expect(r.json.errors).toEqual({ unit_price: message });
    expect(await notesOf(s.patient.id)).toHaveLength(0);
    const ok = await post(s, "/v2/notes-combined", base(s, "97155", { unit_price: 10 }));
    expect(ok.status, JSON.stringify(ok.json)).toBe(201);
    const patched = await call(s, "PATCH", `/v2/notes-combined/${ok.json.data.id}`, { unit_price: price });
    expect(patched.status).toBe(422);
    expect(patched.json.errors).toEqual({ unit_price: message });
    const [row] = await notesOf(s.patient.id);
    expect([row!.unitPriceCents, row!.version]).toEqual([1000, ok.json.data.version]);
  });

  it("a BCBA and an RBT note answer note_type and no unit price", async () => {
    const s = await scene("97155");
    const r = await post(s, "/v2/notes-bcba", base(s, "97155"));
    expect(r.json.data).toMatchObject({ note_type: "bcba", unit_price: null, unit_price_cents: null });
  });
});

describe("a body naming the price twice must name one price (probe 8924 §1)", () => {
  const DISAGREE = { unit_price_cents: NOTE_MESSAGES.pricesDisagree };
  /** [how, body (a PUT's is laid over the note's GET data, as a client sends back what it read), answer, errors, stored cents]. */
  const CASES: ["create" | "PATCH" | "PUT", Record<string, unknown>, number, Record<string, string> | null, number | null][] = [
    ["create", { unit_price: "6.50", unit_price_cents: 650 }, 201, null, 650],
    ["create", { unit_price: 6.5, unit_price_cents: "650" }, 201, null, 650],
    ["create", { unit_price: null, unit_price_cents: null }, 201, null, null],
    ["create", { unit_price: 5, unit_price_cents: 650 }, 422, DISAGREE, null],
    ["create", { unit_price: null, unit_price_cents: 500 }, 422, DISAGREE, null],
    ["create", { unit_price: "5.00", unit_price_cents: null }, 422, DISAGREE, null],
    ["PATCH", { unit_price: "6.50", unit_price_cents: 650 }, 200, null, 650],
    ["PATCH", { unit_price: null, unit_price_cents: null }, 200, null, null],
    // The price the note already has: a PATCH that changes nothing writes nothing (decision 017, stop 42).
    ["PATCH", { unit_price: "5.00", unit_price_cents: 500 }, 422, null, 500],
    ["PATCH", { unit_price: null, unit_price_cents: 500 }, 422, DISAGREE, 500],
    ["PATCH", { unit_price: 5, unit_price_cents: 300 }, 422, DISAGREE, 500],
    ["PATCH", { unit_price: "5.00", unit_price_cents: null }, 422, DISAGREE, 500],
    ["PUT", {}, 200, null, 500],
    ["PUT", { unit_price_cents: 650 }, 422, DISAGREE, 500],
    ["PUT", { unit_price: "6.50" }, 422, DISAGREE, 500],
    ["PUT", { unit_price: "6.50", unit_price_cents: 650 }, 200, null, 650],
    ["PUT", { unit_price: null, unit_price_cents: null }, 200, null, null],
  ];

  it.each(CASES)("%s %j: %i", async (how, body, status, errors, cents) => {
    const s = await scene("97155");
    const create = (over: Record<string, unknown>) => post(s, "/v2/notes-combined", base(s, "97155", over));
    let r;
    let version: number | null = null;
    if (how === "create") r = await create(body);
    else {
      const made = await create({ unit_price_cents: 500 });
      expect(made.status, JSON.stringify(made.json)).toBe(201);
      const path = `/v2/notes-combined/${made.json.data.id}`;
      const read = (await call(s, "GET", path)).json.data as Record<string, unknown>;
      expect(read).toMatchObject({ unit_price_cents: 500, unit_price: "5.00" });
      version = read.version as number;
      r = await call(s, how, path, how === "PUT" ? { ...read, ...body } : { ...body, version });
    }
    expect(r.status, JSON.stringify(r.json)).toBe(status);
    if (errors) expect(r.json.errors).toEqual(errors);
    const rows = await notesOf(s.patient.id);
    if (how === "create" && errors) expect(rows).toHaveLength(0);
    else {
      expect(rows[0]!.unitPriceCents).toBe(cents);
      // A refused edit writes nothing: the version stays.
      if (errors) expect(rows[0]!.version).toBe(version);
    }
  });
});

describe("a combined note's own price is set by manage_notes only, as the modifiers are (probe 8922 §2)", () => {
  /** A client with a 97155 PA service, an RBT (view_notes) who writes the note, and a manager of the location. */
  async function priced() {
    const s = await scene("97155");
    const rbtUser = await createUser({ permissions: ["view_notes"], locations: [location.id] });
    const rbt: Scene = { ...s, user: { id: rbtUser.id, token: await apiToken(rbtUser) } };
    return { manager: s, rbt, rbtUser, managerUser: s.user };
  }
  const one = async (patientId: number) => (await notesOf(patientId))[0];

  it.each<[string, Record<string, unknown>, Record<string, string> | null]>([
    ["unit_price in dollars", { unit_price: "999.99" }, { unit_price: NOTE_MESSAGES.priceNeedsManage }],
    ["unit_price_cents", { unit_price_cents: 99999 }, { unit_price_cents: NOTE_MESSAGES.priceNeedsManage }],
    ["unit_price 0", { unit_price: 0 }, { unit_price: NOTE_MESSAGES.priceNeedsManage }],
    ["no price", {}, null],
    ["unit_price null (none)", { unit_price: null }, null],
  ])("an RBT's create with %s", async (_, over, errors) => {
    const x = await priced();
    const r = await post(x.rbt, "/v2/notes-combined", base(x.rbt, "97155", over));
    if (errors) {
      expect(r.status).toBe(422);
      expect(r.json.errors).toEqual(errors);
      expect(await notesOf(x.rbt.patient.id)).toHaveLength(0);
    } else {
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      expect((await one(x.rbt.patient.id))!.unitPriceCents).toBeNull();
    }
  });

  it("an RBT's edit cannot change the price a manager set; one that leaves it out (or repeats it) keeps it", async () => {
    const x = await priced();
    const created = await post(x.rbt, "/v2/notes-combined", base(x.rbt, "97155"));
    expect(created.status).toBe(201);
    const id = created.json.data.id as number;
    const set = await call(x.manager, "PATCH", `/v2/notes-combined/${id}`, { unit_price: "20.00" });
    expect(set.status, JSON.stringify(set.json)).toBe(200);
    let version = set.json.data.version as number;
    for (const [method, body, field] of [
      ["PATCH", { unit_price: "25.00" }, "unit_price"],
      ["PATCH", { unit_price_cents: 1 }, "unit_price_cents"],
      ["PATCH", { unit_price: null }, "unit_price"],
      ["PUT", base(x.rbt, "97155", { unit_price_cents: 99999 }), "unit_price_cents"],
    ] as const) {
      const r = await call(x.rbt, method, `/v2/notes-combined/${id}`, { ...body, version });
      expect(r.status, `${method} ${JSON.stringify(body)}`).toBe(422);
      expect(r.json.errors).toEqual({ [field]: NOTE_MESSAGES.priceNeedsManage });
      expect(await one(x.rbt.patient.id)).toMatchObject({ unitPriceCents: 2000, version });
    }
    const same = await call(x.rbt, "PATCH", `/v2/notes-combined/${id}`, { unit_price: "20.00", time_out: "10:15", version });
    expect(same.status, JSON.stringify(same.json)).toBe(200);
    version = same.json.data.version;
    const put = await call(x.rbt, "PUT", `/v2/notes-combined/${id}`, { ...base(x.rbt, "97155", { time_out: "10:30" }), version });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(await one(x.rbt.patient.id)).toMatchObject({ unitPriceCents: 2000, minutes: 90 });
    // A manager's full PUT keeps the whole-note meaning: leaving the price out clears it.
    const cleared = await call(x.manager, "PUT", `/v2/notes-combined/${id}`, { ...base(x.rbt, "97155", { time_out: "10:30" }), version: put.json.data.version });
    expect(cleared.status, JSON.stringify(cleared.json)).toBe(200);
    expect((await one(x.rbt.patient.id))!.unitPriceCents).toBeNull();
  });

  /** The combined note form as posted without JavaScript. */
  const fields = (s: Scene, over: Record<string, string> = {}) => ({
    intent: "save",
    form_token: crypto.randomUUID(),
    type: "combined",
    patient_id: String(s.patient.id),
    provider_id: String(s.user.id),
    session_date: day(-1),
    cpt_code: "97155",
    pa_service_id: String(s.pa.id),
    pos: "12",
    time_in: "09:00",
    time_out: "10:00",
    ...over,
  });

  it("screen: the price field is the manager's; an RBT's form that carries it is refused and writes nothing; an RBT's edit keeps the price", async () => {
    const x = await priced();
    const rbtCookie = await signInCookie(x.rbtUser);
    const managerCookie = await signInCookie(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [location.id] }));
    const field = 'name="unit_price"';
    expect(await (await request(`/note-combined?patient_id=${x.rbt.patient.id}`, { cookie: rbtCookie })).text()).not.toContain(field);
    expect(await (await request(`/note-combined?patient_id=${x.rbt.patient.id}`, { cookie: managerCookie })).text()).toContain(field);
    const refused = await form(`/note-combined?patient_id=${x.rbt.patient.id}`, fields(x.rbt, { unit_price: "500.00" }), rbtCookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(NOTE_MESSAGES.priceNeedsManage.replace(/'/g, "&#x27;"));
    expect(await notesOf(x.rbt.patient.id)).toHaveLength(0);
    const saved = await form(`/note-combined?patient_id=${x.rbt.patient.id}`, fields(x.rbt), rbtCookie);
    expect(saved.status, await saved.clone().text().then((t) => t.slice(0, 300))).toBe(303);
    const row = (await one(x.rbt.patient.id))!;
    expect((await call(x.manager, "PATCH", `/v2/notes-combined/${row.id}`, { unit_price: "20.00" })).status).toBe(200);
    expect(await (await request(`/note-combined/edit/${row.id}`, { cookie: rbtCookie })).text()).not.toContain(field);
    expect(await (await request(`/note-combined/edit/${row.id}`, { cookie: managerCookie })).text()).toContain(field);
    const edited = await form(`/note-combined/edit/${row.id}`, { ...fields(x.rbt, { time_out: "10:15" }), version: String(row.version + 1) }, rbtCookie);
    expect(edited.status, await edited.clone().text().then((t) => t.slice(0, 300))).toBe(303);
    expect(await one(x.rbt.patient.id)).toMatchObject({ unitPriceCents: 2000, minutes: 75 });
    const sneaked = await form(`/note-combined/edit/${row.id}`, { ...fields(x.rbt), unit_price: "0.01", version: String(row.version + 2) }, rbtCookie);
    expect(sneaked.status).toBe(422);
    // A page loaded before the field was in dollars posts the old name: refused the same way.
    const old = await form(`/note-combined/edit/${row.id}`, { ...fields(x.rbt), unit_price_cents: "1", version: String(row.version + 2) }, rbtCookie);
    expect(old.status).toBe(422);
    expect(await one(x.rbt.patient.id)).toMatchObject({ unitPriceCents: 2000, minutes: 75 });
  });
});
