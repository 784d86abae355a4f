import * as v from "valibot";
import { FilterId } from "./list-filters";
import { choiceList, flag, MESSAGES, numberOrNaN, numberOrNull, optionalDate, optionalId, optionalLine, optionalText, requiredInt, requiredLine, requiredText } from "./fields";
import { LIST_MESSAGES } from "./list-sections";
import { cptField } from "./pa-assessments";
import { oneLine, plainObject, plainText, parseStored, safeParsePlain } from "./validation";

/**
 * The behavior intervention plan document (clinical §3 "Behavior intervention plan (assessment)",
 * "Signature record"; §4 list-and-form). Everything a BIP says besides its identity (client, type,
 * doctor) and its goals (the plans table) lives in one JSON document in bips.document; this module is
 * its shape as valibot schemas, with the labels the forms and the profile read. One schema for the
 * tabbed editor's forms and for the API. Pure.
 *
 * Stored documents keep exactly what was saved; app/domain/bip-defaults.ts fills the empty sections
 * when a plan is shown, edited or exported, and app/domain/placeholders.ts fills {name} and the
 * pronoun tokens when it is shown or exported.
 */

// ------------------------------------------------------------------------------------------ vocabularies

export const TYPES_OF_ASSESSMENT = [
  { value: "1", label: "Initial Assessment" },
  { value: "2", label: "Reassessment" },
] as const;
export type TypeOfAssessment = (typeof TYPES_OF_ASSESSMENT)[number]["value"];
export const typeOfAssessmentLabel = (value: number | string) => TYPES_OF_ASSESSMENT.find((t) => t.value === String(value))?.label ?? String(value);

/** Document review statuses (clinical §4); "no" is the default. */
export const DOCUMENT_REVIEW_STATUSES = ["pending", "reviewing", "yes", "no"] as const;
export type DocumentReviewStatus = (typeof DOCUMENT_REVIEW_STATUSES)[number];

/** The four hypothesized functions of behavior (clinical §3 default clinical content). */
export const HYPOTHESIZED_FUNCTIONS = [
  { value: "attention", label: "Attention" },
  { value: "escape", label: "Escape" },
  { value: "tangible", label: "Tangible/access" },
  { value: "automatic", label: "Automatic" },
] as const;
export const HYPOTHESIZED_FUNCTION_VALUES = HYPOTHESIZED_FUNCTIONS.map((f) => f.value);
export const functionLabel = (value: string) => HYPOTHESIZED_FUNCTIONS.find((f) => f.value === value)?.label ?? value;

export const SIGNERS = [
  { key: "analyst_1", label: "Analyst 1" },
  { key: "analyst_2", label: "Analyst 2" },
  { key: "physician", label: "Physician" },
  { key: "parent_guardian", label: "Parent/guardian" },
] as const;
export type Signer = (typeof SIGNERS)[number]["key"];

export const LIMITS = { narrative: 20_000, itemText: 5_000, short: 255, signature: 200, tableColumns: 12, tableRows: 60, tableCell: 500, listItems: 100 } as const;

// ------------------------------------------------------------------------------------------ narratives

