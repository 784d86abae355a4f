import * as v from "valibot";
import { describe, expect, it } from "vitest";
import {
  CLINICAL,
  DEFAULT_CAREGIVER_GOALS,
  DEFAULT_DE_ESCALATION_TECHNIQUES,
  DEFAULT_FADING_PHASES,
  DEFAULT_INTERVENTIONS,
  DEFAULT_NARRATIVES,
  DEFAULT_RECOMMENDATIONS,
  defaultedSections,
  FUNCTION_DEFINITIONS,
  withDefaults,
} from "~/domain/bip-defaults";
import { BIP_TABS, BipDocumentSchema, DOCUMENT_KEYS, HYPOTHESIZED_FUNCTIONS, LIST_SECTION_KEYS, parseItem, readDocument, tabOf, tableFromForm, unflatten } from "~/domain/bip-document";
import { CPT_MESSAGE } from "~/domain/insurance";
import { LIST_MESSAGES } from "~/domain/list-sections";
import { fillPlaceholdersDeep, PLACEHOLDER_TOKENS } from "~/domain/placeholders";
import { parseWith } from "~/domain/validation";

/** The BIP document (clinical §3), its defaults (§3 default clinical content, §9 clinical text constants). */

const empty = () => v.parse(BipDocumentSchema, {});

describe("default clinical content", () => {
  it("has the counts the spec lists", () => {
    expect(DEFAULT_CAREGIVER_GOALS).toHaveLength(13);
    expect(DEFAULT_INTERVENTIONS).toHaveLength(6);
    expect(HYPOTHESIZED_FUNCTIONS.map((f) => f.label)).toEqual(["Attention", "Escape", "Tangible/access", "Automatic"]);
    expect(Object.keys(FUNCTION_DEFINITIONS)).toHaveLength(4);
    expect(DEFAULT_DE_ESCALATION_TECHNIQUES).toHaveLength(13);
    expect(DEFAULT_FADING_PHASES).toHaveLength(6);
  });

  it("names the six interventions and the thirteen caregiver goals", () => {
    expect(DEFAULT_INTERVENTIONS.map((i) => i.title)).toEqual([
      "Differential Reinforcement of Alternative Behaviors (DRA)",
      "Redirection",
      "Response Block",
      "Premack Principle",
      "Extinction / Shaping / Escape Extinction",
      "Functional Communication Training (FCT)",
    ]);
    expect(DEFAULT_CAREGIVER_GOALS.map((g) => g.name)).toEqual([
      "Functions of behavior",
      "Reinforcement",
      "Extinction",
      "Differential reinforcement",
      "Motivating operations",
      "Prompting",
      "Fading",
      "Shaping",
      "Antecedents",
      "Consequences",
      "Task analysis",
      "Chaining",
      "Generalization of skills",
    ]);
    for (const g of DEFAULT_CAREGIVER_GOALS) expect(g.description).toMatch(/once a month .* over 4 data points/);
  });

  it.each([
    ["response block", DEFAULT_INTERVENTIONS[2]!.description, /never over 15 seconds/],
    ["no restraint", DEFAULT_INTERVENTIONS[2]!.description, /not a restraint/],
    ["escape extinction guidance", DEFAULT_INTERVENTIONS[4]!.description, /at most 2 minutes/],
    ["calm before redirect", DEFAULT_INTERVENTIONS[1]!.description, /calm for 3 seconds/],
    ["attention every 10 minutes", withDefaults(empty()).attention[0]!.preventive_strategies, /every 10 minutes/],
    ["breaks up to 5 minutes", withDefaults(empty()).escape[0]!.replacement_skills, /up to 5 minutes/],
    ["911", withDefaults(empty()).crisis_plan.prevention!, /call 911/],
    ["24-hour callback", withDefaults(empty()).crisis_plan.prevention!, /within 24 hours/],
    ["caregiver participation", DEFAULT_NARRATIVES.family_involvement!, /at least 85% of planned sessions/],
    ["monthly competency, weekly training", DEFAULT_NARRATIVES.family_involvement!, /every week.*monthly/s],
    ["discharge lead time", DEFAULT_NARRATIVES.discharge_plan!, /3 to 6 months before.*6 months or longer/s],
    ["four functions in the hypothesis text", DEFAULT_NARRATIVES.hypothesis_based_intervention!, /Attention:.*Escape:.*Tangible\/access:.*Automatic:/s],
  ])("states the constant: %s", (_label, text, pattern) => {
    expect(text).toMatch(pattern);
  });

  it("recommends 97151, 97153, 97155 and 97156 with units that match the weekly breakdown", () => {
    expect(DEFAULT_RECOMMENDATIONS.map((r) => r.cpt)).toEqual(["97151", "97153", "97155", "97156"]);
    expect(DEFAULT_RECOMMENDATIONS[1]).toMatchObject({ num_units: 80 * CLINICAL.authorizationWeeks, breakdown_per_week: "20 hours per week (80 units)" });
    expect(DEFAULT_RECOMMENDATIONS[3]).toMatchObject({ num_units: 4 * CLINICAL.authorizationWeeks, breakdown_per_week: "1 hour per week (4 units)" });
    for (const r of DEFAULT_RECOMMENDATIONS) expect(parseItem("recommendations", r).ok).toBe(true);
  });

  it("fades in six phases of 3 consecutive months with the stated reductions and entry goals", () => {
    for (const p of DEFAULT_FADING_PHASES) expect(p.description).toMatch(/3 consecutive months/);
    expect(DEFAULT_FADING_PHASES.map((p) => p.phase)).toEqual([
      "Phase 1: 25% reduction of services",
      "Phase 2: 50% reduction of services",
      "Phase 3: 75% reduction of services",
      "Phase 4: consultation only, 1 hour per week",
      "Phase 5: consultation 1 hour per month",
      "Phase 6: discharge",
    ]);
    expect(DEFAULT_FADING_PHASES[0]!.description).toMatch(/1 or fewer incidents .* per week, and a maladaptive domain score of 17 or less/);
    expect(DEFAULT_FADING_PHASES[1]!.description).toMatch(/skill acquisition goals at 80% .* socialization and communication scores of 80 or more/);
  });

  it("uses only placeholder tokens that are filled", () => {
    const all = JSON.stringify([withDefaults(empty()), DEFAULT_CAREGIVER_GOALS]);
    const tokens = new Set([...all.matchAll(/\{([A-Za-z|]+)\}/g)].map((m) => m[1]!.toLowerCase()));
    for (const t of tokens) expect(PLACEHOLDER_TOKENS).toContain(t);
    const filled = JSON.stringify(fillPlaceholdersDeep(withDefaults(empty()), { firstName: "Leo", gender: 1 }));
    expect(filled).not.toMatch(/\{[A-Za-z|]+\}/);
  });
});

