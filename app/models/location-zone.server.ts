import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { primaryOf } from "~/db/client.server";
import { locations, notes, scheduledSessions } from "~/db/schema";
import { sessionTimes, inZone, type SessionTimes } from "~/domain/note-rules";
import { occurrenceTimes } from "~/domain/schedule";
import { ZONE_CHANGE_MAX_DATES, zoneOffsetPlan, type ZoneOffsetPlan } from "~/domain/zone-change";
import { auditTail } from "~/services/audit.server";
import type { ModelContext } from "./context";

/**
 * A location's time zone corrected (decision 037, 2026-11-28 stop 39). The clock times of its sessions stay (what
 * the clinician recorded); the UTC offset of each live note and scheduled session is set for the new zone in the
 * batch that changes the zone, so the provider rules keep comparing moments (decision 024 "The offset"). Refused,
 * with nothing changed, when the new offsets would make a provider's sessions overlap, when a session across a
 * daylight-saving change would change its length (its minutes and units), or when there are too many dates.
 */

export const ZONE_CHANGE_MESSAGES = {
  overlap: (who: string, date: string, from: string, to: string, place: string, otherDate: string, otherFrom: string, otherTo: string) =>
    `In the new time zone, ${who}'s session on ${date} from ${from} to ${to} would overlap their session at ${place} on ${otherDate} from ${otherFrom} to ${otherTo}. Move one of them first; the time zone was not changed.`,
  length: (date: string, from: string, to: string, zone: string, minutes: number, stored: number) =>
    `The session on ${date} from ${from} to ${to} crosses a daylight-saving change: in ${zone} it would last ${minutes} minutes, not ${stored}. Change its times first; the time zone was not changed.`,
  skipped: (date: string, from: string, to: string, zone: string) =>
    `The session on ${date} from ${from} to ${to} has a clock time that ${zone} skips that night. Change its times first; the time zone was not changed.`,
  tooMany: (n: number) =>
    `This location has sessions on ${n} different dates, more than a time zone change can update at once (${ZONE_CHANGE_MAX_DATES}). The time zone was not changed.`,
  raced: "The location's sessions changed while its time zone was being changed. Save again.",
} as const;

/** The new offset of a row (its session date and first start), as SQL: the plan's dates grouped by offset, then the change days' runs. */
function offsetSql(plan: ZoneOffsetPlan, date: SQL, start: SQL): SQL {
  const segments = JSON.stringify(plan.segments.map((s) => [s.date, s.from, s.to, s.offset]));
  const onChangeDay = sql`(select json_extract(g.value, '$[3]') from json_each(${segments}) g where json_extract(g.value, '$[0]') = ${date} and ${start} >= json_extract(g.value, '$[1]') and ${start} < json_extract(g.value, '$[2]'))`;
  if (!plan.byOffset.size) return onChangeDay;
  // Non-correlated INs: each date list is read once per statement, whatever the number of rows.
  const branches = [...plan.byOffset].map(([offset, dates]) => sql`when ${date} in (select value from json_each(${JSON.stringify(dates)})) then ${sql.raw(String(Math.trunc(offset)))}`);
  return sql`(case ${sql.join(branches, sql` `)} else ${onChangeDay} end)`;
}

const liveNotes = (id: number) => and(eq(notes.locationId, id), isNull(notes.deletedAt));
const liveSessions = (id: number) => and(eq(scheduledSessions.locationId, id), eq(scheduledSessions.status, "scheduled"));

/**
 * The first pair of sessions of one provider that the new offsets would make overlap (and that did not before):
 * this location's live notes and scheduled sessions against every live one of the same provider (here or elsewhere).
 */
