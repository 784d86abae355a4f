import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { BehaviorChart } from "~/components/charts/behavior-chart";
import {
  badgeTone,
  relativeDifference,
  sectionScale,
  sectionShares,
  segmentPoints,
  buildChartModel,
  chartHeading,
  clipSegment,
  commentStacks,
  COMMENT_STACK_PX,
  COMMENT_STACK_ROWS,
  dayNumber,
  hoursOf,
  LTO_COLOR,
  objectiveLabels,
  perHourValue,
  STO_COLORS,
  tickStep,
  yAxisLabel,
  yAxisMax,
  yTicks,
  type ChartInput,
  type ChartModel,
} from "~/domain/chart";
import { addDays } from "~/domain/weeks";
import { chartGeometry, chartSvgMarkup } from "~/components/charts/chart-markup";

/* ------------------------------------------------------------------ fixtures */

const SAT = "2024-01-06"; // a Saturday
const week = (i: number) => addDays(SAT, 7 * i);
const day = (date: string) => dayNumber(date) as number;

type Plan = ChartInput["plan"];
const maladaptive: Plan = { name: "Aggression", category: "maladaptive", baselineDate: null, baselineLevel: null, unitType: "occurrences", timeframe: "per_week" };

function input(over: Partial<Omit<ChartInput, "plan">> & { plan?: Partial<Plan> } = {}): ChartInput {
  return { objectives: [], reports: [], comments: [], ...over, plan: { ...maladaptive, ...over.plan } };
}
const reports = (values: (number | null)[], units: (number | null)[] = []) =>
  values.flatMap((value, i) => (value == null ? [] : [{ weekEnd: week(i), value, totalUnits: units[i] ?? null }]));
const objective = (id: number, type: string, position: number, over: Partial<ChartInput["objectives"][number]> = {}) => ({
  id,
  type,
  position,
  status: "in progress",
  target: null,
  initialDate: null,
  endDate: null,
  name: null,
  ...over,
});

/* ------------------------------------------------------------------ y axis */

describe("y-axis maximum (clinical §9)", () => {
  it.each([
    ["maladaptive: data 37 → 40 + 20", "maladaptive", 37, null, 60],
    ["maladaptive: data 40 (already a multiple of 10) → 60", "maladaptive", 40, null, 60],
    ["maladaptive: data 41 → 50 + 20", "maladaptive", 41, null, 70],
    ["maladaptive: data 0.5 → 10 + 20", "maladaptive", 0.5, null, 30],
    ["maladaptive: no data, baseline 25 → 30 + 20", "maladaptive", null, 25, 50],
    ["maladaptive: baseline higher than data", "maladaptive", 12, 55, 80],
    ["maladaptive: data higher than baseline", "maladaptive", 93, 55, 120],
    ["maladaptive: no data, no baseline → 0 + 20", "maladaptive", null, null, 20],
    ["maladaptive: all zeros → 20", "maladaptive", 0, 0, 20],
    ["replacement: 100", "replacement", 37, 80, 100],
    ["caregiver_training: 100", "caregiver_training", 5, null, 100],
    ["teacher_training: 100", "teacher_training", null, null, 100],
    ["rbt_training: 100 (like the other non-maladaptive)", "rbt_training", 100, null, 100],
    ["replacement above 100 (bad data) → next multiple of 25", "replacement", 130, null, 150],
  ])("%s", (_l, category, highest, baseline, max) => {
    expect(yAxisMax(category, highest, baseline)).toBe(max);
  });

  it("the model uses the highest shown value and the baseline level", () => {
    const m = buildChartModel(input({ reports: reports([5, 37, 12]) }));
    expect(m.y).toMatchObject({ min: 0, max: 60, step: 20, ticks: [0, 20, 40, 60], percent: false });
    const b = buildChartModel(input({ plan: { baselineDate: week(0), baselineLevel: 58 }, reports: reports([5, 37]) }));
    expect(b.y.max).toBe(80);
  });

  it("per-hour values, not the reported ones, decide the maladaptive maximum", () => {
    const m = buildChartModel(input({ plan: { timeframe: "per_hour" }, reports: reports([400], [40]) })); // 400 / 10 h = 40
    expect(m.points[0].value).toBe(40);
    expect(m.y.max).toBe(60);
  });
});

describe("tick step (clinical §9)", () => {
  it.each([
    [10, false, 2],
    [11, false, 5],
    [25, false, 5],
    [26, false, 10],
    [50, false, 10],
    [51, false, 20],
    [100, false, 20],
    [101, false, 50],
    [200, false, 50],
    [201, false, 100],
    [1000, false, 100],
    [10, true, 10],
    [50, true, 10],
    [51, true, 20],
    [100, true, 20],
    [101, true, 25],
    [150, true, 25],
  ])("max %d (percentage axis: %s) → step %d", (max, percent, step) => {
    expect(tickStep(max, percent)).toBe(step);
  });

  it.each([
    [2000, false, 200],
    [1099, false, 100],
    [1100, false, 200],
    [9120, false, 1000],
    [1_000_020, false, 100_000],
    [274, true, 25],
    [275, true, 50],
    [1_000_000, true, 100_000],
  ])("beyond the table: max %d (percentage axis: %s) → the next 1-2-5 step with at most 11 ticks: %d", (max, percent, step) => {
    expect(tickStep(max, percent)).toBe(step);
  });

  // Values a user reports (a maladaptive goal in seconds can be in the thousands; 1,000,000 is the largest accepted).
  it.each([
    [0, 20, 5, 5],
    [9, 30, 10, 4],
    [200, 220, 100, 3],
    [2000, 2020, 200, 11],
    [9100, 9120, 1000, 10],
    [1_000_000, 1_000_020, 100_000, 11],
  ])("a weekly value of %d: axis to %d, step %d, %d ticks", (value, max, step, count) => {
    const m = buildChartModel(input({ reports: reports([value]) }));
    expect(m.y.max).toBe(max);
    expect(m.y.step).toBe(step);
    expect(m.y.ticks).toHaveLength(count);
    expect(m.y.ticks[m.y.ticks.length - 1]).toBeLessThanOrEqual(max);
  });

  it("a percentage axis raised by a value of 1,000,000 (bad data) has at most 11 ticks", () => {
    const m = buildChartModel(input({ plan: { category: "replacement" }, reports: reports([1_000_000]) }));
    expect(m.y).toMatchObject({ max: 1_000_000, step: 100_000 });
    expect(m.y.ticks).toHaveLength(11);
  });

  it.each([
    [60, 20, [0, 20, 40, 60]],
    [70, 20, [0, 20, 40, 60]],
    [20, 5, [0, 5, 10, 15, 20]],
    [100, 20, [0, 20, 40, 60, 80, 100]],
    [150, 25, [0, 25, 50, 75, 100, 125, 150]],
  ])("ticks up to %d by %d", (max, step, ticks) => {
    expect(yTicks(max, step)).toEqual(ticks);
  });

  it.each([
    ["maladaptive", 20, [0, 20, 40, 60]],
    ["replacement", 20, [0, 20, 40, 60, 80, 100]],
    ["teacher_training", 20, [0, 20, 40, 60, 80, 100]],
  ])("%s model: step %d", (category, step, ticks) => {
    const m = buildChartModel(input({ plan: { category }, reports: reports([37]) }));
    expect(m.y.step).toBe(step);
    expect(m.y.ticks).toEqual(ticks);
    expect(m.y.percent).toBe(category !== "maladaptive");
  });
});

