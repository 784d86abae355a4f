import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { locations, notes, paServices, scheduledSessions } from "~/db/schema";
import { localMinute, NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import { zoneOffsetAtLocal } from "~/domain/time";
import { addDays } from "~/domain/weeks";
import { ZONE_CHANGE_MESSAGES } from "~/models/location-zone.server";
import { api, apiToken, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * A location's time zone corrected (decision 037, 2026-11-28 stop 39): its sessions keep their clock times, and their
 * UTC offsets follow the new zone in the same write, so a provider's sessions are still compared as moments.
 */

const AUCKLAND = "Pacific/Auckland";
const MIAMI = "America/New_York";
const LA = "America/Los_Angeles";

let admin: string;
beforeAll(async () => {
  admin = await apiToken(await createUser({ role: "ADMIN" }));
});

const hhmm = (minute: number) => `${String(Math.floor((((minute % 1440) + 1440) % 1440) / 60)).padStart(2, "0")}:${String((((minute % 1440) + 1440) % 1440) % 60).padStart(2, "0")}`;
const dateOf = (minute: number) => new Date(Math.floor(minute / 1440) * 86_400_000).toISOString().slice(0, 10);

/** Local minute in `to` of the moment that `minute` is in `from`. */
function sameMoment(minute: number, from: string, to: string): number {
  const utc = minute - zoneOffsetAtLocal(minute, from);
  return utc + zoneOffsetAtLocal(utc + zoneOffsetAtLocal(utc, to), to);
}

async function client(locationId: number) {
  const patient = await createPatient({ locationId });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 4000, startDate: "2026-01-01", endDate: "2028-12-31" }).returning();
  return { id: patient.id, pa: pa!.id };
}

/** A clinic set to Auckland by mistake, a Miami clinic, and one provider of both (with a client in each). */
async function scene() {
  const clinic = await createLocation({ timeZone: AUCKLAND });
  const miami = await createLocation({ timeZone: MIAMI });
  const provider = await createUser({ permissions: ["view_notes"], locations: [clinic.id, miami.id] });
  return { clinic, miami, provider: provider.id, token: await apiToken(provider), there: await client(clinic.id), here: await client(miami.id) };
}
type Scene = Awaited<ReturnType<typeof scene>>;

async function book(s: Scene, c: { id: number; pa: number }, date: string, timeIn: string, timeOut: string) {
  const res = await api("/v2/scheduled-sessions", { method: "POST", token: s.token, body: { patient_id: c.id, cpt_code: "97153", pa_service_id: c.pa, session_date: date, time_in: timeIn, time_out: timeOut } });
  return { status: res.status, json: (await res.json()) as { errors?: Record<string, string> } };
}

async function note(s: Scene, c: { id: number; pa: number }, date: string, timeIn: string, timeOut: string) {
  const res = await api("/v2/notes-rbt", { method: "POST", token: s.token, body: { patient_id: c.id, provider_id: s.provider, pa_service_id: c.pa, cpt_code: "97153", session_date: date, time_in: timeIn, time_out: timeOut, pos: "12", diagnosis_code: "F84.0" } });
  return { status: res.status, json: (await res.json()) as { errors?: Record<string, string> } };
}

const rezone = (id: number, timeZone: string) => api(`/v2/locations/${id}`, { method: "PATCH", token: admin, body: { time_zone: timeZone } });

