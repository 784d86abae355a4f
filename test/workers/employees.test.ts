import { and, desc, eq, isNull } from "drizzle-orm";
import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { auditLog, backupCodes, roles, sessions, twoFactorChallenges, userLocations, userRoles, users } from "~/db/schema";
import { EMPLOYEE_GENDERS, MAX_EMPLOYEE_LOCATIONS } from "~/domain/employees";
import { MESSAGES } from "~/domain/fields";
import { ListQuery } from "~/domain/paging";
import { getUserActor } from "~/models/actors.server";
import { employeeListScreen } from "~/models/employees.server";
import { api, apiToken, countingDb, createLocation, createRole, createUser, db, request, signInCookie } from "./helpers";

/** Employees ("doctors", platform §2 doctors routes, §3 User, §7 doctors and user administration calls). */

const MANAGE = ["manage_employees"] as const;
let n = 0;
const uniq = () => `${Date.now().toString(36)}${++n}`;

async function setup(opts: { permissions?: ("manage_employees" | "view_employees")[] } = {}) {
  const loc = await createLocation();
  const role = await createRole(`RBT_${uniq()}`, []);
  const me = await createUser({ permissions: opts.permissions ?? [...MANAGE], locations: [loc.id] });
  return { loc, role, me, token: await apiToken(me) };
}

function validBody(locationId: number, roleId: number, over: Record<string, unknown> = {}) {
  return {
    name: "Ana",
    surname: "Lopez",
    email: `ana-${uniq()}@staff.test`,
    phone: "305-555-0100",
    status: "active",
    roles: [roleId],
    locations: [locationId],
    npi: "9988776651",
    ss_number: "123-45-6789",
    date_of_hire: "2026-01-05",
    employment: [{ location_id: locationId, position_id: 2, salary: 30, telehealth_salary: 25, fixed_hours_salary: null, fixed_weekly_hours: 40, cpr_every_2_years: "2027-06-01" }],
    password: "a strong passphrase",
    password_confirmation: "a strong passphrase",
    ...over,
  };
}

async function auditCount(entityId: number) {
  return (await db().select().from(auditLog).where(and(eq(auditLog.entity, "employee"), eq(auditLog.entityId, String(entityId))))).length;
}

async function userRow(id: number) {
  const [r] = await db().select().from(users).where(eq(users.id, id));
  return r!;
}

/** An employee in a location, created directly. */
async function employeeIn(locationId: number, roleId?: number) {
  const u = await createUser({ permissions: [], locations: [locationId], name: `Emp${uniq()}` });
  if (roleId) await db().insert(userRoles).values({ userId: u.id, roleId });
  return u;
}

function noSecrets(text: string) {
  expect(text).not.toContain("password_hash");
  expect(text).not.toContain("passwordHash");
  expect(text).not.toContain("pbkdf2");
  expect(text).not.toContain("123456789");
  expect(text).not.toContain("123-45-6789");
}

