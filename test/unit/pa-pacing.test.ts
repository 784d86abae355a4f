import { describe, expect, it } from "vitest";
import { averageUnitsPerWeek, currentWeek, meterState, meterText, paCalculation, paPacing, pacingFlag, pacingState, pacingSummary, todayAtLocation, unitsLeftText, unitsOverAvailableText, unitsWindowStart, weeksInAuthorization, type DayUnits, type PaFacts, type Pacing } from "~/domain/pa-pacing";

/** The PA calculator, the weekly meter and pacing (clinical §2, §3, §5, §7, §8; decision 031). */
describe("weeks in an authorization and the weekly average", () => {
  it.each([
    // start, end, n_units, weeks, average
    ["2026-03-04", "2026-03-04", 10, 1, 10], // one day: one week, no division by zero
    ["2026-03-01", "2026-03-07", 40, 1, 40], // exactly seven days
    ["2026-03-01", "2026-03-08", 40, 2, 20], // eight days: two weeks
    ["2026-01-01", "2026-06-30", 520, 26, 20], // 181 days → 26 weeks
    ["2026-01-01", "2026-12-31", 1000, 53, 19], // 365 days → 53 weeks, ceil(1000/53) = 19
    ["2024-02-01", "2024-02-29", 100, 5, 20], // a leap February: 29 days → 5 weeks
    ["2026-03-10", "2026-03-01", 30, 1, 30], // reversed (refused on input): still one week
    ["2026-03-01", "2026-03-14", 0, 2, 0],
  ])("%s to %s, %i units: %i weeks, %i a week", (start, end, n, weeks, average) => {
    expect(weeksInAuthorization(start, end)).toBe(weeks);
    expect(averageUnitsPerWeek(n, start, end)).toBe(average);
  });
});

describe("the current week", () => {
  it.each([
    ["2026-11-25", "2026-11-22", "2026-11-28"], // a Wednesday
    ["2026-11-22", "2026-11-22", "2026-11-28"], // Sunday starts it
    ["2026-11-28", "2026-11-22", "2026-11-28"], // Saturday ends it
    ["2026-04-01", "2026-03-29", "2026-04-04"], // across a month
    ["2026-12-31", "2026-12-27", "2027-01-02"], // across a year
    ["2027-01-01", "2026-12-27", "2027-01-02"],
  ])("today %s: %s to %s", (today, start, end) => {
    expect(currentWeek(today)).toEqual({ week_start_date: start, week_end_date: end });
  });

  it.each([
    // instant (UTC), zone, the location's today
    ["2026-11-29T07:30:00Z", "America/Los_Angeles", "2026-11-28"], // 23:30 Saturday in Los Angeles
    ["2026-11-29T07:30:00Z", "America/New_York", "2026-11-29"], // 02:30 Sunday in New York
    ["2026-11-28T23:30:00Z", "Pacific/Auckland", "2026-11-29"],
  ])("%s in %s is %s", (at, zone, today) => {
    expect(todayAtLocation(new Date(at), zone)).toBe(today);
  });

  it("a note at 23:30 Saturday in Los Angeles counts in that week, not the next", () => {
    const now = new Date("2026-11-29T07:30:00Z"); // Sunday in UTC, still Saturday in Los Angeles
    const pa: PaFacts = { n_units: 100, start_date: "2026-11-01", end_date: "2026-12-31", spent_units: 12 };
    const days: DayUnits[] = [
      { date: "2026-11-28", units: 8 }, // the Saturday session
      { date: "2026-11-21", units: 4 }, // the week before
    ];
    const la = paCalculation(pa, days, todayAtLocation(now, "America/Los_Angeles"));
    expect(la).toMatchObject({ week_start_date: "2026-11-22", week_end_date: "2026-11-28", used_units_this_week: 8 });
    const ny = paCalculation(pa, days, todayAtLocation(now, "America/New_York"));
    expect(ny).toMatchObject({ week_start_date: "2026-11-29", week_end_date: "2026-12-05", used_units_this_week: 0 });
  });

  it("the units window reaches back far enough for any zone", () => {
    const now = new Date("2026-11-29T07:30:00Z");
    expect(unitsWindowStart(now) <= "2026-11-01").toBe(true); // 28 days before the earliest local today
  });
});

