import { withDefaults } from "~/domain/bip-defaults";
import { readDocument } from "~/domain/bip-document";
import { buildChartModel, type ChartInput } from "~/domain/chart";
import { PDF_SECTION_KEYS, type PdfGoal, type PlanPdfView } from "~/domain/plan-pdf";
import { pdfWindow } from "~/domain/weekly-reports";
import { addDays } from "~/domain/weeks";

/**
 * A behavior plan as the PDF sees it, for the unit tests and `npm run bench` (issue 12: "a plan PDF of 26
 * sections with 3 years of charts is ready ≤ 10 s and ≤ 1 MB"): four goals, three of them charted with 156
 * weeks of reports, every section chosen.
 */

/** Three years of weekly reports for a goal, a baseline, two objectives and some comments. */
export function chartInput(name: string, category: string, weeks = 156, to = "2026-11-21"): ChartInput {
  const reports = Array.from({ length: weeks }, (_, i) => ({ weekEnd: addDays(to, -7 * (weeks - 1 - i)), value: (i * 7) % 23, totalUnits: 40 + (i % 5) }));
  return {
    plan: { name, category, baselineDate: reports[3]!.weekEnd, baselineLevel: 18, unitType: "occurrences", timeframe: "per_week" },
    objectives: [
      { id: 1, type: "STO", position: 1, status: "mastered", target: 10, initialDate: null, endDate: reports[Math.min(60, weeks - 1)]!.weekEnd, name: "Half" },
      { id: 2, type: "LTO", position: 2, status: "in progress", target: 2, initialDate: null, endDate: reports[Math.min(150, weeks - 1)]!.weekEnd, name: "Near zero" },
    ],
    reports,
    comments: [
      { id: 1, commentDate: reports[Math.min(20, weeks - 1)]!.weekEnd, comment: "New school" },
      { id: 2, commentDate: reports[Math.min(20, weeks - 1)]!.weekEnd, comment: "Medication change" },
    ],
    from: reports[0]!.weekEnd,
    to,
  };
}

export function goal(id: number, name: string, category: string): PdfGoal {
  return {
    id,
    name,
    category,
    status: "active",
    description: `${name}: any instance of the behavior.`,
    baseline_level: 18,
    baseline_date: "2023-12-16",
    objectives: [
      { id: 1, type: "STO", position: 1, name: "Half", description: null, target: 10, status: "mastered", end_date: "2025-01-04" },
      { id: 2, type: "LTO", position: 2, name: "Near zero", description: null, target: 2, status: "in progress", end_date: "2026-10-10" },
    ],
  };
}

export function view(over: Partial<PlanPdfView> = {}): PlanPdfView {
  const goals = [goal(11, "Aggression", "maladaptive"), goal(12, "Elopement", "maladaptive"), goal(21, "Manding", "replacement"), goal(31, "Reinforcement", "caregiver_training")];
  const charts = new Map(goals.filter((g) => g.category !== "caregiver_training").map((g) => [g.id, buildChartModel(chartInput(g.name, g.category))]));
  const doc = withDefaults(readDocument(JSON.stringify({ background_information: "Lives with both parents.\nAttends 2nd grade.", policy: "Clinic policy text.", report_writer: "Dr. Rivera" })));
  return {
    bip: { id: 42, type_label: "Initial Assessment", patient_name: "Ana Lopez", patient_identifier: "C-0042", doctor_name: "Dr. Rivera" },
    doc,
    goals,
    charts,
    sections: [...PDF_SECTION_KEYS],
    months: 36,
    window: pdfWindow("2026-11-26", 36),
    generatedOn: "2026-11-26",
    ...over,
  };
}
