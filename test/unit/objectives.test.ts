import { describe, expect, it } from "vitest";
import {
  errorsOnFormRows,
  moveObjective,
  objectiveLabels,
  ObjectiveInput,
  objectiveRowsFromForm,
  OBJECTIVE_MESSAGES,
  ObjectiveStatusInput,
  placeNewObjective,
  placeNewObjectives,
  reindex,
  removeObjective,
  reorderObjectives,
  ReorderInput,
  sortObjectives,
  stepObjective,
  type Placed,
} from "~/domain/objectives";
import { LIST_MESSAGES } from "~/domain/list-sections";
import { parseWith } from "~/domain/validation";

/** Objective ordering rules (clinical §3, §4) and the objective schema. */

/** "S1 S2 L3": STO id 1 at 1, STO id 2 at 2, LTO id 3 at 3. "S1@5" gives a stored position. */
function L(spec: string): Placed[] {
  return spec
    .split(/\s+/)
    .filter(Boolean)
    .map((t, i) => {
      const m = /^([SL])(\d+)(?:@(\d+))?$/.exec(t)!;
      return { id: Number(m[2]), type: m[1] === "L" ? "LTO" : "STO", position: m[3] ? Number(m[3]) : i + 1 };
    });
}
/** The order as "S1 S2 L3" (positions are then 1..n). */
function show(order: Placed[]): string {
  order.forEach((o, i) => expect(o.position).toBe(i + 1));
  return order.map((o) => `${o.type === "LTO" ? "L" : "S"}${o.id}`).join(" ");
}
const secondLto = { type: OBJECTIVE_MESSAGES.secondLto };

describe("placeNewObjective (new objectives are id 0 in the order)", () => {
  it.each([
    ["first STO of an empty plan", "", { type: "STO" }, 1, "S0", {}],
    ["first objective is the LTO", "", { type: "LTO" }, 1, "L0", {}],
    ["STO without a position, no LTO: after the STOs", "S1 S2", { type: "STO" }, 3, "S1 S2 S0", {}],
    ["STO without a position, with an LTO: before the LTO, the LTO moves down", "S1 S2 L3", { type: "STO" }, 3, "S1 S2 S0 L3", { 3: 4 }],
    ["STO at position 1 shifts every other one", "S1 S2 L3", { type: "STO", position: 1 }, 1, "S0 S1 S2 L3", { 1: 2, 2: 3, 3: 4 }],
    ["STO in the middle shifts the later ones", "S1 S2 S3 L4", { type: "STO", position: 2 }, 2, "S1 S0 S2 S3 L4", { 2: 3, 3: 4, 4: 5 }],
    ["STO beyond the end goes after the STOs", "S1 S2 L3", { type: "STO", position: 99 }, 3, "S1 S2 S0 L3", { 3: 4 }],
    ["STO at exactly the end", "S1 S2", { type: "STO", position: 3 }, 3, "S1 S2 S0", {}],
    ["LTO with a position still goes last", "S1 S2", { type: "LTO", position: 1 }, 3, "S1 S2 L0", {}],
    ["stored positions with repeats are renumbered (STO, LTO last)", "L3@1 S1@1 S2@1", { type: "STO" }, 3, "S1 S2 S0 L3", { 2: 2, 3: 4 }],
    ["stored gaps are closed", "S1@2 S2@7 L3@9", { type: "STO", position: 1 }, 1, "S0 S1 S2 L3", { 2: 3, 3: 4 }],
  ])("%s", (_label, list, add, position, order, moved) => {
    const r = placeNewObjective(L(list), add);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.position).toBe(position);
    expect(show(r.order)).toBe(order);
    expect(Object.fromEntries(r.changes.map((c) => [c.id, c.position]))).toEqual(moved);
  });

  it.each([["S1 L2"], ["L5"], ["S1 S2 S3 L4"]])("refuses a second LTO (%s)", (list) => {
    expect(placeNewObjective(L(list), { type: "LTO" })).toEqual({ ok: false, errors: secondLto });
  });
});

describe("removeObjective: a delete closes the gap", () => {
  it.each([
    ["a middle STO", "S1 S2 S3 L4", 2, "S1 S3 L4", { 3: 2, 4: 3 }],
    ["the first STO", "S1 S2 L3", 1, "S2 L3", { 2: 1, 3: 2 }],
    ["the LTO", "S1 S2 L3", 3, "S1 S2", {}],
    ["the last STO", "S1 S2 L3", 2, "S1 L3", { 3: 2 }],
    ["the only one", "S1", 1, "", {}],
    ["from stored gaps", "S1@3 S2@8 L3@20", 2, "S1 L3", { 1: 1, 3: 2 }],
  ])("%s", (_label, list, id, order, moved) => {
    const r = removeObjective(L(list), id);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(show(r.order)).toBe(order);
    expect(Object.fromEntries(r.changes.map((c) => [c.id, c.position]))).toEqual(moved);
  });
});

