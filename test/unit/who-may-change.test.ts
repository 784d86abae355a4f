import { describe, expect, it } from "vitest";
import type { Actor, Permission } from "~/domain/permissions";
import { changeReach, mayChange, mayChangeParent, mayCreate, mayEditRole, mayGrantRole, type ChangeTarget, type IdentityChange, type ParentSignInChange, type RoleGrant } from "~/domain/who-may-change";

/** Who may change whom (decision 015): rank × coverage × change, with the demo roles of decision 002. */

const ROLES: Record<string, RoleGrant> = {
  SUPERADMIN: { name: "SUPERADMIN", permissions: [] },
  ADMIN: { name: "ADMIN", permissions: [] },
  MANAGER: {
    name: "MANAGER",
    permissions: ["view_employees", "manage_employees", "view_clients", "manage_clients", "view_notes", "manage_notes", "view_parents", "manage_parents", "view_bips", "manage_bips", "manage_insurances", "manage_locations_access", "manage_tickets", "manage_claims"],
  },
  DOCTOR: { name: "DOCTOR", permissions: ["view_employees", "view_clients", "view_notes", "manage_notes", "view_parents", "view_bips", "manage_bips"] },
  LM: { name: "LM", permissions: ["view_employees", "manage_employees", "view_clients", "manage_clients", "view_notes", "view_parents", "manage_parents", "view_bips", "manage_locations_access"] },
  BCBA: { name: "BCBA", permissions: ["view_clients", "view_notes", "view_parents", "view_bips", "manage_bips"] },
  RBT: { name: "RBT", permissions: ["view_clients", "view_notes", "view_bips"] },
  /** Legacy names mean the standard ones. */
  LEGACY_RBT: { name: "LEGACY_RBT", permissions: ["list_patient", "view_notes", "list_bip"] },
  ALL_LOCATIONS: { name: "ALL_LOCATIONS", permissions: ["manage_employees", "access_all_locations"] },
};

function actor(id: number, roleNames: string[], locationIds: number[]): Actor {
  const permissions = [...new Set(roleNames.flatMap((r) => ROLES[r]!.permissions))] as Permission[];
  return { kind: "user", id, name: "A", surname: "B", email: "a@b.test", roles: roleNames, permissions, locationIds, locationId: locationIds[0] ?? null, timeZone: null, avatar: null, status: "active", phone: null, twoFactorEnabled: false };
}
const target = (id: number, roleNames: string[], locationIds: number[]): ChangeTarget => ({ id, roles: roleNames.map((r) => ROLES[r]!), locationIds });

// Miami 1, Denver 2, Los Angeles 3 (scripts/demo-data.ts).
const superadmin = actor(1, ["SUPERADMIN"], [1, 2, 3]);
const admin = actor(2, ["ADMIN"], [1, 2, 3]);
const manager = actor(3, ["MANAGER"], [1, 2]);
const lm = actor(5, ["LM"], [2]);
const allLocations = actor(20, ["ALL_LOCATIONS"], [1]);

describe("mayGrantRole: never a role holding a permission the actor lacks", () => {
  it.each([
    [superadmin, "SUPERADMIN", true],
    [superadmin, "ADMIN", true],
    [admin, "SUPERADMIN", false],
    [admin, "ADMIN", true],
    [admin, "MANAGER", true],
    [manager, "ADMIN", false],
    [manager, "MANAGER", true],
    [manager, "LM", true],
    [manager, "DOCTOR", true],
    [lm, "MANAGER", false],
    [lm, "DOCTOR", false],
    [lm, "BCBA", false],
    [lm, "LM", true],
    [lm, "RBT", true],
    [lm, "LEGACY_RBT", true],
    [allLocations, "RBT", false],
  ] as const)("%#: %s gives %s → %s", (who, role, expected) => {
    expect(mayGrantRole(who, ROLES[role]!)).toBe(expected);
  });

  it("a parent gives nothing", () => {
    expect(mayGrantRole({ ...lm, kind: "parent" }, ROLES.RBT!)).toBe(false);
  });
});

type Row = [string, Actor, ChangeTarget, IdentityChange[], { addedRoles?: string[]; addedLocations?: number[] }, true | 403 | 404 | 422];

