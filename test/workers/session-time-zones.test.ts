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
import { api, apiToken, createLocation, createPatient, createUser, db } from "./helpers";

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

const overlap = (from: string, to: string) => ({ time_in: NOTE_MESSAGES.providerOverlap(from, to) });
const buffer = (from: string, to: string) => ({ time_in: NOTE_MESSAGES.providerBuffer(from, to, 15) });

/** [case, the provider's first session, the second one, the second's status, its errors]. Both zones keep daylight time on the same dates: always three hours apart. */
const CASES: [string, Slot, Slot, number, Record<string, string> | undefined][] = [
  ["Los Angeles 09:00 then Miami 12:00, the same moment: refused, naming the other session", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "12:00", timeOut: "13:00" }, 422, overlap("09:00", "10:00")],
  ["Miami 12:00 then Los Angeles 09:30, inside it: refused, naming it on Miami's clock", { where: "miami", timeIn: "12:00", timeOut: "13:00" }, { where: "la", timeIn: "09:30", timeOut: "10:00" }, 422, overlap("12:00", "13:00")],
  ["the same clock time, three hours apart: accepted", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "09:00", timeOut: "10:00" }, 201, undefined],
  ["10 minutes after, across zones: refused for the buffer", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "13:10", timeOut: "14:00" }, 422, buffer("09:00", "10:00")],
  ["exactly 15 minutes after, across zones: accepted", { where: "la", timeIn: "09:00", timeOut: "10:00" }, { where: "miami", timeIn: "13:15", timeOut: "14:00" }, 201, undefined],
  ["10 minutes before, across zones: refused for the buffer", { where: "miami", timeIn: "12:00", timeOut: "13:00" }, { where: "la", timeIn: "07:00", timeOut: "08:50" }, 422, buffer("12:00", "13:00")],
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
    expect(((await into.json()) as { errors: Record<string, string> }).errors).toEqual(overlap("09:00", "10:00"));
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
