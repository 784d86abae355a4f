import * as v from "valibot";
import { parseWith, type Parsed } from "./validation";

/**
 * A list's filters (docs/decisions/017): the one rule of every list's record-id and status filters, on the screens and
 * in the API alike. A filter is empty (no filter) or a value it can take; anything else is refused with its field's
 * message, never dropped (a dropped filter answers a different list than the one asked for). Pure.
 */

export const FILTER_ID_MESSAGE = "Filters take a record id.";
export const FILTER_STATUS_MESSAGE = "Choose a status from the list.";

/** A list filter's record id: empty (no filter) or digits; anything else is told so (the union's own message). */
export const FilterId = v.optional(v.union([v.literal(""), v.pipe(v.string(), v.regex(/^\d{1,15}$/, FILTER_ID_MESSAGE), v.transform(Number))], FILTER_ID_MESSAGE), "");

/** A list's status filter: empty (any status) or one of `statuses`, spelt as the list spells them. */
export function filterStatus<const T extends readonly string[]>(statuses: T) {
  return v.optional(v.union([v.literal(""), v.picklist(statuses)], FILTER_STATUS_MESSAGE), "");
}

/**
 * A query parameter given twice with two different values, or one filter under both its names (`alias`): the API
 * never picks one of two silently.
 */
export function givenOnceMessage(name: string, alias?: string): string {
  return `Give ${name.slice(0, 40)} once${alias ? ` (${alias} is the same filter)` : ""}.`;
}

/** The filters a list takes, read from a query's parameters (others are the list query's or unknown, not ours). */
export function parseFilters<S extends v.ObjectSchema<v.ObjectEntries, v.ErrorMessage<v.ObjectIssue> | undefined>>(schema: S, raw: Record<string, unknown>): Parsed<v.InferOutput<S>> {
  const picked = Object.fromEntries(Object.entries(raw).filter(([k, x]) => k in schema.entries && x !== undefined));
  return parseWith(schema, picked);
}

/**
 * A query parameter a list does not take (not its paging, search, dates or cache, nor one of its filters) is refused
 * with this message at its name, never ignored: an ignored filter answers a list that looks filtered but is not
 * (decision 017, 2026-11-29).
 */
export function unknownFilterMessage(name: string): string {
  return `This list cannot be filtered by ${name.slice(0, 40)}.`;
}

/** The parameters of `raw` that are not in `taken`, each with its message; null when every one is taken. Pure. */
export function unknownFilters(raw: Record<string, unknown>, taken: Iterable<string>): Record<string, string> | null {
  const known = new Set(taken);
  const unknown = Object.keys(raw).filter((k) => !known.has(k));
  return unknown.length ? Object.fromEntries(unknown.map((k) => [k.slice(0, 40), unknownFilterMessage(k)])) : null;
}

/** A list's true/false filter (`billed`): empty (either) or true/false (1/0). */
export const FILTER_FLAG_MESSAGE = "Choose true or false.";
export const FilterFlag = v.optional(
  v.union([v.literal(""), v.pipe(v.picklist(["true", "false", "1", "0"]), v.transform((x) => x === "true" || x === "1"))], FILTER_FLAG_MESSAGE),
  "",
);
