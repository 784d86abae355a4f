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
  const r = safeParsePlain(schema, input);
  return r.success ? { ok: true, data: r.output } : { ok: false, errors: fieldErrors(r.issues) };
}

/** What names a record's writable fields: an object schema (its keys; a piped object keeps them) or the keys themselves. */
export type FieldSource = { readonly entries: Record<string, unknown> } | readonly string[];

/**
 * True when an update's body names none of the fields `sources` declare: only unknown or read-only keys
 * (`id`, `created_at`, a misspelt name) or just its `version`. Such a PATCH, or PUT, changes nothing
 * (nothingToChange): a PUT replaces the record, so it would otherwise blank every field (probe 8913, stop 28).
 */
export function namesNoField(body: Record<string, unknown>, ...sources: FieldSource[]): boolean {
  const fields = new Set(sources.flatMap((s) => (Array.isArray(s) ? s : Object.keys((s as { entries: Record<string, unknown> }).entries))));
  fields.delete("id");
  fields.delete("version");
  return !Object.keys(body).some((k) => fields.has(k));
}

/**
 * The fields of the spec that a call does not write, each with the message saying where it is set instead (decision
 * 044). A body that names any of them, beside fields the call writes or alone, answers 422 at each of them and writes
 * nothing (fieldsSetElsewhere): never a success that dropped what it was sent, and not "Nothing to change" either.
 */
export type SetElsewhere = Readonly<Record<string, string>>;

/** The errors for the fields of `body` that `elsewhere` names (their messages), or null when it names none. */
export function fieldsSetElsewhere(body: Record<string, unknown>, elsewhere: SetElsewhere): Record<string, string> | null {
  const named = Object.keys(body).filter((k) => Object.hasOwn(elsewhere, k));
  return named.length ? Object.fromEntries(named.map((k) => [k, elsewhere[k]!])) : null;
}

/**
 * The first key an object of a JSON text gives twice, at any depth, as its path (`name`, `locations.1.salary`), or null.
 * `JSON.parse` keeps the last of two silently; the API refuses the body instead, as it does a query parameter given
 * twice. Keys compare as decoded (`"n\u0061me"` is `name`). One pass over the text, for text that already parsed
 * (well-formed JSON): linear in its length, with one set of keys per open object.
 */
export function repeatedJsonKey(text: string): string | null {
  type Frame = { keys: Set<string> | null; at: string | number; expectKey: boolean };
  const stack: Frame[] = [];
  const path = (last: string) => [...stack.slice(0, -1).map((f) => String(f.at)), last].join(".");
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x7b /* { */) stack.push({ keys: new Set(), at: "", expectKey: true });
    else if (ch === 0x5b /* [ */) stack.push({ keys: null, at: 0, expectKey: false });
    else if (ch === 0x7d /* } */ || ch === 0x5d /* ] */) stack.pop();
    else if (ch === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.keys) top.expectKey = true;
      else if (top) top.at = (top.at as number) + 1;
    } else if (ch === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x5c /* \ */) {
          escaped = true;
          i++;
        } else if (c === 0x22) break;
      }
      const top = stack[stack.length - 1];
      if (top?.keys && top.expectKey) {
        const key = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
        if (top.keys.has(key)) return path(key);
        top.keys.add(key);
        top.at = key;
        top.expectKey = false;
      }
    }
  }
  return null;
}

/**
 * A plain object: what a JSON body's `{…}` is. An array is not one, though `typeof` and valibot's object and record
 * schemas take it for one (probe 8913: `"content": []` was read as empty content and erased a note's).
 */
export function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null) return false;
  const proto: unknown = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

/**
 * An object-valued field's schema (an object or record schema, piped or not) that refuses an array, or any object
 * that is not plain, as it refuses any other value that is not an object: with the schema's own message, else the
 * plain "<Field> must be an object." (plainIssues). Wrap every object that sits inside a body; the body itself is
 * already a plain object (readBody in workers/api/env.ts, formFields).
 */
