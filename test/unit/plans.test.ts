import { describe, expect, it } from "vitest";
import { MALADAPTIVE_DEFAULTS, normalisePlan, PLAN_CATEGORIES, PlanInput, PlanStatusInput, usesUnitType } from "~/domain/plans";
import { parseWith } from "~/domain/validation";

/** Plan normalisation (clinical §5) and the goal input schema. */

type Sent = { timeframe?: unknown; baseline_timeframe?: unknown; unit_type?: unknown };
type Stored = { timeframe: string | null; baseline_timeframe: string | null; unit_type: string | null };

/** What is sent → what a maladaptive plan stores, and what every other category stores. */
const CASES: [string, Sent, Stored, Stored][] = [
  ["nothing sent", {}, { ...MALADAPTIVE_DEFAULTS }, { timeframe: null, baseline_timeframe: null, unit_type: null }],
  ["nulls", { timeframe: null, baseline_timeframe: null, unit_type: null }, { ...MALADAPTIVE_DEFAULTS }, { timeframe: null, baseline_timeframe: null, unit_type: null }],
  ["empty strings (a form left on None)", { timeframe: "", baseline_timeframe: "", unit_type: "" }, { ...MALADAPTIVE_DEFAULTS }, { timeframe: null, baseline_timeframe: null, unit_type: null }],
  [
    "every listed value kept",
    { timeframe: "per_hour", baseline_timeframe: "per_week", unit_type: "minutes" },
    { timeframe: "per_hour", baseline_timeframe: "per_week", unit_type: "minutes" },
    { timeframe: "per_hour", baseline_timeframe: "per_week", unit_type: null },
  ],
  [
    "seconds, with the timeframes the other way round",
    { timeframe: "per_week", baseline_timeframe: "per_hour", unit_type: "seconds" },
    { timeframe: "per_week", baseline_timeframe: "per_hour", unit_type: "seconds" },
    { timeframe: "per_week", baseline_timeframe: "per_hour", unit_type: null },
  ],
  [
    "unlisted timeframes and unit type",
    { timeframe: "per_day", baseline_timeframe: "weekly", unit_type: "hours" },
    { ...MALADAPTIVE_DEFAULTS },
    { timeframe: null, baseline_timeframe: null, unit_type: null },
  ],
  [
    "wrong case is not listed",
    { timeframe: "PER_WEEK", baseline_timeframe: "Per_Hour", unit_type: "Occurrences" },
    { ...MALADAPTIVE_DEFAULTS },
    { timeframe: null, baseline_timeframe: null, unit_type: null },
  ],
  ["numbers and booleans", { timeframe: 1, baseline_timeframe: true, unit_type: 0 }, { ...MALADAPTIVE_DEFAULTS }, { timeframe: null, baseline_timeframe: null, unit_type: null }],
  [
    "one valid, one invalid",
    { timeframe: "per_hour", baseline_timeframe: "sometimes", unit_type: "minutes" },
    { timeframe: "per_hour", baseline_timeframe: "per_hour", unit_type: "minutes" },
    { timeframe: "per_hour", baseline_timeframe: null, unit_type: null },
  ],
  [
    "surrounding spaces are trimmed",
    { timeframe: " per_hour ", baseline_timeframe: "per_week ", unit_type: " seconds" },
    { timeframe: "per_hour", baseline_timeframe: "per_week", unit_type: "seconds" },
    { timeframe: "per_hour", baseline_timeframe: "per_week", unit_type: null },
  ],
];

describe("normalisePlan (clinical §5)", () => {
  const table = PLAN_CATEGORIES.flatMap((category) => CASES.map(([label, sent, maladaptive, other]) => [category, label, sent, category === "maladaptive" ? maladaptive : other] as const));
  it.each(table)("%s, %s", (category, _label, sent, expected) => {
    expect(normalisePlan({ category, ...sent })).toEqual({ category, ...expected });
  });

  it("keeps the plan's other fields", () => {
    expect(normalisePlan({ category: "replacement", name: "Mand", unit_type: "minutes" })).toEqual({ category: "replacement", name: "Mand", timeframe: null, baseline_timeframe: null, unit_type: null });
  });

  it.each(PLAN_CATEGORIES.map((c) => [c, c === "maladaptive"]))("%s uses a unit type: %s", (category, expected) => {
    expect(usesUnitType(category)).toBe(expected);
  });
});

describe("PlanInput", () => {
  const base = { name: "Aggression", category: "maladaptive" };

  it("fills the defaults: status active, maladaptive measurement, optional fields none", () => {
    const r = parseWith(PlanInput, base);
    expect(r.ok && r.data).toEqual({
      name: "Aggression",
      category: "maladaptive",
      status: "active",
      description: null,
      current_progress: null,
      baseline_level: null,
      baseline_date: null,
      initial_intensity: null,
      current_intensity: null,
      intensity_key: null,
      ...MALADAPTIVE_DEFAULTS,
    });
  });

  it("reads a form: numbers and dates from strings, empty = none, and a unit type sent for a training goal is dropped", () => {
    const r = parseWith(PlanInput, { name: " Parent follows the plan ", category: "caregiver_training", status: "inactive", baseline_level: "12.5", baseline_date: "2025-01-04", description: "", timeframe: "per_week", unit_type: "minutes", intensity_key: "1-5" });
    expect(r.ok && r.data).toMatchObject({ name: "Parent follows the plan", status: "inactive", baseline_level: 12.5, baseline_date: "2025-01-04", description: null, timeframe: "per_week", baseline_timeframe: null, unit_type: null, intensity_key: "1-5" });
  });

  it.each([
    [{ name: "" }, "name", "Name is required."],
    [{ name: "   " }, "name", "Name is required."],
    [{ name: "x".repeat(256) }, "name", "Name must be at most 255 characters."],
    [{ category: "" }, "category", "Category is required."],
    [{ category: undefined }, "category", "Category is required."],
    [{ category: "others" }, "category", "Choose a category from the list."],
    [{ status: "paused" }, "status", "Choose a status from the list."],
    [{ baseline_level: "-1" }, "baseline_level", "Baseline level must be 0 or more."],
    [{ baseline_level: "lots" }, "baseline_level", "Baseline level must be a number."],
    [{ baseline_date: "2025-02-30" }, "baseline_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ description: "x".repeat(5001) }, "description", "Description must be at most 5000 characters."],
  ])("refuses bad input %# with the message on its field", (over, field, message) => {
    const r = parseWith(PlanInput, { ...base, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it.each([
    [{ status: "discontinued" }, true],
    [{ status: "active" }, true],
    [{ status: "done" }, false],
    [{}, false],
  ])("PlanStatusInput %j → ok %s", (input, okay) => {
    const r = parseWith(PlanStatusInput, input);
    expect(r.ok).toBe(okay);
    if (!r.ok) expect(r.errors.status).toBe("Choose a status from the list.");
  });
});
