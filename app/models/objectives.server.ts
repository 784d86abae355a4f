import { and, asc, count, eq, inArray, isNull, or, sql, type SQLWrapper } from "drizzle-orm";
import { insertChunks, positionsTable } from "~/db/chunks";
import * as v from "valibot";
import { leavesAsStored } from "~/domain/audit-changes";
import { FilterId } from "~/domain/list-filters";
import { MOVE_MESSAGES, movedReferences, REFERENCE_MESSAGES } from "~/domain/references";
import { bips, objectives, patients, plans } from "~/db/schema";
import { moveObjective, ObjectiveInput, ObjectiveStatusInput, placeNewObjective, removeObjective, ReorderInput, reorderObjectives, sortObjectives, stepObjective, type Ordering, type Placed, type Placement, type PositionChange } from "~/domain/objectives";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { auditRead, clientIds, withAudit, withClients } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { findPlanInScope, planInScopeWhere, planScope, planScopeColumns, type PlanInScope } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { isKeyRace, nextId, patientScope, who } from "./patients.server";
import { goalDateErrors } from "~/domain/weekly-reports";
import { todayIn } from "~/domain/note-rules";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";

/**
 * Objectives of a plan (clinical §3 Objective). Every function finds the plan through findPlanInScope
 * first (a plan of another location is not found). Positions follow the ordering rules of
 * app/domain/objectives.ts; a write changes the record, the positions that moved and its audit row in one
 * batch. Position shifts caused by another objective's change do not bump that objective's version (its
 * content did not change); every rule renumbers from the display order, so the order stays 1..n with the
 * LTO last even if two writers raced.
 */
export const OBJECTIVES = "objectives";
/** Plan JSON carries its objectives, so objective writes also invalidate cached plan lists. */
export const PLANS = "plans";

type Row = typeof objectives.$inferSelect;

