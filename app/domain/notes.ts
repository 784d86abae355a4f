/**
 * Session notes (clinical §3, §5; issue 10): the shared contract of every part that reads or writes a
 * note — the rules, the model, the screens, the API, the AI summary, the PDF and the weekly data.
 *
 * A note's columns hold what the rules, lists and billing query (who, when, which CPT, units); the
 * type- and CPT-specific clinical content travels in one JSON document (`NoteContent`).
 */

import { onClockOf, zoneOffsetAtLocal } from "./time";
import { dayNumber } from "./weeks";

export const NOTE_TYPES = ["rbt", "bcba", "combined"] as const;
export type NoteType = (typeof NOTE_TYPES)[number];

/** The CPT codes each note type may carry (clinical §9: 97151, 97153, 97155, 97156). */
export const NOTE_CPT_CODES: Readonly<Record<NoteType, readonly string[]>> = {
  rbt: ["97153"],
  bcba: ["97151", "97155", "97156"],
  combined: ["97153", "97155", "97156"],
};

export const NOTE_STATUSES = ["pending", "ok"] as const;
export type NoteStatus = (typeof NOTE_STATUSES)[number];

/** 97151 assessments are an observation (default) or a report (clinical §3). */
export const NOTE_SUBTYPES = ["observation", "report"] as const;
export type NoteSubtype = (typeof NOTE_SUBTYPES)[number];

/** Session limits (issue 10 "Rules"). */
export const NOTE_LIMITS = {
  /** Minutes a provider needs between two of their sessions. */
  providerBufferMinutes: 15,
  /** Minutes of sessions a client may have on one day. */
  clientDayMinutes: 10 * 60,
  /** Minutes of sessions a client may have in one Sunday–Saturday week. */
  clientWeekMinutes: 40 * 60,
  /** Days back a session date may lie without `ignore_time_limits`. */
  maxAgeDays: 14,
} as const;

/**
 * Billing units of a session (issue 10, architecture "Units"): the minutes of both time pairs are added
 * first; whole 15-minute blocks, plus one when the remainder is 8 minutes or more.
 * 0→0, 7→0, 8→1, 22→1, 23→2, 60→4, 90→6, 135→9, 143→10. The one function for the whole product.
 */
export function unitsForMinutes(minutes: number): number {
  if (!Number.isFinite(minutes) || minutes <= 0) return 0;
  const whole = Math.floor(minutes);
  const blocks = Math.floor(whole / 15);
  return whole % 15 >= 8 ? blocks + 1 : blocks;
}

/**
 * "HH:MM" (24-hour, local to the location) → minutes after midnight, or null: the one rule for a clock time. A time
 * out (`asEnd`) may also be "24:00", the end of the session date (1440), so a session that ends at midnight keeps its
 * last minute (decision 024, stop 32); a time in may not.
 */
export function minuteOfDay(time: string, asEnd = false): number | null {
  if (asEnd && time === "24:00") return 1440;
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(time);
  return m ? Number(m[1]) * 60 + Number(m[2]) : null;
}

/**
 * A clock time as typed, tidied to "HH:MM": "9:30" and "09:30:00" read as "09:30"; anything else is returned trimmed,
 * for minuteOfDay to refuse. The one tidy-up the note and booking forms, the API and the live total share.
 */
export function tidyTime(typed: string): string {
  const t = typed.trim();
  const m = /^(\d{1,2}):(\d{2})(?::00)?$/.exec(t);
  return m ? `${m[1]!.padStart(2, "0")}:${m[2]}` : t;
}

/**
 * A time out's field is text, not a time input (which cannot hold 24:00), and says how to type midnight: the note
 * form's and the booking form's (decision 024, stop 32).
 */
export const TIME_OUT_FIELD = { type: "text", placeholder: "HH:MM", hint: "24:00 for midnight." } as const;

/**
 * A note's total minutes from its time pairs as typed (a pair incomplete or reversed counts 0; the rules refuse it
 * on save). With the location's time zone, each pair counts the time that passes across a daylight-saving change
 * (onClockOf, as the save's inZone does, decision 024), so the note form — on the server without JavaScript and
 * live in the browser — never shows minutes or units the save would not count.
 */
export function typedMinutes(input: { session_date: string; time_in: string | null; time_out: string | null; time_in2: string | null; time_out2: string | null }, timeZone?: string): number {
  const day = timeZone ? dayNumber(input.session_date) : null;
  const pair = (a: string | null, b: string | null) => {
    const start = minuteOfDay(tidyTime(a ?? ""));
    const end = minuteOfDay(tidyTime(b ?? ""), true);
    if (start === null || end === null || end <= start) return 0;
    if (day === null || !timeZone) return end - start;
    const from = day * 1440 + start;
    return Math.max(0, onClockOf(day * 1440 + end, timeZone, zoneOffsetAtLocal(from, timeZone), true) - from);
  };
  return pair(input.time_in, input.time_out) + pair(input.time_in2, input.time_out2);
}

/** Minutes after midnight → "HH:MM". */
export function timeOfMinute(minute: number): string {
  const h = Math.floor(minute / 60);
  const m = minute % 60;
  return `${h < 10 ? "0" : ""}${h}:${m < 10 ? "0" : ""}${m}`;
}

