import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { locations, roles, userLocations, userRoles, users } from "~/db/schema";
import { hashPassword } from "~/services/passwords.server";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { DEMO_PASSWORD, ROLE_PERMISSIONS } from "../../scripts/demo-data";
import { api, apiToken, codeIn, cookiesFrom, createLocation, createParent, createUser, db, form, lastEmail, request, setCookiesBesidesBookmark, signInCookie, type TestUser, withoutFlashTag } from "./helpers";

/**
 * Who may change whom (issue 9 items 1, 2, 3, 15; decision 015), with the demo users of scripts/demo-data.ts:
 * Miami 1, Denver 2, Los Angeles 3; manager@ (3) works in Miami and Denver, lm@ (5) in Denver, doctor@ (4)
 * in Miami, bcba@ (6) in Miami AND Los Angeles, bcaba@ (7) only in Los Angeles, rbt@ (8) in Miami.
 * Role ids: SUPERADMIN 1, ADMIN 2, MANAGER 3, DOCTOR 4, LM 5, BCBA 6, BCaBA 7, RBT 8.
 */

const ROLE = { SUPERADMIN: 1, ADMIN: 2, MANAGER: 3, LM: 5, BCBA: 6, RBT: 8 } as const;
const demo = (id: number, email: string): TestUser => ({ id, email, password: DEMO_PASSWORD });
const SUPERADMIN = demo(1, "superadmin@demo.test");
const ADMIN = demo(2, "admin@demo.test");
const MANAGER = demo(3, "manager@demo.test");
const DOCTOR = demo(4, "doctor@demo.test");
const LM = demo(5, "lm@demo.test");
const BCBA = demo(6, "bcba@demo.test");
const LOCKOUT_RBT = demo(10, "twofactor-lockout@demo.test");

let n = 0;
const uniq = () => `${Date.now().toString(36)}${++n}`;

/** The demo locations, roles and staff of scripts/demo-data.ts, row by row (D1 binds at most 100 values per statement). */
const DEMO_ROLES = ["SUPERADMIN", "ADMIN", "MANAGER", "DOCTOR", "LM", "BCBA", "BCaBA", "RBT"];
const DEMO_STAFF: [number, string, string, string, number[]][] = [
  [1, "superadmin@demo.test", "Alvarez", "SUPERADMIN", [1, 2, 3]],
  [2, "admin@demo.test", "Reed", "ADMIN", [1, 2, 3]],
  [3, "manager@demo.test", "Natarajan", "MANAGER", [1, 2]],
  [4, "doctor@demo.test", "Okafor", "DOCTOR", [1]],
  [5, "lm@demo.test", "Kowalski", "LM", [2]],
  [6, "bcba@demo.test", "Moreno", "BCBA", [1, 3]],
  [7, "bcaba@demo.test", "Brooks", "BCaBA", [3]],
  [8, "rbt@demo.test", "Carter", "RBT", [1]],
  [9, "twofactor@demo.test", "Fischer", "BCBA", [2]],
  [10, "twofactor-lockout@demo.test", "Lindqvist", "RBT", [2]],
];

beforeAll(async () => {
  const d = db();
  for (const [id, title] of [[1, "Miami Clinic"], [2, "Denver Clinic"], [3, "Los Angeles Clinic"]] as const) await d.insert(locations).values({ id, title, timeZone: "America/New_York" });
  for (const [i, name] of DEMO_ROLES.entries()) await d.insert(roles).values({ id: i + 1, name, permissions: JSON.stringify(ROLE_PERMISSIONS[name]) });
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  for (const [id, email, surname, role, at] of DEMO_STAFF) {
    await d.insert(users).values({ id, email, name: "Demo", surname, passwordHash, locationId: at[0]! });
    await d.insert(userRoles).values({ userId: id, roleId: DEMO_ROLES.indexOf(role) + 1 });
    for (const locationId of at) await d.insert(userLocations).values({ userId: id, locationId });
  }
});

async function userRow(id: number) {
  const [r] = await db().select().from(users).where(eq(users.id, id));
  return r!;
}
const roleIdsOf = async (id: number) => (await db().select().from(userRoles).where(eq(userRoles.userId, id))).map((r) => r.roleId).sort((a, b) => a - b);
const locationIdsOf = async (id: number) => (await db().select().from(userLocations).where(eq(userLocations.userId, id))).map((r) => r.locationId).sort((a, b) => a - b);

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

async function errorsOf(res: Response) {
  return ((await res.json()) as { errors?: Record<string, string>; message: string }) ?? {};
}

