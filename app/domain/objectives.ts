import * as v from "valibot";
import { choiceOr, endAfterStart, MESSAGES, numberOrNaN, optionalChoice, optionalDate, optionalInt, optionalLine, optionalNumber, optionalText } from "./fields";
import { LIST_MESSAGES } from "./list-sections";
import { requiredChoice, DEFAULT_OBJECTIVE_STATUS, DEFAULT_OBJECTIVE_TYPE, OBJECTIVE_STATUSES, OBJECTIVE_TYPES, type ObjectiveType } from "./plans";

/**
 * Objectives of a plan (clinical §3 Objective, §4 "Plan, objective and training lists are re-indexed in
 * order"): the input schema and the ordering rules. Pure: the rules take the plan's current list of
 * {id, type, position} and answer the new order and the position changes, so the model writes only the
 * rows that moved.
 *
 * The rules: a plan has at most one LTO and it always sorts last; an STO added without a position goes
 * after the other STOs, one added at a position shifts the later ones down; a delete closes the gap; a
 * reorder is saved as given for the STOs; changing an STO to LTO (or back) re-sorts. Positions are 1..n.
 */

/** How a measured value is compared with the objective's target (our list: the spec names the field only). */
export const COMPARISON_OPERATORS = ["<=", "<", ">=", ">", "="] as const;
export type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];
export const COMPARISON_OPERATOR_LABELS: Record<ComparisonOperator, string> = {
  "<=": "≤ at most the target",
  "<": "< below the target",
  ">=": "≥ at least the target",
  ">": "> above the target",
  "=": "= exactly the target",
};

export const OBJECTIVE_MESSAGES = {
  type: "Choose STO or LTO.",
  status: "Choose a status from the list.",
  operator: "Choose a comparison operator from the list.",
  secondLto: "This plan already has an LTO; a plan can have only one LTO.",
  reorder: "List each STO of the plan exactly once, in the new order (the LTO always stays last).",
  ltoStaysLast: "The LTO always stays last; only STOs move.",
  notInPlan: "Objective not found in this plan.",
} as const;

export const ObjectiveInput = v.pipe(
  v.object({
    type: choiceOr(OBJECTIVE_TYPES, DEFAULT_OBJECTIVE_TYPE, OBJECTIVE_MESSAGES.type, (s) => s.toUpperCase()),
    status: choiceOr(OBJECTIVE_STATUSES, DEFAULT_OBJECTIVE_STATUS, OBJECTIVE_MESSAGES.status),
    name: optionalLine("Name", 255),
    description: optionalText("Description", 5000),
    target: optionalNumber("Target", 0),
    start_point: optionalNumber("Start point", 0),
    initial_date: optionalDate,
    end_date: optionalDate,
    weeks_to_complete: optionalInt("Weeks to complete", 0, 520),
    comparison_operator: optionalChoice(COMPARISON_OPERATORS, OBJECTIVE_MESSAGES.operator),
    /** 1-based place among the STOs; left out = after the other STOs (new) or where it is (update). */
    position: optionalInt("Position", 1, 10_000),
  }),
  v.forward(
    v.check((x) => endAfterStart(() => ({ start: x.initial_date, end: x.end_date }))(x), MESSAGES.endAfterStart),
    ["end_date"],
  ),
);
export type ObjectiveInput = v.InferOutput<typeof ObjectiveInput>;

export const ObjectiveStatusInput = v.object({ status: requiredChoice(OBJECTIVE_STATUSES, OBJECTIVE_MESSAGES.status) });

/** The fields of ObjectiveInput, in form order (the add-goal form's rows and the objective forms read them). */
export const OBJECTIVE_FIELDS = Object.keys(ObjectiveInput.pipe[0].entries) as (keyof ObjectiveInput)[];

/** A reorder: the plan and its STO ids in the new order (a list, or a comma-separated string from a form). */
export const ReorderInput = v.object({
  plan_id: v.pipe(v.optional(v.union([v.string(), v.number()]), ""), v.transform((x: string | number) => numberOrNaN(x)), v.number(MESSAGES.required("Plan")), v.integer(MESSAGES.required("Plan")), v.minValue(1, MESSAGES.required("Plan"))),
  ids: v.pipe(
    v.optional(v.nullable(v.union([v.array(v.union([v.string(), v.number()])), v.string()], OBJECTIVE_MESSAGES.reorder)), null),
    v.check((x) => x !== null, OBJECTIVE_MESSAGES.reorder),
    v.transform((x) => (Array.isArray(x) ? x : (x ?? "").split(",")).map((s) => (typeof s === "string" ? s.trim() : s)).filter((s) => s !== "").map(Number)),
    v.check((ids) => ids.every((n) => Number.isSafeInteger(n) && n > 0), OBJECTIVE_MESSAGES.reorder),
  ),
});

// ---------------------------------------------------------------------------------------------------
// Ordering