describe("withDefaults", () => {
  it("fills every empty section that has a default", () => {
    const d = withDefaults(empty());
    expect(d.interventions.map((i) => i.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(d.de_escalation_techniques).toHaveLength(13);
    expect(d.recommendations.map((r) => r.cpt)).toEqual(["97151", "97153", "97155", "97156"]);
    for (const k of ["sensory", "tangibles", "attention", "escape"] as const) expect(d[k].length).toBeGreaterThan(0);
    expect(d.fading_plan_phases).toHaveLength(6);
    expect(d.behavior_assistant_rationale_work_schedule.table_headers.slice(1)).toEqual(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]);
    expect(d.schedule_of_services_breakdown.table_headers.slice(1)).toEqual(["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]);
    expect(d.schedule_of_services_breakdown.table_rows.map((r) => r[0])).toEqual(["School", "Home"]);
    expect(d.crisis_plan.description).toBeTruthy();
    expect(d.consent_to_treatment.statement).toMatch(/consent/);
    for (const key of Object.keys(DEFAULT_NARRATIVES)) expect(d[key as keyof typeof d]).toBe(DEFAULT_NARRATIVES[key as keyof typeof DEFAULT_NARRATIVES]);
  });

  it("fills exactly the empty sections and keeps the others as stored", () => {
    const doc = v.parse(BipDocumentSchema, {
      interventions: [{ title: "Token economy", description: "Tokens for on-task behavior." }],
      fading_plan: "Our own fading plan.",
      discharge_plan: "   ",
      crisis_plan: { description: "Own description", prevention: "" },
      strengths: "Loves music",
      schedule_of_services_breakdown: { table_headers: ["Setting", "Mon"], table_rows: [["Clinic", "9-12"]] },
    });
    const d = withDefaults(doc);
    expect(d.interventions).toEqual([{ index: 1, title: "Token economy", description: "Tokens for on-task behavior.", added_date: null }]);
    expect(d.fading_plan).toBe("Our own fading plan.");
    expect(d.discharge_plan).toBe(DEFAULT_NARRATIVES.discharge_plan);
    expect(d.crisis_plan.description).toBe("Own description");
    expect(d.crisis_plan.prevention).toMatch(/911/);
    expect(d.strengths).toBe("Loves music");
    expect(d.background_information).toBeNull();
    expect(d.schedule_of_services_breakdown).toEqual({ table_headers: ["Setting", "Mon"], table_rows: [["Clinic", "9-12"]] });
    expect(d.documents_reviewed).toEqual([]);
    expect(d.prevalent_setting_event_and_antecedents).toEqual([]);
    expect(defaultedSections(doc)).not.toContain("interventions");
    expect(defaultedSections(doc)).toContain("discharge_plan");
    expect(defaultedSections(doc)).toContain("crisis_plan");
  });

  it("does not change the document it was given", () => {
    const doc = empty();
    withDefaults(doc);
    expect(doc.interventions).toEqual([]);
    expect(doc.fading_plan).toBeNull();
  });
});

describe("BipDocumentSchema", () => {
  it("reads an empty input as a complete, empty document", () => {
    const d = empty();
    expect(Object.keys(d).sort()).toEqual([...DOCUMENT_KEYS].sort());
    expect(d.consent_to_treatment.analyst_1).toEqual({ signature: null, signature_date: null, signature_placeholder: false });
  });

  it("renumbers list items 1..n", () => {
    const d = v.parse(BipDocumentSchema, { de_escalation_techniques: [{ description: "a", index: 9 }, { description: "b", index: 9 }] });
    expect(d.de_escalation_techniques).toEqual([
      { index: 1, description: "a" },
      { index: 2, description: "b" },
    ]);
  });

  it.each([
    [{ documents_reviewed: [{ title: "IEP", status: "maybe" }] }, "documents_reviewed.status", "Choose a document status: pending, reviewing, yes or no."],
    [{ consent_to_treatment: { parent_guardian: { signature: "Ana", signature_date: "03/01/2025" } } }, "consent_to_treatment.parent_guardian.signature_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ consent_to_treatment: { analyst_1: { signature_date: "2025-02-30" } } }, "consent_to_treatment.analyst_1.signature_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ recommendations: [{ cpt: "97153", num_units: -1, breakdown_per_week: "x", location: "Home", description_service: "y" }] }, "recommendations.num_units", "Units must be 0 or more."],
    [{ recommendations: [{ cpt: "9", num_units: 1, breakdown_per_week: "x", location: "Home", description_service: "y" }] }, "recommendations.cpt", CPT_MESSAGE],
    [{ interventions: [{ title: "", description: "x" }] }, "interventions.title", "Title is required."],
    [{ prevalent_setting_event_and_antecedents: [{ prevalent_setting_event_and_antecedent: "Transitions", behavior: ["Crying"], hypothesized_functions: ["revenge"] }] }, "prevalent_setting_event_and_antecedents.hypothesized_functions", "Choose hypothesized functions from the list (attention, escape, tangible, automatic)."],
    [{ attention: true }, "attention", "Attention strategies must be a list."],
    [{ fading_plan: "x".repeat(20_001) }, "fading_plan", "Fading plan must be at most 20000 characters."],
    [{ schedule_of_services_breakdown: { table_headers: Array(13).fill("h"), table_rows: [] } }, "schedule_of_services_breakdown", "A table has at most 12 columns."],
    // Probe 8924 #2: the schedule tables' headers and cells are <input>s, which cannot hold a line break.
    [{ schedule_of_services_breakdown: { table_headers: ["Setting", "Monday"], table_rows: [["School", "9-12\n1-3"]] } }, "schedule_of_services_breakdown.table_rows", "Keep a table cell on one line."],
    [{ schedule_of_services_breakdown: { table_headers: ["Setting", "Mon\r\nday"], table_rows: [] } }, "schedule_of_services_breakdown.table_headers", "Keep a table cell on one line."],
    [{ behavior_assistant_rationale_work_schedule: { table_headers: ["Day", "Hours"], table_rows: [["Monday", "8:00\u202812:00"]] } }, "behavior_assistant_rationale_work_schedule.table_rows", "Keep a table cell on one line."],
    [{ behavior_assistant_rationale_work_schedule: { table_headers: ["Day", "Hou\u2029rs"], table_rows: [] } }, "behavior_assistant_rationale_work_schedule.table_headers", "Keep a table cell on one line."],
    // The behavior list shows one entry per line: an entry holding a break would become two on the next save.
    [{ prevalent_setting_event_and_antecedents: [{ prevalent_setting_event_and_antecedent: "Noise", behavior: ["Crying\rHitting"], hypothesized_functions: ["escape"] }] }, "prevalent_setting_event_and_antecedents.behavior", "Keep behavior list on one line."],
  ])("refuses %j", (input, field, message) => {
    const r = parseWith(BipDocumentSchema, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it("accepts a signature with an ISO date and a placeholder flag from a form", () => {
    const r = parseWith(BipDocumentSchema, { consent_to_treatment: { physician: { signature: " Dr. Ruiz ", signature_date: "2025-03-01", signature_placeholder: "true" } } });
    expect(r.ok && r.data.consent_to_treatment.physician).toEqual({ signature: "Dr. Ruiz", signature_date: "2025-03-01", signature_placeholder: true });
  });

  it("takes a table cell's outer breaks as spaces, trimmed", () => {
    const r = parseWith(BipDocumentSchema, { schedule_of_services_breakdown: { table_headers: ["Setting\n", "Monday"], table_rows: [["\r\nSchool", "9-12"]] } });
    expect(r.ok && r.data.schedule_of_services_breakdown).toEqual({ table_headers: ["Setting", "Monday"], table_rows: [["School", "9-12"]] });
  });

  it("pads and trims table rows to the headers", () => {
    const r = parseWith(BipDocumentSchema, { behavior_assistant_rationale_work_schedule: { table_headers: ["a", "b", "c"], table_rows: [["1"], ["1", "2", "3", "4"]] } });
    expect(r.ok && r.data.behavior_assistant_rationale_work_schedule.table_rows).toEqual([
      ["1", "", ""],
      ["1", "2", "3"],
    ]);
  });

  it("reads a stored document that is broken without failing, keeping the sections that parse", () => {
    expect(readDocument("not json").interventions).toEqual([]);
    const d = readDocument(JSON.stringify({ strengths: "Kind", documents_reviewed: [{ title: "x", status: "bad" }] }));
    expect(d.strengths).toBe("Kind");
    expect(d.documents_reviewed).toEqual([]);
  });

  it("reads a part stored before today's one-line rule with its breaks as spaces, instead of dropping it (probe 8924)", () => {
    const table = { table_headers: ["Setting", "Monday"], table_rows: [["School", "9-12\n1-3"]] };
    const d = readDocument(JSON.stringify({ schedule_of_services_breakdown: table, fading_plan_phases: [{ phase: "P\r\n1", description: "Two\nlines" }], strengths: "Kind" }));
    expect(d.schedule_of_services_breakdown.table_rows).toEqual([["School", "9-12 1-3"]]);
    // Only the refused value is made readable: the description beside it keeps its lines (probe 8925 §1).
    expect(d.fading_plan_phases).toEqual([expect.objectContaining({ phase: "P 1", description: "Two\nlines" })]);
    expect(d.strengths).toBe("Kind");
  });
});

describe("parseItem (list-and-form add)", () => {
  it.each([
    ["interventions", { title: "DRO", description: "" }, LIST_MESSAGES.incomplete, { description: "Description is required." }],
    ["physical_and_medical", { medication: "Risperidone" }, LIST_MESSAGES.incomplete, { dose: "Dose is required." }],
    ["prevalent_setting_event_and_antecedents", { prevalent_setting_event_and_antecedent: "Noise", behavior: "", hypothesized_functions: [] }, LIST_MESSAGES.incomplete, { behavior: "Behavior list is required." }],
    ["documents_reviewed", { title: "IEP", status: "maybe" }, "Choose a document status: pending, reviewing, yes or no.", { status: "Choose a document status: pending, reviewing, yes or no." }],
  ] as const)("%s %j", (key, raw, message, someErrors) => {
    const r = parseItem(key, raw);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.message).toBe(message);
      expect(r.errors).toMatchObject(someErrors);
    }
  });

  it.each([
    ["documents_reviewed", { title: "IEP" }, { title: "IEP", status: "no" }],
    ["prevalent_setting_event_and_antecedents", { prevalent_setting_event_and_antecedent: "Noise", behavior: "Crying\nHitting", hypothesized_functions: ["escape", "attention"] }, { behavior: ["Crying", "Hitting"], hypothesized_functions: ["attention", "escape"] }],
    // One entry per line, as the label says: a comma stays inside its entry, so an untouched save keeps "Hitting, kicking".
    ["prevalent_setting_event_and_antecedents", { prevalent_setting_event_and_antecedent: "Noise", behavior: "Hitting, kicking; biting\r\nCrying", hypothesized_functions: ["escape"] }, { behavior: ["Hitting, kicking; biting", "Crying"] }],
    ["recommendations", { cpt: "97153", num_units: "120", breakdown_per_week: "5 h", location: "Home", description_service: "RBT" }, { num_units: 120 }],
    ["assestment_evaluation_settings", { tangible: "Toys", activities: "Play", other: "" }, { other: null }],
  ] as const)("accepts %s %j", (key, raw, expected) => {
    const r = parseItem(key, raw);
    expect(r.ok && r.item).toMatchObject(expected);
  });
});

describe("tabs and forms", () => {
  it("put every document field and list section on exactly one tab", () => {
    const placed = BIP_TABS.flatMap((t) => [...t.fields, ...t.lists, ...t.tables]);
    expect(placed.sort()).toEqual([...DOCUMENT_KEYS].sort());
    expect(new Set(placed).size).toBe(placed.length);
    for (const key of LIST_SECTION_KEYS) expect(BIP_TABS.find((t) => t.id === tabOf(key))!.lists).toContain(key);
  });

  it("unflattens dotted form names", () => {
    expect(unflatten({ "crisis_plan.description": "d", "consent_to_treatment.analyst_1.signature": "A", strengths: "s" })).toEqual({
      crisis_plan: { description: "d" },
      consent_to_treatment: { analyst_1: { signature: "A" } },
      strengths: "s",
    });
  });

  it("caps a posted grid one past the limits, so the schema refuses it", () => {
    const t = tableFromForm({ "header.0": "a", "header.5000000": "b", "cell.9000000.0": "x" });
    expect(t.table_headers).toHaveLength(13);
    expect(parseWith(BipDocumentSchema, { schedule_of_services_breakdown: t }).ok).toBe(false);
  });

  it("ignores prototype keys in form names", () => {
    const out = unflatten({ "__proto__.polluted": "yes", "constructor.prototype.x": "1", "crisis_plan.__proto__": "z", strengths: "s" });
    expect(out).toEqual({ strengths: "s" });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("reads a posted table grid and drops blank rows", () => {
    expect(tableFromForm({ "header.0": "Setting", "header.1": "Mon", "cell.0.0": "School", "cell.0.1": "8-3", "cell.1.0": " ", "cell.1.1": "", "cell.2.0": "Home" })).toEqual({
      table_headers: ["Setting", "Mon"],
      table_rows: [
        ["School", "8-3"],
        ["Home", ""],
      ],
    });
  });
});

describe("a text section that is not an object (probe, stop 24: no validator wording)", () => {
  it.each([["crisis_plan"], ["school_services_justification"]])("%s as text is refused in the product's words", (key) => {
    const r = parseWith(BipDocumentSchema, { [key]: "just text" });
    expect(r.ok).toBe(false);
    const messages = r.ok ? [] : Object.values(r.errors);
    expect(messages).toContain("This section must be an object of texts (field: text).");
    expect(messages.join(" ")).not.toMatch(/Expected|Invalid type/);
  });
});
