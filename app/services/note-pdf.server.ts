import { PDFDocument, PDFFont, PDFImage, PDFPage, StandardFonts, rgb } from "pdf-lib";
import { notePdfDocument, notePdfFilename, NONE_RECORDED, type NotePdfBlock, type NotePdfSignature, type NotePdfView } from "~/domain/note-pdf";
import { toWinAnsi, wrapText } from "~/domain/pdf-text";

/**
 * A note's PDF (RBT 'Appointment Note', BCBA 'Supervision Note', combined 'Session Note'), drawn with
 * pdf-lib and the standard Helvetica fonts inside the Worker (decision 027). What it says comes from
 * `notePdfDocument` (app/domain/note-pdf.ts); this module only lays it out: US Letter, a header with the
 * location on every page, text wrapped and broken across pages, a footer with the page number.
 * Every string drawn passes through `toWinAnsi`, so no text can make it throw. Nothing is logged.
 */

export const PAGE = { width: 612, height: 792 };
export const MARGIN = 48;
export const CONTENT = PAGE.width - 2 * MARGIN;
const FOOTER_SPACE = 36;
export const INK = rgb(0.1, 0.1, 0.1);
export const MUTED = rgb(0.38, 0.38, 0.38);
export const RULE = rgb(0.75, 0.75, 0.75);
const SHADE = rgb(0.93, 0.94, 0.96);

/** The largest drawn signature embedded (bytes of PNG); a larger one is left out rather than slow the PDF. */
const MAX_SIGNATURE_BYTES = 512 * 1024;
const PNG_DATA_URL = /^data:image\/png;base64,([A-Za-z0-9+/=\s]+)$/;

function decodePng(dataUrl: string | null): Uint8Array | null {
  if (!dataUrl) return null;
  const m = PNG_DATA_URL.exec(dataUrl.trim());
  if (!m) return null;
  try {
    const binary = atob(m[1]!.replace(/\s+/g, ""));
    if (binary.length === 0 || binary.length > MAX_SIGNATURE_BYTES) return null;
    const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
    const magic = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
    return magic.every((b, i) => bytes[i] === b) ? bytes : null;
  } catch {
    return null;
  }
}

export interface Fonts {
  regular: PDFFont;
  bold: PDFFont;
  italic: PDFFont;
}

/** A cursor over pages: draws lines of text top-down and starts a new page when one is full. */
export class Layout {
  page!: PDFPage;
  y = 0;
  constructor(
    readonly doc: PDFDocument,
    readonly fonts: Fonts,
    readonly runningHead: string,
  ) {}

  newPage(first = false) {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - MARGIN;
    if (!first) {
      // The running head repeats page 1's header on one line: its first line, with "…" when the rest is cut.
      const [head, ...rest] = this.lines(this.runningHead, CONTENT, 8, this.fonts.regular);
      this.text(rest.length ? `${head}…` : (head ?? ""), MARGIN, 8, this.fonts.regular, MUTED);
      this.y -= 12;
      this.rule();
      this.y -= 10;
    }
  }

  /** Room for `height` points on this page, or a new page. */
  ensure(height: number) {
    if (this.y - height < MARGIN + FOOTER_SPACE) this.newPage();
  }

  /** Draws one line whose baseline sits `size` below the cursor (the cursor does not move). */
  text(s: string, x: number, size: number, font: PDFFont, color = INK) {
    const safe = toWinAnsi(s).replace(/\n/g, " ");
    if (safe) this.page.drawText(safe, { x, y: this.y - size, size, font, color });
  }

  lines(s: string, width: number, size: number, font: PDFFont): string[] {
    return wrapText(toWinAnsi(s), width, (t) => font.widthOfTextAtSize(t, size));
  }

  /** Wrapped text at x, each line on the page where it fits (long text breaks across pages). */
  paragraph(s: string, x: number, width: number, size: number, font: PDFFont, color = INK) {
    const lead = size * 1.35;
    for (const line of this.lines(s, width, size, font)) {
      this.ensure(lead);
      this.text(line, x, size, font, color);
      this.y -= lead;
    }
  }

  rule() {
    this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: PAGE.width - MARGIN, y: this.y }, thickness: 0.6, color: RULE });
  }

  heading(title: string) {
    this.ensure(60);
    this.y -= 8;
    this.page.drawRectangle({ x: MARGIN, y: this.y - 17, width: CONTENT, height: 17, color: SHADE });
    this.y -= 4;
    this.text(title, MARGIN + 6, 10.5, this.fonts.bold);
    this.y -= 19;
  }

  /**
   * A block's label, wrapped to the text width (a goal's name may be 255 characters; probe 8983 L1), on the page
   * where it fits with `keep` more points under it (what it labels starts on the same page).
   */
  label(s: string, keep = 15) {
    const lines = this.lines(s, CONTENT, 9, this.fonts.bold);
    this.ensure(lines.length * 13 + keep);
    for (const line of lines) {
      this.text(line, MARGIN, 9, this.fonts.bold, MUTED);
      this.y -= 13;
    }
  }
}

