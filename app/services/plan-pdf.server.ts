import { PDFDocument, StandardFonts, degrees, rgb, type PDFPage, type RGB } from "pdf-lib";
import { chartGeometry } from "~/components/charts/chart-markup";
import { segmentPoints, type ChartModel, type Segment } from "~/domain/chart";
import { toWinAnsi } from "~/domain/pdf-text";
import type { PlanPdfBlock, PlanPdfDocument } from "~/domain/plan-pdf";
import { CONTENT, INK, Layout, MARGIN, MUTED, PAGE, RULE, block, fieldGrid, type Fonts } from "./note-pdf.server";

/**
 * The plan PDF (and a goal's weekly-report and chart-comment PDFs), drawn with pdf-lib in the queue
 * consumer (decision 041). What it says comes from app/domain/plan-pdf.ts; the page layout (running
 * head, headings, wrapped paragraphs, tables that break across pages, footer) is the note PDF's
 * (app/services/note-pdf.server.ts). Charts are VECTORS: the same chart model and geometry as the
 * screen's SVG (app/domain/chart.ts, chartGeometry), drawn as PDF paths, lines and text — no image.
 * Every string drawn passes through toWinAnsi. Nothing is logged.
 */

/** The chart's viewBox (960 wide) scaled to the text width. */
const SCALE = CONTENT / 960;

