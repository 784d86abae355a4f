import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices, scheduledSessions } from "~/db/schema";
import { localMinute, NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import { pdfText } from "../support/pdf-text";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie, type TestUser } from "./helpers";

/**
 * Probe 8953 §1 and §2 (decision 024, stop 32).
 * - The client's overlap compares moments, as the provider's rules do: on a daylight-saving night two sessions of
 *   one client sit on two offsets (EST and EDT), so 03:00 EDT is inside 01:00–03:30 (spring), and 03:15 EST is after
 *   00:30–03:00 (autumn). RULES_SQL decides the status and firstRefusal the message: an exact `errors` holds the two
 *   against each other (a disagreement answers "Other notes changed…").
 * - "24:00" is a time out: the end of the session date. A session across midnight is two notes, and the provider's
 *   15-minute buffer does not part them when they are the same client's and touch exactly at midnight.
 */

const MIAMI = "America/New_York";

let loc: { id: number };
let manager: TestUser;
let token: string;

beforeAll(async () => {
  loc = await createLocation({ timeZone: MIAMI });
  manager = await createUser({ permissions: ["view_notes", "manage_notes", "ignore_time_limits", "manage_claims", "view_clients"], locations: [loc.id] });
  token = await apiToken(manager);
});

interface Client {
  id: number;
  pa: number;
  /** Two providers of the clinic, fresh for each case unless shared with another client (`of`). */
  a: TestUser;
  b: TestUser;
}

/** A client of the Miami clinic with an authorization over 2026–2029, and two providers (those of `of`, else new). */
async function client(of?: Client): Promise<Client> {
  const patient = await createPatient({ locationId: loc.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 4000, startDate: "2026-01-01", endDate: "2029-12-31" }).returning();
  const provider = () => createUser({ permissions: ["view_notes"], locations: [loc.id] });
  return { id: patient.id, pa: pa!.id, a: of?.a ?? (await provider()), b: of?.b ?? (await provider()) };
}

interface Slot {
  date: string;
  timeIn: string;
  timeOut: string;
  /** Provider b instead of a. */
  byB?: boolean;
}

type Answer = { status: number; errors?: Record<string, string>; id?: number };

async function writeNote(c: Client, s: Slot, extra: Record<string, unknown> = {}): Promise<Answer> {
  const res = await api("/v2/notes-rbt", {
    method: "POST",
    token,
    body: { patient_id: c.id, provider_id: (s.byB ? c.b : c.a).id, pa_service_id: c.pa, cpt_code: "97153", session_date: s.date, time_in: s.timeIn, time_out: s.timeOut, pos: "12", diagnosis_code: "F84.0", ...extra },
  });
  const json = (await res.json()) as { data?: { id: number }; errors?: Record<string, string> };
  return { status: res.status, errors: json.errors, id: json.data?.id };
}

async function book(c: Client, s: Slot, extra: Record<string, unknown> = {}): Promise<Answer> {
  const res = await api("/v2/scheduled-sessions", {
    method: "POST",
    token,
    body: { patient_id: c.id, provider_id: (s.byB ? c.b : c.a).id, pa_service_id: c.pa, cpt_code: "97153", session_date: s.date, time_in: s.timeIn, time_out: s.timeOut, ...extra },
  });
  const json = (await res.json()) as { data?: { sessions: { id: number }[] }; errors?: Record<string, string> };
  return { status: res.status, errors: json.errors, id: json.data?.sessions[0]?.id };
}

const notesOf = (c: Client) => db().select().from(notes).where(eq(notes.patientId, c.id));
const sessionsOf = (c: Client) => db().select().from(scheduledSessions).where(eq(scheduledSessions.patientId, c.id));

/** A refusal of the client's overlap at the time in (its wording: the other session on its stored clock). */
const clientOverlapAt = (from: string) => expect.stringMatching(new RegExp(`^The client already has a session from ${from} to \\d\\d:\\d\\d that overlaps this time\\.$`));

/* ------------------------------------------------------------------ §1 the client's overlap on a daylight-saving night */

