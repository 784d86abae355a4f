import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { YearChart } from "~/components/charts/year-chart";
import { buildYearChartModel, patientsByGender, type GenderMonth } from "~/domain/dashboard";

/** A year of counts from a sparse list of [month, hombre, mujer, no_indicado?]. */
const year = (rows: [number, number, number, number?][]): GenderMonth[] => {
  const out = patientsByGender(2025, []);
  for (const [month, hombre, mujer, no_indicado = 0] of rows) Object.assign(out[month - 1]!, { hombre, mujer, no_indicado });
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
    ["not given highest: 9 → 10", [[4, 1, 2, 9]], 10, 2, [0, 2, 4, 6, 8, 10]],
  ] as [string, [number, number, number, number?][], number, number, number[]][])("y axis: %s", (_l, rows, max, step, ticks) => {
    expect(buildYearChartModel(2025, year(rows)).y).toEqual({ max, step, ticks, label: "New patients" });
  });

  it("has twelve months, three series (male, female, not given) and a summary that adds up to every new patient", () => {
    const m = buildYearChartModel(2025, year([[3, 2, 1, 3], [11, 0, 4]]));
    expect(m.months.map((x) => x.label)).toEqual(["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]);
    expect(m.series.map((s) => [s.label, s.values[2], s.values[10]])).toEqual([
      ["Male", 2, 0],
      ["Female", 1, 4],
      ["Not given", 3, 0],
    ]);
    expect(m.empty).toBe(false);
    expect(m.summary).toBe("New patients in 2025: 10 (2 male, 5 female, 3 gender not given). The busiest month was March with 6.");
    expect(buildYearChartModel(2025, year([])).summary).toBe("No new patients in 2025.");
    // A year of only clients without a gender is not empty.
    expect(buildYearChartModel(2025, year([[2, 0, 0, 1]]))).toMatchObject({ empty: false, summary: "New patients in 2025: 1 (0 male, 0 female, 1 gender not given). The busiest month was February with 1." });
    // Missing months count as zero.
    expect(buildYearChartModel(2025, [{ year: 2025, month: 5, hombre: 1, mujer: 0, no_indicado: 0 }]).months[4]).toMatchObject({ name: "May", hombre: 1, mujer: 0, no_indicado: 0 });
  });

  it("the three series have distinct colours, each at least 3:1 against the white plot", () => {
    const lum = (hex: string) => {
      const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
    };
    const colors = buildYearChartModel(2025, year([])).series.map((s) => s.color);
    expect(new Set(colors).size).toBe(3);
    for (const c of colors) expect(1.05 / (lum(c) + 0.05)).toBeGreaterThanOrEqual(3);
  });

  it("the server SVG draws one titled bar per non-zero count, an empty year says so, and it stays small", () => {
    const html = renderToStaticMarkup(createElement(YearChart, { model: buildYearChartModel(2025, year([[3, 2, 1], [11, 0, 4, 2]])), id: "y" }));
    expect(html.match(/<rect x=/g)).toHaveLength(4);
    expect(html).toContain("<title>November 2025, female: 4</title>");
    expect(html).toContain("<title>November 2025, not given: 2</title>");
    expect(html).toContain('<th scope="col">Month</th><th scope="col">Male</th><th scope="col">Female</th><th scope="col">Not given</th>');
    expect(html).toContain('<th scope="row">November</th><td>0</td><td>4</td><td>2</td>');
    expect(html).toContain("Not given</li>");
    expect(html).toContain('role="img" aria-labelledby="y-title y-desc"');
    expect(renderToStaticMarkup(createElement(YearChart, { model: buildYearChartModel(2025, year([])), id: "y" }))).toContain("No new patients");
    const full = renderToStaticMarkup(createElement(YearChart, { model: buildYearChartModel(2025, year(Array.from({ length: 12 }, (_, i) => [i + 1, 40 + i, 30 + i, 10 + i]))), id: "y" }));
    expect(gzipSync(full).length).toBeLessThan(4096);
  });
});
