import { describe, expect, it } from "vitest";
import { movedReferences } from "~/domain/references";

/**
 * The read-only reference rule (decision 017, stops 43 and 44): a stored id is compared by the one record-id rule. A
 * value that is no record id answers the record-id words at its field; another well-formed id is a move; the stored id
 * (as a number or its digits) is no change, and absent, null or empty names nothing.
 */
const MOVE = "A goal cannot move to another behavior plan.";
const NOT_AN_ID = "bip_id must be a record id.";
const WEEK = "The week is fixed.";
const fixed = { bip_id: [1, MOVE], week_end: ["2026-01-03", WEEK] } as const;

describe("movedReferences: a stored record id", () => {
  it.each([
    ["absent", undefined, null],
    ["null", null, null],
    ["empty text", "", null],
    ["the stored id", 1, null],
    ["the stored id as its digits", "1", null],
    ["the stored id as its digits, with spaces", " 1 ", null],
    ["another id", 2, MOVE],
    ["another id as its digits", "2", MOVE],
    ["an id no record has", 9999, MOVE],
    ["a list holding the stored id", [1], NOT_AN_ID],
    ["a list holding its digits", ["1"], NOT_AN_ID],
    ["an empty list", [], NOT_AN_ID],
    ["an object", { id: 1 }, NOT_AN_ID],
    ["true", true, NOT_AN_ID],
    ["false", false, NOT_AN_ID],
    ["letters", "abc", NOT_AN_ID],
    ["spaces only", " ", NOT_AN_ID],
    ["a fraction", 1.5, NOT_AN_ID],
    ["a fraction's text", "1.0", NOT_AN_ID],
    ["zero", 0, NOT_AN_ID],
    ["a negative id", -1, NOT_AN_ID],
    ["an exponent", "1e0", NOT_AN_ID],
    ["more than 15 digits", 1e16, NOT_AN_ID],
  ])("%s", (_name, sent, expected) => {
    const body = sent === undefined ? {} : { bip_id: sent };
    expect(movedReferences(body, fixed)).toEqual(expected === null ? null : { bip_id: expected });
  });
});

describe("movedReferences: a stored text (a week's date)", () => {
  it.each([
    ["the stored date", "2026-01-03", null],
    ["the stored date with spaces", " 2026-01-03 ", null],
    ["another date", "2026-01-10", WEEK],
    ["a list holding the stored date", ["2026-01-03"], WEEK],
    ["a number", 20260103, WEEK],
  ])("%s", (_name, sent, expected) => {
    expect(movedReferences({ week_end: sent }, fixed)).toEqual(expected === null ? null : { week_end: expected });
  });
});

it("each refused name is answered at once", () => {
  expect(movedReferences({ bip_id: [1], week_end: "2026-01-10" }, fixed)).toEqual({ bip_id: NOT_AN_ID, week_end: WEEK });
});
