import * as v from "valibot";
import { choiceList, choiceOr, DIAGNOSIS_CODE, DIAGNOSIS_CODE_MESSAGE, flag, MESSAGES, npiField, optionalDiagnosisCode, optionalChoice, optionalNpi, optionalDate, optionalEmail, optionalId, optionalLine, optionalMoney, optionalPhone, optionalState, optionalText, optionalZip, requiredDate, requiredInt, requiredLine } from "./fields";
import { intakeErrors } from "./intake";
import { POS_CODE_VALUES } from "./locations";
import { cptField, datesInOrder, paAssessmentsSchema, paAssessmentsSchemaFor, type PaAssessment } from "./pa-assessments";
import { codePoint, isControlOrInvisible } from "./x12";
import { fieldErrors, safeParseChange, safeParsePlain, sentBy, type Parsed, type SetElsewhere } from "./validation";

/**
 * Clients (clinical §3 Patient) and prior-authorization services. Pure: the field groups are declared
 * once as data; the schema, the form, the profile and the model all read them.
 */

/** A client the actor cannot see, or none such: one wording on screens and in the API (probe 9040 F3). */
export const CLIENT_NOT_FOUND = "Client not found.";

export const PATIENT_STATUSES = ["active", "inactive", "incoming"] as const;
export type PatientStatus = (typeof PATIENT_STATUSES)[number];
export const GENDERS = [
  { value: "1", label: "Male" },
  { value: "2", label: "Female" },
] as const;
export const DOCUMENT_STATUSES = ["waiting", "requested", "reviewing", "yes"] as const;
export const INTERVIEW_STATUSES = ["send", "receive"] as const;

export type FieldType =
  | "text" // short text
  | "required" // required short text
  | "longtext"
  | "email"
  | "phone"
  | "zip"
  | "npi" // an NPI (10 digits, the last a check digit): the claim's rule
  | "date"
  | "money" // a number ≥ 0, decimals allowed
  | "flag"
  | "status"
  | "gender"
  | "document" // waiting / requested / reviewing / yes
  | "interview" // send / receive
  | "pos" // place-of-service codes
  | "code" // one diagnosis code
  | "codes" // a list of diagnosis codes
  | "location"
  | "parent"
  | "insurer"
  | "staff";

export const FIELD_GROUPS = [
  { id: "identity", label: "Identity" },
  { id: "contact", label: "Contact and address" },
  { id: "parent", label: "Parent or guardian" },
  { id: "education", label: "Education" },
  { id: "insurance", label: "Insurance" },
  { id: "flags", label: "Claim flags" },
  { id: "diagnosis", label: "Diagnosis" },
  { id: "referral", label: "Referral and provider" },
  { id: "eligibility", label: "Eligibility" },
  { id: "onboarding", label: "Onboarding documents" },
  { id: "staff", label: "Staff assignments" },
] as const;
export type FieldGroup = (typeof FIELD_GROUPS)[number]["id"];

export interface PatientField {
  name: string;
  label: string;
  type: FieldType;
  group: FieldGroup;
  /** Stored in its own column (filterable) rather than in `details`. */
  column?: boolean;
}

const f = (group: FieldGroup, type: FieldType, name: string, label: string, column = false): PatientField => ({ name, label, type, group, column });

const SECONDARY_ELIGIBILITY: PatientField[] = [
  f("eligibility", "text", "secondary_eqhlid", "Secondary EQHLID"),
  f("eligibility", "date", "secondary_elegibility_date", "Secondary eligibility date"),
  f("eligibility", "money", "secondary_deductible", "Secondary deductible"),
  f("eligibility", "money", "secondary_balance", "Secondary balance"),
  f("eligibility", "money", "secondary_coinsurance", "Secondary coinsurance"),
  f("eligibility", "money", "secondary_copayments", "Secondary copayments"),
  f("eligibility", "money", "secondary_oop", "Secondary out-of-pocket"),
  f("eligibility", "text", "secondary_patient_control", "Secondary patient control"),
  f("eligibility", "money", "secondary_compayment_per_visit", "Secondary copayment per visit"),
  f("eligibility", "pos", "secondary_pos_covered", "Secondary POS covered"),
];

