import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { bipInputFor, BipInput, keptCpts, parseItem, readDocument } from "~/domain/bip-document";
import { CPT_MESSAGE } from "~/domain/insurance";
import { parseWith } from "~/domain/validation";

/**
 * A BIP's recommended services take the one CPT rule of insurer and PA services (`isCptCode`: 4 digits, then a digit or
 * a letter; stored in upper case) with its message; a CPT the stored plan holds passes sent back as it is (decision
 * 017, stop 37).
 */

const service = (cpt: string) => ({ cpt, num_units: 10, breakdown_per_week: "2 h", location: "Home", description_service: "Direct therapy" });
const STORED = readDocument(JSON.stringify({ recommendations: [service("ABCDE"), service("9715"), service("97153")] }));

describe("recommended services: the CPT rule", () => {
  const rows: [string, string, string | null, string | null][] = [
    // [case, CPT sent, answer stored (null: refused), message]
    ["a CPT code", "97153", "97153", null],
    ["a code ending in a letter, in lower case", "0362t", "0362T", null],
    ["with spaces around", " 97155 ", "97155", null],
    ["letters only (the old rule took it)", "ABCDE", null, CPT_MESSAGE],
    ["four digits (the old rule took it)", "9715", null, CPT_MESSAGE],
    ["ten characters (the old rule took it)", "97153HMGT1", null, CPT_MESSAGE],
    ["a letter first", "T1015", null, CPT_MESSAGE],
    ["one digit", "9", null, CPT_MESSAGE],
  ];

  it.each(rows)("a new plan's item: %s", (_, cpt, stored, message) => {
    const r = parseItem("recommendations", service(cpt));
    expect(r.ok ? r.item.cpt : null).toBe(stored);
    expect(r.ok ? null : r.errors.cpt).toBe(message);
    const doc = parseWith(BipInput, { recommendations: [service(cpt)] });
    expect(doc.ok ? doc.data.recommendations[0]!.cpt : null).toBe(stored);
    expect(doc.ok ? null : doc.errors["recommendations.cpt"]).toBe(message);
  });

  const keptRows: [string, string, boolean][] = [
    ["a stored CPT sent back as it is", "ABCDE", true],
    ["a stored CPT in another letter case", "abcde", true],
    ["another stored one", "9715", true],
    ["a bad CPT the plan does not hold", "ABCDF", false],
    ["a valid new CPT", "97156", true],
  ];
  it.each(keptRows)("an edit of a plan holding stored CPTs: %s", (_, cpt, passes) => {
    const kept = keptCpts(STORED);
    const r = parseItem("recommendations", service(cpt), kept);
    expect(r.ok).toBe(passes);
    if (!r.ok) expect(r.errors.cpt).toBe(CPT_MESSAGE);
    const doc = parseWith(bipInputFor(kept), { recommendations: [...STORED.recommendations, service(cpt)] });
    expect(doc.ok).toBe(passes);
  });

  it("a stored plan is read as saved, whatever the rule (nothing falls back to the defaults)", () => {
    expect(STORED.recommendations.map((r) => r.cpt)).toEqual(["ABCDE", "9715", "97153"]);
    // The strict schema of a new plan refuses them.
    expect(v.safeParse(BipInput, { recommendations: STORED.recommendations }).success).toBe(false);
  });
});
