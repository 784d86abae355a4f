/** Calendar helpers that respect a location's IANA time zone. Pure. */

/**
 * One formatter per time zone: building an Intl.DateTimeFormat costs far more than using one (the dashboard's
 * chart turned thousands of instants into months and spent most of its time building formatters).
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", hourCycle: "h23" });
    formatters.set(timeZone, f);
  }
  return f;
}

function partsIn(at: Date, timeZone: string) {
  const p: Record<string, string> = {};
  for (const x of formatterFor(timeZone).formatToParts(at)) p[x.type] = x.value;
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second) };
}

/** The calendar date (yyyy-mm-dd) of an instant in the zone: a location's "today". */
export function zonedDate(at: Date, timeZone: string): string {
  const p = partsIn(at, timeZone);
  return `${p.year}-${String(p.month).padStart(2, "0")}-${String(p.day).padStart(2, "0")}`;
}

/**
 * A stored instant (an ISO UTC timestamp or a Date) on the reader's clock, "yyyy-mm-dd hh:mm": in `timeZone`, in UTC
 * when there is none. The screens pass the actor's zone (their location's, UTC for an actor without one: the rule of
 * `actorToday`, decision 039), so a row created at 19:00 in Denver reads that day, not the next one in UTC. A zone
 * the runtime does not know reads as UTC; a value that is not an instant is shown as it is.
 */
export function localDateTime(at: string | Date, timeZone: string | null | undefined): string {
  const instant = typeof at === "string" ? new Date(at) : at;
  if (Number.isNaN(instant.getTime())) return typeof at === "string" ? at : "";
  let p: ReturnType<typeof partsIn>;
  try {
    p = partsIn(instant, timeZone || "UTC");
  } catch {
    p = partsIn(instant, "UTC");
  }
  const two = (n: number) => String(n).padStart(2, "0");
  return `${String(p.year).padStart(4, "0")}-${two(p.month)}-${two(p.day)} ${two(p.hour)}:${two(p.minute)}`;
}

/** The calendar date (yyyy-mm-dd) of a stored instant on the reader's clock: `localDateTime` without the time. */
export function localDate(at: string | Date, timeZone: string | null | undefined): string {
  const local = localDateTime(at, timeZone);
  return /^\d{4}-\d{2}-\d{2} /.test(local) ? local.slice(0, 10) : local;
}

