import * as v from "valibot";
import { flag } from "./fields";
import { fittingModifiers, MODIFIER_CODES } from "./insurance";
import { claimLabelAccepted, NoteModifier, weekOf } from "./note-rules";
import { POS_CODES } from "./locations";
import { NOTE_STATUSES, NOTE_TYPES, type NoteType } from "./notes";
import { MAX_PAGE, PositiveInt } from "./paging";
import { searchText } from "./validation";
import { isProductDate } from "./weeks";
import { paNumberIssues } from "./x12-837p";

/**
 * Billing by client (clinical §2 report-by-client, §3 billing report save payload and client report response,
 * §4 note status and billing row save, §8 billing save success, §9 billing and paging; decision 030). Pure:
 * the filters, the sort keys, the save payload, the week of "Week Total", the messages.
 */

/** Clinical §9: page size 50, a window of 5 page numbers. */
export const CLIENT_REPORT_PAGE_SIZE = 50;
export const CLIENT_REPORT_PAGE_WINDOW = 5;
/** The billing list (clients with billable notes) pages by the same size. */
export const BILLING_LIST_PAGE_SIZE = 50;

/** Clinical §8. */
export const BILLING_MESSAGES = {
  updated: "Updated - Bip Updated successfully!",
  added: "Updated - Added successfully!",
  statusSaved: "Status updated.",
  deleted: "Billing record deleted.",
  noteId: "Name exactly one note: note_rbt_id, note_bcba_id or note_id.",
  patient: "The client does not match the note's client.",
  insurer: "The insurer is not the payer of this note.",
  billedDelete: "A billed or paid record cannot be deleted.",
  payNeedsBilled: "A note is paid only after it is billed.",
  /** The scrubber's reasons (decision 034) against ticking Billed. */
  cannotBill: (reasons: string) => `This note cannot be billed: ${reasons}`,
  /** The scrubber's reasons against new modifiers on a note that stays billed (decision 034, stop 30). */
  billedModifiers: (reasons: string) => `This note is billed, and with these modifiers it could not be: ${reasons} Keep its modifiers, or untick Billed in the same save.`,
  /** A new PA number on a note that stays billed, which its claim line could not carry (decision 034, stop 31). */
  billedPaNumber: (reasons: string) => `This note is billed, and its claim could not carry this PA number: ${reasons} Keep its PA number, or untick Billed in the same save.`,
  /** A note on a claim that is not rejected: the claim was built with its modifiers and charge (decision 032). */
  onClaim: (claim: string) =>
    claimLabelAccepted(claim)
      ? `This note is on claim ${claim}: the payer accepted it, so its modifiers and billed flag are final (paid history) and cannot be changed.`
      : `This note is on claim ${claim}: its modifiers and billed flag stay as claimed. Reject (void) that claim first to change them.`,
  /** Pay unticked on a note an imported 835 paid (decision 030, stop 40). */
  paidByRemittance: (trace: string, date: string) =>
    `Paid by remittance ${trace} on ${date}; a payment recorded from a remittance cannot be unticked. Its claim and remittance still show it paid.`,
  noteType: "Choose All, Rbt or Bcba.",
  sort: "Choose a column to sort by.",
  status: "Choose pending or ok.",
  listStatus: "Choose a status from the list.",
  id: "Filters take a record id.",
  /** /client-report/employee-by-client's address, whose client and employee no field of the form shows. */
  patientIdParam: "The client in the address (patient_id) must be a record id, a whole number.",
  employeeIdParam: "The employee in the address (employee_id) must be a record id, a whole number.",
} as const;

/**
 * The note type filter of the report (All, Rbt, Bcba); "" is All. A combined note counts as Bcba (its analyst's
 * session). The query takes the names in any case ("All", "Rbt", "BCBA", as clinical §7's noteType sends them);
 * All means no type filter.
 */
export const REPORT_NOTE_TYPES = ["", "rbt", "bcba"] as const;
export type ReportNoteType = (typeof REPORT_NOTE_TYPES)[number];
export const REPORT_NOTE_TYPE_LABELS: Readonly<Record<ReportNoteType, string>> = { "": "All", rbt: "Rbt", bcba: "Bcba" };

