import * as v from "valibot";
import { MESSAGES, optionalLine, requiredDate, requiredInt, requiredLine, requiredText } from "./fields";
import { CPT_MESSAGE, isCptCode } from "./insurance";
import { plainObject } from "./validation";

/**
 * A client's PA assessments (clinical §3 Patient → Authorizations): a list of assessments, each with start
 * and end dates and its services (service dates, CPT, units, provider). Stored in the client's `details`
 * JSON. Pure: the schema, the no-JS row intents and the form names live here once.
 */

export const MAX_ASSESSMENTS = 20;
export const MAX_ASSESSMENT_SERVICES = 20;
export const ASSESSMENT_TEXT = 255;

/**
 * The CPT of a prior authorization (a PA service, a PA assessment's service): the insurer services' rule
 * (`isCptCode`, app/domain/insurance.ts) with one message, stored in upper case. `kept`: whether a value is the stored
 * one sent back as it is, which passes even when it fails the rule (written before it; decision 017, stop 36).
 */
export function cptField(kept: (cpt: string) => boolean = () => false) {
  return v.pipe(
    requiredText("CPT", 10),
    v.check((s: string) => isCptCode(s) || kept(s), CPT_MESSAGE),
    v.transform((s: string) => (isCptCode(s) ? s.toUpperCase() : s)),
  );
}

/** The CPT rule for a new value (nothing stored to keep). */
export const cptCode = cptField();

type Dated = { start_date: string; end_date: string };

/**
 * The one date rule of an authorization (a PA service, a PA assessment and each of its services): the end is not
 * before the start, so a one-day authorization (start = end) is valid; the calculator counts it as one week (issue 11).
 */
export const datesInOrder = (x: Dated) => x.end_date >= x.start_date;

/** A service of an assessment falls within the assessment's own dates. */
export const withinAssessment = (a: Dated, s: Dated) => s.start_date >= a.start_date && s.end_date <= a.end_date;

export const SERVICE_OUTSIDE_ASSESSMENT = (a: Dated) => `The service dates must fall within the assessment's dates (${a.start_date} to ${a.end_date}).`;

/** A list from a JSON body or a form (nested by nestFormFields); missing or null means none. */
function listOf<S extends v.GenericSchema>(item: S, max: number, label: string, noun: string) {
  return v.pipe(
    v.optional(v.nullable(v.array(item, `${label} must be a list.`)), []),
    v.transform((x): v.InferOutput<S>[] => (x ?? []) as v.InferOutput<S>[]),
    v.maxLength(max, `At most ${max} ${noun}.`),
  );
}

/** What a save keeps as stored although today's rules refuse it: a CPT, and a service's dates within its assessment's. */
interface Kept {
  cpt: (cpt: string) => boolean;
  range: (a: Dated, s: Dated) => boolean;
}

function assessmentSchemas(kept: Kept) {
  const service = v.pipe(
    v.object({
      start_date: requiredDate("Service start date"),
      end_date: requiredDate("Service end date"),
      cpt: cptField(kept.cpt),
      n_units: requiredInt("Units", 0, 100_000),
      provider: optionalLine("Provider", ASSESSMENT_TEXT),
    }, "Each service must be an object."),
    v.forward(v.check((x) => datesInOrder(x), MESSAGES.endNotBeforeStart), ["end_date"]),
  );
  const assessment = v.pipe(
    v.object({
      assessment: requiredLine("Assessment", ASSESSMENT_TEXT),
      start_date: requiredDate("Start date"),
      end_date: requiredDate("End date"),
      services: listOf(plainObject(service), MAX_ASSESSMENT_SERVICES, "Services", "services per assessment"),
    }, "Each PA assessment must be an object."),
    v.forward(v.check((x) => datesInOrder(x), MESSAGES.endNotBeforeStart), ["end_date"]),
    // Each service within the assessment's dates, the error at the service's date that falls outside.
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed || !datesInOrder(dataset.value)) return;
      const a = dataset.value;
      a.services.forEach((s, j) => {
        if (!datesInOrder(s) || withinAssessment(a, s) || kept.range(a, s)) return;
        const field = s.start_date < a.start_date ? "start_date" : "end_date";
        addIssue({ message: SERVICE_OUTSIDE_ASSESSMENT(a), path: [pathItem(a, "services"), pathItem(a.services, j), pathItem(s, field)] });
      });
    }),
  );
  return { service, assessment, list: listOf(plainObject(assessment), MAX_ASSESSMENTS, "PA assessments", "PA assessments") };
}

const pathItem = (input: object, key: string | number) => ({ type: "unknown" as const, origin: "value" as const, input, key, value: (input as Record<string | number, unknown>)[key] });

const NEW = assessmentSchemas({ cpt: () => false, range: () => false });
export const PaAssessmentServiceInput = NEW.service;
export const PaAssessmentInput = NEW.assessment;
export type PaAssessment = v.InferOutput<typeof PaAssessmentInput>;

/** The assessments of a create, or of a save with nothing stored: every value is checked. */
export const paAssessmentsSchema = NEW.list;

const rangeKey = (a: Dated, s: Dated) => `${a.start_date}|${a.end_date}|${s.start_date}|${s.end_date}`;

