import { describe, expect, it } from "vitest";
import { countLineText, lastPage, ListQuery, pageLinks, pageWindow, pastEndText, showingText } from "~/domain/paging";
import { parseWith } from "~/domain/validation";

/**
 * 'Showing x to y of n entries' (clinical §2) and the page links, on every page — including a page past the
 * last one (an old bookmark, a list that shrank): the lists keep the page asked for and answer it empty, so the
 * text must not count rows that are not there, and the links must lead back.
 */
describe("showingText never shows a row that is not on the page", () => {
  it.each([
    // page, per page, total → text
    [1, 50, 0, "Showing 0 to 0 of 0 entries"],
    [1, 50, 4, "Showing 1 to 4 of 4 entries"],
    [1, 50, 50, "Showing 1 to 50 of 50 entries"],
    [2, 50, 51, "Showing 51 to 51 of 51 entries"],
    [2, 50, 100, "Showing 51 to 100 of 100 entries"],
    [3, 50, 100, "Showing 0 to 0 of 100 entries"], // the page after the last
    [9, 50, 4, "Showing 0 to 0 of 4 entries"], // was "Showing 401 to 4 of 4 entries"
    [9, 50, 0, "Showing 0 to 0 of 0 entries"],
    [2, 25, 1_000, "Showing 26 to 50 of 1000 entries"],
  ])("page %i of %i a page, %i rows: %s", (page, per_page, total, text) => {
    expect(showingText({ page, per_page, total })).toBe(text);
  });
});

describe("pastEndText names the last page on a page past it (probe 8922 §7)", () => {
  it.each([
    // page, last page, count stopped early → text
    [1, 1, false, null],
    [8, 8, false, null],
    [9, 8, false, "There is no page 9: the last page is 8."],
    [999, 8, false, "There is no page 999: the last page is 8."],
    [2, 1, false, "There is no page 2: the last page is 1."], // an empty list has one (empty) page
    [999, 401, true, null], // a capped count (decision 035): more pages may exist
  ] as const)("page %i of %i (capped %s): %j", (page, last_page, capped, text) => {
    expect(pastEndText({ page, last_page, ...(capped ? { total_is_lower_bound: true as const } : {}) })).toBe(text);
  });
});

describe("countLineText: a list's count line, which past the last page gives the list's size, not an empty range (decision 028, 2026-11-28)", () => {
  it.each([
    // page, per page, total → text
    [1, 25, 408, "Showing 1 to 25 of 408 entries"],
    [17, 25, 408, "Showing 401 to 408 of 408 entries"],
    [18, 25, 408, "408 entries on 17 pages"], // the probe's "Showing 0 to 0 of 408 entries"
    [999, 25, 408, "408 entries on 17 pages"],
    [2, 25, 1, "1 entry on 1 page"],
    [1, 25, 0, "Showing 0 to 0 of 0 entries"], // an empty list's one page exists
    [2, 25, 0, "0 entries on 1 page"],
    [600, 25, 12_345, "12,345 entries on 494 pages"],
  ])("page %i of %i a page, %i rows: %s", (page, per_page, total, text) => {
    expect(countLineText({ page, per_page, total, last_page: lastPage(total, per_page) })).toBe(text);
  });

  it("a capped count (decision 035) keeps its range: more pages may exist", () => {
    expect(countLineText({ page: 500, per_page: 25, total: 10_000, last_page: 401, total_is_lower_bound: true })).toBe("Showing 12476 to 12500 of 10,000+ entries");
  });
});

describe("pageLinks: the window of page numbers and Previous/Next, with a way back from past the end", () => {
  it.each([
    // page, last page → previous, numbers, next
    [1, 1, null, [], null], // one page: no links
    [1, 3, null, [1, 2, 3], 2],
    [2, 3, 1, [1, 2, 3], 3],
    [3, 3, 2, [1, 2, 3], null],
    [5, 9, 4, [3, 4, 5, 6, 7], 6],
    [9, 1, 1, [1], null], // past the end of a one-page list: back to page 1
    [9, 3, 3, [1, 2, 3], null], // Previous is the last page, not page 8
    [40, 12, 12, [8, 9, 10, 11, 12], null],
  ])("page %i of %i → previous %j, %j, next %j", (page, last, previous, numbers, next) => {
    expect(pageLinks(page, last)).toEqual({ previous, numbers, next });
  });

  it("the window itself is unchanged", () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(9, 1)).toEqual([1]);
    expect(pageWindow(6, 20)).toEqual([4, 5, 6, 7, 8]);
  });
});

describe("the list query's per_page and page (probe 8952 #7)", () => {
  // [field, value, message]
  it.each([
    ["per_page", "0", "per_page must be at least 1."],
    ["per_page", "-1", "per_page must be at least 1."],
    ["page", "-3", "page must be at least 1."],
    ["per_page", "101", "per_page must be at most 100."],
    ["per_page", "1e3", "per_page must be a whole number."],
    ["per_page", "-", "per_page must be a whole number."],
    ["page", "--1", "page must be a whole number."],
    ["page", "2.5", "page must be a whole number."],
  ])("%s=%s → %s", (field, value, message) => {
    const parsed = parseWith(ListQuery, { [field]: value });
    expect(parsed.ok ? null : parsed.errors[field]).toBe(message);
  });

  it("takes digits", () => {
    const parsed = parseWith(ListQuery, { per_page: "50", page: "2" });
    expect(parsed.ok && [parsed.data.per_page, parsed.data.page]).toEqual([50, 2]);
  });
});
