import { canSeeLocation, locationScope, normalizePermissions, PERMISSIONS, type Actor, type Permission } from "./permissions";

/**
 * Who may change whom (platform §6, decision 015). Pure: the models load the actor, the target's roles
 * and locations, and ask here.
 *
 * - Rank. SUPERADMIN is above everyone, ADMIN above everyone else (both pass every permission check);
 *   below them an account is worth the union of its roles' permissions. An actor may give a role, create
 *   an account, or change an account only at or below their own rank: every permission involved must be
 *   one the actor holds, ADMIN may be given only by SUPERADMIN or ADMIN, SUPERADMIN only by SUPERADMIN.
 * - Nobody changes their own roles.
 * - Nobody changes their own password, two-factor or email through the staff paths (the employee screen, the
 *   users API): those go through /change-password and /profile, which ask for the current password.
 * - Coverage. Changing who someone is (password, two-factor, email, roles, locations, status, deletion)
 *   needs the actor to cover every location the target works at (or to see every location); a location
 *   may be added only if the actor covers it.
 * - Parents. Whoever signs in as a parent sees their children (decision 040), so a parent's sign-in
 *   (password, email, status), their location and deletion need the actor to cover the parent's own location
 *   and every location of their children (mayChangeParent).
 */

export const SUPERADMIN = "SUPERADMIN";
export const ADMIN = "ADMIN";

/** The changes to an account that decide who can sign in as it, or what it may do. */
export const IDENTITY_CHANGES = ["password", "two_factor", "email", "roles", "locations", "status", "delete"] as const;
export type IdentityChange = (typeof IDENTITY_CHANGES)[number];

/**
 * The changes that decide who can sign in as an account (decision 015, stop 35): one's own are made only where the
 * current password is asked (/change-password, /profile), never through the staff paths.
 */
export const OWN_CREDENTIALS = ["password", "two_factor", "email"] as const satisfies readonly IdentityChange[];
export type OwnCredential = (typeof OWN_CREDENTIALS)[number];
const isOwnCredential = (c: IdentityChange): c is OwnCredential => (OWN_CREDENTIALS as readonly IdentityChange[]).includes(c);

/** A role as the rule sees it: its name and its permission set (legacy names allowed). */
export interface RoleGrant {
  name: string;
  permissions: readonly string[];
}

/** 2 = SUPERADMIN, 1 = ADMIN, 0 = everyone else (who is worth their permissions). */
export interface Rank {
  level: 0 | 1 | 2;
  permissions: ReadonlySet<Permission>;
}

const ALL = new Set<Permission>(PERMISSIONS);

function levelOf(roleNames: readonly string[]): 0 | 1 | 2 {
  if (roleNames.includes(SUPERADMIN)) return 2;
  if (roleNames.includes(ADMIN)) return 1;
  return 0;
}

/** The rank a set of roles gives its holder. */
export function rankOfRoles(roles: readonly RoleGrant[]): Rank {
  const level = levelOf(roles.map((r) => r.name));
  return { level, permissions: level > 0 ? ALL : new Set(normalizePermissions(roles.flatMap((r) => [...r.permissions]))) };
}

/** The actor's rank (a parent has none). */
export function rankOfActor(actor: Pick<Actor, "kind" | "roles" | "permissions">): Rank {
  if (actor.kind !== "user") return { level: 0, permissions: new Set() };
  const level = levelOf(actor.roles);
  return { level, permissions: level > 0 ? ALL : new Set(actor.permissions) };
}

/** True when `other` is at or below `mine`. */
export function atOrBelow(other: Rank, mine: Rank): boolean {
  if (other.level > mine.level) return false;
  if (mine.level > 0) return true;
  return [...other.permissions].every((p) => mine.permissions.has(p));
}

/** The actor may give this role: it holds nothing the actor does not. */
export function mayGrantRole(actor: Pick<Actor, "kind" | "roles" | "permissions">, role: RoleGrant): boolean {
  return actor.kind === "user" && atOrBelow(rankOfRoles([role]), rankOfActor(actor));
}

/** The permissions the actor may put in a role (the role form offers only these): the ones they hold. */
export function grantablePermissions(actor: Pick<Actor, "kind" | "roles" | "permissions">): Permission[] {
  const mine = rankOfActor(actor).permissions;
  return PERMISSIONS.filter((p) => mine.has(p));
}

/** The permissions in the list the actor does not hold (for the message). */
export function permissionsBeyond(actor: Pick<Actor, "kind" | "roles" | "permissions">, permissions: readonly string[]): Permission[] {
  const mine = rankOfActor(actor).permissions;
  return normalizePermissions(permissions).filter((p) => !mine.has(p));
}

