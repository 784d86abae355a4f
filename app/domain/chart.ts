/**
 * The behavior chart model (clinical §2 "Behavior chart", §3 "chart data", §9 "Charts", "Billing and
 * paging"; architecture "Charts"). One pure function turns a plan, its objectives, weekly reports and
 * chart comments into a JSON-serialisable ChartModel; every renderer (server SVG, uPlot in the browser,
 * the PDF export) draws that model and computes no rule of its own.
 *
 * Coordinates. x is a day number (whole days since 1970-01-01, so a date's x is an integer and the
 * phase line can sit half a week between two Saturdays); y is the value shown. A renderer maps
 * [x.min, x.max] and [0, y.max] linearly onto its plot area.
 *
 * Definitions (each one tested in test/unit/chart.test.ts):
 * - Weeks. A report sits on the Saturday of its week (weekEndingOn(week_end); week_end is a Saturday
 *   for every report written since the Saturday rule, clinical §5). Two reports in one week: the later
 *   one in input order wins. Reports with an unreadable date are left out.
 * - Window. `from`/`to` (inclusive) keep the weeks whose Saturday is in [from, to] and the markers
 *   (baseline level, phase line, objective end dates, comments) whose date is in it; the rest are
 *   dropped. x.min/x.max are `from`/`to` when given, else the earliest/latest shown date ∓ 3.5 days.
 * - Missing weeks. Between the first and the last shown report, a week without a report becomes a
 *   null point that breaks the line — except for caregiver_training, rbt_training and
 *   teacher_training plans (TRAINING_CATEGORIES), whose reports are joined directly.
 * - Per hour (timeframe per_hour, maladaptive only: a '% of Trials' axis is a ratio already): the value
 *   shown is value ÷ hours, hours = total_units ÷ 4 (4 units = 1 hour), with total_units missing or
 *   zero taken as 80 units (20 hours); rounded half-up to 1 decimal.
 * - Phases. The baseline phase is the weeks whose Saturday is on or before baseline_date; the rest is
 *   treatment. Without a baseline_date every week is treatment. The two phases are two series, each
 *   null outside its own phase, so no line joins the last baseline point to the first treatment point.
 * - Phase line ('Baseline | Treatment'). A vertical line half a week after the last Saturday on or
 *   before baseline_date: between the last baseline week and the first treatment week.
 * - Baseline marker. The point (baseline_date, baseline_level) when both are set.
 * - y axis. Starts at 0. Maladaptive: max = (highest shown value or baseline level, whichever is
 *   higher, rounded up to a multiple of 10) + 20. Other categories are '% of Trials' with max 100; a
 *   value or baseline above 100 (bad data) raises it to the next multiple of 25 so nothing is clipped.
 *   Ticks: 0, step, 2·step, … up to max, with step from tickStep(): the spec's table while it gives
 *   at most MAX_Y_TICKS ticks, then the next steps of the 1-2-5 series (decision 008).
 * - Objective markers. One per objective with an end date in the window, at that date. Label: type and
 *   1-based rank among the plan's objectives of that type ordered by position, then id ("STO1",
 *   "STO2", …); a single LTO is "LTO", several are "LTO1", "LTO2". Colour: STO1…STO14 and LTO each
 *   have their own (STO15 and on reuse STO1's onwards); the marker line itself is objective purple.
 * - Comment markers. At the comment date; comments of the same day stack 0, 18, 36 … px from the top
 *   in date then id order, at most COMMENT_STACK_ROWS rows (what fits in the plot). A day with more
 *   draws its first COMMENT_STACK_ROWS − 1 and, on the last row, a '+n more' marker for the rest
 *   (their offsetY is null; the chart data table and the PDF's comment table list every comment).
 *   Markers of neighbouring days are not moved apart.
 * - Aim lines. From the baseline marker (baseline_date, baseline_level) to (end_date, target) of each
 *   objective with a target and an end date after baseline_date; clipped to the plot area. Needs a
 *   baseline date and level.
 * - Sections (clinical §9: "a minimum width share of 12% and 80 px"). The phases are the chart's
 *   sections: with a phase line in the plot, baseline is [x.min, phase line] and treatment is [phase
 *   line, x.max]; otherwise one section spans the plot. Every section is drawn at least
 *   max(12% of the plot width, 80 px) wide (sectionShares); the rest is shared in proportion to the
 *   sections' lengths in days. Inside a section x is linear; a renderer maps x through
 *   sectionScale(model, plot width), so a baseline of one week beside three years of treatment stays
 *   readable. A segment that crosses a section edge (an aim line) is drawn through that edge
 *   (segmentPoints), so it stays straight within each section.
 * - Trend (split-middle over the treatment phase). The non-null treatment points in the window, in
 *   time order, n ≥ 4 (else no trend). Halves: the first ⌊n/2⌋ and the last ⌊n/2⌋ points (the middle
 *   point is dropped when n is odd). In each half take the median x and the median y (separately; the
 *   median of an even count is the mean of the two middle values). The trend is the straight line
 *   through the two (median x, median y) pairs, drawn from the first to the last treatment point's x and
 *   clipped to the plot area. (The optional shift that puts half the points on either side is not done.)
 */