export const NARRATIVE_FIELDS = [
  { name: "background_information", label: "Background information" },
  { name: "previous_treatment_and_result", label: "Previous treatment and results" },
  { name: "current_treatment_and_progress", label: "Current treatment and progress" },
  { name: "education_status", label: "Education status" },
  { name: "strengths", label: "Strengths" },
  { name: "weaknesses", label: "Weaknesses" },
  { name: "functional_impairment_behavior_concerns", label: "Functional impairment and behavior concerns" },
  { name: "individualized_rationale", label: "Individualized rationale" },
  { name: "assestment_conducted", label: "Assessments conducted" },
  { name: "hypothesis_based_intervention", label: "Hypothesis-based intervention" },
  { name: "generalization_training", label: "Generalization training" },
  { name: "physical_and_medical_status", label: "Physical and medical status" },
  { name: "risk_assessment", label: "Risk assessment" },
  { name: "behavior_assistant_rationale_introduction", label: "Behavior assistant rationale" },
  { name: "school_fading_plan", label: "School fading plan" },
  { name: "fading_plan", label: "Fading plan" },
  { name: "family_involvement", label: "Family involvement and caregiver training" },
  { name: "discharge_plan", label: "Discharge plan" },
  { name: "policy", label: "Policy" },
  { name: "report_writer", label: "Report writer" },
  { name: "report_writer_2", label: "Report writer 2" },
] as const;
export type NarrativeField = (typeof NARRATIVE_FIELDS)[number]["name"];
/** Short one-line fields among the narratives (an input rather than a textarea). */
export const SHORT_NARRATIVES: readonly NarrativeField[] = ["report_writer", "report_writer_2"];

const narrativeSchema = (name: NarrativeField, label: string) => (SHORT_NARRATIVES.includes(name) ? optionalLine(label, LIMITS.short) : optionalText(label, LIMITS.narrative));

// ------------------------------------------------------------------------------------------ list sections

export type ItemFieldKind = "text" | "longtext" | "date" | "units" | "status" | "lines" | "functions";

interface ItemFieldSpec<S extends v.GenericSchema = v.GenericSchema> {
  label: string;
  kind: ItemFieldKind;
  required: boolean;
  schema: S;
}

/** A short text is an <input> ("text": one line), a longer one a textarea ("longtext"). */
const text = (label: string, required = true, max: number = LIMITS.itemText) =>
  (max > LIMITS.short
    ? ({ label, kind: "longtext", required, schema: required ? requiredText(label, max) : optionalText(label, max) } as const)
    : ({ label, kind: "text", required, schema: required ? requiredLine(label, max) : optionalLine(label, max) } as const)) satisfies ItemFieldSpec;
const short = (label: string, required = true) => text(label, required, LIMITS.short);

/**
 * A list of short texts: a form sends one per line (its label says so), the API an array. The screen shows the list
 * one entry per line, so an entry cannot hold a line break (probe 8924 #2): it would come back as two. Commas and
 * semicolons stay inside an entry ("Hitting, kicking"): splitting on them too made an untouched save split it.
 */
const lines = (label: string) =>
  ({
    label,
    kind: "lines",
    required: true,
    schema: v.pipe(
      v.optional(v.nullable(v.union([v.array(v.string(`${label}: each entry is a text.`)), v.string()], `${label} must be a list.`)), []),
      v.transform((x) => (x === null ? [] : Array.isArray(x) ? x : x.split(/\r\n|[\n\r\u2028\u2029]/)).map((s) => s.trim()).filter(Boolean)),
      v.array(v.pipe(v.string(), v.maxLength(LIMITS.short, MESSAGES.tooLong(label, LIMITS.short)), plainText(label), oneLine<string>(label))),
      v.nonEmpty(MESSAGES.required(label)),
      v.maxLength(30, `${label}: at most 30 entries.`),
    ),
  }) as const satisfies ItemFieldSpec;

const functions = {
  label: "Hypothesized functions",
  kind: "functions",
  required: true,
  schema: v.pipe(choiceList(HYPOTHESIZED_FUNCTION_VALUES, "Choose hypothesized functions from the list (attention, escape, tangible, automatic)."), v.nonEmpty(MESSAGES.required("Hypothesized functions"))),
} as const satisfies ItemFieldSpec;

const reviewStatus = {
  label: "Status",
  kind: "status",
  required: false,
  schema: v.pipe(
    v.optional(v.nullable(v.string()), "no"),
    v.transform((x) => (x === null || x.trim() === "" ? "no" : x.trim())),
    v.picklist(DOCUMENT_REVIEW_STATUSES, "Choose a document status: pending, reviewing, yes or no."),
  ),
} as const satisfies ItemFieldSpec;

