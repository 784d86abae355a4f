import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parents, userRoles, users } from "~/db/schema";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { CHANGE_MESSAGES } from "~/domain/who-may-change";
import { api, apiToken, cookiesFrom, createLocation, createParent, createUser, db, emailsTo, emailTo, form, request, signInCookie, type TestUser } from "./helpers";

/**
 * One's own password, two-factor and email are changed only where the current password is asked (/change-password,
 * /profile): the employee screen and the users API refuse them on one's own record with 403 and where to go, change
 * nothing and end no session (probe 8986 §3, decision 015 stop 35). On someone else they work as before.
 */

const NEW = "a brand new passphrase";

const row = async (id: number) => (await db().select().from(users).where(eq(users.id, id)))[0]!;
/** What the paths could change, and the access generation (moved by every change that ends sessions and tokens). */
const credentials = async (id: number) => {
  const r = await row(id);
  return { email: r.email, passwordHash: r.passwordHash, twoFactorEnabled: r.twoFactorEnabled, accessGeneration: r.accessGeneration };
};

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

/** The employee form as stored, with a new email. */
async function saveWithEmail(t: TestUser, email: string) {
  const r = await row(t.id);
  const held = await db().select({ roleId: userRoles.roleId }).from(userRoles).where(eq(userRoles.userId, t.id));
  return { intent: "save", version: String(r.version), name: r.name, surname: r.surname, email, status: r.status, roles: held.map((h) => String(h.roleId)), locations: [String(r.locationId)] };
}

interface Who {
  cookie: string;
  token: string;
}

/** `refused`: the answer on one's own record (a refused save answers the form, 422, as in decision 015 stop 33); `done`: on another. */
type Path = [label: string, change: keyof typeof CHANGE_MESSAGES.ownCredential, send: (target: TestUser, by: Who) => Promise<Response>, refused: 403 | 422, done: number];

const PATHS: Path[] = [
  ["the employee screen's password form", "password", (t, by) => post(`/doctors/list/edit/${t.id}`, { intent: "password", new_password: NEW, new_password_confirmation: NEW }, by.cookie), 403, 303],
  ["the employee screen's two-factor form", "two_factor", (t, by) => post(`/doctors/list/edit/${t.id}`, { intent: "two_factor" }, by.cookie), 403, 303],
  ["the employee screen's save with a new email", "email", async (t, by) => post(`/doctors/list/edit/${t.id}`, await saveWithEmail(t, `moved-${t.id}@staff.test`), by.cookie), 422, 303],
  [
    "PATCH /api/v2/users/{id}/change-password",
    "password",
    (t, by) => api(`/v2/users/${t.id}/change-password`, { method: "PATCH", token: by.token, body: { new_password: NEW, new_password_confirmation: NEW } }),
    403,
    200,
  ],
  ["POST /api/v2/users/{id}/reset-two-factor", "two_factor", (t, by) => api(`/v2/users/${t.id}/reset-two-factor`, { method: "POST", token: by.token }), 403, 200],
  ["POST /api/v2/users/editUser/{id} with an email", "email", (t, by) => api(`/v2/users/editUser/${t.id}`, { method: "POST", token: by.token, body: { email: `moved-${t.id}@staff.test` } }), 403, 200],
  ["PATCH /api/v2/employees/{id} with an email", "email", (t, by) => api(`/v2/employees/${t.id}`, { method: "PATCH", token: by.token, body: { email: `moved-${t.id}@staff.test` } }), 403, 200],
  [
    "POST /api/doctors/update/{id} (v1) with an email",
    "email",
    async (t, by) => {
      const read = (await (await api(`/v2/employees/${t.id}`, { token: by.token })).json()) as { data: Record<string, unknown> };
      return api(`/doctors/update/${t.id}`, { method: "POST", token: by.token, body: { ...read.data, email: `moved-${t.id}@staff.test` } });
    },
    403,
    200,
  ],
];

/** A manager of employees at one location, signed in on the screen and through the API, with two-factor on. */
async function manager(locationId: number): Promise<TestUser & Who> {
  const me = await createUser({ permissions: ["manage_employees", "view_employees"], locations: [locationId] });
  const by = { cookie: await signInCookie(me), token: await apiToken(me) };
  await db().update(users).set({ twoFactorEnabled: true }).where(eq(users.id, me.id));
  return { ...me, ...by };
}

