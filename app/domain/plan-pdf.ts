import * as v from "valibot";
import { formatMeasure } from "./measure";
import { CRISIS_PLAN_FIELDS, LIST_SECTIONS, SCHOOL_SERVICES_FIELDS, SIGNERS, functionLabel, type BipDocument, type ListSectionKey, type Table } from "./bip-document";
import { formatChartDate, hoursOf, type ChartModel } from "./chart";
import type { NotePdfBlock } from "./note-pdf";
import { objectiveLabels, sortObjectives } from "./objectives";
import { PLAN_CATEGORY_LABELS, type PlanCategory } from "./plans";
import { isDecimalText } from "./validation";

/**
 * What a plan PDF says, as plain data (decision 041), like the note PDF's model (decision 027): the
 * 26 sections a user may pick (clinical §3 "PDF sections for a plan export"), the chooser's parsing
 * (clinical §5: at least one section; the month count of the weekly data), and each section's blocks
 * (paragraphs, lists, tables, charts) built from the plan document as shown (defaults applied,
 * placeholders filled) and the goals. The renderer (app/services/plan-pdf.server.ts) only lays it out.
 * The weekly-report and chart-comment PDFs of one goal are modelled here too. Pure.
 */

// ------------------------------------------------------------------------------------------ the sections

/** The 26 section keys in the order the PDF prints them (the spec's keys, spelling kept), with readable labels. */
export const PDF_SECTIONS = [
  { key: "background", label: "Background information" },
  { key: "individualizedRationale", label: "Individualized rationale" },
  { key: "treatmentAndResults", label: "Previous treatment and results" },
  { key: "maladaptives", label: "Maladaptive behaviors" },
  { key: "assessmentsConducted", label: "Assessments conducted" },
  { key: "prevalentSetting", label: "Prevalent setting events and antecedents" },
  { key: "hypothesisBasedInterventions", label: "Hypothesis-based interventions" },
  { key: "interventions", label: "Interventions" },
  { key: "maladaptiveGoals", label: "Maladaptive behavior goals" },
  { key: "replacementGoals", label: "Replacement behavior goals" },
  { key: "familyInvolvement", label: "Family involvement and caregiver training" },
  { key: "monitoringEvaluating", label: "Monitoring and evaluating progress" },
  { key: "behaviorAssitant", label: "Behavior assistant" },
  { key: "schoolServicesJustification", label: "School services justification" },
  { key: "schoolFadingPlan", label: "School fading plan" },
  { key: "scheduleOfServices", label: "Schedule of services" },
  { key: "functionalImpairment", label: "Functional impairment and behavior concerns" },
  { key: "generalizationTraining", label: "Generalization training" },
  { key: "riskAssessment", label: "Risk assessment" },
  { key: "fadingPlan", label: "Fading plan" },
  { key: "dischargePlan", label: "Discharge plan" },
  { key: "crisisPlan", label: "Crisis plan" },
  { key: "deEscalationTechniques", label: "De-escalation techniques" },
  { key: "serviceRecomendation", label: "Recommended services" },
  { key: "consentToTreatment", label: "Consent to treatment" },
  { key: "policy", label: "Policy" },
] as const;
export type PdfSectionKey = (typeof PDF_SECTIONS)[number]["key"];
export const PDF_SECTION_KEYS: readonly PdfSectionKey[] = PDF_SECTIONS.map((s) => s.key);

export const PDF_KINDS = ["plan", "weekly_report", "chart_comments"] as const;
export type PdfKind = (typeof PDF_KINDS)[number];
export const PDF_KIND_LABELS: Record<PdfKind, string> = { plan: "Behavior plan", weekly_report: "Weekly reports", chart_comments: "Chart comments" };

export const PDF_MESSAGES = {
  noSection: "You must select at least one section.",
  unknownSection: "Choose sections from the list.",
  months: "The month count must be a number.",
  monthsTooMany: "The month count is at most 120.",
  kind: "Choose weekly reports or chart comments.",
} as const;