/** The actor covers every one of these locations (all-access and access_all_locations cover all). */
export function coversAll(actor: Actor, locationIds: readonly number[]): boolean {
  const scope = locationScope(actor);
  return scope === null || locationIds.every((id) => scope.includes(id));
}

/** The account being changed: its roles and every location it works at (not only the ones the actor sees). */
export interface ChangeTarget {
  id: number;
  roles: readonly RoleGrant[];
  locationIds: readonly number[];
}

/** What a save would change about who the target is. */
export interface ProposedChange {
  changes: readonly IdentityChange[];
  /** Roles the target does not hold yet. */
  addedRoles?: readonly RoleGrant[];
  /** Locations the target does not work at yet. */
  addedLocations?: readonly number[];
}

export type Verdict = { ok: true } | { ok: false; status: 403 | 404; message: string } | { ok: false; status: 422; field: "roles" | "locations"; message: string };

export const CHANGE_MESSAGES = {
  notFound: "Employee not found.",
  administrator: "Only an administrator can change an administrator's account.",
  superadmin: "Only a SUPERADMIN can change a SUPERADMIN's account or give the SUPERADMIN role.",
  aboveRank: "You cannot change the account of someone who holds permissions you do not hold.",
  ownRoles: "You cannot change your own roles.",
  /** One's own credentials through the staff paths: where to change them with the current password instead. */
  ownCredential: {
    password: "You cannot set your own password here: change it on the Change password page (/change-password), which asks for your current password.",
    two_factor: "You cannot switch your own two-factor authentication here: switch it on your profile (/profile), which asks for your current password.",
    email: "You cannot change your own email here: change it on your profile (/profile), which asks for your current password.",
  } satisfies Record<OwnCredential, string>,
  /** At the email of one's own record on the employee form, shown read-only. */
  ownEmailHint: "Change your own email on your profile, which asks for your current password.",
  notCovered:
    "This employee also works at a location you do not manage. Only someone who manages every one of their locations can change their password, two-factor authentication, email, roles, locations or status.",
  roleAbove: (names: readonly string[]) => `You cannot give a role that holds permissions you do not hold: ${names.join(", ")}.`,
  locationNotCovered: "You can add only locations you manage.",
  /** At a field of the edit screen whose change was refused for coverage (the form message says why). */
  notCoveredField: "Not changed: only someone who manages every one of their locations can change this.",
  parentNotFound: "Parent not found.",
  roleHoldersNotCovered: "People at locations you do not manage hold this role: only someone who manages every one of their locations can change its permissions.",
  parentNotCovered: "You can change this parent's password, email, status or location, or delete them, only if you work at every location of their children.",
} as const;

function deny(status: 403 | 404, message: string): Verdict {
  return { ok: false, status, message };
}

function grantVerdict(actor: Actor, roles: readonly RoleGrant[], locations: readonly number[]): Verdict {
  const above = roles.filter((r) => !mayGrantRole(actor, r));
  if (above.length) return { ok: false, status: 422, field: "roles", message: CHANGE_MESSAGES.roleAbove(above.map((r) => r.name)) };
  if (!coversAll(actor, locations)) return { ok: false, status: 422, field: "locations", message: CHANGE_MESSAGES.locationNotCovered };
  return { ok: true };
}

/**
 * May the actor make this change to the target? 404 when the actor sees none of the target's locations;
 * 403 when the target outranks the actor, when the change is to one's own password, two-factor or email, or
 * when who the target is changes and the actor does not cover every location of the target; 422 (a field of the
 * form) for one's own roles, a role above the actor's rank, or a location the actor does not cover. Changes that
 * leave identity alone (name, phone, profile, employment details) need only a shared location and rank.
 */
export function mayChange(actor: Actor, target: ChangeTarget, change: ProposedChange = { changes: [] }): Verdict {
  if (actor.kind !== "user") return deny(404, CHANGE_MESSAGES.notFound);
  if (locationScope(actor) !== null && !target.locationIds.some((id) => canSeeLocation(actor, id))) return deny(404, CHANGE_MESSAGES.notFound);
  const mine = rankOfActor(actor);
  const theirs = rankOfRoles(target.roles);
  if (!atOrBelow(theirs, mine)) {
    return deny(403, theirs.level === 2 ? CHANGE_MESSAGES.superadmin : theirs.level === 1 ? CHANGE_MESSAGES.administrator : CHANGE_MESSAGES.aboveRank);
  }
  if (!change.changes.length) return { ok: true };
  if (actor.id === target.id && change.changes.includes("roles")) return { ok: false, status: 422, field: "roles", message: CHANGE_MESSAGES.ownRoles };
  const own = actor.id === target.id ? change.changes.find(isOwnCredential) : undefined;
  if (own) return deny(403, CHANGE_MESSAGES.ownCredential[own]);
  if (!coversAll(actor, target.locationIds)) return deny(403, CHANGE_MESSAGES.notCovered);
  return grantVerdict(actor, change.addedRoles ?? [], change.addedLocations ?? []);
}

