import { and, asc, count, eq, isNull, ne, sql } from "drizzle-orm";
import { leavesAsStored } from "~/domain/audit-changes";
import { localDayBounds } from "~/domain/time";
import { positionsTable } from "~/db/chunks";
import * as v from "valibot";
import { bips, patients, plans } from "~/db/schema";
import { ClientFilter, FilterId, filteredClientId } from "~/domain/bip-document";
import { filterStatus, parseFilters } from "~/domain/list-filters";
import { MOVE_MESSAGES, movedReferences, REFERENCE_MESSAGES } from "~/domain/references";
import { ObjectiveInput, placeNewObjectives, reindex } from "~/domain/objectives";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { PLAN_CATEGORIES, PLAN_MESSAGES, PLAN_STATUSES, PLAN_SET_ELSEWHERE, PlanInput, PlanStatusInput } from "~/domain/plans";
import { fieldsSetElsewhere, isPlainObject, namesNoField, parseChange, parseWith } from "~/domain/validation";
import { auditedRead, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { findBipInScope, findPlanInScope, planInScopeQuery, planScope, type PlanInScope } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { objectiveInserts, objectivesByPlan, objectivesOfPlans, objectivesOfPlansQuery, OBJECTIVES, parentRef, PLANS, withPosition, type ObjectiveJson } from "./objectives.server";
import { isKeyRace, nextId, patientScope, who } from "./patients.server";
import { goalDateErrors } from "~/domain/weekly-reports";
import { todayIn } from "~/domain/note-rules";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";

/**
 * Plans — the goals of a BIP (clinical §3 Plan): maladaptive, replacement and the training categories.
 * Every function resolves its BIP or plan through bip-scope first (another location's record is not
 * found). Measurement fields are normalised by the domain schema (clinical §5). Plans are kept in order
 * within their BIP and category (position 1..n): a new plan goes last, a delete re-indexes the rest.
 */
export { PLANS };

type Row = typeof plans.$inferSelect;

export function planJson(r: Row, patientName: string, objectives: ObjectiveJson[]) {
  return {
    id: r.id,
    bip_id: r.bipId,
    patient_id: r.patientId,
    patient_name: patientName,
    name: r.name,
    description: r.description,
    category: r.category,
    status: r.status,
    current_progress: r.currentProgress,
    baseline_level: r.baselineLevel,
    baseline_date: r.baselineDate,
    baseline_timeframe: r.baselineTimeframe,
    initial_intensity: r.initialIntensity,
    current_intensity: r.currentIntensity,
    intensity_key: r.intensityKey,
    timeframe: r.timeframe,
    unit_type: r.unitType,
    position: r.position,
    objectives,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type PlanJson = ReturnType<typeof planJson>;

const live = isNull(plans.deletedAt);
/** Categories in the spec's order (maladaptive first), for lists. */
const categoryOrder = sql`case ${plans.category} ${sql.join(
  PLAN_CATEGORIES.map((c, i) => sql`when ${c} then ${i}`),
  sql` `,
)} else ${PLAN_CATEGORIES.length} end`;

const PlanFilters = v.object({
  ...ClientFilter,
  bip_id: FilterId,
  // The client's location decides (a goal belongs to its client), as on the clients and BIP lists.
  location_id: FilterId,
  status: filterStatus(PLAN_STATUSES),
  category: v.optional(v.union([v.literal(""), v.picklist(PLAN_CATEGORIES, PLAN_MESSAGES.category)], PLAN_MESSAGES.category), ""),
});

export async function listPlans(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}): Promise<ModelResult<Paged<PlanJson>>> {
  const parsed = parseFilters(PlanFilters, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const { bip_id: bipId, category, location_id: locationId, status } = parsed.data;
  const patientId = filteredClientId(parsed.data);
  const s = query.search;
  // From/To are days on the actor's clock, as every list's (decision 039).
  const days = localDayBounds(query.date_from, query.date_to, ctx.actor.timeZone);
  const where = and(
    live,
    isNull(bips.deletedAt),
    patientScope(ctx),
    patientId !== "" ? eq(plans.patientId, patientId) : undefined,
    bipId !== "" ? eq(plans.bipId, bipId) : undefined,
    category !== "" ? eq(plans.category, category) : undefined,
    // Within the actor's scope (patientScope): another location's id lists nothing (decision 017).
    locationId !== "" ? eq(patients.locationId, locationId) : undefined,
    status !== "" ? eq(plans.status, status) : undefined,
    s ? contains(plans.name, s) : undefined,
    days.start ? sql`${plans.createdAt} >= ${days.start}` : undefined,
    days.before ? sql`${plans.createdAt} < ${days.before}` : undefined,
  );
  const order = [asc(plans.bipId), categoryOrder, asc(plans.position), asc(plans.id)] as const;
  const pageIds = ctx.db
    .select({ id: plans.id })
    .from(plans)
    .innerJoin(bips, eq(bips.id, plans.bipId))
    .innerJoin(patients, eq(patients.id, plans.patientId))
    .where(where)
    .orderBy(...order)
    .limit(query.per_page)
    .offset(offset(query));
  // One round trip: the page, its total and the page's objectives. A BIP filter the actor cannot see (another
  // location's, or none) lists nothing (decision 017): the rows are read within the actor's scope.
  const [rows, [total], objectiveRows] = await ctx.db.batch([
    ctx.db
      .select({ plan: plans, firstName: patients.firstName, lastName: patients.lastName })
      .from(plans)
      .innerJoin(bips, eq(bips.id, plans.bipId))
      .innerJoin(patients, eq(patients.id, plans.patientId))
      .where(where)
      .orderBy(...order)
      .limit(query.per_page)
      .offset(offset(query)),
    ctx.db.select({ n: count() }).from(plans).innerJoin(bips, eq(bips.id, plans.bipId)).innerJoin(patients, eq(patients.id, plans.patientId)).where(where),
    objectivesOfPlansQuery(ctx, pageIds),
  ]);
  const objectives = objectivesByPlan(
    rows.map((r) => r.plan.id),
    objectiveRows,
  );
  // Goals are clinical data of their clients: the API records the read with the clients of the page (patient_id).
  return ok(paged(rows.map((r) => planJson(r.plan, `${r.firstName} ${r.lastName}`.trim(), objectives.get(r.plan.id) ?? [])), total?.n ?? 0, query));
}

async function loadPlan(ctx: ModelContext, scope: PlanInScope): Promise<PlanJson | null> {
  const [row] = await ctx.db.select().from(plans).where(and(eq(plans.id, scope.planId), live));
  if (!row) return null;
  return planJson(row, scope.patientName, (await objectivesOfPlans(ctx, [row.id])).get(row.id)!);
}

/** A plan with its objectives (API show, the edit screen): in scope, and the read is audited. */
export async function getPlan(ctx: ModelContext, id: number): Promise<PlanJson | null> {
  const scope = await findPlanInScope(ctx, id);
  if (!scope) return null;
  // The plan and its objectives ride in the batch of the read's audit row (scope, then read: 2 round trips).
  const [[row], objectiveRows] = await auditedRead(ctx.db, who(ctx), { entity: "plan", entityId: id, patientId: scope.patientId }, () => [ctx.db.select().from(plans).where(and(eq(plans.id, id), live)), objectivesOfPlansQuery(ctx, [id])], scope.tail);
  return row ? planJson(row, scope.patientName, objectivesByPlan([id], objectiveRows).get(id)!) : null;
}

function values(input: PlanInput) {
  return {
    name: input.name,
    description: input.description,
    category: input.category,
    status: input.status,
    currentProgress: input.current_progress,
    baselineLevel: input.baseline_level,
    baselineDate: input.baseline_date,
    baselineTimeframe: input.baseline_timeframe,
    initialIntensity: input.initial_intensity,
    currentIntensity: input.current_intensity,
    intensityKey: input.intensity_key,
    timeframe: input.timeframe,
    unitType: input.unit_type,
  };
}

/** The next position at the end of a BIP's category, computed inside the write (no read-then-write gap). */
function endOfCategory(bipId: number, category: string) {
  return sql`(select coalesce(max(p.position), 0) + 1 from plans p where p.bip_id = ${bipId} and p.category = ${category} and p.deleted_at is null)`;
}

/**
 * The objectives sent with a new plan: each validated on its own row (errors objectives.<i>.<field>), its dates bounded
 * (goalDateErrors, `today` the client's location's date), and placed in order.
 */
function parseObjectives(raw: unknown, today: string): { ok: true; items: ObjectiveInput[]; positions: number[] } | { ok: false; errors: Record<string, string> } {
  if (raw === undefined || raw === null || raw === "") return { ok: true, items: [], positions: [] };
  if (!Array.isArray(raw) || raw.length > 50) return { ok: false, errors: { objectives: "Objectives must be a list of at most 50 objectives." } };
  const errors: Record<string, string> = {};
  const items: ObjectiveInput[] = [];
  raw.forEach((item, i) => {
    const parsed = parseWith(ObjectiveInput, isPlainObject(item) ? withPosition(item) : null);
    const found = parsed.ok ? goalDateErrors(parsed.data, today) : parsed.errors;
    if (parsed.ok) items.push(parsed.data);
    for (const [k, m] of Object.entries(found)) errors[k === "form" ? `objectives.${i}` : `objectives.${i}.${k}`] = m;
  });
  if (Object.keys(errors).length) return { ok: false, errors };
  const placed = placeNewObjectives(items);
  return placed.ok ? { ok: true, items, positions: placed.positions } : placed;
}

const BipRef = parentRef("bip_id", "BIP");

/** A new goal at the end of its category, with its first objectives (if any) in the same batch. */
export async function createPlan(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<PlanJson>> {
  const ref = parseWith(BipRef, { bip_id: raw.bip_id ?? "" });
  if (!ref.ok) return invalid(ref.errors);
  const bip = await findBipInScope(ctx, ref.data.bip_id as number);
  // A body reference (decision 017): another location's BIP answers as one that does not exist, at its field.
  if (!bip) return invalid({ bip_id: REFERENCE_MESSAGES.bip });
  const elsewhere = fieldsSetElsewhere(raw, PLAN_SET_ELSEWHERE);
  if (elsewhere) return invalid(elsewhere);
  const parsed = parseWith(PlanInput, raw);
  const today = todayIn(ctx.now(), bip.timeZone);
  const objectives = parseObjectives(raw.objectives, today);
  const dates = parsed.ok ? goalDateErrors(parsed.data, today) : {};
  if (!parsed.ok || !objectives.ok || Object.keys(dates).length) return invalid({ ...(parsed.ok ? dates : parsed.errors), ...(objectives.ok ? {} : objectives.errors) });
  for (let attempt = 0; ; attempt++) {
    const newId = await nextId(ctx, plans as unknown as Parameters<typeof nextId>[1]);
    try {
      await withAudit(ctx.db, who(ctx), { action: "create", entity: "plan", entityId: newId, patientId: bip.patientId }, () => [
        ctx.db.insert(plans).values({ id: newId, bipId: bip.bipId, patientId: bip.patientId, ...values(parsed.data), position: endOfCategory(bip.bipId, parsed.data.category) }),
        ...objectiveInserts(ctx, newId, objectives.items, objectives.positions),
        bumpListVersion(ctx.db, PLANS),
        ...(objectives.items.length ? [bumpListVersion(ctx.db, OBJECTIVES)] : []),
      ]);
      const scope = (await findPlanInScope(ctx, newId))!;
      return ok((await loadPlan(ctx, scope))!, "Goal created.");
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/** A stored plan as schema input (for a PATCH merge). */
export function planAsInput(p: PlanJson): Record<string, unknown> {
  const { name, description, category, status, current_progress, baseline_level, baseline_date, baseline_timeframe, initial_intensity, current_intensity, intensity_key, timeframe, unit_type } = p;
  return { name, description, category, status, current_progress, baseline_level, baseline_date, baseline_timeframe, initial_intensity, current_intensity, intensity_key, timeframe, unit_type };
}

/** The other live plans of a BIP's category, re-indexed 1..n without `planId` (after a delete or a move to another category). */
async function closeCategoryGap(ctx: ModelContext, bipId: number, category: string, planId: number) {
  const rest = await ctx.db
    .select({ id: plans.id, position: plans.position })
    .from(plans)
    .where(and(live, eq(plans.bipId, bipId), eq(plans.category, category), ne(plans.id, planId)));
  const changes = reindex(rest);
  return changes.length === 0 ? [] : [ctx.db.update(plans).set({ position: sql`j.position` }).from(positionsTable(changes)).where(sql`${plans.id} = j.id`)];
}

/** Saves a goal (versioned: a stale version answers 409 with the current values). A new category puts it last there. */
export async function updatePlan(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<PlanJson>> {
  const scope = await findPlanInScope(ctx, id);
  const current = scope ? await loadPlan(ctx, scope) : null;
  if (!scope || !current) return notFound("Plan");
  const elsewhere = fieldsSetElsewhere(raw, PLAN_SET_ELSEWHERE);
  // client_id is the goal list's other name for its client (ClientFilter), so it is the same read-only reference.
  const fixed = movedReferences(raw, {
    bip_id: [current.bip_id, MOVE_MESSAGES.goalBip],
    patient_id: [current.patient_id, MOVE_MESSAGES.goalClient],
    client_id: [current.patient_id, MOVE_MESSAGES.goalClient],
  });
  if (elsewhere || fixed) return invalid({ ...elsewhere, ...fixed });
  if (namesNoField(raw, PlanInput)) return nothingToChange();
  const parsed = parseChange(PlanInput, raw, opts.partial ? planAsInput(current) : null);
  if (!parsed.ok) return invalid(parsed.errors);
  const dates = goalDateErrors(parsed.data, todayIn(ctx.now(), scope.timeZone), current);
  if (Object.keys(dates).length) return invalid(dates);
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  // A save that leaves every column as stored (a value normalised back to the stored one, say) writes nothing and
  // keeps the version (decision 017, stops 42 and 44). The stored goal has the input's fields.
  if (leavesAsStored(values(current as unknown as PlanInput), values(parsed.data))) return nothingToChange(current);
  const moved = parsed.data.category !== current.category;
  const gapWrites = moved ? await closeCategoryGap(ctx, current.bip_id, current.category, id) : [];
  const [rows] = await withAudit(ctx.db, who(ctx), { action: "update", entity: "plan", entityId: id, patientId: current.patient_id }, () => [
    ctx.db
      .update(plans)
      .set({
        ...values(parsed.data),
        ...(moved ? { position: endOfCategory(current.bip_id, parsed.data.category) } : {}),
        version: sql`${plans.version} + 1`,
        updatedAt: ctx.now().toISOString(),
      })
      .where(and(eq(plans.id, id), live, opts.version === null ? undefined : eq(plans.version, opts.version)))
      .returning({ id: plans.id }),
    ...gapWrites,
    bumpListVersion(ctx.db, PLANS),
  ]);
  const now = await loadPlan(ctx, scope);
  if (!rows[0]) return conflict(now ?? current);
  return ok(now!, "Goal updated.");
}

/**
 * Active, inactive or discontinued (PUT /update-status/{id}, the goal page's status form). The status it has already
 * writes nothing: 422 "Nothing to change", no audit row, the version as it was (decision 017, stop 45). Two round
 * trips: the goal's scope (with the audit tail), the goal and its objectives; then the write, which reads the goal back.
 */
export async function updatePlanStatus(ctx: ModelContext, id: number, raw: Record<string, unknown>): Promise<ModelResult<PlanJson>> {
  const goal = () => ctx.db.select().from(plans).where(and(eq(plans.id, id), live));
  const [[scopeRow], [row], objectiveRows] = await ctx.db.batch([planInScopeQuery(ctx, id), goal(), objectivesOfPlansQuery(ctx, [id])]);
  if (!scopeRow || !row) return notFound("Plan");
  const scope = planScope(scopeRow);
  const parsed = parseWith(PlanStatusInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const goalObjectives = objectivesByPlan([id], objectiveRows).get(id)!;
  if (parsed.data.status === row.status) return nothingToChange(planJson(row, scope.patientName, goalObjectives));
  const [, , [after]] = await withAudit(
    ctx.db,
    who(ctx),
    { action: "status", entity: "plan", entityId: id, patientId: scope.patientId },
    () => [
      ctx.db
        .update(plans)
        .set({ status: parsed.data.status, version: sql`${plans.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(and(eq(plans.id, id), live)),
      bumpListVersion(ctx.db, PLANS),
      goal(),
    ],
    scope.tail,
  );
  return after ? ok(planJson(after, scope.patientName, goalObjectives), "Status updated.") : notFound("Plan");
}

/** Soft delete; the other goals of its BIP and category are re-indexed 1..n. Its objectives go with it (hidden with the plan). */
export async function deletePlan(ctx: ModelContext, id: number): Promise<ModelResult<{ bip_id: number }>> {
  const scope = await findPlanInScope(ctx, id);
  if (!scope) return notFound("Plan");
  const gapWrites = await closeCategoryGap(ctx, scope.bipId, scope.category, id);
  await withAudit(ctx.db, who(ctx), { action: "delete", entity: "plan", entityId: id, patientId: scope.patientId }, () => [
    ctx.db.update(plans).set({ deletedAt: ctx.now().toISOString() }).where(eq(plans.id, id)),
    ...gapWrites,
    bumpListVersion(ctx.db, PLANS),
  ]);
  return ok({ bip_id: scope.bipId }, "Goal deleted.");
}