/** The month count of the weekly data and comments (clinical §5, §9): default 6, truncated, at least 1; at most 10 years (decision 017). */
export const DEFAULT_PDF_MONTHS = 6;
export const MAX_PDF_MONTHS = 120;

/**
 * The month count as typed or sent: missing or empty → 6; anything that is not a finite number is refused —
 * text must be a plain decimal (isDecimalText, decision 009: "0x10" and "1e2" are not 16 and 100); a fraction is
 * truncated and anything under 1 counts as 1 (clinical §5); more than 120 is refused.
 */
export const MonthsField = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()], PDF_MESSAGES.months)), ""),
  v.check((x) => typeof x !== "string" || x.trim() === "" || isDecimalText(x), PDF_MESSAGES.months),
  v.transform((x) => (x === null || (typeof x === "string" && x.trim() === "") ? DEFAULT_PDF_MONTHS : typeof x === "number" ? x : Number(x.trim()))),
  v.number(PDF_MESSAGES.months),
  v.check((n) => Number.isFinite(n), PDF_MESSAGES.months),
  v.transform((n) => Math.max(1, Math.trunc(n))),
  v.maxValue(MAX_PDF_MONTHS, PDF_MESSAGES.monthsTooMany),
);

/** Sections as a form posts them (one value per checkbox, or none) or the API sends them (a list, or a comma list). */
const SectionsField = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.array(v.string(PDF_MESSAGES.unknownSection))], PDF_MESSAGES.unknownSection)), []),
  v.transform((x) => (x === null ? [] : Array.isArray(x) ? x : x.split(",")).map((s) => s.trim()).filter(Boolean)),
  v.check((xs) => xs.every((s) => (PDF_SECTION_KEYS as readonly string[]).includes(s)), PDF_MESSAGES.unknownSection),
  v.transform((xs) => PDF_SECTION_KEYS.filter((k) => xs.includes(k))),
  v.nonEmpty(PDF_MESSAGES.noSection),
);

/** The chooser of a plan PDF (form or API): at least one of the 26 sections, and the month count of the charts. */
export const PlanPdfRequest = v.object({ sections: SectionsField, months: MonthsField });
export type PlanPdfRequest = v.InferOutput<typeof PlanPdfRequest>;

/** A goal's weekly-report or chart-comment PDF: the kind and the month count. */
export const GoalPdfRequest = v.object({
  kind: v.pipe(
    v.optional(v.nullable(v.string(PDF_MESSAGES.kind)), "weekly_report"),
    v.transform((x) => (x === null || x.trim() === "" ? "weekly_report" : x.trim())),
    v.picklist(["weekly_report", "chart_comments"], PDF_MESSAGES.kind),
  ),
  months: MonthsField,
});
export type GoalPdfRequest = v.InferOutput<typeof GoalPdfRequest>;

/**
 * The chooser's toggle (clinical §4 "Toggle flips all at once"): Deselect All when every section is selected, Select
 * All otherwise. The button carries the action its label shows (its value), drawn from the boxes as the page was
 * drawn, and the server does that action: without JavaScript the label cannot follow a box ticked or unticked since,
 * and flipping by the posted boxes made "Deselect All" tick them all (probe 8983 L3).
 */
export const SECTION_TOGGLES = {
  "select-all": { label: "Select All", sections: PDF_SECTION_KEYS },
  "select-none": { label: "Deselect All", sections: [] },
} as const satisfies Record<string, { label: string; sections: readonly PdfSectionKey[] }>;
export type SectionToggle = keyof typeof SECTION_TOGGLES;

/** The toggle the chooser shows for the selected sections. */
export function sectionToggle(selected: readonly string[]): SectionToggle {
  return PDF_SECTION_KEYS.every((k) => selected.includes(k)) ? "select-none" : "select-all";
}

