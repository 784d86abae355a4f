import * as v from "valibot";

/** Turns valibot issues into one message per field (the first one wins). */
export function fieldErrors(issues: readonly v.BaseIssue<unknown>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    // Array positions are dropped: a bad item is reported on its list field ("pos_codes", not "pos_codes.0").
    const key = issue.path?.filter((p) => p.type !== "array").map((p) => String(p.key)).join(".") || "form";
    out[key] ??= issue.message;
  }
  return out;
}

export type Parsed<T> = { ok: true; data: T } | { ok: false; errors: Record<string, string> };

/** Validates plain input (a JSON body or a form's fields) with a schema. */
export function parseWith<S extends v.GenericSchema>(schema: S, input: unknown): Parsed<v.InferOutput<S>> {
  const r = v.safeParse(schema, input);
  return r.success ? { ok: true, data: r.output } : { ok: false, errors: fieldErrors(r.issues) };
}

/** A form's fields as a plain object (the last value of a repeated name wins; files are left out). */
export function formFields(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of form.entries()) if (typeof val === "string") out[k] = val;
  return out;
}

/** Accepts true/"true"/"1"/"on"/"yes" as true (checkboxes and JSON booleans alike). */
export const looseBoolean = v.pipe(
  v.optional(v.union([v.boolean(), v.string(), v.number()]), false),
  v.transform((x) => x === true || x === 1 || (typeof x === "string" && ["true", "1", "on", "yes"].includes(x.toLowerCase()))),
);

/** A record id from a path: a positive whole number, else null (the record does not exist). */
export function pathId(raw: string | undefined): number | null {
  return raw && /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/**
 * Characters no typed text needs and that can hide or disguise what a record says: C0 controls (NUL
 * included) other than tab, line feed and carriage return, DEL, the C1 controls, and the bidirectional
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069) that make "exe.txt" read as "txt.exe".
 * See docs/decisions/017-input-bounds-and-references.md.
 */
const UNSAFE_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/;
export const UNSAFE_TEXT_MESSAGE = "Remove control or text-direction characters.";

export function isPlainText(s: string): boolean {
  return !UNSAFE_TEXT.test(s);
}

/**
 * The text check every schema's text fields carry (fields.ts builds it into requiredText and optionalText):
 * refuses control and bidi-override characters. `label` names the field in the message.
 */
export function plainText(label?: string) {
  return v.check<string, string>(isPlainText, label ? `${label}: ${UNSAFE_TEXT_MESSAGE.charAt(0).toLowerCase()}${UNSAFE_TEXT_MESSAGE.slice(1)}` : UNSAFE_TEXT_MESSAGE);
}

/** Money (rates, pay, prices, fees): at most 1,000,000.00 and whole cents. */
export const MAX_MONEY = 1_000_000;
/** Counts and amounts that are not money (units, scores, targets): at most 1,000,000. */
export const MAX_AMOUNT = 1_000_000;
/** Hours in a week. */
export const MAX_WEEKLY_HOURS = 168;

/** True when `n` has at most `places` decimals (tolerant of binary floating point: 0.1 + 0.2). */
export function hasAtMostDecimals(n: number, places: number): boolean {
  const scaled = n * 10 ** places;
  return Math.abs(scaled - Math.round(scaled)) < 1e-6;
}

/**
 * A number typed as text: digits with an optional sign and decimal point ("7", " 2.5 ", "-1", ".5"), nothing
 * else. `Number()` alone also reads "0x10" as 16, "1e2" as 100, "Infinity" and "" as 0, so a slip in a
 * number cell would be stored as another number. The sign is kept so a negative gets its range message.
 */
const DECIMAL_TEXT = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

export function isDecimalText(s: string): boolean {
  return DECIMAL_TEXT.test(s.trim());
}

/** The byte length of text in UTF-8 (what D1 counts). */
export function utf8Length(s: string): number {
  return new TextEncoder().encode(s).length;
}

/**
 * D1 refuses a LIKE pattern over 50 bytes. A search becomes `%text%` with `\`, `%` and `_` escaped, so the
 * search itself may take 48 bytes once escaped.
 */
export const MAX_LIKE_PATTERN_BYTES = 50;
export const MAX_SEARCH_BYTES = MAX_LIKE_PATTERN_BYTES - 2;

/** A LIKE pattern that matches `text` anywhere, literally (use with ESCAPE '\'). */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export const SEARCH_MESSAGE = `Search is too long: at most ${MAX_SEARCH_BYTES} characters (fewer with accents, symbols or %, _ and \\).`;

/** A search box's text: trimmed, plain, and short enough to be a LIKE pattern D1 accepts. */
export function searchText(label = "Search") {
  return v.pipe(
    v.string(`${label} must be text.`),
    v.trim(),
    v.check(isPlainText, `${label}: ${UNSAFE_TEXT_MESSAGE.charAt(0).toLowerCase()}${UNSAFE_TEXT_MESSAGE.slice(1)}`),
    v.check((s) => utf8Length(containsPattern(s)) <= MAX_LIKE_PATTERN_BYTES, label === "Search" ? SEARCH_MESSAGE : SEARCH_MESSAGE.replace("Search", label)),
  );
}

/** One grouping formatter ("1,234.5"), reused: `toLocaleString` builds a new one on every call. */
const GROUPED = new Intl.NumberFormat("en-US");

/** A number with thousands separators, as every screen shows counts and amounts. */
export function groupDigits(n: number): string {
  return GROUPED.format(n);
}
