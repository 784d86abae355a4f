import { describe, expect, it } from "vitest";
import { defaultNotesRange, NOTES_WEEKLY_MESSAGES as M, NotesWeeklyInput, notesWeeklyMessage, weeklyValuesFromSessions, wholeWeeks, type SessionData } from "~/domain/notes-weekly";
import { parseWith } from "~/domain/validation";
import { noticeTitle } from "~/domain/weekly-reports";

/** Weekly data from RBT notes (issue 10; docs/decisions/029): the request, the weeks, the values. */

const PLANS = [
  { id: 1, category: "maladaptive" },
  { id: 2, category: "replacement" },
  { id: 3, category: "maladaptive" },
  { id: 4, category: "caregiver_training" },
];

const mal = (plan_id: unknown, frequency: unknown) => ({ plan_id, name: "x", frequency });
const rep = (plan_id: unknown, total_trials: unknown, correct_responses: unknown) => ({ plan_id, name: "x", total_trials, correct_responses });
const session = (session_date: string, maladaptives: unknown = [], replacements: unknown = []): SessionData => ({ session_date, maladaptives, replacements });

describe("NotesWeeklyInput", () => {
  it.each([
    [{ patient_id: 5, date_from: "2026-01-01", date_to: "2026-03-31" }, { patient_id: 5, plan_id: null, date_from: "2026-01-01", date_to: "2026-03-31" }, null],
    [{ patient_id: "5", plan_id: "7", date_from: " 2026-01-01 ", date_to: "2026-01-01" }, { patient_id: 5, plan_id: 7, date_from: "2026-01-01", date_to: "2026-01-01" }, null],
    [{ patient_id: 5, plan_id: "", date_from: "2026-01-01", date_to: "2027-01-01" }, { patient_id: 5, plan_id: null, date_from: "2026-01-01", date_to: "2027-01-01" }, null], // 365 days: a year
    [{ patient_id: 5, date_from: "2028-01-01", date_to: "2028-12-31" }, { patient_id: 5, plan_id: null, date_from: "2028-01-01", date_to: "2028-12-31" }, null], // a leap year
    [{ patient_id: 5, date_from: "2026-01-01", date_to: "2027-01-02" }, null, { date_to: M.tooLong }],
    [{ patient_id: 5, date_from: "2024-01-01", date_to: "2026-01-01" }, null, { date_to: M.tooLong }],
    [{ patient_id: 5, date_from: "2026-03-01", date_to: "2026-02-01" }, null, { date_to: M.order }],
    [{ patient_id: 5, date_from: "2026-02-30", date_to: "2026-03-01" }, null, { date_from: M.date }],
    [{ patient_id: 5, date_from: "01/02/2026", date_to: "2026-03-01" }, null, { date_from: M.date }],
    [{ patient_id: 5, date_to: "2026-03-01" }, null, { date_from: M.dateFromRequired }],
    [{ patient_id: 5, date_from: "2026-03-01", date_to: "" }, null, { date_to: M.dateToRequired }],
    [{ date_from: "2026-01-01", date_to: "2026-03-01" }, null, { patient_id: M.patient }],
    [{ plan_id: 7, date_from: "2026-01-01", date_to: "2026-03-01" }, { patient_id: null, plan_id: 7, date_from: "2026-01-01", date_to: "2026-03-01" }, null], // the goal screen: the plan's client
    [{ patient_id: "abc", date_from: "2026-01-01", date_to: "2026-03-01" }, null, { patient_id: M.patient }],
    [{ patient_id: 0, date_from: "2026-01-01", date_to: "2026-03-01" }, null, { patient_id: M.patient }],
    [{ patient_id: 1.5, date_from: "2026-01-01", date_to: "2026-03-01" }, null, { patient_id: M.patient }],
    [{ patient_id: 5, plan_id: "x", date_from: "2026-01-01", date_to: "2026-03-01" }, null, { plan_id: M.plan }],
  ])("%j", (input, output, errors) => {
    const parsed = parseWith(NotesWeeklyInput, input);
    if (output) expect(parsed).toEqual({ ok: true, data: output });
    else expect(parsed).toMatchObject({ ok: false, errors });
  });
});