const units = { label: "Units", kind: "units", required: true, schema: requiredInt("Units", 0, 100_000) } as const satisfies ItemFieldSpec;

/**
 * Whether a recommended service's CPT is one the stored plan already holds (in any letter case): sent back as it is, it
 * passes although the CPT rule refuses it (stored before the rule; decision 017, stop 37).
 */
export type KeptCpt = (cpt: string) => boolean;
const NONE_KEPT: KeptCpt = () => false;

/** The CPTs of a stored plan's recommended services, as kept values (KeptCpt). */
export function keptCpts(stored: Pick<BipDocument, "recommendations">): KeptCpt {
  const held = new Set(stored.recommendations.map((r) => r.cpt.trim().toUpperCase()));
  return (cpt) => held.has(cpt.trim().toUpperCase());
}

/**
 * A recommended service's CPT: the one CPT rule (`isCptCode`, with its message `CPT_MESSAGE`; stored in upper case),
 * as for insurer and PA services. `stored`: the CPT of a plan as read, which keeps what was saved (no entry rule).
 */
const cptSpec = (kept: KeptCpt | "stored") =>
  ({ label: "CPT", kind: "text", required: true, schema: kept === "stored" ? requiredText("CPT", 10) : cptField(kept) }) as const satisfies ItemFieldSpec;
const addedDate = { label: "Added date", kind: "date", required: false, schema: optionalDate } as const satisfies ItemFieldSpec;

function section<const F extends Record<string, ItemFieldSpec>>(label: string, itemLabel: string, fields: F) {
  const entries = Object.fromEntries(Object.entries(fields).map(([k, f]) => [k, f.schema])) as { [K in keyof F]: F[K]["schema"] };
  return { label, itemLabel, fields, item: plainObject(v.object(entries)) };
}

const strategies = (label: string) =>
  section(label, "strategy", {
    preventive_strategies: text("Preventive strategies"),
    replacement_skills: text("Replacement skills"),
    manager_strategies: text("Manager strategies"),
  });

/** The recommended services, whose CPT rule keeps the stored plan's CPTs (`kept`). */
function recommendationsSection(kept: KeptCpt | "stored") {
  return section("Recommended services", "service", {
    cpt: cptSpec(kept),
    num_units: units,
    breakdown_per_week: short("Breakdown per week"),
    location: short("Location"),
    description_service: text("Description of the service"),
  });
}

/** Every list section: its label, its item fields (in form order) and the item schema. */
export const LIST_SECTIONS = {
  assestment_evaluation_settings: section("Assessment evaluation settings", "setting", {
    tangible: short("Tangible"),
    activities: short("Activities"),
    other: short("Other", false),
  }),
  documents_reviewed: section("Documents reviewed", "document", { title: short("Title"), status: reviewStatus }),
  interventions: section("Interventions", "intervention", { title: short("Title"), description: text("Description"), added_date: addedDate }),
  physical_and_medical: section("Medications", "medication", {
    medication: short("Medication"),
    dose: short("Dose"),
    frequency: short("Frequency"),
    reason: short("Reason"),
    prescribing_physician: short("Prescribing physician"),
  }),
  sensory: strategies("Sensory (automatic) strategies"),
  tangibles: strategies("Tangible strategies"),
  attention: strategies("Attention strategies"),
  escape: strategies("Escape strategies"),
  de_escalation_techniques: section("De-escalation techniques", "technique", { description: text("Description") }),
  recommendations: recommendationsSection(NONE_KEPT),
  prevalent_setting_event_and_antecedents: section("Prevalent setting events and antecedents", "setting event", {
    prevalent_setting_event_and_antecedent: text("Setting event or antecedent"),
    behavior: lines("Behavior list"),
    hypothesized_functions: functions,
  }),
  fading_plan_phases: section("Fading plan phases", "phase", { phase: short("Phase"), description: text("Description") }),
} as const;