/* ------------------------------------------------------------------ content (the JSON document) */

/** A maladaptive behaviour measured in a session: its plan (from the client's active BIP) and how often. */
export interface MaladaptiveEntry {
  plan_id: number | null;
  name: string;
  frequency: number | null;
}

/** A replacement behaviour in an RBT session: trials and correct responses; a BCBA note's spec payload may send the percent achieved. */
export interface ReplacementTrialEntry {
  plan_id: number | null;
  name: string;
  total_trials: number | null;
  correct_responses: number | null;
  /** 0–100, only when sent (clinical §3 BCBA note `replacements`). */
  percent?: number;
}

/** A goal measured as a percentage (97155 replacements, 97156 caregiver goals). */
export interface PercentEntry {
  plan_id: number | null;
  name: string;
  percent: number | null;
}

/** A protocol reviewed in a 97155 session. */
export interface ProtocolModification {
  name: string;
  assessed: boolean;
  modified: boolean;
  demonstrated: boolean;
}

/**
 * The clinical content of a note. Every key is optional in storage; which ones a note needs depends on
 * its type and CPT (the AI pre-check, clinical §5, lists them). Field names are the spec's.
 */
export interface NoteContent {
  /* shared */
  participants?: string;
  environmental_changes?: string;
  summary_note?: string;
  /* 97151 */
  procedure?: string;
  assessment_tools?: string;
  intake_outcome?: string;
  /* 97155 */
  maladaptives?: MaladaptiveEntry[];
  replacement_percentages?: PercentEntry[];
  protocol_modifications?: ProtocolModification[];
  other_protocol?: string;
  other_protocol_details?: string;
  why_was_the_protocol_modified_or_not_modified?: string;
  describe_in_detail_the_protocol_modifications?: string;
  progress_noted_this_session_compared_to_previous_session?: string;
  /* 97156 */
  caregiver_goals?: PercentEntry[];
  demonstrated_replacement_protocols?: string[];
  demonstrated_intervention_protocols?: string[];
  discussed_behaviors?: string[];
  /* 97153 (RBT) */
  replacements?: ReplacementTrialEntry[];
  interventions?: string[];
  client_appeared?: string;
  as_evidenced_by?: string;
  rbt_modeled_and_demonstrated_to_caregiver?: string;
  client_response_to_treatment_this_session?: string;
  next_session_is_scheduled_for?: string;
  /* clinical §3 BCBA note (the RBT and combined notes are "like the BCBA note") */
  note_description?: string;
  rbt_training_goals?: string;
  meet_with_client_at?: string;
  BCBA_conducted_client_observations?: boolean;
  BCBA_conducted_assessments?: boolean;
  was_the_rbt_present?: boolean;
  modifications_needed_at_this_time?: boolean;
  replacement_protocols?: PercentEntry[];
  intervention_protocols?: PercentEntry[];
  behavior_protocols?: PercentEntry[];
  teacher_goals?: PercentEntry[];
  additional_goals_or_interventions?: string;
  /* clinical §3 RBT note */
  provider_credential?: string;
  provider_name_g?: string;
}

/** One session time pair, as typed ("HH:MM" local times). */
export interface TimePair {
  time_in: string | null;
  time_out: string | null;
}

/**
 * A note as the user submits it (form or API body), before the rules. Field names are the spec's
 * (clinical §3); `content` holds the type-specific fields.
 */
export interface NoteInput {
  type: NoteType;
  patient_id: number;
  provider_id: number;
  supervisor_id: number | null;
  bip_id: number | null;
  pa_service_id: number;
  cpt_code: string;
  subtype: NoteSubtype | null;
  diagnosis_code: string;
  pos: string;
  is_telehealth: boolean;
  session_date: string;
  time_in: string | null;
  time_out: string | null;
  time_in2: string | null;
  time_out2: string | null;
  md: string | null;
  md2: string | null;
  md3: string | null;
  provider_name: string;
  provider_signature: string | null;
  provider_signed_on: string | null;
  supervisor_name: string;
  supervisor_signature: string | null;
  supervisor_signed_on: string | null;
  /** Combined notes only (clinical §3). */
  unit_price_cents: number | null;
  content: NoteContent;
}

/**
 * A stored note as the API answers it and every reader (screens, PDF, AI summary, billing) sees it:
 * the spec's field names, times as typed, units from `unitsForMinutes`.
 */
