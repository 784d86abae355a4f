import * as v from "valibot";
import { isFutureDate, MESSAGES, optionalChoice, optionalDate, optionalId, optionalInt, optionalLine, optionalNumber, optionalPhone, optionalText, requiredDate, requiredLine, requiredText } from "./fields";
import { plainObject, parseStored, safeParseChange, safeParsePlain, sentBy, type Parsed } from "./validation";

/**
 * Intake assessment (clinical §3 "Intake assessment", §5 "Intake and notes"; platform §2
 * medical/initial-assessment). Pure. The sections are declared once as data: the valibot schema, the
 * form, the read-only view and the model all read the declarations.
 *
 * Shape (API and form alike): the header, "household and home" and "medical necessity" fields sit at the
 * top level of the intake (they are the intake's own fields in C §3); each sub-record of C §3 is an
 * object (or a list of rows) under its own key. The spec's unnamed medical-necessity field ("{token}")
 * is `medical_necessity_statement`.
 */

export type IntakeFieldType =
  | "text" // short text (255)
  | "longtext" // narrative (5000)
  | "date"
  | "yesno" // yes / true / 1 → true; no / false / 0 / "" / missing → false (C §5)
  | "number" // ≥ 0, decimals allowed
  | "int" // whole number ≥ 0
  | "phone"
  | "choice"
  | "bip"; // a BIP of the same client

export interface IntakeField {
  name: string;
  label: string;
  type: IntakeFieldType;
  required?: boolean;
  /** Required when this yes/no field (same record) is yes. */
  requiredIf?: string;
  /** A date that must come after this date field (same record). */
  after?: string;
  /** A date of something that has happened (the interview, prior services): none after today at the client's location. */
  past?: boolean;
  max?: number;
  options?: readonly { value: string; label: string }[];
}

/** "fields": the intake's own top-level fields; "object": a sub-record under `id`; "list": rows under `id`. */
export interface IntakeSection {
  id: string;
  label: string;
  kind: "fields" | "object" | "list";
  fields: readonly IntakeField[];
  /** For lists: what one row is called ("Program"), and the most rows allowed. */
  rowLabel?: string;
  maxRows?: number;
}

export const SHORT_TEXT = 255;
export const LONG_TEXT = 5000;
export const MAX_ROWS = 30;

const f = (name: string, label: string, type: IntakeFieldType, extra: Partial<IntakeField> = {}): IntakeField => ({ name, label, type, ...extra });

export const HEALTH_BEHAVIORS = [
  ["elopement", "Elopement"],
  ["unsafe_climbing", "Unsafe climbing"],
  ["mouthing_inedibles", "Mouthing inedibles"],
  ["self_injury", "Self injury"],
  ["throwing", "Throwing"],
  ["physical_aggression", "Physical aggression"],
] as const;

export const ATTENDS_OPTIONS = [
  { value: "school", label: "School" },
  { value: "daycare", label: "Daycare" },
  { value: "none", label: "Neither" },
] as const;

