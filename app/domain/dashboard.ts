/** Dashboard figures (platform §3 dashboard data). Pure. */

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
}

/** Fills the twelve months of a year from sparse per-month counts (gender 1 = hombre, 2 = mujer). */
export function patientsByGender(year: number, rows: readonly { month: number; gender: number | null; n: number }[]): GenderMonth[] {
  const out = Array.from({ length: 12 }, (_, i) => ({ year, month: i + 1, hombre: 0, mujer: 0 }));
  for (const r of rows) {
    const m = out[r.month - 1];
    if (!m) continue;
    if (r.gender === 1) m.hombre += r.n;
    else if (r.gender === 2) m.mujer += r.n;
  }
  return out;
}