describe("employees API", () => {
  it("creates an employee with roles, locations and employment; hides the hash and the ss number; writes an audit row", async () => {
    const { loc, role, token } = await setup();
    const res = await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id) });
    const text = await res.text();
    expect(res.status, text).toBe(201);
    noSecrets(text);
    const body = JSON.parse(text) as { data: { id: number; ss_number: string; roles: { id: number }[]; locations: { id: number; salary: number; compliance: Record<string, string | null> }[]; version: number } };
    expect(body.data.ss_number).toBe("***-**-6789");
    expect(body.data.roles.map((r) => r.id)).toEqual([role.id]);
    expect(body.data.locations[0]).toMatchObject({ id: loc.id, salary: 30, compliance: { cpr_every_2_years: "2027-06-01", wc: null } });
    expect(await auditCount(body.data.id)).toBe(1);
    const row = await userRow(body.data.id);
    expect(row.passwordHash).toMatch(/^pbkdf2/);
    expect(JSON.parse(row.profile).ss_number).toBe("123456789");
    // The new employee can sign in with the initial password.
    const login = await api("/auth/login", { method: "POST", body: { email: row.email, password: "a strong passphrase" } });
    expect(login.status).toBe(200);
  });

  it("lists employees sharing a location, with search and status filters, never the hash", async () => {
    const { loc, token } = await setup({ permissions: ["view_employees"] });
    const other = await createLocation();
    const mine = await employeeIn(loc.id);
    const theirs = await employeeIn(other.id);
    const res = await api(`/doctors?per_page=100`, { token });
    expect(res.status).toBe(200);
    const text = await res.text();
    noSecrets(text);
    const ids = (JSON.parse(text) as { data: { id: number }[] }).data.map((e) => e.id);
    expect(ids).toContain(mine.id);
    expect(ids).not.toContain(theirs.id);
    const [r] = await db().select().from(users).where(eq(users.id, mine.id));
    const search = (await (await api(`/v2/employees?search=${encodeURIComponent(r!.name)}`, { token })).json()) as { data: { id: number }[]; total: number };
    expect(search.data.map((e) => e.id)).toEqual([mine.id]);
    const inactive = (await (await api(`/doctors?status=inactive`, { token })).json()) as { total: number };
    expect(inactive.total).toBe(0);
  });

  it("answers 403 without the permission and 404 for an employee or location outside the actor's locations", async () => {
    const { loc, role } = await setup();
    const none = await apiToken(await createUser({ permissions: ["view_notes"], locations: [loc.id] }));
    expect((await api("/doctors", { token: none })).status).toBe(403);
    expect((await api("/v2/users/createUser", { method: "POST", token: none, body: validBody(loc.id, role.id) })).status).toBe(403);
    const viewer = await apiToken(await createUser({ permissions: ["view_employees"], locations: [loc.id] }));
    const target = await employeeIn(loc.id);
    expect((await api(`/doctors/update/${target.id}`, { method: "POST", token: viewer, body: {} })).status).toBe(403);
    expect((await api(`/doctors/show/${target.id}`, { token: viewer })).status).toBe(200);

    const { token } = await setup();
    expect((await api(`/doctors/show/${target.id}`, { token })).status).toBe(404);
    expect((await api(`/doctors/profile/${target.id}`, { token })).status).toBe(404);
    expect((await api(`/v2/employees/${target.id}`, { token })).status).toBe(404);
    expect((await api(`/doctors/update/status/${target.id}`, { method: "PUT", token, body: { status: "inactive" } })).status).toBe(404);
    expect((await api(`/doctors/destroy/${target.id}`, { method: "DELETE", token })).status).toBe(404);
    expect((await api(`/v2/users/${target.id}/change-password`, { method: "PATCH", token, body: { new_password: "another passphrase", new_password_confirmation: "another passphrase" } })).status).toBe(404);
    expect((await api(`/doctors/employeesbylocation/${loc.id}`, { token })).status).toBe(404);
    expect((await userRow(target.id)).status).toBe("active");
  });

  it.each([
    [{ name: "" }, "name", "Name is required."],
    [{ email: "nope" }, "email", "Enter a valid email address."],
    [{ roles: [] }, "roles", "Choose at least one role."],
    [{ locations: [] }, "locations", "Choose at least one location."],
    [{ ss_number: "12-34" }, "ss_number", "Enter a valid social security number (9 digits)."],
    [{ date_of_hire: "2026-02-30" }, "date_of_hire", "Enter a valid date (YYYY-MM-DD)."],
    [{ password: "short", password_confirmation: "short" }, "password", "Password must be at least 8 characters."],
    [{ password_confirmation: "different passphrase" }, "password_confirmation", "Passwords do not match."],
    // With another field's error in the same answer, not only once the rest is valid (probe 9041 §4).
    [{ email: "bad", password_confirmation: "different passphrase" }, "password_confirmation", "Passwords do not match."],
    [{ email: "bad", password_confirmation: "different passphrase" }, "email", "Enter a valid email address."],
    [{ status: "retired" }, "status", "Choose a status from the list."],
  ])("refuses bad input with 422 and writes nothing (%#)", async (over, field, message) => {
    const { loc, role, token } = await setup();
    const before = (await db().select({ id: users.id }).from(users)).length;
    const res = await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id, over) });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors[field]).toBe(message);
    expect((await db().select({ id: users.id }).from(users)).length).toBe(before);
  });

  it("refuses a location or role the actor may not assign, and a duplicate email", async () => {
    const { loc, role, token } = await setup();
    const other = await createLocation();
    const admin = await createRole("ADMIN", []);
    const r1 = await api("/v2/users/createUser", { method: "POST", token, body: validBody(other.id, role.id) });
    expect(r1.status).toBe(422);
    expect(((await r1.json()) as { errors: Record<string, string> }).errors.locations).toBe("Choose locations from the list.");
    const r2 = await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, admin.id) });
    expect(((await r2.json()) as { errors: Record<string, string> }).errors.roles).toBe("You cannot give a role that holds permissions you do not hold: ADMIN.");
    const body = validBody(loc.id, role.id);
    expect((await api("/v2/users/createUser", { method: "POST", token, body })).status).toBe(201);
    const dup = await api("/v2/users/createUser", { method: "POST", token, body: { ...body, email: body.email.toUpperCase() } });
    expect(((await dup.json()) as { errors: Record<string, string> }).errors.email).toBe("An employee with this email already exists.");
  });

  it("updates with a version; a stale version answers 409 and changes nothing (roles and locations included)", async () => {
    const { loc, role, token } = await setup();
    const role2 = await createRole(`BCBA_${uniq()}`, []);
    const created = (await (await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id) })).json()) as { data: { id: number; email: string } };
    const id = created.data.id;
    const { password: _p, password_confirmation: _c, ...base } = validBody(loc.id, role.id, { email: created.data.email, ss_number: "" });
    const first = await api(`/doctors/update/${id}`, { method: "POST", token, body: { ...base, name: "First", version: 1 } });
    expect(first.status, await first.clone().text()).toBe(200);
    const firstBody = (await first.json()) as { data: { name: string; version: number; ss_number: string } };
    expect(firstBody.data).toMatchObject({ name: "First", version: 2, ss_number: "***-**-6789" });
    const stale = await api(`/doctors/update/${id}`, { method: "POST", token, body: { ...base, name: "Second", roles: [role2.id], version: 1 } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { name: string; version: number } }).current).toMatchObject({ name: "First", version: 2 });
    expect((await userRow(id)).name).toBe("First");
    expect((await db().select().from(userRoles).where(eq(userRoles.userId, id))).map((r) => r.roleId)).toEqual([role.id]);
    expect(await auditCount(id)).toBe(2);
  });

  it("editUser changes only the given fields; status and delete are audited and end sessions", async () => {
    const { loc, role, token } = await setup();
    const target = await employeeIn(loc.id, role.id);
    const edit = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body: { city: "Miami" } });
    expect(edit.status, await edit.clone().text()).toBe(200);
    expect(((await edit.json()) as { data: { city: string; name: string } }).data.city).toBe("Miami");
    await signInCookie(target);
    expect((await db().select().from(sessions).where(eq(sessions.principalId, target.id))).length).toBeGreaterThan(0);
    const st = await api(`/doctors/update/status/${target.id}`, { method: "PUT", token, body: { status: "inactive" } });
    expect(st.status).toBe(200);
    expect((await userRow(target.id)).status).toBe("inactive");
    expect((await db().select().from(sessions).where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, target.id)))).length).toBe(0);
    const bad = await api(`/doctors/update/status/${target.id}`, { method: "PUT", token, body: { status: "gone" } });
    expect(bad.status).toBe(422);
    const del = await api(`/doctors/destroy/${target.id}`, { method: "DELETE", token });
    expect(del.status).toBe(200);
    expect((await userRow(target.id)).deletedAt).not.toBeNull();
    expect((await api(`/doctors/show/${target.id}`, { token })).status).toBe(404);
    expect(await auditCount(target.id)).toBe(3);
  });

  it("editUser with a body that names no field answers 422 and leaves the version and the audit trail as they were", async () => {
    const { loc, role, token } = await setup();
    const target = await employeeIn(loc.id, role.id);
    const before = await userRow(target.id);
    for (const body of [{}, { version: before.version }, { id: target.id }, { id: target.id, version: before.version }]) {
      const res = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe("Nothing to change: send at least one field to update.");
    }
    expect((await userRow(target.id)).version).toBe(before.version);
    expect(await auditCount(target.id)).toBe(0);
    const edit = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body: { city: "Tampa", version: before.version } });
    expect(edit.status, await edit.clone().text()).toBe(200);
    expect((await userRow(target.id)).version).toBe(before.version + 1);
  });

  it("changes a user's password (rules checked), ending their sessions; resets two-factor", async () => {
    const { loc, token } = await setup();
    const target = await createUser({ permissions: [], locations: [loc.id], twoFactor: true });
    await db().insert(backupCodes).values({ principalType: "user", principalId: target.id, codeHash: `h-${uniq()}` } as typeof backupCodes.$inferInsert);
    const short = await api(`/v2/users/${target.id}/change-password`, { method: "PATCH", token, body: { new_password: "x", new_password_confirmation: "x" } });
    expect(short.status).toBe(422);
    const before = (await userRow(target.id)).passwordHash;
    const okRes = await api(`/v2/users/${target.id}/change-password`, { method: "PATCH", token, body: { new_password: "brand new passphrase", new_password_confirmation: "brand new passphrase" } });
    expect(okRes.status).toBe(200);
    noSecrets(await okRes.text());
    expect((await userRow(target.id)).passwordHash).not.toBe(before);
    expect((await api("/auth/login", { method: "POST", body: { email: target.email, password: "brand new passphrase" } })).status).not.toBe(401);
    const reset = await api(`/v2/users/${target.id}/reset-two-factor`, { method: "POST", token });
    expect(reset.status).toBe(200);
    expect((await userRow(target.id)).twoFactorEnabled).toBe(false);
    expect(await db().select().from(backupCodes).where(eq(backupCodes.principalId, target.id))).toHaveLength(0);
    expect(await auditCount(target.id)).toBe(2);
  });

  it("a limited manager cannot change an administrator's account", async () => {
    const { loc, token } = await setup();
    const admin = await createUser({ role: "ADMIN", locations: [loc.id] });
    const res = await api(`/v2/users/${admin.id}/change-password`, { method: "PATCH", token, body: { new_password: "brand new passphrase", new_password_confirmation: "brand new passphrase" } });
    expect(res.status).toBe(403);
  });

  it("config, configlocation and employeesbylocation answer the actor's roles, locations and staff", async () => {
    const { loc, role, token, me } = await setup();
    const config = (await (await api("/doctors/config", { token })).json()) as { data: { roles: { id: number; name: string }[]; locations: { id: number }[] } };
    expect(config.data.locations.map((l) => l.id)).toEqual([loc.id]);
    expect(config.data.roles.map((r) => r.id)).toContain(role.id);
    expect(config.data.roles.map((r) => r.name)).not.toContain("ADMIN");
    const byLoc = (await (await api(`/doctors/employeesbylocation/${loc.id}`, { token })).json()) as { data: { id: number }[] };
    expect(byLoc.data.map((e) => e.id)).toContain(me.id);
    expect((await api(`/doctors/configlocation/${loc.id}`, { token })).status).toBe(200);
  });

  it("the profile answers each compliance date with its state", async () => {
    const { loc, role, token } = await setup();
    const soon = new Date(Date.now() + 10 * 86_400_000).toISOString().slice(0, 10);
    const created = (await (await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id, { employment: [{ location_id: loc.id, cpr_every_2_years: soon, wc: "2000-01-01" }] }) })).json()) as { data: { id: number } };
    const res = await api(`/doctors/profile/${created.data.id}`, { token });
    const text = await res.text();
    noSecrets(text);
    const p = JSON.parse(text) as { data: { locations: { compliance_state: Record<string, string> }[] } };
    expect(p.data.locations[0]!.compliance_state).toMatchObject({ cpr_every_2_years: "expiring_30", wc: "expired", e_verify: "missing" });
  });
});