export const INTAKE_SECTIONS: readonly IntakeSection[] = [
  {
    id: "header",
    label: "Assessment",
    kind: "fields",
    fields: [
      f("bip_id", "Behavior intervention plan", "bip"),
      f("person_responding", "Person responding", "text", { required: true }),
      f("observation_date", "Observation date", "date", { required: true, past: true }),
      f("current_insurance", "Current insurance", "text"),
      f("additional_insurance", "Additional insurance", "text"),
    ],
  },
  {
    id: "household",
    label: "Household and home",
    kind: "fields",
    fields: [
      f("home_community_description", "Home and community description", "longtext"),
      f("has_own_room", "Has own room", "yesno"),
      f("shares_room_with", "Shares room with", "text"),
    ],
  },
  {
    id: "household_members",
    label: "Household members",
    kind: "list",
    rowLabel: "Household member",
    maxRows: MAX_ROWS,
    fields: [f("name", "Name", "text", { required: true }), f("relationship", "Relationship", "text"), f("age", "Age", "int", { max: 120 })],
  },
  {
    id: "medical_necessity",
    label: "Medical necessity",
    kind: "fields",
    fields: [
      f("medical_necessity_statement", "Medical necessity statement", "longtext"),
      f("impairs_other_services_without_rbt", "Impairs other services without RBT", "yesno"),
      f("impairs_other_services_description", "How other services are impaired", "longtext", { requiredIf: "impairs_other_services_without_rbt" }),
    ],
  },
  {
    id: "medical_development_history",
    label: "Medical and developmental history",
    kind: "object",
    fields: [
      f("diagnoses", "Diagnoses", "longtext"),
      f("pregnancy_complications", "Pregnancy complications", "longtext"),
      f("seizures", "Seizures", "yesno"),
      f("seizures_description", "Seizures: description", "longtext", { requiredIf: "seizures" }),
      f("allergies", "Allergies", "longtext"),
      f("other_complications", "Other complications", "longtext"),
    ],
  },
  {
    id: "family_legal_history",
    label: "Family and legal history",
    kind: "object",
    fields: [f("family_history", "Family history", "longtext"), f("custody", "Custody and guardianship", "longtext"), f("legal_involvement", "Legal involvement", "longtext")],
  },
  {
    id: "educational_programs",
    label: "Educational and therapeutic programs",
    kind: "list",
    rowLabel: "Program",
    maxRows: MAX_ROWS,
    fields: [
      f("name", "Program name", "text", { required: true }),
      f("type", "Type", "text"),
      f("weekly_frequency", "Weekly frequency", "number", { max: 100 }),
      f("hours_per_session", "Hours per session", "number", { max: 24 }),
      f("location", "Location", "text"),
    ],
  },
  {
    id: "school_daycare",
    label: "School or daycare",
    kind: "object",
    fields: [
      f("attends", "Attends", "choice", { options: ATTENDS_OPTIONS }),
      f("name", "School or daycare name", "text"),
      f("grade", "Grade or class", "text"),
      f("schedule", "Schedule", "text"),
      f("contact_name", "Contact person", "text"),
      f("contact_phone", "Contact phone", "phone"),
      f("notes", "Notes", "longtext"),
    ],
  },
  {
    id: "prior_aba_services",
    label: "Prior ABA services",
    kind: "object",
    fields: [
      f("received", "Received ABA services before", "yesno"),
      f("provider", "Provider", "text"),
      f("start_date", "Start date", "date", { past: true }),
      f("end_date", "End date", "date", { after: "start_date", past: true }),
      f("treatment_response", "Treatment response", "longtext"),
    ],
  },
  {
    id: "health_behaviors",
    label: "Health and safety behaviors",
    kind: "object",
    fields: HEALTH_BEHAVIORS.flatMap(([name, label]) => [f(name, label, "yesno"), f(`${name}_description`, `${label}: description`, "longtext", { requiredIf: name })]),
  },
  {
    id: "past_current_treatments",
    label: "Past and current treatments",
    kind: "object",
    fields: [f("past_treatments", "Past treatments", "longtext"), f("current_treatments", "Current treatments", "longtext")],
  },
  {
    id: "educational_medical_status",
    label: "Educational and medical status",
    kind: "object",
    fields: [f("educational_status", "Educational status", "longtext"), f("medical_status", "Medical status", "longtext")],
  },
  { id: "other_therapy_services", label: "Other therapy services", kind: "fields", fields: [f("other_therapy_services", "Other therapy services", "longtext")] },
  { id: "conducted_assessments", label: "Conducted assessments", kind: "fields", fields: [f("conducted_assessments", "Conducted assessments", "longtext")] },
  { id: "setting_events_antecedents", label: "Setting events and antecedents", kind: "fields", fields: [f("setting_events_antecedents", "Setting events and antecedents", "longtext")] },
  { id: "preference_assessment", label: "Preference assessment", kind: "fields", fields: [f("preference_assessment", "Preference assessment", "longtext")] },
  { id: "patient_summary", label: "Patient summary", kind: "fields", fields: [f("patient_summary", "Patient summary", "longtext")] },
];

