import { describe, expect, it } from "vitest";
import { POS_CODES } from "~/domain/locations";
import { noteFormToBody } from "~/domain/note-form";
import {
  addressForms,
  AI_SUMMARY_ERROR,
  builtInSummary,
  CAREGIVER_POS_CODES,
  MISSING_FIELDS_INTRO,
  MISSING_FIELDS_TITLE,
  normalizePos,
  noteFacts,
  scrubFreeText,
  summaryPrecheck,
  summaryPrecheckErrors,
  summaryPrompt,
} from "~/domain/note-summary";

type Body = Record<string, unknown> & { content: Record<string, unknown> };

const base = { diagnosis_code: "F84.0", pos: "12", time_in: "09:00", time_out: "11:00", time_in2: null, time_out2: null };

function rbt(): Body {
  return {
    ...base,
    type: "rbt",
    cpt_code: "97153",
    content: {
      participants: "Mother, RBT",
      environmental_changes: "None",
      maladaptives: [
        { plan_id: 1, name: "Aggression", frequency: 4 },
        { plan_id: 2, name: "Elopement", frequency: 0 },
      ],
      replacements: [{ plan_id: 3, name: "Manding", total_trials: 10, correct_responses: 8 }],
      interventions: ["DRA", "Token economy"],
      client_appeared: "Happy",
      as_evidenced_by: "smiling and engaging with peers",
      rbt_modeled_and_demonstrated_to_caregiver: "first-then board",
      client_response_to_treatment_this_session: "the client responded well to prompting",
      next_session_is_scheduled_for: "2026-03-16",
    },
  };
}

function bcba97151(subtype: string): Body {
  return { ...base, type: "bcba", cpt_code: "97151", subtype, content: { procedure: "Direct observation", assessment_tools: "VB-MAPP", intake_outcome: "Baseline established" } };
}

function bcba97155(): Body {
  return {
    ...base,
    type: "bcba",
    cpt_code: "97155",
    content: {
      participants: "RBT, BCBA",
      environmental_changes: "New seating",
      maladaptives: [{ plan_id: 1, name: "Aggression", frequency: 2 }],
      replacement_percentages: [{ plan_id: 3, name: "Manding", percent: 60 }],
      protocol_modifications: [{ name: "Prompt fading", assessed: true, modified: false, demonstrated: false }],
      other_protocol: "",
      other_protocol_details: "",
      why_was_the_protocol_modified_or_not_modified: "Data show steady progress",
      describe_in_detail_the_protocol_modifications: "No change to prompt levels",
      progress_noted_this_session_compared_to_previous_session: "Manding improved",
    },
  };
}

function bcba97156(pos = "12"): Body {
  return {
    ...base,
    pos,
    type: "bcba",
    cpt_code: "97156",
    content: {
      participants: "Mother",
      environmental_changes: "None",
      caregiver_goals: [{ plan_id: 9, name: "Use first-then language", percent: 70 }],
      demonstrated_replacement_protocols: ["Manding"],
      demonstrated_intervention_protocols: ["DRA"],
      discussed_behaviors: ["Aggression"],
      progress_noted_this_session_compared_to_previous_session: "Mother used the strategy more consistently",
    },
  };
}

/** A body with one change applied (a content key when it starts with "content."). */
function without(body: Body, change: (b: Body) => void): Body {
  const copy = structuredClone(body);
  change(copy);
  return copy;
}

