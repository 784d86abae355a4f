import { createExecutionContext, env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices, scheduledSessions } from "~/db/schema";
import { localMinute, NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import type { Permission } from "~/domain/permissions";
import { zoneOffsetAtLocal } from "~/domain/time";
import { addDays } from "~/domain/weeks";
import countingWorker from "../bench/d1-count-worker";
import { D1_COUNT_HEADER } from "../bench/d1-count-header";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A provider who works in Miami (America/New_York) and Los Angeles (America/Los_Angeles) is judged on moments,
 * not clock times (decision 024, 2026-11-26): notes and scheduled sessions store their location's UTC offset, and
 * the provider's overlap and 15-minute buffer compare local − offset — in RULES_SQL (the write's condition, which
 * decides the status) and in firstRefusal (which names the rule, the message) alike, so each case below holds the
 * two against each other. Rows written before the offsets (NULL) are compared on clock time, as before.
 */

const MIAMI = "America/New_York";
const LA = "America/Los_Angeles";
/** Dates safe in both zones: a note two days back, a booking four days ahead. */
const noteDay = () => addDays(todayIn(new Date(), LA), -2);
const bookingDay = () => addDays(todayIn(new Date(), MIAMI), 4);

let miami: { id: number };
let la: { id: number };

interface Client {
  id: number;
  pa: number;
  zone: string;
}

async function client(locationId: number, zone: string): Promise<Client> {
  const patient = await createPatient({ locationId });
  const today = todayIn(new Date(), zone);
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 4000, startDate: addDays(today, -200), endDate: addDays(today, 200) }).returning();
  return { id: patient.id, pa: pa!.id, zone };
}

/** A provider of both clinics with a client in each, fresh for each case. */
async function scene(permissions: Permission[] = ["view_notes"]) {
  const user = await createUser({ permissions, locations: [miami.id, la.id] });
  return { provider: user.id, token: await apiToken(user), miami: await client(miami.id, MIAMI), la: await client(la.id, LA) };
}

type Scene = Awaited<ReturnType<typeof scene>>;
type Slot = { where: "miami" | "la"; timeIn: string; timeOut: string };

async function writeNote(s: Scene, slot: Slot, date = noteDay()) {
  const c = s[slot.where];
  const res = await api("/v2/notes-rbt", {
    method: "POST",
    token: s.token,
    body: { patient_id: c.id, provider_id: s.provider, pa_service_id: c.pa, cpt_code: "97153", session_date: date, time_in: slot.timeIn, time_out: slot.timeOut, pos: "12", diagnosis_code: "F84.0" },
  });
  return { status: res.status, json: (await res.json()) as { data: { id: number }; errors?: Record<string, string> } };
}

async function bookSession(s: Scene, slot: Slot, date = bookingDay()) {
  const c = s[slot.where];
  const res = await api("/v2/scheduled-sessions", { method: "POST", token: s.token, body: { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: slot.timeIn, time_out: slot.timeOut } });
  return { status: res.status, json: (await res.json()) as { data: { sessions: { id: number }[] }; errors?: Record<string, string> } };
}

/** A row as written before migration 0020: no utc_offset. */
async function oldNote(s: Scene, slot: Slot, date = noteDay()) {
  const c = s[slot.where];
  const [a, b] = [localMinute(date, slot.timeIn)!, localMinute(date, slot.timeOut)!];
  await db()
    .insert(notes)
    .values({ type: "rbt", patientId: c.id, locationId: slot.where === "la" ? la.id : miami.id, providerId: s.provider, paServiceId: c.pa, cptCode: "97153", sessionDate: date, timeIn: slot.timeIn, timeOut: slot.timeOut, start1At: a, end1At: b, startAt: a, endAt: b, minutes: b - a, units: Math.floor((b - a) / 15) });
}

async function oldSession(s: Scene, slot: Slot, date = bookingDay()) {
  const c = s[slot.where];
  const [a, b] = [localMinute(date, slot.timeIn)!, localMinute(date, slot.timeOut)!];
  await db()
    .insert(scheduledSessions)
    .values({ patientId: c.id, providerId: s.provider, locationId: slot.where === "la" ? la.id : miami.id, cptCode: "97153", paServiceId: c.pa, sessionDate: date, timeIn: slot.timeIn, timeOut: slot.timeOut, startAt: a, endAt: b, minutes: b - a, units: Math.floor((b - a) / 15) });
}

beforeAll(async () => {
  miami = await createLocation({ timeZone: MIAMI });
  la = await createLocation({ timeZone: LA });
});