export type ListSectionKey = keyof typeof LIST_SECTIONS;
export const LIST_SECTION_KEYS = Object.keys(LIST_SECTIONS) as ListSectionKey[];

export type ListItem<K extends ListSectionKey> = v.InferOutput<(typeof LIST_SECTIONS)[K]["item"]> & { index: number };

export function itemFields(key: ListSectionKey): { name: string; label: string; kind: ItemFieldKind; required: boolean }[] {
  return Object.entries(LIST_SECTIONS[key].fields).map(([name, f]) => ({ name, label: f.label, kind: f.kind, required: f.required }));
}

function blank(x: unknown): boolean {
  if (x === undefined || x === null) return true;
  if (typeof x === "string") return x.trim() === "";
  if (Array.isArray(x)) return x.every(blank);
  return false;
}

export type ItemParse = { ok: true; item: Record<string, unknown> } | { ok: false; message: string; errors: Record<string, string> };

/**
 * One list item from a form or the API. A missing required field answers 'Please enter all fields'
 * (clinical §5 Other) with the missing fields marked; any other bad value answers its own message.
 */
export function parseItem(key: ListSectionKey, raw: Record<string, unknown>, kept: KeptCpt = NONE_KEPT): ItemParse {
  const spec = LIST_SECTIONS[key];
  const r = safeParsePlain(itemSchema(key, kept), raw);
  const missing = Object.entries(spec.fields).filter(([name, f]) => f.required && blank(raw[name]));
  if (r.success && !missing.length) return { ok: true, item: r.output as Record<string, unknown> };
  const errors: Record<string, string> = {};
  if (!r.success) for (const issue of r.issues) errors[issue.path?.[0] ? String(issue.path[0].key) : "form"] ??= issue.message;
  for (const [name, f] of missing) errors[name] = MESSAGES.required(f.label);
  return { ok: false, message: missing.length ? LIST_MESSAGES.incomplete : (Object.values(errors)[0] ?? LIST_MESSAGES.incomplete), errors };
}

/** A section's item schema; the recommended services' CPT keeps `kept` (the others have no stored-value rule). */
function itemSchema<K extends ListSectionKey>(key: K, kept: KeptCpt | "stored"): (typeof LIST_SECTIONS)[K]["item"] {
  return (key === "recommendations" && kept !== NONE_KEPT ? recommendationsSection(kept).item : LIST_SECTIONS[key].item) as (typeof LIST_SECTIONS)[K]["item"];
}

const listSchema = <K extends ListSectionKey>(key: K, kept: KeptCpt | "stored") =>
  v.pipe(
    v.optional(v.nullable(v.array(itemSchema(key, kept), `${LIST_SECTIONS[key].label} must be a list.`)), []),
    v.transform((xs) => (xs ?? []).map((x, i) => ({ ...x, index: i + 1 })) as ListItem<K>[]),
    v.maxLength(LIMITS.listItems, `${LIST_SECTIONS[key].label}: at most ${LIMITS.listItems} entries.`),
  );

// ------------------------------------------------------------------------------------------ tables

export const TABLE_FIELDS = [
  { name: "behavior_assistant_rationale_work_schedule", label: "Behavior assistant work schedule" },
  { name: "schedule_of_services_breakdown", label: "Schedule of services" },
] as const;
export type TableField = (typeof TABLE_FIELDS)[number]["name"];

/** A header or cell: the editor shows each in an <input>, so it is one line (probe 8924 #2, decision 017). */
const cell = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()])), ""),
  v.transform((x) => (x === null ? "" : String(x).trim())),
  v.maxLength(LIMITS.tableCell, `A table cell is at most ${LIMITS.tableCell} characters.`),
  plainText("A table cell"),
  oneLine<string>("A table cell"),
);

