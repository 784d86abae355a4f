/**
 * The behavior chart with JavaScript on (docs/decisions/008): a small vanilla module, no React. For
 * every <figure data-behavior-chart> it reads the chart model the server embedded (app/domain/chart.ts
 * decided every rule), draws the same model with uPlot — points, null gaps, phases as two series, the
 * y maximum and ticks, the x ticks — and the marks uPlot has no notion of (phase line and its
 * 'Baseline | Treatment' label, objective and comment markers, aim lines, the trend, the baseline
 * level) on its canvas through hooks. The server SVG is hidden only after uPlot drew; on any error the
 * SVG stays. Resizes follow the figure's width. Built by scripts/build-assets.mjs into
 * public/assets/behavior-chart-<hash>.js; the page includes it as a module script, which runs once per page.
 */
import uPlot from "uplot";
import { FONT, uplotSwap } from "./uplot-swap";
import { sectionScale, segmentPoints, type ChartModel, type LabelAnchor, type SectionScale } from "../domain/chart";

type Marks = Pick<ChartModel, "phaseLine" | "objectives" | "comments" | "commentMore" | "aimLines" | "trend" | "baselineMarker" | "colors" | "sections">;

/** The x mapping through the chart's sections (each at least 12% / 80 px wide), for the current plot width. */
interface XMapping {
  scale: SectionScale;
  plotPx: number;
}


/** The marks under the series: phase line, objective lines, comment lines, aim lines, trend. */
/** The canvas, its pixel ratio, the plot's top and bottom, and value → canvas pixel maps. */
function frame(u: uPlot) {
  const { top, height } = u.bbox;
  return {
    ctx: u.ctx,
    px: uPlot.pxRatio,
    top,
    bottom: top + height,
    X: (x: number) => u.valToPos(x, "x", true),
    Y: (y: number) => u.valToPos(y, "y", true),
  };
}

function drawUnder(u: uPlot, m: Marks): void {
  const { ctx, px, top, bottom, X, Y } = frame(u);
  const line = (color: string, width: number, dash: number[], draw: () => void) => {
    ctx.beginPath();
    ctx.strokeStyle = color;
    ctx.lineWidth = width * px;
    ctx.setLineDash(dash.map((d) => d * px));
    draw();
    ctx.stroke();
  };
  ctx.save();
  if (m.phaseLine) {
    const x = X(m.phaseLine.x);
    line(m.colors.phase, 2, [], () => {
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
    });
  }
  for (const o of m.objectives) {
    const x = X(o.x);
    line(m.colors.objective, 1, [6, 4], () => {
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
    });
  }
  for (const c of m.comments) {
    if (c.offsetY == null) continue; // past the day's stack: in its '+n more' marker
    const x = X(c.x);
    const offsetY = c.offsetY;
    line(m.colors.comment, 1, [], () => {
      ctx.moveTo(x, top + (8 + offsetY) * px);
      ctx.lineTo(x, bottom);
    });
  }
  for (const a of m.aimLines) {
    // Straight in each section: drawn through the section edges it crosses.
    line(a.color, 1.5, [8, 5], () => segmentPoints(a, m.sections).forEach((p, i) => (i ? ctx.lineTo(X(p.x), Y(p.y)) : ctx.moveTo(X(p.x), Y(p.y)))));
  }
  if (m.trend) {
    const t = m.trend;
    ctx.lineCap = "round";
    line(m.colors.trend, 2, [2, 4], () => {
      ctx.moveTo(X(t.x1), Y(t.y1));
      ctx.lineTo(X(t.x2), Y(t.y2));
    });
  }
  ctx.restore();
}

/** The marks over the series: labels, comment dots and text, the baseline level diamond. */
function drawOver(u: uPlot, m: Marks): void {
  const { ctx, px, top, bottom, X, Y } = frame(u);
  const text = (s: string, x: number, y: number, color: string, anchor: LabelAnchor | "center", size: number, bold = false) => {
    ctx.fillStyle = color;
    ctx.font = `${bold ? "700 " : ""}${size * px}px ${FONT}`;
    ctx.textAlign = anchor === "center" ? "center" : anchor === "start" ? "left" : "right";
    ctx.fillText(s, anchor === "center" ? x : anchor === "start" ? x + 4 * px : x - 4 * px, y);
  };
  ctx.save();
  ctx.textBaseline = "alphabetic";
  if (m.phaseLine) text(m.phaseLine.label, X(m.phaseLine.x), top - 10 * px, m.colors.phase, "center", 12, true);
  for (const o of m.objectives) text(o.label, X(o.x), bottom - 6 * px, o.color, o.anchor, 12, true);
  for (const c of m.comments) {
    if (c.offsetY == null) continue;
    const x = X(c.x);
    const y = top + (8 + c.offsetY) * px;
    ctx.beginPath();
    ctx.fillStyle = m.colors.comment;
    ctx.arc(x, y, 3 * px, 0, Math.PI * 2);
    ctx.fill();
    text(c.text, x, y + 4 * px, m.colors.comment, c.anchor, 11);
  }
  for (const more of m.commentMore) text(more.label, X(more.x), top + (8 + more.offsetY + 4) * px, m.colors.comment, more.anchor, 11);
  if (m.baselineMarker) {
    const x = X(m.baselineMarker.x);
    const y = Y(m.baselineMarker.value);
    const s = 6 * px;
    ctx.beginPath();
    ctx.moveTo(x, y - s);
    ctx.lineTo(x + s, y);
    ctx.lineTo(x, y + s);
    ctx.lineTo(x - s, y);
    ctx.closePath();
    ctx.fillStyle = m.colors.baseline;
    ctx.fill();
  }
  ctx.restore();
}

