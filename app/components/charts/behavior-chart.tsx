import { APP_VERSION } from "~/domain/shell";
import type { ChartModel, LabelAnchor, LegendItem, Segment } from "~/domain/chart";

/**
 * The behavior chart, drawn on the server as an inline SVG from the chart model alone (no rule is
 * computed here: app/domain/chart.ts decides). It reads with JavaScript off and by screen readers (a
 * <desc> summary and a data table); with JavaScript on, /assets/behavior-chart.js redraws the same model
 * with uPlot (hover values, crisp resizing) and hides the SVG once uPlot has drawn (docs/decisions/008).
 */

/** SVG geometry (viewBox units). The plot area is [L, W − R] × [T, H − B]. */
const W = 960;
const L = 64;
const R = 16;
const T = 30;
const B = 50;

const r1 = (n: number) => Math.round(n * 10) / 10;

export function chartGeometry(model: Pick<ChartModel, "x" | "y" | "height">) {
  const H = model.height;
  const plotBottom = H - B;
  const span = model.x.max - model.x.min || 1;
  return {
    width: W,
    height: H,
    left: L,
    right: W - R,
    top: T,
    bottom: plotBottom,
    px: (x: number) => r1(L + ((x - model.x.min) / span) * (W - R - L)),
    py: (y: number) => r1(plotBottom - (y / (model.y.max || 1)) * (plotBottom - T)),
  };
}

type Geometry = ReturnType<typeof chartGeometry>;

/** Path data for one series: a new sub-path after every null, so gaps and phases break the line. */
function seriesPath(model: ChartModel, values: (number | null)[], g: Geometry): string {
  let d = "";
  let pen = false;
  values.forEach((v, i) => {
    if (v == null) {
      pen = false;
      return;
    }
    d += `${pen ? "L" : "M"}${g.px(model.points[i].x)} ${g.py(v)}`;
    pen = true;
  });
  return d;
}

const segmentPath = (s: Segment, g: Geometry) => `M${g.px(s.x1)} ${g.py(s.y1)}L${g.px(s.x2)} ${g.py(s.y2)}`;
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

function LegendSwatch({ item }: { item: LegendItem }) {
  return <span className={`bc-sw bc-sw-${item.style}`} style={{ color: item.color }} aria-hidden="true" />;
}

function fmt(n: number | null): string {
  return n == null ? "No data" : String(n);
}

