import { describe, expect, it } from "vitest";
import {
  applyRowIntent,
  HEALTH_BEHAVIORS,
  INTAKE_SECTIONS,
  nestFormFields,
  parseIntake,
  readDocument,
  rowIntent,
  yesNo,
  yesNoMessage,
} from "~/domain/intake";

const header = { person_responding: "Mother", observation_date: "2025-04-05" };
const TOP_LEVEL = new Set(INTAKE_SECTIONS.filter((x) => x.kind === "fields").map((x) => x.id));

/** The whole intake with one section's input in its place (top-level sections spread their fields). */
function withSection(section: string, input: unknown) {
  return TOP_LEVEL.has(section) ? { ...header, ...(input as object) } : { ...header, [section]: input };
}
function sectionErrors(section: string, input: unknown) {
  const r = parseIntake(withSection(section, input));
  return r.ok ? {} : r.errors;
}
function sectionOutput(section: string, input: unknown) {
  const r = parseIntake(withSection(section, input));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.data[section] as Record<string, unknown>;
}

describe("impairs_other_services_without_rbt: yes, true or 1 is true (C §5)", () => {
  it.each([
    ["yes", true],
    ["true", true],
    ["1", true],
    [true, true],
    [1, true],
    ["Yes", true],
    [" TRUE ", true],
    ["no", false],
    ["false", false],
    ["0", false],
    ["", false],
    [false, false],
    [0, false],
    [undefined, false],
    [null, false],
    ["No", false],
  ])("%j → %s", (input, expected) => {
    expect(yesNo(input)).toBe(expected);
    const r = parseIntake({ ...header, impairs_other_services_without_rbt: input, impairs_other_services_description: "Needs support." });
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.data.impairs_other_services_without_rbt).toBe(expected);
  });

  it("missing altogether is no", () => {
    const r = parseIntake(header);
    expect(r.ok && r.data.impairs_other_services_without_rbt).toBe(false);
  });

  it.each([["maybe"], ["on"], ["y"], ["2"], [2], [-1], [0.5], [[]], [{}], ["yes please"]])("%j is refused with a clear message", (input) => {
    expect(yesNo(input)).toBeUndefined();
    const r = parseIntake({ ...header, impairs_other_services_without_rbt: input });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.impairs_other_services_without_rbt).toBe(yesNoMessage("Impairs other services without RBT"));
  });

  it("a yes needs the description of how other services are impaired; a no does not", () => {
    const yes = parseIntake({ ...header, impairs_other_services_without_rbt: "yes" });
    expect(yes.ok).toBe(false);
    if (!yes.ok) expect(yes.errors).toEqual({ impairs_other_services_description: 'How other services are impaired is required when "Impairs other services without RBT" is yes.' });
    expect(parseIntake({ ...header, impairs_other_services_without_rbt: "no" }).ok).toBe(true);
  });
});

