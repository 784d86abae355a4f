import { createExecutionContext, env } from "cloudflare:test";
import { count, desc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, notes, paServices, patients, scheduledSessions, scheduleSeries } from "~/db/schema";
import { localMinute, NOTE_MESSAGES } from "~/domain/note-rules";
import { todayAtLocation } from "~/domain/pa-pacing";
import { addDays, dayNumber } from "~/domain/weeks";
import { longDate, SCHEDULE_MESSAGES } from "~/domain/schedule";
import { zonePlace } from "~/domain/time";
import { getActor } from "~/models/actors.server";
import { bookSessions, cancelRestOfSeries, upcomingSessionsQuery } from "~/models/schedule.server";
import { deleteNote } from "~/models/notes.server";
import { auditRead, verifyAuditChain } from "~/services/audit.server";
import { d1Database, type Db } from "~/db/client.server";
import countingWorker from "../bench/d1-count-worker";
import * as build from "../../build/index.js";
import { D1_COUNT_HEADER } from "../bench/d1-count-header";
import { appFetch } from "./app-fetch";
import { api, apiToken, BASE, beforeWriteDb, createLocation, createParent, createPatient, createUser, dayTimeZone, db, form, request, signInCookie, type TestUser, expectUnsupportedMethods, nextWeekdayIn } from "./helpers";

/**
 * Scheduled sessions and the calendar (issue 12, decision 037): the API (book one-off and weekly, cancel one,
 * cancel the rest, the range) and the screens (/calendar/view, /calendar/schedule): allowed, 403, another
 * location 404, bad input 4xx with nothing changed, and the notes' rules over notes AND scheduled sessions.
 */

const ZONE = "America/Denver";
const today = () => todayAtLocation(new Date(), ZONE);
/** The next date (after today + `after` days) that falls on `weekday` (0 = Sunday). */
const nextOn = (weekday: number, after = 1) => nextWeekdayIn(ZONE, weekday, after);

let w: {
  location: number;
  elsewhere: number;
  rbt: TestUser;
  rbtToken: string;
  rbtCookie: string;
  manager: TestUser;
  managerToken: string;
  managerCookie: string;
  noPermToken: string;
  noPermCookie: string;
  outsiderToken: string;
  outsiderCookie: string;
  otherRbt: TestUser;
};

async function client(nUnits = 4000) {
  const patient = await createPatient({ locationId: w.location });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "RBT direct", cpt: "97153", nUnits, startDate: addDays(today(), -30), endDate: addDays(today(), 400) }).returning();
  return { id: patient.id, pa: pa!.id };
}

async function addNote(patientId: number, providerId: number, paServiceId: number, date: string, timeIn: string, timeOut: string, type: "rbt" | "combined" = "rbt") {
  const s = localMinute(date, timeIn)!;
  const e = localMinute(date, timeOut)!;
  const [row] = await db()
    .insert(notes)
    .values({ type, patientId, locationId: w.location, providerId, paServiceId, cptCode: type === "rbt" ? "97153" : "97155", sessionDate: date, timeIn, timeOut, start1At: s, end1At: e, startAt: s, endAt: e, minutes: e - s, units: Math.floor((e - s) / 15) })
    .returning();
  return row!.id;
}

/**
 * A booked session moved to yesterday: a booking cannot be made for a past date, and a note is written only for a
 * session that has ended (probe 8922 §3), so a note for a session of today would pass only late in the day. The
 * session that has taken place is the real case: its note is written afterwards, for its date.
 */
const yesterday = () => addDays(today(), -1);
/**
 * Moves a booked session to `date`, its times with it: a session that has taken place is booked ahead (a booking
 * must not have started, decision 037) and moved back.
 */
async function moveTo(id: number, date: string) {
  const s = scheduledSessions;
  const [row] = await db().select({ date: s.sessionDate }).from(s).where(eq(s.id, id));
  const minutes = ((dayNumber(row!.date) ?? 0) - (dayNumber(date) ?? 0)) * 1440;
  await db().update(s).set({ sessionDate: date, startAt: sql`${s.startAt} - ${minutes}`, endAt: sql`${s.endAt} - ${minutes}` }).where(eq(s.id, id));
}
const toYesterday = (id: number) => moveTo(id, yesterday());

async function scheduledCount(patientId: number): Promise<number> {
  const [r] = await db().select({ n: count() }).from(scheduledSessions).where(eq(scheduledSessions.patientId, patientId));
  return r!.n;
}

async function auditRows(): Promise<number> {
  const [r] = await db().select({ n: count() }).from(auditLog);
  return r!.n;
}

type Booked = { data: { series_id: number | null; sessions: { id: number; session_date: string; units: number; status: string; time_in: string }[]; warning: string | null }; message: string; warning: string | null };

function book(token: string, body: Record<string, unknown>) {
  return api("/v2/scheduled-sessions", { method: "POST", token, body });
}

beforeAll(async () => {
  const loc = await createLocation({ timeZone: ZONE });
  const elsewhere = await createLocation({ timeZone: "America/New_York" });
  const rbt = await createUser({ permissions: ["view_notes"], locations: [loc.id] });
  const otherRbt = await createUser({ permissions: ["view_notes"], locations: [loc.id] });
  const manager = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [loc.id] });
  const noPerm = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
  const outsider = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [elsewhere.id] });
  w = {
    location: loc.id,
    elsewhere: elsewhere.id,
    rbt,
    rbtToken: await apiToken(rbt),
    rbtCookie: await signInCookie(rbt),
    manager,
    managerToken: await apiToken(manager),
    managerCookie: await signInCookie(manager),
    noPermToken: await apiToken(noPerm),
    noPermCookie: await signInCookie(noPerm),
    outsiderToken: await apiToken(outsider),
    outsiderCookie: await signInCookie(outsider),
    otherRbt,
  };
});

