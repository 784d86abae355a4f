/**
 * What a note's PDF says, as plain data (decision 027): the header, the title, the fields, the sections
 * of the note's CPT, the summary, the signature blocks and the amendment history. The renderer
 * (app/services/note-pdf.server.ts) only lays this out, so every wording and rule is here and tested
 * without a PDF.
 */
import { noteHref } from "./note-list";
import { noteSpecFields, noteStaffName, type NoteContext, type NoteJson, type NoteType, type PercentEntry } from "./notes";
import { ageOn } from "./patients";
import { isValidTimeZone, zoneOffsetMinutes } from "./time";
import { isoDate } from "./weeks";
import { posText } from "./locations";
import { usDate } from "./weekly-reports";

/** The document's title by note type (RBT 'Appointment Note', BCBA 'Supervision Note'). */
export const NOTE_PDF_TITLES: Readonly<Record<NoteType, string>> = {
  rbt: "Appointment Note",
  bcba: "Supervision Note",
  combined: "Session Note",
};

/** The file name: the note's type and id, never the client's name (it shows in download lists and logs). */
export function notePdfFilename(type: NoteType, id: number): string {
  return `${NOTE_PDF_TITLES[type].toLowerCase().replace(/ /g, "-")}-${id}.pdf`;
}

/** The screens' link to a note's PDF (a plain `<a target="_blank">`: works without JavaScript). */
export function notePdfHref(type: NoteType, id: number): string {
  return noteHref(type, "pdf", id);
}

/** An earlier version of an amended note, as the history shows it. */
export interface NotePdfHistoryEntry {
  version: number;
  reason: string;
  /** When the version was replaced (ISO date or date-time). */
  amended_at: string;
  /** Who amended it (the model's NoteHistoryEntry carries more; only these fields are read). */
  amended_by_name?: string | null;
}

export interface NotePdfView {
  note: NoteJson;
  context: NoteContext;
  /** The note's earlier versions (note_versions), oldest first; present and non-empty when it was amended. */
  history?: readonly NotePdfHistoryEntry[];
}

export type NotePdfBlock =
  | { kind: "paragraph"; label: string; text: string }
  | { kind: "list"; label: string; items: string[] }
  | { kind: "table"; label: string; columns: string[]; widths: number[]; rows: string[][] };

export interface NotePdfSection {
  title: string;
  blocks: NotePdfBlock[];
}

export interface NotePdfSignature {
  role: "Provider" | "Supervisor";
  name: string;
  date: string;
  /** The drawn signature (a PNG data URL), when there is one. */
  image: string | null;
}

export interface NotePdfDocument {
  header: { name: string; lines: string[] };
  title: string;
  /** "Amended — version N" when the note has earlier versions. */
  amended: string | null;
  fields: [label: string, value: string][];
  sections: NotePdfSection[];
  summary: string;
  signatures: NotePdfSignature[];
  history: { columns: string[]; widths: number[]; rows: string[][] } | null;
  /** Page footer text (no client data): the title and note number. */
  footer: string;
}

/** Shown for a field left empty. */
export const EMPTY = "—";
/** Shown for a table or list with nothing in it. */
export const NONE_RECORDED = "None recorded.";

/*
 * Readers of stored content: the model validates what it writes, but a PDF of an old version or of data
 * written before a rule existed must still render, so a value of an unexpected type reads as empty.
 */
const text = (x: unknown) => {
  const s = typeof x === "string" ? x.trim() : typeof x === "number" && Number.isFinite(x) ? String(x) : "";
  return s === "" ? EMPTY : s;
};
const num = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? String(x) : EMPTY);
/** The entries of a stored list: [] when it is not an array, objects only. */
const entries = <T extends object>(x: readonly T[] | undefined): Partial<T>[] => (Array.isArray(x) ? x.filter((e): e is T => !!e && typeof e === "object") : []);
const date = (x: string | null | undefined) => (x ? usDate(x.slice(0, 10)) : EMPTY);

/**
 * The location's local date (mm/dd/yyyy) of a stored instant ("2026-11-21T03:00:00Z" is 11/20/2026 in
 * Chicago); a plain date is shown as it is.
 */
export function localDate(at: string | null | undefined, timeZone: string): string {
  if (!at) return EMPTY;
  const instant = at.length > 10 ? new Date(at) : null;
  if (!instant || Number.isNaN(instant.getTime()) || !isValidTimeZone(timeZone)) return date(at);
  return usDate(isoDate(new Date(instant.getTime() + zoneOffsetMinutes(instant, timeZone) * 60_000)));
}

/** A number with at most `digits` decimals and no trailing zeros: 66.666… → "66.7", 50 → "50". */
export function decimal(value: number, digits = 1): string {
  return String(Number(value.toFixed(digits)));
}

