import type { NoteType } from "~/domain/notes";
import type { MeterFacts } from "~/domain/pa-pacing";

/** What a note form offers (built by app/services/note-screens.server.ts from the model's noteConfig). */
export interface NoteFormOptions {
  type: NoteType;
  patient: { id: number; name: string; identifier: string | null; time_zone: string } | null;
  /** The acting user; a user without manage_notes writes only their own notes. */
  self: { id: number; name: string };
  canManage: boolean;
  providers: { value: number; label: string }[];
  supervisors: { value: number; label: string }[];
  /** Every PA service of the client; the form offers those covering the session date and CPT. */
  paServices: { id: number; label: string; cpt: string; start_date: string; end_date: string; meter: MeterFacts & { week_start_date: string; week_end_date: string } }[];
  pos: { value: string; label: string }[];
  cptCodes: readonly string[];
  maladaptives: { plan_id: number; name: string }[];
  replacements: { plan_id: number; name: string }[];
  caregiverGoals: { plan_id: number; name: string }[];
  interventions: string[];
  bipId: number | null;
  /** Today in the location's time zone (the date input's max and default). */
  today: string;
}

export const NOTE_TYPE_LABELS: Record<NoteType, string> = { rbt: "RBT note", bcba: "BCBA note", combined: "Combined note" };
export const NOTE_TYPE_PATHS: Record<NoteType, string> = { rbt: "/note-rbt", bcba: "/note-bcba", combined: "/note-combined" };

export const CPT_LABELS: Record<string, string> = {
  "97151": "97151 — Behavior identification assessment",
  "97153": "97153 — Adaptive behavior treatment by protocol (RBT)",
  "97155": "97155 — Protocol modification (BCBA)",
  "97156": "97156 — Family / caregiver training",
};