/** Onboarding documents whose status must reach "yes" (interview is tracked apart: send → receive). */
export const ONBOARDING_DOCUMENTS = [
  ["welcome", "Welcome"],
  ["consent", "Consent"],
  ["insurance_card", "Insurance card"],
  ["eligibility", "Eligibility"],
  ["mnl", "MNL"],
  ["referral", "Referral"],
  ["ados", "ADOS"],
  ["iep", "IEP"],
  ["asd_diagnosis", "ASD diagnosis"],
  ["is_dsm5_diagnostic", "DSM-5 diagnostic"],
  ["cde", "CDE"],
  ["submitted", "Submitted"],
] as const;

export const STAFF_FIELDS = [
  ["rbt_home_id", "RBT (home)"],
  ["rbt2_school_id", "RBT (school)"],
  ["bcba_home_id", "BCBA (home)"],
  ["bcba_school_id", "BCBA (school)"],
  ["bcba2_school_id", "BCBA 2 (school)"],
  ["clin_director_id", "Clinical director"],
  ["case_manager_id", "Case manager"],
] as const;
export type StaffField = (typeof STAFF_FIELDS)[number][0];

/** How a select marks a stored employee (a client's staff link, a plan's doctor) who is not, or no longer, an employee of the client's location. */
export const NOT_AT_LOCATION = "not at the client's location";

/** Why a stored staff link (a client's, a plan's doctor, a note's provider or supervisor) can no longer be chosen. */
export type StaffGone = "deleted" | "inactive" | "elsewhere";

/**
 * A stored employee who can no longer be chosen, as their select names them: "Maya Thompson (deleted)", "… (inactive)".
 * `elsewhere`: the words for one who is active but no longer fits the record (a client's: not at its location).
 */
export function goneStaffLabel(name: string, why: StaffGone, elsewhere = NOT_AT_LOCATION): string {
  return `${name} (${why === "elsewhere" ? elsewhere : why})`;
}

/** A save that newly names an inactive employee as one of a client's staff (decision 037, stop 31). */
export const INACTIVE_STAFF = "This employee is inactive: choose an active employee.";

/** A staff option; `only`: a stored link no longer choosable, offered only in the fields that store it. */
export interface StaffOption {
  id: number;
  name: string;
  only?: readonly StaffField[];
}

/** The options of one staff field: every choosable employee, and a stored one who is no longer only in its own field. */
export function staffOptionsFor<T extends StaffOption>(field: StaffField, options: readonly T[]): T[] {
  return options.filter((o) => !o.only || o.only.includes(field));
}

