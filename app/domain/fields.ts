import * as v from "valibot";
import { groupDigits, hasAtMostDecimals, isDecimalText, isPlainText, MAX_AMOUNT, MAX_MONEY, oneLine, plainText } from "./validation";
import { isValidNpi, NPI_MESSAGE } from "./npi";
import { isProductDate } from "./weeks";

/** Field rules shared by every resource schema (forms and API alike). Pure. */

export const MESSAGES = {
  required: (label: string) => `${label} is required.`,
  /** A text field sent as a number, a list, an object or true/false (the API): it was given, so not "required". */
  text: (label: string) => `${label} must be text.`,
  email: "Enter a valid email address.",
  phone: "Enter a valid phone number (digits, spaces, +, -, parentheses; 7 to 20 characters).",
  date: "Enter a valid date (YYYY-MM-DD).",
  zip: "Enter a valid ZIP code (12345 or 12345-6789).",
  tooLong: (label: string, max: number) => `${label} must be at most ${max} characters.`,
  endAfterStart: "The end date must be after the start date.",
  /** Where a one-day period is valid (a one-day authorization, issue 11). */
  endNotBeforeStart: "The end date cannot be before the start date.",
  /** Clients, parents and employees alike (each with its own list). */
  gender: "Choose a gender from the list.",
  flag: "Choose yes or no.",
  /**
   * A date of something that has happened after today (at the location, else UTC): birth dates of clients and parents
   * (decision 017, stop 33), an intake's observation and prior-service dates (decision 011, stop 35).
   */
  futureDate: (label: string) => `${label} cannot be in the future.`,
} as const;

/**
 * A text field's message for a value that is not text: "… is required." (or `required`) when there is none (left out
 * or null), "… must be text." when one was sent as another kind (`{"first_name": 123}`, `["a"]`, `{}`), as a number
 * field says "… must be a number." (decision 017, stop 40).
 */
export function notTextMessage(label: string, required = MESSAGES.required(label)) {
  return (issue: v.BaseIssue<unknown>) => (issue.input === undefined || issue.input === null ? required : MESSAGES.text(label));
}

/** Whether a date (YYYY-MM-DD, or none) is after `today`: refused with MESSAGES.futureDate when a save sets it. */
export function isFutureDate(date: unknown, today: string): boolean {
  return typeof date === "string" && date > today;
}

/** A form sends "" for an empty field; the API may send null or leave it out. All mean "no value". */
const trimToNull = v.transform((x: string | null): string | null => {
  const t = typeof x === "string" ? x.trim() : x;
  return t === "" ? null : t;
});
/**
 * A number as a form or the API sends it: a finite JSON number, or plain decimal text (`isDecimalText`: digits with
 * an optional sign and fraction, surrounding spaces trimmed); null, "" or only spaces mean none. Anything else is
 * NaN, which each field refuses with its own "… must be a number." — `Number()` alone read "   " as 0, "0x10" as 16
 * and "1e3" as 1000 (probe 8913, decision 017).
 */
export function numberOrNull(x: string | number | null): number | null {
  if (typeof x === "number") return Number.isFinite(x) ? x : Number.NaN;
  if (x === null || x.trim() === "") return null;
  return isDecimalText(x) ? Number(x.trim()) : Number.NaN;
}
const toNumberOrNull = v.transform(numberOrNull);

/** numberOrNull for a value that must be given: none (blank) is NaN too, so the field's own check refuses it. */
export function numberOrNaN(x: string | number | null): number {
  return numberOrNull(x) ?? Number.NaN;
}

/**
 * Characters that print nothing: format characters (zero-width space and joiners, word joiner, soft hyphen, BOM —
 * Unicode's Cf), separators and spaces, and the blank letters (Hangul fillers, the braille blank). A required text
 * made of these alone looks empty wherever it is shown, so it is refused as empty (probe, stop 24).
 */
const INVISIBLE = /[\p{Cf}\p{Z}\s\u115F\u1160\u3164\uFFA0\u2800]/gu;

export function hasVisibleText(s: string): boolean {
  return visibleLength(s) > 0;
}

/** How many characters of `s` print something (a typed signature's name needs two: decision 040). */
export function visibleLength(s: string): number {
  return [...s.replace(INVISIBLE, "")].length;
}

