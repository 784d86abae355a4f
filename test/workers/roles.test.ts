import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { roles, userLocations, userRoles } from "~/db/schema";
import { PERMISSIONS } from "~/domain/permissions";
import { api, apiToken, createLocation, createRole, createUser, db, form, request, signInCookie, withoutFlashTag, withFlashTag } from "./helpers";
import { CHANGE_MESSAGES } from "~/domain/who-may-change";

/** Whether the form renders the permission checkbox ticked (attribute order is React's business). */
function checked(html: string, value: string): boolean {
  return (html.match(/<input type="checkbox"[^>]*>/g) ?? []).some((tag) => tag.includes(`value="${value}"`) && tag.includes('checked=""'));
}

/** The permissions the form offers: the values of its checkboxes, in any attribute order. */
function offeredPermissions(html: string): string[] {
  return (html.match(/<input type="checkbox"[^>]*>/g) ?? []).map((tag) => /value="([a-z_]+)"/.exec(tag)![1]!).sort();
}

/** Roles (platform §2 roles routes, §6): the API and the screens, driven as a browser without JavaScript would. */

let n = 0;
const unique = (prefix = "Role") => `${prefix} ${Date.now().toString(36)}${(++n).toString(36)}`;

async function row(id: number) {
  const [r] = await db().select().from(roles).where(eq(roles.id, id));
  return r ?? null;
}
const stored = async (id: number) => JSON.parse((await row(id))!.permissions) as string[];
const roleCount = async () => (await db().select().from(roles)).length;

async function holder(roleId: number) {
  const user = await createUser({ permissions: [] });
  await db().insert(userRoles).values({ userId: user.id, roleId });
  return user;
}

/** A role manager who holds every permission (so may give any), without being SUPERADMIN or ADMIN. */
const managerToken = async () => apiToken(await createUser({ permissions: PERMISSIONS }));
const managerCookie = async () => signInCookie(await createUser({ permissions: PERMISSIONS }));

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

type RoleBody = { id: number; name: string; permissions: string[]; users: number; version: number; all_access: boolean };