describe("employee screens", () => {
  async function manager() {
    const loc = await createLocation();
    const role = await createRole(`RBT_${uniq()}`, []);
    const me = await createUser({ permissions: [...MANAGE], locations: [loc.id] });
    return { loc, role, me, cookie: await signInCookie(me) };
  }

  function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  }

  function formFields(locId: number, roleId: number, over: Record<string, string | string[]> = {}) {
    return {
      intent: "save",
      name: "Bea",
      surname: "Ramos",
      email: `bea-${uniq()}@staff.test`,
      status: "active",
      roles: [String(roleId)],
      locations: [String(locId)],
      ss_number: "987-65-4321",
      [`emp_${locId}_salary`]: "28.5",
      [`emp_${locId}_bacb_license_expiration`]: "2030-01-01",
      password: "form passphrase 1",
      password_confirmation: "form passphrase 1",
      ...over,
    };
  }

  it("/doctors redirects to the list; the list shows employees of the manager's locations with filters", async () => {
    const { loc, cookie } = await manager();
    const other = await createLocation();
    const mine = await employeeIn(loc.id);
    const theirs = await employeeIn(other.id);
    const r = await request("/doctors", { cookie });
    expect(r.status).toBe(302);
    expect(r.headers.get("Location")).toBe("/doctors/list");
    const res = await request("/doctors/list", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`/doctors/profile/${mine.id}`);
    expect(html).not.toContain(`/doctors/profile/${theirs.id}`);
    expect(html).toContain('name="status"');
    expect(html).toContain('name="location_id"');
    noSecrets(html);
  });

  it("403 without manage_employees on add and edit; view_employees may open the list and a profile (probe 8932 §4)", async () => {
    const loc = await createLocation();
    const target = await employeeIn(loc.id);
    const cookie = await signInCookie(await createUser({ permissions: ["view_employees"], locations: [loc.id] }));
    expect((await request("/doctors/list", { cookie })).status).toBe(200);
    expect((await request("/doctors/add", { cookie })).status).toBe(403);
    expect((await request(`/doctors/list/edit/${target.id}`, { cookie })).status).toBe(403);
    expect((await post(`/doctors/list/edit/${target.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(403);
    expect((await request(`/doctors/profile/${target.id}`, { cookie })).status).toBe(200);
    expect((await userRow(target.id)).deletedAt).toBeNull();
  });

  it("adds an employee through the form; bad input re-renders with the message and writes nothing", async () => {
    const { loc, role, cookie } = await manager();
    const before = (await db().select({ id: users.id }).from(users)).length;
    const bad = await post("/doctors/add", formFields(loc.id, role.id, { name: "" }), cookie);
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain("Name is required.");
    expect(badHtml).not.toContain("form passphrase 1");
    // A bad email and passwords that differ: both errors in the one answer (probe 9041 §4).
    const both = await post("/doctors/add", formFields(loc.id, role.id, { email: "bad", password_confirmation: "another passphrase" }), cookie);
    expect(both.status).toBe(422);
    const bothHtml = await both.text();
    expect(bothHtml).toContain("Enter a valid email address.");
    expect(bothHtml).toContain("Passwords do not match.");
    expect((await db().select({ id: users.id }).from(users)).length).toBe(before);
    const fields = formFields(loc.id, role.id);
    const res = await post("/doctors/add", fields, cookie);
    expect(res.status).toBe(303);
    const [row] = await db().select().from(users).where(eq(users.email, fields.email as string));
    expect(res.headers.get("Location")).toContain(`/doctors/profile/${row!.id}`);
    const [ul] = await db().select().from(userLocations).where(eq(userLocations.userId, row!.id));
    expect(ul).toMatchObject({ locationId: loc.id, salary: 28.5 });
    expect(JSON.parse(ul!.compliance).bacb_license_expiration).toBe("2030-01-01");
    expect(await auditCount(row!.id)).toBe(1);
    const profile = await request(`/doctors/profile/${row!.id}`, { cookie });
    const html = await profile.text();
    expect(html).toContain("***-**-4321");
    expect(html).toContain("BACB license expiration");
    expect(html).toContain("Valid");
    noSecrets(html);
    expect(html).not.toContain("987654321");
  });

  it("edits with a hidden version (409 when stale), changes status and deletes as separate intents; 404 outside the locations", async () => {
    const { loc, role, cookie } = await manager();
    const target = await employeeIn(loc.id, role.id);
    const page = await request(`/doctors/list/edit/${target.id}`, { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('name="version" value="1"');
    noSecrets(html);
    const { password: _p, password_confirmation: _c, ...fields } = formFields(loc.id, role.id, { email: target.email, version: "1", name: "Edited" });
    const saved = await post(`/doctors/list/edit/${target.id}`, fields, cookie);
    expect(saved.status).toBe(303);
    expect((await userRow(target.id)).name).toBe("Edited");
    const stale = await post(`/doctors/list/edit/${target.id}`, { ...fields, name: "Stale" }, cookie);
    expect(stale.status).toBe(409);
    expect((await userRow(target.id)).name).toBe("Edited");
    const st = await post(`/doctors/list/edit/${target.id}`, { intent: "status", status: "inactive" }, cookie);
    expect(st.status).toBe(303);
    expect((await userRow(target.id)).status).toBe("inactive");
    const del = await post(`/doctors/list/edit/${target.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(del.status).toBe(303);
    expect((await userRow(target.id)).deletedAt).not.toBeNull();
    expect(await auditCount(target.id)).toBe(3);

    const other = await employeeIn((await createLocation()).id);
    expect((await request(`/doctors/list/edit/${other.id}`, { cookie })).status).toBe(404);
    expect((await request(`/doctors/profile/${other.id}`, { cookie })).status).toBe(404);
    expect((await post(`/doctors/list/edit/${other.id}`, { intent: "delete", confirmed: "yes" }, cookie)).status).toBe(404);
    expect((await userRow(other.id)).deletedAt).toBeNull();
  });

  it("sets a password (rules checked, never echoed) and turns two-factor off from the edit screen", async () => {
    const { loc, cookie } = await manager();
    const target = await createUser({ permissions: [], locations: [loc.id], twoFactor: true });
    const page = await (await request(`/doctors/list/edit/${target.id}`, { cookie })).text();
    expect(page).toContain("Turn off two-factor authentication");
    const short = await post(`/doctors/list/edit/${target.id}`, { intent: "password", new_password: "tiny", new_password_confirmation: "tiny" }, cookie);
    expect(short.status).toBe(422);
    const shortHtml = await short.text();
    expect(shortHtml).toContain("Password must be at least 8 characters.");
    expect(shortHtml).not.toContain('"tiny"');
    const before = (await userRow(target.id)).passwordHash;
    const res = await post(`/doctors/list/edit/${target.id}`, { intent: "password", new_password: "screen passphrase", new_password_confirmation: "screen passphrase" }, cookie);
    expect(res.status).toBe(303);
    expect((await userRow(target.id)).passwordHash).not.toBe(before);
    const tf = await post(`/doctors/list/edit/${target.id}`, { intent: "two_factor" }, cookie);
    expect(tf.status).toBe(303);
    expect((await userRow(target.id)).twoFactorEnabled).toBe(false);
    expect(await auditCount(target.id)).toBe(2);
  });

  it("a gender not in the list is refused on create (screen and API) and writes nothing; the listed ones and none are accepted (probe 8892)", async () => {
    const { loc, role, me, cookie } = await manager();
    const token = await apiToken(me);
    const count = async () => (await db().select({ id: users.id }).from(users)).length;
    const before = await count();
    for (const gender of ["robot", "attack-heli", "Female", "1"]) {
      const screen = await post("/doctors/add", formFields(loc.id, role.id, { gender }), cookie);
      expect(screen.status, `screen ${gender}`).toBe(422);
      expect(await screen.text()).toContain(MESSAGES.gender);
      const viaApi = await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id, { gender }) });
      expect(viaApi.status, `API ${gender}`).toBe(422);
      expect(((await viaApi.json()) as { errors: Record<string, string> }).errors).toEqual({ gender: MESSAGES.gender });
    }
    expect(await count()).toBe(before);
    for (const gender of ["", ...EMPLOYEE_GENDERS.map((g) => g.value)]) {
      const fields = formFields(loc.id, role.id, { gender });
      expect((await post("/doctors/add", fields, cookie)).status, `screen ${gender}`).toBe(303);
      const [row] = await db().select().from(users).where(eq(users.email, fields.email as string));
      expect(row!.gender).toBe(gender || null);
      const viaApi = await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id, { gender }) });
      expect(viaApi.status, `API ${gender}`).toBe(201);
    }
  });

  it("a stored gender no longer in the list stays through an edit that leaves it (screen and API); changing it to another one outside the list is refused", async () => {
    const { loc, role, me, cookie } = await manager();
    const target = await employeeIn(loc.id, role.id);
    await db().update(users).set({ gender: "robot" }).where(eq(users.id, target.id));
    const path = `/doctors/list/edit/${target.id}`;
    const html = await (await request(path, { cookie })).text();
    expect(html).toMatch(/<option value="robot" selected="">robot \(not in the list\)<\/option>/);
    const fields = { intent: "save", name: "Kept", surname: "User", email: target.email, status: "active", roles: [String(role.id)], locations: [String(loc.id)], gender: "robot" };
    expect((await post(path, { ...fields, version: "1" }, cookie)).status).toBe(303);
    expect(await userRow(target.id)).toMatchObject({ name: "Kept", gender: "robot", version: 2 });
    const token = await apiToken(me);
    expect((await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body: { phone: "305-555-0199" } })).status).toBe(200);
    expect(await userRow(target.id)).toMatchObject({ phone: "305-555-0199", gender: "robot", version: 3 });
    const changed = await post(path, { ...fields, version: "3", gender: "cyborg" }, cookie);
    expect(changed.status).toBe(422);
    expect(await changed.text()).toContain(MESSAGES.gender);
    expect(await userRow(target.id)).toMatchObject({ gender: "robot", version: 3 });
    expect((await post(path, { ...fields, version: "3", gender: "other" }, cookie)).status).toBe(303);
    expect(await userRow(target.id)).toMatchObject({ gender: "other", version: 4 });
  });
});