describe("AI summary pre-check (clinical §5)", () => {
  it("has the dialog's texts verbatim", () => {
    expect(MISSING_FIELDS_TITLE).toBe("Missing Required Fields");
    expect(MISSING_FIELDS_INTRO).toBe("Please complete the required fields below before generating the AI summary:");
    expect(AI_SUMMARY_ERROR).toBe("Error generating AI summary. Please try again.");
  });

  it.each([
    ["RBT 97153", rbt()],
    ["BCBA 97151 observation", bcba97151("observation")],
    ["BCBA 97151 report without the observation fields", { ...bcba97151("report"), content: {} }],
    ["BCBA 97155", bcba97155()],
    ["BCBA 97156 at home", bcba97156("12")],
    ["BCBA 97156 at school without caregiver goals", without(bcba97156("03"), (b) => delete b.content.caregiver_goals)],
    ["combined 97153 by the RBT rules", { ...rbt(), type: "combined" }],
    ["combined 97155 by the BCBA rules", { ...bcba97155(), type: "combined" }],
    ["the second time pair alone", { ...rbt(), time_in: null, time_out: null, time_in2: "13:00", time_out2: "14:00" }],
    ["a POS sent as a word (legacy client)", { ...rbt(), pos: "home" }],
    ["content fields at the top level (legacy client)", (() => { const b = rbt(); const { content, ...rest } = b; return { ...rest, ...content, content: {} }; })()],
    ["legacy replacement names totalTrials/correctResponses", without(rbt(), (b) => (b.content.replacements = [{ name: "Manding", totalTrials: "10", correctResponses: "8" }]))],
  ])("%s: complete, nothing missing", (_label, body) => {
    expect(summaryPrecheck(body)).toEqual([]);
  });

  it("without a CPT code reports only that", () => {
    expect(summaryPrecheck({ content: {} })).toEqual(["CPT Code"]);
    expect(summaryPrecheck({ ...rbt(), cpt_code: "" })).toEqual(["CPT Code"]);
    expect(summaryPrecheck({ ...rbt(), cpt_code: "  " })).toEqual(["CPT Code"]);
  });

  const cases: [string, Body, (b: Body) => void, string[]][] = [
    // shared
    ["diagnosis", rbt(), (b) => (b.diagnosis_code = ""), ["Diagnosis Code"]],
    ["POS", rbt(), (b) => (b.pos = ""), ["POS"]],
    ["session time: no pair", rbt(), (b) => ((b.time_in = null), (b.time_out = null)), ["Session Time"]],
    ["session time: a start without an end", rbt(), (b) => ((b.time_out = null), (b.time_in2 = "13:00")), ["Session Time"]],
    ["session time: not a time", rbt(), (b) => (b.time_out = "25:00"), ["Session Time"]],
    // 97151
    ["97151 assessment type", bcba97151("observation"), (b) => (b.subtype = null), ["Assessment Type"]],
    ["97151 procedure", bcba97151("observation"), (b) => (b.content.procedure = ""), ["Procedure"]],
    ["97151 assessment tools", bcba97151("observation"), (b) => (b.content.assessment_tools = " "), ["Assessment Tools"]],
    ["97151 intake and outcome", bcba97151("observation"), (b) => delete b.content.intake_outcome, ["Intake and Outcome Measurements"]],
    ["97151 all three", bcba97151("observation"), (b) => (b.content = {}), ["Procedure", "Assessment Tools", "Intake and Outcome Measurements"]],
    // 97155
    ["97155 participants", bcba97155(), (b) => (b.content.participants = ""), ["Participants"]],
    ["97155 environmental changes", bcba97155(), (b) => (b.content.environmental_changes = ""), ["Environmental Changes"]],
    ["97155 maladaptive values", bcba97155(), (b) => (b.content.maladaptives = [{ name: "Aggression", frequency: null }]), ["You must enter at least one value in the Maladaptives section"]],
    ["97155 replacement values", bcba97155(), (b) => (b.content.replacement_percentages = []), ["You must enter at least one value in the Replacements section"]],
    ["97155 protocol modification", bcba97155(), (b) => (b.content.protocol_modifications = [{ name: "Prompt fading", assessed: false, modified: false, demonstrated: false }]), ["At least one protocol modification must be made"]],
    ["97155 other protocol details", bcba97155(), (b) => (b.content.other_protocol = "Visual schedule"), ["Other Protocol Details"]],
    ["97155 why modified", bcba97155(), (b) => (b.content.why_was_the_protocol_modified_or_not_modified = ""), ["Why was the protocol modified or not modified"]],
    ["97155 describe in detail", bcba97155(), (b) => (b.content.describe_in_detail_the_protocol_modifications = ""), ["Describe in Detail the protocol modification"]],
    ["97155 progress", bcba97155(), (b) => (b.content.progress_noted_this_session_compared_to_previous_session = ""), ["Progress noted this session compared to previous session"]],
    // 97156
    ["97156 caregiver goals at home", bcba97156("12"), (b) => (b.content.caregiver_goals = []), ["Caregiver Goals"]],
    ["97156 caregiver goals by telehealth", bcba97156("02"), (b) => (b.content.caregiver_goals = [{ name: "Praise", percent: null }]), ["Caregiver Goals"]],
    ["97156 demonstrated replacement protocols", bcba97156(), (b) => (b.content.demonstrated_replacement_protocols = []), ["Demonstrated Replacement Protocols"]],
    ["97156 demonstrated intervention protocols", bcba97156(), (b) => delete b.content.demonstrated_intervention_protocols, ["Demonstrated Intervention Protocols"]],
    ["97156 discussed behaviors", bcba97156(), (b) => (b.content.discussed_behaviors = [""]), ["Discussed Behaviors"]],
    ["97156 participants", bcba97156(), (b) => (b.content.participants = ""), ["Participants"]],
    ["97156 environmental changes", bcba97156(), (b) => (b.content.environmental_changes = ""), ["Environmental Changes"]],
    ["97156 progress", bcba97156(), (b) => (b.content.progress_noted_this_session_compared_to_previous_session = ""), ["Progress noted this session compared to previous session"]],
    // 97153 on a BCBA note; an unknown CPT
    ["97153 on a BCBA note", bcba97155(), (b) => (b.cpt_code = "97153"), ["THIS CPT HAS NOT BEEN IMPLEMENTED YET"]],
    ["an unknown CPT on a combined note", { ...rbt(), type: "combined" }, (b) => (b.cpt_code = "90837"), ["THIS CPT HAS NOT BEEN IMPLEMENTED YET"]],
    // RBT
    ["RBT no maladaptive", rbt(), (b) => (b.content.maladaptives = []), ["Complete Maladaptive Behavior Data"]],
    ["RBT a maladaptive without frequency", rbt(), (b) => ((b.content.maladaptives as Record<string, unknown>[])[1]!.frequency = null), ["Complete Maladaptive Behavior Data"]],
    ["RBT a maladaptive without behavior", rbt(), (b) => ((b.content.maladaptives as Record<string, unknown>[])[0]!.name = ""), ["Complete Maladaptive Behavior Data"]],
    ["RBT no replacement", rbt(), (b) => delete b.content.replacements, ["Complete Replacement Behavior Data"]],
    ["RBT replacement trials not numeric", rbt(), (b) => ((b.content.replacements as Record<string, unknown>[])[0]!.total_trials = "ten"), ["Complete Replacement Behavior Data"]],
    ["RBT replacement without correct responses", rbt(), (b) => ((b.content.replacements as Record<string, unknown>[])[0]!.correct_responses = null), ["Complete Replacement Behavior Data"]],
    ["RBT interventions", rbt(), (b) => (b.content.interventions = []), ["Interventions"]],
    ["RBT mood", rbt(), (b) => (b.content.client_appeared = ""), ["Mood"]],
    ["RBT evidenced by", rbt(), (b) => (b.content.as_evidenced_by = ""), ["Evidenced By"]],
    ["RBT progress noted", rbt(), (b) => (b.content.client_response_to_treatment_this_session = ""), ["Progress Noted"]],
    ["RBT modeled", rbt(), (b) => (b.content.rbt_modeled_and_demonstrated_to_caregiver = ""), ["RBT Modeled and Demonstrated to Caregiver"]],
    ["combined 97153 uses the RBT rules", { ...rbt(), type: "combined" }, (b) => (b.content.client_appeared = ""), ["Mood"]],
    ["combined 97156 uses the BCBA rules", { ...bcba97156(), type: "combined" }, (b) => (b.content.discussed_behaviors = []), ["Discussed Behaviors"]],
  ];
  it.each(cases)("%s is reported", (_label, body, change, expected) => {
    expect(summaryPrecheck(without(body, change))).toEqual(expected);
  });

  it.each(cases)("%s is reported at one field of the body too (errors)", (_label, body, change, expected) => {
    const errors = summaryPrecheckErrors(without(body, change));
    expect(Object.keys(errors)).toHaveLength(expected.length);
    for (const [field, message] of Object.entries(errors)) {
      expect(field).toMatch(/^(cpt_code|diagnosis_code|pos|time_in|subtype|content\.[a-z_]+)$/);
      expect(expected.some((label) => message === `${label} is required.` || message === `${label}.`), message).toBe(true);
    }
  });

  it("errors name the fields of an empty RBT note, and none for a complete one", () => {
    expect(summaryPrecheckErrors({ type: "rbt", cpt_code: "97153", content: {} })).toEqual({
      diagnosis_code: "Diagnosis Code is required.",
      pos: "POS is required.",
      time_in: "Session Time is required.",
      "content.maladaptives": "Complete Maladaptive Behavior Data.",
      "content.replacements": "Complete Replacement Behavior Data.",
      "content.interventions": "Interventions is required.",
      "content.client_appeared": "Mood is required.",
      "content.as_evidenced_by": "Evidenced By is required.",
      "content.client_response_to_treatment_this_session": "Progress Noted is required.",
      "content.rbt_modeled_and_demonstrated_to_caregiver": "RBT Modeled and Demonstrated to Caregiver is required.",
    });
    expect(summaryPrecheckErrors({})).toEqual({ cpt_code: "CPT Code is required." });
    expect(summaryPrecheckErrors(rbt())).toEqual({});
  });

  it("an empty RBT note lists everything in the spec's order", () => {
    expect(summaryPrecheck({ type: "rbt", cpt_code: "97153", content: {} })).toEqual([
      "Diagnosis Code",
      "POS",
      "Session Time",
      "Complete Maladaptive Behavior Data",
      "Complete Replacement Behavior Data",
      "Interventions",
      "Mood",
      "Evidenced By",
      "Progress Noted",
      "RBT Modeled and Demonstrated to Caregiver",
    ]);
  });

  it("caregiver goals are required only at the caregiver places of service", () => {
    for (const { code } of POS_CODES) {
      const missing = summaryPrecheck(without(bcba97156(code), (b) => (b.content.caregiver_goals = [])));
      expect(missing, code).toEqual(CAREGIVER_POS_CODES.includes(code) ? ["Caregiver Goals"] : []);
    }
    expect(CAREGIVER_POS_CODES).toEqual(["02", "10", "11", "12"]);
  });

  it("reads a note form the same way (noteFormToBody)", () => {
    const form: [string, string][] = [
      ["type", "rbt"], ["cpt_code", "97153"], ["diagnosis_code", "F84.0"], ["pos", "12"], ["time_in", "09:00"], ["time_out", "10:00"],
      ["content.maladaptives[0].name", "Aggression"], ["content.maladaptives[0].frequency", "3"],
      ["content.replacements[0].name", "Manding"], ["content.replacements[0].total_trials", "10"], ["content.replacements[0].correct_responses", "7"],
      ["content.interventions[]", "DRA"], ["content.client_appeared", "Calm"], ["content.as_evidenced_by", "smiling"],
      ["content.client_response_to_treatment_this_session", "good"], ["content.rbt_modeled_and_demonstrated_to_caregiver", "praise"],
    ];
    expect(summaryPrecheck(noteFormToBody(form))).toEqual([]);
    expect(summaryPrecheck(noteFormToBody(form.filter(([n]) => n !== "content.maladaptives[0].frequency")))).toEqual(["Complete Maladaptive Behavior Data"]);
  });
});