/* ------------------------------------------------------------------ labels */

describe("axis label, heading, title", () => {
  it.each([
    ["maladaptive", "occurrences", "per_week", "Frequency"],
    ["maladaptive", null, "per_week", "Frequency"],
    ["maladaptive", "occurrences", null, "Frequency"],
    ["maladaptive", "occurrences", "per_hour", "Incidents per Hour"],
    ["maladaptive", null, "per_hour", "Incidents per Hour"],
    ["maladaptive", "seconds", "per_week", "Duration (Seconds)"],
    ["maladaptive", "seconds", "per_hour", "Duration (Seconds) per Hour"],
    ["maladaptive", "minutes", "per_week", "Duration (Minutes)"],
    ["maladaptive", "minutes", "per_hour", "Duration (Minutes) per Hour"],
    ["replacement", "occurrences", "per_week", "% of Trials"],
    ["replacement", "minutes", "per_hour", "% of Trials"],
    ["caregiver_training", null, null, "% of Trials"],
    ["rbt_training", "seconds", "per_hour", "% of Trials"],
    ["teacher_training", "occurrences", "per_week", "% of Trials"],
  ])("%s, %s, %s → %s", (category, unitType, timeframe, label) => {
    expect(yAxisLabel({ category, unitType, timeframe })).toBe(label);
    expect(buildChartModel(input({ plan: { category, unitType, timeframe } })).y.label).toBe(label);
  });

  it.each([
    ["maladaptive", "Target Behavior to Decrease"],
    ["replacement", "Target Behavior to Increase"],
    ["caregiver_training", "Target Behavior to Increase"],
    ["teacher_training", "Target Behavior to Increase"],
    ["rbt_training", "Target Behavior to Increase"],
  ])("%s heading: %s", (category, heading) => {
    expect(chartHeading(category)).toBe(heading);
    const m = buildChartModel(input({ plan: { category } }));
    expect(m.heading).toBe(heading);
    expect(m.title).toBe("Baseline");
    expect(m.height).toBe(400);
  });
});

/* ------------------------------------------------------------------ weeks */

describe("weeks and missing weeks", () => {
  // Reports in weeks 0, 2 and 5: weeks 1, 3 and 4 are missing.
  const gappy = reports([4, null, 6, null, null, 9]);

  it.each([
    ["maladaptive", true],
    ["replacement", true],
    ["caregiver_training", false],
    ["rbt_training", false],
    ["teacher_training", false],
  ])("%s: missing weeks filled with null points: %s", (category, filled) => {
    const m = buildChartModel(input({ plan: { category }, reports: gappy }));
    if (filled) {
      expect(m.points.map((p) => p.weekEnd)).toEqual([0, 1, 2, 3, 4, 5].map(week));
      expect(m.points.map((p) => p.value)).toEqual([4, null, 6, null, null, 9]);
    } else {
      expect(m.points.map((p) => p.weekEnd)).toEqual([week(0), week(2), week(5)]);
      expect(m.points.map((p) => p.value)).toEqual([4, 6, 9]);
    }
  });

  it("points are in week order whatever the input order, one per Saturday", () => {
    const m = buildChartModel(input({ reports: [{ weekEnd: week(2), value: 3, totalUnits: null }, { weekEnd: week(0), value: 1, totalUnits: null }, { weekEnd: week(1), value: 2, totalUnits: null }] }));
    expect(m.points.map((p) => [p.weekEnd, p.value])).toEqual([[week(0), 1], [week(1), 2], [week(2), 3]]);
    expect(m.points.map((p) => p.x)).toEqual([0, 1, 2].map((i) => day(week(i))));
    expect(m.points[0].label).toBe("01/06/2024");
  });

  it("a legacy report dated mid-week sits on its Saturday; a later report of the same week wins; bad dates are left out", () => {
    const m = buildChartModel(input({ reports: [{ weekEnd: "2024-01-03", value: 1, totalUnits: null }, { weekEnd: "2024-01-06", value: 2, totalUnits: null }, { weekEnd: "2024-02-31", value: 9, totalUnits: null }] }));
    expect(m.points.map((p) => [p.weekEnd, p.value])).toEqual([["2024-01-06", 2]]);
  });

  it("x ticks: at most 10, on Saturdays, inside the window", () => {
    const m = buildChartModel(input({ reports: reports(Array.from({ length: 157 }, (_, i) => i % 30)) }));
    expect(m.x.ticks.length).toBeLessThanOrEqual(10);
    expect(m.x.ticks.length).toBeGreaterThanOrEqual(8);
    for (const t of m.x.ticks) {
      expect(t.x).toBeGreaterThanOrEqual(m.x.min);
      expect(t.x).toBeLessThanOrEqual(m.x.max);
      expect((t.x - day(SAT)) % 7).toBe(0);
    }
    expect(m.x.ticks[0]).toEqual({ x: day(SAT), label: "01/06/24" });
    expect(m.x).toMatchObject({ min: day(SAT) - 3.5, max: day(week(156)) + 3.5, label: "Weeks" });
  });

  it("legend: the weeks shown", () => {
    expect(buildChartModel(input({ reports: reports([1, null, 3]) })).legend.weeks).toBe("3 weeks (01/06/2024 – 01/20/2024)");
    expect(buildChartModel(input({ reports: reports([1]) })).legend.weeks).toBe("1 week (01/06/2024 – 01/06/2024)");
    expect(buildChartModel(input()).legend.weeks).toBe("No weekly reports");
  });

  it("no data at all: an empty model that still has axes", () => {
    const m = buildChartModel(input());
    expect(m).toMatchObject({ empty: true, points: [], objectives: [], comments: [], trend: null, phaseLine: null, baselineMarker: null });
    expect(m.y).toMatchObject({ max: 20, ticks: [0, 5, 10, 15, 20] });
    expect(m.x.max).toBeGreaterThan(m.x.min);
    expect(m.summary).toBe("Frequency: no weekly reports in this period.");
  });
});