describe("moveObjective: type and position changes re-sort", () => {
  it.each([
    ["STO → LTO goes last", "S1 S2 S3", 1, { type: "LTO" }, 3, "S2 S3 L1", { 2: 1, 3: 2, 1: 3 }],
    ["LTO → STO goes after the STOs", "S1 S2 L3", 3, { type: "STO" }, 3, "S1 S2 S3", {}],
    ["LTO → STO at position 1", "S1 S2 L3", 3, { type: "STO", position: 1 }, 1, "S3 S1 S2", { 3: 1, 1: 2, 2: 3 }],
    ["STO → LTO in the middle of others", "S1 S2 S3 S4", 2, { type: "LTO" }, 4, "S1 S3 S4 L2", { 3: 2, 4: 3, 2: 4 }],
    ["an STO moved to position 1", "S1 S2 S3 L4", 3, { position: 1 }, 1, "S3 S1 S2 L4", { 3: 1, 1: 2, 2: 3 }],
    ["an STO moved down", "S1 S2 S3 L4", 1, { position: 3 }, 3, "S2 S3 S1 L4", { 2: 1, 3: 2, 1: 3 }],
    ["an STO moved beyond the STOs stays before the LTO", "S1 S2 S3 L4", 1, { position: 99 }, 3, "S2 S3 S1 L4", { 2: 1, 3: 2, 1: 3 }],
    ["no type and no position: stays where it is", "S1 S2 L3", 2, {}, 2, "S1 S2 L3", {}],
    ["same type, no position: stays", "S1 S2 L3", 1, { type: "STO", position: null }, 1, "S1 S2 L3", {}],
    ["the LTO given a position stays last", "S1 S2 L3", 3, { position: 1 }, 3, "S1 S2 L3", {}],
    ["the LTO kept as LTO", "S1 L2", 2, { type: "LTO" }, 2, "S1 L2", {}],
  ])("%s", (_label, list, id, to, position, order, moved) => {
    const r = moveObjective(L(list), id, to);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.position).toBe(position);
    expect(show(r.order)).toBe(order);
    expect(Object.fromEntries(r.changes.map((c) => [c.id, c.position]))).toEqual(moved);
  });

  it("refuses STO → LTO when the plan has an LTO", () => {
    expect(moveObjective(L("S1 S2 L3"), 1, { type: "LTO" })).toEqual({ ok: false, errors: secondLto });
  });

  it("answers not found for an objective of another plan", () => {
    expect(moveObjective(L("S1 S2"), 9, { position: 1 })).toEqual({ ok: false, errors: { objective_id: OBJECTIVE_MESSAGES.notInPlan } });
  });
});

describe("reorderObjectives: saved as given for the STOs, the LTO last", () => {
  it.each([
    ["reversed", "S1 S2 S3 L4", [3, 2, 1], "S3 S2 S1 L4", { 3: 1, 1: 3 }, undefined],
    ["unchanged", "S1 S2 L3", [1, 2], "S1 S2 L3", {}, LIST_MESSAGES.sameOrder],
    ["no LTO", "S1 S2 S3", [2, 3, 1], "S2 S3 S1", { 2: 1, 3: 2, 1: 3 }, undefined],
    ["renumbers stored gaps", "S1@4 S2@9 L3@2", [2, 1], "S2 S1 L3", { 2: 1, 1: 2, 3: 3 }, undefined],
    // The order as shown: the gaps are not worth a write (nothing the user sees moves).
    ["the shown order of stored gaps", "S1@4 S2@9 L3@2", [1, 2], "S1 S2 L3", { 1: 1, 2: 2, 3: 3 }, LIST_MESSAGES.sameOrder],
    ["an empty plan with an empty list", "", [], "", {}, LIST_MESSAGES.sameOrder],
  ])("%s", (_label, list, ids, order, moved, unchanged) => {
    const r = reorderObjectives(L(list), ids);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(show(r.order)).toBe(order);
    expect(Object.fromEntries(r.changes.map((c) => [c.id, c.position]))).toEqual(moved);
    expect(r.unchanged).toBe(unchanged);
  });

  it.each([
    ["one STO missing", [2, 1]],
    ["an STO twice", [1, 2, 2]],
    ["the LTO included", [1, 2, 3, 4]],
    ["an id of another plan", [1, 2, 9]],
    ["nothing", []],
  ])("refuses ids that are not a permutation of the STOs: %s", (_label, ids) => {
    expect(reorderObjectives(L("S1 S2 S3 L4"), ids)).toEqual({ ok: false, errors: { ids: OBJECTIVE_MESSAGES.reorder } });
  });
});