import { objectiveLabels as labelObjectives } from "./objectives";
import { TRAINING_CATEGORIES, type PlanCategory } from "./plans";
import { dateOfDay, dayNumber, weekdayOfDay, weekEndingDay } from "./weeks";
import { formatMeasure, roundTo } from "./measure";

export interface ChartInput {
  plan: { name: string; category: string; baselineDate: string | null; baselineLevel: number | null; unitType: string | null; timeframe: string | null };
  objectives: { id: number; type: "STO" | "LTO" | string; position: number; status: string; target: number | null; initialDate: string | null; endDate: string | null; name?: string | null }[];
  reports: { weekEnd: string; value: number; totalUnits: number | null }[];
  comments: { id: number; commentDate: string; comment: string }[];
  from?: string | null;
  to?: string | null;
}

export type Phase = "baseline" | "treatment";

export interface ChartPoint {
  /** The Saturday of the week (yyyy-mm-dd) and its label (mm/dd/yyyy). */
  weekEnd: string;
  label: string;
  x: number;
  /** The value drawn (per hour when the chart is per hour), null for a filled missing week. */
  value: number | null;
  /** The value reported, the units and hours behind a per-hour value (hours null when not per hour). */
  reported: number | null;
  totalUnits: number | null;
  hours: number | null;
  phase: Phase;
}

export interface ChartSeries {
  key: Phase;
  label: string;
  color: string;
  /** Aligned with ChartModel.points; null where the point is missing or in the other phase. */
  values: (number | null)[];
}

export type LabelAnchor = "start" | "end";

export interface ObjectiveMarker {
  id: number;
  label: string;
  type: string;
  name: string | null;
  status: string;
  mastered: boolean;
  target: number | null;
  date: string;
  dateLabel: string;
  x: number;
  color: string;
  /** Which side of the line the label goes, so it stays inside the plot. */
  anchor: LabelAnchor;
}

export interface CommentMarker {
  id: number;
  date: string;
  dateLabel: string;
  x: number;
  text: string;
  /** Pixels down from the top of the plot: 0, 18, 36 … for the comments of one day; null past the stack's cap (not drawn). */
  offsetY: number | null;
  anchor: LabelAnchor;
}

/** The last row of a day's capped comment stack: '+n more' for the comments not drawn. */
export interface CommentMoreMarker {
  date: string;
  dateLabel: string;
  x: number;
  offsetY: number;
  count: number;
  label: string;
  anchor: LabelAnchor;
}