const overlap = (from: string, to: string, where = "") => ({ time_in: NOTE_MESSAGES.providerOverlap(from, to, where) });
const buffer = (from: string, to: string, where = "") => ({ time_in: NOTE_MESSAGES.providerBuffer(from, to, 15, where) });
/** The other session's clock, named when it is not this one's (probe 8894, stop 25). */
const LA_TIME = " (Los Angeles time)";
const NY_TIME = " (New York time)";

/** [case, the provider's first session, the second one, the second's status, its errors]. Both zones keep daylight time on the same dates: always three hours apart. */
const CASES: [string, Slot, Slot, number, Record<string, string> | undefined][] = [
  ["Los Angeles 09:00 then Miami 12:00, the same moment: refused, naming the other session", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "12:00", timeOut: "13:00" }, 422, overlap("09:00", "10:00", LA_TIME)],
  ["Miami 12:00 then Los Angeles 09:30, inside it: refused, naming it on Miami's clock", { where: "miami", timeIn: "12:00", timeOut: "13:00" }, { where: "la", timeIn: "09:30", timeOut: "10:00" }, 422, overlap("12:00", "13:00", NY_TIME)],
  ["the same clock time, three hours apart: accepted", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "09:00", timeOut: "10:00" }, 201, undefined],
  ["10 minutes after, across zones: refused for the buffer", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "13:10", timeOut: "14:00" }, 422, buffer("09:00", "10:00", LA_TIME)],
  ["exactly 15 minutes after, across zones: accepted", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "13:15", timeOut: "14:00" }, 201, undefined],
  ["10 minutes before, across zones: refused for the buffer", { where: "miami", timeIn: "12:00", timeOut: "13:00" }, { where: "la", timeIn: "07:00", timeOut: "08:50" }, 422, buffer("12:00", "13:00", NY_TIME)],
];

