import * as v from "valibot";
import { PASSWORD_MESSAGES } from "./passwords";
import { confirmedPassword, NewPassword } from "./auth-schemas";
import { MESSAGES, numberOrNaN, optionalChoice, optionalDate, optionalId, optionalLine, optionalMoney, optionalNpi, optionalNumber, optionalPhone, optionalText, requiredEmail, requiredLine } from "./fields";
import { dayNumber } from "./weeks";
import { fieldErrors, isPlainObject, MAX_WEEKLY_HOURS, plainObject, type SetElsewhere } from "./validation";

/** Employees ("doctors", platform §3 User). One schema for the employee form and the employee API. Pure. */

/**
 * The most staff a provider select lists (the reports' filters, the billing list). With more in scope the select
 * offers only "all" and the provider already chosen, and the form asks for a location first (decisions 038, 043).
 */
export const STAFF_OPTIONS_MAX = 200;
export const TOO_MANY_STAFF_HINT = `More than ${STAFF_OPTIONS_MAX} staff: choose a location and press Filter to pick one of its staff.`;
/** The client add form's staff fields with more staff in scope than a select lists (decision 017, stop 33). */
export const TOO_MANY_STAFF_TO_ADD = `More than ${STAFF_OPTIONS_MAX} staff: choose the client's location at the top of the page (or in the form, then save) to pick its staff.`;

export const EMPLOYEE_STATUSES = ["active", "inactive"] as const;
export type EmployeeStatus = (typeof EMPLOYEE_STATUSES)[number];

/**
 * The employee form's genders, stored as these words (users.gender; clients and parents store codes 1 and 2).
 * A stored value outside the list stays while a save leaves it as it is (decision 017, probe 8892).
 */
export const EMPLOYEE_GENDERS = [
  { value: "female", label: "Female" },
  { value: "male", label: "Male" },
  { value: "other", label: "Other" },
] as const;
/** As text: a stored gender outside the list is still a gender (the model keeps one an edit leaves as it is). */
const EMPLOYEE_GENDER_VALUES: readonly string[] = EMPLOYEE_GENDERS.map((g) => g.value);

/** Whether a gender is one the employee form offers (null: not given). */
export function isEmployeeGender(gender: string | null): boolean {
  return gender === null || EMPLOYEE_GENDER_VALUES.includes(gender);
}

/** The §3 profile fields kept in users.profile (JSON). Dates are checked as dates, the rest is text. */
export const PROFILE_TEXT_FIELDS = [
  ["agency_location", "Agency location"],
  ["languages", "Languages"],
  ["certificate_number", "Certificate number"],
  ["npi", "NPI"],
  ["medicaid_provider_identifier", "Medicaid provider identifier"],
  ["taxonomy", "Taxonomy"],
  ["schedule", "Schedule"],
  ["contract_type", "Contract type"],
  ["contract", "Contract"],
  ["school_badge", "School badge"],
  ["w_9_w_4_form", "W-9 / W-4 form"],
  ["two_four_week_notice_agreement", "Two/four week notice agreement"],
  ["credentialing_package_bcbas_only", "Credentialing package (BCBAs only)"],
  ["caqh_bcbas_only", "CAQH (BCBAs only)"],
  ["llc", "LLC"],
  ["ien", "IEN"],
  ["electronic_signature", "Electronic signature"],
  ["currently_pay_through_company", "Currently paid through company"],
] as const;
export const PROFILE_DATE_FIELDS = [
  ["date_of_hire", "Date of hire"],
  ["start_pay", "Start pay"],
] as const;
export type ProfileKey = (typeof PROFILE_TEXT_FIELDS)[number][0] | (typeof PROFILE_DATE_FIELDS)[number][0] | "note" | "ss_number";