async function permissionsAfterRefresh(token: string) {
  const res = await api("/auth/refresh", { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { user: { permissions: string[] } }).user.permissions;
}

describe("item 1: nobody grants or creates above their own rank, nobody changes their own roles", () => {
  it("a location manager cannot give itself MANAGER through editUser: 422, roles unchanged, the next token holds no more", async () => {
    const token = await apiToken(LM);
    const res = await api(`/v2/users/editUser/${LM.id}`, { method: "POST", token, body: { roles: [ROLE.MANAGER] } });
    expect(res.status).toBe(422);
    expect((await errorsOf(res)).errors?.roles).toBe("You cannot change your own roles.");
    const both = await api(`/v2/users/editUser/${LM.id}`, { method: "POST", token, body: { roles: [ROLE.LM, ROLE.MANAGER] } });
    expect(both.status).toBe(422);
    expect(await roleIdsOf(LM.id)).toEqual([ROLE.LM]);
    const permissions = await permissionsAfterRefresh(token);
    for (const p of ["manage_bips", "manage_insurances", "manage_claims", "manage_tickets"]) expect(permissions).not.toContain(p);
  });

  it("nor through the edit screen (JavaScript off): 422 with the message, roles unchanged", async () => {
    const cookie = await signInCookie(LM);
    expect(await (await request(`/doctors/list/edit/${LM.id}`, { cookie })).text()).toContain("You cannot change your own roles: another administrator must do it.");
    const me = await userRow(LM.id);
    const res = await post(
      `/doctors/list/edit/${LM.id}`,
      { intent: "save", name: me.name, surname: me.surname, email: me.email, status: "active", roles: [String(ROLE.LM), String(ROLE.MANAGER)], locations: ["2"], version: String(me.version) },
      cookie,
    );
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("You cannot change your own roles.");
    expect(await roleIdsOf(LM.id)).toEqual([ROLE.LM]);
  });

  it("a location manager cannot give MANAGER to someone else, nor create a MANAGER; a role within its own permissions is fine", async () => {
    const token = await apiToken(LM);
    const config = (await (await api("/doctors/config", { token })).json()) as { data: { roles: { name: string }[] } };
    const offered = config.data.roles.map((r) => r.name);
    expect(offered).toEqual(expect.arrayContaining(["LM", "RBT"]));
    for (const above of ["SUPERADMIN", "ADMIN", "MANAGER", "DOCTOR", "BCBA"]) expect(offered).not.toContain(above);

    const give = await api(`/v2/users/editUser/${LOCKOUT_RBT.id}`, { method: "POST", token, body: { roles: [ROLE.MANAGER] } });
    expect(give.status).toBe(422);
    expect((await errorsOf(give)).errors?.roles).toBe("You cannot give a role that holds permissions you do not hold: MANAGER.");
    expect(await roleIdsOf(LOCKOUT_RBT.id)).toEqual([ROLE.RBT]);

    const body = (roles: number[]) => ({ name: "New", surname: "Hire", email: `hire-${uniq()}@staff.test`, roles, locations: [2], password: "a strong passphrase", password_confirmation: "a strong passphrase" });
    const before = (await db().select({ id: users.id }).from(users)).length;
    const create = await api("/v2/users/createUser", { method: "POST", token, body: body([ROLE.MANAGER]) });
    expect(create.status).toBe(422);
    expect((await errorsOf(create)).errors?.roles).toBe("You cannot give a role that holds permissions you do not hold: MANAGER.");
    expect((await db().select({ id: users.id }).from(users)).length).toBe(before);
    expect((await api("/v2/users/createUser", { method: "POST", token, body: body([ROLE.RBT]) })).status).toBe(201);
  });

  it("a location manager cannot take over a BCBA of its own location, who holds manage_bips it lacks (403)", async () => {
    const token = await apiToken(LM);
    const res = await api(`/v2/users/9/change-password`, { method: "PATCH", token, body: { new_password: "taken over 123", new_password_confirmation: "taken over 123" } });
    expect(res.status).toBe(403);
  });

  it("an ADMIN cannot give SUPERADMIN (nor change a SUPERADMIN's account); a SUPERADMIN can give it", async () => {
    const admin = await apiToken(ADMIN);
    const target = await createUser({ permissions: [], locations: [1] });
    const give = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token: admin, body: { roles: [ROLE.SUPERADMIN] } });
    expect(give.status).toBe(422);
    expect(await roleIdsOf(target.id)).not.toContain(ROLE.SUPERADMIN);
    expect((await api(`/v2/users/${SUPERADMIN.id}/change-password`, { method: "PATCH", token: admin, body: { new_password: "taken over 123", new_password_confirmation: "taken over 123" } })).status).toBe(403);
    expect((await api(`/v2/users/editUser/${ADMIN.id}`, { method: "POST", token: admin, body: { roles: [ROLE.SUPERADMIN] } })).status).toBe(422);
    const superadmin = await apiToken(SUPERADMIN);
    const ok = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token: superadmin, body: { roles: [ROLE.SUPERADMIN] } });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await roleIdsOf(target.id)).toEqual([ROLE.SUPERADMIN]);
  });

  it("a role manager cannot put a permission it lacks into a role, nor change a role that holds more than it (API and screen)", async () => {
    const me = await createUser({ permissions: ["manage_roles", "view_clients", "view_notes"] });
    const token = await apiToken(me);
    const created = await api("/v2/roles", { method: "POST", token, body: { name: `Climb ${uniq()}`, permissions: ["view_clients", "manage_claims"] } });
    expect(created.status).toBe(422);
    expect((await errorsOf(created)).errors?.permissions).toBe("You cannot give a role permissions you do not hold: manage_claims.");
    const mine = (await (await api("/v2/roles", { method: "POST", token, body: { name: `Mine ${uniq()}`, permissions: ["view_notes"] } })).json()) as { data: { id: number } };
    const add = await api(`/v2/roles/${mine.data.id}`, { method: "PATCH", token, body: { permissions: ["view_notes", "access_all_locations"] } });
    expect(add.status).toBe(422);
    expect((await api(`/v2/roles/${mine.data.id}`, { method: "PATCH", token, body: { permissions: ["view_notes", "view_clients"] } })).status).toBe(200);
    const manager = await api(`/v2/roles/${ROLE.MANAGER}`, { method: "PATCH", token, body: { permissions: [] } });
    expect(manager.status).toBe(403);
    const cookie = await signInCookie(me);
    const screen = await post("/roles/register", { name: `Screen ${uniq()}`, permissions: ["view_clients", "manage_bips"] }, cookie);
    expect(screen.status).toBe(422);
    expect(await screen.text()).toContain("You cannot give a role permissions you do not hold: manage_bips.");
  });
});

