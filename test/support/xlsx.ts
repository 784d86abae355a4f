import { deflateSync, strToU8, zipSync } from "fflate";
import { isoToExcelSerial } from "../../app/domain/xlsx";

/**
 * A tiny .xlsx writer for tests: one or more worksheets shaped like Excel's own output (workbook,
 * relationships, content types, styles with a date format, shared strings). A cell is a number, a
 * string, a boolean, null (left out), or { date } (stored as an Excel serial number with a date style,
 * as Excel stores dates). Strings go to sharedStrings.xml unless `inlineStrings` is set.
 */
export type TestCell = string | number | boolean | null | { date: string };

export interface WorkbookOptions {
  inlineStrings?: boolean;
  /** Extra sheets after the first (the reader must take the first one). */
  moreSheets?: { name: string; rows: TestCell[][] }[];
  firstSheetName?: string;
  /** Write the first sheet under another file name (readers must follow workbook.xml.rels). */
  firstSheetFile?: string;
  date1904?: boolean;
  /** More zip entries (images, extra parts, crafted bombs): bytes, or bytes deflated once and reused. */
  extraParts?: Record<string, Uint8Array | Deflated>;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function colName(i: number): string {
  let s = "";
  for (let n = i + 1; n > 0; n = Math.floor((n - 1) / 26)) s = String.fromCharCode(65 + ((n - 1) % 26)) + s;
  return s;
}

function sheetXml(rows: TestCell[][], shared: string[], opts: WorkbookOptions): string {
  const index = new Map(shared.map((s, i) => [s, i]));
  const rowXml = rows
    .map((cells, r) => {
      const cellXml = cells
        .map((cell, c) => {
          const ref = `${colName(c)}${r + 1}`;
          if (cell === null) return "";
          if (typeof cell === "number") return `<c r="${ref}"><v>${cell}</v></c>`;
          if (typeof cell === "boolean") return `<c r="${ref}" t="b"><v>${cell ? 1 : 0}</v></c>`;
          if (typeof cell === "object") {
            const serial = isoToExcelSerial(cell.date) - (opts.date1904 ? 1462 : 0);
            return `<c r="${ref}" s="1"><v>${serial}</v></c>`;
          }
          if (opts.inlineStrings) return `<c r="${ref}" t="inlineStr"><is><t xml:space="preserve">${esc(cell)}</t></is></c>`;
          if (!index.has(cell)) {
            index.set(cell, shared.length);
            shared.push(cell);
          }
          return `<c r="${ref}" t="s"><v>${index.get(cell)}</v></c>`;
        })
        .join("");
      return `<row r="${r + 1}" spans="1:${Math.max(1, cells.length)}">${cellXml}</row>`;
    })
    .join("");
  return `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><dimension ref="A1"/><sheetViews><sheetView workbookViewId="0"/></sheetViews><sheetFormatPr defaultRowHeight="15"/><sheetData>${rowXml}</sheetData><pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/></worksheet>`;
}

export function xlsxFile(rows: TestCell[][], opts: WorkbookOptions = {}): Uint8Array {
  const shared: string[] = [];
  const sheets = [{ name: opts.firstSheetName ?? "Weekly data", rows, file: opts.firstSheetFile ?? "sheet1.xml" }, ...(opts.moreSheets ?? []).map((s, i) => ({ ...s, file: `sheet${i + 2}.xml` }))];
  const xml = sheets.map((s) => sheetXml(s.rows, shared, opts));
  const files: Record<string, Uint8Array> = {
    "[Content_Types].xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>${sheets.map((s) => `<Override PartName="/xl/worksheets/${s.file}" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>`).join("")}<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`,
    ),
    "_rels/.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ),
    "xl/workbook.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><workbookPr${opts.date1904 ? ' date1904="1"' : ""} defaultThemeVersion="166925"/><bookViews><workbookView xWindow="0" yWindow="0" windowWidth="28800" windowHeight="12300"/></bookViews><sheets>${sheets.map((s, i) => `<sheet name="${esc(s.name)}" sheetId="${i + 1}" r:id="rId${i + 3}"/>`).join("")}</sheets><calcPr calcId="191029"/></workbook>`,
    ),
    "xl/_rels/workbook.xml.rels": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/>${sheets.map((s, i) => `<Relationship Id="rId${i + 3}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/${s.file}"/>`).join("")}</Relationships>`,
    ),
    "xl/styles.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="1"><numFmt numFmtId="164" formatCode="mm/dd/yyyy"/></numFmts><fonts count="1"><font><sz val="11"/><name val="Calibri"/></font></fonts><fills count="1"><fill><patternFill patternType="none"/></fill></fills><borders count="1"><border/></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/></cellXfs></styleSheet>`,
    ),
    "xl/sharedStrings.xml": strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="${shared.length}" uniqueCount="${shared.length}">${shared.map((s) => `<si><t xml:space="preserve">${esc(s)}</t></si>`).join("")}</sst>`,
    ),
  };
  sheets.forEach((s, i) => (files[`xl/worksheets/${s.file}`] = strToU8(xml[i]!)));
  const extra = Object.entries(opts.extraParts ?? {});
  if (extra.every(([, part]) => part instanceof Uint8Array)) return zipSync({ ...files, ...(Object.fromEntries(extra) as Record<string, Uint8Array>) }, { level: 6 });
  return zipOf({ ...files, ...opts.extraParts });
}

/** Bytes deflated once (`deflated(bytes)`), so a test can put the same large part in a zip many times cheaply. */
export interface Deflated {
  deflated: Uint8Array;
  size: number;
  crc: number;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

export function deflated(bytes: Uint8Array): Deflated {
  return { deflated: deflateSync(bytes, { level: 9 }), size: bytes.length, crc: crc32(bytes) };
}

/** A plain zip writer (deflate, no zip64) for parts given as bytes or already deflated. */
export function zipOf(files: Record<string, Uint8Array | Deflated>): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [name, part] of Object.entries(files)) {
    const d = part instanceof Uint8Array ? deflated(part) : part;
    const nameBytes = strToU8(name);
    const local = new Uint8Array(30 + nameBytes.length);
    const lv = new DataView(local.buffer);
    lv.setUint32(0, 0x04034b50, true);
    lv.setUint16(4, 20, true);
    lv.setUint16(8, 8, true);
    lv.setUint32(14, d.crc, true);
    lv.setUint32(18, d.deflated.length, true);
    lv.setUint32(22, d.size, true);
    lv.setUint16(26, nameBytes.length, true);
    local.set(nameBytes, 30);
    const central = new Uint8Array(46 + nameBytes.length);
    const cv = new DataView(central.buffer);
    cv.setUint32(0, 0x02014b50, true);
    cv.setUint16(4, 20, true);
    cv.setUint16(6, 20, true);
    cv.setUint16(10, 8, true);
    cv.setUint32(16, d.crc, true);
    cv.setUint32(20, d.deflated.length, true);
    cv.setUint32(24, d.size, true);
    cv.setUint16(28, nameBytes.length, true);
    cv.setUint32(42, offset, true);
    central.set(nameBytes, 46);
    locals.push(local, d.deflated);
    centrals.push(central);
    offset += local.length + d.deflated.length;
  }
  const centralSize = centrals.reduce((n, c) => n + c.length, 0);
  const end = new Uint8Array(22);
  const ev = new DataView(end.buffer);
  ev.setUint32(0, 0x06054b50, true);
  ev.setUint16(8, centrals.length, true);
  ev.setUint16(10, centrals.length, true);
  ev.setUint32(12, centralSize, true);
  ev.setUint32(16, offset, true);
  const out = new Uint8Array(offset + centralSize + 22);
  let at = 0;
  for (const part of [...locals, ...centrals, end]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/**
 * Rewrites the uncompressed size an entry declares (central directory and local header), as a crafted zip
 * would: to hide a bomb behind a small size, or to claim a huge one.
 */
export function withDeclaredSize(zip: Uint8Array, name: string, size: number): Uint8Array {
  const out = zip.slice();
  const view = new DataView(out.buffer);
  const encoded = new TextEncoder().encode(name);
  const matches = (at: number) => encoded.every((b, i) => out[at + i] === b);
  for (let i = 0; i + 46 < out.length; i++) {
    const sig = view.getUint32(i, true);
    if (sig === 0x02014b50 && view.getUint16(i + 28, true) === encoded.length && matches(i + 46)) view.setUint32(i + 24, size, true);
    if (sig === 0x04034b50 && view.getUint16(i + 26, true) === encoded.length && matches(i + 30)) view.setUint32(i + 22, size, true);
  }
  return out;
}

/** The weekly-report sheet: the header row, then [week ending, value, total units] rows. */
export function weeklySheet(rows: TestCell[][], opts: WorkbookOptions = {}): Uint8Array {
  return xlsxFile([["Week Ending", "Value", "Total Units"], ...rows], opts);
}