describe("the calculator", () => {
  it.each([
    // label, pa, days, today, expected
    ["units this week and left", { n_units: 260, start_date: "2026-01-01", end_date: "2026-06-30", spent_units: 100 }, [{ date: "2026-03-02", units: 8 }, { date: "2026-03-04", units: 6 }, { date: "2026-02-28", units: 8 }], "2026-03-04", { used_units_this_week: 14, average_units_per_week: 10, week_start_date: "2026-03-01", week_end_date: "2026-03-07", remaining_units: 160, available_units: 160, spent_units: 100, n_units: 260 }],
    ["a week crossing a year", { n_units: 50, start_date: "2026-12-01", end_date: "2027-01-31", spent_units: 20 }, [{ date: "2026-12-30", units: 5 }, { date: "2027-01-02", units: 3 }, { date: "2026-12-26", units: 12 }], "2027-01-01", { used_units_this_week: 8, week_start_date: "2026-12-27", week_end_date: "2027-01-02", average_units_per_week: 6, remaining_units: 30 }],
    ["a week crossing a month", { n_units: 40, start_date: "2026-03-15", end_date: "2026-04-11", spent_units: 16 }, [{ date: "2026-03-30", units: 4 }, { date: "2026-04-02", units: 4 }], "2026-04-02", { used_units_this_week: 8, week_start_date: "2026-03-29", week_end_date: "2026-04-04", average_units_per_week: 10, remaining_units: 24 }],
    ["exhausted: remaining goes negative, shown as it is", { n_units: 20, start_date: "2026-03-01", end_date: "2026-03-31", spent_units: 24 }, [{ date: "2026-03-10", units: 24 }], "2026-03-12", { used_units_this_week: 24, remaining_units: -4, average_units_per_week: 4 }],
  ] as const)("%s", (_label, pa, days, today, expected) => {
    expect(paCalculation(pa, days, today)).toMatchObject(expected);
  });
});

describe("the weekly meter on the note form", () => {
  const facts = { used_units_this_week: 30, average_units_per_week: 40, available_units: 12 };
  it.each([
    // projected units, total, exceeded, over available
    [8, 38, false, false],
    [10, 40, false, false], // at the average: not exceeded
    [11, 41, true, false],
    [12, 42, true, false], // exactly the units left: not over
    [13, 43, true, true],
    [0, 30, false, false],
  ])("projected %i: total %i, exceeded %s, over available %s", (projected, total, exceeded, over) => {
    const s = meterState(facts, projected)!;
    expect(s).toMatchObject({ total, exceeded, overAvailable: over, average: 40 });
    expect(s.message).toBe(exceeded ? "Expected weekly usage exceeded." : null);
    expect(meterText(s)).toBe(`This week: ${total} of 40 units expected per week (including this note).`);
  });

  // One wording for units left, on the note form's units display, its PA options and the booking warning (decision
  // 037's "already N units over its authorized units"; probe 8973 §2): never a negative "units left".
  it.each<[left: number, authorized: number | undefined, text: string, display: string]>([
    [3, undefined, "3 units left", "more than the 3 units left on the PA service"],
    [1, undefined, "1 unit left", "more than the 1 unit left on the PA service"],
    [0, undefined, "0 units left", "more than the 0 units left on the PA service"],
    [-1, undefined, "already 1 unit over its authorized units", "the PA service is already 1 unit over its authorized units"],
    [-7, undefined, "already 7 units over its authorized units", "the PA service is already 7 units over its authorized units"],
    [3, 5, "3 of 5 units left", ""],
    [0, 1, "0 of 1 unit left", ""],
    [-7, 5, "already 7 units over its 5 authorized units", ""],
    [-1, 1, "already 1 unit over its 1 authorized unit", ""],
  ])("%i units left of %s: %s", (left, authorized, text, display) => {
    expect(unitsLeftText(left, authorized)).toBe(text);
    if (display) expect(unitsOverAvailableText(left)).toBe(display);
  });

  it("no PA service chosen: 'Please select a CPT Code'", () => {
    expect(meterState(null, 8)).toBeNull();
    expect(meterText(null)).toBe("Please select a CPT Code");
  });
});

