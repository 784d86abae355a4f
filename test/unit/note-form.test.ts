import { describe, expect, it } from "vitest";
import { measuredRowsOnly, noteBodyToFormFields, noteFormToBody, providerNameFor } from "~/domain/note-form";

describe("a note form's fields become the note body the API takes", () => {
  it("reads top-level fields, ids as numbers, blanks of nullable fields as null and the telehealth box", () => {
    const body = noteFormToBody([
      ["intent", "save"],
      ["form_token", "t1"],
      ["type", "rbt"],
      ["patient_id", "12"],
      ["pa_service_id", "3"],
      ["supervisor_id", ""],
      ["time_in", "09:00"],
      ["time_out", "11:30"],
      ["time_in2", ""],
      ["cpt_code", "97153"],
    ]);
    expect(body).toEqual({
      type: "rbt",
      patient_id: 12,
      pa_service_id: 3,
      supervisor_id: null,
      time_in: "09:00",
      time_out: "11:30",
      time_in2: null,
      cpt_code: "97153",
      is_telehealth: false,
      content: {},
    });
  });

  it("keeps a value that does not read as a number as typed, for the schema to refuse", () => {
    expect(noteFormToBody([["patient_id", "12a"]]).patient_id).toBe("12a");
    expect(noteFormToBody([["content.maladaptives[0].frequency", "lots"], ["content.maladaptives[0].name", "Aggression"]]).content).toEqual({
      maladaptives: [{ frequency: "lots", name: "Aggression" }],
    });
  });

  it("builds lists of entries in index order, dropping blank entries, with numbers and checkboxes", () => {
    const body = noteFormToBody([
      ["content.replacements[2].name", "Manding"],
      ["content.replacements[2].plan_id", "7"],
      ["content.replacements[2].total_trials", "10"],
      ["content.replacements[2].correct_responses", "7"],
      ["content.replacements[0].name", "Tacting"],
      ["content.replacements[0].plan_id", "6"],
      ["content.replacements[0].total_trials", "4"],
      ["content.replacements[0].correct_responses", "2.5"],
      ["content.replacements[1].name", ""],
      ["content.replacements[1].total_trials", ""],
      ["content.protocol_modifications[0].name", "DRA"],
      ["content.protocol_modifications[0].modified", "on"],
      ["content.interventions[]", "Prompting"],
      ["content.interventions[]", ""],
      ["content.interventions[]", "Token economy"],
      ["content.participants", "Mother"],
      ["is_telehealth", "on"],
    ]);
    expect(body.is_telehealth).toBe(true);
    expect(body.content).toEqual({
      replacements: [
        { name: "Tacting", plan_id: 6, total_trials: 4, correct_responses: 2.5 },
        { name: "Manding", plan_id: 7, total_trials: 10, correct_responses: 7 },
      ],
      protocol_modifications: [{ name: "DRA", modified: true, assessed: false, demonstrated: false }],
      interventions: ["Prompting", "Token economy"],
      participants: "Mother",
    });
  });

  it("round-trips a body through form fields", () => {
    const body = {
      type: "bcba",
      patient_id: 4,
      cpt_code: "97155",
      time_in: "13:00",
      is_telehealth: true,
      content: {
        participants: "Father, RBT",
        maladaptives: [{ plan_id: 3, name: "Elopement", frequency: 2 }],
        discussed_behaviors: ["Elopement"],
        protocol_modifications: [{ name: "FCT", assessed: true, modified: false, demonstrated: true }],
      },
    };
    expect(noteFormToBody(noteBodyToFormFields(body))).toEqual(body);
  });
});

describe("the provider's typed name on a new note follows the provider chosen (probe 8903 §7)", () => {
  const self = { id: 2, name: "Marcus Reed" };
  it.each([
    ["the writer is the provider, nothing typed: their name", "2", "", "Marcus Reed"],
    ["the writer is the provider, a name typed: kept", "2", "M. Reed", "M. Reed"],
    ["another provider, the writer's name typed: cleared", "6", "Marcus Reed", ""],
    ["another provider, the writer's name with spaces: cleared", "6", " Marcus Reed ", ""],
    ["another provider, their name typed: kept", "6", "Elena Moreno", "Elena Moreno"],
    ["no provider chosen yet, the writer's name: cleared", "", "Marcus Reed", ""],
  ])("%s", (_label, provider, typed, shown) => {
    expect(providerNameFor(provider, typed, self)).toBe(shown);
  });
});

describe("a goal row left blank was not measured: its fields are not what the user typed (decision 025)", () => {
  const row = (list: string, i: number, measures: Record<string, string>): [string, string][] => [
    [`content.${list}[${i}].plan_id`, String(10 + i)],
    [`content.${list}[${i}].name`, `Goal ${i}`],
    ...Object.entries(measures).map(([f, v]) => [`content.${list}[${i}].${f}`, v] as [string, string]),
  ];
  const cases: { what: string; fields: [string, string][]; kept: boolean }[] = [
    { what: "a frequency typed", fields: row("maladaptives", 0, { frequency: "3" }), kept: true },
    { what: "a frequency of 0", fields: row("maladaptives", 0, { frequency: "0" }), kept: true },
    { what: "a blank frequency", fields: row("maladaptives", 0, { frequency: "  " }), kept: false },
    { what: "trials typed, correct blank", fields: row("replacements", 1, { total_trials: "10", correct_responses: "" }), kept: true },
    { what: "trials and correct blank", fields: row("replacements", 1, { total_trials: "", correct_responses: "" }), kept: false },
    { what: "a percent typed", fields: row("caregiver_goals", 0, { percent: "40" }), kept: true },
    { what: "a blank percent", fields: row("replacement_percentages", 2, { percent: "" }), kept: false },
    { what: "a box ticked", fields: row("protocol_modifications", 0, { modified: "on" }), kept: true },
    { what: "no box ticked", fields: row("protocol_modifications", 0, {}), kept: false },
  ];
  it.each(cases)("$what: kept $kept", ({ fields, kept }) => {
    const other: [string, string][] = [["time_out", "14:45"], ["content.summary_note", "Typed"], ["content.interventions[]", "Redirection"]];
    expect(measuredRowsOnly([...other, ...fields])).toEqual(kept ? [...other, ...fields] : other);
  });

  it("each row by itself: a blank row beside a measured one of the same list goes, the measured one stays", () => {
    const fields = [...row("maladaptives", 0, { frequency: "" }), ...row("maladaptives", 1, { frequency: "2" })];
    expect(measuredRowsOnly(fields)).toEqual(row("maladaptives", 1, { frequency: "2" }));
  });
});
