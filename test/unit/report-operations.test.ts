import { describe, expect, it } from "vitest";
import {
  ageBucket,
  barChart,
  hoursText,
  monthOf,
  niceTicks,
  payCents,
  payRoleOf,
  periodProblem,
  PERIOD_MESSAGES,
  reportHours,
  supervisionPercent,
  supervisionState,
  weeklyMinutes,
} from "~/domain/report-operations";

describe("the default period is the month of today", () => {
  it.each([
    ["2026-11-26", "2026-11-01", "2026-11-30"],
    ["2026-12-31", "2026-12-01", "2026-12-31"],
    ["2028-02-10", "2028-02-01", "2028-02-29"],
    ["2027-02-01", "2027-02-01", "2027-02-28"],
    ["2026-01-15", "2026-01-01", "2026-01-31"],
  ])("%s → %s to %s", (today, from, to) => {
    expect(monthOf(today)).toEqual({ from, to });
  });
});

describe("a period of at most a year", () => {
  it.each([
    ["2026-01-01", "2026-12-31", null],
    ["2028-01-01", "2028-12-31", null], // 366 days in a leap year
    ["2026-01-01", "2027-01-01", null], // 366 days
    ["2026-01-01", "2027-01-02", PERIOD_MESSAGES.tooLong],
    ["2026-05-02", "2026-05-01", PERIOD_MESSAGES.order],
    ["2026-05-01", "2026-05-01", null],
  ])("%s to %s", (from, to, problem) => {
    expect(periodProblem(from, to)).toBe(problem);
  });
});

describe("hours of minutes", () => {
  it.each([
    [0, 0, "0.00"],
    [60, 1, "1.00"],
    [90, 1.5, "1.50"],
    [50, 0.83, "0.83"],
    [1, 0.02, "0.02"],
    [12_840, 214, "214.00"],
  ])("%i minutes → %s h", (minutes, hours, text) => {
    expect(reportHours(minutes)).toBe(hours);
    expect(hoursText(minutes)).toBe(text);
  });
});

describe("weeks of the hours chart run Sunday to Saturday, with every week of the period", () => {
  it("folds days into the weeks that end on Saturday and fills empty weeks with 0", () => {
    const days = [
      { date: "2026-10-01", minutes: 60 }, // Thursday, week ending 10-03
      { date: "2026-10-03", minutes: 30 }, // Saturday, same week
      { date: "2026-10-04", minutes: 45 }, // Sunday, week ending 10-10
      { date: "2026-10-20", minutes: 15 }, // week ending 10-24
      { date: "2026-11-02", minutes: 99 }, // outside the period: ignored
    ];
    expect(weeklyMinutes(days, "2026-10-01", "2026-10-31")).toEqual([
      { weekEnd: "2026-10-03", minutes: 90 },
      { weekEnd: "2026-10-10", minutes: 45 },
      { weekEnd: "2026-10-17", minutes: 0 },
      { weekEnd: "2026-10-24", minutes: 15 },
      { weekEnd: "2026-10-31", minutes: 0 },
    ]);
  });
  it("answers nothing for a reversed period", () => {
    expect(weeklyMinutes([], "2026-10-31", "2026-10-01")).toEqual([]);
  });
});

describe("payroll: RBT notes at the rbt amount, BCBA at the bcba amount, combined at their provider's, in cents", () => {
  it.each([
    ["rbt", "rbt", "rbt"],
    ["rbt", "bcba", "rbt"],
    ["bcba", "bcba", "bcba"],
    ["bcba", "rbt", "bcba"],
    ["combined", "bcba", "bcba"],
    ["combined", "bcaba", "bcba"],
    ["combined", "rbt", "rbt"],
    ["combined", null, "bcba"],
  ] as const)("a %s note by a provider credentialed %s pays as %s", (type, credential, role) => {
    expect(payRoleOf(type, credential)).toBe(role);
  });
  it.each([
    [60, 25, 2500],
    [90, 25, 3750],
    [50, 18.5, 1542], // 50 × 1850 / 60 = 1541.67
    [1, 0.01, 0], // a sixtieth of a cent
    [45, 33.33, 2500], // 45 × 3333 / 60 = 2499.75
    [0, 40, 0],
    [60, null, null],
    [60, undefined, null],
  ])("%i minutes at $%s an hour → %s cents", (minutes, rate, cents) => {
    expect(payCents(minutes, rate)).toBe(cents);
  });
  it("pay is always a whole number of cents", () => {
    for (let m = 0; m < 500; m += 7) for (const r of [12.34, 19.99, 27.5, 41.01]) expect(Number.isInteger(payCents(m, r))).toBe(true);
  });
});