/** A table: headers and rows; every row has as many cells as there are headers. */
export const TableSchema = v.pipe(
  v.optional(v.nullable(plainObject(v.object({ table_headers: v.optional(v.array(cell), []), table_rows: v.optional(v.array(v.array(cell)), []) }))), { table_headers: [], table_rows: [] }),
  v.transform((t) => t ?? { table_headers: [], table_rows: [] }),
  v.check((t) => t.table_headers.length <= LIMITS.tableColumns, `A table has at most ${LIMITS.tableColumns} columns.`),
  v.check((t) => t.table_rows.length <= LIMITS.tableRows, `A table has at most ${LIMITS.tableRows} rows.`),
  v.transform((t) => ({
    table_headers: t.table_headers,
    table_rows: t.table_rows.map((row) => t.table_headers.map((_, c) => row[c] ?? "")),
  })),
);
export type Table = v.InferOutput<typeof TableSchema>;

// ------------------------------------------------------------------------------------------ objects

export const SCHOOL_SERVICES_FIELDS = [
  { name: "medical_necessity_justification", label: "Medical necessity justification" },
  { name: "addressing_school_setting", label: "Addressing the school setting" },
  { name: "individualized_treatment_plan", label: "Individualized treatment plan" },
  { name: "supporting_documentation_attached", label: "Supporting documentation attached" },
] as const;

export const CRISIS_PLAN_FIELDS = [
  { name: "description", label: "Crisis description" },
  { name: "prevention", label: "Prevention and caregiver requirements" },
] as const;

/** An object of optional texts (school services justification, crisis plan); missing or null = all empty. */
function textObject<const F extends readonly { name: string; label: string }[]>(fields: F) {
  type Out = { [K in F[number]["name"]]: string | null };
  const shape = Object.fromEntries(fields.map((f) => [f.name, optionalText(f.label, LIMITS.narrative)]));
  const empty = () => Object.fromEntries(fields.map((f) => [f.name, null])) as Out;
  return v.pipe(
    v.optional(v.nullable(plainObject(v.record(v.string(), v.unknown(), "This section must be an object of texts (field: text)."))), null),
    v.transform((x) => x ?? {}),
    v.object(shape),
    v.transform((x) => ({ ...empty(), ...x }) as Out),
  );
}

export const SignatureSchema = v.pipe(
  v.optional(
    v.nullable(
      plainObject(
        v.object({
          signature: optionalLine("Signature", LIMITS.signature),
          signature_date: optionalDate,
          signature_placeholder: flag,
        }),
      ),
    ),
    {},
  ),
  v.transform((x) => x ?? { signature: null, signature_date: null, signature_placeholder: false }),
);
export type Signature = v.InferOutput<typeof SignatureSchema>;

const ConsentObject = v.object({
  statement: optionalText("Consent statement", LIMITS.narrative),
  analyst_1: SignatureSchema,
  analyst_2: SignatureSchema,
  physician: SignatureSchema,
  parent_guardian: SignatureSchema,
});
export const ConsentSchema = v.pipe(
  v.optional(v.nullable(plainObject(ConsentObject)), {}),
  v.transform((x) => x ?? v.parse(ConsentObject, {})),
);
export type Consent = v.InferOutput<typeof ConsentSchema>;

// ------------------------------------------------------------------------------------------ the document

