/**
 * The PA calculator, the note form's weekly units meter and pacing (clinical §2 weekly units meter, §3 weekly
 * calculation result, §5 units display, §7 PA calculator, §8 PA calculation failure; decision 031). Pure: the
 * caller gives the authorization, its live notes' units per day and "today" at the client's location (the
 * location's time zone decides which day it is: see `todayAtLocation`). Dates are ISO yyyy-mm-dd; the week
 * rules are app/domain/weeks.ts. Units are whole numbers; nothing here uses floating-point money.
 */
import { zonedDate } from "./time";
import { dateOfDay, dayNumber, weekEndingOn, weekStartOf } from "./weeks";

/** The authorization as the rules read it. */
export interface PaFacts {
  n_units: number;
  start_date: string;
  end_date: string;
  /** Units of the service's live notes (every date). */
  spent_units: number;
}

/** Units of the service's live notes on one session date. */
export interface DayUnits {
  date: string;
  units: number;
}

/** The weekly calculation result of clinical §3, with the units left (what GET /v2/pa-service-calculator answers). */
export interface PaCalculation {
  used_units_this_week: number;
  average_units_per_week: number;
  week_start_date: string;
  week_end_date: string;
  weeks: number;
  n_units: number;
  spent_units: number;
  remaining_units: number;
  available_units: number;
}

/** The rate window of pacing: the last four weeks. */
export const PACING_WINDOW_DAYS = 28;
/** Under-using: the forecast leaves more than this share of the authorized units unused… */
export const UNDER_USING_SHARE_PERCENT = 20;
/** …judged only once the authorization has run this many days (a first session day is no rate). */
export const UNDER_USING_MIN_DAYS = 7;

export const METER_MESSAGES = {
  exceeded: "Expected weekly usage exceeded.",
  noPaService: "Please select a CPT Code",
} as const;

/** Units a PA service spent through notes stored at a location the reader cannot see (unitsElsewhereQuery). */
export interface UnitsElsewhere {
  location: string;
  units: number;
}

/**
 * Beside a PA service's spent units, where the ones the reader cannot list were spent: "of which 172 at Miami
 * Clinic". Empty when every note is at a location of theirs. The figure itself counts every note.
 */
export function unitsElsewhereText(rows: readonly UnitsElsewhere[]): string {
  return rows.length ? `of which ${rows.map((r) => `${r.units} at ${r.location}`).join(", ")}` : "";
}

/** Under a PA table with units spent elsewhere: why those notes are not in the reader's lists. */
export const UNITS_ELSEWHERE_NOTE = "Units spent at another location were written there (the client moved): those notes stay at that location and are listed only to its staff.";

function day(date: string): number {
  const d = dayNumber(date);
  if (d === null) throw new Error(`Not a date: ${date}`);
  return d;
}

/** "Today" at a location: the calendar date at `now` in its IANA time zone. */
export function todayAtLocation(now: Date, timeZone: string): string {
  return zonedDate(now, timeZone);
}

/** The Sunday–Saturday week containing `today`. */
export function currentWeek(today: string): { week_start_date: string; week_end_date: string } {
  const end = weekEndingOn(today);
  return { week_start_date: weekStartOf(end), week_end_date: end };
}

/**
 * Weeks in the authorization: ceil(days ÷ 7), the days counted inclusively (start and end both in). A
 * one-day authorization is one week; an end before the start (refused on input) still counts one week, so
 * the average is never a division by zero.
 */
export function weeksInAuthorization(startDate: string, endDate: string): number {
  const days = day(endDate) - day(startDate) + 1;
  return Math.max(1, Math.ceil(days / 7));
}

/** average_units_per_week = ceil(n_units ÷ weeks). */
export function averageUnitsPerWeek(nUnits: number, startDate: string, endDate: string): number {
  return Math.ceil(nUnits / weeksInAuthorization(startDate, endDate));
}

/** Units of the days from `from` to `to`, both included. */
export function unitsBetween(days: readonly DayUnits[], from: string, to: string): number {
  let sum = 0;
  for (const d of days) if (d.date >= from && d.date <= to) sum += d.units;
  return sum;
}

/** The calculator (clinical §3 weekly calculation result, plus the units left). */
export function paCalculation(pa: PaFacts, days: readonly DayUnits[], today: string): PaCalculation {
  const week = currentWeek(today);
  const remaining = pa.n_units - pa.spent_units;
  return {
    used_units_this_week: unitsBetween(days, week.week_start_date, week.week_end_date),
    average_units_per_week: averageUnitsPerWeek(pa.n_units, pa.start_date, pa.end_date),
    ...week,
    weeks: weeksInAuthorization(pa.start_date, pa.end_date),
    n_units: pa.n_units,
    spent_units: pa.spent_units,
    remaining_units: remaining,
    available_units: remaining,
  };
}

