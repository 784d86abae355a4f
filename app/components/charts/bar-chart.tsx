import { ASSET_URLS } from "~/assets";
import type { BarChartModel } from "~/domain/report-operations";
import { barChartSvgMarkup } from "./bar-chart-markup";
import { scriptJson } from "./chart-markup";

/**
 * A report's bar chart as a <figure> (decision 038): the server SVG (JavaScript off, screen readers), and
 * the model as JSON for app/client/report-chart.ts, which redraws it with uPlot (hover values, resizing)
 * and hides the SVG once it has drawn, as the behavior and year charts do (decisions 008, 021).
 */
export function BarChart({ model, id }: { model: BarChartModel; id: string }) {
  return (
    <figure className="report-bar-chart" id={id} data-bar-chart="" style={{ margin: "0 0 1rem", position: "relative" }}>
      <div className="rbc-svg" dangerouslySetInnerHTML={{ __html: barChartSvgMarkup(model, id) }} />
      <script type="application/json" data-chart-model="" dangerouslySetInnerHTML={{ __html: scriptJson(model) }} />
      <script type="module" src={ASSET_URLS.reportChartJs} />
    </figure>
  );
}
