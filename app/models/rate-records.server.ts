import { and, asc, count, eq, isNull, sql, type SQL } from "drizzle-orm";
import { locations, rateRecords } from "~/db/schema";
import * as v from "valibot";
import { FilterId, parseFilters } from "~/domain/list-filters";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { parseRateInfo, RateRecordInput } from "~/domain/rates";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { auditTail, auditWho, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";
import { withNextId } from "./patients.server";
import { plainId } from "./ids.server";
import { idsIn } from "./scope.server";

/** Rate/pay records (platform §3). Location-scoped: a record in another location answers 404. */

export const RATE_RECORDS = "rate_records";
type Row = typeof rateRecords.$inferSelect;

export function rateRecordJson(r: Row) {
  return {
    id: r.id,
    name: r.name,
    location_id: r.locationId,
    rbt: r.rbt,
    bcba: r.bcba,
    manager: r.manager,
    client: r.client,
    info: parseRateInfo(r.info),
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type RateRecordJson = ReturnType<typeof rateRecordJson>;

function scoped(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return isNull(rateRecords.deletedAt);
  return and(isNull(rateRecords.deletedAt), idsIn(rateRecords.locationId, scope))!;
}

/** The rate-record list's filter (decision 017): a location's record id, refused when malformed, never dropped. */
export const RateRecordFilters = v.object({ location_id: FilterId });

export async function listRateRecords(ctx: ModelContext, query: ListQuery, rawFilters: { location_id?: string } = {}): Promise<ModelResult<Paged<RateRecordJson>>> {
  const parsed = parseFilters(RateRecordFilters, rawFilters);
  if (!parsed.ok) return invalid(parsed.errors);
  const locationId = parsed.data.location_id;
  const where = and(scoped(ctx), query.search ? contains(rateRecords.name, query.search) : undefined, locationId !== "" ? eq(rateRecords.locationId, locationId) : undefined);
  const [rows, [total]] = await ctx.db.batch([
    ctx.db.select().from(rateRecords).where(where).orderBy(asc(rateRecords.name), asc(rateRecords.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(rateRecords).where(where),
  ]);
  return ok(paged(rows.map(rateRecordJson), total?.n ?? 0, query));
}

export async function getRateRecord(ctx: ModelContext, id: number): Promise<RateRecordJson | null> {
  const [row] = await ctx.db.select().from(rateRecords).where(and(eq(rateRecords.id, id), scoped(ctx)));
  return row ? rateRecordJson(row) : null;
}

function values(input: RateRecordInput) {
  return { name: input.name, locationId: input.location_id, rbt: input.rbt, bcba: input.bcba, manager: input.manager, client: input.client, info: JSON.stringify(input.info) };
}

/** The location must exist and be one of the actor's. */
async function checkLocation(ctx: ModelContext, locationId: number): Promise<Record<string, string> | null> {
  if (!canSeeLocation(ctx.actor, locationId)) return { location_id: "Choose a valid option." };
  const [row] = await ctx.db.select({ id: locations.id }).from(locations).where(and(eq(locations.id, locationId), isNull(locations.deletedAt)));
  return locationRefusal(ctx, locationId, !!row);
}

/** checkLocation's answer once it is known whether the location is live. */
function locationRefusal(ctx: ModelContext, locationId: number, live: boolean): Record<string, string> | null {
  return canSeeLocation(ctx.actor, locationId) && live ? null : { location_id: "Choose a valid option." };
}

export async function createRateRecord(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<RateRecordJson>> {
  const parsed = parseWith(RateRecordInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const bad = await checkLocation(ctx, parsed.data.location_id);
  if (bad) return invalid(bad);
  const [rows] = await withNextId(ctx, rateRecords, (id, tail) =>
    withAudit(
      ctx.db,
      auditWho(ctx),
      { action: "create", entity: "rate_record", entityId: id, detail: { location_id: parsed.data.location_id } },
      () => [ctx.db.insert(rateRecords).values({ id, ...values(parsed.data) }).returning(), bumpListVersion(ctx.db, RATE_RECORDS)],
      tail,
    ),
  );
  return ok(rateRecordJson(rows[0]!), "Rate record created.");
}

/** The record in the actor's scope, with the audit chain's tail (withAudit's `tail`), as a statement. */
function forChangeQuery(ctx: ModelContext, id: number) {
  return ctx.db.select({ r: rateRecords, tail: auditTail }).from(rateRecords).where(and(eq(rateRecords.id, id), scoped(ctx)));
}

export async function updateRateRecord(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<RateRecordJson>> {
  // One read batch (the record with the audit tail, and the live locations among the one the body names and the
  // stored one), then the write batch, which reads the record back: two round trips (decision 043, stop 37).
  const sentLocation = plainId(raw.location_id);
  const storedLocation = sql`(select ${rateRecords.locationId} from ${rateRecords} where ${rateRecords.id} = ${id})`;
  const [[row], liveLocations] = await ctx.db.batch([
    forChangeQuery(ctx, id),
    ctx.db
      .select({ id: locations.id })
      .from(locations)
      .where(and(sql`${locations.id} in (${sentLocation}, ${storedLocation})`, isNull(locations.deletedAt))),
  ]);
  if (!row) return notFound("Rate record");
  const current = rateRecordJson(row.r);
  const { id: _id, version: _v, created_at: _c, updated_at: _u, ...asInput } = current;
  if (namesNoField(raw, RateRecordInput)) return nothingToChange();
  const parsed = parseChange(RateRecordInput, raw, opts.partial ? asInput : null);
  if (!parsed.ok) return invalid(parsed.errors);
  // A location the batch did not read (a body the schema reads differently) is looked up on its own: never a skipped check.
  const locationRead = parsed.data.location_id === sentLocation || parsed.data.location_id === current.location_id;
  const bad = locationRead ? locationRefusal(ctx, parsed.data.location_id, liveLocations.some((l) => l.id === parsed.data.location_id)) : await checkLocation(ctx, parsed.data.location_id);
  if (bad) return invalid(bad);
  const results = await withAudit(
    ctx.db,
    auditWho(ctx),
    { action: "update", entity: "rate_record", entityId: id },
    () => [
      ctx.db
        .update(rateRecords)
        .set({ ...values(parsed.data), version: sql`${rateRecords.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(and(eq(rateRecords.id, id), isNull(rateRecords.deletedAt), opts.version === null ? undefined : eq(rateRecords.version, opts.version)))
        .returning(),
      bumpListVersion(ctx.db, RATE_RECORDS),
      // The record as the batch leaves it (saved, or as another save left it): answers a 409 without a further read.
      forChangeQuery(ctx, id),
    ],
    row.tail,
  );
  const [rows, , [after]] = results;
  if (!rows[0]) return conflict(after ? rateRecordJson(after.r) : current);
  return ok(rateRecordJson(rows[0]), "Rate record updated.");
}

export async function deleteRateRecord(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await getRateRecord(ctx, id);
  if (!current) return notFound("Rate record");
  await withAudit(ctx.db, auditWho(ctx), { action: "delete", entity: "rate_record", entityId: id }, () => [
    ctx.db.update(rateRecords).set({ deletedAt: ctx.now().toISOString() }).where(eq(rateRecords.id, id)),
    bumpListVersion(ctx.db, RATE_RECORDS),
  ]);
  return ok(null, "Rate record deleted.");
}
