import { describe, expect, it } from "vitest";
import { countLimit, pagedAtLeast, showingText } from "~/domain/paging";

/** Capped totals (decision 035): a list that stopped counting says so, and its paging goes on. */
describe("pagedAtLeast, countLimit and showingText", () => {
  const q = (page: number, per_page = 25) => ({ page, per_page });

  it.each([
    // [page, counted, limit] → total, last_page, lower bound
    [1, 0, 10_000, 0, 1, false],
    [1, 30, 10_000, 30, 2, false],
    [1, 10_000, 10_000, 10_000, 400, false],
    [1, 10_001, 10_000, 10_000, 401, true],
    [400, 10_001, 10_000, 10_000, 401, true],
    [401, 10_026, 10_025, 10_025, 402, true],
    [402, 10_030, 10_050, 10_030, 402, false],
  ])("page %i, %i counted up to %i: total %i, last page %i, lower bound %s", (page, counted, limit, total, last, lower) => {
    const p = pagedAtLeast([], counted, limit, q(page));
    expect(p).toMatchObject({ total, last_page: last, page, per_page: 25 });
    expect(p.total_is_lower_bound === true).toBe(lower);
  });

  it.each([
    [1, 10_000],
    [400, 10_000],
    [401, 10_025],
    [1_000, 25_000],
  ])("page %i counts up to %i rows", (page, limit) => {
    expect(countLimit(10_000, q(page))).toBe(limit);
  });

  it("says 10,000+ when the total is a lower bound, the exact number otherwise", () => {
    expect(showingText({ page: 1, per_page: 25, total: 10_000, total_is_lower_bound: true })).toBe("Showing 1 to 25 of 10,000+ entries");
    expect(showingText({ page: 2, per_page: 25, total: 1_000, total_is_lower_bound: true })).toBe("Showing 26 to 50 of 1,000+ entries");
    expect(showingText({ page: 2, per_page: 25, total: 30 })).toBe("Showing 26 to 30 of 30 entries");
    expect(showingText({ page: 1, per_page: 25, total: 0 })).toBe("Showing 0 to 0 of 0 entries");
  });
});
