import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, insuranceServices, insurances, notes, paServices, scheduledSessions } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import { PA_SERVICE_IN_USE, paCptNotCovered, paCptNotCoveredByPrimary } from "~/domain/patients";
import { addDays } from "~/domain/weeks";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { createPaService, updatePaService } from "~/models/pa-services.server";
import { api, apiToken, countingDb, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A PA service authorizes a CPT its insurer covers, and keeps covering what was written under it: an insurer's
 * CPT it has no service for is refused (a stored one passes while kept); an edit of its dates or CPT that would
 * leave live notes outside it is refused as for booked sessions (decision 037); the note edit form says one
 * "units left" per PA service, without the edited note (decision 031).
 */

const today = () => todayIn(new Date(), "America/New_York");
const d = (days: number) => addDays(today(), days);
let seq = 0;
let w: { locationId: number; manager: number; token: string; cookie: string; sunshine: { id: number; name: string }; other: { id: number; name: string }; gone: number };

async function insurer(name: string, cpts: string[], deletedCpts: string[] = []) {
  const [i] = await db().insert(insurances).values({ name }).returning();
  for (const cpt of cpts) await db().insert(insuranceServices).values({ insuranceId: i!.id, cptCode: cpt, provider: "rbt", type: "rbt", unitPrice: 15 });
  for (const cpt of deletedCpts) await db().insert(insuranceServices).values({ insuranceId: i!.id, cptCode: cpt, provider: "rbt", type: "rbt", unitPrice: 15, deletedAt: "2026-11-01T00:00:00.000Z" });
  return { id: i!.id, name: i!.name };
}

beforeAll(async () => {
  const loc = await createLocation();
  const manager = await createUser({ permissions: ["view_notes", "manage_notes", "view_clients", "manage_clients"], locations: [loc.id] });
  const gone = await insurer(`Gone Health ${Date.now()}`, ["97153"]);
  await db().update(insurances).set({ deletedAt: "2026-11-01T00:00:00.000Z" }).where(eq(insurances.id, gone.id));
  w = {
    locationId: loc.id,
    manager: manager.id,
    token: await apiToken(manager),
    cookie: await signInCookie(manager),
    sunshine: await insurer(`Sunshine Health ${Date.now()}`, ["97151", "97153", "97155", "97156"], ["97154"]),
    other: await insurer(`Other Care ${Date.now()}`, ["97151"]),
    gone: gone.id,
  };
});

async function call(method: string, path: string, body?: unknown) {
  const res = await api(path, { method, token: w.token, body });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const paRow = async (id: number) => (await db().select().from(paServices).where(eq(paServices.id, id)))[0]!;
const auditRows = async () => (await db().select({ n: count() }).from(auditLog))[0]!.n;
/** An API save of the PA service: refused, it answers 422 with `errors` and changes nothing (no audit row either); saved, it raises the version. */
async function expectSave(paId: number, method: string, body: Record<string, unknown>, errors: (() => Record<string, string>) | null) {
  const before = await paRow(paId);
  const audits = await auditRows();
  const res = await call(method, `/v2/pa-services/${paId}`, body);
  if (errors) {
    expect(res.status, JSON.stringify(res.json)).toBe(422);
    expect(res.json.errors).toEqual(errors());
    expect(await paRow(paId)).toEqual(before);
    expect(await auditRows()).toBe(audits);
  } else {
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect((await paRow(paId)).version).toBe(before.version + 1);
  }
}
const textOf = async (res: Response) => (await res.text()).replaceAll("&#x27;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");
const post = (path: string, fields: Record<string, unknown>) =>
  request(path, { method: "POST", body: new URLSearchParams(Object.entries(fields).map(([k, x]) => [k, String(x)])), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });

/** A client (with the primary insurer given, else none) with one PA service stored as given (insurer Sunshine and CPT 97153 unless told). */
async function stored(over: Partial<typeof paServices.$inferInsert> = {}, primary: number | null = null) {
  const patient = await createPatient({ locationId: w.locationId, insurerId: primary });
  const [pa] = await db()
    .insert(paServices)
    .values({ patientId: patient.id, paService: `Auth ${++seq}`, cpt: "97153", nUnits: 400, startDate: d(-30), endDate: d(30), insuranceId: w.sunshine.id, ...over })
    .returning();
  return { patientId: patient.id, paId: pa!.id };
}

describe("a PA service's CPT must be one its insurer covers", () => {
  const body = (patientId: number, over: Record<string, unknown>) => ({ patient_id: patientId, pa_service: "Direct", cpt: "97153", n_units: 40, start_date: d(-1), end_date: d(60), insurance_id: w.sunshine.id, ...over });
  // label, body changes, refused field and message (null: created)
  const creates: [label: string, over: () => Record<string, unknown>, errors: (() => Record<string, string>) | null][] = [
    ["a CPT the insurer has a service for", () => ({}), null],
    ["another CPT the insurer covers", () => ({ cpt: "97155" }), null],
    ["a CPT the insurer has no service for", () => ({ cpt: "90837" }), () => ({ cpt: paCptNotCovered(w.sunshine.name, "90837") })],
    ["a CPT whose only service was deleted", () => ({ cpt: "97154" }), () => ({ cpt: paCptNotCovered(w.sunshine.name, "97154") })],
    ["a CPT only another insurer covers", () => ({ cpt: "97153", insurance_id: w.other.id }), () => ({ cpt: paCptNotCovered(w.other.name, "97153") })],
    ["a deleted insurer", () => ({ insurance_id: w.gone }), () => ({ insurance_id: "Choose an insurer from the list." })],
    ["no insurer (nothing to check the CPT against)", () => ({ cpt: "90837", insurance_id: null }), null],
  ];

  it.each(creates)("API POST: %s", async (_label, over, errors) => {
    const patient = await createPatient({ locationId: w.locationId });
    const before = await auditRows();
    const res = await call("POST", "/v2/pa-services", body(patient.id, over()));
    const saved = await db().select().from(paServices).where(eq(paServices.patientId, patient.id));
    if (errors) {
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.errors).toEqual(errors());
      expect(res.json.message).toBe(Object.values(errors())[0]);
      expect(saved).toEqual([]);
      expect(await auditRows()).toBe(before);
    } else {
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(saved).toHaveLength(1);
    }
  });

  it("the profile's add form refuses it without JavaScript, keeps the typed values and saves nothing", async () => {
    const patient = await createPatient({ locationId: w.locationId });
    const fields = { intent: "pa-create", pa_service: "Therapy 90837", cpt: "90837", n_units: 25, start_date: d(0), end_date: d(30), insurance_id: w.sunshine.id };
    const res = await post(`/patients/profile/${patient.id}`, fields);
    expect(res.status).toBe(422);
    const html = await textOf(res);
    expect(html).toContain(paCptNotCovered(w.sunshine.name, "90837"));
    expect(html).toContain('value="90837"');
    expect(html).toContain('value="Therapy 90837"');
    expect(html).toContain('value="25"');
    expect(await db().select().from(paServices).where(eq(paServices.patientId, patient.id))).toEqual([]);
    expect((await post(`/patients/profile/${patient.id}`, { ...fields, cpt: "97156" })).status).toBe(303);
  });

  // label, stored PA service (insurer Sunshine unless "other"), method, body, refused errors (null: saved)
  const edits: [label: string, pa: { cpt?: string; insurer?: "other" }, method: string, body: () => Record<string, unknown>, errors: (() => Record<string, string>) | null][] = [
    ["stored uncovered CPT, a PATCH of the units", { cpt: "90837" }, "PATCH", () => ({ n_units: 50 }), null],
    ["stored uncovered CPT, a PUT sending it and the insurer back", { cpt: "90837" }, "PUT", () => ({ pa_service: "Kept", cpt: "90837", n_units: 50, start_date: d(-30), end_date: d(30), insurance_id: w.sunshine.id }), null],
    ["another CPT the insurer does not cover", {}, "PATCH", () => ({ cpt: "90837" }), () => ({ cpt: paCptNotCovered(w.sunshine.name, "90837") })],
    ["another insurer that does not cover the CPT", {}, "PATCH", () => ({ insurance_id: w.other.id }), () => ({ cpt: paCptNotCovered(w.other.name, "97153") })],
    ["another insurer and a CPT it covers", {}, "PATCH", () => ({ insurance_id: w.other.id, cpt: "97151" }), null],
    ["stored uncovered CPT, another insurer that does not cover it either", { cpt: "90837", insurer: "other" }, "PATCH", () => ({ insurance_id: w.sunshine.id }), () => ({ cpt: paCptNotCovered(w.sunshine.name, "90837") })],
    ["stored uncovered CPT, changed to a covered one", { cpt: "90837" }, "PATCH", () => ({ cpt: "97155" }), null],
  ];

  it.each(edits)("API %s", async (_label, over, method, body, errors) => {
    const c = await stored({ cpt: over.cpt ?? "97153", insuranceId: over.insurer === "other" ? w.other.id : w.sunshine.id });
    await expectSave(c.paId, method, body(), errors);
  });

  it("is read in the save's existing reads: a create naming an insurer and an edit changing the insurer and the CPT take no more round trips than before", async () => {
    const counting = countingDb();
    const ctx: ModelContext = { db: counting.db, actor: (await getUserActor(db(), w.manager))!, ip: "127.0.0.1", now: () => new Date() };
    const patient = await createPatient({ locationId: w.locationId });
    const created = await createPaService(ctx, body(patient.id, {}));
    expect(created.ok).toBe(true);
    // The client, the insurer with its coverage of the CPT (the insurer's read of before), the next id, the write (two), the answer's read.
    expect(counting.roundTrips()).toBe(6);
    const c = await stored();
    const start = counting.roundTrips();
    const refused = await updatePaService(ctx, c.paId, { insurance_id: w.other.id, cpt: "97155" }, { partial: true, version: null });
    expect(refused).toMatchObject({ ok: false, status: 422, errors: { cpt: paCptNotCovered(w.other.name, "97155") } });
    // The PA service, then one batch: the insurer, the client's zone, the sessions and the notes the change leaves out.
    expect(counting.roundTrips() - start).toBe(2);
    const saved = await updatePaService(ctx, c.paId, { insurance_id: w.other.id, cpt: "97151" }, { partial: true, version: null });
    expect(saved.ok).toBe(true);
    // Saved: the PA service, the batch, the write (two), the answer's read; the insurer is no longer a round trip of its own.
    expect(counting.roundTrips() - start).toBe(2 + 5);
  });
});

describe("a PA service naming no insurer: its CPT must be one the client's primary insurer covers (decision 031, stop 44)", () => {
  const body = (patientId: number, over: Record<string, unknown>) => ({ patient_id: patientId, pa_service: "Direct", cpt: "97153", n_units: 40, start_date: d(-1), end_date: d(60), insurance_id: null, ...over });
  // label, the client's primary insurer, body changes, refused errors (null: created)
  const creates: [label: string, primary: () => number | null, over: Record<string, unknown>, errors: (() => Record<string, string>) | null][] = [
    ["a CPT the primary insurer covers", () => w.sunshine.id, {}, null],
    ["a CPT the primary insurer does not cover", () => w.sunshine.id, { cpt: "90837" }, () => ({ cpt: paCptNotCoveredByPrimary(w.sunshine.name, "90837") })],
    ["a CPT only the insurer not chosen covers", () => w.other.id, { cpt: "97153" }, () => ({ cpt: paCptNotCoveredByPrimary(w.other.name, "97153") })],
    ["a client with no primary insurer (nothing to check the CPT against)", () => null, { cpt: "90837" }, null],
  ];

  it.each(creates)("API POST: %s", async (_label, primary, over, errors) => {
    const patient = await createPatient({ locationId: w.locationId, insurerId: primary() });
    const before = await auditRows();
    const res = await call("POST", "/v2/pa-services", body(patient.id, over));
    const saved = await db().select().from(paServices).where(eq(paServices.patientId, patient.id));
    if (errors) {
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.errors).toEqual(errors());
      expect(saved).toEqual([]);
      expect(await auditRows()).toBe(before);
    } else {
      expect(res.status, JSON.stringify(res.json)).toBe(201);
      expect(saved).toHaveLength(1);
    }
  });

  it("the profile's add form refuses it without JavaScript, keeps the typed values and saves nothing", async () => {
    const patient = await createPatient({ locationId: w.locationId, insurerId: w.sunshine.id });
    const fields = { intent: "pa-create", pa_service: "Group 97154", cpt: "97154", n_units: 10, start_date: d(0), end_date: d(30), insurance_id: "" };
    const res = await post(`/patients/profile/${patient.id}`, fields);
    expect(res.status).toBe(422);
    const html = await textOf(res);
    expect(html).toContain(paCptNotCoveredByPrimary(w.sunshine.name, "97154"));
    expect(html).toContain('value="97154"');
    expect(html).toContain('value="Group 97154"');
    expect(await db().select().from(paServices).where(eq(paServices.patientId, patient.id))).toEqual([]);
    expect((await post(`/patients/profile/${patient.id}`, { ...fields, cpt: "97156" })).status).toBe(303);
  });

  // label, stored PA service (insurer and CPT), the client's primary insurer, body, refused errors (null: saved)
  const edits: [label: string, pa: () => { insuranceId: number | null; cpt: string }, primary: () => number | null, body: () => Record<string, unknown>, errors: (() => Record<string, string>) | null][] = [
    ["stored CPT the primary insurer does not cover, kept: a PATCH of the units", () => ({ insuranceId: null, cpt: "90837" }), () => w.sunshine.id, () => ({ n_units: 50 }), null],
    [
      "stored CPT the primary insurer does not cover, kept: a PUT sending it back",
      () => ({ insuranceId: null, cpt: "90837" }),
      () => w.sunshine.id,
      () => ({ pa_service: "Kept", cpt: "90837", n_units: 50, start_date: d(-30), end_date: d(30), insurance_id: null }),
      null,
    ],
    ["another CPT the primary insurer does not cover", () => ({ insuranceId: null, cpt: "97153" }), () => w.sunshine.id, () => ({ cpt: "90837" }), () => ({ cpt: paCptNotCoveredByPrimary(w.sunshine.name, "90837") })],
    ["another CPT the primary insurer covers", () => ({ insuranceId: null, cpt: "97153" }), () => w.sunshine.id, () => ({ cpt: "97155" }), null],
    ["the insurer taken off, the primary insurer not covering the CPT", () => ({ insuranceId: w.sunshine.id, cpt: "97153" }), () => w.other.id, () => ({ insurance_id: null }), () => ({ cpt: paCptNotCoveredByPrimary(w.other.name, "97153") })],
    ["the insurer taken off, the primary insurer covering the CPT", () => ({ insuranceId: w.other.id, cpt: "97151" }), () => w.sunshine.id, () => ({ insurance_id: null }), null],
    ["a client with no primary insurer: another CPT", () => ({ insuranceId: null, cpt: "97153" }), () => null, () => ({ cpt: "90837" }), null],
  ];

  it.each(edits)("API %s", async (_label, pa, primary, body, errors) => {
    const c = await stored(pa(), primary());
    await expectSave(c.paId, Object.hasOwn(body(), "pa_service") ? "PUT" : "PATCH", body(), errors);
  });
});