/** [case, the first session (provider A), the second (provider B), the second's status, its time_in error]. */
const DST_NOTES: [string, Slot, Slot, number, string | null][] = [
  ["spring: 01:00–03:30 runs to 03:30 EDT, so 03:00–03:20 overlaps it", { date: "2026-03-08", timeIn: "01:00", timeOut: "03:30" }, { date: "2026-03-08", timeIn: "03:00", timeOut: "03:20" }, 422, "01:00"],
  ["autumn: 00:30–03:00 ends at 03:00 EST, so 03:15–04:15 is free", { date: "2026-11-01", timeIn: "00:30", timeOut: "03:00" }, { date: "2026-11-01", timeIn: "03:15", timeOut: "04:15" }, 201, null],
  ["autumn: 03:00–03:45 EST starts as the first ends (touching)", { date: "2026-11-01", timeIn: "00:30", timeOut: "03:00" }, { date: "2026-11-01", timeIn: "03:00", timeOut: "03:45" }, 201, null],
  ["autumn: 02:30–03:30 EST is inside it", { date: "2026-11-01", timeIn: "00:30", timeOut: "03:00" }, { date: "2026-11-01", timeIn: "02:30", timeOut: "03:30" }, 422, "00:30"],
  ["an ordinary day: 09:30 is inside 09:00–10:00", { date: "2026-10-20", timeIn: "09:00", timeOut: "10:00" }, { date: "2026-10-20", timeIn: "09:30", timeOut: "10:30" }, 422, "09:00"],
  ["an ordinary day: 10:00 right after 09:00–10:00 is free", { date: "2026-10-20", timeIn: "09:00", timeOut: "10:00" }, { date: "2026-10-20", timeIn: "10:00", timeOut: "11:00" }, 201, null],
];