export function plainObject<S extends v.GenericSchema>(schema: S) {
  const message = (schema as { message?: string }).message;
  return v.pipe({ ...v.custom<v.InferInput<S>>(isPlainObject, message), expects: "Object" }, schema);
}

/**
 * valibot's own wording, used when a schema gave no message of its own: "Invalid key: Expected \"surname\" but
 * received undefined" (a key the body left out), "Invalid type: Expected Object but received null".
 */
const RAW_MESSAGE = /^Invalid \w+: (Expected [\s\S]* but r|R)eceived /;

/** `v.safeParse` whose messages are all in the product's words (see plainIssues): every schema's input goes through it. */
export function safeParsePlain<S extends v.GenericSchema>(schema: S, input: unknown): { success: true; output: v.InferOutput<S> } | { success: false; issues: v.BaseIssue<unknown>[] } {
  const r = v.safeParse(schema, input);
  return r.success ? { success: true, output: r.output } : { success: false, issues: plainIssues(schema, input, r.issues) };
}

/** A key the input left out: v.object reports it on the key itself, with no value. */
const isMissingKey = (issue: v.BaseIssue<unknown>) => issue.input === undefined && issue.path?.at(-1)?.origin === "key";

const pathKeys = (issue: v.BaseIssue<unknown>) => (issue.path ?? []).map((p) => p.key);

/** `input` with "" at `keys`, copied along the way (the caller's object is left alone). */
function withEmptyAt(input: unknown, keys: readonly unknown[]): unknown {
  if (!keys.length) return "";
  const [key, ...rest] = keys;
  const holder = (input && typeof input === "object" ? input : {}) as Record<PropertyKey, unknown>;
  const copy = (Array.isArray(holder) ? [...holder] : { ...holder }) as Record<PropertyKey, unknown>;
  copy[key as PropertyKey] = withEmptyAt(holder[key as PropertyKey], rest);
  return copy;
}

/**
 * Rewrites valibot's own wording (decision 017, stop 24). A missing key gets the message its field gives an
 * empty value ("Surname is required."): the input is parsed again with "" in each missing key, so the
 * schema's own words are used without every schema marking its keys; a field whose empty value passes (or
 * has no message of its own) gets "<Field> is required.". Any other raw message (a wrong type: an item
 * that is not an object, text where a list belongs) is said in plain words ("… must be an object.").
 */
export function plainIssues(schema: v.GenericSchema, input: unknown, issues: readonly v.BaseIssue<unknown>[]): v.BaseIssue<unknown>[] {
  const missing = issues.filter(isMissingKey);
  const emptyMessage = new Map<string, string>();
  if (missing.length) {
    const again = v.safeParse(
      schema,
      missing.reduce((acc, issue) => withEmptyAt(acc, pathKeys(issue)), input),
    );
    for (const issue of again.issues ?? []) {
      const at = JSON.stringify(pathKeys(issue));
      if (!RAW_MESSAGE.test(issue.message) && !emptyMessage.has(at)) emptyMessage.set(at, issue.message);
    }
  }
  return issues.map((issue) => {
    if (isMissingKey(issue)) return { ...issue, message: emptyMessage.get(JSON.stringify(pathKeys(issue))) ?? `${subjectOf(issue)} is required.` };
    return RAW_MESSAGE.test(issue.message) ? { ...issue, message: plainMessage(issue) } : issue;
  });
}

const UPPERCASE_WORDS = new Set(["pa", "cpt", "npi", "id", "ssn", "zip", "bcba", "rbt", "url"]);