/** Whether a posted intent is one of the toggles. */
export function isSectionToggle(intent: unknown): intent is SectionToggle {
  return typeof intent === "string" && Object.hasOwn(SECTION_TOGGLES, intent);
}

/** yyyy-mm-dd `months` calendar months before `date` (the 31st of a shorter month is its last day). */
export function monthsBefore(date: string, months: number): string {
  const [y, m, d] = date.split("-").map(Number) as [number, number, number];
  const total = y * 12 + (m - 1) - months;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const last = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  return `${String(year).padStart(4, "0")}-${String(month + 1).padStart(2, "0")}-${String(Math.min(d, last)).padStart(2, "0")}`;
}

/** The file name of a job's PDF: the kind and the record's id, never the client's name (decision 027). */
export function pdfFilename(kind: PdfKind, recordId: number): string {
  return `${kind === "plan" ? "behavior-plan" : kind === "weekly_report" ? "weekly-reports" : "chart-comments"}-${recordId}.pdf`;
}

// ------------------------------------------------------------------------------------------ the layout model

export type PlanPdfBlock = NotePdfBlock | { kind: "chart"; label: string; model: ChartModel };

export interface PlanPdfSection {
  key: string;
  title: string;
  blocks: PlanPdfBlock[];
}

export interface PlanPdfDocument {
  title: string;
  /** Label/value pairs under the title. */
  fields: [string, string][];
  sections: PlanPdfSection[];
  /** The running head and the metadata title: the kind and the record id, never the client. */
  footer: string;
}

export interface PdfObjective {
  id: number;
  type: string;
  position: number;
  name: string | null;
  description: string | null;
  target: number | null;
  status: string;
  end_date: string | null;
}

export interface PdfGoal {
  id: number;
  name: string;
  category: string;
  status: string;
  description: string | null;
  baseline_level: number | null;
  baseline_date: string | null;
  objectives: readonly PdfObjective[];
}

/**
 * Who a plan PDF is for: staff (what was asked), or the family — the copy made when a plan PDF is shared with the
 * parents (decision 041, stop 38). The family copy's data is read under the portal's rules (parent-view.server.ts:
 * chart comments only under portal_show_narrative, the doctor by first name); the layout then leaves out the staff's
 * free-text names, which no rule can cut to a first name: the report writers, and the typed signatures of the
 * analysts and the physician (printed as "Signed").
 */
export type PdfAudience = "staff" | "family";

export interface PlanPdfView {
  /** For the family: `doctor_name` is the doctor's first name (the caller reads it so). */
  audience?: PdfAudience;
  bip: { id: number; type_label: string; patient_name: string; patient_identifier: string; doctor_name: string | null };
  /** The document as shown: defaults applied, placeholders filled. */
  doc: BipDocument;
  /** Goals with their descriptions' placeholders filled. */
  goals: readonly PdfGoal[];
  /** Chart models by goal id (the goals measured weekly, inside the window). */
  charts: ReadonlyMap<number, ChartModel>;
  sections: readonly PdfSectionKey[];
  months: number;
  window: { from: string; to: string };
  generatedOn: string;
}

export const EMPTY_TEXT = "—";
const textOr = (s: string | null | undefined) => (s && s.trim() ? s : EMPTY_TEXT);
const num = (n: number | null | undefined) => (n == null ? EMPTY_TEXT : String(n));
const date = (d: string | null | undefined) => (d ? formatChartDate(d) : EMPTY_TEXT);

function listTable(doc: BipDocument, key: ListSectionKey, label = LIST_SECTIONS[key].label): NotePdfBlock {
  const fields = Object.entries(LIST_SECTIONS[key].fields) as [string, { label: string }][];
  const items = doc[key] as unknown as Record<string, unknown>[];
  const cellOf = (name: string, value: unknown) =>
    Array.isArray(value) ? (name === "hypothesized_functions" ? value.map((x) => functionLabel(String(x))) : value.map(String)).join(", ") : value == null || value === "" ? EMPTY_TEXT : String(value);
  const width = 1 / fields.length;
  return { kind: "table", label, columns: fields.map(([, f]) => f.label), widths: fields.map(() => width), rows: items.map((it) => fields.map(([name]) => cellOf(name, it[name]))) };
}

