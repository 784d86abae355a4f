import { describe, expect, it } from "vitest";
import { PERMISSIONS } from "~/domain/permissions";
import { isKnownPermission, isProtectedRole, isReservedRoleName, PERMISSION_OPTIONS, permissionLabel, RoleInput } from "~/domain/roles";
import { parseWith } from "~/domain/validation";

describe("RoleInput", () => {
  it.each([
    ["a plain name and standard permissions", { name: "Lead Analyst", permissions: ["view_clients", "manage_bips"] }, { name: "Lead Analyst", permissions: ["manage_bips", "view_clients"] }],
    ["trims the name", { name: "  RBT-2  ", permissions: [] }, { name: "RBT-2", permissions: [] }],
    ["no permissions field means none", { name: "Intern" }, { name: "Intern", permissions: [] }],
    ["null permissions mean none", { name: "Intern", permissions: null }, { name: "Intern", permissions: [] }],
    ["one checkbox arrives as a string", { name: "Intern", permissions: "view_notes" }, { name: "Intern", permissions: ["view_notes"] }],
    ["a comma list", { name: "Intern", permissions: "view_notes, view_bips" }, { name: "Intern", permissions: ["view_notes", "view_bips"] }],
    ["legacy names map to standard ones", { name: "Legacy", permissions: ["list_patient", "register_rol", "admin_dashboard"] }, { name: "Legacy", permissions: ["access_all_locations", "manage_roles", "view_clients"] }],
    ["legacy and standard duplicates collapse", { name: "Dup", permissions: ["edit_patient", "register_patient", "manage_clients"] }, { name: "Dup", permissions: ["manage_clients"] }],
    ["underscores and digits", { name: "case_manager_2", permissions: [] }, { name: "case_manager_2", permissions: [] }],
    ["exactly 50 characters", { name: "A".repeat(50), permissions: [] }, { name: "A".repeat(50), permissions: [] }],
  ])("accepts %s", (_label, input, expected) => {
    expect(parseWith(RoleInput, input)).toEqual({ ok: true, data: expected });
  });

  it.each([
    ["a missing name", { permissions: [] }, "name", "Name is required."],
    ["a null name", { name: null }, "name", "Name is required."],
    ["a blank name", { name: "   ", permissions: [] }, "name", "Name is required."],
    ["a name over 50 characters", { name: "A".repeat(51) }, "name", "Name must be at most 50 characters."],
    ["punctuation in the name", { name: "Admin; drop", permissions: [] }, "name", "Name may contain only letters, digits, spaces, _ and -."],
    ["accents in the name", { name: "Técnico" }, "name", "Name may contain only letters, digits, spaces, _ and -."],
    ["a name that is not text", { name: 42 }, "name", "Name is required."],
    ["an unknown permission", { name: "X", permissions: ["view_clients", "fly_planes"] }, "permissions", "Unknown permission: fly_planes. Choose permissions from the list."],
    ["several unknown permissions", { name: "X", permissions: ["a", "b"] }, "permissions", "Unknown permissions: a, b. Choose permissions from the list."],
    ["an object-key lookalike", { name: "X", permissions: ["toString"] }, "permissions", "Unknown permission: toString. Choose permissions from the list."],
    ["a permission that is not text", { name: "X", permissions: [1] }, "permissions", "Permissions must be a list of permission names."],
    ["permissions as an object", { name: "X", permissions: { a: 1 } }, "permissions", "Permissions must be a list of permission names."],
  ])("refuses %s", (_label, input, field, message) => {
    const r = parseWith(RoleInput, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[field]).toBe(message);
  });
});

describe("permission helpers", () => {
  it.each([
    ["view_clients", true],
    ["list_employers", true],
    [" register_bip ", true],
    ["manage_everything", false],
    ["", false],
    ["constructor", false],
  ])("isKnownPermission(%j) → %s", (name, expected) => {
    expect(isKnownPermission(name)).toBe(expected);
  });

  it("labels every permission readably, in the standard order", () => {
    expect(PERMISSION_OPTIONS.map((o) => o.value)).toEqual([...PERMISSIONS]);
    expect(permissionLabel("view_clients")).toBe("view_clients — View clients");
    for (const o of PERMISSION_OPTIONS) expect(o.label).toMatch(new RegExp(`^${o.value} — \\S`));
  });

  it.each([
    ["SUPERADMIN", true, true],
    ["ADMIN", true, true],
    ["admin", false, true],
    [" Superadmin ", false, true],
    ["MANAGER", false, false],
    ["ADMINS", false, false],
  ])("%j: protected %s, reserved %s", (name, protectedRole, reserved) => {
    expect(isProtectedRole(name)).toBe(protectedRole);
    expect(isReservedRoleName(name)).toBe(reserved);
  });
});