describe("editing a PA service so that notes written under it would no longer be covered", () => {
  let slot = 0;
  /** A live note under the PA service on `date` (30 minutes, each at its own hour of the manager's day), through the API. */
  async function note(c: { patientId: number; paId: number }, date: string) {
    const h = 5 + Math.floor(slot++ / 2);
    const hh = String(h).padStart(2, "0");
    const r = await call("POST", "/v2/notes-rbt", { patient_id: c.patientId, provider_id: w.manager, pa_service_id: c.paId, cpt_code: "97153", pos: "12", diagnosis_code: "F84.0", session_date: date, time_in: `${hh}:00`, time_out: `${hh}:30` });
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    return r.json.data as { id: number };
  }
  async function session(c: { patientId: number; paId: number }, date: string) {
    await db().insert(scheduledSessions).values({ patientId: c.patientId, providerId: w.manager, locationId: w.locationId, cptCode: "97153", paServiceId: c.paId, sessionDate: date, timeIn: "09:00", timeOut: "10:00", startAt: 0, endAt: 60, minutes: 60, units: 4, status: "scheduled" });
  }

  // Notes on d(-10) and d(-2) under a 97153 PA service from d(-30) to d(30); label, extra setup, body, errors (null: saved).
  type Setup = (c: { patientId: number; paId: number }, notes: { id: number }[]) => Promise<unknown>;
  const none: Setup = async () => {};
  const edits: [label: string, setup: Setup, body: () => Record<string, unknown>, errors: (() => Record<string, string>) | null][] = [
    ["the start moved after a note", none, () => ({ start_date: d(-5) }), () => ({ start_date: PA_SERVICE_IN_USE.uncoveredNotes(1, [d(-10)]) })],
    ["the end moved before a note", none, () => ({ end_date: d(-3) }), () => ({ end_date: "1 note(s) would no longer be covered by this PA service (on " + d(-2) + "): choose another PA service on them (or delete them) first." })],
    ["another CPT", none, () => ({ cpt: "97155" }), () => ({ cpt: PA_SERVICE_IN_USE.uncoveredNotes(2, [d(-10), d(-2)]) })],
    [
      "the end moved before a note and a session booked tomorrow",
      (c) => session(c, d(1)),
      () => ({ end_date: d(-3) }),
      () => ({ end_date: `${PA_SERVICE_IN_USE.uncovered(1, [d(1)])} ${PA_SERVICE_IN_USE.uncoveredNotes(1, [d(-2)])}` }),
    ],
    ["dates that still cover every note, to the day (control)", none, () => ({ start_date: d(-10), end_date: d(-2) }), null],
    ["the start moved after a deleted note", async (_c, n) => expect((await call("DELETE", `/v2/notes-rbt/${n[0]!.id}`)).status).toBe(200), () => ({ start_date: d(-5) }), null],
    [
      "a note already under another CPT (stored data) and a later end",
      async (_c, n) => db().update(notes).set({ cptCode: "97155" }).where(eq(notes.id, n[0]!.id)),
      () => ({ end_date: d(40) }),
      null,
    ],
  ];

  async function written(setup: Setup) {
    const c = await stored({ insuranceId: null });
    const n = [await note(c, d(-10)), await note(c, d(-2))];
    await setup(c, n);
    return c;
  }

  it.each(edits)("API PATCH, %s", async (_label, setup, body, errors) => {
    const c = await written(setup);
    await expectSave(c.paId, "PATCH", body(), errors);
  });

  it("the profile's edit form refuses it without JavaScript, keeps the typed values and changes nothing", async () => {
    const c = await written(none);
    const before = await paRow(c.paId);
    const fields = { intent: "pa-update", pa_id: c.paId, version: before.version, pa_service: before.paService, cpt: "97153", n_units: 350, start_date: d(-5), end_date: d(30) };
    const res = await post(`/patients/profile/${c.patientId}`, fields);
    expect(res.status).toBe(422);
    const html = await textOf(res);
    expect(html).toContain(PA_SERVICE_IN_USE.uncoveredNotes(1, [d(-10)]));
    expect(html).toContain(`value="${d(-5)}"`);
    expect(html).toContain('value="350"');
    expect(await paRow(c.paId)).toEqual(before);
    // A start that keeps the note covered saves.
    expect((await post(`/patients/profile/${c.patientId}`, { ...fields, start_date: d(-10) })).status).toBe(303);
    expect(await paRow(c.paId)).toMatchObject({ startDate: d(-10), nUnits: 350 });
  });
});

