import { ASSET_URLS } from "~/assets";
import type { ChartModel, LegendItem } from "~/domain/chart";
import { chartDataMarkup, chartSvgMarkup, scriptJson } from "./chart-markup";

/**
 * The behavior chart, drawn on the server as an inline SVG from the chart model alone (no rule is
 * computed here: app/domain/chart.ts decides; the SVG and data tables come from ./chart-markup.ts). It
 * reads with JavaScript off and by screen readers (a <desc> summary and a data table); with JavaScript
 * on, /assets/behavior-chart-<hash>.js redraws the same model with uPlot (hover values, crisp resizing) and
 * hides the SVG once uPlot has drawn (docs/decisions/008).
 */

function LegendSwatch({ item }: { item: LegendItem }) {
  return <span className={`bc-sw bc-sw-${item.style}`} style={{ color: item.color }} aria-hidden="true" />;
}

/**
 * The chart as a <figure>: title and heading, the SVG, the legend (weeks, markers, mastered
 * objectives), the data tables, and the model as JSON for the uPlot module. Several charts on a page
 * share one module script (a module runs once per URL).
 */
export function BehaviorChart({ model, id, caption, interactive = true }: { model: ChartModel; id: string; caption?: string; /** false: the server SVG alone, no uPlot module (the parent portal, decision 040). */ interactive?: boolean }) {
  return (
    <figure className="bc" id={id} data-behavior-chart="">
      <figcaption>
        <strong>{model.title}</strong>
        <span>{model.heading}</span>
        <span className="muted">{caption ?? model.planName}</span>
      </figcaption>
      <div className="bc-svg" dangerouslySetInnerHTML={{ __html: chartSvgMarkup(model, id) }} />
      <ul className="bc-legend" aria-label="Legend">
        {model.legend.items.map((item) => (
          <li key={item.key}>
            <LegendSwatch item={item} />
            {item.label}
          </li>
        ))}
      </ul>
      <p className="bc-meta">
        <span>{model.legend.weeks}</span>
        {" · "}
        <span>
          Mastered objectives:{" "}
          {model.legend.mastered.length
            ? model.legend.mastered.map((m, i) => (
                <span key={m.label}>
                  {i ? ", " : ""}
                  <strong className="obj-chip" style={{ color: m.color }}>{m.label}</strong>
                  {m.name ? ` ${m.name}` : ""}
                </span>
              ))
            : "none"}
        </span>
      </p>
      <details className="bc-data" dangerouslySetInnerHTML={{ __html: chartDataMarkup(model) }} />
      {interactive ? <script type="application/json" data-chart-model="" dangerouslySetInnerHTML={{ __html: scriptJson(model) }} /> : null}
      {interactive ? <script type="module" src={ASSET_URLS.behaviorChartJs} /> : null}
    </figure>
  );
}