/** The compliance dates of each location entry (§3), with labels. Each is the date the item runs out or is due. */
export const COMPLIANCE_FIELDS = [
  ["driver_license_expiration", "Driver license expiration"],
  ["bacb_license_expiration", "BACB license expiration"],
  ["cpr_every_2_years", "CPR (every 2 years)"],
  ["background_every_5_years", "Background (every 5 years)"],
  ["liability_insurance_annually", "Liability insurance (annually)"],
  ["local_police_rec_every_5_years", "Local police record (every 5 years)"],
  ["wc", "WC"],
  ["medicaid_provider_expiration", "Medicaid provider expiration"],
  ["national_sex_offender_registry", "National sex offender registry"],
  ["employment_auth_card_expiration", "Employment authorization card expiration"],
  ["auth_permanent_res_expiration", "Permanent residence authorization expiration"],
  ["e_verify", "E-Verify"],
  ["ceu_hippa_annually", "CEU HIPAA (annually)"],
  ["ceu_security_awareness_annually", "CEU security awareness (annually)"],
  ["ceu_zero_tolerance_every_3_years", "CEU zero tolerance (every 3 years)"],
  ["ceu_domestic_violence_no_expiration", "CEU domestic violence (no expiration)"],
  ["ceu_hiv_bloodborne_pathogens_infection_control_no_expiration", "CEU HIV / bloodborne pathogens / infection control (no expiration)"],
  ["ceu_civil_rights_no_expiration", "CEU civil rights (no expiration)"],
  ["abuse_neglect_and_exploitation", "Abuse, neglect and exploitation"],
] as const;
export type ComplianceKey = (typeof COMPLIANCE_FIELDS)[number][0];
export const COMPLIANCE_KEYS = COMPLIANCE_FIELDS.map(([k]) => k) as ComplianceKey[];

/** Pay: shown only to those who manage employees (decision 015). */
export const PAY_FIELDS: readonly string[] = ["salary", "telehealth_salary", "fixed_hours_salary"];

export const EMPLOYMENT_NUMBER_FIELDS = [
  ["salary", "Salary"],
  ["telehealth_salary", "Telehealth salary"],
  ["fixed_hours_salary", "Fixed hours salary"],
  ["fixed_weekly_hours", "Fixed weekly hours"],
] as const;

/* ---------------------------------------------------------------- compliance state */

export type ComplianceState = "valid" | "expiring_60" | "expiring_30" | "expired" | "missing";

export const COMPLIANCE_LABELS: Record<ComplianceState, string> = {
  valid: "Valid",
  expiring_60: "Expires within 60 days",
  expiring_30: "Expires within 30 days",
  expired: "Expired",
  missing: "Missing",
};

/**
 * The state of one compliance date on `today` (both YYYY-MM-DD). Before today → expired; today up to 30
 * days ahead → expiring_30; up to 60 → expiring_60; later → valid; no (or no valid) date → missing.
 */
export function complianceState(date: string | null | undefined, today: string): ComplianceState {
  const d = date ? dayNumber(date.slice(0, 10)) : null;
  const t = dayNumber(today.slice(0, 10));
  if (d === null || t === null) return "missing";
  const days = d - t;
  if (days < 0) return "expired";
  if (days <= 30) return "expiring_30";
  if (days <= 60) return "expiring_60";
  return "valid";
}

/* ---------------------------------------------------------------- ss number */

/** Only the last four digits ever leave the server: "•••-••-6789", or null. */
export function maskSsn(ssn: string | null | undefined): string | null {
  if (!ssn) return null;
  const digits = ssn.replace(/\D/g, "");
  return digits.length ? `***-**-${digits.slice(-4)}` : null;
}

/* ---------------------------------------------------------------- input */

/**
 * A list of ids from a multi-select / checkbox group (form repeats the name) or a JSON array / comma list. The list
 * as the API answers it (objects with `id`) is read as its ids before (readEmployeeBody); another shape is refused
 * with `shape`, which says what is expected.
 */
function idList(label: string, shape: string) {
  return v.pipe(
    v.optional(v.nullable(v.union([v.array(v.union([v.string(), v.number()], shape), shape), v.string(), v.number()], shape)), []),
    v.transform((x) => (x === null ? [] : Array.isArray(x) ? x : String(x).split(",")).map((s) => String(s).trim()).filter(Boolean)),
    v.check((xs) => xs.every((s) => /^\d{1,15}$/.test(s) && Number(s) > 0), `Choose ${label} from the list.`),
    v.transform((xs) => [...new Set(xs.map(Number))]),
  );
}

const complianceEntries = Object.fromEntries(COMPLIANCE_KEYS.map((k) => [k, optionalDate])) as Record<ComplianceKey, typeof optionalDate>;