describe("POS normalisation", () => {
  it.each([
    ["02", "telehealth"],
    ["03", "school"],
    ["10", "telehealth in patient home"],
    ["11", "office"],
    ["12", "home"],
    ["99", "other"],
    ["Home", "home"],
    [12, "home"],
    ["", ""],
    ["42", ""],
  ])("%s → %s", (pos, word) => {
    expect(normalizePos(pos)).toBe(word);
  });

  it("is the locations' POS labels in lower case", () => {
    for (const { code, label } of POS_CODES) expect(normalizePos(code)).toBe(label.toLowerCase());
  });
});

/** Everything that would identify the client or the session, put where a careless summariser would copy it. */
function identifyingBody(body: Body): Body {
  const b = structuredClone(body);
  Object.assign(b, {
    patient_id: 4711,
    patient_name: "Jane Doe",
    first_name: "Jane",
    last_name: "Doe",
    patient_identifier: "PAT-88231",
    insurance_identifier: "MCD998877",
    insurance_name: "Sunshine Health",
    birth_date: "2019-04-02",
    session_date: "2026-03-14",
    provider_name: "Ann Smith",
    supervisor_name: "Robert Brown",
    diagnosis_code: "F84.0",
  });
  Object.assign(b.content, {
    participants: "Mother (Maria Doe), RBT Ann Smith",
    environmental_changes: "Jane's family moved furniture on 03/14/2026 at 10:30 am.",
    client_appeared: "Happy",
    as_evidenced_by: "Jane smiled at 9:15 and engaged, see ID 123456, call 555-1234 or maria@example.com",
    client_response_to_treatment_this_session: "Doe responded well on Monday, March 14th, 2026 (CPT 97153, F84.0, member MCD998877)",
    rbt_modeled_and_demonstrated_to_caregiver: "Modeled first-then board with Maria and Robert Brown at 3pm, Sunshine Health plan",
    why_was_the_protocol_modified_or_not_modified: "Jane met criteria on 3/1",
    progress_noted_this_session_compared_to_previous_session: "Better than 2026-03-07 session with Jane Doe",
  });
  return b;
}