export function requiredText(label: string, max = 255) {
  return v.pipe(
    v.string(notTextMessage(label)),
    v.trim(),
    v.nonEmpty(MESSAGES.required(label)),
    v.check(hasVisibleText, MESSAGES.required(label)),
    v.maxLength(max, MESSAGES.tooLong(label, max)),
    plainText(label),
  );
}

export function optionalText(label: string, max = 255) {
  return v.pipe(
    v.optional(v.nullable(v.string(MESSAGES.text(label))), null),
    trimToNull,
    v.nullable(v.pipe(v.string(), v.maxLength(max, MESSAGES.tooLong(label, max)), plainText(label))),
  );
}

/**
 * Text a screen shows in a single-line <input> (names, titles, subjects, addresses, cities, identifiers): the text
 * rules above, and no line break ("Keep first name on one line."). The API refuses one as the form cannot hold it:
 * the browser would drop it and the next save store the value changed (probe 8921 #3, decision 017). Textareas keep
 * requiredText/optionalText.
 */
export function requiredLine(label: string, max = 255) {
  return v.pipe(requiredText(label, max), oneLine<string>(label));
}

export function optionalLine(label: string, max = 255) {
  return v.pipe(optionalText(label, max), oneLine<string | null>(label));
}

/**
 * Digits only (spaces and dashes typed by people are dropped), exactly `length` of them, then an optional check.
 * `stored`: an edit's stored value that today's rule refuses (stored before it was checked); sent back as it is
 * (trimmed), it passes and is kept as stored, so the record stays editable (decision 017, "a stored value kept as it
 * is passes"); a new or changed value must pass.
 */
export function optionalDigits(message: string, length: number, check: (s: string) => boolean = () => true, stored: unknown = null) {
  const digits = (x: string | null) => {
    const d = (x ?? "").replace(/[\s-]/g, "");
    return d === "" ? null : d;
  };
  const passes = (s: string) => new RegExp(`^\\d{${length}}$`).test(s) && check(s);
  const storedText = typeof stored === "string" ? stored.trim() : "";
  const kept = storedText !== "" && !passes(digits(storedText) ?? "") ? storedText : null;
  return v.pipe(
    v.optional(v.nullable(v.string(message)), null),
    v.transform((x: string | null) => (kept !== null && x?.trim() === kept ? kept : digits(x))),
    v.nullable(v.pipe(v.string(), v.check((s) => s === kept || passes(s), message))),
  );
}

/**
 * An NPI as a claim carries it (10 digits, the last a check digit): the location's, the employee's (probe 8974 §4)
 * and the client's own and referring provider's (probe 9041 §2). `stored`: see optionalDigits.
 */
export const npiField = (stored: unknown = null) => optionalDigits(NPI_MESSAGE, 10, isValidNpi, stored);
export const optionalNpi = npiField();

function optionalPattern(pattern: RegExp, message: string, max = 254) {
  return v.pipe(
    v.optional(v.nullable(v.string()), null),
    trimToNull,
    v.nullable(v.pipe(v.string(), v.maxLength(max, message), v.regex(pattern, message), v.check(isPlainText, message))),
  );
}

/**
 * An email address a mail server could deliver to, and the one rule for every email the product stores or signs in
 * with (sign-in, parents, staff, clients, locations): a dot-atom local part, then labels of letters, digits and inner
 * hyphens ending in a top-level domain of letters ("a@b.c\\x", "a@b..c" and "x@1.2" are refused). Saving an address
 * that sign-in would refuse locked that person out (probe 8925 §2).
 */
export const EMAIL_PATTERN = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

export const optionalEmail = optionalPattern(EMAIL_PATTERN, MESSAGES.email);

/** A required email (a person's sign-in name), stored in lower case. */
export const requiredEmail = v.pipe(
  v.string(notTextMessage("Email")),
  v.trim(),
  v.nonEmpty(MESSAGES.required("Email")),
  v.maxLength(254, MESSAGES.email),
  v.regex(EMAIL_PATTERN, MESSAGES.email),
  v.toLowerCase(),
);
export const optionalPhone = optionalPattern(/^\+?[0-9 ()\-.]{7,20}$/, MESSAGES.phone, 20);
export const optionalZip = optionalPattern(/^\d{5}(-\d{4})?$/, MESSAGES.zip, 10);

