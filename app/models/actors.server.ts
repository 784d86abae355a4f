import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { parents, users } from "~/db/schema";
import { normalizePermissions, type Actor } from "~/domain/permissions";

export type PrincipalType = "user" | "parent";

function parseJsonArray<T>(value: string | null | undefined): T[] {
  if (!value) return [];
  try {
    const v = JSON.parse(value);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/**
 * Loads a staff user with roles, permissions and locations in one query; null when absent, deleted or inactive.
 * The correlated subqueries name `users.id` in plain SQL: drizzle leaves columns unqualified in a
 * single-table select, which inside a subquery would bind to the subquery's own tables.
 */
export async function getUserActor(db: Db, id: number): Promise<Actor | null> {
  const [row] = await db
    .select({
      id: users.id,
      name: users.name,
      surname: users.surname,
      email: users.email,
      status: users.status,
      phone: users.phone,
      avatar: users.avatar,
      locationId: users.locationId,
      twoFactorEnabled: users.twoFactorEnabled,
      roles: sql<string>`(select json_group_array(r.name) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = users.id)`,
      permissions: sql<string>`(select json_group_array(r.permissions) from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = users.id)`,
      locations: sql<string>`(select json_group_array(ul.location_id) from user_locations ul where ul.user_id = users.id)`,
      timeZone: sql<string | null>`(select l.time_zone from locations l where l.id = users.location_id)`,
    })
    .from(users)
    .where(and(eq(users.id, id), isNull(users.deletedAt)));
  if (!row || row.status !== "active") return null;
  const permissionLists = parseJsonArray<string>(row.permissions).flatMap((p) => parseJsonArray<string>(p));
  return {
    kind: "user",
    id: row.id,
    name: row.name,
    surname: row.surname,
    email: row.email,
    roles: parseJsonArray<string>(row.roles),
    permissions: normalizePermissions(permissionLists),
    locationIds: parseJsonArray<number>(row.locations),
    locationId: row.locationId,
    timeZone: row.timeZone,
    avatar: row.avatar,
    status: row.status,
    phone: row.phone,
    twoFactorEnabled: row.twoFactorEnabled,
  };
}

/** A parent signs in with no staff roles or permissions and no location scope. */
export async function getParentActor(db: Db, id: number): Promise<Actor | null> {
  const [row] = await db
    .select()
    .from(parents)
    .where(and(eq(parents.id, id), isNull(parents.deletedAt)));
  if (!row || row.status !== "active") return null;
  return {
    kind: "parent",
    id: row.id,
    name: row.name,
    surname: row.surname,
    email: row.email,
    roles: ["PARENT"],
    permissions: [],
    locationIds: [],
    locationId: row.locationId,
    timeZone: null,
    avatar: null,
    status: row.status,
    phone: row.phone,
    twoFactorEnabled: row.twoFactorEnabled,
  };
}

export function getActor(db: Db, type: PrincipalType, id: number): Promise<Actor | null> {
  return type === "user" ? getUserActor(db, id) : getParentActor(db, id);
}

/** The user object of the API answers (platform §7 refresh fields). */
export function actorJson(actor: Actor) {
  return {
    id: actor.id,
    name: actor.name,
    surname: actor.surname,
    full_name: `${actor.name} ${actor.surname}`.trim(),
    email: actor.email,
    permissions: actor.permissions,
    locations: actor.locationIds,
    roles: actor.roles,
    location_id: actor.locationId,
    avatar: actor.avatar,
    status: actor.status,
    phone: actor.phone,
    two_factor_enabled: actor.twoFactorEnabled,
    is_parent: actor.kind === "parent",
  };
}