const FORBIDDEN: [string, RegExp][] = [
  ["client's first name", /\bJane\b/i],
  ["client's last name", /\bDoe\b/i],
  ["caregiver's name", /\bMaria\b/i],
  ["provider's name", /\bAnn\b|\bSmith\b/i],
  ["supervisor's name", /\bRobert\b|\bBrown\b/i],
  ["insurance", /Sunshine|MCD|998877/i],
  ["identifier", /PAT-|88231|4711|123456/],
  ["a date", /\d{1,4}[/-]\d{1,2}|\b(?:march|mar)\b\s*\d|\bmonday\b|\b20\d\d\b/i],
  ["a time", /\d{1,2}:\d{2}|\b\d{1,2}\s?(?:am|pm)\b/i],
  ["a CPT code", /\b9\d{4}\b/],
  ["a diagnosis code", /F84/i],
  ["a phone number", /555/],
  ["an email", /@/],
];

function sentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+/).filter(Boolean);
}

describe("the built-in summariser", () => {
  const bodies: [string, Body][] = [
    ["RBT", rbt()],
    ["97151 observation", bcba97151("observation")],
    ["97151 report", bcba97151("report")],
    ["97155", bcba97155()],
    ["97156", bcba97156()],
    ["combined 97153", { ...rbt(), type: "combined" }],
    ["a sparse RBT note", { type: "rbt", cpt_code: "97153", pos: "03", content: {} }],
    ["a full RBT note with long lists", without(rbt(), (b) => {
      b.content.interventions = Array.from({ length: 30 }, (_, i) => `Intervention ${String.fromCharCode(65 + i)}`);
      b.content.environmental_changes = "Noise. ".repeat(200);
    })],
  ];

  it.each(bodies)("%s: one paragraph of 5 to 9 sentences", (_label, body) => {
    const text = builtInSummary(body);
    expect(text).not.toMatch(/\n/);
    const n = sentences(text).length;
    expect(n, text).toBeGreaterThanOrEqual(5);
    expect(n, text).toBeLessThanOrEqual(9);
    expect(text.length).toBeLessThan(3000);
  });

  it.each([
    ["12", "Met with client at home"],
    ["03", "Met with client at school"],
    ["11", "Met with client at the clinic office"],
    ["02", "Met with client at a telehealth session"],
  ])("an RBT note at POS %s starts %j", (pos, start) => {
    expect(builtInSummary({ ...rbt(), pos })).toMatch(new RegExp(`^${start}\\b`));
    expect(builtInSummary({ ...rbt(), type: "combined", pos })).toMatch(new RegExp(`^${start}\\b`));
  });

  it("writes from the note's data", () => {
    const text = builtInSummary(rbt());
    expect(text).toContain("aggression observed 4 times");
    expect(text).toContain("manding at 8 of 10 trials correct (80%)");
    expect(text).toContain("DRA and token economy");
    expect(text).toContain("appeared happy, as evidenced by smiling and engaging with peers");
    expect(text).toContain("with the mother and the RBT present");
    expect(builtInSummary(bcba97156())).toContain("use first-then language achieved at 70%");
    expect(builtInSummary(bcba97155())).toContain("Protocols were reviewed, with prompt fading assessed");
    expect(builtInSummary(bcba97155())).toContain("Compared to the previous session, manding improved");
    expect(builtInSummary(bcba97151("observation"))).toContain("Assessment tools used included VB-MAPP");
  });

  it.each(bodies.slice(0, 6))("%s: no name, identifier, date, time or code even when the body holds them", (_label, body) => {
    const text = builtInSummary(identifyingBody(body));
    for (const [what, re] of FORBIDDEN) expect(text, `${what} in: ${text}`).not.toMatch(re);
    expect(sentences(text).length).toBeGreaterThanOrEqual(5);
    expect(sentences(text).length).toBeLessThanOrEqual(9);
  });

  it("calls the client 'the client' where free text named them", () => {
    expect(builtInSummary(identifyingBody(rbt()))).toContain("as evidenced by the client smiled");
  });
});