export const EmploymentInput = v.object({
  location_id: v.pipe(v.union([v.string(), v.number()], "Choose a location."), v.transform((x: string | number) => numberOrNaN(x)), v.number("Choose a location."), v.integer("Choose a location."), v.minValue(1, "Choose a location.")),
  position_id: optionalId,
  salary: optionalMoney("Salary"),
  telehealth_salary: optionalMoney("Telehealth salary"),
  fixed_hours_salary: optionalMoney("Fixed hours salary"),
  fixed_weekly_hours: optionalNumber("Fixed weekly hours", 0, MAX_WEEKLY_HOURS),
  ...complianceEntries,
});
export type EmploymentInput = v.InferOutput<typeof EmploymentInput>;

/**
 * The compliance dates of an entry in the shape the API answers with (`compliance: {…}`, decision 044) or flat, as the
 * form posts them: the same dates either way. A date given both ways with different values, or a key under
 * `compliance` that is not a compliance date, is refused — never ignored (probe 8914: sending back what GET answered
 * cleared every date).
 */
function nestedComplianceProblem(x: unknown): string | null {
  if (!isPlainObject(x) || x.compliance === undefined || x.compliance === null) return null;
  if (!isPlainObject(x.compliance)) return "Compliance dates must be an object of dates.";
  for (const [k, value] of Object.entries(x.compliance)) {
    if (!(COMPLIANCE_KEYS as string[]).includes(k)) return `Compliance has no date named ${JSON.stringify(k.slice(0, 40))}.`;
    if (x[k] !== undefined && x[k] !== value) return `Give the ${k} date once (flat or under compliance).`;
  }
  return null;
}

const EmploymentEntry = v.pipe(
  v.unknown(),
  v.rawCheck(({ dataset, addIssue }) => {
    const problem = dataset.typed ? nestedComplianceProblem(dataset.value) : null;
    if (problem) addIssue({ message: problem, path: [{ type: "object", origin: "value", input: dataset.value as Record<string, unknown>, key: "compliance", value: (dataset.value as Record<string, unknown>).compliance }] });
  }),
  v.transform((x) => {
    if (!isPlainObject(x) || !isPlainObject(x.compliance)) return x;
    const { compliance, ...flat } = x;
    return { ...compliance, ...flat };
  }),
  plainObject(EmploymentInput),
);

/** The most locations one employee works at (decision 017, stop 28): far more than a deployment has, few enough to check. */
export const MAX_EMPLOYEE_LOCATIONS = 200;
const EMPLOYMENT_REPEATED_MESSAGE = "Each location can be listed once in employment.";

/**
 * One entry per location, at most MAX_EMPLOYEE_LOCATIONS of them: two entries for one location would leave the
 * save to pick one salary. The length is checked before the entries are read.
 */
const EmploymentList = v.pipe(
  v.optional(v.nullable(v.array(v.unknown(), "Employment must be a list.")), []),
  v.transform((x) => x ?? []),
  v.maxLength(MAX_EMPLOYEE_LOCATIONS, `Employment: at most ${MAX_EMPLOYEE_LOCATIONS} entries.`),
  v.array(EmploymentEntry),
  v.check((xs) => new Set(xs.map((e) => e.location_id)).size === xs.length, EMPLOYMENT_REPEATED_MESSAGE),
);

const profileEntries = {
  ...(Object.fromEntries(PROFILE_TEXT_FIELDS.map(([k, label]) => [k, optionalLine(label, 255)])) as Record<(typeof PROFILE_TEXT_FIELDS)[number][0], ReturnType<typeof optionalLine>>),
  /** The rendering provider's NPI on a claim (837P 2310B): the location's rule, checked at entry (probe 8974 §4). */
  npi: optionalNpi,
  date_of_hire: optionalDate,
  start_pay: optionalDate,
  note: optionalText("Note", 2000),
  /** Accepted as 9 digits (dashes and spaces allowed); blank on an edit keeps the stored number. */
  ss_number: v.pipe(
    v.optional(v.nullable(v.string()), null),
    v.transform((x) => (x && x.trim() ? x.trim() : null)),
    v.nullable(v.pipe(v.string(), v.regex(/^\d{3}[- ]?\d{2}[- ]?\d{4}$/, "Enter a valid social security number (9 digits)."), v.transform((s) => s.replace(/\D/g, "")))),
  ),
};