/**
 * How much of this person the actor may change, for the edit screen (decision 015, stop 33): the verdicts of
 * `mayChange`, read once for the whole form. "all"; "details" when the actor does not cover every location of the
 * person (contact, profile and employment details only: email, roles, locations and status are shown read-only);
 * "none" when the person is above the actor's rank (shown read-only, with the permissions the actor lacks). Null:
 * not the actor's to see (404).
 */
export type ChangeReach = { reach: "all" } | { reach: "details"; message: string } | { reach: "none"; message: string; missing: Permission[] };

export function changeReach(actor: Actor, target: ChangeTarget): ChangeReach | null {
  const rank = mayChange(actor, target);
  if (!rank.ok) return rank.status === 404 ? null : { reach: "none", message: rank.message, missing: permissionsBeyond(actor, [...rankOfRoles(target.roles).permissions]) };
  // Coverage, asked with a change anyone may make to themselves too (one's own credentials are refused here anyway).
  const identity = mayChange(actor, target, { changes: ["locations"] });
  return identity.ok ? { reach: "all" } : { reach: "details", message: identity.message };
}

/** A parent or guardian as the rule sees them: their own location (null: none) and the locations of their live children, all of them. */
export interface ParentTarget {
  locationId: number | null;
  childLocationIds: readonly number[];
}

/** The changes to a parent's account that decide who can sign in as it. */
/** "locations": a move of the parent to another location or to none (decision 015, stop 36). */
export type ParentSignInChange = Extract<IdentityChange, "password" | "email" | "status" | "locations" | "delete">;

/**
 * May the actor make these changes to a parent (decision 015, stop 24)? Signing in as a parent opens their
 * children's records in the portal, so password, email, status and deletion need the actor to cover the
 * parent's own location and every location of the parent's live children: otherwise 403. 404 when the parent
 * is not the actor's to see (a location the actor cannot see; a parent without one is seen by all staff).
 * Other edits (name, phone, address) need only that.
 */
export function mayChangeParent(actor: Actor, target: ParentTarget, changes: readonly ParentSignInChange[] = []): Verdict {
  if (actor.kind !== "user" || (target.locationId !== null && !canSeeLocation(actor, target.locationId))) return deny(404, CHANGE_MESSAGES.parentNotFound);
  if (!changes.length) return { ok: true };
  const all = target.locationId === null ? target.childLocationIds : [target.locationId, ...target.childLocationIds];
  return coversAll(actor, all) ? { ok: true } : deny(403, CHANGE_MESSAGES.parentNotCovered);
}

/**
 * May the actor change the permissions of a role that these people hold (decision 015, stop 24)? A role's
 * permissions are its holders' powers, so changing them changes every holder: the actor must cover every location
 * any holder works at (as for changing one person's roles), else 403. `holderLocationIds`: the distinct locations
 * of the role's live holders.
 */
export function mayChangeRoleHolders(actor: Actor, holderLocationIds: readonly number[]): Verdict {
  return coversAll(actor, holderLocationIds) ? { ok: true } : deny(403, CHANGE_MESSAGES.roleHoldersNotCovered);
}

/** May the actor create an account with these roles at these locations (never above their own rank)? */
export function mayCreate(actor: Actor, roles: readonly RoleGrant[], locationIds: readonly number[]): Verdict {
  if (actor.kind !== "user") return deny(403, CHANGE_MESSAGES.aboveRank);
  return grantVerdict(actor, roles, locationIds);
}

/**
 * What a role edit may do: the role must be at or below the actor's rank before and after. 403 when the
 * role as stored holds permissions the actor lacks; 422 (permissions field) when the edit adds one.
 */
export function mayEditRole(
  actor: Pick<Actor, "kind" | "roles" | "permissions">,
  current: RoleGrant | null,
  next: RoleGrant,
): { ok: true } | { ok: false; status: 403; message: string } | { ok: false; status: 422; message: string; missing: Permission[] } {
  if (current && !mayGrantRole(actor, current)) {
    return { ok: false, status: 403, message: current.name === SUPERADMIN ? CHANGE_MESSAGES.superadmin : "You cannot change a role that holds permissions you do not hold." };
  }
  const missing = permissionsBeyond(actor, next.permissions);
  if (missing.length || !mayGrantRole(actor, next)) {
    const message = missing.length ? `You cannot give a role permissions you do not hold: ${missing.join(", ")}.` : CHANGE_MESSAGES.superadmin;
    return { ok: false, status: 422, message, missing };
  }
  return { ok: true };
}