describe("mayChange: rank, then coverage of every location for a change of who someone is", () => {
  const bcbaMiamiLa = target(6, ["BCBA"], [1, 3]);
  const rbtMiami = target(8, ["RBT"], [1]);
  const bcabaLa = target(7, ["BCBA"], [3]);
  const managerDenver = target(30, ["MANAGER"], [2]);
  const rows: Row[] = [
    ["manager edits the phone of someone also in LA", manager, bcbaMiamiLa, [], {}, true],
    ["manager sets the password of someone also in LA", manager, bcbaMiamiLa, ["password"], {}, 403],
    ["manager resets two-factor of someone also in LA", manager, bcbaMiamiLa, ["two_factor"], {}, 403],
    ["manager changes the email of someone also in LA", manager, bcbaMiamiLa, ["email"], {}, 403],
    ["manager changes the roles of someone also in LA", manager, bcbaMiamiLa, ["roles"], {}, 403],
    ["manager changes the locations of someone also in LA", manager, bcbaMiamiLa, ["locations"], {}, 403],
    ["manager deactivates someone also in LA", manager, bcbaMiamiLa, ["status"], {}, 403],
    ["manager deletes someone also in LA", manager, bcbaMiamiLa, ["delete"], {}, 403],
    ["manager, someone only in LA", manager, bcabaLa, [], {}, 404],
    ["manager sets the password of someone only in Miami", manager, rbtMiami, ["password"], {}, true],
    ["manager gives LM to someone only in Miami", manager, rbtMiami, ["roles"], { addedRoles: ["LM"] }, true],
    ["manager gives ADMIN", manager, rbtMiami, ["roles"], { addedRoles: ["ADMIN"] }, 422],
    ["manager adds Los Angeles", manager, rbtMiami, ["locations"], { addedLocations: [3] }, 422],
    ["manager adds Denver", manager, rbtMiami, ["locations"], { addedLocations: [2] }, true],
    ["manager changes own roles", manager, target(3, ["MANAGER"], [1, 2]), ["roles"], { addedRoles: ["LM"] }, 422],
    // One's own credentials only where the current password is asked (stop 35), the SUPERADMIN's too; other changes as before.
    ["manager changes own email", manager, target(3, ["MANAGER"], [1, 2]), ["email"], {}, 403],
    ["manager sets own password", manager, target(3, ["MANAGER"], [1, 2]), ["password"], {}, 403],
    ["manager resets own two-factor", manager, target(3, ["MANAGER"], [1, 2]), ["two_factor"], {}, 403],
    ["superadmin sets own password", superadmin, target(1, ["SUPERADMIN"], [1, 2, 3]), ["password"], {}, 403],
    ["manager leaves Denver", manager, target(3, ["MANAGER"], [1, 2]), ["locations"], {}, true],
    ["LM gives itself MANAGER", lm, target(5, ["LM"], [2]), ["roles"], { addedRoles: ["MANAGER"] }, 422],
    ["LM gives MANAGER to an RBT", lm, target(10, ["RBT"], [2]), ["roles"], { addedRoles: ["MANAGER"] }, 422],
    ["LM gives LM to an RBT", lm, target(10, ["RBT"], [2]), ["roles"], { addedRoles: ["LM"] }, true],
    ["LM sets the password of a BCBA (manage_bips it lacks)", lm, target(9, ["BCBA"], [2]), ["password"], {}, 403],
    ["LM edits the phone of a Denver manager", lm, managerDenver, [], {}, 403],
    ["manager sets the password of an administrator", manager, target(2, ["ADMIN"], [1, 2]), ["password"], {}, 403],
    ["admin sets the password of a superadmin", admin, target(1, ["SUPERADMIN"], [1, 2, 3]), ["password"], {}, 403],
    ["admin gives SUPERADMIN", admin, rbtMiami, ["roles"], { addedRoles: ["SUPERADMIN"] }, 422],
    ["admin gives ADMIN", admin, rbtMiami, ["roles"], { addedRoles: ["ADMIN"] }, true],
    ["admin changes own roles", admin, target(2, ["ADMIN"], [1, 2, 3]), ["roles"], { addedRoles: ["SUPERADMIN"] }, 422],
    ["superadmin gives SUPERADMIN", superadmin, rbtMiami, ["roles"], { addedRoles: ["SUPERADMIN"] }, true],
    ["superadmin changes own roles", superadmin, target(1, ["SUPERADMIN"], [1, 2, 3]), ["roles"], {}, 422],
    ["admin sets the password of someone in every location", admin, bcbaMiamiLa, ["password"], {}, true],
  ];
  it.each(rows)("%s", (_label, who, whom, changes, extra, expected) => {
    const verdict = mayChange(who, whom, { changes, addedRoles: (extra.addedRoles ?? []).map((r) => ROLES[r]!), addedLocations: extra.addedLocations ?? [] });
    expect(verdict.ok ? true : verdict.status).toBe(expected);
  });

  it("a refusal for a location the actor does not cover says why", () => {
    const verdict = mayChange(manager, bcbaMiamiLa, { changes: ["password"] });
    expect(verdict).toMatchObject({ ok: false, status: 403, message: expect.stringContaining("also works at a location you do not manage") });
  });

  it.each([
    ["password", "/change-password"],
    ["two_factor", "/profile"],
    ["email", "/profile"],
  ] as const)("a refusal of one's own %s says where to change it with the current password (%s)", (change, where) => {
    const verdict = mayChange(manager, target(3, ["MANAGER"], [1, 2]), { changes: [change] });
    expect(verdict).toMatchObject({ ok: false, status: 403, message: expect.stringContaining(where) });
  });

  it("access_all_locations covers every location, but not a higher rank", () => {
    const rbtEverywhere = target(40, [], [1, 2, 3]);
    expect(mayChange(allLocations, rbtEverywhere, { changes: ["password"] }).ok).toBe(true);
    expect(mayChange(allLocations, bcbaMiamiLa, { changes: ["password"] })).toMatchObject({ ok: false, status: 403 });
  });
});