describe("wholeWeeks", () => {
  it.each([
    ["2026-01-07", "2026-01-07", "2026-01-04", "2026-01-10"], // a Wednesday: its whole week
    ["2026-01-04", "2026-01-10", "2026-01-04", "2026-01-10"], // already whole
    ["2026-01-10", "2026-01-11", "2026-01-04", "2026-01-17"], // Saturday to Sunday: two weeks
    ["2025-12-31", "2026-01-01", "2025-12-28", "2026-01-03"], // across a year end
    ["2024-02-29", "2024-03-01", "2024-02-25", "2024-03-02"], // a leap day
  ])("%s..%s → %s..%s", (from, to, wFrom, wTo) => {
    expect(wholeWeeks(from, to)).toEqual({ from: wFrom, to: wTo });
  });
});

describe("weeklyValuesFromSessions", () => {
  const cases: [string, SessionData[], number | null, [number, string, number, number][]][] = [
    ["no sessions, no values", [], null, []],
    [
      "maladaptive: the mean frequency of the week's sessions that recorded the plan",
      [session("2026-01-05", [mal(1, 3)]), session("2026-01-06", [mal(1, 4)]), session("2026-01-07", [mal(3, 9)]), session("2026-01-08", [mal(1, 2)])],
      null,
      [
        [1, "2026-01-10", 3, 3],
        [3, "2026-01-10", 9, 1],
      ],
    ],
    ["decimals: stored to 2 places (decision 029, stop 36)", [session("2026-01-05", [mal(1, 1)]), session("2026-01-06", [mal(1, 1)]), session("2026-01-07", [mal(1, 2)])], null, [[1, "2026-01-10", 1.33, 3]]],
    ["a frequency of 0 counts as a session with none", [session("2026-01-05", [mal(1, 0)]), session("2026-01-06", [mal(1, 5)])], null, [[1, "2026-01-10", 2.5, 2]]],
    [
      "Sunday and Saturday belong to the same week; the next Sunday starts another",
      [session("2026-01-04", [mal(1, 2)]), session("2026-01-10", [mal(1, 4)]), session("2026-01-11", [mal(1, 7)])],
      null,
      [
        [1, "2026-01-10", 3, 2],
        [1, "2026-01-17", 7, 1],
      ],
    ],
    ["a plan listed twice in a session: one session, its frequencies added", [session("2026-01-05", [mal(1, 2), mal(1, 3)]), session("2026-01-06", [mal(1, 1)])], null, [[1, "2026-01-10", 3, 2]]],
    [
      "missing, negative or non-numeric frequencies are not data",
      [session("2026-01-05", [mal(1, null), mal(3, -1), mal(3, "abc")]), session("2026-01-06", [mal(1, "4")])],
      null,
      [[1, "2026-01-10", 4, 1]],
    ],
    [
      "replacement: Σ correct ÷ Σ trials × 100 over the week (pooled)",
      [session("2026-01-05", [], [rep(2, 10, 5)]), session("2026-01-06", [], [rep(2, 30, 27)])],
      null,
      [[2, "2026-01-10", 80, 2]],
    ],
    ["replacement decimals: stored to 2 places", [session("2026-01-05", [], [rep(2, 3, 1)])], null, [[2, "2026-01-10", 33.33, 1]]],
    ["replacement: 0 correct is 0 %", [session("2026-01-05", [], [rep(2, 4, 0)])], null, [[2, "2026-01-10", 0, 1]]],
    ["replacement: trials 0 → no value", [session("2026-01-05", [], [rep(2, 0, 0)])], null, []],
    ["replacement: a session with 0 trials adds nothing to the week", [session("2026-01-05", [], [rep(2, 0, 0)]), session("2026-01-06", [], [rep(2, 4, 3)])], null, [[2, "2026-01-10", 75, 1]]],
    [
      "replacement: correct above trials, negative or missing is not data",
      [session("2026-01-05", [], [rep(2, 4, 5), rep(2, 4, -1), rep(2, 4, null), rep(2, null, 1)])],
      null,
      [],
    ],
    [
      "entries of another client's plan, of no plan, or of the wrong kind are ignored",
      [session("2026-01-05", [mal(99, 5), mal(null, 5), mal(2, 5), mal(4, 5)], [rep(1, 10, 5), rep(99, 10, 5), rep(4, 10, 5)])],
      null,
      [],
    ],
    [
      "one plan only",
      [session("2026-01-05", [mal(1, 3), mal(3, 4)], [rep(2, 10, 5)])],
      3,
      [[3, "2026-01-10", 4, 1]],
    ],
    ["content that is not a list is skipped", [session("2026-01-05", "junk", { plan_id: 2 }), { session_date: "2026-01-06" }, session("2026-01-07", [mal(1, 2)])], null, [[1, "2026-01-10", 2, 1]]],
    ["a session with an impossible date is skipped", [session("2026-02-30", [mal(1, 2)])], null, []],
    ["a value above the weekly report bound is left out", [session("2026-01-05", [mal(1, 2_000_000)])], null, []],
    [
      "sorted by plan, then week",
      [session("2026-01-20", [mal(3, 1)]), session("2026-01-13", [mal(3, 2)]), session("2026-01-13", [mal(1, 6)])],
      null,
      [
        [1, "2026-01-17", 6, 1],
        [3, "2026-01-17", 2, 1],
        [3, "2026-01-24", 1, 1],
      ],
    ],
  ];
  it.each(cases)("%s", (_name, sessions, only, expected) => {
    const out = weeklyValuesFromSessions(sessions, PLANS, only);
    expect(out.map((w) => [w.plan_id, w.week_end, w.value, w.sessions])).toEqual(expected);
    for (const w of out) expect(w.week_start).toBe(new Date(Date.parse(`${w.week_end}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10));
  });
});

describe("weeklyValuesFromSessions: a per-hour maladaptive plan (probe, stop 24)", () => {
  const plans = [
    { id: 5, category: "maladaptive", timeframe: "per_hour" },
    { id: 6, category: "maladaptive", timeframe: "per_week" },
  ];
  const timed = (session_date: string, units: number | null, maladaptives: unknown[]): SessionData => ({ session_date, units, maladaptives, replacements: [] });
  it.each([
    // Two sessions of 8 and 9 units (4.25 h) with 5 elopements each: 10 with 17 units, shown as 10 ÷ 4.25 = 2.35 an hour.
    ["the week's count with the units of the sessions that recorded it", [timed("2026-11-23", 8, [mal(5, 5)]), timed("2026-11-24", 9, [mal(5, 5)])], [[5, 10, 17, 2]]],
    ["a session that did not record the plan adds no units", [timed("2026-11-23", 8, [mal(5, 2)]), timed("2026-11-24", 12, [mal(6, 1)])], [[5, 2, 8, 1], [6, 1, null, 1]]],
    ["a week whose sessions have no units has no value (no rate to guess)", [timed("2026-11-23", 0, [mal(5, 3)]), timed("2026-11-24", null, [mal(5, 1)])], []],
    ["other plans keep the mean per session and no units", [timed("2026-11-23", 8, [mal(6, 2)]), timed("2026-11-24", 8, [mal(6, 4)])], [[6, 3, null, 2]]],
  ])("%s", (_name, sessions, expected) => {
    const out = weeklyValuesFromSessions(sessions as SessionData[], plans);
    expect(out.map((w) => [w.plan_id, w.value, w.total_units, w.sessions])).toEqual(expected);
  });
});

describe("defaultNotesRange", () => {
  it.each([
    ["2026-01-14T12:00:00Z", "America/New_York", "2025-10-26", "2026-01-14"], // a Wednesday: 12 weeks, this one included
    ["2026-01-17T12:00:00Z", "America/New_York", "2025-10-26", "2026-01-17"], // a Saturday
    ["2026-01-18T03:00:00Z", "America/Los_Angeles", "2025-10-26", "2026-01-17"], // still Saturday evening in Los Angeles
    ["2026-01-18T03:00:00Z", "UTC", "2025-11-02", "2026-01-18"], // already Sunday in UTC: a new week
  ])("%s in %s → %s..%s", (at, tz, from, to) => {
    expect(defaultNotesRange(new Date(at), tz)).toEqual({ date_from: from, date_to: to });
  });
});

describe("notesWeeklyMessage", () => {
  it.each([
    [0, "0 weeks updated from session notes"],
    [1, "1 week updated from session notes"],
    [12, "12 weeks updated from session notes"],
  ])("%i → %s, shown under its own title", (n, text) => {
    expect(notesWeeklyMessage(n)).toBe(text);
    expect(noticeTitle(text)).toBe("Weekly Data from Notes");
  });
});
