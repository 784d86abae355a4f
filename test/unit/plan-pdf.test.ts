import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { withDefaults } from "~/domain/bip-defaults";
import { readDocument } from "~/domain/bip-document";
import { buildChartModel } from "~/domain/chart";
import {
  DEFAULT_PDF_MONTHS,
  GoalPdfRequest,
  MonthsField,
  PDF_MESSAGES,
  PDF_SECTION_KEYS,
  PDF_SECTIONS,
  PlanPdfRequest,
  goalPdfDocument,
  monthsBefore,
  pdfFilename,
  planPdfDocument,
  isSectionToggle,
  SECTION_TOGGLES,
  sectionToggle,
  type PlanPdfDocument,
} from "~/domain/plan-pdf";
import { parseWith } from "~/domain/validation";
import { pdfWindow } from "~/domain/weekly-reports";
import { MARGIN, PAGE } from "~/services/note-pdf.server";
import { renderPlanPdf } from "~/services/plan-pdf.server";
import { pdfLineEnds, pdfPages, pdfText } from "../support/pdf-text";
import { chartInput, goal, view } from "../support/plan-pdf-fixture";

describe("the 26 sections of a plan PDF (clinical §3)", () => {
  it("are the spec's keys, in order, each with a readable label", () => {
    expect(PDF_SECTION_KEYS).toEqual([
      "background", "individualizedRationale", "treatmentAndResults", "maladaptives", "assessmentsConducted", "prevalentSetting", "hypothesisBasedInterventions",
      "interventions", "maladaptiveGoals", "replacementGoals", "familyInvolvement", "monitoringEvaluating", "behaviorAssitant", "schoolServicesJustification",
      "schoolFadingPlan", "scheduleOfServices", "functionalImpairment", "generalizationTraining", "riskAssessment", "fadingPlan", "dischargePlan", "crisisPlan",
      "deEscalationTechniques", "serviceRecomendation", "consentToTreatment", "policy",
    ]);
    for (const s of PDF_SECTIONS) expect(s.label).toMatch(/^[A-Z][a-z]/);
    expect(new Set(PDF_SECTIONS.map((s) => s.label)).size).toBe(26);
  });
});

describe("the chooser (clinical §4, §5)", () => {
  it.each([
    ["one section from a form", { sections: "policy" }, ["policy"]],
    ["several, kept in the PDF's order", { sections: ["policy", "background"] }, ["background", "policy"]],
    ["a comma list from the API", { sections: "crisisPlan, background" }, ["background", "crisisPlan"]],
    ["duplicates once", { sections: ["policy", "policy"] }, ["policy"]],
    ["all 26", { sections: [...PDF_SECTION_KEYS] }, [...PDF_SECTION_KEYS]],
  ])("%s", (_name, raw, sections) => {
    const r = parseWith(PlanPdfRequest, raw);
    expect(r.ok && r.data.sections).toEqual(sections);
  });

  it.each([
    ["no sections at all", {}, PDF_MESSAGES.noSection],
    ["an empty list", { sections: [] }, PDF_MESSAGES.noSection],
    ["an empty form value", { sections: "" }, PDF_MESSAGES.noSection],
    ["an unknown key", { sections: ["background", "secrets"] }, PDF_MESSAGES.unknownSection],
    ["not a list", { sections: 5 }, PDF_MESSAGES.unknownSection],
  ])("refuses %s", (_name, raw, message) => {
    const r = parseWith(PlanPdfRequest, raw);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.errors.sections).toBe(message);
  });

  it("'You must select at least one section.' is the spec's wording", () => {
    expect(PDF_MESSAGES.noSection).toBe("You must select at least one section.");
  });

  // The button shows, and carries, one action; the server does it whatever boxes were changed since (probe 8983 L3).
  it.each<[string, string[], string, string, string[]]>([
    ["all selected", [...PDF_SECTION_KEYS], "select-none", "Deselect All", []],
    ["none selected", [], "select-all", "Select All", [...PDF_SECTION_KEYS]],
    ["one selected", ["policy"], "select-all", "Select All", [...PDF_SECTION_KEYS]],
    ["all but one selected", PDF_SECTION_KEYS.slice(1), "select-all", "Select All", [...PDF_SECTION_KEYS]],
  ])("toggle flips all at once: %s", (_case, selected, toggle, label, after) => {
    const shown = sectionToggle(selected);
    expect(shown).toBe(toggle);
    expect(SECTION_TOGGLES[shown].label).toBe(label);
    expect(SECTION_TOGGLES[shown].sections).toEqual(after);
  });

  it.each([["select-all", true], ["select-none", true], ["toggle", false], ["save", false], ["constructor", false], [undefined, false]])("%s is a toggle: %s", (intent, yes) => {
    expect(isSectionToggle(intent)).toBe(yes);
  });

  it("a goal PDF is weekly reports (default) or chart comments", () => {
    expect(v.parse(GoalPdfRequest, {})).toEqual({ kind: "weekly_report", months: 6 });
    expect(v.parse(GoalPdfRequest, { kind: "chart_comments", months: "12" })).toEqual({ kind: "chart_comments", months: 12 });
    expect(v.safeParse(GoalPdfRequest, { kind: "plan" }).success).toBe(false);
  });
});

