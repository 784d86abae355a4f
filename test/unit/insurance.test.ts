import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { fittingModifiers, InsuranceInput, InsuranceServiceInput, MODIFIERS, modifierChoicesFor, modifierFits, modifierInfo, modifierRefusal, parseServiceCode, providerType, SERVICE_CODE_MESSAGES, unitMultiplier } from "~/domain/insurance";
import { parseWith } from "~/domain/validation";

describe("MODIFIERS", () => {
  it("is the spec's table, in order", () => {
    expect(MODIFIERS.map((m) => [m.code, m.meaning, m.type, m.multiplier])).toEqual([
      ["HM", "RBT", "rbt", 1],
      ["XE", "2 sessions same day, same provider, different POS", "all", 1],
      ["XP", "RBT overlap, not reimbursed", "rbt", 0],
      ["HO", "BCBA", "bcba", 1],
      ["GT", "Telehealth", "all", 1],
      ["TS", "Reassessment", "all", 1],
      ["95", "Telehealth, only for one named insurer", "all", 1],
    ]);
  });

  it.each([
    ["hm", "HM"],
    [" gt ", "GT"],
    ["95", "95"],
  ])("looks up %j case-insensitively", (code, expected) => expect(modifierInfo(code)?.code).toBe(expected));

  it("answers null for an unknown modifier", () => expect(modifierInfo("ZZ")).toBeNull());
});

describe("parseServiceCode", () => {
  it.each([
    ["97153", "97153", []],
    ["97153 HM", "97153", ["HM"]],
    ["97153 HM GT", "97153", ["HM", "GT"]],
    ["97155-HO-95", "97155", ["HO", "95"]],
    ["  97153   hm  xp ", "97153", ["HM", "XP"]],
    ["0373t", "0373T", []],
    ["97151,TS", "97151", ["TS"]],
  ] as const)("%j → CPT %s with %j", (code, cpt, modifiers) => {
    expect(parseServiceCode(code)).toEqual({ ok: true, cpt, modifiers });
  });

  it.each([
    ["", SERVICE_CODE_MESSAGES.required],
    ["   ", SERVICE_CODE_MESSAGES.required],
    [null, SERVICE_CODE_MESSAGES.required],
    ["HM 97153", SERVICE_CODE_MESSAGES.cpt],
    ["9715", SERVICE_CODE_MESSAGES.cpt],
    ["971533", SERVICE_CODE_MESSAGES.cpt],
    ["97153 HM GT XE", SERVICE_CODE_MESSAGES.tooMany],
    ["97153 ZZ", SERVICE_CODE_MESSAGES.unknown("ZZ")],
    ["97153 HM 59", SERVICE_CODE_MESSAGES.unknown("59")],
    ["97153 GT gt", SERVICE_CODE_MESSAGES.repeated("GT")],
  ] as const)("refuses %j: %s", (code, error) => {
    expect(parseServiceCode(code)).toEqual({ ok: false, error });
  });

  it("names the allowed modifiers when one is unknown", () => {
    expect(SERVICE_CODE_MESSAGES.unknown("ZZ")).toBe("Unknown modifier ZZ. Use one of HM, XE, XP, HO, GT, TS, 95.");
  });
});

describe("providerType", () => {
  it.each([
    ["bcba", "bcba"],
    ["BCBA", "bcba"],
    ["bcaba", "bcba"],
    ["BCaBA", "bcba"],
    ["rbt", "rbt"],
    [" RBT ", "rbt"],
    ["manager", "all"],
    ["", "all"],
    [null, "all"],
    [undefined, "all"],
  ] as const)("%j → %s", (provider, expected) => expect(providerType(provider)).toBe(expected));
});

describe("unitMultiplier", () => {
  it.each([
    [[], 1],
    [["HM"], 1],
    [["HM", "GT"], 1],
    [["XP"], 0],
    [["HM", "XP"], 0],
    [["XP", "GT"], 0],
    [["HO", "95"], 1],
    [["ZZ"], 1],
  ] as const)("%j → %d", (mods, expected) => expect(unitMultiplier(mods)).toBe(expected));
});

