import type { NoteJson, NoteType } from "./notes";

/**
 * The notes list (platform §2 notes-list; clinical §5): its filters, its address and how a row shows a
 * note's times. Pure.
 */

/** The list's own filters (besides the list query's search, dates and page) that listNotes takes. */
export const NOTE_FILTER_KEYS = ["patient_id", "provider_id", "type", "status"] as const;

export const NOTE_TYPE_LABELS: Readonly<Record<NoteType, string>> = { rbt: "RBT", bcba: "BCBA", combined: "Combined" };

/** A note's screens: /note-rbt/view/12, /note-bcba/edit/7, /note-combined/pdf/3. */
export function noteHref(type: NoteType, screen: "view" | "edit" | "pdf", id: number): string {
  return `/note-${type}/${screen}/${id}`;
}

/**
 * The list's address for these query values with the empty ones left out (clinical §5: "Empty filter
 * values are left out of the query"), so a filtered list has one bookmarkable address.
 */
export function noteListAddress(params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const [k, v] of params) if (v.trim() !== "") kept.append(k, v);
  const query = kept.toString();
  return query ? `/notes-list?${query}` : "/notes-list";
}

/** "09:00–11:00, 13:00–14:30": the note's time pairs as typed (local time of its location). */
export function noteTimesText(n: Pick<NoteJson, "time_in" | "time_out" | "time_in2" | "time_out2">): string {
  const pair = (a: string | null, b: string | null) => (a && b ? `${a}–${b}` : "");
  return [pair(n.time_in, n.time_out), pair(n.time_in2, n.time_out2)].filter(Boolean).join(", ");
}
