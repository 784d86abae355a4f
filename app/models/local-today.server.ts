import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { locations } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import { addDays } from "~/domain/weeks";
import { isValidTimeZone, localDate } from "~/domain/time";
import type { ReportRunContext } from "~/services/report-screens.server";
import type { ModelContext } from "./context";

/**
 * "Today" at each row's location, in SQL (decision 038, stop 32), so that a report's filter, paging and day counts
 * judge every row on its location's date, as its pacing does (decision 031), in the same statement.
 *
 * At any instant every IANA zone is on one of at most three dates. The zones are grouped by their today (the one
 * rule, `todayAtLocation`), and a zone column becomes `case when <zone> in (select value from json_each(?)) then
 * '<date>' … else '<the most zones' date>' end`: a non-correlated IN, evaluated once per statement. A zone's date
 * changes only at a quarter-hour of UTC (every offset is a multiple of 15 minutes), so the grouping is kept in the
 * isolate for the 15-minute slot of UTC it was made in, never longer.
 *
 * Intl lists canonical names only; a location may store a name it accepts under another (an alias such as
 * US/Eastern, UTC, another spelling: the location form takes any zone Intl accepts). `readAtLocalToday` reads the
 * zone names the locations hold in the same batch, and a name not yet grouped is learnt and the reads run again
 * (one more round trip, the first time this isolate meets that name).
 */

const SLOT_MS = 15 * 60_000;

/** Zone names stored on locations that Intl does not list, as they were met. */
const learnt = new Set<string>();
let listed: Set<string> | null = null;
let grouped: { slot: number; learnt: number; days: [day: string, zones: string[]][] } | null = null;

function listedZones(): Set<string> {
  listed ??= new Set(Intl.supportedValuesOf("timeZone"));
  return listed;
}

/** Every known zone name grouped by its today, the most zones' date last (it becomes the `else`). */
function zoneDays(now: Date): [day: string, zones: string[]][] {
  const slot = Math.floor(now.getTime() / SLOT_MS);
  if (grouped?.slot === slot && grouped.learnt === learnt.size) return grouped.days;
  const at = new Date(slot * SLOT_MS);
  const byDay = new Map<string, string[]>();
  for (const zone of [...listedZones(), ...learnt]) {
    const day = todayAtLocation(at, zone);
    const zones = byDay.get(day);
    if (zones) zones.push(zone);
    else byDay.set(day, [zone]);
  }
  const days = [...byDay].sort((a, b) => a[1].length - b[1].length);
  grouped = { slot, learnt: learnt.size, days };
  return days;
}

export interface LocalToday {
  /** Today at the zone a column names, `plusDays` later, as an SQL date (yyyy-mm-dd). */
  at(zone: SQLWrapper, plusDays?: number): SQL;
  /** The earliest and the latest today anywhere: a bound an index can use beside the exact condition. */
  earliest: string;
  latest: string;
}

export function localToday(now: Date): LocalToday {
  const days = zoneDays(now);
  const [common] = days.at(-1)!;
  const others = days.slice(0, -1).map(([day, zones]) => ({ day, zones: JSON.stringify(zones) }));
  const dates = days.map(([day]) => day).sort();
  return {
    earliest: dates[0]!,
    latest: dates.at(-1)!,
    at(zone, plusDays = 0) {
      if (!others.length) return sql`${addDays(common, plusDays)}`;
      const branches = others.map((o) => sql`when ${zone} in (select value from json_each(${o.zones})) then ${addDays(o.day, plusDays)}`);
      return sql`(case ${sql.join(branches, sql` `)} else ${addDays(common, plusDays)} end)`;
    },
  };
}

/** Learns the stored zone names not grouped yet (valid ones); true when there was one. */
function learn(stored: readonly { zone: string }[]): boolean {
  const known = listedZones();
  const fresh = stored.map((r) => r.zone).filter((z) => !known.has(z) && !learnt.has(z) && isValidTimeZone(z));
  for (const z of fresh) learnt.add(z);
  return fresh.length > 0;
}

type Results<T extends BatchItem<"sqlite">[]> = { [K in keyof T]: T[K] extends BatchItem<"sqlite"> ? Awaited<T[K]> : never };

/**
 * A report's first batch (`rc.read`) built on each location's today, with the zone names the locations hold; when
 * one is not grouped yet, it is learnt and the reads run again on the new grouping.
 */
export async function readAtLocalToday<T extends BatchItem<"sqlite">[]>(
  rc: Pick<ReportRunContext, "db" | "now" | "read">,
  reads: (today: LocalToday) => [...T],
): Promise<{ today: LocalToday; results: Results<T> }> {
  const today = localToday(rc.now());
  const all = (await rc.read([...reads(today), rc.db.selectDistinct({ zone: locations.timeZone }).from(locations)])) as unknown[];
  if (!learn(all.at(-1) as { zone: string }[])) return { today, results: all.slice(0, -1) as Results<T> };
  const again = localToday(rc.now());
  return { today: again, results: (await rc.db.batch(reads(again) as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown as Results<T> };
}

/** The actor's today (their location's time zone, UTC without one): what a CSV's file name carries. */
export function actorToday(ctx: ModelContext): string {
  return localDate(ctx.now(), ctx.actor.timeZone);
}

/** "2026-11-27 in America/New_York": the actor's today, said beside a report that judges each row on its own. */
export function actorTodayText(ctx: ModelContext): string {
  return `${actorToday(ctx)} in ${ctx.actor.timeZone ?? "UTC"}`;
}