function newOverlapQuery(ctx: ModelContext, id: number, plan: ZoneOffsetPlan) {
  const db = primaryOf(ctx.db);
  const noff = offsetSql(plan, sql`p.d`, sql`p.sa`);
  const shift = (a: string, b: string) => sql.raw(`(case when ${a} is null or ${b} is null then 0 else ${a} - ${b} end)`);
  const overlap = (a: string, b: string) => sql`(m.s < o.e + ${shift(`m.${a}`, `o.${b}`)} and o.s + ${shift(`m.${a}`, `o.${b}`)} < m.e)`;
  // One scalar subquery (a JSON object or null) on the location's row, so it rides in the read batch.
  const clash = sql<string | null>`(
    with prov(pid) as (
      select provider_id from notes where location_id = ${id} and deleted_at is null
      union select provider_id from scheduled_sessions where location_id = ${id} and status = 'scheduled'
    ),
    p(kind, id, loc, pid, d, sa, s, e, tin, tout, off) as (
      select 'note', id, location_id, provider_id, session_date, start_at, start1_at, end1_at, time_in, time_out, utc_offset from notes
        where deleted_at is null and start1_at is not null and provider_id in (select pid from prov)
      union all
      select 'note', id, location_id, provider_id, session_date, start_at, start2_at, end2_at, time_in2, time_out2, utc_offset from notes
        where deleted_at is null and start2_at is not null and provider_id in (select pid from prov)
      union all
      select 'session', id, location_id, provider_id, session_date, start_at, start_at, end_at, time_in, time_out, utc_offset from scheduled_sessions
        where status = 'scheduled' and provider_id in (select pid from prov)
    ),
    q as materialized (select p.*, case when p.loc = ${id} then ${noff} else p.off end as noff from p)
    select json_object('who', (select trim(u.name || ' ' || u.surname) from users u where u.id = m.pid),
      'md', m.d, 'mi', m.tin, 'mo', m.tout, 'od', o.d, 'oi', o.tin, 'oo', o.tout,
      'place', (select l.title from locations l where l.id = o.loc))
    from q m join q o on o.pid = m.pid and not (o.kind = m.kind and o.id = m.id) and o.sa between m.sa - 4560 and m.sa + 4560
    where m.loc = ${id} and ${overlap("noff", "noff")} and not ${overlap("off", "off")}
    limit 1)`;
  return db.select({ clash }).from(locations).where(eq(locations.id, id));
}

type ChangeDayNote = { id: number; date: string; in1: string | null; out1: string | null; in2: string | null; out2: string | null; s1: number | null; e1: number | null; s2: number | null; e2: number | null; minutes: number };
type ChangeDaySession = { id: number; date: string; in1: string; out1: string; s: number; e: number; minutes: number };

/** A session on a day the clocks move: refused when the new zone reads its times differently (length or a skipped time). */
function changeDayRefusal(date: string, from: string, to: string, stored: { pairs: [number | null, number | null][]; minutes: number }, zone: string, times: { ok: true; times: SessionTimes } | { ok: false }): string | null {
  if (!times.ok) return ZONE_CHANGE_MESSAGES.skipped(date, from, to, zone);
  const t = times.times;
  const now = [t.pair1, t.pair2].map((p) => [p?.start ?? null, p?.end ?? null]);
  const same = stored.pairs.every(([s, e], i) => s === now[i]![0] && e === now[i]![1]);
  return same ? null : ZONE_CHANGE_MESSAGES.length(date, from, to, zone, t.minutes, Number(stored.minutes));
}

export type ZoneChange = { ok: true; tail: string | null; writes: () => BatchItem<"sqlite">[]; detail: Record<string, unknown> } | { ok: false; message: string };

/**
 * Reads what a change of location `id` from `oldZone` to `newZone` touches (two round trips) and returns the
 * statements that set the new offsets, to run in the batch after the location's update, chained to `tail` (a
 * session written meanwhile makes the batch fail; the caller reads again) — or the refusal.
 */