/** Fields stored in their own columns of intake_assessments; everything else is the JSON document. */
export const COLUMN_FIELDS = ["bip_id", "person_responding", "observation_date", "current_insurance", "additional_insurance", "impairs_other_services_without_rbt"] as const;

export const LIST_SECTIONS = INTAKE_SECTIONS.filter((s) => s.kind === "list");

// ---------------------------------------------------------------------------------------------------
// yes / no (C §5: impairs_other_services_without_rbt accepts yes, true or 1 as true)

const YES = ["yes", "true", "1"];
const NO = ["no", "false", "0", ""];

/** true / false for an accepted answer, undefined for anything else. Missing (undefined, null) is no. */
export function yesNo(x: unknown): boolean | undefined {
  if (x === undefined || x === null || x === false || x === 0) return false;
  if (x === true || x === 1) return true;
  if (typeof x === "string") {
    const t = x.trim().toLowerCase();
    if (YES.includes(t)) return true;
    if (NO.includes(t)) return false;
  }
  return undefined;
}

export const yesNoMessage = (label: string) => `${label} must be yes or no (yes, true or 1; no, false, 0 or empty).`;

export function yesNoField(label: string) {
  return v.pipe(
    v.optional(v.unknown(), false),
    v.check((x) => yesNo(x) !== undefined, yesNoMessage(label)),
    v.transform((x) => yesNo(x) === true),
  );
}

// ---------------------------------------------------------------------------------------------------
// Schemas, built from the declarations

export const requiredIfMessage = (field: IntakeField, parent: IntakeField) => `${field.label} is required when "${parent.label}" is yes.`;
const maxMessage = (label: string, max: number) => `${label} must be at most ${max}.`;

/** A required field left out altogether reads as empty, so it gets its "… is required." message. */
function present(schema: v.GenericSchema): v.GenericSchema {
  return v.pipe(v.optional(v.unknown(), ""), v.transform((x) => x ?? ""), schema) as unknown as v.GenericSchema;
}

function fieldSchema(field: IntakeField): v.GenericSchema {
  const { label } = field;
  switch (field.type) {
    case "text":
      return field.required ? present(requiredLine(label, SHORT_TEXT)) : optionalLine(label, SHORT_TEXT);
    case "longtext":
      return field.required ? present(requiredText(label, LONG_TEXT)) : optionalText(label, LONG_TEXT);
    case "date":
      return field.required ? present(requiredDate(label)) : optionalDate;
    case "yesno":
      return yesNoField(label);
    case "number":
      return v.pipe(
        optionalNumber(label, 0),
        v.check((n) => n === null || field.max === undefined || n <= field.max, maxMessage(label, field.max ?? 0)),
      );
    case "int":
      return v.pipe(
        optionalInt(label, 0),
        v.check((n) => n === null || field.max === undefined || n <= field.max, maxMessage(label, field.max ?? 0)),
      );
    case "phone":
      return optionalPhone;
    case "choice":
      return optionalChoice((field.options ?? []).map((o) => o.value), `${label}: choose ${(field.options ?? []).map((o) => o.label.toLowerCase()).join(", ")}.`);
    case "bip":
      return optionalId;
  }
}

type Rule = v.GenericPipeAction<Record<string, unknown>, Record<string, unknown>>;

/** Cross-field rules of one record: descriptions required after a yes, end dates after start dates. */
function recordRules(fields: readonly IntakeField[]): Rule[] {
  const rules: Rule[] = [];
  for (const field of fields) {
    const parent = field.requiredIf ? fields.find((x) => x.name === field.requiredIf) : undefined;
    if (parent) {
      rules.push(
        v.forward(
          v.partialCheck([[parent.name], [field.name]], (x: Record<string, unknown>) => x[parent.name] !== true || (typeof x[field.name] === "string" && x[field.name] !== ""), requiredIfMessage(field, parent)),
          [field.name],
        ) as unknown as Rule,
      );
    }
    if (field.after) {
      const start = field.after;
      rules.push(
        v.forward(
          v.partialCheck([[start], [field.name]], (x: Record<string, unknown>) => !x[start] || !x[field.name] || String(x[field.name]) > String(x[start]), MESSAGES.endAfterStart),
          [field.name],
        ) as unknown as Rule,
      );
    }
  }
  return rules;
}