describe("one's own credentials through the staff paths (probe 8986 §3)", () => {
  it.each(PATHS)("%s on one's own record: 403 pointing to where the current password is asked, nothing changed, still signed in", async (_label, change, send, refused) => {
    const me = await manager((await createLocation()).id);
    const before = await credentials(me.id);
    const res = await send(me, me);
    expect(res.status).toBe(refused);
    expect(await res.text()).toContain(CHANGE_MESSAGES.ownCredential[change]);
    expect(CHANGE_MESSAGES.ownCredential[change]).toMatch(change === "password" ? /\/change-password/ : /\/profile/);
    expect(await credentials(me.id)).toEqual(before);
    expect((await request("/profile", { cookie: me.cookie })).status).toBe(200);
    expect((await api("/two-factor/status", { token: me.token })).status).toBe(200);
  });

  it.each(PATHS)("%s on another employee the actor covers: done as before", async (_label, change, send, _refused, done) => {
    const at = (await createLocation()).id;
    const me = await manager(at);
    const other = await createUser({ permissions: ["view_employees"], locations: [at] });
    await db().update(users).set({ twoFactorEnabled: true }).where(eq(users.id, other.id));
    const before = await credentials(other.id);
    const res = await send(other, me);
    expect(res.status, await res.clone().text()).toBe(done);
    const after = await credentials(other.id);
    if (change === "password") expect(after.passwordHash).not.toBe(before.passwordHash);
    if (change === "two_factor") expect(after.twoFactorEnabled).toBe(false);
    if (change === "email") {
      expect(after.email).toBe(`moved-${other.id}@staff.test`);
      // The old address hears of it (whoever holds the new one can reset the password); the notice never names the new one.
      const notice = await emailTo(before.email, /Your sign-in email was changed/);
      expect(notice?.subject).toBe("Baseline security notice: Your sign-in email was changed");
      expect(notice?.text).not.toContain(after.email);
    }
    expect(after.accessGeneration).toBeGreaterThan(before.accessGeneration);
  });

  it("the edit screen of one's own record shows the email read-only, saying where to change it", async () => {
    const me = await manager((await createLocation()).id);
    const html = await (await request(`/doctors/list/edit/${me.id}`, { cookie: me.cookie })).text();
    expect(html).toMatch(/<input[^>]*name="email"[^>]*readOnly=""|<input[^>]*readOnly=""[^>]*name="email"/i);
    expect(html).toContain(CHANGE_MESSAGES.ownEmailHint);
  });
});

describe("one's own email on /profile asks for the current password", () => {
  it("a wrong password changes nothing; the right one changes the email, signs out elsewhere and keeps this browser", async () => {
    const me = await createUser({ permissions: ["view_clients"] });
    const elsewhere = await signInCookie(me);
    const token = await apiToken(me);
    const here = await signInCookie(me);
    const email = `own-${me.id}@staff.test`;

    const wrong = await form("/profile", { intent: "email", email, current_password: "not the password" }, here);
    expect(wrong.status).toBe(422);
    expect(await wrong.text()).toContain(AUTH_MESSAGES.currentPasswordWrong);
    expect((await row(me.id)).email).toBe(me.email);

    const taken = await createUser();
    const duplicate = await form("/profile", { intent: "email", email: taken.email, current_password: me.password }, here);
    expect(duplicate.status).toBe(422);
    expect(await duplicate.text()).toContain("An employee with this email already exists.");
    expect((await row(me.id)).email).toBe(me.email);

    const changed = await form("/profile", { intent: "email", email: email.toUpperCase(), current_password: me.password }, here);
    expect(changed.status).toBe(303);
    expect((await row(me.id)).email).toBe(email);
    // One notice, for the change that was made (the refused ones sent none).
    expect((await emailTo(me.email, /Your sign-in email was changed/))?.subject).toBe("Baseline security notice: Your sign-in email was changed");
    expect(await emailsTo(me.email)).toHaveLength(1);
    expect((await request("/profile", { cookie: elsewhere })).status).toBe(302);
    expect((await api("/two-factor/status", { token })).status).toBe(401);
    const page = await request("/profile", { cookie: cookiesFrom(changed, here) });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(email);
    expect(await apiToken({ ...me, email })).toBeTruthy();
  });
});

describe("a parent's own email on /profile (stop 37)", () => {
  const parentRow = async (id: number) => (await db().select().from(parents).where(eq(parents.id, id)))[0]!;

  it("is offered, asks for the current password, refuses another parent's email, and signs out elsewhere", async () => {
    const me = await createParent();
    const elsewhere = await signInCookie(me, true);
    const token = await apiToken(me, true);
    const here = await signInCookie(me, true);
    expect(await (await request("/profile", { cookie: here })).text()).toContain("Change email");
    const email = `own-parent-${me.id}@family.test`;

    const cases = [
      { body: { email, current_password: "not the password" }, message: AUTH_MESSAGES.currentPasswordWrong },
      { body: { email: (await createParent()).email, current_password: me.password }, message: "This email is already in use." },
      { body: { email: me.email.toUpperCase(), current_password: me.password }, message: AUTH_MESSAGES.ownEmailUnchanged },
      { body: { email: "not an email", current_password: me.password }, message: "email" },
    ];
    for (const c of cases) {
      const res = await form("/profile", { intent: "email", ...c.body }, here);
      expect(res.status, c.message).toBe(422);
      const html = await res.text();
      if (c.message !== "email") expect(html).toContain(c.message);
      // The address typed is kept in the field (JS off); the password is never sent back.
      expect(html).toMatch(new RegExp(`id="f-email"[^>]*value="${c.body.email.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}"`));
      expect(html).not.toContain(`value="${c.body.current_password}"`);
      expect((await parentRow(me.id)).email).toBe(me.email);
    }
    expect(await emailsTo(me.email)).toHaveLength(0);

    const changed = await form("/profile", { intent: "email", email: ` ${email.toUpperCase()} `, current_password: me.password }, here);
    expect(changed.status).toBe(303);
    expect((await parentRow(me.id)).email).toBe(email);
    expect((await emailTo(me.email, /Your sign-in email was changed/))?.text).not.toContain(email);
    expect(await emailsTo(me.email)).toHaveLength(1);
    expect((await request("/profile", { cookie: elsewhere })).status).toBe(302);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(401);
    const page = await request("/profile", { cookie: cookiesFrom(changed, here) });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(email);
    expect(await apiToken({ ...me, email }, true)).toBeTruthy();
    await expect(apiToken(me, true)).rejects.toThrow();
  });
});