describe("notes: the client's overlap compares moments (probe 8953 §1)", () => {
  it.each(DST_NOTES)("%s", async (_label, first, second, status, from) => {
    const c = await client();
    expect((await writeNote(c, first)).status).toBe(201);
    const b = await writeNote(c, { ...second, byB: true });
    expect(b.status).toBe(status);
    expect(b.errors).toEqual(from ? { time_in: clientOverlapAt(from) } : undefined);
    expect(await notesOf(c)).toHaveLength(status === 201 ? 2 : 1);
  });

  it("an ordinary day keeps its exact wording", async () => {
    const c = await client();
    await writeNote(c, { date: "2026-10-20", timeIn: "09:00", timeOut: "10:00" });
    expect((await writeNote(c, { date: "2026-10-20", timeIn: "09:30", timeOut: "10:30", byB: true })).errors).toEqual({ time_in: NOTE_MESSAGES.clientOverlap("09:00", "10:00") });
  });

  it.each<[string, Slot, Slot, number]>([
    ["spring: moving a later note onto 03:00–03:20 is refused, nothing changes", { date: "2026-03-08", timeIn: "01:00", timeOut: "03:30" }, { date: "2026-03-08", timeIn: "03:00", timeOut: "03:20" }, 422],
    ["autumn: moving a later note onto 03:15–04:15 is saved", { date: "2026-11-01", timeIn: "00:30", timeOut: "03:00" }, { date: "2026-11-01", timeIn: "03:15", timeOut: "04:15" }, 200],
  ])("an edit (PATCH): %s", async (_label, first, into, status) => {
    const c = await client();
    await writeNote(c, first);
    const later = await writeNote(c, { date: first.date, timeIn: "06:00", timeOut: "07:00", byB: true });
    expect(later.status).toBe(201);
    const res = await api(`/v2/notes-rbt/${later.id}`, { method: "PATCH", token, body: { time_in: into.timeIn, time_out: into.timeOut } });
    expect(res.status).toBe(status);
    const [row] = await db().select().from(notes).where(eq(notes.id, later.id!));
    expect(row!.timeIn).toBe(status === 200 ? into.timeIn : "06:00");
  });

  it.each<[string, Slot, Slot, number]>([
    ["spring: refused beside the time, the typed times kept", { date: "2026-03-08", timeIn: "01:00", timeOut: "03:30" }, { date: "2026-03-08", timeIn: "03:00", timeOut: "03:20" }, 422],
    ["autumn: saved", { date: "2026-11-01", timeIn: "00:30", timeOut: "03:00" }, { date: "2026-11-01", timeIn: "03:15", timeOut: "04:15" }, 303],
  ])("the note screen without JavaScript: %s", async (_label, first, second, status) => {
    const c = await client();
    await writeNote(c, first);
    const res = await form(`/note-rbt?patient_id=${c.id}`, screenFields(c, { ...second, byB: true }), await signInCookie(manager));
    expect(res.status).toBe(status);
    if (status === 422) {
      const html = await res.text();
      expect(html).toMatch(/id="f-time_in-error" class="field-error" role="alert">The client already has a session from 01:00/);
      expect(html).toContain('value="03:20"');
    }
    expect(await notesOf(c)).toHaveLength(status === 303 ? 2 : 1);
  });

  it("the scrubber flags a spring-night overlap written before this rule, and not the autumn night's neighbours", async () => {
    const c = await client();
    const spring = await writeNote(c, { date: "2026-03-08", timeIn: "01:00", timeOut: "03:30" });
    // As the tester's note 414 was saved: 03:00–03:20 EDT, stored on its own offset.
    const [a, b] = [localMinute("2026-03-08", "03:00")!, localMinute("2026-03-08", "03:20")!];
    const [old] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: c.id, locationId: loc.id, providerId: c.b.id, paServiceId: c.pa, cptCode: "97153", diagnosisCode: "F84.0", pos: "12", sessionDate: "2026-03-08", timeIn: "03:00", timeOut: "03:20", start1At: a, end1At: b, startAt: a, endAt: b, utcOffset: -240, minutes: 20, units: 1 })
      .returning();
    const autumn = await writeNote(c, { date: "2026-11-01", timeIn: "00:30", timeOut: "03:00" });
    const after = await writeNote(c, { date: "2026-11-01", timeIn: "03:15", timeOut: "04:15", byB: true });
    const codes = async (id: number) => ((await (await api(`/v2/billing/scrubber/notes/${id}`, { token })).json()) as { data: { reasons: { code: string }[] } }).data.reasons.map((r) => r.code);
    expect(await codes(spring.id!)).toContain("client_overlap");
    expect(await codes(old!.id)).toContain("client_overlap");
    expect(await codes(autumn.id!)).not.toContain("client_overlap");
    expect(await codes(after.id!)).not.toContain("client_overlap");
  });
});

describe("bookings: the client's overlap compares moments (probe 8953 §1)", () => {
  /** The same nights in 2027 (bookings are from today on). */
  const IN_2027: Record<string, string> = { "2026-03-08": "2027-03-14", "2026-11-01": "2027-11-07", "2026-10-20": "2027-10-19" };
  it.each(DST_NOTES)("%s", async (_label, first, second, status, from) => {
    const c = await client();
    expect((await book(c, { ...first, date: IN_2027[first.date]! })).status).toBe(201);
    const b = await book(c, { ...second, date: IN_2027[second.date]!, byB: true });
    expect(b.status).toBe(status);
    expect(b.errors).toEqual(from ? { time_in: clientOverlapAt(from) } : undefined);
    expect(await sessionsOf(c)).toHaveLength(status === 201 ? 2 : 1);
  });

  it("a weekly series that reaches the autumn night at 03:15–04:15 is booked", async () => {
    const c = await client();
    expect((await book(c, { date: "2027-11-07", timeIn: "00:30", timeOut: "03:00" })).status).toBe(201);
    const series = await book(c, { date: "2027-10-24", timeIn: "03:15", timeOut: "04:15", byB: true }, { repeat: "weekly", until: "2027-11-07" });
    expect(series.status).toBe(201);
    expect(await sessionsOf(c)).toHaveLength(4);
  });

  it("a weekly series that reaches the spring night at 03:00–03:20 is refused on that date, nothing booked", async () => {
    const c = await client();
    expect((await book(c, { date: "2027-03-14", timeIn: "01:00", timeOut: "03:30" })).status).toBe(201);
    const series = await book(c, { date: "2027-02-28", timeIn: "03:00", timeOut: "03:20", byB: true }, { repeat: "weekly", until: "2027-03-21" });
    expect(series.status).toBe(422);
    expect(series.errors?.time_in).toMatch(/^On 2027-03-14: The client already has a session from 01:00 to/);
    expect(await sessionsOf(c)).toHaveLength(1);
  });
});

