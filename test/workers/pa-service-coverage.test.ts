import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, insuranceServices, insurances, notes, paServices, patients, scheduledSessions } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import { PA_SERVICE_IN_USE, paCptNotCovered, paCptNotCoveredByPrimary, primaryLeavesPaUncovered } from "~/domain/patients";
import { addDays } from "~/domain/weeks";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { createPaService, updatePaService } from "~/models/pa-services.server";
import { updatePatient } from "~/models/patients.server";
import { api, apiToken, countingDb, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

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
/**
 * An API update of the record `row` reads: refused, it answers 422 with `errors` and changes nothing (no audit row
 * either); saved (errors null), it raises the version.
 */
/** A PA service create: refused with `errors` (its first one the message), nothing saved or audited; else 201 and saved once. */
async function expectCreate(patientId: number, before: number, res: Awaited<ReturnType<typeof call>>, errors: (() => Record<string, string>) | null) {
  const saved = await db().select().from(paServices).where(eq(paServices.patientId, patientId));
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
}

async function expectUpdate<R extends { version: number }>(row: () => Promise<R>, send: () => ReturnType<typeof call>, errors: Record<string, string> | null) {
  const before = await row();
  const audits = await auditRows();
  const res = await send();
  expect(res.status, JSON.stringify(res.json)).toBe(errors ? 422 : 200);
  if (errors) {
    expect(res.json.errors).toEqual(errors);
    expect(await row()).toEqual(before);
    expect(await auditRows()).toBe(audits);
  } else expect((await row()).version).toBe(before.version + 1);
}
/** An API save of the PA service (expectUpdate). */
const expectSave = (paId: number, method: string, body: Record<string, unknown>, errors: (() => Record<string, string>) | null) =>
  expectUpdate(() => paRow(paId), () => call(method, `/v2/pa-services/${paId}`, body), errors ? errors() : null);
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
    await expectCreate(patient.id, before, res, errors);
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
    await expectCreate(patient.id, before, res, errors);
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

// Probe 9046 #2: the stop-44 check ran when a PA service was saved, not when the client's primary insurer changed
// under it: a PATCH of the insurer left an Insurance-None PA service authorizing a CPT its new payer does not cover.
describe("a client's primary insurer cannot change to one that does not cover its PA services naming no insurer (decision 031, stop 45)", () => {
  const clientRow = async (id: number) => (await db().select().from(patients).where(eq(patients.id, id)))[0]!;
  /** A client whose primary insurer is Sunshine, with PA services stored as given (no insurer, CPT 97153 unless told). */
  async function client(services: Partial<typeof paServices.$inferInsert>[] = [{}]) {
    const patient = await createPatient({ locationId: w.locationId, insurerId: w.sunshine.id });
    const names: string[] = [];
    for (const over of services) {
      const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: `Auth ${++seq}`, cpt: "97153", nUnits: 400, startDate: d(-30), endDate: d(30), insuranceId: null, ...over }).returning();
      names.push(pa!.paService);
    }
    return { patient, names };
  }

  // label, the client's PA services, the body, refused errors (null: saved)
  const cases: [label: string, services: () => Partial<typeof paServices.$inferInsert>[], body: () => Record<string, unknown>, errors: ((names: string[]) => Record<string, string>) | null][] = [
    ["a new primary insurer that does not cover its CPT (the probe)", () => [{}], () => ({ insurer_id: w.other.id }), (n) => ({ insurer_id: primaryLeavesPaUncovered(w.other.name, [{ name: n[0]!, cpt: "97153" }]) })],
    ["a new primary insurer, sent as text, that does not cover its CPT", () => [{}], () => ({ insurer_id: String(w.other.id) }), (n) => ({ insurer_id: primaryLeavesPaUncovered(w.other.name, [{ name: n[0]!, cpt: "97153" }]) })],
    [
      "several PA services: only those not covered are named, oldest first",
      () => [{ cpt: "97155" }, { cpt: "97151" }, { cpt: "97153", startDate: d(-400), endDate: d(-300) }],
      () => ({ insurer_id: w.other.id }),
      (n) => ({ insurer_id: primaryLeavesPaUncovered(w.other.name, [{ name: n[0]!, cpt: "97155" }, { name: n[2]!, cpt: "97153" }]) }),
    ],
    ["a new primary insurer that covers its CPT", () => [{ cpt: "97151" }], () => ({ insurer_id: w.other.id }), null],
    ["a PA service naming its own insurer (billed to it)", () => [{ insuranceId: w.sunshine.id }], () => ({ insurer_id: w.other.id }), null],
    ["a deleted PA service", () => [{ deletedAt: "2026-11-01T00:00:00.000Z" }], () => ({ insurer_id: w.other.id }), null],
    ["a deleted new insurer: named as such, before its coverage", () => [{}], () => ({ insurer_id: w.gone }), () => ({ insurer_id: "Choose an insurer from the list." })],
    ["the primary insurer removed while a PA service names no insurer (no payer left)", () => [{ cpt: "97151" }], () => ({ insurer_id: null }), (n) => ({ insurer_id: primaryLeavesPaUncovered(null, [{ name: n[0]!, cpt: "97151" }]) })],
    ["the primary insurer removed, every PA service naming its insurer", () => [{ insuranceId: w.sunshine.id }], () => ({ insurer_id: null }), null],
    ["the primary insurer kept, another field changed (a stored uncovered CPT is not the save's doing)", () => [{ cpt: "90837" }], () => ({ insurer_id: w.sunshine.id, phone: "305-555-0190" }), null],
  ];

  it.each(cases)("API PATCH: %s", async (_label, services, body, errors) => {
    const { patient, names } = await client(services());
    await expectUpdate(() => clientRow(patient.id), () => call("PATCH", `/v2/patients/${patient.id}`, body()), errors ? errors(names) : null);
  });

  it("the probe's path: a PA service added with Insurance None (201), then the insurer changed by PUT (v2 and v1) is refused", async () => {
    const patient = await createPatient({ locationId: w.locationId, insurerId: w.sunshine.id });
    const made = await call("POST", "/v2/pa-services", { patient_id: patient.id, pa_service: "Auth X", cpt: "97153", n_units: 100, start_date: d(-1), end_date: d(60), insurance_id: null });
    expect(made.status, JSON.stringify(made.json)).toBe(201);
    const full = { patient_identifier: patient.patientIdentifier, first_name: patient.firstName, last_name: patient.lastName, status: "active", location_id: w.locationId };
    for (const [path, body] of [[`/v2/patients/${patient.id}`, { ...full, insurer_id: w.other.id }], [`/patient/update/${patient.id}`, { ...full, insurer_id: w.other.id }], [`/v2/patients/${patient.id}`, full]] as const) {
      const res = await call("PUT", path, body);
      const insurer = "insurer_id" in body ? w.other.name : null;
      expect([res.status, res.json.errors], `${path} ${JSON.stringify(body)}`).toEqual([422, { insurer_id: primaryLeavesPaUncovered(insurer, [{ name: "Auth X", cpt: "97153" }]) }]);
    }
    expect(await clientRow(patient.id)).toMatchObject({ insurerId: w.sunshine.id, version: 1 });
    // With the PA service's insurer chosen, the change saves.
    expect((await call("PATCH", `/v2/pa-services/${made.json.data.id}`, { insurance_id: w.sunshine.id })).status).toBe(200);
    expect((await call("PATCH", `/v2/patients/${patient.id}`, { insurer_id: w.other.id })).status).toBe(200);
  });

  it("the edit screen (JavaScript off) answers 422 at the insurer with the typed values kept, nothing written", async () => {
    const { patient, names } = await client();
    const edit = `/patients/list/edit/${patient.id}`;
    const fields = { intent: "save", patient_identifier: patient.patientIdentifier, first_name: "Typedname", last_name: patient.lastName, status: "active", location_id: String(w.locationId), insurer_id: String(w.other.id), version: "1" };
    const res = await form(edit, fields, w.cookie);
    expect(res.status).toBe(422);
    const html = await textOf(res);
    expect(html).toContain(primaryLeavesPaUncovered(w.other.name, [{ name: names[0]!, cpt: "97153" }]));
    expect(html).toContain('value="Typedname"');
    expect(html).toMatch(new RegExp(`name="insurer_id"[^>]*>[\\s\\S]*?<option value="${w.other.id}" selected=""`));
    expect(await clientRow(patient.id)).toMatchObject({ firstName: patient.firstName, insurerId: w.sunshine.id, version: 1 });
    // "None" as the primary insurer is refused too (its PA service would have no payer).
    const none = await form(edit, { ...fields, insurer_id: "" }, w.cookie);
    expect(none.status).toBe(422);
    expect(await textOf(none)).toContain(primaryLeavesPaUncovered(null, [{ name: names[0]!, cpt: "97153" }]));
    expect(await clientRow(patient.id)).toMatchObject({ insurerId: w.sunshine.id, version: 1 });
  });

  it("is read in the update's read batch (refused: one round trip; saved: two), and the write refuses a PA service added meanwhile", async () => {
    const ctx = (d1 = db()): ModelContext => ({ db: d1, actor: actor!, ip: "127.0.0.1", now: () => new Date() });
    const actor = await getUserActor(db(), w.manager);
    const { patient } = await client();
    let counting = countingDb();
    expect(await updatePatient(ctx(counting.db), patient.id, { insurer_id: w.other.id }, { partial: true, version: null })).toMatchObject({ ok: false, status: 422 });
    expect(counting.roundTrips()).toBe(1);
    const { patient: covered } = await client([{ cpt: "97151" }]);
    counting = countingDb();
    expect(await updatePatient(ctx(counting.db), covered.id, { insurer_id: w.other.id }, { partial: true, version: null })).toMatchObject({ ok: true });
    expect(counting.roundTrips()).toBe(2);

    // A PA service with no insurer added between the update's read and its write: the write changes nothing (409).
    const { patient: raced } = await client([]);
    const real = db();
    let batches = 0;
    const racing = new Proxy(real, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (key !== "batch") return typeof value === "function" ? value.bind(target) : value;
        return async (statements: Parameters<typeof real.batch>[0]) => {
          if (++batches === 2) await real.insert(paServices).values({ patientId: raced.id, paService: "Meanwhile", cpt: "97153", nUnits: 10, startDate: d(0), endDate: d(30), insuranceId: null });
          return target.batch(statements);
        };
      },
    });
    expect(await updatePatient(ctx(racing), raced.id, { insurer_id: w.other.id }, { partial: true, version: null })).toMatchObject({ ok: false, status: 409 });
    expect(batches).toBe(2);
    expect(await clientRow(raced.id)).toMatchObject({ insurerId: w.sunshine.id, version: 1 });
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
