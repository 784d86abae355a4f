/** Calendar helpers that respect a location's IANA time zone. Pure. */

function partsIn(at: Date, timeZone: string) {
  const f = new Intl.DateTimeFormat("en-US", { timeZone, year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", hourCycle: "h23" });
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return { year: Number(p.year), month: Number(p.month), day: Number(p.day), hour: Number(p.hour), minute: Number(p.minute), second: Number(p.second) };
}

/** Minutes the zone is ahead of UTC at that instant. */
export function zoneOffsetMinutes(at: Date, timeZone: string): number {
  const p = partsIn(at, timeZone);
  const asUtc = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
  return Math.round((asUtc - Math.floor(at.getTime() / 1000) * 1000) / 60_000);
}

/** The UTC instant of local midnight on year-month-day in the zone. */
export function zonedMidnight(year: number, month: number, day: number, timeZone: string): Date {
  const guess = Date.UTC(year, month - 1, day);
  let at = new Date(guess - zoneOffsetMinutes(new Date(guess), timeZone) * 60_000);
  at = new Date(guess - zoneOffsetMinutes(at, timeZone) * 60_000);
  return at;
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
  try {
    new Intl.DateTimeFormat("en-US", { timeZone });
    return true;
  } catch {
    return false;
  }
}