function recordSchema(fields: readonly IntakeField[]): v.GenericSchema {
  const object = v.object(Object.fromEntries(fields.map((x) => [x.name, fieldSchema(x)])), "Send this record as an object.");
  const rules = recordRules(fields);
  return plainObject(rules.length ? (v.pipe(object, ...(rules as [Rule])) as unknown as v.GenericSchema) : object);
}

function listSchema(section: IntakeSection): v.GenericSchema {
  const max = section.maxRows ?? MAX_ROWS;
  return v.pipe(
    v.optional(v.nullable(v.array(recordSchema(section.fields), `${section.label}: send a list of rows.`)), []),
    v.transform((x) => x ?? []),
    v.maxLength(max, `${section.label}: at most ${max} rows.`),
  );
}

const TOP_FIELDS = INTAKE_SECTIONS.filter((s) => s.kind === "fields").flatMap((s) => s.fields);

/** Each key of the intake with its schema; a missing key gets its default (none, no, an empty record or list). */
const ENTRIES: Record<string, v.GenericSchema> = {
  ...Object.fromEntries(TOP_FIELDS.map((x) => [x.name, fieldSchema(x)])),
  ...Object.fromEntries(INTAKE_SECTIONS.filter((s) => s.kind !== "fields").map((s) => [s.id, s.kind === "list" ? listSchema(s) : v.optional(recordSchema(s.fields), {})])),
};

/** One schema for the intake form and the intake API (patient_id is checked by the model). */
export const IntakeInput = v.pipe(v.object(ENTRIES), ...(recordRules(TOP_FIELDS) as [Rule])) as unknown as v.GenericSchema<unknown, IntakeInput>;

export type IntakeInput = {
  bip_id: number | null;
  person_responding: string;
  observation_date: string;
  current_insurance: string | null;
  additional_insurance: string | null;
  impairs_other_services_without_rbt: boolean;
} & Record<string, unknown>;

/** One message per field, keyed by its path with row positions kept ("educational_programs.1.name"). */
export function intakeErrors(issues: readonly v.BaseIssue<unknown>[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const key = issue.path?.map((p) => String(p.key)).join(".") || "form";
    out[key] ??= issue.message;
  }
  return out;
}

/**
 * Dates of what has happened (`past` fields) after `today`, the client's location's date: "Observation date cannot be
 * in the future." keyed as the form shows it. Like a birth date (decision 017), only a value the save sets is refused:
 * a date stored before this rule stays until someone changes it (`stored`: the intake as it is; none when creating).
 */
export function futureDateErrors(input: Record<string, unknown>, today: string, stored: Record<string, unknown> | null = null): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const section of INTAKE_SECTIONS) {
    if (section.kind === "list") continue;
    for (const field of section.fields) {
      if (!field.past) continue;
      const { errorKey, path } = fieldName(section, field);
      const date = valueAt(input, path);
      if (isFutureDate(date, today) && valueAt(stored, path) !== date) errors[errorKey] = MESSAGES.futureDate(field.label);
    }
  }
  return errors;
}

/**
 * The parts of an intake that the database checks read (`bip_id` and the `past` dates), each taken only where its own
 * field parses, from a save refused on other fields: the date and BIP rules still run, so one submit lists every error
 * (decision 011, stop 43). A field that does not parse is left out, so its own message stands. `stored`: the intake a
 * partial change is merged onto, as parseIntake takes it.
 */