/* ------------------------------------------------------------------ §2 24:00 and a session across midnight */

/** Note form fields as the screen posts them. */
function screenFields(c: Client, s: Slot): Record<string, string> {
  return {
    intent: "save",
    form_token: crypto.randomUUID(),
    type: "rbt",
    patient_id: String(c.id),
    provider_id: String((s.byB ? c.b : c.a).id),
    supervisor_id: "",
    session_date: s.date,
    cpt_code: "97153",
    pa_service_id: String(c.pa),
    pos: "12",
    diagnosis_code: "F84.0",
    time_in: s.timeIn,
    time_out: s.timeOut,
    time_in2: "",
    time_out2: "",
  };
}

const TO_MIDNIGHT: [string, string, number, number][] = [
  ["22:37", "24:00", 83, 6],
  ["23:00", "24:00", 60, 4],
];

describe("24:00 is a time out: the end of the session date (probe 8953 §2)", () => {
  it.each(TO_MIDNIGHT)("a note %s–%s is %i minutes, %i units, shown back as 24:00", async (timeIn, timeOut, minutes, units) => {
    const c = await client();
    const res = await writeNote(c, { date: "2026-11-20", timeIn, timeOut });
    expect(res.status).toBe(201);
    const [row] = await notesOf(c);
    expect([row!.minutes, row!.units, row!.timeOut, row!.endAt]).toEqual([minutes, units, "24:00", localMinute("2026-11-21", "00:00")]);
    const read = (await (await api(`/v2/notes-rbt/${res.id}`, { token })).json()) as { data: { time_out: string } };
    expect(read.data.time_out).toBe("24:00");
    const pdf = await api(`/v2/note_rbt/pdf/${res.id}`, { token });
    expect(pdf.status).toBe(200);
    expect(await pdfText(new Uint8Array(await pdf.arrayBuffer()))).toContain(`${timeIn} – 24:00`);
  });

  it("the afternoon pair may end at 24:00 too", async () => {
    const c = await client();
    expect((await writeNote(c, { date: "2026-11-20", timeIn: "09:00", timeOut: "10:00" }, { time_in2: "23:00", time_out2: "24:00" })).status).toBe(201);
    const [row] = await notesOf(c);
    expect([row!.minutes, row!.units, row!.timeOut2]).toEqual([120, 8, "24:00"]);
  });

  it("a whole day 00:00–24:00 is more than the client's 10 hours", async () => {
    const c = await client();
    expect((await writeNote(c, { date: "2026-11-20", timeIn: "00:00", timeOut: "24:00" })).errors).toEqual({ time_out: NOTE_MESSAGES.dayCap(10) });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ["as a time in", { time_in: "24:00", time_out: "24:00" }, "time_in"],
    ["as the afternoon's time in", { time_in2: "24:00", time_out2: "24:00" }, "time_in2"],
    ["24:01 as a time out", { time_out: "24:01" }, "time_out"],
    ["24:30 as a time out", { time_out: "24:30" }, "time_out"],
  ])("24:00 is refused %s", async (_label, times, field) => {
    const c = await client();
    const res = await writeNote(c, { date: "2026-11-20", timeIn: "22:00", timeOut: "23:00" }, times);
    expect(res.status).toBe(422);
    expect(res.errors?.[field]).toBe(NOTE_MESSAGES.time);
    expect(await notesOf(c)).toHaveLength(0);
  });

  it("a session of today ending at 24:00 has not ended yet", async () => {
    const c = await client();
    const res = await writeNote(c, { date: todayIn(new Date(), MIAMI), timeIn: "23:00", timeOut: "24:00" });
    expect(res.status).toBe(422);
    expect(res.errors?.time_out).toMatch(/^The session cannot end in the future/);
  });

  it("the note screen without JavaScript keeps a typed 24:00 on a refusal, and saves it", async () => {
    const c = await client();
    const cookie = await signInCookie(manager);
    const blank = await (await request(`/note-rbt?patient_id=${c.id}`, { cookie })).text();
    // A time input cannot hold 24:00: the time outs are text.
    expect(blank).toMatch(/<input id="f-time_out" name="time_out"[^>]*type="text"/);
    const refused = await form(`/note-rbt?patient_id=${c.id}`, { ...screenFields(c, { date: "2026-11-20", timeIn: "24:00", timeOut: "24:00" }) }, cookie);
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toMatch(/id="f-time_in-error" class="field-error" role="alert">Enter a time like 09:30\./);
    expect(html).toMatch(/<input id="f-time_out" name="time_out"[^>]*value="24:00"/);
    const saved = await form(`/note-rbt?patient_id=${c.id}`, screenFields(c, { date: "2026-11-20", timeIn: "22:37", timeOut: "24:00" }), cookie);
    expect(saved.status).toBe(303);
    const [row] = await notesOf(c);
    expect([row!.minutes, row!.units, row!.timeOut]).toEqual([83, 6, "24:00"]);
  });

  it.each(TO_MIDNIGHT)("a booking %s–%s holds %i minutes, %i units, and shows on the calendar as typed", async (timeIn, timeOut, minutes, units) => {
    const c = await client();
    const date = addDays(todayIn(new Date(), MIAMI), 5);
    expect((await book(c, { date, timeIn, timeOut })).status).toBe(201);
    const [row] = await sessionsOf(c);
    expect([row!.minutes, row!.units, row!.timeOut]).toEqual([minutes, units, "24:00"]);
    const day = await (await request(`/calendar/view?view=day&date=${date}`, { cookie: await signInCookie(manager) })).text();
    expect(day).toContain(`${timeIn}–24:00`);
  });

  it("a booking refuses 24:00 as a time in", async () => {
    const c = await client();
    const res = await book(c, { date: addDays(todayIn(new Date(), MIAMI), 5), timeIn: "24:00", timeOut: "24:00" });
    expect(res.status).toBe(422);
    expect(res.errors?.time_in).toBe(NOTE_MESSAGES.time);
  });
});