describe("free text scrubbing", () => {
  it.each([
    ["Seen 03/14/2026 at 10:30", "Seen"],
    ["Session on 2026-03-14, went well", "Session, went well"],
    ["Call 555-123-4567", ""],
    ["Auth #A12345 approved", "approved"],
    ["Worked on tacting 3 times", "Worked on tacting 3 times"],
    ["Accuracy 80.5% overall", "Accuracy 80.5% overall"],
    ["Met Jane. She was calm!", "Met the client, She was calm"],
    ["Jane's mother joined", "the client's mother joined"],
    ["Sent the plan to maria@example.com today", "Sent the plan"],
    ["Reviewed notes, see www.example.com/x", "Reviewed notes"],
  ])("%j → %j", (raw, out) => {
    expect(scrubFreeText(raw, { client: ["Jane"], other: [] })).toBe(out);
  });

  // Time is asserted loosely: a quadratic pattern took seconds at 50,000 characters and minutes at 200,000.
  const quickly = (raw: string, redact?: Parameters<typeof scrubFreeText>[1]) => {
    const started = performance.now();
    const out = scrubFreeText(raw, redact);
    expect(performance.now() - started).toBeLessThan(500);
    return out;
  };

  it("scrubs a 200,000-character run in well under a second, cut to 400 characters", () => {
    expect(quickly("z".repeat(200_000), { client: ["Jane"], other: [] })).toBe("z".repeat(400));
  });

  it.each([
    ["word characters after an @", `a@${"z".repeat(200_000)}`, `a@${"z".repeat(398)}`],
    ["spaces", `a${" ".repeat(200_000)}b`, "a b"],
    ["spaces and commas", `a${" ,".repeat(100_000)}b`, "a,b"],
    ["dots", `a${".".repeat(200_000)}b`, `a${".".repeat(399)}`],
    ["dashes", `a${"-".repeat(200_000)}b`, "a"],
    ["digits after a letter, then an underscore", `A${"1".repeat(200_000)}_`, `A${"1".repeat(399)}`],
  ])("stays linear on a long run of %s", (_label, raw, out) => {
    expect(quickly(raw)).toBe(out);
  });

  it("cuts every email, also one right after another", () => {
    expect(scrubFreeText("Wrote to x@y.com+z@w.org and maria@example.com")).toBe("Wrote");
  });

  // Probe 8965 §3: the stored name as first + last (as the server passes it), what the note says, what may leave.
  const client = (first: string, last: string) => ({ client: [`${first} ${last}`, first, last], other: [] });
  it.each([
    ["Isabella", "Smith-Jones", "Mrs. Jones picked Isabella up; Smith family", "Mrs, the client picked the client up, the client family"],
    ["Isabella", "Smith-Jones", "Smith–Jones and SMITH-JONES left", "the client and the client left"],
    ["Ana", "O'Brien", "O’Brien here", "the client here"],
    ["Ana", "O'Brien", "OBrien and o'brien and Oʼbrien", "the client and the client and the client"],
    ["Ana", "O'Brien", "O‘Brien’s bag", "the client's bag"],
    ["José", "O'Brien-Núñez", "José O’Brien-Núñez arrived", "the client arrived"],
    ["José", "O'Brien-Núñez", "Núñez left; NUÑEZ; nunez; o'brien; Brien", "the client left, the client, the client, the client, the client"],
    ["José", "O'Brien-Núñez", "JOSE and Jose\u0301 came", "the client and the client came"],
    // Invisible characters inside a name (a soft hyphen, a word joiner, a byte-order mark) do not hide it.
    ["Isabella", "Smith-Jones", "Jo\u00adnes and Isa\u2060bella and Sm\ufeffith came", "the client and the client and the client came"],
    // Controls: a name is not cut inside another word; space-separated names in any case; a one-letter part stays.
    ["Al", "Smith", "Also, Al came; Alvin stayed", "Also, the client came, Alvin stayed"],
    ["Mary Ann", "Lee", "mary and ANN and Annabel", "the client and the client and Annabel"],
    ["Ana", "O'Brien", "O came", "O came"],
    ["Zoë", "Ng", "Zoe and ZOË and Zoëlle", "the client and the client and Zoëlle"],
  ])("%s %s: %j → %j", (first, last, raw, out) => {
    expect(noteFacts({ content: { environmental_changes: raw } }, client(first, last)).environmentalChanges).toBe(out);
  });

  it("thousands of names cost no more than a few; each is still cut", () => {
    const names = Array.from({ length: 3000 }, (_, i) => `Name${i.toString(36)}x`);
    const out = quickly("Quinn met Sloane and Name1zx. ".repeat(150), { client: ["Quinn"], other: [...names, "Sloane"] });
    expect(out).toMatch(/^the client met, the client met/);
    expect(out).not.toMatch(/Sloane|Name1zx/);
  });
});