describe("pacing at the current 4-week rate", () => {
  /** n units daily from `from` to `to`, one entry per day. */
  const daily = (from: string, to: string, units: number): DayUnits[] => {
    const out: DayUnits[] = [];
    for (let d = new Date(`${from}T00:00:00Z`); d.toISOString().slice(0, 10) <= to; d = new Date(d.getTime() + 86_400_000)) out.push({ date: d.toISOString().slice(0, 10), units });
    return out;
  };
  const sum = (days: DayUnits[]) => days.reduce((a, d) => a + d.units, 0);

  it.each([
    // label, n_units, start, end, days, today, expected
    ["on pace: 2 a day, 56 days left → 112 more used, 20 left", 220, "2026-01-01", "2026-04-10", daily("2026-01-01", "2026-02-13", 2), "2026-02-13", { phase: "active", rate_days: 28, rate_units: 56, rate_per_week: 14, forecast_units_left: 20, will_run_out: false, under_using: false, runs_out_on: null }],
    ["will run out: 4 a day, 100 left, 56 days to go", 276, "2026-01-01", "2026-04-10", daily("2026-01-01", "2026-02-13", 4), "2026-02-13", { will_run_out: true, runs_out_on: "2026-03-10", forecast_units_left: -124, under_using: false, rate_per_week: 28 }],
    ["under-using: 1 a day leaves far more than 20 %", 400, "2026-01-01", "2026-04-10", daily("2026-01-01", "2026-02-13", 1), "2026-02-13", { will_run_out: false, under_using: true, forecast_units_left: 400 - 44 - 56 }],
    ["younger than 4 weeks: the rate of the days since the start", 200, "2026-02-01", "2026-03-02", daily("2026-02-01", "2026-02-10", 3), "2026-02-10", { rate_days: 10, rate_units: 30, rate_per_week: 21, forecast_units_left: 200 - 30 - 60 }],
    ["first days: no under-using verdict yet", 200, "2026-02-01", "2026-05-01", [], "2026-02-03", { rate_days: 3, under_using: false, will_run_out: false }],
    ["one-day authorization on its day", 8, "2026-02-10", "2026-02-10", [{ date: "2026-02-10", units: 8 }], "2026-02-10", { phase: "active", exhausted: true, will_run_out: false, forecast_units_left: 0 }],
    ["exhausted before the end", 20, "2026-02-01", "2026-03-31", daily("2026-02-01", "2026-02-10", 2), "2026-02-10", { exhausted: true, will_run_out: true, available_units: 0 }],
    ["a future authorization: nothing forecast", 100, "2026-03-01", "2026-05-31", [], "2026-02-10", { phase: "not_started", rate_per_week: null, forecast_units_left: 100, will_run_out: false, under_using: false }],
    ["an expired one: what was left", 100, "2025-10-01", "2025-12-31", daily("2025-12-01", "2025-12-20", 2), "2026-02-10", { phase: "ended", rate_per_week: null, forecast_units_left: 60, will_run_out: false, under_using: false }],
  ] as const)("%s", (_label, n, start, end, days, today, expected) => {
    const spent = sum(days as DayUnits[]);
    expect(paPacing({ n_units: n, start_date: start, end_date: end, spent_units: spent }, days, today)).toMatchObject(expected);
  });

  it("the flags are in the sentence, not only in colour", () => {
    const runOut = paPacing({ n_units: 276, start_date: "2026-01-01", end_date: "2026-04-10", spent_units: 176 }, daily("2026-01-01", "2026-02-13", 4), "2026-02-13");
    expect(runOut.summary).toBe("Will run out on 2026-03-10, before the end date 2026-04-10, at 28 units a week.");
    const under = paPacing({ n_units: 400, start_date: "2026-01-01", end_date: "2026-04-10", spent_units: 44 }, daily("2026-01-01", "2026-02-13", 1), "2026-02-13");
    expect(under.summary).toBe("Under-using: 300 units forecast unused on 2026-04-10, at 7 units a week.");
    // The rate follows its number: one unit in the last four weeks is "1 unit a week" (probe 9045).
    const weekly = paPacing({ n_units: 400, start_date: "2026-01-01", end_date: "2026-04-10", spent_units: 4 }, ["2026-01-20", "2026-01-27", "2026-02-03", "2026-02-10"].map((date) => ({ date, units: 1 })), "2026-02-13");
    expect(weekly.summary).toBe("Under-using: 388 units forecast unused on 2026-04-10, at 1 unit a week.");
    expect(paPacing({ n_units: 100, start_date: "2026-03-01", end_date: "2026-05-31", spent_units: 0 }, [], "2026-02-10").summary).toBe("Starts on 2026-03-01; 100 units authorized to use.");
    expect(paPacing({ n_units: 100, start_date: "2025-10-01", end_date: "2025-12-31", spent_units: 40 }, [], "2026-02-10").summary).toBe("Ended on 2025-12-31 with 60 units unused.");
    expect(paPacing({ n_units: 20, start_date: "2026-02-01", end_date: "2026-03-31", spent_units: 24 }, [], "2026-02-10").summary).toBe("Used up: 4 units over the authorization.");
  });

  // The one sentence builder (probe 8973 §1): an ended authorization that was overspent says by how much, never
  // "with 0 units unused"; one unit is "1 unit".
  it.each<[label: string, pa: PaFacts, today: string, summary: string, state: string, flag: string | null]>([
    ["ended, units left", { n_units: 100, start_date: "2025-10-01", end_date: "2025-12-31", spent_units: 40 }, "2026-02-10", "Ended on 2025-12-31 with 60 units unused.", "Ended", null],
    ["ended, one unit left", { n_units: 5, start_date: "2026-10-27", end_date: "2026-11-26", spent_units: 4 }, "2026-11-27", "Ended on 2026-11-26 with 1 unit unused.", "Ended", null],
    ["ended, used exactly", { n_units: 5, start_date: "2026-10-27", end_date: "2026-11-26", spent_units: 5 }, "2026-11-27", "Ended on 2026-11-26 with 0 units unused.", "Ended", null],
    ["ended, one unit over", { n_units: 1, start_date: "2026-10-27", end_date: "2026-11-26", spent_units: 2 }, "2026-11-27", "Ended on 2026-11-26, 1 unit over the authorization.", "Overspent", "Overspent"],
    ["ended, 7 units over", { n_units: 5, start_date: "2026-10-27", end_date: "2026-11-26", spent_units: 12 }, "2027-01-02", "Ended on 2026-11-26, 7 units over the authorization.", "Overspent", "Overspent"],
    ["running, one unit over", { n_units: 5, start_date: "2026-11-01", end_date: "2027-01-15", spent_units: 6 }, "2026-11-27", "Used up: 1 unit over the authorization.", "Used up", "Used up"],
    ["running, used exactly", { n_units: 5, start_date: "2026-11-01", end_date: "2027-01-15", spent_units: 5 }, "2026-11-27", "Used up: no units left.", "Used up", "Used up"],
    ["not started, one unit", { n_units: 1, start_date: "2026-11-28", end_date: "2027-02-26", spent_units: 0 }, "2026-11-27", "Starts on 2026-11-28; 1 unit authorized to use.", "Not started", null],
    ["not started, no units at all", { n_units: 0, start_date: "2026-11-28", end_date: "2027-02-26", spent_units: 0 }, "2026-11-27", "Starts on 2026-11-28; 0 units authorized to use.", "Not started", null],
    ["running, one unit forecast left", { n_units: 1, start_date: "2026-11-27", end_date: "2026-11-27", spent_units: 0 }, "2026-11-27", "1 unit forecast left on 2026-11-27, at 0 units a week.", "On track", null],
  ])("%s: %s", (_label, pa, today, summary, state, flag) => {
    const p = paPacing(pa, [], today);
    expect(p.summary).toBe(summary);
    const { summary: _s, ...rest } = p;
    expect(pacingSummary(rest, pa)).toBe(summary);
    expect(pacingState(p)).toBe(state);
    expect(pacingFlag(p)).toBe(flag);
  });

  it.each<[over: Partial<Pacing>, state: string, flag: string | null]>([
    [{ phase: "not_started" }, "Not started", null],
    [{ phase: "ended" }, "Ended", null],
    [{ phase: "ended", available_units: 0, exhausted: true }, "Ended", null],
    [{ phase: "ended", available_units: -3, exhausted: true }, "Overspent", "Overspent"],
    [{ exhausted: true }, "Used up", "Used up"],
    [{ exhausted: true, will_run_out: true }, "Used up", "Used up"],
    [{ will_run_out: true }, "Will run out", "Will run out"],
    [{ under_using: true }, "Under-using", "Under-using"],
    [{}, "On track", null],
  ])("the state %j reads %s, flagged %s", (over, state, flag) => {
    const p: Pacing = { phase: "active", rate_per_week: 7, rate_days: 28, rate_units: 28, available_units: 10, forecast_units_left: 5, runs_out_on: null, exhausted: false, will_run_out: false, under_using: false, summary: "", ...over };
    expect(pacingState(p)).toBe(state);
    expect(pacingFlag(p)).toBe(flag);
  });

  it("the run-out date and the forecast agree at the boundary", () => {
    // 56 units in 28 days (2 a day), 112 left, 56 days after today: exactly enough → not run out, 0 left.
    const p = paPacing({ n_units: 168, start_date: "2026-01-17", end_date: "2026-04-10", spent_units: 56 }, daily("2026-01-17", "2026-02-13", 2), "2026-02-13");
    expect(p).toMatchObject({ will_run_out: false, forecast_units_left: 0, runs_out_on: null });
    const q = paPacing({ n_units: 167, start_date: "2026-01-17", end_date: "2026-04-10", spent_units: 56 }, daily("2026-01-17", "2026-02-13", 2), "2026-02-13");
    expect(q).toMatchObject({ will_run_out: true, runs_out_on: "2026-04-10", forecast_units_left: -1 });
  });
});