export interface Segment {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

export interface AimLine extends Segment {
  objectiveId: number;
  label: string;
  color: string;
}

export interface TrendLine extends Segment {
  /** Change of the trend per week (7 days), rounded to 2 decimals. */
  slopePerWeek: number;
}

export interface ChartSection {
  key: Phase;
  label: string;
  /** The section's x range (day numbers), inside [x.min, x.max]. */
  from: number;
  to: number;
}

export type LegendStyle = "line" | "diamond" | "dashed" | "dotted" | "rule";

export interface LegendItem {
  key: "baseline" | "treatment" | "baselineLevel" | "phase" | "objective" | "comment" | "aim" | "trend";
  label: string;
  color: string;
  style: LegendStyle;
}

export interface ChartModel {
  title: string;
  heading: string;
  planName: string;
  category: string;
  /** Chart height in px (clinical §9: 400). */
  height: number;
  /** Nothing to draw: no report, marker or baseline in the window. */
  empty: boolean;
  perHour: boolean;
  colors: { baseline: string; treatment: string; objective: string; comment: string; phase: string; trend: string };
  x: { min: number; max: number; label: string; ticks: { x: number; label: string }[] };
  y: { min: 0; max: number; step: number; ticks: number[]; label: string; percent: boolean };
  /** Baseline and treatment, left to right (one section without a phase line); see sectionScale. */
  sections: ChartSection[];
  points: ChartPoint[];
  series: ChartSeries[];
  baselineMarker: { date: string; dateLabel: string; x: number; value: number } | null;
  phaseLine: { x: number; label: string } | null;
  objectives: ObjectiveMarker[];
  comments: CommentMarker[];
  commentMore: CommentMoreMarker[];
  aimLines: AimLine[];
  trend: TrendLine | null;
  legend: { weeks: string; items: LegendItem[]; mastered: { label: string; name: string | null; color: string }[] };
  /** One or two sentences describing the data, for screen readers (svg <desc>, aria). */
  summary: string;
}

/* ------------------------------------------------------------------ constants */

export const CHART_TITLE = "Baseline";
export const CHART_HEIGHT = 400;
export const PHASE_DIVIDER_LABEL = "Baseline | Treatment";
export const COMMENT_STACK_PX = 18;
/**
 * Rows of one day's comment stack. Every renderer's plot is at least 316 px high (uPlot: 400 − 28 above
 * − 56 below; the SVG and the PDF: 320); the last row's label (8 + 15 × 18 + 4 = 282 px down) stays
 * above the objective labels at the plot's foot.
 */
export const COMMENT_STACK_ROWS = 16;
/** 4 units = 1 hour; missing or zero total_units count as 80 units (20 hours) (clinical §9). */
export const UNITS_PER_HOUR = 4;
export const DEFAULT_TOTAL_UNITS = 80;
/** Chart sections have a minimum width share of 12% and 80 px (clinical §9). */
export const SECTION_MIN_SHARE = 0.12;
export const SECTION_MIN_PX = 80;
/** Up to about 10 vertical grid lines (clinical §9). */
export const MAX_X_TICKS = 10;
/** At most 11 y ticks (0 and up to 10 steps) once an axis outgrows the tick-step table (decision 008). */
export const MAX_Y_TICKS = 11;

export const CHART_COLORS = {
  baseline: "#dc2626",
  treatment: "#0d9488",
  objective: "#7c3aed",
  comment: "#000000",
  phase: "#334155",
  trend: "#1e293b",
} as const;

/**
 * STO1 … STO14 (index 0 … 13), each with its own colour (clinical §9). The labels are text in these
 * colours on white, so each has a contrast of at least 4.5:1 against white (WCAG 1.4.3).
 */
export const STO_COLORS = [
  "#2563eb", "#15803d", "#c2410c", "#db2777", "#0e7490", "#a16207", "#4f46e5",
  "#4d7c0f", "#c026d3", "#0369a1", "#92400e", "#64748b", "#9f1239", "#b45309",
] as const;
export const LTO_COLOR = "#1e3a8a";

const HALF_WEEK = 3.5;

/* ------------------------------------------------------------------ small rules */

export function isMaladaptive(category: string): boolean {
  return category === "maladaptive";
}

/**
 * 'Target Behavior to Decrease' for maladaptive plans; 'Target Behavior to Increase' for replacement,
 * caregiver-, teacher- and (decided the same) rbt-training plans and any other category.
 */
export function chartHeading(category: string): string {
  return isMaladaptive(category) ? "Target Behavior to Decrease" : "Target Behavior to Increase";
}

/** Per-hour display applies to maladaptive plans measured per hour (a percentage is not divided). */
export function isPerHour(plan: Pick<ChartInput["plan"], "category" | "timeframe">): boolean {
  return isMaladaptive(plan.category) && plan.timeframe === "per_hour";
}

/**
 * Axis label (clinical §9): 'Frequency' / 'Incidents per Hour' for occurrences (the default unit),
 * 'Duration (Seconds)' / 'Duration (Minutes)' with ' per Hour' when per hour; '% of Trials' for every
 * non-maladaptive plan.
 */
export function yAxisLabel(plan: Pick<ChartInput["plan"], "category" | "timeframe" | "unitType">): string {
  if (!isMaladaptive(plan.category)) return "% of Trials";
  const perHour = plan.timeframe === "per_hour";
  if (plan.unitType === "seconds" || plan.unitType === "minutes") {
    const unit = plan.unitType === "seconds" ? "Seconds" : "Minutes";
    return perHour ? `Duration (${unit}) per Hour` : `Duration (${unit})`;
  }
  return perHour ? "Incidents per Hour" : "Frequency";
}

/** Hours behind a weekly value: total_units ÷ 4, with null or 0 units taken as 80 (20 hours). */
export function hoursOf(totalUnits: number | null): number {
  const units = totalUnits == null || totalUnits <= 0 ? DEFAULT_TOTAL_UNITS : totalUnits;
  return units / UNITS_PER_HOUR;
}

export { roundTo };

/** value ÷ hours, to 1 decimal (clinical §9). */
export function perHourValue(value: number, totalUnits: number | null): number {
  return roundTo(value / hoursOf(totalUnits), 1);
}

/**
 * Tick step by axis maximum (clinical §9). Count axes: up to 10 → 2, up to 25 → 5, up to 50 → 10,
 * up to 100 → 20, up to 200 → 50, otherwise 100. Percentage axes: up to 50 → 10, up to 100 → 20,
 * otherwise 25. Where 'otherwise' would give more than MAX_Y_TICKS ticks (a count axis from 1,100, a
 * percentage axis from 275), the step grows along the 1-2-5 series (25 → 50 → 100 → 200 → 500 →
 * 1,000 …) to the first that gives at most MAX_Y_TICKS (decision 008).
 */
export function tickStep(max: number, percent: boolean): number {
  let step = percent ? (max <= 50 ? 10 : max <= 100 ? 20 : 25) : max <= 10 ? 2 : max <= 25 ? 5 : max <= 50 ? 10 : max <= 100 ? 20 : max <= 200 ? 50 : 100;
  while (Math.floor(max / step + 1e-9) + 1 > MAX_Y_TICKS) step = nextOneTwoFive(step);
  return step;
}

/** The next step of the 1-2-5 series: 100 → 200 → 500 → 1,000; 25 → 50. */
function nextOneTwoFive(step: number): number {
  let power = 1;
  while (power * 10 <= step) power *= 10;
  const mantissa = step / power;
  return (mantissa < 2 ? 2 : mantissa < 5 ? 5 : 10) * power;
}

/** y maximum: see the file header. `highest` is the highest shown value, or null without data. */
export function yAxisMax(category: string, highest: number | null, baselineLevel: number | null): number {
  const top = Math.max(highest ?? 0, baselineLevel ?? 0);
  if (isMaladaptive(category)) return Math.ceil(top / 10) * 10 + 20;
  return top > 100 ? Math.ceil(top / 25) * 25 : 100;
}

export function yTicks(max: number, step: number): number[] {
  const ticks: number[] = [];
  for (let i = 0; i * step <= max + 1e-9; i++) ticks.push(roundTo(i * step, 6));
  return ticks;
}

/**
 * Badge colour rule (clinical §9). The relative difference says how far the value is on the good side
 * of its target, in percent, negative when it falls short. It depends on which way the goal should
 * move: for a maladaptive goal (a behaviour to decrease) lower is better, so it is
 * (target − value) ÷ |target|; for every other goal (a skill to increase) it is (value − target) ÷
 * |target|. −20% or more (−20% itself included) is success; from −20% (exclusive) down to −40%
 * (inclusive) is warning; below −40% is danger. A null or zero target is success; so is a null value
 * (nothing measured yet is not an alarm). The percentage is rounded to 6 decimals so 0.1-style float
 * noise cannot cross a boundary. Example: aggression at 5 against a target of 17 is +70.6% (success).
 */
export function relativeDifference(value: number, target: number, category: string): number {
  const diff = isMaladaptive(category) ? target - value : value - target;
  return roundTo((diff / Math.abs(target)) * 100, 6);
}

export function badgeTone(value: number | null, target: number | null, category: string): "success" | "warning" | "danger" {
  if (target == null || target === 0 || value == null) return "success";
  const pct = relativeDifference(value, target, category);
  if (pct >= -20) return "success";
  if (pct >= -40) return "warning";
  return "danger";
}

/** Objective label: type and 1-based rank among the plan's objectives of that type (see header). */
export function objectiveLabels(objectives: ChartInput["objectives"]): Map<number, { label: string; color: string }> {
  const labels = new Map<number, { label: string; color: string }>();
  for (const [id, l] of labelObjectives(objectives)) labels.set(id, { label: l.label, color: l.type === "LTO" ? LTO_COLOR : STO_COLORS[(l.rank - 1) % STO_COLORS.length]! });
  return labels;
}

/**
 * Comment stacks (see header): offsets 0, 18, 36 … px for the comments of the same day, in date then
 * id order, null past the cap; `more` holds each capped day's count of comments not drawn.
 */
export function commentStacks(comments: ChartInput["comments"]): { offsets: Map<number, number | null>; more: Map<string, number> } {
  const perDay = new Map<string, number>();
  for (const c of comments) perDay.set(c.commentDate, (perDay.get(c.commentDate) ?? 0) + 1);
  const drawn = (date: string) => ((perDay.get(date) ?? 0) > COMMENT_STACK_ROWS ? COMMENT_STACK_ROWS - 1 : COMMENT_STACK_ROWS);
  const seen = new Map<string, number>();
  const offsets = new Map<number, number | null>();
  for (const c of [...comments].sort((a, b) => a.commentDate.localeCompare(b.commentDate) || a.id - b.id)) {
    const n = seen.get(c.commentDate) ?? 0;
    offsets.set(c.id, n < drawn(c.commentDate) ? n * COMMENT_STACK_PX : null);
    seen.set(c.commentDate, n + 1);
  }
  const more = new Map<string, number>();
  for (const [date, n] of perDay) if (n > COMMENT_STACK_ROWS) more.set(date, n - drawn(date));
  return { offsets, more };
}

/* ------------------------------------------------------------------ sections */

/**
 * The width share of each section (same order as `lengths`, the sections' natural lengths in x
 * units), for a plot `plotPx` pixels wide. Each share is at least max(12%, 80 px ÷ plotPx); sections
 * that would fall below it get exactly that minimum and the others share the rest in proportion to
 * their lengths (repeated until no share is below the minimum). When the minimums cannot all fit
 * (n × minimum ≥ 100%), the sections share the plot equally. Shares sum to 1.
 */
export function sectionShares(lengths: readonly number[], plotPx: number): number[] {
  const n = lengths.length;
  if (n === 0) return [];
  const min = Math.max(SECTION_MIN_SHARE, plotPx > 0 ? SECTION_MIN_PX / plotPx : 1);
  if (n === 1) return [1];
  if (min * n >= 1) return lengths.map(() => 1 / n);
  const fixed = new Set<number>();
  for (;;) {
    const free = lengths.map((_, i) => i).filter((i) => !fixed.has(i));
    const rest = 1 - min * fixed.size;
    const total = free.reduce((t, i) => t + Math.max(0, lengths[i]!), 0);
    const share = (i: number) => (total > 0 ? (Math.max(0, lengths[i]!) / total) * rest : rest / free.length);
    const under = free.filter((i) => share(i) < min);
    if (under.length === 0) return lengths.map((_, i) => (fixed.has(i) ? min : share(i)));
    for (const i of under) fixed.add(i);
  }
}

export interface SectionScale {
  /** Section edges: x and its fraction of the plot width (0 … 1), from x.min to x.max. */
  edges: { x: number; f: number }[];
  /** x → fraction of the plot width (0 at x.min, 1 at x.max; linear beyond the ends). */
  toFraction: (x: number) => number;
  /** The inverse: fraction of the plot width → x. */
  fromFraction: (f: number) => number;
}

function piecewise(from: { a: number; b: number }[], value: number): number {
  // from: breakpoints (a → b), increasing in a; linear inside each piece and beyond the ends.
  let k = 0;
  while (k < from.length - 2 && value > from[k + 1]!.a) k++;
  const p = from[k]!;
  const q = from[k + 1]!;
  return q.a === p.a ? p.b : p.b + ((value - p.a) / (q.a - p.a)) * (q.b - p.b);
}

/** The x mapping of a chart drawn with a plot `plotPx` pixels wide (sections: see the file header). */
export function sectionScale(model: Pick<ChartModel, "x" | "sections">, plotPx: number): SectionScale {
  const sections = model.sections.length ? model.sections : [{ from: model.x.min, to: model.x.max }];
  const shares = sectionShares(sections.map((s) => s.to - s.from), plotPx);
  const edges = [{ x: sections[0]!.from, f: 0 }];
  let f = 0;
  sections.forEach((s, i) => {
    f += shares[i]!;
    edges.push({ x: s.to, f: i === sections.length - 1 ? 1 : f });
  });
  const fwd = edges.map((e) => ({ a: e.x, b: e.f }));
  const bwd = edges.map((e) => ({ a: e.f, b: e.x }));
  return { edges, toFraction: (x) => piecewise(fwd, x), fromFraction: (v) => piecewise(bwd, v) };
}

/**
 * A segment as the points to draw it through: its ends and, between them, every inner section edge it
 * crosses (where y is interpolated), so it is straight within each section.
 */
export function segmentPoints(seg: Segment, sections: readonly ChartSection[]): { x: number; y: number }[] {
  const [a, b] = seg.x1 <= seg.x2 ? [{ x: seg.x1, y: seg.y1 }, { x: seg.x2, y: seg.y2 }] : [{ x: seg.x2, y: seg.y2 }, { x: seg.x1, y: seg.y1 }];
  const out = [a];
  for (const s of sections.slice(1)) {
    if (s.from > a.x && s.from < b.x) out.push({ x: s.from, y: roundTo(a.y + ((s.from - a.x) / (b.x - a.x)) * (b.y - a.y), 3) });
  }
  out.push(b);
  return out;
}

/* ------------------------------------------------------------------ dates */

/** Day numbers and their dates: app/domain/weeks.ts (re-exported for the renderers and tests). */
export { dateOfDay, dayNumber };

/** mm/dd/yyyy (US clinics), or mm/dd/yy when short. */
export function formatChartDate(date: string, short = false): string {
  const [y, m, d] = date.split("-");
  return `${m}/${d}/${short ? y.slice(2) : y}`;
}

/** Day number of the last Saturday on or before `date`. */
function lastSaturdayOnOrBefore(day: number): number {
  return day - ((weekdayOfDay(day) + 1) % 7);
}

/* ------------------------------------------------------------------ geometry */

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/** Liang–Barsky: the part of a segment inside the box, or null. */
export function clipSegment(seg: Segment, box: { xMin: number; xMax: number; yMin: number; yMax: number }): Segment | null {
  const dx = seg.x2 - seg.x1;
  const dy = seg.y2 - seg.y1;
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, seg.x1 - box.xMin],
    [dx, box.xMax - seg.x1],
    [-dy, seg.y1 - box.yMin],
    [dy, box.yMax - seg.y1],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q < 0) return null;
      continue;
    }
    const t = q / p;
    if (p < 0) t0 = Math.max(t0, t);
    else t1 = Math.min(t1, t);
    if (t0 > t1) return null;
  }
  const r = (n: number) => roundTo(n, 3);
  return { x1: r(seg.x1 + t0 * dx), y1: r(seg.y1 + t0 * dy), x2: r(seg.x1 + t1 * dx), y2: r(seg.y1 + t1 * dy) };
}