describe("the note edit form's PA service option and meter say the same units left", () => {
  it("both leave the edited note out (JavaScript off)", async () => {
    const c = await stored({ insuranceId: null, nUnits: 20, startDate: d(-6), endDate: d(6), paService: `Seven ${++seq}` });
    const write = async (date: string, time_in: string, time_out: string) => {
      const r = await call("POST", "/v2/notes-rbt", { patient_id: c.patientId, provider_id: w.manager, pa_service_id: c.paId, cpt_code: "97153", pos: "12", diagnosis_code: "F84.0", session_date: date, time_in, time_out });
      expect(r.status, JSON.stringify(r.json)).toBe(201);
      return r.json.data as { id: number };
    };
    const four = await write(d(-3), "09:00", "10:00");
    const six = await write(d(-4), "13:00", "14:30");
    expect((await db().select({ units: notes.units }).from(notes).where(eq(notes.patientId, c.patientId)).orderBy(notes.id)).map((n) => n.units)).toEqual([4, 6]);
    const html = await textOf(await request(`/note-rbt/edit/${six.id}`, { cookie: w.cookie }));
    const option = html.match(new RegExp(`<option[^>]*value="${c.paId}"[^>]*>([^<]*)</option>`));
    expect(option, "the PA service option").toBeTruthy();
    expect(option![0]).toContain('data-available="16"');
    expect(option![1]).toContain("16 of 20 units left");
    expect(html).toContain("more than the 16 units left on the PA service");
    // The other note's form leaves its own 4 units out instead.
    const other = await textOf(await request(`/note-rbt/edit/${four.id}`, { cookie: w.cookie }));
    expect(other).toMatch(new RegExp(`<option[^>]*value="${c.paId}"[^>]*data-available="14"[^>]*>[^<]*14 of 20 units left</option>`));
  });
});