describe("employees: list cache, statement budget, legacy doctor paths", () => {
  it("/v2/employees?cache=true serves the cached list until a write through the API invalidates it", async () => {
    const { loc, role, token } = await setup({ permissions: ["view_employees", "manage_employees"] });
    const mark = `Cachy${uniq()}`;
    const target = await createUser({ permissions: [], locations: [loc.id], name: mark });
    const q = `/v2/employees?cache=true&search=${mark}`;
    const names = async () => ((await (await api(q, { token })).json()) as { data: { name: string; surname: string }[] }).data.map((e) => `${e.name} ${e.surname}`);
    expect(await names()).toEqual([`${mark} User`]);
    await db().update(users).set({ surname: "Behind" }).where(eq(users.id, target.id)); // written behind the API: the cache does not know
    expect(await names()).toEqual([`${mark} User`]);
    expect(((await (await api(`/v2/employees?search=${mark}`, { token })).json()) as { data: { surname: string }[] }).data[0]!.surname).toBe("Behind");
    const edit = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body: { surname: "Written", roles: [role.id] } });
    expect(edit.status).toBe(200);
    expect(await names()).toEqual([`${mark} Written`]);
    // A view_employees-only reader is served through the same cache path.
    const viewer = await apiToken(await createUser({ permissions: ["view_employees"], locations: [loc.id] }));
    expect(((await (await api(q, { token: viewer })).json()) as { total: number }).total).toBe(1);
    expect((await api("/v2/employees?cache=true&per_page=0", { token })).status).toBe(422);
  });

  it("the list screen's page, total and location options are one batch of two statements", async () => {
    const loc = await createLocation({ title: "Budget Staff Clinic" });
    const hidden = await createLocation();
    const role = await createRole(`BCBA_${uniq()}`, []);
    const mark = `Budgeted${uniq()}`;
    const emp = await employeeIn(loc.id, role.id);
    await db().update(users).set({ name: mark }).where(eq(users.id, emp.id));
    await db().insert(userLocations).values({ userId: emp.id, locationId: hidden.id });
    const me = await createUser({ permissions: [...MANAGE], locations: [loc.id] });
    const counting = countingDb();
    const ctx = { db: counting.db, actor: (await getUserActor(db(), me.id))!, ip: "203.0.113.7", now: () => new Date() };
    const screen = await employeeListScreen(ctx, v.parse(ListQuery, { search: mark }), {});
    expect(counting.statements()).toBe(2);
    expect(screen.page.total).toBe(1);
    const [e] = screen.page.data;
    expect(e!.roles.map((r) => r.name)).toContain(role.name);
    // The membership of a location the manager cannot see is left out.
    expect(e!.locations.map((l) => l.id)).toEqual([loc.id]);
    expect(screen.locations.map((l) => l.id)).toContain(loc.id);
    expect(screen.locations.map((l) => l.id)).not.toContain(hidden.id);
  });

  it.each([
    ["/doctors/addemployee", () => "/doctors/add"],
    ["/doctors/edit/:id", (id: number) => `/doctors/list/edit/${id}`],
    ["/doctors/setting/:id", (id: number) => `/doctors/list/edit/${id}#settings`],
  ])("%s opens the same screen for manage_employees; others get 403", async (path, target) => {
    const loc = await createLocation();
    const emp = await employeeIn(loc.id);
    const url = path.replace(":id", String(emp.id));
    const cookie = await signInCookie(await createUser({ permissions: [...MANAGE], locations: [loc.id] }));
    const res = await request(url, { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(target(emp.id));
    const viewer = await signInCookie(await createUser({ permissions: ["view_employees"], locations: [loc.id] }));
    expect((await request(url, { cookie: viewer })).status).toBe(403);
    if (path.includes(":id")) expect((await request(path.replace(":id", "abc"), { cookie })).status).toBe(404);
  });

  it("the edit screen carries the settings section the setting path points at", async () => {
    const loc = await createLocation();
    const emp = await employeeIn(loc.id);
    const cookie = await signInCookie(await createUser({ permissions: [...MANAGE], locations: [loc.id] }));
    const html = await (await request(`/doctors/list/edit/${emp.id}`, { cookie })).text();
    expect(html).toMatch(/<form[^>]*id="settings"/);
    expect(html).toContain("Deactivate employee");
  });
});

