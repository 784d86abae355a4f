import * as v from "valibot";
import { flag, hasVisibleText, MESSAGES, optionalDiagnosisCode, numberOrNaN, numberOrNull, optionalDate, optionalId, optionalLine, optionalMoney, optionalText, requiredDate, requiredLine } from "./fields";
import { centsOf } from "./billing";
import { minuteOfDay, NOTE_CPT_CODES, tidyTime, NOTE_LIMITS, NOTE_SUBTYPES, NOTE_TYPES, timeOfMinute, unitsForMinutes, type NoteContent, type NoteInput, type NoteType } from "./notes";
import { dayNumber, dateOfDay, weekEndingOn, weekStartOf } from "./weeks";
import { localTimeExists, onClockOf, zonedDate, zoneOffsetAtLocal, zoneOffsetMinutes, zonePlace } from "./time";
import { MODIFIER_CODES, providerType } from "./insurance";
import { isPlainObject, oneLine, parseWith, plainObject, plainText } from "./validation";
import { unitCount, unitsLeftText } from "./pa-pacing";
import { isSignatureImage, SIGNATURE_IMAGE_MESSAGE } from "./signature-image";

/**
 * The rules of a session note (issue 10 "Rules"), pure: the body schema every path parses with (form,
 * API PUT/PATCH, amendment), the time pairs, the dates, and the overlap / buffer / cap / PA-unit
 * predicates over interval lists. The model (app/models/notes.server.ts) runs the same predicates in
 * SQL inside the write's batch, and uses these functions to say which rule refused a write.
 *
 * A refusal is `{ field, message }`: the field is the input that is at fault, so a screen shows the
 * message next to it and the API answers it in `errors`.
 */

export interface Refusal {
  field: string;
  message: string;
  /** Which of firstRefusal's rules refused (a series' dates group by it, app/domain/schedule.ts); absent elsewhere. */
  rule?: NoteRule;
}

/** Whether a claim label ("C0000001 (accepted)", liveClaimLabel) names an accepted claim: final, never voided. */
export function claimLabelAccepted(label: string): boolean {
  return label.endsWith("(accepted)");
}

/** The rules firstRefusal checks, in its order. */
export type NoteRule = "skipped_time" | "pa_not_of_client" | "pa_not_covering" | "client_overlap" | "provider_overlap" | "provider_buffer" | "day_cap" | "week_cap" | "pa_units";

export const NOTE_MESSAGES = {
  patient: "Choose a client.",
  provider: "Choose the provider of the session.",
  providerOutOfScope: "Choose a provider of the client's location.",
  supervisorOutOfScope: "Choose a supervisor of the client's location.",
  /** A new provider or supervisor who is inactive (decision 037, stop 31); a stored one stays. */
  providerInactive: "This employee is inactive: choose an active provider.",
  supervisorInactive: "This employee is inactive: choose an active supervisor.",
  supervisorIsProvider: "The provider cannot be the note's supervisor: choose the BCBA or BCaBA who supervised the session.",
  supervisorNotQualified: "Choose a supervisor who is a BCBA or BCaBA.",
  countersignOwnNote: "The provider cannot countersign their own note.",
  countersignNotSupervisor: "Only the note's supervisor can countersign it.",
  countersignNotQualified: "Only a BCBA or BCaBA can countersign a note.",
  countersignUnsigned: "The provider signs the note first; then the supervisor countersigns it.",
  countersignTwice: "This note is already countersigned.",
  countersignDate: (sessionDate: string, today: string) => `Countersign on a date from the session date (${sessionDate}) to today (${today}).`,
  signDate: (sessionDate: string, today: string) => `Sign on a date from the session date (${sessionDate}) to today (${today}).`,
  signName: "Type the provider's name to sign: a date or a drawing alone does not sign the note.",
  /** An amendment of a note that stays signed keeps both halves of its signature (amendedSignatureRefusal). */
  signedKeepsName: "This note is signed: an amendment can correct the provider's typed name but not remove it.",
  signedKeepsDate: "This note is signed: an amendment can correct the date signed but not remove it.",
  otherName: "Name this behavior, or clear its numbers.",
  /**
   * `claim` is liveClaimLabel's "C0000001 (sent)". An accepted claim cannot be voided (decision 032): its note is
   * final, so the message does not point to a step the product refuses (decision 032, stop 40).
   */
  onClaim: (claim: string) =>
    claimLabelAccepted(claim)
      ? `This note is on claim ${claim}: the payer accepted it, so the note is final (paid history). What the claim billed (date, times, CPT, modifiers, place of service, PA service, provider) cannot be changed, and the note cannot be deleted.`
      : `This note is on claim ${claim}: what the claim billed (date, times, CPT, modifiers, place of service, PA service, provider) stays, and the note cannot be deleted. Reject (void) that claim first.`,
  /** A billed note keeps what it billed (BILLED_NOTE_FIELDS) and is not deleted; its billing row unticks it (decision 034, stop 30). */
  billed: "This note is billed: untick Billed first (Billing by client) to change what it billed.",
  countersignOnView: "Only the note's supervisor signs as supervisor: they countersign from the note's view once the provider has signed.",
  otherProvider: "Only a user with manage_notes may write a note for another provider.",
  bip: "Choose one of the client's behavior plans.",
  plan: "Choose goals from the client's behavior plans.",
  paService: "Choose the PA service for this session.",
  paNotOfClient: "Choose one of the client's PA services.",
  paNotCovering: (date: string, cpt: string) => `The PA service does not cover CPT ${cpt} on ${date}.`,
  /** `left` below 0: the authorization is already over by that much, said as the booking warning says it (unitsLeftText). */
  paUnits: (needed: number, left: number) => `This session needs ${unitCount(needed)} but the PA service ${left < 0 ? "is" : "has only"} ${unitsLeftText(left)}.`,
  cpt: (type: NoteType) => `Choose a CPT code allowed on this note (${NOTE_CPT_CODES[type].join(", ")}).`,
  pos: (codes: readonly string[]) => `Choose a place of service from the list (${codes.join(", ")}).`,
  sessionDate: "Enter the session date.",
  futureDate: "The session date cannot be in the future.",
  /** `now`: the location's clock ("09:12"); `place`: the location's name. */
  sessionNotEnded: (now: string, place: string) => `The session cannot end in the future: it is ${now} now at ${place}.`,
  tooOld: (days: number) => `The session date cannot be more than ${days} days ago.`,
  time: "Enter a time like 09:30.",
  noTimes: "Enter the session time: a time in and a time out.",
  missingOut: "Enter the time out of this session.",
  missingIn: "Enter the time in of this session.",
  endBeforeStart: "The time out must be after the time in.",
  skippedTime: (date: string, time: string) => `There is no ${time} on ${date} at this location: the clocks go forward an hour that night. Enter the time the clock showed.`,
  pairsOverlap: "The second session must not overlap the first one.",
  /** `firstEnd`: the first pair's time out as typed ("11:30", "24:00"). */
  pairsOrder: (firstEnd: string) => `The afternoon session must start after the morning session ends (at ${firstEnd}).`,
  clientOverlap: (from: string, to: string) => `The client already has a session from ${from} to ${to} that overlaps this time.`,
  /** `where`: " (Los Angeles time)", " on 2026-12-08", both, or "" — the other session's clock when it is not this one's. */
  providerOverlap: (from: string, to: string, where = "") => `The provider already has a session from ${from} to ${to}${where} that overlaps this time.`,
  providerBuffer: (from: string, to: string, gap: number, where = "") =>
    `The provider needs ${gap} minutes between sessions; another session runs from ${from} to ${to}${where}.`,
  /** Added to the provider's overlap and buffer refusals when the other session is a deleted client's (no list shows it). */
  ofDeletedClient: " (a note of a client who has since been deleted)",
  dayCap: (hours: number) => `The client would have more than ${hours} hours of sessions on this day.`,
  weekCap: (hours: number) => `The client would have more than ${hours} hours of sessions in this week (Sunday to Saturday).`,
  signed: "This note is signed: a change is an amendment and needs a reason.",
  patientReadOnly: "The client of a note cannot change; write a new note for another client.",
  /** A note stays at the location where it was written (its client's then), as a moved client's old notes do (decision 017). */
  locationReadOnly: "The location of a note cannot change; it stays at the location where it was written.",
  typeReadOnly: "The type of a note is set by its address and cannot change; write a new note of the other type.",
  status: "Choose a status: pending or ok.",
  modifier: `Choose a modifier from the list (${MODIFIER_CODES.join(", ")}).`,
  priceNeedsManage: "Only a user with manage_notes may set a note's unit price.",
  pricesDisagree: "unit_price and unit_price_cents disagree: send one of them.",
  /** A content field sent flat and inside `content` with different values (contentSentTwiceErrors). */
  contentSentTwice: (field: string) => `${field} and content.${field} differ: send ${field} once, at the top level or in content.`,
  newProviderUnsigned: "The provider changed, so the note is no longer signed: its new provider signs it.",
  signature: SIGNATURE_IMAGE_MESSAGE,
  amendmentReason: "Give the reason for the amendment.",
} as const;

