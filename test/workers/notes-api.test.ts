import { createExecutionContext, env } from "cloudflare:test";
import { and, count, desc, eq, isNull, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, listVersions, notes, noteVersions, paServices, patients, users } from "~/db/schema";
import { NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import type { Permission } from "~/domain/permissions";
import { addDays } from "~/domain/weeks";
import countingWorker from "../bench/d1-count-worker";
import { D1_COUNT_HEADER } from "../bench/d1-count-header";
import { api, apiToken, createBip, createLocation, createPatient, createPlan, createUser, dayTimeZone, db } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * The notes API (clinical §7; issue 10): every call allowed / 403 / 404 for another location / bad input
 * 422 with nothing changed, and every rule through the API, the concurrency rules included.
 */

const today = () => todayIn(new Date(), "America/New_York");
const day = (offset: number) => addDays(today(), offset);

let location: { id: number };
let elsewhere: { id: number };
let manager: { id: number; token: string };
let outsider: { id: number; token: string };
let noPerm: string;

async function staff(permissions: Permission[], locations: number[]) {
  const user = await createUser({ permissions, locations });
  return { id: user.id, token: await apiToken(user) };
}

/** A fresh client with a PA service (97153 unless told) and an RBT of the location: each test its own. */
async function scene(opts: { units?: number; cpt?: string; start?: string; end?: string; permissions?: Permission[] } = {}) {
  const patient = await createPatient({ locationId: location.id });
  const [pa] = await db()
    .insert(paServices)
    .values({ patientId: patient.id, paService: "Direct therapy", cpt: opts.cpt ?? "97153", nUnits: opts.units ?? 400, startDate: opts.start ?? day(-200), endDate: opts.end ?? day(200) })
    .returning();
  const rbt = await staff(opts.permissions ?? ["view_notes"], [location.id]);
  return { patient, pa: pa!, rbt };
}

type Scene = Awaited<ReturnType<typeof scene>>;

function body(s: Scene, over: Record<string, unknown> = {}) {
  return { patient_id: s.patient.id, provider_id: s.rbt.id, pa_service_id: s.pa.id, cpt_code: "97153", session_date: day(-1), time_in: "09:00", time_out: "10:00", pos: "12", diagnosis_code: "F84.0", ...over };
}

async function post(token: string, path: string, b: unknown, headers: Record<string, string> = {}) {
  const h = new Headers({ Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${token}`, ...headers });
  const res = await appFetch(`http://localhost/api${path}`, { method: "POST", headers: h, body: JSON.stringify(b) });
  return { status: res.status, json: (await res.json()) as { data: Record<string, any> & { id: number }; message: string; errors?: Record<string, string> } };
}

async function call(token: string, method: string, path: string, b?: unknown) {
  const res = await api(path, { method, token, body: b });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function notesOf(patientId: number) {
  return db().select().from(notes).where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt)));
}

async function auditCount() {
  const [r] = await db().select({ n: count() }).from(auditLog);
  return r!.n;
}

beforeAll(async () => {
  location = await createLocation();
  elsewhere = await createLocation();
  manager = await staff(["view_notes", "manage_notes"], [location.id]);
  outsider = await staff(["view_notes", "manage_notes", "ignore_time_limits"], [elsewhere.id]);
  noPerm = (await staff([], [location.id])).token;
});

describe("create (POST /v2/notes-rbt, POST /note_rbt/store, POST /note_bcba/store)", () => {
  it("an RBT writes their own note: units from both pairs, audited in the write's batch", async () => {
    const s = await scene();
    const before = await auditCount();
    const r = await post(s.rbt.token, "/v2/notes-rbt", body(s, { time_in: "09:00", time_out: "09:07", time_in2: "13:00", time_out2: "13:08", participants: "Mother" }));
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.data).toMatchObject({
      type: "rbt",
      patient_id: s.patient.id,
      provider_id: s.rbt.id,
      session_length_morning_total: 7,
      session_length_afternon_total: 8,
      session_length_total: 15,
      total_minutes: 15,
      total_units: 1,
      status: "pending",
      signed_at: null,
      content: { participants: "Mother" },
    });
    expect(await auditCount()).toBe(before + 1);
    const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(row).toMatchObject({ action: "create", entity: "note", entityId: String(r.json.data.id), patientId: s.patient.id });
  });

  it("the legacy paths create RBT and BCBA notes; a BCBA note takes 97151/97155/97156 only", async () => {
    const s = await scene({ cpt: "97155" });
    const bcba = await post(manager.token, "/note_bcba/store", body(s, { provider_id: manager.id, cpt_code: "97155" }));
    expect(bcba.status, JSON.stringify(bcba.json)).toBe(201);
    expect(bcba.json.data.type).toBe("bcba");
    const wrong = await post(manager.token, "/note_bcba/store", body(s, { provider_id: manager.id, cpt_code: "97153", time_in: "12:00", time_out: "13:00" }));
    expect(wrong.status).toBe(422);
    expect(wrong.json.errors!.cpt_code).toBe(NOTE_MESSAGES.cpt("bcba"));
    const t = await scene();
    const rbt = await post(t.rbt.token, "/note_rbt/store", body(t));
    expect(rbt.status).toBe(201);
  });

  it("without view_notes 403; another provider's note without manage_notes 403; nothing written", async () => {
    const s = await scene();
    const other = await staff(["view_notes"], [location.id]);
    expect((await post(noPerm, "/v2/notes-rbt", body(s))).status).toBe(403);
    expect((await post(noPerm, "/note_rbt/store", body(s))).status).toBe(403);
    const r = await post(other.token, "/v2/notes-rbt", body(s));
    expect(r.status).toBe(403);
    expect(await notesOf(s.patient.id)).toHaveLength(0);
    // A manager may write it for the RBT.
    expect((await post(manager.token, "/v2/notes-rbt", body(s))).status).toBe(201);
  });

  it("a client of another location, like every reference out of scope, answers 422 on its field", async () => {
    const s = await scene();
    const far = await post(outsider.token, "/v2/notes-rbt", body(s, { provider_id: outsider.id }));
    expect([far.status, far.json.errors]).toEqual([422, { patient_id: "Choose one of your clients." }]);
    const stranger = await staff(["view_notes"], [elsewhere.id]);
    const r = await post(manager.token, "/v2/notes-rbt", body(s, { provider_id: stranger.id, supervisor_id: stranger.id }));
    expect(r.status).toBe(422);
    expect(r.json.errors).toMatchObject({ provider_id: NOTE_MESSAGES.providerOutOfScope, supervisor_id: NOTE_MESSAGES.supervisorOutOfScope });
    const otherClient = await createPatient({ locationId: location.id });
    const bip = await createBip(otherClient);
    const plan = await createPlan(bip);
    const r2 = await post(s.rbt.token, "/v2/notes-rbt", body(s, { bip_id: bip.id, maladaptives: [{ plan_id: plan.id, name: "x", frequency: 1 }] }));
    expect(r2.status).toBe(422);
    expect(r2.json.errors).toMatchObject({ bip_id: NOTE_MESSAGES.bip, content: NOTE_MESSAGES.plan });
    // Goals named by more ids than D1 binds in one statement, and an id past the safe integers: 422, never a 500.
    const many = Array.from({ length: 100 }, (_, i) => ({ plan_id: 9_000_000 + i, name: `g${i}`, frequency: 1 }));
    const r3 = await post(s.rbt.token, "/v2/notes-rbt", body(s, { maladaptives: many, replacements: many.map((m) => ({ plan_id: m.plan_id + 500, name: m.name, total_trials: 1, correct_responses: 1 })) }));
    expect(r3.status).toBe(422);
    expect(r3.json.errors).toMatchObject({ content: NOTE_MESSAGES.plan });
    const r4 = await post(s.rbt.token, "/v2/notes-rbt", body(s, { maladaptives: [{ plan_id: 1e300, name: "x", frequency: 1 }] }));
    expect(r4.status).toBe(422);
    expect(await notesOf(s.patient.id)).toHaveLength(0);
  });

  it.each([
    ["a start without its end", { time_out: null }, "time_out", NOTE_MESSAGES.missingOut],
    ["an end before its start", { time_in: "10:00", time_out: "09:00" }, "time_out", NOTE_MESSAGES.endBeforeStart],
    ["a future date", { session_date: "2099-01-01" }, "session_date", NOTE_MESSAGES.futureDate],
    ["a date 15 days back", { session_date: "__15" }, "session_date", NOTE_MESSAGES.tooOld(14)],
    ["a missing PA service", { pa_service_id: "" }, "pa_service_id", NOTE_MESSAGES.paService],
    ["a bad modifier", { md: "ZZ" }, "md", NOTE_MESSAGES.modifier],
  ] as const)("bad input (%s): 422 on the field, nothing written, no audit row", async (_n, over, field, message) => {
    const s = await scene();
    const b = body(s, "session_date" in over && over.session_date === "__15" ? { session_date: day(-15) } : over);
    const before = await auditCount();
    const r = await post(s.rbt.token, "/v2/notes-rbt", b);
    expect(r.status).toBe(422);
    expect(r.json.errors![field]).toBe(message);
    expect(r.json.message).toBeTruthy();
    expect(await notesOf(s.patient.id)).toHaveLength(0);
    expect(await auditCount()).toBe(before);
  });

  it("dates: 14 days back passes; 15 days back passes with ignore_time_limits", async () => {
    const s = await scene({ permissions: ["view_notes", "ignore_time_limits"] });
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-14) }))).status).toBe(201);
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-15) }))).status).toBe(201);
    const t = await scene();
    expect((await post(t.rbt.token, "/v2/notes-rbt", body(t, { session_date: day(-14) }))).status).toBe(201);
  });

  it("a resend with the same Idempotency-Key answers the first note (200) and creates nothing", async () => {
    const s = await scene();
    const key = `key-${crypto.randomUUID()}`;
    const first = await post(s.rbt.token, "/v2/notes-rbt", body(s), { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    const again = await post(s.rbt.token, "/v2/notes-rbt", body(s), { "Idempotency-Key": key });
    expect(again.status).toBe(200);
    expect(again.json.data.id).toBe(first.json.data.id);
    const legacy = await post(s.rbt.token, "/note_rbt/store", body(s), { "Idempotency-Key": key });
    expect(legacy.status).toBe(200);
    expect(await notesOf(s.patient.id)).toHaveLength(1);
  });

  it("an Idempotency-Key is the user's and the note type's: another user's or type's create with it is a new note", async () => {
    const s = await scene();
    const t = await scene({ cpt: "97155" });
    const key = `shared-${crypto.randomUUID()}`;
    const first = await post(s.rbt.token, "/v2/notes-rbt", body(s), { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    // Another user on another type (a BCBA note), then another user on the same type: each a note of its own.
    const bcba = await post(t.rbt.token, "/v2/notes-bcba", body(t, { cpt_code: "97155" }), { "Idempotency-Key": key });
    expect(bcba.status, JSON.stringify(bcba.json)).toBe(201);
    expect(bcba.json.data).toMatchObject({ type: "bcba", patient_id: t.patient.id });
    const u = await scene();
    const other = await post(u.rbt.token, "/note_rbt/store", body(u), { "Idempotency-Key": key });
    expect(other.status, JSON.stringify(other.json)).toBe(201);
    expect(new Set([first.json.data.id, bcba.json.data.id, other.json.data.id]).size).toBe(3);
    expect(await notesOf(s.patient.id)).toHaveLength(1);
    expect(await notesOf(t.patient.id)).toHaveLength(1);
    expect(await notesOf(u.patient.id)).toHaveLength(1);
  });

  it("the same user's Idempotency-Key with another body: 422, nothing created; the first body again answers the first note", async () => {
    const s = await scene();
    const key = `reuse-${crypto.randomUUID()}`;
    const first = await post(s.rbt.token, "/v2/notes-rbt", body(s), { "Idempotency-Key": key });
    expect(first.status).toBe(201);
    const before = await auditCount();
    for (const path of ["/v2/notes-rbt", "/note_rbt/store"]) {
      const r = await post(s.rbt.token, path, body(s, { time_in: "13:00", time_out: "14:00" }), { "Idempotency-Key": key });
      expect(r.status).toBe(422);
      expect(r.json.message).toBe("This Idempotency-Key was already used for a different note.");
      expect(r.json.data).toBeUndefined();
    }
    expect(await notesOf(s.patient.id)).toHaveLength(1);
    expect(await auditCount()).toBe(before);
    // The same body, its keys in another order: the first note.
    const again = await post(s.rbt.token, "/v2/notes-rbt", Object.fromEntries(Object.entries(body(s)).reverse()), { "Idempotency-Key": key });
    expect(again.status).toBe(200);
    expect(again.json.data.id).toBe(first.json.data.id);
  });

  it("two racing creates with one key and different bodies: one note, the other 422", { timeout: 60_000 }, async () => {
    const s = await scene();
    const key = `race2-${crypto.randomUUID()}`;
    const rs = await Promise.all(["09:00", "11:00", "13:00", "15:00"].map((at, i) => post(s.rbt.token, "/v2/notes-rbt", body(s, { time_in: at, time_out: `${10 + 2 * i}:00` }), { "Idempotency-Key": key })));
    expect(rs.map((r) => r.status).sort()).toEqual([201, 422, 422, 422]);
    expect(await notesOf(s.patient.id)).toHaveLength(1);
  });

  it.each([
    ["", {}],
    [" with an Idempotency-Key", { "Idempotency-Key": "bench-key" }],
  ])("a create%s costs 3 D1 round trips (guard, one lookup batch, the write's batch)", async (_n, headers: Record<string, string>) => {
    const s = await scene();
    const res = await countingWorker.fetch(
      new Request("http://localhost/api/v2/notes-rbt", {
        method: "POST",
        headers: { Authorization: `Bearer ${s.rbt.token}`, "Content-Type": "application/json", ...headers },
        body: JSON.stringify(body(s)),
      }) as Request<unknown, IncomingRequestCfProperties>,
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(201);
    const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
    expect(roundTrips).toBeLessThanOrEqual(3);
  });

  it.each([
    ["create v2", "patient_id", "POST"],
    ["create v2", "pa_service_id", "POST"],
    ["create v2", "session_date", "POST"],
    ["create legacy", "patient_id", "POST"],
    ["create legacy", "pa_service_id", "POST"],
    ["create legacy", "session_date", "POST"],
    ["PUT v2", "pa_service_id", "PUT"],
    ["PUT v2", "session_date", "PUT"],
    ["PUT legacy", "pa_service_id", "PUT"],
    ["PUT legacy", "session_date", "PUT"],
  ] as const)("%s without %s: the same 422 message as an empty value, nothing written", async (path, field, method) => {
    const s = await scene();
    const n = method === "PUT" ? (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data : null;
    const url = { "create v2": "/v2/notes-rbt", "create legacy": "/note_rbt/store", "PUT v2": `/v2/notes-rbt/${n?.id}`, "PUT legacy": `/note_rbt/update/${n?.id}` }[path];
    const send = (b: Record<string, unknown>) => call(s.rbt.token, method, url, b);
    const empty = await send(body(s, { [field]: "" }));
    const { [field]: _dropped, ...rest } = body(s);
    const missing = await send(rest);
    expect(empty.status).toBe(422);
    expect(missing.status).toBe(422);
    expect(missing.json.errors[field]).toBe(empty.json.errors[field]);
    expect(missing.json.message).toBe(empty.json.message);
    expect(missing.json.message).not.toMatch(/Invalid key/);
    expect(await notesOf(s.patient.id)).toHaveLength(method === "PUT" ? 1 : 0);
    if (n) expect((await notesOf(s.patient.id))[0]!.version).toBe(1);
  });

  // The note's code is what a claim line carries first: the client's entry rule (probe 8975 §2, decision 017).
  it.each([["F84:0~"], ["F84*0"], ["..."], ["F84 0"]])("a note's diagnosis code %s is refused at entry (422 at diagnosis_code), nothing written; a good one is stored upper case", async (code) => {
    const s = await scene();
    const before = await auditCount();
    const refused = await post(s.rbt.token, "/v2/notes-rbt", body(s, { diagnosis_code: code }));
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual({ diagnosis_code: "Diagnosis codes are letters, digits and dots (for example F84.0)." });
    expect(await notesOf(s.patient.id)).toHaveLength(0);
    expect(await auditCount()).toBe(before);
    const created = await post(s.rbt.token, "/v2/notes-rbt", body(s, { diagnosis_code: " f84.0 " }));
    expect(created.status).toBe(201);
    expect((await notesOf(s.patient.id))[0]!.diagnosisCode).toBe("F84.0");
  });

  it("an empty body on create answers the product's message for the client first", async () => {
    const s = await scene();
    const r = await post(s.rbt.token, "/note_rbt/store", {});
    expect(r.status).toBe(422);
    expect(r.json.message).toBe(NOTE_MESSAGES.patient);
    expect(r.json.errors).toMatchObject({ patient_id: NOTE_MESSAGES.patient, pa_service_id: NOTE_MESSAGES.paService, session_date: "Session date is required." });
  });
});

describe("reads", () => {
  let s: Scene;
  let id: number;
  beforeAll(async () => {
    s = await scene();
    const bip = await createBip(s.patient);
    await createPlan(bip, { name: "Elopement" });
    await createPlan(bip, { name: "Manding", category: "replacement", timeframe: null, baselineTimeframe: null, unitType: null });
    id = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data.id;
  });

  it("show (v2 and legacy): the note with its history, an audited read; 404 elsewhere and for another type", async () => {
    const before = await auditCount();
    const v2 = await call(s.rbt.token, "GET", `/v2/notes-rbt/${id}`);
    expect(v2.status).toBe(200);
    expect(v2.json.data).toMatchObject({ id, patient_id: s.patient.id, history: [] });
    expect(await auditCount()).toBe(before + 1);
    const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(row).toMatchObject({ action: "read", entity: "note", entityId: String(id), patientId: s.patient.id });
    expect((await call(s.rbt.token, "GET", `/note_rbt/show/${id}`)).json.data.id).toBe(id);
    expect((await call(outsider.token, "GET", `/v2/notes-rbt/${id}`)).status).toBe(404);
    expect((await call(outsider.token, "GET", `/note_rbt/show/${id}`)).status).toBe(404);
    expect((await call(s.rbt.token, "GET", `/v2/notes-bcba/${id}`)).status).toBe(404);
    expect((await call(noPerm, "GET", `/v2/notes-rbt/${id}`)).status).toBe(403);
  });

  it("lists: filters, scope and one audit row naming the clients", async () => {
    const v2 = await call(manager.token, "GET", `/v2/notes-rbt?patient_id=${s.patient.id}`);
    expect(v2.status).toBe(200);
    expect(v2.json.data.map((n: { id: number }) => n.id)).toEqual([id]);
    expect((await call(manager.token, "GET", `/v2/notes-bcba?patient_id=${s.patient.id}`)).json.data).toEqual([]);
    expect((await call(manager.token, "GET", `/v2/notes-rbt?patient_id=${s.patient.id}&status=ok`)).json.data).toEqual([]);
    expect((await call(manager.token, "GET", `/v2/notes-rbt?patient_id=${s.patient.id}&date_from=${day(-1)}&date_to=${day(-1)}`)).json.data).toHaveLength(1);
    expect((await call(manager.token, "GET", `/v2/notes-rbt?status=nope`)).status).toBe(422);
    const before = await auditCount();
    const legacy = await call(manager.token, "GET", `/note_rbt?provider_id=${s.rbt.id}`);
    expect(legacy.json.data.map((n: { id: number }) => n.id)).toEqual([id]);
    expect(await auditCount()).toBe(before + 1);
    expect((await call(outsider.token, "GET", `/v2/notes-rbt?patient_id=${s.patient.id}`)).json.data).toEqual([]);
    expect((await call(noPerm, "GET", `/note_rbt`)).status).toBe(403);
    // Another method on a legacy path: 405.
    expect((await call(manager.token, "GET", "/note_rbt/store")).status).toBe(405);
    expect((await call(manager.token, "PATCH", `/note_bcba/update/${id}`, { time_out: "10:00" })).status).toBe(405);
    expect((await call(manager.token, "GET", "/note_rbt/storeReplacemts")).status).toBe(405);
  });

  it.each([
    ["v2", (q: string) => `/v2/notes-rbt?patient_id=${s.patient.id}&${q}`],
    ["legacy", (q: string) => `/note_rbt?patient_id=${s.patient.id}&${q}`],
  ])("a %s RBT list asked for another note type answers 422 at type, not RBT notes under that name (decision 017)", async (_label, path) => {
    for (const same of ["type=rbt", "type=", "type=null"]) {
      const r = await call(manager.token, "GET", path(same));
      expect([same, r.status, r.json.data?.map((n: { id: number }) => n.id)]).toEqual([same, 200, [id]]);
    }
    for (const [other, message] of [
      ["type=bcba", "This list holds only RBT notes: leave type out, or give rbt."],
      ["type=combined", "This list holds only RBT notes: leave type out, or give rbt."],
      ["type=xyz", "Choose a note type: rbt, bcba or combined."],
    ] as const) {
      const r = await call(manager.token, "GET", path(other));
      expect([other, r.status, r.json.errors?.type]).toEqual([other, 422, message]);
    }
  });

  it("a cached list sees a new note at once; a refused write leaves the cache as it was", async () => {
    const t = await scene();
    const path = `/v2/notes-rbt?patient_id=${t.patient.id}&cache=true`;
    expect((await call(manager.token, "GET", path)).json.data).toEqual([]);
    const n = (await post(t.rbt.token, "/v2/notes-rbt", body(t))).json.data;
    expect((await call(manager.token, "GET", path)).json.data.map((x: { id: number }) => x.id)).toEqual([n.id]);
    const [before] = await db().select().from(listVersions).where(eq(listVersions.resource, "notes"));
    expect((await post(t.rbt.token, "/v2/notes-rbt", body(t))).status).toBe(422);
    const [after] = await db().select().from(listVersions).where(eq(listVersions.resource, "notes"));
    expect(after!.version).toBe(before!.version);
  });

  it.each([
    ["v2 list", () => `/api/v2/notes-rbt?patient_id=${s.patient.id}`],
    ["v2 show", () => `/api/v2/notes-rbt/${id}`],
    ["legacy list", () => `/api/note_rbt?patient_id=${s.patient.id}`],
    ["legacy show", () => `/api/note_rbt/show/${id}`],
    ["byclient", () => `/api/note_rbt/byclient/${s.patient.id}`],
    ["byprofile", () => `/api/note_rbt/byprofile/${s.rbt.id}`],
    ["config", () => `/api/note_rbt/config?patient_id=${s.patient.id}`],
    ["showReplacementBypatient", () => `/api/note_rbt/showReplacementBypatient/${s.patient.id}`],
  ])("%s: at most 3 D1 round trips with its audit row", async (_n, path) => {
    const before = await auditCount();
    const res = await countingWorker.fetch(new Request(`http://localhost${path()}`, { headers: { Authorization: `Bearer ${manager.token}` } }) as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
    expect(res.status).toBe(200);
    const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
    expect(roundTrips).toBeLessThanOrEqual(3);
    expect(await auditCount()).toBe(before + 1);
  });

  it("byclient, byprofile, config, showReplacementBypatient", async () => {
    expect((await call(s.rbt.token, "GET", `/note_rbt/byclient/${s.patient.id}`)).json.data.map((n: { id: number }) => n.id)).toEqual([id]);
    expect((await call(outsider.token, "GET", `/note_rbt/byclient/${s.patient.id}`)).status).toBe(404);
    expect((await call(s.rbt.token, "GET", `/note_rbt/byprofile/${s.rbt.id}`)).json.data.map((n: { id: number }) => n.id)).toEqual([id]);
    // A provider the actor cannot see (no location in common) is not found, exactly like a user that does not exist.
    const hidden = await call(outsider.token, "GET", `/note_rbt/byprofile/${s.rbt.id}`);
    const missing = await call(outsider.token, "GET", `/note_rbt/byprofile/999999999`);
    expect([hidden.status, missing.status]).toEqual([404, 404]);
    expect(hidden.json).toEqual(missing.json);
    expect((await call(outsider.token, "GET", `/note_bcba/byprofile/${s.rbt.id}`)).status).toBe(404);
    const everywhere = await staff(["view_notes", "access_all_locations"], [elsewhere.id]);
    expect((await call(everywhere.token, "GET", `/note_rbt/byprofile/${s.rbt.id}`)).json.data.map((n: { id: number }) => n.id)).toEqual([id]);
    // A deleted provider's notes stay clinical records: byprofile lists them, as the notes list's provider filter does.
    await db().update(users).set({ deletedAt: new Date().toISOString() }).where(eq(users.id, s.rbt.id));
    try {
      expect((await call(everywhere.token, "GET", `/note_rbt/byprofile/${s.rbt.id}`)).json.data.map((n: { id: number }) => n.id)).toEqual([id]);
      expect((await call(everywhere.token, "GET", `/v2/notes-rbt?provider_id=${s.rbt.id}`)).json.data.map((n: { id: number }) => n.id)).toEqual([id]);
      expect((await call(outsider.token, "GET", `/note_rbt/byprofile/${s.rbt.id}`)).status).toBe(404);
    } finally {
      await db().update(users).set({ deletedAt: null }).where(eq(users.id, s.rbt.id));
    }
    const config = await call(s.rbt.token, "GET", `/note_rbt/config?patient_id=${s.patient.id}&session_date=${day(-1)}`);
    expect(config.status).toBe(200);
    expect(config.json.data).toMatchObject({ cpt_codes: ["97153"], client: { patient_id: s.patient.id, today: today() } });
    expect(config.json.data.client.maladaptives.map((g: { name: string }) => g.name)).toEqual(["Elopement"]);
    expect(config.json.data.client.replacements.map((g: { name: string }) => g.name)).toEqual(["Manding"]);
    expect(config.json.data.client.pa_services).toEqual([expect.objectContaining({ id: s.pa.id, spent_units: 4, available_units: 396 })]);
    expect(config.json.data.client.providers.map((p: { id: number }) => p.id)).toContain(s.rbt.id);
    expect((await call(outsider.token, "GET", `/note_rbt/config?patient_id=${s.patient.id}`)).status).toBe(404);
    expect((await call(s.rbt.token, "GET", `/note_bcba/config`)).json.data).toMatchObject({ cpt_codes: ["97151", "97155", "97156"], client: null });
    const repl = await call(s.rbt.token, "GET", `/note_rbt/showReplacementBypatient/${s.patient.id}`);
    expect(repl.json.data).toEqual([expect.objectContaining({ name: "Manding", last: null })]);
    expect((await call(outsider.token, "GET", `/note_rbt/showReplacementBypatient/${s.patient.id}`)).status).toBe(404);
  });
});

describe("update, status, modifiers, delete", () => {
  it("PUT and PATCH with version; a stale version answers 409; others' notes need manage_notes", async () => {
    const s = await scene();
    const created = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    const put = await call(s.rbt.token, "PUT", `/v2/notes-rbt/${created.id}`, { ...body(s, { time_out: "10:30" }), version: 1 });
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(put.json.data).toMatchObject({ total_minutes: 90, total_units: 6, version: 2 });
    const patch = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${created.id}`, { time_out: "10:15", participants: "Father", version: 2 });
    expect(patch.json.data).toMatchObject({ total_minutes: 75, total_units: 5, version: 3, pos: "12", content: { participants: "Father" } });
    const stale = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${created.id}`, { time_out: "10:45", version: 2 });
    expect(stale.status).toBe(409);
    const legacy = await call(s.rbt.token, "PUT", `/note_rbt/update/${created.id}`, body(s, { time_out: "11:00" }));
    expect(legacy.json.data).toMatchObject({ total_minutes: 120, version: 4 });
    const other = await staff(["view_notes"], [location.id]);
    expect((await call(other.token, "PATCH", `/v2/notes-rbt/${created.id}`, { time_out: "10:00" })).status).toBe(403);
    expect((await call(outsider.token, "PATCH", `/v2/notes-rbt/${created.id}`, { time_out: "10:00" })).status).toBe(404);
    expect((await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${created.id}`, { patient_id: 999999 })).status).toBe(422);
    expect((await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${created.id}`, { time_in: "12:00" })).json.errors).toEqual({ time_out: NOTE_MESSAGES.endBeforeStart });
    const [row] = await notesOf(s.patient.id);
    expect(row).toMatchObject({ version: 4, minutes: 120 });
  });

  it("status and modifiers need manage_notes; 404 elsewhere; bad values 422", async () => {
    const s = await scene();
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    expect((await call(s.rbt.token, "PUT", `/note_rbt/update/status/${n.id}`, { status: "ok" })).status).toBe(403);
    expect((await call(outsider.token, "PUT", `/note_rbt/update/status/${n.id}`, { status: "ok" })).status).toBe(404);
    expect((await call(manager.token, "PUT", `/note_rbt/update/status/${n.id}`, { status: "done" })).status).toBe(422);
    const ok = await call(manager.token, "PUT", `/note_rbt/update/status/${n.id}`, { status: "ok" });
    expect(ok.json.data.status).toBe("ok");
    expect((await call(manager.token, "PUT", `/v2/notes-rbt/update-status/${n.id}`, { status: "pending" })).json.data.status).toBe("pending");
    expect((await call(manager.token, "PUT", `/note_rbt/update/modifier/${n.id}`, { md: "hm", md2: "XE" })).json.data).toMatchObject({ md: "HM", md2: "XE", md3: null });
    expect((await call(manager.token, "PUT", `/note_rbt/update/modifier/${n.id}`, { md: "QQ" })).status).toBe(422);
    expect((await call(s.rbt.token, "PUT", `/note_rbt/update/modifier/${n.id}`, { md: "HM" })).status).toBe(403);
  });

  it("a status call that sets the status the note has writes nothing and answers 422 'Nothing to change' (decision 023, 2026-11-28)", async () => {
    const s = await scene();
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    for (const [path, status, code, version] of [
      [`/note_rbt/update/status/${n.id}`, "ok", 200, 2],
      [`/note_rbt/update/status/${n.id}`, "ok", 422, 2],
      [`/v2/notes-rbt/update-status/${n.id}`, "OK", 422, 2],
      [`/v2/notes-rbt/update-status/${n.id}`, "pending", 200, 3],
      [`/note_rbt/update/status/${n.id}`, "pending", 422, 3],
    ] as const) {
      const res = await call(manager.token, "PUT", path, { status });
      expect([path, status, res.status]).toEqual([path, status, code]);
      if (code === 422) expect(res.json.errors).toEqual({ status: `Nothing to change: the status is already ${status.toLowerCase() === "ok" ? "OK" : "Pending"}.` });
      const [row] = await notesOf(s.patient.id);
      expect(row).toMatchObject({ version });
    }
  });

  it("modifiers in a note's body still need manage_notes; a PATCH that names none keeps them", async () => {
    const s = await scene();
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    expect((await call(manager.token, "PUT", `/note_rbt/update/modifier/${n.id}`, { md: "HM" })).json.data).toMatchObject({ md: "HM", version: 2 });
    const put = await call(s.rbt.token, "PUT", `/v2/notes-rbt/${n.id}`, { ...body(s), md: "XP", version: 2 });
    expect(put.status).toBe(422);
    expect(put.json.errors).toEqual({ md: "Only a user with manage_notes may set modifiers." });
    const patch = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { participants: "Father", version: 2 });
    expect(patch.status).toBe(200);
    expect(patch.json.data).toMatchObject({ md: "HM", version: 3, content: { participants: "Father" } });
    const [row] = await notesOf(s.patient.id);
    expect(row).toMatchObject({ md: "HM", version: 3 });
  });

  it("delete (manage_notes) hides the note and gives its units back", async () => {
    const s = await scene({ units: 4 });
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-2) }))).json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paUnits(4, 0) });
    expect((await call(s.rbt.token, "DELETE", `/v2/notes-rbt/${n.id}`)).status).toBe(403);
    expect((await call(outsider.token, "DELETE", `/note_rbt/destroy/${n.id}`)).status).toBe(404);
    expect((await call(manager.token, "DELETE", `/note_rbt/destroy/${n.id}`)).status).toBe(200);
    expect((await call(manager.token, "GET", `/v2/notes-rbt/${n.id}`)).status).toBe(404);
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-2) }))).status).toBe(201);
  });

  it("a signed note changes only as an amendment that keeps the earlier version", async () => {
    const s = await scene();
    const signed = await post(s.rbt.token, "/v2/notes-rbt", body(s, { provider_name: "Robin RBT", provider_signed_on: day(-1) }));
    expect(signed.json.data.signed_at).toBeTruthy();
    const id = signed.json.data.id;
    const refused = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${id}`, { time_out: "10:30" });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual({ amendment_reason: NOTE_MESSAGES.signed });
    expect((await call(s.rbt.token, "PUT", `/note_rbt/update/${id}`, body(s, { time_out: "10:30" }))).status).toBe(422);
    const amended = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${id}`, { time_out: "10:30", amendment_reason: "Session ran longer" });
    expect(amended.status, JSON.stringify(amended.json)).toBe(200);
    expect(amended.json.data).toMatchObject({ total_minutes: 90, version: 2 });
    const shown = await call(s.rbt.token, "GET", `/v2/notes-rbt/${id}`);
    expect(shown.json.data.history).toHaveLength(1);
    expect(shown.json.data.history[0]).toMatchObject({ version: 1, reason: "Session ran longer", amended_by: s.rbt.id, note: { total_minutes: 60, version: 1 } });
    const versions = await db().select().from(noteVersions).where(eq(noteVersions.noteId, id));
    expect(versions).toHaveLength(1);
  });

  it("storeReplacemts saves an RBT note's replacement data", async () => {
    const s = await scene();
    const bip = await createBip(s.patient);
    const plan = await createPlan(bip, { name: "Manding", category: "replacement", timeframe: null, baselineTimeframe: null, unitType: null });
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    const r = await call(s.rbt.token, "POST", "/note_rbt/storeReplacemts", { note_id: n.id, replacements: [{ plan_id: plan.id, name: "Manding", total_trials: 10, correct_responses: 7 }] });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data.content.replacements).toEqual([{ plan_id: plan.id, name: "Manding", total_trials: 10, correct_responses: 7 }]);
    const repl = await call(s.rbt.token, "GET", `/note_rbt/showReplacementBypatient/${s.patient.id}`);
    expect(repl.json.data[0].last).toMatchObject({ note_id: n.id, total_trials: 10, correct_responses: 7 });
    expect((await call(outsider.token, "POST", "/note_rbt/storeReplacemts", { note_id: n.id, replacements: [] })).status).toBe(404);
  });

  it.each([
    ["without replacements", {}],
    ["with replacements null", { replacements: null }],
    ["with replacements not a list", { replacements: { plan_id: 1 } }],
  ])("storeReplacemts %s: 422 with a message, the note unchanged", async (_n, over) => {
    const s = await scene();
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s, { replacements: [{ name: "FCR", total_trials: 4, correct_responses: 3 }] }))).json.data;
    const before = await auditCount();
    const r = await call(s.rbt.token, "POST", "/note_rbt/storeReplacemts", { note_id: n.id, ...over });
    expect(r.status).toBe(422);
    expect(r.json.message).toBe("Send the replacement data as a list (replacements).");
    expect(r.json.errors.replacements).toBe(r.json.message);
    const [row] = await db().select().from(notes).where(eq(notes.id, n.id));
    expect(row!.version).toBe(1);
    expect(JSON.parse(row!.content as string).replacements).toEqual([{ plan_id: null, name: "FCR", total_trials: 4, correct_responses: 3 }]);
    expect(await auditCount()).toBe(before);
    // An explicit empty list still clears them.
    const cleared = await call(s.rbt.token, "POST", "/note_rbt/storeReplacemts", { note_id: n.id, replacements: [] });
    expect(cleared.status, JSON.stringify(cleared.json)).toBe(200);
    expect(cleared.json.data.content.replacements ?? []).toEqual([]);
  });
});