const employeeEntries = {
  name: requiredLine("Name", 100),
  surname: requiredLine("Surname", 100),
  email: requiredEmail,
  phone: optionalPhone,
  gender: optionalChoice(EMPLOYEE_GENDER_VALUES, MESSAGES.gender),
  address: optionalLine("Address", 255),
  city: optionalLine("City", 100),
  status: v.pipe(v.optional(v.nullable(v.string()), "active"), v.transform((x) => x || "active"), v.picklist(EMPLOYEE_STATUSES, "Choose a status from the list.")),
  roles: v.pipe(idList("roles", "Roles must be role ids (a list of numbers), or the roles as the API answers them."), v.minLength(1, "Choose at least one role.")),
  locations: v.pipe(idList("locations", "Locations must be location ids (a list of numbers), or the locations as the API answers them."), v.minLength(1, "Choose at least one location."), v.maxLength(MAX_EMPLOYEE_LOCATIONS, `Choose at most ${MAX_EMPLOYEE_LOCATIONS} locations.`)),
  location_id: optionalId,
  employment: EmploymentList,
  ...profileEntries,
};

const EmployeeObject = v.object(employeeEntries);
/** A missing password reads as an empty one, so the message is the rule's, not "invalid key". */
const PasswordField = v.pipe(v.optional(v.string(PASSWORD_MESSAGES.required), ""), NewPassword);
const ConfirmationField = v.optional(v.string(PASSWORD_MESSAGES.mismatch), "");
const NewEmployeeObject = v.object({ ...employeeEntries, password: PasswordField, password_confirmation: ConfirmationField });

export const PRIMARY_MESSAGE = "The primary location must be one of the employee's locations.";
/** An edit that names another primary location while the stored one is at a location the actor cannot see (decision 015). */
export const HIDDEN_PRIMARY_MESSAGE = "The primary location is at a location you do not manage: only someone who manages it can change it.";
const EMPLOYMENT_MESSAGE = "Employment details must be for one of the employee's locations.";
function primaryOk<T extends { location_id: number | null; locations: number[] }>(x: T): boolean {
  return x.location_id === null || x.locations.includes(x.location_id);
}
function employmentOk<T extends { employment: EmploymentInput[]; locations: number[] }>(x: T): boolean {
  return x.employment.every((e) => x.locations.includes(e.location_id));
}
type Out<S extends v.GenericSchema> = v.InferOutput<S>;

/** The primary location must be one of the chosen ones; employment entries only for chosen locations. */
export const EmployeeInput = v.pipe(
  EmployeeObject,
  v.forward(v.check<Out<typeof EmployeeObject>, string>(primaryOk, PRIMARY_MESSAGE), ["location_id"]),
  v.forward(v.check<Out<typeof EmployeeObject>, string>(employmentOk, EMPLOYMENT_MESSAGE), ["employment"]),
);
export type EmployeeInput = v.InferOutput<typeof EmployeeInput>;

/**
 * An edit: the same fields, but the primary location is checked by the model against the resulting set of
 * locations (the kept ones the actor cannot see and the chosen ones), which the input alone does not show.
 */
export const EmployeeEditInput = v.pipe(EmployeeObject, v.forward(v.check<Out<typeof EmployeeObject>, string>(employmentOk, EMPLOYMENT_MESSAGE), ["employment"]));

/** Creating an employee also sets the first password (the platform's password rules). */
export const NewEmployeeInput = v.pipe(
  NewEmployeeObject,
  v.forward(v.check<Out<typeof NewEmployeeObject>, string>(primaryOk, PRIMARY_MESSAGE), ["location_id"]),
  v.forward(v.check<Out<typeof NewEmployeeObject>, string>(employmentOk, EMPLOYMENT_MESSAGE), ["employment"]),
  // With the other field errors in one answer, not only once the rest is valid (probe 9041 §4).
  confirmedPassword(),
);
export type NewEmployeeInput = v.InferOutput<typeof NewEmployeeInput>;

export const EmployeeStatusInput = v.object({ status: v.picklist(EMPLOYEE_STATUSES, "Choose a status from the list.") });

