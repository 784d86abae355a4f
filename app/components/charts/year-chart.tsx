import { ASSET_URLS } from "~/assets";
import type { YearChartModel } from "~/domain/dashboard";
import { esc, scriptJson } from "./chart-markup";

/**
 * The dashboard's year chart (new patients per month by gender), drawn on the server as an inline SVG
 * from the model alone (app/domain/dashboard.ts decides the axis): it reads with JavaScript off and by
 * screen readers (a <desc> summary and a data table). With JavaScript on, the year-chart module redraws
 * the same model with uPlot (hover values, resizing) and hides the SVG once uPlot has drawn, as the
 * behavior charts do (docs/decisions/008, 021).
 */

/** SVG geometry (viewBox units). The plot area is [L, W − R] × [T, H − B]. */
const W = 960;
const L = 56;
const R = 16;
const T = 16;
const B = 44;

const r1 = (n: number) => Math.round(n * 10) / 10;

export function yearChartSvgMarkup(model: YearChartModel, id: string): string {
  const H = model.height;
  const bottom = H - B;
  const band = (W - R - L) / 12;
  const bar = band * model.barShare;
  const py = (y: number) => r1(bottom - (y / (model.y.max || 1)) * (bottom - T));
  const out: string[] = [
    `<svg role="img" aria-labelledby="${esc(`${id}-title ${id}-desc`)}" viewBox="0 0 ${W} ${H}" width="100%" height="${H}" xmlns="http://www.w3.org/2000/svg">`,
    `<title id="${esc(`${id}-title`)}">${esc(model.title)}</title>`,
    `<desc id="${esc(`${id}-desc`)}">${esc(model.summary)}</desc>`,
    `<style>.yc svg{display:block;max-width:100%;background:#fff;font:12px system-ui,sans-serif}.yc-grid{stroke:#e5e7eb;fill:none}.yc-axis{stroke:#6b7280;fill:none}.yc-t{fill:#374151}.yc-yt{text-anchor:end}.yc-xt,.yc-c{text-anchor:middle}.yc{margin:0 0 1rem}.yc .bc-legend{display:flex;flex-wrap:wrap;gap:.3rem 1rem;list-style:none;margin:.4rem 0;padding:0;font-size:.85rem}.yc .bc-legend li{display:flex;align-items:center;gap:.35rem}.yc-sw{display:inline-block;width:12px;height:12px}.yc-uplot{background:#fff}</style>`,
    `<rect width="${W}" height="${H}" fill="#fff"></rect>`,
  ];
  let grid = "";
  for (const t of model.y.ticks) grid += `M${L} ${py(t)}H${W - R}`;
  out.push(`<path class="yc-grid" d="${grid}"></path>`, `<path class="yc-axis" d="M${L} ${T}V${bottom}H${W - R}"></path>`);
  out.push(`<g class="yc-t" aria-hidden="true">`);
  for (const t of model.y.ticks) out.push(`<text class="yc-yt" x="${L - 6}" y="${r1(py(t) + 4)}">${esc(t)}</text>`);
  model.months.forEach((m, i) => out.push(`<text class="yc-xt" x="${r1(L + band * (i + 0.5))}" y="${bottom + 18}">${esc(m.label)}</text>`));
  out.push(`<text class="yc-c" transform="translate(14 ${r1((T + bottom) / 2)}) rotate(-90)">${esc(model.y.label)}</text>`);
  out.push(`<text class="yc-c" x="${r1((L + W - R) / 2)}" y="${H - 6}">${esc(String(model.year))}</text>`);
  if (model.empty) out.push(`<text class="yc-c" x="${r1((L + W - R) / 2)}" y="${r1((T + bottom) / 2)}">No new patients</text>`);
  out.push(`</g>`);
  model.series.forEach((s, k) => {
    out.push(`<g fill="${esc(s.color)}">`);
    s.values.forEach((v, i) => {
      if (v <= 0) return;
      const x = r1(L + band * (i + 0.5) + (k - model.series.length / 2) * bar);
      out.push(`<rect x="${x}" y="${py(v)}" width="${r1(bar)}" height="${r1(bottom - py(v))}"><title>${esc(`${model.months[i]!.name} ${model.year}, ${s.label.toLowerCase()}: ${v}`)}</title></rect>`);
    });
    out.push(`</g>`);
  });
  out.push(`</svg>`);
  return out.join("");
}

/** The data behind the chart as a table (JavaScript off, screen readers): the inside of its <details>. */
export function yearChartDataMarkup(model: YearChartModel): string {
  const rows = model.months.map((m, i) => `<tr><th scope="row">${esc(m.name)}</th>${model.series.map((s) => `<td>${s.values[i]}</td>`).join("")}</tr>`).join("");
  const head = model.series.map((s) => `<th scope="col">${esc(s.label)}</th>`).join("");
  return `<summary>Chart data</summary><table><caption class="visually-hidden">${esc(model.title)}</caption><thead><tr><th scope="col">Month</th>${head}</tr></thead><tbody>${rows}</tbody></table>`;
}

export function YearChart({ model, id }: { model: YearChartModel; id: string }) {
  return (
    <figure className="yc" id={id} data-year-chart="">
      <figcaption>
        <strong>{model.title}</strong>
      </figcaption>
      <div className="yc-svg" dangerouslySetInnerHTML={{ __html: yearChartSvgMarkup(model, id) }} />
      <ul className="bc-legend" aria-label="Legend">
        {model.series.map((s) => (
          <li key={s.key}>
            <span className="yc-sw" style={{ background: s.color }} aria-hidden="true" />
            {s.label}
          </li>
        ))}
      </ul>
      <details className="bc-data" dangerouslySetInnerHTML={{ __html: yearChartDataMarkup(model) }} />
      <script type="application/json" data-chart-model="" dangerouslySetInnerHTML={{ __html: scriptJson(model) }} />
      <script type="module" src={ASSET_URLS.yearChartJs} />
    </figure>
  );
}