describe("the month count (clinical §5: finite, truncated, at least 1, default 6)", () => {
  it.each([
    [undefined, 6],
    [null, 6],
    ["", 6],
    ["  ", 6],
    [6, 6],
    ["3", 3],
    [2.9, 2],
    ["7.99", 7],
    [" 12 ", 12],
    ["-5", 1],
    [0, 1],
    [-4, 1],
    ["0.5", 1],
    [120, 120],
  ])("%j → %d", (raw, months) => {
    expect(v.parse(MonthsField, raw)).toBe(months);
  });

  it.each([["abc"], ["Infinity"], [Number.NaN], [Number.POSITIVE_INFINITY], ["1e400"], [121], [{}], [true], ["0x10"], ["1e2"], ["1e1"], ["0b11"], ["0o7"], ["3 months"]])("refuses %j", (raw) => {
    expect(v.safeParse(MonthsField, raw).success).toBe(false);
  });

  it.each([["0x10"], ["1e2"], [" 1e1 "]])("refuses %j with the spec's message (a plain decimal only, decision 009)", (raw) => {
    const r = v.safeParse(MonthsField, raw);
    expect(r.success ? null : r.issues[0]!.message).toBe("The month count must be a number.");
  });

  it("the default is the spec's 6 months", () => expect(DEFAULT_PDF_MONTHS).toBe(6));

  // The window ends on the Saturday that ends the current week, the last week a report may be entered for, so the
  // current week's report is printed (probe 8952 #3).
  it.each([
    ["2026-11-26", 6, "2026-05-26", "2026-11-28"],
    ["2026-11-28", 6, "2026-05-28", "2026-11-28"],
    ["2026-03-31", 1, "2026-02-28", "2026-04-04"],
    ["2024-03-31", 1, "2024-02-29", "2024-04-06"],
    ["2026-01-15", 1, "2025-12-15", "2026-01-17"],
    ["2026-01-15", 36, "2023-01-15", "2026-01-17"],
    ["2026-08-31", 120, "2016-08-31", "2026-09-05"],
  ])("%s minus %d months is %s; the window runs to %s", (date, months, from, to) => {
    expect(monthsBefore(date, months)).toBe(from);
    expect(pdfWindow(date, months)).toEqual({ from, to });
  });
});

describe("file names never carry the client", () => {
  it.each([
    ["plan", 7, "behavior-plan-7.pdf"],
    ["weekly_report", 9, "weekly-reports-9.pdf"],
    ["chart_comments", 9, "chart-comments-9.pdf"],
  ] as const)("%s #%d → %s", (kind, id, name) => expect(pdfFilename(kind, id)).toBe(name));
});