describe("a location's time zone corrected: its sessions' offsets follow", () => {
  it("bookings: after Auckland → Los Angeles, the same moment in Miami is refused and the old Auckland moment is free", async () => {
    const s = await scene();
    const date = addDays(todayIn(new Date(), MIAMI), 20);
    expect((await book(s, s.there, date, "09:00", "10:00")).status).toBe(201);
    // Where the session sat while the clinic read Auckland time: a Miami booking then was refused.
    const oldMoment = sameMoment(localMinute(date, "09:00")!, AUCKLAND, MIAMI);
    expect((await rezone(s.clinic.id, LA)).status).toBe(200);
    const [row] = await db().select().from(scheduledSessions).where(eq(scheduledSessions.locationId, s.clinic.id));
    expect(row).toMatchObject({ timeIn: "09:00", utcOffset: zoneOffsetAtLocal(row!.startAt, LA) });
    // 09:00 in Los Angeles is 12:00 in Miami.
    const same = await book(s, s.here, date, "12:00", "13:00");
    expect(same.status).toBe(422);
    expect(same.json.errors?.time_in).toContain("09:00");
    expect(same.json.errors?.time_in).toContain("Los Angeles");
    const earlier = await book(s, s.here, dateOf(oldMoment), hhmm(oldMoment), hhmm(oldMoment + 60));
    expect(earlier.status).toBe(201);
  });

  it("notes: a Miami note at a Los Angeles note's moment is refused, naming its Los Angeles time", async () => {
    const s = await scene();
    const date = addDays(todayIn(new Date(), LA), -3);
    expect((await note(s, s.there, date, "10:00", "11:00")).status).toBe(201);
    expect((await rezone(s.clinic.id, LA)).status).toBe(200);
    const [row] = await db().select().from(notes).where(eq(notes.locationId, s.clinic.id));
    expect(row!.utcOffset).toBe(zoneOffsetAtLocal(row!.startAt!, LA));
    const clash = await note(s, s.here, date, "13:00", "14:00");
    expect(clash.status).toBe(422);
    expect(clash.json.errors).toEqual({ time_in: NOTE_MESSAGES.providerOverlap("10:00", "11:00", " (Los Angeles time)") });
    expect((await note(s, s.here, date, "10:00", "11:00")).status).toBe(201);
  });

  it("a change that would make the provider's sessions overlap is refused on time_zone, naming one; nothing changes", async () => {
    const s = await scene();
    const date = addDays(todayIn(new Date(), MIAMI), 20);
    expect((await book(s, s.there, date, "09:00", "10:00")).status).toBe(201);
    expect((await book(s, s.here, date, "12:00", "13:00")).status).toBe(201);
    const res = await rezone(s.clinic.id, LA);
    expect(res.status).toBe(422);
    const body = (await res.json()) as { errors: Record<string, string> };
    expect(body.errors.time_zone).toBe(ZONE_CHANGE_MESSAGES.overlap("Test User", date, "09:00", "10:00", s.miami.title, date, "12:00", "13:00"));
    const [loc] = await db().select().from(locations).where(eq(locations.id, s.clinic.id));
    expect(loc).toMatchObject({ timeZone: AUCKLAND, version: 1 });
    const [row] = await db().select().from(scheduledSessions).where(eq(scheduledSessions.locationId, s.clinic.id));
    expect(row!.utcOffset).toBe(zoneOffsetAtLocal(row!.startAt, AUCKLAND));
  });

  it("the screen's form refuses it on the time zone field too", async () => {
    const s = await scene();
    const date = addDays(todayIn(new Date(), MIAMI), 21);
    expect((await book(s, s.there, date, "09:00", "10:00")).status).toBe(201);
    expect((await book(s, s.here, date, "12:00", "13:00")).status).toBe(201);
    const { request, signInCookie } = await import("./helpers");
    const cookie = await signInCookie(await createUser({ role: "ADMIN" }));
    const [loc] = await db().select().from(locations).where(eq(locations.id, s.clinic.id));
    const body = new URLSearchParams({ intent: "save", title: loc!.title, time_zone: LA, pos_codes: "12", version: String(loc!.version), address: loc!.address ?? "", city: loc!.city ?? "", state: loc!.state ?? "", zip: loc!.zip ?? "", phone1: loc!.phone1 ?? "", npi: loc!.npi ?? "", tax_id: loc!.taxId ?? "" });
    const res = await request(`/location/list/edit/${s.clinic.id}`, { method: "POST", cookie, body, headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("would overlap their session at");
    expect((await db().select().from(locations).where(eq(locations.id, s.clinic.id)))[0]!.timeZone).toBe(AUCKLAND);
  });
});

/** Sessions on the night New York's clocks go forward (2027-03-14, 02:00 → 03:00), booked while the clinic read Auckland time. */
describe("a time zone change over a daylight-saving night", () => {
  const NIGHT = "2027-03-14";
  async function dstScene(times: [string, string][]) {
    const s = await scene();
    const ids: number[] = [];
    for (const [timeIn, timeOut] of times) {
      const [a, b] = [localMinute(NIGHT, timeIn)!, localMinute(NIGHT, timeOut)!];
      const [row] = await db()
        .insert(scheduledSessions)
        .values({ patientId: s.there.id, providerId: s.provider, locationId: s.clinic.id, cptCode: "97153", paServiceId: s.there.pa, sessionDate: NIGHT, timeIn, timeOut, startAt: a, endAt: b, utcOffset: zoneOffsetAtLocal(a, AUCKLAND), minutes: b - a, units: Math.floor((b - a) / 15) })
        .returning();
      ids.push(row!.id);
    }
    return { s, ids };
  }

  it("each session takes the offset of its own start: before 02:00 standard time, after it daylight time", async () => {
    const { s, ids } = await dstScene([["00:30", "01:30"], ["09:00", "10:00"]]);
    expect((await rezone(s.clinic.id, MIAMI)).status).toBe(200);
    const rows = await db().select().from(scheduledSessions).where(eq(scheduledSessions.locationId, s.clinic.id));
    expect(rows.map((r) => [r.id, r.utcOffset, r.minutes])).toEqual([[ids[0], -300, 60], [ids[1], -240, 60]]);
  });

  it.each<[string, [string, string], string]>([
    ["a session across 02:00 would change its length", ["01:30", "03:30"], ZONE_CHANGE_MESSAGES.length(NIGHT, "01:30", "03:30", MIAMI, 60, 120)],
    ["a session at a time that night skips", ["02:30", "03:30"], ZONE_CHANGE_MESSAGES.skipped(NIGHT, "02:30", "03:30", MIAMI)],
  ])("refused, nothing changed: %s", async (_label, times, message) => {
    const { s } = await dstScene([times]);
    const res = await rezone(s.clinic.id, MIAMI);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.time_zone).toBe(message);
    expect((await db().select().from(locations).where(eq(locations.id, s.clinic.id)))[0]!.timeZone).toBe(AUCKLAND);
    const [row] = await db().select().from(scheduledSessions).where(eq(scheduledSessions.locationId, s.clinic.id));
    expect(row!.utcOffset).toBe(zoneOffsetAtLocal(row!.startAt, AUCKLAND));
  });
});