/* ------------------------------------------------------------------ the note form's meter */

/** What the meter needs of one PA service (the note being edited already left out of used and available). */
export interface MeterFacts {
  used_units_this_week: number;
  average_units_per_week: number;
  available_units: number;
}

export interface MeterState {
  /** used this week + the note's projected units. */
  total: number;
  average: number;
  /** Above the average: 'Expected weekly usage exceeded.' in red. */
  exceeded: boolean;
  /** The projected units exceed available_units: the units display is red (clinical §5). */
  overAvailable: boolean;
  message: string | null;
}

/** The meter for a chosen PA service and the note's projected units; null facts: no PA service chosen. */
export function meterState(facts: MeterFacts | null, projectedUnits: number): MeterState | null {
  if (!facts) return null;
  const total = facts.used_units_this_week + projectedUnits;
  const exceeded = total > facts.average_units_per_week;
  return { total, average: facts.average_units_per_week, exceeded, overAvailable: projectedUnits > facts.available_units, message: exceeded ? METER_MESSAGES.exceeded : null };
}

/** "unit" for one, else "units" (the note form's running total, beside its live number). */
export function unitWord(n: number): string {
  return n === 1 ? "unit" : "units";
}

/** "1 unit", "7 units". */
export function unitCount(n: number): string {
  return `${n} ${unitWord(n)}`;
}

/** "minute" for one, else "minutes": a session's length beside its units. */
export function minuteWord(n: number): string {
  return n === 1 ? "minute" : "minutes";
}

/**
 * A PA service's units left in words, never a negative "units left" (probe 8973 §2): "3 units left" ("3 of 5 units
 * left" with the units authorized), or, once overspent, "already 7 units over its authorized units" ("…over its 5
 * authorized units"), the booking warning's words (decision 037). The one wording of the note form's units display,
 * its PA service options and the booking warning.
 */
export function unitsLeftText(left: number, authorized?: number): string {
  if (left < 0) return `already ${unitCount(-left)} over its ${authorized === undefined ? "authorized units" : `${authorized} authorized ${authorized === 1 ? "unit" : "units"}`}`;
  return authorized === undefined ? `${unitCount(left)} left` : `${left} of ${unitCount(authorized)} left`;
}

/** Beside the note form's units display when the note needs more than the PA service has left (clinical §5). */
export function unitsOverAvailableText(left: number): string {
  return left < 0 ? `the PA service is ${unitsLeftText(left)}` : `more than the ${unitsLeftText(left)} on the PA service`;
}

/** The meter's line of text (the same words with and without JavaScript). */
export function meterText(state: MeterState | null): string {
  if (!state) return METER_MESSAGES.noPaService;
  return `This week: ${state.total} of ${state.average} units expected per week (including this note).`;
}

/* ------------------------------------------------------------------ pacing */

export type PacingPhase = "not_started" | "active" | "ended";

export interface Pacing {
  phase: PacingPhase;
  /** Units per week at the current rate (one decimal), null when there is no rate (not started, ended). */
  rate_per_week: number | null;
  /** Days the rate was measured over (1–28): the last 28 days, or the days since the start when fewer. */
  rate_days: number;
  /** Units of the rate window. */
  rate_units: number;
  available_units: number;
  /** Units left at the end date at the current rate (negative: the shortfall); for an ended one, what was left. */
  forecast_units_left: number;
  /** The date the units run out at the current rate (on or before the end date), or null. */
  runs_out_on: string | null;
  exhausted: boolean;
  will_run_out: boolean;
  under_using: boolean;
  /** The forecast as a sentence (flags in words, not only colour). */
  summary: string;
}

/**
 * Pacing at the current 4-week rate (decision 031). The rate is the units of the last 28 days (today
 * included) over those days; an authorization younger than 28 days is measured over the days since its
 * start. Before the start there is no rate (nothing is forecast); after the end the forecast is what was
 * left. will_run_out: the units run out before the end date (or already have); under_using: the forecast
 * leaves more than 20 % of n_units unused, judged after the first 7 days.
 */
