import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { parents, revokedTokens, users } from "~/db/schema";
import { normalizePermissions, type Actor } from "~/domain/permissions";
import { auditTail, type KnownTail } from "~/services/audit.server";

export type PrincipalType = "user" | "parent";

/**
 * A principal as a session or token is issued to it: with the access generation its password check read (or a
 * change of its own set). The session or token is valid only while that is the principal's generation (decision 015).
 */
export interface PrincipalWithGeneration {
  type: PrincipalType;
  id: number;
  accessGeneration: number;
}

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
 * The columns a staff actor is built from: the user with roles, permissions and locations as JSON
 * aggregates, so one query loads it (alone, or joined to the session row by the screen guard).
 * The correlated subqueries name `users.id` in plain SQL: drizzle leaves columns unqualified in a
 * single-table select, which inside a subquery would bind to the subquery's own tables.
 */
export const userActorFields = {
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
};
const userActorSelect = (db: Db) => db.select(userActorFields).from(users);
type UserActorRow = Awaited<ReturnType<typeof userActorSelect>>[number];

/** The parent columns an actor is built from. */
export const parentActorFields = {
  id: parents.id,
  name: parents.name,
  surname: parents.surname,
  email: parents.email,
  status: parents.status,
  phone: parents.phone,
  locationId: parents.locationId,
  twoFactorEnabled: parents.twoFactorEnabled,
};
const parentActorSelect = (db: Db) => db.select(parentActorFields).from(parents);
type ParentActorRow = Awaited<ReturnType<typeof parentActorSelect>>[number];

/** A staff actor from its row; null when absent (a left join's nulls) or not active. */
export function userActorFrom(row: UserActorRow | null | undefined): Actor | null {
  // A left join's missing user arrives as nulls.
  if (!row || row.id == null || row.status !== "active") return null;
  const r = row;
  const permissionLists = parseJsonArray<string>(r.permissions).flatMap((p) => parseJsonArray<string>(p));
  return {
    kind: "user",
    id: r.id,
    name: r.name,
    surname: r.surname,
    email: r.email,
    roles: parseJsonArray<string>(r.roles),
    permissions: normalizePermissions(permissionLists),
    locationIds: parseJsonArray<number>(r.locations),
    locationId: r.locationId,
    timeZone: r.timeZone,
    avatar: r.avatar,
    status: r.status,
    phone: r.phone,
    twoFactorEnabled: r.twoFactorEnabled,
  };
}

/** A parent signs in with no staff roles or permissions and no location scope. */
export function parentActorFrom(row: ParentActorRow | null | undefined): Actor | null {
  if (!row || row.id == null || row.status !== "active") return null;
  const r = row;
  return {
    kind: "parent",
    id: r.id,
    name: r.name,
    surname: r.surname,
    email: r.email,
    roles: ["PARENT"],
    permissions: [],
    locationIds: [],
    locationId: r.locationId,
    timeZone: null,
    avatar: null,
    status: r.status,
    phone: r.phone,
    twoFactorEnabled: r.twoFactorEnabled,
  };
}

/** Loads a staff user with roles, permissions and locations in one query; null when absent, deleted or inactive. */
export async function getUserActor(db: Db, id: number): Promise<Actor | null> {
  const [row] = await userActorSelect(db).where(and(eq(users.id, id), isNull(users.deletedAt)));
  return userActorFrom(row);
}

/** A parent actor; null when absent, deleted or inactive. */
export async function getParentActor(db: Db, id: number): Promise<Actor | null> {
  const [row] = await parentActorSelect(db).where(and(eq(parents.id, id), isNull(parents.deletedAt)));
  return parentActorFrom(row);
}

export function getActor(db: Db, type: PrincipalType, id: number): Promise<Actor | null> {
  return type === "user" ? getUserActor(db, id) : getParentActor(db, id);
}

export interface TokenPrincipal {
  /** Null when absent, deleted or inactive. */
  actor: Actor | null;
  /** Epoch ms; a token without a generation claim issued at or before it is no longer valid. */
  tokensValidAfter: number;
  /** The principal's access generation; a token issued with another one is no longer valid. */
  accessGeneration: number;
  revoked: boolean;
  /** The audit chain's tail, read in the same statement (an audited read then costs only its insert; decision 019). */
  tail: KnownTail;
}

/**
 * What checking a bearer token needs, in ONE statement: the principal (as for getActor), its access generation
 * (and the older cut-off time), whether this token's id was revoked, and the audit chain's tail.
 */
function cutOffs(row: { tokensValidAfter: number; accessGeneration: number } | undefined) {
  return { tokensValidAfter: Number(row?.tokensValidAfter ?? 0), accessGeneration: Number(row?.accessGeneration ?? 0) };
}

export async function getTokenPrincipal(db: Db, type: PrincipalType, id: number, jti: string): Promise<TokenPrincipal> {
  const revoked = sql<number>`exists (select 1 from ${revokedTokens} where ${revokedTokens.jti} = ${jti})`;
  if (type === "user") {
    const [row] = await db
      .select({ ...userActorFields, tokensValidAfter: users.tokensValidAfter, accessGeneration: users.accessGeneration, revoked, tail: auditTail })
      .from(users)
      .where(and(eq(users.id, id), isNull(users.deletedAt)));
    return { actor: userActorFrom(row), ...cutOffs(row), revoked: !!row && Number(row.revoked) === 1, tail: row ? row.tail : undefined };
  }
  const [row] = await db
    .select({ ...parentActorFields, tokensValidAfter: parents.tokensValidAfter, accessGeneration: parents.accessGeneration, revoked, tail: auditTail })
    .from(parents)
    .where(and(eq(parents.id, id), isNull(parents.deletedAt)));
  return { actor: parentActorFrom(row), ...cutOffs(row), revoked: !!row && Number(row.revoked) === 1, tail: row ? row.tail : undefined };
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