describe("changeReach: what the employee edit screen offers (stop 33, probe 8962)", () => {
  it.each([
    ["lm on a BCBA of Denver only (rank)", lm, target(9, ["BCBA"], [2]), { reach: "none", message: "You cannot change the account of someone who holds permissions you do not hold.", missing: ["manage_bips"] }],
    ["lm on the manager of Miami and Denver (rank, not location)", lm, target(3, ["MANAGER"], [1, 2]), { reach: "none" }],
    ["admin on the SUPERADMIN (rank)", admin, target(1, ["SUPERADMIN"], [1, 2, 3]), { reach: "none", message: "Only a SUPERADMIN can change a SUPERADMIN's account or give the SUPERADMIN role.", missing: [] }],
    ["manager on a BCBA of Miami and Los Angeles (coverage)", manager, target(6, ["BCBA"], [1, 3]), { reach: "details", message: expect.stringContaining("also works at a location you do not manage") }],
    ["manager on an RBT of Miami only", manager, target(8, ["RBT"], [1]), { reach: "all" }],
    ["lm on itself", lm, target(5, ["LM"], [2]), { reach: "all" }],
    ["superadmin on the admin", superadmin, target(2, ["ADMIN"], [1, 2, 3]), { reach: "all" }],
  ] as const)("%s", (_label, who, whom, expected) => {
    expect(changeReach(who, whom)).toMatchObject(expected);
  });

  it("the missing permissions of an ADMIN for a location manager are all it lacks; nobody sees an employee elsewhere", () => {
    const reach = changeReach(lm, target(2, ["ADMIN"], [1, 2, 3]));
    expect(reach).toMatchObject({ reach: "none", message: "Only an administrator can change an administrator's account." });
    expect(reach?.reach === "none" && reach.missing).toEqual(expect.arrayContaining(["manage_bips", "manage_claims", "access_all_locations"]));
    expect(changeReach(lm, target(7, ["RBT"], [3]))).toBeNull();
  });
});