/** Minutes the zone is ahead of UTC at that instant. */
export function zoneOffsetMinutes(at: Date, timeZone: string): number {
  const p = partsIn(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/**
 * Minutes the zone is ahead of UTC when its clocks read `localMinute` (minutes since 1970-01-01 on the zone's own
 * clock: a session's start_at, app/domain/note-rules.ts). A clock time that happens twice (autumn) or never
 * (spring) takes one of the two offsets around the change (as zonedMidnight does).
 */
export function zoneOffsetAtLocal(localMinute: number, timeZone: string): number {
  const asUtc = localMinute * 60_000;
  return zoneOffsetMinutes(new Date(asUtc - zoneOffsetMinutes(new Date(asUtc), timeZone) * 60_000), timeZone);
}

/**
 * The local minute whose clock reads a session's end: the end itself, but a time out of 24:00 (`end` on a date's
 * boundary, decision 024 stop 32) is the end of the date's last minute, so a zone that moves its clocks at midnight
 * reads it on the session date's offset.
 */
const readAt = (localMinute: number, end: boolean) => (end && localMinute % 1440 === 0 ? localMinute - 1 : localMinute);

/**
 * A local minute read on another clock of the same zone: the one whose UTC offset is `clockOffset` (the offset at a
 * session's first start, decision 024). Across a daylight-saving change the times of one session then differ by
 * the time that passes, not by what the clock shows. `end`: the minute is a session's end (readAt).
 */
export function onClockOf(localMinute: number, timeZone: string, clockOffset: number, end = false): number {
  return localMinute - (zoneOffsetAtLocal(readAt(localMinute, end), timeZone) - clockOffset);
}

/** False for a clock time the zone skips (02:00–02:59 on a spring-forward night in the US): no instant reads so. `end`: a session's end (readAt). */
export function localTimeExists(localMinute: number, timeZone: string, end = false): boolean {
  const at = readAt(localMinute, end);
  const utc = at - zoneOffsetAtLocal(at, timeZone);
  return utc + zoneOffsetMinutes(new Date(utc * 60_000), timeZone) === at;
}

/**
 * The UTC instant the day year-month-day begins in the zone: its local midnight, or, where the clocks spring forward
 * at midnight (Santiago, Havana: 00:00 reads 01:00), the first instant of the day, the change itself. Local midnight
 * is `guess` less one of the offsets the zone has around that day; the earliest of those instants that reads the
 * day is its start (probe 9034: a two-step guess settled on 23:00 the evening before, which reads the day before).
 * A day the zone skips whole begins where the next day does (decision 039).
 */
export function zonedMidnight(year: number, month: number, day: number, timeZone: string): Date {
  const guess = Date.UTC(year, month - 1, day);
  const start = firstInstantOf(guess, timeZone);
  if (start !== null) return new Date(start);
  // No instant reads the day: the zone skips it whole (Pacific/Apia, 30 December 2011, went from the 29th to the
  // 31st). It "begins" where the gap ends, at the start of the next day that exists, so a period ending the evening
  // before still ends after it began (localDayBounds) and the skipped day is an empty range, not a negative one.
  const next = firstInstantOf(guess + 86_400_000, timeZone);
  if (next !== null) return new Date(next);
  const at = new Date(guess - zoneOffsetMinutes(new Date(guess), timeZone) * 60_000);
  return new Date(guess - zoneOffsetMinutes(at, timeZone) * 60_000);
}

/** The earliest instant reading the UTC-midnight `guess`'s date in the zone, among `guess` less the offsets near it; null when none does. */
function firstInstantOf(guess: number, timeZone: string): number | null {
  const date = new Date(guess).toISOString().slice(0, 10);
  const offsets = new Set([-1, 0, 1].map((d) => zoneOffsetMinutes(new Date(guess + d * 86_400_000), timeZone)));
  const starts = [...offsets].map((o) => guess - o * 60_000).filter((t) => zonedDate(new Date(t), timeZone) === date);
  return starts.length ? Math.min(...starts) : null;
}

/**
 * The stored instants (ISO UTC, as the tables keep them) that fall on the local days `from` … `to` (inclusive,
 * yyyy-mm-dd) in the zone: `start` is local midnight of `from`, `before` local midnight of the day after `to`; either
 * is null when its day is not given. A list filters `at >= start and at < before` (index-friendly), so its From/To
 * keep exactly the rows whose `localDate` in the same zone is in the period. No zone, or one the runtime does not
 * know, reads UTC days (as `localDate` does).
 */
export function localDayBounds(from: string | null | undefined, to: string | null | undefined, timeZone: string | null | undefined): { start: string | null; before: string | null } {
  const midnight = (date: string) => {
    const [y, m, d] = date.split("-").map(Number) as [number, number, number];
    try {
      return zonedMidnight(y, m, d, timeZone || "UTC").toISOString();
    } catch {
      return zonedMidnight(y, m, d, "UTC").toISOString();
    }
  };
  const dayAfter = (date: string) => new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
  return { start: from ? midnight(from) : null, before: to ? midnight(dayAfter(to)) : null };
}

/** The local year and month (1-12) of an instant in the zone. */
export function zonedYearMonth(at: Date, timeZone: string): { year: number; month: number } {
  const p = partsIn(at, timeZone);
  return { year: p.year, month: p.month };
}

/** Start of the local month `offset` months from the one containing `at` (0 = this month, -1 = last). */
export function zonedMonthStart(at: Date, timeZone: string, offset = 0): Date {
  const { year, month } = zonedYearMonth(at, timeZone);
  const index = year * 12 + (month - 1) + offset;
  return zonedMidnight(Math.floor(index / 12), (index % 12) + 1, 1, timeZone);
}

export function isValidTimeZone(timeZone: string): boolean {
  return canonicalTimeZone(timeZone) !== null;
}

/**
 * A time zone as IANA spells it, as Intl resolves it ("america/new_york" → "America/New_York", "US/Eastern" →
 * "America/New_York"); null when it is not one. A UTC offset ("+05:30", "-0800") is not a zone name, though the
 * runtime's Intl takes one: it has no daylight-saving rules (probe 8965 §5). Every IANA name starts with a letter.
 */
export function canonicalTimeZone(timeZone: string): string | null {
  try {
    const resolved = new Intl.DateTimeFormat("en-US", { timeZone }).resolvedOptions().timeZone;
    return /^[A-Za-z]/.test(timeZone) && /^[A-Za-z]/.test(resolved) ? resolved : null;
  } catch {
    return null;
  }
}

/** A time zone as a place, for the month grid's small cells: "America/Los_Angeles" → "Los Angeles". */
export function zonePlace(timeZone: string): string {
  return (timeZone.split("/").pop() ?? timeZone).replace(/_/g, " ");
}