function gridTable(t: Table, label: string): NotePdfBlock {
  const n = Math.max(1, t.table_headers.length);
  return { kind: "table", label, columns: t.table_headers, widths: t.table_headers.map(() => 1 / n), rows: t.table_rows.map((r) => r.map((c) => c || EMPTY_TEXT)) };
}

const para = (label: string, text: string | null | undefined): NotePdfBlock => ({ kind: "paragraph", label, text: textOr(text) });

/** The objectives table's rows in the screens' order (the LTO last), labelled by their one rule (STO1…, "LTO"). */
function objectiveRows(g: PdfGoal): string[][] {
  const labels = objectiveLabels(g.objectives);
  return sortObjectives(g.objectives).map((o) => [labels.get(o.id)!.label, textOr(o.name ?? o.description), num(o.target), date(o.end_date), o.status]);
}

/** One goal's blocks: description, baseline, objectives, and the chart when it is measured weekly. */
function goalBlocks(g: PdfGoal, charts: ReadonlyMap<number, ChartModel>): PlanPdfBlock[] {
  const blocks: PlanPdfBlock[] = [
    para(`${g.name} (${g.status})`, g.description),
    { kind: "list", label: "Baseline", items: [`Level ${num(g.baseline_level)} on ${date(g.baseline_date)}`] },
    { kind: "table", label: "Objectives", columns: ["Objective", "Description", "Target", "End date", "Status"], widths: [0.12, 0.46, 0.12, 0.14, 0.16], rows: objectiveRows(g) },
  ];
  const chart = charts.get(g.id);
  if (chart) blocks.push({ kind: "chart", label: `${chart.heading}: ${g.name}`, model: chart });
  return blocks;
}

function goalsOf(view: PlanPdfView, categories: readonly PlanCategory[]): PlanPdfBlock[] {
  const goals = view.goals.filter((g) => (categories as readonly string[]).includes(g.category));
  if (goals.length === 0) return [{ kind: "list", label: "Goals", items: [] }];
  return goals.flatMap((g) => goalBlocks(g, view.charts));
}