/**
 * A table row: each cell wrapped to its column; the row moves whole to the next page when it does not fit
 * (the header is drawn again there). A row taller than a page (extreme text) is drawn cell under cell at
 * full width instead, so it can break across pages and nothing is cut off.
 */
function tableRow(l: Layout, cells: string[], widths: number[], font: PDFFont, shade: boolean, columns?: string[], onNewPage?: () => void) {
  const size = 9;
  const lead = size * 1.35;
  const pad = 4;
  const cols = widths.map((w) => w * CONTENT);
  const wrapped = cells.map((c, i) => l.lines(c, cols[i]! - 2 * pad, size, font));
  const height = Math.max(1, ...wrapped.map((w) => w.length)) * lead + 2 * pad;
  if (height > PAGE.height - 2 * MARGIN - FOOTER_SPACE - 60) {
    cells.forEach((c, i) => {
      if (columns?.[i]) {
        l.ensure(lead);
        l.text(columns[i]!, MARGIN + pad, size, l.fonts.bold, MUTED);
        l.y -= lead;
      }
      l.paragraph(c, MARGIN + pad, CONTENT - 2 * pad, size, font);
    });
  } else {
    const before = l.page;
    l.ensure(height);
    if (l.page !== before) onNewPage?.();
    if (shade) l.page.drawRectangle({ x: MARGIN, y: l.y - height, width: CONTENT, height, color: SHADE });
    const top = l.y - pad;
    let x = MARGIN;
    wrapped.forEach((lines, i) => {
      lines.forEach((line, k) => {
        l.y = top - k * lead;
        l.text(line, x + pad, size, font);
      });
      x += cols[i]!;
    });
    l.y = top - height + pad;
  }
  l.page.drawLine({ start: { x: MARGIN, y: l.y }, end: { x: PAGE.width - MARGIN, y: l.y }, thickness: 0.4, color: RULE });
}

export function table(l: Layout, label: string, columns: string[], widths: number[], rows: string[][]) {
  l.label(label);
  const header = () => tableRow(l, columns, widths, l.fonts.bold, true);
  header();
  if (rows.length === 0) {
    l.y -= 3;
    l.paragraph(NONE_RECORDED, MARGIN + 4, CONTENT - 8, 9, l.fonts.italic, MUTED);
  }
  for (const row of rows) tableRow(l, row, widths, l.fonts.regular, false, columns, header);
  l.y -= 8;
}

export function block(l: Layout, b: NotePdfBlock) {
  if (b.kind === "table") return table(l, b.label, b.columns, b.widths, b.rows);
  l.label(b.label);
  if (b.kind === "paragraph") l.paragraph(b.text, MARGIN + 8, CONTENT - 8, 10, l.fonts.regular);
  else if (b.items.length === 0) l.paragraph(NONE_RECORDED, MARGIN + 8, CONTENT - 8, 9, l.fonts.italic, MUTED);
  else
    for (const item of b.items) {
      l.ensure(14);
      l.text("•", MARGIN + 8, 10, l.fonts.regular);
      l.paragraph(item, MARGIN + 20, CONTENT - 20, 10, l.fonts.regular);
    }
  l.y -= 6;
}

/** Label/value pairs in two columns. */
export function fieldGrid(l: Layout, fields: [string, string][]) {
  const size = 9;
  const lead = size * 1.35;
  const colWidth = (CONTENT - 16) / 2;
  const labelWidth = 92;
  for (let i = 0; i < fields.length; i += 2) {
    const pair = fields.slice(i, i + 2).map(([label, value]) => ({ label: l.lines(label, labelWidth - 6, size, l.fonts.bold), value: l.lines(value, colWidth - labelWidth, size, l.fonts.regular) }));
    const rows = Math.max(...pair.map((p) => Math.max(p.label.length, p.value.length)));
    if (rows * lead + 4 > PAGE.height - 2 * MARGIN - FOOTER_SPACE - 60) {
      // A value taller than a page (extreme text): label above value at full width, breaking across pages.
      for (const [label, value] of fields.slice(i, i + 2)) {
        l.label(label);
        l.paragraph(value, MARGIN + 8, CONTENT - 8, size, l.fonts.regular);
      }
      continue;
    }
    l.ensure(rows * lead + 4);
    const top = l.y;
    pair.forEach((p, j) => {
      const x = MARGIN + j * (colWidth + 16);
      p.label.forEach((line, k) => {
        l.y = top - k * lead;
        l.text(line, x, size, l.fonts.bold, MUTED);
      });
      p.value.forEach((line, k) => {
        l.y = top - k * lead;
        l.text(line, x + labelWidth, size, l.fonts.regular);
      });
    });
    l.y = top - rows * lead - 4;
  }
}