/** A JSON text that cannot close its <script> element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

export function ChartSvg({ model, id }: { model: ChartModel; id: string }) {
  const g = chartGeometry(model);
  const titleId = `${id}-title`;
  const descId = `${id}-desc`;
  const grid =
    model.y.ticks.map((t) => `M${g.left} ${g.py(t)}H${g.right}`).join("") + model.x.ticks.map((t) => `M${g.px(t.x)} ${g.top}V${g.bottom}`).join("");
  const midY = r1((g.top + g.bottom) / 2);
  return (
    <svg role="img" aria-labelledby={`${titleId} ${descId}`} viewBox={`0 0 ${g.width} ${g.height}`} width="100%" height={g.height} xmlns="http://www.w3.org/2000/svg">
      <title id={titleId}>{`${model.title}: ${model.heading} — ${model.planName}`}</title>
      <desc id={descId}>{model.summary}</desc>
      <style dangerouslySetInnerHTML={{ __html: chartStyle(model.colors) }} />
      <rect className="bc-bg" width={g.width} height={g.height} />
      <path className="bc-grid" d={grid} />
      <path className="bc-axis" d={`M${g.left} ${g.top}V${g.bottom}H${g.right}`} />
      <g className="bc-t" aria-hidden="true">
        {model.y.ticks.map((t) => (
          <text key={t} className="bc-yt" x={g.left - 6} y={r1(g.py(t) + 4)}>
            {t}
          </text>
        ))}
        {model.x.ticks.map((t) => (
          <text key={t.x} className="bc-xt" x={g.px(t.x)} y={g.bottom + 18}>
            {t.label}
          </text>
        ))}
        <text className="bc-c" x={r1((g.left + g.right) / 2)} y={g.height - 8}>
          {model.x.label}
        </text>
        <text className="bc-c" transform={`translate(16 ${midY}) rotate(-90)`}>
          {model.y.label}
        </text>
        {model.empty || model.points.length === 0 ? (
          <text className="bc-c" x={r1((g.left + g.right) / 2)} y={midY}>
            No weekly reports
          </text>
        ) : null}
      </g>
      {model.phaseLine ? (
        <g>
          <path className="bc-phase" d={`M${g.px(model.phaseLine.x)} ${g.top}V${g.bottom}`} />
          <text className="bc-div" x={g.px(model.phaseLine.x)} y={g.top - 10}>
            {model.phaseLine.label}
          </text>
        </g>
      ) : null}
      {model.aimLines.map((a) => (
        <path key={`aim-${a.objectiveId}`} className="bc-aim" stroke={a.color} d={segmentPath(a, g)}>
          <title>{`Aim line to ${a.label}`}</title>
        </path>
      ))}
      {model.trend ? (
        <path className="bc-trend" d={segmentPath(model.trend, g)}>
          <title>{`Trend (split-middle): ${model.trend.slopePerWeek} per week`}</title>
        </path>
      ) : null}
      {model.objectives.map((o) => (
        <g key={`obj-${o.id}`}>
          <title>{`${o.label}${o.name ? `: ${o.name}` : ""} — ${o.status}${o.target != null ? `, target ${o.target}` : ""}, end ${o.dateLabel}`}</title>
          <path className="bc-obj" d={`M${g.px(o.x)} ${g.top}V${g.bottom}`} />
          <text className={o.anchor === "end" ? "bc-ol bc-e" : "bc-ol"} fill={o.color} x={labelX(g.px(o.x), o.anchor)} y={g.bottom - 6}>
            {o.label}
          </text>
        </g>
      ))}
      {model.comments.map((c) => {
        const x = g.px(c.x);
        const y = g.top + 8 + c.offsetY;
        return (
          <g key={`cm-${c.id}`}>
            <title>{`${c.dateLabel}: ${c.text}`}</title>
            <path className="bc-cm" d={`M${x} ${y}V${g.bottom}`} />
            <circle className="bc-cd" cx={x} cy={y} r={3} />
            <text className={c.anchor === "end" ? "bc-ct bc-e" : "bc-ct"} x={labelX(x, c.anchor)} y={y + 4}>
              {c.text}
            </text>
          </g>
        );
      })}
      {model.series.map((s) => {
        const cls = s.key === "baseline" ? "bc-b" : "bc-tr";
        return (
          <g key={s.key} className={cls}>
            <path className="bc-line" d={seriesPath(model, s.values, g)} />
            {s.values.map((v, i) =>
              v == null ? null : (
                <circle key={model.points[i].x} cx={g.px(model.points[i].x)} cy={g.py(v)} r={3.5}>
                  <title>{`${model.points[i].label}: ${v}`}</title>
                </circle>
              ),
            )}
          </g>
        );
      })}
      {model.baselineMarker ? (
        <path
          className="bc-b"
          d={`M${g.px(model.baselineMarker.x)} ${r1(g.py(model.baselineMarker.value) - 6)}l6 6-6 6-6-6z`}
        >
          <title>{`Baseline level ${model.baselineMarker.value} on ${model.baselineMarker.dateLabel}`}</title>
        </path>
      ) : null}
    </svg>
  );
}

/** A small table of markers (objectives, comments); nothing when there are none. */
function MarkerTable({ caption, headers, rows }: { caption: string; headers: string[]; rows: { key: number; cells: (string | number)[] }[] }) {
  if (!rows.length) return null;
  return (
    <table>
      <caption className="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          {headers.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            {r.cells.map((c, i) => (
              <td key={i}>{c}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The data behind the chart as tables (JavaScript off, screen readers, printing). */
function ChartData({ model }: { model: ChartModel }) {
  return (
    <details className="bc-data">
      <summary>Chart data</summary>
      <table>
        <caption className="visually-hidden">{`${model.planName}: ${model.y.label} by week`}</caption>
        <thead>
          <tr>
            <th scope="col">Week ending</th>
            <th scope="col">{model.y.label}</th>
            {model.perHour ? (
              <>
                <th scope="col">Reported</th>
                <th scope="col">Hours</th>
              </>
            ) : null}
            <th scope="col">Phase</th>
          </tr>
        </thead>
        <tbody>
          {model.points.length === 0 ? (
            <tr>
              <td colSpan={model.perHour ? 5 : 3}>No Weekly Reports</td>
            </tr>
          ) : (
            model.points.map((p) => (
              <tr key={p.x}>
                <td>{p.label}</td>
                <td>{fmt(p.value)}</td>
                {model.perHour ? (
                  <>
                    <td>{fmt(p.reported)}</td>
                    <td>{p.hours ?? ""}</td>
                  </>
                ) : null}
                <td>{p.phase === "baseline" ? "Baseline" : "Treatment"}</td>
              </tr>
            ))
          )}
        </tbody>
      </table>
      <MarkerTable
        caption="Objectives"
        headers={["Objective", "Target", "End date", "Status"]}
        rows={model.objectives.map((o) => ({ key: o.id, cells: [o.name ? `${o.label}: ${o.name}` : o.label, o.target ?? "", o.dateLabel, o.status] }))}
      />
      <MarkerTable caption="Comments" headers={["Date", "Comment"]} rows={model.comments.map((c) => ({ key: c.id, cells: [c.dateLabel, c.text] }))} />
    </details>
  );
}

/**
 * The chart as a <figure>: title and heading, the SVG, the legend (weeks, markers, mastered
 * objectives), the data tables, and the model as JSON for the uPlot module. Several charts on a page
 * share one module script (a module runs once per URL).
 */
export function BehaviorChart({ model, id, caption }: { model: ChartModel; id: string; caption?: string }) {
  return (
    <figure className="bc" id={id} data-behavior-chart="">
      <figcaption>
        <strong>{model.title}</strong>
        <span>{model.heading}</span>
        <span className="muted">{caption ?? model.planName}</span>
      </figcaption>
      <div className="bc-svg">
        <ChartSvg model={model} id={id} />
      </div>
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
                  <strong style={{ color: m.color }}>{m.label}</strong>
                  {m.name ? ` ${m.name}` : ""}
                </span>
              ))
            : "none"}
        </span>
      </p>
      <ChartData model={model} />
      <script type="application/json" data-chart-model="" dangerouslySetInnerHTML={{ __html: scriptJson(model) }} />
      <script type="module" src={`/assets/behavior-chart.js?v=${APP_VERSION}`} />
    </figure>
  );
}
