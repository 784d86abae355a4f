/**
 * CSV for the report exports (decision 038). Pure.
 *
 * - RFC 4180: fields are separated by commas and records end in CRLF; a field holding a comma, a double
 *   quote, CR or LF is enclosed in double quotes and its quotes are doubled.
 * - The file starts with a UTF-8 byte order mark so spreadsheet programs read accents and symbols right.
 * - Formula injection: a TEXT cell whose first character is = + - @ TAB or CR would be run as a formula by
 *   a spreadsheet, so it gets a leading apostrophe (`'=cmd()`), which shows the text as typed. Numbers the
 *   report emits as numbers (a JavaScript number: units, counts) are written as they are, so `-5`
 *   stays a negative number. A negative amount that arrives as text is neutralised like any other text:
 *   emit numbers as numbers.
 * - Money, hours and percentages are decimal cells (`CsvDecimal`, made by `csvCents` and `csvFixed`): written as
 *   a plain decimal with fixed places ("1234.50", "-5.00", "12.5"), never through a float's printing, so a
 *   spreadsheet sums them and a negative amount stays a number (decision 038, 2026-11-28 (stop 43)).
 * - null and undefined are empty cells; booleans are "true"/"false".
 */

import { dollarsOf } from "./billing";

/** A decimal number written exactly as its text: an optional minus, digits, optionally a point and digits. */
export interface CsvDecimal {
  readonly decimal: string;
}

export type CsvCell = string | number | boolean | CsvDecimal | null | undefined;

export const CSV_BOM = "\uFEFF";
export const CSV_EOL = "\r\n";

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** A text cell made safe to open in a spreadsheet: a leading apostrophe when it could start a formula. */
export function neutraliseFormula(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

const DECIMAL = /^-?\d+(\.\d+)?$/;

/** Integer cents as a decimal cell of dollars with two places ("1234.50", "-5.00"); an empty cell for no amount. */
export function csvCents(cents: number | null | undefined): CsvDecimal | null {
  if (cents === null || cents === undefined || !Number.isFinite(cents)) return null;
  return { decimal: dollarsOf(Math.round(cents)) };
}

/**
 * A figure as a decimal cell with `places` decimals, rounded as `toFixed` rounds it (the screens' hours and
 * percentages are that same text); an empty cell for none. A value that rounds to zero is written "0.00", not "-0.00".
 */
export function csvFixed(value: number | null | undefined, places: number): CsvDecimal | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  const text = value.toFixed(places);
  return { decimal: /^-0(\.0*)?$/.test(text) ? text.slice(1) : text };
}

function isDecimal(value: CsvCell): value is CsvDecimal {
  return typeof value === "object" && value !== null && typeof value.decimal === "string";
}

/** One field as it is written in the file. */
export function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") return Number.isFinite(value) ? String(value) : "";
  if (typeof value === "boolean") return value ? "true" : "false";
  // A decimal cell is written as it is; text that is not a plain decimal is handled like any text.
  if (isDecimal(value)) return DECIMAL.test(value.decimal) ? value.decimal : csvField(value.decimal);
  const text = neutraliseFormula(value);
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** One record, CRLF included. */
export function csvRow(cells: readonly CsvCell[]): string {
  return cells.map(csvField).join(",") + CSV_EOL;
}

/** A whole file: the BOM, the header record, then one record per row. */
export function csvText(header: readonly string[], rows: readonly (readonly CsvCell[])[]): string {
  return CSV_BOM + csvRow(header) + rows.map(csvRow).join("");
}

/**
 * The same file as a stream of UTF-8 chunks (`chunkRows` records each), so a large export is encoded as it
 * is sent rather than built as one string first.
 */
export function csvStream(header: readonly string[], rows: readonly (readonly CsvCell[])[], chunkRows = 1000): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let next = 0;
  let started = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(CSV_BOM + csvRow(header)));
        return;
      }
      if (next >= rows.length) {
        controller.close();
        return;
      }
      const part = rows.slice(next, next + chunkRows);
      next += part.length;
      controller.enqueue(encoder.encode(part.map(csvRow).join("")));
    },
  });
}

/** A file name safe in a Content-Disposition header: letters, digits, dot, dash and underscore. */
export function csvFileName(base: string, date: string): string {
  const clean = `${base}-${date}`
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .replace(/-+/g, "-")
    .replace(/^-|-$/g, "");
  return `${clean || "report"}.csv`;
}
