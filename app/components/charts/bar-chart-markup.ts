import { CHART_COLORS } from "~/domain/chart";
import type { BarChartModel } from "~/domain/report-operations";
import { esc } from "./chart-markup";

/**
 * A report's small bar chart (hours per week, clients per provider, projected use) as an inline SVG string,
 * drawn on the server from the model alone (app/domain/report-operations.ts `barChart` decides the bars and
 * the axis): it reads with JavaScript off, and screen readers get the <title>, the <desc> summary and the
 * table beside it. Horizontal bars, so long names stay readable; a bar's target is a lighter bar behind it,
 * a flagged bar is drawn in the danger colour. Every text and attribute value goes through `esc`. With
 * JavaScript on, app/client/report-chart.ts redraws the same model with uPlot (decision 038).
 */
const W = 720;
const LABEL = 200;
const R = 72;
const T = 8;
const ROW = 22;
const AXIS = 24;
const LEGEND = 18;

/** The colours both drawings use. */
export const BAR_COLORS = { value: CHART_COLORS.treatment, flagged: CHART_COLORS.baseline, target: "#cbd5e1" } as const;

/** The SVG's height for a model (the uPlot chart takes the same). */
export function barChartHeight(model: BarChartModel): number {
  return T + model.bars.length * ROW + AXIS + (model.legend ? LEGEND : 0);
}

const r1 = (n: number) => Math.round(n * 10) / 10;

export function barChartSvgMarkup(model: BarChartModel, id: string): string {
  const plot = W - LABEL - R;
  const H = barChartHeight(model);
  const px = (v: number) => r1(LABEL + (Math.max(0, v) / (model.max || 1)) * plot);
  const out: string[] = [
    `<svg role="img" aria-labelledby="${esc(
      `${id}-title ${id}-desc`
    )}" viewBox="0 0 ${W} ${H}" width="100%" style="max-width:${W}px;display:block;font:12px system-ui,sans-serif" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${esc(`${id}-title`)}">${esc(model.title)}</title>`,
    `<desc id="${esc(`${id}-desc`)}">${esc(model.summary)}</desc>`,
    `<rect width="${W}" height="${H}" fill="#fff"></rect>`,
  ];
  const bottom = T + model.bars.length * ROW;
  let grid = "";
  for (const t of model.ticks) grid += `M${px(t)} ${T}V${bottom}`;
  out.push(`<path d="${grid}" stroke="#e5e7eb" fill="none"></path>`, `<path d="M${LABEL} ${T}V${bottom}" stroke="#6b7280" fill="none"></path>`);
  out.push(`<g aria-hidden="true" fill="#374151">`);
  model.bars.forEach((b, i) => {
    const y = T + i * ROW;
    const label = b.label.length > 30 ? `${b.label.slice(0, 29)}…` : b.label;
    const end = Math.max(px(b.value), b.target !== null ? px(b.target) : 0);
    out.push(
      `<text x="${LABEL - 6}" y="${y + 15}" text-anchor="end">${esc(label)}</text>`,
      b.target !== null ? `<rect x="${LABEL}" y="${y + 4}" width="${r1(px(b.target) - LABEL)}" height="${ROW - 8}" fill="${BAR_COLORS.target}"></rect>` : "",
      `<rect x="${LABEL}" y="${y + 4}" width="${r1(px(b.value) - LABEL)}" height="${ROW - 8}" fill="${b.flagged ? BAR_COLORS.flagged : BAR_COLORS.value}"></rect>`,
      `<text x="${end + 4}" y="${y + 15}">${esc(b.text)}</text>`
    );
  });
  for (const t of model.ticks) out.push(`<text x="${px(t)}" y="${bottom + 16}" text-anchor="middle" fill="#6b7280">${esc(t)}</text>`);
  if (model.legend) out.push(`<text x="${LABEL}" y="${bottom + AXIS + 12}" font-size="11">${esc(`■ ${model.legend.value}   □ ${model.legend.target}`)}</text>`);
  out.push(`</g></svg>`);
  return out.join("");
}