export const PATIENT_FIELDS: readonly PatientField[] = [
  f("identity", "required", "patient_identifier", "Patient identifier", true),
  f("identity", "required", "first_name", "First name", true),
  f("identity", "required", "last_name", "Last name", true),
  f("identity", "status", "status", "Status", true),
  f("identity", "date", "birth_date", "Birth date", true),
  f("identity", "gender", "gender", "Gender", true),
  f("identity", "text", "language", "Language"),
  f("identity", "location", "location_id", "Location", true),

  f("contact", "email", "email", "Email"),
  f("contact", "phone", "phone", "Phone"),
  f("contact", "phone", "home_phone", "Home phone"),
  f("contact", "phone", "work_phone", "Work phone"),
  f("contact", "text", "address", "Address"),
  f("contact", "text", "city", "City"),
  f("contact", "text", "state", "State"),
  f("contact", "zip", "zip", "ZIP code"),
  f("contact", "text", "schedule", "Schedule"),
  f("contact", "text", "summer_schedule", "Summer schedule"),
  f("contact", "longtext", "special_note", "Special note"),

  f("parent", "parent", "parent_id", "Parent account", true),
  f("parent", "text", "parent_name", "Parent name"),
  f("parent", "gender", "parent_gender", "Parent gender"),
  f("parent", "date", "parent_birth_date", "Parent birth date"),
  f("parent", "text", "parent_address", "Parent address"),
  f("parent", "text", "parent_city", "Parent city"),
  f("parent", "text", "parent_state", "Parent state"),
  f("parent", "zip", "parent_zip", "Parent ZIP code"),
  f("parent", "text", "relationship", "Relationship"),

  f("education", "text", "education", "Education"),
  f("education", "text", "profession", "Profession"),
  f("education", "text", "school_name", "School name"),
  f("education", "text", "school_number", "School number"),

  f("insurance", "insurer", "insurer_id", "Primary insurer", true),
  f("insurance", "text", "insuranceId", "Primary insurance identifier"),
  f("insurance", "text", "insurance_status", "Primary insurance status"),
  f("insurance", "insurer", "insurer_secondary_id", "Secondary insurer", true),
  f("insurance", "text", "insuranceId_secondary", "Secondary insurance identifier"),
  f("insurance", "text", "insurance_secondary_status", "Secondary insurance status"),
  f("insurance", "text", "insured_policy_group", "Insured policy group"),

  f("flags", "flag", "emmployment", "Employment related"),
  f("flags", "flag", "auto_accident", "Auto accident"),
  f("flags", "flag", "other_accident", "Other accident"),
  f("flags", "flag", "is_self_subscriber", "Self subscriber"),
  f("flags", "flag", "telehealth", "Telehealth"),
  f("flags", "flag", "pay", "Pay"),
  f("flags", "flag", "secondary_emmployment", "Secondary: employment related"),
  f("flags", "flag", "secondary_auto_accident", "Secondary: auto accident"),
  f("flags", "flag", "secondary_other_accident", "Secondary: other accident"),
  f("flags", "flag", "secondary_is_self_subscriber", "Secondary: self subscriber"),
  f("flags", "flag", "secondary_telehealth", "Secondary: telehealth"),
  f("flags", "flag", "secondary_pay", "Secondary: pay"),

  f("diagnosis", "code", "diagnosis_code", "Diagnosis code"),
  f("diagnosis", "text", "diagnosis_level", "Diagnosis level"),
  f("diagnosis", "codes", "secondary_diagnosis_codes", "Secondary diagnosis codes"),

  f("referral", "text", "referring_provider_first_name", "Referring provider first name"),
  f("referral", "text", "referring_provider_last_name", "Referring provider last name"),
  f("referral", "npi", "referring_provider_npi", "Referring provider NPI"),
  f("referral", "text", "referring_code", "Referring code"),
  f("referral", "npi", "npi", "NPI"),

  f("eligibility", "text", "eqhlid", "EQHLID"),
  f("eligibility", "date", "elegibility_date", "Eligibility date"),
  f("eligibility", "money", "deductible", "Deductible"),
  f("eligibility", "money", "balance", "Balance"),
  f("eligibility", "money", "coinsurance", "Coinsurance"),
  f("eligibility", "money", "copayments", "Copayments"),
  f("eligibility", "money", "oop", "Out-of-pocket"),
  f("eligibility", "text", "patient_control", "Patient control"),
  f("eligibility", "money", "compayment_per_visit", "Copayment per visit"),
  f("eligibility", "pos", "pos_covered", "POS covered"),
  ...SECONDARY_ELIGIBILITY,

  ...ONBOARDING_DOCUMENTS.map(([name, label]) => f("onboarding", "document", name, label)),
  f("onboarding", "interview", "interview", "Interview"),

  ...STAFF_FIELDS.map(([name, label]) => f("staff", "staff", name, label, true)),
];

