import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { LocationInput, locationTitleKey, posText } from "~/domain/locations";
import { canonicalTimeZone } from "~/domain/time";

/** A location's title as titles are compared, and its time zone as stored (decision 017, stop 33; probe 8962 item 4). */

describe("locationTitleKey: case, spaces, invisible characters and full width do not count", () => {
  it.each([
    ["Miami Clinic", "miami clinic ", true],
    ["Miami Clinic", "  MIAMI   CLINIC", true],
    ["Miami Clinic", "Miami\tClinic", true],
    ["Miami Clinic", "Miami\u00a0Clinic", true],
    ["Miami Clinic", "MiamiClinic", false],
    ["Miami Clinic", "Miami Clinic 2", false],
    // Probe 8965 §4: invisible characters do not count, full-width letters are letters.
    ["Denver Clinic", "Denver Clinic\u200b", true],
    ["Denver Clinic", "Denver\u200b Clinic", true],
    ["Denver Clinic", "Denver Clinic\u00ad", true],
    ["Denver Clinic", "\ufeffDenver Clinic", true],
    ["Denver Clinic", "Den\u200dver\u2060 Clinic", true],
    ["Miami Clinic", "\uff2diami Clinic", true],
    ["Miami Clinic", "ＭＩＡＭＩ\u3000ＣＬＩＮＩＣ", true],
    ["Miami Clinic", "Miami\u200bClinic", false],
    ["Miami Clinic", "Miami\nClinic", true],
  ])("%j and %j are the same title: %s", (a, b, same) => {
    expect(locationTitleKey(a) === locationTitleKey(b)).toBe(same);
  });
});

describe("canonicalTimeZone: the IANA spelling, or null", () => {
  it.each([
    ["america/new_york", "America/New_York"],
    ["AMERICA/LOS_ANGELES", "America/Los_Angeles"],
    ["Europe/Lisbon", "Europe/Lisbon"],
    ["Mars/Olympus", null],
    ["US/Eastern", "America/New_York"],
    ["+05:30", null],
    ["-00:00", null],
    ["", null],
  ])("%j → %j", (typed, expected) => {
    expect(canonicalTimeZone(typed)).toBe(expected);
  });

  it("the location schema stores it so", () => {
    const parsed = v.parse(LocationInput, { title: "T", time_zone: " pacific/honolulu ", pos_codes: ["11"] });
    expect(parsed.time_zone).toBe("Pacific/Honolulu");
  });
});

describe("posText: a place-of-service code with its meaning, as every screen shows it", () => {
  it.each([
    ["02", "02 Telehealth"],
    ["03", "03 School"],
    ["11", "11 Office"],
    ["12", "12 Home"],
    ["99", "99 Other"],
    ["10", "10 Telehealth in Patient Home"],
    ["07", "07"],
    ["", ""],
  ])("%j → %j", (code, text) => {
    expect(posText(code)).toBe(text);
  });
});