describe("the rules through the API", () => {
  it("no overlap for the client (any provider), touching ends pass, both pairs count", async () => {
    const s = await scene();
    const other = await staff(["view_notes"], [location.id]);
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { time_in: "09:00", time_out: "10:00", time_in2: "13:00", time_out2: "14:00" }))).status).toBe(201);
    const clash = await post(manager.token, "/v2/notes-rbt", body(s, { provider_id: other.id, time_in: "09:30", time_out: "09:45" }));
    expect(clash.status).toBe(422);
    expect(clash.json.errors).toEqual({ time_in: NOTE_MESSAGES.clientOverlap("09:00", "10:00") });
    const second = await post(manager.token, "/v2/notes-rbt", body(s, { provider_id: other.id, time_in: "11:00", time_out: "11:30", time_in2: "13:45", time_out2: "14:30" }));
    expect(second.json.errors).toEqual({ time_in2: NOTE_MESSAGES.clientOverlap("13:00", "14:00") });
    const touching = await post(manager.token, "/v2/notes-rbt", body(s, { provider_id: other.id, time_in: "10:00", time_out: "11:00" }));
    expect(touching.status).toBe(201);
  });

  it("no overlap for the provider (any client), and 15 minutes between their sessions (10 fail)", async () => {
    const a = await scene();
    const b = await scene();
    expect((await post(a.rbt.token, "/v2/notes-rbt", body(a, { time_in: "09:00", time_out: "10:00" }))).status).toBe(201);
    const clash = await post(manager.token, "/v2/notes-rbt", body(b, { provider_id: a.rbt.id, time_in: "09:30", time_out: "11:00" }));
    expect(clash.json.errors).toEqual({ time_in: NOTE_MESSAGES.providerOverlap("09:00", "10:00") });
    const ten = await post(manager.token, "/v2/notes-rbt", body(b, { provider_id: a.rbt.id, time_in: "10:10", time_out: "11:00" }));
    expect(ten.json.errors).toEqual({ time_in: NOTE_MESSAGES.providerBuffer("09:00", "10:00", 15) });
    const fifteen = await post(manager.token, "/v2/notes-rbt", body(b, { provider_id: a.rbt.id, time_in: "10:15", time_out: "11:00" }));
    expect(fifteen.status).toBe(201);
  });

  it("the buffer holds across midnight", async () => {
    const a = await scene();
    const b = await scene();
    expect((await post(a.rbt.token, "/v2/notes-rbt", body(a, { session_date: day(-3), time_in: "22:00", time_out: "23:55" }))).status).toBe(201);
    const early = await post(manager.token, "/v2/notes-rbt", body(b, { provider_id: a.rbt.id, session_date: day(-2), time_in: "00:05", time_out: "01:00" }));
    expect(early.json.errors).toEqual({ time_in: NOTE_MESSAGES.providerBuffer("22:00", "23:55", 15, ` on ${day(-3)}`) });
    expect((await post(manager.token, "/v2/notes-rbt", body(b, { provider_id: a.rbt.id, session_date: day(-2), time_in: "00:10", time_out: "01:00" }))).status).toBe(201);
  });

  it("an edit does not conflict with itself; an edit into another note is refused and changes nothing", async () => {
    const s = await scene();
    const n1 = (await post(s.rbt.token, "/v2/notes-rbt", body(s, { time_in: "09:00", time_out: "10:00" }))).json.data;
    const n2 = (await post(s.rbt.token, "/v2/notes-rbt", body(s, { time_in: "11:00", time_out: "12:00" }))).json.data;
    expect((await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n1.id}`, { time_in: "09:15", time_out: "10:30" })).status).toBe(200);
    const into = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n1.id}`, { time_out: "11:30" });
    expect(into.status).toBe(422);
    expect(into.json.errors).toEqual({ time_in: NOTE_MESSAGES.clientOverlap("11:00", "12:00") });
    const [row] = await db().select().from(notes).where(eq(notes.id, n1.id));
    expect(row).toMatchObject({ timeOut: "10:30", version: 2 });
    expect(n2.id).toBeGreaterThan(n1.id);
  });

  it("caps: 10 hours a day and 40 a week per client, exactly at the cap passes", async () => {
    const s = await scene({ permissions: ["view_notes", "ignore_time_limits"], units: 2000 });
    // A past week (Sunday–Saturday), whole: from the Sunday 4 weeks back.
    const sunday = addDays(today(), -28 - new Date(`${today()}T12:00:00Z`).getUTCDay());
    const second = await staff(["view_notes"], [location.id]);
    const boss = await staff(["view_notes", "manage_notes", "ignore_time_limits"], [location.id]);
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: sunday, time_in: "08:00", time_out: "13:00" }))).status).toBe(201);
    expect((await post(boss.token, "/v2/notes-rbt", body(s, { provider_id: second.id, session_date: sunday, time_in: "13:00", time_out: "18:00" }))).status).toBe(201);
    const over = await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: sunday, time_in: "19:00", time_out: "19:01" }));
    expect(over.json.errors).toEqual({ time_out: NOTE_MESSAGES.dayCap(10) });
    for (const d of [1, 2, 3]) expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: addDays(sunday, d), time_in: "08:00", time_out: "18:00" }))).status).toBe(201);
    const week = await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: addDays(sunday, 6), time_in: "08:00", time_out: "08:15" }));
    expect(week.json.errors).toEqual({ time_out: NOTE_MESSAGES.weekCap(40) });
    // The next Sunday starts a new week.
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: addDays(sunday, 7), time_in: "08:00", time_out: "08:15" }))).status).toBe(201);
  });

  it("PA units: consumed on create, moved on edit, refused when exceeded; the PA must be the client's and cover date and CPT", async () => {
    const s = await scene({ units: 8 });
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s, { time_in: "09:00", time_out: "11:00" }))).json.data;
    expect(n.total_units).toBe(8);
    const over = await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-2), time_in: "09:00", time_out: "09:15" }));
    expect(over.json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paUnits(1, 0) });
    expect((await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { time_out: "10:00" })).json.data.total_units).toBe(4);
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-2), time_in: "09:00", time_out: "10:00" }))).status).toBe(201);
    const grow = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { time_out: "10:15" });
    expect(grow.json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paUnits(5, 4) });
    // Moving the note to another PA service gives its units back to the first.
    const [pa2] = await db().insert(paServices).values({ patientId: s.patient.id, paService: "Second", cpt: "97153", nUnits: 10, startDate: day(-30), endDate: day(30) }).returning();
    expect((await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { pa_service_id: pa2!.id })).status).toBe(200);
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-3), time_in: "09:00", time_out: "10:00" }))).status).toBe(201);
    const other = await scene();
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-4), pa_service_id: other.pa.id }))).json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paNotOfClient });
    const [old] = await db().insert(paServices).values({ patientId: s.patient.id, paService: "Old", cpt: "97153", nUnits: 10, startDate: day(-100), endDate: day(-50) }).returning();
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-4), pa_service_id: old!.id }))).json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paNotCovering(day(-4), "97153") });
    const [bcbaPa] = await db().insert(paServices).values({ patientId: s.patient.id, paService: "BCBA", cpt: "97155", nUnits: 10, startDate: day(-30), endDate: day(30) }).returning();
    expect((await post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-4), pa_service_id: bcbaPa!.id }))).json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paNotCovering(day(-4), "97153") });
  });
});