export const COLUMN_FIELDS = PATIENT_FIELDS.filter((x) => x.column).map((x) => x.name);
export const DETAIL_FIELDS = PATIENT_FIELDS.filter((x) => !x.column).map((x) => x.name);

const gender = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()])), null),
  v.transform((x) => (x === null || x === "" ? null : String(x).trim())),
  v.nullable(v.picklist(["1", "2"], MESSAGES.gender)),
);

/** Whether a stored principal code passes today's rule (none passes: a code is optional). */
export function isDiagnosisCodeText(code: unknown): boolean {
  return code == null || code === "" || (typeof code === "string" && DIAGNOSIS_CODE.test(code.trim().toUpperCase()));
}

const diagnosisCode = optionalDiagnosisCode("Diagnosis code", 255);

const codeList = v.pipe(
  v.optional(v.nullable(v.union([v.array(v.string()), v.string()])), []),
  v.transform((x) => (x === null ? [] : Array.isArray(x) ? x : x.split(/[,;\n]/)).map((s) => s.trim().toUpperCase()).filter(Boolean)),
  v.array(v.pipe(v.string(), v.regex(DIAGNOSIS_CODE, DIAGNOSIS_CODE_MESSAGE))),
  v.maxLength(12, "At most 12 secondary diagnosis codes."),
);

/**
 * The secondary codes without a repeat of each other or of the principal code, once trimmed and in upper case
 * ("f84.0" beside "F84.0"), dropped silently: the same code twice adds nothing. Spellings that differ otherwise
 * (F84.0 and F840) are kept; the claim counts them once (`diagnosisKey`).
 */
export function secondaryWithoutRepeats(principal: string | null, secondary: readonly string[]): string[] {
  const seen = new Set(principal ? [principal] : []);
  return secondary.filter((code) => !seen.has(code) && !!seen.add(code));
}

function schemaFor(field: PatientField): v.GenericSchema {
  switch (field.type) {
    case "required":
      return requiredLine(field.label, 120);
    case "text":
      return optionalLine(field.label, 255);
    case "longtext":
      return optionalText(field.label, 2000);
    case "email":
      return optionalEmail;
    case "phone":
      return optionalPhone;
    case "zip":
      return optionalZip;
    case "npi":
      return optionalNpi;
    case "date":
      return optionalDate;
    case "money":
      return optionalMoney(field.label);
    case "flag":
      return flag;
    case "status":
      return choiceOr(PATIENT_STATUSES, "active", "Choose a status from the list.");
    case "gender":
      return gender;
    case "document":
      return optionalChoice(DOCUMENT_STATUSES, `${field.label}: choose waiting, requested, reviewing or yes.`);
    case "interview":
      return optionalChoice(INTERVIEW_STATUSES, "Interview: choose send or receive.");
    case "pos":
      return choiceList(POS_CODE_VALUES, "Choose place-of-service codes from the list.");
    case "codes":
      return codeList;
    case "code":
      return diagnosisCode;
    case "location":
      return requiredInt("Location", 1, Number.MAX_SAFE_INTEGER);
    case "parent":
    case "insurer":
    case "staff":
      return optionalId;
  }
}

/** Output of the patient schema: every field by name (columns and details alike). */
export type PatientInput = {
  patient_identifier: string;
  first_name: string;
  last_name: string;
  status: PatientStatus;
  birth_date: string | null;
  gender: "1" | "2" | null;
  location_id: number;
  parent_id: number | null;
  insurer_id: number | null;
  insurer_secondary_id: number | null;
  /** Stored in `details` beside the declared fields (app/domain/pa-assessments.ts). */
  pa_assessments: PaAssessment[];
} & Record<StaffField, number | null> &
  Record<string, string | number | boolean | string[] | PaAssessment[] | null>;

const PATIENT_ENTRIES = Object.fromEntries(PATIENT_FIELDS.map((x) => [x.name, schemaFor(x)]));

