import * as v from "valibot";
import { flag } from "./fields";
import { groupDigits, searchText } from "./validation";
import { isProductDate } from "./weeks";

/** The v2 list query (platform §7): per_page, page, search, date_from, date_to, cache. Pure. */

export const DEFAULT_PER_PAGE = 25;
export const MAX_PER_PAGE = 100;

/** The one message of a list's date filter that is not a real yyyy-mm-dd date (date_from, date_start, …). */
export const DATE_MESSAGE = "Dates must be real dates like 2026-01-31.";
export const IsoDate = v.pipe(v.string(DATE_MESSAGE), v.regex(/^\d{4}-\d{2}-\d{2}$/, DATE_MESSAGE), v.check(isProductDate, DATE_MESSAGE));
/** The highest page a list's address may ask for. */
export const MAX_PAGE = 1_000_000;

/**
 * A list's page or page size from its address (or a JSON number), named as the list names it: the one paging rule
 * of every list, the reports' too (decision 038). Absent or empty is `fallback`.
 */
export const PositiveInt = (name: string, max: number, fallback: number) =>
  v.pipe(
    v.optional(v.union([v.string(), v.number()]), String(fallback)),
    // Digits only, with a sign: "1e3", "0x10", " 5" and "5.0" are not page numbers (Number() would take them); "-1" is
    // a whole number, told it must be at least 1 as "0" is.
    v.check((x) => typeof x === "number" || /^(-?\d+)?$/.test(x), `${name} must be a whole number.`),
    v.transform((x) => (x === "" ? fallback : Number(x))),
    v.number(`${name} must be a number.`),
    v.integer(`${name} must be a whole number.`),
    v.minValue(1, `${name} must be at least 1.`),
    v.maxValue(max, `${name} must be at most ${max}.`),
  );

export function listQuerySchema(maxPerPage = MAX_PER_PAGE, defaultPerPage = DEFAULT_PER_PAGE) {
  return v.pipe(
    v.object({
      per_page: PositiveInt("per_page", maxPerPage, defaultPerPage),
      page: PositiveInt("page", MAX_PAGE, 1),
      search: v.optional(searchText(), ""),
      date_from: v.optional(v.union([v.literal(""), IsoDate]), ""),
      date_to: v.optional(v.union([v.literal(""), IsoDate]), ""),
      cache: flag,
    }),
    v.forward(
      v.check((q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, "date_to must be on or after date_from."),
      ["date_to"],
    ),
  );
}

export const ListQuery = listQuerySchema();
/** The parameters of a list's address the list query reads. */
export const LIST_QUERY_KEYS: readonly string[] = Object.keys(ListQuery.pipe[0].entries);
export type ListQuery = v.InferOutput<typeof ListQuery>;

export interface Paged<T> {
  data: T[];
  total: number;
  page: number;
  per_page: number;
  last_page: number;
  /**
   * Set (true) when the list stopped counting (decision 035: the notes lists count at most 10,000 rows
   * past the page): there are MORE than `total` records, and `last_page` is the last page known to exist.
   */
  total_is_lower_bound?: true;
}

export function lastPage(total: number, perPage: number): number {
  return Math.max(1, Math.ceil(total / perPage));
}

export function paged<T>(data: T[], total: number, query: Pick<ListQuery, "page" | "per_page">): Paged<T> {
  return { data, total, page: query.page, per_page: query.per_page, last_page: lastPage(total, query.per_page) };
}

/**
 * A page whose total was counted up to `limit` (a capped count read `counted` ≤ limit + 1 rows): when more
 * than `limit` matched, the total is the lower bound `limit` and there is at least one page after it.
 */
export function pagedAtLeast<T>(data: T[], counted: number, limit: number, query: Pick<ListQuery, "page" | "per_page">): Paged<T> {
  if (counted <= limit) return paged(data, counted, query);
  return { data, total: limit, page: query.page, per_page: query.per_page, last_page: lastPage(limit + 1, query.per_page), total_is_lower_bound: true };
}

/** How far a capped count must read for this page: `cap` rows, or up to the end of the page asked for. */
export function countLimit(cap: number, query: Pick<ListQuery, "page" | "per_page">): number {
  return Math.max(cap, query.page * query.per_page);
}

export function offset(query: Pick<ListQuery, "page" | "per_page">): number {
  return (query.page - 1) * query.per_page;
}

/**
 * 'Showing x to y of n entries' (clinical §2). A page past the last one (an old bookmark, a list that shrank)
 * is answered empty with the page asked for, as every list does: "Showing 0 to 0 of n entries", never a first
 * row after the last.
 */
export function showingText(p: Pick<Paged<unknown>, "page" | "per_page" | "total" | "total_is_lower_bound">): string {
  const from = (p.page - 1) * p.per_page + 1;
  if (p.total === 0 || (from > p.total && !p.total_is_lower_bound)) return `Showing 0 to 0 of ${p.total} entries`;
  // A capped count (decision 035): "of 10,000+ entries".
  if (p.total_is_lower_bound) return `Showing ${from} to ${p.page * p.per_page} of ${groupDigits(p.total)}+ entries`;
  return `Showing ${from} to ${Math.min(p.total, p.page * p.per_page)} of ${p.total} entries`;
}

/**
 * What a list says on a page past the last one (an old bookmark, a list that shrank, a hand-typed page): which
 * page is the last, so the screen can link to it. Null on a page that exists, and when the count stopped early
 * (decision 035: the last page known is not the last one).
 */
export function pastEndText(p: Pick<Paged<unknown>, "page" | "last_page" | "total_is_lower_bound">): string | null {
  if (p.total_is_lower_bound || p.page <= p.last_page) return null;
  return `There is no page ${p.page}: the last page is ${p.last_page}.`;
}

/**
 * What a page list's count line says: "Showing 21 to 40 of 408 entries"; on a page past the last one (pastEndText),
 * where no entry is shown, the list's size and its pages instead ("408 entries on 17 pages"), never a range
 * "Showing 0 to 0 of 408 entries" that reads as an empty list (decision 028, 2026-11-28). The API's `showing` keeps
 * showingText.
 */
export function countLineText(p: Pick<Paged<unknown>, "page" | "per_page" | "total" | "last_page" | "total_is_lower_bound">): string {
  if (pastEndText(p) === null) return showingText(p);
  return `${groupDigits(p.total)} ${p.total === 1 ? "entry" : "entries"} on ${p.last_page} ${p.last_page === 1 ? "page" : "pages"}`;
}

/**
 * The pagination's links: Previous, the window of page numbers, Next (null or empty when there is none). One
 * page, on it: no links. Past the last page: the window ends at the last page and Previous leads to it, so
 * there is always a way back to page 1.
 */
export function pageLinks(page: number, last: number, size = 5): { previous: number | null; numbers: number[]; next: number | null } {
  if (last <= 1 && page <= 1) return { previous: null, numbers: [], next: null };
  return { previous: page > 1 ? Math.min(page - 1, last) : null, numbers: pageWindow(page, last, size), next: page < last ? page + 1 : null };
}

/** A window of at most `size` page numbers around the current page (clinical §9: 5). */
export function pageWindow(page: number, last: number, size = 5): number[] {
  const start = Math.max(1, Math.min(page - Math.floor(size / 2), last - size + 1));
  return Array.from({ length: Math.min(size, last) }, (_, i) => start + i);
}