export interface Placed {
  id: number;
  type: ObjectiveType | string;
  position: number;
}
export interface PositionChange {
  id: number;
  position: number;
}
/** `unchanged`: the order stays as it is (a move past either end, the same order again); what to say instead of saving. */
export type Ordering = { ok: true; order: Placed[]; changes: PositionChange[]; unchanged?: string } | { ok: false; errors: Record<string, string> };
export type Placement = { ok: true; position: number; order: Placed[]; changes: PositionChange[] } | { ok: false; errors: Record<string, string> };

/** The id a rule gives the record being added (real ids are positive). */
const NEW_ID = 0;

const isLto = (o: Pick<Placed, "type">) => o.type === "LTO";

/** Display order: STOs by position (then id), the LTO last. Tolerates stored positions with gaps or repeats. */
export function sortObjectives<T extends Placed>(list: readonly T[]): T[] {
  return [...list].sort((a, b) => Number(isLto(a)) - Number(isLto(b)) || a.position - b.position || a.id - b.id);
}

/**
 * The objectives' labels, one rule for the goal screens and the chart (clinical §9): type and 1-based
 * rank among the plan's objectives of that type, ordered by position then id — STO1, STO2 …; a lone
 * LTO is "LTO", several are LTO1, LTO2. `rank` is that 1-based rank (the chart picks colours by it).
 */
export function objectiveLabels(list: readonly { id: number; type: string; position: number }[]): Map<number, { label: string; type: "STO" | "LTO"; rank: number }> {
  const byType = new Map<"STO" | "LTO", { id: number; position: number }[]>();
  for (const o of [...list].sort((a, b) => a.position - b.position || a.id - b.id)) {
    const type = String(o.type).toUpperCase() === "LTO" ? "LTO" : "STO";
    byType.set(type, [...(byType.get(type) ?? []), o]);
  }
  const labels = new Map<number, { label: string; type: "STO" | "LTO"; rank: number }>();
  for (const [type, group] of byType) {
    group.forEach((o, i) => labels.set(o.id, { label: type === "LTO" && group.length === 1 ? "LTO" : `${type}${i + 1}`, type, rank: i + 1 }));
  }
  return labels;
}

function split(list: readonly Placed[]) {
  const sorted = sortObjectives(list);
  return { stos: sorted.filter((o) => !isLto(o)), ltos: sorted.filter(isLto) };
}

/** Numbers the list 1..n in the given order and answers what moved against `before`. */
function settle(before: readonly Placed[], ordered: readonly Placed[]): { order: Placed[]; changes: PositionChange[] } {
  const order = ordered.map((o, i) => ({ ...o, position: i + 1 }));
  const was = new Map(before.map((o) => [o.id, o.position]));
  const changes = order.filter((o) => o.id !== NEW_ID && was.get(o.id) !== o.position).map(({ id, position }) => ({ id, position }));
  return { order, changes };
}

const clamp = (n: number, lo: number, hi: number) => Math.min(Math.max(n, lo), hi);

/** Where a new objective goes, and which of the others move. A second LTO is refused. */
export function placeNewObjective(list: readonly Placed[], add: { type: string; position?: number | null }): Placement {
  const { stos, ltos } = split(list);
  const item: Placed = { id: NEW_ID, type: add.type, position: 0 };
  if (isLto(add)) {
    if (ltos.length) return { ok: false, errors: { type: OBJECTIVE_MESSAGES.secondLto } };
    const done = settle(list, [...stos, item]);
    return { ok: true, position: done.order.at(-1)!.position, ...done };
  }
  const at = clamp(add.position ?? stos.length + 1, 1, stos.length + 1);
  const done = settle(list, [...stos.slice(0, at - 1), item, ...stos.slice(at - 1), ...ltos]);
  return { ok: true, position: at, ...done };
}

/** A delete closes the gap: the others are numbered 1..n again (LTO last). */
export function removeObjective(list: readonly Placed[], id: number): Ordering {
  const { stos, ltos } = split(list.filter((o) => o.id !== id));
  return { ok: true, ...settle(list, [...stos, ...ltos]) };
}

/**
 * An objective changes type and/or position. STO → LTO goes last (refused when another LTO exists);
 * LTO → STO goes after the other STOs unless a position is given; an STO given a position moves there
 * (clamped to the STOs); an LTO's position is ignored (it stays last).
 */
export function moveObjective(list: readonly Placed[], id: number, to: { type?: string | null; position?: number | null }): Placement {
  const current = list.find((o) => o.id === id);
  if (!current) return { ok: false, errors: { objective_id: OBJECTIVE_MESSAGES.notInPlan } };
  const type = to.type ?? current.type;
  const { stos, ltos } = split(list.filter((o) => o.id !== id));
  const item: Placed = { ...current, type };
  if (isLto(item)) {
    if (ltos.length) return { ok: false, errors: { type: OBJECTIVE_MESSAGES.secondLto } };
    const done = settle(list, [...stos, item]);
    return { ok: true, position: done.order.at(-1)!.position, ...done };
  }
  const stayed = isLto(current) ? stos.length + 1 : split(list).stos.findIndex((o) => o.id === id) + 1;
  const at = clamp(to.position ?? stayed, 1, stos.length + 1);
  const done = settle(list, [...stos.slice(0, at - 1), item, ...stos.slice(at - 1), ...ltos]);
  return { ok: true, position: at, ...done };
}

