import * as v from "valibot";
import type { MaladaptiveEntry, ReplacementTrialEntry } from "./notes";
import { MAX_AMOUNT } from "./validation";
import { dateOfDay, dayNumber, isProductDate, weekEndingDay } from "./weeks";
import { zonedDate } from "./time";
import { isPerHour } from "./chart";
import { roundMeasure } from "./measure";

/**
 * Weekly data from session notes (issue 10 "Weekly data from notes"; docs/decisions/029). Pure: the
 * model reads a client's live RBT notes and plans, this module turns them into one value per plan and
 * Sunday–Saturday week, and the model upserts those values as weekly reports.
 *
 * - A maladaptive plan's value is the mean frequency per session, over the week's sessions that recorded
 *   that plan (a session that did not record it does not count as 0). A per-hour one's is the week's count, with
 *   the units of those sessions as its total units: the chart divides one by the other's hours.
 * - A replacement plan's value is Σ correct ÷ Σ trials × 100 over the week's sessions (pooled, not the
 *   mean of per-session percentages: a 2-trial session does not weigh as much as a 20-trial one).
 *   Entries with no trials add nothing; a week with no trials has no value.
 * - Values are stored to 2 decimals, as every weekly report is (app/domain/measure.ts, decision 029, stop 36).
 * - The range covers at most one year (date_to − date_from ≤ 365 days) and is widened to whole weeks:
 *   every week that intersects it is computed from all of its sessions, so a week's value never comes
 *   from part of a week.
 */

export const NOTES_WEEKLY_MAX_SPAN_DAYS = 365;

export const NOTES_WEEKLY_MESSAGES = {
  patient: "Choose the client (patient_id).",
  plan: "plan_id must be a record id.",
  date: "Dates must look like 2026-01-31.",
  dateFromRequired: "Choose the first date (date_from).",
  dateToRequired: "Choose the last date (date_to).",
  order: "date_to must be on or after date_from.",
  tooLong: "The date range may cover at most one year: choose a date_to at most 365 days after date_from.",
} as const;

const M = NOTES_WEEKLY_MESSAGES;

const blank = (x: unknown) => x === undefined || x === null || (typeof x === "string" && x.trim() === "");

const RecordId = (message: string) =>
  v.pipe(
    v.unknown(),
    v.check((x) => (typeof x === "number" && Number.isSafeInteger(x) && x > 0) || (typeof x === "string" && /^\s*\d{1,15}\s*$/.test(x) && Number(x) > 0), message),
    v.transform((x) => Number(typeof x === "string" ? x.trim() : x)),
  );

const RequiredDate = (missing: string) =>
  v.pipe(
    v.optional(v.unknown(), ""),
    v.check((x) => !blank(x), missing),
    v.check((x) => typeof x === "string" && isProductDate(x.trim()), M.date),
    v.transform((x) => String(x).trim()),
  );

/**
 * The request: a client, a date range (at most one year), optionally one plan. The goal screen names
 * only its plan: then the client is the plan's.
 */
export const NotesWeeklyInput = v.pipe(
  v.object({
    patient_id: v.pipe(
      v.optional(v.unknown(), ""),
      v.transform((x) => (blank(x) ? null : x)),
      v.union([v.null(), RecordId(M.patient)], M.patient),
    ),
    plan_id: v.pipe(
      v.optional(v.unknown(), ""),
      v.transform((x) => (blank(x) ? null : x)),
      v.union([v.null(), RecordId(M.plan)], M.plan),
    ),
    date_from: RequiredDate(M.dateFromRequired),
    date_to: RequiredDate(M.dateToRequired),
  }),
  v.forward(
    v.check((x) => x.patient_id !== null || x.plan_id !== null, M.patient),
    ["patient_id"],
  ),
  v.forward(
    v.check((x) => x.date_from <= x.date_to, M.order),
    ["date_to"],
  ),
  v.forward(
    v.check((x) => dayNumber(x.date_to)! - dayNumber(x.date_from)! <= NOTES_WEEKLY_MAX_SPAN_DAYS, M.tooLong),
    ["date_to"],
  ),
);
export type NotesWeeklyInput = v.InferOutput<typeof NotesWeeklyInput>;

/** The whole weeks a range touches: from the Sunday of date_from's week to the Saturday of date_to's. */
export function wholeWeeks(dateFrom: string, dateTo: string): { from: string; to: string } {
  const a = dayNumber(dateFrom);
  const b = dayNumber(dateTo);
  if (a === null || b === null) throw new Error(`Not a date: ${dateFrom} / ${dateTo}`);
  return { from: dateOfDay(weekEndingDay(a) - 6), to: dateOfDay(weekEndingDay(b)) };
}

/** A session's data as the model reads it: its date, its units and the two lists of its content (either may be missing or malformed). */
export interface SessionData {
  session_date: string;
  /** The note's units (both time pairs, the one units rule): the hours a per-hour plan's count is divided by. */
  units?: number | null;
  maladaptives?: unknown;
  replacements?: unknown;
}

/** The plans the values may go to: the client's own, with their category and (maladaptive) timeframe. */
export interface PlanKind {
  id: number;
  category: string;
  timeframe?: string | null;
}

export interface WeekValue {
  plan_id: number;
  week_start: string;
  week_end: string;
  value: number;
  /**
   * A per-hour plan's week: the units of the sessions that recorded it (the chart shows value ÷ (units ÷ 4)).
   * Null for every other plan: its total units stay what was typed.
   */
  total_units: number | null;
  /** Sessions whose data made the value. */
  sessions: number;
}