describe("POST /api/v2/scheduled-sessions: booking", () => {
  it("books a one-off session for the provider themself, with its units, and records it", async () => {
    const c = await client();
    const date = nextOn(2);
    const before = await auditRows();
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "9:00", time_out: "10:30" });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Booked;
    expect(body.message).toBe("Session scheduled.");
    expect(body.data.series_id).toBeNull();
    expect(body.data.sessions).toHaveLength(1);
    expect(body.data.sessions[0]).toMatchObject({ session_date: date, time_in: "09:00", units: 6, status: "scheduled" });
    expect(body.warning).toBeNull();
    expect(await auditRows()).toBe(before + 1);
  });

  it("the same Idempotency-Key twice: 201 then 200 with the same booking, nothing booked twice; another body 422 (decision 037)", async () => {
    const c = await client();
    const first = nextOn(3, 120);
    const body = { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "09:00", time_out: "10:00", repeat: "weekly", until: addDays(first, 7) };
    const keyed = (k: string, sent: unknown) =>
      appFetch(`${BASE}/api/v2/scheduled-sessions`, { method: "POST", headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${w.rbtToken}`, "Idempotency-Key": k }, body: JSON.stringify(sent) });
    const key = (k: string) => keyed(k, body);
    const a = await key("book-1");
    const b = await key("book-1");
    expect([a.status, b.status]).toEqual([201, 200]);
    const [ba, bb] = [(await a.json()) as Booked, (await b.json()) as Booked];
    expect(bb.message).toBe(ba.message);
    expect(bb.data.sessions.map((s) => s.id)).toEqual(ba.data.sessions.map((s) => s.id));
    expect(await scheduledCount(c.id)).toBe(2);
    const other = await keyed("book-1", { ...body, time_in: "11:00", time_out: "12:00" });
    expect(other.status).toBe(422);
    expect(await scheduledCount(c.id)).toBe(2);
    // Without a key, the same booking again is the overlap it is.
    expect((await book(w.rbtToken, body)).status).toBe(422);
  });

  it("a weekly booking costs 3 D1 round trips (guard, the read batch, the write batch with the read-back)", async () => {
    const c = await client();
    const first = nextOn(2, 110);
    const res = await countingWorker.fetch(
      new Request("http://localhost/api/v2/scheduled-sessions", {
        method: "POST",
        headers: { Authorization: `Bearer ${w.rbtToken}`, "Content-Type": "application/json" },
        body: JSON.stringify({ patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "07:00", time_out: "08:00", repeat: "weekly", until: addDays(first, 14) }),
      }) as Request<unknown, IncomingRequestCfProperties>,
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(201);
    const body = (await res.json()) as Booked;
    expect(body.data.sessions.map((s) => s.session_date)).toEqual([first, addDays(first, 7), addDays(first, 14)]);
    const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
    expect(roundTrips).toBeLessThanOrEqual(3);
  });

  it("books a weekly series until a date inclusive: every occurrence, one series", async () => {
    const c = await client();
    const first = nextOn(1);
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "13:00", time_out: "14:00", repeat: "weekly", until: addDays(first, 21) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Booked;
    expect(body.message).toBe("Weekly series scheduled: 4 sessions.");
    expect(body.data.sessions.map((s) => s.session_date)).toEqual([0, 7, 14, 21].map((n) => addDays(first, n)));
    const [series] = await db().select().from(scheduleSeries).where(eq(scheduleSeries.id, body.data.series_id!));
    expect(series).toMatchObject({ patientId: c.id, weekday: 1, startsOn: first, until: addDays(first, 21) });
  });

  it.each<[string, (c: { id: number; pa: number }) => Record<string, unknown>, string, RegExp]>([
    ["time out before time in", (c) => ({ patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(3), time_in: "10:00", time_out: "09:00" }), "time_out", /after the time in/],
    ["no time in", (c) => ({ patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(3), time_out: "09:00" }), "time_in", /time in/],
    ["a bad CPT", (c) => ({ patient_id: c.id, cpt_code: "12345", pa_service_id: c.pa, session_date: nextOn(3), time_in: "09:00", time_out: "10:00" }), "cpt_code", /CPT/],
    ["no PA service", (c) => ({ patient_id: c.id, cpt_code: "97153", session_date: nextOn(3), time_in: "09:00", time_out: "10:00" }), "pa_service_id", /PA service/],
    ["a date in the past", (c) => ({ patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: addDays(today(), -2), time_in: "09:00", time_out: "10:00" }), "session_date", /from today/],
    ["weekly without an end", (c) => ({ patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(3), time_in: "09:00", time_out: "10:00", repeat: "weekly" }), "until", /ends/],
    ["more than 53 occurrences", (c) => ({ patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(3), time_in: "09:00", time_out: "10:00", repeat: "weekly", until: addDays(nextOn(3), 7 * 53) }), "until", /at most 53 sessions/],
    ["a CPT the PA service does not cover", (c) => ({ patient_id: c.id, cpt_code: "97155", pa_service_id: c.pa, session_date: nextOn(3), time_in: "09:00", time_out: "10:00" }), "pa_service_id", /does not cover CPT 97155/],
    ["a provider of another location", (c) => ({ patient_id: c.id, provider_id: 999_999, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(3), time_in: "09:00", time_out: "10:00" }), "provider_id", /provider of the client's location/],
  ])("refuses %s: 422 on the field, nothing booked", async (_label, body, field, message) => {
    const c = await client();
    const before = await auditRows();
    const res = await book(w.managerToken, body(c));
    expect(res.status).toBe(422);
    const json = (await res.json()) as { message: string; errors: Record<string, string> };
    expect(json.errors[field]).toMatch(message);
    expect(await scheduledCount(c.id)).toBe(0);
    expect(await auditRows()).toBe(before);
  });

  it("without view_notes: 403; for another provider without manage_notes: 403; another location's client: 422 at patient_id — nothing booked", async () => {
    const c = await client();
    const body = { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(4), time_in: "09:00", time_out: "10:00" };
    expect((await book(w.noPermToken, body)).status).toBe(403);
    const other = await book(w.rbtToken, { ...body, provider_id: w.otherRbt.id });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { message: string }).message).toMatch(/manage_notes/);
    // Another location's client is a body reference: 422 at patient_id (decision 017).
    const far = await book(w.outsiderToken, body);
    expect([far.status, ((await far.json()) as { errors?: Record<string, string> }).errors]).toEqual([422, { patient_id: "Choose one of your clients." }]);
    expect((await api("/v2/scheduled-sessions", { method: "POST", token: w.rbtToken, body: [1] })).status).toBe(400);
    expect(await scheduledCount(c.id)).toBe(0);
    // A manager books for another provider.
    expect((await book(w.managerToken, { ...body, provider_id: w.otherRbt.id })).status).toBe(201);
  });

  it("refuses a session that overlaps a written note of the client", async () => {
    const c = await client();
    const date = nextOn(5);
    await addNote(c.id, w.otherRbt.id, c.pa, date, "09:00", "10:00");
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "09:30", time_out: "11:00" });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.time_in).toBe("The client already has a session from 09:00 to 10:00 that overlaps this time.");
    expect(await scheduledCount(c.id)).toBe(0);
  });

  it("refuses a whole weekly series when one occurrence conflicts, naming the date", async () => {
    const c = await client();
    const first = nextOn(3);
    const third = addDays(first, 14);
    await addNote(c.id, w.otherRbt.id, c.pa, third, "14:00", "15:00");
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "14:30", time_out: "15:30", repeat: "weekly", until: addDays(first, 28) });
    expect(res.status).toBe(422);
    const { errors } = (await res.json()) as { errors: Record<string, string> };
    expect(errors.time_in).toBe(`On ${third}: The client already has a session from 14:00 to 15:00 that overlaps this time.`);
    expect(await scheduledCount(c.id)).toBe(0);
  });

  it("refuses a session that overlaps a scheduled session of the same provider, and one within the 15-minute buffer", async () => {
    const a = await client();
    const b = await client();
    const date = nextOn(4, 8);
    expect((await book(w.rbtToken, { patient_id: a.id, cpt_code: "97153", pa_service_id: a.pa, session_date: date, time_in: "09:00", time_out: "10:00" })).status).toBe(201);
    const overlap = await book(w.rbtToken, { patient_id: b.id, cpt_code: "97153", pa_service_id: b.pa, session_date: date, time_in: "09:45", time_out: "10:30" });
    expect(overlap.status).toBe(422);
    expect(((await overlap.json()) as { errors: Record<string, string> }).errors.time_in).toBe("The provider already has a session from 09:00 to 10:00 that overlaps this time.");
    const buffer = await book(w.rbtToken, { patient_id: b.id, cpt_code: "97153", pa_service_id: b.pa, session_date: date, time_in: "10:10", time_out: "11:00" });
    expect(buffer.status).toBe(422);
    expect(((await buffer.json()) as { errors: Record<string, string> }).errors.time_in).toBe("The provider needs 15 minutes between sessions; another session runs from 09:00 to 10:00.");
    expect((await book(w.rbtToken, { patient_id: b.id, cpt_code: "97153", pa_service_id: b.pa, session_date: date, time_in: "10:15", time_out: "11:00" })).status).toBe(201);
  });

  it("a provider overlap with a note of a deleted client says so, in the note form's words (decision 037, stop 30)", async () => {
    const gone = await client();
    const c = await client();
    const date = nextOn(2, 8);
    await addNote(gone.id, w.rbt.id, gone.pa, date, "09:00", "10:00");
    await db().update(patients).set({ deletedAt: new Date().toISOString() }).where(eq(patients.id, gone.id));
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "09:30", time_out: "10:30" });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.time_in).toBe(`The provider already has a session from 09:00 to 10:00${NOTE_MESSAGES.ofDeletedClient} that overlaps this time.`);
    expect(await scheduledCount(c.id)).toBe(0);
  });

  it("refuses past the client's 10 hours a day (notes + scheduled) and 40 hours a week", async () => {
    const c = await client();
    const date = nextOn(2, 15);
    await addNote(c.id, w.otherRbt.id, c.pa, date, "07:00", "12:00");
    expect((await book(w.managerToken, { patient_id: c.id, provider_id: w.manager.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "12:30", time_out: "17:00" })).status).toBe(201);
    const day = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "18:00", time_out: "19:00" });
    expect(day.status).toBe(422);
    expect(((await day.json()) as { errors: Record<string, string> }).errors.time_out).toBe("The client would have more than 10 hours of sessions on this day.");
    // The week: 9.5 h on four more days of that week = 38 + 9.5 → the 5th is refused.
    const w2 = await client();
    const sunday = nextOn(0, 22);
    for (const n of [0, 1, 2, 3]) {
      const d = addDays(sunday, n);
      await addNote(w2.id, w.otherRbt.id, w2.pa, d, "08:00", "17:30");
    }
    const week = await book(w.rbtToken, { patient_id: w2.id, cpt_code: "97153", pa_service_id: w2.pa, session_date: addDays(sunday, 4), time_in: "08:00", time_out: "11:00" });
    expect(week.status).toBe(422);
    expect(((await week.json()) as { errors: Record<string, string> }).errors.time_out).toBe("The client would have more than 40 hours of sessions in this week (Sunday to Saturday).");
  });

  it("books over the PA service's units left with a warning (not a refusal)", async () => {
    const c = await client(10);
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(6), time_in: "09:00", time_out: "11:00", repeat: "weekly", until: addDays(nextOn(6), 7) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Booked;
    expect(body.warning).toBe("These 2 sessions need 16 units but the PA service has only 10 units left after the notes written and the sessions already scheduled.");
    expect(await scheduledCount(c.id)).toBe(2);
  });
});

/**
 * The database of a model call whose `batch` calls `after(nth)` once its nth batch (1: the booking's read batch)
 * has resolved, before answering it: another request's write landing between the call's read and its write.
 */
function hookedDb(after: (nth: number) => Promise<unknown> | void): { db: Db; batches: () => number } {
  let n = 0;
  const binding = {
    prepare: (query: string) => env.DB.prepare(query),
    batch: async (statements: D1PreparedStatement[]) => {
      const nth = ++n;
      const out = await env.DB.batch(statements);
      await after(nth);
      return out;
    },
    exec: (query: string) => env.DB.exec(query),
    dump: () => env.DB.dump(),
    withSession: (...args: Parameters<D1Database["withSession"]>) => env.DB.withSession(...args),
  } as D1Database;
  return { db: d1Database(binding), batches: () => n };
}

/** `between` runs right after the call's `at`-th batch. */
const interleavedDb = (at: number, between: () => Promise<unknown>) => hookedDb((nth) => (nth === at ? between() : undefined));

/** Databases for `n` calls sent at once: each call waits after its first batch (its read) until all have read, so all write at once. */
function readTogether(n: number): () => Db {
  let arrived = 0;
  let release!: () => void;
  const allRead = new Promise<void>((resolve) => (release = resolve));
  return () =>
    hookedDb(async (nth) => {
      if (nth !== 1) return;
      if (++arrived === n) release();
      await allRead;
    }).db;
}

async function actorCtx(user: TestUser, database: Db) {
  const actor = (await getActor(db(), "user", user.id))!;
  return { db: database, actor, ip: "127.0.0.1", now: () => new Date() };
}

describe("booking races (decision 037: read, check and write again on an audit-chain race)", () => {
  it("two bookings of the same slot for the same provider sent at once: exactly one is booked, the other refused with the overlap", async () => {
    const a = await client();
    const b = await client();
    const date = nextOn(3, 100);
    const before = await auditRows();
    // Both read before either writes (the race the audit chain must settle).
    const together = readTogether(2);
    const results = await Promise.all([
      bookSessions(await actorCtx(w.rbt, together()), { patient_id: a.id, cpt_code: "97153", pa_service_id: a.pa, session_date: date, time_in: "09:00", time_out: "10:00" }),
      bookSessions(await actorCtx(w.rbt, together()), { patient_id: b.id, cpt_code: "97153", pa_service_id: b.pa, session_date: date, time_in: "09:00", time_out: "10:00" }),
    ]);
    expect(results.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(results.find((r) => !r.ok)).toMatchObject({ status: 422, errors: { time_in: "The provider already has a session from 09:00 to 10:00 that overlaps this time." } });
    expect((await scheduledCount(a.id)) + (await scheduledCount(b.id))).toBe(1);
    expect(await auditRows()).toBe(before + 1);
    // Through the API as well (two requests at once): still exactly one.
    const c = await client();
    const d = await client();
    const [rc, rd] = await Promise.all([
      book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "12:00", time_out: "13:00" }),
      book(w.rbtToken, { patient_id: d.id, cpt_code: "97153", pa_service_id: d.pa, session_date: date, time_in: "12:00", time_out: "13:00" }),
    ]);
    expect([rc.status, rd.status].sort()).toEqual([201, 422]);
    expect((await scheduledCount(c.id)) + (await scheduledCount(d.id))).toBe(1);
  });

  it("two bookings of the same slot for the same client by two providers sent at once: exactly one is booked", async () => {
    const c = await client();
    const date = nextOn(4, 100);
    const before = await auditRows();
    const together = readTogether(2);
    const results = await Promise.all([
      bookSessions(await actorCtx(w.rbt, together()), { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "13:00", time_out: "14:30" }),
      bookSessions(await actorCtx(w.otherRbt, together()), { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "13:00", time_out: "14:30" }),
    ]);
    expect(results.map((r) => r.ok).sort()).toEqual([false, true]);
    expect(results.find((r) => !r.ok)).toMatchObject({ status: 422, errors: { time_in: "The client already has a session from 13:00 to 14:30 that overlaps this time." } });
    expect(await scheduledCount(c.id)).toBe(1);
    expect(await auditRows()).toBe(before + 1);
  });

  it("a booking whose slot is taken between its read and its write is refused (a weekly series: nothing of it is booked)", async () => {
    const a = await client();
    const b = await client();
    const first = nextOn(5, 100);
    const taken = addDays(first, 14);
    // Right after the series' read batch, another request books the provider on the series' third date.
    const { db: racing, batches } = interleavedDb(1, async () => {
      const res = await book(w.rbtToken, { patient_id: b.id, cpt_code: "97153", pa_service_id: b.pa, session_date: taken, time_in: "15:30", time_out: "16:30" });
      expect(res.status).toBe(201);
    });
    const before = await auditRows();
    const result = await bookSessions(await actorCtx(w.rbt, racing), { patient_id: a.id, cpt_code: "97153", pa_service_id: a.pa, session_date: first, time_in: "15:00", time_out: "16:00", repeat: "weekly", until: addDays(first, 28) });
    expect(result).toMatchObject({ ok: false, status: 422, errors: { time_in: `On ${taken}: The provider already has a session from 15:30 to 16:30 that overlaps this time.` } });
    expect(batches()).toBe(3); // read, write (chain race: rolled back), read again and refuse
    expect(await scheduledCount(a.id)).toBe(0);
    expect(await scheduledCount(b.id)).toBe(1);
    expect(await auditRows()).toBe(before + 1); // the other booking's row only
  });

  it("a booking racing an unrelated audited write still books, after reading and checking again", async () => {
    const c = await client();
    const other = await client();
    const date = nextOn(6, 100);
    // Right after the read batch, an unrelated audited write: the chain moves, nothing the check read does.
    const { db: racing, batches } = interleavedDb(1, () => auditRead(db(), { actor: { kind: "user", id: w.manager.id }, ip: "127.0.0.1" }, { entity: "patient", entityId: other.id, patientId: other.id }));
    const result = await bookSessions(await actorCtx(w.rbt, racing), { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "08:00", time_out: "09:00" });
    expect(result.ok).toBe(true);
    expect(batches()).toBe(4); // read, write (chain race), read again, write
    expect(await scheduledCount(c.id)).toBe(1);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("a booking's create row names what it made (decision 019, probe 8934 L1)", () => {
  // Right after the read batch, an unaudited insert takes the id the booking read as next (the chain does not move).
  it.each([
    ["a session", 130, (c: { id: number; pa: number }, date: string) => db().insert(scheduledSessions).values({ patientId: c.id, providerId: w.otherRbt.id, locationId: w.location, cptCode: "97153", paServiceId: c.pa, sessionDate: date, timeIn: "06:00", timeOut: "06:30", startAt: 0, endAt: 30, minutes: 30, units: 2 })],
    ["a series", 150, (c: { id: number; pa: number }, date: string) => db().insert(scheduleSeries).values({ patientId: c.id, providerId: w.otherRbt.id, locationId: w.location, cptCode: "97153", weekday: 1, startsOn: date, until: date, timeIn: "06:00", timeOut: "06:30" })],
  ] as const)("a series whose ids %s takes first is booked with the next ones, and its row names the series and exactly its sessions", async (_label, after, take) => {
    const c = await client();
    const other = await client();
    const first = nextOn(1, after);
    const { db: racing, batches } = interleavedDb(1, () => take(other, first));
    const result = await bookSessions(await actorCtx(w.rbt, racing), { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "11:00", time_out: "12:00", repeat: "weekly", until: addDays(first, 7) });
    expect(result, JSON.stringify(result)).toMatchObject({ ok: true });
    expect(batches()).toBe(4); // read, write (the id taken: rolled back), read again, write
    const made = await db().select().from(scheduledSessions).where(eq(scheduledSessions.patientId, c.id)).orderBy(scheduledSessions.id);
    expect(made).toHaveLength(2);
    const [row] = await db().select().from(auditLog).where(eq(auditLog.patientId, c.id)).orderBy(desc(auditLog.id)).limit(1);
    expect(row).toMatchObject({ action: "create", entity: "schedule_series", entityId: String(made[0]!.seriesId) });
    expect(JSON.parse(row!.detail!)).toMatchObject({ dates: 2, weekly: true, sessions: made.map((s) => s.id) });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("cancel one, cancel the rest, and the range", () => {
  it("any other method on the scheduled-session paths answers 405 JSON 'Unsupported HTTP method' (not the screens' cross-site 403 or 404 page)", async () => {
    const cases: [method: string, path: string][] = [
      ["PUT", "/v2/scheduled-sessions"],
      ["DELETE", "/v2/scheduled-sessions/1"],
      ["PUT", "/v2/scheduled-sessions/1"],
      ["GET", "/v2/scheduled-sessions/1/cancel"],
      ["GET", "/v2/scheduled-sessions/1/cancel-rest"],
    ];
    await expectUnsupportedMethods(w.rbtToken, cases);
  });

  it("cancels one occurrence; again answers 422; 403 without permission or for another provider; 404 elsewhere", async () => {
    const c = await client();
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(2, 30), time_in: "09:00", time_out: "10:00" });
    const id = ((await res.json()) as Booked).data.sessions[0]!.id;
    expect((await api(`/v2/scheduled-sessions/${id}/cancel`, { method: "POST", token: w.noPermToken })).status).toBe(403);
    expect((await api(`/v2/scheduled-sessions/${id}/cancel`, { method: "POST", token: w.outsiderToken })).status).toBe(404);
    expect((await api(`/v2/scheduled-sessions/${id}/cancel`, { method: "POST", token: await apiToken(w.otherRbt) })).status).toBe(403);
    const [still] = await db().select().from(scheduledSessions).where(eq(scheduledSessions.id, id));
    expect(still!.status).toBe("scheduled");
    const ok = await api(`/v2/scheduled-sessions/${id}/cancel`, { method: "POST", token: w.rbtToken });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { status: string } }).data.status).toBe("cancelled");
    expect((await api(`/v2/scheduled-sessions/${id}/cancel`, { method: "POST", token: w.rbtToken })).status).toBe(422);
    expect((await api(`/v2/scheduled-sessions/abc/cancel`, { method: "POST", token: w.rbtToken })).status).toBe(404);
  });

  it("cancels the rest of a series from a date: earlier occurrences stay; a bad date is 422 with nothing changed", async () => {
    const c = await client();
    const first = nextOn(4, 30);
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "15:00", time_out: "16:00", repeat: "weekly", until: addDays(first, 35) });
    const body = (await res.json()) as Booked;
    const id = body.data.sessions[0]!.id;
    expect((await api(`/v2/scheduled-sessions/${id}/cancel-rest`, { method: "POST", token: w.rbtToken, body: { from: "2026-02-31" } })).status).toBe(422);
    expect((await api(`/v2/scheduled-sessions/${id}/cancel-rest`, { method: "POST", token: w.outsiderToken, body: {} })).status).toBe(404);
    const from = addDays(first, 14);
    const r = await api(`/v2/scheduled-sessions/${id}/cancel-rest`, { method: "POST", token: w.rbtToken, body: { from } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { message: string }).message).toBe("Rest of the series cancelled: 4 sessions.");
    const rows = await db().select().from(scheduledSessions).where(eq(scheduledSessions.seriesId, body.data.series_id!));
    expect(rows.filter((x) => x.status === "scheduled").map((x) => x.sessionDate).sort()).toEqual([first, addDays(first, 7)]);
    const [series] = await db().select().from(scheduleSeries).where(eq(scheduleSeries.id, body.data.series_id!));
    expect(series!.cancelledFrom).toBe(from);
  });

  it("cancelling the rest while another request cancels part of it: the answer counts the rows this request changed; nothing left → 422, no audit row", async () => {
    const c = await client();
    const first = nextOn(1, 60);
    const res = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "07:00", time_out: "08:00", repeat: "weekly", until: addDays(first, 21) });
    const booked = (await res.json()) as Booked;
    const ids = booked.data.sessions.map((x) => x.id);
    expect(ids).toHaveLength(4);
    // Between the reads and the write, the provider cancels the third occurrence on its own.
    const racing = beforeWriteDb(async () => expect((await api(`/v2/scheduled-sessions/${ids[2]}/cancel`, { method: "POST", token: w.rbtToken })).status).toBe(200));
    const result = await cancelRestOfSeries(await actorCtx(w.rbt, racing), ids[0]!, "");
    expect(result).toMatchObject({ ok: true, message: "Rest of the series cancelled: 3 sessions.", data: { cancelled: 3 } });
    const rows = await db().select().from(scheduledSessions).where(eq(scheduledSessions.seriesId, booked.data.series_id!));
    expect(rows.every((x) => x.status === "cancelled")).toBe(true);

    // A second series whose every occurrence is cancelled (by another request) between the reads and the write.
    const second = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: addDays(first, 1), time_in: "07:00", time_out: "08:00", repeat: "weekly", until: addDays(first, 8) })).json()) as Booked;
    const [a, b] = second.data.sessions.map((x) => x.id);
    const seriesRows = () => db().select().from(auditLog).where(eq(auditLog.entity, "schedule_series"));
    const before = (await seriesRows()).filter((x) => x.entityId === String(second.data.series_id)).length;
    const emptied = beforeWriteDb(async () => expect((await api(`/v2/scheduled-sessions/${a}/cancel-rest`, { method: "POST", token: w.managerToken, body: {} })).status).toBe(200));
    const lost = await cancelRestOfSeries(await actorCtx(w.rbt, emptied), b!, "");
    expect(lost).toMatchObject({ ok: false, status: 422, errors: { from: "No scheduled session of this series is left on or after that date." } });
    // One audit row for the series: the other request's; none for the cancellation that changed nothing.
    const trail = (await seriesRows()).filter((x) => x.entityId === String(second.data.series_id));
    expect(trail.length - before).toBe(1);
    expect(trail.at(-1)!.actorId).toBe(w.manager.id);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("GET the range: notes and scheduled sessions at their local time; filters; another location's filter shows nothing (decision 017); 422 for a bad range", async () => {
    const c = await client();
    const date = nextOn(3, 40);
    await addNote(c.id, w.otherRbt.id, c.pa, date, "08:00", "08:30");
    await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "09:00", time_out: "10:00" });
    const before = await auditRows();
    const res = await api(`/v2/scheduled-sessions?from=${date}&to=${date}&patient_id=${c.id}`, { token: w.rbtToken });
    expect(res.status).toBe(200);
    const { data } = (await res.json()) as { data: { entries: { kind: string; time_in: string; time_zone: string }[] } };
    expect(data.entries.map((e) => [e.kind, e.time_in, e.time_zone])).toEqual([
      ["note", "08:00", ZONE],
      ["scheduled", "09:00", ZONE],
    ]);
    expect(await auditRows()).toBe(before + 1);
    const elsewhere = await api(`/v2/scheduled-sessions?from=${date}&to=${date}&location_id=${w.elsewhere}`, { token: w.rbtToken });
    expect(elsewhere.status).toBe(200);
    expect(((await elsewhere.json()) as { data: { entries: unknown[] } }).data.entries).toEqual([]);
    // Another location's client as a filter shows nothing (decision 017), not a 404.
    const outsider = await api(`/v2/scheduled-sessions?from=${date}&to=${date}&patient_id=${c.id}`, { token: w.outsiderToken });
    expect(outsider.status).toBe(200);
    expect(((await outsider.json()) as { data: { entries: unknown[] } }).data.entries).toEqual([]);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${addDays(date, -1)}`, { token: w.rbtToken })).status).toBe(422);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${addDays(date, 90)}`, { token: w.rbtToken })).status).toBe(422);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${date}`, { token: w.noPermToken })).status).toBe(403);
  });
});