/**
 * The spec's User fields the employee calls do not write at the top level (decision 044): position, pay, hours and
 * compliance dates are per location (each of `locations[]`, or `employment[]`), and permissions are the roles'. Named
 * at the top level of a create or an edit, they answer 422 there and nothing is written (fieldsSetElsewhere).
 */
export const EMPLOYEE_SET_ELSEWHERE: SetElsewhere = {
  position_id: "The position is set per location: send it as locations[].position_id.",
  salary: "Pay is set per location: send it as locations[].salary.",
  telehealth_salary: "Pay is set per location: send it as locations[].telehealth_salary.",
  fixed_hours_salary: "Pay is set per location: send it as locations[].fixed_hours_salary.",
  fixed_weekly_hours: "Hours are set per location: send them as locations[].fixed_weekly_hours.",
  ...Object.fromEntries(COMPLIANCE_KEYS.map((k) => [k, `Compliance dates are set per location: send it as locations[].compliance.${k}.`])),
  permissions: "Permissions come from the roles: send roles (role ids); a role's permissions are changed on the role.",
};

/** An edit does not change the password either: its own call does (the screen's "Set a new password"). */
const PASSWORD_ELSEWHERE = "An edit does not change the password: send new_password and new_password_confirmation to PATCH /api/v2/users/{id}/change-password.";
export const EMPLOYEE_EDIT_SET_ELSEWHERE: SetElsewhere = { ...EMPLOYEE_SET_ELSEWHERE, password: PASSWORD_ELSEWHERE, password_confirmation: PASSWORD_ELSEWHERE };

/** An administrator's password change for a user (platform §7: new_password, new_password_confirmation). */
export const AdminPasswordInput = v.pipe(
  v.object({ new_password: PasswordField, new_password_confirmation: ConfirmationField }),
  confirmedPassword("new_password", "new_password_confirmation"),
);

/**
 * The locations a body names, as idList reads them (a list, a comma-separated string or one id; null: none), each
 * as trimmed text: which employment entries a save keeps.
 */
export function chosenLocations(locations: unknown): Set<string> {
  const xs = locations == null ? [] : Array.isArray(locations) ? locations : String(locations).split(",");
  return new Set(xs.map((x) => String(x).trim()));
}

/** The keys of an answered location (decision 044) that are employment details: what its employment entry reads. */
const LOCATION_DETAIL_KEYS: readonly string[] = ["position_id", ...EMPLOYMENT_NUMBER_FIELDS.map(([k]) => k), ...COMPLIANCE_KEYS, "compliance"];

/** A role or location as the API answers it (`{ id, … }`) read as its id; anything else as it is, for the schema to judge. */
const idOf = (x: unknown): unknown => (isPlainObject(x) && x.id !== undefined ? x.id : x);

/**
 * An employee body in the shape the schema reads, for every save (create, PUT, PATCH, v1 update, the screens), so a
 * client can send back what it read (decision 017, stop 31 later): `roles` and `locations` as the API answers them
 * (objects with `id`) are read as their ids; a body without `employment` takes each answered location's details
 * (position, pay, compliance dates, flat or under `compliance`) as that location's entry; a form's
 * `emp_<id>_<field>` fields are folded in as before. A location without details gets no entry here, so the save
 * keeps its stored one; a sent `employment` is the whole list and the locations' details are not read.
 */
export function readEmployeeBody(raw: Record<string, unknown>): Record<string, unknown> {
  const out = { ...raw };
  if (Array.isArray(raw.roles)) out.roles = raw.roles.map(idOf);
  if (Array.isArray(raw.locations)) {
    out.locations = raw.locations.map(idOf);
    const detailed = raw.employment === undefined ? raw.locations.filter((l) => isPlainObject(l) && l.id !== undefined && LOCATION_DETAIL_KEYS.some((k) => l[k] !== undefined)) : [];
    if (detailed.length)
      out.employment = (detailed as Record<string, unknown>[]).map((l) => ({
        location_id: l.id,
        ...Object.fromEntries(LOCATION_DETAIL_KEYS.filter((k) => l[k] !== undefined).map((k) => [k, l[k]])),
      }));
  }
  return withEmploymentFromForm(out);
}

