/**
 * A report's bar chart with JavaScript on (decision 038): a small vanilla module, no React, like the behavior
 * and year charts' (decisions 008, 021). For every <figure data-bar-chart> it reads the model the server
 * embedded (app/domain/report-operations.ts `barChart` decided the bars and the axis) and draws the same
 * horizontal bars with uPlot — the target behind in a lighter colour, a flagged bar in the danger colour —
 * with a hover tooltip. The server SVG is hidden only after uPlot drew; on any error the SVG stays. Built by
 * scripts/build-assets.mjs into public/assets/report-chart-<hash>.js.
 */
import uPlot from "uplot";
import { BAR_COLORS, barChartHeight } from "../components/charts/bar-chart-markup";
import type { BarChartModel } from "../domain/report-operations";
import { FONT, uplotSwap } from "./uplot-swap";

/** uPlot's per-bar colour facet (BarsPathBuilderFacetUnit.Color; a const enum of its types). */
const COLOR_UNIT = 3 as uPlot.Series.BarsPathBuilderFacetUnit;

export function reportChartOptions(m: BarChartModel, width: number, hooks: uPlot.Hooks.Arrays): uPlot.Options {
  const grid = { stroke: "#e5e7eb", width: 1 };
  const ticks = { stroke: "#6b7280", width: 1, size: 4 };
  const font = `12px ${FONT}`;
  const rows = m.bars.map((_, i) => i);
  const label = (i: number) => {
    const l = m.bars[i]?.label ?? "";
    return l.length > 30 ? `${l.slice(0, 29)}…` : l;
  };
  const bars = (size: number, colors?: (i: number) => string) =>
    uPlot.paths.bars!({
      size: [size, 40],
      ...(colors ? { disp: { fill: { unit: COLOR_UNIT, values: (_u: uPlot, _s: number, i0: number, i1: number) => rows.slice(i0, i1 + 1).map(colors) } } } : {}),
    });
  const hasTarget = m.bars.some((b) => b.target !== null);
  return {
    width,
    height: barChartHeight(m),
    padding: [8, 56, 0, 0],
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { show: false } },
    // Horizontal bars: the bars' index runs down the left (x, orientation 1), the values along the bottom.
    scales: { x: { time: false, ori: 1, dir: 1, range: [-0.5, Math.max(0, m.bars.length - 1) + 0.5] }, y: { ori: 0, dir: 1, range: [0, m.max || 1] } },
    axes: [
      { scale: "x", side: 3, font, grid: { show: false }, ticks, size: 200, splits: () => rows, values: (_u, splits) => splits.map((s) => label(s)) },
      { scale: "y", side: 2, font, grid, ticks, size: 28, splits: () => m.ticks, values: (_u, splits) => splits.map((s) => String(s)) },
    ],
    series: [
      { label: "Bar" },
      ...(hasTarget ? [{ label: m.legend?.target ?? "Target", fill: BAR_COLORS.target, stroke: BAR_COLORS.target, width: 0, points: { show: false }, paths: bars(0.64) }] : []),
      {
        label: m.legend?.value ?? m.title,
        fill: BAR_COLORS.value,
        stroke: BAR_COLORS.value,
        width: 0,
        points: { show: false },
        paths: bars(0.64, (i) => (m.bars[i]?.flagged ? BAR_COLORS.flagged : BAR_COLORS.value)),
      },
    ],
    hooks,
  };
}

/** The chart's data: the bar index, then the targets (when any), then the values. */
export function reportChartData(m: BarChartModel): uPlot.AlignedData {
  const hasTarget = m.bars.some((b) => b.target !== null);
  return [m.bars.map((_, i) => i), ...(hasTarget ? [m.bars.map((b) => b.target)] : []), m.bars.map((b) => b.value)];
}

function tooltip(u: uPlot, m: BarChartModel, el: HTMLElement): void {
  const i = u.cursor.idx;
  const bar = i == null ? null : m.bars[i];
  if (!bar || u.cursor.top == null || u.cursor.top < 0) {
    el.hidden = true;
    return;
  }
  el.textContent = `${bar.label}: ${bar.text}`;
  el.hidden = false;
  el.style.left = "4px";
  el.style.top = `${Math.max(0, Math.min(u.cursor.top + 10, u.over.clientHeight - el.offsetHeight - 4))}px`;
}

export function enhanceReportChart(figure: HTMLElement): void {
  if (figure.dataset.enhanced) return;
  const script = figure.querySelector<HTMLScriptElement>("script[data-chart-model]");
  const svg = figure.querySelector<HTMLElement>(".rbc-svg");
  if (!script || !svg) return;
  let model: BarChartModel;
  try {
    model = JSON.parse(script.textContent ?? "") as BarChartModel;
  } catch (e) {
    console.error("report chart: unreadable model", e);
    return;
  }
  if (model.bars.length === 0) return;
  const { tip, guarded, drawn, mount } = uplotSwap(figure, svg, "rbc-uplot", "report chart");
  const hooks: uPlot.Hooks.Arrays = { draw: [drawn], setCursor: [guarded((u) => tooltip(u, model, tip))] };
  const width = Math.min(svg.clientWidth || figure.clientWidth || 720, 720);
  mount((host) => new uPlot(reportChartOptions(model, width, hooks), reportChartData(model), host), barChartHeight(model));
}

for (const figure of document.querySelectorAll<HTMLElement>("figure[data-bar-chart]")) enhanceReportChart(figure);