/** A key in words, for messages no schema worded: "pa_assessments" → "PA assessments", "location_id" → "Location". */
export function keyLabel(key: string): string {
  const words = key.replace(/_id$/, "").split(/[_\s]+/).filter(Boolean).map((w) => (UPPERCASE_WORDS.has(w.toLowerCase()) ? w.toUpperCase() : w));
  const text = words.join(" ") || key;
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** What an issue is about: its field, an entry of a list, or the whole body. */
function subjectOf(issue: v.BaseIssue<unknown>): string {
  const path = issue.path ?? [];
  const field = [...path].reverse().find((p) => p.type === "object");
  if (!field) return path.length ? "Each entry" : "The request body";
  const label = keyLabel(String(field.key));
  return path.at(-1) === field ? label : `Each entry of ${label}`;
}

/** valibot's names of the kinds of value it expected, in words. */
const KIND_WORDS: Record<string, string> = { string: "text", number: "a number", bigint: "a number", boolean: "true or false", Object: "an object", Array: "a list", Date: "a date", File: "a file", Blob: "a file" };

function plainMessage(issue: v.BaseIssue<unknown>): string {
  const subject = subjectOf(issue);
  if (issue.kind !== "schema") return `${subject} is not valid.`;
  const kinds = (issue.expected ?? "").replace(/[()]/g, "").split("|").map((k) => k.trim()).filter((k) => k && k !== "null" && k !== "undefined");
  if (kinds.length && kinds.every((k) => /^["'\d-]/.test(k))) return `${subject} must be one of the listed values.`;
  const words = [...new Set(kinds.map((k) => KIND_WORDS[k]))];
  return words.length && words.every(Boolean) ? `${subject} must be ${words.join(" or ")}.` : `${subject} has a value of the wrong kind.`;
}

/** A form's fields as a plain object (the last value of a repeated name wins; files are left out). */
export function formFields(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, val] of form.entries()) if (typeof val === "string") out[k] = val;
  return out;
}

/** A record id from a path: a positive whole number, else null (the record does not exist). */
export function pathId(raw: string | undefined): number | null {
  return raw && /^\d{1,15}$/.test(raw) && Number(raw) > 0 ? Number(raw) : null;
}

/**
 * A record id named in a body (JSON or a form): a positive whole number, sent as a number or as its digits in text
 * (trimmed), by the path's rule. Anything else (a list, an object, true/false, "abc", 1.5, 0) is no id: null.
 */
export function bodyRecordId(raw: unknown): number | null {
  if (typeof raw === "number") return pathId(String(raw));
  return typeof raw === "string" ? pathId(raw.trim()) : null;
}

/** A body field that takes a record id and was sent something else (the words of every record-id field). */
export function recordIdMessage(field: string): string {
  return `${field.slice(0, 40)} must be a record id.`;
}

/**
 * An update body's `id` names the record it was read from: one that is not the path's record (999, or another real
 * record's) would change the wrong record while saying it changed the one meant. Null when the body names no id
 * (absent or null) or the path's own (a number, or its digits as text); else the message for the `id` field.
 */
export function otherRecordIdMessage(sent: unknown, id: number): string | null {
  if (sent === undefined || sent === null || sent === id || (typeof sent === "string" && pathId(sent.trim()) === id)) return null;
  return `The id in the body (${JSON.stringify(sent).slice(0, 40)}) is not the record's id (${id}).`;
}

/**
 * Characters no typed text needs and that can hide or disguise what a record says: C0 controls (NUL
 * included) other than tab, line feed and carriage return, DEL, the C1 controls, and the bidirectional
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069) that make "exe.txt" read as "txt.exe". And a lone
 * surrogate (half of an emoji's UTF-16 pair, `\p{Cs}` here since a pair reads as one code point): ill-formed
 * text that D1 stores as invalid UTF-8 and every read returns as "\uFFFD" (probe 8921 #8).
 * See docs/decisions/017-input-bounds-and-references.md.
 */
const UNSAFE_TEXT = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069\p{Cs}]/u;
const LONE_SURROGATE = /\p{Cs}/u;
export const UNSAFE_TEXT_MESSAGE = "Remove control or text-direction characters.";
export const BROKEN_TEXT_MESSAGE = "Remove the broken character (half of an emoji or symbol).";

export function isPlainText(s: string): boolean {
  return !UNSAFE_TEXT.test(s);
}

/** "First name" → "first name" and "A table cell" → "a table cell" inside a sentence; "NPI" and "EQHLID" stay as they are. */
const inSentence = (label: string) => (/^([A-Z][a-z]|A )/.test(label) ? label.charAt(0).toLowerCase() + label.slice(1) : label);

/** Why `s` is not plain text, for a field labelled `label` (or unlabelled). */
function unsafeTextMessage(s: string, label?: string): string {
  const message = LONE_SURROGATE.test(s) ? BROKEN_TEXT_MESSAGE : UNSAFE_TEXT_MESSAGE;
  return label ? `${label}: ${message.charAt(0).toLowerCase()}${message.slice(1)}` : message;
}

/**
 * The text check every schema's text fields carry (fields.ts builds it into requiredText and optionalText):
 * refuses control, bidi-override and broken characters. `label` names the field in the message.
 */
export function plainText(label?: string) {
  return v.check<string, (issue: v.CheckIssue<string>) => string>(isPlainText, (issue) => unsafeTextMessage(issue.input, label));
}

/**
 * Line breaks: line feed, carriage return, and Unicode's line and paragraph separators (vertical tab, form feed
 * and NEL are controls, refused by plainText). A single-line <input> cannot hold one: the browser drops it, so the
 * next save of the form would store the value changed (probe 8921 #3).
 */
const LINE_BREAK = /[\n\r\u2028\u2029]/;

export function isOneLine(s: string): boolean {
  return !LINE_BREAK.test(s);
}

/**
 * A stored string that today's input rules refuse (written before a rule existed: a line break in a one-line field,
 * a control character), made readable: line breaks become spaces, a lone surrogate becomes U+FFFD, and the other
 * characters plainText refuses are removed.
 */
export function readableText(s: string): string {
  return s.replace(/\r\n|[\n\r\u2028\u2029]/g, " ").replace(/\p{Cs}/gu, "\uFFFD").replace(new RegExp(UNSAFE_TEXT.source, "gu"), "");
}

/**
 * Reads a stored document part with `schema`, never dropping it for a value that today's rules refuse: when the parse
 * fails, only the strings its issues point at are made readable (readableText) and the part is parsed again, so a
 * multi-line field beside a refused one-line field keeps its lines. A part of another shape still fails (the caller
 * falls back to its default). The next save of that part stores the readable value.
 */
export function parseStored<S extends v.GenericSchema>(schema: S, stored: unknown): v.SafeParseResult<S> {
  return readableWhere(schema, stored, () => true).result;
}

type Keys = (string | number)[];
const issueKeys = (issue: v.BaseIssue<unknown>): Keys => (issue.path ?? []).map((p) => p.key as string | number);

/** parseStored's rounds, making readable only the refused strings whose path `where` takes; `paths` are those changed. */
function readableWhere<S extends v.GenericSchema>(schema: S, stored: unknown, where: (keys: Keys) => boolean): { result: v.SafeParseResult<S>; value: unknown; paths: Keys[] } {
  let value = stored;
  const paths: Keys[] = [];
  for (let round = 0; round < 5; round++) {
    const result = v.safeParse(schema, value);
    if (result.success) return { result, value, paths };
    let changed = false;
    value = structuredClone(value);
    for (const issue of result.issues) {
      const keys = issueKeys(issue);
      if (keys.length === 0 || !where(keys)) continue;
      let holder = value as Record<string | number, unknown>;
      for (const k of keys.slice(0, -1)) holder = (holder?.[k] ?? null) as Record<string | number, unknown>;
      const last = keys[keys.length - 1]!;
      const leaf = holder?.[last];
      if (typeof leaf === "string" && readableText(leaf) !== leaf) {
        holder[last] = readableText(leaf);
        paths.push(keys);
        changed = true;
      }
    }
    if (!changed) return { result, value, paths };
  }
  return { result: v.safeParse(schema, value), value, paths };
}

/**
 * An update's parse of the stored record with a body's fields over it (`merged`: an API PATCH), checking only what the
 * body sends (`sent`, given an issue's path). A stored value the body does not send that today's rules refuse (a line
 * break in a one-line field, stored before the rule) is neither refused nor rewritten: the parse reads it made
 * readable (readableWhere) and the output keeps the stored text, so the write stores it byte for byte. A refused value
 * the body sends is refused as before (decision 017, stop 30).
 */
export function safeParseChange<S extends v.GenericSchema>(schema: S, merged: Record<string, unknown>, sent: (keys: Keys) => boolean): ReturnType<typeof safeParsePlain<S>> {
  const first = safeParsePlain(schema, merged);
  if (first.success) return first;
  const { value, paths } = readableWhere(schema, merged, (keys) => !sent(keys));
  if (paths.length === 0) return first;
  const second = safeParsePlain(schema, value);
  if (!second.success) return second;
  for (const keys of paths) {
    let holder = second.output as Record<string | number, unknown>;
    let stored = merged as Record<string | number, unknown>;
    for (const k of keys.slice(0, -1)) {
      holder = (holder?.[k] ?? null) as Record<string | number, unknown>;
      stored = (stored?.[k] ?? null) as Record<string | number, unknown>;
    }
    const last = keys[keys.length - 1]!;
    if (typeof holder?.[last] === "string") holder[last] = stored[last];
  }
  return second;
}

/**
 * An update's parse: `body` alone (a PUT or a screen's form, which send every field), or, given the `stored` record
 * (a PATCH), the body over it, checked as safeParseChange checks it (only the fields the body names).
 */
export function parseChange<S extends v.GenericSchema>(schema: S, body: Record<string, unknown>, stored: Record<string, unknown> | null): Parsed<v.InferOutput<S>> {
  if (!stored) return parseWith(schema, body);
  const r = safeParseChange(schema, { ...stored, ...body }, sentBy(body));
  return r.success ? { ok: true, data: r.output } : { ok: false, errors: fieldErrors(r.issues) };
}

/** Whether an issue's path is a field `body` sends (its first key). */
export function sentBy(body: Record<string, unknown>): (keys: Keys) => boolean {
  return (keys) => Object.hasOwn(body, String(keys[0]));
}

/** The one-line check of a field a screen shows as an <input> (fields.ts: requiredLine, optionalLine); null passes. */
export function oneLine<T extends string | null>(label: string) {
  return v.check<T, string>((s) => s === null || isOneLine(s), `Keep ${inSentence(label)} on one line.`);
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
    plainText(label),
    v.check((s) => utf8Length(containsPattern(s)) <= MAX_LIKE_PATTERN_BYTES, label === "Search" ? SEARCH_MESSAGE : SEARCH_MESSAGE.replace("Search", label)),
  );
}

