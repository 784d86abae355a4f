import * as v from "valibot";
import { givenOnceMessage } from "~/domain/list-filters";
import { LIST_QUERY_KEYS, ListQuery } from "~/domain/paging";
import { isReferenceRefusal } from "~/domain/references";
import { DELETE_CONFIRMED, parseVersion, parseWith, VERSION_MESSAGE } from "~/domain/validation";
import type { AppLoadContext } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import type { Actor } from "~/domain/permissions";
import type { ModelContext } from "~/models/context";
import { invalid, NOTHING_CHANGED_NOTICE, unchangedRecord, type ModelResult } from "~/models/results";
import { notFound } from "./guard.server";

/** Glue between Remix route modules and model use cases. */

export function modelContextFor(context: AppLoadContext, actor: Actor): ModelContext {
  return { db: context.app.db, actor, ip: context.app.ip, now: context.app.now };
}

/** The action data a form re-renders with after bad input. */
export interface FormAnswer {
  errors: Record<string, string>;
  message: string | null;
  values: Record<string, string | string[]>;
  current?: unknown;
}

/** A form's fields with repeated names (checkbox groups) kept as lists. */
export function formValues(form: FormData): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(form.keys())) {
    const all = form.getAll(key).filter((x): x is string => typeof x === "string");
    out[key] = all.length > 1 ? all : (all[0] ?? "");
  }
  return out;
}

/**
 * Success → redirect (POST → 303 → GET) with a flash in the query, setting `cookies` (a fresh session, say);
 * 404 → thrown; 4xx → re-render data with the field errors and the typed values.
 */
export function formResult<T>(result: ModelResult<T>, values: Record<string, string | string[]>, onSuccess: (data: T) => string, cookies: readonly string[] = []) {
  const flashTo = (to: string, message: string) => redirect(`${to}${to.includes("?") ? "&" : "?"}flash=${encodeURIComponent(message)}`, { status: 303, headers: cookies.map((c): [string, string] => ["Set-Cookie", c]) });
  if (result.ok) return flashTo(onSuccess(result.data), result.message ?? "Saved.");
  // A form saved without an edit (decision 017, stop 44): where the save would have gone, "Nothing to change.", as a
  // success says it; nothing was written and the version stays. The record is the one the update read.
  const unchanged = unchangedRecord(result);
  if (unchanged) return flashTo(onSuccess(unchanged.stored as T), NOTHING_CHANGED_NOTICE);
  if (result.status === 404) throw notFound(result.message);
  const answer: FormAnswer = {
    errors: result.status === 422 ? result.errors : {},
    message: result.message,
    values,
    current: result.status === 409 ? result.current : undefined,
  };
  return data(answer, { status: result.status });
}

/**
 * A create posted to the address of its parent record (`/bip/goal/:planId`, `/patients/consents/:patientId`): the
 * model answers the parent as a body reference (422 at `field` when the actor cannot see it, decision 017), but on
 * the screen the parent is the address's record, so that answer is the address's 404 page (`notFoundMessage`).
 */
export function parentInAddress<T>(result: ModelResult<T>, field: string, notFoundMessage: string): ModelResult<T> {
  if (!result.ok && result.status === 422 && isReferenceRefusal(result.errors[field])) throw notFound(notFoundMessage);
  return result;
}

/**
 * A list screen's query from its URL (filters named in `filters` are left to the screen). A hand-edited
 * query that does not parse falls back to the first page of everything, with a note to show. A parameter the list
 * reads given twice with two values (`?page=2&page=1`) is not read at all: the screen never picks one of two, as the
 * API does not (refuseRepeatedQuery, decision 017). It is told "Give page once."; a list query parameter falls back
 * to the first page as a bad one does, and a repeated filter leaves every filter out of `params` (the list without
 * the filters, as for a filter value that does not parse).
 */
export function listQueryFrom(request: Request, filters: readonly string[] = []): { query: ListQuery; queryError: string | null; params: Record<string, string> } {
  const search = new URL(request.url).searchParams;
  const params = Object.fromEntries(search);
  const twice = (keys: readonly string[]) => keys.find((k) => new Set(search.getAll(k)).size > 1);
  const queryTwice = twice(LIST_QUERY_KEYS.filter((k) => !filters.includes(k)));
  const filterTwice = twice(filters);
  const kept = filterTwice === undefined ? params : Object.fromEntries(Object.entries(params).filter(([k]) => !filters.includes(k)));
  const repeated = queryTwice ?? filterTwice;
  if (queryTwice !== undefined) return { query: v.parse(ListQuery, {}), queryError: givenOnceMessage(queryTwice), params: kept };
  const parsed = parseWith(ListQuery, Object.fromEntries(Object.entries(params).filter(([k]) => !filters.includes(k))));
  if (!parsed.ok) return { query: v.parse(ListQuery, {}), queryError: Object.values(parsed.errors)[0]!, params: kept };
  return { query: parsed.data, queryError: repeated === undefined ? null : givenOnceMessage(repeated), params: kept };
}

/**
 * The record version a form posted back (hidden `version`) to show again: null when absent or malformed (the
 * screen then shows the stored one). A save reads it with `withFormVersion`.
 */
export function formVersion(raw: unknown): number | null {
  const parsed = parseVersion(raw);
  return parsed.ok ? parsed.version : null;
}

/**
 * A save made from the version a form posted back (hidden `version`), read by the API's rule (`parseVersion`):
 * absent is null (no stale check); a whole number is the version edited ("0" is a stale one); anything else
 * answers 422 at `version` and saves nothing. Read as "no version", it turned the stale check off (probe 8892).
 */
export async function withFormVersion<T>(raw: unknown, save: (version: number | null) => Promise<ModelResult<T>>): Promise<ModelResult<T>> {
  const parsed = parseVersion(raw);
  return parsed.ok ? save(parsed.version) : invalid({ version: VERSION_MESSAGE });
}

/** A delete posted without its confirm step's field (DELETE_CONFIRMED): the answer is that step, `confirmAt`; nothing is deleted. */
export function requireDeleteConfirmed(values: Record<string, string | string[]>, confirmAt: string): void {
  if (values.confirmed !== DELETE_CONFIRMED.confirmed) throw redirect(confirmAt, 303);
}