/** The client's state fields: the state rule (optionalState, decision 017, stop 36), each with its stored value kept. */
const STATE_FIELDS = [
  ["state", "State"],
  ["parent_state", "Parent state"],
] as const;

/**
 * The client's NPI fields (its own and the referring provider's): the one NPI rule (npiField), each with its stored
 * value kept, as the claim's referring provider is refused later otherwise (probe 9041 §2, decision 017 stop 43).
 */
const NPI_FIELDS = PATIENT_FIELDS.filter((x) => x.type === "npi").map((x) => x.name);

/** What an edit keeps as stored although today's rules refuse it (the client as read); none for a create. */
export type PatientStored = { pa_assessments?: readonly PaAssessment[] } & Record<string, unknown>;

/** The client schema, checking new values and keeping `stored` ones sent back as they are (assessments, states, NPIs). */
function patientSchema(stored: PatientStored | null) {
  const states = Object.fromEntries(STATE_FIELDS.map(([name, label]) => [name, optionalState(label, stored?.[name] ?? null)]));
  const npis = Object.fromEntries(NPI_FIELDS.map((name) => [name, npiField(stored?.[name] ?? null)]));
  const assessments = stored?.pa_assessments?.length ? paAssessmentsSchemaFor(stored.pa_assessments) : paAssessmentsSchema;
  return v.pipe(
    v.object({ ...PATIENT_ENTRIES, ...states, ...npis, pa_assessments: assessments }) as unknown as v.GenericSchema<unknown, PatientInput>,
    v.transform((x) => ({ ...x, secondary_diagnosis_codes: secondaryWithoutRepeats(x.diagnosis_code as string | null, x.secondary_diagnosis_codes as string[]) })),
  ) as unknown as v.GenericSchema<unknown, PatientInput>;
}

/** One schema for the client form and the client API. */
export const PatientInput = patientSchema(null);

/** The client's fields (the keys an update reads). */
export const PATIENT_INPUT_FIELDS = [...PATIENT_FIELDS.map((x) => x.name), "pa_assessments"];

/** The spec's Patient fields the client calls do not write (decision 044; fieldsSetElsewhere): 422 at the field. */
export const PATIENT_SET_ELSEWHERE: SetElsewhere = {
  avatar: "Client photos are not kept: a photo is health information the product does not need.",
  pa_services: "PA services have their own calls: POST /api/v2/pa-services with patient_id (GET /api/v2/patients/{id}/pa-services lists them).",
};

/**
 * Validates a client. Errors are one per field; inside PA assessments they keep their row positions
 * ("pa_assessments.0.services.1.cpt") so the form and the API name the exact cell. `current`: the client as stored (an
 * edit), whose values sent back as they are pass although a rule made since refuses them (PatientStored).
 */
export function parsePatient(input: Record<string, unknown>, stored: Record<string, unknown> | null = null, current: PatientStored | null = null): Parsed<PatientInput> {
  // An edit keeps the stored values today's rules refuse (a CPT, a service's dates, a state): decision 017, stop 36.
  const schema = current ? patientSchema(current) : PatientInput;
  const r = stored ? safeParseChange(schema, { ...stored, ...input }, sentBy(input)) : safeParsePlain(schema, input);
  if (r.success) return { ok: true, data: r.output };
  const nested = r.issues.filter((i) => i.path?.[0]?.key === "pa_assessments");
  return { ok: false, errors: { ...fieldErrors(r.issues.filter((i) => !nested.includes(i))), ...intakeErrors(nested) } };
}

/** A client's secondary insurer that is their primary one (decision 017, stop 37; the spec gives no wording). */
export const SAME_INSURERS = "The secondary insurer must differ from the primary.";

type InsurerPair = { insurer_id?: unknown; insurer_secondary_id?: unknown };