describe("notes: a provider's sessions in two time zones", () => {
  it.each(CASES)("%s", async (_label, first, second, status, errors) => {
    const s = await scene();
    const a = await writeNote(s, first);
    expect(a.status).toBe(201);
    const b = await writeNote(s, second);
    expect(b.status).toBe(status);
    expect(b.json.errors).toEqual(errors);
    const rows = await db().select().from(notes).where(eq(notes.providerId, s.provider));
    expect(rows).toHaveLength(status === 201 ? 2 : 1);
    // Each stores its location's offset at its start.
    for (const r of rows) expect(r.utcOffset).toBe(zoneOffsetAtLocal(r.startAt!, r.locationId === la.id ? LA : MIAMI));
  });

  it("an edit is held to the same moments: moving a Miami note onto a Los Angeles session is refused and changes nothing", async () => {
    const s = await scene();
    expect((await writeNote(s, { where: "la", timeIn: "09:00", timeOut: "10:00" })).status).toBe(201);
    const n = (await writeNote(s, { where: "miami", timeIn: "09:00", timeOut: "10:00" })).json.data;
    const into = await api(`/v2/notes-rbt/${n.id}`, { method: "PATCH", token: s.token, body: { time_in: "12:30", time_out: "13:00" } });
    expect(into.status).toBe(422);
    expect(((await into.json()) as { errors: Record<string, string> }).errors).toEqual(overlap("09:00", "10:00", LA_TIME));
    const past = await api(`/v2/notes-rbt/${n.id}`, { method: "PATCH", token: s.token, body: { time_in: "13:15", time_out: "14:00" } });
    expect(past.status).toBe(200);
    const [row] = await db().select().from(notes).where(eq(notes.id, n.id));
    expect(row).toMatchObject({ timeIn: "13:15", version: 2, utcOffset: zoneOffsetAtLocal(row!.startAt!, MIAMI) });
  });

  it.each<[string, Slot, number, Record<string, string> | undefined]>([
    ["the same clock time: refused, as before the offsets", { where: "miami", timeIn: "09:00", timeOut: "10:00" }, 422, overlap("09:00", "10:00")],
    ["the same moment but three hours of clock apart: accepted, as before", { where: "miami", timeIn: "12:00", timeOut: "13:00" }, 201, undefined],
  ])("an old Los Angeles note with no offset (NULL) at 09:00, then Miami: %s", async (_label, slot, status, errors) => {
    const s = await scene();
    await oldNote(s, { where: "la", timeIn: "09:00", timeOut: "10:00" });
    const b = await writeNote(s, slot);
    expect(b.status).toBe(status);
    expect(b.json.errors).toEqual(errors);
  });

  it("a create for a provider with a session in another zone still costs 3 D1 round trips", async () => {
    const s = await scene();
    expect((await writeNote(s, { where: "la", timeIn: "09:00", timeOut: "10:00" })).status).toBe(201);
    const c = s.miami;
    const res = await countingWorker.fetch(
      new Request("http://localhost/api/v2/notes-rbt", {
        method: "POST",
        headers: { Authorization: `Bearer ${s.token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ patient_id: c.id, pa_service_id: c.pa, cpt_code: "97153", session_date: noteDay(), time_in: "09:00", time_out: "10:00", pos: "12", diagnosis_code: "F84.0" }),
      }) as Request<unknown, IncomingRequestCfProperties>,
      env,
      createExecutionContext(),
    );
    expect(res.status).toBe(201);
    const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
    expect(roundTrips).toBeLessThanOrEqual(3);
  });
});

describe("bookings: a provider's scheduled sessions in two time zones", () => {
  it.each(CASES)("%s", async (_label, first, second, status, errors) => {
    const s = await scene();
    const a = await bookSession(s, first);
    expect(a.status).toBe(201);
    const b = await bookSession(s, second);
    expect(b.status).toBe(status);
    expect(b.json.errors).toEqual(errors);
    const rows = await db().select().from(scheduledSessions).where(and(eq(scheduledSessions.providerId, s.provider), eq(scheduledSessions.status, "scheduled")));
    expect(rows).toHaveLength(status === 201 ? 2 : 1);
    for (const r of rows) expect(r.utcOffset).toBe(zoneOffsetAtLocal(r.startAt, r.locationId === la.id ? LA : MIAMI));
  });

  it.each<[string, Slot, number, Record<string, string> | undefined]>([
    ["the same clock time: refused, as before the offsets", { where: "miami", timeIn: "09:00", timeOut: "10:00" }, 422, overlap("09:00", "10:00")],
    ["the same moment but three hours of clock apart: booked, as before", { where: "miami", timeIn: "12:00", timeOut: "13:00" }, 201, undefined],
  ])("an old Los Angeles session with no offset (NULL) at 09:00, then Miami: %s", async (_label, slot, status, errors) => {
    const s = await scene();
    await oldSession(s, { where: "la", timeIn: "09:00", timeOut: "10:00" });
    const b = await bookSession(s, slot);
    expect(b.status).toBe(status);
    expect(b.json.errors).toEqual(errors);
  });
});

describe("a session across a daylight-saving change is the time that passed (probe 8894, stop 25)", () => {
  /** A client at each clinic with an authorization over the change nights of 2026 and 2027, and a provider of both who may write old notes. */
  async function night() {
    const user = await createUser({ permissions: ["view_notes", "ignore_time_limits"], locations: [miami.id, la.id] });
    const pa = async (locationId: number) => {
      const patient = await createPatient({ locationId });
      const [row] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 4000, startDate: "2026-01-01", endDate: "2029-12-31" }).returning();
      return { patient: patient.id, pa: row!.id };
    };
    return { provider: user.id, user, token: await apiToken(user), miami: await pa(miami.id), la: await pa(la.id) };
  }
  const note = (s: Awaited<ReturnType<typeof night>>, where: "miami" | "la", date: string, timeIn: string, timeOut: string) =>
    api("/v2/notes-rbt", {
      method: "POST",
      token: s.token,
      body: { patient_id: s[where].patient, provider_id: s.provider, pa_service_id: s[where].pa, cpt_code: "97153", session_date: date, time_in: timeIn, time_out: timeOut, pos: "12", diagnosis_code: "F84.0" },
    });

  it("an autumn night's note counts 210 minutes for 00:30–03:00, and the same provider cannot be in Los Angeles meanwhile", async () => {
    const s = await night();
    const res = await note(s, "miami", "2026-11-01", "00:30", "03:00");
    expect(res.status).toBe(201);
    const id = ((await res.json()) as { data: { id: number } }).data.id;
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    expect([row!.minutes, row!.units, row!.timeIn, row!.timeOut]).toEqual([210, 14, "00:30", "03:00"]);
    // The edit screen (JavaScript off) shows the same total as the saved note, not the clock's 150 (probe 8895, stop 25).
    const page = await (await request(`/note-rbt/edit/${id}`, { cookie: await signInCookie(s.user) })).text();
    expect(page).toMatch(/data-total-minutes[^>]*>210<\/output>/);
    // The browser module's live total reads the location's zone from the same output (typedMinutes, stop 26).
    expect(page).toMatch(/data-total-minutes="true" data-time-zone="America\/New_York"/);
    expect(page).toMatch(/data-units[^>]*>14<\/output>/);
    // Los Angeles 00:15–01:00 PDT is 07:15Z–08:00Z, inside Miami's 04:30Z–08:00Z.
    const la = await note(s, "la", "2026-11-01", "00:15", "01:00");
    expect(la.status).toBe(422);
    expect(Object.keys(((await la.json()) as { errors: Record<string, string> }).errors)).toEqual(["time_in"]);
  });

  it("a clock time the spring night skips is refused at its field, for a note and a booking, and nothing is written", async () => {
    const s = await night();
    const before = (await db().select().from(notes).where(eq(notes.providerId, s.provider))).length;
    const res = await note(s, "miami", "2026-03-08", "02:30", "03:30");
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.time_in).toBe(NOTE_MESSAGES.skippedTime("2026-03-08", "02:30"));
    const booking = await api("/v2/scheduled-sessions", {
      method: "POST",
      token: s.token,
      body: { patient_id: s.miami.patient, provider_id: s.provider, cpt_code: "97153", pa_service_id: s.miami.pa, session_date: "2027-03-14", time_in: "01:00", time_out: "02:15" },
    });
    expect(booking.status).toBe(422);
    expect(((await booking.json()) as { errors: Record<string, string> }).errors.time_out).toBe(NOTE_MESSAGES.skippedTime("2027-03-14", "02:15"));
    expect((await db().select().from(notes).where(eq(notes.providerId, s.provider))).length).toBe(before);
    expect((await db().select().from(scheduledSessions).where(eq(scheduledSessions.providerId, s.provider))).length).toBe(0);
  });

  it("a spring night's booking of 01:00–03:30 holds 90 minutes (6 units)", async () => {
    const s = await night();
    const res = await api("/v2/scheduled-sessions", {
      method: "POST",
      token: s.token,
      body: { patient_id: s.miami.patient, provider_id: s.provider, cpt_code: "97153", pa_service_id: s.miami.pa, session_date: "2027-03-14", time_in: "01:00", time_out: "03:30" },
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const [row] = await db().select().from(scheduledSessions).where(eq(scheduledSessions.providerId, s.provider));
    expect([row!.minutes, row!.units, row!.timeIn, row!.timeOut]).toEqual([90, 6, "01:00", "03:30"]);
  });
});

describe("a client-overlap refusal on a change night names the other session's typed times (stop 33)", () => {
  async function scene() {
    const user = await createUser({ permissions: ["view_notes", "ignore_time_limits"], locations: [miami.id] });
    const patient = await createPatient({ locationId: miami.id });
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 4000, startDate: "2026-01-01", endDate: "2029-12-31" }).returning();
    return { provider: user.id, token: await apiToken(user), patient: patient.id, pa: pa!.id };
  }
  type S = Awaited<ReturnType<typeof scene>>;
  const write = async (kind: "note" | "booking", s: S, date: string, timeIn: string, timeOut: string) => {
    const body = { patient_id: s.patient, provider_id: s.provider, pa_service_id: s.pa, cpt_code: "97153", session_date: date, time_in: timeIn, time_out: timeOut };
    const res = await api(kind === "note" ? "/v2/notes-rbt" : "/v2/scheduled-sessions", { method: "POST", token: s.token, body: kind === "note" ? { ...body, pos: "12", diagnosis_code: "F84.0" } : body });
    return { status: res.status, errors: ((await res.json()) as { errors?: Record<string, string> }).errors };
  };

  // [kind, the change night, the first session, the second one]. The first's end is stored on its start's clock
  // (spring: 03:30 EDT is 02:30 on EST's; autumn: 03:00 EST is 04:00 on EDT's); the refusal says what was typed.
  it.each([
    ["note", "2026-03-08", ["01:00", "03:30"], ["03:00", "03:20"]],
    ["note", "2026-11-01", ["00:30", "03:00"], ["02:30", "03:30"]],
    ["booking", "2027-03-14", ["01:00", "03:30"], ["03:00", "03:20"]],
    ["booking", "2027-11-07", ["00:30", "03:00"], ["02:30", "03:30"]],
  ] as const)("%s on %s: %j, then %j is refused naming the first as typed", async (kind, date, [in1, out1], [in2, out2]) => {
    const s = await scene();
    expect((await write(kind, s, date, in1, out1)).status).toBe(201);
    const refused = await write(kind, s, date, in2, out2);
    expect(refused).toEqual({ status: 422, errors: { time_in: NOTE_MESSAGES.clientOverlap(in1, out1) } });
  });
});
