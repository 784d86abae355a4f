import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, notes, paServices, scheduledSessions } from "~/db/schema";
import { NOTE_MESSAGES, PA_DELETED, todayIn } from "~/domain/note-rules";
import { PA_SERVICE_IN_USE } from "~/domain/patients";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A PA service that live notes or scheduled sessions use (probe 8931 §4): its delete is refused on the profile and
 * the API, naming how many use it; and a note whose PA service was deleted before that (stored data) is still
 * edited, signed and amended by saves that leave its PA service, CPT, date and units as they are (decision 017's
 * rule for links the user did not touch), while the scrubber keeps reporting it.
 */

const today = () => todayIn(new Date(), "America/New_York");
let w: { locationId: number; manager: number; token: string; cookie: string };

beforeAll(async () => {
  const loc = await createLocation();
  const manager = await createUser({ permissions: ["view_notes", "manage_notes", "view_clients", "manage_clients", "manage_claims"], locations: [loc.id] });
  w = { locationId: loc.id, manager: manager.id, token: await apiToken(manager), cookie: await signInCookie(manager) };
});

async function client() {
  const patient = await createPatient({ locationId: w.locationId });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Auth 97153", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
  return { patientId: patient.id, paId: pa!.id };
}

let slot = 0;
function noteBody(c: { patientId: number; paId: number }, over: Record<string, unknown> = {}) {
  // The manager provides every note: each in its own day and hour, clear of the provider's buffer.
  const n = slot++;
  const h = 8 + (n % 4) * 2;
  return { patient_id: c.patientId, provider_id: w.manager, pa_service_id: c.paId, cpt_code: "97153", pos: "12", diagnosis_code: "F84.0", session_date: addDays(today(), -1 - Math.floor(n / 4)), time_in: `${String(h).padStart(2, "0")}:00`, time_out: `${String(h).padStart(2, "0")}:30`, ...over };
}

