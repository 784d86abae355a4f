/**
 * A location's time zone corrected (decision 037, 2026-11-28 stop 39): the sessions keep their clock times (what was
 * recorded), and each one's UTC offset (notes.utc_offset, scheduled_sessions.utc_offset; decision 024 "The offset")
 * is worked out again for the new zone, as a save would (`inZone`: the zone's offset when its clocks read the
 * session's first start, `zoneOffsetAtLocal`). Pure: the model turns this plan into set-based UPDATEs.
 */
import { zoneOffsetAtLocal } from "./time";
import { dayNumber } from "./weeks";

/** A day on which the zone's clocks move: each run of its local minutes with one offset ([from, to) absolute local minutes). */
export interface ChangeDaySegment {
  date: string;
  from: number;
  to: number;
  offset: number;
}

export interface ZoneOffsetPlan {
  /** The dates on which the offset is the same all day, grouped by that offset. */
  byOffset: Map<number, string[]>;
  /** The dates on which the clocks move, cut into runs of one offset each (by the session's first start). */
  segments: ChangeDaySegment[];
  /** Every date on which the clocks move in the old or the new zone: a session there may change its length. */
  changeDays: Set<string>;
}

/** Distinct session dates a location may hold for a zone change in one batch (the dates ride as JSON parameters). */
export const ZONE_CHANGE_MAX_DATES = 10_000;

/** True when the zone's clocks move on this date (or right at its midnights): the offset before and after differ. */
export function clocksMoveOn(date: string, timeZone: string): boolean {
  const day = dayNumber(date);
  if (day === null) return false;
  // From 23:00 the evening before to 01:00 the morning after: no zone moves its clocks twice within 26 hours.
  return zoneOffsetAtLocal(day * 1440 - 60, timeZone) !== zoneOffsetAtLocal((day + 1) * 1440 + 60, timeZone);
}

/** The runs of one offset over a date's local minutes (the offset a session starting at that minute gets). */
export function daySegments(date: string, timeZone: string): ChangeDaySegment[] {
  const base = dayNumber(date)! * 1440;
  const at = (m: number) => zoneOffsetAtLocal(base + m, timeZone);
  const out: ChangeDaySegment[] = [];
  let from = 0;
  let offset = at(0);
  for (let m = 15; m <= 1440; m += 15) {
    const next = m === 1440 ? null : at(m);
    if (next === offset) continue;
    // The offset changes within (m − 15, m] (or the day ends): find the first minute of the new offset.
    let lo = m - 15;
    let hi = m;
    if (next !== null) {
      while (hi - lo > 1) {
        const mid = (lo + hi) >> 1;
        if (at(mid) === offset) lo = mid;
        else hi = mid;
      }
    }
    out.push({ date, from: base + from, to: base + hi, offset });
    if (next === null) break;
    from = hi;
    offset = next;
  }
  return out;
}

/** How the offsets of a location's sessions on these dates are set for `newZone` (coming from `oldZone`). */
export function zoneOffsetPlan(dates: readonly string[], oldZone: string, newZone: string): ZoneOffsetPlan {
  const byOffset = new Map<number, string[]>();
  const segments: ChangeDaySegment[] = [];
  const changeDays = new Set<string>();
  for (const date of dates) {
    const day = dayNumber(date);
    if (day === null) continue;
    const movesNew = clocksMoveOn(date, newZone);
    if (movesNew || clocksMoveOn(date, oldZone)) changeDays.add(date);
    if (movesNew) {
      segments.push(...daySegments(date, newZone));
      continue;
    }
    const offset = zoneOffsetAtLocal(day * 1440, newZone);
    const list = byOffset.get(offset);
    if (list) list.push(date);
    else byOffset.set(offset, [date]);
  }
  return { byOffset, segments, changeDays };
}