describe("/api/v2/roles", () => {
  it("lists roles with search, paging, permission sets and user counts", async () => {
    const tag = unique("Srch").replace(" ", "");
    const a = await createRole(`${tag} A`, ["view_clients", "list_bip"]);
    await createRole(`${tag} B`, []);
    await holder(a.id);
    const token = await managerToken();
    const res = await api(`/v2/roles?search=${encodeURIComponent(tag)}&per_page=1&page=1`, { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: RoleBody[]; total: number; last_page: number };
    expect(body).toMatchObject({ total: 2, last_page: 2 });
    expect(body.data[0]).toMatchObject({ id: a.id, name: `${tag} A`, permissions: ["view_bips", "view_clients"], users: 1, version: 1, all_access: false });
  });

  it("answers 403 without manage_roles, for reads and writes, and writes nothing", async () => {
    const role = await createRole(unique(), ["view_notes"]);
    const token = await apiToken(await createUser({ permissions: ["manage_employees", "view_employees"] }));
    const before = await roleCount();
    expect((await api("/v2/roles", { token })).status).toBe(403);
    expect((await api(`/v2/roles/${role.id}`, { token })).status).toBe(403);
    expect((await api(`/roles/show/${role.id}`, { token })).status).toBe(403);
    expect((await api("/v2/roles", { method: "POST", token, body: { name: unique(), permissions: [] } })).status).toBe(403);
    expect((await api("/roles/store", { method: "POST", token, body: { name: unique(), permissions: [] } })).status).toBe(403);
    expect((await api(`/v2/roles/${role.id}`, { method: "PUT", token, body: { name: "Hacked", permissions: ["manage_roles"] } })).status).toBe(403);
    expect((await api(`/v2/roles/${role.id}`, { method: "DELETE", token })).status).toBe(403);
    expect(await roleCount()).toBe(before);
    expect(await row(role.id)).toMatchObject({ name: role.name, permissions: '["view_notes"]' });
  });

  it("never gives a deleted role's id to a new role (an API client holding the old id must not read another role)", async () => {
    const token = await managerToken();
    const create = async () => ((await (await api("/v2/roles", { method: "POST", token, body: { name: unique("Newest"), permissions: [] } })).json()) as { data: RoleBody }).data.id;
    const first = await create();
    expect((await api(`/v2/roles/${first}`, { method: "DELETE", token })).status).toBe(200);
    const second = await create();
    expect(second).toBeGreaterThan(first);
    expect((await api(`/v2/roles/${first}`, { token })).status).toBe(404);
  });

  it("creates with 201; legacy names are stored as standard ones", async () => {
    const token = await managerToken();
    const name = unique("Legacy");
    const res = await api("/v2/roles", { method: "POST", token, body: { name, permissions: ["list_patient", "register_rol", "edit_patient", "manage_clients", "view_notes"] } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { data: RoleBody; message: string };
    expect(body.message).toBe("Role created.");
    expect(body.data).toMatchObject({ name, permissions: ["view_notes", "manage_roles", "manage_clients", "view_clients"], users: 0, version: 1 });
    expect(await stored(body.data.id)).toEqual(["view_notes", "manage_roles", "manage_clients", "view_clients"]);
  });

  it.each([
    [{ name: "", permissions: [] }, "name", "Name is required."],
    [{ permissions: ["view_notes"] }, "name", "Name is required."],
    [{ name: "A".repeat(51), permissions: [] }, "name", "Name must be at most 50 characters."],
    [{ name: "Bad/Name", permissions: [] }, "name", "Name may contain only letters, digits, spaces, _ and -."],
    [{ name: "Fine Name", permissions: ["view_notes", "launch_rockets"] }, "permissions", "Unknown permission: launch_rockets. Choose permissions from the list."],
    [{ name: "Fine Name", permissions: [7] }, "permissions", "Permissions must be a list of permission names."],
  ])("refuses bad input with 422 and writes nothing (%#)", async (body, field, message) => {
    const token = await managerToken();
    const before = await roleCount();
    const res = await api("/v2/roles", { method: "POST", token, body });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors[field]).toBe(message);
    expect(await roleCount()).toBe(before);
  });

  it("refuses a duplicate name (any case) with 422, on create and on rename", async () => {
    const token = await managerToken();
    const taken = await createRole(unique("Taken"), []);
    const other = await createRole(unique("Other"), []);
    const before = await roleCount();
    const dup = await api("/v2/roles", { method: "POST", token, body: { name: taken.name.toLowerCase(), permissions: [] } });
    expect(dup.status).toBe(422);
    const json = (await dup.json()) as { message: string; errors: Record<string, string> };
    expect(json.errors.name).toBe("A role with this name already exists.");
    expect(json.message).toBe("A role with this name already exists.");
    expect(await roleCount()).toBe(before);
    const rename = await api(`/v2/roles/${other.id}`, { method: "PUT", token, body: { name: taken.name, permissions: [] } });
    expect(rename.status).toBe(422);
    expect((await row(other.id))!.name).toBe(other.name);
  });

  it("a stale version answers 409 with the current values and changes nothing", async () => {
    const role = await createRole(unique("Stale"), ["view_notes"]);
    const token = await managerToken();
    const first = await api(`/v2/roles/${role.id}`, { method: "PUT", token, body: { name: `${role.name} 1`, permissions: ["view_bips"], version: 1 } });
    expect(first.status).toBe(200);
    expect(((await first.json()) as { data: RoleBody }).data).toMatchObject({ version: 2, permissions: ["view_bips"] });
    const stale = await api(`/v2/roles/${role.id}`, { method: "PUT", token, body: { name: `${role.name} 2`, permissions: ["manage_roles"], version: 1 } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: RoleBody }).current).toMatchObject({ name: `${role.name} 1`, permissions: ["view_bips"], version: 2 });
    expect(await row(role.id)).toMatchObject({ name: `${role.name} 1`, permissions: '["view_bips"]', version: 2 });
  });

  it("PATCH changes only the fields given; v1 show, store and update work", async () => {
    const token = await managerToken();
    const role = await createRole(unique("Patch"), ["view_notes"]);
    const patched = await api(`/v2/roles/${role.id}`, { method: "PATCH", token, body: { permissions: ["list_parent"] } });
    expect(patched.status).toBe(200);
    expect(((await patched.json()) as { data: RoleBody }).data).toMatchObject({ name: role.name, permissions: ["view_parents"] });
    const shown = await api(`/roles/show/${role.id}`, { token });
    expect(((await shown.json()) as { data: RoleBody }).data).toMatchObject({ id: role.id, permissions: ["view_parents"] });
    const name = unique("V1");
    const created = await api("/roles/store", { method: "POST", token, body: { name, permissions: ["claims"] } });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: RoleBody }).data.id;
    expect(await stored(id)).toEqual(["manage_claims"]);
    const updated = await api(`/roles/update/${id}`, { method: "PUT", token, body: { name, permissions: [] } });
    expect(updated.status).toBe(200);
    expect(await stored(id)).toEqual([]);
    expect((await api("/v2/roles/999999", { token })).status).toBe(404);
  });

  it("a full update (v1 and v2 PUT) without permissions answers 422 at permissions and changes nothing; [] still empties, PATCH keeps the set", async () => {
    const token = await managerToken();
    const role = await createRole(unique("Keep"), ["manage_roles", "view_clients"]);
    const holderToken = await apiToken(await holder(role.id));
    for (const [path, body] of [
      [`/v2/roles/${role.id}`, { name: `${role.name} R` }],
      [`/roles/update/${role.id}`, { name: `${role.name} R` }],
      [`/v2/roles/${role.id}`, { name: `${role.name} R`, permissions: null }],
      [`/roles/update/${role.id}`, { name: `${role.name} R`, permissions: null, version: 1 }],
    ] as const) {
      const res = await api(path, { method: "PUT", token, body });
      const answer = (await res.json()) as { message?: string; errors?: Record<string, string> };
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(422);
      expect(answer.message).toBeTruthy();
      expect(answer.errors?.permissions).toBe("Choose the role's permissions.");
    }
    // Other field errors come with it, in one answer.
    const both = (await (await api(`/v2/roles/${role.id}`, { method: "PUT", token, body: { name: "" } })).json()) as { errors?: Record<string, string> };
    expect(both.errors).toMatchObject({ name: "Name is required.", permissions: "Choose the role's permissions." });
    expect(await row(role.id)).toMatchObject({ name: role.name, version: 1 });
    expect(await stored(role.id)).toEqual(["manage_roles", "view_clients"]);
    // The holder keeps the role's access.
    expect((await api("/v2/roles", { token: holderToken })).status).toBe(200);
    // A PATCH without the key renames and keeps the set.
    const patched = await api(`/v2/roles/${role.id}`, { method: "PATCH", token, body: { name: `${role.name} P` } });
    expect(patched.status).toBe(200);
    expect(await stored(role.id)).toEqual(["manage_roles", "view_clients"]);
    // An explicit empty list still empties the role, on purpose.
    const emptied = await api(`/v2/roles/${role.id}`, { method: "PUT", token, body: { name: `${role.name} P`, permissions: [] } });
    expect(emptied.status).toBe(200);
    expect(await stored(role.id)).toEqual([]);
    expect((await api("/v2/roles", { token: holderToken })).status).toBe(403);
  });

  it("DELETE is refused while users hold the role, and removes a free role", async () => {
    const token = await managerToken();
    const held = await createRole(unique("Held"), []);
    await holder(held.id);
    const refused = await api(`/v2/roles/${held.id}`, { method: "DELETE", token });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toBe(`1 user(s) still hold the ${held.name} role. Give them another role first.`);
    expect(await row(held.id)).not.toBeNull();
    const free = await createRole(unique("Free"), []);
    const res = await api(`/roles/destroy/${free.id}`, { method: "DELETE", token });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: string }).message).toBe("Role deleted.");
    expect(await row(free.id)).toBeNull();
    expect((await api(`/v2/roles/${free.id}`, { token })).status).toBe(404);
  });

  it("DELETE of a free role holding permissions the actor lacks: 403 as for an edit, nothing deleted (probe 8932, defect 3)", async () => {
    const token = await apiToken(await createUser({ permissions: ["manage_roles"] }));
    const big = await createRole(unique("UnusedBig"), ["manage_employees", "manage_claims"]);
    const edit = await api(`/v2/roles/${big.id}`, { method: "PATCH", token, body: { name: unique("X") } });
    expect(edit.status).toBe(403);
    const editMessage = ((await edit.json()) as { message: string }).message;
    expect(editMessage).toBe("You cannot change a role that holds permissions you do not hold.");
    for (const path of [`/v2/roles/${big.id}`, `/roles/destroy/${big.id}`]) {
      const del = await api(path, { method: "DELETE", token });
      expect(del.status, path).toBe(403);
      expect(((await del.json()) as { message: string }).message).toBe(editMessage);
    }
    expect(await row(big.id)).toMatchObject({ name: big.name });
    // A role within the actor's own permissions is still theirs to delete.
    const small = await createRole(unique("Small"), ["manage_roles"]);
    expect((await api(`/v2/roles/${small.id}`, { method: "DELETE", token })).status).toBe(200);
    expect(await row(small.id)).toBeNull();
  });

  it("SUPERADMIN and ADMIN cannot be deleted or renamed; only a SUPERADMIN may change their permission sets", async () => {
    const token = await managerToken();
    const superadmin = await apiToken(await createUser({ role: "SUPERADMIN" }));
    for (const name of ["SUPERADMIN", "ADMIN"]) {
      const role = await createRole(name, []);
      const del = await api(`/v2/roles/${role.id}`, { method: "DELETE", token });
      expect(del.status).toBe(422);
      expect(((await del.json()) as { message: string }).message).toBe(`The ${name} role cannot be deleted.`);
      const rename = await api(`/v2/roles/${role.id}`, { method: "PUT", token, body: { name: "Renamed", permissions: [] } });
      expect(rename.status).toBe(422);
      expect(((await rename.json()) as { errors: Record<string, string> }).errors.name).toBe(`The ${name} role cannot be renamed.`);
      expect((await row(role.id))!.name).toBe(name);
      const refused = await api(`/v2/roles/${role.id}`, { method: "PATCH", token, body: { permissions: ["view_notes"] } });
      expect(refused.status).toBe(403);
      const perms = await api(`/v2/roles/${role.id}`, { method: "PATCH", token: superadmin, body: { permissions: ["view_notes"] } });
      expect(perms.status).toBe(200);
      expect(((await perms.json()) as { data: RoleBody }).data).toMatchObject({ name, all_access: true });
    }
  });

  it("only an all-access user may give a role the reserved name ADMIN or SUPERADMIN", async () => {
    const token = await managerToken();
    const role = await createRole(unique("Climber"), []);
    const res = await api(`/v2/roles/${role.id}`, { method: "PUT", token, body: { name: "admin", permissions: [] } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.name).toMatch(/^Only a SUPERADMIN or ADMIN user can use the name ADMIN/);
    expect((await row(role.id))!.name).toBe(role.name);
  });

  it("a role held by someone at a location the editor does not manage: its permissions stay (403), its name may change (probe, stop 24)", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const editor = await apiToken(await createUser({ permissions: ["manage_roles", "view_employees", "manage_employees"], locations: [mine.id] }));
    const role = await createRole(unique("Clerk"), ["view_employees"]);
    const far = await createUser({ permissions: [], locations: [theirs.id] });
    await db().insert(userRoles).values({ userId: far.id, roleId: role.id });
    const grant = await api(`/v2/roles/${role.id}`, { method: "PATCH", token: editor, body: { permissions: ["view_employees", "manage_employees"] } });
    expect(grant.status).toBe(403);
    expect(((await grant.json()) as { message: string }).message).toBe(CHANGE_MESSAGES.roleHoldersNotCovered);
    expect(await stored(role.id)).toEqual(["view_employees"]);
    expect((await api(`/v2/roles/${role.id}`, { method: "PATCH", token: editor, body: { name: unique("Renamed") } })).status).toBe(200);
    // Held only at the editor's own location: allowed.
    const local = await createRole(unique("Local"), ["view_employees"]);
    const near = await createUser({ permissions: [], locations: [mine.id] });
    await db().insert(userRoles).values({ userId: near.id, roleId: local.id });
    expect((await api(`/v2/roles/${local.id}`, { method: "PATCH", token: editor, body: { permissions: ["view_employees", "manage_employees"] } })).status).toBe(200);
    // A membership left at a deleted location is not a place the holder works (stop 25): it does not block the editor.
    const gone = await createLocation({ deletedAt: new Date().toISOString() });
    await db().insert(userLocations).values({ userId: near.id, locationId: gone.id });
    expect((await api(`/v2/roles/${local.id}`, { method: "PATCH", token: editor, body: { permissions: ["view_employees"] } })).status).toBe(200);
    // Someone who sees every location may change it.
    const admin = await apiToken(await createUser({ role: "ADMIN" }));
    expect((await api(`/v2/roles/${role.id}`, { method: "PATCH", token: admin, body: { permissions: ["view_employees", "manage_employees"] } })).status).toBe(200);
  });

  it("a changed permission set applies on the holder's next request", async () => {
    const role = await createRole(unique("Live"), ["manage_roles", "view_notes"]);
    const user = await holder(role.id);
    const token = await apiToken(user);
    expect((await api("/v2/roles", { token })).status).toBe(200);
    expect((await api(`/v2/roles/${role.id}`, { method: "PATCH", token, body: { permissions: ["view_notes"] } })).status).toBe(200);
    expect((await api("/v2/roles", { token })).status).toBe(403);
  });
});

