/**
 * The dashboard's year chart with JavaScript on (docs/decisions/021): a small vanilla module, no React,
 * like the behavior chart's (decision 008). For every <figure data-year-chart> it reads the model the
 * server embedded (app/domain/dashboard.ts decided the axis) and draws the same grouped bars with
 * uPlot, with a hover tooltip. The server SVG is hidden only after uPlot drew; on any error the SVG
 * stays. Built by scripts/build-assets.mjs into public/assets/year-chart-<hash>.js.
 */
import uPlot from "uplot";
import type { YearChartModel } from "../domain/dashboard";
import { FONT, uplotSwap } from "./uplot-swap";

export function yearChartOptions(m: YearChartModel, width: number, hooks: uPlot.Hooks.Arrays): uPlot.Options {
  const grid = { stroke: "#e5e7eb", width: 1 };
  const ticks = { stroke: "#6b7280", width: 1, size: 4 };
  const axisFont = `12px ${FONT}`;
  const months = m.months.map((x) => x.month);
  return {
    width,
    height: m.height,
    padding: [12, 16, 0, 0],
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    scales: { x: { time: false, range: [0.5, 12.5] }, y: { range: [0, m.y.max] } },
    axes: [
      { label: String(m.year), font: axisFont, labelFont: axisFont, grid: { show: false }, ticks, size: 30, labelSize: 20, splits: () => months, values: (_u, splits) => splits.map((s) => m.months[s - 1]?.label ?? "") },
      { label: m.y.label, font: axisFont, labelFont: axisFont, grid, ticks, size: 44, splits: () => m.y.ticks, values: (_u, splits) => splits.map((s) => String(s)) },
    ],
    series: [
      { label: "Month" },
      // One bar per series side by side, the group centred on the month's tick, as the server SVG draws them.
      ...m.series.map((s, k) => ({ label: s.label, stroke: s.color, fill: s.color, width: 0, points: { show: false }, paths: uPlot.paths.bars!({ disp: barPlace(m, k) }) })),
    ],
    hooks,
  };
}

/** Each month's band is one x unit wide; a series' bar starts at its slot (values in x units, uPlot's unit 1). */
function barPlace(m: YearChartModel, k: number) {
  const x0 = m.months.map((x) => x.month + (k - m.series.length / 2) * m.barShare);
  const size = m.months.map(() => m.barShare);
  return { x0: { unit: 1, values: () => x0 }, size: { unit: 1, values: () => size } } as unknown as uPlot.Series.BarsPathBuilderOpts["disp"];
}

function tooltip(u: uPlot, m: YearChartModel, el: HTMLElement): void {
  const i = u.cursor.idx;
  const month = i == null ? null : m.months[i];
  if (!month || u.cursor.left == null || u.cursor.left < 0) {
    el.hidden = true;
    return;
  }
  el.textContent = `${month.name} ${m.year}: ${m.series.map((s) => `${s.values[i!]} ${s.label.toLowerCase()}`).join(", ")}`;
  el.hidden = false;
  const left = Math.min(u.cursor.left + 10, u.over.clientWidth - el.offsetWidth - 4);
  el.style.left = `${Math.max(0, left)}px`;
  el.style.top = "4px";
}

export function enhanceYearChart(figure: HTMLElement): void {
  if (figure.dataset.enhanced) return;
  const script = figure.querySelector<HTMLScriptElement>("script[data-chart-model]");
  const svg = figure.querySelector<HTMLElement>(".yc-svg");
  if (!script || !svg) return;
  let model: YearChartModel;
  try {
    model = JSON.parse(script.textContent ?? "") as YearChartModel;
  } catch (e) {
    console.error("year chart: unreadable model", e);
    return;
  }
  // Nothing to plot: the SVG already says 'No new patients'.
  if (model.empty) return;
  const { tip, guarded, drawn, mount } = uplotSwap(figure, svg, "yc-uplot", "year chart");
  const hooks: uPlot.Hooks.Arrays = { draw: [drawn], setCursor: [guarded((u) => tooltip(u, model, tip))] };
  const width = svg.clientWidth || figure.clientWidth || 800;
  const data: uPlot.AlignedData = [model.months.map((x) => x.month), ...model.series.map((s) => s.values)];
  mount((host) => new uPlot(yearChartOptions(model, width, hooks), data, host), model.height);
}

for (const figure of document.querySelectorAll<HTMLElement>("figure[data-year-chart]")) enhanceYearChart(figure);
