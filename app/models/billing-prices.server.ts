import { and, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteSelect } from "drizzle-orm/sqlite-core";
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

/**
 * The credential a note is priced for (clinical §3: the insurer's service for the CPT and "the provider's type"):
 * its provider's, from their roles — bcba, bcaba or rbt, the first held in that order — else null (no such role,
 * or the provider is deleted), and then the note's type decides (`pricingProvider`). One expression for every
 * caller of `priceNote` that reads notes (billing rows, the save, claims, the scrubber), so the scrubber judges
 * the price that is shown, saved and claimed (decision 030, 2026-11-26 (issue 11 review)). Select it under an
 * alias of its own (D1 batch rows are keyed by column name).
 */
export function providerCredentialSql(providerId: SQLiteColumn | SQL) {
  return sql<string | null>`(select lower(trim(r.name)) from user_roles ur join roles r on r.id = ur.role_id join users u on u.id = ur.user_id and u.deleted_at is null where ur.user_id = ${providerId} and lower(trim(r.name)) in ('bcba', 'bcaba', 'rbt') order by case lower(trim(r.name)) when 'bcba' then 0 when 'bcaba' then 1 else 2 end limit 1)`;
}
