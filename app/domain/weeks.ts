/**
 * Weeks (clinical §9, architecture "Time"): a week runs Sunday to Saturday and is identified by its
 * Saturday; week_start is the Saturday minus 6 days. Dates are ISO yyyy-mm-dd calendar dates with no
 * time zone: the location's time zone has already decided which day it is.
 *
 * Date arithmetic works on day numbers (whole days since 1970-01-01) with integer civil-calendar
 * formulas, not Date objects: a three-year chart converts several hundred dates per request.
 */
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAY_MS = 86_400_000;

const isLeapYear = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * Day number of a real calendar date (yyyy-mm-dd; no 31 February; years from 0100, as JavaScript's
 * Date reads two-digit years otherwise), or null.
 */
export function dayNumber(date: string): number | null {
  const m = ISO_DATE.exec(date);
  if (!m) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > (mo === 2 && isLeapYear(y) ? 29 : DAYS_IN_MONTH[mo - 1]!)) return null;
  // Days from civil (H. Hinnant): years start in March, so the leap day is the last day of a year.
  const yy = mo <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/**
 * The first year of a date the product takes (decision 017). dayNumber itself reaches back to 0100, but a date
 * accepted at its edge still crashed: a report or calendar steps to the week or month around it (addDays, monthOf)
 * and lands before 0100. No client, session, note or birth date of this product is older than 1900, so every
 * validator asks isProductDate, and the arithmetic never meets a date it cannot handle (probe, stop 24).
 */
export const FIRST_YEAR = 1900;

/**
 * The last year of a date the product takes. dayNumber reads up to 9999-12-31, but the calendar's week and month
 * around 9999-12-31 step into year 10000 and crashed (probe 8894, stop 25). No session, authorization or
 * compliance date of a clinic is a thousand years away; the arithmetic keeps centuries of room either side.
 */
export const LAST_YEAR = 2999;

/** Whether a yyyy-mm-dd string is a date the product accepts: a real calendar date from FIRST_YEAR through LAST_YEAR. */
export function isProductDate(date: string): boolean {
  const year = Number(date.slice(0, 4));
  return dayNumber(date) !== null && year >= FIRST_YEAR && year <= LAST_YEAR;
}

const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/** yyyy-mm-dd of a day number (a fraction of a day is dropped). */
export function dateOfDay(day: number): string {
  const z = Math.floor(day) + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const mo = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (mo <= 2 ? 1 : 0);
  return `${String(y).padStart(4, "0")}-${pad2(mo)}-${pad2(d)}`;
}

/** 0 = Sunday … 6 = Saturday (1970-01-01 was a Thursday). */
export function weekdayOfDay(day: number): number {
  return (((day + 4) % 7) + 7) % 7;
}

/** The day number of the Saturday that ends the week containing `day`. */
export function weekEndingDay(day: number): number {
  return day + 6 - weekdayOfDay(day);
}

/** Parses yyyy-mm-dd into a UTC-midnight Date, or null when it is not a real calendar date. */
export function parseIsoDate(value: string): Date | null {
  const day = dayNumber(value);
  return day === null ? null : new Date(day * DAY_MS);
}

export function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

function requireDay(date: string): number {
  const day = dayNumber(date);
  if (day === null) throw new Error(`Not a date: ${date}`);
  return day;
}

export function addDays(date: string, days: number): string {
  return dateOfDay(requireDay(date) + days);
}

export function isSaturday(date: string): boolean {
  const day = dayNumber(date);
  return day !== null && weekdayOfDay(day) === 6;
}

/** The week_start of the week that ends on this Saturday. */
export function weekStartOf(weekEnd: string): string {
  return addDays(weekEnd, -6);
}

/** The Saturday that ends the week containing this date. */
export function weekEndingOn(date: string): string {
  return dateOfDay(weekEndingDay(requireDay(date)));
}

/** Whole days from a to b (b − a). */
export function daysBetween(a: string, b: string): number {
  const da = dayNumber(a);
  const db = dayNumber(b);
  if (da === null || db === null) throw new Error(`Not a date: ${a} / ${b}`);
  return db - da;
}
