import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { nestFormFields } from "~/domain/intake";
import { CPT_MESSAGE, isCptCode, parseServiceCode } from "~/domain/insurance";
import { applyPaAssessmentIntent, MAX_ASSESSMENT_SERVICES, MAX_ASSESSMENTS, paAssessmentIntent, readPaAssessments } from "~/domain/pa-assessments";
import { ageOn, FIELD_GROUPS, missingOnboarding, PATIENT_FIELDS, paServiceInput, PaServiceInput, paExpiryWarning, parsePatient, PatientInput, primaryLeavesPaUncovered } from "~/domain/patients";
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
  it("accepts a one-day authorization (end date = start date; issue 11)", () => {
    expect(v.parse(PaServiceInput, { ...pa, end_date: "2026-01-01" })).toMatchObject({ start_date: "2026-01-01", end_date: "2026-01-01" });
  });
  it.each([
    [{ end_date: "2025-12-31" }, "end_date", "The end date cannot be before the start date."],
    [{ n_units: "-1" }, "n_units", "Units must be 0 or more."],
    [{ n_units: "1.5" }, "n_units", "Units must be a whole number."],
    [{ n_units: "" }, "n_units", "Units is required."],
    [{ cpt: "9!" }, "cpt", CPT_MESSAGE],
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

describe("PA assessments (clinical §3 Authorizations)", () => {
  const service = { start_date: "2024-02-01", end_date: "2024-03-01", cpt: "97153", n_units: "40", provider: "Dr. Ruiz" };
  const assessment = { assessment: "Initial assessment", start_date: "2024-01-01", end_date: "2024-06-30", services: [service] };
  const withPa = (pa: unknown) => ({ ...base, pa_assessments: pa });
  /** Saved before the rules: a CPT that is not one, and a service ending after its assessment. */
  const legacy = { ...assessment, services: [{ ...service, cpt: "ABCDE", end_date: "2024-09-01" }] };

  it("accepts a nested list and normalises it; none means an empty list", () => {
    const r = parsePatient(withPa([assessment]));
    expect(r.ok && r.data.pa_assessments).toEqual([{ ...assessment, services: [{ ...service, n_units: 40 }] }]);
    for (const none of [undefined, null, []]) {
      const x = parsePatient(withPa(none));
      expect(x.ok && x.data.pa_assessments).toEqual([]);
    }
    const blankProvider = parsePatient(withPa([{ ...assessment, services: [{ ...service, provider: " " }] }]));
    expect(blankProvider.ok && blankProvider.data.pa_assessments[0]!.services[0]!.provider).toBeNull();
  });

  it.each([
    [[{ ...assessment, assessment: "" }], "pa_assessments.0.assessment", "Assessment is required."],
    [[{ ...assessment, assessment: "x".repeat(256) }], "pa_assessments.0.assessment", "Assessment must be at most 255 characters."],
    [[{ ...assessment, start_date: "2024-02-30" }], "pa_assessments.0.start_date", "Enter a valid date (YYYY-MM-DD)."],
    [[{ ...assessment, end_date: "2023-12-31", services: [] }], "pa_assessments.0.end_date", "The end date cannot be before the start date."],
    [[assessment, { ...assessment, services: [service, { ...service, cpt: "97-53" }] }], "pa_assessments.1.services.1.cpt", CPT_MESSAGE],
    [[{ ...assessment, services: [{ ...service, cpt: "" }] }], "pa_assessments.0.services.0.cpt", "CPT is required."],
    [[{ ...assessment, services: [{ ...service, n_units: "-1" }] }], "pa_assessments.0.services.0.n_units", "Units must be 0 or more."],
    [[{ ...assessment, services: [{ ...service, n_units: "1.5" }] }], "pa_assessments.0.services.0.n_units", "Units must be a whole number."],
    [[{ ...assessment, services: [{ ...service, end_date: "2024-01-15" }] }], "pa_assessments.0.services.0.end_date", "The end date cannot be before the start date."],
    [[{ ...assessment, services: [{ ...service, start_date: "2023-12-31" }] }], "pa_assessments.0.services.0.start_date", "The service dates must fall within the assessment's dates (2024-01-01 to 2024-06-30)."],
    [[{ ...assessment, services: [service, { ...service, end_date: "2024-07-01" }] }], "pa_assessments.0.services.1.end_date", "The service dates must fall within the assessment's dates (2024-01-01 to 2024-06-30)."],
    [[{ ...assessment, services: [{ ...service, start_date: "" }] }], "pa_assessments.0.services.0.start_date", "Service start date is required."],
    [[{ ...assessment, services: [{ ...service, provider: "p".repeat(256) }] }], "pa_assessments.0.services.0.provider", "Provider must be at most 255 characters."],
    [[{ ...assessment, services: Array.from({ length: 21 }, () => service) }], "pa_assessments.0.services", "At most 20 services per assessment."],
    [Array.from({ length: 21 }, () => assessment), "pa_assessments", "At most 20 PA assessments."],
    ["not a list", "pa_assessments", "PA assessments must be a list."],
  ])("refuses %j with %s", (pa, key, message) => {
    const r = parsePatient(withPa(pa));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[key]).toBe(message);
  });

  it("keeps the positions-dropped keys of the other fields", () => {
    const r = parsePatient({ ...withPa([{ ...assessment, assessment: "" }]), pos_covered: ["55"] });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.keys(r.errors).sort()).toEqual(["pa_assessments.0.assessment", "pos_covered"]);
  });

  // One CPT rule (decision 017, stop 36): the insurer's service code, a PA service and a PA assessment's service agree.
  it.each<[cpt: string, stored: string | null]>([
    ["97153", "97153"],
    ["0364t", "0364T"],
    [" 97155 ", "97155"],
    ["9715A", "9715A"],
    ["ABCDE", null],
    ["9715", null],
    ["971533", null],
    ["97-53", null],
    ["A9715", null],
    ["9715!", null],
  ])("CPT %j: the same answer everywhere (stored as %j)", (cpt, stored) => {
    expect(isCptCode(cpt)).toBe(stored !== null);
    expect(parseServiceCode(cpt).ok).toBe(stored !== null);
    const paService = parseWith(PaServiceInput, { pa_service: "ABA", cpt, n_units: 1, start_date: "2024-01-01", end_date: "2024-02-01" });
    const assessmentService = parsePatient(withPa([{ ...assessment, services: [{ ...service, cpt }] }]));
    if (stored === null) {
      expect(paService).toMatchObject({ ok: false, errors: { cpt: CPT_MESSAGE } });
      expect(assessmentService).toMatchObject({ ok: false, errors: { "pa_assessments.0.services.0.cpt": CPT_MESSAGE } });
    } else {
      expect(paService).toMatchObject({ ok: true, data: { cpt: stored } });
      expect(assessmentService.ok && assessmentService.data.pa_assessments[0]!.services[0]!.cpt).toBe(stored);
    }
  });

  // A stored value sent back as it is passes, so records saved before a rule stay editable; a new or changed one is checked.
  it.each<[label: string, stored: string, sent: string, ok: boolean]>([
    ["the stored CPT sent back", "9715", "9715", true],
    ["the stored CPT in another letter case", "abcd1", "ABCD1", true],
    ["another refused CPT", "9715", "9716", false],
    ["a valid CPT over a refused one", "9715", "97153", true],
  ])("PA service: %s → %s", (_label, stored, sent, ok) => {
    const r = parseWith(paServiceInput(stored), { pa_service: "ABA", cpt: sent, n_units: 1, start_date: "2024-01-01", end_date: "2024-02-01" });
    expect(r.ok).toBe(ok);
    if (!r.ok) expect(r.errors.cpt).toBe(CPT_MESSAGE);
  });

  it.each<[label: string, sent: unknown[], errorKey: string | null]>([
    ["the stored list sent back as it is", [legacy], null],
    ["a stored service moved to another position", [assessment, legacy], null],
    ["the legacy row's units changed", [{ ...legacy, services: [{ ...legacy.services[0], n_units: "41" }] }], null],
    ["another refused CPT", [{ ...legacy, services: [{ ...legacy.services[0], cpt: "ABCDF" }] }], "pa_assessments.0.services.0.cpt"],
    ["the service's dates changed, still outside", [{ ...legacy, services: [{ ...legacy.services[0], end_date: "2024-09-02" }] }], "pa_assessments.0.services.0.end_date"],
    ["the assessment's dates changed, the service still outside", [{ ...legacy, end_date: "2024-06-29" }], "pa_assessments.0.services.0.end_date"],
    ["a new service outside", [{ ...legacy, services: [...legacy.services, { ...service, start_date: "2024-07-01", end_date: "2024-07-31" }] }], "pa_assessments.0.services.1.end_date"],
  ])("PA assessments stored before the rules: %s", (_label, sent, errorKey) => {
    const r = parsePatient(withPa(sent), null, { pa_assessments: readPaAssessments([legacy]) });
    if (errorKey === null) expect(r).toMatchObject({ ok: true });
    else expect(r.ok === false && Object.keys(r.errors)).toEqual([errorKey]);
  });

  it("a one-day assessment and service are valid, as a one-day PA service is", () => {
    const day = { ...assessment, start_date: "2024-01-01", end_date: "2024-01-01", services: [{ ...service, start_date: "2024-01-01", end_date: "2024-01-01" }] };
    expect(parsePatient(withPa([day]))).toMatchObject({ ok: true });
    expect(parseWith(PaServiceInput, { pa_service: "ABA", cpt: "97153", n_units: 1, start_date: "2024-01-01", end_date: "2024-01-01" })).toMatchObject({ ok: true });
  });

  it.each([
    ["pa-add-assessment", { op: "add-assessment" }],
    ["pa-remove-assessment:2", { op: "remove-assessment", index: 2 }],
    ["pa-add-service:1", { op: "add-service", index: 1 }],
    ["pa-remove-service:1:0", { op: "remove-service", index: 1, service: 0 }],
    ["pa-add-service", null],
    ["pa-remove-service:1", null],
    ["pa-remove-assessment:1234", null],
    ["save", null],
    [undefined, null],
  ])("intent %j → %j", (intent, expected) => {
    expect(paAssessmentIntent(intent)).toEqual(expected);
  });

  const flat = {
    first_name: "Ana",
    "pa_assessments[0][assessment]": "A",
    "pa_assessments[0][start_date]": "2024-01-01",
    "pa_assessments[0][end_date]": "2024-02-01",
    "pa_assessments[0][services][0][cpt]": "97153",
    "pa_assessments[0][services][3][cpt]": "97155",
    "pa_assessments[2][assessment]": "B",
  };
  const nested = (x: Record<string, unknown>) => nestFormFields(x).pa_assessments as { assessment: string; services?: { cpt: string }[] }[];

  it.each([
    ["pa-add-assessment", (x: Record<string, unknown>) => x["pa_assessments[3][assessment]"] === "" && x["pa_assessments[3][end_date]"] === ""],
    ["pa-add-service:0", (x: Record<string, unknown>) => x["pa_assessments[0][services][4][cpt]"] === "" && x["pa_assessments[0][services][4][provider]"] === ""],
    ["pa-add-service:1", (x: Record<string, unknown>) => x["pa_assessments[2][services][0][n_units]"] === ""],
    ["pa-remove-assessment:1", (x: Record<string, unknown>) => nested(x).map((a) => a.assessment).join() === "A"],
    ["pa-remove-service:0:1", (x: Record<string, unknown>) => nested(x)[0]!.services!.map((s) => s.cpt).join() === "97153"],
    ["pa-remove-service:0:7", (x: Record<string, unknown>) => nested(x)[0]!.services!.length === 2],
    ["pa-remove-assessment:5", (x: Record<string, unknown>) => nested(x).length === 2],
  ])("applies %s to the posted fields, keeping what was typed", (intent, check) => {
    const out = applyPaAssessmentIntent(flat, paAssessmentIntent(intent)!);
    expect(check(out)).toBe(true);
    expect(out.first_name).toBe("Ana");
  });

  it("a full list is not grown", () => {
    const full = Object.fromEntries(Array.from({ length: MAX_ASSESSMENTS }, (_, i) => [`pa_assessments[${i}][assessment]`, "x"]));
    expect(applyPaAssessmentIntent(full, { op: "add-assessment" })).toEqual(full);
    const fullServices = Object.fromEntries(Array.from({ length: MAX_ASSESSMENT_SERVICES }, (_, j) => [`pa_assessments[0][services][${j}][cpt]`, "97153"]));
    expect(applyPaAssessmentIntent(fullServices, { op: "add-service", index: 0 })).toEqual(fullServices);
  });

  it.each([
    [undefined, []],
    ["nonsense", []],
    [[{ assessment: "A", start_date: "2024-01-01", end_date: "2024-02-01", services: [] }], [{ assessment: "A", start_date: "2024-01-01", end_date: "2024-02-01", services: [] }]],
    // Saved before the CPT and date rules of stop 36: still shown (and so kept by the next save).
    [[{ assessment: "A", start_date: "2024-01-01", end_date: "2024-02-01", services: [{ start_date: "2024-03-01", end_date: "2024-03-02", cpt: "abcd", n_units: 1, provider: null }] }], [{ assessment: "A", start_date: "2024-01-01", end_date: "2024-02-01", services: [{ start_date: "2024-03-01", end_date: "2024-03-02", cpt: "abcd", n_units: 1, provider: null }] }]],
  ])("reads stored %j back as %j", (stored, expected) => {
    expect(readPaAssessments(stored)).toEqual(expected);
  });
});