/** What each of the 26 sections prints. */
function sectionBlocks(key: PdfSectionKey, view: PlanPdfView): PlanPdfBlock[] {
  const d = view.doc;
  switch (key) {
    case "background":
      return [
        para("Background information", d.background_information),
        para("Education status", d.education_status),
        para("Strengths", d.strengths),
        para("Weaknesses", d.weaknesses),
        para("Physical and medical status", d.physical_and_medical_status),
        listTable(d, "physical_and_medical"),
        listTable(d, "documents_reviewed"),
      ];
    case "individualizedRationale":
      return [para("Individualized rationale", d.individualized_rationale)];
    case "treatmentAndResults":
      return [para("Previous treatment and results", d.previous_treatment_and_result), para("Current treatment and progress", d.current_treatment_and_progress)];
    case "maladaptives": {
      const goals = view.goals.filter((g) => g.category === "maladaptive");
      return [
        {
          kind: "table",
          label: "Target behaviors to decrease",
          columns: ["Behavior", "Operational definition", "Baseline", "Status"],
          widths: [0.22, 0.5, 0.16, 0.12],
          rows: goals.map((g) => [g.name, textOr(g.description), `${num(g.baseline_level)} (${date(g.baseline_date)})`, g.status]),
        },
      ];
    }
    case "assessmentsConducted":
      return [para("Assessments conducted", d.assestment_conducted), listTable(d, "assestment_evaluation_settings")];
    case "prevalentSetting":
      return [listTable(d, "prevalent_setting_event_and_antecedents")];
    case "hypothesisBasedInterventions":
      return [para("Hypothesis-based intervention", d.hypothesis_based_intervention), listTable(d, "attention"), listTable(d, "escape"), listTable(d, "tangibles"), listTable(d, "sensory")];
    case "interventions":
      return [{ kind: "list", label: "Interventions", items: d.interventions.map((i) => `${i.title}: ${i.description}`) }];
    case "maladaptiveGoals":
      return goalsOf(view, ["maladaptive"]);
    case "replacementGoals":
      return goalsOf(view, ["replacement"]);
    case "familyInvolvement":
      return [para("Family involvement and caregiver training", d.family_involvement), ...goalsOf(view, ["caregiver_training"])];
    case "monitoringEvaluating":
      return [
        {
          kind: "table",
          label: `Weekly data, the last ${view.months} ${view.months === 1 ? "month" : "months"} (${date(view.window.from)} – ${date(view.window.to)})`,
          columns: ["Goal", "Category", "Weeks reported", "Last week", "Last value", "Trend per week"],
          widths: [0.3, 0.16, 0.12, 0.14, 0.12, 0.16],
          rows: view.goals.map((g) => {
            const c = view.charts.get(g.id);
            const last = c ? [...c.points].reverse().find((p) => p.value != null) : undefined;
            return [
              g.name,
              PLAN_CATEGORY_LABELS[g.category as PlanCategory] ?? g.category,
              String(c ? c.points.filter((p) => p.value != null).length : 0),
              last ? last.label : EMPTY_TEXT,
              last ? formatMeasure(last.value) : EMPTY_TEXT,
              c?.trend ? String(c.trend.slopePerWeek) : EMPTY_TEXT,
            ];
          }),
        },
      ];
    case "behaviorAssitant":
      return [para("Behavior assistant rationale", d.behavior_assistant_rationale_introduction), gridTable(d.behavior_assistant_rationale_work_schedule, "Work schedule"), ...goalsOf(view, ["rbt_training"])];
    case "schoolServicesJustification":
      return [...SCHOOL_SERVICES_FIELDS.map((f) => para(f.label, d.school_services_justification[f.name])), ...goalsOf(view, ["teacher_training"])];
    case "schoolFadingPlan":
      return [para("School fading plan", d.school_fading_plan)];
    case "scheduleOfServices":
      return [gridTable(d.schedule_of_services_breakdown, "Schedule of services")];
    case "functionalImpairment":
      return [para("Functional impairment and behavior concerns", d.functional_impairment_behavior_concerns)];
    case "generalizationTraining":
      return [para("Generalization training", d.generalization_training)];
    case "riskAssessment":
      return [para("Risk assessment", d.risk_assessment)];
    case "fadingPlan":
      return [para("Fading plan", d.fading_plan), listTable(d, "fading_plan_phases")];
    case "dischargePlan":
      return [para("Discharge plan", d.discharge_plan)];
    case "crisisPlan":
      return CRISIS_PLAN_FIELDS.map((f) => para(f.label, d.crisis_plan[f.name]));
    case "deEscalationTechniques":
      return [{ kind: "list", label: "De-escalation techniques", items: d.de_escalation_techniques.map((t) => t.description ?? "").filter(Boolean) }];
    case "serviceRecomendation":
      return [listTable(d, "recommendations")];
    case "consentToTreatment":
      return [
        para("Consent statement", d.consent_to_treatment.statement),
        {
          kind: "table",
          label: "Signatures",
          columns: ["Signer", "Signature", "Date"],
          widths: [0.3, 0.45, 0.25],
          rows: SIGNERS.map((s) => {
            const sig = d.consent_to_treatment[s.key];
            if (sig.signature_placeholder && !sig.signature) return [s.label, "________________", date(sig.signature_date)];
            // The family's copy names no staff: a staff signature (a typed full name) is printed as signed.
            const typed = view.audience === "family" && s.key !== "parent_guardian" && sig.signature?.trim() ? "Signed" : textOr(sig.signature);
            return [s.label, typed, date(sig.signature_date)];
          }),
        },
      ];
    case "policy":
      return [para("Policy", d.policy)];
  }
}

