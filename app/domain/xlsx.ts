import { Inflate } from "fflate";
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

/**
 * Zip bomb limits (a Worker has 128 MB). An entry bigger than MAX_UNZIPPED_BYTES once unzipped is refused;
 * so is a file with more than MAX_ZIP_ENTRIES entries or whose entries declare more than
 * MAX_DECLARED_BYTES in all. Only the parts the import reads are inflated (workbook, its relationships, the
 * first sheet, shared strings), and inflating stops as soon as they pass MAX_INFLATED_BYTES in all,
 * whatever their headers declare.
 */
export const MAX_UNZIPPED_BYTES = 16 * 1024 * 1024;
export const MAX_ZIP_ENTRIES = 1000;
export const MAX_DECLARED_BYTES = 64 * 1024 * 1024;
export const MAX_INFLATED_BYTES = 24 * 1024 * 1024;

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

/**
 * Every element `name` of a fragment, with or without a namespace prefix (`<row>`, `<x:row>`: OpenXML SDK-based
 * tools write the spreadsheet namespace with a prefix), self-closing or with a body that ends at the closing tag of
 * the same prefix. Groups: `attrs` (the start tag's attributes), `body` (undefined when self-closing).
 */
const ELEMENT_PATTERNS = new Map<string, RegExp>();
function elements(fragment: string, name: string): IterableIterator<RegExpMatchArray> {
  let pattern = ELEMENT_PATTERNS.get(name);
  if (!pattern) ELEMENT_PATTERNS.set(name, (pattern = new RegExp(`<(\\w+:)?${name}(?=[\\s/>])(?<attrs>[^>]*?)(?:\\/>|>(?<body>[\\s\\S]*?)<\\/\\1${name}\\s*>)`, "g")));
  return fragment.matchAll(pattern);
}

/** The body of the first element `name` (any prefix), or undefined. */
function firstBody(fragment: string, name: string): string | undefined {
  for (const m of elements(fragment, name)) return m.groups?.body;
  return undefined;
}

/** The text of every <t> in a fragment (rich text runs are concatenated; phonetic runs are skipped). */
function textOf(fragment: string): string {
  const withoutPhonetic = fragment.replace(/<(\w+:)?rPh\b[\s\S]*?<\/\1rPh>/g, "");
  let out = "";
  for (const m of elements(withoutPhonetic, "t")) out += decodeXml(m.groups?.body ?? "");
  return out;
}

export function parseSharedStrings(xml: string): string[] {
  return [...elements(xml, "si")].map((m) => textOf(m.groups?.body ?? ""));
}

/** "A" → 0, "Z" → 25, "AA" → 26. */
export function columnIndex(letters: string): number {
  let n = 0;
  for (const ch of letters.toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64);
  return n - 1;
}