describe("the layout model", () => {
  it("prints the chosen sections only, in the fixed order, each titled by its label", () => {
    const d = planPdfDocument(view({ sections: ["policy", "background", "crisisPlan"] }));
    expect(d.sections.map((s) => s.key)).toEqual(["background", "crisisPlan", "policy"]);
    expect(d.sections.map((s) => s.title)).toEqual(["Background information", "Crisis plan", "Policy"]);
    expect(d.footer).toBe("Behavior plan #42");
    expect(d.footer).not.toContain("Ana");
  });

  it("every one of the 26 sections has content (defaults fill the empty ones)", () => {
    const d = planPdfDocument(view());
    expect(d.sections).toHaveLength(26);
    for (const s of d.sections) expect(s.blocks.length, s.key).toBeGreaterThan(0);
    const crisis = d.sections.find((s) => s.key === "crisisPlan")!;
    expect(crisis.blocks.every((b) => b.kind === "paragraph" && b.text !== "—")).toBe(true);
  });

  it("goal sections carry each goal's objectives and its chart from the one chart model", () => {
    const d = planPdfDocument(view());
    const maladaptive = d.sections.find((s) => s.key === "maladaptiveGoals")!;
    const charts = maladaptive.blocks.filter((b) => b.kind === "chart");
    expect(charts).toHaveLength(2);
    expect(charts[0]!.kind === "chart" && charts[0]!.model.points).toHaveLength(156);
    const objectives = maladaptive.blocks.find((b) => b.kind === "table" && b.label === "Objectives");
    expect(objectives?.kind === "table" && objectives.rows).toEqual([
      ["STO1", "Half", "10", "01/04/2025", "mastered"],
      ["LTO", "Near zero", "2", "10/10/2026", "in progress"],
    ]);
    // Caregiver goals have no weekly chart.
    expect(d.sections.find((s) => s.key === "familyInvolvement")!.blocks.some((b) => b.kind === "chart")).toBe(false);
  });

  // Decision 008: the rank among objectives of the same type, "LTO" when there is only one — the labels of the goal
  // screen and the chart (probe 8952 #4: the PDF printed the position, "LTO3"). [objectives as type@position, labels]
  it.each<[string, string[], string[]]>([
    ["two STOs and the LTO", ["STO@1", "STO@2", "LTO@3"], ["STO1", "STO2", "LTO"]],
    ["the LTO alone", ["LTO@2"], ["LTO"]],
    ["two LTOs", ["STO@1", "LTO@2", "LTO@3"], ["STO1", "LTO1", "LTO2"]],
    ["positions with gaps, the LTO stored before an STO", ["LTO@1", "STO@4", "STO@7"], ["STO1", "STO2", "LTO"]],
  ])("objective labels in the PDF: %s", (_case, stored, labels) => {
    const objectives = stored.map((s, i) => {
      const [type, position] = s.split("@") as [string, string];
      return { id: i + 1, type, position: Number(position), name: s, description: null, target: null, status: "in progress", end_date: null };
    });
    const d = planPdfDocument(view({ goals: [{ ...goal(11, "Aggression", "maladaptive"), objectives }], sections: ["maladaptiveGoals"] }));
    const table = d.sections[0]!.blocks.find((b) => b.kind === "table" && b.label === "Objectives");
    expect(table?.kind === "table" && table.rows.map((r) => r[0])).toEqual(labels);
  });

  it("monitoring lists every goal with its weekly data in the window", () => {
    const d = planPdfDocument(view());
    const t = d.sections.find((s) => s.key === "monitoringEvaluating")!.blocks[0]!;
    expect(t.kind === "table" && t.label).toContain("the last 36 months");
    expect(t.kind === "table" && t.rows.map((r) => r[0])).toEqual(["Aggression", "Elopement", "Manding", "Reinforcement"]);
    expect(t.kind === "table" && t.rows[0]![2]).toBe("156");
  });

  it("the consent table shows each signer and a line for a placeholder", () => {
    const doc = withDefaults(readDocument(JSON.stringify({ consent_to_treatment: { parent_guardian: { signature: "Maria Lopez", signature_date: "2026-01-05" }, physician: { signature_placeholder: true } } })));
    const d = planPdfDocument(view({ doc, sections: ["consentToTreatment"] }));
    const t = d.sections[0]!.blocks[1]!;
    expect(t.kind === "table" && t.rows).toEqual([
      ["Analyst 1", "—", "—"],
      ["Analyst 2", "—", "—"],
      ["Physician", "________________", "—"],
      ["Parent/guardian", "Maria Lopez", "01/05/2026"],
    ]);
  });

  // [audience, the header's fields after Doctor, the consent table's signatures] — the family copy names no staff by a
  // typed full name (decision 041, stop 38); the caller gives it the doctor's first name.
  it.each<["staff" | "family", string[], string[]]>([
    ["staff", ["Doctor", "Report writer", "Weekly data", "Generated"], ["Dana Whitfield", "—", "________________", "Maria Lopez"]],
    ["family", ["Doctor", "Weekly data", "Generated"], ["Signed", "—", "________________", "Maria Lopez"]],
  ])("the %s copy: header fields and signatures", (audience, fields, signatures) => {
    const doc = withDefaults(
      readDocument(
        JSON.stringify({
          report_writer: "Dana Whitfield",
          consent_to_treatment: { analyst_1: { signature: "Dana Whitfield" }, parent_guardian: { signature: "Maria Lopez", signature_date: "2026-01-05" }, physician: { signature_placeholder: true } },
        }),
      ),
    );
    const d = planPdfDocument(view({ doc, sections: ["consentToTreatment"], audience }));
    expect(d.fields.map(([label]) => label).slice(2)).toEqual(fields);
    expect(JSON.stringify(d).includes("Whitfield")).toBe(audience === "staff");
    const t = d.sections[0]!.blocks[1]!;
    expect(t.kind === "table" && t.rows.map((r) => r[1])).toEqual(signatures);
  });

  it("a goal's weekly-report PDF lists the weeks, its chart-comment PDF the comments", () => {
    const input = chartInput("Aggression", "maladaptive", 10);
    const base = { goal: { ...goal(11, "Aggression", "maladaptive"), patient_name: "Ana Lopez", patient_identifier: "C-0042" }, chart: buildChartModel(input), reports: input.reports, comments: input.comments, months: 6, window: pdfWindow("2026-11-26", 6), generatedOn: "2026-11-26" };
    const weekly = goalPdfDocument({ ...base, kind: "weekly_report" });
    expect(weekly.title).toBe("Weekly Reports");
    const rows = weekly.sections[1]!.blocks[0]!;
    expect(rows.kind === "table" && rows.rows).toHaveLength(10);
    expect(rows.kind === "table" && rows.rows[0]).toEqual(["09/19/2026", "0", "40", "10"]);
    const comments = goalPdfDocument({ ...base, kind: "chart_comments" });
    expect(comments.title).toBe("Chart Comments");
    const c = comments.sections[1]!.blocks[0]!;
    expect(c.kind === "table" && c.rows.map((r) => r[1])).toEqual(["New school", "Medication change"]);
    expect(comments.footer).toBe("Chart comments of goal #11");
  });
});