/** The document's fields; `kept`: the recommended services' CPTs that pass as stored ("stored": a read, all). */
const documentEntries = (kept: KeptCpt | "stored") => ({
  ...(Object.fromEntries(NARRATIVE_FIELDS.map((f) => [f.name, narrativeSchema(f.name, f.label)])) as Record<NarrativeField, ReturnType<typeof optionalText>>),
  assestment_evaluation_settings: listSchema("assestment_evaluation_settings", kept),
  documents_reviewed: listSchema("documents_reviewed", kept),
  interventions: listSchema("interventions", kept),
  physical_and_medical: listSchema("physical_and_medical", kept),
  sensory: listSchema("sensory", kept),
  tangibles: listSchema("tangibles", kept),
  attention: listSchema("attention", kept),
  escape: listSchema("escape", kept),
  de_escalation_techniques: listSchema("de_escalation_techniques", kept),
  recommendations: listSchema("recommendations", kept),
  prevalent_setting_event_and_antecedents: listSchema("prevalent_setting_event_and_antecedents", kept),
  fading_plan_phases: listSchema("fading_plan_phases", kept),
  behavior_assistant_rationale_work_schedule: TableSchema,
  schedule_of_services_breakdown: TableSchema,
  school_services_justification: textObject(SCHOOL_SERVICES_FIELDS),
  crisis_plan: textObject(CRISIS_PLAN_FIELDS),
  consent_to_treatment: ConsentSchema,
});
const entries = documentEntries(NONE_KEPT);
/** What a stored plan is read with: its CPTs as saved, whatever rule came since. */
const storedEntries = documentEntries("stored");

/** The whole document: every field optional on input (missing = empty), every field present on output. */
export const BipDocumentSchema = v.object(entries);
const StoredDocumentSchema = v.object(storedEntries);
export type BipDocument = v.InferOutput<typeof BipDocumentSchema>;
export type BipDocumentKey = keyof BipDocument;
export const DOCUMENT_KEYS = Object.keys(entries) as BipDocumentKey[];

/** A stored document (JSON text) as a document; anything unreadable or invalid reads as empty. */
export function readDocument(raw: string | null | undefined): BipDocument {
  let json: unknown = {};
  try {
    json = raw ? JSON.parse(raw) : {};
  } catch {
    json = {};
  }
  const obj = json && typeof json === "object" && !Array.isArray(json) ? (json as Record<string, unknown>) : {};
  const r = v.safeParse(StoredDocumentSchema, obj);
  if (r.success) return r.output;
  // Keep the sections that still parse; one stored before a rule existed (a line break in a table cell) is read with
  // its text made readable (parseStored); only a section of another shape falls back to its default (never fail a read).
  const out: Record<string, unknown> = {};
  for (const key of DOCUMENT_KEYS) {
    const one = parseStored(storedEntries[key], obj[key]);
    out[key] = one.success ? one.output : v.parse(storedEntries[key], undefined);
  }
  return out as BipDocument;
}

// ------------------------------------------------------------------------------------------ the tabs

/** The tabbed editor's tabs and what each holds (a narrative form, list sections, tables). */
export const BIP_TABS = [
  { id: "identity", label: "Identity & type", fields: ["report_writer", "report_writer_2"], lists: [], tables: [] },
  {
    id: "background",
    label: "Background & narratives",
    fields: ["background_information", "previous_treatment_and_result", "current_treatment_and_progress", "education_status", "strengths", "weaknesses", "functional_impairment_behavior_concerns", "individualized_rationale"],
    lists: [],
    tables: [],
  },
  { id: "assessment", label: "Assessment & documents", fields: ["assestment_conducted"], lists: ["assestment_evaluation_settings", "documents_reviewed"], tables: [] },
  { id: "interventions", label: "Interventions & strategies", fields: ["hypothesis_based_intervention", "generalization_training"], lists: ["interventions", "sensory", "tangibles", "attention", "escape"], tables: [] },
  { id: "medications", label: "Medications", fields: ["physical_and_medical_status"], lists: ["physical_and_medical"], tables: [] },
  { id: "crisis", label: "De-escalation & crisis", fields: ["risk_assessment", "crisis_plan"], lists: ["de_escalation_techniques"], tables: [] },
  {
    id: "recommendations",
    label: "Recommendations & schedules",
    fields: ["behavior_assistant_rationale_introduction", "school_services_justification"],
    lists: ["recommendations"],
    tables: ["behavior_assistant_rationale_work_schedule", "schedule_of_services_breakdown"],
  },
  { id: "setting", label: "Setting events", fields: [], lists: ["prevalent_setting_event_and_antecedents"], tables: [] },
  { id: "fading", label: "Fading & discharge", fields: ["fading_plan", "school_fading_plan", "family_involvement", "discharge_plan"], lists: ["fading_plan_phases"], tables: [] },
  { id: "consent", label: "Consent", fields: ["consent_to_treatment", "policy"], lists: [], tables: [] },
] as const satisfies readonly { id: string; label: string; fields: readonly BipDocumentKey[]; lists: readonly ListSectionKey[]; tables: readonly TableField[] }[];
export type BipTabId = (typeof BIP_TABS)[number]["id"];
export const tabById = (id: string | null | undefined) => BIP_TABS.find((t) => t.id === id) ?? BIP_TABS[0];

