import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, notes, paServices, scheduledSessions, scheduleSeries } from "~/db/schema";
import { localMinute } from "~/domain/note-rules";
import { todayAtLocation } from "~/domain/pa-pacing";
import { addDays, dayNumber, weekdayOfDay } from "~/domain/weeks";
import { getActor } from "~/models/actors.server";
import { upcomingSessionsQuery } from "~/models/schedule.server";
import { api, apiToken, createLocation, createParent, createPatient, createUser, db, form, request, signInCookie, type TestUser } from "./helpers";

/**
 * Scheduled sessions and the calendar (issue 12, decision 037): the API (book one-off and weekly, cancel one,
 * cancel the rest, the range) and the screens (/calendar/view, /calendar/schedule): allowed, 403, another
 * location 404, bad input 4xx with nothing changed, and the notes' rules over notes AND scheduled sessions.
 */

const ZONE = "America/Denver";
const today = () => todayAtLocation(new Date(), ZONE);
/** The next date (after today + `after` days) that falls on `weekday` (0 = Sunday). */
function nextOn(weekday: number, after = 1): string {
  let d = addDays(today(), after);
  while (weekdayOfDay(dayNumber(d)!) !== weekday) d = addDays(d, 1);
  return d;
}

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

async function addNote(patientId: number, providerId: number, paServiceId: number, date: string, timeIn: string, timeOut: string) {
  const s = localMinute(date, timeIn)!;
  const e = localMinute(date, timeOut)!;
  const [row] = await db()
    .insert(notes)
    .values({ type: "rbt", patientId, locationId: w.location, providerId, paServiceId, cptCode: "97153", sessionDate: date, timeIn, timeOut, start1At: s, end1At: e, startAt: s, endAt: e, minutes: e - s, units: Math.floor((e - s) / 15) })
    .returning();
  return row!.id;
}

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

  it("without view_notes: 403; for another provider without manage_notes: 403; another location's client: 404 — nothing booked", async () => {
    const c = await client();
    const body = { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(4), time_in: "09:00", time_out: "10:00" };
    expect((await book(w.noPermToken, body)).status).toBe(403);
    const other = await book(w.rbtToken, { ...body, provider_id: w.otherRbt.id });
    expect(other.status).toBe(403);
    expect(((await other.json()) as { message: string }).message).toMatch(/manage_notes/);
    expect((await book(w.outsiderToken, body)).status).toBe(404);
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
    expect(body.warning).toBe("These sessions need 16 units but the PA service has only 10 units left after the notes written and the sessions already scheduled.");
    expect(await scheduledCount(c.id)).toBe(2);
  });
});

describe("cancel one, cancel the rest, and the range", () => {
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

  it("GET the range: notes and scheduled sessions at their local time; filters; 404 for another location; 422 for a bad range", async () => {
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
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${date}&location_id=${w.elsewhere}`, { token: w.rbtToken })).status).toBe(404);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${date}&patient_id=${c.id}`, { token: w.outsiderToken })).status).toBe(404);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${addDays(date, -1)}`, { token: w.rbtToken })).status).toBe(422);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${addDays(date, 90)}`, { token: w.rbtToken })).status).toBe(422);
    expect((await api(`/v2/scheduled-sessions?from=${date}&to=${date}`, { token: w.noPermToken })).status).toBe(403);
  });
});

describe("screens: /calendar/view, /calendar/schedule, /calendar/session/{id}", () => {
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
    }
    // Previous / next / today keep the filters.
    const html = await (await request(`/calendar/view?view=week&date=${date}&patient_id=${c.id}`, { cookie: w.rbtCookie })).text();
    expect(html).toMatch(new RegExp(`href="/calendar/view\\?view=week&amp;date=${addDays(date, -7)}&amp;patient_id=${c.id}"`));
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

  it("403 without view_notes, 404 for another location's filter or client, 400 with the message for a bad date", async () => {
    const c = await client();
    expect((await request("/calendar/view", { cookie: w.noPermCookie })).status).toBe(403);
    expect((await request(`/calendar/view?location_id=${w.location}`, { cookie: w.outsiderCookie })).status).toBe(404);
    expect((await request(`/calendar/view?patient_id=${c.id}`, { cookie: w.outsiderCookie })).status).toBe(404);
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

  it("a scheduled session's screen cancels it, or the rest of its series, with forms; another location 404", async () => {
    const c = await client();
    const first = nextOn(5, 50);
    const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: first, time_in: "16:00", time_out: "17:00", repeat: "weekly", until: addDays(first, 21) })).json()) as Booked;
    const [a, b] = booked.data.sessions;
    expect((await request(`/calendar/session/${a!.id}`, { cookie: w.outsiderCookie })).status).toBe(404);
    expect((await form(`/calendar/session/${a!.id}`, { intent: "cancel" }, w.outsiderCookie)).status).toBe(404);
    const page = await (await request(`/calendar/session/${a!.id}`, { cookie: w.rbtCookie })).text();
    expect(page).toContain("Cancel this session");
    expect(page).toContain("Cancel the rest of the series");
    const cancel = await form(`/calendar/session/${a!.id}`, { intent: "cancel" }, w.rbtCookie);
    expect(cancel.status).toBe(303);
    const badRest = await form(`/calendar/session/${b!.id}`, { intent: "cancel_rest", from: "not-a-date" }, w.rbtCookie);
    expect(badRest.status).toBe(422);
    expect(await badRest.text()).toContain("Enter the date from which the rest of the series is cancelled.");
    const rest = await form(`/calendar/session/${b!.id}`, { intent: "cancel_rest", from: b!.session_date }, w.rbtCookie);
    expect(rest.status).toBe(303);
    const rows = await db().select().from(scheduledSessions).where(eq(scheduledSessions.seriesId, booked.data.series_id!));
    expect(rows.every((r) => r.status === "cancelled")).toBe(true);
  });

  it("'Write the note' opens the note form filled in, and saving the note marks the session written", async () => {
    const c = await client();
    const date = today();
    const booked = (await (await book(w.rbtToken, { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: "23:00", time_out: "23:45" })).json()) as Booked;
    const sid = booked.data.sessions[0]!.id;
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
    expect(Object.keys(next[0]!).sort()).toEqual(["cpt_code", "id", "provider_first_name", "session_date", "time_in", "time_out"]);
    // From after the last occurrence: nothing.
    expect(await upcomingSessionsQuery(ctx, own.id, (dayNumber(addDays(first, 22)) ?? 0) * 1440, 5)).toEqual([]);
  });
});