describe("the renderer", () => {
  it("draws a plan of 26 sections with 3 years of weekly charts as vectors: a PDF under 1 MB (its time: npm run bench)", async () => {
    const bytes = await renderPlanPdf(planPdfDocument(view()));
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    expect(bytes.byteLength).toBeLessThan(1_000_000);
    const text = await pdfText(bytes);
    for (const s of PDF_SECTIONS) expect(text, s.label).toContain(s.label);
    expect(text).toContain("Lives with both parents.");
    expect(text).toContain("Baseline | Treatment");
    expect(text).toContain("Frequency");
    expect(text).toContain("New school");
    const pages = await pdfPages(bytes);
    expect(pages.at(-1)!.join(" ")).toContain(`Page ${pages.length} of ${pages.length}`);
    // No image: the charts are paths.
    expect(new TextDecoder("latin1").decode(bytes)).not.toContain("/Subtype /Image");
  });

  it("a chart of values up to 1,000,000 with 26 comments on one day keeps 11 y labels and a '+11 more' marker", async () => {
    const input = chartInput("Tantrum duration", "maladaptive", 12);
    input.reports = input.reports.map((r, i) => ({ ...r, value: i === 5 ? 1_000_000 : 9100 - 400 * i }));
    input.comments = Array.from({ length: 26 }, (_, i) => ({ id: i + 1, commentDate: input.reports[6]!.weekEnd, comment: `Comment ${i + 1}` }));
    const chart = buildChartModel(input);
    const d = goalPdfDocument({ goal: { ...goal(11, "Tantrum duration", "maladaptive"), patient_name: "Ana Lopez", patient_identifier: "C-0042" }, chart, reports: input.reports, comments: input.comments, months: 3, window: pdfWindow("2026-11-26", 3), generatedOn: "2026-11-26", kind: "chart_comments" });
    const pages = await pdfPages(await renderPlanPdf(d));
    const first = pages[0]!;
    const yLabels = first.filter((s) => /^\d+$/.test(s));
    expect(yLabels).toEqual(["0", "100000", "200000", "300000", "400000", "500000", "600000", "700000", "800000", "900000", "1000000"]);
    expect(first).toContain("+11 more");
    // The chart draws comments 1-15 and '+11 more'; the comments table (pages 1-2) lists all 26 once.
    const times = (s: string) => pages.flat().filter((x) => x === s).length;
    expect([times("Comment 15"), times("Comment 16"), times("Comment 26")]).toEqual([2, 1, 1]);
  });

  it("hostile and odd text never breaks the fonts", async () => {
    const doc = withDefaults(readDocument(JSON.stringify({ background_information: "😀 患者 Мария Dvořák ≤ 3", policy: "x".repeat(5000) })));
    const bytes = await renderPlanPdf(planPdfDocument(view({ doc, goals: [], charts: new Map(), sections: ["background", "policy", "maladaptiveGoals"] })));
    const text = await pdfText(bytes);
    expect(text).toContain("Dvorák <= 3");
    expect(text).toContain("None recorded.");
  });
});

