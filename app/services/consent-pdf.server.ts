import { PDFDocument, StandardFonts, rgb, type PDFFont, type PDFPage } from "pdf-lib";
import { consentPdfFilename, consentStatusLabel, OTHER_SIGNER, pdfSections } from "~/domain/consents";
import { toWinAnsi, wrapText } from "~/domain/pdf-text";
import type { ConsentDocument } from "~/models/consents.server";

/**
 * A client consent as a PDF (clinical §7 get-client-consent-pdf; docs/decisions/040), drawn with pdf-lib
 * and the standard fonts: the clinic, the client, each chosen section's label and text, then who signed
 * and when with the drawn signature embedded. Every string passes through `toWinAnsi` (no text can make
 * it throw). The file's metadata never names the client.
 */

const PAGE = { width: 612, height: 792 };
const MARGIN = 54;
const CONTENT = PAGE.width - 2 * MARGIN;
const INK = rgb(0.1, 0.1, 0.1);
const MUTED = rgb(0.38, 0.38, 0.38);
const RULE = rgb(0.75, 0.75, 0.75);
/** The largest drawn signature embedded (bytes of PNG): the schema already caps it below this. */
const MAX_SIGNATURE_BYTES = 512 * 1024;

function decodePng(dataUrl: string | null): Uint8Array | null {
  const m = dataUrl ? /^data:image\/png;base64,([A-Za-z0-9+/=]+)$/.exec(dataUrl) : null;
  if (!m) return null;
  try {
    const binary = atob(m[1]!);
    if (binary.length === 0 || binary.length > MAX_SIGNATURE_BYTES) return null;
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

function usDateTime(iso: string): string {
  const [d, t] = [iso.slice(0, 10), iso.slice(11, 16)];
  const [y, m, day] = d.split("-");
  return `${m}/${day}/${y} ${t} UTC`;
}

class Cursor {
  page!: PDFPage;
  y = 0;
  constructor(
    readonly doc: PDFDocument,
    readonly regular: PDFFont,
    readonly bold: PDFFont,
  ) {}
  newPage() {
    this.page = this.doc.addPage([PAGE.width, PAGE.height]);
    this.y = PAGE.height - MARGIN;
  }
  ensure(h: number) {
    if (this.y - h < MARGIN + 24) this.newPage();
  }
  line(s: string, size: number, font: PDFFont, color = INK, x = MARGIN) {
    const safe = toWinAnsi(s).replace(/\n/g, " ");
    this.ensure(size * 1.4);
    if (safe) this.page.drawText(safe, { x, y: this.y - size, size, font, color });
    this.y -= size * 1.4;
  }
  paragraph(s: string, size: number, font: PDFFont, color = INK) {
    for (const l of wrapText(toWinAnsi(s), CONTENT, (t) => font.widthOfTextAtSize(t, size))) this.line(l, size, font, color);
  }
  rule() {
    this.ensure(8);
    this.page.drawLine({ start: { x: MARGIN, y: this.y }, end: { x: PAGE.width - MARGIN, y: this.y }, thickness: 0.6, color: RULE });
    this.y -= 10;
  }
}

/** The PDF bytes of a consent, printing the chosen sections among those it covers (none chosen: all of them). */
export async function renderConsentPdf(d: ConsentDocument, askedSections: readonly number[]): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.setTitle(`Consent ${d.consent.id}`);
  doc.setCreator("Baseline");
  doc.setProducer("Baseline");
  const c = new Cursor(doc, await doc.embedFont(StandardFonts.Helvetica), await doc.embedFont(StandardFonts.HelveticaBold));
  c.newPage();
  // Names are wrapped (a location's title may be 120 characters, a client's names 255 each), as the texts are.
  c.paragraph(d.locationTitle ?? "Baseline", 14, c.bold);
  c.line("Client consent", 18, c.bold);
  c.paragraph(`Client: ${d.patientName}`, 11, c.regular);
  // The consent's own status in the heading: a withdrawn one must never read as a draft to be signed (probe 8893, stop 25).
  c.line(`Consent #${d.consent.id} · ${d.consent.status === "draft" ? "Draft (not signed)" : consentStatusLabel(d.consent.status)}`, 10, c.regular, MUTED);
  c.rule();
  for (const s of pdfSections(d.consent.sections, askedSections)) {
    c.ensure(50);
    c.line(s.label, 12, c.bold);
    c.paragraph(s.text, 10, c.regular);
    c.y -= 6;
  }
  if (d.consent.notes) {
    c.line("Notes", 12, c.bold);
    c.paragraph(d.consent.notes, 10, c.regular);
  }
  c.rule();
  if (d.consent.status === "signed") {
    c.line("Signature", 12, c.bold);
    const png = decodePng(d.consent.signature);
    if (png) {
      try {
        const image = await doc.embedPng(png);
        const scale = Math.min(220 / image.width, 70 / image.height, 1);
        const w = image.width * scale;
        const h = image.height * scale;
        c.ensure(h + 8);
        c.page.drawImage(image, { x: MARGIN, y: c.y - h, width: w, height: h });
        c.y -= h + 6;
      } catch {
        c.line("(The drawn signature could not be shown.)", 9, c.regular, MUTED);
      }
    }
    // Wrapped too: a typed name may be 120 characters, and the signed record never changes (probe 8983 L2). A parent
    // reading a consent another parent signed is not told who (decision 040, stop 45).
    c.paragraph(d.otherSigner ? `Signed by ${OTHER_SIGNER}` : `Signed by ${d.consent.signer_name ?? ""}${d.consent.signer_type === "parent" ? " (parent/guardian)" : ""}`, 10, c.regular);
    if (d.consent.signed_at) c.line(`Signed on ${usDateTime(d.consent.signed_at)}`, 10, c.regular);
  } else if (d.consent.status === "withdrawn") {
    c.line(`Withdrawn by the clinic${d.consent.withdrawn_at ? ` on ${usDateTime(d.consent.withdrawn_at)}` : ""}; never signed.`, 10, c.regular, MUTED);
  } else {
    c.line("Not signed yet.", 10, c.regular, MUTED);
  }
  const pages = doc.getPages();
  pages.forEach((page, i) => {
    page.drawText(toWinAnsi(`Confidential: contains protected health information. Page ${i + 1} of ${pages.length}`), { x: MARGIN, y: MARGIN - 20, size: 8, font: c.regular, color: MUTED });
  });
  return doc.save();
}

/** The answer with a consent's PDF: inline when printing (isPrint), else a download; never cached (PHI). */
export async function consentPdfResponse(d: ConsentDocument, askedSections: readonly number[], isPrint: boolean): Promise<Response> {
  const bytes = await renderConsentPdf(d, askedSections);
  return new Response(bytes as Uint8Array<ArrayBuffer>, {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `${isPrint ? "inline" : "attachment"}; filename="${consentPdfFilename(d.consent.id)}"`,
      "Content-Length": String(bytes.byteLength),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