/** Correct responses as a percentage of trials ("66.7%"), or "—" when there were no trials. */
export function percentCorrect(trials: unknown, correct: unknown): string {
  if (typeof trials !== "number" || typeof correct !== "number" || !Number.isFinite(trials) || !Number.isFinite(correct) || trials <= 0) return EMPTY;
  return `${decimal((correct / trials) * 100)}%`;
}

const percent = (x: unknown) => (typeof x === "number" && Number.isFinite(x) ? `${decimal(x)}%` : EMPTY);

/** "09:00 – 11:30", or "—" when the pair is empty. */
export function timeRange(from: string | null, to: string | null): string {
  if (!from && !to) return EMPTY;
  return `${from || EMPTY} – ${to || EMPTY}`;
}

/** Hours and minutes of the session: "3.5 h (210 min)". */
export function hoursText(minutes: number): string {
  const m = Number.isFinite(minutes) && minutes > 0 ? Math.floor(minutes) : 0;
  return `${decimal(m / 60, 2)} h (${m} min)`;
}

/** The CPT code with its modifiers: "97153 (modifiers: HN, 59)". */
export function cptText(note: Pick<NoteJson, "cpt_code" | "md" | "md2" | "md3">): string {
  const modifiers = [note.md, note.md2, note.md3].map((m) => m?.trim()).filter(Boolean);
  return modifiers.length ? `${text(note.cpt_code)} (modifiers: ${modifiers.join(", ")})` : text(note.cpt_code);
}

/** "Jane Roe, 12 Main St, Springfield, IL 62701" style lines of a location. */
function locationLines(l: NoteContext["location"]): string[] {
  const cityLine = [l.city, [l.state, l.zip].filter(Boolean).join(" ")].filter((x) => x && x.trim()).join(", ");
  const lines = [l.address ?? "", cityLine].map((x) => x.trim()).filter(Boolean);
  if (l.phone1?.trim()) lines.push(`Phone: ${l.phone1.trim()}`);
  return lines;
}

const paragraph = (label: string, value: string | null | undefined): NotePdfBlock => ({ kind: "paragraph", label, text: text(value) });
const list = (label: string, items: readonly string[] | undefined): NotePdfBlock => ({ kind: "list", label, items: (Array.isArray(items) ? items : []).map((x) => text(x)).filter((x) => x !== EMPTY) });
const percentTable = (label: string, first: string, rows: readonly PercentEntry[] | undefined): NotePdfBlock => ({
  kind: "table",
  label,
  columns: [first, "% achieved"],
  widths: [0.75, 0.25],
  rows: entries(rows).map((r) => [text(r.name), percent(r.percent)]),
});

/** The sections of a note's CPT (clinical §3); a CPT the product does not know has none. */
export function cptSections(note: NoteJson): NotePdfSection[] {
  const c = note.content ?? {};
  const maladaptives: NotePdfBlock = {
    kind: "table",
    label: "Maladaptive behaviors",
    columns: ["Behavior", "Frequency"],
    widths: [0.75, 0.25],
    rows: entries(c.maladaptives).map((m) => [text(m.name), num(m.frequency)]),
  };
  switch (note.cpt_code) {
    case "97153":
      return [
        {
          title: "Goals and data",
          blocks: [
            maladaptives,
            {
              kind: "table",
              label: "Replacement behaviors",
              columns: ["Replacement", "Trials", "Correct", "% correct"],
              widths: [0.52, 0.16, 0.16, 0.16],
              rows: entries(c.replacements).map((r) => [text(r.name), num(r.total_trials), num(r.correct_responses), percentCorrect(r.total_trials, r.correct_responses)]),
            },
            list("Interventions", c.interventions),
          ],
        },
        {
          title: "Session",
          blocks: [
            paragraph("Client appeared", c.client_appeared),
            paragraph("As evidenced by", c.as_evidenced_by),
            paragraph("RBT modeled and demonstrated to caregiver", c.rbt_modeled_and_demonstrated_to_caregiver),
            paragraph("Client's response to treatment this session", c.client_response_to_treatment_this_session),
            paragraph("Next session is scheduled for", c.next_session_is_scheduled_for),
          ],
        },
      ];
    case "97151":
      return [
        {
          title: `Assessment (${note.subtype === "report" ? "report" : "observation"})`,
          blocks: [paragraph("Procedure", c.procedure), paragraph("Assessment tools", c.assessment_tools), paragraph("Intake and outcome measurements", c.intake_outcome)],
        },
      ];
    case "97155":
      return [
        {
          title: "Goals and data",
          blocks: [
            maladaptives,
            percentTable("Replacement behaviors", "Replacement", c.replacement_percentages),
            // A spec payload's `replacements` with a percent each (clinical §3 BCBA note), shown when sent.
            ...(entries(c.replacements).length ? [percentTable("Replacements", "Replacement", entries(c.replacements).map((r) => ({ plan_id: r.plan_id ?? null, name: r.name ?? "", percent: r.percent ?? null })))] : []),
          ],
        },
        {
          title: "Protocol modification",
          blocks: [
            {
              kind: "table",
              label: "Protocols",
              columns: ["Protocol", "Assessed", "Modified", "Demonstrated"],
              widths: [0.49, 0.17, 0.17, 0.17],
              rows: entries(c.protocol_modifications).map((p) => [text(p.name), p.assessed ? "Yes" : "No", p.modified ? "Yes" : "No", p.demonstrated ? "Yes" : "No"]),
            },
            paragraph("Other protocol", c.other_protocol),
            paragraph("Other protocol details", c.other_protocol_details),
            paragraph("Why was the protocol modified or not modified", c.why_was_the_protocol_modified_or_not_modified),
            paragraph("Describe in detail the protocol modifications", c.describe_in_detail_the_protocol_modifications),
            paragraph("Progress noted this session compared to previous session", c.progress_noted_this_session_compared_to_previous_session),
          ],
        },
      ];
    case "97156":
      return [
        {
          title: "Caregiver training",
          blocks: [
            percentTable("Caregiver goals", "Goal", c.caregiver_goals),
            list("Demonstrated replacement protocols", c.demonstrated_replacement_protocols),
            list("Demonstrated intervention protocols", c.demonstrated_intervention_protocols),
            list("Discussed behaviors", c.discussed_behaviors),
          ],
        },
      ];
    default:
      return [];
  }
}