export const optionalDate = v.pipe(
  v.optional(v.nullable(v.string()), null),
  trimToNull,
  v.nullable(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, MESSAGES.date), v.check(isProductDate, MESSAGES.date))),
);

export function requiredDate(label: string) {
  return v.pipe(v.string(notTextMessage(label)), v.nonEmpty(MESSAGES.required(label)), v.regex(/^\d{4}-\d{2}-\d{2}$/, MESSAGES.date), v.check(isProductDate, MESSAGES.date));
}

/** One of the listed values; "" from a form means none. */
export function optionalChoice<const T extends readonly string[]>(values: T, message: string) {
  return v.pipe(v.optional(v.nullable(v.string()), null), trimToNull, v.nullable(v.picklist(values, message)));
}

/**
 * A required picklist field that a create may leave out: a missing key takes `fallback` (`tidy` adjusts a sent
 * value, e.g. upper case). An explicit null, "" or blank is refused with `message`, like an unlisted value: it
 * took the fallback too, so a PATCH silently reset the stored value (probe 8913: a mastered objective became
 * "not started", an inactive client active).
 */
export function choiceOr<const T extends readonly string[]>(values: T, fallback: T[number], message: string, tidy: (s: string) => string = (s) => s) {
  return v.pipe(v.optional(v.string(message), fallback), v.transform((x) => tidy(x.trim())), v.picklist(values, message));
}

/** A whole number ≥ min (and ≤ max, a million unless told), from a form string or a JSON number; "" means none. */
export function optionalInt(label: string, min = 0, max = MAX_AMOUNT) {
  return v.pipe(
    v.optional(v.nullable(v.union([v.string(), v.number()])), null),
    toNumberOrNull,
    v.nullable(v.pipe(v.number(`${label} must be a number.`), v.integer(`${label} must be a whole number.`), v.minValue(min, `${label} must be ${min} or more.`), v.maxValue(max, `${label} is too large.`))),
  );
}

export function requiredInt(label: string, min = 0, max = MAX_AMOUNT) {
  return v.pipe(
    v.union([v.string(MESSAGES.required(label)), v.number(MESSAGES.required(label))], MESSAGES.required(label)),
    v.check((x) => numberOrNull(x) !== null, MESSAGES.required(label)),
    v.transform((x) => numberOrNull(x) ?? Number.NaN),
    v.number(`${label} must be a number.`),
    v.integer(`${label} must be a whole number.`),
    v.minValue(min, `${label} must be ${min} or more.`),
    v.maxValue(max, `${label} is too large.`),
  );
}

const grouped = groupDigits;

/** A number (decimals allowed) from min to max (a million unless told); "" means none. */
export function optionalNumber(label: string, min = 0, max = MAX_AMOUNT) {
  return v.pipe(
    v.optional(v.nullable(v.union([v.string(), v.number()])), null),
    toNumberOrNull,
    v.nullable(
      v.pipe(
        v.number(`${label} must be a number.`),
        v.minValue(min, `${label} must be ${min} or more.`),
        v.maxValue(max, `${label} must be at most ${grouped(max)}.`),
      ),
    ),
  );
}

/** Money (rates, pay, prices, fees): 0 to 1,000,000.00 in whole cents; "" means none. */
export function optionalMoney(label: string) {
  return v.pipe(
    optionalNumber(label, 0, MAX_MONEY),
    v.check((n) => n === null || hasAtMostDecimals(n, 2), `${label} takes at most 2 decimals (whole cents).`),
  );
}

/** An id of another record, from a select ("" = none). */
export const optionalId = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()])), null),
  toNumberOrNull,
  v.nullable(v.pipe(v.number("Choose a valid option."), v.integer("Choose a valid option."), v.minValue(1, "Choose a valid option."))),
);

const YES = new Set(["true", "1", "on", "yes"]);
const NO = new Set(["false", "0", "off", "no", ""]);

/**
 * A checkbox or JSON boolean: true/false, 1/0, or "true"/"false", "1"/"0", "on"/"off", "yes"/"no" in any case;
 * "", null and a missing key are false. Anything else ("y", 2, "NaN") is refused: it was read as false (probe 8913).
 */
