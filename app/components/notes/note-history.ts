import { noteSpecTexts, type NoteContent, type NoteJson } from "~/domain/notes";
import { CPT_LABELS } from "./types";
import { posText } from "~/domain/locations";

/**
 * An amended note's earlier versions on the view screen (issue 10: "a correction is an amendment that keeps
 * the earlier version, visible in the note's history"). Each earlier version is shown by the fields in which
 * it differs from the version that replaced it, with the earlier text: compact (the view stays small) and
 * complete (following the versions back from the current note gives every earlier note).
 */

/** One field of an earlier version: its label and the text it had. */
export interface NoteVersionField {
  label: string;
  was: string;
}

const dash = (v: unknown) => (v === null || v === undefined || v === "" ? "—" : String(v));
const pair = (a: string | null | undefined, b: string | null | undefined) => (a || b ? `${dash(a)}–${dash(b)}` : "—");
const items = (list: unknown, one: (e: Record<string, unknown>) => string) =>
  Array.isArray(list) && list.length ? (list as Record<string, unknown>[]).map(one).join("; ") : "—";

const CONTENT_TEXTS: [keyof NoteContent, string][] = [
  ["participants", "Participants"],
  ["environmental_changes", "Environmental changes"],
  ["procedure", "Procedure"],
  ["assessment_tools", "Assessment tools"],
  ["intake_outcome", "Intake and outcome measurements"],
  ["other_protocol", "Other protocol"],
  ["other_protocol_details", "Other protocol: details"],
  ["why_was_the_protocol_modified_or_not_modified", "Why was the protocol modified or not modified"],
  ["describe_in_detail_the_protocol_modifications", "Protocol modifications in detail"],
  ["client_appeared", "Client appeared (mood)"],
  ["as_evidenced_by", "As evidenced by"],
  ["rbt_modeled_and_demonstrated_to_caregiver", "RBT modeled and demonstrated to caregiver"],
  ["client_response_to_treatment_this_session", "Client's response to treatment this session"],
  ["progress_noted_this_session_compared_to_previous_session", "Progress noted this session compared to previous session"],
  ["next_session_is_scheduled_for", "Next session is scheduled for"],
];

const CONTENT_LISTS: [keyof NoteContent, string][] = [
  ["demonstrated_replacement_protocols", "Demonstrated replacement protocols"],
  ["demonstrated_intervention_protocols", "Demonstrated intervention protocols"],
  ["discussed_behaviors", "Behaviors discussed"],
  ["interventions", "Interventions"],
];

/** A note's fields as the view shows them, label → text (drawn signatures compared by their image). */
function fieldTexts(n: NoteJson): [string, string][] {
  const c = (n.content ?? {}) as NoteContent & Record<string, unknown>;
  const out: [string, string][] = [
    ["Provider", dash(n.provider_name)],
    ["Supervisor", dash(n.supervisor_name)],
    ["Session date", dash(n.session_date)],
    ["Times (local)", [pair(n.time_in, n.time_out), pair(n.time_in2, n.time_out2)].filter((t) => t !== "—").join(", ") || "—"],
    ["Total minutes", dash(n.total_minutes)],
    ["Units", dash(n.total_units)],
    ["CPT code", dash(CPT_LABELS[n.cpt_code] ?? n.cpt_code)],
    ["Assessment type", n.cpt_code === "97151" ? (n.subtype === "report" ? "Report" : "Observation") : "—"],
    ["PA service", n.pa_service_id === null || n.pa_service_id === undefined ? "—" : `no. ${n.pa_service_id}`],
    ["Place of service", n.pos ? posText(n.pos) : dash(n.pos)],
    ["Diagnosis code", dash(n.diagnosis_code)],
    ["Telehealth", n.is_telehealth ? "Yes" : "No"],
    ["Status", n.status === "ok" ? "OK" : "Pending"],
    ["Modifiers", [n.md, n.md2, n.md3].filter(Boolean).join(", ") || "—"],
    ["Unit price", n.unit_price_cents === null || n.unit_price_cents === undefined ? "—" : `$${(n.unit_price_cents / 100).toFixed(2)}`],
    ["Maladaptive behaviors", items(c.maladaptives, (m) => `${dash(m.name)}: ${dash(m.frequency)}`)],
    ["Replacement behaviors", items(c.replacements, (r) => `${dash(r.name)}: ${dash(r.correct_responses)} correct of ${dash(r.total_trials)} trials${typeof r.percent === "number" ? ` (${r.percent}%)` : ""}`)],
    ["Replacements (% achieved)", items(c.replacement_percentages, (g) => `${dash(g.name)}: ${g.percent === null || g.percent === undefined ? "—" : `${String(g.percent)}%`}`)],
    ["Caregiver goals", items(c.caregiver_goals, (g) => `${dash(g.name)}: ${g.percent === null || g.percent === undefined ? "—" : `${String(g.percent)}%`}`)],
    [
      "Protocol modifications",
      items(c.protocol_modifications, (p) => `${dash(p.name)}: ${[p.assessed && "assessed", p.modified && "modified", p.demonstrated && "demonstrated"].filter(Boolean).join(", ") || "—"}`),
    ],
    ...CONTENT_TEXTS.map(([k, label]): [string, string] => [label, dash(c[k])]),
    ...CONTENT_LISTS.map(([k, label]): [string, string] => [label, Array.isArray(c[k]) && (c[k] as string[]).length ? (c[k] as string[]).join("; ") : "—"]),
    ...noteSpecTexts(c).map(([label, t]): [string, string] => [label, dash(t)]),
    ["Summary", dash(n.summary_note || c.summary_note)],
    ["Provider signed on", dash(n.provider_signed_on)],
    ["Supervisor signed on", dash(n.supervisor_signed_on)],
  ];
  return out;
}

/**
 * The fields of `earlier` that differ from `later` (the version that replaced it), with the earlier text.
 * A drawn signature is never inlined (an image of up to 100,000 characters): only that it was another one.
 */
export function versionChanges(earlier: NoteJson, later: NoteJson): NoteVersionField[] {
  const after = new Map(fieldTexts(later));
  const out: NoteVersionField[] = fieldTexts(earlier)
    .filter(([label, was]) => after.get(label) !== was)
    .map(([label, was]) => ({ label, was }));
  for (const [k, label] of [
    ["provider_signature", "Provider's drawn signature"],
    ["supervisor_signature", "Supervisor's drawn signature"],
  ] as const) {
    if ((earlier[k] ?? null) !== (later[k] ?? null)) out.push({ label, was: earlier[k] ? "another drawing" : "none" });
  }
  return out;
}