/** The tab that holds a list section or table (to send the user back to it after a change). */
export function tabOf(key: string): BipTabId {
  return (BIP_TABS.find((t) => (t.fields as readonly string[]).includes(key) || (t.lists as readonly string[]).includes(key) || (t.tables as readonly string[]).includes(key)) ?? BIP_TABS[0]).id;
}

/**
 * The confirm step of deleting a list item (a screen delete asks first): `?confirm=delete-<section>-<index>` on the
 * item's tab, scrolled to the item. Anything that names no list item goes to the tab (or the first tab) instead.
 */
export function listItemDeleteStep(bipId: number, section: string, index: unknown): string {
  const tab = `/bip/tabbed/${bipId}?tab=${tabOf(section)}`;
  const n = String(index ?? "");
  return Object.hasOwn(LIST_SECTIONS, section) && /^[1-9]\d{0,2}$/.test(n) ? `${tab}&confirm=delete-${section}-${n}#${section}-item-${n}` : tab;
}

/** The list item a confirm step names (`?confirm=delete-<section>-<index>`), or null. */
export function listItemToConfirm(confirm: string | null): { section: ListSectionKey; index: number } | null {
  const m = /^delete-([a-z_]+)-([1-9]\d{0,2})$/.exec(confirm ?? "");
  return m && Object.hasOwn(LIST_SECTIONS, m[1]!) ? { section: m[1] as ListSectionKey, index: Number(m[2]) } : null;
}

// ------------------------------------------------------------------------------------------ forms

const UNSAFE_KEYS = new Set(["__proto__", "prototype", "constructor"]);

/** Form fields named with dots ("crisis_plan.description") as nested objects (prototype keys are ignored). */
export function unflatten(values: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const path = name.split(".");
    if (path.some((part) => UNSAFE_KEYS.has(part))) continue;
    let at = out;
    for (const part of path.slice(0, -1)) {
      const next = at[part];
      at = (at[part] = next && typeof next === "object" && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
    }
    at[path.at(-1)!] = value;
  }
  return out;
}

/** A table grid posted by a form: header.{c} and cell.{r}.{c}; rows left entirely blank are dropped. */
export function tableFromForm(values: Record<string, unknown>): { table_headers: string[]; table_rows: string[][] } {
  const str = (x: unknown) => (Array.isArray(x) ? String(x.at(-1) ?? "") : x === undefined || x === null ? "" : String(x));
  const headerKeys = Object.keys(values).filter((k) => /^header\.\d+$/.test(k));
  // Sizes are capped one past the limits, so an oversized post is refused by the schema without being built.
  const columns = Math.min(headerKeys.length ? Math.max(...headerKeys.map((k) => Number(k.split(".")[1]))) + 1 : 0, LIMITS.tableColumns + 1);
  const rowKeys = Object.keys(values).filter((k) => /^cell\.\d+\.\d+$/.test(k));
  const rows = Math.min(rowKeys.length ? Math.max(...rowKeys.map((k) => Number(k.split(".")[1]))) + 1 : 0, LIMITS.tableRows + 1);
  const table_headers = Array.from({ length: columns }, (_, c) => str(values[`header.${c}`]).trim());
  const table_rows = Array.from({ length: rows }, (_, r) => table_headers.map((_, c) => str(values[`cell.${r}.${c}`]).trim())).filter((row) => row.some((x) => x !== ""));
  return { table_headers, table_rows };
}

