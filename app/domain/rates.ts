import * as v from "valibot";
import { MESSAGES, numberOrNull, optionalMoney, requiredLine } from "./fields";
import { isProductDate } from "./weeks";
import { oneLine, plainObject, plainText, readableText } from "./validation";

/** Rate/pay records (platform §3): a name, a location, amounts for rbt, bcba, manager and client, info lists. Pure. */

export const RATE_ROLES = ["rbt", "bcba", "manager"] as const;
export type RateInfo = Record<(typeof RATE_ROLES)[number], string[]>;

/** An info list: the edit screen shows one item per line, so an item cannot hold a line break (probe 8924 #4). */
const infoList = (label: string) =>
  v.pipe(
    v.optional(v.nullable(v.union([v.array(v.string(`${label} info must be a list of text.`)), v.string()], `${label} info must be a list of text.`)), []),
    v.transform((x) => (x === null ? [] : Array.isArray(x) ? x : x.split("\n")).map((s) => s.trim()).filter(Boolean)),
    v.maxLength(50, `${label} info takes at most 50 lines.`),
    v.check((xs) => xs.every((s) => s.length <= 255), `${label} info lines must be at most 255 characters.`),
    v.array(v.pipe(v.string(), plainText(`${label} info`), oneLine<string>(`${label} info`))),
  );

export const RateInfoInput = v.pipe(
  v.optional(v.nullable(plainObject(v.object({ rbt: infoList("RBT"), bcba: infoList("BCBA"), manager: infoList("Manager") }, "Info must be an object with rbt, bcba and manager lists."))), {}),
  v.transform((x): RateInfo => x ?? { rbt: [], bcba: [], manager: [] }),
);

export const RateRecordInput = v.object({
  name: requiredLine("Name", 120),
  location_id: v.pipe(
    v.optional(v.nullable(v.union([v.string(), v.number()])), null),
    v.transform(numberOrNull),
    v.check((x) => x !== null, "Location is required."),
    v.transform((x) => x as number),
    v.integer("Choose a valid option."),
    v.minValue(1, "Choose a valid option."),
  ),
  rbt: optionalMoney("RBT amount"),
  bcba: optionalMoney("BCBA amount"),
  manager: optionalMoney("Manager amount"),
  client: optionalMoney("Client amount"),
  info: RateInfoInput,
});
export type RateRecordInput = v.InferOutput<typeof RateRecordInput>;

/**
 * Reads stored info JSON, tolerating anything malformed as empty lists. An entry stored before the one-line rule
 * (a line break) is read made readable (readableText: the break as a space), so the edit screen shows it on one
 * line and the next save keeps it one entry (probe 8925 §4).
 */
export function parseRateInfo(stored: string | null | undefined): RateInfo {
  try {
    const x = JSON.parse(stored ?? "{}") as Partial<Record<string, unknown>>;
    const list = (k: string) => (Array.isArray(x[k]) ? (x[k] as unknown[]).filter((s): s is string => typeof s === "string").map(readableText) : []);
    return { rbt: list("rbt"), bcba: list("bcba"), manager: list("manager") };
  } catch {
    return { rbt: [], bcba: [], manager: [] };
  }
}

/* ---------------------------------------------------------------- amounts over time (decision 039, stop 40) */

export const RATE_AMOUNT_KEYS = ["rbt", "bcba", "manager", "client"] as const;
export type RateAmounts = Record<(typeof RATE_AMOUNT_KEYS)[number], number | null>;

/** The date an amount change applies from ("" or left out: today at the record's location). */
export const EffectiveFromInput = v.object({
  effective_from: v.pipe(
    v.optional(v.nullable(v.string(MESSAGES.date)), null),
    v.transform((x) => (x === null ? null : x.trim() || null)),
    v.nullable(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, MESSAGES.date), v.check(isProductDate, MESSAGES.date))),
  ),
});

/** Whether a save changes any of the four amounts (a name or info change alone keeps the history as it is). */
export function amountsChanged(before: RateAmounts, after: RateAmounts): boolean {
  return RATE_AMOUNT_KEYS.some((k) => amountCents(before[k]) !== amountCents(after[k]));
}

/** An amount as stored on the record (dollars, 2 decimals) as the history's integer cents. */
export function amountCents(dollars: number | null): number | null {
  return dollars === null ? null : Math.round(dollars * 100);
}

/**
 * Why an amount change cannot apply from `date` (null: it can). Not after today at the record's location (the
 * record's amounts are those in effect today), and not before the latest change already recorded (`latest`): the
 * history only grows forward, and a change on the latest change's date replaces that change.
 */
export function effectiveFromRefusal(date: string, today: string, latest: string | null): string | null {
  if (date > today) return `Effective from cannot be after today (${today}).`;
  if (latest !== null && date < latest) return `Effective from cannot be before ${latest}, the date of the last amount change.`;
  return null;
}

/** The earliest date (before any session): amounts that apply from the start (migration 0040's backfill). */
export const FROM_THE_START = "0001-01-01";