export interface NoteJson {
  id: number;
  type: NoteType;
  patient_id: number;
  patient_name: string;
  location_id: number;
  provider_id: number | null;
  provider_name: string;
  supervisor_id: number | null;
  supervisor_name: string;
  bip_id: number | null;
  pa_service_id: number | null;
  cpt_code: string;
  subtype: NoteSubtype | null;
  diagnosis_code: string;
  pos: string;
  is_telehealth: boolean;
  session_date: string;
  time_in: string | null;
  time_out: string | null;
  time_in2: string | null;
  time_out2: string | null;
  /** Minutes of the first pair, of the second pair, and both (clinical §5: missing totals are 0). */
  session_length_morning_total: number;
  session_length_afternon_total: number;
  session_length_total: number;
  total_hours: number;
  total_minutes: number;
  total_units: number;
  md: string | null;
  md2: string | null;
  md3: string | null;
  unit_price_cents: number | null;
  /** The same price in dollars ("16.25"), clinical §3's unit_price; null when none. */
  unit_price: string | null;
  /** Clinical §3's names on the combined note: the note's type, and its doctor — the provider (decision 025). */
  note_type: NoteType;
  doctor_id: number | null;
  status: NoteStatus;
  billed: boolean;
  paid: boolean;
  provider_signature: string | null;
  provider_signed_on: string | null;
  supervisor_signature: string | null;
  supervisor_signed_on: string | null;
  signed_at: string | null;
  summary_note: string;
  content: NoteContent;
  version: number;
  created_at: string;
  updated_at: string;
}

/** What a note's view, PDF and AI summary need beside the note: its client, location and PA service. */
export interface NoteContext {
  patient: { id: number; first_name: string; last_name: string; patient_identifier: string | null; birth_date: string | null; insurance_identifier: string | null; insurance_name: string | null };
  location: { id: number; title: string; address: string | null; city: string | null; state: string | null; zip: string | null; phone1: string | null; time_zone: string };
  pa_service: { id: number; pa_service: string; cpt: string; n_units: number; start_date: string; end_date: string } | null;
  /** The users chosen as the note's provider and supervisor (name and surname); null when none is chosen. */
  provider: { id: number; name: string } | null;
  supervisor: { id: number; name: string } | null;
}

/**
 * Who a note names as its provider or supervisor (the view's and the PDF's "Provider"/"Supervisor"): the chosen
 * user, else the typed signature name (a note written before a user was chosen). The signature blocks show the
 * typed name alone: choosing a supervisor is not their signature.
 */
export function noteStaffName(chosen: NoteContext["provider"], typedName: string | null | undefined): string {
  return chosen?.name || (typedName ?? "").trim();
}

/**
 * Clinical §3's note fields beside the CPT sections (decision 025, stop 25), label and kind: one table for the view,
 * the PDF and the history. A field shows only when the note has it.
 */
const NOTE_SPEC_FIELDS: readonly [keyof NoteContent, string, "text" | "flag" | "goals"][] = [
  ["note_description", "Note description", "text"],
  ["meet_with_client_at", "Met with client at", "text"],
  ["provider_credential", "Provider credential", "text"],
  ["provider_name_g", "Provider name (as written)", "text"],
  ["BCBA_conducted_client_observations", "BCBA conducted client observations", "flag"],
  ["BCBA_conducted_assessments", "BCBA conducted assessments", "flag"],
  ["was_the_rbt_present", "Was the RBT present", "flag"],
  ["modifications_needed_at_this_time", "Modifications needed at this time", "flag"],
  ["rbt_training_goals", "RBT training goals", "text"],
  ["replacement_protocols", "Replacement protocols", "goals"],
  ["intervention_protocols", "Intervention protocols", "goals"],
  ["behavior_protocols", "Behavior protocols", "goals"],
  ["teacher_goals", "Teacher goals", "goals"],
  ["additional_goals_or_interventions", "Additional goals or interventions", "text"],
];

/** The content keys of NOTE_SPEC_FIELDS: sent by API clients, not on the note forms (a form's save keeps them). */
export const NOTE_SPEC_FIELD_KEYS: readonly (keyof NoteContent)[] = NOTE_SPEC_FIELDS.map(([key]) => key);

/** "Manding: 80%" (or "Manding" without a percent): a goal entry's line. */
function goalLine(e: { name: string; percent?: number | null }): string {
  const name = typeof e.name === "string" && e.name ? e.name : "—";
  return typeof e.percent === "number" ? `${name}: ${e.percent}%` : name;
}

/** The spec fields a note has, in NOTE_SPEC_FIELDS' order: a text or yes/no as one line, a goal list a line per entry. */
export function noteSpecFields(c: NoteContent): { label: string; list: boolean; lines: string[] }[] {
  const out: { label: string; list: boolean; lines: string[] }[] = [];
  for (const [key, label, kind] of NOTE_SPEC_FIELDS) {
    const value = c[key];
    if (kind === "flag" && typeof value === "boolean") out.push({ label, list: false, lines: [value ? "Yes" : "No"] });
    else if (kind === "text" && typeof value === "string" && value.trim() !== "") out.push({ label, list: false, lines: [value] });
    else if (kind === "goals" && Array.isArray(value) && value.length) out.push({ label, list: true, lines: (value as unknown[]).filter((e): e is PercentEntry => !!e && typeof e === "object").map(goalLine) });
  }
  return out;
}

/** All of NOTE_SPEC_FIELDS' labels with the note's text, "" when absent (the history compares versions by them). */
export function noteSpecTexts(c: NoteContent): [string, string][] {
  const present = new Map(noteSpecFields(c).map((f) => [f.label, f.lines.join("; ")]));
  return NOTE_SPEC_FIELDS.map(([, label]) => [label, present.get(label) ?? ""]);
}