/** Split-middle trend (see header) over points in time order; null with fewer than 4 points. */
export function splitMiddle(points: { x: number; y: number }[]): (Segment & { slope: number }) | null {
  const n = points.length;
  if (n < 4) return null;
  const half = Math.floor(n / 2);
  const first = points.slice(0, half);
  const second = points.slice(n - half);
  const mx1 = median(first.map((p) => p.x));
  const my1 = median(first.map((p) => p.y));
  const mx2 = median(second.map((p) => p.x));
  const my2 = median(second.map((p) => p.y));
  const slope = (my2 - my1) / (mx2 - mx1);
  const at = (x: number) => my1 + slope * (x - mx1);
  const xStart = points[0].x;
  const xEnd = points[n - 1].x;
  return { x1: xStart, y1: at(xStart), x2: xEnd, y2: at(xEnd), slope };
}

/** Up to MAX_X_TICKS Saturdays in the window, every k-th one from the first. */
function xTicks(min: number, max: number): { x: number; label: string }[] {
  let first = lastSaturdayOnOrBefore(Math.ceil(min));
  if (first < min) first += 7;
  const count = first > max ? 0 : Math.floor((max - first) / 7) + 1;
  const every = Math.max(1, Math.ceil(count / MAX_X_TICKS));
  const ticks: { x: number; label: string }[] = [];
  for (let i = 0; i < count; i += every) {
    const x = first + i * 7;
    ticks.push({ x, label: formatChartDate(dateOfDay(x), true) });
  }
  return ticks;
}

