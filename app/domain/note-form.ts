/**
 * A note form's fields → the note body the API takes (one schema for both, STYLE "forms validated by one
 * schema"). Pure, so the browser (draft restore, AI pre-check mirror) and the server read a form alike.
 *
 * Field names of the note forms:
 * - top-level fields by their spec name: `cpt_code`, `session_date`, `time_in`, `pa_service_id`, …
 * - content fields as `content.<key>`: `content.participants`
 * - lists of text as repeated `content.<key>[]`: `content.interventions[]` (blank entries dropped)
 * - lists of entries as `content.<key>[<i>].<field>`: `content.maladaptives[0].frequency` (entries whose fields are
 *   all blank are dropped; indexes need not be contiguous, order is kept)
 *
 * Numbers and booleans the contract types as such are converted when they read as one; anything else is
 * passed on as typed, so the body schema refuses it with its message and the form shows what was typed.
 */
import type { NoteContent } from "./notes";

const ID_FIELDS = new Set(["patient_id", "provider_id", "supervisor_id", "bip_id", "pa_service_id"]);
const NUMBER_FIELDS = new Set([...ID_FIELDS, "unit_price_cents", "version"]);
const BOOLEAN_FIELDS = new Set(["is_telehealth"]);
/** Nullable top-level fields: blank means "none". */
const NULLABLE_FIELDS = new Set([
  "supervisor_id",
  "bip_id",
  "subtype",
  "time_in",
  "time_out",
  "time_in2",
  "time_out2",
  "md",
  "md2",
  "md3",
  "provider_signature",
  "provider_signed_on",
  "supervisor_signature",
  "supervisor_signed_on",
  "unit_price_cents",
]);
const ENTRY_NUMBER_FIELDS = new Set(["plan_id", "frequency", "total_trials", "correct_responses", "percent"]);
const ENTRY_BOOLEAN_FIELDS = new Set(["assessed", "modified", "demonstrated"]);

/** Fields of the form that are not part of the note (the form's own machinery). */
export const NOTE_FORM_CONTROL_FIELDS = new Set(["intent", "form_token", "amendment_reason", "redirectTo", "draft_id"]);

const NUMERIC = /^-?\d+(\.\d+)?$/;

function number(raw: string): number | string | null {
  const s = raw.trim();
  if (s === "") return null;
  return NUMERIC.test(s) ? Number(s) : raw;
}

function truthy(raw: string): boolean {
  return raw === "on" || raw === "true" || raw === "1" || raw === "yes";
}

const LIST_OF_TEXT = /^content\.([a-z0-9_]+)\[\]$/;
const LIST_OF_ENTRIES = /^content\.([a-z0-9_]+)\[(\d{1,3})\]\.([a-z0-9_]+)$/;
const CONTENT_FIELD = /^content\.([a-z0-9_]+)$/;

type Entry = Record<string, unknown>;

/**
 * The body of a note form. Unknown top-level names are kept as typed (the schema decides); the form's control
 * fields (`intent`, `form_token`, …) are left out.
 */
export function noteFormToBody(fields: Iterable<readonly [string, FormDataEntryValue | string]>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  const content: Record<string, unknown> = {};
  const entries = new Map<string, Map<number, Entry>>();
  const checkboxesSeen = new Set<string>();

  for (const [name, value] of fields) {
    if (typeof value !== "string") continue;
    if (NOTE_FORM_CONTROL_FIELDS.has(name)) continue;
    let m: RegExpExecArray | null;
    if ((m = LIST_OF_TEXT.exec(name))) {
      const list = (content[m[1]!] as string[] | undefined) ?? [];
      if (value.trim() !== "") list.push(value);
      content[m[1]!] = list;
    } else if ((m = LIST_OF_ENTRIES.exec(name))) {
      const key = m[1]!;
      const index = Number(m[2]);
      const field = m[3]!;
      const byIndex = entries.get(key) ?? new Map<number, Entry>();
      entries.set(key, byIndex);
      const entry = byIndex.get(index) ?? {};
      byIndex.set(index, entry);
      if (ENTRY_BOOLEAN_FIELDS.has(field)) entry[field] = truthy(value) || entry[field] === true;
      else if (ENTRY_NUMBER_FIELDS.has(field)) entry[field] = number(value);
      else entry[field] = value;
    } else if ((m = CONTENT_FIELD.exec(name))) {
      content[m[1]!] = value;
    } else if (BOOLEAN_FIELDS.has(name)) {
      checkboxesSeen.add(name);
      body[name] = truthy(value) || body[name] === true;
    } else if (NUMBER_FIELDS.has(name)) {
      const n = number(value);
      body[name] = n === null && !NULLABLE_FIELDS.has(name) ? "" : n;
    } else if (NULLABLE_FIELDS.has(name)) {
      body[name] = value.trim() === "" ? null : value;
    } else {
      body[name] = value;
    }
  }
  for (const name of BOOLEAN_FIELDS) if (!checkboxesSeen.has(name)) body[name] = false;

  for (const [key, byIndex] of entries) {
    const list: Entry[] = [];
    for (const index of [...byIndex.keys()].sort((a, b) => a - b)) {
      const entry = byIndex.get(index)!;
      const blank = Object.values(entry).every((v) => v === null || v === false || (typeof v === "string" && v.trim() === ""));
      if (blank) continue;
      for (const f of ENTRY_BOOLEAN_FIELDS) if (key === "protocol_modifications" && entry[f] === undefined) entry[f] = false;
      list.push(entry);
    }
    content[key] = list;
  }
  body.content = content as NoteContent;
  return body;
}

