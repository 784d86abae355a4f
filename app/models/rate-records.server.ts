import { and, asc, count, desc, eq, isNull, sql, type SQL } from "drizzle-orm";
import { locations, rateRecordAmounts, rateRecords } from "~/db/schema";
import * as v from "valibot";
import { FilterId, parseFilters } from "~/domain/list-filters";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { amountCents, amountsChanged, EffectiveFromInput, effectiveFromRefusal, FROM_THE_START, parseRateInfo, RATE_AMOUNT_KEYS, RateRecordInput } from "~/domain/rates";
import { changeDetail, changesNoField } from "~/domain/audit-changes";
import { todayAtLocation } from "~/domain/pa-pacing";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { auditTail, auditWho, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok, unchangedAt } from "./results";
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

/** One row of a record's amounts history (decision 039, stop 40): the amounts in dollars from `effective_from`. */
export interface RateAmountsJson {
  effective_from: string;
  rbt: number | null;
  bcba: number | null;
  manager: number | null;
  client: number | null;
}

const dollars = (cents: number | null) => (cents === null ? null : cents / 100);

function historyQuery(ctx: ModelContext, id: number) {
  return ctx.db.select().from(rateRecordAmounts).where(eq(rateRecordAmounts.rateRecordId, id)).orderBy(desc(rateRecordAmounts.effectiveFrom));
}

/** The record with its amounts history (newest first), in one round trip; null outside the actor's scope. */
export async function getRateRecordWithHistory(ctx: ModelContext, id: number): Promise<{ record: RateRecordJson; history: RateAmountsJson[] } | null> {
  const [[row], history] = await ctx.db.batch([ctx.db.select().from(rateRecords).where(and(eq(rateRecords.id, id), scoped(ctx))), historyQuery(ctx, id)]);
  if (!row) return null;
  return {
    record: rateRecordJson(row),
    history: history.map((h) => ({ effective_from: h.effectiveFrom, rbt: dollars(h.rbtCents), bcba: dollars(h.bcbaCents), manager: dollars(h.managerCents), client: dollars(h.clientCents) })),
  };
}

/** The history row of a record's amounts from `date` (a save on the same date replaces that date's row). */
function amountsRow(id: number, date: string, input: RateRecordInput) {
  return { rateRecordId: id, effectiveFrom: date, rbtCents: amountCents(input.rbt), bcbaCents: amountCents(input.bcba), managerCents: amountCents(input.manager), clientCents: amountCents(input.client) };
}

function values(input: RateRecordInput) {
  return { name: input.name, locationId: input.location_id, rbt: input.rbt, bcba: input.bcba, manager: input.manager, client: input.client, info: JSON.stringify(input.info) };
}

/**
 * The fields of a rate record whose old and new values an edit's audit row shows (decision 019, stop 44): the pay
 * amounts and the location; the name and the info lists by name only.
 */
const RATE_RECORD_SHOWN = ["location_id", ...RATE_AMOUNT_KEYS];

/** What an edit changes of a rate record, for its audit row: the stored record against what the save writes. */
function rateRecordChange(current: RateRecordJson, input: RateRecordInput) {
  const { id: _id, version: _v, created_at: _c, updated_at: _u, ...stored } = current;
  return changeDetail(stored, { ...input }, RATE_RECORD_SHOWN);
}

/** The location must exist and be one of the actor's. */
async function checkLocation(ctx: ModelContext, locationId: number): Promise<{ bad: Record<string, string> | null; timeZone: string }> {
  if (!canSeeLocation(ctx.actor, locationId)) return { bad: { location_id: "Choose a valid option." }, timeZone: "UTC" };
  const [row] = await ctx.db.select({ id: locations.id, timeZone: locations.timeZone }).from(locations).where(and(eq(locations.id, locationId), isNull(locations.deletedAt)));
  return { bad: locationRefusal(ctx, locationId, !!row), timeZone: row?.timeZone ?? "UTC" };
}

