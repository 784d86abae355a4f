import * as v from "valibot";
import { endAfterStart, MESSAGES, optionalLine, requiredDate, requiredInt, requiredLine, requiredText } from "./fields";
import { plainObject } from "./validation";

/**
 * A client's PA assessments (clinical §3 Patient → Authorizations): a list of assessments, each with start
 * and end dates and its services (service dates, CPT, units, provider). Stored in the client's `details`
 * JSON. Pure: the schema, the no-JS row intents and the form names live here once.
 */

export const MAX_ASSESSMENTS = 20;
export const MAX_ASSESSMENT_SERVICES = 20;
export const ASSESSMENT_TEXT = 255;

/** The CPT rule of prior-authorization services (shared with PaServiceInput). */
export const cptCode = v.pipe(requiredText("CPT", 10), v.regex(/^[A-Za-z0-9]{4,10}$/, "Enter a valid CPT code (for example 97153)."));

/** The end date after the start date (the spec's message on end_date). */
const datesInOrder = (x: { start_date: string; end_date: string }) => endAfterStart(() => ({ start: x.start_date, end: x.end_date }))(x);

export const PaAssessmentServiceInput = v.pipe(
  v.object({
    start_date: requiredDate("Service start date"),
    end_date: requiredDate("Service end date"),
    cpt: cptCode,
    n_units: requiredInt("Units", 0, 100_000),
    provider: optionalLine("Provider", ASSESSMENT_TEXT),
  }, "Each service must be an object."),
  v.forward(v.check((x) => datesInOrder(x), MESSAGES.endAfterStart), ["end_date"]),
);

/** A list from a JSON body or a form (nested by nestFormFields); missing or null means none. */
function listOf<S extends v.GenericSchema>(item: S, max: number, label: string, noun: string) {
  return v.pipe(
    v.optional(v.nullable(v.array(item, `${label} must be a list.`)), []),
    v.transform((x): v.InferOutput<S>[] => (x ?? []) as v.InferOutput<S>[]),
    v.maxLength(max, `At most ${max} ${noun}.`),
  );
}

export const PaAssessmentInput = v.pipe(
  v.object({
    assessment: requiredLine("Assessment", ASSESSMENT_TEXT),
    start_date: requiredDate("Start date"),
    end_date: requiredDate("End date"),
    services: listOf(plainObject(PaAssessmentServiceInput), MAX_ASSESSMENT_SERVICES, "Services", "services per assessment"),
  }, "Each PA assessment must be an object."),
  v.forward(v.check((x) => datesInOrder(x), MESSAGES.endAfterStart), ["end_date"]),
);
export type PaAssessment = v.InferOutput<typeof PaAssessmentInput>;

export const paAssessmentsSchema = listOf(plainObject(PaAssessmentInput), MAX_ASSESSMENTS, "PA assessments", "PA assessments");

/** Stored assessments read back: whatever does not parse any more is shown as none rather than failing. */
export function readPaAssessments(raw: unknown): PaAssessment[] {
  const r = v.safeParse(paAssessmentsSchema, raw);
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
