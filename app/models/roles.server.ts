import { and, asc, count, eq, isNull, ne, sql, type SQL } from "drizzle-orm";
import { leavesAsStored } from "~/domain/audit-changes";
import { locations, roles, userLocations, userRoles, users } from "~/db/schema";
import { changeDetail } from "~/domain/audit-changes";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { isAllAccess, locationScope, normalizePermissions } from "~/domain/permissions";
import { isProtectedRole, isReservedRoleName, PERMISSIONS_REQUIRED, permissionsLeftOut, RoleInput } from "~/domain/roles";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { mayChangeRoleHolders, mayEditRole } from "~/domain/who-may-change";
import { auditTail, auditWho, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { conflict, denied, invalid, type ModelResult, notFound, nothingToChange, ok, unchangedAt } from "./results";
import { contains } from "./like.server";
import { withNextId } from "./patients.server";

/**
 * Roles (platform §3 Role, §6). Callers check manage_roles first; roles are not scoped by location. A role
 * may be created or changed only at or below the actor's own rank: no permission the actor lacks, and a
 * role holding one cannot be edited (decision 015).
 */

export const ROLES = "roles";
export const DUPLICATE_NAME = "A role with this name already exists.";

// "roles"."id" written out: a one-table select leaves ${roles.id} unqualified ("id").
const usersOf = sql<number>`(select count(*) from user_roles ur where ur.role_id = "roles"."id")`;

type Row = typeof roles.$inferSelect & { users: number };

export function roleJson(r: Row) {
  return {
    id: r.id,
    name: r.name,
    permissions: normalizePermissions(safeList(r.permissions)),
    /** SUPERADMIN and ADMIN pass every check whatever their permission set. */
    all_access: isProtectedRole(r.name),
    users: Number(r.users),
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type RoleJson = ReturnType<typeof roleJson>;

const columns = {
  id: roles.id,
  name: roles.name,
  permissions: roles.permissions,
  version: roles.version,
  createdAt: roles.createdAt,
  updatedAt: roles.updatedAt,
  users: usersOf,
};

/** The v2 list: search by name, paginated, ordered by name. */
export async function listRolesPage(ctx: ModelContext, query: ListQuery): Promise<Paged<RoleJson>> {
  const where = query.search ? contains(roles.name, query.search) : undefined;
  const [rows, [total]] = await ctx.db.batch([
    ctx.db.select(columns).from(roles).where(where).orderBy(asc(roles.name), asc(roles.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(roles).where(where),
  ]);
  return paged(rows.map(roleJson), total?.n ?? 0, query);
}

export async function getRole(ctx: ModelContext, id: number): Promise<RoleJson | null> {
  const [row] = await ctx.db.select(columns).from(roles).where(eq(roles.id, id));
  return row ? roleJson(row) : null;
}

/** Another role already has this name (names compare without regard to case). */
async function nameTaken(ctx: ModelContext, name: string, exceptId?: number): Promise<boolean> {
  const cond: SQL[] = [sql`lower(${roles.name}) = lower(${name})`];
  if (exceptId !== undefined) cond.push(ne(roles.id, exceptId));
  const [row] = await ctx.db.select({ id: roles.id }).from(roles).where(and(...cond)).limit(1);
  return !!row;
}

function isUniqueViolation(e: unknown): boolean {
  const text = `${e instanceof Error ? e.message : String(e)} ${e instanceof Error && e.cause instanceof Error ? e.cause.message : ""}`;
  return /UNIQUE constraint failed/i.test(text);
}

/** A name that would pass every permission check may only be given by someone who already does. */
function reservedNameRefused(ctx: ModelContext, name: string): ModelResult<never> | null {
  return isReservedRoleName(name) && !isAllAccess(ctx.actor) ? invalid({ name: `Only a SUPERADMIN or ADMIN user can use the name ${name.toUpperCase()}: that role passes every permission check.` }) : null;
}

export async function createRole(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<RoleJson>> {
  const parsed = parseWith(RoleInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const { name, permissions } = parsed.data;
  const refused = reservedNameRefused(ctx, name);
  if (refused) return refused;
  const rank = mayEditRole(ctx.actor, null, { name, permissions });
  if (!rank.ok) return rank.status === 403 ? denied(rank.message) : invalid({ permissions: rank.message });
  if (await nameTaken(ctx, name)) return invalid({ name: DUPLICATE_NAME });
  try {
    const [rows] = await withNextId(ctx, roles, (id, tail) =>
      withAudit(
        ctx.db,
        auditWho(ctx),
        { action: "create", entity: "role", entityId: id, detail: { name, permissions } },
        () => [ctx.db.insert(roles).values({ id, name, permissions: JSON.stringify(permissions) }).returning(), bumpListVersion(ctx.db, ROLES)],
        tail,
      ),
    );
    return ok(roleJson({ ...rows[0]!, users: 0 }), "Role created.");
  } catch (e) {
    if (isUniqueViolation(e)) return invalid({ name: DUPLICATE_NAME });
    throw e;
  }
}

/** The role with its holders' count and the audit chain's tail (withAudit's `tail`), as a statement. */
function forChangeQuery(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ ...columns, tail: auditTail })
    .from(roles)
    .where(eq(roles.id, id));
}

/** The live locations where the role's holders (live users) work, as a statement. */
function holderLocationsQuery(ctx: ModelContext, id: number) {
  return (
    ctx.db
      .selectDistinct({ locationId: userLocations.locationId })
      .from(userRoles)
      .innerJoin(users, and(eq(users.id, userRoles.userId), isNull(users.deletedAt)))
      .innerJoin(userLocations, eq(userLocations.userId, userRoles.userId))
      // A membership left at a deleted location is not a place the holder works (decision 015, stop 25).
      .innerJoin(locations, and(eq(locations.id, userLocations.locationId), isNull(locations.deletedAt)))
      .where(eq(userRoles.roleId, id))
  );
}

/** Another role with this name (names compare without regard to case), as a statement. */
function nameTakenQuery(ctx: ModelContext, name: string, exceptId: number) {
  return ctx.db
    .select({ id: roles.id })
    .from(roles)
    .where(and(sql`lower(${roles.name}) = lower(${name})`, ne(roles.id, exceptId)))
    .limit(1);
}

/**
 * What an edit changes of a role, for its audit row (decision 019, stop 44): its name and its permissions, both with
 * the old and the new value (the permissions sorted, so the same set reads the same and a grant or a removal shows
 * as the one name added to or missing from the list). A role holds no one's personal data.
 */
function roleChange(current: RoleJson, next: { name: string; permissions: readonly string[] }) {
  const sorted = (list: readonly string[]) => [...list].sort();
  return changeDetail({ name: current.name, permissions: sorted(current.permissions) }, { name: next.name, permissions: sorted(next.permissions) }, ["name", "permissions"]);
}

export async function updateRole(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<RoleJson>> {
  // One read batch: the role with the audit tail, another role holding the sent name, and (for an actor limited to
  // some locations) where the role's holders work. Then the write batch, which reads the role back: two round trips
  // (decision 043, stop 37).
  const scoped = locationScope(ctx.actor) !== null;
  const sentName = typeof raw.name === "string" ? raw.name.trim() : null;
  const [[row], namesTaken, holders] = await ctx.db.batch([
    forChangeQuery(ctx, id),
    nameTakenQuery(ctx, sentName ?? "", id),
    scoped ? holderLocationsQuery(ctx, id) : ctx.db.select({ locationId: userLocations.locationId }).from(userLocations).where(sql`0`),
  ]);
  if (!row) return notFound("Role");
  const { tail, ...stored } = row;
  const current = roleJson(stored);
  if (namesNoField(raw, RoleInput)) return nothingToChange();
  const parsed = parseChange(RoleInput, raw, opts.partial ? { name: current.name, permissions: current.permissions } : null);
  // A full update names the permission set; the edit screen always does (no box ticked posts `[]`).
  const leftOut = !opts.partial && permissionsLeftOut(raw) ? { permissions: PERMISSIONS_REQUIRED } : null;
  if (!parsed.ok || leftOut) return invalid({ ...(parsed.ok ? {} : parsed.errors), ...leftOut });
  const { name, permissions } = parsed.data;
  if (name !== current.name) {
    if (isProtectedRole(current.name)) return invalid({ name: `The ${current.name} role cannot be renamed.` });
    const refused = reservedNameRefused(ctx, name);
    if (refused) return refused;
    // A name the batch did not look up (the schema read the body differently) is looked up on its own.
    if (name === sentName ? namesTaken.length > 0 : await nameTaken(ctx, name, id)) return invalid({ name: DUPLICATE_NAME });
  }
  const rank = mayEditRole(ctx.actor, current, { name, permissions });
  if (!rank.ok) return rank.status === 403 ? denied(rank.message) : invalid({ permissions: rank.message });
  // A save that leaves the name and the permission set as stored writes nothing and keeps the version (decision 017,
  // stop 44), once the actor may edit the role at all; a stale version is still a 409.
  const sorted = (list: readonly string[]) => [...list].sort();
  if (leavesAsStored({ name: current.name, permissions: sorted(current.permissions) }, { name, permissions: sorted(permissions) }))
    return unchangedAt(current, current.version, opts.version);
  // Changing a role's permissions changes every holder's powers: the actor must cover all their locations.
  const permissionsChange = [...permissions].sort().join() !== [...current.permissions].sort().join();
  if (permissionsChange && scoped) {
    const covered = mayChangeRoleHolders(ctx.actor, holders.map((h) => h.locationId));
    if (!covered.ok) return denied(covered.message);
  }
  try {
    const results = await withAudit(
      ctx.db,
      auditWho(ctx),
      // What the save changes, the name and the permissions as sorted lists, old and new (decision 019, stop 44).
      { action: "update", entity: "role", entityId: id, detail: roleChange(current, { name, permissions }) },
      () => [
        ctx.db
          .update(roles)
          .set({ name, permissions: JSON.stringify(permissions), version: sql`${roles.version} + 1`, updatedAt: ctx.now().toISOString() })
          .where(and(eq(roles.id, id), opts.version === null ? undefined : eq(roles.version, opts.version)))
          .returning(),
        bumpListVersion(ctx.db, ROLES),
        // The role as the batch leaves it (saved, or as another save left it): answers a 409 without a further read.
        forChangeQuery(ctx, id),
      ],
      tail,
    );
    const [rows, , [after]] = results;
    if (!rows[0]) {
      if (!after) return notFound("Role");
      const { tail: _t, ...now } = after;
      return conflict(roleJson(now));
    }
    return ok(roleJson({ ...rows[0], users: current.users }), "Role updated.");
  } catch (e) {
    if (isUniqueViolation(e)) return invalid({ name: DUPLICATE_NAME });
    throw e;
  }
}

/** Refused for SUPERADMIN and ADMIN, for a role above the actor's rank (403, as an edit), and while any user holds the role. */
export async function deleteRole(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await getRole(ctx, id);
  if (!current) return notFound("Role");
  if (isProtectedRole(current.name)) return invalid({ role: `The ${current.name} role cannot be deleted.` });
  // Deleting is a stronger change than an edit: the same rank rule (decision 015).
  const rank = mayEditRole(ctx.actor, current, current);
  if (!rank.ok) return denied(rank.message);
  const held = (n: number) => invalid({ role: `${n} user(s) still hold the ${current.name} role. Give them another role first.` });
  if (current.users > 0) return held(current.users);
  // The condition is repeated in the delete, so a user given the role a moment ago still blocks it.
  const [deleted] = await withAudit(ctx.db, auditWho(ctx), { action: "delete", entity: "role", entityId: id, detail: { name: current.name } }, () => [
    ctx.db
      .delete(roles)
      .where(and(eq(roles.id, id), sql`not exists (select 1 from ${userRoles} where ${userRoles.roleId} = ${id})`))
      .returning({ id: roles.id }),
    bumpListVersion(ctx.db, ROLES),
  ]);
  if (!deleted[0]) {
    const now = await getRole(ctx, id);
    return now ? held(now.users) : notFound("Role");
  }
  return ok(null, "Role deleted.");
}

function safeList(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}
