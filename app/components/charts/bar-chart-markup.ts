import type { BarChartModel } from "~/domain/report-operations";
import { esc } from "./chart-markup";

/**
 * A report's small bar chart (hours per week, clients per provider) as an inline SVG string, drawn on the
 * server from the model alone (app/domain/report-operations.ts `barChart` decides the bars and the axis): it
 * reads with JavaScript off, and screen readers get the <title>, the <desc> summary and the table beside it.
 * Horizontal bars, so long names stay readable. Every text and attribute value goes through `esc`.
 */
const W = 720;
const LABEL = 200;
const R = 72;
const T = 8;
const ROW = 22;
const AXIS = 24;

const r1 = (n: number) => Math.round(n * 10) / 10;

export function barChartSvgMarkup(model: BarChartModel, id: string): string {
  const plot = W - LABEL - R;
  const H = T + model.bars.length * ROW + AXIS;
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
    out.push(
      `<text x="${LABEL - 6}" y="${y + 15}" text-anchor="end">${esc(label)}</text>`,
      `<rect x="${LABEL}" y="${y + 4}" width="${r1(px(b.value) - LABEL)}" height="${ROW - 8}" fill="#0d9488"></rect>`,
      `<text x="${px(b.value) + 4}" y="${y + 15}">${esc(b.text)}</text>`
    );
  });
  for (const t of model.ticks) out.push(`<text x="${px(t)}" y="${bottom + 16}" text-anchor="middle" fill="#6b7280">${esc(t)}</text>`);
  out.push(`</g></svg>`);
  return `<figure class="report-bar-chart" style="margin:0 0 1rem">${out.join("")}</figure>`;
}