const num = (x: unknown): number | null => (typeof x === "number" && Number.isFinite(x) ? x : typeof x === "string" && x.trim() !== "" && Number.isFinite(Number(x)) ? Number(x) : null);
const listOf = <T>(x: unknown): Partial<T>[] => (Array.isArray(x) ? x.filter((e): e is Partial<T> => !!e && typeof e === "object") : []);

interface Acc {
  /** maladaptive: Σ frequency; replacement: Σ correct. */
  a: number;
  /** maladaptive: sessions; replacement: Σ trials. */
  b: number;
  /** maladaptive: Σ units of the sessions that recorded the plan. */
  units: number;
  sessions: number;
}

/**
 * One value per plan and week from the sessions (sorted by plan, then week). Entries of a plan that is
 * not in `plans`, or whose category does not match the list (a maladaptive entry for a replacement plan),
 * are ignored; so are entries without data: a frequency that is missing or negative, trials that are
 * missing or 0, correct responses that are missing, negative or more than the trials. A plan listed twice
 * in one session counts as one session (its frequencies and trials added). Values above the weekly
 * report bound (1,000,000) are left out: the weekly report rules refuse them.
 */
export function weeklyValuesFromSessions(sessions: readonly SessionData[], plans: readonly PlanKind[], onlyPlanId: number | null = null): WeekValue[] {
  const chosen = plans.filter((p) => onlyPlanId === null || p.id === onlyPlanId);
  const kind = new Map(chosen.map((p) => [p.id, p.category]));
  const perHour = new Set(chosen.filter((p) => isPerHour({ category: p.category, timeframe: p.timeframe ?? "" })).map((p) => p.id));
  const acc = new Map<string, Acc & { planId: number; weekEndDay: number }>();
  const add = (planId: number, weekEndDay: number, a: number, b: number, newSession: boolean, units = 0) => {
    const key = `${planId}:${weekEndDay}`;
    const x = acc.get(key) ?? { planId, weekEndDay, a: 0, b: 0, units: 0, sessions: 0 };
    x.a += a;
    x.b += b;
    x.units += units;
    if (newSession) x.sessions += 1;
    acc.set(key, x);
  };
  for (const s of sessions) {
    const day = dayNumber(s.session_date);
    if (day === null) continue;
    const weekEndDay = weekEndingDay(day);
    // Maladaptive: per session, the frequencies of the plan (added if listed twice); the session counts once.
    const freq = new Map<number, number>();
    for (const e of listOf<MaladaptiveEntry>(s.maladaptives)) {
      const planId = num(e.plan_id);
      const f = num(e.frequency);
      if (planId === null || kind.get(planId) !== "maladaptive" || f === null || f < 0) continue;
      freq.set(planId, (freq.get(planId) ?? 0) + f);
    }
    const units = num(s.units);
    for (const [planId, f] of freq) add(planId, weekEndDay, f, 1, true, units !== null && units > 0 ? units : 0);
    // Replacement: trials and correct responses pooled over the week.
    const seen = new Set<number>();
    for (const e of listOf<ReplacementTrialEntry>(s.replacements)) {
      const planId = num(e.plan_id);
      const trials = num(e.total_trials);
      const correct = num(e.correct_responses);
      if (planId === null || kind.get(planId) !== "replacement" || trials === null || correct === null || trials <= 0 || correct < 0 || correct > trials) continue;
      add(planId, weekEndDay, correct, trials, !seen.has(planId));
      seen.add(planId);
    }
  }
  const out: WeekValue[] = [];
  for (const x of acc.values()) {
    if (x.b <= 0) continue;
    const category = kind.get(x.planId);
    // A per-hour plan: the week's count with the units it was counted in, so the chart's rate is the notes' own
    // (incidents ÷ hours); a week whose sessions have no units has no rate (no report rather than a guess).
    const hourly = perHour.has(x.planId);
    if (hourly && x.units <= 0) continue;
    const value = hourly ? x.a : category === "maladaptive" ? x.a / x.b : (x.a * 100) / x.b;
    if (!Number.isFinite(value) || value < 0 || value > MAX_AMOUNT) continue;
    // Stored as every write path stores a measurement: to 2 decimals (app/domain/measure.ts, decision 029).
    out.push({ plan_id: x.planId, week_start: dateOfDay(x.weekEndDay - 6), week_end: dateOfDay(x.weekEndDay), value: roundMeasure(value), total_units: hourly ? roundMeasure(x.units) : null, sessions: x.sessions });
  }
  return out.sort((p, q) => p.plan_id - q.plan_id || (p.week_end < q.week_end ? -1 : p.week_end > q.week_end ? 1 : 0));
}

/** The goal screen's default range: the last 12 weeks, this one included, up to today (in `timeZone`). */
export function defaultNotesRange(now: Date, timeZone: string): { date_from: string; date_to: string } {
  const today = dayNumber(zonedDate(now, timeZone)) ?? Math.floor(now.getTime() / 86_400_000);
  return { date_from: dateOfDay(weekEndingDay(today) - 6 - 11 * 7), date_to: dateOfDay(today) };
}

/** The title the flash is shown under, and how the flash is recognised (weekly-reports noticeTitle). */
export const NOTES_WEEKLY_TITLE = "Weekly Data from Notes";
export const NOTES_WEEKLY_FLASH = /^\d+ weeks? updated from session notes$/;

/** The flash after a generation: "N weeks updated from session notes". */
export function notesWeeklyMessage(written: number): string {
  return `${written} week${written === 1 ? "" : "s"} updated from session notes`;
}
