/**
 * Roles and permissions (platform §6). One place decides: `can(actor, permission)`.
 * SUPERADMIN and ADMIN pass every check; everyone else needs the exact permission string.
 */

export const PERMISSIONS = [
  "manage_employees",
  "view_employees",
  "view_notes",
  "manage_notes",
  "view_parents",
  "manage_parents",
  "manage_insurances",
  "manage_locations",
  "manage_locations_access",
  "access_all_locations",
  "manage_tickets",
  "manage_roles",
  "manage_bips",
  "view_bips",
  "manage_clients",
  "view_clients",
  "manage_claims",
  /** Issue 10: may date a session note more than 14 days back. */
  "ignore_time_limits",
] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const ROLE_NAMES = ["SUPERADMIN", "ADMIN", "MANAGER", "DOCTOR", "LM", "BCBA", "BCaBA", "RBT"] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

/** Roles that pass every permission check. */
export const ALL_ACCESS_ROLES: readonly string[] = ["SUPERADMIN", "ADMIN"];

/** Legacy permission names and the standard name each one means (platform §6). */
export const LEGACY_PERMISSIONS: Readonly<Record<string, Permission>> = {
  list_employers: "view_employees",
  register_employer: "manage_employees",
  list_patient: "view_clients",
  register_patient: "manage_clients",
  edit_patient: "manage_clients",
  list_patient_log_report: "manage_notes",
  list_parent: "view_parents",
  register_parent: "manage_parents",
  edit_parent: "manage_parents",
  list_insurance: "manage_insurances",
  register_insurance: "manage_insurances",
  list_location: "manage_locations",
  register_location: "manage_locations",
  edit_location: "manage_locations",
  logs: "manage_notes",
  claims: "manage_claims",
  list_bip: "view_bips",
  view_bip: "view_bips",
  register_bip: "manage_bips",
  edit_bip: "manage_bips",
  register_rol: "manage_roles",
  list_rol: "manage_roles",
  admin_dashboard: "access_all_locations",
};

export function isPermission(value: string): value is Permission {
  return (PERMISSIONS as readonly string[]).includes(value);
}

/** Maps legacy names to standard ones, drops unknown strings and duplicates, keeps a stable order. */
export function normalizePermissions(values: readonly string[]): Permission[] {
  const out = new Set<Permission>();
  for (const raw of values) {
    const name = raw.trim();
    const standard = isPermission(name) ? name : LEGACY_PERMISSIONS[name];
    if (standard) out.add(standard);
  }
  return PERMISSIONS.filter((p) => out.has(p));
}

/** The acting principal every model function receives. */
export interface Actor {
  kind: "user" | "parent";
  id: number;
  name: string;
  surname: string;
  email: string;
  roles: string[];
  permissions: Permission[];
  /** Locations the actor belongs to. */
  locationIds: number[];
  /** Primary location (location_id). */
  locationId: number | null;
  /** The IANA time zone of the primary location (the actor's calendar), when there is one. */
  timeZone: string | null;
  avatar: string | null;
  status: string;
  phone: string | null;
  twoFactorEnabled: boolean;
}

export function isAllAccess(actor: Pick<Actor, "roles" | "kind">): boolean {
  return actor.kind === "user" && actor.roles.some((r) => ALL_ACCESS_ROLES.includes(r));
}

/** The product settings are SUPERADMIN's alone (ADMIN passes every permission check, but not this one). */
export function isSuperadmin(actor: Pick<Actor, "roles" | "kind"> | null | undefined): boolean {
  return !!actor && actor.kind === "user" && actor.roles.includes("SUPERADMIN");
}

/** True only if the actor is staff and passes the check for this exact permission (parents never do). */
export function can(actor: Pick<Actor, "roles" | "permissions" | "kind"> | null | undefined, permission: Permission): boolean {
  if (!actor || actor.kind !== "user") return false;
  if (isAllAccess(actor)) return true;
  return actor.permissions.length > 0 && actor.permissions.includes(permission);
}

export function canAny(actor: Pick<Actor, "roles" | "permissions" | "kind"> | null | undefined, permissions: readonly Permission[]): boolean {
  return permissions.some((p) => can(actor, p));
}

export function canAll(actor: Pick<Actor, "roles" | "permissions" | "kind"> | null | undefined, permissions: readonly Permission[]): boolean {
  return permissions.every((p) => can(actor, p));
}

/**
 * Who may list and open employees (the employee screens' and API's guard, the dashboard's count, report links):
 * view_employees, and manage_employees reads them too (decision 007, the employee resource's "readers").
 */
export const EMPLOYEE_READERS: readonly Permission[] = ["view_employees", "manage_employees"];

export function canReadEmployees(actor: Pick<Actor, "roles" | "permissions" | "kind"> | null | undefined): boolean {
  return canAny(actor, EMPLOYEE_READERS);
}

/** Who may open a client's profile (the /patients/profile guard): view_clients. */
export const CLIENT_READER: Permission = "view_clients";

export function canReadClients(actor: Pick<Actor, "roles" | "permissions" | "kind"> | null | undefined): boolean {
  return can(actor, CLIENT_READER);
}

/** Who may read parent accounts (their names and sign-in emails; the parent screens' guard): view_parents. */
export function canReadParents(actor: Pick<Actor, "roles" | "permissions" | "kind"> | null | undefined): boolean {
  return can(actor, "view_parents");
}

/**
 * Location scope for reads: `null` means every location (all-access roles and
 * `access_all_locations`); otherwise the list of location ids the actor may see.
 */
export function locationScope(actor: Actor): number[] | null {
  if (actor.kind !== "user") return [];
  if (can(actor, "access_all_locations")) return null;
  return actor.locationIds;
}

export function canSeeLocation(actor: Actor, locationId: number | null | undefined): boolean {
  if (locationId == null) return false;
  const scope = locationScope(actor);
  return scope === null || scope.includes(locationId);
}
