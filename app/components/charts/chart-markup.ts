import { sectionScale, segmentPoints, type ChartModel, type LabelAnchor, type Segment } from "~/domain/chart";

/**
 * The behavior chart's server markup as strings, from the chart model alone (no rule is computed here:
 * app/domain/chart.ts decides): the inline SVG and the data tables behind it. Strings rather than React
 * elements because a three-year chart is a few thousand elements, which React renders several times
 * slower, and because the PDF export draws the same SVG without React. Every text and attribute value
 * goes through `esc`.
 */

/** SVG geometry (viewBox units). The plot area is [L, W − R] × [T, H − B]. */
const W = 960;
const L = 64;
const R = 16;
const T = 30;
const B = 50;

const r1 = (n: number) => Math.round(n * 10) / 10;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" };
/** Text or an attribute value, escaped for HTML and SVG. */
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** A JSON text that cannot close its <script> element: a chart's model for its uPlot module. */
export function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

export function chartGeometry(model: Pick<ChartModel, "x" | "y" | "height" | "sections">) {
  const H = model.height;
  const plotBottom = H - B;
  // x through the chart's sections (each at least 12% / 80 px wide: app/domain/chart.ts).
  const scale = sectionScale(model, W - R - L);
  return {
    width: W,
    height: H,
    left: L,
    right: W - R,
    top: T,
    bottom: plotBottom,
    px: (x: number) => r1(L + scale.toFraction(x) * (W - R - L)),
    py: (y: number) => r1(plotBottom - (y / (model.y.max || 1)) * (plotBottom - T)),
  };
}

type Geometry = ReturnType<typeof chartGeometry>;

/** Path data for one series: a new sub-path after every null, so gaps and phases break the line. */
function seriesPath(model: ChartModel, values: (number | null)[], g: Geometry): string {
  let d = "";
  let pen = false;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (v == null) {
      pen = false;
      continue;
    }
    d += `${pen ? "L" : "M"}${g.px(model.points[i]!.x)} ${g.py(v)}`;
    pen = true;
  }
  return d;
}

/** A straight segment in data space, drawn through the section edges it crosses. */
const segmentPath = (s: Segment, model: ChartModel, g: Geometry) =>
  segmentPoints(s, model.sections)
    .map((p, i) => `${i ? "L" : "M"}${g.px(p.x)} ${g.py(p.y)}`)
    .join("");
const labelX = (x: number, anchor: LabelAnchor) => (anchor === "start" ? x + 4 : x - 4);

/** One small stylesheet per chart (in the SVG, so an exported SVG keeps its look); colours from the model. */
function chartStyle(c: ChartModel["colors"]): string {
  return `.bc svg{display:block;max-width:100%;background:#fff;font:12px system-ui,sans-serif}
.bc-bg{fill:#fff}.bc-grid{stroke:#e5e7eb;fill:none}.bc-axis{stroke:#6b7280;fill:none}
.bc-t{fill:#374151}.bc-yt{text-anchor:end}.bc-xt,.bc-c{text-anchor:middle}.bc-e{text-anchor:end}
.bc-b{fill:${c.baseline};stroke:${c.baseline}}.bc-tr{fill:${c.treatment};stroke:${c.treatment}}.bc-line{fill:none;stroke-width:2}
.bc-phase{stroke:${c.phase};stroke-width:2;fill:none}.bc-div{font-weight:600;fill:${c.phase};text-anchor:middle}
.bc-obj{stroke:${c.objective};stroke-dasharray:6 4;fill:none}.bc-ol{font-weight:700}
.bc-cm{stroke:${c.comment};fill:none}.bc-cd{fill:${c.comment}}.bc-ct{fill:${c.comment};font-size:11px}
.bc-aim{fill:none;stroke-width:1.5;stroke-dasharray:8 5}.bc-trend{fill:none;stroke:${c.trend};stroke-width:2;stroke-dasharray:2 4;stroke-linecap:round}
.bc-legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;list-style:none;margin:.4rem 0;padding:0;font-size:.85rem}
.bc-legend li{display:flex;align-items:center;gap:.35rem}
.bc-sw{display:inline-block;width:18px;border-top:2px solid currentColor}.bc-sw-diamond{width:9px;height:9px;border:0;margin:0 4px;transform:rotate(45deg);background:currentColor}
.bc-sw-dashed{border-top-style:dashed}.bc-sw-dotted{border-top-style:dotted;border-top-width:3px}.bc-sw-rule{width:2px;height:14px;border:0;background:currentColor}
.bc{margin:0 0 1rem}.bc-uplot{background:#fff}.bc-meta{margin:.2rem 0;font-size:.85rem}.bc-data table{font-size:.85rem}.bc figcaption{display:flex;gap:.6rem;align-items:baseline;flex-wrap:wrap}`;
}