export function checkedParts(input: Record<string, unknown>, stored: Record<string, unknown> | null = null): Pick<IntakeInput, "bip_id"> & Record<string, unknown> {
  const merged = stored ? { ...stored, ...input } : input;
  const out: Record<string, unknown> = { bip_id: null };
  for (const section of INTAKE_SECTIONS) {
    if (section.kind === "list") continue;
    for (const field of section.fields) {
      if (!field.past && field.type !== "bip") continue;
      const r = v.safeParse(fieldSchema(field), valueAt(merged, [...fieldName(section, field).path]));
      if (!r.success || r.output === null) continue;
      if (section.kind === "fields") out[field.name] = r.output;
      else out[section.id] = { ...(out[section.id] as Record<string, unknown> | undefined), [field.name]: r.output };
    }
  }
  return out as Pick<IntakeInput, "bip_id"> & Record<string, unknown>;
}

/** The intake's fields (the keys its updates read). */
export const INTAKE_FIELDS = Object.keys(ENTRIES);

export function parseIntake(input: Record<string, unknown>, stored: Record<string, unknown> | null = null): Parsed<IntakeInput> {
  const r = stored ? safeParseChange(IntakeInput, { ...stored, ...input }, sentBy(input)) : safeParsePlain(IntakeInput, input);
  return r.success ? { ok: true, data: r.output } : { ok: false, errors: intakeErrors(r.issues) };
}

const isColumn = (key: string) => (COLUMN_FIELDS as readonly string[]).includes(key);

/** The JSON document: every parsed field that is not a column. */
export function documentOf(input: IntakeInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(input).filter(([k]) => !isColumn(k)));
}

/**
 * A stored document read back with every key present. Each key is read on its own, so a part written by
 * an older shape falls back to its default without losing the rest.
 */
export function readDocument(json: string): Record<string, unknown> {
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch {
    raw = {};
  }
  const stored = raw && typeof raw === "object" && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(ENTRIES)) {
    if (isColumn(key)) continue;
    // A part stored before a rule existed is read with its refused values made readable, not dropped (parseStored).
    const one = parseStored(schema, stored[key]);
    out[key] = one.success ? one.output : v.parse(schema, undefined);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Forms without JavaScript: rows posted with indexed names (educational_programs[0][name])

const FIELD_NAME = /^([A-Za-z_]\w*)((?:\[\w+\])*)$/;
const UNSAFE = new Set(["__proto__", "constructor", "prototype"]);
const MAX_INDEX = 999;

type Tree = Record<string, unknown>;

/** Objects whose keys are all row positions become arrays, in position order (gaps closed). */
function toArrays(node: unknown): unknown {
  if (!node || typeof node !== "object" || Array.isArray(node)) return node;
  const entries = Object.entries(node as Tree).map(([k, x]) => [k, toArrays(x)] as const);
  if (entries.length && entries.every(([k]) => /^\d+$/.test(k))) return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, x]) => x);
  return Object.fromEntries(entries);
}

/**
 * A form's flat fields as the nested intake input: `household_members[1][name]` → household_members[1].name,
 * `school_daycare[name]` → school_daycare.name. Plain keys (and values that are already objects, from a
 * JSON body) are kept as they are; names that do not parse, or unsafe keys, are dropped.
 */
export function nestFormFields(flat: Record<string, unknown>): Record<string, unknown> {
  const out: Tree = {};
  for (const [name, value] of Object.entries(flat)) {
    const m = FIELD_NAME.exec(name);
    if (!m) continue;
    const keys = [m[1]!, ...[...m[2]!.matchAll(/\[(\w+)\]/g)].map((x) => x[1]!)];
    if (keys.some((k) => UNSAFE.has(k) || (/^\d+$/.test(k) && Number(k) > MAX_INDEX))) continue;
    let node = out;
    for (const key of keys.slice(0, -1)) {
      const child = node[key];
      if (!child || typeof child !== "object" || Array.isArray(child)) node[key] = {};
      node = node[key] as Tree;
    }
    node[keys[keys.length - 1]!] = value;
  }
  return toArrays(out) as Record<string, unknown>;
}