describe("the client's details the server knows are cut (decision 026, stop 41)", () => {
  // Chloe Moore of 114 Palm Ave, Denver 80203, insured by "Colorado Medicaid" as member MBR100213; her parent account
  // is Maria Lopez (303-555-0142, maria.lopez@example.com), and the details name her father Carlos Moore.
  const known = {
    client: ["Chloe Moore", "Chloe", "Moore"],
    other: ["Maria Lopez", "Carlos Moore"],
    identifiers: ["Denver", "80203", "MBR100213", "Colorado Medicaid", "Medicaid", "303-555-0142", "maria.lopez@example.com", "2019-04-02", "Lincoln Elementary"],
    addresses: ["114 Palm Ave, Apt 3"],
  };
  const scrubbed = (raw: string) => noteFacts({ content: { environmental_changes: raw } }, known).environmentalChanges;
  it.each([
    ["the stored address as typed", "Moved to 114 Palm Ave, Denver", "Moved"],
    ["the address in another letter case", "moved to 114 PALM AVE last week", "moved last week"],
    ["the street without the house number", "New house on Palm Ave is quieter", "New house is quieter"],
    ["the street type written out", "Moved to 114 Palm Avenue", "Moved"],
    ["the street type abbreviated with a full stop", "Lives on palm ave. now", "Lives, now"],
    ["the unit on its own line part", "Upstairs in Apt 3 now", "Upstairs now"],
    ["the city alone, any case", "Trip to DENVER zoo", "Trip zoo"],
    ["the insurer's name", "after her Medicaid visit", "after her visit"],
    ["the insurer's full name", "Colorado Medicaid approved more hours", "approved more hours"],
    ["the school", "Started at lincoln elementary", "Started"],
    ["the member id and the ZIP", "member MBR100213, zip 80203", "zip"],
    ["the parent account's phone and email", "Mom (303-555-0142, maria.lopez@example.com) joined", "Mom joined"],
    ["the client's and the parents' names as before", "Chloe hugged Maria Lopez and Carlos", "the client hugged"],
    // Decision 026 accepts it: a name the server does not know, not capitalised in the participants field, stays.
    ["a relative's name the server does not know stays", "Chloe's aunt Beatriz Alvarez came", "the client's aunt Beatriz Alvarez came"],
    // A word that only shares a part of a stored detail stays.
    ["a palm tree is not the street", "Drew a palm tree and Denverite", "Drew a palm tree and Denverite"],
  ])("%s: %j → %j", (_label, raw, out) => {
    expect(scrubbed(raw)).toBe(out);
  });

  it.each([
    ["114 Palm Ave, Apt 3", ["114 Palm Ave, Apt 3", "114 Palm Ave", "114 Palm Avenue", "114 Palm Av", "Palm Ave", "Palm Avenue", "Palm Av", "Apt 3"]],
    ["2200 N Main Street Suite 5", ["2200 N Main Street Suite 5", "2200 N Main Street", "2200 N Main St", "N Main Street", "N Main St"]],
    // Without a word of three letters that is not a street type, a form is left out (it would cut common words).
    ["5 St", []],
    ["12 Oak Rd", ["12 Oak Rd", "12 Oak Road", "Oak Rd", "Oak Road"]],
  ])("the forms of the address %j", (raw, forms) => {
    expect(new Set(addressForms(raw))).toEqual(new Set(forms));
  });
});