/** One grouping formatter ("1,234.5"), reused: `toLocaleString` builds a new one on every call. */
const GROUPED = new Intl.NumberFormat("en-US");

/** A number with thousands separators, as every screen shows counts and amounts. */
export function groupDigits(n: number): string {
  return GROUPED.format(n);
}

/**
 * The version a change claims to be made from (optimistic concurrency): absent (null: no check), a whole number, or
 * its digits. Anything else — "abc", 1.5, [1], true — is refused: read as "no version", it turned the stale check
 * off and the change went through unconditionally (probe, stop 24).
 */
/**
 * The field only a delete's confirm step ('Yes, delete it') sends: a screen delete (client, PA service, location,
 * insurer and its services, employee, role, intake assessment, BIP, note) posted without it (a mis-click's one-click
 * form) deletes nothing and answers that step (probe 8972).
 */
export const DELETE_CONFIRMED = { confirmed: "yes" } as const;

export const VERSION_MESSAGE = "Version is a whole number.";

export function parseVersion(raw: unknown): { ok: true; version: number | null } | { ok: false } {
  if (raw === undefined || raw === null || raw === "") return { ok: true, version: null };
  if (typeof raw === "number") return Number.isSafeInteger(raw) && raw >= 0 ? { ok: true, version: raw } : { ok: false };
  if (typeof raw === "string" && /^\s*\d{1,15}\s*$/.test(raw)) return { ok: true, version: Number(raw.trim()) };
  return { ok: false };
}

/** The same rule as a schema field (null when absent). */
export const versionField = v.pipe(
  v.optional(v.unknown(), null),
  v.check((x) => parseVersion(x).ok, VERSION_MESSAGE),
  v.transform((x) => (parseVersion(x) as { ok: true; version: number | null }).version),
);
