/**
 * A note form's drafts (docs/decisions/025): the browser copy (localStorage, app/client/note-form.ts) and the
 * server copy (app/services/note-drafts.server.ts) share their lifetime and their words. Pure and client-safe.
 */

/** How long a draft is kept: the server copy expires after it, and the browser drops older ones. */
export const DRAFT_TTL_MS = 24 * 3_600_000;

export const NOTE_DRAFT_PREFIX = "note-draft:";

/** The browser drafts of one user: every key starts with this (Logout removes them). */
export function noteDraftPrefix(userId: number): string {
  return `${NOTE_DRAFT_PREFIX}${userId}:`;
}

/** The browser draft's localStorage key: user and form (the form's path names the client or the note). */
export function noteDraftKey(userId: number, path: string): string {
  return `${noteDraftPrefix(userId)}${path}`;
}

/** A draft saved at `at` (ms) is past its lifetime at `now`. */
export function draftExpired(at: number, now: number): boolean {
  return !(now - at <= DRAFT_TTL_MS);
}

/** Said when a draft of an edit form was typed against an earlier version of the note than the one shown. */
export const DRAFT_CHANGED_SINCE = "It was typed before this note was changed since; restoring it may undo those changes.";

/** Added to the server draft's notice (after a locked session) when the note was saved again after it was typed. */
export const SERVER_DRAFT_CHANGED_SINCE = "The note was changed after you typed this: saving it will be refused and show the note as it is now.";

/**
 * The browser's offer: "Restore your unsaved note from 10:42?" (with the date when the draft is not from
 * today), and the warning when the note was saved again after the draft was typed (`changedSince`).
 * Dates in the browser's own zone and language, as the user reads their clock.
 */
export function draftOfferText(at: number, now: number, changedSince: boolean, locale?: string): string {
  const d = new Date(at);
  const time = d.toLocaleTimeString(locale, { hour: "2-digit", minute: "2-digit" });
  const when = d.toDateString() === new Date(now).toDateString() ? time : `${d.toLocaleDateString(locale, { month: "short", day: "numeric" })}, ${time}`;
  return `Restore your unsaved note from ${when}?${changedSince ? ` ${DRAFT_CHANGED_SINCE}` : ""}`;
}
