import { describe, expect, it } from "vitest";
import { monthOf, splitNearestMonths, splitWholeMonths } from "~/domain/report-operations";
import { dateOfDay, dayNumber } from "~/domain/weeks";

/** The operations reports read whole months from the month sums and the days at either edge from the notes (decision 039). */
describe("splitWholeMonths", () => {
  it.each([
    ["one whole month", "2026-10-01", "2026-10-31", { months: { from: "2026-10", to: "2026-10" }, edges: [] }],
    ["a month plus days either side", "2026-09-27", "2026-11-03", { months: { from: "2026-10", to: "2026-10" }, edges: [{ from: "2026-09-27", to: "2026-09-30" }, { from: "2026-11-01", to: "2026-11-03" }] }],
    ["days inside one month", "2026-10-05", "2026-10-20", { months: null, edges: [{ from: "2026-10-05", to: "2026-10-20" }] }],
    ["from the 2nd to the end of the next month", "2026-10-02", "2026-11-30", { months: { from: "2026-11", to: "2026-11" }, edges: [{ from: "2026-10-02", to: "2026-10-31" }] }],
    ["across a year boundary", "2025-12-15", "2026-02-10", { months: { from: "2026-01", to: "2026-01" }, edges: [{ from: "2025-12-15", to: "2025-12-31" }, { from: "2026-02-01", to: "2026-02-10" }] }],
    ["two part months, no whole one", "2026-01-20", "2026-02-10", { months: null, edges: [{ from: "2026-01-20", to: "2026-02-10" }] }],
    ["February of a leap year", "2028-02-01", "2028-02-29", { months: { from: "2028-02", to: "2028-02" }, edges: [] }],
    ["February 28 of a leap year is not its end", "2028-02-01", "2028-02-28", { months: null, edges: [{ from: "2028-02-01", to: "2028-02-28" }] }],
    ["a whole year", "2025-11-01", "2026-10-31", { months: { from: "2025-11", to: "2026-10" }, edges: [] }],
    ["one day", "2026-10-31", "2026-10-31", { months: null, edges: [{ from: "2026-10-31", to: "2026-10-31" }] }],
    ["reversed", "2026-10-31", "2026-10-01", { months: null, edges: [] }],
  ])("%s", (_name, from, to, expected) => {
    expect(splitWholeMonths(from, to)).toEqual(expected);
  });
});

/**
 * Client sums (hours by client, the BCBA report) read a part month as the whole month minus the days outside
 * the period when those are fewer (decision 039, 2026-11-26 "edge days"). months + add − minus is the period.
 */