describe("supervision: BCBA hours as a share of RBT hours, flagged below 5%", () => {
  it.each([
    [6, 120, 5, "ok"], // exactly 5%
    [5, 120, 4.2, "below"],
    [119, 2400, 5, "below"], // 4.958%: shows as 5.0% but is below
    [120, 2400, 5, "ok"],
    [0, 600, 0, "below"],
    [600, 600, 100, "ok"],
    [60, 0, null, "no_rbt"],
    [0, 0, null, "no_rbt"],
  ])("%i BCBA minutes over %i RBT minutes → %s%% (%s)", (bcba, rbt, percent, state) => {
    expect(supervisionPercent(bcba, rbt)).toBe(percent);
    expect(supervisionState(bcba, rbt)).toBe(state);
  });
});

describe("ticket age buckets", () => {
  it.each([
    [0, "under_1d"],
    [0.99, "under_1d"],
    [1, "d1_3"],
    [2.5, "d1_3"],
    [3, "d3_7"],
    [6.99, "d3_7"],
    [7, "over_7d"],
    [400, "over_7d"],
  ])("%s days → %s", (days, bucket) => {
    expect(ageBucket(days)).toBe(bucket);
  });
});

describe("small bar charts", () => {
  it.each([
    [0, [0, 1]],
    [4, [0, 1, 2, 3, 4]],
    [7, [0, 2, 4, 6, 8]],
    [38, [0, 10, 20, 30, 40]],
    [0.3, [0, 0.1, 0.2, 0.3]],
  ])("axis up to %s", (max, ticks) => {
    expect(niceTicks(max)).toEqual(ticks);
  });
  it("keeps the largest bars and says how many it left out", () => {
    const rows = Array.from({ length: 30 }, (_, i) => ({
      label: `P${i}`,
      value: i,
    }));
    const chart = barChart("Clients per provider", "clients", rows, {
      limit: 5,
      sortDesc: true,
    });
    expect(chart.bars.map((b) => b.label)).toEqual(["P29", "P28", "P27", "P26", "P25"]);
    expect(chart.summary).toBe("Clients per provider: the largest 5 of 30 bars, 435 clients in all.");
    expect(chart.max).toBeGreaterThanOrEqual(29);
  });
  it.each([
    ["the first bars, in the rows' order, when not sorted", [3, 0, 7], { limit: 2 }, "Projected: the first 2 of 3 bars, 10 units in all."],
    ["one bar", [4], {}, "Projected: 1 bar, 4 units in all."],
    ["the report's own total", [0.33, 0.33, 0.33], { total: "1 units" }, "Projected: 3 bars, 1 units in all."],
    ["no total when a sum means nothing", [2, 3], { total: null }, "Projected: 2 bars."],
  ] as const)("the summary (the chart's text alternative) says what is drawn: %s", (_, values, opts, summary) => {
    const rows = values.map((value, i) => ({ label: `R${i}`, value }));
    expect(barChart("Projected", "units", rows, opts).summary).toBe(summary);
  });
  it.each([
    ["a period's chart, by default", {}, "Hours per week: nothing in this period."],
    ["a chart without a period, in its own words", { empty: "no running authorizations" }, "Hours per week: no running authorizations."],
  ] as const)("says when there is nothing to draw: %s", (_, opts, summary) => {
    expect(barChart("Hours per week", "hours", [], opts).summary).toBe(summary);
  });
});