describe("an editor who shares only some of an employee's locations; employment errors on their inputs (decision 015, stop 24)", () => {
  function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
    return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  }

  /** An employee of two locations whose primary one (the first) the manager cannot see, signed in. */
  async function partial() {
    const hidden = await createLocation({ title: `Hidden ${uniq()}` });
    const mine = await createLocation({ title: `Mine ${uniq()}` });
    const target = await createUser({ permissions: [], locations: [hidden.id, mine.id], name: "Partial" });
    await signInCookie(target);
    const [held] = await db().select({ roleId: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, target.id));
    const me = await createUser({ permissions: [...MANAGE], locations: [mine.id] });
    return { hidden, mine, target, roleId: held!.roleId, me };
  }
  async function memberships(id: number) {
    return (await db().select({ id: userLocations.locationId }).from(userLocations).where(eq(userLocations.userId, id))).map((r) => r.id).sort((a, b) => a - b);
  }
  async function sessionCount(id: number) {
    return (await db().select().from(sessions).where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, id)))).length;
  }

  it("the screen keeps a primary location the editor cannot see: no choice offered, a phone-only save keeps it, moving it is refused", async () => {
    const { hidden, mine, target, roleId, me } = await partial();
    const cookie = await signInCookie(me);
    const path = `/doctors/list/edit/${target.id}`;
    const html = await (await request(path, { cookie })).text();
    expect(html).not.toContain("The first chosen location");
    expect(html).not.toContain('name="location_id"');
    expect(html).toContain("Primary location: a location you do not manage. It stays as it is.");
    const sessionsBefore = await sessionCount(target.id);
    expect(sessionsBefore).toBeGreaterThan(0);
    const fields = { intent: "save", version: "1", name: "Partial", surname: "User", email: target.email, status: "active", roles: [String(roleId)], locations: [String(mine.id)], phone: "555-999-0007" };

    const saved = await post(path, fields, cookie);
    expect(saved.status).toBe(303);
    expect(await userRow(target.id)).toMatchObject({ phone: "555-999-0007", locationId: hidden.id });
    expect(await memberships(target.id)).toEqual([hidden.id, mine.id].sort((a, b) => a - b));
    // A form rendered before this change posted a blank primary location: that keeps it too.
    const blank = await post(path, { ...fields, version: "2", phone: "555-999-0008", location_id: "" }, cookie);
    expect(blank.status).toBe(303);
    expect(await userRow(target.id)).toMatchObject({ phone: "555-999-0008", locationId: hidden.id });
    expect(await sessionCount(target.id)).toBe(sessionsBefore);

    const moved = await post(path, { ...fields, version: "3", phone: "555-999-0009", location_id: String(mine.id) }, cookie);
    expect(moved.status).toBe(422);
    expect(await moved.text()).toContain("The primary location is at a location you do not manage: only someone who manages it can change it.");
    expect(await userRow(target.id)).toMatchObject({ phone: "555-999-0008", locationId: hidden.id, version: 3 });
  });

  it("the API: PATCH and editUser of the phone alone succeed and keep the primary location; naming another one is refused and changes nothing", async () => {
    const { hidden, mine, target, me } = await partial();
    const token = await apiToken(me);
    const sessionsBefore = await sessionCount(target.id);
    const patch = await api(`/v2/employees/${target.id}`, { method: "PATCH", token, body: { phone: "555-999-0010" } });
    expect(patch.status).toBe(200);
    expect(await userRow(target.id)).toMatchObject({ phone: "555-999-0010", locationId: hidden.id });
    const edit = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body: { phone: "555-999-0011" } });
    expect(edit.status).toBe(200);
    expect(await userRow(target.id)).toMatchObject({ phone: "555-999-0011", locationId: hidden.id });
    expect(await memberships(target.id)).toEqual([hidden.id, mine.id].sort((a, b) => a - b));
    expect(await sessionCount(target.id)).toBe(sessionsBefore);

    const auditBefore = await auditCount(target.id);
    for (const [method, path] of [["PATCH", `/v2/employees/${target.id}`], ["POST", `/v2/users/editUser/${target.id}`]] as const) {
      const res = await api(path, { method, token, body: { phone: "555-999-0012", location_id: mine.id } });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors.location_id).toBe("The primary location is at a location you do not manage: only someone who manages it can change it.");
    }
    expect(await userRow(target.id)).toMatchObject({ phone: "555-999-0011", locationId: hidden.id, version: 3 });
    expect(await auditCount(target.id)).toBe(auditBefore);
  });

  it("an editor who covers every location still moves the primary location", async () => {
    const { hidden, mine, target } = await partial();
    const token = await apiToken(await createUser({ permissions: [...MANAGE], locations: [hidden.id, mine.id] }));
    const res = await api(`/v2/employees/${target.id}`, { method: "PATCH", token, body: { location_id: mine.id } });
    expect(res.status).toBe(200);
    expect((await userRow(target.id)).locationId).toBe(mine.id);
  });

  it("every employment error shows at its input, per location, with the typed values kept", async () => {
    const a = await createLocation({ title: `Alpha ${uniq()}` });
    const b = await createLocation({ title: `Beta ${uniq()}` });
    const role = await createRole(`RBT_${uniq()}`, []);
    const cookie = await signInCookie(await createUser({ permissions: [...MANAGE], locations: [a.id, b.id] }));
    const before = (await db().select({ id: users.id }).from(users)).length;
    const res = await post(
      "/doctors/add",
      {
        intent: "save",
        name: "Emp",
        surname: "Errors",
        email: `emp-errors-${uniq()}@staff.test`,
        status: "active",
        roles: [String(role.id)],
        locations: [String(a.id), String(b.id)],
        [`emp_${a.id}_salary`]: "-5",
        [`emp_${a.id}_fixed_weekly_hours`]: "200",
        [`emp_${b.id}_telehealth_salary`]: "-1",
        [`emp_${b.id}_salary`]: "31",
        password: "form passphrase 1",
        password_confirmation: "form passphrase 1",
      },
      cookie,
    );
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).not.toContain("Employment details:");
    for (const [id, message] of [
      [`f-emp-${a.id}-salary`, "Salary must be 0 or more."],
      [`f-emp-${a.id}-fixed_weekly_hours`, "Fixed weekly hours must be at most 168."],
      [`f-emp-${b.id}-telehealth_salary`, "Telehealth salary must be 0 or more."],
    ]) {
      expect(html).toMatch(new RegExp(`<input[^>]*id="${id}"[^>]*aria-invalid="true"`));
      expect(html).toContain(`<p id="${id}-error" class="field-error" role="alert">${message}</p>`);
    }
    expect(html).not.toContain(`f-emp-${b.id}-salary-error`);
    for (const typed of ['value="-5"', 'value="200"', 'value="-1"', 'value="31"']) expect(html).toContain(typed);
    expect((await db().select({ id: users.id }).from(users)).length).toBe(before);
  });
});

describe("an employee at many locations (D1 binds at most 100 parameters a statement)", () => {
  it("is created and updated with 20 locations, each with its employment row", async () => {
    const locs = [];
    for (let i = 0; i < 20; i++) locs.push(await createLocation());
    const ids = locs.map((l) => l.id);
    const role = await createRole(`RBT_${uniq()}`, []);
    const me = await createUser({ permissions: [...MANAGE], locations: ids });
    const token = await apiToken(me);
    const employment = ids.map((id) => ({ location_id: id, position_id: 2, salary: 30, telehealth_salary: 25, fixed_hours_salary: null, fixed_weekly_hours: 40, cpr_every_2_years: "2027-06-01" }));
    const res = await api("/v2/users/createUser", { method: "POST", token, body: validBody(ids[0]!, role.id, { locations: ids, employment }) });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBeLessThan(300);
    const id = body.data.id as number;
    const memberships = async () => (await db().select({ locationId: userLocations.locationId, salary: userLocations.salary }).from(userLocations).where(eq(userLocations.userId, id))).sort((a, b) => a.locationId - b.locationId);
    expect(await memberships()).toEqual(ids.map((locationId) => ({ locationId, salary: 30 })));
    // An update keeping 19 of them, with a new salary everywhere, writes them all in the same batch.
    const kept = ids.slice(1);
    const { password: _p, password_confirmation: _c, ...base } = validBody(kept[0]!, role.id, { email: body.data.email, ss_number: "", locations: kept, employment: employment.slice(1).map((e) => ({ ...e, salary: 31 })) });
    const update = await api(`/doctors/update/${id}`, { method: "POST", token, body: { ...base, version: 1 } });
    expect(update.status, await update.clone().text()).toBe(200);
    expect(await memberships()).toEqual(kept.map((locationId) => ({ locationId, salary: 31 })));
  });
});

describe("an employee's save when there are many roles (D1 binds at most 100 parameters a statement)", () => {
  it("is updated with 120 roles the editor may give", async () => {
    const loc = await createLocation();
    const role = await createRole(`RBT_${uniq()}`, []);
    const me = await createUser({ permissions: [...MANAGE], locations: [loc.id] });
    const token = await apiToken(me);
    const created = await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id) });
    const body = (await created.json()) as any;
    expect(created.status, JSON.stringify(body)).toBeLessThan(300);
    const id = body.data.id as number;
    // 120 roles without permissions: every one is a role this editor may give (and take away).
    const names = Array.from({ length: 120 }, (_, i) => ({ name: `MANY_${uniq()}_${i}`, permissions: "[]" }));
    for (let i = 0; i < names.length; i += 20) await db().insert(roles).values(names.slice(i, i + 20));
    const last = (await db().select({ id: roles.id }).from(roles).where(eq(roles.name, names[119]!.name)))[0]!.id;
    const { password: _p, password_confirmation: _c, ...base } = validBody(loc.id, role.id, { email: body.data.email, ss_number: "", roles: [last] });
    const update = await api(`/doctors/update/${id}`, { method: "POST", token, body: { ...base, version: 1 } });
    expect(update.status, await update.clone().text()).toBe(200);
    expect((await db().select({ roleId: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, id))).map((r) => r.roleId)).toEqual([last]);
  });
});