/** The note types a report filter keeps. */
export function noteTypesOf(filter: ReportNoteType): readonly NoteType[] {
  return filter === "rbt" ? ["rbt"] : filter === "bcba" ? ["bcba", "combined"] : NOTE_TYPES;
}

/** Sortable columns of the table (the price columns are computed by priceNote, not stored: not sortable). */
export const REPORT_SORTS = ["date", "type", "status", "pos", "hours", "cpt", "units", "provider", "billed", "pay", "created"] as const;
export type ReportSort = (typeof REPORT_SORTS)[number];

const IsoDate = v.pipe(
  v.string(),
  v.regex(/^\d{4}-\d{2}-\d{2}$/, "Dates must be real dates like 2026-01-31."),
  v.check(isProductDate, "Dates must be real dates like 2026-01-31."),
);
const optionalDate = v.optional(v.union([v.literal(""), IsoDate], "Dates must be real dates like 2026-01-31."), "");
const pageNumber = PositiveInt("page", MAX_PAGE, 1);

/**
 * The report's query: page, date_start/date_end (the API's names; the screen's From and To) and noteType.
 * Empty values mean "no filter" (clinical §5: empty filters are left out).
 */
export const ReportQuery = v.pipe(
  v.object({
    page: pageNumber,
    date_start: optionalDate,
    date_end: optionalDate,
    noteType: v.optional(
      v.pipe(
        v.string(BILLING_MESSAGES.noteType),
        v.transform((s) => s.trim().toLowerCase()),
        v.transform((s) => (s === "all" ? "" : s)),
        v.picklist(REPORT_NOTE_TYPES, BILLING_MESSAGES.noteType),
      ),
      "",
    ),
    sort: v.optional(v.union([v.literal(""), v.picklist(REPORT_SORTS)], BILLING_MESSAGES.sort), ""),
    dir: v.optional(v.union([v.literal(""), v.literal("asc"), v.literal("desc")], BILLING_MESSAGES.sort), ""),
  }),
  v.forward(
    v.check((q) => !q.date_start || !q.date_end || q.date_start <= q.date_end, "To must be on or after From."),
    ["date_end"],
  ),
);
export type ReportQuery = v.InferOutput<typeof ReportQuery>;

/**
 * The names a period's bounds go by in the client_report calls and the billing screens: clinical §7 writes
 * date_start/date_end for byprofile and byemployee, bylocation takes date_from/date_to, the screens from/to
 * (decision 030, 2026-11-27 (stop 28)). Every call takes all three pairs.
 */
export const PERIOD_NAMES = { start: ["date_start", "date_from", "from"], end: ["date_end", "date_to", "to"] } as const;
export const PERIOD_MESSAGES = { start: "Give the start of the period once.", end: "Give the end of the period once." } as const;
/**
 * Every name the query field `key` goes by: a period bound's names (PERIOD_NAMES) when it is one of them, else the
 * key alone. A screen that leaves out a refused bound leaves it out under all of its names (decision 030, stop 37).
 */
export function filterNames(key: string): readonly string[] {
  for (const names of Object.values(PERIOD_NAMES)) if ((names as readonly string[]).includes(key)) return names;
  return [key];
}
/** The names the report (byprofile, byemployee, profile) and the billing list (bylocation) validate the period under. */
export const REPORT_PERIOD = { start: "date_start", end: "date_end" } as const;
export const LIST_PERIOD = { start: "date_from", end: "date_to" } as const;

/**
 * A query's period under whichever names it was given (PERIOD_NAMES), put under the call's own (`as`) with the
 * other names dropped; the one mapping for every client_report call. Empty is not given (clinical §5). A bound
 * given under two names with different values is an error on the call's field, never one picked silently; the
 * input then keeps the call's own name's value (else the first given) so that a screen can show what was typed.
 */