async function signatureBlocks(l: Layout, signatures: NotePdfSignature[]) {
  const width = (CONTENT - 32) / 2;
  const imageBox = { width: Math.min(200, width), height: 54 };
  const images: (PDFImage | null)[] = await Promise.all(
    signatures.map(async (s) => {
      const png = decodePng(s.image);
      if (!png) return null;
      try {
        return await l.doc.embedPng(png);
      } catch {
        return null; // A broken image leaves the typed name, which is the signature of record.
      }
    }),
  );
  const names = signatures.map((s) => l.lines(s.name, width, 10, l.fonts.bold));
  const nameHeight = Math.max(...names.map((n) => n.length)) * 13.5;
  l.heading("Signatures");
  l.ensure(imageBox.height + nameHeight + 46);
  const top = l.y - 6;
  signatures.forEach((s, i) => {
    const x = MARGIN + i * (width + 32);
    const image = images[i];
    if (image) {
      const scale = Math.min(imageBox.width / image.width, imageBox.height / image.height, 1);
      l.page.drawImage(image, { x, y: top - imageBox.height, width: image.width * scale, height: image.height * scale });
    }
    const lineY = top - imageBox.height - 4;
    l.page.drawLine({ start: { x, y: lineY }, end: { x: x + width, y: lineY }, thickness: 0.8, color: INK });
    l.y = lineY - 4;
    for (const line of names[i]!) {
      l.text(line, x, 10, l.fonts.bold);
      l.y -= 13.5;
    }
    l.text(`${s.role} signature${image ? " (drawn)" : ""}`, x, 8.5, l.fonts.regular, MUTED);
    l.y -= 12;
    l.text(`Date: ${s.date}`, x, 8.5, l.fonts.regular, MUTED);
  });
  l.y = top - imageBox.height - 4 - 4 - nameHeight - 12 - 14;
}

/** The PDF of a note: bytes of a complete document. */
export async function renderNotePdf(view: NotePdfView): Promise<Uint8Array> {
  const d = notePdfDocument(view);
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
  const l = new Layout(doc, fonts, `${d.header.name} · ${d.title}`);
  l.newPage(true);

  // Header: the location, then the title (and the amendment, if any).
  // Wrapped: a location's title may be 120 characters, its address 255 (stop 35, as the plan PDF's labels).
  for (const line of l.lines(d.header.name, CONTENT, 14, fonts.bold)) {
    l.text(line, MARGIN, 14, fonts.bold);
    l.y -= 19;
  }
  for (const line of d.header.lines.flatMap((x) => l.lines(x, CONTENT, 9, fonts.regular))) {
    l.text(line, MARGIN, 9, fonts.regular, MUTED);
    l.y -= 12;
  }
  l.y -= 4;
  l.rule();
  l.y -= 12;
  const titleWidth = fonts.bold.widthOfTextAtSize(toWinAnsi(d.title), 17);
  l.text(d.title, (PAGE.width - titleWidth) / 2, 17, fonts.bold);
  l.y -= 22;
  if (d.amended) {
    const w = fonts.italic.widthOfTextAtSize(toWinAnsi(d.amended), 10);
    l.text(d.amended, (PAGE.width - w) / 2, 10, fonts.italic, MUTED);
    l.y -= 14;
  }
  l.y -= 4;

  fieldGrid(l, d.fields);
  for (const section of d.sections) {
    l.heading(section.title);
    for (const b of section.blocks) block(l, b);
  }
  l.heading("Summary");
  l.paragraph(d.summary, MARGIN + 4, CONTENT - 4, 10, fonts.regular);
  await signatureBlocks(l, d.signatures);
  if (d.history) {
    l.heading("Amendment history");
    table(l, "Earlier versions", d.history.columns, d.history.widths, d.history.rows);
  }

  const pages = doc.getPages();
  pages.forEach((page, i) => {
    const footer = toWinAnsi(`${d.footer} · Page ${i + 1} of ${pages.length}`);
    page.drawText(footer, { x: PAGE.width - MARGIN - fonts.regular.widthOfTextAtSize(footer, 8), y: MARGIN - 14, size: 8, font: fonts.regular, color: MUTED });
    page.drawText("Confidential: contains protected health information.", { x: MARGIN, y: MARGIN - 14, size: 8, font: fonts.italic, color: MUTED });
  });
  return doc.save();
}

/**
 * The answer with a note's PDF, for the API and the screens alike: shown inline in a new tab, named by
 * the note's type and id (never the client), never cached (it is PHI).
 */
export async function notePdfResponse(view: NotePdfView): Promise<Response> {
  const bytes = await renderNotePdf(view);
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `inline; filename="${notePdfFilename(view.note.type, view.note.id)}"`,
      "Content-Length": String(bytes.byteLength),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