describe("every path keeps the rules", () => {
  it("a combined note (v2) takes 97153/97155/97156 and its unit price", async () => {
    const s = await scene({ cpt: "97156" });
    const r = await post(manager.token, "/v2/notes-combined", body(s, { provider_id: manager.id, session_date: day(-6), time_in: "17:00", time_out: "18:00", cpt_code: "97156", unit_price_cents: 2500, caregiver_goals: [{ name: "Follow routine", percent: 80 }] }));
    expect(r.status, JSON.stringify(r.json)).toBe(201);
    expect(r.json.data).toMatchObject({ type: "combined", cpt_code: "97156", unit_price_cents: 2500, content: { caregiver_goals: [{ plan_id: null, name: "Follow routine", percent: 80 }] } });
    expect((await call(manager.token, "GET", `/v2/notes-combined/${r.json.data.id}`)).status).toBe(200);
    expect((await call(manager.token, "GET", `/v2/notes-rbt/${r.json.data.id}`)).status).toBe(404);
    expect((await post(manager.token, "/v2/notes-combined", body(s, { provider_id: manager.id, cpt_code: "97151" }))).json.errors).toEqual({ cpt_code: NOTE_MESSAGES.cpt("combined") });
  });

  it("an edit is held to the dates too: 15 days back only with ignore_time_limits, never the future", async () => {
    const s = await scene();
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    expect((await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { session_date: day(-15) })).json.errors).toEqual({ session_date: NOTE_MESSAGES.tooOld(14) });
    expect((await call(s.rbt.token, "PUT", `/note_rbt/update/${n.id}`, body(s, { session_date: day(1) }))).json.errors).toEqual({ session_date: NOTE_MESSAGES.futureDate });
    const boss = await staff(["view_notes", "manage_notes", "ignore_time_limits"], [location.id]);
    expect((await call(boss.token, "PATCH", `/v2/notes-rbt/${n.id}`, { session_date: day(-15) })).status).toBe(200);
  });

  it("an amendment is held to the overlap rules and changes nothing when refused", async () => {
    const s = await scene();
    await post(s.rbt.token, "/v2/notes-rbt", body(s, { time_in: "11:00", time_out: "12:00" }));
    const signed = (await post(s.rbt.token, "/v2/notes-rbt", body(s, { provider_name: "Robin", provider_signed_on: day(-1) }))).json.data;
    const r = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${signed.id}`, { time_out: "11:30", amendment_reason: "Longer" });
    expect(r.status).toBe(422);
    expect(r.json.errors).toEqual({ time_in: NOTE_MESSAGES.clientOverlap("11:00", "12:00") });
    expect(await db().select().from(noteVersions).where(eq(noteVersions.noteId, signed.id))).toHaveLength(0);
  });
});

describe("atomic under concurrency", () => {
  it("20 concurrent creates against a PA service with room for 10 notes: exactly 10 land and the units add up", { timeout: 120_000 }, async () => {
    const s = await scene({ units: 40, permissions: ["view_notes", "ignore_time_limits"] });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(s.rbt.token, "/v2/notes-rbt", body(s, { session_date: day(-1 - Math.floor(i / 2)), time_in: i % 2 ? "13:00" : "09:00", time_out: i % 2 ? "14:00" : "10:00" })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((x) => x === 201)).toHaveLength(10);
    expect(statuses.filter((x) => x === 422)).toHaveLength(10);
    for (const r of results.filter((x) => x.status === 422)) expect(r.json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paUnits(4, 0) });
    const [sum] = await db()
      .select({ units: sql<number>`sum(${notes.units})`, n: count() })
      .from(notes)
      .where(and(eq(notes.paServiceId, s.pa.id), isNull(notes.deletedAt)));
    expect(sum).toEqual({ units: 40, n: 10 });
  });

  it("two concurrent overlapping notes for one provider: exactly one lands", { timeout: 60_000 }, async () => {
    const a = await scene();
    const b = await scene();
    const [r1, r2] = await Promise.all([
      post(manager.token, "/v2/notes-rbt", body(a, { provider_id: manager.id, time_in: "15:00", time_out: "16:00" })),
      post(manager.token, "/v2/notes-rbt", body(b, { provider_id: manager.id, time_in: "15:30", time_out: "16:30" })),
    ]);
    expect([r1.status, r2.status].sort()).toEqual([201, 422]);
    const [n] = await db().select({ n: count() }).from(notes).where(and(eq(notes.providerId, manager.id), eq(notes.sessionDate, day(-1)), sql`${notes.timeIn} in ('15:00', '15:30')`));
    expect(n!.n).toBe(1);
  });

  it("a resend racing the first request with the same key creates one note", { timeout: 60_000 }, async () => {
    const s = await scene();
    const key = `race-${crypto.randomUUID()}`;
    const rs = await Promise.all([0, 1, 2, 3, 4, 5].map(() => post(s.rbt.token, "/v2/notes-rbt", body(s), { "Idempotency-Key": key })));
    expect(rs.filter((r) => !r.json.data).map((r) => JSON.stringify(r.json))).toEqual([]);
    expect(new Set(rs.map((r) => r.json.data.id)).size).toBe(1);
    expect(rs.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 201]);
    expect(await notesOf(s.patient.id)).toHaveLength(1);
  });
});

describe("the note view (screens, PDF, AI summary)", () => {
  it("getNoteView answers the note, its client, location and PA service, and its history, as one audited read; null elsewhere", async () => {
    const { getNoteView } = await import("~/models/notes.server");
    const { getUserActor } = await import("~/models/actors.server");
    const s = await scene();
    await db().update(patients).set({ birthDate: "2018-04-02", details: JSON.stringify({ insuranceId: "INS-42" }) }).where(eq(patients.id, s.patient.id));
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s, { provider_name: "Robin", provider_signed_on: day(-1) }))).json.data;
    await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { time_out: "10:30", amendment_reason: "Typo in time out" });
    const ctx = (userId: number) => getUserActor(db(), userId).then((actor) => ({ db: db(), actor: actor!, ip: "127.0.0.1", now: () => new Date() }));
    const before = await auditCount();
    const view = await getNoteView(await ctx(s.rbt.id), "rbt", n.id);
    expect(await auditCount()).toBe(before + 1);
    expect(view!.note).toMatchObject({ id: n.id, total_minutes: 90, version: 2 });
    expect(view!.context).toMatchObject({
      patient: { id: s.patient.id, birth_date: "2018-04-02", insurance_identifier: "INS-42" },
      location: { id: location.id, time_zone: "America/New_York" },
      pa_service: { id: s.pa.id, cpt: "97153", n_units: 400 },
    });
    expect(view!.history).toEqual([expect.objectContaining({ version: 1, reason: "Typo in time out", note: expect.objectContaining({ total_minutes: 60 }) })]);
    expect(await getNoteView(await ctx(outsider.id), "rbt", n.id)).toBeNull();
    expect(await getNoteView(await ctx(s.rbt.id), "bcba", n.id)).toBeNull();
  });
});

describe("a session that has not ended yet at the client's location is refused at its time out (probe 8922 §3)", () => {
  /** A clinic of its own (`zone`, titled), a client with a 97153 PA service around today, and its RBT. */
  async function clinic(zone: string, permissions: Permission[] = ["view_notes"]) {
    const here = await createLocation({ timeZone: zone, title: `Clinic of ${zone}` });
    const patient = await createPatient({ locationId: here.id });
    const t = todayIn(new Date(), zone);
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: addDays(t, -200), endDate: addDays(t, 200) }).returning();
    const user = await createUser({ permissions, locations: [here.id] });
    return { here, patient, pa: pa!, rbt: { id: user.id, token: await apiToken(user) }, user };
  }
  type Clinic = Awaited<ReturnType<typeof clinic>>;
  const noteOf = (c: Clinic, date: string, pairs: string[]) => ({
    type: "rbt",
    patient_id: c.patient.id,
    provider_id: c.rbt.id,
    pa_service_id: c.pa.id,
    cpt_code: "97153",
    pos: "12",
    session_date: date,
    time_in: pairs[0],
    time_out: pairs[1],
    time_in2: pairs[2] ?? null,
    time_out2: pairs[3] ?? null,
  });

  // The model's clock fixed (ctx.now): 2026-11-27 08:12:30 UTC is 03:12 in New York.
  const NOW = new Date("2026-11-27T08:12:30Z");
  async function fixedCtx(userId: number) {
    const { getUserActor } = await import("~/models/actors.server");
    return { db: db(), actor: (await getUserActor(db(), userId))!, ip: "127.0.0.1", now: () => NOW };
  }

  it.each<[string, string, string[], Permission[], string | null]>([
    ["this evening", "2026-11-27", ["20:00", "21:00"], ["view_notes"], "time_out"],
    ["this evening, with ignore_time_limits", "2026-11-27", ["20:00", "21:00"], ["view_notes", "ignore_time_limits"], "time_out"],
    ["started, not ended", "2026-11-27", ["02:30", "03:30"], ["view_notes"], "time_out"],
    ["the second pair not ended", "2026-11-27", ["01:00", "01:30", "02:45", "03:45"], ["view_notes"], "time_out2"],
    ["ended a minute ago", "2026-11-27", ["02:11", "03:11"], ["view_notes"], null],
    ["yesterday evening", "2026-11-26", ["20:00", "21:00"], ["view_notes"], null],
  ])("create (clock fixed at 03:12 in New York): %s", async (_, date, pairs, permissions, field) => {
    const { createNote } = await import("~/models/notes.server");
    const c = await clinic("America/New_York", permissions);
    await db().update(paServices).set({ startDate: "2026-01-01", endDate: "2027-12-31" }).where(eq(paServices.id, c.pa.id));
    const r = await createNote(await fixedCtx(c.user.id), noteOf(c, date, pairs));
    if (field) {
      expect(r).toMatchObject({ ok: false, status: 422, errors: { [field]: NOTE_MESSAGES.sessionNotEnded("03:12", "Clinic of America/New_York") } });
      expect(await notesOf(c.patient.id)).toHaveLength(0);
    } else {
      expect(r.ok, JSON.stringify(r)).toBe(true);
    }
  });

  it("an edit that moves the end past now is refused, and changes nothing (clock fixed)", async () => {
    const { createNote, updateNote } = await import("~/models/notes.server");
    const c = await clinic("America/New_York");
    await db().update(paServices).set({ startDate: "2026-01-01", endDate: "2027-12-31" }).where(eq(paServices.id, c.pa.id));
    const ctx = await fixedCtx(c.user.id);
    const made = await createNote(ctx, noteOf(c, "2026-11-27", ["01:00", "02:00"]));
    if (!made.ok) throw new Error(JSON.stringify(made));
    for (const partial of [true, false]) {
      const r = await updateNote(ctx, "rbt", made.data.id, { ...(partial ? {} : noteOf(c, "2026-11-27", ["01:00", "02:00"])), time_out: "04:00" }, { partial, version: null });
      expect(r).toMatchObject({ ok: false, status: 422, errors: { time_out: NOTE_MESSAGES.sessionNotEnded("03:12", "Clinic of America/New_York") } });
    }
    expect(await notesOf(c.patient.id)).toMatchObject([{ timeOut: "02:00", version: 1 }]);
  });

  it("API (real clock): today's session ending tonight is refused on create, PATCH and PUT; one that has ended is written", async () => {
    const zone = dayTimeZone();
    const c = await clinic(zone);
    const t = todayIn(new Date(), zone);
    const message = /^The session cannot end in the future: it is \d{2}:\d{2} now at Clinic of /;
    const late = await post(c.rbt.token, "/v2/notes-rbt", noteOf(c, t, ["23:00", "23:30"]));
    expect(late.status).toBe(422);
    expect(late.json.errors?.time_out).toMatch(message);
    expect(await notesOf(c.patient.id)).toHaveLength(0);
    const early = await post(c.rbt.token, "/v2/notes-rbt", noteOf(c, t, ["00:30", "01:00"]));
    expect(early.status, JSON.stringify(early.json)).toBe(201);
    const patched = await call(c.rbt.token, "PATCH", `/v2/notes-rbt/${early.json.data.id}`, { time_in2: "23:00", time_out2: "23:30" });
    expect(patched.status).toBe(422);
    expect(patched.json.errors.time_out2).toMatch(message);
    const put = await call(c.rbt.token, "PUT", `/v2/notes-rbt/${early.json.data.id}`, noteOf(c, t, ["00:30", "23:45"]));
    expect(put.status).toBe(422);
    expect(put.json.errors.time_out).toMatch(message);
    expect(await notesOf(c.patient.id)).toMatchObject([{ timeOut: "01:00", timeIn2: null, version: 1 }]);
  });

  it("screen (real clock): a form for today's session ending tonight is refused beside the time, nothing written", async () => {
    const zone = dayTimeZone();
    const c = await clinic(zone);
    const { form, signInCookie } = await import("./helpers");
    const cookie = await signInCookie(c.user);
    const fields = { intent: "save", form_token: crypto.randomUUID(), ...Object.fromEntries(Object.entries(noteOf(c, todayIn(new Date(), zone), ["23:00", "23:30"])).map(([k, v]) => [k, v === null ? "" : String(v)])) };
    const res = await form(`/note-rbt?patient_id=${c.patient.id}`, fields, cookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toMatch(/The session cannot end in the future: it is \d{2}:\d{2} now at Clinic of /);
    expect(await notesOf(c.patient.id)).toHaveLength(0);
  });
});

describe("a deleted client's note still takes the provider's time, and the refusal says whose it is (probe 8922 §5)", () => {
  it.each([
    ["the buffer", ["13:40", "14:30"], (where: string) => NOTE_MESSAGES.providerBuffer("13:30", "13:37", 15, where)],
    ["an overlap", ["13:00", "14:00"], (where: string) => NOTE_MESSAGES.providerOverlap("13:30", "13:37", where)],
  ] as const)("%s", async (_, [timeIn, timeOut], message) => {
    const gone = await scene();
    const other = await scene();
    const first = await post(gone.rbt.token, "/v2/notes-rbt", body(gone, { time_in: "13:30", time_out: "13:37" }));
    expect(first.status).toBe(201);
    const sent = body(other, { provider_id: gone.rbt.id, time_in: timeIn, time_out: timeOut });
    // The client is not deleted yet: the plain message.
    const before = await post(gone.rbt.token, "/v2/notes-rbt", sent);
    expect(before.json.errors).toEqual({ time_in: message("") });
    await db().update(patients).set({ deletedAt: new Date().toISOString() }).where(eq(patients.id, gone.patient.id));
    const after = await post(gone.rbt.token, "/v2/notes-rbt", sent);
    expect(after.status).toBe(422);
    expect(after.json.errors).toEqual({ time_in: message(NOTE_MESSAGES.ofDeletedClient) });
    expect(after.json.errors!.time_in).toContain("(a note of a client who has since been deleted)");
    expect(await notesOf(other.patient.id)).toHaveLength(0);
  });
});

describe("the afternoon pair starts when or after the morning pair ends (probe 8985 §3)", () => {
  const morning = { time_in: "15:00", time_out: "16:00" };
  const reversed = { ...morning, time_in2: "09:00", time_out2: "10:00" };
  const inOrder = { time_in: "09:00", time_out: "10:00", time_in2: "15:00", time_out2: "16:00" };
  const refusal = { time_in2: NOTE_MESSAGES.pairsOrder("16:00") };

  it.each([
    ["v2 RBT", "/v2/notes-rbt", "97153", false],
    ["legacy RBT", "/note_rbt/store", "97153", false],
    ["v2 BCBA", "/v2/notes-bcba", "97155", true],
    ["legacy BCBA", "/note_bcba/store", "97155", true],
    ["v2 combined", "/v2/notes-combined", "97156", true],
  ] as const)("create (%s): refused at time_in2, nothing written; the same pairs in order are written", async (_, path, cpt, byManager) => {
    const s = await scene({ cpt });
    // A provider of their own (with manage_notes for a BCBA or combined note): the shared manager's other sessions are not in the way.
    const boss = byManager ? await staff(["view_notes", "manage_notes"], [location.id]) : null;
    const token = boss?.token ?? s.rbt.token;
    const who = boss ? { provider_id: boss.id } : {};
    const before = await auditCount();
    const refused = await post(token, path, body(s, { ...who, cpt_code: cpt, ...reversed }));
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual(refusal);
    expect(await notesOf(s.patient.id)).toHaveLength(0);
    expect(await auditCount()).toBe(before);
    const written = await post(token, path, body(s, { ...who, cpt_code: cpt, ...inOrder }));
    expect(written.status, JSON.stringify(written.json)).toBe(201);
    expect(written.json.data).toMatchObject({ session_length_morning_total: 60, session_length_afternon_total: 60 });
  });

  const rbtNote = { create: "/v2/notes-rbt", cpt: "97153", byManager: false };
  const bcbaNote = { create: "/v2/notes-bcba", cpt: "97155", byManager: true };
  const combinedNote = { create: "/v2/notes-combined", cpt: "97156", byManager: true };
  it.each([
    ["PATCH v2 RBT", rbtNote, "PATCH", "/v2/notes-rbt", { time_in2: "07:00", time_out2: "08:00" }, "10:00"],
    ["PATCH v2 RBT, the morning moved after the afternoon", rbtNote, "PATCH", "/v2/notes-rbt", { time_in: "17:00", time_out: "18:00" }, "18:00"],
    ["PUT v2 RBT", rbtNote, "PUT", "/v2/notes-rbt", reversed, "16:00"],
    ["PUT legacy RBT", rbtNote, "PUT", "/note_rbt/update", reversed, "16:00"],
    ["PATCH v2 BCBA", bcbaNote, "PATCH", "/v2/notes-bcba", { time_in2: "07:00", time_out2: "08:00" }, "10:00"],
    ["PUT v2 combined", combinedNote, "PUT", "/v2/notes-combined", reversed, "16:00"],
  ] as const)("edit (%s) that puts the afternoon first: refused at time_in2, nothing changed", async (_, note, method, path, times, firstEnd) => {
    const s = await scene({ cpt: note.cpt });
    const boss = note.byManager ? await staff(["view_notes", "manage_notes"], [location.id]) : null;
    const token = boss?.token ?? s.rbt.token;
    const full = body(s, { ...(boss ? { provider_id: boss.id } : {}), cpt_code: note.cpt, ...inOrder });
    const n = (await post(token, note.create, full)).json.data;
    const r = await call(token, method, `${path}/${n.id}`, method === "PUT" ? { ...full, ...times } : times);
    expect(r.status, JSON.stringify(r.json)).toBe(422);
    expect(r.json.errors).toEqual({ time_in2: NOTE_MESSAGES.pairsOrder(firstEnd) });
    expect(await notesOf(s.patient.id)).toMatchObject([{ timeIn: "09:00", timeOut: "10:00", timeIn2: "15:00", timeOut2: "16:00", version: 1 }]);
  });

  it("a note stored the other way round keeps its pairs through edits that leave the times; a time change must put them in order", async () => {
    const s = await scene();
    const n = (await post(s.rbt.token, "/v2/notes-rbt", body(s, inOrder))).json.data;
    // As written before the rule: the afternoon's times and interval stored first.
    await db()
      .update(notes)
      .set({ timeIn: sql`${notes.timeIn2}`, timeOut: sql`${notes.timeOut2}`, timeIn2: sql`${notes.timeIn}`, timeOut2: sql`${notes.timeOut}`, start1At: sql`${notes.start2At}`, end1At: sql`${notes.end2At}`, start2At: sql`${notes.start1At}`, end2At: sql`${notes.end1At}` })
      .where(eq(notes.id, n.id));
    const patched = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { participants: "Father" });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    const put = await call(s.rbt.token, "PUT", `/v2/notes-rbt/${n.id}`, body(s, { ...reversed, participants: "Grandmother" }));
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(await notesOf(s.patient.id)).toMatchObject([{ timeIn: "15:00", timeIn2: "09:00", minutes: 120, version: 3 }]);
    const still = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { time_out2: "10:30" });
    expect(still.status).toBe(422);
    expect(still.json.errors).toEqual(refusal);
    expect(await notesOf(s.patient.id)).toMatchObject([{ timeOut2: "10:00", version: 3 }]);
    const fixed = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, inOrder);
    expect(fixed.status, JSON.stringify(fixed.json)).toBe(200);
    expect(await notesOf(s.patient.id)).toMatchObject([{ timeIn: "09:00", timeIn2: "15:00", minutes: 120, version: 4 }]);
  });
});

describe("a PATCH that changes nothing (decision 017, stop 42)", () => {
  type Case = [label: string, path: "notes-rbt" | "notes-bcba", patch: Record<string, unknown>, status: number, field: string | null];
  const CASES: Case[] = [
    ["another type: an object", "notes-rbt", { type: { x: "\u0000" } }, 422, "type"],
    ["another type: a number", "notes-rbt", { type: 123 }, 422, "type"],
    ["another type: a lone surrogate", "notes-rbt", { type: "\ud800" }, 422, "type"],
    ["another type: the other endpoint's", "notes-rbt", { type: "bcba" }, 422, "type"],
    ["the same type alone", "notes-rbt", { type: "rbt" }, 422, null],
    ["a field sent with its stored value", "notes-rbt", { time_out: "10:00" }, 422, null],
    ["the same type beside a stored value", "notes-rbt", { type: "rbt", pos: "12" }, 422, null],
  ];
  it.each(CASES)("%s: %i, nothing written, the version stays", async (_label, path, patch, status, field) => {
    const s = await scene();
    const created = (await post(s.rbt.token, `/v2/${path}`, body(s, path === "notes-bcba" ? { cpt_code: "97153" } : {}))).json.data;
    expect(created?.id, "created").toBeTruthy();
    const [before] = await db().select().from(notes).where(eq(notes.id, created.id));
    const res = await call(s.rbt.token, "PATCH", `/v2/${path}/${created.id}`, patch);
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    if (field) expect(res.json.errors?.[field]).toBe(NOTE_MESSAGES.typeReadOnly);
    else expect(res.json.message).toMatch(/^Nothing to change/);
    const [after] = await db().select().from(notes).where(eq(notes.id, created.id));
    expect([after!.version, after!.updatedAt, after!.type]).toEqual([before!.version, before!.updatedAt, before!.type]);
  });

  it("a real change beside the same type still saves and moves the version", async () => {
    const s = await scene();
    const created = (await post(s.rbt.token, "/v2/notes-rbt", body(s))).json.data;
    const res = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${created.id}`, { type: "rbt", time_out: "10:15" });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.data).toMatchObject({ version: created.version + 1, total_minutes: 75 });
  });
});
