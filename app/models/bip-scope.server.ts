import { and, eq, isNull } from "drizzle-orm";
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
  version: number;
  /** The audit chain's tail, read with the scope check so a later audited read costs one statement. */
  tail: KnownTail;
}

export interface PlanInScope extends BipInScope {
  planId: number;
  category: string;
}

export async function findBipInScope(ctx: ModelContext, bipId: number): Promise<BipInScope | null> {
  const [row] = await ctx.db
    .select({
      bipId: bips.id,
      patientId: patients.id,
      locationId: patients.locationId,
      firstName: patients.firstName,
      lastName: patients.lastName,
      patientIdentifier: patients.patientIdentifier,
      gender: patients.gender,
      version: bips.version,
      tail: auditTail,
    })
    .from(bips)
    .innerJoin(patients, eq(patients.id, bips.patientId))
    .where(and(eq(bips.id, bipId), isNull(bips.deletedAt), patientScope(ctx)));
  if (!row) return null;
  const { firstName, lastName, ...rest } = row;
  return { ...rest, patientName: `${firstName} ${lastName}`.trim() };
}

export async function findPlanInScope(ctx: ModelContext, planId: number): Promise<PlanInScope | null> {
  const [row] = await ctx.db
    .select({
      planId: plans.id,
      category: plans.category,
      bipId: bips.id,
      patientId: patients.id,
      locationId: patients.locationId,
      firstName: patients.firstName,
      lastName: patients.lastName,
      patientIdentifier: patients.patientIdentifier,
      gender: patients.gender,
      version: plans.version,
      tail: auditTail,
    })
    .from(plans)
    .innerJoin(bips, eq(bips.id, plans.bipId))
    .innerJoin(patients, eq(patients.id, plans.patientId))
    .where(and(eq(plans.id, planId), isNull(plans.deletedAt), isNull(bips.deletedAt), patientScope(ctx)));
  if (!row) return null;
  const { firstName, lastName, ...rest } = row;
  return { ...rest, patientName: `${firstName} ${lastName}`.trim() };
}