describe("header", () => {
  it.each([
    [{ person_responding: "" }, "person_responding", "Person responding is required."],
    [{ person_responding: "   " }, "person_responding", "Person responding is required."],
    [{ person_responding: "x".repeat(256) }, "person_responding", "Person responding must be at most 255 characters."],
    [{ observation_date: "" }, "observation_date", "Observation date is required."],
    [{ observation_date: undefined }, "observation_date", "Observation date is required."],
    [{ person_responding: null }, "person_responding", "Person responding is required."],
    [{ observation_date: "2025-02-29" }, "observation_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ observation_date: "04/05/2025" }, "observation_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ bip_id: "abc" }, "bip_id", "Choose a valid option."],
    [{ current_insurance: "x".repeat(256) }, "current_insurance", "Current insurance must be at most 255 characters."],
    [{ medical_necessity_statement: "x".repeat(5001) }, "medical_necessity_statement", "Medical necessity statement must be at most 5000 characters."],
    [{ has_own_room: "sometimes" }, "has_own_room", yesNoMessage("Has own room")],
    [{ patient_summary: 42 }, "patient_summary", "Patient summary must be text."],
  ])("refuses bad input, case %#", (over, field, message) => {
    const r = parseIntake({ ...header, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it("accepts the minimum and fills every sub-record with its defaults; text is trimmed, empty text is none", () => {
    const r = parseIntake({ ...header, person_responding: "  Father ", current_insurance: "", bip_id: "7", leftover: "dropped" });
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toMatchObject({ person_responding: "Father", current_insurance: null, bip_id: 7, has_own_room: false, household_members: [], educational_programs: [], patient_summary: null });
    expect(r.data).not.toHaveProperty("leftover");
    for (const s of INTAKE_SECTIONS.filter((x) => x.kind === "object")) expect(r.data[s.id], s.id).toBeTypeOf("object");
  });
});

describe("sub-records: required and format rules", () => {
  it.each([
    ["household_members", [{ name: "" }], "household_members.0.name", "Name is required."],
    ["household_members", [{ name: "Ana", age: "-1" }], "household_members.0.age", "Age must be 0 or more."],
    ["household_members", [{ name: "Ana", age: "4.5" }], "household_members.0.age", "Age must be a whole number."],
    ["household_members", [{ name: "Ana", age: "121" }], "household_members.0.age", "Age must be at most 120."],
    ["household_members", "Ana", "household_members", "Household members: send a list of rows."],
    ["household_members", Array.from({ length: 31 }, () => ({ name: "A" })), "household_members", "Household members: at most 30 rows."],
    ["educational_programs", [{ name: "A" }, { type: "Speech" }], "educational_programs.1.name", "Program name is required."],
    ["educational_programs", [{ name: "A", weekly_frequency: "-0.5" }], "educational_programs.0.weekly_frequency", "Weekly frequency must be 0 or more."],
    ["educational_programs", [{ name: "A", weekly_frequency: "often" }], "educational_programs.0.weekly_frequency", "Weekly frequency must be a number."],
    ["educational_programs", [{ name: "A", hours_per_session: "-1" }], "educational_programs.0.hours_per_session", "Hours per session must be 0 or more."],
    ["educational_programs", [{ name: "A", hours_per_session: "25" }], "educational_programs.0.hours_per_session", "Hours per session must be at most 24."],
    ["educational_programs", [{ name: "A", location: "x".repeat(256) }], "educational_programs.0.location", "Location must be at most 255 characters."],
    ["medical_development_history", { seizures: "yes" }, "medical_development_history.seizures_description", 'Seizures: description is required when "Seizures" is yes.'],
    ["medical_development_history", { seizures: "often" }, "medical_development_history.seizures", yesNoMessage("Seizures")],
    ["medical_development_history", { allergies: "x".repeat(5001) }, "medical_development_history.allergies", "Allergies must be at most 5000 characters."],
    ["medical_development_history", "none", "medical_development_history", "Send this record as an object."],
    ["family_legal_history", { custody: "x".repeat(5001) }, "family_legal_history.custody", "Custody and guardianship must be at most 5000 characters."],
    ["school_daycare", { attends: "college" }, "school_daycare.attends", "Attends: choose school, daycare, neither."],
    ["school_daycare", { contact_phone: "call me" }, "school_daycare.contact_phone", "Enter a valid phone number (digits, spaces, +, -, parentheses; 7 to 20 characters)."],
    ["prior_aba_services", { start_date: "2024-02-30" }, "prior_aba_services.start_date", "Enter a valid date (YYYY-MM-DD)."],
    ["prior_aba_services", { start_date: "2024-03-01", end_date: "2024-03-01" }, "prior_aba_services.end_date", "The end date must be after the start date."],
    ["prior_aba_services", { start_date: "2024-03-01", end_date: "2023-12-31" }, "prior_aba_services.end_date", "The end date must be after the start date."],
    ["prior_aba_services", { received: "perhaps" }, "prior_aba_services.received", yesNoMessage("Received ABA services before")],
    ["past_current_treatments", { past_treatments: "x".repeat(5001) }, "past_current_treatments.past_treatments", "Past treatments must be at most 5000 characters."],
    ["educational_medical_status", { medical_status: 7 }, "educational_medical_status.medical_status", "Medical status must be text."],
    ["other_therapy_services", { other_therapy_services: "x".repeat(5001) }, "other_therapy_services", "Other therapy services must be at most 5000 characters."],
    ["conducted_assessments", { conducted_assessments: "x".repeat(5001) }, "conducted_assessments", "Conducted assessments must be at most 5000 characters."],
    ["setting_events_antecedents", { setting_events_antecedents: "x".repeat(5001) }, "setting_events_antecedents", "Setting events and antecedents must be at most 5000 characters."],
    ["preference_assessment", { preference_assessment: "x".repeat(5001) }, "preference_assessment", "Preference assessment must be at most 5000 characters."],
    ["patient_summary", { patient_summary: "x".repeat(5001) }, "patient_summary", "Patient summary must be at most 5000 characters."],
  ])("%s refuses bad input, case %#", (section, input, key, message) => {
    expect(sectionErrors(section, input)).toEqual({ [key]: message });
  });

  it.each(HEALTH_BEHAVIORS.map(([name, label]) => [name, label]))("health behavior %s: yes/no, and a yes needs a description", (name, label) => {
    expect(sectionErrors("health_behaviors", { [name]: "yes" })).toEqual({ [`health_behaviors.${name}_description`]: `${label}: description is required when "${label}" is yes.` });
    expect(sectionErrors("health_behaviors", { [name]: "sometimes" })).toEqual({ [`health_behaviors.${name}`]: yesNoMessage(label) });
    expect(sectionOutput("health_behaviors", { [name]: "1", [`${name}_description`]: " Daily " })).toMatchObject({ [name]: true, [`${name}_description`]: "Daily" });
    expect(sectionOutput("health_behaviors", {})).toMatchObject({ [name]: false, [`${name}_description`]: null });
  });

  it.each([
    ["household_members", [{ name: "Ana", relationship: "Mother", age: "34" }], [{ name: "Ana", relationship: "Mother", age: 34 }]],
    ["educational_programs", [{ name: "OT", type: "", weekly_frequency: "2", hours_per_session: "0.5", location: "School" }], [{ name: "OT", type: null, weekly_frequency: 2, hours_per_session: 0.5, location: "School" }]],
    ["educational_programs", [{ name: "OT", weekly_frequency: 0, hours_per_session: 0 }], [{ name: "OT", type: null, weekly_frequency: 0, hours_per_session: 0, location: null }]],
    ["educational_programs", null, []],
    ["prior_aba_services", { received: "yes", start_date: "2023-01-01", end_date: "2023-12-31" }, { received: true, start_date: "2023-01-01", end_date: "2023-12-31", provider: null }],
    ["prior_aba_services", { received: "no", end_date: "2023-12-31" }, { received: false, start_date: null, end_date: "2023-12-31" }],
    ["school_daycare", { attends: "daycare", contact_phone: "(305) 555-0100" }, { attends: "daycare", contact_phone: "(305) 555-0100", name: null }],
    ["medical_development_history", { seizures: true, seizures_description: "Febrile, 2022" }, { seizures: true, seizures_description: "Febrile, 2022", diagnoses: null }],
  ])("%s accepts %j", (section, input, expected) => {
    const out = sectionOutput(section, input);
    if (Array.isArray(expected)) expect(out).toEqual(expected);
    else expect(out).toMatchObject(expected);
  });

  it("row errors keep their row position, and cross-field rules report even when other fields are wrong", () => {
    const r = parseIntake({
      ...header,
      observation_date: "bad",
      educational_programs: [{ name: "A" }, { name: "B", weekly_frequency: "-1" }],
      health_behaviors: { throwing: "yes" },
    });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors).toEqual({
        observation_date: "Enter a valid date (YYYY-MM-DD).",
        "educational_programs.1.weekly_frequency": "Weekly frequency must be 0 or more.",
        "health_behaviors.throwing_description": 'Throwing: description is required when "Throwing" is yes.',
      });
  });
});

describe("forms without JavaScript: indexed rows", () => {
  it.each([
    [{ a: "1" }, { a: "1" }],
    [{ "educational_programs[0][name]": "A", "educational_programs[1][name]": "B" }, { educational_programs: [{ name: "A" }, { name: "B" }] }],
    // Gaps left by a removed row close up, in position order.
    [{ "household_members[5][name]": "C", "household_members[2][name]": "B" }, { household_members: [{ name: "B" }, { name: "C" }] }],
    [{ "school_daycare[name]": "Oak", "school_daycare[grade]": "K" }, { school_daycare: { name: "Oak", grade: "K" } }],
    // Unsafe or malformed names, and absurd row positions, are dropped.
    [{ "__proto__[x]": "1", "a[constructor]": "2", "x]": "3", "rows[1000][name]": "4", ok: "5" }, { ok: "5" }],
    // A JSON body passes through as it is.
    [{ educational_programs: [{ name: "A" }] }, { educational_programs: [{ name: "A" }] }],
  ])("%j nests as %j", (flat, nested) => {
    expect(nestFormFields(flat)).toEqual(nested);
  });

  it.each([
    ["add-row:educational_programs", { op: "add", list: "educational_programs" }],
    ["add-row:household_members", { op: "add", list: "household_members" }],
    ["remove-row:household_members:2", { op: "remove", list: "household_members", index: 2 }],
    ["remove-row:health_behaviors:0", null],
    ["add-row:educational_programs:1", null],
    ["remove-row:educational_programs", null],
    ["save", null],
    [undefined, null],
  ])("intent %j → %j", (intent, expected) => {
    expect(rowIntent(intent)).toEqual(expected);
  });

  it("Add a row appends one empty row after the last and keeps every typed value", () => {
    const flat = { person_responding: "Mom", "educational_programs[0][name]": "A" };
    const out = applyRowIntent(flat, { op: "add", list: "educational_programs" });
    expect(out).toMatchObject(flat);
    expect(nestFormFields(out).educational_programs).toEqual([{ name: "A" }, { name: "", type: "", weekly_frequency: "", hours_per_session: "", location: "" }]);
    expect(nestFormFields(applyRowIntent({}, { op: "add", list: "household_members" })).household_members).toEqual([{ name: "", relationship: "", age: "" }]);
  });

  it("Add a row stops at 30 rows", () => {
    const full = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`household_members[${i}][name]`, `P${i}`]));
    expect(applyRowIntent(full, { op: "add", list: "household_members" })).toEqual(full);
  });

  it("Remove drops that row only (by position, row 1 does not take row 10 with it) and the rest close up", () => {
    const flat = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`educational_programs[${i}][name]`, `P${i}`]));
    const out = applyRowIntent({ ...flat, person_responding: "Mom" }, { op: "remove", list: "educational_programs", index: 1 });
    const names = (nestFormFields(out).educational_programs as { name: string }[]).map((r) => r.name);
    expect(names).toEqual(["P0", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10"]);
    expect(out.person_responding).toBe("Mom");
    expect(applyRowIntent(flat, { op: "remove", list: "educational_programs", index: 40 })).toEqual(flat);
  });
});

