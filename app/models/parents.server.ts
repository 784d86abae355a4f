import { and, asc, count, eq, getTableColumns, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { locations, parents, patients } from "~/db/schema";
import { ParentInput, ParentPasswordInput } from "~/domain/parents";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canSeeLocation, locationScope, type Actor } from "~/domain/permissions";
import { parseWith } from "~/domain/validation";
import { endAllAccessStatements } from "~/services/access.server";
import { auditedRead, auditRead, auditTail, withAudit } from "~/services/audit.server";
import type { AppContext } from "~/services/context.server";
import { enqueueEmail, securityNotice } from "~/services/jobs.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { hashPassword } from "~/services/passwords.server";
import type { ModelContext } from "./context";
import { locationOptionsQuery } from "./locations.server";
import { isKeyRace, patientScope, who } from "./patients.server";
import { conflict, invalid, notFound, ok, type ModelResult } from "./results";
import { contains } from "./like.server";

/** A signed-in parent sees only their own children. */
export async function listChildrenOfParent(db: Db, actor: Actor) {
  if (actor.kind !== "parent") return [];
  return db
    .select({ id: patients.id, first_name: patients.firstName, last_name: patients.lastName, status: patients.status })
    .from(patients)
    .where(and(eq(patients.parentId, actor.id), isNull(patients.deletedAt)))
    .orderBy(patients.firstName);
}

/** Parents and guardians (staff side). A parent with a location is seen by staff of that location; one without, by all. */
export const PARENTS = "parents";
/** What a parent record shows: every column but the password hash and the tokens' cut-off, which no read needs. */
const { passwordHash: _hash, tokensValidAfter: _cutoff, ...SHOWN } = getTableColumns(parents);
type Row = Omit<typeof parents.$inferSelect, "passwordHash" | "tokensValidAfter">;

export function parentJson(r: Row & { locationTitle?: string | null }) {
  return {
    id: r.id,
    name: r.name,
    surname: r.surname,
    full_name: `${r.name} ${r.surname}`.trim(),
    email: r.email,
    phone: r.phone,
    work_phone: r.workPhone,
    home_phone: r.homePhone,
    birth_date: r.birthDate,
    gender: r.gender,
    address: r.address,
    city: r.city,
    state: r.state,
    zip_code: r.zipCode,
    location_id: r.locationId,
    location: r.locationId ? { id: r.locationId, title: r.locationTitle ?? null } : null,
    status: r.status,
    version: r.version,
    created_at: r.createdAt,
  };
}
export type ParentJson = ReturnType<typeof parentJson>;

function scoped(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return isNull(parents.deletedAt);
  return and(isNull(parents.deletedAt), or(isNull(parents.locationId), scope.length ? inArray(parents.locationId, scope) : sql`1 = 0`))!;
}

function select(ctx: ModelContext) {
  return ctx.db.select({ p: SHOWN, locationTitle: locations.title }).from(parents).leftJoin(locations, eq(locations.id, parents.locationId));
}
const toJson = (r: { p: Row; locationTitle: string | null }) => parentJson({ ...r.p, locationTitle: r.locationTitle });

export async function listParents(ctx: ModelContext, query: ListQuery): Promise<Paged<ParentJson>> {
  const s = query.search;
  const where = and(
    scoped(ctx),
    s ? or(contains(parents.name, s), contains(parents.surname, s), contains(parents.email, s), contains(sql`${parents.name} || ' ' || ${parents.surname}`, s)) : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    select(ctx).where(where).orderBy(asc(parents.name), asc(parents.surname), asc(parents.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(parents).where(where),
  ]);
  return paged(rows.map(toJson), total?.n ?? 0, query);
}

/** A parent in scope, without an audit row (for checks inside other use cases). */
export async function findParent(ctx: ModelContext, id: number): Promise<ParentJson | null> {
  const [row] = await select(ctx).where(and(eq(parents.id, id), scoped(ctx)));
  return row ? toJson(row) : null;
}

/** A parent in the actor's scope with its location's title and the audit tail (one statement). */
function parentRecordQuery(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ p: SHOWN, locationTitle: locations.title, tail: auditTail })
    .from(parents)
    .leftJoin(locations, eq(locations.id, parents.locationId))
    .where(and(eq(parents.id, id), scoped(ctx)));
}

/** A parent record read (profile, show): in scope, and the read is audited like a client read (entity "parent"). */
export async function getParent(ctx: ModelContext, id: number): Promise<ParentJson | null> {
  const [row] = await parentRecordQuery(ctx, id);
  if (!row) return null;
  await auditRead(ctx.db, who(ctx), { entity: "parent", entityId: id }, row.tail);
  return toJson(row);
}

/**
 * The parent's profile screen: the parent in scope (404 first), then the children the actor may see and
 * the location options in the batch of the read's audit row (session, parent, batch: 3 round trips).
 */
export async function getParentProfile(ctx: ModelContext, id: number) {
  const [row] = await parentRecordQuery(ctx, id);
  if (!row) return null;
  const [children, locationList] = await auditedRead(ctx.db, who(ctx), { entity: "parent", entityId: id }, () => [childrenQuery(ctx, id), locationOptionsQuery(ctx)], row.tail);
  return { parent: toJson(row), children, locations: locationList };
}

/** The parent's children the actor may see, as a statement. */
function childrenQuery(ctx: ModelContext, parentId: number) {
  return ctx.db
    .select({ id: patients.id, first_name: patients.firstName, last_name: patients.lastName, status: patients.status, patient_identifier: patients.patientIdentifier })
    .from(patients)
    .where(and(eq(patients.parentId, parentId), patientScope(ctx)))
    .orderBy(asc(patients.firstName));
}

