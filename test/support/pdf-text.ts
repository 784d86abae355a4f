import { unzlibSync } from "fflate";
import { PDFArray, PDFDocument, PDFName, PDFRawStream, PDFRef, type PDFFont, type PDFObject, type StandardFonts } from "pdf-lib";

/**
 * Reads back the text a PDF draws, for tests: each page's content streams are inflated (fflate) and the
 * strings of their Tj/TJ operators decoded from the standard fonts' WinAnsi encoding. One string per
 * text operator, in drawing order (a wrapped paragraph gives one string per line). Works in node and in
 * workerd.
 */

/** The characters of WinAnsi 0x80–0x9F (the rest is Latin-1); unused codes are empty. */
const WINANSI_80 = ["€", "", "‚", "ƒ", "„", "…", "†", "‡", "ˆ", "‰", "Š", "‹", "Œ", "", "Ž", "", "", "‘", "’", "“", "”", "•", "–", "—", "˜", "™", "š", "›", "œ", "", "ž", "Ÿ"];

function winAnsi(bytes: number[]): string {
  return bytes.map((b) => (b >= 0x80 && b <= 0x9f ? WINANSI_80[b - 0x80] : String.fromCharCode(b))).join("");
}

function hexBytes(hex: string): number[] {
  const h = hex.replace(/\s+/g, "");
  const padded = h.length % 2 ? h + "0" : h;
  const out: number[] = [];
  for (let i = 0; i < padded.length; i += 2) out.push(parseInt(padded.slice(i, i + 2), 16));
  return out;
}

function literalBytes(lit: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < lit.length; i++) {
    const ch = lit[i]!;
    if (ch !== "\\") {
      out.push(ch.charCodeAt(0) & 0xff);
      continue;
    }
    const next = lit[++i] ?? "";
    const esc: Record<string, number> = { n: 10, r: 13, t: 9, b: 8, f: 12, "(": 40, ")": 41, "\\": 92 };
    if (next in esc) out.push(esc[next]!);
    else if (/[0-7]/.test(next)) {
      const oct = /^[0-7]{1,3}/.exec(lit.slice(i))![0];
      out.push(parseInt(oct, 8) & 0xff);
      i += oct.length - 1;
    }
  }
  return out;
}

/** One text operator: its string, its font (a standard font's name) and size, and where it starts. */
export interface TextRun {
  text: string;
  font: string;
  size: number;
  x: number;
  y: number;
  /** Whether it reads left to right (false: turned, as a chart's y-axis label). */
  upright: boolean;
}

/** The text operators of one content stream, with the font (Tf) and the position (Tm) each is drawn at. */
export function contentRuns(content: string): TextRun[] {
  const out: TextRun[] = [];
  const str = String.raw`<[0-9A-Fa-f\s]*>|\((?:\\.|[^\\)])*\)`;
  const num = String.raw`-?[\d.]+`;
  const ops = new RegExp(String.raw`(${str})\s*Tj|\[((?:\s*(?:${str}|-?[\d.]+))*)\s*\]\s*TJ|/(\S+)\s+(${num})\s+Tf|((?:${num}\s+){6})Tm`, "g");
  const decode = (s: string) => winAnsi(s.startsWith("<") ? hexBytes(s.slice(1, -1)) : literalBytes(s.slice(1, -1)));
  let font = "";
  let size = 0;
  let at = { x: 0, y: 0, upright: true };
  for (const m of content.matchAll(ops)) {
    if (m[3]) {
      // pdf-lib names a standard font's resource after it: "Helvetica-Bold-7098480789".
      font = m[3].replace(/-\d+$/, "");
      size = Number(m[4]);
    } else if (m[5]) {
      const [a, b, , , e, f] = m[5].trim().split(/\s+/).map(Number) as [number, number, number, number, number, number];
      at = { x: e, y: f, upright: Math.abs(b) < 1e-9 && a > 0 };
    } else {
      const text = m[1] ? decode(m[1]) : [...m[2]!.matchAll(new RegExp(str, "g"))].map((x) => decode(x[0])).join("");
      out.push({ text, font, size, ...at });
    }
  }
  return out;
}

/** The strings of one content stream's text operators. */
export function contentStrings(content: string): string[] {
  return contentRuns(content).map((r) => r.text);
}

function streamText(doc: PDFDocument, obj: PDFObject | undefined): string {
  const resolved = obj instanceof PDFRef ? doc.context.lookup(obj) : obj;
  if (resolved instanceof PDFArray) return resolved.asArray().map((o) => streamText(doc, o)).join("\n");
  if (!(resolved instanceof PDFRawStream)) return "";
  const filter = resolved.dict.get(PDFName.of("Filter"));
  const bytes = filter ? unzlibSync(resolved.contents) : resolved.contents;
  return Array.from(bytes, (b) => String.fromCharCode(b)).join("");
}

/** The text operators of each page. */
async function pageRuns(bytes: Uint8Array): Promise<TextRun[][]> {
  const doc = await PDFDocument.load(bytes);
  return doc.getPages().map((page) => contentRuns(streamText(doc, page.node.get(PDFName.of("Contents")))));
}

/** The text strings of each page. */
export async function pdfPages(bytes: Uint8Array): Promise<string[][]> {
  return (await pageRuns(bytes)).map((runs) => runs.map((r) => r.text));
}

/**
 * Each upright line of text with where it ends on its page (x + its width in its standard font): what a test
 * compares with the page's edge or margin.
 */
export async function pdfLineEnds(bytes: Uint8Array): Promise<{ page: number; text: string; x: number; right: number }[]> {
  const scratch = await PDFDocument.create();
  const fonts = new Map<string, PDFFont>();
  const fontOf = async (name: string) => {
    if (!fonts.has(name)) fonts.set(name, await scratch.embedFont(name as StandardFonts));
    return fonts.get(name)!;
  };
  const out: { page: number; text: string; x: number; right: number }[] = [];
  for (const [i, runs] of (await pageRuns(bytes)).entries()) {
    for (const r of runs.filter((r) => r.upright)) out.push({ page: i + 1, text: r.text, x: r.x, right: r.x + (await fontOf(r.font)).widthOfTextAtSize(r.text, r.size) });
  }
  return out;
}

/** All text strings of the PDF, one per line. */
export async function pdfText(bytes: Uint8Array): Promise<string> {
  return (await pdfPages(bytes)).map((p) => p.join("\n")).join("\n");
}

/** How many images the PDF holds (a drawn signature is one). */
export async function pdfImageCount(bytes: Uint8Array): Promise<number> {
  const doc = await PDFDocument.load(bytes);
  return doc.context
    .enumerateIndirectObjects()
    .filter(([, obj]) => obj instanceof PDFRawStream && obj.dict.get(PDFName.of("Subtype")) === PDFName.of("Image")).length;
}