export type RowIntent = { op: "add"; list: string } | { op: "remove"; list: string; index: number };

/** "add-row:educational_programs" or "remove-row:household_members:2"; null for anything else. */
export function rowIntent(intent: unknown): RowIntent | null {
  if (typeof intent !== "string") return null;
  const m = /^(add|remove)-row:(\w+)(?::(\d{1,3}))?$/.exec(intent);
  if (!m || !LIST_SECTIONS.some((s) => s.id === m[2])) return null;
  if (m[1] === "add") return m[3] === undefined ? { op: "add", list: m[2]! } : null;
  return m[3] === undefined ? null : { op: "remove", list: m[2]!, index: Number(m[3]) };
}

function rowIndexes(flat: Record<string, unknown>, list: string): number[] {
  const re = new RegExp(`^${list}\\[(\\d+)\\]`);
  return [...new Set(Object.keys(flat).map((k) => re.exec(k)?.[1]).filter((x): x is string => x !== undefined).map(Number))].sort((a, b) => a - b);
}

/**
 * Applies "Add a row" (one more empty row, unless the list is full) or "Remove" (that row, by its position
 * among the posted rows) to the posted fields, keeping everything typed.
 */
export function applyRowIntent<T extends Record<string, unknown>>(flat: T, intent: RowIntent): Record<string, unknown> {
  const section = LIST_SECTIONS.find((s) => s.id === intent.list)!;
  const indexes = rowIndexes(flat, intent.list);
  if (intent.op === "add") {
    if (indexes.length >= (section.maxRows ?? MAX_ROWS)) return flat;
    const next = indexes.length ? indexes[indexes.length - 1]! + 1 : 0;
    return { ...flat, ...Object.fromEntries(section.fields.map((x) => [`${intent.list}[${next}][${x.name}]`, ""])) };
  }
  const gone = indexes[intent.index];
  if (gone === undefined) return flat;
  const prefix = `${intent.list}[${gone}][`;
  return Object.fromEntries(Object.entries(flat).filter(([k]) => !k.startsWith(prefix)));
}

// ---------------------------------------------------------------------------------------------------
// Reading values back (form and view)

/** The value at a path of a (nested) intake: ["educational_programs", 1, "name"]. */
export function valueAt(record: unknown, path: readonly (string | number)[]): unknown {
  let node = record;
  for (const key of path) {
    if (!node || typeof node !== "object") return undefined;
    node = (node as Record<string | number, unknown>)[key];
  }
  return node;
}

/** The rows of a list section in a (nested) intake. */
export function rowsOf(record: unknown, list: string): Record<string, unknown>[] {
  const rows = valueAt(record, [list]);
  return Array.isArray(rows) ? rows.map((r) => (r && typeof r === "object" ? (r as Record<string, unknown>) : {})) : [];
}

/** A value for display: yes/no for answers, the option label for choices, "—" for none. */
export function displayValue(field: IntakeField, value: unknown): string {
  if (field.type === "yesno") return yesNo(value) ? "Yes" : "No";
  if (value === null || value === undefined || value === "") return "—";
  if (field.type === "choice") return field.options?.find((o) => o.value === value)?.label ?? String(value);
  return String(value);
}

/** The form name and the error key of a field: top level, in a sub-record, or in a row. */
export function fieldName(section: IntakeSection, field: IntakeField, row?: number): { name: string; errorKey: string; path: (string | number)[] } {
  if (section.kind === "fields") return { name: field.name, errorKey: field.name, path: [field.name] };
  if (section.kind === "object") return { name: `${section.id}[${field.name}]`, errorKey: `${section.id}.${field.name}`, path: [section.id, field.name] };
  return { name: `${section.id}[${row ?? 0}][${field.name}]`, errorKey: `${section.id}.${row ?? 0}.${field.name}`, path: [section.id, row ?? 0, field.name] };
}
