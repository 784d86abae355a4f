/**
 * A measurement value of a weekly report (its value and total units): one rule for how precise it is, kept here
 * (decision 029, stop 36). Every write path — the goal screen's forms, the API, the .xlsx import and the weeks
 * generated from notes — stores it rounded to MEASURE_DECIMALS places (roundMeasure); every screen and PDF shows it
 * through formatMeasure; and a change is a change only when the rounded values differ (sameMeasure), so a value
 * stored with more decimals before the rule is shown rounded and kept until someone edits it. Pure.
 */
export const MEASURE_DECIMALS = 2;

/** Rounds half-up to `decimals` places, steady for values such as 1.005. */
export function roundTo(value: number, decimals: number): number {
  const f = 10 ** decimals;
  return Math.round((value + Math.sign(value) * Number.EPSILON * Math.max(1, Math.abs(value))) * f) / f;
}

/** A measurement value as it is stored: rounded to 2 decimals (82.9268… → 82.93). */
export function roundMeasure(value: number): number;
export function roundMeasure(value: number | null): number | null;
export function roundMeasure(value: number | null): number | null {
  return value === null ? null : roundTo(value, MEASURE_DECIMALS);
}

/** A measurement value as every screen shows it (also in an input): at most 2 decimals, no trailing zeros; "" for none. */
export function formatMeasure(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? "" : String(roundMeasure(value));
}

/** Whether two measurement values are the same under the rule (both none, or equal once rounded). */
export function sameMeasure(a: number | null | undefined, b: number | null | undefined): boolean {
  const none = (x: unknown) => x === null || x === undefined;
  if (none(a) || none(b)) return none(a) && none(b);
  return roundMeasure(a as number) === roundMeasure(b as number);
}