export function periodInput(raw: Record<string, unknown>, as: { start: string; end: string }): { input: Record<string, unknown>; errors: Record<string, string> | null } {
  const input = { ...raw };
  const errors: Record<string, string> = {};
  for (const bound of ["start", "end"] as const) {
    const names = [as[bound], ...PERIOD_NAMES[bound].filter((n) => n !== as[bound])];
    const present = names.filter((n) => raw[n] !== undefined);
    const given = present.filter((n) => String(raw[n]).trim() !== "");
    if (new Set(given.map((n) => String(raw[n]).trim())).size > 1) errors[as[bound]] = PERIOD_MESSAGES[bound];
    for (const n of names) delete input[n];
    const from = given[0] ?? present[0];
    if (from !== undefined) input[as[bound]] = raw[from];
  }
  return { input, errors: Object.keys(errors).length ? errors : null };
}

/** The query from a URL's parameters: the screen's type is the API's noteType; the period's names are kept for periodInput. */
export function reportQueryInput(params: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  const pick = (...keys: string[]) => keys.map((k) => params[k]).find((x) => x !== undefined);
  const set = (k: string, val: string | undefined) => {
    if (val !== undefined) out[k] = val;
  };
  set("page", pick("page"));
  for (const k of [...PERIOD_NAMES.start, ...PERIOD_NAMES.end]) set(k, pick(k));
  set("noteType", pick("noteType", "type"));
  set("sort", pick("sort"));
  set("dir", pick("dir"));
  return out;
}

/**
 * Every query parameter the report calls (GET client_report/byprofile, byemployee, profile) take: the names
 * reportQueryInput reads (clinical §7's page, date_start, date_end, noteType; the period's other names; the screen's
 * type; sort and dir). Any other answers 422 naming it (decision 017, stop 45).
 */
export const REPORT_QUERY_PARAMS: readonly string[] = ["page", ...PERIOD_NAMES.start, ...PERIOD_NAMES.end, "noteType", "type", "sort", "dir"];

/**
 * The week of Week Total Hours and Week Total Units (decision 030): the Sunday–Saturday week that ends the
 * filtered period — the week of the To date when one is set, else the week of the latest note that the
 * filters keep. Null when there is no note (the totals are then 0).
 */
export function totalsWeek(dateEnd: string, latestNoteDate: string | null): { start: string; end: string } | null {
  const day = dateEnd || latestNoteDate;
  return day ? weekOf(day) : null;
}

/**
 * A client's link from the billing list (and from employee by client's list) to its report by client: the list's
 * period under the names the report reads (from, to), so the report shows the notes the list counted (decision 030,
 * stop 35). The list's status has no filter on the report (its rows show each note's status, billed and pay), nor
 * have its location and provider (the report is one client's; employee by client names its employee itself): they
 * are left out.
 */
export function reportLinkQuery(period: { from: string; to: string }): string {
  return new URLSearchParams({ from: period.from, to: period.to }).toString();
}

/** Billing list filters (/billing/list): location, provider, period, status. */
export const BILLING_LIST_STATUSES = ["pending", "ok", "unbilled", "billed", "paid"] as const;
export type BillingListStatus = (typeof BILLING_LIST_STATUSES)[number];
export const BILLING_LIST_STATUS_LABELS: Readonly<Record<BillingListStatus, string>> = {
  pending: "Status pending",
  ok: "Status ok",
  unbilled: "Not billed",
  billed: "Billed",
  paid: "Paid",
};

const idFilterOf = (message: string) => v.optional(v.union([v.literal(""), v.pipe(v.string(), v.regex(/^\d{1,15}$/, message), v.transform(Number))], message), "");
const idFilter = idFilterOf(BILLING_MESSAGES.id);
export const BillingListQuery = v.pipe(
  v.object({
    page: pageNumber,
    location_id: idFilter,
    provider_id: idFilter,
    date_from: optionalDate,
    date_to: optionalDate,
    status: v.optional(v.union([v.literal(""), v.picklist(BILLING_LIST_STATUSES)], BILLING_MESSAGES.listStatus), ""),
    // GET /client_report/bylocation/{id}?query (clinical §7): the clients whose name or identifier contains it.
    query: v.optional(searchText("Query"), ""),
  }),
  v.forward(
    v.check((q) => !q.date_from || !q.date_to || q.date_from <= q.date_to, "To must be on or after From."),
    ["date_to"],
  ),
);
export type BillingListQuery = v.InferOutput<typeof BillingListQuery>;