describe("screens: /calendar/view, /calendar/schedule, /calendar/session/{id}", () => {
  it.each([
    ["8 minutes, 1 unit", 300, "09:08", "(8 minutes, 1 unit)"],
    ["1 minute, 0 units", 310, "09:01", "(1 minute, 0 units)"],
    ["an hour, 4 units", 320, "10:00", "(60 minutes, 4 units)"],
  ])("the session page counts %s in words that follow the number (probe 9042 L3)", async (_label, after, timeOut, words) => {
    const c = await client();
    const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(1, after), time_in: "09:00", time_out: timeOut })).json()) as Booked;
    const html = (await (await request(`/calendar/session/${booked.data.sessions[0]!.id}`, { cookie: w.rbtCookie })).text()).replace(/<!-- -->/g, "");
    expect(html).toContain(words);
  });

  it("the week view shows notes and scheduled sessions at the location's local time, with links; month and day too", async () => {
    const c = await client();
    const date = nextOn(2, 50);
    const noteId = await addNote(c.id, w.rbt.id, c.pa, date, "07:30", "08:00");
    const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "09:00", time_out: "10:00" })).json()) as Booked;
    const sid = booked.data.sessions[0]!.id;
    for (const view of ["week", "month", "day"]) {
      const res = await request(`/calendar/view?view=${view}&date=${date}&patient_id=${c.id}`, { cookie: w.rbtCookie });
      expect(res.status, view).toBe(200);
      const html = await res.text();
      expect(html).toContain(`href="/note-rbt/view/${noteId}"`);
      expect(html).toContain(`href="/calendar/session/${sid}"`);
      expect(html).toContain("09:00");
      if (view !== "month") expect(html).toContain("09:00–10:00");
      // The month view names the kinds in a visible key (the others in each entry's text): not by colour alone (probe 8923 L10).
      const key = /<ul class="cal-legend" aria-label="Key">[\s\S]*?<\/ul>/.exec(html)?.[0] ?? "";
      expect([view, key.includes('class="cal-entry cal-note"><span>Written note (its type first: RBT, BCBA or Combined)</span>'), key.includes('class="cal-entry cal-scheduled"><span>Scheduled session (dashed border)</span>')]).toEqual([view, view === "month", view === "month"]);
      if (view !== "month") expect(html).toMatch(/ · RBT note/);
      // The month's note entries name their type in visible text too, as the week and day views do (stop 30).
      else expect(html).toMatch(new RegExp(`href="/note-rbt/view/${noteId}"><span class="visually-hidden">RBT note on ${date}, </span><span class="cal-type" aria-hidden="true">RBT </span><span class="cal-time">07:30–08:00</span>`));
    }
    // Previous / next / today keep the filters.
    const html = await (await request(`/calendar/view?view=week&date=${date}&patient_id=${c.id}`, { cookie: w.rbtCookie })).text();
    // A combined note is labelled as every list labels it (NOTE_TYPE_LABELS), never "COMBINED note".
    const combinedId = await addNote(c.id, w.rbt.id, c.pa, date, "11:00", "11:30", "combined");
    for (const view of ["week", "month", "day"]) {
      const shown = await (await request(`/calendar/view?view=${view}&date=${date}&patient_id=${c.id}`, { cookie: w.rbtCookie })).text();
      expect(shown, view).not.toContain("COMBINED");
      if (view !== "month") expect(shown, view).toMatch(/ · Combined note/);
      else expect(shown).toMatch(new RegExp(`href="/note-combined/view/${combinedId}"><span class="visually-hidden">Combined note on ${date}, </span><span class="cal-type" aria-hidden="true">Combined </span>`));
    }
    expect(html).toMatch(new RegExp(`href="/calendar/view\\?view=week&amp;date=${addDays(date, -7)}&amp;patient_id=${c.id}"`));
  });

  it("a note with two time pairs shows both, not one span over its break (screen and API)", async () => {
    const c = await client();
    const date = nextOn(3, 50);
    const s1 = localMinute(date, "08:00")!;
    const [row] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: c.id, locationId: w.location, providerId: w.rbt.id, paServiceId: c.pa, cptCode: "97153", sessionDate: date, timeIn: "08:00", timeOut: "09:30", timeIn2: "10:45", timeOut2: "11:45", start1At: s1, end1At: s1 + 90, start2At: s1 + 165, end2At: s1 + 225, startAt: s1, endAt: s1 + 225, minutes: 150, units: 10 })
      .returning();
    const html = await (await request(`/calendar/view?view=day&date=${date}&patient_id=${c.id}`, { cookie: w.rbtCookie })).text();
    expect(html).toContain("08:00–09:30, 10:45–11:45");
    expect(html).not.toContain("08:00–11:45");
    const res = await api(`/v2/scheduled-sessions?from=${date}&to=${date}&patient_id=${c.id}`, { token: w.rbtToken });
    const entries = ((await res.json()) as { data: { entries: { id: number; kind: string; time_in: string; time_out: string; time_in2: string | null; time_out2: string | null }[] } }).data.entries;
    expect(entries.find((e) => e.kind === "note" && e.id === row!.id)).toMatchObject({ time_in: "08:00", time_out: "09:30", time_in2: "10:45", time_out2: "11:45" });
  });

  it("a month cell shows 4 sessions and '+N more' linking to the day; the API keeps per_day with each day's total", async () => {
    const c = await client();
    const date = nextOn(6, 50);
    for (const h of ["07", "09", "11", "13", "15"]) await addNote(c.id, w.otherRbt.id, c.pa, date, `${h}:00`, `${h}:30`);
    const html = await (await request(`/calendar/view?view=month&date=${date}&patient_id=${c.id}`, { cookie: w.rbtCookie })).text();
    expect(html).toContain("+1 more");
    expect(html).toContain(`href="/calendar/view?view=day&amp;date=${date}&amp;patient_id=${c.id}"`);
    const res = await api(`/v2/scheduled-sessions?from=${date}&to=${date}&patient_id=${c.id}&per_day=2`, { token: w.rbtToken });
    const { data } = (await res.json()) as { data: { entries: { time_in: string }[]; day_totals: Record<string, number>; truncated: boolean } };
    expect(data.entries.map((e) => e.time_in)).toEqual(["07:00", "09:00"]);
    expect(data.day_totals).toEqual({ [date]: 5 });
    expect(data.truncated).toBe(true);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${date}&per_day=0`, { token: w.rbtToken })).status).toBe(422);
  });

  it.each([
    ["before 1900", "0050-01-01", "0050-01-31"],
    ["in the year 9999, whose weeks and months step past the last day dates have (probe 8894, stop 25)", "9999-12-30", "9999-12-31"],
  ])("a date %s is refused like any bad date (API 422, screens 400/422), never a 500 (decision 017)", async (_label, date, last) => {
    const c = await client();
    const before = await scheduledCount(c.id);
    const range = await api(`/v2/scheduled-sessions?from=${date}&to=${last}`, { token: w.rbtToken });
    expect(range.status).toBe(422);
    expect(JSON.stringify(await range.json())).toContain("Enter a valid date (YYYY-MM-DD).");
    const booked = await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "12:00", time_out: "13:00" });
    expect(booked.status).toBe(422);
    const fields = { patient_id: String(c.id), provider_id: String(w.rbt.id), cpt_code: "97153", pa_service_id: String(c.pa), session_date: date, time_in: "12:00", time_out: "13:00", repeat: "once" };
    const screen = await form(`/calendar/schedule?patient_id=${c.id}`, fields, w.rbtCookie);
    expect(screen.status).toBe(422);
    expect(await screen.text()).toContain("Enter a valid date (YYYY-MM-DD).");
    for (const view of ["day", "week", "month"]) expect((await request(`/calendar/view?view=${view}&date=${last}`, { cookie: w.rbtCookie })).status).toBe(400);
    expect(await scheduledCount(c.id)).toBe(before);
  });

  it("the booking form sent twice (a resend after a slow answer): both answer the first booking's 303 and flash, one session (decision 037)", async () => {
    const c = await client();
    const page = await (await request(`/calendar/schedule?patient_id=${c.id}`, { cookie: w.rbtCookie })).text();
    const formToken = /name="form_token" value="([^"]+)"/.exec(page)?.[1];
    expect(formToken).toBeTruthy();
    const fields = { form_token: formToken!, patient_id: String(c.id), provider_id: String(w.rbt.id), cpt_code: "97153", pa_service_id: String(c.pa), session_date: nextOn(4, 150), time_in: "09:00", time_out: "10:00", repeat: "once" };
    const first = await form(`/calendar/schedule?patient_id=${c.id}`, fields, w.rbtCookie);
    const again = await form(`/calendar/schedule?patient_id=${c.id}`, fields, w.rbtCookie);
    expect([first.status, again.status]).toEqual([303, 303]);
    expect(again.headers.get("Location")).toBe(first.headers.get("Location"));
    expect(decodeURIComponent(first.headers.get("Location")!)).toContain("Session scheduled.");
    expect(await scheduledCount(c.id)).toBe(1);
    // A new load is a new token: the same booking again is the overlap it is.
    const fresh = /name="form_token" value="([^"]+)"/.exec(await (await request(`/calendar/schedule?patient_id=${c.id}`, { cookie: w.rbtCookie })).text())![1]!;
    expect((await form(`/calendar/schedule?patient_id=${c.id}`, { ...fields, form_token: fresh }, w.rbtCookie)).status).toBe(422);
    expect(await scheduledCount(c.id)).toBe(1);
  });

  it("403 without view_notes, nothing shown for another location's filter or client, 400 with the message for a bad date", async () => {
    const c = await client();
    expect((await request("/calendar/view", { cookie: w.noPermCookie })).status).toBe(403);
    const elsewhere = await request(`/calendar/view?location_id=${w.location}&view=day&date=${nextOn(3, 40)}`, { cookie: w.outsiderCookie });
    expect(elsewhere.status).toBe(200);
    const far = await request(`/calendar/view?patient_id=${c.id}`, { cookie: w.outsiderCookie });
    expect(far.status).toBe(200);
    expect(await far.text()).not.toContain("cal-entry");
    const bad = await request("/calendar/view?date=2026-02-31", { cookie: w.rbtCookie });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Enter a valid date (YYYY-MM-DD).");
  });

  it("books through the form without JavaScript (POST → 303 → calendar); bad input keeps the typed values and shows the message beside the field", async () => {
    const c = await client();
    const date = nextOn(4, 50);
    const page = await request(`/calendar/schedule?patient_id=${c.id}`, { cookie: w.rbtCookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Schedule a session for");
    expect((await request(`/calendar/schedule?patient_id=${c.id}`, { cookie: w.outsiderCookie })).status).toBe(404);
    expect((await request(`/calendar/schedule`, { cookie: w.noPermCookie })).status).toBe(403);
    const fields = { patient_id: String(c.id), provider_id: String(w.rbt.id), cpt_code: "97153", pa_service_id: String(c.pa), session_date: date, time_in: "11:00", time_out: "10:00", repeat: "weekly", until: addDays(date, 14) };
    const bad = await form(`/calendar/schedule?patient_id=${c.id}`, fields, w.rbtCookie);
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain("The time out must be after the time in.");
    expect(html).toContain('value="11:00"');
    expect(await scheduledCount(c.id)).toBe(0);
    expect((await form(`/calendar/schedule?patient_id=${c.id}`, { ...fields, time_out: "12:00" }, w.outsiderCookie)).status).toBe(404);
    const good = await form(`/calendar/schedule?patient_id=${c.id}`, { ...fields, time_out: "12:00" }, w.rbtCookie);
    expect(good.status).toBe(303);
    expect(good.headers.get("Location")).toContain(`/calendar/view?view=week&date=${date}`);
    expect(decodeURIComponent(good.headers.get("Location")!)).toContain("Weekly series scheduled: 3 sessions.");
    expect(await scheduledCount(c.id)).toBe(3);
  });

  it("a booking over the PA service's units: 'Session scheduled.' stays a success and the units warning is its own warning, JavaScript off and on (probe 8973 §3)", async () => {
    const c = await client(2);
    const date = nextOn(4, 130);
    const fields = { patient_id: String(c.id), provider_id: String(w.rbt.id), cpt_code: "97153", pa_service_id: String(c.pa), session_date: date, time_in: "08:00", time_out: "09:00", repeat: "once" };
    const booked = await form(`/calendar/schedule?patient_id=${c.id}`, fields, w.rbtCookie);
    expect(booked.status).toBe(303);
    const warning = "This session needs 4 units but the PA service has only 2 units left after the notes written and the sessions already scheduled.";
    const to = booked.headers.get("Location")!;
    // Without JavaScript: the redirect's tagged flash, rendered as two messages.
    const html = (await (await request(to, { cookie: w.rbtCookie })).text()).replaceAll("&#x27;", "'");
    expect(html).toContain('<p class="alert alert-success" role="status">Session scheduled.</p>');
    expect(html).toContain(`<p class="alert alert-warning" role="status">${warning}</p>`);
    expect(html).not.toMatch(/alert-success[^>]*>[^<]*This session needs/);
    // With JavaScript: the navigation's data request carries the two apart.
    const data = await (await request(to.replace("/calendar/view?", "/calendar/view.data?"), { cookie: w.rbtCookie })).text();
    expect(data).toContain('"Session scheduled."');
    expect(data).toContain(`"${warning}"`);
    // A booking with enough units left shows the success alone.
    const roomy = await client();
    const plain = await form(`/calendar/schedule?patient_id=${roomy.id}`, { ...fields, patient_id: String(roomy.id), pa_service_id: String(roomy.pa), time_in: "12:00", time_out: "13:00" }, w.rbtCookie);
    expect(plain.status).toBe(303);
    const page = await (await request(plain.headers.get("Location")!, { cookie: w.rbtCookie })).text();
    expect(page).toContain('<p class="alert alert-success" role="status">Session scheduled.</p>');
    expect(page).not.toContain("alert-warning");
  });

  it("a refused booking puts the focus on the first field in error, a select too (probe 8903)", async () => {
    const c = await client();
    const fields = { patient_id: String(c.id), provider_id: String(w.rbt.id), cpt_code: "97155", pa_service_id: String(c.pa), session_date: nextOn(3, 51), time_in: "09:00", time_out: "10:00", repeat: "once" };
    const refused = await form(`/calendar/schedule?patient_id=${c.id}`, fields, w.rbtCookie);
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain("does not cover CPT 97155");
    expect(html.match(/<(input|select|textarea)\b[^>]*autofocus[^>]*>/g)).toEqual([expect.stringMatching(/^<select[^>]*name="pa_service_id"/)]);
  });

  describe("the session screen's cancels ask first (decision 037, stop 37; probe 9001 L2)", () => {
    const statuses = async (seriesId: number) =>
      (await db().select().from(scheduledSessions).where(eq(scheduledSessions.seriesId, seriesId)).orderBy(scheduledSessions.sessionDate)).map((r) => r.status);
    const statusOf = async (id: number) => (await db().select().from(scheduledSessions).where(eq(scheduledSessions.id, id)))[0]!.status;
    const page = async (path: string, cookie = w.rbtCookie) => (await (await request(path, { cookie })).text()).replaceAll("&#x27;", "'");
    /** Audit rows of cancels (a page shown records its read; a cancel its change). */
    const cancelRows = async () => (await db().select({ n: count() }).from(auditLog).where(eq(auditLog.action, "cancel")))[0]!.n;
    const step = (html: string) => /<div class="alert alert-danger" role="alertdialog"[\s\S]*?<\/div>/.exec(html)?.[0] ?? null;

    it("'Cancel this session…': the first POST changes nothing and shows the step with the session's date and times; only its button cancels", async () => {
      const c = await client();
      const date = nextOn(5, 260);
      const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "16:00", time_out: "17:00" })).json()) as Booked;
      const id = booked.data.sessions[0]!.id;
      expect(await page(`/calendar/session/${id}`)).toContain("Cancel this session…");
      const before = await cancelRows();
      const first = await form(`/calendar/session/${id}`, { intent: "cancel" }, w.rbtCookie);
      expect(first.status).toBe(303);
      expect(first.headers.get("Location")).toBe(`/calendar/session/${id}?confirm=cancel#cancel-session`);
      expect(await statusOf(id)).toBe("scheduled");
      expect(await cancelRows()).toBe(before);
      const html = await page(`/calendar/session/${id}?confirm=cancel`);
      const dialog = step(html);
      expect(dialog).toContain(`Cancel the session of ${longDate(date)}, 16:00–17:00?`);
      expect(dialog).toContain("This action cannot be undone.");
      expect(dialog).toContain('name="confirmed" value="yes"');
      expect(dialog).toMatch(/>Yes, cancel the session<\/button>/);
      expect(dialog).toContain(`href="/calendar/session/${id}"`);
      expect(dialog).toContain("No, keep the session");
      // The way back shows the forms again, and nothing was cancelled.
      expect(step(await page(`/calendar/session/${id}`))).toBeNull();
      const confirmed = await form(`/calendar/session/${id}?confirm=cancel`, { intent: "cancel", confirmed: "yes" }, w.rbtCookie);
      expect(confirmed.status).toBe(303);
      expect(confirmed.headers.get("Location")).toContain(`/calendar/view?view=week&date=${date}&flash=${encodeURIComponent("Session cancelled.")}`);
      expect(await statusOf(id)).toBe("cancelled");
      // Cancelled: the step asks nothing and says why; a confirmed POST again is 422 with the message.
      const again = await page(`/calendar/session/${id}?confirm=cancel`);
      expect(step(again)).toBeNull();
      expect(again).toContain(SCHEDULE_MESSAGES.notScheduled);
      const twice = await form(`/calendar/session/${id}`, { intent: "cancel", confirmed: "yes" }, w.rbtCookie);
      expect(twice.status).toBe(422);
      expect(await twice.text()).toContain(SCHEDULE_MESSAGES.notScheduled);
    });

    it("'Cancel the rest of the series…': the step counts what the cancel cancels (not the cancelled or written ones), then the confirmed POST cancels exactly those", async () => {
      const c = await client();
      const d1 = nextOn(2, 220);
      const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: d1, time_in: "13:00", time_out: "14:00", repeat: "weekly", until: addDays(d1, 28) })).json()) as Booked;
      const ids = booked.data.sessions.map((x) => x.id);
      const seriesId = booked.data.series_id!;
      expect(ids).toHaveLength(5);
      // The third occurrence is cancelled on its own, the fifth written (its note's batch marks it).
      expect((await api(`/v2/scheduled-sessions/${ids[2]}/cancel`, { method: "POST", token: w.rbtToken })).status).toBe(200);
      await db().update(scheduledSessions).set({ status: "written" }).where(eq(scheduledSessions.id, ids[4]!));
      const d2 = addDays(d1, 7);
      const before = await cancelRows();
      const first = await form(`/calendar/session/${ids[0]}`, { intent: "cancel_rest", from: d2 }, w.rbtCookie);
      expect(first.status).toBe(303);
      expect(first.headers.get("Location")).toBe(`/calendar/session/${ids[0]}?confirm=cancel_rest&from=${d2}#cancel-session`);
      expect(await statuses(seriesId)).toEqual(["scheduled", "scheduled", "cancelled", "scheduled", "written"]);
      expect(await cancelRows()).toBe(before);
      const dialog = step(await page(`/calendar/session/${ids[0]}?confirm=cancel_rest&from=${d2}`));
      expect(dialog).toContain(`Cancel the 2 remaining sessions of this series from ${longDate(d2)}?`);
      expect(dialog).toContain(`name="from" value="${d2}"`);
      expect(dialog).toContain('name="confirmed" value="yes"');
      expect(dialog).toMatch(/>Yes, cancel 2 sessions<\/button>/);
      expect(dialog).toContain("No, keep them");
      // An empty date is the occurrence's own (the model's default too): 3 from the first date.
      const own = await form(`/calendar/session/${ids[0]}`, { intent: "cancel_rest", from: "" }, w.rbtCookie);
      expect(own.headers.get("Location")).toBe(`/calendar/session/${ids[0]}?confirm=cancel_rest&from=#cancel-session`);
      expect(step(await page(`/calendar/session/${ids[0]}?confirm=cancel_rest&from=`))).toContain(`Cancel the 3 remaining sessions of this series from ${longDate(d1)}?`);
      const confirmed = await form(`/calendar/session/${ids[0]}?confirm=cancel_rest&from=${d2}`, { intent: "cancel_rest", from: d2, confirmed: "yes" }, w.rbtCookie);
      expect(confirmed.status).toBe(303);
      expect(confirmed.headers.get("Location")).toContain(`/calendar/view?view=week&date=${d2}&flash=${encodeURIComponent("Rest of the series cancelled: 2 sessions.")}`);
      expect(await statuses(seriesId)).toEqual(["scheduled", "cancelled", "cancelled", "cancelled", "written"]);
      // Nothing left from that date: the step asks nothing and says so at the date, typed.
      const none = await page(`/calendar/session/${ids[0]}?confirm=cancel_rest&from=${d2}`);
      expect(step(none)).toBeNull();
      expect(none).toContain(`<p id="cancel-from-error" class="field-error" role="alert">${SCHEDULE_MESSAGES.nothingLeftInSeries}</p>`);
      expect(none).toMatch(new RegExp(`<input id="cancel-from"[^>]*value="${d2}"`));
    });

    it.each([
      ["not-a-date", "08:00"],
      ["2026-02-31", "10:00"],
      ["   ", "12:00"],
    ])("a bad date (%j) is said at its field with the value typed, before any step, and nothing changes", async (from, at) => {
      const c = await client();
      const d1 = nextOn(3, 200);
      const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: d1, time_in: at, time_out: `${Number(at.slice(0, 2)) + 1}:00`, repeat: "weekly", until: addDays(d1, 7) })).json()) as Booked;
      const id = booked.data.sessions[0]!.id;
      const before = await cancelRows();
      for (const fields of [{ intent: "cancel_rest", from }, { intent: "cancel_rest", from, confirmed: "yes" }] as Record<string, string>[]) {
        const res = await form(`/calendar/session/${id}`, fields, w.rbtCookie);
        expect(res.status).toBe(422);
        const html = await res.text();
        expect(html).toContain(`<p id="cancel-from-error" class="field-error" role="alert">${SCHEDULE_MESSAGES.cancelFrom}</p>`);
        expect(html).toMatch(new RegExp(`<input id="cancel-from"[^>]*value="${from}"`));
        expect(step(html)).toBeNull();
      }
      // The same date in the step's address asks nothing either.
      const viaStep = await page(`/calendar/session/${id}?confirm=cancel_rest&from=${encodeURIComponent(from)}`);
      expect(step(viaStep)).toBeNull();
      expect(viaStep).toContain(SCHEDULE_MESSAGES.cancelFrom);
      expect(await statuses(booked.data.series_id!)).toEqual(["scheduled", "scheduled"]);
      expect(await cancelRows()).toBe(before);
    });

    it("another location's session: its step is 404 and a confirmed cancel is 404, nothing changed; the step is one audited read (≤ 3 round trips)", async () => {
      const c = await client();
      const d1 = nextOn(4, 240);
      const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: d1, time_in: "16:00", time_out: "17:00", repeat: "weekly", until: addDays(d1, 21) })).json()) as Booked;
      const id = booked.data.sessions[0]!.id;
      for (const intent of ["cancel", "cancel_rest"]) {
        const first = await form(`/calendar/session/${id}`, { intent, from: d1 }, w.outsiderCookie);
        expect(first.status).toBe(303);
        expect((await request(first.headers.get("Location")!.split("#")[0]!, { cookie: w.outsiderCookie })).status).toBe(404);
        expect((await form(`/calendar/session/${id}`, { intent, from: d1, confirmed: "yes" }, w.outsiderCookie)).status).toBe(404);
      }
      expect(await statuses(booked.data.series_id!)).toEqual(["scheduled", "scheduled", "scheduled", "scheduled"]);
      // Another provider without manage_notes: the step asks nothing and says why.
      const other = await page(`/calendar/session/${id}?confirm=cancel_rest&from=${d1}`, await signInCookie(w.otherRbt));
      expect(step(other)).toBeNull();
      expect(other).toContain(SCHEDULE_MESSAGES.otherProvider);
      // The step's count rides in the session's read: guard, read, audit row.
      const before = await auditRows();
      const res = await countingWorker.fetch(
        new Request(`http://localhost/calendar/session/${id}?confirm=cancel_rest&from=${d1}`, { headers: { Cookie: w.rbtCookie } }) as Request<unknown, IncomingRequestCfProperties>,
        env,
        createExecutionContext(),
      );
      expect(res.status).toBe(200);
      expect(await res.text()).toContain(`Cancel the 4 remaining sessions of this series from ${longDate(d1)}?`);
      expect(Number(res.headers.get(D1_COUNT_HEADER)!.split(";")[1])).toBeLessThanOrEqual(3);
      expect(await auditRows()).toBe(before + 1);
    });
  });

  it("'Write the note' opens the note form filled in, and saving the note marks the session written", async () => {
    const c = await client();
    const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: addDays(today(), 1), time_in: "23:00", time_out: "23:45" })).json()) as Booked;
    const sid = booked.data.sessions[0]!.id;
    await toYesterday(sid);
    const date = yesterday();
    const page = await (await request(`/calendar/session/${sid}`, { cookie: w.rbtCookie })).text();
    const m = /href="(\/note-rbt\?[^"]+)"/.exec(page);
    expect(m).not.toBeNull();
    const href = m![1]!.replace(/&amp;/g, "&");
    const noteForm = await (await request(href, { cookie: w.rbtCookie })).text();
    expect(noteForm).toContain('value="23:00"');
    expect(noteForm).toContain('value="23:45"');
    expect(noteForm).toContain(`name="scheduled_id" value="${sid}"`);
    const saved = await form(`/note-rbt?patient_id=${c.id}`, { intent: "save", form_token: crypto.randomUUID(), type: "rbt", patient_id: String(c.id), provider_id: String(w.rbt.id), session_date: date, cpt_code: "97153", pa_service_id: String(c.pa), pos: "12", time_in: "23:00", time_out: "23:45", scheduled_id: String(sid) }, w.rbtCookie);
    expect(saved.status, await saved.clone().text().then((t) => t.slice(0, 400))).toBe(303);
    const noteId = Number(/\/note-rbt\/view\/(\d+)/.exec(saved.headers.get("Location") ?? "")![1]);
    const [row] = await db().select().from(scheduledSessions).where(eq(scheduledSessions.id, sid));
    expect(row).toMatchObject({ status: "written", noteId });
    // A written session leaves the calendar (its note is there instead).
    const cal = await (await request(`/calendar/view?view=day&date=${date}&patient_id=${c.id}`, { cookie: w.rbtCookie })).text();
    expect(cal).not.toContain(`/calendar/session/${sid}"`);
    expect(cal).toContain(`/note-rbt/view/${noteId}"`);
  });
});