/**
 * A form sends each location's employment fields as `emp_<locationId>_<field>`; this folds them into the
 * `employment` list the schema reads (only for chosen locations). JSON bodies already carry the list.
 */
export function withEmploymentFromForm(raw: Record<string, unknown>): Record<string, unknown> {
  if (Array.isArray(raw.employment)) return raw;
  const byLocation = new Map<string, Record<string, unknown>>();
  for (const [key, value] of Object.entries(raw)) {
    const m = /^emp_(\d{1,15})_([a-z0-9_]+)$/.exec(key);
    if (!m) continue;
    const entry = byLocation.get(m[1]!) ?? { location_id: m[1] };
    entry[m[2]!] = value;
    byLocation.set(m[1]!, entry);
  }
  if (byLocation.size === 0) return raw;
  const chosen = chosenLocations(raw.locations);
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(raw)) if (!k.startsWith("emp_")) out[k] = val;
  out.employment = [...byLocation.values()].filter((e) => chosen.has(String(e.location_id)));
  return out;
}

/**
 * A JSON body's employment errors keyed by the entry as sent (decision 017, stop 38): `locations.<index>.<field>` for the
 * details of an answered location (`locations.<index>.compliance.<key>` when the date came under `compliance`), and
 * `employment.<index>.<field>` for an `employment` list; every bad entry, not only the first. Empty for a form post
 * (employmentFormErrors keys those by input).
 */
export function employmentEntryErrors(raw: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const judge = (prefix: string, entry: Record<string, unknown>, underCompliance: (field: string) => boolean) => {
    const r = v.safeParse(EmploymentEntry, entry);
    if (!r.success) for (const [field, message] of Object.entries(fieldErrors(r.issues))) out[`${prefix}.${underCompliance(field) ? `compliance.${field}` : field}`] = message;
  };
  if (Array.isArray(raw.employment)) {
    raw.employment.forEach((e, i) => isPlainObject(e) && judge(`employment.${i}`, e, () => false));
  } else if (raw.employment === undefined && Array.isArray(raw.locations)) {
    raw.locations.forEach((l, i) => {
      if (!isPlainObject(l) || l.id === undefined || !LOCATION_DETAIL_KEYS.some((k) => l[k] !== undefined)) return;
      const entry = { location_id: l.id, ...Object.fromEntries(LOCATION_DETAIL_KEYS.filter((k) => l[k] !== undefined).map((k) => [k, l[k]])) };
      judge(`locations.${i}`, entry, (field) => l[field] === undefined && isPlainObject(l.compliance) && l.compliance[field] !== undefined);
    });
  }
  return out;
}

/**
 * An employee save's 422 errors: the schema's, with employment errors on the entry they belong to — a form's on its
 * `emp_<locationId>_<field>` inputs (beside the schema's), a JSON body's by the entry as sent in place of the schema's
 * `employment.<field>`, which names neither the entry nor a second bad one.
 */
export function employeeSaveErrors(errors: Record<string, string>, raw: Record<string, unknown>): Record<string, string> {
  const entries = employmentEntryErrors(raw);
  if (Object.keys(entries).length === 0) return { ...errors, ...employmentFormErrors(raw) };
  const kept = Object.fromEntries(Object.entries(errors).filter(([k]) => !k.startsWith("employment.")));
  return { ...kept, ...entries };
}

/**
 * A form post's employment errors on the inputs they belong to (`emp_<locationId>_<field>`), every one of
 * them: the schema's answer (`employment.salary`) names neither the location nor a second bad entry. Empty
 * for a JSON body (it carries its own `employment` list and its answer keeps the schema's keys).
 */
export function employmentFormErrors(raw: Record<string, unknown>): Record<string, string> {
  if (Array.isArray(raw.employment)) return {};
  const { employment } = withEmploymentFromForm(raw);
  if (!Array.isArray(employment)) return {};
  const out: Record<string, string> = {};
  for (const entry of employment as Record<string, unknown>[]) {
    const r = v.safeParse(EmploymentInput, entry);
    if (!r.success) for (const [field, message] of Object.entries(fieldErrors(r.issues))) out[`emp_${String(entry.location_id)}_${field}`] = message;
  }
  return out;
}