/* ------------------------------------------------------------------ the body schema */

const MAX_NOTE_TEXT = 5000;
const MAX_LIST = 100;
const MAX_SIGNATURE_CHARS = 200_000;

/**
 * A required entry of NoteBody whose key may be missing: a missing key counts as an empty value, so it gets the
 * field's own message ("Choose a client.") instead of v.object's "Invalid key: Expected …".
 */
const requiredKey = <TInput extends string | number, TOutput>(schema: v.GenericSchema<TInput, TOutput>) => v.optional(schema, "" as TInput);

/** A note id reference (patient, provider, PA …) from a form string or a JSON number. */
function requiredId(message: string) {
  return v.pipe(
    v.union([v.string(message), v.number(message)], message),
    v.transform((x) => numberOrNull(x) ?? Number.NaN),
    v.check((n) => Number.isSafeInteger(n) && n > 0, message),
  );
}

/** "HH:MM" (also "H:MM" and "HH:MM:SS", normalised to "HH:MM"); "" or null = none. A time out (`asEnd`) may be "24:00" (minuteOfDay). */
const optionalTime = (asEnd: boolean) =>
  v.pipe(
    v.optional(v.nullable(v.string(NOTE_MESSAGES.time)), null),
    v.transform((x) => {
      const t = typeof x === "string" ? tidyTime(x) : null;
      return t || null;
    }),
    v.nullable(v.pipe(v.string(), v.check((s) => minuteOfDay(s, asEnd) !== null, NOTE_MESSAGES.time))),
  );

const text = (label: string, max = MAX_NOTE_TEXT) => v.pipe(optionalText(label, max), v.transform((x) => x ?? ""));
const optionalString = (label: string, max = MAX_NOTE_TEXT) => v.optional(text(label, max));
/** A content text the form shows as an <input> (and the names and credentials of the spec's payloads): one line. */
const optionalLineString = (label: string, max: number) => v.optional(v.pipe(optionalLine(label, max), v.transform((x) => x ?? "")));
const optionalNum = (label: string, max = 1_000_000) =>
  v.pipe(
    v.optional(v.nullable(v.union([v.string(), v.number()])), null),
    v.transform(numberOrNull),
    v.nullable(v.pipe(v.number(`${label} must be a number.`), v.minValue(0, `${label} must be 0 or more.`), v.maxValue(max, `${label} is too large.`))),
  );
const planRef = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()])), null),
  v.transform(numberOrNull),
  v.nullable(v.pipe(v.number(NOTE_MESSAGES.plan), v.integer(NOTE_MESSAGES.plan), v.minValue(1, NOTE_MESSAGES.plan), v.maxValue(Number.MAX_SAFE_INTEGER, NOTE_MESSAGES.plan))),
);
const entryName = v.pipe(v.optional(v.nullable(v.string()), ""), v.transform((x) => (x ?? "").trim()), v.maxLength(255, MESSAGES.tooLong("Name", 255)), plainText("Name"), oneLine<string>("Name"));
const list = <T extends v.GenericSchema>(item: T, label: string) =>
  v.optional(v.pipe(v.array(item, `${label} must be a list.`), v.maxLength(MAX_LIST, `${label}: at most ${MAX_LIST} entries.`)));
const stringList = (label: string) => list(v.pipe(v.string(`${label} must be text.`), v.trim(), v.maxLength(500, MESSAGES.tooLong(label, 500)), plainText(label)), label);

/**
 * An entry with numbers but neither a goal nor a name (an "Other" row left unnamed) is data about nothing: refused at
 * its name (probe, stop 24), as a form user would expect, instead of being stored and shown as a blank row.
 */
const unnamed = (e: { plan_id: number | null; name: string }, hasData: boolean) => e.plan_id === null && e.name === "" && hasData;
const Maladaptive = v.pipe(
  v.object({ plan_id: planRef, name: entryName, frequency: optionalNum("Frequency") }),
  v.forward(v.check((e) => !unnamed(e, e.frequency !== null), NOTE_MESSAGES.otherName), ["name"]),
);
/** A replacement: trials and correct responses (RBT), or the percent achieved a BCBA note's spec payload sends (clinical §3). */
const ReplacementTrials = v.pipe(
  v.object({ plan_id: planRef, name: entryName, total_trials: optionalNum("Total trials"), correct_responses: optionalNum("Correct responses"), percent: v.optional(optionalNum("Percent", 100)) }),
  v.check((r) => r.total_trials === null || r.correct_responses === null || r.correct_responses <= r.total_trials, "Correct responses cannot exceed the total trials."),
  v.forward(v.check((e) => !unnamed(e, e.total_trials !== null || e.correct_responses !== null || (e.percent ?? null) !== null), NOTE_MESSAGES.otherName), ["name"]),
  v.transform(({ percent, ...e }) => (percent == null ? e : { ...e, percent })),
);
const Percent = v.pipe(
  v.object({ plan_id: planRef, name: entryName, percent: optionalNum("Percent", 100) }),
  v.forward(v.check((e) => !unnamed(e, e.percent !== null), NOTE_MESSAGES.otherName), ["name"]),
);
const Protocol = v.object({ name: entryName, assessed: flag, modified: flag, demonstrated: flag });
/** A yes/no of the spec's BCBA note (BCBA_conducted_assessments, …): absent stays absent, so a note that never answered it shows nothing. */
const optionalFlag = v.optional(flag);