describe("an employment list names each location once, at most MAX_EMPLOYEE_LOCATIONS entries (probe 8913 #7, decision 017 stop 28)", () => {
  const REPEATED = "Each location can be listed once in employment.";
  const TOO_MANY = `Employment: at most ${MAX_EMPLOYEE_LOCATIONS} entries.`;

  async function target() {
    const { loc, role, me, token } = await setup();
    const emp = await employeeIn(loc.id, role.id);
    await db().update(userLocations).set({ salary: 20 }).where(eq(userLocations.userId, emp.id));
    return { loc, role, me, token, emp };
  }
  async function salaries(id: number) {
    return (await db().select({ locationId: userLocations.locationId, salary: userLocations.salary }).from(userLocations).where(eq(userLocations.userId, id))).map((r) => [r.locationId, r.salary]);
  }

  const twice = (loc: number) => [
    { location_id: loc, salary: 10 },
    { location_id: loc, salary: 99 },
  ];
  const many = (loc: number) => Array.from({ length: 10_000 }, () => ({ location_id: loc }));
  const calls: [string, "create" | "update", (t: Awaited<ReturnType<typeof target>>, employment: unknown[]) => [string, string, Record<string, unknown>]][] = [
    ["POST /v2/employees", "create", (t, employment) => ["POST", "/v2/employees", validBody(t.loc.id, t.role.id, { employment })]],
    ["POST /v2/users/createUser", "create", (t, employment) => ["POST", "/v2/users/createUser", validBody(t.loc.id, t.role.id, { employment })]],
    ["PATCH /v2/employees/{id}", "update", (t, employment) => ["PATCH", `/v2/employees/${t.emp.id}`, { employment }]],
    ["POST /v2/users/editUser/{id}", "update", (t, employment) => ["POST", `/v2/users/editUser/${t.emp.id}`, { employment }]],
    ["POST /doctors/update/{id}", "update", (t, employment) => {
      const { password: _p, password_confirmation: _c, ...base } = validBody(t.loc.id, t.role.id, { email: t.emp.email, ss_number: "", employment });
      return ["POST", `/doctors/update/${t.emp.id}`, { ...base, version: 1 }];
    }],
  ];
  const lists: [string, (loc: number) => unknown[], string][] = [
    ["one location twice", twice, REPEATED],
    ["one location 10,000 times", many, TOO_MANY],
  ];

  for (const [call, kind, build] of calls) {
    it.each(lists)(`${call}: %s → 422 on employment, nothing written`, async (_label, list, message) => {
      const t = await target();
      const [method, path, body] = build(t, list(t.loc.id));
      const usersBefore = (await db().select({ id: users.id }).from(users)).length;
      const auditBefore = await auditCount(t.emp.id);
      const res = await api(path, { method, token: t.token, body });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors.employment).toBe(message);
      expect((await db().select({ id: users.id }).from(users)).length).toBe(usersBefore);
      expect(await salaries(t.emp.id)).toEqual([[t.loc.id, 20]]);
      expect(await userRow(t.emp.id)).toMatchObject({ version: 1 });
      if (kind === "update") expect(await auditCount(t.emp.id)).toBe(auditBefore);
    });
  }

  it("one entry per location is still saved", async () => {
    const t = await target();
    const res = await api(`/v2/employees/${t.emp.id}`, { method: "PATCH", token: t.token, body: { employment: [{ location_id: t.loc.id, salary: 99 }] } });
    expect(res.status).toBe(200);
    expect(await salaries(t.emp.id)).toEqual([[t.loc.id, 99]]);
  });

  it(`more than ${MAX_EMPLOYEE_LOCATIONS} locations are refused before any is looked up`, async () => {
    const t = await target();
    const locations = Array.from({ length: MAX_EMPLOYEE_LOCATIONS + 1 }, (_, i) => i + 1);
    const res = await api(`/v2/employees/${t.emp.id}`, { method: "PATCH", token: t.token, body: { locations } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.locations).toBe(`Choose at most ${MAX_EMPLOYEE_LOCATIONS} locations.`);
    expect(await salaries(t.emp.id)).toEqual([[t.loc.id, 20]]);
  });

  it("the form: one location's fields sent twice (emp_7_… and emp_07_…) are refused with the message, nothing created", async () => {
    const { loc, role, me } = await setup();
    const cookie = await signInCookie(me);
    const before = (await db().select({ id: users.id }).from(users)).length;
    const body = new URLSearchParams({ intent: "save", name: "Emp", surname: "Twice", email: `emp-twice-${uniq()}@staff.test`, status: "active", roles: String(role.id), password: "form passphrase 1", password_confirmation: "form passphrase 1" });
    body.append("locations", String(loc.id));
    body.append("locations", `0${loc.id}`);
    body.append(`emp_${loc.id}_salary`, "10");
    body.append(`emp_0${loc.id}_salary`, "99");
    const res = await request("/doctors/add", { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain(REPEATED);
    expect((await db().select({ id: users.id }).from(users)).length).toBe(before);
  });
});

describe("employment compliance dates in the shape the API answers with (probe 8914 #3)", () => {
  async function target() {
    const { loc, role, token } = await setup();
    const emp = await employeeIn(loc.id, role.id);
    await db().update(userLocations).set({ compliance: JSON.stringify({ cpr_every_2_years: "2026-12-20", bacb_license_expiration: "2027-01-18" }) }).where(eq(userLocations.userId, emp.id));
    return { loc, token, emp };
  }
  const stored = async (id: number) => JSON.parse((await db().select({ c: userLocations.compliance }).from(userLocations).where(eq(userLocations.userId, id)))[0]!.c ?? "{}") as Record<string, string | null>;
  type Answer = { data: { locations: { id: number; salary: number | null; compliance: Record<string, string | null> }[]; version: number } };

  it("sending back what GET answered keeps every date; a date under compliance is saved", async () => {
    const { token, emp } = await target();
    const got = (await (await api(`/v2/employees/${emp.id}`, { token })).json()) as Answer;
    const employment = got.data.locations.map((l) => ({ location_id: l.id, salary: l.salary, compliance: l.compliance }));
    // What GET answered, sent back, changes nothing: kept as stored, no write (decision 017, stop 44).
    const res = await api(`/v2/employees/${emp.id}`, { method: "PATCH", token, body: { employment, version: got.data.version } });
    expect(res.status, await res.clone().text()).toBe(422);
    expect(((await res.json()) as { message: string }).message).toBe("Nothing to change: send at least one field to update.");
    expect(await stored(emp.id)).toMatchObject({ cpr_every_2_years: "2026-12-20", bacb_license_expiration: "2027-01-18" });
    const moved = employment.map((e) => ({ ...e, compliance: { ...e.compliance, cpr_every_2_years: "2028-12-20" } }));
    const again = await api(`/v2/employees/${emp.id}`, { method: "PATCH", token, body: { employment: moved, version: got.data.version } });
    expect(again.status, await again.clone().text()).toBe(200);
    expect(await stored(emp.id)).toMatchObject({ cpr_every_2_years: "2028-12-20", bacb_license_expiration: "2027-01-18" });
  });

  it.each([
    ["an unknown date under compliance", { compliance: { cpr_every_2_yeras: "2028-01-01" } }, /Compliance has no date named \\"cpr_every_2_yeras/],
    ["a date given flat and under compliance, differently", { cpr_every_2_years: "2028-01-01", compliance: { cpr_every_2_years: "2029-01-01" } }, /Give the cpr_every_2_years date once/],
    ["compliance as a list", { compliance: ["2028-01-01"] }, /must be an object of dates/],
  ])("%s: 422, nothing changed", async (_l, extra, message) => {
    const { loc, token, emp } = await target();
    const before = await stored(emp.id);
    const res = await api(`/v2/employees/${emp.id}`, { method: "PATCH", token, body: { employment: [{ location_id: loc.id, ...extra }] } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(await res.json())).toMatch(message);
    expect(await stored(emp.id)).toEqual(before);
  });
});

describe("a PATCH that drops a location (probe 8931 §10)", () => {
  const rows = async (id: number) => (await db().select({ locationId: userLocations.locationId, salary: userLocations.salary, compliance: userLocations.compliance }).from(userLocations).where(eq(userLocations.userId, id))).sort((a, b) => a.locationId - b.locationId);

  it.each([
    ["locations only", (keep: number) => ({ locations: [keep] })],
    ["locations and the primary location", (keep: number) => ({ locations: [keep], location_id: keep })],
  ])("%s: 200, the removed location's employment goes, the kept one's stays byte for byte", async (_what, body) => {
    const { loc, role, me, token } = await setup();
    const second = await createLocation();
    await db().insert(userLocations).values({ userId: me.id, locationId: second.id });
    const emp = await employeeIn(loc.id, role.id);
    await db().insert(userLocations).values({ userId: emp.id, locationId: second.id });
    // Both locations' employment as the app stores it.
    const employment = [
      { location_id: loc.id, salary: 31, driver_license_expiration: "2027-01-21", cpr_every_2_years: "2026-12-20" },
      { location_id: second.id, salary: 18, driver_license_expiration: "2028-03-03" },
    ];
    expect((await api(`/v2/employees/${emp.id}`, { method: "PATCH", token, body: { employment } })).status).toBe(200);
    const kept = (await rows(emp.id)).find((r) => r.locationId === loc.id)!;
    expect(JSON.parse(kept.compliance!)).toMatchObject({ driver_license_expiration: "2027-01-21", cpr_every_2_years: "2026-12-20" });
    const res = await api(`/v2/employees/${emp.id}`, { method: "PATCH", token, body: body(loc.id) });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await rows(emp.id)).toEqual([kept]);
  });
});

describe("an employee always keeps a location; removing one needs all of theirs (decision 015, stop 31)", () => {
  const memberships = async (id: number) => (await db().select({ id: userLocations.locationId }).from(userLocations).where(eq(userLocations.userId, id))).map((r) => r.id).sort((a, b) => a - b);

  /** An employee of two locations, and a manager of both (or of `managed` only), signed in. */
  async function scene(managed?: "first") {
    const a = await createLocation();
    const b = await createLocation();
    const role = await createRole(`RBT_${uniq()}`, []);
    const emp = await employeeIn(a.id, role.id);
    await db().insert(userLocations).values({ userId: emp.id, locationId: b.id });
    const me = await createUser({ permissions: [...MANAGE], locations: managed === "first" ? [a.id] : [a.id, b.id] });
    return { a, b, role, emp, token: await apiToken(me), cookie: await signInCookie(me) };
  }

  const calls = [
    ["PATCH /v2/employees/{id}", "PATCH", (id: number) => `/v2/employees/${id}`],
    ["POST /v2/users/editUser/{id}", "POST", (id: number) => `/v2/users/editUser/${id}`],
  ] as const;

  describe.each(calls)("%s", (_call, method, path) => {
    it.each([
      ["no locations", { locations: [] }],
      ["locations null", { locations: null }],
      ["no locations, no employment", { locations: [], employment: [] }],
      ["locations an empty string", { locations: "" }],
      ["locations a string of commas", { locations: " , " }],
    ])("%s: 422 on locations only (no error on the employment the call did not send), nothing written", async (_what, body) => {
      const { a, b, emp, token } = await scene();
      const before = await userRow(emp.id);
      const res = await api(path(emp.id), { method, token, body });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ locations: "Choose at least one location." });
      expect(await memberships(emp.id)).toEqual([a.id, b.id].sort((x, y) => x - y));
      expect((await userRow(emp.id)).version).toBe(before.version);
    });

    it("locations as a comma-separated string that drops one: 200, as the same list would (the dropped location's employment goes with it)", async () => {
      const { a, emp, token } = await scene();
      const res = await api(path(emp.id), { method, token, body: { locations: ` ${a.id} `, location_id: a.id } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await memberships(emp.id)).toEqual([a.id]);
    });

    it('"employment": [] alone clears the employment details only: every location stays', async () => {
      const { a, b, emp, token } = await scene();
      // A detail to clear: with none, the call would change nothing (decision 017, stop 44).
      await db().update(userLocations).set({ salary: 20 }).where(eq(userLocations.userId, emp.id));
      const res = await api(path(emp.id), { method, token, body: { employment: [] } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await memberships(emp.id)).toEqual([a.id, b.id].sort((x, y) => x - y));
    });
  });

  it("the edit screen with no location chosen: 422 with the message, nothing written", async () => {
    const { a, b, role, emp, cookie } = await scene();
    const body = new URLSearchParams({ intent: "save", version: "1", name: "Emp", surname: "User", email: emp.email, status: "active", roles: String(role.id) });
    const res = await request(`/doctors/list/edit/${emp.id}`, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("Choose at least one location.");
    expect(await memberships(emp.id)).toEqual([a.id, b.id].sort((x, y) => x - y));
  });

  it("removing a location: 200 for a manager of both; 403 and nothing written when the employee also works where the actor does not", async () => {
    const both = await scene();
    const removed = await api(`/v2/employees/${both.emp.id}`, { method: "PATCH", token: both.token, body: { locations: [both.a.id], location_id: both.a.id } });
    expect(removed.status, await removed.clone().text()).toBe(200);
    expect(await memberships(both.emp.id)).toEqual([both.a.id]);

    // A third location the manager of a and b does not cover: dropping b is a change of locations they may not make.
    const wider = await scene();
    const c = await createLocation();
    await db().insert(userLocations).values({ userId: wider.emp.id, locationId: c.id });
    const before = await userRow(wider.emp.id);
    const refused = await api(`/v2/employees/${wider.emp.id}`, { method: "PATCH", token: wider.token, body: { locations: [wider.a.id], location_id: wider.a.id } });
    expect(refused.status).toBe(403);
    expect(await memberships(wider.emp.id)).toEqual([wider.a.id, wider.b.id, c.id].sort((x, y) => x - y));
    expect((await userRow(wider.emp.id)).version).toBe(before.version);
  });

  it("a manager of one of the two locations who sends only theirs keeps the other (it is not theirs to remove)", async () => {
    const { a, b, emp, token } = await scene("first");
    const res = await api(`/v2/employees/${emp.id}`, { method: "PATCH", token, body: { locations: [a.id], phone: "305-555-0199" } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await memberships(emp.id)).toEqual([a.id, b.id].sort((x, y) => x - y));
  });
});

describe("an employee read sent back (probe 8943 D1, decision 017 stop 31 later)", () => {
  type Read = { data: Record<string, unknown> & { version: number; roles: { id: number }[]; locations: ({ id: number } & Record<string, unknown>)[] } };
  const DATES_A = { driver_license_expiration: "2027-12-29", bacb_license_expiration: "2027-01-05", cpr_every_2_years: "2026-12-13" };
  const DATES_B = { wc: "2027-04-30" };
  const rows = async (id: number) =>
    (await db().select({ locationId: userLocations.locationId, positionId: userLocations.positionId, salary: userLocations.salary, compliance: userLocations.compliance }).from(userLocations).where(eq(userLocations.userId, id)))
      .sort((a, b) => a.locationId - b.locationId)
      .map((r) => ({ ...r, compliance: Object.fromEntries(Object.entries(JSON.parse(r.compliance ?? "{}") as Record<string, unknown>).filter(([, d]) => d !== null)) }));
  const roleIds = async (id: number) => (await db().select({ id: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, id))).map((r) => r.id).sort((a, b) => a - b);

  /** An employee of two locations with a position, pay and compliance dates at each; a manager of both. */
  async function scene() {
    const a = await createLocation();
    const b = await createLocation();
    const role = await createRole(`BCBA_${uniq()}`, []);
    const emp = await employeeIn(a.id, role.id);
    await db().update(users).set({ profile: JSON.stringify({ npi: "1112223338", ss_number: "123456789" }) }).where(eq(users.id, emp.id));
    await db().update(userLocations).set({ positionId: 2, salary: 31, compliance: JSON.stringify(DATES_A) }).where(eq(userLocations.userId, emp.id));
    await db().insert(userLocations).values({ userId: emp.id, locationId: b.id, positionId: 3, salary: 18, compliance: JSON.stringify(DATES_B) });
    const me = await createUser({ permissions: [...MANAGE], locations: [a.id, b.id] });
    const expected = [
      { locationId: a.id, positionId: 2, salary: 31, compliance: DATES_A },
      { locationId: b.id, positionId: 3, salary: 18, compliance: DATES_B },
    ].sort((x, y) => x.locationId - y.locationId);
    return { a, b, role, emp, token: await apiToken(me), expected };
  }

  const calls = [
    ["PUT /v2/employees/{id}", "PUT", (id: number) => `/v2/employees/${id}`, (id: number) => `/v2/employees/${id}`],
    ["PATCH /v2/employees/{id}", "PATCH", (id: number) => `/v2/employees/${id}`, (id: number) => `/v2/employees/${id}`],
    ["v1 POST /doctors/update/{id}", "POST", (id: number) => `/doctors/update/${id}`, (id: number) => `/doctors/show/${id}`],
  ] as const;

  describe.each(calls)("%s", (_call, method, path, readPath) => {
    async function read(id: number, token: string) {
      const res = await api(readPath(id), { token });
      expect(res.status).toBe(200);
      return ((await res.json()) as Read).data;
    }

    it("the whole read with the phone changed: 200, the phone changed; roles, locations, positions, pay and every compliance date as they were", async () => {
      const { role, emp, token, expected } = await scene();
      const heldRoles = await roleIds(emp.id);
      const got = await read(emp.id, token);
      expect(got.roles).toContainEqual(expect.objectContaining({ id: role.id, name: expect.any(String) }));
      expect(got.locations[0]).toHaveProperty("compliance");
      const res = await api(path(emp.id), { method, token, body: { ...got, phone: "305-555-0177" } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await userRow(emp.id)).phone).toBe("305-555-0177");
      expect(await roleIds(emp.id)).toEqual(heldRoles);
      expect(await rows(emp.id)).toEqual(expected);
    });

    it("a date changed in the read's location: that date changes, the rest stay", async () => {
      const { a, emp, token, expected } = await scene();
      const got = await read(emp.id, token);
      const locations = got.locations.map((l) => (l.id === a.id ? { ...l, compliance: { ...(l.compliance as object), cpr_every_2_years: "2028-12-13" } } : l));
      const res = await api(path(emp.id), { method, token, body: { ...got, locations } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await rows(emp.id)).toEqual(expected.map((r) => (r.locationId === a.id ? { ...r, compliance: { ...DATES_A, cpr_every_2_years: "2028-12-13" } } : r)));
    });

    it("roles and locations as ids, no employment: 200, every location's details kept", async () => {
      const { a, b, role, emp, token, expected } = await scene();
      const got = await read(emp.id, token);
      const res = await api(path(emp.id), { method, token, body: { ...got, roles: [role.id], locations: [a.id, b.id], city: "Hialeah" } });
      expect(res.status, await res.clone().text()).toBe(200);
      expect((await userRow(emp.id)).city).toBe("Hialeah");
      expect(await rows(emp.id)).toEqual(expected);
    });

    it("an explicit employment changes the details: the one sent is saved, a location it leaves out has none", async () => {
      const { a, b, role, emp, token } = await scene();
      const got = await read(emp.id, token);
      const body = { ...got, roles: [role.id], locations: [a.id, b.id], employment: [{ location_id: a.id, salary: 40, cpr_every_2_years: "2029-01-01" }] };
      const res = await api(path(emp.id), { method, token, body });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await rows(emp.id)).toEqual(
        [
          { locationId: a.id, positionId: null, salary: 40, compliance: { cpr_every_2_years: "2029-01-01" } },
          { locationId: b.id, positionId: null, salary: null, compliance: {} },
        ].sort((x, y) => x.locationId - y.locationId),
      );
    });

    it.each([
      ["roles as objects without an id", { roles: [{ name: "BCBA" }] }, "roles", "Roles must be role ids (a list of numbers), or the roles as the API answers them."],
      ["roles as one object", { roles: { id: 6 } }, "roles", "Roles must be role ids (a list of numbers), or the roles as the API answers them."],
      ["locations as objects without an id", { locations: [{ title: "Clinic" }] }, "locations", "Locations must be location ids (a list of numbers), or the locations as the API answers them."],
      ["locations as true", { locations: true }, "locations", "Locations must be location ids (a list of numbers), or the locations as the API answers them."],
    ])("%s: 422 with what is expected, nothing written", async (_what, over, field, message) => {
      const { emp, token, expected } = await scene();
      const got = await read(emp.id, token);
      const res = await api(path(emp.id), { method, token, body: { ...got, ...over } });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors[field]).toBe(message);
      expect((await userRow(emp.id)).version).toBe(got.version);
      expect(await rows(emp.id)).toEqual(expected);
    });
  });

  it("create takes roles and locations as the API answers them, with each location's details as its employment", async () => {
    const { loc, role, token } = await setup();
    const { employment: _e, ...body } = validBody(loc.id, role.id);
    const res = await api("/v2/employees", { method: "POST", token, body: { ...body, roles: [{ id: role.id, name: "RBT" }], locations: [{ id: loc.id, title: "Clinic", salary: 22, compliance: { wc: "2027-02-02" } }] } });
    expect(res.status, await res.clone().text()).toBe(201);
    const id = ((await res.json()) as { data: { id: number } }).data.id;
    expect(await roleIds(id)).toEqual([role.id]);
    expect(await rows(id)).toEqual([{ locationId: loc.id, positionId: null, salary: 22, compliance: { wc: "2027-02-02" } }]);
  });
});

describe("a deleted employee's email is free again (probe 8962 item 3)", () => {
  it("re-adding someone under their old address works; the new account signs in and gets the reset code; a live address stays taken", async () => {
    const { loc, role, token } = await setup();
    const body = validBody(loc.id, role.id);
    const first = (await (await api("/v2/users/createUser", { method: "POST", token, body })).json()) as { data: { id: number } };
    expect((await api(`/v2/employees/${first.data.id}`, { method: "DELETE", token })).status).toBe(200);

    const again = await api("/v2/users/createUser", { method: "POST", token, body: { ...body, email: body.email.toUpperCase(), password: "another passphrase", password_confirmation: "another passphrase" } });
    expect(again.status, await again.clone().text()).toBe(201);
    const second = ((await again.json()) as { data: { id: number; email: string } }).data;
    expect(second.email).toBe(body.email);
    expect(second.id).not.toBe(first.data.id);

    const me = await api("/auth/me", { method: "POST", token: await apiToken({ id: second.id, email: body.email, password: "another passphrase" }) });
    expect(((await me.json()) as { id: number }).id).toBe(second.id);
    await expect(apiToken({ id: first.data.id, email: body.email, password: "a strong passphrase" })).rejects.toThrow();
    expect((await api("/password-reset/request", { method: "POST", body: { email: body.email } })).status).toBe(200);
    const [challenge] = await db().select().from(twoFactorChallenges).where(eq(twoFactorChallenges.context, "password_reset")).orderBy(desc(twoFactorChallenges.createdAt)).limit(1);
    expect(challenge).toMatchObject({ principalType: "user", principalId: second.id });

    // Still one live account per address: the same email again, or another employee edited to it, is refused.
    const dup = await api("/v2/users/createUser", { method: "POST", token, body });
    expect(((await dup.json()) as { errors: Record<string, string> }).errors.email).toBe("An employee with this email already exists.");
    const other = (await (await api("/v2/users/createUser", { method: "POST", token, body: validBody(loc.id, role.id) })).json()) as { data: { id: number } };
    const edit = await api(`/v2/employees/${other.data.id}`, { method: "PATCH", token, body: { email: body.email } });
    expect(edit.status).toBe(422);
    expect(((await edit.json()) as { errors: Record<string, string> }).errors.email).toBe("An employee with this email already exists.");
  });

  it("the add screen takes a deleted employee's address too", async () => {
    const { loc, role, me, token } = await setup();
    const body = validBody(loc.id, role.id);
    const first = (await (await api("/v2/users/createUser", { method: "POST", token, body })).json()) as { data: { id: number } };
    expect((await api(`/v2/employees/${first.data.id}`, { method: "DELETE", token })).status).toBe(200);
    const fields = new URLSearchParams({ intent: "save", name: "Re", surname: "Used", email: body.email, status: "active", roles: String(role.id), locations: String(loc.id), password: "a strong passphrase", password_confirmation: "a strong passphrase" });
    const res = await request("/doctors/add", { method: "POST", body: fields, cookie: await signInCookie(me), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(303);
    expect((await db().select({ id: users.id }).from(users).where(and(eq(users.email, body.email), isNull(users.deletedAt)))).length).toBe(1);
  });
});
