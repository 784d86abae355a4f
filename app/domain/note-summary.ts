/**
 * The AI summary of a session note (clinical §2, §4, §5 "AI summary pre-check", §7 generate-summary, §8;
 * issue 10 "AI summary"; docs/decisions/026). Pure and small: the server runs it, and the browser bundles it
 * to mirror the pre-check before it asks the server.
 *
 * - `summaryPrecheck(body)`: the fields the summary needs, as the list the 'Missing Required Fields' dialog shows.
 * - `noteFacts(body)`: the ONE step that decides what of a note may leave it for a summary: the place as a word,
 *   the kind of service in words, and the clinical content with dates, times, long numbers and the names the body
 *   carries stripped. Never the client's or anyone's name, ids, insurance, dates, times or CPT codes.
 * - `builtInSummary(body)`: the local summariser's narrative from those facts; `summaryPrompt(body)`: the prompt
 *   the remote providers get, from the same facts.
 *
 * A body is a note body (`noteFormToBody`, the API's JSON): `{ type, cpt_code, diagnosis_code, pos, time_in,
 * time_out, time_in2, time_out2, subtype, content: NoteContent }`. The legacy client sends the content fields
 * beside the others ("the prepared note fields", §7), so a content field is read from `content` first, then from
 * the top level; replacement entries may say `totalTrials`/`correctResponses`, maladaptives `behavior`.
 */
import { minuteOfDay, NOTE_TYPES, type NoteType } from "./notes";

export const MISSING_FIELDS_TITLE = "Missing Required Fields";
export const MISSING_FIELDS_INTRO = "Please complete the required fields below before generating the AI summary:";
export const AI_SUMMARY_ERROR = "Error generating AI summary. Please try again.";
export const AI_SUMMARY_ERROR_TITLE = "Error";
export const AI_SUMMARY_BUTTON = "Generate AI Summary";
export const AI_SUMMARY_BUTTON_BUSY = "Generating...";
export const NOT_IMPLEMENTED_CPT = "THIS CPT HAS NOT BEEN IMPLEMENTED YET";

/** The messages of the pre-check (clinical §5; where the spec names no text, the field's label). */
export const PRECHECK_MESSAGES = {
  cpt: "CPT Code",
  diagnosis: "Diagnosis Code",
  pos: "POS",
  sessionTime: "Session Time",
  assessmentType: "Assessment Type",
  procedure: "Procedure",
  assessmentTools: "Assessment Tools",
  intakeOutcome: "Intake and Outcome Measurements",
  participants: "Participants",
  environmentalChanges: "Environmental Changes",
  maladaptiveValues: "You must enter at least one value in the Maladaptives section",
  replacementValues: "You must enter at least one value in the Replacements section",
  protocolModification: "At least one protocol modification must be made",
  otherProtocolDetails: "Other Protocol Details",
  whyModified: "Why was the protocol modified or not modified",
  describeModification: "Describe in Detail the protocol modification",
  progressCompared: "Progress noted this session compared to previous session",
  caregiverGoals: "Caregiver Goals",
  demonstratedReplacementProtocols: "Demonstrated Replacement Protocols",
  demonstratedInterventionProtocols: "Demonstrated Intervention Protocols",
  discussedBehaviors: "Discussed Behaviors",
  notImplemented: NOT_IMPLEMENTED_CPT,
  maladaptiveData: "Complete Maladaptive Behavior Data",
  replacementData: "Complete Replacement Behavior Data",
  interventions: "Interventions",
  mood: "Mood",
  evidencedBy: "Evidenced By",
  progressNoted: "Progress Noted",
  rbtModeled: "RBT Modeled and Demonstrated to Caregiver",
} as const;

type PrecheckKey = keyof typeof PRECHECK_MESSAGES;

/** The messages that read as a sentence or an instruction; the others are a label, said as "<label> is required." in `errors`. */
const PRECHECK_SENTENCES: readonly PrecheckKey[] = ["maladaptiveValues", "replacementValues", "protocolModification", "describeModification", "notImplemented", "maladaptiveData", "replacementData"];

/**
 * The body field each pre-check item is about, as a save's errors key it (`content.<field>` for the content, the
 * session time at `time_in`): the API answers `errors` beside the spec's `missing` (decision 026, stop 28).
 */
const PRECHECK_FIELDS: Record<PrecheckKey, string> = {
  cpt: "cpt_code",
  diagnosis: "diagnosis_code",
  pos: "pos",
  sessionTime: "time_in",
  assessmentType: "subtype",
  procedure: "content.procedure",
  assessmentTools: "content.assessment_tools",
  intakeOutcome: "content.intake_outcome",
  participants: "content.participants",
  environmentalChanges: "content.environmental_changes",
  maladaptiveValues: "content.maladaptives",
  replacementValues: "content.replacement_percentages",
  protocolModification: "content.protocol_modifications",
  otherProtocolDetails: "content.other_protocol_details",
  whyModified: "content.why_was_the_protocol_modified_or_not_modified",
  describeModification: "content.describe_in_detail_the_protocol_modifications",
  progressCompared: "content.progress_noted_this_session_compared_to_previous_session",
  caregiverGoals: "content.caregiver_goals",
  demonstratedReplacementProtocols: "content.demonstrated_replacement_protocols",
  demonstratedInterventionProtocols: "content.demonstrated_intervention_protocols",
  discussedBehaviors: "content.discussed_behaviors",
  notImplemented: "cpt_code",
  maladaptiveData: "content.maladaptives",
  replacementData: "content.replacements",
  interventions: "content.interventions",
  mood: "content.client_appeared",
  evidencedBy: "content.as_evidenced_by",
  progressNoted: "content.client_response_to_treatment_this_session",
  rbtModeled: "content.rbt_modeled_and_demonstrated_to_caregiver",
};

/* ------------------------------------------------------------------ place of service */

/** Place-of-service codes as words (the `posCodes` of a location; labels of `POS_CODES`, lower case). */
export const POS_WORDS: Readonly<Record<string, string>> = {
  "02": "telehealth",
  "03": "school",
  "10": "telehealth in patient home",
  "11": "office",
  "12": "home",
  "99": "other",
};

