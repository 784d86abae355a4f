import { describe, expect, it } from "vitest";
import { can, canAll, canAny, canSeeLocation, LEGACY_PERMISSIONS, locationScope, normalizePermissions, PERMISSIONS, type Actor } from "~/domain/permissions";

function actor(roles: string[], permissions: Actor["permissions"] = [], locationIds: number[] = [], kind: Actor["kind"] = "user"): Actor {
  return { kind, id: 1, name: "A", surname: "B", email: "a@b.c", roles, permissions, locationIds, locationId: locationIds[0] ?? null, timeZone: null, avatar: null, status: "active", phone: null, twoFactorEnabled: false };
}

describe("can", () => {
  it.each([
    ["SUPERADMIN passes everything", actor(["SUPERADMIN"]), "manage_roles", true],
    ["ADMIN passes everything", actor(["ADMIN"]), "manage_claims", true],
    ["another role needs the exact permission", actor(["RBT"], ["view_notes"]), "view_notes", true],
    ["a missing permission fails", actor(["RBT"], ["view_notes"]), "manage_notes", false],
    ["an empty permission list fails", actor(["MANAGER"], []), "view_notes", false],
    ["a parent never passes", actor(["ADMIN"], ["view_notes"], [], "parent"), "view_notes", false],
    ["the role name is case-sensitive", actor(["admin"]), "manage_roles", false],
  ] as const)("%s", (_label, who, permission, expected) => {
    expect(can(who, permission)).toBe(expected);
  });

  it("fails for no actor", () => expect(can(null, "view_notes")).toBe(false));

  it("has-any and has-all", () => {
    const a = actor(["BCBA"], ["view_bips", "manage_bips"]);
    expect(canAny(a, ["manage_roles", "view_bips"])).toBe(true);
    expect(canAny(a, ["manage_roles"])).toBe(false);
    expect(canAll(a, ["view_bips", "manage_bips"])).toBe(true);
    expect(canAll(a, ["view_bips", "manage_roles"])).toBe(false);
  });
});

describe("legacy permission names", () => {
  it.each(Object.entries(LEGACY_PERMISSIONS))("%s maps to %s", (legacy, standard) => {
    expect(normalizePermissions([legacy])).toEqual([standard]);
  });

  it("maps every name the spec lists (23) onto standard names", () => {
    expect(Object.keys(LEGACY_PERMISSIONS)).toHaveLength(23);
    for (const p of Object.values(LEGACY_PERMISSIONS)) expect(PERMISSIONS).toContain(p);
  });

  it("drops unknown names and duplicates, keeps standard ones", () => {
    expect(normalizePermissions(["edit_patient", "register_patient", "manage_clients", "fly", " view_bips "])).toEqual(["view_bips", "manage_clients"]);
  });
});

describe("location scope", () => {
  it.each([
    ["ADMIN sees every location", actor(["ADMIN"]), null],
    ["access_all_locations widens the scope", actor(["MANAGER"], ["access_all_locations"], [1]), null],
    ["others see their own locations", actor(["RBT"], ["view_notes"], [2, 3]), [2, 3]],
    ["a parent has no staff scope", actor([], [], [], "parent"), []],
  ] as const)("%s", (_label, who, expected) => {
    expect(locationScope(who)).toEqual(expected);
  });

  it("canSeeLocation", () => {
    const rbt = actor(["RBT"], [], [2]);
    expect(canSeeLocation(rbt, 2)).toBe(true);
    expect(canSeeLocation(rbt, 3)).toBe(false);
    expect(canSeeLocation(rbt, null)).toBe(false);
    expect(canSeeLocation(actor(["ADMIN"]), 99)).toBe(true);
  });
});