/** The clinical content: types and bounds only (what the AI summary needs is not a save rule). */
export const NoteContentSchema = v.object({
  participants: optionalString("Participants"),
  environmental_changes: optionalString("Environmental changes"),
  summary_note: optionalString("Summary", 20_000),
  procedure: optionalString("Procedure"),
  assessment_tools: optionalString("Assessment tools"),
  intake_outcome: optionalString("Intake and outcome measurements"),
  maladaptives: list(plainObject(Maladaptive), "Maladaptives"),
  replacement_percentages: list(plainObject(Percent), "Replacements"),
  protocol_modifications: list(plainObject(Protocol), "Protocol modifications"),
  other_protocol: optionalLineString("Other protocol", 500),
  other_protocol_details: optionalString("Other protocol details"),
  why_was_the_protocol_modified_or_not_modified: optionalString("Why was the protocol modified or not modified"),
  describe_in_detail_the_protocol_modifications: optionalString("Describe in detail the protocol modifications"),
  progress_noted_this_session_compared_to_previous_session: optionalString("Progress noted this session"),
  caregiver_goals: list(plainObject(Percent), "Caregiver goals"),
  demonstrated_replacement_protocols: stringList("Demonstrated replacement protocols"),
  demonstrated_intervention_protocols: stringList("Demonstrated intervention protocols"),
  discussed_behaviors: stringList("Discussed behaviors"),
  replacements: list(plainObject(ReplacementTrials), "Replacements"),
  interventions: stringList("Interventions"),
  client_appeared: optionalLineString("Client appeared", 500),
  as_evidenced_by: optionalString("As evidenced by"),
  rbt_modeled_and_demonstrated_to_caregiver: optionalString("RBT modeled and demonstrated to caregiver"),
  client_response_to_treatment_this_session: optionalString("Client response to treatment"),
  next_session_is_scheduled_for: optionalLineString("Next session", 500),
  /* clinical §3 BCBA note (and, by "like the BCBA note", the RBT and combined notes) */
  note_description: optionalString("Note description"),
  rbt_training_goals: optionalString("RBT training goals"),
  meet_with_client_at: optionalString("Meet with client at", 255),
  BCBA_conducted_client_observations: optionalFlag,
  BCBA_conducted_assessments: optionalFlag,
  was_the_rbt_present: optionalFlag,
  modifications_needed_at_this_time: optionalFlag,
  replacement_protocols: list(plainObject(Percent), "Replacement protocols"),
  intervention_protocols: list(plainObject(Percent), "Intervention protocols"),
  behavior_protocols: list(plainObject(Percent), "Behavior protocols"),
  teacher_goals: list(plainObject(Percent), "Teacher goals"),
  additional_goals_or_interventions: optionalString("Additional goals or interventions"),
  /* clinical §3 RBT note */
  provider_credential: optionalLineString("Provider credential", 120),
  provider_name_g: optionalLineString("Provider name", 120),
});

/** The keys of the content document; a flat body (the spec's payloads) may send them at the top level. */
export const NOTE_CONTENT_KEYS = Object.keys(NoteContentSchema.entries) as (keyof NoteContent)[];

/** A modifier (md, md2, md3) from the product's modifiers table (app/domain/insurance.ts); "" or null = none. */
export const NoteModifier = v.pipe(
  v.nullable(v.string(NOTE_MESSAGES.modifier)),
  v.transform((x) => (typeof x === "string" && x.trim() !== "" ? x.trim().toUpperCase() : null)),
  v.nullable(v.picklist(MODIFIER_CODES, NOTE_MESSAGES.modifier)),
);
const modifier = v.optional(NoteModifier, null);

const signature = v.pipe(
  v.optional(v.nullable(v.string(NOTE_MESSAGES.signature)), null),
  v.transform((x) => (typeof x === "string" && x.trim() !== "" ? x.trim() : null)),
  v.nullable(v.pipe(v.string(), v.maxLength(MAX_SIGNATURE_CHARS, "The drawn signature is too large."), v.check(isSignatureImage, NOTE_MESSAGES.signature))),
);

const unitPriceCents = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()])), null),
  v.transform(numberOrNull),
  v.nullable(v.pipe(v.number("Unit price must be a number."), v.integer("Unit price is in whole cents."), v.minValue(0, "Unit price must be 0 or more."), v.maxValue(100_000_000, "Unit price is too large."))),
);

/**
 * The body of a note (API JSON or the object a screen builds from its form) → NoteInput. `type` comes
 * from the route (the model sets it); content fields may come inside `content` or flat at the top level.
 */
export const NoteBody = v.pipe(
  v.object({
    type: v.picklist(NOTE_TYPES, "Unknown note type."),
    patient_id: requiredKey(requiredId(NOTE_MESSAGES.patient)),
    provider_id: requiredKey(requiredId(NOTE_MESSAGES.provider)),
    supervisor_id: optionalId,
    bip_id: optionalId,
    pa_service_id: requiredKey(requiredId(NOTE_MESSAGES.paService)),
    cpt_code: v.pipe(v.optional(v.nullable(v.string()), ""), v.transform((x) => (x ?? "").trim())),
    subtype: v.pipe(v.optional(v.nullable(v.string()), null), v.transform((x) => (x ? x.trim() || null : null)), v.nullable(v.picklist(NOTE_SUBTYPES, "Choose observation or report."))),
    diagnosis_code: v.pipe(optionalDiagnosisCode("Diagnosis", 20), v.transform((x) => x ?? "")),
    pos: v.pipe(optionalLine("POS", 10), v.transform((x) => x ?? "")),
    is_telehealth: flag,
    session_date: requiredKey(requiredDate("Session date")),
    time_in: optionalTime(false),
    time_out: optionalTime(true),
    time_in2: optionalTime(false),
    time_out2: optionalTime(true),
    md: modifier,
    md2: modifier,
    md3: modifier,
    provider_name: v.pipe(optionalLine("Provider name", 120), v.transform((x) => x ?? "")),
    provider_signature: signature,
    provider_signed_on: optionalDate,
    supervisor_name: v.pipe(optionalLine("Supervisor name", 120), v.transform((x) => x ?? "")),
    supervisor_signature: signature,
    supervisor_signed_on: optionalDate,
    /** A combined note's price: undefined when the body does not name it (the two names below). */
    unit_price_cents: v.optional(unitPriceCents),
    /** Clinical §3's name of the same price, in dollars; a body naming both must name one price (priceOfBody). */
    unit_price: v.optional(optionalMoney("Unit price")),
    content: v.optional(plainObject(NoteContentSchema), {}),
  }),
  v.forward(
    v.check((n) => NOTE_CPT_CODES[n.type].includes(n.cpt_code), "CPT"),
    ["cpt_code"],
  ),
  v.forward(
    v.check((n) => n.type !== "combined" || n.unit_price === undefined || n.unit_price_cents === undefined || priceOfBody(n) === n.unit_price_cents, NOTE_MESSAGES.pricesDisagree),
    ["unit_price_cents"],
  ),
  v.transform(({ unit_price, ...n }): NoteInput => ({
    ...n,
    // 97151 is an observation unless told (clinical §3); other codes have no subtype.
    subtype: n.cpt_code === "97151" ? (n.subtype ?? "observation") : null,
    unit_price_cents: n.type !== "combined" ? null : priceOfBody({ unit_price, unit_price_cents: n.unit_price_cents }),
    content: stripEmpty(n.content as NoteContent),
  })),
);