/**
 * The goal lists a note form shows a row for every active goal of (decision 025), and the fields that say a row
 * was measured this session.
 */
export const GOAL_MEASURES: Readonly<Record<string, readonly string[]>> = {
  maladaptives: ["frequency"],
  replacements: ["total_trials", "correct_responses"],
  replacement_percentages: ["percent"],
  caregiver_goals: ["percent"],
  protocol_modifications: ["assessed", "modified", "demonstrated"],
};

/**
 * A note form's fields without the goal rows left blank: a row none of whose measures was filled (a number typed,
 * a box ticked) was not measured this session, so its fields (the hidden plan id and name, blank numbers) are not
 * what the user typed (decision 025). The one rule for the save, the AI summary's pre-check and a stale save's list
 * of unsaved changes; with JavaScript the browser module disables such rows' hidden fields, so they are not posted.
 */
export function measuredRowsOnly<V extends FormDataEntryValue | string>(fields: Iterable<readonly [string, V]>): [string, V][] {
  const all = [...fields].map(([k, v]) => [k, v] as [string, V]);
  const measured = new Set<string>();
  for (const [name, value] of all) {
    const m = LIST_OF_ENTRIES.exec(name);
    if (!m || typeof value !== "string" || !GOAL_MEASURES[m[1]!]?.includes(m[3]!)) continue;
    if (ENTRY_BOOLEAN_FIELDS.has(m[3]!) ? truthy(value) : value.trim() !== "") measured.add(`${m[1]}[${m[2]}]`);
  }
  return all.filter(([name]) => {
    const m = LIST_OF_ENTRIES.exec(name);
    return !m || !(m[1]! in GOAL_MEASURES) || measured.has(`${m[1]}[${m[2]}]`);
  });
}

/**
 * The form fields of a note body (the inverse, for filling a form from a stored note or an API body):
 * name → value, with repeated names for lists of text.
 */
export function noteBodyToFormFields(body: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  const text = (v: unknown) => (v === null || v === undefined ? "" : typeof v === "boolean" ? (v ? "on" : "") : String(v));
  for (const [name, value] of Object.entries(body)) {
    if (name === "content" || typeof value === "object") continue;
    if (BOOLEAN_FIELDS.has(name)) {
      if (value === true) out.push([name, "on"]);
      continue;
    }
    out.push([name, text(value)]);
  }
  const content = (body.content ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(content)) {
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        if (item !== null && typeof item === "object") {
          for (const [field, v] of Object.entries(item as Record<string, unknown>)) {
            if (typeof v === "boolean") {
              if (v) out.push([`content.${key}[${i}].${field}`, "on"]);
            } else out.push([`content.${key}[${i}].${field}`, text(v)]);
          }
        } else out.push([`content.${key}[]`, text(item)]);
      });
    } else out.push([`content.${key}`, text(value)]);
  }
  return out;
}

/**
 * The provider's typed name a new note's form shows (decision 023, probe 8903): the writer's own name only when
 * the writer is the note's provider. Choosing another provider clears the writer's name (never someone else's
 * signature in the writer's name); choosing oneself again fills it in when it is empty. Any other typed name stays.
 * The server applies it when the form is updated without JavaScript, the browser module when the select changes.
 */
export function providerNameFor(providerId: string, typed: string, self: { id: number; name: string }): string {
  if (providerId === String(self.id)) return typed.trim() ? typed : self.name;
  return typed.trim() === self.name ? "" : typed;
}