/**
 * The assessments of a save over `stored` (the client's assessments as read): a new or changed value must pass, and a
 * stored one sent back as it is passes (decision 017, stop 36). A CPT is kept when the client's stored services hold it
 * (in any letter case); a service's dates outside its assessment's are kept when a stored assessment with those dates
 * holds a service with those dates. Only what was stored before the rules can be kept: a stored value passed them since.
 */
export function paAssessmentsSchemaFor(stored: readonly PaAssessment[]) {
  if (!stored.length) return paAssessmentsSchema;
  const cpts = new Set(stored.flatMap((a) => a.services.map((s) => s.cpt.trim().toUpperCase())));
  const ranges = new Set(stored.flatMap((a) => a.services.map((s) => rangeKey(a, s))));
  return assessmentSchemas({ cpt: (c) => cpts.has(c.trim().toUpperCase()), range: (a, s) => ranges.has(rangeKey(a, s)) }).list;
}

/** Reads what is stored: the rules of entry (CPT, dates within the assessment's) do not hide a record saved before them. */
const storedSchema = assessmentSchemas({ cpt: () => true, range: () => true }).list;

/** Stored assessments read back: whatever does not parse any more is shown as none rather than failing. */
export function readPaAssessments(raw: unknown): PaAssessment[] {
  const r = v.safeParse(storedSchema, raw);
  return r.success ? r.output : [];
}

// ---------------------------------------------------------------------------------------------------
// The form without JavaScript: rows posted as pa_assessments[0][services][1][cpt]; "Add an assessment",
// "Add a service" and "Remove" are submit buttons whose intent re-renders the form with the typed values.

export const ASSESSMENT_FIELDS = ["assessment", "start_date", "end_date"] as const;
export const SERVICE_FIELDS = ["start_date", "end_date", "cpt", "n_units", "provider"] as const;

export type PaAssessmentIntent =
  | { op: "add-assessment" }
  | { op: "remove-assessment"; index: number }
  | { op: "add-service"; index: number }
  | { op: "remove-service"; index: number; service: number };

/** "pa-add-assessment", "pa-remove-assessment:1", "pa-add-service:1", "pa-remove-service:1:0"; null otherwise. */
export function paAssessmentIntent(intent: unknown): PaAssessmentIntent | null {
  if (typeof intent !== "string") return null;
  if (intent === "pa-add-assessment") return { op: "add-assessment" };
  let m = /^pa-(remove-assessment|add-service):(\d{1,3})$/.exec(intent);
  if (m) return { op: m[1] as "remove-assessment" | "add-service", index: Number(m[2]) };
  m = /^pa-remove-service:(\d{1,3}):(\d{1,3})$/.exec(intent);
  return m ? { op: "remove-service", index: Number(m[1]), service: Number(m[2]) } : null;
}

export const assessmentName = (i: number, field: string) => `pa_assessments[${i}][${field}]`;
export const serviceName = (i: number, j: number, field: string) => `pa_assessments[${i}][services][${j}][${field}]`;

/** Positions posted under a prefix ("pa_assessments" → its rows, "pa_assessments[2][services]" → that row's services). */
function positions(flat: Record<string, unknown>, prefix: string): number[] {
  const escaped = prefix.replace(/[[\]]/g, "\\$&");
  const re = new RegExp(`^${escaped}\\[(\\d+)\\]`);
  return [...new Set(Object.keys(flat).map((k) => re.exec(k)?.[1]).filter((x): x is string => x !== undefined).map(Number))].sort((a, b) => a - b);
}

const emptyRow = (names: readonly string[], nameOf: (field: string) => string) => Object.fromEntries(names.map((x) => [nameOf(x), ""]));
const without = (flat: Record<string, unknown>, prefix: string) => Object.fromEntries(Object.entries(flat).filter(([k]) => !k.startsWith(prefix)));

/**
 * Applies a row intent to the posted (flat) fields, keeping everything typed. Positions are those among the
 * posted rows (what the form rendered); a full list or an unknown position leaves the fields as they are.
 */
export function applyPaAssessmentIntent<T extends Record<string, unknown>>(flat: T, intent: PaAssessmentIntent): Record<string, unknown> {
  const rows = positions(flat, "pa_assessments");
  if (intent.op === "add-assessment") {
    if (rows.length >= MAX_ASSESSMENTS) return flat;
    const next = rows.length ? rows[rows.length - 1]! + 1 : 0;
    return { ...flat, ...emptyRow(ASSESSMENT_FIELDS, (x) => assessmentName(next, x)) };
  }
  const row = rows[intent.index];
  if (row === undefined) return flat;
  if (intent.op === "remove-assessment") return without(flat, `pa_assessments[${row}][`);
  const services = positions(flat, `pa_assessments[${row}][services]`);
  if (intent.op === "add-service") {
    if (services.length >= MAX_ASSESSMENT_SERVICES) return flat;
    const next = services.length ? services[services.length - 1]! + 1 : 0;
    return { ...flat, ...emptyRow(SERVICE_FIELDS, (x) => serviceName(row, next, x)) };
  }
  const service = services[intent.service];
  return service === undefined ? flat : without(flat, `pa_assessments[${row}][services][${service}][`);
}