/** A body's price in cents, by `unit_price` (dollars) when named, else `unit_price_cents`; null = none. */
function priceOfBody(n: { unit_price?: number | null; unit_price_cents?: number | null }): number | null {
  if (n.unit_price !== undefined) return n.unit_price === null ? null : centsOf(n.unit_price);
  return n.unit_price_cents ?? null;
}

function stripEmpty(c: NoteContent): NoteContent {
  const out: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(c)) if (val !== undefined) out[k] = val;
  return out as NoteContent;
}

/**
 * A raw body as NoteBody takes it: the route's type, content fields sent flat moved into `content`
 * (`content` itself wins; a field sent both ways with two values never gets here: contentSentTwiceErrors), and
 * `summary_note` at the top level too. The price may be named `unit_price` (clinical §3,
 * dollars; `null` clears it) or `unit_price_cents`; a body naming both must name the same price (NoteBody refuses two
 * that disagree, probe 8924 §1).
 */
export function noteBodyInput(type: NoteType, raw: Record<string, unknown>): Record<string, unknown> {
  const content: Record<string, unknown> = {};
  for (const k of NOTE_CONTENT_KEYS) if (raw[k] !== undefined) content[k] = raw[k];
  const nested = raw.content === undefined ? {} : raw.content;
  // A `content` that is not a plain object (null, text, a list) goes to the schema as it is, which refuses it.
  return { ...raw, type, content: isPlainObject(nested) ? { ...content, ...nested } : nested };
}

/**
 * A content field a body sends both flat and inside `content`, with different values: refused at that field, not one
 * of them dropped. A note's answer carries the summary both ways (`summary_note`, `content.summary_note`), so a client
 * that reads a note, edits one of them and sends the read back sent both, and `content` won under a 200 "Note updated."
 * (probe 8941 §3). The same value both ways, or one form alone, reads as before (noteBodyInput). Null: no such field.
 */
export function contentSentTwiceErrors(raw: Record<string, unknown>): Record<string, string> | null {
  const nested = raw.content;
  if (!isPlainObject(nested)) return null;
  const field = NOTE_CONTENT_KEYS.find((k) => raw[k] !== undefined && nested[k] !== undefined && JSON.stringify(raw[k]) !== JSON.stringify(nested[k]));
  return field ? { [field]: NOTE_MESSAGES.contentSentTwice(field) } : null;
}

/**
 * A note read and sent back with one of its two summaries edited (decision 025, stop 42). The answer carries the
 * summary as `summary_note` and as `content.summary_note`; when an update's body sends both with different values and
 * one of them is the stored summary, that one is the copy the client read and the other is its edit: the body is read
 * with the edit in both places. Two copies that both differ from the stored summary stay refused
 * (contentSentTwiceErrors), as does any other content field sent both ways: the answer never carries those twice.
 */
export function withEditedSummary(raw: Record<string, unknown>, storedSummary: string | null): Record<string, unknown> {
  const nested = raw.content;
  if (!isPlainObject(nested) || raw.summary_note === undefined || nested.summary_note === undefined) return raw;
  const [top, inner, was] = [raw.summary_note, nested.summary_note, storedSummary].map((x) => JSON.stringify(x));
  if (top === inner) return raw;
  if (inner === was) return { ...raw, content: { ...nested, summary_note: raw.summary_note } };
  if (top === was) return { ...raw, summary_note: nested.summary_note };
  return raw;
}

const NoteSummaryBounds = v.object({ content: v.optional(plainObject(NoteContentSchema), {}) });

/**
 * An AI summary request within a note's bounds (clinical §7 generate-summary): its content, nested or flat, parsed as
 * a save parses it, so a summary never reads more text than a note can hold (an unbounded field kept the Worker busy
 * for minutes). Types and bounds only: what a summary needs is the pre-check's (app/domain/note-summary.ts). Null
 * when within them, else the field errors a save answers (`content.as_evidenced_by`, …; a field sent twice, decision 025).
 */
export function summaryBoundsErrors(type: NoteType, raw: Record<string, unknown>): Record<string, string> | null {
  // A field sent flat and in `content` with different values is refused as a save refuses it: which one to summarise?
  const twice = contentSentTwiceErrors(raw);
  if (twice) return twice;
  const parsed = parseWith(NoteSummaryBounds, noteBodyInput(type, raw));
  return parsed.ok ? null : parsed.errors;
}

/** The CPT message names the type: the schema cannot, so the parse's errors are finished here. */
export function noteBodyErrors(type: NoteType, errors: Record<string, string>): Record<string, string> {
  if (errors.cpt_code === "CPT") return { ...errors, cpt_code: NOTE_MESSAGES.cpt(type) };
  return errors;
}

/* ------------------------------------------------------------------ times */

/** An interval of local minutes since 1970-01-01 (dayNumber × 1440 + minute), end exclusive. */
export interface Interval {
  start: number;
  end: number;
}

export interface SessionTimes {
  /** The first and second pair as instants (null when the pair is empty). */
  pair1: Interval | null;
  pair2: Interval | null;
  /** The span of both pairs (for the index range scans). */
  startAt: number;
  endAt: number;
  minutes1: number;
  minutes2: number;
  minutes: number;
  units: number;
  /**
   * The client's location's UTC offset at the session's first start (minutes to add to UTC for local time,
   * e.g. −300 for New York in winter; `withUtcOffset`), used for both pairs. Null until the zone is known: the
   * provider rules then compare local minutes, as before offsets were stored.
   */
  utcOffset: number | null;
}

/** The local-minute instant of a time on a date: dayNumber(date) × 1440 + minute of the day (a time out, `asEnd`, may be 24:00). */
export function localMinute(date: string, time: string, asEnd = false): number | null {
  const day = dayNumber(date);
  const minute = minuteOfDay(time, asEnd);
  return day === null || minute === null ? null : day * 1440 + minute;
}

/** The four typed times of a session (a note's `time_in` … `time_out2`). */
type TypedTimes = Pick<NoteInput, "time_in" | "time_out" | "time_in2" | "time_out2">;

/**
 * The two time pairs of a session: each complete or empty (a start without its end, or the reverse, is
 * refused on the missing field), the end after the start, the pairs not overlapping each other, the second
 * ("Afternoon") starting when or after the first ("Morning") ends, and at least one pair. Minutes of both pairs
 * are added, then turned into units (unitsForMinutes). An edit passes the note's `stored` times: a note stored
 * with its pairs the other way round (before the order rule, probe 8985 §3) keeps them until a write changes a time.
 */
