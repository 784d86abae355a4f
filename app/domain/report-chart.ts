import { CHART_COLORS } from "./chart";

/**
 * A report's small chart (decision 038): horizontal bars, drawn as an SVG string on the server, so it shows
 * with JavaScript off. Pure. Each bar may carry a second, lighter bar behind it (a target: the units
 * authorized behind the units projected). Every figure is also in the report's table; the chart has a title
 * and a text description for assistive technology, and every label and number is written as text.
 */

export interface BarDatum {
  label: string;
  value: number;
  /** A lighter bar behind (the whole the value is part of), or null. */
  target?: number | null;
  /** Marks the bar in the danger colour (and says so in its text). */
  flagged?: boolean;
}

export interface BarChartOptions {
  title: string;
  /** What the numbers are ("units"). */
  unit: string;
  /** At most this many bars (the first ones); the table has them all. */
  maxBars?: number;
  width?: number;
  valueLabel?: string;
  targetLabel?: string;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** The SVG markup of a horizontal bar chart, or null when there is nothing to draw. */
export function barChartSvg(data: readonly BarDatum[], o: BarChartOptions): string | null {
  const bars = data.slice(0, o.maxBars ?? 20);
  if (bars.length === 0) return null;
  const width = o.width ?? 640;
  const labelW = 200;
  const valueW = 120;
  const barH = 18;
  const gap = 8;
  const top = 28;
  const plotW = width - labelW - valueW;
  const max = Math.max(1, ...bars.map((b) => Math.max(b.value, b.target ?? 0)));
  const height = top + bars.length * (barH + gap) + 24;
  const scale = (n: number) => Math.max(0, Math.round((n / max) * plotW));
  const id = `chart-${o.title.replace(/[^A-Za-z0-9]+/g, "-").toLowerCase()}`;
  const desc = bars.map((b) => `${b.label}: ${b.value} ${o.unit}${b.target != null ? ` of ${b.target}` : ""}${b.flagged ? " (flagged)" : ""}`).join("; ");
  const rows = bars
    .map((b, i) => {
      const y = top + i * (barH + gap);
      const fill = b.flagged ? CHART_COLORS.baseline : CHART_COLORS.treatment;
      const back = b.target != null ? `<rect x="${labelW}" y="${y}" width="${scale(b.target)}" height="${barH}" fill="#cbd5e1"/>` : "";
      const text = `${b.value}${b.target != null ? ` / ${b.target}` : ""}${b.flagged ? " !" : ""}`;
      return (
        `<text x="${labelW - 6}" y="${y + barH - 5}" text-anchor="end" font-size="12">${escapeXml(b.label.length > 30 ? `${b.label.slice(0, 29)}…` : b.label)}</text>` +
        back +
        `<rect x="${labelW}" y="${y}" width="${scale(Math.max(0, b.value))}" height="${barH}" fill="${fill}"/>` +
        `<text x="${labelW + plotW + 6}" y="${y + barH - 5}" font-size="12">${escapeXml(text)}</text>`
      );
    })
    .join("");
  const legend =
    o.valueLabel || o.targetLabel
      ? `<text x="${labelW}" y="${height - 6}" font-size="11">${escapeXml([o.valueLabel ? `■ ${o.valueLabel}` : "", o.targetLabel ? `□ ${o.targetLabel}` : ""].filter(Boolean).join("   "))}</text>`
      : "";
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${width} ${height}" width="100%" style="max-width:${width}px">` +
    `<title id="${id}-t">${escapeXml(o.title)}</title><desc id="${id}-d">${escapeXml(desc)}</desc>` +
    `<text x="0" y="16" font-size="13" font-weight="bold">${escapeXml(o.title)}</text>` +
    rows +
    legend +
    `</svg>`
  );
}