/**
 * The POS codes at which a 97156 session needs caregiver goals (clinical §5 "the list allowed for
 * caregivers"): home, the office, and telehealth (at home or elsewhere), where a caregiver takes part. Not
 * school (03: teachers, with their own goals) nor other (99). Decision 026.
 */
export const CAREGIVER_POS_CODES: readonly string[] = ["02", "10", "11", "12"];

/** A POS as its code: a code as given, a word ("Home", "home") as its code; anything else as typed, trimmed. */
export function posCode(pos: unknown): string {
  const s = typeof pos === "string" ? pos.trim() : typeof pos === "number" ? String(pos).padStart(2, "0") : "";
  if (s in POS_WORDS) return s;
  const lower = s.toLowerCase();
  return Object.keys(POS_WORDS).find((code) => POS_WORDS[code] === lower) ?? s;
}

/** A POS as a word (clinical §7 "normalized pos"): "12" → "home"; a word stays a (lower-case) word; "" when absent. */
export function normalizePos(pos: unknown): string {
  const code = posCode(pos);
  return POS_WORDS[code] ?? "";
}

/** Where a session took place, for "Met with client at …". */
const PLACE_PHRASES: Readonly<Record<string, string>> = {
  "02": "a telehealth session",
  "03": "school",
  "10": "home via telehealth",
  "11": "the clinic office",
  "12": "home",
  "99": "a community setting",
};

/* ------------------------------------------------------------------ reading a body */

type Body = Record<string, unknown>;
type Entry = Record<string, unknown>;

const CONTENT_KEYS = [
  "participants", "environmental_changes", "summary_note", "procedure", "assessment_tools", "intake_outcome", "maladaptives",
  "replacement_percentages", "protocol_modifications", "other_protocol", "other_protocol_details",
  "why_was_the_protocol_modified_or_not_modified", "describe_in_detail_the_protocol_modifications",
  "progress_noted_this_session_compared_to_previous_session", "caregiver_goals", "demonstrated_replacement_protocols",
  "demonstrated_intervention_protocols", "discussed_behaviors", "replacements", "interventions", "client_appeared",
  "as_evidenced_by", "rbt_modeled_and_demonstrated_to_caregiver", "client_response_to_treatment_this_session",
  "next_session_is_scheduled_for",
] as const;

/** The content of a body: `content` first, content fields sent at the top level (legacy client) second. */
function contentOf(body: Body): Record<string, unknown> {
  const nested = body.content && typeof body.content === "object" && !Array.isArray(body.content) ? (body.content as Record<string, unknown>) : {};
  const out: Record<string, unknown> = {};
  for (const key of CONTENT_KEYS) out[key] = nested[key] !== undefined ? nested[key] : body[key];
  return out;
}

function text(v: unknown): string {
  return typeof v === "string" ? v.trim() : typeof v === "number" && Number.isFinite(v) ? String(v) : "";
}

function num(v: unknown): number | null {
  if (typeof v === "number") return Number.isFinite(v) ? v : null;
  if (typeof v === "string" && /^\s*-?\d+(\.\d+)?\s*$/.test(v)) return Number(v);
  return null;
}

function entries(v: unknown): Entry[] {
  return Array.isArray(v) ? v.filter((e): e is Entry => !!e && typeof e === "object" && !Array.isArray(e)) : [];
}

/** A list of text: an array of strings (blank ones dropped), or a non-blank string as one item. */
function textList(v: unknown): string[] {
  if (Array.isArray(v)) return v.map((x) => (typeof x === "string" ? x.trim() : x && typeof x === "object" ? text((x as Entry).name) : "")).filter(Boolean);
  const s = text(v);
  return s ? [s] : [];
}

const truthy = (v: unknown) => v === true || v === 1 || (typeof v === "string" && ["on", "true", "1", "yes"].includes(v.trim().toLowerCase()));
const entryName = (e: Entry) => text(e.name ?? e.behavior ?? e.maladaptive_behavior ?? e.goal);
const trials = (e: Entry) => num(e.total_trials ?? e.totalTrials);
const correct = (e: Entry) => num(e.correct_responses ?? e.correctResponses);

/** A time pair is complete when both ends are valid "HH:MM" times (the end may be 24:00). */
function pairComplete(a: unknown, b: unknown): boolean {
  return typeof a === "string" && typeof b === "string" && minuteOfDay(a.trim()) !== null && minuteOfDay(b.trim(), true) !== null;
}

/** Which rules a body answers to: "rbt" rules, "bcba" rules, or none for a CPT without rules. */
type RuleSet = "rbt" | "bcba" | "none";

/** The note type of a body: its `type` when it is one, else by CPT (97153 is an RBT session). */
export function summaryNoteType(body: Body): NoteType {
  const t = body.type;
  if (typeof t === "string" && (NOTE_TYPES as readonly string[]).includes(t)) return t as NoteType;
  return text(body.cpt_code) === "97153" ? "rbt" : "bcba";
}

function ruleSet(type: NoteType, cpt: string): RuleSet {
  if (type === "rbt") return "rbt";
  if (type === "combined") return cpt === "97153" ? "rbt" : cpt === "97155" || cpt === "97156" ? "bcba" : "none";
  return cpt === "97151" || cpt === "97155" || cpt === "97156" ? "bcba" : "none";
}

/* ------------------------------------------------------------------ the pre-check */

/**
 * The fields a note still needs before a summary can be written (clinical §5, in the spec's order); empty when
 * none. Without a CPT code only that is reported.
 */
export function summaryPrecheck(body: Body): string[] {
  return precheckKeys(body).map((k) => PRECHECK_MESSAGES[k]);
}

/**
 * The same pre-check keyed by the body's fields (`{ cpt_code: "CPT Code is required." }`), for the API's `errors`;
 * empty when nothing is missing.
 */
export function summaryPrecheckErrors(body: Body): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const k of precheckKeys(body)) {
    const field = PRECHECK_FIELDS[k];
    if (!(field in errors)) errors[field] = PRECHECK_SENTENCES.includes(k) ? `${PRECHECK_MESSAGES[k]}.` : `${PRECHECK_MESSAGES[k]} is required.`;
  }
  return errors;
}