const text = (cls: string, x: number, y: number, content: string | number, extra = "") => `<text class="${cls}" x="${x}" y="${y}"${extra}>${esc(content)}</text>`;

/** The chart as an inline SVG: an image with a title and a <desc> summary; each mark carries a <title>. */
export function chartSvgMarkup(model: ChartModel, id: string): string {
  const g = chartGeometry(model);
  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  const midY = r1((g.top + g.bottom) / 2);
  const midX = r1((g.left + g.right) / 2);
  const out: string[] = [];
  out.push(
    `<svg role="img" aria-labelledby="${esc(`${titleId} ${descId}`)}" viewBox="0 0 ${g.width} ${g.height}" width="100%" height="${g.height}" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${esc(titleId)}">${esc(`${model.title}: ${model.heading} — ${model.planName}`)}</title>`,
    `<desc id="${esc(descId)}">${esc(model.summary)}</desc>`,
    `<style>${chartStyle(model.colors)}</style>`,
    `<rect class="bc-bg" width="${g.width}" height="${g.height}"></rect>`,
  );
  let grid = "";
  for (const t of model.y.ticks) grid += `M${g.left} ${g.py(t)}H${g.right}`;
  for (const t of model.x.ticks) grid += `M${g.px(t.x)} ${g.top}V${g.bottom}`;
  out.push(`<path class="bc-grid" d="${grid}"></path>`, `<path class="bc-axis" d="M${g.left} ${g.top}V${g.bottom}H${g.right}"></path>`);

  out.push(`<g class="bc-t" aria-hidden="true">`);
  for (const t of model.y.ticks) out.push(text("bc-yt", g.left - 6, r1(g.py(t) + 4), t));
  for (const t of model.x.ticks) out.push(text("bc-xt", g.px(t.x), g.bottom + 18, t.label));
  out.push(text("bc-c", midX, g.height - 8, model.x.label));
  out.push(`<text class="bc-c" transform="translate(16 ${midY}) rotate(-90)">${esc(model.y.label)}</text>`);
  if (model.empty || model.points.length === 0) out.push(text("bc-c", midX, midY, "No weekly reports"));
  out.push(`</g>`);

  if (model.phaseLine) {
    const x = g.px(model.phaseLine.x);
    out.push(`<g><path class="bc-phase" d="M${x} ${g.top}V${g.bottom}"></path>${text("bc-div", x, g.top - 10, model.phaseLine.label)}</g>`);
  }
  for (const a of model.aimLines) out.push(`<path class="bc-aim" stroke="${esc(a.color)}" d="${segmentPath(a, model, g)}"><title>${esc(`Aim line to ${a.label}`)}</title></path>`);
  if (model.trend) out.push(`<path class="bc-trend" d="${segmentPath(model.trend, model, g)}"><title>${esc(`Trend (split-middle): ${model.trend.slopePerWeek} per week`)}</title></path>`);
  for (const o of model.objectives) {
    const x = g.px(o.x);
    const title = `${o.label}${o.name ? `: ${o.name}` : ""} — ${o.status}${o.target != null ? `, target ${o.target}` : ""}, end ${o.dateLabel}`;
    out.push(
      `<g><title>${esc(title)}</title><path class="bc-obj" d="M${x} ${g.top}V${g.bottom}"></path>`,
      `<text class="${o.anchor === "end" ? "bc-ol bc-e" : "bc-ol"}" fill="${esc(o.color)}" x="${labelX(x, o.anchor)}" y="${g.bottom - 6}">${esc(o.label)}</text></g>`,
    );
  }
  for (const c of model.comments) {
    if (c.offsetY == null) continue; // past the day's stack: in its '+n more' marker
    const x = g.px(c.x);
    const y = g.top + 8 + c.offsetY;
    out.push(
      `<g><title>${esc(`${c.dateLabel}: ${c.text}`)}</title><path class="bc-cm" d="M${x} ${y}V${g.bottom}"></path><circle class="bc-cd" cx="${x}" cy="${y}" r="3"></circle>`,
      text(c.anchor === "end" ? "bc-ct bc-e" : "bc-ct", labelX(x, c.anchor), y + 4, c.text),
      `</g>`,
    );
  }
  for (const m of model.commentMore) {
    const x = g.px(m.x);
    out.push(
      `<g><title>${esc(`${m.dateLabel}: ${m.count} more comments, listed in the chart data`)}</title>`,
      text(m.anchor === "end" ? "bc-ct bc-e" : "bc-ct", labelX(x, m.anchor), g.top + 8 + m.offsetY + 4, m.label),
      `</g>`,
    );
  }
  for (const s of model.series) {
    out.push(`<g class="${s.key === "baseline" ? "bc-b" : "bc-tr"}"><path class="bc-line" d="${seriesPath(model, s.values, g)}"></path>`);
    for (let i = 0; i < s.values.length; i++) {
      const v = s.values[i];
      if (v == null) continue;
      const p = model.points[i]!;
      out.push(`<circle cx="${g.px(p.x)}" cy="${g.py(v)}" r="3.5"><title>${esc(`${p.label}: ${v}`)}</title></circle>`);
    }
    out.push(`</g>`);
  }
  if (model.baselineMarker) {
    const b = model.baselineMarker;
    out.push(`<path class="bc-b" d="M${g.px(b.x)} ${r1(g.py(b.value) - 6)}l6 6-6 6-6-6z"><title>${esc(`Baseline level ${b.value} on ${b.dateLabel}`)}</title></path>`);
  }
  out.push(`</svg>`);
  return out.join("");
}

