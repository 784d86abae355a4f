import { strToU8, zipSync } from "fflate";
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
  return zipSync(files, { level: 6 });
}

/** The weekly-report sheet: the header row, then [week ending, value, total units] rows. */
export function weeklySheet(rows: TestCell[][], opts: WorkbookOptions = {}): Uint8Array {
  return xlsxFile([["Week Ending", "Value", "Total Units"], ...rows], opts);
}