// Probe 8983 L1: a goal's heading ("<name> (active)") and its chart's title were drawn on one line and ran off the page.
describe("a goal name of 255 characters, the longest allowed", () => {
  const name = Array.from({ length: 36 }, (_, i) => `Word${i + 1}`).join(" ").padEnd(255, "x");
  const input = chartInput(name, "maladaptive", 10);
  const goalView = { goal: { ...goal(11, name, "maladaptive"), patient_name: "Ana Lopez", patient_identifier: "C-0042" }, chart: buildChartModel(input), reports: input.reports, comments: input.comments, months: 6, window: pdfWindow("2026-11-26", 6), generatedOn: "2026-11-26" };
  it.each<[string, () => PlanPdfDocument, string[]]>([
    [
      "the plan PDF: the goal's heading and its chart's title",
      () => planPdfDocument(view({ goals: [goal(11, name, "maladaptive")], charts: new Map([[11, buildChartModel(input)]]), sections: ["maladaptiveGoals"] })),
      [`${name} (active)`, `Target Behavior to Decrease: ${name}`],
    ],
    ["a goal's weekly-report PDF: its chart's title", () => goalPdfDocument({ ...goalView, kind: "weekly_report" }), [`Baseline: ${name}`]],
    ["a goal's chart-comment PDF: its chart's title", () => goalPdfDocument({ ...goalView, kind: "chart_comments" }), [`Baseline: ${name}`]],
  ])("%s wrap: every word printed, no line past the right margin", async (_case, document, headings) => {
    expect(name).toHaveLength(255);
    const bytes = await renderPlanPdf(document());
    const flat = (await pdfText(bytes)).replace(/\n/g, " ");
    for (const heading of headings) expect(flat).toContain(heading);
    // Every line of the name ends inside the right margin; nothing at all runs off the page.
    for (const line of await pdfLineEnds(bytes)) {
      expect(line.right, `page ${line.page}: ${line.text.slice(0, 40)}`).toBeLessThanOrEqual(line.text.includes("Word") ? PAGE.width - MARGIN + 0.01 : PAGE.width);
    }
  });
});