export function sessionTimes(
  input: Pick<NoteInput, "session_date"> & TypedTimes,
  stored: TypedTimes | null = null,
): { ok: true; times: SessionTimes } | { ok: false; refusals: Refusal[] } {
  const refusals: Refusal[] = [];
  const pair = (inKey: "time_in" | "time_in2", outKey: "time_out" | "time_out2"): Interval | null => {
    const a = input[inKey];
    const b = input[outKey];
    if (!a && !b) return null;
    if (a && !b) return refusals.push({ field: outKey, message: NOTE_MESSAGES.missingOut }), null;
    if (!a && b) return refusals.push({ field: inKey, message: NOTE_MESSAGES.missingIn }), null;
    const start = localMinute(input.session_date, a!);
    const end = localMinute(input.session_date, b!, true);
    if (start === null || end === null) return refusals.push({ field: start === null ? inKey : outKey, message: NOTE_MESSAGES.time }), null;
    if (end <= start) return refusals.push({ field: outKey, message: NOTE_MESSAGES.endBeforeStart }), null;
    return { start, end };
  };
  const pair1 = pair("time_in", "time_out");
  const pair2 = pair("time_in2", "time_out2");
  if (refusals.length) return { ok: false, refusals };
  if (!pair1 && !pair2) return { ok: false, refusals: [{ field: "time_in", message: NOTE_MESSAGES.noTimes }] };
  if (pair1 && pair2 && overlaps(pair1, pair2)) return { ok: false, refusals: [{ field: "time_in2", message: NOTE_MESSAGES.pairsOverlap }] };
  const keepsStored = stored !== null && PAIR_FIELDS.flat().every((k) => input[k] === stored[k]);
  if (pair1 && pair2 && pair2.start < pair1.end && !keepsStored) return { ok: false, refusals: [{ field: "time_in2", message: NOTE_MESSAGES.pairsOrder(input.time_out!) }] };
  return { ok: true, times: timesOf(pair1, pair2, null) };
}

/** A session's times from its pairs (at least one): the span, each pair's minutes, their sum and its units. */
export function timesOf(pair1: Interval | null, pair2: Interval | null, utcOffset: number | null): SessionTimes {
  const minutes1 = pair1 ? pair1.end - pair1.start : 0;
  const minutes2 = pair2 ? pair2.end - pair2.start : 0;
  const spans = [pair1, pair2].filter((p): p is Interval => p !== null);
  return {
    pair1,
    pair2,
    startAt: Math.min(...spans.map((p) => p.start)),
    endAt: Math.max(...spans.map((p) => p.end)),
    minutes1,
    minutes2,
    minutes: minutes1 + minutes2,
    units: unitsForMinutes(minutes1 + minutes2),
    utcOffset,
  };
}

/** The fields of each time pair's two ends (a booking has the first pair only). */
const PAIR_FIELDS = [
  ["time_in", "time_out"],
  ["time_in2", "time_out2"],
] as const;

/**
 * The times at the client's location (`timeZone`), exact across a daylight-saving change (decision 024, stop 25):
 * `utcOffset` is the zone's offset at the session's first start (stored as notes.utc_offset), and every end of a
 * pair is written on THAT offset's clock (its own offset taken off, the first start's put back). On any other day
 * nothing moves. On a change night a session across 02:00 keeps the time that passed: 01:00–03:30 on a spring
 * night is 90 minutes (6 units), 00:30–03:00 on an autumn night 210; the provider rules, which compare each
 * session's interval less its one offset, then compare true moments. A clock time the night skips (02:30 in
 * spring) is refused at its field. The shown times stay the typed clock times (time_in…time_out2).
 */
export function inZone(times: SessionTimes, timeZone: string, date: string): { ok: true; times: SessionTimes } | { ok: false; refusals: Refusal[] } {
  const first = zoneOffsetAtLocal(times.startAt, timeZone);
  const refusals: Refusal[] = [];
  // An end of 24:00 is the end of the session date (onClockOf's `end`).
  const exact = (minute: number, field: string, end: boolean) => {
    if (!localTimeExists(minute, timeZone, end)) refusals.push({ field, message: NOTE_MESSAGES.skippedTime(date, timeOfMinute(((minute % 1440) + 1440) % 1440)), rule: "skipped_time" });
    return onClockOf(minute, timeZone, first, end);
  };
  const pairs = [times.pair1, times.pair2].map((p, i): Interval | null => (p ? { start: exact(p.start, PAIR_FIELDS[i]![0], false), end: exact(p.end, PAIR_FIELDS[i]![1], true) } : null));
  if (refusals.length) return { ok: false, refusals };
  const [pair1, pair2] = pairs as [Interval | null, Interval | null];
  // An end that the change brings back to or before its start (01:50–01:10 read across the autumn hour) is refused as any end before a start.
  const short = pairs.findIndex((p) => p !== null && p.end <= p.start);
  if (short >= 0) return { ok: false, refusals: [{ field: PAIR_FIELDS[short]![1], message: NOTE_MESSAGES.endBeforeStart }] };
  if (pair1 && pair2 && overlaps(pair1, pair2)) return { ok: false, refusals: [{ field: "time_in2", message: NOTE_MESSAGES.pairsOverlap }] };
  return { ok: true, times: timesOf(pair1, pair2, first) };
}

/* ------------------------------------------------------------------ place of service */

/**
 * A note's place of service: none, or one of its location's codes (what the form's select offers; probe 8892). An
 * edit checks it only when it changes the stored one (decision 017), so a code the location has since dropped stays.
 */
export function posRefusal(pos: string, locationCodes: readonly string[]): Refusal | null {
  return pos === "" || locationCodes.includes(pos) ? null : { field: "pos", message: NOTE_MESSAGES.pos(locationCodes) };
}

/* ------------------------------------------------------------------ dates */

/** The calendar date at `now` in the time zone (the location's "today"). */
export function todayIn(now: Date, timeZone: string): string {
  return zonedDate(now, timeZone);
}

/** No session date in the future; none older than 14 days unless the actor may ignore time limits. */
export function checkSessionDate(date: string, today: string, ignoreTimeLimits: boolean): Refusal | null {
  const day = dayNumber(date);
  const t = dayNumber(today);
  if (day === null || t === null) return { field: "session_date", message: NOTE_MESSAGES.sessionDate };
  if (day > t) return { field: "session_date", message: NOTE_MESSAGES.futureDate };
  if (!ignoreTimeLimits && t - day > NOTE_LIMITS.maxAgeDays) return { field: "session_date", message: NOTE_MESSAGES.tooOld(NOTE_LIMITS.maxAgeDays) };
  return null;
}

/**
 * No session that has not ended yet (probe 8922 §3): a pair whose time out is later than `now` at the client's
 * location is refused at that time out, as a future date is (checkSessionDate). `times` are the zoned times (inZone):
 * each end less the session's UTC offset is its moment. `place` names the location in the message.
 */
