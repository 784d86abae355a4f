import { describe, expect, it } from "vitest";
import { noteHref, noteListAddress, noteTimesText } from "~/domain/note-list";

describe("the notes list's address", () => {
  it.each([
    ["", "/notes-list"],
    ["type=", "/notes-list"],
    ["type=rbt", "/notes-list?type=rbt"],
    ["search=&type=bcba&status=&date_from=&date_to=", "/notes-list?type=bcba"],
    ["patient_id=12&search=%20%20&page=2", "/notes-list?patient_id=12&page=2"],
    ["search=Ana+Garc%C3%ADa", "/notes-list?search=Ana+Garc%C3%ADa"],
  ])("%s → %s (empty values left out, the others kept in order)", (query, address) => {
    expect(noteListAddress(new URLSearchParams(query))).toBe(address);
  });
});

describe("a note's row", () => {
  it.each([
    [{ time_in: "09:00", time_out: "11:00", time_in2: null, time_out2: null }, "09:00–11:00"],
    [{ time_in: "09:00", time_out: "11:00", time_in2: "13:00", time_out2: "14:30" }, "09:00–11:00, 13:00–14:30"],
    [{ time_in: null, time_out: null, time_in2: null, time_out2: null }, ""],
  ])("shows the time pairs %j as %s", (times, text) => {
    expect(noteTimesText(times)).toBe(text);
  });

  it.each([
    ["rbt", "view", 3, "/note-rbt/view/3"],
    ["bcba", "edit", 7, "/note-bcba/edit/7"],
    ["combined", "pdf", 9, "/note-combined/pdf/9"],
  ] as const)("links a %s note's %s screen", (type, screen, id, href) => {
    expect(noteHref(type, screen, id)).toBe(href);
  });
});
