import { unzipSync } from "fflate";
import { isoDate, parseIsoDate } from "./weeks";

/**
 * A small, pure .xlsx reader: unzips the workbook (fflate) and reads the first worksheet's cells. It
 * understands shared strings, inline strings, formula string results, numbers and booleans; styles are
 * not read, so a date arrives as the number Excel stores (a serial day count) and the caller, who knows
 * which column holds dates, turns it into a date with `cellToIsoDate`. Nothing here touches I/O.
 */
export type Cell = string | number | boolean | null;

export interface SheetRow {
  /** The row number shown by Excel (1-based). Empty rows are left out. */
  row: number;
  cells: Cell[];
}

export type XlsxRead =
  | { ok: true; rows: SheetRow[]; date1904: boolean; sheetName: string }
  | { ok: false; reason: "not_xlsx" | "too_large" | "no_sheet" };

/** An entry bigger than this once unzipped is refused (a small upload must not inflate to gigabytes). */
export const MAX_UNZIPPED_BYTES = 16 * 1024 * 1024;

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };

export function decodeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (whole, name: string) => {
    if (name[0] !== "#") return ENTITIES[name] ?? whole;
    const code = name[1] === "x" ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

function attr(tag: string, name: string): string | null {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag);
  return m ? decodeXml(m[2] ?? m[3] ?? "") : null;
}

/** The text of every <t> in a fragment (rich text runs are concatenated; phonetic runs are skipped). */
function textOf(fragment: string): string {
  const withoutPhonetic = fragment.replace(/<rPh\b[\s\S]*?<\/rPh>/g, "");
  let out = "";
  for (const m of withoutPhonetic.matchAll(/<t(?:\s[^>]*)?\/>|<t(?:\s[^>]*)?>([\s\S]*?)<\/t>/g)) out += decodeXml(m[1] ?? "");
  return out;
}

export function parseSharedStrings(xml: string): string[] {
  return [...xml.matchAll(/<si\b[^>]*\/>|<si\b[^>]*>([\s\S]*?)<\/si>/g)].map((m) => textOf(m[1] ?? ""));
}

/** "A" → 0, "Z" → 25, "AA" → 26. */
export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function cellValue(tag: string, body: string, shared: readonly string[]): Cell {
  const type = attr(tag, "t") ?? "n";
  const v = /<v(?:\s[^>]*)?>([\s\S]*?)<\/v>/.exec(body)?.[1];
  switch (type) {
    case "s": {
      const i = v === undefined ? NaN : Number(v);
      return Number.isInteger(i) && i >= 0 && i < shared.length ? shared[i]! : null;
    }
    case "inlineStr":
      return textOf(/<is\b[^>]*>([\s\S]*?)<\/is>/.exec(body)?.[1] ?? "");
    case "str":
      return v === undefined ? null : decodeXml(v);
    case "b":
      return v === undefined ? null : v.trim() === "1";
    case "e":
      return null;
    default: {
      if (v === undefined || v.trim() === "") return null;
      const n = Number(v);
      return Number.isFinite(n) ? n : decodeXml(v);
    }
  }
}

/** The cells of a worksheet's XML, by row; empty rows and trailing empty cells are left out. */
export function parseSheet(xml: string, shared: readonly string[]): SheetRow[] {
  const rows: SheetRow[] = [];
  let nextRow = 1;
  for (const rm of xml.matchAll(/<row\b([^>]*?)(?:\/>|>([\s\S]*?)<\/row>)/g)) {
    const rowNumber = Number(attr(rm[1]!, "r") ?? nextRow);
    nextRow = rowNumber + 1;
    const cells: Cell[] = [];
    let nextCol = 0;
    for (const cm of (rm[2] ?? "").matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
      const ref = attr(cm[1]!, "r");
      const col = ref ? columnIndex(/^[A-Za-z]+/.exec(ref)?.[0] ?? "A") : nextCol;
      nextCol = col + 1;
      const value = cellValue(cm[1]!, cm[2] ?? "", shared);
      if (col >= 0 && col < 16_384) cells[col] = value;
    }
    const filled = Array.from(cells, (c) => (c === undefined ? null : c));
    while (filled.length && (filled.at(-1) === null || filled.at(-1) === "")) filled.pop();
    if (filled.length) rows.push({ row: rowNumber, cells: filled });
  }
  return rows;
}

function normalisePath(target: string): string {
  const path = target.startsWith("/") ? target.slice(1) : `xl/${target}`;
  const parts: string[] = [];
  for (const p of path.split("/")) {
    if (p === "..") parts.pop();
    else if (p !== "." && p !== "") parts.push(p);
  }
  return parts.join("/");
}