export function sessionEndRefusal(times: Pick<SessionTimes, "pair1" | "pair2" | "utcOffset">, now: Date, timeZone: string, place: string): Refusal | null {
  const offset = times.utcOffset ?? zoneOffsetMinutes(now, timeZone);
  const nowMinute = now.getTime() / 60_000;
  const late = [times.pair1, times.pair2].findIndex((p) => p !== null && p.end - offset > nowMinute);
  if (late < 0) return null;
  const clockNow = timeOfMinute((((Math.floor(nowMinute) + zoneOffsetMinutes(now, timeZone)) % 1440) + 1440) % 1440);
  return { field: PAIR_FIELDS[late]![1], message: NOTE_MESSAGES.sessionNotEnded(clockNow, place) };
}

/** The Sunday–Saturday week of a date (the product's one week: app/domain/weeks.ts). */
export function weekOf(date: string): { start: string; end: string } {
  const end = weekEndingOn(date);
  return { start: weekStartOf(end), end };
}

/* ------------------------------------------------------------------ interval predicates (mirrored in SQL) */

/** Two intervals overlap (touching ends do not); with `gap`, they must be at least `gap` minutes apart. */
export function overlaps(a: Interval, b: Interval, gap = 0): boolean {
  return a.start < b.end + gap && b.start < a.end + gap;
}

/**
 * A pair of another session: its stored interval, and the clock times typed for it (`time_in`, `time_out`), which a
 * refusal names. On a daylight-saving night the stored end is on the start's clock (inZone), an hour off the typed
 * one (decision 024, stop 33); without typed times (a row that has none) the interval's clock is named.
 */
export interface StoredPair extends Interval {
  typed?: { in: string; out: string } | null;
}

/** A stored session's pairs that exist (its first and second start and end, and the times typed for each). */
export function storedPairs(r: { s1: number | null; e1: number | null; s2?: number | null; e2?: number | null; in1?: string | null; out1?: string | null; in2?: string | null; out2?: string | null }): StoredPair[] {
  const pair = (start: number | null | undefined, end: number | null | undefined, timeIn: string | null | undefined, timeOut: string | null | undefined): StoredPair | null =>
    start == null || end == null ? null : { start, end, typed: timeIn && timeOut ? { in: timeIn, out: timeOut } : null };
  return [pair(r.s1, r.e1, r.in1, r.out1), pair(r.s2, r.e2, r.in2, r.out2)].filter((p): p is StoredPair => p !== null);
}

/** Another note's time pairs, as the rules see them. */
export interface NoteIntervals {
  id: number;
  /** Local minutes at the other session's location (with the clock times typed for them). */
  pairs: StoredPair[];
  /** Its location's UTC offset (notes.utc_offset); null or absent: unknown (written before offsets were stored). */
  utcOffset?: number | null;
  /** Its location's time zone, to name its clock in a refusal (absent: not named). */
  zone?: string | null;
  /** Its client was deleted: the note still takes the provider's time, but no list or read shows it (probe 8922 §5). */
  clientDeleted?: boolean;
  /** A provider's session of this session's client: the two may continue each other across midnight (continuesAtMidnight). */
  sameClient?: boolean;
}

/**
 * A provider works in several locations, maybe in several time zones, so the provider rules compare moments, not
 * clock times: the minutes to add to another session's local minutes to put them on this session's clock, i.e.
 * the difference of the two UTC offsets (another session's local − its offset = UTC = this one's local − its
 * offset). An unknown offset (NULL) counts as this session's own: 0, the local comparison of before. Mirrored in
 * SQL by ZONE_SHIFT_SQL (app/models/notes.server.ts). The client's overlap compares moments too (stop 32): a client
 * is in one place, but its sessions on a daylight-saving night sit on two offsets (EST and EDT).
 */
export function zoneShift(own: number | null | undefined, other: number | null | undefined): number {
  return own == null || other == null ? 0 : own - other;
}

/**
 * The largest difference of two UTC offsets (they run from −720 to +840 minutes), with room to spare: a provider's
 * range scans on start_at are widened by it so they still find, by index, every session zoneShift can move near.
 */
export const ZONE_SPREAD_MINUTES = 1680;

/**
 * One session of a client written as two notes across midnight (decision 024, stop 32): one pair ends at 24:00 of
 * its day on its own clock, and the other starts at that same moment (00:00 of the next day; 01:00 where the clocks
 * jump forward at midnight, as in Havana). `mine` is on its own clock, `other` moved onto it (zoneShift) and
 * `otherEnd` is the other pair's end on its own clock. The provider's buffer does not part two such pairs of the
 * same client; anything else keeps it, and an overlap is never a continuation.
 */
export function continuesAtMidnight(mine: Interval, other: Interval, otherEnd: number = other.end): boolean {
  return (mine.end === other.start && mine.end % 1440 === 0) || (other.end === mine.start && otherEnd % 1440 === 0);
}

/**
 * The first pair of `others` that `mine` overlaps (with `gap`), and which of my pairs it hits (the other pair on
 * its own clock, as its note shows it). With `utcOffset` (mine), each other session is first moved onto my clock
 * (zoneShift), so moments are compared; without it (not known), clock times. A pair of the same client that
 * continues mine across midnight is no conflict (continuesAtMidnight).
 */
export function firstConflict(mine: (Interval | null)[], others: readonly NoteIntervals[], gap = 0, utcOffset: number | null = null): { mine: number; other: StoredPair; note: NoteIntervals } | null {
  for (const o of others) {
    const shift = zoneShift(utcOffset, o.utcOffset);
    for (const p of o.pairs) {
      const moved = shift === 0 ? p : { start: p.start + shift, end: p.end + shift };
      for (let i = 0; i < mine.length; i++) {
        const m = mine[i];
        if (m && overlaps(m, moved, gap) && !(o.sameClient && continuesAtMidnight(m, moved, p.end))) return { mine: i, other: p, note: o };
      }
    }
  }
  return null;
}

/**
 * Where another session's clock times are read, when not on this one's clock (probe 8894, stop 25): its zone when
 * its offset differs ("09:00 to 10:00 (Los Angeles time)" for a Miami booking), and its date when it is another
 * day than the conflicting pair's; then whether it is a deleted client's note, which no screen shows (probe 8922 §5).
 * "" when the same zone and day, and a client not deleted.
 */
function otherClock(conflict: { other: Interval; note: NoteIntervals }, mine: Interval, utcOffset: number | null): string {
  const zone = conflict.note.zone && zoneShift(utcOffset, conflict.note.utcOffset) !== 0 ? ` (${zonePlace(conflict.note.zone)} time)` : "";
  const day = Math.floor(conflict.other.start / 1440);
  return `${zone}${day !== Math.floor(mine.start / 1440) ? ` on ${dateOfDay(day)}` : ""}${conflict.note.clientDeleted ? NOTE_MESSAGES.ofDeletedClient : ""}`;
}

/** Minutes already booked plus the new ones stay within the cap (exactly at the cap passes). */
export function withinCap(bookedMinutes: number, newMinutes: number, capMinutes: number): boolean {
  return bookedMinutes + newMinutes <= capMinutes;
}

/** Units already spent on the PA service plus the new ones stay within its authorized units. */
export function withinUnits(spentUnits: number, newUnits: number, authorizedUnits: number): boolean {
  return spentUnits + newUnits <= authorizedUnits;
}