describe("'Write the note' shows once the session has ended at its location (probe 8924 §3)", () => {
  it.each<[string, number, string, string, string | null]>([
    ["today, ended at 01:00", 0, "00:30", "01:00", null],
    ["today, ending at 23:45", 0, "23:00", "23:45", "today"],
    ["tomorrow", 1, "09:00", "10:00", "later"],
  ])("%s", async (_, offset, timeIn, timeOut, wait) => {
    // A zone where it is now 02:00 to 21:59 (real clock: the screen reads the Worker's), so each row holds at any hour.
    const zone = dayTimeZone();
    const here = await createLocation({ timeZone: zone });
    const rbt = await createUser({ permissions: ["view_notes"], locations: [here.id] });
    const patient = await createPatient({ locationId: here.id });
    const t = todayAtLocation(new Date(), zone);
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "RBT direct", cpt: "97153", nUnits: 400, startDate: addDays(t, -30), endDate: addDays(t, 30) }).returning();
    const date = addDays(t, offset);
    // Booked a day ahead and moved to its date: today's 00:30 has started, and a booking must not have (decision 037).
    const res = await book(await apiToken(rbt), { patient_id: patient.id, cpt_code: "97153", pa_service_id: pa!.id, session_date: addDays(date, 1), time_in: timeIn, time_out: timeOut });
    expect(res.status, await res.clone().text()).toBe(201);
    const sid = ((await res.json()) as Booked).data.sessions[0]!.id;
    await moveTo(sid, date);
    const page = await (await request(`/calendar/session/${sid}`, { cookie: await signInCookie(rbt) })).text();
    const hint = wait === "today" ? SCHEDULE_MESSAGES.noteOnceEnded(timeOut) : wait === "later" ? SCHEDULE_MESSAGES.noteOnceEndedOn(longDate(date), timeOut) : null;
    if (hint) {
      expect(page).toContain(hint);
      expect(page).not.toContain("Write the note");
      expect(page).not.toContain('href="/note-rbt?');
    } else {
      expect(page).toContain("Write the note");
      expect(page).toContain(`href="/note-rbt?patient_id=${patient.id}&amp;session_date=${date}`);
    }
    expect(page).not.toContain("on the day of the session");
  });
});