/** A reorder is saved as given for the STOs; `ids` must name each STO of the plan once. The LTO stays last. */
export function reorderObjectives(list: readonly Placed[], ids: readonly number[]): Ordering {
  const { stos, ltos } = split(list);
  const byId = new Map(stos.map((o) => [o.id, o]));
  if (ids.length !== stos.length || new Set(ids).size !== ids.length || !ids.every((id) => byId.has(id))) return { ok: false, errors: { ids: OBJECTIVE_MESSAGES.reorder } };
  const done = settle(list, [...ids.map((id) => byId.get(id)!), ...ltos]);
  // The order as shown already (positions with gaps are shown in the same order): nothing moves, nothing is written.
  return ids.every((id, i) => id === stos[i]!.id) ? { ok: true, ...done, unchanged: LIST_MESSAGES.sameOrder } : { ok: true, ...done };
}

/** Moves an STO one place up or down (the no-JavaScript buttons); at either end nothing changes (`unchanged`). */
export function stepObjective(list: readonly Placed[], id: number, direction: "up" | "down"): Ordering {
  const current = list.find((o) => o.id === id);
  if (!current) return { ok: false, errors: { objective_id: OBJECTIVE_MESSAGES.notInPlan } };
  if (isLto(current)) return { ok: false, errors: { objective_id: OBJECTIVE_MESSAGES.ltoStaysLast } };
  const ids = split(list).stos.map((o) => o.id);
  const i = ids.indexOf(id);
  const j = direction === "up" ? i - 1 : i + 1;
  if (j < 0 || j >= ids.length) {
    const same = reorderObjectives(list, ids);
    return same.ok ? { ...same, unchanged: direction === "up" ? LIST_MESSAGES.alreadyFirst : LIST_MESSAGES.alreadyLast } : same;
  }
  [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  return reorderObjectives(list, ids);
}

/** Any list kept in order (the plans of a BIP and category after a delete): positions 1..n in the current order. */
export function reindex(list: readonly { id: number; position: number }[]): PositionChange[] {
  const sorted = [...list].sort((a, b) => a.position - b.position || a.id - b.id);
  return sorted.map((o, i) => ({ id: o.id, position: i + 1 })).filter((c, i) => sorted[i]!.position !== c.position);
}

// ---------------------------------------------------------------------------------------------------
// The add-goal form's objective rows (objectives.<row>.<field>): blank rows are left out, and errors
// from the model (objectives.<k>.<field>, k over the rows sent) are put back on the rows typed.

const CONTENT_FIELDS = OBJECTIVE_FIELDS.filter((f) => f !== "type" && f !== "status");

export function objectiveRowsFromForm(values: Record<string, unknown>, rows: number): { objectives: Record<string, unknown>[]; rowOf: number[] } {
  const objectives: Record<string, unknown>[] = [];
  const rowOf: number[] = [];
  for (let r = 0; r < rows; r++) {
    // A field the row did not post is left out (a missing type or status takes its default; "" would be refused).
    const row = Object.fromEntries(OBJECTIVE_FIELDS.flatMap((f) => (values[`objectives.${r}.${f}`] === undefined ? [] : [[f, values[`objectives.${r}.${f}`]]])));
    if (CONTENT_FIELDS.every((f) => String(row[f] ?? "").trim() === "")) continue;
    objectives.push(row);
    rowOf.push(r);
  }
  return { objectives, rowOf };
}

export function errorsOnFormRows(errors: Record<string, string>, rowOf: readonly number[]): Record<string, string> {
  return Object.fromEntries(Object.entries(errors).map(([k, msg]) => [k.replace(/^objectives\.(\d+)\./, (_, i: string) => `objectives.${rowOf[Number(i)] ?? i}.`), msg]));
}

/**
 * The objectives sent with a new plan, placed one after another by the same rule as single adds; a
 * second LTO is refused on its row (objectives.<i>.type). Answers each one's position.
 */
export function placeNewObjectives(items: readonly { type: string; position?: number | null }[]): { ok: true; positions: number[] } | { ok: false; errors: Record<string, string> } {
  let list: Placed[] = [];
  for (const [i, item] of items.entries()) {
    const placed = placeNewObjective(list, item);
    if (!placed.ok) return { ok: false, errors: Object.fromEntries(Object.entries(placed.errors).map(([k, m]) => [`objectives.${i}.${k}`, m])) };
    const moved = new Map(placed.changes.map((c) => [c.id, c.position]));
    list = [...list.map((o) => ({ ...o, position: moved.get(o.id) ?? o.position })), { id: i + 1, type: item.type, position: placed.position }];
  }
  const at = new Map(list.map((o) => [o.id, o.position]));
  return { ok: true, positions: items.map((_, i) => at.get(i + 1)!) };
}