describe("stepObjective: the up/down buttons", () => {
  it.each([
    ["second STO up", "S1 S2 S3 L4", 2, "up", "S2 S1 S3 L4", undefined],
    ["first STO down", "S1 S2 S3 L4", 1, "down", "S2 S1 S3 L4", undefined],
    ["first STO up: nothing changes", "S1 S2 L3", 1, "up", "S1 S2 L3", LIST_MESSAGES.alreadyFirst],
    ["last STO down: stays before the LTO", "S1 S2 L3", 2, "down", "S1 S2 L3", LIST_MESSAGES.alreadyLast],
    ["last STO down, no LTO", "S1 S2", 2, "down", "S1 S2", LIST_MESSAGES.alreadyLast],
    ["a lone STO up", "S1 L2", 1, "up", "S1 L2", LIST_MESSAGES.alreadyFirst],
  ] as const)("%s", (_label, list, id, direction, order, unchanged) => {
    const r = stepObjective(L(list), id, direction);
    expect(r.ok && show(r.order)).toBe(order);
    expect(r.ok && r.unchanged).toBe(r.ok ? unchanged : false);
  });

  it("the LTO does not move", () => {
    expect(stepObjective(L("S1 L2"), 2, "up")).toEqual({ ok: false, errors: { objective_id: OBJECTIVE_MESSAGES.ltoStaysLast } });
  });
});

describe("placeNewObjectives: the objectives sent with a new plan", () => {
  it.each([
    [[], []],
    [[{ type: "STO" }, { type: "STO" }], [1, 2]],
    [[{ type: "LTO" }, { type: "STO" }, { type: "STO" }], [3, 1, 2]],
    [[{ type: "STO" }, { type: "LTO" }, { type: "STO", position: 1 }], [2, 3, 1]],
  ])("%j → positions %j", (items, positions) => {
    expect(placeNewObjectives(items)).toEqual({ ok: true, positions });
  });

  it("refuses a second LTO on its row", () => {
    expect(placeNewObjectives([{ type: "LTO" }, { type: "STO" }, { type: "LTO" }])).toEqual({ ok: false, errors: { "objectives.2.type": OBJECTIVE_MESSAGES.secondLto } });
  });
});

describe("sorting, labels and plan re-indexing", () => {
  it("sorts STOs by position then id, the LTO last", () => {
    expect(sortObjectives(L("L9@1 S4@2 S3@2 S1@1")).map((o) => o.id)).toEqual([1, 3, 4, 9]);
  });

  it.each([
    ["STOs by rank, a lone LTO plain", "S1@1 S2@2 S3@3 L4@4", ["STO1", "STO2", "STO3", "LTO"]],
    ["ranks, not stored positions (gaps and repeats)", "S1@2 S2@5 S3@5 L4@9", ["STO1", "STO2", "STO3", "LTO"]],
    ["several LTOs are numbered", "S1@1 L2@2 L3@3", ["STO1", "LTO1", "LTO2"]],
  ])("labels: %s", (_name, spec, labels) => {
    const list = L(spec);
    const map = objectiveLabels(list);
    expect(list.map((o) => map.get(o.id)!.label)).toEqual(labels);
  });

  it.each([
    [[], []],
    [[{ id: 1, position: 1 }, { id: 2, position: 2 }], []],
    [[{ id: 1, position: 1 }, { id: 3, position: 3 }, { id: 4, position: 4 }], [{ id: 3, position: 2 }, { id: 4, position: 3 }]],
    [[{ id: 7, position: 5 }, { id: 2, position: 5 }], [{ id: 2, position: 1 }, { id: 7, position: 2 }]],
  ])("reindex %j → %j", (list, changes) => {
    expect(reindex(list)).toEqual(changes);
  });
});