/**
 * GET client_report/bylocation/{id}'s query parameters: the billing list's filters, the period under each of its names,
 * and no location_id (the address names the location; a second one would be overridden, not applied). Any other
 * answers 422 naming it (decision 017, stop 45).
 */
export const BY_LOCATION_PARAMS: readonly string[] = [...Object.keys(BillingListQuery.entries).filter((k) => k !== "location_id"), ...PERIOD_NAMES.start, ...PERIOD_NAMES.end];

/**
 * /client-report/employee-by-client's address: the client and the employee (employee_id, or provider_id from
 * the list's filter form), each a record id when given; empty or absent is none (the list; every provider).
 */
export const EmployeeByClientQuery = v.object({
  patient_id: idFilterOf(BILLING_MESSAGES.patientIdParam),
  employee_id: idFilterOf(BILLING_MESSAGES.employeeIdParam),
  provider_id: idFilter,
});

/**
 * The period of the billing list when none is chosen: the calendar month of `today` (the list reads one
 * location's notes of a period; without a bound it would walk years of notes).
 */
export function defaultPeriod(today: string): { from: string; to: string } {
  const [y, m] = today.split("-").map(Number) as [number, number];
  const last = new Date(Date.UTC(y, m, 0)).getUTCDate();
  const mm = String(m).padStart(2, "0");
  return { from: `${y}-${mm}-01`, to: `${y}-${mm}-${String(last).padStart(2, "0")}` };
}

const noteId = v.optional(v.nullable(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d{0,15}$/, "Note ids are whole numbers."))], "Note ids are whole numbers.")), null);
const refId = v.optional(v.nullable(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d{0,15}$/, "Ids are whole numbers."))], "Ids are whole numbers.")), null);
/** Absent stays undefined (keep what is stored); null or blank clears the modifier. */
const modifier = v.optional(NoteModifier);
/** Absent stays undefined (keep what is stored); a value is a yes/no flag. */
const yesNo = v.optional(flag);
/**
 * The PA number, which the body may leave out (absent stays undefined: keep what is stored; null or blank clears
 * it): only what a claim line's REF*G1 can carry, by the 837P's one rule (paNumberIssues: no * ~ : ^ or control
 * character, at most 50 characters as written), checked whenever it is saved, not only when Billed is ticked
 * (decision 034, stop 31). At most 50 typed characters too (decision 017: the claim writes a run of spaces as one).
 */
const paNumber = v.optional(
  v.nullable(
    v.pipe(
      v.string("PA number is text."),
      v.rawCheck<string>(({ dataset, addIssue }) => {
        if (dataset.typed) for (const issue of paNumberIssues(dataset.value, "The PA number", "pa_number", " and save again")) addIssue({ message: issue.message });
      }),
      v.maxLength(50, "PA number is at most 50 characters."),
    ),
  ),
);

/**
 * The billing report save payload (clinical §3): session_date, pos, total_hours, cpt_code, the four
 * modifiers (md, md2 for an RBT note; mdbcba, md2bcba for a BCBA note), xe, chargesrbt, chargesbcba,
 * total_units, pa_number, patient_id, insurer_id, npi, note_rbt_id, note_bcba_id, and billed/pay
 * (billedbcba/paybcba). The figures a client sends (date, POS, hours, CPT, units, charges) are the note's
 * and the price function's: they are not taken from the body (decision 030). `version` and `note_version`
 * guard against stale saves. Every field a save writes (SAVE_FIELDS) that the body leaves out keeps the
 * stored value (absent is not cleared, `savedFields`); null or blank clears a modifier, the PA number or the
 * NPI (back to the location's), false clears a flag.
 */