/** uPlot options for a model: the same scales, ticks, series and colours as the SVG. */
export function chartOptions(m: ChartModel, width: number, hooks: uPlot.Hooks.Arrays, xMap: XMapping): uPlot.Options {
  const xLabels = new Map(m.x.ticks.map((t) => [t.x, t.label]));
  const grid = { stroke: "#e5e7eb", width: 1 };
  const ticks = { stroke: "#6b7280", width: 1, size: 4 };
  const axisFont = `12px ${FONT}`;
  return {
    width,
    height: m.height,
    padding: [28, 16, 0, 0],
    legend: { show: false },
    cursor: { drag: { x: false, y: false }, points: { size: 9 } },
    scales: {
      // A custom distribution: x goes through the section scale (fwd → fraction of the plot width).
      x: { time: false, range: [m.x.min, m.x.max], distr: 100, fwd: (x) => xMap.scale.toFraction(x), bwd: (f) => xMap.scale.fromFraction(f) },
      y: { range: [0, m.y.max] },
    },
    axes: [
      {
        label: m.x.label,
        font: axisFont,
        labelFont: axisFont,
        grid,
        ticks,
        size: 36,
        labelSize: 20,
        splits: () => m.x.ticks.map((t) => t.x),
        // uPlot applies its log-scale label filter to every distr ≥ 3, custom (100) included: keep every label.
        filter: (_u, splits) => splits,
        // On a narrow chart, label every k-th tick so the dates do not overlap (about 64 px each).
        values: (u, splits) => {
          const every = Math.max(1, Math.ceil((splits.length * 64) / Math.max(1, u.bbox.width / uPlot.pxRatio)));
          return splits.map((s, i) => (i % every === 0 ? (xLabels.get(s) ?? "") : ""));
        },
      },
      {
        label: m.y.label,
        font: axisFont,
        labelFont: axisFont,
        grid,
        ticks,
        size: 48,
        splits: () => m.y.ticks,
        values: (_u, splits) => splits.map((s) => String(s)),
      },
    ],
    series: [
      { label: "Week ending" },
      ...m.series.map((s) => ({
        label: s.label,
        stroke: s.color,
        width: 2,
        spanGaps: false,
        points: { show: true, size: 7, fill: s.color, stroke: s.color },
      })),
    ],
    hooks,
  };
}

/** A small tooltip in uPlot's overlay: 'week ending: value'. */
function tooltip(u: uPlot, m: ChartModel, el: HTMLElement): void {
  const i = u.cursor.idx;
  const p = i == null ? null : m.points[i];
  if (!p || p.value == null || u.cursor.left == null || u.cursor.left < 0) {
    el.hidden = true;
    return;
  }
  el.textContent = `${p.label}: ${p.value}${m.perHour && p.reported != null ? ` (${p.reported} in ${p.hours} h)` : ""} · ${p.phase === "baseline" ? "Baseline" : "Treatment"}`;
  el.hidden = false;
  const left = Math.min(u.cursor.left + 10, u.over.clientWidth - el.offsetWidth - 4);
  el.style.left = `${Math.max(0, left)}px`;
  el.style.top = `${Math.max(0, u.valToPos(p.value, "y") - 34)}px`;
}

export function enhanceChart(figure: HTMLElement): void {
  if (figure.dataset.enhanced) return;
  const script = figure.querySelector<HTMLScriptElement>("script[data-chart-model]");
  const svg = figure.querySelector<HTMLElement>(".bc-svg");
  if (!script || !svg) return;
  let model: ChartModel;
  try {
    model = JSON.parse(script.textContent ?? "") as ChartModel;
  } catch (e) {
    console.error("behavior chart: unreadable model", e);
    return;
  }
  // Nothing to plot: the SVG already says 'No weekly reports'.
  if (model.empty || model.points.length === 0) return;
  const { tip, guarded, drawn, mount } = uplotSwap(figure, svg, "bc-uplot", "behavior chart");
  const hooks: uPlot.Hooks.Arrays = {
    drawAxes: [guarded((u) => drawUnder(u, model))],
    draw: [
      guarded((u) => {
        drawOver(u, model);
        drawn();
      }),
    ],
    setCursor: [guarded((u) => tooltip(u, model, tip))],
  };

  const width = svg.clientWidth || figure.clientWidth || 800;
  const data: uPlot.AlignedData = [model.points.map((p) => p.x), ...model.series.map((s) => s.values)];
  // The plot is narrower than the chart (axes, padding): start from an estimate, then use uPlot's own box.
  const xMap = { plotPx: 0 } as XMapping;
  const fitSections = (u: uPlot) => {
    const plotPx = u.bbox.width / uPlot.pxRatio;
    if (plotPx > 0 && Math.abs(plotPx - xMap.plotPx) > 0.5) {
      xMap.plotPx = plotPx;
      xMap.scale = sectionScale(model, plotPx);
      u.redraw(false);
    }
  };
  mount(
    (host) => {
      xMap.plotPx = width - 94;
      xMap.scale = sectionScale(model, xMap.plotPx);
      return new uPlot(chartOptions(model, width, hooks, xMap), data, host);
    },
    model.height,
    fitSections,
  );
}

for (const figure of document.querySelectorAll<HTMLElement>("figure[data-behavior-chart]")) enhanceChart(figure);