const cell = (tag: "td" | "th", content: string | number, attrs = "") => `<${tag}${attrs}>${esc(content)}</${tag}>`;
const noData = (n: number | null) => (n == null ? "No data" : n);

/** A small table of markers (objectives, comments); nothing when there are none. */
function markerTable(caption: string, headers: string[], rows: (string | number)[][]): string {
  if (!rows.length) return "";
  return `<table><caption class="visually-hidden">${esc(caption)}</caption><thead><tr>${headers.map((h) => cell("th", h, ' scope="col"')).join("")}</tr></thead><tbody>${rows
    .map((r) => `<tr>${r.map((c) => cell("td", c)).join("")}</tr>`)
    .join("")}</tbody></table>`;
}

/** The data behind the chart as tables (JavaScript off, screen readers, printing): the inside of its <details>. */
export function chartDataMarkup(model: ChartModel): string {
  const out: string[] = [
    `<summary>Chart data</summary><table><caption class="visually-hidden">${esc(`${model.planName}: ${model.y.label} by week`)}</caption><thead><tr>`,
    cell("th", "Week ending", ' scope="col"'),
    cell("th", model.y.label, ' scope="col"'),
    model.perHour ? cell("th", "Reported", ' scope="col"') + cell("th", "Hours", ' scope="col"') : "",
    cell("th", "Phase", ' scope="col"'),
    `</tr></thead><tbody>`,
  ];
  if (model.points.length === 0) out.push(`<tr>${cell("td", "No Weekly Reports", ` colspan="${model.perHour ? 5 : 3}"`)}</tr>`);
  for (const p of model.points) {
    out.push(
      `<tr>${cell("td", p.label)}${cell("td", noData(p.value))}${model.perHour ? cell("td", noData(p.reported)) + cell("td", p.hours ?? "") : ""}${cell("td", p.phase === "baseline" ? "Baseline" : "Treatment")}</tr>`,
    );
  }
  out.push(`</tbody></table>`);
  out.push(
    markerTable(
      "Objectives",
      ["Objective", "Target", "End date", "Status"],
      model.objectives.map((o) => [o.name ? `${o.label}: ${o.name}` : o.label, o.target ?? "", o.dateLabel, o.status]),
    ),
    markerTable("Comments", ["Date", "Comment"], model.comments.map((c) => [c.dateLabel, c.text])),
  );
  return out.join("");
}