export const SavePayload = v.object({
  note_id: noteId,
  note_rbt_id: noteId,
  note_bcba_id: noteId,
  patient_id: refId,
  insurer_id: refId,
  md: modifier,
  md2: modifier,
  mdbcba: modifier,
  md2bcba: modifier,
  billed: yesNo,
  pay: yesNo,
  billedbcba: yesNo,
  paybcba: yesNo,
  pa_number: paNumber,
  npi: v.optional(v.nullable(v.union([v.literal(""), v.pipe(v.string(), v.regex(/^\d{10}$/, "An NPI is 10 digits."))], "An NPI is 10 digits."))),
  version: v.optional(v.nullable(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d{0,15}$/, "version is a whole number."))])), null),
  note_version: v.optional(v.nullable(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d{0,15}$/, "note_version is a whole number."))])), null),
});
export type SavePayload = v.InferOutput<typeof SavePayload>;

/** The payload's names of the fields a save writes (the rest name the note, check the client and payer, or guard the versions). */
export const SAVE_FIELDS = ["md", "md2", "mdbcba", "md2bcba", "billed", "pay", "billedbcba", "paybcba", "pa_number", "npi"] as const;

const num = (x: number | string | null | undefined): number | null => (x === null || x === undefined || x === "" ? null : Number(x));

/** The billing fields a save writes: the note's modifiers and flags, the record's PA number and NPI. */
export interface SaveFields {
  md: string | null;
  md2: string | null;
  billed: boolean;
  pay: boolean;
  /** null: no PA number. */
  paNumber: string | null;
  /** null: the location's NPI. */
  npi: string | null;
}

/** What a save changes, decided from the payload: the note, and the billing fields the body sent. */
export interface SaveInput {
  noteId: number;
  /** Which role's fields the payload used (rbt: md/md2/billed/pay; bcba: mdbcba/md2bcba/billedbcba/paybcba). */
  role: "rbt" | "bcba";
  patientId: number | null;
  insurerId: number | null;
  /** The fields the body sent; one it left out is not a key here and keeps its stored value (savedFields). */
  sent: Partial<SaveFields>;
  version: number | null;
  noteVersion: number | null;
}

/** The one note a payload names, and its fields for that role; errors by field otherwise. */
export function saveInputOf(p: SavePayload): { ok: true; input: SaveInput } | { ok: false; errors: Record<string, string> } {
  const ids = [
    ["note_id", num(p.note_id)],
    ["note_rbt_id", num(p.note_rbt_id)],
    ["note_bcba_id", num(p.note_bcba_id)],
  ].filter((x): x is [string, number] => typeof x[1] === "number" && x[1] > 0);
  if (ids.length !== 1) return { ok: false, errors: { note_id: BILLING_MESSAGES.noteId } };
  const [key, noteId] = ids[0]!;
  // A BCBA note's billing-view fields are mdbcba/md2bcba/billedbcba/paybcba (clinical §3), an RBT note's md/md2/billed/
  // pay. Whichever id names the note, the body's fields are read under the names it sent (decision 030, stop 35): the
  // BCBA names when it sent only those, the RBT names when only those; both sets (the spec's payload carries the flags
  // of both roles): the id's role, the BCBA names for note_id. So no id drops the fields it was sent.
  const rbtSent = [p.md, p.md2, p.billed, p.pay].some((x) => x !== undefined);
  const bcbaSent = [p.mdbcba, p.md2bcba, p.billedbcba, p.paybcba].some((x) => x !== undefined);
  const bcbaFields = rbtSent && bcbaSent ? key !== "note_rbt_id" : bcbaSent || (!rbtSent && key === "note_bcba_id");
  const given: { [K in keyof SaveFields]: SaveFields[K] | undefined } = {
    md: bcbaFields ? p.mdbcba : p.md,
    md2: bcbaFields ? p.md2bcba : p.md2,
    billed: bcbaFields ? p.billedbcba : p.billed,
    pay: bcbaFields ? p.paybcba : p.pay,
    paNumber: p.pa_number === undefined ? undefined : p.pa_number?.trim() || null,
    npi: p.npi === undefined ? undefined : p.npi || null,
  };
  return {
    ok: true,
    input: {
      noteId,
      role: bcbaFields ? "bcba" : "rbt",
      patientId: num(p.patient_id),
      insurerId: num(p.insurer_id),
      sent: Object.fromEntries(Object.entries(given).filter(([, x]) => x !== undefined)) as Partial<SaveFields>,
      version: num(p.version),
      noteVersion: num(p.note_version),
    },
  };
}

