import { and, asc, eq, gte, inArray, isNull, lte } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { locations, paServices, patients, scheduleSeries } from "../app/db/schema";
import { todayIn } from "../app/domain/note-rules";
import { addDays, dayNumber, weekdayOfDay } from "../app/domain/weeks";
import { getActor } from "../app/models/actors.server";
import { bookSessions } from "../app/models/schedule.server";
import { DEMO_PATIENT_IDS } from "./demo-ids";

/**
 * Demo scheduled sessions (issue 12, decision 037): a few weekly series in three locations of different time
 * zones (Miami, Denver, Los Angeles), booked through the same model as the screen (as the demo admin, for
 * each location's RBT), from the next Monday on for eight weeks. A booking the rules refuse (it would clash
 * with a demo note) is left out. Idempotent: nothing happens once any series exists.
 */
const PLAN: { location: number; provider: number; weekday: number; timeIn: string; timeOut: string }[] = [
  { location: 1, provider: 13, weekday: 1, timeIn: "15:00", timeOut: "17:00" },
  { location: 1, provider: 13, weekday: 3, timeIn: "15:00", timeOut: "17:00" },
  { location: 2, provider: 14, weekday: 2, timeIn: "09:00", timeOut: "11:00" },
  { location: 2, provider: 14, weekday: 4, timeIn: "13:30", timeOut: "15:30" },
  { location: 3, provider: 15, weekday: 1, timeIn: "10:00", timeOut: "12:00" },
  { location: 3, provider: 15, weekday: 5, timeIn: "16:00", timeOut: "17:30" },
];

export async function seedDemoSchedule(db: Db, now = new Date()): Promise<{ series: number; refused: string[] }> {
  const [any] = await db.select({ id: scheduleSeries.id }).from(scheduleSeries).limit(1);
  if (any) return { series: 0, refused: [] };
  const actor = await getActor(db, "user", 1);
  if (!actor) return { series: 0, refused: ["The demo admin (user 1) is missing."] };
  const ctx = { db, actor, ip: "127.0.0.1", now: () => now };
  const refused: string[] = [];
  let series = 0;
  const used = new Set<number>();
  for (const p of PLAN) {
    const [loc] = await db.select({ timeZone: locations.timeZone }).from(locations).where(eq(locations.id, p.location));
    if (!loc) continue;
    const today = todayIn(now, loc.timeZone);
    let first = addDays(today, 1);
    while (weekdayOfDay(dayNumber(first)!) !== p.weekday) first = addDays(first, 1);
    const until = addDays(first, 7 * 7);
    // A client of the location with an RBT authorization (97153) covering the eight weeks.
    const candidates = await db
      .select({ patientId: patients.id, pa: paServices.id })
      .from(patients)
      .innerJoin(paServices, eq(paServices.patientId, patients.id))
      .where(and(inArray(patients.id, [...DEMO_PATIENT_IDS]), eq(patients.locationId, p.location), isNull(patients.deletedAt), isNull(paServices.deletedAt), eq(paServices.cpt, "97153"), lte(paServices.startDate, first), gte(paServices.endDate, until)))
      .orderBy(asc(patients.id))
      .limit(10);
    const pick = candidates.find((c) => !used.has(c.patientId));
    if (!pick) {
      refused.push(`No client with a covering authorization at location ${p.location}.`);
      continue;
    }
    used.add(pick.patientId);
    const r = await bookSessions(ctx, { patient_id: pick.patientId, provider_id: p.provider, cpt_code: "97153", pa_service_id: pick.pa, session_date: first, time_in: p.timeIn, time_out: p.timeOut, repeat: "weekly", until });
    if (r.ok) series++;
    else refused.push(r.message);
  }
  return { series, refused };
}