describe("readDocument", () => {
  it("fills defaults, and a part stored in an older shape falls back to its default without losing the rest", () => {
    const doc = readDocument(JSON.stringify({ educational_programs: "not a list", patient_summary: "Kept", health_behaviors: { elopement: true, elopement_description: "Runs" } }));
    expect(doc.educational_programs).toEqual([]);
    expect(doc.patient_summary).toBe("Kept");
    expect(doc.health_behaviors).toMatchObject({ elopement: true, elopement_description: "Runs", throwing: false });
    expect(doc).not.toHaveProperty("person_responding");
    expect(readDocument("not json").household_members).toEqual([]);
  });

  it("reads a list stored before today's one-line rule with its breaks as spaces, instead of dropping it (probe 8924)", () => {
    const doc = readDocument(JSON.stringify({ household_members: [{ name: "Ana\nMaria", relationship: "Mother", age: 40 }], patient_summary: "Kept", school_daycare: { name: "Sunny\nSchool", notes: "Line A\nLine B\n\nLine C" } }));
    expect(doc.household_members).toEqual([expect.objectContaining({ name: "Ana Maria", relationship: "Mother" })]);
    // Only the refused value is made readable: the notes beside it keep their lines (probe 8925 §1).
    expect(doc.school_daycare).toMatchObject({ name: "Sunny School", notes: "Line A\nLine B\n\nLine C" });
    expect(doc.patient_summary).toBe("Kept");
  });
});