async function call(method: string, path: string, body?: unknown) {
  const res = await api(path, { method, token: w.token, body });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

async function liveNote(c: { patientId: number; paId: number }, over: Record<string, unknown> = {}) {
  const r = await call("POST", "/v2/notes-rbt", noteBody(c, over));
  expect(r.status, JSON.stringify(r.json)).toBe(201);
  return r.json.data as { id: number; version: number };
}

async function session(c: { patientId: number; paId: number }, date: string, status = "scheduled", units = 4) {
  await db().insert(scheduledSessions).values({ patientId: c.patientId, providerId: w.manager, locationId: w.locationId, cptCode: "97153", paServiceId: c.paId, sessionDate: date, timeIn: "09:00", timeOut: "10:00", startAt: 0, endAt: 60, minutes: 60, units, status });
}

const paRow = async (id: number) => (await db().select().from(paServices).where(eq(paServices.id, id)))[0]!;
const textOf = async (res: Response) => (await res.text()).replaceAll("&#x27;", "'").replaceAll("&quot;", '"').replaceAll("&amp;", "&");

describe("deleting a PA service that live notes or scheduled sessions use", () => {
  const cases: [label: string, setup: (c: { patientId: number; paId: number }) => Promise<unknown>, refusal: string | null][] = [
    ["two live notes", async (c) => (await liveNote(c), await liveNote(c)), PA_SERVICE_IN_USE.notes(2)],
    ["a session scheduled tomorrow", (c) => session(c, addDays(today(), 1)), PA_SERVICE_IN_USE.sessions(1)],
    ["a live note and a session scheduled today", async (c) => (await liveNote(c), await session(c, today())), `${PA_SERVICE_IN_USE.notes(1)} ${PA_SERVICE_IN_USE.sessions(1)}`],
    [
      "only a deleted note, a cancelled session and a session of last week still scheduled",
      async (c) => {
        const n = await liveNote(c);
        expect((await call("DELETE", `/v2/notes-rbt/${n.id}`)).status).toBe(200);
        await session(c, addDays(today(), 2), "cancelled");
        await session(c, addDays(today(), -7));
      },
      null,
    ],
  ];

  it.each(cases)("%s: API DELETE", async (_label, setup, refusal) => {
    const c = await client();
    await setup(c);
    const res = await call("DELETE", `/v2/pa-services/${c.paId}`);
    if (refusal) {
      expect(res.status).toBe(422);
      expect(res.json.message).toBe(refusal);
      expect((await paRow(c.paId)).deletedAt).toBeNull();
    } else {
      expect(res.status).toBe(200);
      expect((await paRow(c.paId)).deletedAt).not.toBeNull();
    }
  });

  it.each(cases)("%s: the profile's delete without JavaScript", async (_label, setup, refusal) => {
    const c = await client();
    await setup(c);
    const res = await request(`/patients/profile/${c.patientId}`, { method: "POST", body: new URLSearchParams({ intent: "pa-delete", pa_id: String(c.paId), confirmed: "yes" }), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    if (refusal) {
      expect(res.status).toBe(422);
      expect(await textOf(res)).toContain(refusal);
      expect((await paRow(c.paId)).deletedAt).toBeNull();
    } else {
      expect(res.status).toBe(303);
      expect((await paRow(c.paId)).deletedAt).not.toBeNull();
    }
  });
});

describe("a note whose PA service was deleted (stored before deletes were refused)", () => {
  /** A note, then its PA service deleted in the stored data (as an earlier release allowed). */
  async function stranded(over: Record<string, unknown> = {}) {
    const c = await client();
    const n = await liveNote(c, over);
    await db().update(paServices).set({ deletedAt: new Date().toISOString() }).where(eq(paServices.id, c.paId));
    return { c, n };
  }

  // The note is 30 minutes (2 units) at time_in; `late`: a free evening slot twelve days back.
  type Stored = { c: { patientId: number; paId: number }; n: { time_in: string }; livePa: number };
  const late = { session_date: addDays(today(), -12), time_in: "19:00", time_out: "19:30" };
  const saves: [label: string, over: Record<string, unknown>, body: (s: Stored) => Record<string, unknown>, status: number][] = [
    ["an edit of the summary", {}, () => ({ summary_note: "Calm session." }), 200],
    ["signing", {}, () => ({ provider_name: "Marcus Reed", provider_signed_on: today() }), 200],
    ["an amendment of a signed note", { provider_name: "Marcus Reed", provider_signed_on: addDays(today(), -1) }, () => ({ summary_note: "Typo fixed.", amendment_reason: "typo" }), 200],
    ["naming the stored PA service and moving the session by 15 minutes (same units)", {}, (s) => ({ pa_service_id: s.c.paId, time_in: s.n.time_in.replace(":00", ":15"), time_out: s.n.time_in.replace(":00", ":45") }), 200],
    ["choosing a live PA service", {}, (s) => ({ pa_service_id: s.livePa }), 200],
    ["a new session date (the PA service is checked)", {}, () => late, 422],
    ["more units (the PA service is checked)", {}, (s) => ({ time_out: s.n.time_in.replace(":00", ":50") }), 422],
  ];

  it.each(saves)("API PATCH, %s", async (_label, over, body, status) => {
    const { c, n } = await stranded(over);
    const [live] = await db().insert(paServices).values({ patientId: c.patientId, paService: "New auth", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
    const b = body({ c, n: n as unknown as { time_in: string }, livePa: live!.id });
    const res = await call("PATCH", `/v2/notes-rbt/${n.id}`, b);
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    const [row] = await db().select().from(notes).where(eq(notes.id, n.id));
    if (status === 200) expect(row!.version).toBe(n.version + 1);
    else {
      expect(res.json.errors).toEqual({ pa_service_id: NOTE_MESSAGES.paNotOfClient });
      expect(row!.version).toBe(n.version);
    }
  });

  it("the edit form keeps the deleted PA service (marked) and saves unchanged without JavaScript; the scrubber still reports it", async () => {
    const { c, n } = await stranded();
    const page = await textOf(await request(`/note-rbt/edit/${n.id}`, { cookie: w.cookie }));
    expect(page).toContain(`Auth 97153 · 97153 · 2020-01-01 to 2099-12-31 · ${PA_DELETED}`);
    expect(page).toMatch(new RegExp(`<option[^>]*value="${c.paId}"[^>]*selected`));
    const [row] = await db().select().from(notes).where(eq(notes.id, n.id));
    const fields = Object.fromEntries(
      Object.entries({ ...noteBody(c), session_date: row!.sessionDate, time_in: row!.timeIn, time_out: row!.timeOut, type: "rbt", intent: "save", version: row!.version, diagnosis_code: "F84.1" }).map(([k, x]) => [k, String(x)]),
    );
    const saved = await request(`/note-rbt/edit/${n.id}`, { method: "POST", body: new URLSearchParams(fields), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(saved.status, await saved.clone().text()).toBe(303);
    const [after] = await db().select().from(notes).where(eq(notes.id, n.id));
    expect(after).toMatchObject({ diagnosisCode: "F84.1", paServiceId: c.paId, version: row!.version + 1 });
    const scrub = (await (await api(`/v2/billing/scrubber/notes/${n.id}`, { token: w.token })).json()) as { data: { reasons: { code: string }[] } };
    expect(scrub.data.reasons.map((r) => r.code)).toContain("no_pa");
  });
});

describe("editing a PA service so that sessions booked under it would no longer be covered (probe 8973 §4)", () => {
  const auditRows = async () => (await db().select({ n: count() }).from(auditLog))[0]!.n;
  const full = { pa_service: "Auth 97153", cpt: "97153", n_units: 400, start_date: "2020-01-01", end_date: "2099-12-31" };
  const d = (days: number) => addDays(today(), days);
  // label, sessions (days from today; "x" cancelled, "past" last week still scheduled), method, body, refused field or null (saved).
  const edits: [label: string, sessions: (number | "x" | "past")[], method: string, body: () => Record<string, unknown>, field: string | null, message: (() => string) | null][] = [
    ["the end date before a session", [3], "PATCH", () => ({ end_date: d(2) }), "end_date", () => `1 scheduled session(s) would no longer be covered by this PA service (on ${d(3)}): cancel them or book them under another PA service first.`],
    ["the start date after a session", [1], "PATCH", () => ({ start_date: d(2) }), "start_date", () => PA_SERVICE_IN_USE.uncovered(1, [d(1)])],
    ["another CPT", [1, 8], "PATCH", () => ({ cpt: "97151" }), "cpt", () => PA_SERVICE_IN_USE.uncovered(2, [d(1), d(8)])],
    ["a PUT that shortens the dates past five sessions", [0, 7, 14, 21, 21, 28], "PUT", () => ({ ...full, end_date: d(-1) }), "end_date", () => `6 scheduled session(s) would no longer be covered by this PA service (the first on ${d(0)}, ${d(7)}, ${d(14)}): cancel them or book them under another PA service first.`],
    ["units below the booked units (a warning, not a rule)", [1, 2], "PATCH", () => ({ n_units: 1 }), null, null],
    ["dates that still cover every session", [1, 5], "PATCH", () => ({ start_date: d(1), end_date: d(5) }), null, null],
    ["only a cancelled session and one of last week fall outside", ["x", "past"], "PATCH", () => ({ start_date: d(0), end_date: d(0) }), null, null],
  ];

  async function booked(sessions: (number | "x" | "past")[]) {
    const c = await client();
    for (const s of sessions) await session(c, s === "x" ? d(4) : s === "past" ? d(-7) : d(s), s === "x" ? "cancelled" : "scheduled", 4);
    return c;
  }

  it.each(edits)("API %s: %s", async (_label, sessions, method, body, field, message) => {
    const c = await booked(sessions);
    const before = await paRow(c.paId);
    const audits = await auditRows();
    const res = await call(method, `/v2/pa-services/${c.paId}`, body());
    if (field) {
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.message).toBe(message!());
      expect(res.json.errors).toEqual({ [field]: message!() });
      expect(await paRow(c.paId)).toEqual(before);
      expect(await auditRows()).toBe(audits);
    } else {
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect((await paRow(c.paId)).version).toBe(before.version + 1);
    }
  });

  it("the profile's edit form refuses it without JavaScript, keeps the typed values and changes nothing", async () => {
    const c = await booked([3]);
    const before = await paRow(c.paId);
    const fields = { intent: "pa-update", pa_id: String(c.paId), version: String(before.version), ...full, n_units: "350", end_date: d(2) };
    const res = await request(`/patients/profile/${c.patientId}`, { method: "POST", body: new URLSearchParams(Object.entries(fields).map(([k, x]) => [k, String(x)])), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(422);
    const html = await textOf(res);
    expect(html).toContain(PA_SERVICE_IN_USE.uncovered(1, [d(3)]));
    expect(html).toContain(`value="${d(2)}"`);
    expect(html).toContain('value="350"');
    expect(await paRow(c.paId)).toEqual(before);
    // Once the session is cancelled, the same save goes through.
    await db().update(scheduledSessions).set({ status: "cancelled" }).where(eq(scheduledSessions.paServiceId, c.paId));
    const saved = await request(`/patients/profile/${c.patientId}`, { method: "POST", body: new URLSearchParams(Object.entries(fields).map(([k, x]) => [k, String(x)])), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(saved.status).toBe(303);
    expect(await paRow(c.paId)).toMatchObject({ endDate: d(2), nUnits: 350 });
  });
});
