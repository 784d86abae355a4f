import { centsOf } from "./billing";
import { providerType } from "./insurance";
import { dateOfDay, dayNumber, weekEndingDay } from "./weeks";

/**
 * The pure rules of six operations reports (decision 039): payroll, hours, bcba-report (supervision),
 * location-cpt, provider-clients (caseload) and ticket-support. The database sums minutes and units with
 * GROUP BY (app/models/reports/*.server.ts); what is decided here works on those grouped rows only.
 */

/* ---------------------------------------------------------------- periods */

/** The longest period a report answers, in days (a year, leap day included). */
export const MAX_REPORT_DAYS = 366;
export const PERIOD_MESSAGES = {
  tooLong: "Choose a period of at most one year.",
  order: "The end date must be on or after the start date.",
} as const;

/** The first and last day of the month of `today` (yyyy-mm-dd). */
export function monthOf(today: string): { from: string; to: string } {
  const day = dayNumber(today);
  if (day === null) throw new Error(`Not a date: ${today}`);
  const first = `${today.slice(0, 8)}01`;
  const [y, m] = [Number(today.slice(0, 4)), Number(today.slice(5, 7))];
  const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, "0")}-01`;
  return { from: first, to: dateOfDay(dayNumber(next)! - 1) };
}

/** Null when the period may be answered, else the message for the end date's field. Both real dates. */
export function periodProblem(from: string, to: string): string | null {
  const a = dayNumber(from);
  const b = dayNumber(to);
  if (a === null || b === null) return null;
  if (b < a) return PERIOD_MESSAGES.order;
  if (b - a + 1 > MAX_REPORT_DAYS) return PERIOD_MESSAGES.tooLong;
  return null;
}

/**
 * A period cut for the month sums (decision 039, rollup): the whole calendar months inside it ("yyyy-mm",
 * inclusive; null when none) and the days before and after them (at most one range each), which the reports
 * read from the notes themselves. Together they cover the period exactly once.
 */
export interface PeriodSplit {
  months: { from: string; to: string } | null;
  edges: { from: string; to: string }[];
}

export function splitWholeMonths(from: string, to: string): PeriodSplit {
  if (to < from) return { months: null, edges: [] };
  const firstWhole = from.endsWith("-01") ? from : monthAfter(from);
  const lastWhole = to === monthOf(to).to ? to : dateOfDay(dayNumber(`${to.slice(0, 8)}01`)! - 1);
  if (lastWhole < firstWhole) return { months: null, edges: [{ from, to }] };
  const edges: { from: string; to: string }[] = [];
  if (from < firstWhole) edges.push({ from, to: dateOfDay(dayNumber(firstWhole)! - 1) });
  if (lastWhole < to) edges.push({ from: dateOfDay(dayNumber(lastWhole)! + 1), to });
  return { months: { from: firstWhole.slice(0, 7), to: lastWhole.slice(0, 7) }, edges };
}

/**
 * A period cut for sums that can be subtracted (decision 039, 2026-11-26 "edge days"): like `splitWholeMonths`,
 * but a part month at either edge is read as the whole month *minus* the days outside the period when those,
 * plus MONTH_SUMS_DAYS for reading the month's sums, are fewer than the days inside it. `add` are the day
 * ranges read from the notes and added, `minus` those read and subtracted; months + add − minus is the period
 * exactly. A period of the 3rd to the 28th of the next month reads two months and five days, not 54 days.
 */
export interface NearestMonthsSplit {
  months: { from: string; to: string } | null;
  add: { from: string; to: string }[];
  minus: { from: string; to: string }[];
}

/**
 * What reading one month's client sums costs, in days of notes: on the bench data a month is ~40,000 client
 * rows (each client, type and location) and a day ~8,000 notes, so about five days; a week, to be safe.
 */
export const MONTH_SUMS_DAYS = 7;

export function splitNearestMonths(from: string, to: string): NearestMonthsSplit {
  const a = dayNumber(from);
  const b = dayNumber(to);
  if (a === null || b === null) throw new Error(`Not a period: ${from} … ${to}`);
  if (b < a) return { months: null, add: [], minus: [] };
  const range = (x: number, y: number) => ({ from: dateOfDay(x), to: dateOfDay(y) });
  const first = monthOf(from);
  const last = monthOf(to);
  const [f0, f1] = [dayNumber(first.from)!, dayNumber(first.to)!];
  const [l0, l1] = [dayNumber(last.from)!, dayNumber(last.to)!];
  if (first.from === last.from) {
    // One month: the days inside, or the month minus the days on either side.
    const inside = b - a + 1;
    if (inside === f1 - f0 + 1) return { months: { from: from.slice(0, 7), to: from.slice(0, 7) }, add: [], minus: [] };
    if (f1 - f0 + 1 - inside + MONTH_SUMS_DAYS < inside) {
      const minus = [...(a > f0 ? [range(f0, a - 1)] : []), ...(b < f1 ? [range(b + 1, f1)] : [])];
      return { months: { from: from.slice(0, 7), to: from.slice(0, 7) }, add: [], minus };
    }
    return { months: null, add: [range(a, b)], minus: [] };
  }
  const add: { from: string; to: string }[] = [];
  const minus: { from: string; to: string }[] = [];
  // First month: whole (a = f0), the days inside (from … month end), or the month minus its first days.
  let monthsFrom: string;
  if (a === f0 || a - f0 + MONTH_SUMS_DAYS < f1 - a + 1) {
    monthsFrom = first.from;
    if (a > f0) minus.push(range(f0, a - 1));
  } else {
    monthsFrom = dateOfDay(f1 + 1);
    add.push(range(a, f1));
  }
  // Last month: whole (b = l1), the days inside (month start … to), or the month minus its last days.
  let monthsTo: string;
  if (b === l1 || l1 - b + MONTH_SUMS_DAYS < b - l0 + 1) {
    monthsTo = last.from;
    if (b < l1) minus.push(range(b + 1, l1));
  } else {
    monthsTo = dateOfDay(l0 - 1);
    add.push(range(l0, b));
  }
  const months = monthsFrom.slice(0, 7) <= monthsTo.slice(0, 7) ? { from: monthsFrom.slice(0, 7), to: monthsTo.slice(0, 7) } : null;
  return { months, add, minus };
}

/** The first day of the month after the one of `date`. */
function monthAfter(date: string): string {
  return dateOfDay(dayNumber(monthOf(date).to)! + 1);
}

/* ---------------------------------------------------------------- hours */

/** Hours of minutes, to two decimals, as the reports show and export them (15-minute units: 4 = 1 hour). */
export function reportHours(minutes: number): number {
  return Math.round((minutes / 60) * 100) / 100;
}

/** "12.50" — hours with two decimals, for the screen and the CSV alike. */
export function hoursText(minutes: number): string {
  return reportHours(minutes).toFixed(2);
}

export const HOURS_GROUPS = ["provider", "client", "cpt"] as const;
export type HoursGroup = (typeof HOURS_GROUPS)[number];
export const HOURS_GROUP_LABELS: Record<HoursGroup, string> = {
  provider: "Provider",
  client: "Client",
  cpt: "CPT",
};

export interface WeekHours {
  /** The Saturday that ends the week (weeks run Sunday to Saturday, clinical §9). */
  weekEnd: string;
  minutes: number;
}

/**
 * Folds minutes per session date into weeks ending on Saturday, one entry for EVERY week the period
 * touches (a week without sessions shows 0, so the chart has no holes), in order.
 */
export function weeklyMinutes(days: readonly { date: string; minutes: number }[], from: string, to: string): WeekHours[] {
  const a = dayNumber(from);
  const b = dayNumber(to);
  if (a === null || b === null || b < a) return [];
  const byWeek = new Map<number, number>();
  for (let w = weekEndingDay(a); w <= weekEndingDay(b); w += 7) byWeek.set(w, 0);
  for (const d of days) {
    const n = dayNumber(d.date);
    if (n === null || n < a || n > b) continue;
    const w = weekEndingDay(n);
    byWeek.set(w, (byWeek.get(w) ?? 0) + d.minutes);
  }
  return [...byWeek.entries()].sort((x, y) => x[0] - y[0]).map(([w, minutes]) => ({ weekEnd: dateOfDay(w), minutes }));
}

/* ---------------------------------------------------------------- payroll */

/**
 * The rate-record amount that pays a note's hours: RBT notes at the rbt amount, BCBA notes at the bcba amount,
 * and a combined note at its provider's own: their type (`providerType`, the price lookup's) from their
 * credential as the price lookup reads it (`providerCredentialSql`). An RBT who is the provider of a combined
 * note is paid as an RBT; an analyst (bcba, bcaba), or a provider with no such credential, at the bcba amount.
 */
export type PayRole = "rbt" | "bcba";
export function payRoleOf(noteType: string, providerCredential: string | null): PayRole {
  if (noteType === "rbt") return "rbt";
  if (noteType === "combined" && providerType(providerCredential) === "rbt") return "rbt";
  return "bcba";
}

/**
 * Pay for `minutes` at an hourly amount in dollars as stored (REAL, 2 decimals): minutes × rate ÷ 60, in
 * integer cents, rounded once (half away from zero). No rate → null (the report says "No rate").
 */
export function payCents(minutes: number, hourlyDollars: number | null | undefined): number | null {
  if (hourlyDollars == null || !Number.isFinite(hourlyDollars)) return null;
  return Math.round((minutes * centsOf(hourlyDollars)) / 60);
}

/* ---------------------------------------------------------------- supervision (bcba-report) */

/**
 * BACB's RBT requirement: supervision of at least 5% of the hours an RBT spends providing behavior-analytic
 * services each month. The report flags a client whose BCBA hours are below this share of the RBT hours.
 */
export const SUPERVISION_MIN_PERCENT = 5;

export type SupervisionState = "ok" | "below" | "no_rbt";
export const SUPERVISION_LABELS: Record<SupervisionState, string> = {
  ok: "Meets 5%",
  below: "Below 5%",
  no_rbt: "No RBT hours",
};

/** BCBA minutes as a percentage of RBT minutes, one decimal; null without RBT minutes. */
export function supervisionPercent(bcbaMinutes: number, rbtMinutes: number): number | null {
  if (rbtMinutes <= 0) return null;
  return Math.round((bcbaMinutes / rbtMinutes) * 1000) / 10;
}

/** Compared on the exact ratio, not the rounded one: 4.96% is below 5% even though it shows as 5.0%. */
export function supervisionState(bcbaMinutes: number, rbtMinutes: number): SupervisionState {
  if (rbtMinutes <= 0) return "no_rbt";
  return bcbaMinutes * 100 >= SUPERVISION_MIN_PERCENT * rbtMinutes ? "ok" : "below";
}

/* ---------------------------------------------------------------- ticket-support */

export const TICKET_STATUSES = ["open", "answered", "closed"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];
export const TICKET_STATUS_LABELS: Record<TicketStatus, string> = {
  open: "Open",
  answered: "Answered",
  closed: "Closed",
};

/**
 * Age buckets: open < 1 day, 1–3 days, 3–7 days, more than 7 days. A ticket's age is the time from its
 * creation to now, or to its closing for a closed ticket. Upper bounds in days, exclusive; the last is open-ended.
 */
export const AGE_BUCKETS = [
  { key: "under_1d", label: "< 1 day", maxDays: 1 },
  { key: "d1_3", label: "1–3 days", maxDays: 3 },
  { key: "d3_7", label: "3–7 days", maxDays: 7 },
  { key: "over_7d", label: "> 7 days", maxDays: Infinity },
] as const;
export type AgeBucket = (typeof AGE_BUCKETS)[number]["key"];

/** The bucket of an age in days (a fraction of a day counts: 0.99 → < 1 day, 1 → 1–3 days). */
export function ageBucket(ageDays: number): AgeBucket {
  for (const b of AGE_BUCKETS) if (ageDays < b.maxDays) return b.key;
  return "over_7d";
}

/* ---------------------------------------------------------------- small bar charts */

export interface BarChartModel {
  title: string;
  /** A sentence that says what the chart shows (the SVG's <desc>, for screen readers). */
  summary: string;
  /**
   * Each bar's value and its text; `target` is a lighter bar behind it (the whole the value is part of: the
   * units authorized behind the units projected), `flagged` draws it in the danger colour (its text says so).
   */
  bars: { label: string; value: number; text: string; target: number | null; flagged: boolean }[];
  max: number;
  ticks: number[];
  /** What the bars and the lighter bars behind them are, when the chart has both. */
  legend: { value: string; target: string } | null;
}

/** A report's chart as its answer carries it: the model and the figure's id on the page. */
export interface ReportChart {
  id: string;
  model: BarChartModel;
}

/** A "nice" axis: the smallest of 1, 2, 5 × 10^k steps that covers `max` in at most 5 ticks. */
export function niceTicks(max: number): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / 5;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw)!;
  const ticks: number[] = [];
  for (let t = 0; t < max + step - 1e-9; t += step) ticks.push(Math.round(t * 1000) / 1000);
  return ticks;
}

/**
 * A report's small bar chart (decision 038) — the one model the server SVG (app/components/charts/bar-chart-markup.ts)
 * and the uPlot module (app/client/report-chart.ts) both draw: at most `limit` bars (the largest first when
 * `sortDesc`), with its axis. Every figure is also in the report's table.
 */
export function barChart(
  title: string,
  unit: string,
  rows: readonly { label: string; value: number; text?: string; target?: number | null; flagged?: boolean }[],
  opts: {
    limit?: number;
    sortDesc?: boolean;
    legend?: { value: string; target: string };
    /**
     * The summary's "… in all": by default the bars' values added; a text (the report's own total, e.g. hours
     * from the minutes rather than from weeks already rounded); or null when a sum would mean nothing (a client
     * seen by two providers is one client, not two).
     */
    total?: string | null;
    /** The summary with no bars: "nothing in this period" unless the chart has no period (the projection's "no running authorizations"). */
    empty?: string;
  } = {}
): BarChartModel {
  const limit = opts.limit ?? 20;
  const picked = (opts.sortDesc ? [...rows].sort((a, b) => b.value - a.value || a.label.localeCompare(b.label)) : [...rows]).slice(0, limit);
  const ticks = niceTicks(Math.max(0, ...picked.map((r) => Math.max(r.value, r.target ?? 0))));
  const total = opts.total !== undefined ? opts.total : `${Math.round(rows.reduce((s, r) => s + r.value, 0) * 100) / 100} ${unit}`;
  const shown = picked.length < rows.length ? `the ${opts.sortDesc ? "largest" : "first"} ${picked.length} of ${rows.length} bars` : `${rows.length} bar${rows.length === 1 ? "" : "s"}`;
  const flagged = picked.filter((r) => r.flagged).length;
  return {
    title,
    summary: rows.length
      ? `${title}: ${shown}${total !== null ? `, ${total} in all` : ""}${flagged ? `; ${flagged} flagged` : ""}.`
      : `${title}: ${opts.empty ?? "nothing in this period"}.`,
    bars: picked.map((r) => {
      const target = r.target ?? null;
      const text = r.text ?? `${r.value}${target !== null ? ` / ${target}` : ""}`;
      return { label: r.label, value: r.value, text: r.flagged ? `${text} !` : text, target, flagged: !!r.flagged };
    }),
    legend: opts.legend ?? null,
    max: ticks[ticks.length - 1] ?? 1,
    ticks,
  };
}
