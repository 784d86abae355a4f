import { and, asc, count, eq, gte, isNull, lt, ne, or, sql, type SQL } from "drizzle-orm";
import { leavesAsStored } from "~/domain/audit-changes";
import { localDayBounds } from "~/domain/time";
import { locations, userLocations, users } from "~/db/schema";
import { DUPLICATE_LOCATION_TITLE, LOCATION_IN_USE, LOCATION_IN_USE_KINDS, locationInput, LocationInput, locationTitleKey } from "~/domain/locations";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { locationScope } from "~/domain/permissions";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { auditWho, isChainRace, withAudit, withAuditIfUnchanged, withConditionalAudit } from "~/services/audit.server";
import { planZoneChange, ZONE_CHANGE_MESSAGES } from "./location-zone.server";
import { futureBookingsAt } from "./schedule.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { EMPLOYEES } from "./employees.server";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";
import { withNextId } from "./patients.server";
import { idsIn } from "./scope.server";

/** Locations (platform §3 Location). Reads are limited to the actor's locations. */

export const LOCATIONS = "locations";
type Row = typeof locations.$inferSelect;

export function locationJson(r: Row) {
  return {
    id: r.id,
    title: r.title,
    address: r.address,
    phone1: r.phone1,
    phone2: r.phone2,
    email: r.email,
    city: r.city,
    state: r.state,
    zip: r.zip,
    telfax: r.telfax,
    avatar: r.avatar,
    time_zone: r.timeZone,
    pos_codes: r.posCodes ? r.posCodes.split(",") : [],
    npi: r.npi,
    tax_id: r.taxId,
    version: r.version,
    created_at: r.createdAt,
  };
}
export type LocationJson = ReturnType<typeof locationJson>;

function scoped(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return isNull(locations.deletedAt);
  return and(isNull(locations.deletedAt), idsIn(locations.id, scope))!;
}