/**
 * A parent without a location is seen by staff of every location, so staff limited to some locations must
 * link a new parent to one of theirs, and may not unlink one that has a location (docs/decisions/020).
 */
async function check(ctx: ModelContext, input: ParentInput, selfId: number | null, currentLocationId: number | null = null): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  const mustHaveLocation = locationScope(ctx.actor) !== null && (selfId === null || currentLocationId !== null);
  if (input.location_id === null && mustHaveLocation) errors.location_id = "Choose one of your locations.";
  if (input.location_id !== null) {
    const [loc] = await ctx.db.select({ id: locations.id }).from(locations).where(and(eq(locations.id, input.location_id), isNull(locations.deletedAt)));
    if (!loc || !canSeeLocation(ctx.actor, input.location_id)) errors.location_id = "Choose one of your locations.";
  }
  const [dup] = await ctx.db.select({ id: parents.id }).from(parents).where(eq(parents.email, input.email));
  if (dup && dup.id !== selfId) errors.email = "This email is already in use.";
  return errors;
}

function values(i: ParentInput) {
  return {
    name: i.name,
    surname: i.surname,
    email: i.email,
    phone: i.phone,
    workPhone: i.work_phone,
    homePhone: i.home_phone,
    birthDate: i.birth_date,
    gender: i.gender,
    address: i.address,
    city: i.city,
    state: i.state,
    zipCode: i.zip_code,
    locationId: i.location_id,
    status: i.status,
  };
}

export function parentAsInput(p: ParentJson): Record<string, unknown> {
  const { id: _i, full_name: _f, location: _l, version: _v, created_at: _c, ...rest } = p;
  return rest;
}

export async function createParent(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<ParentJson>> {
  const parsed = parseWith(ParentInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const errors = await check(ctx, parsed.data, null);
  if (Object.keys(errors).length) return invalid(errors);
  for (let attempt = 0; ; attempt++) {
    const [max] = await ctx.db.select({ n: sql<number>`coalesce(max(${parents.id}), 0) + 1` }).from(parents);
    const newId = Number(max?.n ?? 1);
    try {
      await withAudit(ctx.db, who(ctx), { action: "create", entity: "parent", entityId: newId }, () => [
        ctx.db.insert(parents).values({ id: newId, ...values(parsed.data) }),
        bumpListVersion(ctx.db, PARENTS),
      ]);
      return ok((await findParent(ctx, newId))!, "Parent created.");
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

export async function updateParent(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<ParentJson>> {
  const current = await findParent(ctx, id);
  if (!current) return notFound("Parent");
  const parsed = parseWith(ParentInput, opts.partial ? { ...parentAsInput(current), ...raw } : raw);
  if (!parsed.ok) return invalid(parsed.errors);
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  const errors = await check(ctx, parsed.data, id, current.location_id);
  if (Object.keys(errors).length) return invalid(errors);
  // A new email or status ends every session and API token of the parent.
  const endsAccess = parsed.data.email.toLowerCase() !== current.email.toLowerCase() || parsed.data.status !== current.status;
  const [rows] = await withAudit(ctx.db, who(ctx), { action: "update", entity: "parent", entityId: id }, () => {
    const update = ctx.db
      .update(parents)
      .set({ ...values(parsed.data), version: sql`${parents.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(parents.id, id), isNull(parents.deletedAt), opts.version === null ? undefined : eq(parents.version, opts.version)))
      .returning({ id: parents.id });
    const rest = [bumpListVersion(ctx.db, PARENTS), ...(endsAccess ? endAllAccessStatements(ctx.db, { type: "parent", id }, ctx.now()) : [])];
    return [update, ...rest] as unknown as [typeof update];
  });
  if (!rows[0]) return conflict((await findParent(ctx, id)) ?? current);
  return ok((await findParent(ctx, id))!, "Parent updated.");
}

/** Soft delete; the children keep their record but lose the link. */
export async function deleteParent(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await findParent(ctx, id);
  if (!current) return notFound("Parent");
  await withAudit(ctx.db, who(ctx), { action: "delete", entity: "parent", entityId: id }, () => [
    ctx.db.update(parents).set({ deletedAt: ctx.now().toISOString() }).where(eq(parents.id, id)),
    ...endAllAccessStatements(ctx.db, { type: "parent", id }, ctx.now()),
    ctx.db.update(patients).set({ parentId: null }).where(eq(patients.parentId, id)),
    bumpListVersion(ctx.db, PARENTS),
  ]);
  return ok(null, "Parent deleted.");
}

/**
 * Staff set a parent's password (initial or new). The new hash, the end of every screen session and API
 * token of that parent and the audit row (entity "parent", action "password") land in one batch; the parent then gets
 * the usual security notice. The password is never answered back.
 */
export async function setParentPassword(ctx: ModelContext, app: Pick<AppContext, "env" | "email">, id: number, raw: Record<string, unknown>): Promise<ModelResult<null>> {
  const current = await findParent(ctx, id);
  if (!current) return notFound("Parent");
  const parsed = parseWith(ParentPasswordInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const passwordHash = await hashPassword(parsed.data.password, app.env.PASSWORD_PEPPER ?? "");
  await withAudit(ctx.db, who(ctx), { action: "password", entity: "parent", entityId: id }, () => [
    ctx.db.update(parents).set({ passwordHash, updatedAt: ctx.now().toISOString() }).where(and(eq(parents.id, id), isNull(parents.deletedAt))),
    ...endAllAccessStatements(ctx.db, { type: "parent", id }, ctx.now()),
  ]);
  await enqueueEmail(app, securityNotice(current.email, current.name, "Your password was changed"));
  return ok(null, "Password set. The parent has been signed out everywhere.");
}