/* ------------------------------------------------------------------ per hour */

describe("per-hour values (4 units = 1 hour; default 80 units)", () => {
  it.each([
    [null, 20],
    [0, 20],
    [40, 10],
    [4, 1],
    [6, 1.5],
    [80, 20],
  ])("total units %s → %d hours", (units, hours) => {
    expect(hoursOf(units)).toBe(hours);
  });

  it.each([
    [10, null, 0.5],
    [10, 0, 0.5],
    [25, 40, 2.5],
    [7, 12, 2.3], // 7 / 3 h = 2.333…
    [1, 6, 0.7], // 1 / 1.5 h = 0.666…
    [0.25, 4, 0.3], // half-up
    [0.15, 4, 0.2], // 0.15 is 0.1499… in binary; still half-up
    [0, 40, 0],
  ])("value %d with %s units → %d per hour", (value, units, perHour) => {
    expect(perHourValue(value, units)).toBe(perHour);
  });

  it("a per-hour maladaptive chart shows value ÷ hours and keeps the reported value and hours", () => {
    const m = buildChartModel(input({ plan: { timeframe: "per_hour" }, reports: reports([10, 25, 7], [null, 40, 12]) }));
    expect(m.perHour).toBe(true);
    expect(m.points.map((p) => [p.value, p.reported, p.totalUnits, p.hours])).toEqual([
      [0.5, 10, null, 20],
      [2.5, 25, 40, 10],
      [2.3, 7, 12, 3],
    ]);
    expect(m.series[1].values).toEqual([0.5, 2.5, 2.3]);
  });

  it("a per-week chart, or a '% of Trials' chart, shows the value reported", () => {
    for (const plan of [{ timeframe: "per_week" }, { category: "replacement", timeframe: "per_hour" }]) {
      const m = buildChartModel(input({ plan, reports: reports([10], [40]) }));
      expect(m.perHour).toBe(false);
      expect(m.points[0]).toMatchObject({ value: 10, reported: 10, hours: null });
    }
  });
});

/* ------------------------------------------------------------------ phases */

describe("baseline and treatment phases", () => {
  const five = reports([30, 28, 32, 20, 15]);

  it("weeks on or before baseline_date (a Saturday) are baseline; the two series never join", () => {
    const m = buildChartModel(input({ plan: { baselineDate: week(2), baselineLevel: 30 }, reports: five }));
    expect(m.points.map((p) => p.phase)).toEqual(["baseline", "baseline", "baseline", "treatment", "treatment"]);
    expect(m.series.map((s) => [s.key, s.color])).toEqual([
      ["baseline", "#dc2626"],
      ["treatment", "#0d9488"],
    ]);
    expect(m.series[0].values).toEqual([30, 28, 32, null, null]);
    expect(m.series[1].values).toEqual([null, null, null, 20, 15]);
    expect(m.phaseLine).toEqual({ x: day(week(2)) + 3.5, label: "Baseline | Treatment" });
    expect(m.baselineMarker).toEqual({ date: week(2), dateLabel: "01/20/2024", x: day(week(2)), value: 30 });
  });

  it("a mid-week baseline_date: that week is treatment; the phase line sits after the previous Saturday", () => {
    const m = buildChartModel(input({ plan: { baselineDate: addDays(week(2), -3), baselineLevel: 30 }, reports: five }));
    expect(m.points.map((p) => p.phase)).toEqual(["baseline", "baseline", "treatment", "treatment", "treatment"]);
    expect(m.phaseLine?.x).toBe(day(week(1)) + 3.5);
    expect(m.baselineMarker?.x).toBe(day(week(2)) - 3);
  });

  it("without a baseline date everything is treatment, with no phase line, baseline marker or aim line", () => {
    const m = buildChartModel(input({ plan: { baselineLevel: 30 }, reports: five, objectives: [objective(1, "STO", 1, { target: 10, endDate: week(4) })] }));
    expect(m.points.every((p) => p.phase === "treatment")).toBe(true);
    expect(m.series[0].values.every((v) => v == null)).toBe(true);
    expect(m).toMatchObject({ phaseLine: null, baselineMarker: null, aimLines: [] });
  });

  it("a baseline date without a level: phases and phase line, no baseline marker", () => {
    const m = buildChartModel(input({ plan: { baselineDate: week(1) }, reports: five }));
    expect(m.phaseLine?.x).toBe(day(week(1)) + 3.5);
    expect(m.baselineMarker).toBeNull();
  });

  it("a baseline before any report: the phase line still separates it from treatment", () => {
    const m = buildChartModel(input({ plan: { baselineDate: addDays(SAT, -14), baselineLevel: 40 }, reports: five }));
    expect(m.points.every((p) => p.phase === "treatment")).toBe(true);
    expect(m.phaseLine?.x).toBe(day(SAT) - 14 + 3.5);
    expect(m.x.min).toBe(day(SAT) - 14 - 3.5);
  });
});

/* ------------------------------------------------------------------ sections */

