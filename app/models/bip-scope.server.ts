import { and, eq, isNull, sql } from "drizzle-orm";
import { bips, patients, plans } from "~/db/schema";
import { auditTail, type KnownTail } from "~/services/audit.server";
import type { ModelContext } from "./context";
import { patientScope } from "./patients.server";

/**
 * Scope for the BIP area. A BIP, its plans, objectives, weekly reports, chart comments and intake
 * assessments are visible exactly when their client is (patientScope: the actor's locations, client not
 * deleted). Every model in this area finds its parent record through these two functions first, so a
 * record of another location answers 404 before anything else is read.
 */
export interface BipInScope {
  bipId: number;
  patientId: number;
  locationId: number;
  patientName: string;
  patientIdentifier: string;
  gender: number | null;
  /** The time zone of the client's location: its "today" bounds the weekly data (decision 009). */
  timeZone: string;
  version: number;
  /** The audit chain's tail, read with the scope check so a later audited read costs one statement. */
  tail: KnownTail;
}

export interface PlanInScope extends BipInScope {
  planId: number;
  category: string;
}

/** The BIP is live and its client is one the actor may see (joined: bips, patients). */
export function bipInScopeWhere(ctx: ModelContext, bipId: number) {
  return and(eq(bips.id, bipId), isNull(bips.deletedAt), patientScope(ctx));
}

/** The client behind a BIP or plan, and the audit tail, as selected beside the scope check. */
const clientColumns = {
  patientId: patients.id,
  locationId: patients.locationId,
  firstName: patients.firstName,
  lastName: patients.lastName,
  patientIdentifier: patients.patientIdentifier,
  gender: patients.gender,
  timeZone: sql<string>`(select l.time_zone from locations l where l.id = ${patients.locationId})`,
  tail: auditTail,
};

/**
 * The ids of a scope read, named apart: drizzle maps a D1 batch's rows by column name, so the joined tables' "id"
 * columns would fold into one (the patient's id read as the BIP's) when the query rides in a batch.
 */
const batchIds = {
  patientId: sql<number>`${patients.id}`.as("scope_patient_id"),
  bipId: sql<number>`${bips.id}`.as("scope_bip_id"),
};

/** The query of findBipInScope, to run in a batch beside other reads (its rows to bipScope). */
export function bipInScopeQuery(ctx: ModelContext, bipId: number) {
  return ctx.db
    .select({ ...clientColumns, ...batchIds, version: bips.version })
    .from(bips)
    .innerJoin(patients, eq(patients.id, bips.patientId))
    .where(bipInScopeWhere(ctx, bipId));
}

/** A row of bipInScopeQuery as a BipInScope (none: not found or out of scope). */
export function bipScope(row: Omit<BipInScope, "patientName"> & { firstName: string; lastName: string } | undefined): BipInScope | null {
  if (!row) return null;
  const { firstName, lastName, ...rest } = row;
  return { ...rest, patientName: `${firstName} ${lastName}`.trim() };
}

export async function findBipInScope(ctx: ModelContext, bipId: number): Promise<BipInScope | null> {
  const [row] = await bipInScopeQuery(ctx, bipId);
  return bipScope(row);
}

/** The columns of a plan's scope (PlanInScope before planScope() shapes it), to select beside a record of the plan. */
export const planScopeColumns = { ...clientColumns, planId: plans.id, category: plans.category, bipId: bips.id, version: plans.version };

type PlanScopeRow = Omit<PlanInScope, "patientName"> & { firstName: string; lastName: string };

/** The plan is live, its BIP is live, and its client is one the actor may see (joined: plans, bips, patients). */
export function planInScopeWhere(ctx: ModelContext) {
  return and(isNull(plans.deletedAt), isNull(bips.deletedAt), patientScope(ctx));
}

/** A row of planScopeColumns as a PlanInScope. */
export function planScope(row: PlanScopeRow): PlanInScope {
  const { firstName, lastName, ...rest } = row;
  return { ...rest, patientName: `${firstName} ${lastName}`.trim() };
}

/** The query of findPlanInScope, to run in a batch beside other reads (its row to planScope). */
export function planInScopeQuery(ctx: ModelContext, planId: number) {
  return ctx.db
    .select({ ...planScopeColumns, ...batchIds, planId: sql<number>`${plans.id}`.as("scope_plan_id") })
    .from(plans)
    .innerJoin(bips, eq(bips.id, plans.bipId))
    .innerJoin(patients, eq(patients.id, plans.patientId))
    .where(and(eq(plans.id, planId), planInScopeWhere(ctx)));
}

export async function findPlanInScope(ctx: ModelContext, planId: number): Promise<PlanInScope | null> {
  const [row] = await planInScopeQuery(ctx, planId);
  return row ? planScope(row) : null;
}