export function paPacing(pa: PaFacts, days: readonly DayUnits[], today: string): Pacing {
  const t = day(today);
  const start = day(pa.start_date);
  const end = day(pa.end_date);
  const available = pa.n_units - pa.spent_units;
  const exhausted = available <= 0;
  const base = { available_units: available, exhausted, runs_out_on: null as string | null, under_using: false };
  const withSummary = (p: Omit<Pacing, "summary">): Pacing => ({ ...p, summary: pacingSummary(p, pa) });
  if (t < start) return withSummary({ ...base, phase: "not_started", rate_per_week: null, rate_days: 0, rate_units: 0, forecast_units_left: available, will_run_out: false });
  if (t > end) return withSummary({ ...base, phase: "ended", rate_per_week: null, rate_days: 0, rate_units: 0, forecast_units_left: available, will_run_out: false });
  const from = Math.max(start, t - PACING_WINDOW_DAYS + 1);
  const rateDays = t - from + 1;
  const rateUnits = unitsBetween(days, dateOfDay(from), today);
  const after = end - t; // days left after today
  const forecastUse = Math.round((rateUnits * after) / rateDays);
  const left = available - forecastUse;
  const ratePerWeek = Math.round((rateUnits * 70) / rateDays) / 10;
  if (exhausted) {
    return withSummary({ ...base, phase: "active", rate_per_week: ratePerWeek, rate_days: rateDays, rate_units: rateUnits, forecast_units_left: available - forecastUse, will_run_out: t < end || available < 0 });
  }
  // Runs out before the end date when the units left are fewer than the forecast use (exact integers).
  const willRunOut = available * rateDays < rateUnits * after;
  const runsOutOn = willRunOut ? dateOfDay(t + Math.ceil((available * rateDays) / rateUnits)) : null;
  const underUsing = !willRunOut && rateDays >= UNDER_USING_MIN_DAYS && left * 100 > pa.n_units * UNDER_USING_SHARE_PERCENT;
  return withSummary({ ...base, phase: "active", rate_per_week: ratePerWeek, rate_days: rateDays, rate_units: rateUnits, forecast_units_left: left, runs_out_on: runsOutOn, will_run_out: willRunOut, under_using: underUsing });
}

/**
 * Pacing as a sentence that says its flag in words (decision 031): the one sentence builder. An ended authorization
 * says what was left, or by how much it was overspent ("Ended on 2026-11-26, 1 unit over the authorization.", probe
 * 8973 §1), never a clamped "0 units unused".
 */
export function pacingSummary(p: Omit<Pacing, "summary">, pa: Pick<PaFacts, "start_date" | "end_date">): string {
  const over = unitCount(-p.available_units);
  if (p.phase === "not_started") return `Starts on ${pa.start_date}; ${unitCount(p.available_units)} authorized to use.`;
  if (p.phase === "ended") return p.available_units < 0 ? `Ended on ${pa.end_date}, ${over} over the authorization.` : `Ended on ${pa.end_date} with ${unitCount(p.available_units)} unused.`;
  if (p.exhausted) return p.available_units < 0 ? `Used up: ${over} over the authorization.` : "Used up: no units left.";
  const rate = `at ${unitCount(p.rate_per_week ?? 0)} a week`;
  if (p.will_run_out) return `Will run out on ${p.runs_out_on}, before the end date ${pa.end_date}, ${rate}.`;
  if (p.under_using) return `Under-using: ${unitCount(p.forecast_units_left)} forecast unused on ${pa.end_date}, ${rate}.`;
  return `${unitCount(p.forecast_units_left)} forecast left on ${pa.end_date}, ${rate}.`;
}

/**
 * The pacing flag, when the authorization asks for action: "Overspent" (ended over its units), "Used up", "Will run
 * out" or "Under-using"; null otherwise. The profile shows it before the sentence (decision 031).
 */
export function pacingFlag(p: Pacing): string | null {
  if (p.phase === "ended") return p.available_units < 0 ? "Overspent" : null;
  if (p.phase === "not_started") return null;
  if (p.exhausted) return "Used up";
  if (p.will_run_out) return "Will run out";
  return p.under_using ? "Under-using" : null;
}

/** The pacing state in words, a flag or the phase: the reports' Pacing and Outlook columns. */
export function pacingState(p: Pacing): string {
  return pacingFlag(p) ?? (p.phase === "ended" ? "Ended" : p.phase === "not_started" ? "Not started" : "On track");
}

/** The earliest session date whose units the calculator and pacing can need, for any time zone (UTC ±14 h). */
export function unitsWindowStart(now: Date): string {
  return dateOfDay(Math.floor(now.getTime() / 86_400_000) - PACING_WINDOW_DAYS - 2);
}