describe("chart sections keep a minimum width share of 12% and 80 px (clinical §9)", () => {
  it.each([
    ["a one-week baseline beside three years of treatment, 880 px", [7, 1092], 880, [0.12, 0.88]],
    ["equal phases stay equal", [50, 50], 880, [0.5, 0.5]],
    ["exactly 12% is kept", [12, 88], 880, [0.12, 0.88]],
    ["just under 12% is raised to it", [11.9, 88.1], 880, [0.12, 0.88]],
    ["a phase of zero length still gets 12%", [0, 100], 880, [0.12, 0.88]],
    ["a short treatment is widened like a short baseline", [97, 3], 880, [0.88, 0.12]],
    ["at 400 px, 80 px (20%) is more than 12%", [7, 1092], 400, [0.2, 0.8]],
    ["at 666.67 px, 80 px is 12%", [5, 95], 2000 / 3, [0.12, 0.88]],
    ["at 1000 px, 12% (120 px) is more than 80 px", [5, 95], 1000, [0.12, 0.88]],
    ["too narrow for two minimums (80 px each in 100 px): equal shares", [1, 99], 100, [0.5, 0.5]],
    ["one section takes the whole plot", [300], 880, [1]],
    ["three sections: both short ones raised", [1, 1, 98], 880, [0.12, 0.12, 0.76]],
    ["three sections: raising one pushes another under the minimum, so it is raised too", [5, 12.2, 82.8], 880, [0.12, 0.12, 0.76]],
    ["three sections: the rest is shared in proportion", [10, 13, 77], 880, [0.12, 0.88 * (13 / 90), 0.88 * (77 / 90)]],
  ] as const)("%s", (_l, lengths, px, shares) => {
    const got = sectionShares(lengths, px);
    expect(got).toHaveLength(shares.length);
    got.forEach((g, i) => expect(g).toBeCloseTo(shares[i]!, 9));
    expect(got.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
  });

  it("no sections, no shares", () => {
    expect(sectionShares([], 880)).toEqual([]);
  });

  // One baseline week, then 100 treatment weeks.
  const long = input({ plan: { baselineDate: week(0), baselineLevel: 20 }, reports: reports(Array.from({ length: 101 }, (_, i) => 20 - (i % 7))), objectives: [objective(1, "STO", 1, { target: 5, endDate: week(100) })] });

  it("the model's sections are baseline and treatment, split at the phase line", () => {
    const m = buildChartModel(long);
    expect(m.sections).toEqual([
      { key: "baseline", label: "Baseline", from: m.x.min, to: m.phaseLine!.x },
      { key: "treatment", label: "Treatment", from: m.phaseLine!.x, to: m.x.max },
    ]);
    const without = buildChartModel(input({ reports: reports([3, 4, 5]) }));
    expect(without.sections).toEqual([{ key: "treatment", label: "Treatment", from: without.x.min, to: without.x.max }]);
  });

  it("the scale maps x through the sections: the baseline takes 12% (or 80 px), each section stays linear", () => {
    const m = buildChartModel(long);
    const s = sectionScale(m, 880);
    expect(s.toFraction(m.x.min)).toBe(0);
    expect(s.toFraction(m.phaseLine!.x)).toBeCloseTo(0.12, 9);
    expect(s.toFraction(m.x.max)).toBe(1);
    const mid = (m.phaseLine!.x + m.x.max) / 2;
    expect(s.toFraction(mid)).toBeCloseTo(0.12 + 0.88 / 2, 9);
    expect(s.fromFraction(s.toFraction(mid))).toBeCloseTo(mid, 6);
    expect(sectionScale(m, 400).toFraction(m.phaseLine!.x)).toBeCloseTo(0.2, 9);
    // Without a phase line the scale is linear.
    const plain = buildChartModel(input({ reports: reports([3, 4, 5]) }));
    const p = sectionScale(plain, 880);
    expect(p.toFraction((plain.x.min + plain.x.max) / 2)).toBeCloseTo(0.5, 9);
  });

  it("an aim line crossing the phase line is drawn through it", () => {
    const m = buildChartModel(long);
    const aim = m.aimLines[0]!;
    const pts = segmentPoints(aim, m.sections);
    expect(pts).toHaveLength(3);
    expect(pts[1]!.x).toBe(m.phaseLine!.x);
    const t = (m.phaseLine!.x - aim.x1) / (aim.x2 - aim.x1);
    expect(pts[1]!.y).toBeCloseTo(aim.y1 + t * (aim.y2 - aim.y1), 3);
    expect(segmentPoints({ x1: 1, y1: 1, x2: 2, y2: 2 }, m.sections)).toEqual([{ x: 1, y: 1 }, { x: 2, y: 2 }]);
  });

  it("the server SVG draws the phase line 12% into the plot", () => {
    const m = buildChartModel(long);
    const svg = chartSvgMarkup(m, "c");
    // Plot from x = 64 to 944 (880 wide): 64 + 0.12 × 880 = 169.6.
    expect(svg).toContain('<path class="bc-phase" d="M169.6 30V350">');
  });
});

/* ------------------------------------------------------------------ markers */

describe("objective markers", () => {
  it("STO1 … STO14 and LTO: label, own colour, at the end date, ordered by position", () => {
    const stos = Array.from({ length: 14 }, (_, i) => objective(100 - i, "STO", i + 1, { endDate: week(i) }));
    const lto = objective(7, "LTO", 15, { endDate: week(20) });
    const m = buildChartModel(input({ objectives: [lto, ...[...stos].reverse()] }));
    expect(m.objectives.map((o) => o.label)).toEqual([...Array.from({ length: 14 }, (_, i) => `STO${i + 1}`), "LTO"]);
    expect(m.objectives.map((o) => o.color)).toEqual([...STO_COLORS, LTO_COLOR]);
    expect(new Set(m.objectives.map((o) => o.color)).size).toBe(15);
    expect(m.objectives.map((o) => o.x)).toEqual([...Array.from({ length: 14 }, (_, i) => day(week(i))), day(week(20))]);
    expect(m.colors.objective).toBe("#7c3aed");
  });

  it.each([
    ["one LTO is 'LTO'", [objective(1, "STO", 1), objective(2, "LTO", 2)], ["STO1", "LTO"]],
    ["two LTOs are numbered", [objective(1, "LTO", 3), objective(2, "LTO", 4), objective(3, "STO", 1)], ["LTO1", "LTO2", "STO1"]],
    ["rank by position, not by id or input order", [objective(9, "STO", 3), objective(8, "STO", 1), objective(7, "STO", 2)], ["STO3", "STO1", "STO2"]],
    ["lower-case type", [objective(1, "sto", 1)], ["STO1"]],
    ["a 15th STO reuses STO1's colour", Array.from({ length: 15 }, (_, i) => objective(i + 1, "STO", i + 1)), Array.from({ length: 15 }, (_, i) => `STO${i + 1}`)],
  ])("%s", (_l, objectives, labels) => {
    const map = objectiveLabels(objectives);
    expect(objectives.map((o) => map.get(o.id)?.label)).toEqual(labels);
    if (objectives.length === 15) expect(map.get(15)?.color).toBe(STO_COLORS[0]);
  });

  it("objectives without an end date have no marker; mastered ones are listed in the legend", () => {
    const m = buildChartModel(
      input({
        reports: reports([3, 4]),
        objectives: [objective(1, "STO", 1, { status: "mastered", name: "Fewer than 5", endDate: week(1) }), objective(2, "STO", 2, { status: "mastered", name: "Fewer than 2" }), objective(3, "LTO", 3, { endDate: week(1) })],
      }),
    );
    expect(m.objectives.map((o) => [o.label, o.mastered])).toEqual([
      ["STO1", true],
      ["LTO", false],
    ]);
    expect(m.legend.mastered).toEqual([
      { label: "STO1", name: "Fewer than 5", color: STO_COLORS[0] },
      { label: "STO2", name: "Fewer than 2", color: STO_COLORS[1] },
    ]);
  });

  it("labels sit on the side of the line that keeps them inside the plot", () => {
    const m = buildChartModel(input({ reports: reports(new Array(10).fill(1)), objectives: [objective(1, "STO", 1, { endDate: week(1) }), objective(2, "STO", 2, { endDate: week(8) })] }));
    expect(m.objectives.map((o) => o.anchor)).toEqual(["start", "end"]);
  });
});

describe("comment markers", () => {
  it("three comments on one day stack 0 / 18 / 36 px; another day starts again at 0", () => {
    const comments = [
      { id: 3, commentDate: week(1), comment: "third" },
      { id: 1, commentDate: week(1), comment: "first" },
      { id: 9, commentDate: week(3), comment: "other day" },
      { id: 2, commentDate: week(1), comment: "second" },
    ];
    expect([...commentStacks(comments).offsets.entries()].sort((a, b) => a[0] - b[0])).toEqual([
      [1, 0],
      [2, 18],
      [3, 36],
      [9, 0],
    ]);
    const m = buildChartModel(input({ reports: reports([1, 2, 3, 4]), comments }));
    expect(m.comments.map((c) => [c.text, c.offsetY, c.x])).toEqual([
      ["first", 0, day(week(1))],
      ["second", 18, day(week(1))],
      ["third", 36, day(week(1))],
      ["other day", 0, day(week(3))],
    ]);
    expect(m.colors.comment).toBe("#000000");
  });

  it.each([
    // [comments on the day, drawn, their last offset, '+n more' label or null]
    [15, 15, 252, null],
    [16, 16, 270, null],
    [17, 15, 252, "+2 more"],
    [26, 15, 252, "+11 more"],
  ])("%d comments on one day: %d drawn (down to %d px), then %s", (n, drawn, lastOffset, more) => {
    const comments = Array.from({ length: n }, (_, i) => ({ id: i + 1, commentDate: week(1), comment: `c${i + 1}` }));
    comments.push({ id: 100, commentDate: week(3), comment: "other day" });
    const m = buildChartModel(input({ reports: reports([1, 2, 3, 4]), comments }));
    const day1 = m.comments.filter((c) => c.date === week(1));
    expect(day1).toHaveLength(n); // every comment stays in the model (the chart data table lists them all)
    const stacked = day1.filter((c) => c.offsetY != null);
    expect(stacked.map((c) => c.text)).toEqual(comments.slice(0, drawn).map((c) => c.comment));
    expect(stacked[stacked.length - 1]!.offsetY).toBe(lastOffset);
    expect(m.comments.find((c) => c.id === 100)!.offsetY).toBe(0);
    expect(m.commentMore).toEqual(more ? [{ date: week(1), dateLabel: "01/13/2024", x: day(week(1)), offsetY: 270, count: n - 15, label: more, anchor: "start" }] : []);
  });

  it("the stack's last row and its label stay inside the plot, above the objective labels", () => {
    const g = chartGeometry(buildChartModel(input({ reports: reports([1]) })));
    const lastLabelBaseline = g.top + 8 + (COMMENT_STACK_ROWS - 1) * COMMENT_STACK_PX + 4;
    expect(lastLabelBaseline).toBeLessThanOrEqual(g.bottom - 6 - 12 - 4); // objective labels: 12 px text on bottom − 6
    // uPlot's plot (28 px padding above, x axis 36 + 20 px below) is 4 px shorter than the SVG's and the PDF's.
    expect(lastLabelBaseline + 4).toBeLessThanOrEqual(g.bottom - 6 - 12);
  });

  it("comment text is trimmed", () => {
    const m = buildChartModel(input({ comments: [{ id: 1, commentDate: SAT, comment: "  med change  " }] }));
    expect(m.comments[0]).toMatchObject({ text: "med change", dateLabel: "01/06/2024" });
  });
});

/* ------------------------------------------------------------------ aim lines */

describe("aim lines", () => {
  const plan = { baselineDate: week(1), baselineLevel: 30 };

  it("from (baseline date, level) to (end date, target) of each objective with both", () => {
    const m = buildChartModel(
      input({
        plan,
        reports: reports([30, 31, 25, 20]),
        objectives: [
          objective(1, "STO", 1, { target: 20, endDate: week(5) }),
          objective(2, "STO", 2, { target: 10, endDate: week(9) }),
          objective(3, "STO", 3, { endDate: week(9) }), // no target
          objective(4, "STO", 4, { target: 5 }), // no end date
          objective(5, "STO", 5, { target: 5, endDate: week(0) }), // ends before the baseline
          objective(6, "LTO", 6, { target: 0, endDate: week(12) }),
        ],
      }),
    );
    expect(m.aimLines).toEqual([
      { objectiveId: 1, label: "STO1", color: STO_COLORS[0], x1: day(week(1)), y1: 30, x2: day(week(5)), y2: 20 },
      { objectiveId: 2, label: "STO2", color: STO_COLORS[1], x1: day(week(1)), y1: 30, x2: day(week(9)), y2: 10 },
      { objectiveId: 6, label: "LTO", color: LTO_COLOR, x1: day(week(1)), y1: 30, x2: day(week(12)), y2: 0 },
    ]);
    expect(m.x.max).toBe(day(week(12)) + 3.5); // the window reaches the last objective's end date
  });

  it("clipped to the chosen window", () => {
    const m = buildChartModel(input({ plan, to: week(3), reports: reports([30, 31, 25, 20]), objectives: [objective(1, "STO", 1, { target: 10, endDate: week(5) })] }));
    // 30 → 10 over 4 weeks: at week 3 (2 weeks in) the line is at 20.
    expect(m.aimLines).toEqual([{ objectiveId: 1, label: "STO1", color: STO_COLORS[0], x1: day(week(1)), y1: 30, x2: day(week(3)), y2: 20 }]);
    expect(m.objectives).toEqual([]); // its end date is outside the window
  });

  it.each([
    ["inside", { x1: 1, y1: 1, x2: 2, y2: 2 }, { x1: 1, y1: 1, x2: 2, y2: 2 }],
    ["crosses the right edge", { x1: 5, y1: 0, x2: 15, y2: 10 }, { x1: 5, y1: 0, x2: 10, y2: 5 }],
    ["crosses the top", { x1: 0, y1: 5, x2: 10, y2: 25 }, { x1: 0, y1: 5, x2: 2.5, y2: 10 }],
    ["outside", { x1: 11, y1: 1, x2: 12, y2: 2 }, null],
  ])("clipSegment: %s", (_l, seg, clipped) => {
    expect(clipSegment(seg, { xMin: 0, xMax: 10, yMin: 0, yMax: 10 })).toEqual(clipped);
  });
});

/* ------------------------------------------------------------------ trend */

describe("split-middle trend over the treatment phase", () => {
  it("even count, hand-computed: [10, 8, 9 | 5, 4, 6]", () => {
    // Halves: weeks 1-3 (median x week 2, median y 9) and weeks 4-6 (median x week 5, median y 5).
    // Slope −4 per 3 weeks; at week 1: 9 + 4/3 = 10.333; at week 6: 9 − 4·4/3 = 3.667.
    const m = buildChartModel(input({ plan: { baselineDate: week(0), baselineLevel: 12 }, reports: reports([12, 10, 8, 9, 5, 4, 6]) }));
    expect(m.trend).toEqual({ x1: day(week(1)), y1: 10.333, x2: day(week(6)), y2: 3.667, slopePerWeek: -1.33 });
  });

  it("odd count drops the middle point: [10, 8, (100), 4, 2]", () => {
    // Halves [10, 8] (median x week 0.5, y 9) and [4, 2] (x week 3.5, y 3): −2 per week.
    const m = buildChartModel(input({ reports: reports([10, 8, 100, 4, 2]) }));
    expect(m.trend).toEqual({ x1: day(week(0)), y1: 10, x2: day(week(4)), y2: 2, slopePerWeek: -2 });
  });

  it("null weeks and baseline weeks do not count; fewer than 4 treatment points → no trend", () => {
    expect(buildChartModel(input({ reports: reports([5, 6, 7]) })).trend).toBeNull();
    expect(buildChartModel(input({ plan: { baselineDate: week(1) }, reports: reports([1, 2, 3, null, 4, 5]) })).trend).toBeNull();
    const m = buildChartModel(input({ plan: { baselineDate: week(1) }, reports: reports([50, 50, 3, null, 4, 5, 6]) }));
    // Treatment points 3, 4, 5, 6 at weeks 2, 4, 5, 6: halves (x weeks 3, y 3.5) and (x 5.5, y 5.5).
    expect(m.trend).toMatchObject({ x1: day(week(2)), x2: day(week(6)), slopePerWeek: 0.8 });
    expect(m.trend?.y1).toBeCloseTo(2.7, 3);
    expect(m.trend?.y2).toBeCloseTo(5.9, 3);
  });

  it("a falling trend is clipped at 0", () => {
    const m = buildChartModel(input({ reports: reports([20, 18, 2, 0, 0, 0]) }));
    // Halves [20, 18, 2] (x week 1, y 18) and [0, 0, 0] (x week 4, y 0): −6 per week, 0 at week 4.
    expect(m.trend).toMatchObject({ x1: day(week(0)), y1: 24, x2: day(week(4)), y2: 0, slopePerWeek: -6 });
  });
});

/* ------------------------------------------------------------------ window */

describe("from / to window", () => {
  const all = input({
    plan: { baselineDate: week(2), baselineLevel: 35 },
    reports: reports([30, 32, 35, 20, 18, 15, 12, 10, 8, 5]),
    objectives: [objective(1, "STO", 1, { target: 20, endDate: week(4) }), objective(2, "LTO", 2, { target: 5, endDate: week(9) })],
    comments: [
      { id: 1, commentDate: week(1), comment: "before" },
      { id: 2, commentDate: week(5), comment: "inside" },
      { id: 3, commentDate: week(9), comment: "after" },
    ],
  });

  it("keeps the weeks and markers in [from, to] (inclusive) and uses the window as the x range", () => {
    const m = buildChartModel({ ...all, from: week(3), to: week(6) });
    expect(m.points.map((p) => p.weekEnd)).toEqual([3, 4, 5, 6].map(week));
    expect(m.x).toMatchObject({ min: day(week(3)), max: day(week(6)) });
    expect(m.comments.map((c) => c.text)).toEqual(["inside"]);
    expect(m.objectives.map((o) => o.label)).toEqual(["STO1"]);
    expect(m.baselineMarker).toBeNull(); // baseline date before the window
    expect(m.phaseLine).toBeNull();
    expect(m.y.max).toBe(60); // baseline 35 still counts: 40 + 20
    expect(m.trend).toMatchObject({ x1: day(week(3)), x2: day(week(6)) });
  });

  it("only from, only to", () => {
    expect(buildChartModel({ ...all, from: week(8) }).points.map((p) => p.value)).toEqual([8, 5]);
    const to = buildChartModel({ ...all, to: week(2) });
    expect(to.points.map((p) => p.value)).toEqual([30, 32, 35]);
    expect(to.x.max).toBe(day(week(2)));
    expect(to.baselineMarker?.x).toBe(day(week(2)));
    expect(to.phaseLine).toBeNull(); // the window ends with the baseline: no treatment to divide from
    expect(buildChartModel({ ...all, to: week(3) }).phaseLine).toEqual({ x: day(week(2)) + 3.5, label: "Baseline | Treatment" });
  });

  it("a reversed window is read the right way round; a window with no data is empty", () => {
    expect(buildChartModel({ ...all, from: week(6), to: week(3) }).points.length).toBe(4);
    const none = buildChartModel({ ...all, from: "2030-01-01", to: "2030-02-01" });
    expect(none).toMatchObject({ empty: true, points: [], comments: [], objectives: [] });
    expect(none.x).toMatchObject({ min: day("2030-01-01"), max: day("2030-02-01") });
  });
});

/* ------------------------------------------------------------------ badge */

describe("badge tone (clinical §9)", () => {
  // A skill to increase: relative difference = (value − target) ÷ |target|, negative when the value falls short.
  it.each([
    [110, 100, "success"], // +10%
    [100, 100, "success"], // 0%
    [90, 100, "success"], // −10%
    [80, 100, "success"], // −20%: "−20% or more" is green
    [79.9, 100, "warning"], // just below −20%
    [70, 100, "warning"], // −30%
    [60, 100, "warning"], // −40%: not yet "below −40%"
    [59.9, 100, "danger"], // just below −40%
    [50, 100, "danger"], // −50%
    [0, 100, "danger"], // −100%
    [0.8, 1, "success"], // −20% with float noise
    [2.4, 3, "success"], // −20%
    [1.8, 3, "warning"], // −40%
    [5, null, "success"], // null target
    [5, 0, "success"], // zero target
    [null, 10, "success"], // nothing measured yet
  ] as const)("increase goal: value %s, target %s → %s", (value, target, tone) => {
    for (const category of ["replacement", "caregiver_training", "rbt_training", "teacher_training"]) expect(badgeTone(value, target, category)).toBe(tone);
  });

  // A behaviour to decrease (maladaptive): lower is better, relative difference = (target − value) ÷ |target|.
  it.each([
    [5, 17, "success"], // the mastered aggression objective: +70.6%, not "far behind"
    [0, 17, "success"], // none at all: +100%
    [17, 17, "success"], // at target: 0%
    [12, 10, "success"], // −20%: "−20% or more" is green
    [12.01, 10, "warning"], // just above the target by more than 20%
    [13, 10, "warning"], // −30%
    [14, 10, "warning"], // −40%: not yet "below −40%"
    [14.01, 10, "danger"], // just below −40%
    [25, 10, "danger"], // −150%
    [1.2, 1, "success"], // −20% with float noise
    [3, 0, "success"], // zero target ("none a week") stays green, as the spec says
    [3, null, "success"], // null target
    [null, 10, "success"], // nothing measured yet
  ] as const)("maladaptive goal: value %s, target %s → %s", (value, target, tone) => {
    expect(badgeTone(value, target, "maladaptive")).toBe(tone);
  });

  it.each([
    [5, 17, "maladaptive", 70.588235],
    [5, 17, "replacement", -70.588235],
    [20, 17, "maladaptive", -17.647059],
    [90, 100, "replacement", -10],
    [-5, -10, "replacement", 50], // a negative target divides by its size
  ] as const)("relative difference of %s against %s (%s) is %s %", (value, target, category, pct) => {
    expect(relativeDifference(value, target, category)).toBeCloseTo(pct, 5);
  });
});

/* ------------------------------------------------------------------ summary */

describe("summary for screen readers", () => {
  it("says what the chart shows", () => {
    const m = buildChartModel(
      input({
        plan: { baselineDate: week(0), baselineLevel: 12 },
        reports: reports([12, 10, 8, 9, 5, 4, 6]),
        objectives: [objective(1, "STO", 1, { target: 3, endDate: week(8) })],
        comments: [{ id: 1, commentDate: week(2), comment: "x" }],
      }),
    );
    expect(m.summary).toBe(
      "Frequency for 7 of 7 weeks from 01/06/2024 to 02/17/2024; values from 4 to 12, last 6 on 02/17/2024. Baseline level 12 on 01/06/2024. Treatment trend decreasing (-1.33 per week). Objectives: STO1 target 3 by 03/02/2024. 1 comment.",
    );
    expect(m.legend.items.map((i) => i.key)).toEqual(["baseline", "treatment", "baselineLevel", "phase", "objective", "comment", "aim", "trend"]);
  });
});

/* ------------------------------------------------------------------ SVG renderer */

function render(model: ChartModel, id = "chart-1"): string {
  return renderToStaticMarkup(createElement(BehaviorChart, { model, id }));
}
const svgOf = (html: string) => html.slice(html.indexOf("<svg"), html.indexOf("</svg>") + 6);
const count = (s: string, needle: RegExp) => (s.match(needle) ?? []).length;

/** Three years of weekly data with a baseline, 6 objectives and 12 comments. */
function threeYears(): ChartModel {
  const values = Array.from({ length: 157 }, (_, i) => (i % 13 === 5 ? null : Math.max(0, Math.round(40 - i / 5 + ((i * 7) % 11)))));
  return buildChartModel(
    input({
      plan: { name: "Physical aggression", baselineDate: week(8), baselineLevel: 42, timeframe: "per_hour" },
      reports: reports(values, values.map((_, i) => (i % 4) * 20)),
      objectives: [1, 2, 3, 4, 5].map((i) => objective(i, "STO", i, { target: 40 - i * 6, endDate: week(i * 26), status: i < 4 ? "mastered" : "in progress", name: `Reduce to ${40 - i * 6} per week` })).concat([objective(6, "LTO", 6, { target: 1, endDate: week(160) })]),
      comments: Array.from({ length: 12 }, (_, i) => ({ id: i + 1, commentDate: week(Math.floor(i / 2) * 25 + 3), comment: `Medication change number ${i + 1}, see note` })),
    }),
  );
}

describe("BehaviorChart (server SVG)", () => {
  it("a 3-year chart stays within 30 KB gzip", () => {
    const html = render(threeYears());
    const svg = svgOf(html);
    const svgGzip = gzipSync(svg).length;
    const figureGzip = gzipSync(html).length;
    console.info(`3-year chart: SVG ${svg.length} B (${svgGzip} B gzip); whole figure with tables and model ${html.length} B (${figureGzip} B gzip)`);
    expect(svgGzip).toBeLessThanOrEqual(30 * 1024);
    expect(count(svg, /<circle [^>]*r="3.5"/g)).toBe(threeYears().points.filter((p) => p.value != null).length);
    const coordinates = [...svg.matchAll(/ (?:d|cx|cy|x|y)="([^"]*)"/g)].map((x) => x[1]);
    expect(coordinates.length).toBeGreaterThan(300);
    expect(coordinates.filter((c) => /\d\.\d\d/.test(c))).toEqual([]); // rounded to 1 decimal
    expect(svg).not.toMatch(/style="/); // no inline styles in the SVG
  });

  it("is an accessible image with a title, a summary and a data table", () => {
    const m = threeYears();
    const html = render(m);
    expect(html).toContain('<figure class="bc" id="chart-1" data-behavior-chart="">');
    expect(html).toContain('role="img" aria-labelledby="chart-1-title chart-1-desc"');
    expect(html).toContain('<title id="chart-1-title">Baseline: Target Behavior to Decrease — Physical aggression</title>');
    expect(html).toContain(`<desc id="chart-1-desc">${m.summary}</desc>`);
    expect(html).toContain('viewBox="0 0 960 400" width="100%" height="400"');
    const rows = html.slice(html.indexOf("<tbody>"), html.indexOf("</tbody>"));
    expect(count(rows, /<tr>/g)).toBe(157);
    expect(html).toContain("<th scope=\"col\">Incidents per Hour</th><th scope=\"col\">Reported</th><th scope=\"col\">Hours</th>");
    expect(html).toContain("<td>STO1: Reduce to 34 per week</td>");
  });

  it("draws the lines, breaks, phase line, markers, aim and trend lines", () => {
    const m = buildChartModel(
      input({
        plan: { baselineDate: week(1), baselineLevel: 30 },
        reports: reports([30, 28, 20, null, 15, 12, 10]),
        objectives: [objective(1, "STO", 1, { target: 10, endDate: week(8), status: "mastered", name: "Under 10" }), objective(2, "LTO", 2, { target: 2, endDate: week(10) })],
        comments: [1, 2, 3].map((id) => ({ id, commentDate: week(4), comment: `note ${id}` })),
      }),
    );
    const svg = svgOf(render(m));
    const paths = (cls: string) => [...svg.matchAll(new RegExp(`<g class="${cls}"><path class="bc-line" d="([^"]*)"`, "g"))].map((x) => x[1]);
    expect(count(paths("bc-b")[0], /M/g)).toBe(1); // weeks 0-1
    expect(count(paths("bc-tr")[0], /M/g)).toBe(2); // week 2 alone, the null week 3 breaks, weeks 4-6
    expect(svg).toContain(">Baseline | Treatment</text>");
    expect(svg).toMatch(/<path class="bc-phase" d="M224 30V350"><\/path>/); // half a week after the last baseline week
    expect(svg).toContain(">STO1</text>");
    expect(svg).toContain(">LTO</text>");
    expect(count(svg, /class="bc-aim"/g)).toBe(2);
    expect(count(svg, /class="bc-trend"/g)).toBe(1);
    const commentDots = [...svg.matchAll(/<circle class="bc-cd" cx="[\d.]+" cy="([\d.]+)"/g)].map((x) => Number(x[1]));
    expect(commentDots).toEqual([38, 56, 74]); // top 30 + 8, then 18 px apart
    expect(svg).toContain("<title>02/03/2024: note 2</title>");
    expect(svg).toContain("<title>Baseline level 30 on 01/13/2024</title>");
    expect(render(m)).toContain('<strong class="obj-chip" style="color:#2563eb">STO1</strong> Under 10');
  });

  it("caps a day's stack of comment markers inside the plot with a '+n more' label", () => {
    const comments = Array.from({ length: 26 }, (_, i) => ({ id: i + 1, commentDate: week(2), comment: `note ${i + 1}` }));
    const m = buildChartModel(input({ reports: reports([3, 4, 5, 6]), comments }));
    const g = chartGeometry(m);
    const html = render(m);
    const svg = svgOf(html);
    const dots = [...svg.matchAll(/<circle class="bc-cd" cx="[\d.]+" cy="([\d.]+)"/g)].map((x) => Number(x[1]));
    expect(dots).toHaveLength(15);
    expect(Math.max(...dots)).toBeLessThan(g.bottom - 20);
    const labelYs = [...svg.matchAll(/<text class="bc-ct[^"]*" x="[\d.]+" y="([\d.]+)">([^<]*)<\/text>/g)].map((x) => [Number(x[1]), x[2]] as const);
    expect(labelYs).toHaveLength(16);
    expect(labelYs[15]).toEqual([g.top + 8 + 270 + 4, "+11 more"]);
    expect(labelYs.every(([y]) => y < g.bottom - 18)).toBe(true);
    expect(svg).toContain("<title>01/20/2024: 11 more comments, listed in the chart data</title>");
    expect(svg).not.toContain(">note 16</text>");
    expect(html).toContain("<td>note 26</td>"); // the data table lists every comment
  });

  it("embeds the model as JSON that cannot close its script, and the module script", () => {
    const m = buildChartModel(input({ reports: reports([1, 2]), comments: [{ id: 1, commentDate: SAT, comment: "</script><b>x</b>" }] }));
    const html = render(m);
    const json = /<script type="application\/json" data-chart-model="">(.*?)<\/script>/s.exec(html)?.[1] ?? "";
    expect(json).not.toContain("<");
    expect(JSON.parse(json)).toEqual(m);
    expect(html).toMatch(/<script type="module" src="\/assets\/behavior-chart-[0-9a-f]{10}\.js"><\/script>/);
    expect(html).toContain("<title>01/06/2024: &lt;/script&gt;&lt;b&gt;x&lt;/b&gt;</title>");
  });

  it("escapes every text it draws: plan name, objective names, comments (SVG and tables)", () => {
    const m = buildChartModel(
      input({
        plan: { name: `Hits <img src=x onerror="alert(1)"> & 'kicks'` },
        reports: reports([3, 4]),
        objectives: [objective(1, "STO", 1, { target: 2, endDate: week(1), name: "<i>less</i>" })],
        comments: [{ id: 1, commentDate: SAT, comment: `"quoted" & <b>bold</b>` }],
      }),
    );
    const html = render(m);
    const withoutJson = html.replace(/<script type="application\/json"[\s\S]*?<\/script>/, "");
    expect(withoutJson).not.toMatch(/<img|<i>|<b>/);
    expect(withoutJson).toContain("Hits &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; &#x27;kicks&#x27;");
    expect(withoutJson).toContain("<td>STO1: &lt;i&gt;less&lt;/i&gt;</td>");
    expect(withoutJson).toContain("<td>&quot;quoted&quot; &amp; &lt;b&gt;bold&lt;/b&gt;</td>");
  });

  it("an empty chart says so", () => {
    const html = render(buildChartModel(input()));
    expect(html).toContain(">No weekly reports</text>");
    expect(html).toContain('<td colspan="3">No Weekly Reports</td>');
  });
});