/**
 * Absent is not cleared (decision 030): what a save writes is each field the body sent, else the stored value
 * (the note's modifiers and flags, the record's PA number and NPI). A note is paid only after it is billed:
 * refused on the flag the body sent (pay when it sent pay, else billed).
 */
export function savedFields(input: Pick<SaveInput, "role" | "sent">, stored: SaveFields): { ok: true; fields: SaveFields } | { ok: false; errors: Record<string, string> } {
  const fields = { ...stored, ...input.sent };
  if (fields.pay && !fields.billed) {
    const suffix = input.role === "bcba" ? "bcba" : "";
    return { ok: false, errors: { [`${input.sent.pay !== undefined ? "pay" : "billed"}${suffix}`]: BILLING_MESSAGES.payNeedsBilled } };
  }
  return { ok: true, fields };
}

/**
 * The fields a save changes that a claim holds (the modifiers, then the billed flag), named as the body sent
 * them (md/md2/billed, or mdbcba/md2bcba/billedbcba for a BCBA note's billing-view fields); empty when none.
 * `fields` are savedFields' (a field the body left out is the stored one: never a change).
 */
export function claimedChanges(role: SaveInput["role"], fields: Pick<SaveFields, "md" | "md2" | "billed">, note: { md: string | null; md2: string | null; billed: boolean }): string[] {
  const suffix = role === "bcba" ? "bcba" : "";
  return [
    ...((fields.md ?? null) !== (note.md ?? null) ? [`md${suffix}`] : []),
    ...((fields.md2 ?? null) !== (note.md2 ?? null) ? [`md2${suffix}`] : []),
    ...(fields.billed !== note.billed ? [`billed${suffix}`] : []),
  ];
}

/**
 * Unticking Pay on a note whose claim line an imported 835 paid (or partly paid) — `remitted`, the remittance's trace
 * number and date — is refused at Pay (decision 030, stop 40): the claim and remittance screens keep the payment, so
 * the billing rows would contradict them. Ticking Pay by hand (a payment received outside an 835) stays allowed, and a
 * save that leaves Pay as it is passes. The field as the body sent it (pay, or paybcba for a BCBA note's view).
 */
export function remittedPayRefusal(role: SaveInput["role"], fields: Pick<SaveFields, "pay">, note: { paid: boolean }, remitted: { trace: string; date: string } | null): Record<string, string> | null {
  if (!remitted || !note.paid || fields.pay) return null;
  return { [`pay${role === "bcba" ? "bcba" : ""}`]: BILLING_MESSAGES.paidByRemittance(remitted.trace, remitted.date) };
}

export const StatusInput = v.object({
  status: v.pipe(v.string(BILLING_MESSAGES.status), v.transform((s) => s.trim().toLowerCase()), v.picklist(NOTE_STATUSES, BILLING_MESSAGES.status)),
  note_version: v.optional(v.nullable(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d{0,15}$/, "note_version is a whole number."))])), null),
});

/** The modifier choices of the two selectors (clinical §3 modifiers). */
export const MODIFIER_CHOICES: readonly string[] = MODIFIER_CODES;

/** The modifiers that fit each note type (clinical §3's Type column), by the writers' one rule (`fittingModifiers`). */
const fittingCodes = (type: NoteType) => fittingModifiers(type).map((m) => m.code);
export const MODIFIER_CHOICES_BY_NOTE_TYPE: Readonly<Record<NoteType, readonly string[]>> = { rbt: fittingCodes("rbt"), bcba: fittingCodes("bcba"), combined: fittingCodes("combined") };

/** The place-of-service choices of the config calls (clinical §3): the product's one list (app/domain/locations.ts), by code. */
export const POS_CHOICES: { code: string; label: string }[] = [...POS_CODES].sort((a, b) => a.code.localeCompare(b.code)).map((p) => ({ code: p.code, label: p.label }));
