import { asc, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { roles } from "~/db/schema";
import { normalizePermissions, type Actor } from "~/domain/permissions";

/** Roles with their permission sets and how many users hold each. Callers check manage_roles first. */
export async function listRoles(db: Db, _actor: Actor) {
  const rows = await db
    .select({
      id: roles.id,
      name: roles.name,
      permissions: roles.permissions,
      users: sql<number>`(select count(*) from user_roles ur where ur.role_id = roles.id)`,
    })
    .from(roles)
    .orderBy(asc(roles.id));
  return rows.map((r) => ({ ...r, permissions: normalizePermissions(safeList(r.permissions)), users: Number(r.users) }));
}

function safeList(json: string): string[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
  } catch {
    return [];
  }
}