export const flag = v.pipe(
  v.optional(v.nullable(v.union([v.boolean(), v.string(), v.number()], MESSAGES.flag)), false),
  v.check((x) => x === null || typeof x === "boolean" || x === 0 || x === 1 || (typeof x === "string" && (YES.has(x.trim().toLowerCase()) || NO.has(x.trim().toLowerCase()))), MESSAGES.flag),
  v.transform((x) => x === true || x === 1 || (typeof x === "string" && YES.has(x.trim().toLowerCase()))),
);

/** Values of a multi-select or checkbox group: a form repeats the name, the API sends an array or a comma list. */
export function choiceList<const T extends readonly string[]>(values: T, message: string) {
  return v.pipe(
    v.optional(v.nullable(v.union([v.array(v.string()), v.string()])), []),
    v.transform((x) => (x === null ? [] : Array.isArray(x) ? x : x.split(",")).map((s) => s.trim()).filter(Boolean)),
    v.array(v.picklist(values, message)),
    v.transform((xs) => values.filter((val) => xs.includes(val))),
  );
}

/**
 * The USPS state and territory codes an 837P address takes (N402): the 50 states, DC, PR, GU, VI, AS and MP.
 * One state rule for every address a claim reads (location, client, insurer; decision 017, stop 36).
 */
export const US_STATE_CODES = [
  "AL", "AK", "AZ", "AR", "CA", "CO", "CT", "DE", "FL", "GA", "HI", "ID", "IL", "IN", "IA", "KS", "KY", "LA", "ME", "MD", "MA", "MI", "MN", "MS", "MO",
  "MT", "NE", "NV", "NH", "NJ", "NM", "NY", "NC", "ND", "OH", "OK", "OR", "PA", "RI", "SC", "SD", "TN", "TX", "UT", "VT", "VA", "WA", "WV", "WI", "WY",
  "DC", "PR", "GU", "VI", "AS", "MP",
] as const;
const STATE_CODES: ReadonlySet<string> = new Set(US_STATE_CODES);
export const STATE_MESSAGE = "Enter the 2-letter state code (for example FL).";

/** Whether a typed state is one of US_STATE_CODES in any letter case, once trimmed. */
export function isStateCode(s: string): boolean {
  return STATE_CODES.has(s.trim().toUpperCase());
}

/**
 * An optional state field, stored in upper case. `stored`: the record's stored value, which passes when sent back as it
 * is (in any letter case) although the rule refuses it (saved before it); a new or changed value must be a code.
 */
export function optionalState(label: string, stored: unknown = null) {
  const kept = (s: string) => typeof stored === "string" && s.toUpperCase() === stored.trim().toUpperCase();
  return v.pipe(
    optionalLine(label, 50),
    v.check((x: string | null) => x === null || isStateCode(x) || kept(x), STATE_MESSAGE),
    v.transform((x: string | null) => (x !== null && isStateCode(x) ? x.toUpperCase() : x)),
  );
}

/** Two dates where the end must come after the start. */
export function endAfterStart<T extends { start: string | null; end: string | null }>(pick: (x: Record<string, unknown>) => T) {
  return (x: Record<string, unknown>) => {
    const { start, end } = pick(x);
    return !start || !end || end > start;
  };
}

/**
 * A diagnosis code as typed for a claim: letters, digits and dots, at most 10 (F84.0), upper case. One rule for the
 * principal code and each secondary code (probe 8974 §3): a separator (* ~ : ^) or a space is refused at entry, and
 * so is a code of dots alone (probe 8975 §1: a claim reads it as no code). The note's own code follows it too.
 */
export const DIAGNOSIS_CODE = /^(?=[A-Z0-9.]*[A-Z0-9])[A-Z0-9.]{1,10}$/;
export const DIAGNOSIS_CODE_MESSAGE = "Diagnosis codes are letters, digits and dots (for example F84.0).";

/** An optional diagnosis code field (the client's principal code, a note's code): trimmed, upper case, DIAGNOSIS_CODE. */
export const optionalDiagnosisCode = (label: string, max: number) =>
  v.pipe(
    optionalLine(label, max),
    v.transform((x) => (x === null ? null : x.toUpperCase())),
    v.nullable(v.pipe(v.string(), v.regex(DIAGNOSIS_CODE, DIAGNOSIS_CODE_MESSAGE))),
  );