describe("'Write the note' follows the zone the note's save uses: the client's current location (probe 8925 §3)", () => {
  // Kiritimati is UTC+14 and Pago Pago UTC-11 (no daylight saving): 23:00–23:30 on `date` ends at 09:30 UTC that day
  // in Kiritimati and at 10:30 UTC the next day in Pago Pago. The date whose session has ended in Kiritimati and not
  // in Pago Pago: today (UTC) from 09:30 UTC, else yesterday.
  const EAST = "Pacific/Kiritimati";
  const WEST = "Pacific/Pago_Pago";
  const between = () => new Date(Date.now() - 570 * 60_000).toISOString().slice(0, 10);
  it.each<[string, string, string, boolean]>([
    ["booked where it has ended, client moved where it has not: the screen says when, the save refuses", EAST, WEST, false],
    ["booked where it has not ended, client moved where it has: the link shows, the save takes it", WEST, EAST, true],
  ])("%s", async (_, bookedZone, movedZone, writable) => {
    const booked = await createLocation({ timeZone: bookedZone });
    const moved = await createLocation({ timeZone: movedZone });
    const rbt = await createUser({ permissions: ["view_notes"], locations: [booked.id, moved.id] });
    const token = await apiToken(rbt);
    const patient = await createPatient({ locationId: booked.id });
    const date = between();
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "RBT direct", cpt: "97153", nUnits: 400, startDate: addDays(date, -30), endDate: addDays(date, 30) }).returning();
    const res = await book(token, { patient_id: patient.id, cpt_code: "97153", pa_service_id: pa!.id, session_date: addDays(date, 3), time_in: "23:00", time_out: "23:30" });
    expect(res.status, await res.clone().text()).toBe(201);
    const sid = ((await res.json()) as Booked).data.sessions[0]!.id;
    // The session back on `date` (booking takes today on only), then the client moves.
    await db().update(scheduledSessions).set({ sessionDate: date, startAt: localMinute(date, "23:00")!, endAt: localMinute(date, "23:30")! }).where(eq(scheduledSessions.id, sid));
    await db().update(patients).set({ locationId: moved.id }).where(eq(patients.id, patient.id));
    const page = await (await request(`/calendar/session/${sid}`, { cookie: await signInCookie(rbt) })).text();
    const save = await api("/v2/notes-rbt", { method: "POST", token, body: { patient_id: patient.id, provider_id: rbt.id, pa_service_id: pa!.id, cpt_code: "97153", session_date: date, time_in: "23:00", time_out: "23:30", pos: "12", diagnosis_code: "F84.0", scheduled_id: sid } });
    // The screen tells the same story as the link and the save (stop 30): booked on one clock, noted on the other.
    expect(page).toContain(`23:00–23:30 (${zonePlace(bookedZone)} time, as booked)`);
    expect(page).toContain(SCHEDULE_MESSAGES.noteInOtherZone("23:00", "23:30", movedZone));
    if (writable) {
      expect(page).toContain(`href="/note-rbt?patient_id=${patient.id}&amp;session_date=${date}`);
      expect(save.status, await save.clone().text()).toBe(201);
    } else {
      const hint = todayAtLocation(new Date(), movedZone) === date ? SCHEDULE_MESSAGES.noteOnceEnded("23:30") : SCHEDULE_MESSAGES.noteOnceEndedOn(longDate(date), "23:30");
      expect(page).toContain(hint);
      expect(page).not.toContain('href="/note-rbt?');
      expect(save.status).toBe(422);
      expect(await db().select({ id: notes.id }).from(notes).where(eq(notes.patientId, patient.id))).toHaveLength(0);
    }
  });
});

