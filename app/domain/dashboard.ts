/** Dashboard figures (platform §3 dashboard data). Pure. */
import * as v from "valibot";
import { tickStep, yTicks } from "./chart";

/** Spanish month names, as the year answer's months_name. */
export const MONTHS_NAME = ["Enero", "Febrero", "Marzo", "Abril", "Mayo", "Junio", "Julio", "Agosto", "Septiembre", "Octubre", "Noviembre", "Diciembre"] as const;

/** Month-over-month change in percent, to 2 decimals. From 0 to something counts as +100%. */
export function percentChange(current: number, before: number): number {
  if (before === 0) return current === 0 ? 0 : 100;
  return Math.round(((current - before) / before) * 10_000) / 100;
}

export interface GenderMonth {
  year: number;
  month: number;
  hombre: number;
  mujer: number;
  /** Gender not given (null, or a code other than 1 and 2): added to the spec's hombre / mujer so the year adds up to the Patients tile. */
  no_indicado: number;
}

/** Fills the twelve months of a year from sparse per-month counts (gender 1 = hombre, 2 = mujer, anything else = no_indicado). */
export function patientsByGender(year: number, rows: readonly { month: number; gender: number | null; n: number }[]): GenderMonth[] {
  const out = Array.from({ length: 12 }, (_, i) => ({ year, month: i + 1, hombre: 0, mujer: 0, no_indicado: 0 }));
  for (const r of rows) {
    const m = out[r.month - 1];
    if (!m) continue;
    if (r.gender === 1) m.hombre += r.n;
    else if (r.gender === 2) m.mujer += r.n;
    else m.no_indicado += r.n;
  }
  return out;
}

/* ------------------------------------------------------------------ the year chart */

/** `?year=` of the year answer and of the dashboard screen: four digits, 2000 … 2100. */
export const YearQuery = v.object({
  year: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{4}$/, "The year must have four digits."),
      v.transform(Number),
      v.minValue(2000, "The year must be 2000 or later."),
      v.maxValue(2100, "The year must be 2100 or earlier."),
    ),
  ),
});

/** Month labels on the screen (the API keeps months_name in Spanish, as the spec's client contract says). */
export const MONTH_LABELS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"] as const;
const MONTH_NAMES = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"] as const;

/**
 * Bar colours: each at least 3:1 against the white plot (WCAG 1.4.11): blue 6.7:1, pink 6.0:1, amber 5.0:1; blue
 * against amber stays apart for red–green colour blindness too. Told apart by the legend, the fixed bar order
 * (male, female, not given), the bars' titles and the table as well.
 */
export const GENDER_COLORS = { hombre: "#1d4ed8", mujer: "#be185d", no_indicado: "#b45309" } as const;

export type GenderKey = keyof typeof GENDER_COLORS;

export interface YearChartModel {
  year: number;
  title: string;
  /** Chart height in px, like the behavior charts. */
  height: number;
  /** Each bar's width as a share of its month's band; a month's bars sit side by side, centred on it. */
  barShare: number;
  months: { month: number; label: string; name: string; hombre: number; mujer: number; no_indicado: number }[];
  series: { key: GenderKey; label: string; color: string; values: number[] }[];
  y: { max: number; step: number; ticks: number[]; label: string };
  /** No new patient in the year. */
  empty: boolean;
  /** One or two sentences for screen readers (svg <desc>). */
  summary: string;
}

/**
 * The dashboard's year chart (platform §3 "Year response": new patients per month by gender) as a model
 * that the server SVG and the uPlot module both draw. y: from 0 to the highest monthly count rounded up
 * to a whole tick step (the behavior chart's count steps, clinical §9: up to 10 → 2, up to 25 → 5, …),
 * at least one step; ticks every step.
 */
export function buildYearChartModel(year: number, rows: readonly GenderMonth[]): YearChartModel {
  const months = Array.from({ length: 12 }, (_, i) => {
    const r = rows.find((x) => x.month === i + 1);
    return { month: i + 1, label: MONTH_LABELS[i]!, name: MONTH_NAMES[i]!, hombre: r?.hombre ?? 0, mujer: r?.mujer ?? 0, no_indicado: r?.no_indicado ?? 0 };
  });
  const all = (m: (typeof months)[number]) => m.hombre + m.mujer + m.no_indicado;
  const highest = Math.max(0, ...months.flatMap((m) => [m.hombre, m.mujer, m.no_indicado]));
  const step = tickStep(Math.max(highest, 1), false);
  const max = Math.max(step, Math.ceil(highest / step) * step);
  const ticks = yTicks(max, step);
  const totals = months.reduce((t, m) => ({ hombre: t.hombre + m.hombre, mujer: t.mujer + m.mujer, no_indicado: t.no_indicado + m.no_indicado }), { hombre: 0, mujer: 0, no_indicado: 0 });
  const empty = totals.hombre + totals.mujer + totals.no_indicado === 0;
  const busiest = months.reduce((best, m) => (all(m) > all(best) ? m : best), months[0]!);
  const summary = empty
    ? `No new patients in ${year}.`
    : `New patients in ${year}: ${totals.hombre + totals.mujer + totals.no_indicado} (${totals.hombre} male, ${totals.mujer} female, ${totals.no_indicado} gender not given). The busiest month was ${busiest.name} with ${all(busiest)}.`;
  return {
    year,
    title: `New patients by gender, ${year}`,
    height: 300,
    barShare: 0.26,
    months,
    series: YEAR_SERIES.map(([key, label]) => ({ key, label, color: GENDER_COLORS[key], values: months.map((m) => m[key]) })),
    y: { max, step, ticks, label: "New patients" },
    empty,
    summary,
  };
}

/** The chart's series in bar order, with their screen labels (also the data table's columns). */
export const YEAR_SERIES: readonly (readonly [GenderKey, string])[] = [
  ["hombre", "Male"],
  ["mujer", "Female"],
  ["no_indicado", "Not given"],
];