/** A local minute's clock time; an end (`end`) on a day's boundary reads 24:00, as it was typed. */
const clock = (minute: number, end = false) => (end ? timeOfMinute(((((minute - 1) % 1440) + 1440) % 1440) + 1) : timeOfMinute(((minute % 1440) + 1440) % 1440));

/** Another session's pair as a refusal names it: the times typed for it, else its stored interval's clock. */
const shown = (p: StoredPair): { from: string; to: string } => (p.typed ? { from: p.typed.in, to: p.typed.out } : { from: clock(p.start), to: clock(p.end, true) });

/** Everything the rules need about the notes around a new or changed one (read on the refusal path). */
export interface Surroundings {
  /** The client's other live notes near the session (any provider; each with its utcOffset). */
  clientNotes: NoteIntervals[];
  /** The provider's other live notes near the session (any client, any location: each with its utcOffset and sameClient). */
  providerNotes: NoteIntervals[];
  /** Minutes of the client's other live notes on the session's day and in its week. */
  dayMinutes: number;
  weekMinutes: number;
  /** The PA service as found for the client (null: not the client's, deleted, or missing). */
  pa: { cpt: string; start_date: string; end_date: string; n_units: number; spent_units: number } | null;
}

/**
 * Which rule refuses a note, in the order a user fixes them: the PA service, the client's overlap, the
 * provider's overlap, the provider's buffer, the day cap, the week cap, the PA units. Null: none.
 * `pa: false`: an update that leaves the PA service, CPT, date and units as stored skips the PA rules.
 */
export function firstRefusal(input: Pick<NoteInput, "session_date" | "cpt_code">, times: SessionTimes, s: Surroundings, opts: { pa?: boolean } = {}): Refusal | null {
  const checkPa = opts.pa !== false;
  if (checkPa && !s.pa) return { field: "pa_service_id", message: NOTE_MESSAGES.paNotOfClient, rule: "pa_not_of_client" };
  if (checkPa && s.pa && (s.pa.cpt !== input.cpt_code || s.pa.start_date > input.session_date || s.pa.end_date < input.session_date))
    return { field: "pa_service_id", message: NOTE_MESSAGES.paNotCovering(input.session_date, input.cpt_code), rule: "pa_not_covering" };
  const mine = [times.pair1, times.pair2];
  const pairField = (i: number) => (i === 0 ? "time_in" : "time_in2");
  const client = firstConflict(mine, s.clientNotes, 0, times.utcOffset);
  if (client) {
    const other = shown(client.other);
    return { field: pairField(client.mine), message: NOTE_MESSAGES.clientOverlap(other.from, other.to), rule: "client_overlap" };
  }
  const provider = firstConflict(mine, s.providerNotes, 0, times.utcOffset);
  if (provider) {
    const other = shown(provider.other);
    return { field: pairField(provider.mine), message: NOTE_MESSAGES.providerOverlap(other.from, other.to, otherClock(provider, mine[provider.mine]!, times.utcOffset)), rule: "provider_overlap" };
  }
  const gap = NOTE_LIMITS.providerBufferMinutes;
  const buffer = firstConflict(mine, s.providerNotes, gap, times.utcOffset);
  if (buffer) {
    const other = shown(buffer.other);
    return { field: pairField(buffer.mine), message: NOTE_MESSAGES.providerBuffer(other.from, other.to, gap, otherClock(buffer, mine[buffer.mine]!, times.utcOffset)), rule: "provider_buffer" };
  }
  if (!withinCap(s.dayMinutes, times.minutes, NOTE_LIMITS.clientDayMinutes)) return { field: "time_out", message: NOTE_MESSAGES.dayCap(NOTE_LIMITS.clientDayMinutes / 60), rule: "day_cap" };
  if (!withinCap(s.weekMinutes, times.minutes, NOTE_LIMITS.clientWeekMinutes)) return { field: "time_out", message: NOTE_MESSAGES.weekCap(NOTE_LIMITS.clientWeekMinutes / 60), rule: "week_cap" };
  if (checkPa && s.pa && !withinUnits(s.pa.spent_units, times.units, s.pa.n_units))
    return { field: "pa_service_id", message: NOTE_MESSAGES.paUnits(times.units, s.pa.n_units - s.pa.spent_units), rule: "pa_units" };
  return null;
}

/**
 * The local-minute window a range scan must cover to find every note that can touch [startAt, endAt) with `gap`;
 * `spread` widens it for notes of other time zones (the provider's: ZONE_SPREAD_MINUTES).
 */
export function scanWindow(times: Pick<SessionTimes, "startAt" | "endAt">, gap = NOTE_LIMITS.providerBufferMinutes, spread = 0): { from: number; to: number } {
  // A note spans at most one day, so one that reaches into the window starts after startAt − 1440 − gap.
  return { from: times.startAt - 1440 - gap - spread, to: times.endAt + gap + spread };
}

/**
 * The supervisor's countersignature of a signed note (decision 023, stop 22): typed name, date, and the drawn
 * image when JavaScript runs. Not an amendment: it changes no clinical content.
 */
export const CountersignInput = v.object({
  supervisor_name: requiredLine("Supervisor name", 120),
  supervisor_signed_on: requiredDate("Countersignature date"),
  supervisor_signature: signature,
  version: v.pipe(v.union([v.string(), v.number()], "Reload the note and countersign again."), v.transform((x: string | number) => numberOrNaN(x)), v.integer("Reload the note and countersign again.")),
});

/**
 * A signature's date, the provider's or the supervisor's countersignature: from the session date to today at the
 * client's location (a note signed before its session or in the future is wrong on a billing document).
 */
export function signDateRefusal(who: "provider" | "supervisor", signedOn: string, sessionDate: string, today: string): string | null {
  if (signedOn >= sessionDate && signedOn <= today) return null;
  return who === "supervisor" ? NOTE_MESSAGES.countersignDate(sessionDate, today) : NOTE_MESSAGES.signDate(sessionDate, today);
}

/**
 * Who may supervise a session (decision 023, probe 8903): a BCBA or BCaBA — the credential the price lookup reads
 * from a user's roles (`providerCredentialSql`, `providerType` "bcba") — and never the note's own provider.
 */
/** How an edit form's select marks a stored supervisor who cannot supervise (kept when saved unchanged: decision 017). */
export const CANNOT_SUPERVISE = "(not a BCBA or BCaBA)";
/** Marks, in the edit form's PA select, the note's own PA service deleted since it was written. */
export const PA_DELETED = "deleted: choose a current PA service to bill this note";

export function canSupervise(credential: string | null | undefined): boolean {
  return providerType(credential) === "bcba";
}

/**
 * Why a note's supervisor is refused (422 at `supervisor_id`), or null. `credential` is the supervisor's, read with
 * the note's references; `undefined` when it is not checked (an edit that keeps the stored supervisor).
 */