describe("mayChangeParent: a parent's sign-in needs every location of the parent and their children (stop 24)", () => {
  // Miami 1, Denver 2, Los Angeles 3; lm works in Denver, manager in Miami and Denver.
  it.each([
    ["lm, Denver parent, no children, password", lm, 2, [], ["password"], true],
    ["lm, Denver parent, Miami child, password", lm, 2, [1], ["password"], 403],
    ["lm, Denver parent, Miami child, email", lm, 2, [1], ["email"], 403],
    ["lm, Denver parent, Miami child, status", lm, 2, [1], ["status"], 403],
    ["lm, Denver parent, Miami child, delete", lm, 2, [1], ["delete"], 403],
    ["lm, Denver parent, Miami child, phone only", lm, 2, [1], [], true],
    ["lm, parent without a location, Miami child, location (stop 36)", lm, null, [1], ["locations"], 403],
    ["lm, parent without a location, Denver child, location", lm, null, [2], ["locations"], true],
    ["lm, Denver parent, Miami child, location", lm, 2, [1], ["locations"], 403],
    ["manager, parent without a location, Miami and Denver children, location", manager, null, [1, 2], ["locations"], true],
    ["lm, parent without a location, no children, password", lm, null, [], ["password"], true],
    ["lm, parent without a location, Miami child, password", lm, null, [1], ["password"], 403],
    ["lm, parent without a location, Denver child, email", lm, null, [2], ["email"], true],
    ["lm, Miami parent, Denver child (the parent is not the lm's to see)", lm, 1, [2], ["password"], 404],
    ["lm, Miami parent, phone only", lm, 1, [], [], 404],
    ["manager, Denver parent, Miami and Denver children, password", manager, 2, [1, 2], ["password"], true],
    ["manager, Denver parent, Miami and LA children, password", manager, 2, [1, 3], ["password"], 403],
    ["admin, parent without a location, children everywhere, delete", admin, null, [1, 2, 3], ["delete"], true],
    ["access_all_locations, LA parent, LA child, password", allLocations, 3, [3], ["password"], true],
  ] as const)("%s", (_label, who, locationId, childLocationIds, changes, expected) => {
    const verdict = mayChangeParent(who, { locationId, childLocationIds }, changes as readonly ParentSignInChange[]);
    expect(verdict.ok ? true : verdict.status).toBe(expected);
  });

  it("a refusal says why; a parent actor changes no parent", () => {
    expect(mayChangeParent(lm, { locationId: 2, childLocationIds: [1] }, ["password"])).toMatchObject({ ok: false, status: 403, message: expect.stringContaining("every location of their children") });
    expect(mayChangeParent({ ...lm, kind: "parent" }, { locationId: null, childLocationIds: [] }, ["password"])).toMatchObject({ ok: false, status: 404 });
  });
});

describe("mayCreate: never an account above the actor's rank or at a location they do not cover", () => {
  it.each([
    [lm, ["RBT"], [2], true],
    [lm, ["MANAGER"], [2], 422],
    [lm, ["RBT", "BCBA"], [2], 422],
    [lm, ["RBT"], [1], 422],
    [manager, ["LM", "DOCTOR"], [1, 2], true],
    [manager, ["ADMIN"], [1], 422],
    [admin, ["SUPERADMIN"], [3], 422],
    [admin, ["ADMIN"], [3], true],
    [superadmin, ["SUPERADMIN"], [3], true],
  ] as const)("%#: roles %j at %j → %s", (who, roleNames, locations, expected) => {
    const verdict = mayCreate(who, roleNames.map((r) => ROLES[r]!), locations);
    expect(verdict.ok ? true : verdict.status).toBe(expected);
  });
});

describe("mayEditRole: a role's permissions stay within the actor's", () => {
  const roleManager = actor(50, [], []);
  roleManager.permissions = ["manage_roles", "view_clients", "view_notes"];
  roleManager.roles = ["ROLE_MANAGER"];
  it.each([
    ["adds a permission the actor holds", roleManager, { name: "R", permissions: ["view_notes"] }, { name: "R", permissions: ["view_notes", "view_clients"] }, true],
    ["adds manage_claims, which the actor lacks", roleManager, { name: "X", permissions: ["view_clients"] }, { name: "X", permissions: ["view_clients", "manage_claims"] }, 422],
    ["creates a role with access_all_locations", roleManager, null, { name: "Y", permissions: ["access_all_locations"] }, 422],
    ["edits MANAGER, which holds more than the actor", roleManager, ROLES.MANAGER!, { name: "MANAGER", permissions: [] }, 403],
    ["edits the ADMIN role", roleManager, ROLES.ADMIN!, { name: "ADMIN", permissions: [] }, 403],
    ["ADMIN edits the SUPERADMIN role", admin, ROLES.SUPERADMIN!, { name: "SUPERADMIN", permissions: [] }, 403],
    ["ADMIN edits MANAGER", admin, ROLES.MANAGER!, { name: "MANAGER", permissions: ["manage_roles"] }, true],
    ["legacy names count as the standard ones", roleManager, null, { name: "Z", permissions: ["list_patient"] }, true],
  ] as const)("%s", (_label, who, current, next, expected) => {
    const verdict = mayEditRole(who, current, next);
    expect(verdict.ok ? true : verdict.status).toBe(expected);
  });

  it("names the permissions the actor lacks", () => {
    expect(mayEditRole(roleManager, null, { name: "Q", permissions: ["manage_claims", "view_notes", "manage_bips"] })).toMatchObject({ ok: false, missing: ["manage_bips", "manage_claims"] });
  });
});