describe("ObjectiveInput", () => {
  it("defaults to an STO that has not started; empty fields are none", () => {
    const r = parseWith(ObjectiveInput, { name: "Reduce to 5 a week", target: "5", start_point: "", weeks_to_complete: "12" });
    expect(r.ok && r.data).toEqual({
      type: "STO",
      status: "not started",
      name: "Reduce to 5 a week",
      description: null,
      target: 5,
      start_point: null,
      initial_date: null,
      end_date: null,
      weeks_to_complete: 12,
      comparison_operator: null,
      position: null,
    });
  });

  it.each([
    [{ type: "lto" }, { type: "LTO" }],
    [{ type: " lto " }, { type: "LTO" }],
    [{ start_point: "   " }, { start_point: null }],
    [{ status: "on hold", comparison_operator: "<=" }, { status: "on hold", comparison_operator: "<=" }],
    [{ initial_date: "2025-01-04", end_date: "2025-03-29" }, { initial_date: "2025-01-04", end_date: "2025-03-29" }],
    [{ target: 0, start_point: 12.5, position: "2" }, { target: 0, start_point: 12.5, position: 2 }],
  ])("reads %j", (input, expected) => {
    const r = parseWith(ObjectiveInput, input);
    expect(r.ok && r.data).toMatchObject(expected);
  });

  it.each([
    [{ type: "MTO" }, "type", OBJECTIVE_MESSAGES.type],
    [{ status: "done" }, "status", OBJECTIVE_MESSAGES.status],
    // Only a missing key takes the default: null or "" reset a mastered objective on a PATCH (probe 8913).
    [{ type: "" }, "type", OBJECTIVE_MESSAGES.type],
    [{ type: null }, "type", OBJECTIVE_MESSAGES.type],
    [{ status: "" }, "status", OBJECTIVE_MESSAGES.status],
    [{ status: "  " }, "status", OBJECTIVE_MESSAGES.status],
    [{ status: null }, "status", OBJECTIVE_MESSAGES.status],
    [{ target: "1e3" }, "target", "Target must be a number."],
    [{ comparison_operator: "!=" }, "comparison_operator", OBJECTIVE_MESSAGES.operator],
    [{ initial_date: "2025-03-01", end_date: "2025-02-01" }, "end_date", "The end date must be after the start date."],
    [{ initial_date: "2025-03-01", end_date: "2025-03-01" }, "end_date", "The end date must be after the start date."],
    [{ end_date: "2025-13-01" }, "end_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ weeks_to_complete: "-1" }, "weeks_to_complete", "Weeks to complete must be 0 or more."],
    [{ weeks_to_complete: "1.5" }, "weeks_to_complete", "Weeks to complete must be a whole number."],
    [{ target: "-2" }, "target", "Target must be 0 or more."],
    [{ start_point: "many" }, "start_point", "Start point must be a number."],
    [{ position: "0" }, "position", "Position must be 1 or more."],
  ])("refuses %j on %s", (input, field, message) => {
    const r = parseWith(ObjectiveInput, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });

  it.each([
    [{ status: "mastered" }, true],
    [{ status: "" }, false],
    [{}, false],
  ])("ObjectiveStatusInput %j → ok %s", (input, okay) => {
    const r = parseWith(ObjectiveStatusInput, input);
    expect(r.ok).toBe(okay);
    if (!r.ok) expect(r.errors.status).toBe(OBJECTIVE_MESSAGES.status);
  });

  it.each([
    [{ plan_id: 4, ids: [3, 1, 2] }, { plan_id: 4, ids: [3, 1, 2] }],
    [{ plan_id: "4", ids: "3, 1,2" }, { plan_id: 4, ids: [3, 1, 2] }],
    [{ plan_id: 4, ids: [] }, { plan_id: 4, ids: [] }],
  ])("ReorderInput reads %j", (input, expected) => {
    expect(parseWith(ReorderInput, input)).toEqual({ ok: true, data: expected });
  });

  it.each([[{ plan_id: 4, ids: [1, "x"] }], [{ plan_id: 4, ids: [0] }], [{ plan_id: 4 }]])("ReorderInput refuses %j", (input) => {
    const r = parseWith(ReorderInput, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.ids).toBe(OBJECTIVE_MESSAGES.reorder);
  });
});

describe("the add-goal form's objective rows", () => {
  const form = {
    "objectives.0.type": "STO",
    "objectives.0.status": "not started",
    "objectives.0.name": "",
    "objectives.1.type": "STO",
    "objectives.1.name": "Fewer than 5",
    "objectives.1.target": "5",
    "objectives.2.type": "LTO",
    "objectives.2.status": "in progress",
    "objectives.2.target": "0",
  };

  it("skips rows with only their type and status, and remembers where each came from", () => {
    const { objectives, rowOf } = objectiveRowsFromForm(form, 3);
    expect(rowOf).toEqual([1, 2]);
    expect(objectives.map((o) => [o.type, o.name, o.target])).toEqual([
      ["STO", "Fewer than 5", "5"],
      ["LTO", undefined, "0"],
    ]);
  });

  it("leaves out a field the row did not post, so a missing status takes its default (\"\" is refused, probe 8913)", () => {
    const { objectives } = objectiveRowsFromForm(form, 3);
    expect("status" in objectives[0]!).toBe(false);
    expect(parseWith(ObjectiveInput, objectives[0])).toMatchObject({ ok: true, data: { status: "not started" } });
  });

  it("puts errors back on the rows typed", () => {
    expect(errorsOnFormRows({ name: "Name is required.", "objectives.1.type": OBJECTIVE_MESSAGES.secondLto, "objectives.0.target": "x" }, [1, 2])).toEqual({
      name: "Name is required.",
      "objectives.2.type": OBJECTIVE_MESSAGES.secondLto,
      "objectives.1.target": "x",
    });
  });
});