/** The whole document of a note. */
export function notePdfDocument({ note, context, history }: NotePdfView): NotePdfDocument {
  const p = context.patient;
  const age = ageOn(p.birth_date, note.session_date);
  const clientName = `${p.first_name} ${p.last_name}`.trim() || note.patient_name;
  const pa = context.pa_service;
  const title = NOTE_PDF_TITLES[note.type] ?? "Session Note";
  const past = history ?? [];
  const fields: [string, string][] = [
    ["Client", text(clientName)],
    ["Client ID", text(p.patient_identifier)],
    ["Date of birth", p.birth_date ? `${date(p.birth_date)}${age === null ? "" : ` (age ${age})`}` : EMPTY],
    ["Insurance", text(p.insurance_name)],
    ["Insurance number", text(p.insurance_identifier)],
    ["Diagnosis", text(note.diagnosis_code)],
    ["Provider", text(noteStaffName(context.provider, note.provider_name))],
    ["Supervisor", text(noteStaffName(context.supervisor, note.supervisor_name))],
    ["Date of service", date(note.session_date)],
    ["Place of service", note.is_telehealth ? `${text(posText(note.pos))} (telehealth)` : text(posText(note.pos))],
    ["Time in / out (1)", timeRange(note.time_in, note.time_out)],
    ["Time in / out (2)", timeRange(note.time_in2, note.time_out2)],
    ["Total hours", hoursText(note.total_minutes)],
    ["Units", String(note.total_units)],
    ["CPT", cptText(note)],
    ["PA service", pa ? `${text(pa.pa_service)} (${pa.cpt}), ${date(pa.start_date)} – ${date(pa.end_date)}` : EMPTY],
  ];
  const c = note.content ?? {};
  return {
    header: { name: text(context.location.title), lines: locationLines(context.location) },
    title,
    amended: past.length > 0 ? `Amended — version ${note.version}` : null,
    fields,
    sections: [
      {
        title: "Session details",
        blocks: [
          paragraph("Participants", c.participants),
          paragraph("Environmental changes", c.environmental_changes),
          ...noteSpecFields(c).map((f) => (f.list ? list(f.label, f.lines) : paragraph(f.label, f.lines[0]))),
        ],
      },
      ...cptSections(note),
    ],
    summary: (note.summary_note || c.summary_note || "").trim() || EMPTY,
    signatures: [
      { role: "Provider", name: text(note.provider_name), date: date(note.provider_signed_on), image: note.provider_signature || null },
      { role: "Supervisor", name: text(note.supervisor_name), date: date(note.supervisor_signed_on), image: note.supervisor_signature || null },
    ],
    history:
      past.length > 0
        ? { columns: ["Version", "Replaced on", "By", "Reason"], widths: [0.12, 0.18, 0.22, 0.48], rows: past.map((h) => [String(h.version), localDate(h.amended_at, context.location.time_zone), text(h.amended_by_name), text(h.reason)]) }
        : null,
    footer: `${title} #${note.id}`,
  };
}