describe("splitNearestMonths", () => {
  it.each([
    ["one whole month", "2026-10-01", "2026-10-31", { months: { from: "2026-10", to: "2026-10" }, add: [], minus: [] }],
    ["16 days in, 14 out (+7 for the month's sums): the days either side", "2026-09-15", "2026-11-14", { months: { from: "2026-10", to: "2026-10" }, add: [{ from: "2026-09-15", to: "2026-09-30" }, { from: "2026-11-01", to: "2026-11-14" }], minus: [] }],
    ["22 days in, 8 out: the month minus its first days", "2026-09-09", "2026-10-31", { months: { from: "2026-09", to: "2026-10" }, add: [], minus: [{ from: "2026-09-01", to: "2026-09-08" }] }],
    ["21 days in, 9 out: the month minus its first days (9 + 7 < 21)", "2026-09-10", "2026-10-31", { months: { from: "2026-09", to: "2026-10" }, add: [], minus: [{ from: "2026-09-01", to: "2026-09-09" }] }],
    ["19 days in, 11 out: the month minus its first days (11 + 7 < 19)", "2026-09-12", "2026-10-31", { months: { from: "2026-09", to: "2026-10" }, add: [], minus: [{ from: "2026-09-01", to: "2026-09-11" }] }],
    ["18 days in, 12 out: the days (12 + 7 is not under 18)", "2026-09-13", "2026-10-31", { months: { from: "2026-10", to: "2026-10" }, add: [{ from: "2026-09-13", to: "2026-09-30" }], minus: [] }],
    ["the 3rd to the 28th of the next month: two months minus four days", "2026-09-03", "2026-10-28", { months: { from: "2026-09", to: "2026-10" }, add: [], minus: [{ from: "2026-09-01", to: "2026-09-02" }, { from: "2026-10-29", to: "2026-10-31" }] }],
    ["a month plus a few days either side: the days", "2026-09-27", "2026-11-03", { months: { from: "2026-10", to: "2026-10" }, add: [{ from: "2026-09-27", to: "2026-09-30" }, { from: "2026-11-01", to: "2026-11-03" }], minus: [] }],
    ["inside one month, mostly: the month minus both sides", "2026-10-03", "2026-10-28", { months: { from: "2026-10", to: "2026-10" }, add: [], minus: [{ from: "2026-10-01", to: "2026-10-02" }, { from: "2026-10-29", to: "2026-10-31" }] }],
    ["inside one month, a few days: the days", "2026-10-05", "2026-10-15", { months: null, add: [{ from: "2026-10-05", to: "2026-10-15" }], minus: [] }],
    ["inside one month, 16 in, 15 out: the days", "2026-10-05", "2026-10-20", { months: null, add: [{ from: "2026-10-05", to: "2026-10-20" }], minus: [] }],
    ["one month from its 2nd day to its end", "2026-10-02", "2026-10-31", { months: { from: "2026-10", to: "2026-10" }, add: [], minus: [{ from: "2026-10-01", to: "2026-10-01" }] }],
    ["equal in and out (15 of 30 days): the days", "2026-11-16", "2026-11-30", { months: null, add: [{ from: "2026-11-16", to: "2026-11-30" }], minus: [] }],
    ["two part months, no whole one", "2026-01-20", "2026-02-10", { months: null, add: [{ from: "2026-01-20", to: "2026-01-31" }, { from: "2026-02-01", to: "2026-02-10" }], minus: [] }],
    ["two part months, both mostly in", "2026-01-05", "2026-02-25", { months: { from: "2026-01", to: "2026-02" }, add: [], minus: [{ from: "2026-01-01", to: "2026-01-04" }, { from: "2026-02-26", to: "2026-02-28" }] }],
    ["across a year boundary", "2025-12-15", "2026-02-10", { months: { from: "2026-01", to: "2026-01" }, add: [{ from: "2025-12-15", to: "2025-12-31" }, { from: "2026-02-01", to: "2026-02-10" }], minus: [] }],
    ["across a year boundary, mostly whole", "2025-12-04", "2026-02-24", { months: { from: "2025-12", to: "2026-02" }, add: [], minus: [{ from: "2025-12-01", to: "2025-12-03" }, { from: "2026-02-25", to: "2026-02-28" }] }],
    ["February 28 of a leap year", "2028-02-01", "2028-02-28", { months: { from: "2028-02", to: "2028-02" }, add: [], minus: [{ from: "2028-02-29", to: "2028-02-29" }] }],
    ["one day", "2026-10-31", "2026-10-31", { months: null, add: [{ from: "2026-10-31", to: "2026-10-31" }], minus: [] }],
    ["reversed", "2026-10-31", "2026-10-01", { months: null, add: [], minus: [] }],
  ])("%s", (_name, from, to, expected) => {
    expect(splitNearestMonths(from, to)).toEqual(expected);
  });

  it("months + add − minus covers every day of the period once, for every period of a year's starts and lengths", () => {
    for (let start = dayNumber("2025-12-01")!; start < dayNumber("2027-01-01")!; start += 5) {
      for (const len of [1, 2, 9, 15, 16, 28, 31, 45, 61, 100, 366]) {
        const from = dateOfDay(start);
        const to = dateOfDay(start + len - 1);
        const s = splitNearestMonths(from, to);
        const count = new Map<number, number>();
        const bump = (x: string, y: string, by: number) => {
          for (let d = dayNumber(x)!; d <= dayNumber(y)!; d++) count.set(d, (count.get(d) ?? 0) + by);
        };
        if (s.months) bump(`${s.months.from}-01`, monthOf(`${s.months.to}-01`).to, 1);
        for (const r of s.add) bump(r.from, r.to, 1);
        for (const r of s.minus) bump(r.from, r.to, -1);
        const wrong = [...count].filter(([d, c]) => c !== (d >= start && d <= start + len - 1 ? 1 : 0)).map(([d]) => dateOfDay(d));
        for (let d = start; d < start + len; d++) if (count.get(d) !== 1) wrong.push(dateOfDay(d));
        expect(wrong, `${from} … ${to}`).toEqual([]);
        // Never more days read from the notes than the plain split.
        const plain = splitWholeMonths(from, to).edges.reduce((n, r) => n + dayNumber(r.to)! - dayNumber(r.from)! + 1, 0);
        const near = [...s.add, ...s.minus].reduce((n, r) => n + dayNumber(r.to)! - dayNumber(r.from)! + 1, 0);
        expect(near).toBeLessThanOrEqual(plain);
      }
    }
  }, 60_000);
});