/**
 * Why a client's insurers are refused as a pair, or null: the secondary insurer is the primary one (a claim would
 * bill one insurer twice). A pair already stored so and saved as it is passes, so such a record stays editable
 * (decision 017, "a stored value kept as is passes"); `stored` is the client as read, none for a create.
 */
export function insurerPairRefusal(input: InsurerPair, stored: InsurerPair | null = null): string | null {
  const { insurer_id: primary, insurer_secondary_id: secondary } = input;
  if (primary == null || secondary == null || primary !== secondary) return null;
  return stored?.insurer_id === primary && stored?.insurer_secondary_id === secondary ? null : SAME_INSURERS;
}

export const IDENTIFIER_IN_USE = "This patient identifier is already in use.";

/**
 * Why a new patient identifier is refused beyond its field's text rules, or null: an invisible character (zero-width
 * space or joiner, a direction mark, any format or other invisible character: `isControlOrInvisible`, the claims'
 * rule), which would make two identifiers that print alike name two clients (probe 8963 D4). Checked when the
 * identifier changes: a stored one is kept as it is (decision 017, stop 33).
 */
export function identifierRefusal(identifier: string): string | null {
  const hidden = [...identifier].find(isControlOrInvisible);
  return hidden ? `Patient identifier: remove the invisible character (${codePoint(hidden)}).` : null;
}

export const PatientStatusInput = v.object({ status: v.picklist(PATIENT_STATUSES, "Choose a status from the list.") });

/** Labels of onboarding documents not yet "yes", then the interview if it has not been received. */
export function missingOnboarding(details: Record<string, unknown>): string[] {
  const out: string[] = ONBOARDING_DOCUMENTS.filter(([name]) => details[name] !== "yes").map(([, label]) => label);
  if (details.interview !== "receive") out.push("Interview");
  return out;
}

/** Whole years between the birth date and today (YYYY-MM-DD), or null. */
export function ageOn(birthDate: string | null | undefined, today: string): number | null {
  if (!birthDate || !/^\d{4}-\d{2}-\d{2}$/.test(birthDate)) return null;
  const [by, bm, bd] = birthDate.split("-").map(Number) as [number, number, number];
  const [ty, tm, td] = today.split("-").map(Number) as [number, number, number];
  const age = ty - by - (tm < bm || (tm === bm && td < bd) ? 1 : 0);
  return age >= 0 ? age : null;
}

// ---------------------------------------------------------------------------------------------------
// Prior-authorization services (clinical §3)

/**
 * A PA service. `storedCpt`: an edit's stored CPT, which passes when sent back as it is (in any letter case) even if
 * it fails the CPT rule (stored before it, decision 017, stop 36); a new or changed CPT must pass.
 */
export function paServiceInput(storedCpt: string | null = null) {
  return v.pipe(
    v.object({
      pa_service: requiredLine("Service", 120),
      cpt: cptField((s) => storedCpt !== null && s.toUpperCase() === storedCpt.trim().toUpperCase()),
      n_units: requiredInt("Units", 0, 100_000),
      start_date: requiredDate("Start date"),
      end_date: requiredDate("End date"),
      insurance_id: optionalId,
      is_primary: flag,
    }),
    // A one-day authorization (start = end) is valid: the one date rule of authorizations (datesInOrder).
    v.forward(v.check((x) => datesInOrder(x), MESSAGES.endNotBeforeStart), ["end_date"]),
  );
}
export const PaServiceInput = paServiceInput();
export type PaServiceInput = v.InferOutput<typeof PaServiceInput>;

/** An update naming another client than the PA service's own (decision 044: refused, not dropped). */
export const PA_SERVICE_CLIENT_FIXED = "A PA service cannot be moved to another client.";

/**
 * Why a PA service cannot be deleted yet: the live notes and the scheduled sessions (today on) that use it, and why
 * its dates or CPT cannot change yet: the scheduled sessions the change would leave uncovered. A note
 * whose PA service is gone fails the scrubber and cannot be claimed (probe 8931 §4); the same wording pattern as
 * LOCATION_IN_USE.
 */