describe("/roles screens", () => {
  it("/roles redirects to the list", async () => {
    const res = await request("/roles", { cookie: await managerCookie() });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/roles/list");
  });

  it("the list searches, paginates, links to edit and register, and shows a flash", async () => {
    const tag = unique("Lst").replace(" ", "");
    const a = await createRole(`${tag} Alpha`, ["view_clients"]);
    const b = await createRole(`${tag} Beta`, []);
    const cookie = await managerCookie();
    const html = await (await request(await withFlashTag(`/roles/list?search=${tag}&flash=Role%20deleted.`), { cookie })).text();
    expect(html).toContain(`${tag} Alpha`);
    expect(html).toContain("view_clients");
    expect(html).toContain(`/roles/list/edit/${a.id}`);
    expect(html).toContain("Register role");
    expect(html).toContain("Role deleted.");
    expect(html).toContain("Showing 1 to 2 of 2 entries");
    const page2 = await (await request(`/roles/list?search=${tag}&per_page=1&page=2`, { cookie })).text();
    expect(page2).toContain(`/roles/list/edit/${b.id}`);
    expect(page2).not.toContain(`/roles/list/edit/${a.id}`);
    const none = await (await request("/roles/list?search=no-such-role-anywhere", { cookie })).text();
    expect(none).toContain("No data to display.");
  });

  it("every roles screen answers 403 without manage_roles, and a POST writes nothing", async () => {
    const role = await createRole(unique("Guarded"), ["view_notes"]);
    const cookie = await signInCookie(await createUser({ permissions: ["manage_employees", "view_employees"] }));
    for (const path of ["/roles", "/roles/list", "/roles/register", `/roles/list/edit/${role.id}`]) expect((await request(path, { cookie })).status, path).toBe(403);
    const before = await roleCount();
    expect((await post("/roles/register", { intent: "save", name: unique(), permissions: ["manage_roles"] }, cookie)).status).toBe(403);
    expect((await post(`/roles/list/edit/${role.id}`, { intent: "save", name: "Hacked", permissions: ["manage_roles"], version: "1" }, cookie)).status).toBe(403);
    expect((await form(`/roles/list/edit/${role.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(403);
    expect(await roleCount()).toBe(before);
    expect(await row(role.id)).toMatchObject({ name: role.name, permissions: '["view_notes"]' });
  });

  it("register offers every permission with a readable label and creates the role", async () => {
    const cookie = await managerCookie();
    const page = await (await request("/roles/register", { cookie })).text();
    expect(page).toContain("view_clients — View clients");
    expect(page).toContain('name="permissions" value="manage_claims"');
    const name = unique("Screen");
    const res = await post("/roles/register", { intent: "save", name, permissions: ["view_clients", "view_bips"] }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe("/roles/list?flash=Role%20created.");
    const [saved] = await db().select().from(roles).where(eq(roles.name, name));
    expect(JSON.parse(saved!.permissions)).toEqual(["view_bips", "view_clients"]);
  });

  it("register refuses bad input and duplicates with 422, keeps what was typed and writes nothing", async () => {
    const cookie = await managerCookie();
    const before = await roleCount();
    const bad = await post("/roles/register", { intent: "save", name: "Typed <Name>", permissions: ["view_notes"] }, cookie);
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain("Name may contain only letters, digits, spaces, _ and -.");
    expect(html).toContain('value="Typed &lt;Name&gt;"');
    expect(checked(html, "view_notes")).toBe(true);
    const taken = await createRole(unique("Dupe"), []);
    const dup = await post("/roles/register", { intent: "save", name: taken.name }, cookie);
    expect(dup.status).toBe(422);
    expect(await dup.text()).toContain("A role with this name already exists.");
    expect(await roleCount()).toBe(before + 1);
  });

  it("edit shows the stored values with the version and saves; no box ticked clears the set", async () => {
    const role = await createRole(unique("Edit"), ["view_notes", "register_bip"]);
    const cookie = await managerCookie();
    const page = await (await request(`/roles/list/edit/${role.id}`, { cookie })).text();
    expect(page).toContain(`value="${role.name}"`);
    expect(page).toContain('name="version" value="1"');
    expect(checked(page, "manage_bips")).toBe(true);
    expect(page).toContain("Delete role");
    const res = await post(`/roles/list/edit/${role.id}`, { intent: "save", name: `${role.name} X`, permissions: ["list_employers"], version: "1" }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe("/roles/list?flash=Role%20updated.");
    expect(await row(role.id)).toMatchObject({ name: `${role.name} X`, permissions: '["view_employees"]', version: 2 });
    expect((await post(`/roles/list/edit/${role.id}`, { intent: "save", name: `${role.name} X`, version: "2" }, cookie)).status).toBe(303);
    expect(await stored(role.id)).toEqual([]);
  });

  it("edit: bad input → 422, a stale version → 409 with the current values; nothing changes", async () => {
    const role = await createRole(unique("Race"), ["view_notes"]);
    const cookie = await managerCookie();
    const bad = await post(`/roles/list/edit/${role.id}`, { intent: "save", name: role.name, permissions: ["nonsense"], version: "1" }, cookie);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("Unknown permission: nonsense. Choose permissions from the list.");
    expect((await post(`/roles/list/edit/${role.id}`, { intent: "save", name: `${role.name} First`, permissions: ["view_bips"], version: "1" }, cookie)).status).toBe(303);
    const stale = await post(`/roles/list/edit/${role.id}`, { intent: "save", name: `${role.name} Second`, permissions: ["manage_roles"], version: "1" }, cookie);
    expect(stale.status).toBe(409);
    const html = await stale.text();
    expect(html).toContain("Someone else saved a newer version of this record.");
    expect(html).toContain(`value="${role.name} First"`);
    expect(html).toContain('name="version" value="2"');
    expect(checked(html, "view_bips")).toBe(true);
    expect(await row(role.id)).toMatchObject({ name: `${role.name} First`, permissions: '["view_bips"]', version: 2 });
  });

  it("delete is refused while users hold the role and works once they do not", async () => {
    const role = await createRole(unique("Gone"), []);
    const user = await holder(role.id);
    const cookie = await managerCookie();
    const refused = await form(`/roles/list/edit/${role.id}?confirm=delete`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(`1 user(s) still hold the ${role.name} role. Give them another role first.`);
    expect(await row(role.id)).not.toBeNull();
    await db().delete(userRoles).where(eq(userRoles.userId, user.id));
    const res = await form(`/roles/list/edit/${role.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe("/roles/list?flash=Role%20deleted.");
    expect(await row(role.id)).toBeNull();
    expect((await request(`/roles/list/edit/${role.id}`, { cookie })).status).toBe(404);
  });

  it("SUPERADMIN: no delete form, its name is locked, and a forced delete or rename is refused", async () => {
    const role = await createRole("SUPERADMIN", []);
    const cookie = await managerCookie();
    // Only a SUPERADMIN may edit it: they get the form, its name locked.
    const page = await (await request(`/roles/list/edit/${role.id}`, { cookie: await signInCookie(await createUser({ role: "SUPERADMIN" })) })).text();
    expect(page).toContain("Save changes");
    expect(page).not.toContain("Delete role");
    expect(page).toMatch(/<input[^>]*name="name"[^>]*readonly=""|<input[^>]*readonly=""[^>]*name="name"/i);
    const del = await form(`/roles/list/edit/${role.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(del.status).toBe(422);
    expect(await del.text()).toContain("The SUPERADMIN role cannot be deleted.");
    const current = (await row(role.id))!;
    const rename = await post(`/roles/list/edit/${role.id}`, { intent: "save", name: "Boss", version: String(current.version) }, cookie);
    expect(rename.status, await rename.clone().text()).toBe(422);
    expect(await rename.text()).toContain("The SUPERADMIN role cannot be renamed.");
    expect((await row(role.id))!.name).toBe("SUPERADMIN");
  });

  it("delete of a role holding permissions the actor lacks: 403 with the edit's message, nothing deleted (probe 8932, defect 3)", async () => {
    const role = await createRole(unique("BillingDesk"), ["manage_claims", "view_clients", "manage_notes"]);
    const cookie = await signInCookie(await createUser({ permissions: ["manage_roles"] }));
    const save = await post(`/roles/list/edit/${role.id}`, { intent: "save", name: role.name, permissions: ["manage_claims", "view_clients", "manage_notes"], version: "1" }, cookie);
    expect(save.status).toBe(403);
    const del = await form(`/roles/list/edit/${role.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(del.status).toBe(403);
    expect(await del.text()).toContain("You cannot change a role that holds permissions you do not hold.");
    expect(await row(role.id)).not.toBeNull();
  });

  it("register offers only the permissions the actor holds (probe 8932, defect 6)", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["manage_roles", "view_clients"] }));
    const page = await (await request("/roles/register", { cookie })).text();
    expect(offeredPermissions(page)).toEqual(["manage_roles", "view_clients"]);
    // Someone who holds every permission is offered all of them.
    const all = await (await request("/roles/register", { cookie: await managerCookie() })).text();
    expect(offeredPermissions(all)).toEqual([...PERMISSIONS].sort());
  });

  it("edit of a role above the actor is read-only: its permissions listed, no Save or Delete, and why (probe 8932, defect 6)", async () => {
    const role = await createRole(unique("Rbt"), ["view_notes", "view_bips", "view_clients"]);
    const cookie = await signInCookie(await createUser({ permissions: ["manage_roles", "view_notes"] }));
    const res = await request(`/roles/list/edit/${role.id}`, { cookie });
    expect(res.status).toBe(200);
    const page = await res.text();
    for (const p of ["view_notes — View session notes", "view_bips — View behavior plans", "view_clients — View clients"]) expect(page).toContain(p);
    expect(page).toContain("You cannot change a role that holds permissions you do not hold.");
    expect(page).toContain("view_bips, view_clients");
    expect(page).not.toContain("Save changes");
    expect(page).not.toContain("Delete role");
    const card = page.slice(page.indexOf('<section class="card"'), page.indexOf("</section>", page.indexOf('<section class="card"')));
    expect(card).toContain(role.name);
    expect(card).not.toMatch(/<(form|input|button)[\s>]/);
    // A role within the actor's permissions keeps the form, with only the permissions the actor holds offered.
    const mine = await createRole(unique("Mine"), ["view_notes"]);
    const editable = await (await request(`/roles/list/edit/${mine.id}`, { cookie })).text();
    expect(editable).toContain("Save changes");
    expect(editable).toContain("Delete role");
    expect(offeredPermissions(editable)).toEqual(["manage_roles", "view_notes"]);
  });
});