function hex(color: string): RGB {
  const m = /^#?([0-9a-f]{6})$/i.exec(color.trim());
  if (!m) return INK;
  const n = parseInt(m[1]!, 16);
  return rgb(((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255);
}

const r1 = (n: number) => Math.round(n * 10) / 10;

/** Path data in the chart's viewBox units: one sub-path per run of values (a null breaks the line). */
function seriesPath(model: ChartModel, values: readonly (number | null)[], g: ReturnType<typeof chartGeometry>): string {
  let d = "";
  let pen = false;
  values.forEach((v, i) => {
    if (v == null) {
      pen = false;
      return;
    }
    d += `${pen ? "L" : "M"}${g.px(model.points[i]!.x)} ${g.py(v)}`;
    pen = true;
  });
  return d;
}

const segmentPath = (s: Segment, model: ChartModel, g: ReturnType<typeof chartGeometry>) =>
  segmentPoints(s, model.sections)
    .map((p, i) => `${i ? "L" : "M"}${g.px(p.x)} ${g.py(p.y)}`)
    .join("");

/** Draws one chart with its top-left corner at the layout's cursor; returns the height used (points). */
function drawChart(page: PDFPage, fonts: Fonts, model: ChartModel, top: number): number {
  const g = chartGeometry(model);
  const x0 = MARGIN;
  // viewBox → page: x right, y down from `top`.
  const X = (x: number) => x0 + x * SCALE;
  const Y = (y: number) => top - y * SCALE;
  const path = (d: string, opts: { color: RGB; width: number; dash?: number[] }) => {
    if (d) page.drawSvgPath(d, { x: x0, y: top, scale: SCALE, borderColor: opts.color, borderWidth: opts.width / SCALE, borderDashArray: opts.dash });
  };
  const text = (s: string, x: number, y: number, size: number, opts: { color?: RGB; align?: "start" | "middle" | "end"; bold?: boolean } = {}) => {
    const safe = toWinAnsi(s).replace(/\n/g, " ");
    if (!safe) return;
    const font = opts.bold ? fonts.bold : fonts.regular;
    const w = font.widthOfTextAtSize(safe, size);
    const dx = opts.align === "middle" ? -w / 2 : opts.align === "end" ? -w : 0;
    page.drawText(safe, { x: X(x) + dx, y: Y(y) - size * 0.35, size, font, color: opts.color ?? INK });
  };

  page.drawRectangle({ x: x0, y: Y(g.height), width: g.width * SCALE, height: g.height * SCALE, borderColor: RULE, borderWidth: 0.4 });
  let grid = "";
  for (const t of model.y.ticks) grid += `M${g.left} ${g.py(t)}H${g.right}`;
  for (const t of model.x.ticks) grid += `M${g.px(t.x)} ${g.top}V${g.bottom}`;
  path(grid, { color: rgb(0.9, 0.91, 0.92), width: 0.4 });
  path(`M${g.left} ${g.top}V${g.bottom}H${g.right}`, { color: rgb(0.42, 0.45, 0.5), width: 0.6 });
  for (const t of model.y.ticks) text(String(t), g.left - 6, g.py(t), 6.5, { align: "end", color: MUTED });
  for (const t of model.x.ticks) text(t.label, g.px(t.x), g.bottom + 16, 6.5, { align: "middle", color: MUTED });
  text(model.x.label, (g.left + g.right) / 2, g.height - 8, 7, { align: "middle", color: MUTED });
  // The y label, turned a quarter to read bottom-up beside the axis.
  const yLabel = toWinAnsi(model.y.label);
  const yw = fonts.regular.widthOfTextAtSize(yLabel, 7);
  page.drawText(yLabel, { x: X(18), y: Y((g.top + g.bottom) / 2) - yw / 2, size: 7, font: fonts.regular, color: MUTED, rotate: degrees(90) });
  if (model.empty || model.points.length === 0) text("No weekly reports", (g.left + g.right) / 2, (g.top + g.bottom) / 2, 9, { align: "middle", color: MUTED });

  if (model.phaseLine) {
    const x = g.px(model.phaseLine.x);
    path(`M${x} ${g.top}V${g.bottom}`, { color: hex(model.colors.phase), width: 1 });
    text(model.phaseLine.label, x, g.top - 10, 7, { align: "middle", bold: true, color: hex(model.colors.phase) });
  }
  for (const a of model.aimLines) path(segmentPath(a, model, g), { color: hex(a.color), width: 0.8, dash: [8, 5] });
  if (model.trend) path(segmentPath(model.trend, model, g), { color: hex(model.colors.trend), width: 1, dash: [2, 4] });
  for (const o of model.objectives) {
    const x = g.px(o.x);
    path(`M${x} ${g.top}V${g.bottom}`, { color: hex(model.colors.objective), width: 0.6, dash: [6, 4] });
    text(o.label, o.anchor === "start" ? x + 4 : x - 4, g.bottom - 8, 6.5, { align: o.anchor === "start" ? "start" : "end", bold: true, color: hex(o.color) });
  }
  for (const c of model.comments) {
    if (c.offsetY == null) continue; // past the day's stack: in its '+n more' marker
    const x = g.px(c.x);
    const y = g.top + 8 + c.offsetY;
    path(`M${x} ${y}V${g.bottom}`, { color: hex(model.colors.comment), width: 0.4 });
    page.drawCircle({ x: X(x), y: Y(y), size: 1.5, color: hex(model.colors.comment) });
    text(c.text, c.anchor === "start" ? x + 4 : x - 4, y, 5.5, { align: c.anchor === "start" ? "start" : "end", color: hex(model.colors.comment) });
  }
  for (const m of model.commentMore) {
    const x = g.px(m.x);
    text(m.label, m.anchor === "start" ? x + 4 : x - 4, g.top + 8 + m.offsetY, 5.5, { align: m.anchor === "start" ? "start" : "end", color: hex(model.colors.comment) });
  }
  for (const s of model.series) {
    const color = hex(s.color);
    path(seriesPath(model, s.values, g), { color, width: 1 });
    s.values.forEach((v, i) => {
      if (v != null) page.drawCircle({ x: X(g.px(model.points[i]!.x)), y: Y(g.py(v)), size: 1.6, color });
    });
  }
  if (model.baselineMarker) {
    const b = model.baselineMarker;
    page.drawSvgPath(`M${g.px(b.x)} ${r1(g.py(b.value) - 6)}l6 6-6 6-6-6z`, { x: x0, y: top, scale: SCALE, color: hex(model.colors.baseline) });
  }
  return g.height * SCALE;
}

/** The legend under a chart: the weeks, the keys (a swatch and a label each) and the mastered objectives. */
function drawLegend(l: Layout, model: ChartModel) {
  l.ensure(14);
  l.text(model.legend.weeks, MARGIN, 7.5, l.fonts.regular, MUTED);
  l.y -= 11;
  let x = MARGIN;
  l.ensure(12);
  for (const item of model.legend.items) {
    const label = toWinAnsi(item.label);
    const w = 16 + l.fonts.regular.widthOfTextAtSize(label, 7.5) + 12;
    if (x + w > PAGE.width - MARGIN) {
      x = MARGIN;
      l.y -= 11;
      l.ensure(12);
    }
    const color = hex(item.color);
    const mid = l.y - 4.5;
    if (item.style === "diamond") l.page.drawSvgPath("M0 -3l3 3-3 3-3-3z", { x: x + 6, y: mid, color });
    else if (item.style === "rule") l.page.drawLine({ start: { x: x + 6, y: mid - 4 }, end: { x: x + 6, y: mid + 4 }, thickness: 1, color });
    else l.page.drawLine({ start: { x, y: mid }, end: { x: x + 12, y: mid }, thickness: 1.2, color, dashArray: item.style === "dashed" ? [3, 2] : item.style === "dotted" ? [1, 2] : undefined });
    l.text(label, x + 16, 7.5, l.fonts.regular);
    x += w;
  }
  l.y -= 12;
  if (model.legend.mastered.length) {
    l.paragraph(`Mastered: ${model.legend.mastered.map((m) => (m.name ? `${m.label} (${m.name})` : m.label)).join(", ")}`, MARGIN, CONTENT, 7.5, l.fonts.regular, MUTED);
  }
  l.y -= 6;
}

function drawBlock(l: Layout, b: PlanPdfBlock) {
  if (b.kind !== "chart") return block(l, b);
  const height = b.model.height * SCALE;
  // The title ("Target Behavior to Decrease: <name>", wrapped) and the chart under it on one page.
  l.label(b.label, height + 47);
  l.y -= 2;
  l.y -= drawChart(l.page, l.fonts, b.model, l.y);
  l.y -= 6;
  drawLegend(l, b.model);
}

/** The PDF of a plan (or of a goal's weekly reports or comments): the bytes of a complete document. */
export async function renderPlanPdf(d: PlanPdfDocument): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  // Metadata names the document, never the client (PDF properties travel with the file).
  doc.setTitle(toWinAnsi(d.footer));
  doc.setCreator("Baseline");
  doc.setProducer("Baseline");
  const fonts: Fonts = {
    regular: await doc.embedFont(StandardFonts.Helvetica),
    bold: await doc.embedFont(StandardFonts.HelveticaBold),
    italic: await doc.embedFont(StandardFonts.HelveticaOblique),
  };
  const l = new Layout(doc, fonts, d.footer);
  l.newPage(true);
  const titleWidth = fonts.bold.widthOfTextAtSize(toWinAnsi(d.title), 17);
  l.text(d.title, Math.max(MARGIN, (PAGE.width - titleWidth) / 2), 17, fonts.bold);
  l.y -= 26;
  fieldGrid(l, d.fields);
  for (const section of d.sections) {
    l.heading(section.title);
    for (const b of section.blocks) drawBlock(l, b);
  }
  const pages = doc.getPages();
  pages.forEach((page, i) => {
    const footer = toWinAnsi(`${d.footer} · Page ${i + 1} of ${pages.length}`);
    page.drawText(footer, { x: PAGE.width - MARGIN - fonts.regular.widthOfTextAtSize(footer, 8), y: MARGIN - 14, size: 8, font: fonts.regular, color: MUTED });
    page.drawText("Confidential: contains protected health information.", { x: MARGIN, y: MARGIN - 14, size: 8, font: fonts.italic, color: MUTED });
  });
  return doc.save();
}
