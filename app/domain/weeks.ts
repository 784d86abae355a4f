/**
 * Weeks (clinical §9, architecture "Time"): a week runs Sunday to Saturday and is identified by its
 * Saturday; week_start is the Saturday minus 6 days. Dates are ISO yyyy-mm-dd calendar dates with no
 * time zone: the location's time zone has already decided which day it is.
 */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Parses yyyy-mm-dd into a UTC-midnight Date, or null when it is not a real calendar date. */
export function parseIsoDate(value: string): Date | null {
  const m = ISO_DATE.exec(value);
  if (!m) return null;
  const [y, mo, day] = [Number(m[1]), Number(m[2]) - 1, Number(m[3])];
  const d = new Date(Date.UTC(y, mo, day));
  // A real calendar date maps back to itself (no 31 February); cheaper than formatting it again.
  return d.getUTCFullYear() === y && d.getUTCMonth() === mo && d.getUTCDate() === day ? d : null;
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  const d = parseIsoDate(date);
  if (!d) throw new Error(`Not a date: ${date}`);
  return isoDate(new Date(d.getTime() + days * 86_400_000));
}

export function isSaturday(date: string): boolean {
  return parseIsoDate(date)?.getUTCDay() === 6;
}

/** The week_start of the week that ends on this Saturday. */
export function weekStartOf(weekEnd: string): string {
  return addDays(weekEnd, -6);
}

/** The Saturday that ends the week containing this date. */
export function weekEndingOn(date: string): string {
  const d = parseIsoDate(date);
  if (!d) throw new Error(`Not a date: ${date}`);
  return addDays(date, 6 - d.getUTCDay());
}

/** Whole days from a to b (b − a). */
export function daysBetween(a: string, b: string): number {
  const da = parseIsoDate(a);
  const db = parseIsoDate(b);
  if (!da || !db) throw new Error(`Not a date: ${a} / ${b}`);
  return Math.round((db.getTime() - da.getTime()) / 86_400_000);
}