function precheckKeys(body: Body): PrecheckKey[] {
  const cpt = text(body.cpt_code);
  if (!cpt) return ["cpt"];
  const missing: PrecheckKey[] = [];
  if (!text(body.diagnosis_code)) missing.push("diagnosis");
  const pos = posCode(body.pos);
  if (!pos) missing.push("pos");
  if (!pairComplete(body.time_in, body.time_out) && !pairComplete(body.time_in2, body.time_out2)) missing.push("sessionTime");

  const c = contentOf(body);
  const type = summaryNoteType(body);
  const rules = ruleSet(type, cpt);
  const need = (ok: boolean, key: PrecheckKey) => {
    if (!ok) missing.push(key);
  };

  if (rules === "none") {
    missing.push("notImplemented");
  } else if (rules === "bcba") {
    if (cpt === "97151") {
      const subtype = text(body.subtype);
      need(subtype === "observation" || subtype === "report", "assessmentType");
      if (subtype === "observation") {
        need(!!text(c.procedure), "procedure");
        need(!!text(c.assessment_tools), "assessmentTools");
        need(!!text(c.intake_outcome), "intakeOutcome");
      }
    } else if (cpt === "97155") {
      need(!!text(c.participants), "participants");
      need(!!text(c.environmental_changes), "environmentalChanges");
      need(entries(c.maladaptives).some((e) => num(e.frequency) !== null), "maladaptiveValues");
      need(entries(c.replacement_percentages).some((e) => num(e.percent) !== null), "replacementValues");
      need(entries(c.protocol_modifications).some((e) => truthy(e.assessed) || truthy(e.modified) || truthy(e.demonstrated)), "protocolModification");
      const other = text(c.other_protocol);
      if (other && !["false", "0", "no", "off"].includes(other.toLowerCase())) need(!!text(c.other_protocol_details), "otherProtocolDetails");
      need(!!text(c.why_was_the_protocol_modified_or_not_modified), "whyModified");
      need(!!text(c.describe_in_detail_the_protocol_modifications), "describeModification");
      need(!!text(c.progress_noted_this_session_compared_to_previous_session), "progressCompared");
    } else {
      // 97156
      if (CAREGIVER_POS_CODES.includes(pos)) need(entries(c.caregiver_goals).some((e) => !!entryName(e) && num(e.percent) !== null), "caregiverGoals");
      need(textList(c.demonstrated_replacement_protocols).length > 0, "demonstratedReplacementProtocols");
      need(textList(c.demonstrated_intervention_protocols).length > 0, "demonstratedInterventionProtocols");
      need(textList(c.discussed_behaviors).length > 0, "discussedBehaviors");
      need(!!text(c.participants), "participants");
      need(!!text(c.environmental_changes), "environmentalChanges");
      need(!!text(c.progress_noted_this_session_compared_to_previous_session), "progressCompared");
    }
  } else {
    const mal = entries(c.maladaptives);
    need(mal.length > 0 && mal.every((e) => !!entryName(e) && num(e.frequency) !== null), "maladaptiveData");
    const rep = entries(c.replacements);
    need(rep.length > 0 && rep.every((e) => !!entryName(e) && trials(e) !== null && correct(e) !== null), "replacementData");
    need(textList(c.interventions).length > 0, "interventions");
    need(!!text(c.client_appeared), "mood");
    need(!!text(c.as_evidenced_by), "evidencedBy");
    need(!!text(c.client_response_to_treatment_this_session), "progressNoted");
    need(!!text(c.rbt_modeled_and_demonstrated_to_caregiver), "rbtModeled");
  }
  return missing;
}

/* ------------------------------------------------------------------ de-identified facts */

const MONTHS = "jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?";
const WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday";
// Scrubbing stays linear in the text's length: a pattern that could start anywhere inside a long run (of word
// characters, spaces, dots) is tried only at the run's start (a lookbehind), and parts of a pattern never compete
// for the same characters; otherwise one long run backtracks quadratically (50,000 characters took seconds).
/** The "@domain" of an email; its local part is found by walking back from the "@" (cutEmails). */
const EMAIL_AT = /(?<=[\w.+-])@[\w-]+(?:\.[\w-]+)+/g;
const EMAIL_LOCAL = /[\w.+-]/;

/**
 * Every `local@domain.tld` (local `[\w.+-]+`) replaced by `by`, left to right: a local part runs back from its "@"
 * to the first other character or the end of the email before it. Each character is read a bounded number of
 * times (a regex for the whole email backtracks through every long run that has no "@").
 */
