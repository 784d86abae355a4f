import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { ageOn, FIELD_GROUPS, missingOnboarding, PATIENT_FIELDS, PaServiceInput, paExpiryWarning, PatientInput } from "~/domain/patients";
import { parseWith } from "~/domain/validation";

const base = { patient_identifier: "P-1", first_name: "Ana", last_name: "Diaz", location_id: "3" };

describe("PatientInput", () => {
  it("accepts a form with only the required fields and fills the rest with none", () => {
    const r = parseWith(PatientInput, base);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toMatchObject({ status: "active", location_id: 3, gender: null, deductible: null, pos_covered: [], telehealth: false, rbt_home_id: null, secondary_diagnosis_codes: [] });
  });

  it.each([
    [{ first_name: "" }, "first_name", "First name is required."],
    [{ patient_identifier: "  " }, "patient_identifier", "Patient identifier is required."],
    [{ location_id: "" }, "location_id", "Location is required."],
    [{ status: "gone" }, "status", "Choose a status from the list."],
    [{ gender: "3" }, "gender", "Choose a gender from the list."],
    [{ email: "x@" }, "email", "Enter a valid email address."],
    [{ birth_date: "2020-02-30" }, "birth_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ deductible: "-1" }, "deductible", "Deductible must be 0 or more."],
    [{ compayment_per_visit: "abc" }, "compayment_per_visit", "Copayment per visit must be a number."],
    [{ pos_covered: ["03", "55"] }, "pos_covered", "Choose place-of-service codes from the list."],
    [{ welcome: "maybe" }, "welcome", "Welcome: choose waiting, requested, reviewing or yes."],
    [{ interview: "yes" }, "interview", "Interview: choose send or receive."],
    [{ rbt_home_id: "x" }, "rbt_home_id", "Choose a valid option."],
    [{ secondary_diagnosis_codes: "F84.0, bad code!" }, "secondary_diagnosis_codes", "Diagnosis codes are letters, digits and dots (for example F84.0)."],
  ])("refuses %j on %s", (over, field, message) => {
    const r = parseWith(PatientInput, { ...base, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it.each([
    [{ deductible: "12.5", balance: 0, oop: "" }, { deductible: 12.5, balance: 0, oop: null }],
    [{ telehealth: "on", pay: true, auto_accident: "" }, { telehealth: true, pay: true, auto_accident: false }],
    [{ pos_covered: "12,03" }, { pos_covered: ["03", "12"] }],
    [{ secondary_diagnosis_codes: "f84.0; F80.2" }, { secondary_diagnosis_codes: ["F84.0", "F80.2"] }],
    [{ gender: 2, status: "incoming" }, { gender: "2", status: "incoming" }],
    [{ welcome: "yes", interview: "send" }, { welcome: "yes", interview: "send" }],
  ])("normalises %j", (over, expected) => {
    const r = parseWith(PatientInput, { ...base, ...over });
    expect(r.ok && r.data).toMatchObject(expected);
  });

  it("declares every field once, each in a known group", () => {
    const names = PATIENT_FIELDS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    const groups = new Set(FIELD_GROUPS.map((g) => g.id));
    for (const f of PATIENT_FIELDS) expect(groups.has(f.group), f.name).toBe(true);
    for (const g of FIELD_GROUPS) expect(PATIENT_FIELDS.some((f) => f.group === g.id), g.id).toBe(true);
  });
});

describe("missingOnboarding", () => {
  it.each([
    [{}, 13],
    [{ welcome: "yes", consent: "reviewing" }, 12],
    [{ welcome: "yes", consent: "yes", insurance_card: "yes", eligibility: "yes", mnl: "yes", referral: "yes", ados: "yes", iep: "yes", asd_diagnosis: "yes", is_dsm5_diagnostic: "yes", cde: "yes", submitted: "yes", interview: "receive" }, 0],
    [{ welcome: "yes", consent: "yes", insurance_card: "yes", eligibility: "yes", mnl: "yes", referral: "yes", ados: "yes", iep: "yes", asd_diagnosis: "yes", is_dsm5_diagnostic: "yes", cde: "yes", submitted: "yes", interview: "send" }, 1],
  ])("%j → %i missing", (details, n) => {
    expect(missingOnboarding(details)).toHaveLength(n);
  });

  it("names the documents by label, in order", () => {
    expect(missingOnboarding({ welcome: "yes", insurance_card: "yes", eligibility: "yes", mnl: "yes", referral: "yes", ados: "yes", iep: "yes", asd_diagnosis: "yes", is_dsm5_diagnostic: "waiting", cde: "yes", submitted: "yes", interview: "receive" })).toEqual(["Consent", "DSM-5 diagnostic"]);
  });
});

describe("PaServiceInput", () => {
  const pa = { pa_service: "Direct therapy", cpt: "97153", n_units: "120", start_date: "2026-01-01", end_date: "2026-06-30" };
  it("accepts a valid service", () => {
    expect(v.parse(PaServiceInput, pa)).toMatchObject({ n_units: 120, is_primary: false, insurance_id: null });
  });
  it.each([
    [{ end_date: "2026-01-01" }, "end_date", "The end date must be after the start date."],
    [{ end_date: "2025-12-31" }, "end_date", "The end date must be after the start date."],
    [{ n_units: "-1" }, "n_units", "Units must be 0 or more."],
    [{ n_units: "1.5" }, "n_units", "Units must be a whole number."],
    [{ n_units: "" }, "n_units", "Units is required."],
    [{ cpt: "9!" }, "cpt", "Enter a valid CPT code (for example 97153)."],
    [{ pa_service: "" }, "pa_service", "Service is required."],
    [{ start_date: "2026-13-01" }, "start_date", "Enter a valid date (YYYY-MM-DD)."],
  ])("refuses %j on %s", (over, field, message) => {
    const r = parseWith(PaServiceInput, { ...pa, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });
});

describe("paExpiryWarning", () => {
  it.each([
    ["2026-03-01", "2026-03-01", 14],
    ["2026-03-15", "2026-03-01", 14],
    ["2026-03-16", "2026-03-01", 30],
    ["2026-03-31", "2026-03-01", 30],
    ["2026-04-01", "2026-03-01", 60],
    ["2026-04-30", "2026-03-01", 60],
    ["2026-05-01", "2026-03-01", null],
    ["2026-02-28", "2026-03-01", "expired"],
  ])("ends %s, today %s → %s", (end, today, level) => {
    expect(paExpiryWarning(end, today)).toBe(level);
  });
});

describe("ageOn", () => {
  it.each([
    ["2020-03-02", "2026-03-01", 5],
    ["2020-03-01", "2026-03-01", 6],
    [null, "2026-03-01", null],
    ["2027-01-01", "2026-03-01", null],
  ])("%s on %s → %s", (birth, today, age) => {
    expect(ageOn(birth, today)).toBe(age);
  });
});