/** A number in the chart's texts: the measurement formatter (2 decimals at most, decision 029). */
const formatNumber = formatMeasure;

/* ------------------------------------------------------------------ the model */

export function buildChartModel(input: ChartInput): ChartModel {
  const { plan } = input;
  const perHour = isPerHour(plan);
  const percent = !isMaladaptive(plan.category);
  const bounds = [input.from ? dayNumber(input.from) : null, input.to ? dayNumber(input.to) : null];
  // A reversed window (to before from) is read the right way round.
  const [fromDay, toDay] = bounds[0] != null && bounds[1] != null && bounds[0] > bounds[1] ? [bounds[1], bounds[0]] : bounds;
  const inWindow = (day: number | null): day is number => day != null && (fromDay == null || day >= fromDay) && (toDay == null || day <= toDay);

  const baselineDay = plan.baselineDate ? dayNumber(plan.baselineDate) : null;
  const lastBaselineSaturday = baselineDay == null ? null : lastSaturdayOnOrBefore(baselineDay);
  const phaseOf = (day: number): Phase => (lastBaselineSaturday != null && day <= lastBaselineSaturday ? "baseline" : "treatment");

  // Weekly reports on their Saturday, one per week (the later one wins), inside the window.
  const byWeek = new Map<number, ChartInput["reports"][number]>();
  for (const r of input.reports) {
    const reported = dayNumber(r.weekEnd);
    if (reported === null) continue;
    const day = weekEndingDay(reported);
    if (inWindow(day)) byWeek.set(day, r);
  }
  const reportDays = [...byWeek.keys()].sort((a, b) => a - b);
  const weekDays: number[] = [];
  if (reportDays.length && !(TRAINING_CATEGORIES as readonly string[]).includes(plan.category as PlanCategory)) {
    for (let d = reportDays[0]; d <= reportDays[reportDays.length - 1]; d += 7) weekDays.push(d);
  } else {
    weekDays.push(...reportDays);
  }

  const points: ChartPoint[] = weekDays.map((x) => {
    const weekEnd = dateOfDay(x);
    const r = byWeek.get(x);
    const label = formatChartDate(weekEnd);
    const phase = phaseOf(x);
    // Plain literals (no spread of a shared base): this runs once per week of up to years of data.
    if (!r) return { weekEnd, label, x, value: null, reported: null, totalUnits: null, hours: null, phase };
    const value = perHour ? perHourValue(r.value, r.totalUnits) : r.value;
    return { weekEnd, label, x, value, reported: r.value, totalUnits: r.totalUnits, hours: perHour ? hoursOf(r.totalUnits) : null, phase };
  });

  const series: ChartSeries[] = (["baseline", "treatment"] as const).map((key) => ({
    key,
    label: key === "baseline" ? "Baseline" : "Treatment",
    color: CHART_COLORS[key],
    values: points.map((p) => (p.phase === key ? p.value : null)),
  }));

  const values = points.flatMap((p) => (p.value == null ? [] : [p.value]));
  const highest = values.length ? Math.max(...values) : null;
  const yMax = yAxisMax(plan.category, highest, plan.baselineLevel);
  const step = tickStep(yMax, percent);

  const baselineMarker =
    baselineDay != null && plan.baselineLevel != null && inWindow(baselineDay)
      ? { date: plan.baselineDate as string, dateLabel: formatChartDate(plan.baselineDate as string), x: baselineDay, value: plan.baselineLevel }
      : null;
  const phaseX = lastBaselineSaturday == null ? null : lastBaselineSaturday + HALF_WEEK;

  // Objective markers (end dates in the window) and comment markers.
  const labels = objectiveLabels(input.objectives);
  const objectiveDays = input.objectives.map((o) => ({ o, day: o.endDate ? dayNumber(o.endDate) : null }));
  const stacks = commentStacks(input.comments);
  const commentDays = input.comments.map((c) => ({ c, day: dayNumber(c.commentDate) }));

  // The x domain: the window when chosen, else every shown date padded by half a week.
  const shownDays = [
    ...weekDays,
    ...(baselineMarker ? [baselineMarker.x] : []),
    ...(phaseX != null && inWindow(baselineDay) ? [baselineDay as number] : []),
    ...objectiveDays.flatMap(({ day }) => (inWindow(day) ? [day] : [])),
    ...commentDays.flatMap(({ day }) => (inWindow(day) ? [day] : [])),
  ];
  const empty = shownDays.length === 0;
  // Nothing to show: the window when chosen (four weeks beside a single bound), else a unit domain.
  const xMin = fromDay ?? (!empty ? Math.min(...shownDays) - HALF_WEEK : toDay != null ? toDay - 28 : 0);
  const xEnd = toDay ?? (!empty ? Math.max(...shownDays) + HALF_WEEK : fromDay != null ? fromDay + 28 : 1);
  const xMax = xEnd > xMin ? xEnd : xMin + 1; // a one-day window still has a width
  const xMid = (xMin + xMax) / 2;
  const anchorAt = (x: number): LabelAnchor => (x > xMid ? "end" : "start");
  const box = { xMin, xMax, yMin: 0, yMax };

  const objectives: ObjectiveMarker[] = objectiveDays
    .filter((e): e is { o: ChartInput["objectives"][number]; day: number } => inWindow(e.day))
    .sort((a, b) => a.day - b.day || a.o.position - b.o.position)
    .map(({ o, day }) => {
      const { label, color } = labels.get(o.id) as { label: string; color: string };
      const date = o.endDate as string;
      return { id: o.id, label, type: String(o.type).toUpperCase(), name: o.name ?? null, status: o.status, mastered: o.status === "mastered", target: o.target, date, dateLabel: formatChartDate(date), x: day, color, anchor: anchorAt(day) };
    });

  const comments: CommentMarker[] = commentDays
    .filter((e): e is { c: ChartInput["comments"][number]; day: number } => inWindow(e.day))
    .sort((a, b) => a.day - b.day || a.c.id - b.c.id)
    .map(({ c, day }) => ({ id: c.id, date: c.commentDate, dateLabel: formatChartDate(c.commentDate), x: day, text: c.comment.trim(), offsetY: stacks.offsets.get(c.id) ?? null, anchor: anchorAt(day) }));
  const commentMore: CommentMoreMarker[] = [...stacks.more]
    .flatMap(([date, count]) => {
      const day = dayNumber(date);
      return inWindow(day) ? [{ date, dateLabel: formatChartDate(date), x: day, offsetY: (COMMENT_STACK_ROWS - 1) * COMMENT_STACK_PX, count, label: `+${count} more`, anchor: anchorAt(day) }] : [];
    })
    .sort((a, b) => a.x - b.x);

  const aimLines: AimLine[] = [];
  if (baselineDay != null && plan.baselineLevel != null) {
    for (const { o, day } of objectiveDays) {
      if (day == null || o.target == null || day <= baselineDay) continue;
      const seg = clipSegment({ x1: baselineDay, y1: plan.baselineLevel, x2: day, y2: o.target }, box);
      const meta = labels.get(o.id) as { label: string; color: string };
      if (seg) aimLines.push({ objectiveId: o.id, label: meta.label, color: meta.color, ...seg });
    }
  }

  const treatment = points.flatMap((p) => (p.phase === "treatment" && p.value != null ? [{ x: p.x, y: p.value }] : []));
  const split = splitMiddle(treatment);
  const trendSeg = split ? clipSegment(split, box) : null;
  const trend = split && trendSeg ? { ...trendSeg, slopePerWeek: roundTo(split.slope * 7, 2) } : null;

  const phaseLine = phaseX != null && inWindow(baselineDay) && phaseX >= xMin && phaseX <= xMax ? { x: phaseX, label: PHASE_DIVIDER_LABEL } : null;

  // Sections: baseline | treatment when the phase line falls strictly inside the plot.
  const sections: ChartSection[] =
    phaseLine && phaseLine.x > xMin && phaseLine.x < xMax
      ? [
          { key: "baseline", label: "Baseline", from: xMin, to: phaseLine.x },
          { key: "treatment", label: "Treatment", from: phaseLine.x, to: xMax },
        ]
      : [{ key: "treatment", label: "Treatment", from: xMin, to: xMax }];

  const yLabel = yAxisLabel(plan);
  const legendItems: LegendItem[] = [
    { key: "baseline", label: "Baseline", color: CHART_COLORS.baseline, style: "line" },
    { key: "treatment", label: "Treatment", color: CHART_COLORS.treatment, style: "line" },
  ];
  if (baselineMarker) legendItems.push({ key: "baselineLevel", label: `Baseline level (${formatNumber(baselineMarker.value)} on ${baselineMarker.dateLabel})`, color: CHART_COLORS.baseline, style: "diamond" });
  if (phaseLine) legendItems.push({ key: "phase", label: "Phase change", color: CHART_COLORS.phase, style: "rule" });
  if (objectives.length) legendItems.push({ key: "objective", label: "Objective end date", color: CHART_COLORS.objective, style: "dashed" });
  if (comments.length) legendItems.push({ key: "comment", label: "Comment", color: CHART_COLORS.comment, style: "rule" });
  if (aimLines.length) legendItems.push({ key: "aim", label: "Aim line", color: CHART_COLORS.objective, style: "dashed" });
  if (trend) legendItems.push({ key: "trend", label: "Trend (split-middle)", color: CHART_COLORS.trend, style: "dotted" });

  const withData = points.filter((p) => p.value != null);
  const weeks = points.length
    ? `${points.length} ${points.length === 1 ? "week" : "weeks"} (${points[0].label} – ${points[points.length - 1].label})`
    : "No weekly reports";
  const mastered = input.objectives
    .filter((o) => o.status === "mastered")
    .sort((a, b) => a.position - b.position || a.id - b.id)
    .map((o) => {
      const meta = labels.get(o.id) as { label: string; color: string };
      return { label: meta.label, name: o.name ?? null, color: meta.color };
    });

  const parts: string[] = [];
  if (!withData.length) parts.push(`${yLabel}: no weekly reports in this period.`);
  else {
    const last = withData[withData.length - 1];
    const lo = Math.min(...values);
    parts.push(`${yLabel} for ${withData.length} of ${points.length} weeks from ${points[0].label} to ${points[points.length - 1].label}; values from ${formatNumber(lo)} to ${formatNumber(highest as number)}, last ${formatNumber(last.value as number)} on ${last.label}.`);
  }
  if (baselineMarker) parts.push(`Baseline level ${formatNumber(baselineMarker.value)} on ${baselineMarker.dateLabel}.`);
  if (trend) parts.push(`Treatment trend ${trend.slopePerWeek > 0 ? "increasing" : trend.slopePerWeek < 0 ? "decreasing" : "flat"} (${formatNumber(trend.slopePerWeek)} per week).`);
  if (objectives.length) parts.push(`Objectives: ${objectives.map((o) => `${o.label}${o.target != null ? ` target ${formatNumber(o.target)}` : ""} by ${o.dateLabel}`).join("; ")}.`);
  if (comments.length) parts.push(`${comments.length} ${comments.length === 1 ? "comment" : "comments"}.`);

  return {
    title: CHART_TITLE,
    heading: chartHeading(plan.category),
    planName: plan.name,
    category: plan.category,
    height: CHART_HEIGHT,
    empty,
    perHour,
    colors: { ...CHART_COLORS },
    x: { min: xMin, max: xMax, label: "Weeks", ticks: empty && fromDay == null && toDay == null ? [] : xTicks(xMin, xMax) },
    y: { min: 0, max: yMax, step, ticks: yTicks(yMax, step), label: yLabel, percent },
    sections,
    points,
    series,
    baselineMarker,
    phaseLine,
    objectives,
    comments,
    commentMore,
    aimLines,
    trend,
    legend: { weeks, items: legendItems, mastered },
    summary: parts.join(" "),
  };
}