describe("a note written for a scheduled session marks it written in the note's own batch (decision 037)", () => {
  async function rbtOf() {
    const user = await createUser({ permissions: ["view_notes"], locations: [w.location] });
    return { user, token: await apiToken(user) };
  }
  const noteBody = (c: { id: number; pa: number }, providerId: number, date: string, timeIn: string, timeOut: string, over: Record<string, unknown> = {}) => ({
    patient_id: c.id,
    provider_id: providerId,
    pa_service_id: c.pa,
    cpt_code: "97153",
    session_date: date,
    time_in: timeIn,
    time_out: timeOut,
    pos: "12",
    diagnosis_code: "F84.0",
    ...over,
  });
  /** A session booked tomorrow and moved to yesterday (toYesterday): one that has taken place. */
  async function bookedYesterday(token: string, c: { id: number; pa: number }, timeIn: string, timeOut: string) {
    const res = await book(token, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: addDays(today(), 1), time_in: timeIn, time_out: timeOut });
    expect(res.status).toBe(201);
    const id = ((await res.json()) as Booked).data.sessions[0]!.id;
    await toYesterday(id);
    return id;
  }
  const sessionRow = async (id: number) => (await db().select().from(scheduledSessions).where(eq(scheduledSessions.id, id)))[0]!;
  const notesOf = async (patientId: number) => db().select({ id: notes.id }).from(notes).where(eq(notes.patientId, patientId));

  it("deleting the note puts its session back on the calendar, scheduled, to be written again (probe 8894, stop 25)", async () => {
    const c = await client();
    const r = await rbtOf();
    const manager = await apiToken(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [w.location] }));
    const sid = await bookedYesterday(r.token, c, "05:00", "05:30");
    const res = await api("/v2/notes-rbt", { method: "POST", token: r.token, body: noteBody(c, r.user.id, yesterday(), "05:00", "05:30", { scheduled_id: sid }) });
    expect(res.status).toBe(201);
    const noteId = ((await res.json()) as { data: { id: number } }).data.id;
    expect(await sessionRow(sid)).toMatchObject({ status: "written", noteId });
    expect((await api(`/v2/notes-rbt/${noteId}`, { method: "DELETE", token: manager })).status).toBe(200);
    expect(await sessionRow(sid)).toMatchObject({ status: "scheduled", noteId: null, version: 3 });
    // It is written again from the calendar like any scheduled session.
    const again = await api("/v2/notes-rbt", { method: "POST", token: r.token, body: noteBody(c, r.user.id, yesterday(), "05:00", "05:30", { scheduled_id: sid }) });
    expect(again.status).toBe(201);
    expect(await sessionRow(sid)).toMatchObject({ status: "written", noteId: ((await again.json()) as { data: { id: number } }).data.id });
    // A refused delete (another provider's note without manage_notes) leaves the session written.
    expect((await api(`/v2/notes-rbt/${noteId}`, { method: "DELETE", token: r.token })).status).toBeGreaterThanOrEqual(403);
    expect((await sessionRow(sid)).status).toBe("written");
  });

  it("a note whose date was edited after it was written still gives its session back when deleted (probe 8895, stop 25)", async () => {
    const c = await client();
    const r = await rbtOf();
    const manager = await apiToken(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [w.location] }));
    const sid = await bookedYesterday(r.token, c, "04:00", "04:30");
    const res = await api("/v2/notes-rbt", { method: "POST", token: r.token, body: noteBody(c, r.user.id, yesterday(), "04:00", "04:30", { scheduled_id: sid }) });
    expect(res.status).toBe(201);
    const noteId = ((await res.json()) as { data: { id: number } }).data.id;
    const moved = await api(`/v2/notes-rbt/${noteId}`, { method: "PATCH", token: r.token, body: { session_date: addDays(today(), -2), time_in: "04:10", time_out: "04:40" } });
    expect(moved.status, await moved.clone().text()).toBe(200);
    expect((await api(`/v2/notes-rbt/${noteId}`, { method: "DELETE", token: manager })).status).toBe(200);
    expect(await sessionRow(sid)).toMatchObject({ status: "scheduled", noteId: null });
  });

  /**
   * A session written at 08:00–09:00 yesterday whose note was then moved to 10:00–11:00, so the slot looked free and
   * something was booked or written there (probe 9001 M1). Answers the session, the note and the manager's token.
   */
  async function writtenThenMoved() {
    const c = await client();
    const r = await rbtOf();
    const manager = await apiToken(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [w.location] }));
    const sid = await bookedYesterday(r.token, c, "08:00", "09:00");
    const res = await api("/v2/notes-rbt", { method: "POST", token: r.token, body: noteBody(c, r.user.id, yesterday(), "08:00", "09:00", { scheduled_id: sid }) });
    expect(res.status).toBe(201);
    const noteId = ((await res.json()) as { data: { id: number } }).data.id;
    const moved = await api(`/v2/notes-rbt/${noteId}`, { method: "PATCH", token: r.token, body: { time_in: "10:00", time_out: "11:00" } });
    expect(moved.status, await moved.clone().text()).toBe(200);
    return { c, r, manager, sid, noteId };
  }
  const lastAudit = async () => (await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1))[0]!;
  /** The other days of yesterday's Sunday–Saturday week. */
  const restOfWeek = () => {
    const y = yesterday();
    const sunday = addDays(y, -((((dayNumber(y)! + 4) % 7) + 7) % 7));
    return Array.from({ length: 7 }, (_, i) => addDays(sunday, i)).filter((d) => d !== y);
  };

  // What lands in the session's place after its note moved → the session on the note's delete (decision 037, 2026-11-28).
  it.each<[string, (x: Awaited<ReturnType<typeof writtenThenMoved>>) => Promise<unknown>, string | null, string | null]>([
    ["nothing: it still fits", async () => undefined, null, null],
    ["the same slot booked again for the client and provider", async (x) => bookedYesterday(x.r.token, x.c, "08:00", "09:00"), NOTE_MESSAGES.clientOverlap("08:00", "09:00"), "client_overlap"],
    ["another provider's note of the client at 08:30", async (x) => addNote(x.c.id, w.otherRbt.id, x.c.pa, yesterday(), "08:30", "09:30"), NOTE_MESSAGES.clientOverlap("08:30", "09:30"), "client_overlap"],
    [
      "the provider's note of another client at 07:30",
      async (x) => {
        const other = await client();
        return addNote(other.id, x.r.user.id, other.pa, yesterday(), "07:30", "08:30");
      },
      NOTE_MESSAGES.providerOverlap("07:30", "08:30"),
      "provider_overlap",
    ],
    [
      "the provider's note of another client ending 5 minutes before",
      async (x) => {
        const other = await client();
        return addNote(other.id, x.r.user.id, other.pa, yesterday(), "07:00", "07:55");
      },
      NOTE_MESSAGES.providerBuffer("07:00", "07:55", 15),
      "provider_buffer",
    ],
    ["9 h 30 of the client's notes that day", async (x) => addNote(x.c.id, w.otherRbt.id, x.c.pa, yesterday(), "11:00", "20:30"), NOTE_MESSAGES.dayCap(10), "day_cap"],
    [
      "40 h of the client's notes on the week's other days",
      async (x) => {
        for (const d of restOfWeek().slice(0, 5)) await addNote(x.c.id, w.otherRbt.id, x.c.pa, d, "09:00", "17:00");
      },
      NOTE_MESSAGES.weekCap(40),
      "week_cap",
    ],
  ])("the API delete of a note whose session meets %s", async (_, meanwhile, why, rule) => {
    const x = await writtenThenMoved();
    await meanwhile(x);
    const res = await api(`/v2/notes-rbt/${x.noteId}`, { method: "DELETE", token: x.manager });
    expect(res.status).toBe(200);
    const { message } = (await res.json()) as { message: string };
    const row = await sessionRow(x.sid);
    const detail = JSON.parse((await lastAudit()).detail!);
    if (why === null) {
      expect(message).toBe("Note deleted.");
      expect(row).toMatchObject({ status: "scheduled", noteId: null, version: 3 });
      expect(detail).toMatchObject({ scheduled_id: x.sid, scheduled: "scheduled" });
    } else {
      expect(message).toBe(`Note deleted. Its scheduled session at 08:00–09:00 on ${yesterday()} no longer fits the schedule and was cancelled: ${why}`);
      expect(row).toMatchObject({ status: "cancelled", noteId: null, version: 3 });
      expect(detail).toMatchObject({ scheduled_id: x.sid, scheduled: "cancelled", cancelled_because: rule });
    }
    expect((await db().select().from(notes).where(eq(notes.id, x.noteId)))[0]!.deletedAt).not.toBeNull();
    // Never two sessions of the client at once on the schedule.
    const live = await db().select().from(scheduledSessions).where(eq(scheduledSessions.patientId, x.c.id));
    expect(live.filter((s) => s.status === "scheduled" && s.timeIn === "08:00" && s.sessionDate === yesterday()).length).toBeLessThanOrEqual(1);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("the screen's delete of such a note says on the client's list that its session was cancelled, and why", async () => {
    const x = await writtenThenMoved();
    await bookedYesterday(x.r.token, x.c, "08:00", "09:00");
    const manager = await signInCookie(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [w.location] }));
    const res = await form(`/note-rbt/view/${x.noteId}?confirm=delete`, { intent: "delete", confirmed: "yes" }, manager);
    expect(res.status).toBe(303);
    const to = res.headers.get("Location")!;
    expect(to).toMatch(new RegExp(`^/note-rbt/listbyclient/${x.c.id}\\?flash=`));
    const page = await (await request(to, { cookie: manager })).text();
    expect(page).toContain("Note deleted.");
    expect(page).toContain(`Its scheduled session at 08:00–09:00 on ${yesterday()} no longer fits the schedule and was cancelled: The client already has a session from 08:00 to 09:00 that overlaps this time.`);
    expect(await sessionRow(x.sid)).toMatchObject({ status: "cancelled", noteId: null });
  });

  it("the screen's delete of a note whose session still fits gives it back, with no message added", async () => {
    const x = await writtenThenMoved();
    const manager = await signInCookie(await createUser({ permissions: ["view_notes", "manage_notes"], locations: [w.location] }));
    const res = await form(`/note-rbt/view/${x.noteId}?confirm=delete`, { intent: "delete", confirmed: "yes" }, manager);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`/note-rbt/listbyclient/${x.c.id}`);
    expect(await sessionRow(x.sid)).toMatchObject({ status: "scheduled", noteId: null });
  });

  it("a booking that lands in the slot between the delete's read and its write: the delete reads again and cancels the session", async () => {
    const x = await writtenThenMoved();
    const manager = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [w.location] });
    let taken = 0;
    const { db: racing, batches } = interleavedDb(1, async () => {
      taken = await bookedYesterday(x.r.token, x.c, "08:00", "09:00");
    });
    const result = await deleteNote(await actorCtx(manager, racing), "rbt", x.noteId);
    expect(result).toMatchObject({ ok: true, message: `Note deleted. Its scheduled session at 08:00–09:00 on ${yesterday()} no longer fits the schedule and was cancelled: ${NOTE_MESSAGES.clientOverlap("08:00", "09:00")}` });
    expect(batches()).toBe(4); // the session's reads, write (chain race: rolled back whole), read again, write
    expect(await sessionRow(x.sid)).toMatchObject({ status: "cancelled", noteId: null });
    expect(await sessionRow(taken)).toMatchObject({ status: "scheduled" });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("a note delete through the API: 4 round trips when a scheduled session was written from it (its reads), else 3", async () => {
    const x = await writtenThenMoved();
    const res = await countingWorker.fetch(
      new Request(`http://localhost/api/v2/notes-rbt/${x.noteId}`, { method: "DELETE", headers: { Authorization: `Bearer ${x.manager}` } }) as Request<unknown, IncomingRequestCfProperties>,
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(200);
    const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
    expect(roundTrips).toBeLessThanOrEqual(4);
    expect(await sessionRow(x.sid)).toMatchObject({ status: "scheduled" });
    const plain = await addNote(x.c.id, x.r.user.id, x.c.pa, addDays(today(), -3), "08:00", "09:00");
    const res2 = await countingWorker.fetch(
      new Request(`http://localhost/api/v2/notes-rbt/${plain}`, { method: "DELETE", headers: { Authorization: `Bearer ${x.manager}` } }) as Request<unknown, IncomingRequestCfProperties>,
      env,
      createExecutionContext(),
    );
    expect(res2.status).toBe(200);
    expect(Number(res2.headers.get(D1_COUNT_HEADER)!.split(";")[1])).toBeLessThanOrEqual(3);
  });

  it("the note saved through the API marks the session written with its note, in 3 round trips and one audit row naming the session", async () => {
    const c = await client();
    const r = await rbtOf();
    const sid = await bookedYesterday(r.token, c, "06:00", "07:00");
    const before = await auditRows();
    const res = await countingWorker.fetch(
      new Request("http://localhost/api/v2/notes-rbt", {
        method: "POST",
        headers: { Authorization: `Bearer ${r.token}`, "Content-Type": "application/json" },
        body: JSON.stringify(noteBody(c, r.user.id, yesterday(), "06:00", "07:00", { scheduled_id: sid })),
      }) as Request<unknown, IncomingRequestCfProperties>,
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(201);
    const noteId = ((await res.json()) as { data: { id: number } }).data.id;
    const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
    expect(roundTrips).toBeLessThanOrEqual(3);
    expect(await sessionRow(sid)).toMatchObject({ status: "written", noteId, version: 2 });
    expect(await auditRows()).toBe(before + 1);
    const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(last).toMatchObject({ action: "create", entity: "note", entityId: String(noteId) });
    expect(JSON.parse(last!.detail!)).toMatchObject({ scheduled_id: sid });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("a refused note (overlap) marks nothing: the session stays scheduled", async () => {
    const c = await client();
    const r = await rbtOf();
    const sid = await bookedYesterday(r.token, c, "05:00", "06:00");
    await addNote(c.id, w.otherRbt.id, c.pa, yesterday(), "05:30", "06:30");
    const res = await api("/v2/notes-rbt", { method: "POST", token: r.token, body: noteBody(c, r.user.id, yesterday(), "05:00", "06:00", { scheduled_id: sid }) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.time_in).toBe("The client already has a session from 05:30 to 06:30 that overlaps this time.");
    expect(await sessionRow(sid)).toMatchObject({ status: "scheduled", noteId: null, version: 1 });
  });

  it("another client's session, another location's, none such or a malformed id: 422 on scheduled_id, no note, nothing marked", async () => {
    const a = await client();
    const b = await client();
    const r = await rbtOf();
    const sid = await bookedYesterday(r.token, a, "04:00", "05:00");
    // A session of another location (booked there by its own staff).
    const far = await createPatient({ locationId: w.elsewhere });
    const farDay = todayAtLocation(new Date(), "America/New_York");
    const [farPa] = await db().insert(paServices).values({ patientId: far.id, paService: "RBT", cpt: "97153", nUnits: 400, startDate: addDays(farDay, -5), endDate: addDays(farDay, 30) }).returning();
    const farBooked = await book(w.outsiderToken, { patient_id: far.id, cpt_code: "97153", pa_service_id: farPa!.id, session_date: addDays(farDay, 1), time_in: "04:00", time_out: "05:00" });
    expect(farBooked.status).toBe(201);
    const farSid = ((await farBooked.json()) as Booked).data.sessions[0]!.id;
    const before = await auditRows();
    for (const [scheduledId, message] of [
      [sid, "The scheduled session is another client's."],
      [farSid, "The scheduled session was not found."],
      [999999999, "The scheduled session was not found."],
      ["12x", "The scheduled session was not found."],
    ] as const) {
      const res = await api("/v2/notes-rbt", { method: "POST", token: r.token, body: noteBody(b, r.user.id, yesterday(), "04:00", "05:00", { scheduled_id: scheduledId }) });
      expect(res.status, String(scheduledId)).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors.scheduled_id).toBe(message);
    }
    expect(await notesOf(b.id)).toHaveLength(0);
    expect(await sessionRow(sid)).toMatchObject({ status: "scheduled", version: 1 });
    expect(await sessionRow(farSid)).toMatchObject({ status: "scheduled", version: 1 });
    expect(await auditRows()).toBe(before);
  });

  it("a colleague's session, or the session of another date, cannot be marked written by a note: 422 on scheduled_id, nothing changed", async () => {
    const c = await client();
    const mine = await rbtOf();
    const colleague = await rbtOf();
    const theirs = await bookedYesterday(colleague.token, c, "02:00", "02:30");
    const own = await bookedYesterday(mine.token, c, "03:00", "03:30");
    const before = await auditRows();
    const other = await api("/v2/notes-rbt", { method: "POST", token: mine.token, body: noteBody(c, mine.user.id, yesterday(), "03:00", "03:30", { scheduled_id: theirs }) });
    expect(other.status).toBe(422);
    expect(((await other.json()) as { errors: Record<string, string> }).errors.scheduled_id).toBe("The scheduled session is another provider's: the note for it is written by its provider.");
    const elsewhen = await api("/v2/notes-rbt", { method: "POST", token: mine.token, body: noteBody(c, mine.user.id, addDays(today(), -2), "03:00", "03:30", { scheduled_id: own }) });
    expect(elsewhen.status).toBe(422);
    expect(((await elsewhen.json()) as { errors: Record<string, string> }).errors.scheduled_id).toBe(`The scheduled session is on ${yesterday()}: write its note for that date.`);
    expect(await notesOf(c.id)).toHaveLength(0);
    expect(await sessionRow(theirs)).toMatchObject({ status: "scheduled", version: 1 });
    expect(await sessionRow(own)).toMatchObject({ status: "scheduled", version: 1 });
    expect(await auditRows()).toBe(before);
  });

  it("the form: another client's session is refused with the message and dropped from the form, so saving again saves the note alone", async () => {
    const a = await client();
    const b = await client();
    const sid = await bookedYesterday(w.rbtToken, a, "03:00", "03:45");
    const fields = { intent: "save", type: "rbt", patient_id: String(b.id), provider_id: String(w.rbt.id), session_date: yesterday(), cpt_code: "97153", pa_service_id: String(b.pa), pos: "12", time_in: "03:00", time_out: "03:45" };
    const refused = await form(`/note-rbt?patient_id=${b.id}`, { ...fields, form_token: crypto.randomUUID(), scheduled_id: String(sid) }, w.rbtCookie);
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain("The scheduled session is another client&#x27;s.");
    expect(html).not.toContain('name="scheduled_id"');
    expect(await notesOf(b.id)).toHaveLength(0);
    const saved = await form(`/note-rbt?patient_id=${b.id}`, { ...fields, form_token: crypto.randomUUID() }, w.rbtCookie);
    expect(saved.status).toBe(303);
    expect(await notesOf(b.id)).toHaveLength(1);
    expect(await sessionRow(sid)).toMatchObject({ status: "scheduled" });
  });
});

describe("/calendar (platform §2: calendar, calendar/view)", () => {
  it("goes to the calendar view with the same filters; 403 without view_notes and for a parent (not the 404 page)", async () => {
    const res = await request(`/calendar?view=month&location_id=${w.location}`, { cookie: w.rbtCookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`/calendar/view?view=month&location_id=${w.location}`);
    const page = await request(res.headers.get("Location")!, { cookie: w.rbtCookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<h1>Calendar</h1>");
    expect((await request("/calendar", { cookie: w.noPermCookie })).status).toBe(403);
    expect((await request("/calendar", { cookie: await signInCookie(await createParent(), true) })).status).toBe(403);
  });
});

describe("the calendar's today is the chosen location's (issue 12: each location's time zone)", () => {
  type CalendarData = { today: string; grid: { date: string; from: string; to: string } };
  const route = (build as unknown as { routes: Record<string, { module: { loader: (args: unknown) => Promise<unknown> } }> }).routes["routes/_app.calendar.view"]!;

  it("with a fixed clock where Denver's and Auckland's dates differ: the default grid, the Today link and the highlight follow the chosen location", async () => {
    const auckland = await createLocation({ timeZone: "Pacific/Auckland" });
    // The viewer's own (primary) location is Denver's.
    const viewer = await createUser({ permissions: ["view_notes"], locations: [w.location, auckland.id] });
    const cookie = await signInCookie(viewer);
    // 2026-03-10 11:30 UTC: 04:30 on the 10th in Denver, 00:30 on the 11th in Auckland (a past instant, so the session is fresh).
    const fixed = new Date("2026-03-10T11:30:00Z");
    const load = async (query: string): Promise<CalendarData> => {
      const out = await route.module.loader({ request: new Request(`http://localhost/calendar/view${query}`, { headers: { Cookie: cookie } }), params: {}, context: { app: { db: db(), now: () => fixed, ip: "127.0.0.1" } } });
      return (out as { data: CalendarData }).data;
    };
    // No location chosen: the viewer's today.
    expect(await load("?view=day")).toMatchObject({ today: "2026-03-10", grid: { date: "2026-03-10" } });
    // Auckland chosen, no date: Auckland's today is the grid, the Today link's date and the highlighted date.
    expect(await load(`?view=day&location_id=${auckland.id}`)).toMatchObject({ today: "2026-03-11", grid: { date: "2026-03-11" } });
    // A date asked for: that grid, and Today is still Auckland's.
    expect(await load(`?view=week&date=2026-03-01&location_id=${auckland.id}`)).toMatchObject({ today: "2026-03-11", grid: { from: "2026-03-01", to: "2026-03-07" } });
    // Denver chosen: Denver's.
    expect(await load(`?view=day&location_id=${w.location}`)).toMatchObject({ today: "2026-03-10", grid: { date: "2026-03-10" } });
  });

  it("the location's today comes with the range's batch: the dates around it are read and only its grid is shown and audited", async () => {
    const auckland = await createLocation({ timeZone: "Pacific/Auckland" });
    const viewer = await createUser({ permissions: ["view_notes"], locations: [w.location, auckland.id] });
    const cookie = await signInCookie(viewer);
    const [yesterdays, todays] = [await createPatient({ locationId: auckland.id }), await createPatient({ locationId: auckland.id })];
    // 2026-03-10 11:30 UTC: the 10th in Denver (the viewer's zone), the 11th in Auckland.
    const fixed = new Date("2026-03-10T11:30:00Z");
    // And one on Auckland's real today, so the Worker's pages below show (and audit) an entry.
    const now = todayAtLocation(new Date(), "Pacific/Auckland");
    for (const [patient, date] of [[yesterdays, "2026-03-10"], [todays, "2026-03-11"], [todays, now]] as const) {
      const s = dayNumber(date)! * 1440 + 540;
      await db().insert(notes).values({ type: "rbt", patientId: patient.id, locationId: auckland.id, providerId: viewer.id, providerName: "", cptCode: "97153", sessionDate: date, timeIn: "09:00", timeOut: "10:00", start1At: s, end1At: s + 60, startAt: s, endAt: s + 60, minutes: 60, units: 4, status: "pending" });
    }
    type Loaded = { today: string; grid: { date: string }; cells: Record<string, unknown[]>; dayTotals: Record<string, number>; truncated: boolean };
    const out = await route.module.loader({ request: new Request(`http://localhost/calendar/view?view=day&location_id=${auckland.id}`, { headers: { Cookie: cookie } }), params: {}, context: { app: { db: db(), now: () => fixed, ip: "127.0.0.1" } } });
    const data = (out as { data: Loaded }).data;
    expect(data).toMatchObject({ today: "2026-03-11", grid: { date: "2026-03-11" }, dayTotals: { "2026-03-11": 1 }, truncated: false });
    expect(Object.keys(data.cells)).toEqual(["2026-03-11"]);
    expect(data.dayTotals["2026-03-10"]).toBeUndefined();
    const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(last).toMatchObject({ entity: "calendar", patientId: todays.id });

    // Through the Worker (today's clock): the session, the one batch, the audit row (the zone read alone made it 4).
    for (const query of [`?location_id=${auckland.id}`, `?view=month&location_id=${auckland.id}`, `?view=day&location_id=${auckland.id}`, `?view=day&location_id=${w.location}`]) {
      const before = await auditRows();
      const res = await countingWorker.fetch(new Request(`http://localhost/calendar/view${query}`, { headers: { Cookie: cookie } }) as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
      expect(res.status, query).toBe(200);
      expect(Number(res.headers.get(D1_COUNT_HEADER)!.split(";")[1]), query).toBeLessThanOrEqual(3);
      if (query.includes(String(auckland.id))) expect(await auditRows(), query).toBe(before + 1);
    }
  });
});

describe("upcomingSessionsQuery (the parent portal's next sessions)", () => {
  it("answers a client's next scheduled sessions from a local minute on, at most `limit`, in order, naming the provider by first name only", async () => {
    const parent = await createParent();
    const own = await createPatient({ locationId: w.location, parentId: parent.id });
    const [pa] = await db().insert(paServices).values({ patientId: own.id, paService: "RBT", cpt: "97153", nUnits: 1000, startDate: addDays(today(), -1), endDate: addDays(today(), 200) }).returning();
    const first = nextOn(1, 60);
    await book(w.rbtToken, { patient_id: own.id, cpt_code: "97153", pa_service_id: pa!.id, session_date: first, time_in: "10:00", time_out: "11:00", repeat: "weekly", until: addDays(first, 21) });
    const cancelled = (await (await api(`/v2/scheduled-sessions?from=${first}&to=${first}&patient_id=${own.id}`, { token: w.rbtToken })).json()) as { data: { entries: { id: number }[] } };
    await api(`/v2/scheduled-sessions/${cancelled.data.entries[0]!.id}/cancel`, { method: "POST", token: w.rbtToken });
    const actor = (await getActor(db(), "parent", parent.id))!;
    const ctx = { db: db(), actor, ip: "127.0.0.1", now: () => new Date() };
    const fromToday = (dayNumber(today()) ?? 0) * 1440;
    const next = await upcomingSessionsQuery(ctx, own.id, fromToday, 2);
    expect(next.map((s) => [s.session_date, s.time_in, s.time_out])).toEqual([
      [addDays(first, 7), "10:00", "11:00"],
      [addDays(first, 14), "10:00", "11:00"],
    ]);
    // No CPT code (decision 040: never answered to a parent).
    expect(Object.keys(next[0]!).sort()).toEqual(["id", "provider_first_name", "session_date", "time_in", "time_out"]);
    // From after the last occurrence: nothing.
    expect(await upcomingSessionsQuery(ctx, own.id, (dayNumber(addDays(first, 22)) ?? 0) * 1440, 5)).toEqual([]);
  });
});

describe("the month grid names each session's zone when its locations span several (probe, stop 24)", () => {
  it("a Los Angeles and a Miami session on one day: each entry shows its place beside its time, as the page's hint says", async () => {
    const east = await createLocation({ timeZone: "America/New_York" });
    const west = await createLocation({ timeZone: "America/Los_Angeles" });
    const viewer = await createUser({ permissions: ["view_notes"], locations: [east.id, west.id] });
    const date = "2026-11-30";
    for (const [loc, timeIn, timeOut] of [[east, "13:00", "15:00"], [west, "10:00", "12:00"]] as const) {
      const patient = await createPatient({ locationId: loc.id });
      await db().insert(notes).values({ type: "rbt", patientId: patient.id, locationId: loc.id, providerId: viewer.id, cptCode: "97153", sessionDate: date, timeIn, timeOut, minutes: 120, units: 8 });
    }
    const cookie = await signInCookie(viewer);
    const both = await (await request(`/calendar/view?view=month&date=${date}`, { cookie })).text();
    expect(both).toContain('<span class="cal-time">10:00–12:00</span><span class="cal-zone"> (Los Angeles)</span>');
    expect(both).toContain('<span class="cal-time">13:00–15:00</span><span class="cal-zone"> (New York)</span>');
    // The page says so: the zone is beside each session whenever the hint promises it.
    expect(both).toContain("its time zone is shown beside each session");
  });
});
