import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { YearChart } from "~/components/charts/year-chart";
import { buildYearChartModel, patientsByGender, type GenderMonth } from "~/domain/dashboard";

/** A year of counts from a sparse list of [month, hombre, mujer]. */
const year = (rows: [number, number, number][]): GenderMonth[] => {
  const out = patientsByGender(2025, []);
  for (const [month, hombre, mujer] of rows) Object.assign(out[month - 1]!, { hombre, mujer });
  return out;
};

describe("the dashboard's year chart model", () => {
  it.each([
    ["no patients: one step of 2", [], 2, 2, [0, 2]],
    ["a single patient", [[1, 1, 0]], 2, 2, [0, 2]],
    ["highest 7 → 8 in steps of 2", [[3, 7, 2]], 8, 2, [0, 2, 4, 6, 8]],
    ["highest 10 stays 10", [[3, 4, 10]], 10, 2, [0, 2, 4, 6, 8, 10]],
    ["highest 11 → 15 in steps of 5", [[12, 11, 0]], 15, 5, [0, 5, 10, 15]],
    ["highest 26 → 30 in steps of 10", [[6, 0, 26]], 30, 10, [0, 10, 20, 30]],
    ["highest 101 → 150 in steps of 50", [[6, 101, 3]], 150, 50, [0, 50, 100, 150]],
  ] as [string, [number, number, number][], number, number, number[]][])("y axis: %s", (_l, rows, max, step, ticks) => {
    expect(buildYearChartModel(2025, year(rows)).y).toEqual({ max, step, ticks, label: "New patients" });
  });

  it("has twelve months, two series (male, female) and a summary", () => {
    const m = buildYearChartModel(2025, year([[3, 2, 1], [11, 0, 4]]));
    expect(m.months.map((x) => x.label)).toEqual(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]);
    expect(m.series.map((s) => [s.label, s.values[2], s.values[10]])).toEqual([
      ["Male", 2, 0],
      ["Female", 1, 4],
    ]);
    expect(m.empty).toBe(false);
    expect(m.summary).toBe("New patients in 2025: 2 male and 5 female. The busiest month was November with 4.");
    expect(buildYearChartModel(2025, year([])).summary).toBe("No new patients in 2025.");
    // Missing months count as zero.
    expect(buildYearChartModel(2025, [{ year: 2025, month: 5, hombre: 1, mujer: 0 }]).months[4]).toMatchObject({ name: "May", hombre: 1, mujer: 0 });
  });

  it("the server SVG draws one titled bar per non-zero count, an empty year says so, and it stays small", () => {
    const html = renderToStaticMarkup(createElement(YearChart, { model: buildYearChartModel(2025, year([[3, 2, 1], [11, 0, 4]])), id: "y" }));
    expect(html.match(/<rect x=/g)).toHaveLength(3);
    expect(html).toContain("<title>November 2025, female: 4</title>");
    expect(html).toContain('role="img" aria-labelledby="y-title y-desc"');
    expect(renderToStaticMarkup(createElement(YearChart, { model: buildYearChartModel(2025, year([])), id: "y" }))).toContain("No new patients");
    const full = renderToStaticMarkup(createElement(YearChart, { model: buildYearChartModel(2025, year(Array.from({ length: 12 }, (_, i) => [i + 1, 40 + i, 30 + i]))), id: "y" }));
    expect(gzipSync(full).length).toBeLessThan(4096);
  });
});