/** The plan PDF: the chosen sections in the fixed order, each with its blocks. */
export function planPdfDocument(view: PlanPdfView): PlanPdfDocument {
  const chosen = PDF_SECTIONS.filter((s) => view.sections.includes(s.key));
  const writers = [view.doc.report_writer, view.doc.report_writer_2].filter((w): w is string => !!w && !!w.trim());
  return {
    title: `Behavior Intervention Plan — ${view.bip.type_label}`,
    fields: [
      ["Client", view.bip.patient_name],
      ["Client ID", view.bip.patient_identifier],
      ["Doctor", textOr(view.bip.doctor_name)],
      ...(view.audience === "family" ? [] : [["Report writer", writers.length ? writers.join(", ") : EMPTY_TEXT] as [string, string]]),
      ["Weekly data", `${date(view.window.from)} – ${date(view.window.to)} (${view.months} ${view.months === 1 ? "month" : "months"})`],
      ["Generated", date(view.generatedOn)],
    ],
    sections: chosen.map((s) => ({ key: s.key, title: s.label, blocks: sectionBlocks(s.key, view) })),
    footer: `Behavior plan #${view.bip.id}`,
  };
}

export interface GoalPdfView {
  kind: "weekly_report" | "chart_comments";
  goal: PdfGoal & { patient_name: string; patient_identifier: string };
  chart: ChartModel;
  /** The weekly reports in the window (week_end, value, total_units), oldest first. */
  reports: readonly { weekEnd: string; value: number; totalUnits: number | null }[];
  comments: readonly { commentDate: string; comment: string }[];
  months: number;
  window: { from: string; to: string };
  generatedOn: string;
}

/** A goal's weekly-report PDF (the chart and the weekly values) or chart-comment PDF (the chart and the comments). */
export function goalPdfDocument(view: GoalPdfView): PlanPdfDocument {
  const g = view.goal;
  const period = `${date(view.window.from)} – ${date(view.window.to)} (${view.months} ${view.months === 1 ? "month" : "months"})`;
  const data: NotePdfBlock =
    view.kind === "weekly_report"
      ? {
          kind: "table",
          label: `Weekly reports (${view.reports.length})`,
          columns: ["Week ending", "Value", "Total units", "Hours"],
          widths: [0.3, 0.25, 0.25, 0.2],
          rows: view.reports.map((r) => [date(r.weekEnd), formatMeasure(r.value), num(r.totalUnits), String(hoursOf(r.totalUnits))]),
        }
      : { kind: "table", label: `Chart comments (${view.comments.length})`, columns: ["Date", "Comment"], widths: [0.25, 0.75], rows: view.comments.map((c) => [date(c.commentDate), c.comment]) };
  return {
    title: view.kind === "weekly_report" ? "Weekly Reports" : "Chart Comments",
    fields: [
      ["Client", g.patient_name],
      ["Client ID", g.patient_identifier],
      ["Goal", g.name],
      ["Category", PLAN_CATEGORY_LABELS[g.category as PlanCategory] ?? g.category],
      ["Period", period],
      ["Generated", date(view.generatedOn)],
    ],
    sections: [
      { key: "chart", title: view.chart.heading, blocks: [{ kind: "chart", label: `${view.chart.title}: ${g.name}`, model: view.chart }] },
      { key: "data", title: view.kind === "weekly_report" ? "Weekly reports" : "Comments", blocks: [data] },
    ],
    footer: `${view.kind === "weekly_report" ? "Weekly reports" : "Chart comments"} of goal #${g.id}`,
  };
}