function cellValue(tag: string, body: string, shared: readonly string[]): Cell {
  const type = attr(tag, "t") ?? "n";
  const v = firstBody(body, "v");
  switch (type) {
    case "s": {
      const i = v === undefined ? NaN : Number(v);
      return Number.isInteger(i) && i >= 0 && i < shared.length ? shared[i]! : null;
    }
    case "inlineStr":
      return textOf(firstBody(body, "is") ?? "");
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
  for (const rm of elements(xml, "row")) {
    const rowNumber = Number(attr(rm.groups!.attrs!, "r") ?? nextRow);
    nextRow = rowNumber + 1;
    const cells: Cell[] = [];
    let nextCol = 0;
    for (const cm of elements(rm.groups!.body ?? "", "c")) {
      const ref = attr(cm.groups!.attrs!, "r");
      const col = ref ? columnIndex(/^[A-Za-z]+/.exec(ref)?.[0] ?? "A") : nextCol;
      nextCol = col + 1;
      const value = cellValue(cm.groups!.attrs!, cm.groups!.body ?? "", shared);
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

interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

class ZipRefused extends Error {
  constructor(readonly reason: "not_xlsx" | "too_large") {
    super(reason);
  }
}

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8);
const u32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;

/** The central directory's entries, read without inflating anything; refuses bombs by their headers. */
function zipEntries(bytes: Uint8Array): Map<string, ZipEntry> {
  // End of central directory: 22 bytes plus a comment of at most 65,535.
  let eocd = -1;
  for (let i = bytes.length - 22; i >= Math.max(0, bytes.length - 22 - 65_535); i--) {
    if (u32(bytes, i) === 0x06054b50) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipRefused("not_xlsx");
  const count = u16(bytes, eocd + 10);
  let at = u32(bytes, eocd + 16);
  if (count === 0xffff || at === 0xffffffff) throw new ZipRefused("too_large"); // ZIP64: far beyond any weekly sheet
  if (count > MAX_ZIP_ENTRIES) throw new ZipRefused("too_large");
  const entries = new Map<string, ZipEntry>();
  let declared = 0;
  for (let n = 0; n < count; n++) {
    if (at + 46 > bytes.length || u32(bytes, at) !== 0x02014b50) throw new ZipRefused("not_xlsx");
    const flags = u16(bytes, at + 8);
    const nameLength = u16(bytes, at + 28);
    const entry: ZipEntry = {
      method: u16(bytes, at + 10),
      compressedSize: u32(bytes, at + 20),
      size: u32(bytes, at + 24),
      name: utf8.decode(bytes.subarray(at + 46, at + 46 + nameLength)),
      localOffset: u32(bytes, at + 42),
    };
    if (flags & 1) throw new ZipRefused("not_xlsx"); // encrypted
    if (entry.size === 0xffffffff || entry.compressedSize === 0xffffffff) throw new ZipRefused("too_large");
    declared += entry.size;
    if (declared > MAX_DECLARED_BYTES) throw new ZipRefused("too_large");
    entries.set(entry.name, entry);
    at += 46 + nameLength + u16(bytes, at + 30) + u16(bytes, at + 32);
  }
  return entries;
}

/** Chunk of compressed input per step: its output is at most ~1 MB (deflate's ratio is at most ~1032:1). */
const INFLATE_STEP = 1024;

/**
 * Inflates one entry, stopping as soon as it passes its declared size, MAX_UNZIPPED_BYTES, or the
 * `budget` left for the whole file. Answers the bytes and what is left of the budget.
 */
function inflateEntry(bytes: Uint8Array, entry: ZipEntry, budget: number): { data: Uint8Array; left: number } {
  const at = entry.localOffset;
  if (at + 30 > bytes.length || u32(bytes, at) !== 0x04034b50) throw new ZipRefused("not_xlsx");
  const start = at + 30 + u16(bytes, at + 26) + u16(bytes, at + 28);
  const compressed = bytes.subarray(start, start + entry.compressedSize);
  if (compressed.length !== entry.compressedSize) throw new ZipRefused("not_xlsx");
  const limit = Math.min(entry.size, MAX_UNZIPPED_BYTES, budget);
  if (entry.size > MAX_UNZIPPED_BYTES || entry.size > budget) throw new ZipRefused("too_large");
  if (entry.method === 0) {
    if (compressed.length > limit) throw new ZipRefused("too_large");
    return { data: compressed, left: budget - compressed.length };
  }
  if (entry.method !== 8) throw new ZipRefused("not_xlsx");
  const out = new Uint8Array(entry.size);
  let length = 0;
  const inflate = new Inflate((chunk) => {
    // A header that understates the size is a lie: stop before the output grows past it.
    if (length + chunk.length > limit) throw new ZipRefused("too_large");
    out.set(chunk, length);
    length += chunk.length;
  });
  try {
    for (let i = 0; i < compressed.length; i += INFLATE_STEP) inflate.push(compressed.subarray(i, i + INFLATE_STEP), i + INFLATE_STEP >= compressed.length);
    if (compressed.length === 0) inflate.push(new Uint8Array(0), true);
  } catch (e) {
    throw e instanceof ZipRefused ? e : new ZipRefused("not_xlsx");
  }
  return { data: out.subarray(0, length), left: budget - length };
}

/** Reads the first worksheet of an .xlsx file, inflating only the parts it needs, within the limits above. */
export function readXlsx(bytes: Uint8Array): XlsxRead {
  if (bytes.length < 4 || ZIP_MAGIC.some((b, i) => bytes[i] !== b)) return { ok: false, reason: "not_xlsx" };
  try {
    const entries = zipEntries(bytes);
    let budget = MAX_INFLATED_BYTES;
    const text = (name: string): string | undefined => {
      const entry = entries.get(name);
      if (!entry) return undefined;
      const { data, left } = inflateEntry(bytes, entry, budget);
      budget = left;
      return utf8.decode(data);
    };
    const workbook = text("xl/workbook.xml");
    if (!workbook) return { ok: false, reason: "not_xlsx" };
    const sheet = firstSheet(workbook, text("xl/_rels/workbook.xml.rels"));
    if (!entries.has(sheet.path)) return { ok: false, reason: "no_sheet" };
    const sheetXml = text(sheet.path);
    if (!sheetXml) return { ok: false, reason: "no_sheet" };
    const shared = parseSharedStrings(text("xl/sharedStrings.xml") ?? "");
    const date1904 = /<(?:\w+:)?workbookPr\b[^>]*\sdate1904\s*=\s*["'](1|true)["']/.test(workbook);
    return { ok: true, rows: parseSheet(sheetXml, shared), date1904, sheetName: sheet.name };
  } catch (e) {
    if (e instanceof ZipRefused) return { ok: false, reason: e.reason };
    throw e;
  }
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