export function supervisorRefusal(providerId: number, supervisorId: number | null, credential?: string | null): string | null {
  if (supervisorId === null) return null;
  if (supervisorId === providerId) return NOTE_MESSAGES.supervisorIsProvider;
  return credential === undefined || canSupervise(credential) ? null : NOTE_MESSAGES.supervisorNotQualified;
}

/** The supervisor's signature fields of a note (written only by the countersignature, never by a create or an edit). */
export type SupervisorSignature = Pick<NoteInput, "supervisor_name" | "supervisor_signed_on" | "supervisor_signature">;

/**
 * Whether a create or edit body would write the supervisor's signature: any of its fields set on a create
 * (`current` null), or different from the stored ones on an edit. Only the supervisor writes it, by countersigning
 * (decision 023, stop 23).
 */
export function writesSupervisorSignature(input: SupervisorSignature, current: SupervisorSignature | null): boolean {
  const norm = (x: SupervisorSignature | null) => [x?.supervisor_name?.trim() ?? "", x?.supervisor_signed_on ?? "", x?.supervisor_signature ?? ""];
  const [a, b] = [norm(input), norm(current)];
  return a.some((v, i) => v !== b[i]);
}

/**
 * What a claim bills of a note (the 837P's service line, decision 032): while a claim that is not rejected holds
 * the note, these do not change (decision 030, stop 24) — nor is the note deleted. The supervisor is among them: a
 * payer that uses the supervisor as provider bills the note under them (2310B, decision 032, stop 35). The narrative
 * may still be amended: no claim carries it.
 */
export const CLAIMED_NOTE_FIELDS = ["session_date", "time_in", "time_out", "time_in2", "time_out2", "cpt_code", "md", "md2", "md3", "pos", "pa_service_id", "provider_id", "supervisor_id", "unit_price_cents"] as const;

type ClaimedNoteField = (typeof CLAIMED_NOTE_FIELDS)[number];

/**
 * What a billed note keeps (decision 034, stop 30): what a claim bills of it, but md3, which neither the billing row
 * nor a claim carries (stop 30). Billed is ticked on the billing row, which scrubs these facts; unticking it there
 * frees them.
 */
export const BILLED_NOTE_FIELDS: readonly ClaimedNoteField[] = CLAIMED_NOTE_FIELDS.filter((k) => k !== "md3");

/** The claimed fields (or the billed ones) an edit would change, in CLAIMED_NOTE_FIELDS' order; empty when none. */
export function claimedNoteChanges(input: Partial<Record<ClaimedNoteField, unknown>>, current: Partial<Record<ClaimedNoteField, unknown>>, fields: readonly ClaimedNoteField[] = CLAIMED_NOTE_FIELDS): string[] {
  const norm = (x: unknown) => (x === undefined || x === null || x === "" ? null : String(x));
  return fields.filter((k) => norm(input[k]) !== norm(current[k]));
}

/** A note is signed once its provider typed their name and the date (decision 023). */
export function isSigning(input: Pick<NoteInput, "provider_name" | "provider_signed_on">): boolean {
  return hasVisibleText(input.provider_name) && !!input.provider_signed_on;
}

/**
 * A sign date or a drawn signature without the typed name (decision 023, stop 24): refused at the name. Stored,
 * they showed on the view and the PDF as a signature ("signed 2026-11-01") while the note was not signed — still
 * editable, refused by the scrubber, and with a date no rule had checked.
 */
export function halfSignatureRefusal(input: Pick<NoteInput, "provider_name" | "provider_signed_on" | "provider_signature">): Record<string, string> | null {
  if (hasVisibleText(input.provider_name)) return null;
  return input.provider_signed_on || input.provider_signature ? { provider_name: NOTE_MESSAGES.signName } : null;
}

/**
 * Whether an edit leaves the note as it is: each field of the stored note equal in the edit (blank, empty list and
 * none alike; lists in order, an object's keys in any order), the supervisor's signature aside (only the countersignature writes
 * it). An amendment that changes nothing is refused as an empty PATCH is (probe 8964 §3): it would only have added a
 * version and cleared the countersignature.
 */
export function changesNothing(input: NoteInput, stored: NoteInput): boolean {
  const norm = (x: unknown): unknown => {
    if (x === undefined || x === null || x === "") return null;
    if (Array.isArray(x)) return x.length ? x.map(norm) : null;
    if (!isPlainObject(x)) return x;
    return Object.fromEntries(
      Object.keys(x)
        .sort()
        .map((k) => [k, norm(x[k])])
        .filter(([, value]) => value !== null),
    );
  };
  const compared = (n: NoteInput) => Object.keys(stored).filter((k) => !k.startsWith("supervisor_") || k === "supervisor_id").map((k) => norm(n[k as keyof NoteInput]));
  return JSON.stringify(compared(input)) === JSON.stringify(compared(stored));
}

/** The provider's signature fields of a note. */
export type ProviderSignature = Pick<NoteInput, "provider_name" | "provider_signed_on" | "provider_signature">;

/**
 * An amendment of a note that stays signed (same provider; decision 023, stop 33): it may correct the typed name
 * or the date but not remove one the note has, and a changed date — or a changed session date — is held to the
 * sign-date rule, so a stored date always has passed it.
 */
export function amendedSignatureRefusal(
  input: Pick<NoteInput, "provider_name" | "provider_signed_on" | "session_date">,
  stored: Pick<NoteInput, "provider_name" | "provider_signed_on" | "session_date">,
  today: string,
): Record<string, string> | null {
  if (!hasVisibleText(input.provider_name) && hasVisibleText(stored.provider_name)) return { provider_name: NOTE_MESSAGES.signedKeepsName };
  if (!input.provider_signed_on) return stored.provider_signed_on ? { provider_signed_on: NOTE_MESSAGES.signedKeepsDate } : null;
  if (input.provider_signed_on === stored.provider_signed_on && input.session_date === stored.session_date) return null;
  const date = signDateRefusal("provider", input.provider_signed_on, input.session_date, today);
  return date ? { provider_signed_on: date } : null;
}

/**
 * An edit that changes a note's provider keeps none of the previous provider's signature (decision 023, probe 8922
 * §1): on a signed note the typed name, date and drawing are cleared and the note is unsigned until its new provider
 * signs it; on an unsigned note the parts the body repeats from the stored note are cleared, and what it newly types
 * signs the note as any unsigned note's signing does (name and date, the date rule).
 */
export function withoutPreviousSignature<T extends ProviderSignature>(input: T, current: ProviderSignature & { signed_at: string | null }): T {
  const signed = current.signed_at !== null;
  const sameName = (input.provider_name ?? "").trim() === (current.provider_name ?? "").trim();
  return {
    ...input,
    provider_name: signed || sameName ? "" : input.provider_name,
    provider_signed_on: signed || input.provider_signed_on === current.provider_signed_on ? null : input.provider_signed_on,
    provider_signature: signed || input.provider_signature === current.provider_signature ? null : input.provider_signature,
  };
}

export const AmendmentReason = v.pipe(v.string(NOTE_MESSAGES.amendmentReason), v.trim(), v.nonEmpty(NOTE_MESSAGES.amendmentReason), v.maxLength(1000, MESSAGES.tooLong("Reason", 1000)), plainText("Reason"));
