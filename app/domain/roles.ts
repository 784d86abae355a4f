import * as v from "valibot";
import { MESSAGES, requiredLine } from "./fields";
import { ALL_ACCESS_ROLES, isPermission, LEGACY_PERMISSIONS, normalizePermissions, PERMISSIONS, type Permission } from "./permissions";

/** Roles (platform §3 Role, §6): a name and a set of permissions. Pure. */

export const ROLE_NAME_MAX = 50;
export const ROLE_NAME_MESSAGE = "Name may contain only letters, digits, spaces, _ and -.";

/** What each permission lets its holder do, for the role form's checkbox labels. */
export const PERMISSION_LABELS: Readonly<Record<Permission, string>> = {
  manage_employees: "Manage employees",
  view_employees: "View employees",
  view_notes: "View session notes",
  manage_notes: "Manage session notes",
  view_parents: "View parents",
  manage_parents: "Manage parents",
  manage_insurances: "Manage insurances",
  manage_locations: "Manage locations",
  manage_locations_access: "View locations",
  access_all_locations: "Access all locations",
  manage_tickets: "Manage tickets",
  manage_roles: "Manage roles and permissions",
  manage_bips: "Manage behavior plans",
  view_bips: "View behavior plans",
  manage_clients: "Manage clients",
  view_clients: "View clients",
  manage_claims: "Manage claims",
  ignore_time_limits: "Date notes past the 14-day limit",
};

/** "view_clients — View clients". */
export function permissionLabel(p: Permission): string {
  return `${p} — ${PERMISSION_LABELS[p]}`;
}

export const PERMISSION_OPTIONS = PERMISSIONS.map((p) => ({ value: p, label: permissionLabel(p) }));

/** True for a standard permission name or a legacy one (platform §6). */
export function isKnownPermission(name: string): boolean {
  const n = name.trim();
  return isPermission(n) || Object.prototype.hasOwnProperty.call(LEGACY_PERMISSIONS, n);
}

export function unknownPermissions(names: readonly string[]): string[] {
  return names.filter((n) => !isKnownPermission(n));
}

/** SUPERADMIN and ADMIN pass every check: they cannot be renamed or deleted, and their names are reserved. */
export function isProtectedRole(name: string): boolean {
  return ALL_ACCESS_ROLES.includes(name);
}

export function isReservedRoleName(name: string): boolean {
  return ALL_ACCESS_ROLES.some((r) => r.toLowerCase() === name.trim().toLowerCase());
}

/**
 * A permission list: a form repeats the name, the API sends an array (or a comma list). Standard and legacy
 * names are accepted and stored as standard ones, without duplicates; an unknown name is refused.
 */
export const PermissionList = v.pipe(
  v.optional(v.nullable(v.union([v.array(v.string("Each permission must be text.")), v.string()], "Permissions must be a list of permission names.")), []),
  v.transform((x) => (x === null ? [] : Array.isArray(x) ? x : x.split(",")).map((s) => s.trim()).filter(Boolean)),
  v.check(
    (xs) => unknownPermissions(xs).length === 0,
    (issue) => {
      const bad = unknownPermissions(issue.input as string[]);
      return `Unknown permission${bad.length > 1 ? "s" : ""}: ${bad.join(", ")}. Choose permissions from the list.`;
    },
  ),
  v.transform((xs): Permission[] => normalizePermissions(xs)),
);

/**
 * A full update (PUT) of a role must send its permission set: a role is a named permission set (platform §6), and a
 * body that leaves the list out (or sends null) would otherwise take every holder's access away for a rename. An
 * explicit `[]` still empties the role. A PATCH without the key keeps the stored set (decision 017, stop 42).
 */
export const PERMISSIONS_REQUIRED = "Choose the role's permissions.";

/** Whether a full update's body leaves the permission set out (missing key or null). */
export function permissionsLeftOut(body: Record<string, unknown>): boolean {
  return body.permissions === undefined || body.permissions === null;
}

/** One schema for the role form and the role API. */
export const RoleInput = v.object({
  // A missing or null name reads as an empty one, so every way of leaving it out says "Name is required."
  name: v.pipe(
    v.optional(v.nullable(v.string(MESSAGES.required("Name"))), ""),
    v.transform((x) => x ?? ""),
    requiredLine("Name", ROLE_NAME_MAX),
    v.regex(/^[A-Za-z0-9 _-]+$/, ROLE_NAME_MESSAGE),
  ),
  permissions: PermissionList,
});
export type RoleInput = v.InferOutput<typeof RoleInput>;
