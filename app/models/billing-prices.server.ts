import { and, eq, inArray, isNull, type SQL } from "drizzle-orm";
import type { SQLiteSelect } from "drizzle-orm/sqlite-core";
import { insurances, insuranceServices } from "~/db/schema";
import type { ModelContext } from "./context";

/**
 * The insurers' services as the one price function (`priceNote` in app/domain/billing.ts) needs them, as one
 * statement to put in a read's batch (no round trip of its own). The insurers are ids, or a subquery selecting
 * them (the payers of the notes a batch reads, so the prices ride in the same batch). Services of deleted insurers and deleted
 * services are left out; location-specific services stay in (the pick keeps only the note's location).
 */
export function priceServicesQuery(ctx: ModelContext, insurerIds: readonly number[] | SQL | SQLiteSelect) {
  // A subquery (`select … insurer ids`) lets a write's first read carry the services of insurers it has not read yet.
  const ids: number[] | SQL | SQLiteSelect = Array.isArray(insurerIds) ? [...new Set(insurerIds as readonly number[])] : (insurerIds as SQL | SQLiteSelect);
  return ctx.db
    .select({
      id: insuranceServices.id,
      insuranceId: insuranceServices.insuranceId,
      locationId: insuranceServices.locationId,
      cptCode: insuranceServices.cptCode,
      modifiers: insuranceServices.modifiers,
      provider: insuranceServices.provider,
      type: insuranceServices.type,
      unitPrice: insuranceServices.unitPrice,
      multiplier: insuranceServices.multiplier,
      maxPerDay: insuranceServices.maxPerDay,
    })
    .from(insuranceServices)
    .innerJoin(insurances, eq(insurances.id, insuranceServices.insuranceId))
    .where(and(inArray(insuranceServices.insuranceId, Array.isArray(ids) ? (ids.length ? ids : [-1]) : ids), isNull(insuranceServices.deletedAt), isNull(insurances.deletedAt)));
}