describe("InsuranceInput", () => {
  const valid = { name: "Blue Shield", zip: "32801", pos_allowed_to_cg: ["11", "12"], uses_is_telehealth: "on" };

  it("parses a form's fields, with defaults for what is missing", () => {
    const r = parseWith(InsuranceInput, valid);
    expect(r).toEqual({
      ok: true,
      data: {
        name: "Blue Shield",
        street: null,
        street2: null,
        city: null,
        state: null,
        zip: "32801",
        payer_id: null,
        notes: null,
        uses_supervisor_as_provider: false,
        uses_is_telehealth: true,
        pos_allowed_to_cg: ["11", "12"],
        pos_allowed_to_tt: [],
        extra_pos_for_bcba: [],
      },
    });
  });

  it.each([
    [{ ...valid, name: "" }, "name", "Name is required."],
    [{ ...valid, name: "   " }, "name", "Name is required."],
    [{ ...valid, zip: "ABC" }, "zip", "Enter a valid ZIP code (12345 or 12345-6789)."],
    [{ ...valid, pos_allowed_to_tt: ["77"] }, "pos_allowed_to_tt", "POS allowed to TT: choose place-of-service codes from the list."],
    [{ ...valid, extra_pos_for_bcba: "11,88" }, "extra_pos_for_bcba", "Extra POS for BCBA: choose place-of-service codes from the list."],
    [{ ...valid, name: "x".repeat(151) }, "name", "Name must be at most 150 characters."],
  ])("refuses bad input (%#)", (input, field, message) => {
    const r = parseWith(InsuranceInput, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it("accepts a comma list of POS codes from the API and keeps the table's order", () => {
    expect(v.parse(InsuranceInput, { name: "A", extra_pos_for_bcba: "12,02" }).extra_pos_for_bcba).toEqual(["02", "12"]);
  });
});

describe("InsuranceServiceInput", () => {
  const valid = { code: "97153 HM", provider: "RBT", unit_price: "12.50" };

  it("splits the code, derives the type and defaults the multiplier to 1", () => {
    const r = v.parse(InsuranceServiceInput, valid);
    expect(r).toMatchObject({ code: { cpt: "97153", modifiers: ["HM"] }, provider: "rbt", type: "rbt", unit_price: 12.5, multiplier: 1, max_per_day: null, location_id: null, auto_on_pos: false });
  });

  it.each([
    [{ provider: "bcaba" }, "bcba"],
    [{ provider: "bcba" }, "bcba"],
    [{ provider: "" }, "all"],
    [{ provider: "lm" }, "all"],
  ])("provider %j → type %s", (over, type) => expect(v.parse(InsuranceServiceInput, { ...valid, ...over }).type).toBe(type));

  it("takes a bare CPT sent as a JSON number", () => {
    expect(v.parse(InsuranceServiceInput, { code: 97153, unit_price: 1 }).code).toEqual({ cpt: "97153", modifiers: [] });
  });

  it("takes JSON numbers and flags", () => {
    const r = v.parse(InsuranceServiceInput, { code: "97155", unit_price: 0, multiplier: 0.5, max_per_day: 8, auto_on_same_day: true, location_id: 3 });
    expect(r).toMatchObject({ unit_price: 0, multiplier: 0.5, max_per_day: 8, auto_on_same_day: true, location_id: 3 });
  });

  it.each([
    ["1.15", 1.15],
    ["0.85", 0.85],
    [" 2 ", 2],
    ["1.0001", 1.0001],
    [0.7, 0.7],
    ["", 1],
  ])("takes a multiplier of up to 4 decimals: %j → %d", (multiplier, expected) => {
    expect(v.parse(InsuranceServiceInput, { ...valid, multiplier }).multiplier).toBe(expected);
  });

  it.each([
    [{ ...valid, code: "" }, "code", SERVICE_CODE_MESSAGES.required],
    [{ ...valid, code: "97153 HM GT TS" }, "code", SERVICE_CODE_MESSAGES.tooMany],
    [{ ...valid, code: "97153 QQ" }, "code", SERVICE_CODE_MESSAGES.unknown("QQ")],
    [{ ...valid, unit_price: "" }, "unit_price", "Unit price is required."],
    [{ provider: "rbt", unit_price: "1" }, "code", SERVICE_CODE_MESSAGES.required],
    [{ code: "97153" }, "unit_price", "Unit price is required."],
    [{ ...valid, unit_price: "abc" }, "unit_price", "Unit price must be a number."],
    [{ ...valid, unit_price: "-1" }, "unit_price", "Unit price must be 0 or more."],
    [{ ...valid, max_per_day: "1.5" }, "max_per_day", "Max per day must be a whole number."],
    [{ ...valid, max_per_day: "-2" }, "max_per_day", "Max per day must be 0 or more."],
    [{ ...valid, hourly_fee: "-5" }, "hourly_fee", "Hourly fee must be 0 or more."],
    [{ ...valid, multiplier: "x" }, "multiplier", "Multiplier must be a number."],
    [{ ...valid, multiplier: "1.15001" }, "multiplier", "Multiplier takes at most 4 decimals (for example 1.15)."],
    [{ ...valid, multiplier: 1.66666666666667 }, "multiplier", "Multiplier takes at most 4 decimals (for example 1.15)."],
    [{ ...valid, multiplier: "-0.5" }, "multiplier", "Multiplier must be 0 or more."],
    [{ ...valid, location_id: "0" }, "location_id", "Choose a valid option."],
  ])("refuses bad input (%#)", (input, field, message) => {
    const r = parseWith(InsuranceServiceInput, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });
});

describe("modifiers fit the note's type (clinical §3's Type column; probe 8922 §4)", () => {
  it.each([
    // note type → the codes that fit
    ["rbt", ["HM", "XE", "XP", "GT", "TS", "95"]],
    ["bcba", ["XE", "HO", "GT", "TS", "95"]],
    ["combined", ["XE", "HO", "GT", "TS", "95"]],
  ] as const)("%s notes take %j", (type, codes) => {
    expect(fittingModifiers(type).map((m) => m.code)).toEqual(codes);
    for (const m of MODIFIERS) expect(modifierFits(m.code, type)).toBe((codes as readonly string[]).includes(m.code));
  });

  it("an unknown code fits nothing", () => expect(modifierFits("ZZ", "rbt")).toBe(false));

  const slots = (md: string | null, md2: string | null = null, md3: string | null = null, stored?: [string | null, string | null, string | null]) =>
    (["md", "md2", "md3"] as const).map((field, i) => ({ field, code: [md, md2, md3][i]!, ...(stored ? { stored: stored[i] } : {}) }));

  it.each([
    // name, note type, slots → refused field and message (null: allowed)
    ["no modifier", "bcba", slots(null), null],
    ["HM on an RBT note", "rbt", slots("HM"), null],
    ["HM and XP on an RBT note", "rbt", slots("HM", "XP"), null],
    ["HO and GT on a BCBA note", "bcba", slots("HO", "GT"), null],
    ["HO, 95, TS on a combined note", "combined", slots("HO", "95", "TS"), null],
    ["XP on a BCBA note", "bcba", slots("XP"), ["md", "Modifier XP (RBT overlap, not reimbursed) is for RBT notes and does not fit a BCBA note: choose XE, HO, GT, TS, 95."]],
    ["HM then XP on a BCBA note: the first misfit", "bcba", slots("GT", "HM", "XP"), ["md2", "Modifier HM (RBT) is for RBT notes and does not fit a BCBA note: choose XE, HO, GT, TS, 95."]],
    ["HO on an RBT note", "rbt", slots(null, "HO"), ["md2", "Modifier HO (BCBA) is for BCBA notes and does not fit an RBT note: choose HM, XE, XP, GT, TS, 95."]],
    ["XP on a combined note", "combined", slots("XP"), ["md", "Modifier XP (RBT overlap, not reimbursed) is for RBT notes and does not fit a combined note (billed as BCBA): choose XE, HO, GT, TS, 95."]],
    ["GT as md2 and md3", "rbt", slots("HM", "GT", "GT"), ["md3", "Modifier GT is chosen twice: give each modifier once."]],
    ["md = md2", "bcba", slots("HO", "HO"), ["md2", "Modifier HO is chosen twice: give each modifier once."]],
    ["a misfit is named before a repeat", "rbt", slots("HO", "HO"), ["md", "Modifier HO (BCBA) is for BCBA notes and does not fit an RBT note: choose HM, XE, XP, GT, TS, 95."]],
    // An edit is refused only for what it sets (decision 017): a stored misfit it keeps passes (the scrubber names it).
    ["a stored XP kept on a BCBA note", "bcba", slots("XP", "GT", null, ["XP", null, null]), null],
    ["a stored XP kept, HM added", "bcba", slots("XP", "HM", null, ["XP", null, null]), ["md2", "Modifier HM (RBT) is for RBT notes and does not fit a BCBA note: choose XE, HO, GT, TS, 95."]],
    ["a stored pair repeated, kept", "rbt", slots("GT", "GT", null, ["GT", "GT", null]), null],
    ["md2 set to the stored md3", "bcba", slots("HO", "TS", "TS", ["HO", null, "TS"]), ["md2", "Modifier TS is chosen twice: give each modifier once."]],
    ["clearing a stored misfit", "bcba", slots(null, null, null, ["XP", "HM", null]), null],
  ] as const)("%s", (_name, type, given, expected) => {
    const r = modifierRefusal(type, given);
    expect(r ? [r.field, r.message] : null).toEqual(expected);
  });

  it.each([
    // note type, stored code → the selector's codes
    ["rbt", null, ["HM", "XE", "XP", "GT", "TS", "95"]],
    ["bcba", null, ["XE", "HO", "GT", "TS", "95"]],
    ["bcba", "HO", ["XE", "HO", "GT", "TS", "95"]],
    ["bcba", "XP", ["XE", "XP", "HO", "GT", "TS", "95"]],
    ["rbt", "HO", ["HM", "XE", "XP", "HO", "GT", "TS", "95"]],
    ["combined", "ZZ", ["XE", "HO", "GT", "TS", "95"]],
  ] as const)("a %s note's selector with %j stored offers %j", (type, stored, codes) => {
    expect(modifierChoicesFor(type, stored).map((m) => m.code)).toEqual(codes);
  });
});