export async function planZoneChange(ctx: ModelContext, id: number, oldZone: string, newZone: string, place: string): Promise<ZoneChange> {
  const db = primaryOf(ctx.db);
  const [[head], dates] = await db.batch([
    db.select({ tail: auditTail }).from(locations).where(eq(locations.id, id)),
    db
      .selectDistinct({ d: notes.sessionDate })
      .from(notes)
      .where(liveNotes(id))
      .union(db.selectDistinct({ d: scheduledSessions.sessionDate }).from(scheduledSessions).where(liveSessions(id))),
  ]);
  const tail = head?.tail ?? null;
  if (dates.length > ZONE_CHANGE_MAX_DATES) return { ok: false, message: ZONE_CHANGE_MESSAGES.tooMany(dates.length) };
  const plan = zoneOffsetPlan(
    dates.map((r) => r.d),
    oldZone,
    newZone,
  );
  const zoneIsNew = sql`(select ${locations.timeZone} from ${locations} where ${locations.id} = ${id}) = ${newZone}`;
  const detail = { time_zone: newZone, previous_time_zone: oldZone, session_dates: dates.length };
  if (!dates.length) return { ok: true, tail, writes: () => [], detail };

  const changeDays = JSON.stringify([...plan.changeDays]);
  const onChangeDays = (col: typeof notes.sessionDate | typeof scheduledSessions.sessionDate) => sql`${col} in (select value from json_each(${changeDays}))`;
  const [changeNotes, changeSessions, overlaps] = await db.batch([
    db
      .select({ id: notes.id, date: notes.sessionDate, in1: notes.timeIn, out1: notes.timeOut, in2: notes.timeIn2, out2: notes.timeOut2, s1: notes.start1At, e1: notes.end1At, s2: notes.start2At, e2: notes.end2At, minutes: notes.minutes })
      .from(notes)
      .where(and(liveNotes(id), onChangeDays(notes.sessionDate))),
    db
      .select({ id: scheduledSessions.id, date: scheduledSessions.sessionDate, in1: scheduledSessions.timeIn, out1: scheduledSessions.timeOut, s: scheduledSessions.startAt, e: scheduledSessions.endAt, minutes: scheduledSessions.minutes })
      .from(scheduledSessions)
      .where(and(liveSessions(id), onChangeDays(scheduledSessions.sessionDate))),
    newOverlapQuery(ctx, id, plan),
  ]);

  for (const n of changeNotes as ChangeDayNote[]) {
    if (n.s1 === null && n.s2 === null) continue;
    const typed = { session_date: n.date, time_in: n.in1 ?? "", time_out: n.out1 ?? "", time_in2: n.in2 ?? "", time_out2: n.out2 ?? "" };
    const parsed = sessionTimes(typed, typed);
    const times = parsed.ok ? inZone(parsed.times, newZone, n.date) : parsed;
    const from = n.in1 ?? n.in2 ?? "";
    const to = n.out2 ?? n.out1 ?? "";
    const refusal = changeDayRefusal(n.date, from, to, { pairs: [[n.s1, n.e1], [n.s2, n.e2]], minutes: n.minutes }, newZone, times);
    if (refusal) return { ok: false, message: refusal };
  }
  for (const s of changeSessions as ChangeDaySession[]) {
    const refusal = changeDayRefusal(s.date, s.in1, s.out1, { pairs: [[s.s, s.e], [null, null]], minutes: s.minutes }, newZone, occurrenceTimes(s.date, s.in1, s.out1, newZone));
    if (refusal) return { ok: false, message: refusal };
  }
  const found = overlaps[0]?.clash;
  const clash = found ? (JSON.parse(found) as { who: string | null; md: string; mi: string; mo: string; od: string; oi: string; oo: string; place: string | null }) : null;
  if (clash) return { ok: false, message: ZONE_CHANGE_MESSAGES.overlap(clash.who || "The provider", clash.md, clash.mi, clash.mo, clash.place ?? place, clash.od, clash.oi, clash.oo) };

  const noteOffset = offsetSql(plan, sql`"notes"."session_date"`, sql`"notes"."start_at"`);
  const sessionOffset = offsetSql(plan, sql`"scheduled_sessions"."session_date"`, sql`"scheduled_sessions"."start_at"`);
  return {
    ok: true,
    tail,
    detail,
    // Only once the location reads the new zone (its update may have lost to a newer version): the offsets follow the zone it has.
    writes: () => [
      ctx.db.update(notes).set({ utcOffset: sql`coalesce(${noteOffset}, ${notes.utcOffset})` }).where(and(liveNotes(id), zoneIsNew)),
      ctx.db.update(scheduledSessions).set({ utcOffset: sql`coalesce(${sessionOffset}, ${scheduledSessions.utcOffset})` }).where(and(liveSessions(id), zoneIsNew)),
    ],
  };
}