describe("primaryLeavesPaUncovered: a primary insurer change refused under PA services with no insurer (decision 031, stop 45)", () => {
  const pa = (n: number) => ({ name: `Auth ${n}`, cpt: `9715${n}` });
  it.each<[string | null, number, string]>([
    ["Other Care", 1, 'Other Care does not cover the client\'s PA service "Auth 1" (CPT 97151), which names no insurer and is billed to the primary insurer: choose its insurer on the PA service, or delete it, first.'],
    ["Other Care", 2, 'Other Care does not cover the client\'s PA services "Auth 1" (CPT 97151) and "Auth 2" (CPT 97152), which name no insurer and are billed to the primary insurer: choose their insurer on each PA service, or delete them, first.'],
    ["Other Care", 3, 'Other Care does not cover the client\'s PA services "Auth 1" (CPT 97151), "Auth 2" (CPT 97152) and "Auth 3" (CPT 97153), which name no insurer and are billed to the primary insurer: choose their insurer on each PA service, or delete them, first.'],
    ["Other Care", 5, 'Other Care does not cover the client\'s PA services "Auth 1" (CPT 97151), "Auth 2" (CPT 97152), "Auth 3" (CPT 97153) and 2 more, which name no insurer and are billed to the primary insurer: choose their insurer on each PA service, or delete them, first.'],
    [null, 1, 'The client\'s PA service "Auth 1" (CPT 97151) names no insurer and is billed to the primary insurer: choose its insurer on the PA service, or delete it, before removing the primary insurer.'],
    [null, 2, 'The client\'s PA services "Auth 1" (CPT 97151) and "Auth 2" (CPT 97152) name no insurer and are billed to the primary insurer: choose their insurer on each PA service, or delete them, before removing the primary insurer.'],
  ])("insurer %s, %i PA service(s)", (insurer, n, message) => {
    expect(primaryLeavesPaUncovered(insurer, Array.from({ length: n }, (_, i) => pa(i + 1)))).toBe(message);
  });
});