describe("a session across midnight is two notes the provider's buffer does not part (probe 8953 §2)", () => {
  const D = "2026-10-20";
  const NEXT = "2026-10-21";
  const buffer = (from: string, to: string, on: string) => ({ time_in: NOTE_MESSAGES.providerBuffer(from, to, 15, ` on ${on}`) });
  /** [case, the first note, the second, whether the second is another client's, its status, its errors]. */
  const CASES: [string, Slot, Slot, boolean, number, Record<string, string> | undefined][] = [
    ["23:00–24:00, then 00:00–00:45 the next day: saved", { date: D, timeIn: "23:00", timeOut: "24:00" }, { date: NEXT, timeIn: "00:00", timeOut: "00:45" }, false, 201, undefined],
    ["00:00–00:45 first, then 23:00–24:00 the day before: saved", { date: NEXT, timeIn: "00:00", timeOut: "00:45" }, { date: D, timeIn: "23:00", timeOut: "24:00" }, false, 201, undefined],
    ["a gap of 5 minutes (00:05): the buffer refuses", { date: D, timeIn: "23:00", timeOut: "24:00" }, { date: NEXT, timeIn: "00:05", timeOut: "00:45" }, false, 422, buffer("23:00", "24:00", D)],
    ["a gap of 5 minutes the other way (23:55): the buffer refuses", { date: NEXT, timeIn: "00:00", timeOut: "00:45" }, { date: D, timeIn: "23:00", timeOut: "23:55" }, false, 422, buffer("00:00", "00:45", NEXT)],
    ["another client at 00:00: the buffer refuses", { date: D, timeIn: "23:00", timeOut: "24:00" }, { date: NEXT, timeIn: "00:00", timeOut: "00:45" }, true, 422, buffer("23:00", "24:00", D)],
  ];

  it.each(CASES)("notes: %s", async (_label, first, second, otherClient, status, errors) => {
    const c = await client();
    expect((await writeNote(c, first)).status).toBe(201);
    const b = await writeNote(otherClient ? await client(c) : c, second);
    expect(b.status).toBe(status);
    expect(b.errors).toEqual(errors);
    if (status === 201) expect((await notesOf(c)).map((n) => n.minutes).sort()).toEqual([45, 60]);
  });

  it.each(CASES)("bookings: %s", async (_label, first, second, otherClient, status, errors) => {
    const base = addDays(todayIn(new Date(), MIAMI), 7);
    const on = (s: Slot): Slot => ({ ...s, date: s.date === D ? base : addDays(base, 1) });
    const c = await client();
    expect((await book(c, on(first))).status).toBe(201);
    const b = await book(otherClient ? await client(c) : c, on(second));
    expect(b.status).toBe(status);
    expect(b.errors).toEqual(errors && { time_in: errors.time_in!.replace(` on ${first.date}`, ` on ${on(first).date}`) });
  });

  it("an edit that moves the second half to start at 00:00 is saved; each half counts on its own day", async () => {
    const c = await client();
    await writeNote(c, { date: D, timeIn: "23:00", timeOut: "24:00" });
    const second = await writeNote(c, { date: NEXT, timeIn: "00:30", timeOut: "00:45" });
    const res = await api(`/v2/notes-rbt/${second.id}`, { method: "PATCH", token, body: { time_in: "00:00" } });
    expect(res.status).toBe(200);
    // 9 h more on D reach the 10 h cap exactly (the second half is on its own day); one minute more is refused.
    expect((await writeNote(c, { date: D, timeIn: "08:00", timeOut: "17:00", byB: true })).status).toBe(201);
    expect((await writeNote(c, { date: D, timeIn: "17:30", timeOut: "17:31" })).errors).toEqual({ time_out: NOTE_MESSAGES.dayCap(10) });
  });
});