describe("item 2: changing who someone is needs every one of their locations", () => {
  const password = { new_password: "taken over 123", new_password_confirmation: "taken over 123" };
  it.each([
    ["set the password of", "PATCH", `/v2/users/${BCBA.id}/change-password`, password],
    ["reset two-factor of", "POST", `/v2/users/${BCBA.id}/reset-two-factor`, undefined],
    ["change the email of", "POST", `/v2/users/editUser/${BCBA.id}`, { email: "mine-now@evil.test" }],
    ["change the roles of", "POST", `/v2/users/editUser/${BCBA.id}`, { roles: [ROLE.RBT] }],
    ["add a location to", "POST", `/v2/users/editUser/${BCBA.id}`, { locations: [1, 2] }],
    ["move from Miami to Denver", "POST", `/v2/users/editUser/${BCBA.id}`, { locations: [2], location_id: 2, employment: [] }],
    ["deactivate", "PUT", `/doctors/update/status/${BCBA.id}`, { status: "inactive" }],
    ["delete", "DELETE", `/doctors/destroy/${BCBA.id}`, undefined],
  ] as const)("manager@ (Miami, Denver) cannot %s an employee of Miami AND Los Angeles", async (_label, method, path, body) => {
    const token = await apiToken(MANAGER);
    const before = await userRow(BCBA.id);
    const res = await api(path, { method, token, body });
    expect(res.status, await res.clone().text()).toBe(403);
    const after = await userRow(BCBA.id);
    expect(after).toMatchObject({ email: before.email, passwordHash: before.passwordHash, status: "active", deletedAt: null, accessGeneration: before.accessGeneration });
    expect(await roleIdsOf(BCBA.id)).toEqual([ROLE.BCBA]);
    expect(await locationIdsOf(BCBA.id)).toEqual([1, 3]);
    expect(await apiToken(BCBA)).toBeTruthy();
  });

  it("the same manager may still edit that employee's contact details; an employee only in Los Angeles is 404", async () => {
    const token = await apiToken(MANAGER);
    const res = await api(`/v2/users/editUser/${BCBA.id}`, { method: "POST", token, body: { city: "Coral Gables" } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await userRow(BCBA.id)).city).toBe("Coral Gables");
    expect(await locationIdsOf(BCBA.id)).toEqual([1, 3]);
    expect((await api(`/v2/users/7/change-password`, { method: "PATCH", token, body: password })).status).toBe(404);
  });

  it("for an employee of Miami only, the manager may set the password; a location it does not cover cannot be added", async () => {
    const token = await apiToken(MANAGER);
    const target = await createUser({ permissions: ["view_clients"], locations: [1] });
    expect((await api(`/v2/users/${target.id}/change-password`, { method: "PATCH", token, body: password })).status).toBe(200);
    const la = await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body: { locations: [1, 3] } });
    expect(la.status).toBe(422);
    expect(await locationIdsOf(target.id)).toEqual([1]);
    expect((await api(`/v2/users/editUser/${target.id}`, { method: "POST", token, body: { locations: [1, 2] } })).status).toBe(200);
    expect(await locationIdsOf(target.id)).toEqual([1, 2]);
  });

  it("a membership left at a deleted location does not count: the manager who covers the rest deactivates, sets the password, deletes", async () => {
    const token = await apiToken(MANAGER);
    const closed = await createLocation({ deletedAt: "2026-01-01T00:00:00.000Z" });
    const leftover = async () => {
      const target = await createUser({ permissions: ["view_clients"], locations: [1] });
      await db().insert(userLocations).values({ userId: target.id, locationId: closed.id });
      return target;
    };
    const a = await leftover();
    const status = await api(`/doctors/update/status/${a.id}`, { method: "PUT", token, body: { status: "inactive" } });
    expect(status.status, await status.clone().text()).toBe(200);
    expect((await userRow(a.id)).status).toBe("inactive");
    const b = await leftover();
    expect((await api(`/v2/users/${b.id}/change-password`, { method: "PATCH", token, body: password })).status).toBe(200);
    const page = await (await request(`/doctors/list/edit/${b.id}`, { cookie: await signInCookie(MANAGER) })).text();
    expect(page).not.toContain("also works at a location you do not manage");
    expect(page).toContain("Set a new password");
    expect((await api(`/doctors/destroy/${b.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await userRow(b.id)).deletedAt).not.toBeNull();
  });

  it("the edit screen leaves out the password, two-factor, status and delete forms, and a forced POST is refused", async () => {
    const cookie = await signInCookie(MANAGER);
    const page = await request(`/doctors/list/edit/${BCBA.id}`, { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("also works at a location you do not manage");
    expect(html).not.toContain("Set a new password");
    expect(html).not.toContain("Deactivate employee");
    const before = (await userRow(BCBA.id)).passwordHash;
    const forced = await post(`/doctors/list/edit/${BCBA.id}`, { intent: "password", new_password: "taken over 123", new_password_confirmation: "taken over 123" }, cookie);
    expect(forced.status).toBe(403);
    expect((await userRow(BCBA.id)).passwordHash).toBe(before);
  });
});

describe("item 3: every change of who someone is ends all their screen sessions and API tokens", () => {
  type Change = (target: TestUser, ctx: { admin: string; token: string; cookie: string }) => Promise<Response>;
  const changes: [string, Change][] = [
    ["a password set by an administrator", (t, c) => api(`/v2/users/${t.id}/change-password`, { method: "PATCH", token: c.admin, body: { new_password: "a new passphrase", new_password_confirmation: "a new passphrase" } })],
    [
      // Of someone who has it on: a reset of two-factor already off changes nothing and ends nothing (decision 016, stop 31).
      "a two-factor reset",
      async (t, c) => {
        await db().update(users).set({ twoFactorEnabled: true }).where(eq(users.id, t.id));
        return api(`/v2/users/${t.id}/reset-two-factor`, { method: "POST", token: c.admin });
      },
    ],
    ["an email change", (t, c) => api(`/v2/users/editUser/${t.id}`, { method: "POST", token: c.admin, body: { email: `moved-${uniq()}@staff.test` } })],
    ["a role change", (t, c) => api(`/v2/users/editUser/${t.id}`, { method: "POST", token: c.admin, body: { roles: [ROLE.RBT] } })],
    ["a location change", (t, c) => api(`/v2/users/editUser/${t.id}`, { method: "POST", token: c.admin, body: { locations: [1, 2] } })],
    [
      "a deactivation (and reactivation)",
      async (t, c) => {
        const off = await api(`/doctors/update/status/${t.id}`, { method: "PUT", token: c.admin, body: { status: "inactive" } });
        expect(off.status).toBe(200);
        return api(`/doctors/update/status/${t.id}`, { method: "PUT", token: c.admin, body: { status: "active" } });
      },
    ],
    [
      "their own password change on the screen",
      async (t) => {
        const other = await signInCookie(t);
        return post("/change-password", { current_password: t.password, password: "a new passphrase", password_confirmation: "a new passphrase" }, other);
      },
    ],
    [
      "a password reset",
      async (t) => {
        const asked = await api("/password-reset/request", { method: "POST", body: { email: t.email } });
        expect(asked.status).toBe(200);
        const { challenge_id } = (await asked.json()) as { challenge_id: string };
        const code = codeIn((await lastEmail(t.email))!.text);
        const verified = (await (await api("/password-reset/verify", { method: "POST", body: { email: t.email, code, challenge_id } })).json()) as { reset_token: string };
        return api("/password-reset/change", { method: "POST", body: { email: t.email, reset_token: verified.reset_token, password: "a new passphrase", password_confirmation: "a new passphrase" } });
      },
    ],
  ];

  it.each(changes)("%s: the old bearer token and its refresh are refused, the screen session is gone", async (_label, change) => {
    const admin = await apiToken(ADMIN);
    const target = await createUser({ permissions: ["manage_employees"], locations: [1] });
    const token = await apiToken(target);
    const cookie = await signInCookie(target);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(200);
    const res = await change(target, { admin, token, cookie });
    expect(res.status, await res.clone().text()).toBeLessThan(400);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(401);
    expect((await api("/doctors", { token })).status).toBe(401);
    expect((await api("/auth/refresh", { token })).status).toBe(401);
    const page = await request("/change-password", { cookie });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toMatch(/^\/login/);
  });

  it("a change that leaves identity alone (the city) keeps the token working", async () => {
    const admin = await apiToken(ADMIN);
    const target = await createUser({ permissions: [], locations: [1] });
    const token = await apiToken(target);
    expect((await api(`/v2/users/editUser/${target.id}`, { method: "POST", token: admin, body: { city: "Hialeah" } })).status).toBe(200);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(200);
  });

  it("a token issued after the change works (the new password signs in)", async () => {
    const admin = await apiToken(ADMIN);
    const target = await createUser({ permissions: [], locations: [1] });
    await api(`/v2/users/${target.id}/change-password`, { method: "PATCH", token: admin, body: { new_password: "a new passphrase", new_password_confirmation: "a new passphrase" } });
    const fresh = await apiToken({ ...target, password: "a new passphrase" });
    expect((await api("/auth/me", { method: "POST", token: fresh })).status).toBe(200);
    expect((await api("/auth/refresh", { token: fresh })).status).toBe(200);
  });

  it("staff setting a parent's password end the parent's API tokens and screen sessions", async () => {
    const parent = await createParent({ locationId: 1 });
    const token = await apiToken(parent, true);
    const cookie = await signInCookie(parent, true);
    const staff = await signInCookie(MANAGER);
    const res = await post(`/parents/profile/${parent.id}`, { intent: "password", password: "parent passphrase", password_confirmation: "parent passphrase" }, staff);
    expect(res.status).toBe(303);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(401);
    expect((await api("/auth/refresh", { token })).status).toBe(401);
    const page = await request("/change-password", { cookie });
    expect(page.status).toBe(302);
    expect(page.headers.get("Location")).toMatch(/^\/login/);
  });
});

describe("item 15: pay only with manage_employees; lists stay within the actor's locations", () => {
  beforeAll(async () => {
    await db()
      .update(userLocations)
      .set({ salary: 31.75, telehealthSalary: 27.25, fixedHoursSalary: 1234.5, fixedWeeklyHours: 40 })
      .where(and(eq(userLocations.userId, 8), eq(userLocations.locationId, 1)));
  });

  type Emp = { id: number; locations: { id: number; salary: number | null; telehealth_salary: number | null; fixed_hours_salary: number | null; fixed_weekly_hours: number | null }[] };

  it("view_employees without manage_employees sees no pay (API and profile screen); a manager does", async () => {
    const doctor = await apiToken(DOCTOR);
    const shown = await api("/doctors/show/8", { token: doctor });
    expect(shown.status).toBe(200);
    const text = await shown.text();
    expect((JSON.parse(text) as { data: Emp }).data.locations[0]).toMatchObject({ salary: null, telehealth_salary: null, fixed_hours_salary: null, fixed_weekly_hours: 40 });
    // A pay figure not followed by a digit: timestamps' milliseconds ("…:31.758Z") must not count as pay.
    const shows = (body: string, pay: string) => new RegExp(`${pay.replace(".", "\\.")}(?!\\d)`).test(body);
    for (const pay of ["31.75", "27.25", "1234.5"]) expect(shows(text, pay)).toBe(false);
    const listedRes = await api("/v2/employees?per_page=100", { token: doctor });
    expect(listedRes.status).toBe(200);
    const listed = await listedRes.text();
    expect(listed).toContain('"id":8');
    for (const pay of ["31.75", "27.25", "1234.5"]) expect(shows(listed, pay)).toBe(false);
    const page = await (await request("/doctors/profile/8", { cookie: await signInCookie(DOCTOR) })).text();
    expect(shows(page, "31.75")).toBe(false);
    expect(page).not.toContain("Telehealth salary");

    const manager = (await (await api("/doctors/show/8", { token: await apiToken(MANAGER) })).json()) as { data: Emp };
    expect(manager.data.locations[0]).toMatchObject({ salary: 31.75, telehealth_salary: 27.25, fixed_hours_salary: 1234.5 });
    expect(await (await request("/doctors/profile/8", { cookie: await signInCookie(MANAGER) })).text()).toContain("31.75");
  });

  it("a location filter outside the actor's locations lists nobody (API and list screen)", async () => {
    const token = await apiToken(MANAGER);
    for (const path of ["/doctors?location_id=3", "/v2/employees?location_id=3"]) {
      const body = (await (await api(path, { token })).json()) as { total: number; data: { id: number }[] };
      expect(body.total).toBe(0);
      expect(body.data).toEqual([]);
    }
    const miami = (await (await api("/doctors?location_id=1&per_page=100", { token })).json()) as { data: { id: number }[] };
    expect(miami.data.map((e) => e.id)).toContain(BCBA.id);
    const cookie = await signInCookie(MANAGER);
    expect(await (await request("/doctors/list?location_id=3", { cookie })).text()).not.toContain("Moreno");
    expect(await (await request("/doctors/list?location_id=1", { cookie })).text()).toContain("Moreno");
  });
});

/*
 * Probe 8891 items 1, 2 and 5: what a change that ends someone's access leaves behind. A two-factor sign-in or a
 * password reset begun before the change dies with it; turning one's own two-factor on or off, or changing one's
 * own locations on the employee form, ends every other session and token and gives this browser a fresh session.
 */
const NEW_PASSWORD = "a new passphrase";

async function adminSetsPassword(t: TestUser, password = NEW_PASSWORD) {
  return api(`/v2/users/${t.id}/change-password`, { method: "PATCH", token: await apiToken(ADMIN), body: { new_password: password, new_password_confirmation: password } });
}

/** The reset token of an emailed reset code, through the API (request → verify). */
async function verifiedResetToken(t: TestUser): Promise<string> {
  const asked = await api("/password-reset/request", { method: "POST", body: { email: t.email } });
  expect(asked.status).toBe(200);
  const { challenge_id } = (await asked.json()) as { challenge_id: string };
  const code = codeIn((await lastEmail(t.email))!.text);
  const verified = await api("/password-reset/verify", { method: "POST", body: { email: t.email, code, challenge_id } });
  expect(verified.status).toBe(200);
  return ((await verified.json()) as { reset_token: string }).reset_token;
}

function resetWith(t: TestUser, resetToken: string, password: string) {
  return api("/password-reset/change", { method: "POST", body: { email: t.email, reset_token: resetToken, password, password_confirmation: password } });
}

/** The hashed password stored for a user, to tell whether a refused call wrote one. */
const passwordHashOf = async (id: number) => (await userRow(id)).passwordHash;

describe("probe 8891 item 1: a sign-in or password reset begun before a change that ends access dies with it", () => {
  type Change = (t: TestUser) => Promise<Response>;
  const changes: [string, Change][] = [
    ["an administrator sets the password (API)", (t) => adminSetsPassword(t)],
    ["an administrator sets the password (screen)", async (t) => post(`/doctors/list/edit/${t.id}`, { intent: "password", new_password: NEW_PASSWORD, new_password_confirmation: NEW_PASSWORD }, await signInCookie(ADMIN))],
    ["a roles change (API)", async (t) => api(`/v2/employees/${t.id}`, { method: "PATCH", token: await apiToken(ADMIN), body: { roles: [ROLE.RBT] } })],
    ["their own password reset (API)", async (t) => resetWith(t, await verifiedResetToken(t), NEW_PASSWORD)],
  ];
  const twoFactorUser = () => createUser({ twoFactor: true, permissions: ["view_clients"], locations: [1] });

  it.each(changes)("%s: the code of an API sign-in begun with the old password gives no token", async (_label, change) => {
    const target = await twoFactorUser();
    const login = await api("/auth/login", { method: "POST", body: { email: target.email, password: target.password } });
    expect(login.status).toBe(202);
    const { challenge_id } = (await login.json()) as { challenge_id: string };
    const code = codeIn((await lastEmail(target.email))!.text);
    const res = await change(target);
    expect(res.status, await res.clone().text()).toBeLessThan(400);
    const verify = await api("/two-factor/verify", { method: "POST", body: { email: target.email, code, challenge_id } });
    expect(verify.status).toBe(422);
    const body = (await verify.json()) as { message: string; access_token?: string };
    expect(body.message).toBe(AUTH_MESSAGES.noChallenge);
    expect(body.access_token).toBeUndefined();
  });

  it.each(changes)("%s: the code of a screen sign-in begun with the old password opens no session", async (_label, change) => {
    const target = await twoFactorUser();
    const login = await form("/login", { email: target.email, password: target.password });
    expect(login.status).toBe(303);
    const jar = cookiesFrom(login);
    const code = codeIn((await lastEmail(target.email))!.text);
    const res = await change(target);
    expect(res.status, await res.clone().text()).toBeLessThan(400);
    const verify = await form("/two-factor-verify", { intent: "verify", code }, jar);
    expect(verify.status).toBe(303);
    expect(verify.headers.get("Location")).toBe("/login");
    expect(cookiesFrom(verify, jar)).not.toMatch(/__session=/);
  });

  const resetEnders: [string, Change][] = [
    ["an administrator sets the password (API)", (t) => adminSetsPassword(t, "admin-set passphrase")],
    ["an administrator sets the password (screen)", async (t) => post(`/doctors/list/edit/${t.id}`, { intent: "password", new_password: "admin-set passphrase", new_password_confirmation: "admin-set passphrase" }, await signInCookie(ADMIN))],
    ["a roles change (API)", async (t) => api(`/v2/employees/${t.id}`, { method: "PATCH", token: await apiToken(ADMIN), body: { roles: [ROLE.RBT] } })],
    ["a deactivation", async (t) => api(`/doctors/update/status/${t.id}`, { method: "PUT", token: await apiToken(ADMIN), body: { status: "inactive" } })],
  ];

  it.each(resetEnders)("%s: a reset token verified before it cannot set a password afterwards", async (_label, change) => {
    const target = await createUser({ permissions: ["view_clients"], locations: [1] });
    const resetToken = await verifiedResetToken(target);
    const res = await change(target);
    expect(res.status, await res.clone().text()).toBeLessThan(400);
    const stored = await passwordHashOf(target.id);
    const late = await resetWith(target, resetToken, "attacker passphrase");
    expect(late.status).toBe(422);
    expect(((await late.json()) as { message: string }).message).toBe(AUTH_MESSAGES.resetTokenInvalid);
    expect(await passwordHashOf(target.id)).toBe(stored);
  });

  it("after an administrator set the password, only theirs signs in (the old reset token changed nothing)", async () => {
    const target = await createUser({ permissions: ["view_clients"], locations: [1] });
    const resetToken = await verifiedResetToken(target);
    expect((await adminSetsPassword(target, "admin-set passphrase")).status).toBe(200);
    expect((await resetWith(target, resetToken, "attacker passphrase")).status).toBe(422);
    expect((await api("/auth/login", { method: "POST", body: { email: target.email, password: "attacker passphrase" } })).status).toBe(401);
    expect((await api("/auth/login", { method: "POST", body: { email: target.email, password: "admin-set passphrase" } })).status).toBe(200);
  });

  it("the owner's own reset still completes, once: the token is used up by it", async () => {
    const target = await createUser({ permissions: ["view_clients"], locations: [1] });
    const resetToken = await verifiedResetToken(target);
    expect((await resetWith(target, resetToken, NEW_PASSWORD)).status).toBe(200);
    const stored = await passwordHashOf(target.id);
    expect((await resetWith(target, resetToken, "second passphrase")).status).toBe(422);
    expect(await passwordHashOf(target.id)).toBe(stored);
    expect((await api("/auth/login", { method: "POST", body: { email: target.email, password: NEW_PASSWORD } })).status).toBe(200);
  });

  it("the screen reset flow: a reset verified before an administrator set the password cannot finish", async () => {
    const target = await createUser({ permissions: ["view_clients"], locations: [1] });
    let jar = cookiesFrom(await form("/forgot-password", { email: target.email }));
    const code = codeIn((await lastEmail(target.email))!.text);
    const verified = await form("/reset-password-verify", { intent: "verify", code }, jar);
    expect(verified.headers.get("Location")).toBe("/reset-password-change");
    jar = cookiesFrom(verified, jar);
    expect((await adminSetsPassword(target, "admin-set passphrase")).status).toBe(200);
    const stored = await passwordHashOf(target.id);
    const late = await form("/reset-password-change", { password: "attacker passphrase", password_confirmation: "attacker passphrase" }, jar);
    expect(late.status).toBe(422);
    expect((await late.text()).replaceAll("<!-- -->", "")).toContain(AUTH_MESSAGES.resetTokenInvalid);
    expect(await passwordHashOf(target.id)).toBe(stored);
  });
});

/** A token and a screen session of a two-factor account, each through the emailed code. */
async function twoFactorToken(t: TestUser, parent = false): Promise<string> {
  const login = await api("/auth/login", { method: "POST", body: { email: t.email, password: t.password, parent } });
  expect(login.status).toBe(202);
  const { challenge_id } = (await login.json()) as { challenge_id: string };
  const verify = await api("/two-factor/verify", { method: "POST", body: { email: t.email, code: codeIn((await lastEmail(t.email))!.text), challenge_id } });
  expect(verify.status).toBe(200);
  return ((await verify.json()) as { access_token: string }).access_token;
}
async function twoFactorCookie(t: TestUser, parent = false): Promise<string> {
  const login = await form("/login", { email: t.email, password: t.password, ...(parent ? { parent: "on" } : {}) });
  const jar = cookiesFrom(login);
  const done = await form("/two-factor-verify", { intent: "verify", code: codeIn((await lastEmail(t.email))!.text) }, jar);
  expect(done.status).toBe(303);
  return cookiesFrom(done, jar);
}

/** Signed in: the profile answers 200; signed out: a redirect to sign-in. */
async function signedIn(cookie: string): Promise<boolean> {
  const res = await request("/profile", { cookie });
  if (res.status === 200) return true;
  expect(res.status).toBe(302);
  expect(res.headers.get("Location")).toMatch(/^\/login/);
  return false;
}
const tokenWorks = async (token: string) => (await api("/auth/me", { method: "POST", token })).status === 200;

describe("probe 8891 item 2: turning one's own two-factor on or off ends the other sessions and tokens, this browser stays", () => {
  it.each([
    ["a staff user", false],
    ["a parent", true],
  ] as const)("%s", async (_label, parent) => {
    const who = parent ? await createParent({ locationId: 1 }) : await createUser({ permissions: ["view_clients"], locations: [1] });
    const elsewhere = await signInCookie(who, parent);
    const token = await apiToken(who, parent);
    const here = await signInCookie(who, parent);

    const on = await form("/profile", { intent: "two-factor", enabled: "true", current_password: who.password }, here);
    expect(on.status).toBe(200);
    expect((await on.text()).match(/[A-Z2-9]{5}-[A-Z2-9]{5}/g)?.length).toBeGreaterThanOrEqual(10);
    const hereAfterOn = cookiesFrom(on, here);
    expect(await signedIn(elsewhere)).toBe(false);
    expect(await tokenWorks(token)).toBe(false);
    expect((await api("/auth/refresh", { token })).status).toBe(401);
    expect(await signedIn(here)).toBe(false);
    expect(await signedIn(hereAfterOn)).toBe(true);

    // Sessions opened with the second factor end when it is turned off.
    const elsewhere2 = await twoFactorCookie(who, parent);
    const token2 = await twoFactorToken(who, parent);
    const off = await form("/profile", { intent: "two-factor", enabled: "false", current_password: who.password }, hereAfterOn);
    expect(off.status).toBe(303);
    expect(off.headers.get("Location")).toBe("/profile?twoFactor=off");
    const hereAfterOff = cookiesFrom(off, hereAfterOn);
    expect(await signedIn(elsewhere2)).toBe(false);
    expect(await tokenWorks(token2)).toBe(false);
    expect(await signedIn(hereAfterOn)).toBe(false);
    const shown = await request("/profile?twoFactor=off", { cookie: hereAfterOff });
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain("Two-factor verification is off.");
  });

  it("a refused switch (wrong password) ends nothing", async () => {
    const who = await createUser({ permissions: ["view_clients"], locations: [1] });
    const elsewhere = await signInCookie(who);
    const token = await apiToken(who);
    const here = await signInCookie(who);
    expect((await form("/profile", { intent: "two-factor", enabled: "true", current_password: "not the password" }, here)).status).toBe(422);
    expect(await signedIn(elsewhere)).toBe(true);
    expect(await signedIn(here)).toBe(true);
    expect(await tokenWorks(token)).toBe(true);
  });
});

describe("probe 8891 item 5: changing one's own locations on the employee form keeps this browser signed in", () => {
  // One's own email is no longer changed here but on the profile, with the current password (decision 015, stop 35).
  async function selfEditor() {
    const me = await createUser({ permissions: ["manage_employees", "view_employees"], locations: [1, 2] });
    const [held] = await db().select({ roleId: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, me.id));
    const fields = (email: string, version: number, at = ["1", "2"]) => ({ intent: "save", version: String(version), name: "Self", surname: "Editor", email, status: "active", roles: [String(held!.roleId)], locations: at });
    return { me, fields };
  }

  it("a location is left, the other session and token end, this browser gets a fresh session and the saved flash", async () => {
    const { me, fields } = await selfEditor();
    const elsewhere = await signInCookie(me);
    const token = await apiToken(me);
    const here = await signInCookie(me);
    const saved = await post(`/doctors/list/edit/${me.id}`, fields(me.email, (await userRow(me.id)).version, ["1"]), here);
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect(withoutFlashTag(saved.headers.get("Location"))).toBe(`/doctors/profile/${me.id}?flash=Employee%20updated.`);
    expect(await locationIdsOf(me.id)).toEqual([1]);
    expect(await signedIn(elsewhere)).toBe(false);
    expect(await tokenWorks(token)).toBe(false);
    const fresh = cookiesFrom(saved, here);
    const shown = await request(saved.headers.get("Location")!, { cookie: fresh });
    expect(shown.status).toBe(200);
    expect(await shown.text()).toContain("Employee updated.");
  });

  it("a save of one's own phone alone ends nothing and sets no new session", async () => {
    const { me, fields } = await selfEditor();
    const token = await apiToken(me);
    const here = await signInCookie(me);
    const saved = await post(`/doctors/list/edit/${me.id}`, { ...fields(me.email, (await userRow(me.id)).version), phone: "555-000-1234" }, here);
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect(setCookiesBesidesBookmark(saved)).toEqual([]);
    expect(await tokenWorks(token)).toBe(true);
    expect(await signedIn(here)).toBe(true);
  });
});

describe("probe 8962 items 1 and 2: the employee edit screen offers what the rule allows, and a refused save keeps the form", () => {
  const TWOFACTOR = demo(9, "twofactor@demo.test");
  const saveFields = (row: Awaited<ReturnType<typeof userRow>>, roleIds: number[], locationIds: number[], over: Record<string, string | string[]> = {}) => ({
    intent: "save",
    version: String(row.version),
    name: row.name,
    surname: row.surname,
    email: row.email,
    status: row.status,
    phone: row.phone ?? "",
    city: row.city ?? "",
    roles: roleIds.map(String),
    locations: locationIds.map(String),
    ...over,
  });

  it.each([
    ["lm@ on twofactor@ (a BCBA of Denver, holding manage_bips)", LM, TWOFACTOR, [ROLE.BCBA], [2], "You cannot change the account of someone who holds permissions you do not hold.", "holds manage_bips, which you do not hold"],
    ["admin@ on the SUPERADMIN", ADMIN, SUPERADMIN, [ROLE.SUPERADMIN], [1, 2, 3], "Only a SUPERADMIN can change a SUPERADMIN&#x27;s account or give the SUPERADMIN role.", "is shown here without the forms that change them"],
    ["lm@ on manager@ (Miami and Denver: the reason is rank)", LM, MANAGER, [ROLE.MANAGER], [2], "You cannot change the account of someone who holds permissions you do not hold.", "which you do not hold"],
  ] as const)("%s: read-only with the rank reason; a save of the city alone re-renders with it, nothing written", async (_label, who, whom, roleIds, locationIds, reason, detail) => {
    const cookie = await signInCookie(who);
    const page = await request(`/doctors/list/edit/${whom.id}`, { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain(reason);
    expect(html).toContain(detail);
    expect(html).not.toContain("also works at a location you do not manage");
    expect(html).not.toContain("Save changes");
    expect(html).not.toContain('name="phone"');
    expect(html).not.toContain("Delete employee");

    const before = await userRow(whom.id);
    const res = await post(`/doctors/list/edit/${whom.id}`, saveFields(before, [...roleIds], [...locationIds], { city: `Refused ${uniq()}` }), cookie);
    expect(res.status).toBe(422);
    const answer = await res.text();
    expect(answer).toContain(reason);
    expect(answer).not.toContain("Access Denied");
    expect(await userRow(whom.id)).toEqual(before);
  });

  it("the API still answers 403 for the same change", async () => {
    const res = await api(`/v2/employees/${SUPERADMIN.id}`, { method: "PATCH", token: await apiToken(ADMIN), body: { city: "Nowhere" } });
    expect(res.status).toBe(403);
    expect((await errorsOf(res)).message).toBe("Only a SUPERADMIN can change a SUPERADMIN's account or give the SUPERADMIN role.");
  });

  it("manager@ on bcba@ (Miami and Los Angeles): email, status, roles and locations read-only, the rest saves", async () => {
    const cookie = await signInCookie(MANAGER);
    const html = await (await request(`/doctors/list/edit/${BCBA.id}`, { cookie })).text();
    expect(html).toContain("This employee also works at a location you do not manage.");
    expect(html).toContain("You can still change their contact, profile and employment details here.");
    expect(html).toMatch(/<input[^>]*name="email"[^>]*readonly=""/);
    const status = html.match(/<select id="f-status" name="status"[^>]*>([\s\S]*?)<\/select>/)![1]!;
    expect(status.match(/<option/g)).toHaveLength(1);
    expect(status).toContain('value="active"');
    expect(html).not.toContain('type="checkbox" name="roles"');
    expect(html).not.toContain('type="checkbox" name="locations"');
    expect(html).toContain('<input type="hidden" name="roles" value="6"/>');
    expect(html).toContain('<input type="hidden" name="locations" value="1"/>');
    expect(html).toContain("Save changes");

    const phone = `555-${Date.now() % 1000}-7777`;
    const saved = await post(`/doctors/list/edit/${BCBA.id}`, saveFields(await userRow(BCBA.id), [ROLE.BCBA], [1], { phone }), cookie);
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect((await userRow(BCBA.id)).phone).toBe(phone);
    expect(await locationIdsOf(BCBA.id)).toEqual([1, 3]);
  });

  it.each([
    ["a new email", { email: "bcba-new@demo.test" }, "email"],
    ["another role", { roles: [String(ROLE.RBT)] }, "roles"],
    ["a location added", { locations: ["1", "2"] }, "locations"],
    ["inactive", { status: "inactive" }, "status"],
  ] as [string, Record<string, string | string[]>, string][])("a crafted save of %s on the partly covered employee re-renders with the message at the field and the typed phone, nothing written", async (_label, over, field) => {
    const cookie = await signInCookie(MANAGER);
    const before = await userRow(BCBA.id);
    const res = await post(`/doctors/list/edit/${BCBA.id}`, saveFields(before, [ROLE.BCBA], [1], { phone: "555-000-4242", ...over }), cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).not.toContain("Access Denied");
    expect(html).toContain("Only someone who manages every one of their locations can change their password");
    expect(html).toContain(`id="f-${field}-error"`);
    expect(html).toContain("Not changed: only someone who manages every one of their locations can change this.");
    expect(html).toContain('value="555-000-4242"');
    // The locked field shows the stored value again, so the next save goes through.
    expect(html).toContain(`value="${before.email}"`);
    expect(await userRow(BCBA.id)).toEqual(before);
    expect(await roleIdsOf(BCBA.id)).toEqual([ROLE.BCBA]);
    expect(await locationIdsOf(BCBA.id)).toEqual([1, 3]);
  });
});