function cutEmails(s: string, by: string): string {
  let out = "";
  let last = 0;
  for (const m of s.matchAll(EMAIL_AT)) {
    let start = m.index;
    while (start > last && EMAIL_LOCAL.test(s[start - 1]!)) start--;
    if (start === m.index) continue; // its local part was the end of the email before
    out += s.slice(last, start) + by;
    last = m.index + m[0].length;
  }
  return out + s.slice(last);
}
const LINK = /\b(?:https?:\/\/|www\.)\S+/gi;
const SCRUB: RegExp[] = [
  /[#№]\s*\w+/g, // #12345
  /\b\d{1,2}\s*:\s*\d{2}(?:\s*:\s*\d{2})?(?:\s*[ap]\.?\s?m\b\.?)?/gi, // 10:30, 10:30 am
  /\b\d{1,2}\s*[ap]\.?\s?m\b\.?/gi, // 3pm, 10 a.m.
  new RegExp(`\\b(?:${MONTHS})\\.?\\s+\\d{1,2}(?:st|nd|rd|th)?(?:\\s*,?\\s*\\d{4})?\\b`, "gi"), // March 14th, 2026
  new RegExp(`\\b\\d{1,2}(?:st|nd|rd|th)?\\s+(?:of\\s+)?(?:${MONTHS})\\b\\.?(?:\\s*,?\\s*\\d{4})?`, "gi"), // 14 March 2026
  new RegExp(`\\b(?:${WEEKDAYS})\\b\\.?`, "gi"), // weekdays point at a date
  /\b(?:today|tomorrow|yesterday|tonight)\b/gi,
  /\b\d{1,4}\s*[/-]\s*\d{1,4}(?:\s*[/-]\s*\d{1,4})*\b/g, // 3/14, 2026-03-14, 03/14/2026, 555-1234
  /\b\d{1,2}\.\d{1,2}\.\d{2,4}\b/g, // 14.03.2026
  /\b\d{3,}[\w.-]*/g, // long numbers: ids, phone numbers, years, CPT codes
  /\b[A-Z]{1,4}\d+(?:\.\d+)?(?:[A-Z][A-Z\d]*)?\b/gi, // codes with letters: F84.0, ID12
];

const WORD = /[\p{L}\p{N}]+/gu;
const letterBefore = (s: string, i: number) => /[\p{L}\p{N}]$/u.test(s.slice(Math.max(0, i - 2), i));
const letterAt = (s: string, i: number) => /^[\p{L}\p{N}]/u.test(s.slice(i, i + 2));

/**
 * Text as names are compared: case folded (upper then lower case, so "ß" is "ss"), accents dropped ("NUÑEZ" is
 * "Núñez", as capitals are often typed), every apostrophe (' ’ ʼ ‘ `) one and every dash a hyphen; `at[i]` is where
 * the folded character `i` starts in `s` (`at[text.length]` is `s.length`), so a match is cut from `s` itself.
 */
const FOLDED = new Map<string, string>(); // non-ASCII characters as folded, a few thousand at most in practice
function foldChar(ch: string): string {
  if (ch.charCodeAt(0) < 128) return ch === "`" ? "'" : ch.toLowerCase();
  let piece = FOLDED.get(ch);
  if (piece === undefined) {
    piece = /[’ʼ‘]/u.test(ch) ? "'" : /\p{Pd}/u.test(ch) ? "-" : ch.toUpperCase().toLowerCase().normalize("NFD").replace(/\p{M}/gu, "");
    if (FOLDED.size < 10_000) FOLDED.set(ch, piece);
  }
  return piece;
}
function folded(s: string): { text: string; at: number[] } {
  let text = "";
  const at: number[] = [];
  for (let i = 0; i < s.length; ) {
    const ch = String.fromCodePoint(s.codePointAt(i)!);
    const piece = foldChar(ch);
    for (let k = 0; k < piece.length; k++) at.push(i);
    text += piece;
    i += ch.length;
  }
  at.push(s.length);
  return { text, at };
}

/** Names by their first word (folded), each bucket longest first; built once per list of names. */
type NameIndex = Map<string, { folded: string; offset: number }[]>;
const nameIndexes = new WeakMap<readonly string[], NameIndex>();
function nameIndex(names: readonly string[]): NameIndex {
  let index = nameIndexes.get(names);
  if (index) return index;
  index = new Map();
  for (const name of names) {
    const { text } = folded(name);
    const first = /[\p{L}\p{N}]+/u.exec(text);
    if (!first) continue; // no letter or digit: identifies no one
    const bucket = index.get(first[0]) ?? [];
    bucket.push({ folded: text, offset: first.index });
    index.set(first[0], bucket);
  }
  for (const bucket of index.values()) bucket.sort((a, b) => b.folded.length - a.folded.length);
  nameIndexes.set(names, index);
  return index;
}

/**
 * Every whole-word occurrence of one of `names` (compared `folded`; followed by 's, the possessive) replaced, in one
 * pass over the text's words: a word is compared only with the names that start with it, so the time does not grow
 * with the number of names (a participants field can name hundreds; a regex per name made that seconds). Where names
 * overlap, the longest one at the first word wins. A word boundary is a letter or digit of any script.
 */
function replaceNames(s: string, names: readonly string[], by: string, possessive = by): string {
  if (!names.length) return s;
  const index = nameIndex(names);
  const { text: f, at } = folded(s);
  let out = "";
  let last = 0; // in `f`
  for (const m of f.matchAll(WORD)) {
    for (const name of index.get(m[0]) ?? []) {
      const start = m.index - name.offset;
      const end = start + name.folded.length;
      if (start < last || end > f.length || letterBefore(f, start) || f.slice(start, end) !== name.folded) continue;
      const apostrophe = f.slice(end, end + 2) === "'s" && !letterAt(f, end + 2);
      if (!apostrophe && letterAt(f, end)) continue;
      out += s.slice(at[last], at[start]) + (apostrophe ? possessive : by);
      last = apostrophe ? end + 2 : end;
      break;
    }
  }
  return out + s.slice(at[last]);
}

/** Free text made safe to quote: no dates, times, long numbers, codes, emails, links, nor the given names. */
export function scrubFreeText(raw: string, redact: Redactions = { client: [], other: [] }, max = 400): string {
  const CUT = "\u2063"; // where something was taken out
  // Invisible characters that sit inside words (a soft hyphen, a word joiner, a byte-order mark) go, so they cannot
  // hide a name from the scrub; the other controls and direction marks become spaces.
  let s = raw.replace(/[\u00ad\u034f\u2060\ufeff]/g, "").replace(/[\u0000-\u001f\u007f\u200b-\u200f\u202a-\u202e\u2061-\u2069]/g, " ");
  s = cutEmails(s, ` ${CUT} `).replace(LINK, ` ${CUT} `);
  // The client's details the server knows (address, city, insurer, …) go first: a street may carry a name.
  s = replaceNames(s, redact.identifiers ?? [], ` ${CUT} `);
  s = replaceNames(s, redact.client, "the client", "the client's");
  s = s.replace(/\bthe client(?:\s+the client)+/gi, "the client");
  s = replaceNames(s, redact.other, ` ${CUT} `);
  for (const re of SCRUB) s = s.replace(re, ` ${CUT} `);
  // A word that only led to what was cut goes with it ("on", "at", "ID", "call").
  const lead = new RegExp(`\\b(?:on|at|by|with|from|to|until|since|before|after|around|in|of|for|and|call|called|id|phone|tel|dob|no|number|email|date|time|named|cpt|icd|dx|code|member|auth|authorization|policy|insurance|see|or)\\s*(?:[,:]\\s*)?(?=${CUT})`, "gi");
  for (let i = 0; i < 3; i++) s = s.replace(lead, " ").replace(new RegExp(`${CUT}(?:[\\s,:()/-]*${CUT})+`, "g"), CUT);
  s = s.replace(new RegExp(CUT, "g"), " ");
  s = s
    .replace(/(?<![.!?;])[.!?;]+(?=\s|$)/g, ",") // one clause: the narrative decides where sentences end
    .replace(/(?<!\s)\s+([,:])/g, "$1")
    .replace(/([,:])(?:\s*[,:])+/g, "$1")
    .replace(/\(\s*\)|\[\s*\]|(?<=\s|^)[/\-–]+(?=\s|$)/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^[,:;\-–\s]+|(?<![,:;\-–\s])[,:;\-–\s]+$/g, "");
  if (s.length > max) s = s.slice(0, s.lastIndexOf(" ", max) > max / 2 ? s.lastIndexOf(" ", max) : max).replace(/[,:;\-–\s]+$/g, "");
  return s;
}

/** What free text must not repeat: the client's names (→ "the client") and other identifying strings (names of
 * parents, caregivers and providers; identifiers, insurance, contact details). Names also count word by word. */
export interface Redactions {
  client: string[];
  other: string[];
  /**
   * Details the server knows (decision 026, stop 41), each cut only whole, in any letter case: contact details,
   * birth date, member ids, insurer names (`identifiers`), and street addresses (`addresses`, also without the house
   * number and with the street type written out or abbreviated: "114 Palm Ave" → "Palm Avenue").
   */
  identifiers?: string[];
  addresses?: string[];
}

/** Street types as written out and abbreviated (USPS): each form of an address's last word stands for the others. */
const STREET_TYPES: readonly (readonly string[])[] = [
  ["avenue", "ave", "av"], ["street", "st"], ["road", "rd"], ["drive", "dr"], ["boulevard", "blvd"], ["lane", "ln"],
  ["court", "ct"], ["place", "pl"], ["terrace", "ter"], ["circle", "cir"], ["highway", "hwy"], ["parkway", "pkwy"],
  ["trail", "trl"], ["square", "sq"], ["cove", "cv"], ["point", "pt"], ["way", "wy"], ["plaza", "plz"], ["expressway", "expy"],
];
const STREET_TYPE_OF = new Map(STREET_TYPES.flatMap((forms) => forms.map((f) => [f, forms] as const)));
/** A unit designator starts the part of an address that is not the street ("Apt 3", "Suite 200"). */
const UNIT = /\s+(?=(?:apt|apartment|unit|suite|ste|#)(?:\b|\s|\d))/i;

/**
 * The forms of a stored address that free text may repeat: the whole line, each comma-separated part, the street
 * without its unit and without its house number ("Palm Ave"), each with its street type in every written form
 * ("Palm Avenue"). A form without a word of three letters or more that is not a street type is left out ("5 St" →
 * not "St"), so a short address does not cut common words.
 */
export function addressForms(raw: string): string[] {
  const out = new Set<string>();
  const meaningful = (s: string) => (s.match(/\p{L}+/gu) ?? []).some((w) => w.length >= 3 && !STREET_TYPE_OF.has(w.toLowerCase()));
  const add = (s: string) => {
    const t = s.replace(/\s+/g, " ").trim().replace(/[.,]+$/, "");
    if (t.length >= 2 && meaningful(t)) out.add(t);
  };
  const whole = raw.replace(/\s+/g, " ").trim();
  add(whole);
  for (const part of whole.split(/\s*[,;]\s*/)) {
    const street = part.split(UNIT)[0] ?? part;
    const numberless = street.replace(/^\d+[a-z]?(?:[-/]\d+[a-z]?)?\s+/i, "");
    for (const s of [part, street, numberless]) {
      add(s);
      const words = s.split(" ");
      const last = words[words.length - 1]!.replace(/\.$/, "");
      const cased = (form: string) => (/^\p{Lu}/u.test(last) ? form[0]!.toUpperCase() + form.slice(1) : form);
      for (const form of STREET_TYPE_OF.get(last.toLowerCase()) ?? []) if (form !== last.toLowerCase()) add([...words.slice(0, -1), cased(form)].join(" "));
    }
  }
  return [...out];
}

const ROLE_OR_COMMON = /^(mother|mom|mum|father|dad|parent|parents|caregiver|caregivers|guardian|grandmother|grandfather|grandparent|sibling|brother|sister|teacher|aide|rbt|bcba|bcaba|client|the|and|with|present|none|n\/a|na)$/i;

function identifyingStrings(body: Body, participants: string, known: Redactions): Redactions {
  const client = new Set<string>();
  const other = new Set<string>();
  // A name whole, each word (split at spaces and dashes) also without its apostrophes ("OBrien"), and each part of
  // two letters or more (split at apostrophes too: "Smith-Jones" → "Jones", "O'Brien" → "Brien").
  const addName = (set: Set<string>, full: string) => {
    set.add(full);
    const add = (part: string) => {
      if (/^[\p{L}\p{M}'’ʼ‘`]+$/u.test(part) && part.replace(/[^\p{L}]/gu, "").length >= 2 && !ROLE_OR_COMMON.test(part)) set.add(part);
    };
    for (const word of full.split(/[\s,()\p{Pd}]+/u)) {
      add(word);
      add(word.replace(/['’ʼ‘`]/gu, ""));
      for (const part of word.split(/['’ʼ‘`]+/u)) add(part);
    }
  };
  // The names the server looked up (the client named by `patient_id` and their parents), whatever the body carries.
  for (const name of known.client) if (name.trim().length >= 2) addName(client, name.trim());
  for (const name of known.other) if (name.trim().length >= 2) addName(other, name.trim());
  const identifiers = new Set<string>();
  for (const value of known.identifiers ?? []) if (value.trim().length >= 2) identifiers.add(value.replace(/\s+/g, " ").trim());
  for (const address of known.addresses ?? []) for (const form of addressForms(address)) identifiers.add(form);
  const visit = (obj: Record<string, unknown>, ofClient: boolean) => {
    for (const [key, value] of Object.entries(obj)) {
      if (typeof value !== "string" || /^(type|subtype|cpt_code|pos|diagnosis_code)$/.test(key)) continue;
      const full = value.trim();
      if (full.length < 2) continue;
      if (/name|parent|guardian/i.test(key)) addName(ofClient || /patient|client|^first_name$|^last_name$|^full_name$|^name$|^surname$/i.test(key) ? client : other, full);
      else if (/identifier|insurance|email|phone|birth|address|city|zip|ssn|medicaid|member|policy/i.test(key)) other.add(full);
    }
  };
  visit(body, false);
  for (const key of ["patient", "client"]) if (body[key] && typeof body[key] === "object") visit(body[key] as Record<string, unknown>, true);
  for (const key of ["provider", "supervisor", "parent"]) if (body[key] && typeof body[key] === "object") visit(body[key] as Record<string, unknown>, false);
  // A participants field names people beside their roles ("Mother (Maria)"): its capitalised words are names.
  for (const word of participants.match(/\p{Lu}[\p{L}'-]+/gu) ?? []) if (!ROLE_OR_COMMON.test(word)) other.add(word);
  const longestFirst = (set: Set<string>) => [...set].sort((a, b) => b.length - a.length);
  return { client: longestFirst(client), other: longestFirst(other), identifiers: longestFirst(identifiers) };
}

/** Who took part, as roles only (a participants field often names people). */
const ROLE_WORDS: [RegExp, string][] = [
  [/\b(mother|mom|mum)\b/i, "the mother"],
  [/\b(father|dad)\b/i, "the father"],
  [/\b(grand(mother|father|parent|ma|pa)s?)\b/i, "a grandparent"],
  [/\b(caregivers?|parents?|guardians?)\b/i, "the caregiver"],
  [/\b(siblings?|brother|sister)\b/i, "a sibling"],
  [/\b(teachers?|aides?|paraprofessionals?)\b/i, "school staff"],
  [/\bRBTs?\b|\bbehavior technicians?\b|\btechnicians?\b/i, "the RBT"],
  [/\bBCBAs?\b|\banalysts?\b|\bsupervisors?\b/i, "the BCBA"],
];
function participantRoles(raw: string): string[] {
  const roles = ROLE_WORDS.filter(([re]) => re.test(raw)).map(([, role]) => role);
  return roles.includes("the mother") || roles.includes("the father") ? roles.filter((r) => r !== "the caregiver") : roles;
}

/** What a summary may be written from: nothing that identifies the client, the session's date and time, or its code. */
export interface NoteFacts {
  /** "rbt" for a 97153 session (RBT rules), else "bcba". */
  kind: "rbt" | "bcba";
  /** The service in words (never its CPT code). */
  service: string;
  /** 97151 only. */
  assessment: "observation" | "report" | null;
  /** The POS as a word (clinical §7), and the phrase for "Met with client at …". */
  place: string;
  placePhrase: string;
  participants: string[];
  environmentalChanges: string;
  maladaptives: { name: string; frequency: number | null }[];
  replacements: { name: string; trials: number | null; correct: number | null }[];
  percentGoals: { name: string; percent: number | null }[];
  caregiverGoals: { name: string; percent: number | null }[];
  protocols: { name: string; assessed: boolean; modified: boolean; demonstrated: boolean }[];
  interventions: string[];
  demonstratedReplacementProtocols: string[];
  demonstratedInterventionProtocols: string[];
  discussedBehaviors: string[];
  text: {
    procedure: string;
    assessmentTools: string;
    intakeOutcome: string;
    whyModified: string;
    modificationDetails: string;
    progressCompared: string;
    mood: string;
    evidencedBy: string;
    response: string;
    caregiverModeling: string;
  };
  nextSessionScheduled: boolean;
}

const SERVICES: Readonly<Record<string, string>> = {
  "97151": "behavior identification assessment",
  "97153": "adaptive behavior treatment by protocol",
  "97155": "adaptive behavior treatment with protocol modification",
  "97156": "family adaptive behavior treatment guidance",
};

/**
 * The facts of a note for a summary: the one place that decides what leaves the note (decision 026). `known`: names
 * the server knows beside the body's (the client's → "the client", others cut), which the note form never carries.
 */
export function noteFacts(body: Body, known: Redactions = { client: [], other: [] }): NoteFacts {
  const c = contentOf(body);
  const redact = identifyingStrings(body, text(c.participants), known);
  const scrub = (v: unknown, max?: number) => scrubFreeText(text(v), redact, max);
  const scrubList = (v: unknown) => textList(v).map((s) => scrub(s, 120)).filter(Boolean).slice(0, 12);
  const cpt = text(body.cpt_code);
  const kind = ruleSet(summaryNoteType(body), cpt) === "rbt" ? "rbt" : "bcba";
  const code = posCode(body.pos);
  const subtype = text(body.subtype);
  const count = (n: number | null) => (n === null || n < 0 ? null : Math.round(n * 100) / 100);
  return {
    kind,
    service: SERVICES[cpt] ?? (kind === "rbt" ? SERVICES["97153"]! : "behavior analytic services"),
    assessment: cpt === "97151" ? (subtype === "report" ? "report" : "observation") : null,
    place: POS_WORDS[code] ?? "",
    placePhrase: PLACE_PHRASES[code] ?? "the scheduled setting",
    participants: participantRoles(text(c.participants)),
    environmentalChanges: scrub(c.environmental_changes),
    maladaptives: entries(c.maladaptives)
      .map((e) => ({ name: scrub(entryName(e), 80), frequency: count(num(e.frequency)) }))
      .filter((e) => e.name)
      .slice(0, 12),
    replacements: entries(c.replacements)
      .map((e) => ({ name: scrub(entryName(e), 80), trials: count(trials(e)), correct: count(correct(e)) }))
      .filter((e) => e.name)
      .slice(0, 12),
    percentGoals: entries(c.replacement_percentages)
      .map((e) => ({ name: scrub(entryName(e), 80), percent: count(num(e.percent)) }))
      .filter((e) => e.name)
      .slice(0, 12),
    caregiverGoals: entries(c.caregiver_goals)
      .map((e) => ({ name: scrub(entryName(e), 80), percent: count(num(e.percent)) }))
      .filter((e) => e.name)
      .slice(0, 12),
    protocols: entries(c.protocol_modifications)
      .map((e) => ({ name: scrub(e.name, 80), assessed: truthy(e.assessed), modified: truthy(e.modified), demonstrated: truthy(e.demonstrated) }))
      .filter((e) => e.name)
      .slice(0, 12),
    interventions: scrubList(c.interventions),
    demonstratedReplacementProtocols: scrubList(c.demonstrated_replacement_protocols),
    demonstratedInterventionProtocols: scrubList(c.demonstrated_intervention_protocols),
    discussedBehaviors: scrubList(c.discussed_behaviors),
    text: {
      procedure: scrub(c.procedure),
      assessmentTools: scrub(c.assessment_tools),
      intakeOutcome: scrub(c.intake_outcome),
      whyModified: scrub(c.why_was_the_protocol_modified_or_not_modified),
      modificationDetails: scrub(c.describe_in_detail_the_protocol_modifications),
      progressCompared: scrub(c.progress_noted_this_session_compared_to_previous_session),
      mood: scrub(c.client_appeared, 120),
      evidencedBy: scrub(c.as_evidenced_by),
      response: scrub(c.client_response_to_treatment_this_session),
      caregiverModeling: scrub(c.rbt_modeled_and_demonstrated_to_caregiver),
    },
    nextSessionScheduled: !!text(c.next_session_is_scheduled_for),
  };
}

/* ------------------------------------------------------------------ the built-in narrative */

function joinList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} and ${items[items.length - 1]}`;
}
const lower = (s: string) => (/^[A-Z][a-z]/.test(s) ? s[0]!.toLowerCase() + s.slice(1) : s);
const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const isNone = (s: string) => /^(none|n\/?a|no|nothing|no changes?|not applicable)$/i.test(s);

/** One sentence: capitalised, ending in one full stop. */
function sentence(s: string): string {
  const t = s.replace(/\s+/g, " ").trim().replace(/[,:;\s]+$/, "");
  return t ? `${t[0]!.toUpperCase()}${t.slice(1)}.` : "";
}

function narrativeSentences(f: NoteFacts): { opening: string; middle: string[]; closing: string[] } {
  const middle: string[] = [];
  const add = (s: string | number | false | null | undefined) => {
    if (typeof s === "string" && s) middle.push(sentence(s));
  };
  const t = f.text;
  const present = f.participants.length ? ` with ${joinList(f.participants)} present` : "";
  const environment = f.environmentalChanges
    ? isNone(f.environmentalChanges)
      ? "no environmental changes were noted"
      : `environmental changes noted during the session included ${lower(f.environmentalChanges)}`
    : null;
  const maladaptives = f.maladaptives.length
    ? `maladaptive behaviors were monitored, with ${joinList(f.maladaptives.map((m) => (m.frequency === null ? lower(m.name) : `${lower(m.name)} observed ${plural(m.frequency, "time", "times")}`)))}`
    : null;
  let opening: string;

  if (f.kind === "rbt") {
    opening = sentence(`Met with client at ${f.placePhrase}${present} to provide ${f.service} as outlined in the behavior intervention plan`);
    add(t.mood && `the client appeared ${lower(t.mood)}${t.evidencedBy ? `, as evidenced by ${lower(t.evidencedBy)}` : ""}`);
    add(maladaptives);
    add(
      f.replacements.length &&
        `replacement behaviors were targeted through discrete trials, with ${joinList(
          f.replacements.map((r) =>
            r.trials !== null && r.correct !== null && r.trials > 0
              ? `${lower(r.name)} at ${r.correct} of ${plural(r.trials, "trial", "trials")} correct (${Math.round((r.correct / r.trials) * 100)}%)`
              : lower(r.name),
          ),
        )}`,
    );
    add(f.interventions.length && `interventions implemented included ${joinList(f.interventions.map(lower))}`);
    add(t.caregiverModeling && (isNone(t.caregiverModeling) ? "no strategies were modeled for the caregiver this session" : `the RBT modeled and demonstrated strategies to the caregiver, noting ${lower(t.caregiverModeling)}`));
    add(t.response && `in response to treatment this session, ${lower(t.response)}`);
    add(environment);
  } else if (f.assessment) {
    opening =
      f.assessment === "report"
        ? sentence(`The BCBA completed the ${f.service} report, analyzing the data gathered during assessment at ${f.placePhrase}`)
        : sentence(`The BCBA conducted a ${f.service} observation with the client at ${f.placePhrase}${present}`);
    add(t.procedure && `the assessment procedure consisted of ${lower(t.procedure)}`);
    add(t.assessmentTools && `assessment tools used included ${lower(t.assessmentTools)}`);
    add(t.intakeOutcome && `intake and outcome measurements showed ${lower(t.intakeOutcome)}`);
    add(maladaptives);
    add(environment);
  } else {
    const caregiverTraining = f.service === SERVICES["97156"];
    opening = sentence(`The BCBA met with client at ${f.placePhrase}${present} to provide ${f.service}`);
    add(maladaptives);
    add(f.percentGoals.length && `replacement goals were measured, with ${joinList(f.percentGoals.map((g) => (g.percent === null ? lower(g.name) : `${lower(g.name)} at ${g.percent}%`)))}`);
    const flags = (p: NoteFacts["protocols"][number]) => joinList([p.assessed && "assessed", p.modified && "modified", p.demonstrated && "demonstrated"].filter((x): x is string => !!x));
    const reviewed = f.protocols.filter((p) => p.assessed || p.modified || p.demonstrated);
    add(reviewed.length && `protocols were reviewed, with ${joinList(reviewed.map((p) => `${lower(p.name)} ${flags(p)}`))}`);
    add(t.whyModified && `regarding whether to modify the protocol, ${lower(t.whyModified)}`);
    add(t.modificationDetails && `the modifications were as follows: ${lower(t.modificationDetails)}`);
    if (caregiverTraining) {
      add(f.caregiverGoals.length && `caregiver goals were addressed, with ${joinList(f.caregiverGoals.map((g) => (g.percent === null ? lower(g.name) : `${lower(g.name)} achieved at ${g.percent}%`)))}`);
      add(f.demonstratedReplacementProtocols.length && `replacement protocols demonstrated to the caregiver included ${joinList(f.demonstratedReplacementProtocols.map(lower))}`);
      add(f.demonstratedInterventionProtocols.length && `intervention protocols demonstrated included ${joinList(f.demonstratedInterventionProtocols.map(lower))}`);
      add(f.discussedBehaviors.length && `behaviors discussed with the caregiver included ${joinList(f.discussedBehaviors.map(lower))}`);
    }
    add(t.progressCompared && `compared to the previous session, ${lower(t.progressCompared)}`);
    // Last: the first to give way when a full note reaches nine sentences.
    add(environment);
  }

  const closing = [
    sentence(
      f.kind === "rbt"
        ? "Data were collected throughout the session to monitor progress toward the treatment goals"
        : "Data from this session will inform ongoing clinical decisions and updates to the treatment plan",
    ),
    sentence(f.nextSessionScheduled ? "The next session has been scheduled to continue the current plan of care" : "Services will continue according to the current plan of care"),
  ];
  return { opening, middle, closing };
}

/** Generic sentences that keep a sparse note's narrative at five sentences. */
const FILLERS = [
  "The session was conducted in accordance with the client's behavior intervention plan.",
  "Clinical observations were documented throughout the session.",
  "The client's participation and engagement were monitored during each activity.",
];

/**
 * The built-in summariser (decision 026): a professional one-paragraph clinical narrative of 5–9 sentences,
 * written only from `noteFacts` (so no client name, identifiers, dates, times or CPT codes). An RBT session
 * starts "Met with client at …".
 */
export function builtInSummary(body: Body): string {
  return narrative(noteFacts(body));
}

export function narrative(f: NoteFacts): string {
  const { opening, middle, closing } = narrativeSentences(f);
  const room = 9 - 1 - closing.length;
  const body = middle.slice(0, room);
  for (const filler of FILLERS) if (1 + body.length + closing.length < 5) body.push(filler);
  return [opening, ...body, ...closing].join(" ");
}

/* ------------------------------------------------------------------ the prompt for remote providers */

export interface SummaryPrompt {
  system: string;
  user: string;
  /** The de-identified facts the prompt was written from (the built-in provider writes from them). */
  facts: NoteFacts;
}

const SYSTEM_PROMPT = [
  "You are a clinical documentation assistant for an applied behavior analysis (ABA) therapy practice.",
  "Write a professional one-paragraph clinical narrative of the session described by the facts, in 5 to 9 sentences, in the past tense and third person.",
  "Use only the facts given; do not invent data.",
  "Never include names, identifiers, dates, times, insurance details or billing codes, even if they appear in the facts.",
  "Refer to the person served as 'the client'.",
  "For a session delivered by an RBT (kind 'rbt'), the first words must be 'Met with client at' followed by the place.",
  "Answer with the paragraph only: no heading, no list, no quotation marks.",
].join(" ");

/** The facts as the lines of the prompt; empty facts are left out. */
function factLines(f: NoteFacts): string[] {
  const lines: string[] = [];
  const put = (label: string, value: string | false | null | undefined) => {
    if (value) lines.push(`- ${label}: ${value}`);
  };
  put("Kind", f.kind === "rbt" ? "rbt (session delivered by a registered behavior technician)" : "bcba (session delivered by a board certified behavior analyst)");
  put("Service", f.service);
  put("Assessment type", f.assessment);
  put("Place of service", f.place || null);
  put("Opening phrase for an rbt session", f.kind === "rbt" && `Met with client at ${f.placePhrase}`);
  put("Participants", f.participants.length > 0 && joinList(f.participants));
  put("Environmental changes", f.environmentalChanges);
  put("Maladaptive behaviors (frequency)", f.maladaptives.length > 0 && f.maladaptives.map((m) => `${m.name} (${m.frequency ?? "not recorded"})`).join("; "));
  put("Replacement behaviors (correct of trials)", f.replacements.length > 0 && f.replacements.map((r) => `${r.name} (${r.correct ?? "?"} of ${r.trials ?? "?"})`).join("; "));
  put("Replacement goals (percent)", f.percentGoals.length > 0 && f.percentGoals.map((g) => `${g.name} (${g.percent ?? "not recorded"}%)`).join("; "));
  put("Caregiver goals (percent achieved)", f.caregiverGoals.length > 0 && f.caregiverGoals.map((g) => `${g.name} (${g.percent ?? "not recorded"}%)`).join("; "));
  put(
    "Protocols",
    f.protocols.length > 0 &&
      f.protocols.map((p) => `${p.name} (${[p.assessed && "assessed", p.modified && "modified", p.demonstrated && "demonstrated"].filter(Boolean).join(", ") || "reviewed"})`).join("; "),
  );
  put("Interventions", f.interventions.join("; "));
  put("Demonstrated replacement protocols", f.demonstratedReplacementProtocols.join("; "));
  put("Demonstrated intervention protocols", f.demonstratedInterventionProtocols.join("; "));
  put("Behaviors discussed", f.discussedBehaviors.join("; "));
  put("Assessment procedure", f.text.procedure);
  put("Assessment tools", f.text.assessmentTools);
  put("Intake and outcome measurements", f.text.intakeOutcome);
  put("Why the protocol was or was not modified", f.text.whyModified);
  put("Protocol modifications in detail", f.text.modificationDetails);
  put("Progress compared to the previous session", f.text.progressCompared);
  put("Client appeared (mood)", f.text.mood);
  put("As evidenced by", f.text.evidencedBy);
  put("Client response to treatment this session", f.text.response);
  put("Modeled and demonstrated to caregiver", f.text.caregiverModeling);
  put("Next session", f.nextSessionScheduled && "scheduled");
  return lines;
}

/** The prompt for a remote provider: the same rules as the built-in narrative, from the same de-identified facts. */
export function summaryPrompt(body: Body, known?: Redactions): SummaryPrompt {
  const facts = noteFacts(body, known);
  return { system: SYSTEM_PROMPT, user: `Session facts:\n${factLines(facts).join("\n")}`, facts };
}