// ------------------------------------------------------------------------------------------ the BIP input

const typeOfAssessment = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()])), "1"),
  v.transform((x) => (x === null || x === "" ? "1" : String(x).trim())),
  v.picklist(
    TYPES_OF_ASSESSMENT.map((t) => t.value),
    "Choose Initial Assessment or Reassessment.",
  ),
);

/**
 * The BIP's own fields (type, doctor, the attention flag) and the whole document: one schema for forms and API.
 * `kept`: an edit's stored recommended-service CPTs (keptCpts), which pass sent back as they are.
 */
export function bipInputFor(kept: KeptCpt) {
  return v.object({
    type_of_assessment: typeOfAssessment,
    doctor_id: optionalId,
    needs_attention: flag,
    ...(kept === NONE_KEPT ? entries : documentEntries(kept)),
  });
}
export const BipInput = bipInputFor(NONE_KEPT);
export type BipInput = v.InferOutput<typeof BipInput>;

/** A list filter's record id: the one rule of every list (app/domain/list-filters.ts). */
export { FilterId };

/**
 * The client filter of the BIP and goal lists (decision 010): patient_id, or client_id (the spec's name for the same
 * id). A client out of the asker's scope lists nothing, as any filter within the scope.
 */
export const ClientFilter = { patient_id: FilterId, client_id: FilterId };

/** The client a list is filtered by (patient_id first, else client_id), or "" for every client. */
export function filteredClientId(f: { patient_id: number | ""; client_id: number | "" }): number | "" {
  return f.patient_id !== "" ? f.patient_id : f.client_id;
}

/** The client of a new BIP: patient_id, or client_id (the spec's name for the same id). */
export const BipClientRef = v.object({
  patient_id: v.pipe(v.union([v.string(), v.number()], "Choose one of your clients."), v.transform((x: string | number) => numberOrNaN(x)), v.number("Choose one of your clients."), v.integer("Choose one of your clients."), v.minValue(1, "Choose one of your clients.")),
});

// ------------------------------------------------------------------------------------------ list operations

const indexField = (message: string) => v.pipe(v.union([v.string(), v.number()], message), v.transform((x: string | number) => numberOrNaN(x)), v.number(message), v.integer(message), v.minValue(1, message));
const optionalIndex = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()])), null),
  v.transform(numberOrNull),
  v.nullable(v.pipe(v.number("Choose an item of the list."), v.integer("Choose an item of the list."), v.minValue(1, "Choose an item of the list."))),
);
const sectionField = v.picklist(LIST_SECTION_KEYS, "Choose a list section of the plan.");

/** A change to one list section (clinical §4 list-and-form): save (append or replace), delete, move, reorder. */
export const ListOpInput = v.variant("op", [
  v.object({ op: v.literal("save"), section: sectionField, index: optionalIndex }),
  v.object({ op: v.literal("delete"), section: sectionField, index: indexField("Choose an item of the list.") }),
  v.object({ op: v.literal("move"), section: sectionField, index: indexField("Choose an item of the list."), direction: v.picklist(["up", "down"], "Move up or down.") }),
  v.object({
    op: v.literal("reorder"),
    section: sectionField,
    order: v.pipe(
      v.union([v.string(), v.array(v.union([v.string(), v.number()]))], "Give the new order as item numbers."),
      v.transform((x) => (Array.isArray(x) ? x : x.split(/[\s,]+/).filter(Boolean)).map(Number)),
      v.array(v.pipe(v.number(), v.integer("Give the new order as item numbers."))),
    ),
  }),
], "Choose save, delete, move or reorder.");
export type ListOp = v.InferOutput<typeof ListOpInput>;