/** Today at a location (its IANA zone; one it does not know reads as UTC): the default date of an amount change. */
function todayIn(ctx: ModelContext, timeZone: string): string {
  try {
    return todayAtLocation(ctx.now(), timeZone);
  } catch {
    return todayAtLocation(ctx.now(), "UTC");
  }
}

/** checkLocation's answer once it is known whether the location is live. */
function locationRefusal(ctx: ModelContext, locationId: number, live: boolean): Record<string, string> | null {
  return canSeeLocation(ctx.actor, locationId) && live ? null : { location_id: "Choose a valid option." };
}

export async function createRateRecord(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<RateRecordJson>> {
  const parsed = parseWith(RateRecordInput, raw);
  const dated = parseWith(EffectiveFromInput, { effective_from: raw.effective_from });
  if (!parsed.ok || !dated.ok) return invalid({ ...(parsed.ok ? {} : parsed.errors), ...(dated.ok ? {} : dated.errors) });
  const { bad, timeZone } = await checkLocation(ctx, parsed.data.location_id);
  if (bad) return invalid(bad);
  // The amounts apply from the date given, else from today at the location (decision 039, stop 40): a new record
  // prices no earlier session unless its first amounts are dated back on purpose.
  const today = todayIn(ctx, timeZone);
  const from = dated.data.effective_from ?? today;
  const refused = effectiveFromRefusal(from, today, null);
  if (refused) return invalid({ effective_from: refused });
  const [rows] = await withNextId(ctx, rateRecords, (id, tail) =>
    withAudit(
      ctx.db,
      auditWho(ctx),
      { action: "create", entity: "rate_record", entityId: id, detail: { location_id: parsed.data.location_id, effective_from: from } },
      () => [ctx.db.insert(rateRecords).values({ id, ...values(parsed.data) }).returning(), ctx.db.insert(rateRecordAmounts).values(amountsRow(id, from, parsed.data)), bumpListVersion(ctx.db, RATE_RECORDS)],
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
  // One read batch (the record with the audit tail, and whether the location the body names is live), then the
  // write batch, which reads the record back: two round trips (decision 043, stop 37).
  const sentLocation = plainId(raw.location_id);
  const storedLocation = sql`(select ${rateRecords.locationId} from ${rateRecords} where ${rateRecords.id} = ${id})`;
  const [[row], liveLocations, [latest]] = await ctx.db.batch([
    forChangeQuery(ctx, id),
    ctx.db
      .select({ id: locations.id, timeZone: locations.timeZone })
      .from(locations)
      .where(and(sql`${locations.id} in (${sentLocation}, ${storedLocation})`, isNull(locations.deletedAt))),
    // The date of the record's latest amount change (decision 039, stop 40): a change is dated on or after it.
    ctx.db.select({ effectiveFrom: rateRecordAmounts.effectiveFrom }).from(rateRecordAmounts).where(eq(rateRecordAmounts.rateRecordId, id)).orderBy(desc(rateRecordAmounts.effectiveFrom)).limit(1),
  ]);
  if (!row) return notFound("Rate record");
  const current = rateRecordJson(row.r);
  const { id: _id, version: _v, created_at: _c, updated_at: _u, ...asInput } = current;
  if (namesNoField(raw, RateRecordInput, ["effective_from"])) return nothingToChange();
  const { effective_from: sentDate, ...body } = raw;
  const parsed = parseChange(RateRecordInput, body, opts.partial ? asInput : null);
  const dated = parseWith(EffectiveFromInput, { effective_from: sentDate });
  if (!parsed.ok || !dated.ok) return invalid({ ...(parsed.ok ? {} : parsed.errors), ...(dated.ok ? {} : dated.errors) });
  // A save that leaves the name, location, amounts and info as stored writes nothing and keeps the version (decision
  // 017, stop 44; stop 45), whatever its date: `effective_from` only dates an amount change (decision 039), so the
  // stored amounts sent again, on their own date or another, add no history. A stale version is still a 409.
  const change = rateRecordChange(current, parsed.data);
  if (changesNoField(change)) return unchangedAt(current, current.version, opts.version);
  // A save that keeps the stored location keeps it unchecked (decision 017, stop 33's rule for insurer links; stop 40):
  // a record stored at a location deleted before deletes were refused for it still saves. A new location is checked.
  // A location the batch did not read (a body the schema reads differently) is looked up on its own: never a skipped check.
  const kept = parsed.data.location_id === current.location_id;
  const readLocation = liveLocations.find((l) => l.id === parsed.data.location_id);
  const checked = kept
    ? { bad: null, timeZone: readLocation?.timeZone ?? "UTC" }
    : parsed.data.location_id === sentLocation
      ? { bad: locationRefusal(ctx, parsed.data.location_id, !!readLocation), timeZone: readLocation?.timeZone ?? "UTC" }
      : await checkLocation(ctx, parsed.data.location_id);
  if (checked.bad) return invalid(checked.bad);
  // An amount change applies from its date (default: today at the location); a change of the name, location or
  // info alone leaves the history as it is (decision 039, stop 40).
  const changesAmounts = amountsChanged(current, parsed.data);
  const today = todayIn(ctx, checked.timeZone);
  const from = dated.data.effective_from ?? today;
  if (changesAmounts) {
    const refused = effectiveFromRefusal(from, today, latest?.effectiveFrom ?? null);
    if (refused) return invalid({ effective_from: refused });
  }
  const history = ctx.db
    .insert(rateRecordAmounts)
    .select(
      sql`select ${id}, ${from}, ${amountCents(parsed.data.rbt)}, ${amountCents(parsed.data.bcba)}, ${amountCents(parsed.data.manager)}, ${amountCents(parsed.data.client)}, ${ctx.now().toISOString()} where changes() = 1`,
    )
    .onConflictDoUpdate({
      target: [rateRecordAmounts.rateRecordId, rateRecordAmounts.effectiveFrom],
      set: {
        rbtCents: sql`excluded.rbt_cents`,
        bcbaCents: sql`excluded.bcba_cents`,
        managerCents: sql`excluded.manager_cents`,
        clientCents: sql`excluded.client_cents`,
        createdAt: sql`excluded.created_at`,
      },
    });
  const results = await withAudit(
    ctx.db,
    auditWho(ctx),
    { action: "update", entity: "rate_record", entityId: id, detail: { ...change, ...(changesAmounts ? { effective_from: from } : {}) } },
    () => [
      ctx.db
        .update(rateRecords)
        .set({ ...values(parsed.data), version: sql`${rateRecords.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(
          and(
            eq(rateRecords.id, id),
            isNull(rateRecords.deletedAt),
            opts.version === null ? undefined : eq(rateRecords.version, opts.version),
            // A change dated before one another save recorded meanwhile is not made (answered as a conflict).
            changesAmounts ? sql`not exists (select 1 from ${rateRecordAmounts} where ${rateRecordAmounts.rateRecordId} = ${id} and ${rateRecordAmounts.effectiveFrom} > ${from})` : undefined,
          ),
        )
        .returning(),
      // Right after the update, and only when it was made (changes() = 1): the amounts from their date.
      ...(changesAmounts ? [history] : []),
      bumpListVersion(ctx.db, RATE_RECORDS),
      // The record as the batch leaves it (saved, or as another save left it): answers a 409 without a further read.
      forChangeQuery(ctx, id),
    ],
    row.tail,
  );
  const rows = results[0];
  const after = (results[results.length - 1] as Awaited<ReturnType<typeof forChangeQuery>>)[0];
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

/**
 * For records written without the model (seeds, fixtures): each record that has no amounts history yet gets its
 * amounts from the start (migration 0040's backfill, the same statement).
 */
export function amountsFromTheStart(db: ModelContext["db"]) {
  return db.run(sql`insert into ${rateRecordAmounts} (rate_record_id, effective_from, rbt_cents, bcba_cents, manager_cents, client_cents)
    select id, ${FROM_THE_START}, cast(round(rbt * 100) as integer), cast(round(bcba * 100) as integer), cast(round(manager * 100) as integer), cast(round(client * 100) as integer)
    from ${rateRecords} where not exists (select 1 from ${rateRecordAmounts} a where a.rate_record_id = ${rateRecords}.id)`);
}