export const PA_SERVICE_IN_USE = {
  notes: (n: number) => `${n} note(s) still use this PA service: choose another PA service on them (or delete them) first.`,
  sessions: (n: number) => `${n} scheduled session(s) still use this PA service: cancel them or book them under another PA service first.`,
  /** An edit of its dates or CPT that `n` sessions booked under it on `dates` (each once, in order) would fall outside (probe 8973 §4). */
  uncovered: (n: number, dates: readonly string[]) =>
    `${n} scheduled session(s) would no longer be covered by this PA service (${datesText(dates)}): cancel them or book them under another PA service first.`,
  /** An edit of its dates or CPT that `n` live notes written under it on `dates` (each once, in order) would fall outside. */
  uncoveredNotes: (n: number, dates: readonly string[]) =>
    `${n} note(s) would no longer be covered by this PA service (${datesText(dates)}): choose another PA service on them (or delete them) first.`,
} as const;

/** The first three dates, "the first on …" when there are more. */
function datesText(dates: readonly string[]): string {
  return `${dates.length > 3 ? "the first on" : "on"} ${dates.slice(0, 3).join(", ")}`;
}

/** A PA service's CPT must be one its insurer has a live service for (clinical §3, §7: authorized and billed through it). */
export const paCptNotCovered = (insurer: string, cpt: string) => `${insurer} does not cover CPT ${cpt}.`;
/** A PA service that names no insurer is billed to the client's primary insurer (decision 030), so its CPT is checked against it (decision 031, stop 44). */
export const paCptNotCoveredByPrimary = (insurer: string, cpt: string) =>
  `${insurer}, the client's primary insurer (billed when no insurer is chosen), does not cover CPT ${cpt}.`;

/**
 * A change of the client's primary insurer refused while PA services naming no insurer (billed to the primary insurer,
 * decision 030) authorize a CPT the new one does not cover; `insurer` null: the primary insurer removed, which leaves
 * them no payer at all (decision 031, stop 45). `services`: those PA services, the first three named.
 */
export function primaryLeavesPaUncovered(insurer: string | null, services: readonly { name: string; cpt: string }[]): string {
  const one = services.length === 1;
  const shown = services.slice(0, 3).map((x) => `"${x.name}" (CPT ${x.cpt})`);
  const more = services.length - shown.length;
  const list = more > 0 ? `${shown.join(", ")} and ${more} more` : shown.length > 1 ? `${shown.slice(0, -1).join(", ")} and ${shown.at(-1)}` : shown[0]!;
  const named = `${one ? "PA service" : "PA services"} ${list}`;
  const billed = `${one ? "names no insurer and is" : "name no insurer and are"} billed to the primary insurer`;
  const fix = one ? "choose its insurer on the PA service, or delete it" : "choose their insurer on each PA service, or delete them";
  return insurer === null
    ? `The client's ${named} ${billed}: ${fix}, before removing the primary insurer.`
    : `${insurer} does not cover the client's ${named}, which ${billed}: ${fix}, first.`;
}

export type PaExpiryLevel = 14 | 30 | 60;

/**
 * How close an authorization is to its end: 14, 30 or 60 when it ends within that many days from today
 * (inclusive), "expired" after the end date, else null.
 */
export function paExpiryWarning(end: string, today: string): PaExpiryLevel | "expired" | null {
  const days = Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / 86_400_000);
  if (Number.isNaN(days)) return null;
  if (days < 0) return "expired";
  if (days <= 14) return 14;
  if (days <= 30) return 30;
  if (days <= 60) return 60;
  return null;
}

export function paExpiryText(level: ReturnType<typeof paExpiryWarning>): string | null {
  if (level === null) return null;
  if (level === "expired") return "Expired";
  return `Ends within ${level} days`;
}