export async function listLocations(ctx: ModelContext, query: ListQuery): Promise<Paged<LocationJson>> {
  // From/To are days on the actor's clock, the one a location's "Created" is shown on (decision 039).
  const days = localDayBounds(query.date_from, query.date_to, ctx.actor.timeZone);
  const where = and(
    scoped(ctx),
    query.search ? or(contains(locations.title, query.search), contains(locations.city, query.search)) : undefined,
    days.start ? gte(locations.createdAt, days.start) : undefined,
    days.before ? lt(locations.createdAt, days.before) : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    ctx.db.select().from(locations).where(where).orderBy(asc(locations.title), asc(locations.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(locations).where(where),
  ]);
  return paged(rows.map(locationJson), total?.n ?? 0, query);
}

/** Every location the actor can see, for selects (small: a practice has tens of locations). */
export async function locationOptions(ctx: ModelContext) {
  return locationOptionsQuery(ctx);
}

/** The locations the actor can see, as a statement (to ride in a batch). */
export function locationOptionsQuery(ctx: ModelContext) {
  return ctx.db.select({ id: locations.id, title: locations.title }).from(locations).where(scoped(ctx)).orderBy(asc(locations.title));
}

export async function getLocation(ctx: ModelContext, id: number): Promise<LocationJson | null> {
  const [row] = await ctx.db.select().from(locations).where(and(eq(locations.id, id), scoped(ctx)));
  return row ? locationJson(row) : null;
}

function values(input: LocationInput) {
  return {
    title: input.title,
    address: input.address,
    phone1: input.phone1,
    phone2: input.phone2,
    email: input.email,
    city: input.city,
    state: input.state,
    zip: input.zip,
    telfax: input.telfax,
    timeZone: input.time_zone,
    posCodes: input.pos_codes.join(","),
    npi: input.npi,
    taxId: input.tax_id,
  };
}

/** The form/API field names of a stored location, for merging a PATCH. */
function asInput(l: LocationJson): Record<string, unknown> {
  const { id: _id, version: _v, created_at: _c, avatar: _a, ...rest } = l;
  return rest;
}

/**
 * Another live location has this title (as `locationTitleKey` compares them). Every live location counts, also the
 * ones the actor cannot see: the choosers of those who see them all would show the twins. Tens of rows: compared here.
 */
async function titleTaken(ctx: ModelContext, title: string, exceptId?: number): Promise<boolean> {
  const key = locationTitleKey(title);
  const rows = await ctx.db
    .select({ title: locations.title })
    .from(locations)
    .where(and(isNull(locations.deletedAt), exceptId === undefined ? undefined : ne(locations.id, exceptId)));
  return rows.some((r) => locationTitleKey(r.title) === key);
}

export async function createLocation(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<LocationJson>> {
  const parsed = parseWith(LocationInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  if (await titleTaken(ctx, parsed.data.title)) return invalid({ title: DUPLICATE_LOCATION_TITLE });
  // One batch (one transaction). A creator who is not all-access joins the new location, or they could
  // not see what they made.
  const joins = locationScope(ctx.actor) !== null;
  const rows = await withNextId(ctx, locations, async (id, tail) => {
    const insert = () => ctx.db.insert(locations).values({ id, ...values(parsed.data) }).returning();
    const membership = () => ctx.db.insert(userLocations).values({ userId: ctx.actor.id, locationId: id }).onConflictDoNothing();
    const entry = { action: "create", entity: "location", entityId: id, detail: { title: parsed.data.title } };
    const [inserted] = joins
      ? await withAudit(ctx.db, auditWho(ctx), entry, () => [insert(), membership(), bumpListVersion(ctx.db, LOCATIONS)], tail)
      : await withAudit(ctx.db, auditWho(ctx), entry, () => [insert(), bumpListVersion(ctx.db, LOCATIONS)], tail);
    return inserted;
  });
  const inserted = rows[0];
  return ok(locationJson(inserted!), "Location created.");
}

export async function updateLocation(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<LocationJson>> {
  const current = await getLocation(ctx, id);
  if (!current) return notFound("Location");
  if (namesNoField(raw, LocationInput)) return nothingToChange();
  // A stored state sent back as it is passes; a new or changed one must be a state code (decision 017, stop 36).
  const parsed = parseChange(locationInput(current.state), raw, opts.partial ? asInput(current) : null);
  if (!parsed.ok) return invalid(parsed.errors);
  // A stale version is refused before anything is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  // A save that leaves every field as stored writes nothing and keeps the version (decision 017, stop 44).
  if (leavesAsStored(asInput(current), parsed.data)) return nothingToChange(current);
  // Only a changed title is checked, so two twins saved before the rule can still be edited (and one renamed).
  const retitled = locationTitleKey(parsed.data.title) !== locationTitleKey(current.title);
  if (retitled && (await titleTaken(ctx, parsed.data.title, id))) return invalid({ title: DUPLICATE_LOCATION_TITLE });
  const update = () =>
    ctx.db
      .update(locations)
      .set({ ...values(parsed.data), version: sql`${locations.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(locations.id, id), isNull(locations.deletedAt), opts.version === null ? undefined : eq(locations.version, opts.version)))
      .returning();
  const entry = { action: "update", entity: "location", entityId: id };
  if (parsed.data.time_zone === current.time_zone) {
    const [rows] = await withAudit(ctx.db, auditWho(ctx), entry, () => [update(), bumpListVersion(ctx.db, LOCATIONS)]);
    if (!rows[0]) return conflict((await getLocation(ctx, id)) ?? current);
    return ok(locationJson(rows[0]), "Location updated.");
  }
  // A corrected time zone: the sessions' offsets follow it in the same batch (decision 037, 2026-11-28 stop 39),
  // chained to the audit tail read with them, so a session written meanwhile makes the batch fail and be read again.
  for (let round = 0; round < ZONE_CHANGE_ROUNDS; round++) {
    const change = await planZoneChange(ctx, id, current.time_zone, parsed.data.time_zone, current.title);
    if (!change.ok) return invalid({ time_zone: change.message });
    try {
      const [rows] = await withAuditIfUnchanged(ctx.db, auditWho(ctx), { ...entry, detail: change.detail }, () => [update(), ...change.writes(), bumpListVersion(ctx.db, LOCATIONS)], change.tail);
      if (!rows[0]) return conflict((await getLocation(ctx, id)) ?? current);
      return ok(locationJson(rows[0]), "Location updated.");
    } catch (e) {
      if (isChainRace(e)) continue;
      throw e;
    }
  }
  return invalid({ time_zone: ZONE_CHANGE_MESSAGES.raced });
}

/** Read-check-write rounds of a time zone change before it gives up on concurrent writers. */
const ZONE_CHANGE_ROUNDS = 5;

/**
 * Who still belongs to the location and what is stored there, as `from … where` SQL (with how to count it when that
 * is not `count(*)`): live clients, live parents, live employees with a membership there or it as their primary
 * location; the live notes of live clients (note_counts, which counts exactly those), the future bookings, the claims
 * (any status: billing history) and the live rate records there. The one deleting it is left out: a manager sees a
 * location only by working there, and their own membership goes with it (decision 015, stops 25 and 40).
 */
function occupants(ctx: ModelContext, id: number): Record<(typeof LOCATION_IN_USE_KINDS)[number], { from: SQL; count?: SQL }> {
  return {
    clients: { from: sql`from patients p where p.location_id = ${id} and p.deleted_at is null` },
    employees: {
      from: sql`from users u where u.deleted_at is null and u.id <> ${ctx.actor.id}
      and (u.location_id = ${id} or exists (select 1 from user_locations ul where ul.user_id = u.id and ul.location_id = ${id}))`,
    },
    parents: { from: sql`from parents pa where pa.location_id = ${id} and pa.deleted_at is null` },
    notes: { from: sql`from note_counts nc where nc.location_id = ${id} and nc.n > 0`, count: sql`coalesce(sum(nc.n), 0)` },
    bookings: { from: futureBookingsAt(ctx, id) },
    claims: { from: sql`from claims cl where cl.location_id = ${id}` },
    rateRecords: { from: sql`from rate_records rr where rr.location_id = ${id} and rr.deleted_at is null` },
    // Live prices of live insurers set for this location (decision 017, stop 41): deleting the location would leave
    // them pricing a place nobody can pick, and out of sight on the insurer's page.
    insurerPrices: { from: sql`from insurance_services iss join insurances ins on ins.id = iss.insurance_id where iss.location_id = ${id} and iss.deleted_at is null and ins.deleted_at is null` },
  };
}

/** 422 naming who still belongs to the location and what is stored there, or null when nothing is: one statement. */
async function stillInUse(ctx: ModelContext, id: number): Promise<ModelResult<never> | null> {
  const o = occupants(ctx, id);
  const columns = Object.fromEntries(LOCATION_IN_USE_KINDS.map((k) => [k, sql<number>`(select ${o[k].count ?? sql`count(*)`} ${o[k].from})`.mapWith(Number)]));
  const [n] = await ctx.db.select(columns).from(locations).where(eq(locations.id, id));
  const messages = LOCATION_IN_USE_KINDS.filter((k) => (n?.[k] ?? 0) > 0).map((k) => LOCATION_IN_USE[k](n![k]!));
  return messages.length ? invalid({ location: messages.join(" ") }) : null;
}

/**
 * Soft delete; refused (422) while clients, employees or parents still belong to the location, or notes, future
 * bookings, claims or rate records are stored there. The delete is
 * conditional on that in SQL too, so someone placed there meanwhile makes it write nothing (no audit row). The
 * actor's own membership goes with it, and a primary location there moves to another of theirs (or none).
 */
export async function deleteLocation(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await getLocation(ctx, id);
  if (!current) return notFound("Location");
  const refusal = await stillInUse(ctx, id);
  if (refusal) return refusal;
  const o = occupants(ctx, id);
  const gone = sql`exists (select 1 from locations l where l.id = ${id} and l.deleted_at is not null)`;
  const me = ctx.actor.id;
  const [deleted] = await withConditionalAudit(ctx.db, auditWho(ctx), { action: "delete", entity: "location", entityId: id }, (audit) => [
    ctx.db
      .update(locations)
      .set({ deletedAt: ctx.now().toISOString() })
      .where(and(eq(locations.id, id), isNull(locations.deletedAt), ...LOCATION_IN_USE_KINDS.map((k) => sql`not exists (select 1 ${o[k].from})`)))
      .returning({ id: locations.id }),
    audit(sql`changes() = 1`),
    ctx.db.delete(userLocations).where(and(eq(userLocations.userId, me), eq(userLocations.locationId, id), gone)),
    ctx.db
      .update(users)
      .set({
        locationId: sql`(select min(ul.location_id) from user_locations ul join locations l on l.id = ul.location_id where ul.user_id = ${me} and l.deleted_at is null)`,
        version: sql`${users.version} + 1`,
        updatedAt: ctx.now().toISOString(),
      })
      .where(and(eq(users.id, me), eq(users.locationId, id), gone)),
    bumpListVersion(ctx.db, LOCATIONS),
    bumpListVersion(ctx.db, EMPLOYEES),
  ]);
  if (!deleted.length) return (await stillInUse(ctx, id)) ?? notFound("Location");
  return ok(null, "Location deleted.");
}