/** Where the first sheet lives, following workbook.xml and its relationships (sheet1.xml as a fallback). */
function firstSheet(workbook: string | undefined, rels: string | undefined): { path: string; name: string } {
  const fallback = { path: "xl/worksheets/sheet1.xml", name: "Sheet1" };
  if (!workbook) return fallback;
  const sheet = /<(?:\w+:)?sheet\b[^>]*>/.exec(workbook)?.[0];
  if (!sheet) return fallback;
  const name = attr(sheet, "name") ?? "Sheet1";
  const rid = attr(sheet, "r:id") ?? attr(sheet, "[\\w]+:id");
  if (!rid || !rels) return { ...fallback, name };
  for (const m of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    if (attr(m[0], "Id") === rid) {
      const target = attr(m[0], "Target");
      if (target) return { path: normalisePath(target), name };
    }
  }
  return { ...fallback, name };
}

const utf8 = new TextDecoder("utf-8");

/** Reads the first worksheet of an .xlsx file. */
export function readXlsx(bytes: Uint8Array): XlsxRead {
  if (bytes.length < 4 || ZIP_MAGIC.some((b, i) => bytes[i] !== b)) return { ok: false, reason: "not_xlsx" };
  let tooLarge = false;
  let files: Record<string, Uint8Array>;
  const wanted = (name: string) => name === "xl/workbook.xml" || name === "xl/_rels/workbook.xml.rels" || name === "xl/sharedStrings.xml" || name.startsWith("xl/worksheets/");
  try {
    files = unzipSync(bytes, {
      filter: (file) => {
        if (!wanted(file.name)) return false;
        if (file.originalSize > MAX_UNZIPPED_BYTES) {
          tooLarge = true;
          return false;
        }
        return true;
      },
    });
  } catch {
    return { ok: false, reason: "not_xlsx" };
  }
  if (tooLarge) return { ok: false, reason: "too_large" };
  const text = (name: string) => (files[name] ? utf8.decode(files[name]) : undefined);
  const workbook = text("xl/workbook.xml");
  if (!workbook) return { ok: false, reason: "not_xlsx" };
  const sheet = firstSheet(workbook, text("xl/_rels/workbook.xml.rels"));
  const sheetXml = text(sheet.path);
  if (!sheetXml) return { ok: false, reason: "no_sheet" };
  const shared = parseSharedStrings(text("xl/sharedStrings.xml") ?? "");
  const date1904 = /<workbookPr\b[^>]*\sdate1904\s*=\s*["'](1|true)["']/.test(workbook);
  return { ok: true, rows: parseSheet(sheetXml, shared), date1904, sheetName: sheet.name };
}

/* ------------------------------------------------------------------ dates */

const DAY_MS = 86_400_000;
/** Serial day 0 of the 1900 system, counting Excel's phantom 29 Feb 1900 (serial 60). */
const EPOCH_1900 = Date.UTC(1899, 11, 30);
const EPOCH_1904 = Date.UTC(1904, 0, 1);

/** An Excel serial date (the time of day is dropped) as yyyy-mm-dd; null when out of range. */
export function excelSerialToIso(serial: number, date1904 = false): string | null {
  if (!Number.isFinite(serial) || serial < (date1904 ? 0 : 1) || serial >= 2_958_466) return null;
  const day = Math.floor(serial);
  // The 1900 system counts a 29 February 1900 that never was: serials before it are one day off.
  const ms = date1904 ? EPOCH_1904 + day * DAY_MS : EPOCH_1900 + (day < 61 ? day + 1 : day) * DAY_MS;
  return isoDate(new Date(ms));
}

/** yyyy-mm-dd as an Excel serial (1900 system); for writers and tests. */
export function isoToExcelSerial(date: string): number {
  const d = parseIsoDate(date);
  if (!d) throw new Error(`Not a date: ${date}`);
  const day = Math.round((d.getTime() - EPOCH_1900) / DAY_MS);
  return day < 61 ? day - 1 : day;
}

const pad = (n: number) => String(n).padStart(2, "0");

/**
 * A date cell as yyyy-mm-dd: an Excel serial number, or text in yyyy-mm-dd or mm/dd/yyyy (a time after
 * the date is ignored). Anything else, or an impossible date (02/30/2026), is null.
 */
export function cellToIsoDate(cell: Cell, date1904 = false): string | null {
  if (typeof cell === "number") return excelSerialToIso(cell, date1904);
  if (typeof cell !== "string") return null;
  const s = cell.trim();
  let iso: string | null = null;
  const ymd = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ][\d:.]+Z?)?$/.exec(s);
  const mdy = /^(\d{1,2})\/(\d{1,2})\/(\d{4})(?: [\d:.]+(?: ?[AP]M)?)?$/i.exec(s);
  if (ymd) iso = `${ymd[1]}-${pad(Number(ymd[2]))}-${pad(Number(ymd[3]))}`;
  else if (mdy) iso = `${mdy[3]}-${pad(Number(mdy[1]))}-${pad(Number(mdy[2]))}`;
  return iso && parseIsoDate(iso) ? iso : null;
}
