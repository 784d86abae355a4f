import { and, asc, count, eq, gte, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { locations, patients, userLocations } from "~/db/schema";
import { LocationInput } from "~/domain/locations";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { locationScope } from "~/domain/permissions";
import { namesNoField, parseWith } from "~/domain/validation";
import { auditWho, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";

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
  return and(isNull(locations.deletedAt), scope.length ? inArray(locations.id, scope) : sql`1 = 0`)!;
}

export async function listLocations(ctx: ModelContext, query: ListQuery): Promise<Paged<LocationJson>> {
  const where = and(
    scoped(ctx),
    query.search ? or(contains(locations.title, query.search), contains(locations.city, query.search)) : undefined,
    query.date_from ? gte(locations.createdAt, query.date_from) : undefined,
    query.date_to ? lte(locations.createdAt, `${query.date_to}T23:59:59.999Z`) : undefined,
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

export async function createLocation(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<LocationJson>> {
  const parsed = parseWith(LocationInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  // One batch (one transaction). A creator who is not all-access joins the new location, or they could
  // not see what they made; last_insert_rowid() is the location just inserted.
  const joins = locationScope(ctx.actor) !== null;
  // The audit row goes last (withAudit appends it), after the membership that reads last_insert_rowid().
  const insert = () => ctx.db.insert(locations).values(values(parsed.data)).returning();
  const membership = () => ctx.db.insert(userLocations).values({ userId: ctx.actor.id, locationId: sql`last_insert_rowid()` }).onConflictDoNothing();
  const entry = { action: "create", entity: "location", entityId: null, detail: { title: parsed.data.title } };
  const [rows] = joins
    ? await withAudit(ctx.db, auditWho(ctx), entry, () => [insert(), membership(), bumpListVersion(ctx.db, LOCATIONS)])
    : await withAudit(ctx.db, auditWho(ctx), entry, () => [insert(), bumpListVersion(ctx.db, LOCATIONS)]);
  const inserted = rows[0];
  return ok(locationJson(inserted!), "Location created.");
}

export async function updateLocation(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<LocationJson>> {
  const current = await getLocation(ctx, id);
  if (!current) return notFound("Location");
  if (opts.partial && namesNoField(raw, LocationInput)) return nothingToChange();
  const parsed = parseWith(LocationInput, opts.partial ? { ...asInput(current), ...raw } : raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const [rows] = await withAudit(ctx.db, auditWho(ctx), { action: "update", entity: "location", entityId: id }, () => [
    ctx.db
      .update(locations)
      .set({ ...values(parsed.data), version: sql`${locations.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(locations.id, id), isNull(locations.deletedAt), opts.version === null ? undefined : eq(locations.version, opts.version)))
      .returning(),
    bumpListVersion(ctx.db, LOCATIONS),
  ]);
  if (!rows[0]) return conflict((await getLocation(ctx, id)) ?? current);
  return ok(locationJson(rows[0]), "Location updated.");
}

/** Soft delete; refused while clients still belong to the location. */
export async function deleteLocation(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await getLocation(ctx, id);
  if (!current) return notFound("Location");
  const [clients] = await ctx.db.select({ n: count() }).from(patients).where(and(eq(patients.locationId, id), isNull(patients.deletedAt)));
  if ((clients?.n ?? 0) > 0) return invalid({ location: `This location still has ${clients!.n} client(s). Move them to another location first.` });
  await withAudit(ctx.db, auditWho(ctx), { action: "delete", entity: "location", entityId: id }, () => [
    ctx.db.update(locations).set({ deletedAt: ctx.now().toISOString() }).where(eq(locations.id, id)),
    bumpListVersion(ctx.db, LOCATIONS),
  ]);
  return ok(null, "Location deleted.");
}
