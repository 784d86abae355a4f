import { describe, expect, it } from "vitest";
import { DRAFT_CHANGED_SINCE, DRAFT_TTL_MS, draftExpired, draftOfferText, noteDraftKey, noteDraftPrefix } from "~/domain/note-drafts";

describe("a note form's browser drafts (decision 025)", () => {
  it("are keyed by user and form, and one user's keys share a prefix another user's do not", () => {
    expect(noteDraftKey(8, "/note-rbt/edit/431")).toBe("note-draft:8:/note-rbt/edit/431");
    expect(noteDraftKey(8, "/note-rbt?patient_id=13").startsWith(noteDraftPrefix(8))).toBe(true);
    expect(noteDraftKey(81, "/note-rbt/edit/1").startsWith(noteDraftPrefix(8))).toBe(false);
  });

  const now = new Date(2026, 10, 27, 12, 0).getTime();
  it.each([
    ["a minute old", now - 60_000, false],
    ["exactly 24 hours old", now - DRAFT_TTL_MS, false],
    ["24 hours and a second old", now - DRAFT_TTL_MS - 1000, true],
    ["a week old", now - 7 * DRAFT_TTL_MS, true],
    ["with no readable time", Number.NaN, true],
  ])("a draft %s is dropped: %s", (_, at, expired) => {
    expect(draftExpired(at, now)).toBe(expired);
  });

  it.each([
    ["today: the time alone", new Date(2026, 10, 27, 10, 42).getTime(), false, "Restore your unsaved note from 10:42 AM?"],
    ["yesterday: the date too", new Date(2026, 10, 26, 23, 5).getTime(), false, "Restore your unsaved note from Nov 26, 11:05 PM?"],
    ["typed before the note changed: the warning", new Date(2026, 10, 27, 10, 42).getTime(), true, `Restore your unsaved note from 10:42 AM? ${DRAFT_CHANGED_SINCE}`],
  ])("the offer of a draft from %s", (_, at, changedSince, text) => {
    expect(draftOfferText(at, now, changedSince, "en-US")).toBe(text);
  });
});