// Havana's clocks jump from 00:00 to 01:00 on 2026-03-08 (probe 8954 #2): 00:00 does not exist there that night, so the
// second half of a session across midnight starts at 01:00, the moment the first half's 24:00 (UTC−5) is.
describe("a session across a midnight the clocks skip (America/Havana)", () => {
  it.each<[string, Slot, Slot, number]>([
    ["23:00–24:00, then 01:00–02:00 the next day: saved", { date: "2026-03-07", timeIn: "23:00", timeOut: "24:00" }, { date: "2026-03-08", timeIn: "01:00", timeOut: "02:00" }, 201],
    ["01:00–02:00 first, then 23:00–24:00 the day before: saved", { date: "2026-03-08", timeIn: "01:00", timeOut: "02:00" }, { date: "2026-03-07", timeIn: "23:00", timeOut: "24:00" }, 201],
    ["01:05 after 23:00–24:00: the buffer refuses", { date: "2026-03-07", timeIn: "23:00", timeOut: "24:00" }, { date: "2026-03-08", timeIn: "01:05", timeOut: "02:00" }, 422],
  ])("%s", async (_label, first, second, status) => {
    const havana = await createLocation({ timeZone: "America/Havana" });
    const owner = await createUser({ permissions: ["view_notes", "manage_notes", "ignore_time_limits"], locations: [havana.id] });
    const patient = await createPatient({ locationId: havana.id });
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: "2026-01-01", endDate: "2026-12-31" }).returning();
    const provider = await createUser({ permissions: ["view_notes"], locations: [havana.id] });
    const write = async (s: Slot) =>
      (
        await api("/v2/notes-rbt", {
          method: "POST",
          token: await apiToken(owner),
          body: { patient_id: patient.id, provider_id: provider.id, pa_service_id: pa!.id, cpt_code: "97153", session_date: s.date, time_in: s.timeIn, time_out: s.timeOut, pos: "12", diagnosis_code: "F84.0" },
        })
      ).status;
    expect(await write(first)).toBe(201);
    expect(await write(second)).toBe(status);
  });
});