describe("the prompt for remote providers", () => {
  it.each([
    ["RBT", rbt()],
    ["97151", bcba97151("observation")],
    ["97155", bcba97155()],
    ["97156", bcba97156()],
  ])("%s: sends the facts and no identifiers", (_label, body) => {
    const { system, user } = summaryPrompt(identifyingBody(body));
    for (const [what, re] of FORBIDDEN) expect(user, `${what} in: ${user}`).not.toMatch(re);
    expect(system).toMatch(/5 to 9 sentences/);
    expect(system).toMatch(/Never include names, identifiers, dates, times, insurance details or billing codes/);
    expect(system).not.toMatch(/\b9\d{4}\b/);
  });

  it("asks an RBT summary to start 'Met with client at' the place", () => {
    const { system, user } = summaryPrompt(rbt());
    expect(system).toContain("'Met with client at'");
    expect(user).toContain("Opening phrase for an rbt session: Met with client at home");
    expect(user).toContain("Aggression (4)");
    expect(user).toContain("Manding (8 of 10)");
  });

  it("the facts hold the place as a word and the service in words, never the code", () => {
    const facts = noteFacts(identifyingBody(rbt()));
    expect(facts.place).toBe("home");
    expect(facts.service).toBe("adaptive behavior treatment by protocol");
    expect(JSON.stringify(facts)).not.toMatch(/97153|Jane|Doe|Maria|2026/);
  });
});
