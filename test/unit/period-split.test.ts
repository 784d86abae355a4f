import { describe, expect, it } from "vitest";
import { splitWholeMonths } from "~/domain/report-operations";

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