export function objectiveJson(r: Row) {
  return {
    id: r.id,
    plan_id: r.planId,
    type: r.type,
    status: r.status,
    name: r.name,
    description: r.description,
    target: r.target,
    start_point: r.startPoint,
    initial_date: r.initialDate,
    end_date: r.endDate,
    weeks_to_complete: r.weeksToComplete,
    comparison_operator: r.comparisonOperator,
    /** 1-based place in the plan (the spec's index and order carry the same number). */
    position: r.position,
    index: r.position,
    order: r.position,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type ObjectiveJson = ReturnType<typeof objectiveJson>;

const live = isNull(objectives.deletedAt);


/** A required parent id in a body (plan_id of an objective, bip_id of a plan). */
export function parentRef(field: string, label: string) {
  const message = `${label} is required.`;
  return v.object({ [field]: v.pipe(v.union([v.string(), v.number()], message), v.transform(Number), v.number(message), v.integer(message), v.minValue(1, message)) });
}
const PlanRef = parentRef("plan_id", "Plan");

/** The objectives of some plans, in display order (STOs by position, the LTO last). */
export async function objectivesOfPlans(ctx: ModelContext, planIds: readonly number[]): Promise<Map<number, ObjectiveJson[]>> {
  if (!planIds.length) return objectivesByPlan(planIds, []);
  const rows = await ctx.db
    .select()
    .from(objectives)
    .where(and(live, inArray(objectives.planId, [...planIds])));
  return objectivesByPlan(planIds, rows);
}

/** The objectives of a BIP's live goals as one statement, not yet run (to batch with the BIP's other reads). */
export function objectivesOfBipQuery(ctx: ModelContext, bipId: number) {
  const ofBip = ctx.db.select({ id: plans.id }).from(plans).where(and(eq(plans.bipId, bipId), isNull(plans.deletedAt)));
  return ctx.db.select().from(objectives).where(and(live, inArray(objectives.planId, ofBip)));
}

/** The live objectives of the plans (ids, or a subquery that selects them), as one statement not yet run (to batch with the plans' read). */
export function objectivesOfPlansQuery(ctx: ModelContext, planIds: SQLWrapper | readonly number[]) {
  return ctx.db.select().from(objectives).where(and(live, inArray(objectives.planId, planIds)));
}

/** Objectives grouped by plan (every id of `planIds` present), each plan's in order (LTO last). */
export function objectivesByPlan(planIds: readonly number[], rows: Row[]): Map<number, ObjectiveJson[]> {
  const out = new Map<number, ObjectiveJson[]>(planIds.map((id) => [id, []]));
  for (const r of sortObjectives(rows)) out.get(r.planId)?.push(objectiveJson(r));
  return out;
}

async function placedOf(ctx: ModelContext, planId: number): Promise<Placed[]> {
  return ctx.db.select({ id: objectives.id, type: objectives.type, position: objectives.position }).from(objectives).where(and(live, eq(objectives.planId, planId)));
}

/** The objectives' new positions, one statement (none when nothing moves). */
function positionWrites(ctx: ModelContext, changes: readonly PositionChange[]) {
  return changes.length === 0 ? [] : [ctx.db.update(objectives).set({ position: sql`j.position` }).from(positionsTable(changes)).where(sql`${objectives.id} = j.id`)];
}

function bumps(ctx: ModelContext) {
  return [bumpListVersion(ctx.db, OBJECTIVES), bumpListVersion(ctx.db, PLANS)];
}

/** An objective and its plan's scope; null when either is gone or out of the actor's locations (or not of `planId`). */
async function findObjective(ctx: ModelContext, id: number, planId?: number): Promise<{ row: Row; scope: PlanInScope } | null> {
  // One statement: the objective and its plan's scope (a single read stays within 3 round trips with its audit row).
  const [found] = await ctx.db
    .select({ row: objectives, scope: planScopeColumns })
    .from(objectives)
    .innerJoin(plans, eq(plans.id, objectives.planId))
    .innerJoin(bips, eq(bips.id, plans.bipId))
    .innerJoin(patients, eq(patients.id, plans.patientId))
    .where(and(eq(objectives.id, id), live, planId === undefined ? undefined : eq(objectives.planId, planId), planInScopeWhere(ctx)));
  return found ? { row: found.row, scope: planScope(found.scope) } : null;
}

const ObjectiveFilters = v.object({ plan_id: FilterId });

export async function listObjectives(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}): Promise<ModelResult<Paged<ObjectiveJson>>> {
  const parsed = parseWith(ObjectiveFilters, { plan_id: raw.plan_id ?? "" });
  if (!parsed.ok) return invalid(parsed.errors);
  const planId = parsed.data.plan_id;
  const s = query.search;
  const where = and(
    live,
    isNull(plans.deletedAt),
    isNull(bips.deletedAt),
    patientScope(ctx),
    planId !== "" ? eq(objectives.planId, planId) : undefined,
    s ? or(contains(objectives.name, s), contains(objectives.description, s)) : undefined,
    query.date_from ? sql`${objectives.endDate} >= ${query.date_from}` : undefined,
    query.date_to ? sql`${objectives.initialDate} <= ${query.date_to}` : undefined,
  );
  // One round trip: the page and its total. A goal filter the actor cannot see (another location's, or none) lists
  // nothing (decision 017): the rows are read within the actor's scope.
  const [rows, [total]] = await ctx.db.batch([
    ctx.db
      .select({ o: objectives, patientId: plans.patientId })
      .from(objectives)
      .innerJoin(plans, eq(plans.id, objectives.planId))
      .innerJoin(bips, eq(bips.id, plans.bipId))
      .innerJoin(patients, eq(patients.id, plans.patientId))
      .where(where)
      .orderBy(asc(objectives.planId), sql`${objectives.type} = 'LTO'`, asc(objectives.position), asc(objectives.id))
      .limit(query.per_page)
      .offset(offset(query)),
    ctx.db
      .select({ n: count() })
      .from(objectives)
      .innerJoin(plans, eq(plans.id, objectives.planId))
      .innerJoin(bips, eq(bips.id, plans.bipId))
      .innerJoin(patients, eq(patients.id, plans.patientId))
      .where(where),
  ]);
  // Objectives are clinical data of their clients: the API records the read with these clients (withClients).
  return ok(withClients(paged(rows.map((r) => objectiveJson(r.o)), total?.n ?? 0, query), clientIds(rows, (r) => r.patientId)));
}

/** An objective read (API show): in scope, and the read is audited. */
export async function getObjective(ctx: ModelContext, id: number): Promise<ObjectiveJson | null> {
  const found = await findObjective(ctx, id);
  if (!found) return null;
  await auditRead(ctx.db, who(ctx), { entity: "objective", entityId: id, patientId: found.scope.patientId }, found.scope.tail);
  return objectiveJson(found.row);
}

function values(input: ObjectiveInput) {
  return {
    type: input.type,
    status: input.status,
    name: input.name,
    description: input.description,
    target: input.target,
    startPoint: input.start_point,
    initialDate: input.initial_date,
    endDate: input.end_date,
    weeksToComplete: input.weeks_to_complete,
    comparisonOperator: input.comparison_operator,
  };
}

/** The spec calls the position `index` or `order`; either is taken when `position` is not sent. */
export function withPosition(raw: Record<string, unknown>): Record<string, unknown> {
  if (raw.position !== undefined) return raw;
  const alias = raw.index ?? raw.order;
  return alias === undefined ? raw : { ...raw, position: alias };
}

/** The new objectives of a plan being created (same batch as the plan); see createPlan. */
export function objectiveInserts(ctx: ModelContext, planId: number, items: readonly ObjectiveInput[], positions: readonly number[]) {
  const rows = items.map((o, i) => ({ planId, ...values(o), position: positions[i]! }));
  return insertChunks(objectives, rows).map((chunk) => ctx.db.insert(objectives).values(chunk));
}

export async function createObjective(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<ObjectiveJson>> {
  const ref = parseWith(PlanRef, { plan_id: raw.plan_id ?? "" });
  if (!ref.ok) return invalid(ref.errors);
  const scope = await findPlanInScope(ctx, ref.data.plan_id as number);
  // A body reference (decision 017): another location's goal answers as one that does not exist, at its field.
  if (!scope) return invalid({ plan_id: REFERENCE_MESSAGES.goal });
  const parsed = parseWith(ObjectiveInput, withPosition(raw));
  if (!parsed.ok) return invalid(parsed.errors);
  const dates = goalDateErrors(parsed.data, todayIn(ctx.now(), scope.timeZone));
  if (Object.keys(dates).length) return invalid(dates);
  const placed = placeNewObjective(await placedOf(ctx, scope.planId), parsed.data);
  if (!placed.ok) return invalid(placed.errors);
  for (let attempt = 0; ; attempt++) {
    // nextId reads the next id (ids.server.ts) of any table with an integer id; its type names only the client tables.
    const newId = await nextId(ctx, objectives as unknown as Parameters<typeof nextId>[1]);
    try {
      const [rows] = (await withAudit(ctx.db, who(ctx), { action: "create", entity: "objective", entityId: newId, patientId: scope.patientId }, () => [
        ctx.db
          .insert(objectives)
          .values({ id: newId, planId: scope.planId, ...values(parsed.data), position: placed.position })
          .returning(),
        ...positionWrites(ctx, placed.changes),
        ...bumps(ctx),
      ])) as [Row[]];
      return ok(objectiveJson(rows[0]!), "Objective added.");
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

function asInput(o: ObjectiveJson): Record<string, unknown> {
  const { type, status, name, description, target, start_point, initial_date, end_date, weeks_to_complete, comparison_operator } = o;
  return { type, status, name, description, target, start_point, initial_date, end_date, weeks_to_complete, comparison_operator };
}

/**
 * Saves an objective's fields; a changed type or a given position moves it by the ordering rules.
 * `planId` (the screen's plan) makes an objective of another plan not found.
 */
export async function updateObjective(
  ctx: ModelContext,
  id: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null; planId?: number },
): Promise<ModelResult<ObjectiveJson>> {
  const found = await findObjective(ctx, id, opts.planId);
  if (!found) return notFound("Objective");
  const current = objectiveJson(found.row);
  const fixed = movedReferences(raw, { plan_id: [current.plan_id, MOVE_MESSAGES.objectiveGoal] });
  if (fixed) return invalid(fixed);
  if (namesNoField(raw, ObjectiveInput, ["index", "order"])) return nothingToChange();
  const parsed = parseChange(ObjectiveInput, withPosition(raw), opts.partial ? asInput(current) : null);
  if (!parsed.ok) return invalid(parsed.errors);
  const dates = goalDateErrors(parsed.data, todayIn(ctx.now(), found.scope.timeZone), current);
  if (Object.keys(dates).length) return invalid(dates);
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  // The record a 409 answers is a read of the client's data: the API records it with the client (withClients).
  if (opts.version !== null && opts.version !== current.version) return conflict(withClients(current, [found.scope.patientId]));
  const moved = moveObjective(await placedOf(ctx, current.plan_id), id, parsed.data);
  if (!moved.ok) return invalid(moved.errors);
  // A save that leaves every field and its place as stored writes nothing and keeps the version (decision 017, stops
  // 44 and 45); the others' places are not this objective's change.
  if (leavesAsStored({ ...asInput(current), position: current.position }, { ...parsed.data, position: moved.position })) return nothingToChange(current);
  const [rows] = (await withAudit(ctx.db, who(ctx), { action: "update", entity: "objective", entityId: id, patientId: found.scope.patientId }, () => [
    ctx.db
      .update(objectives)
      .set({ ...values(parsed.data), position: moved.position, version: sql`${objectives.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(objectives.id, id), live, opts.version === null ? undefined : eq(objectives.version, opts.version)))
      .returning(),
    ...positionWrites(
      ctx,
      moved.changes.filter((c) => c.id !== id),
    ),
    ...bumps(ctx),
  ])) as [Row[]];
  if (!rows[0]) {
    const now = await findObjective(ctx, id);
    return conflict(withClients(now ? objectiveJson(now.row) : current, [found.scope.patientId]));
  }
  return ok(objectiveJson(rows[0]), "Objective updated.");
}

export async function updateObjectiveStatus(ctx: ModelContext, id: number, raw: Record<string, unknown>): Promise<ModelResult<ObjectiveJson>> {
  const found = await findObjective(ctx, id);
  if (!found) return notFound("Objective");
  const parsed = parseWith(ObjectiveStatusInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  // The status it has already writes nothing (decision 017, stop 45).
  if (parsed.data.status === found.row.status) return nothingToChange(objectiveJson(found.row));
  const [rows] = (await withAudit(ctx.db, who(ctx), { action: "status", entity: "objective", entityId: id, patientId: found.scope.patientId }, () => [
    ctx.db
      .update(objectives)
      .set({ status: parsed.data.status, version: sql`${objectives.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(objectives.id, id), live))
      .returning(),
    ...bumps(ctx),
  ])) as [Row[]];
  if (!rows[0]) return notFound("Objective");
  return ok(objectiveJson(rows[0]), "Status updated.");
}

/** Soft delete; the others close the gap. */
export async function deleteObjective(ctx: ModelContext, id: number, opts: { planId?: number } = {}): Promise<ModelResult<null>> {
  const found = await findObjective(ctx, id, opts.planId);
  if (!found) return notFound("Objective");
  const closed = removeObjective(await placedOf(ctx, found.row.planId), id) as Extract<Ordering, { ok: true }>;
  await withAudit(ctx.db, who(ctx), { action: "delete", entity: "objective", entityId: id, patientId: found.scope.patientId }, () => [
    ctx.db.update(objectives).set({ deletedAt: ctx.now().toISOString() }).where(eq(objectives.id, id)),
    ...positionWrites(ctx, closed.changes),
    ...bumps(ctx),
  ]);
  return ok(null, "Objective deleted.");
}

async function saveOrder(ctx: ModelContext, scope: PlanInScope, ordering: Ordering | Placement): Promise<ModelResult<ObjectiveJson[]>> {
  if (!ordering.ok) return invalid(ordering.errors);
  // A move past either end, or the same order again, writes nothing: no audit row, no new list version (decision 010).
  if ("unchanged" in ordering && ordering.unchanged) return ok((await objectivesOfPlans(ctx, [scope.planId])).get(scope.planId)!, ordering.unchanged);
  await withAudit(ctx.db, who(ctx), { action: "reorder", entity: "objective", entityId: null, patientId: scope.patientId }, () => [...positionWrites(ctx, ordering.changes), ...bumps(ctx)]);
  return ok((await objectivesOfPlans(ctx, [scope.planId])).get(scope.planId)!, "Order saved.");
}

/** POST /objectives/reorder {plan_id, ids}: the STOs in the given order, the LTO last. Answers the plan's objectives. */
export async function reorderPlanObjectives(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<ObjectiveJson[]>> {
  const ref = parseWith(PlanRef, { plan_id: raw.plan_id ?? "" });
  if (!ref.ok) return invalid(ref.errors);
  const scope = await findPlanInScope(ctx, ref.data.plan_id as number);
  // A body reference (decision 017): another location's goal, or none, is 422 at plan_id.
  if (!scope) return invalid({ plan_id: REFERENCE_MESSAGES.goal });
  const parsed = parseWith(ReorderInput, { ...raw, plan_id: scope.planId });
  if (!parsed.ok) return invalid(parsed.errors);
  return saveOrder(ctx, scope, reorderObjectives(await placedOf(ctx, scope.planId), parsed.data.ids));
}

/** Moves an STO of `planId` one place up or down (the screen's buttons). */
export async function stepPlanObjective(ctx: ModelContext, planId: number, id: number, direction: "up" | "down"): Promise<ModelResult<ObjectiveJson[]>> {
  const found = await findObjective(ctx, id, planId);
  if (!found) return notFound("Objective");
  return saveOrder(ctx, found.scope, stepObjective(await placedOf(ctx, planId), id, direction));
}
