import { and, eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, users } from "~/db/schema";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { api, apiToken, createLocation, createUser, db, form, request, signInCookie, type TestUser } from "./helpers";

/**
 * Turning two-factor off when it is already off changes nothing (decision 016, stop 31): the other sessions and API
 * tokens stay, no audit row is written, and the answer says it is already off. Turning it off when it is on still
 * ends them. The profile screen (one's own), the employee edit screen and the API's reset (an administrator's).
 */

const TWO_FACTOR_ACTIONS = ["two_factor_off", "two_factor_reset"];

async function switchRows(user: TestUser) {
  return db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.entity, "employee"), eq(auditLog.entityId, String(user.id)), inArray(auditLog.action, TWO_FACTOR_ACTIONS)));
}

/** A user signed in twice on screens (another device's cookie) and once through the API; two-factor set after. */
async function signedInEverywhere(twoFactor: boolean, locations: number[] = []) {
  const user = await createUser({ locations });
  const signed = { user, cookie: await signInCookie(user), other: await signInCookie(user), token: await apiToken(user) };
  await db().update(users).set({ twoFactorEnabled: twoFactor }).where(eq(users.id, user.id));
  return signed;
}

/** Whether another device's screen session and an API token still work. */
async function stillSignedIn(s: { other: string; token: string }) {
  const screen = await request("/profile", { cookie: s.other });
  const token = await api("/auth/me", { method: "POST", token: s.token });
  return { screen: screen.status === 200, token: token.status === 200 };
}

async function manager(locationId: number) {
  const m = await createUser({ permissions: ["manage_employees", "view_employees"], locations: [locationId] });
  return { cookie: await signInCookie(m), token: await apiToken(m) };
}

describe("turning two-factor off when it is already off", () => {
  it("profile: 200 with the message, the page still says Off; other sessions and tokens stay; no audit row", async () => {
    const s = await signedInEverywhere(false);
    const res = await form("/profile", { intent: "two-factor", enabled: "false", current_password: s.user.password }, s.cookie);
    expect(res.status).toBe(200);
    expect(res.headers.get("Set-Cookie") ?? "").not.toContain("__session=");
    const html = (await res.text()).replaceAll("&#x27;", "'");
    expect(html).toContain(AUTH_MESSAGES.twoFactorAlreadyOff);
    expect(html).toContain("Off: signing in asks only for your password.");
    expect(await stillSignedIn(s)).toEqual({ screen: true, token: true });
    expect((await request("/profile", { cookie: s.cookie })).status).toBe(200);
    expect(await switchRows(s.user)).toHaveLength(0);
  });

  it("employee screen: the reset answers with the message; the employee's sessions and tokens stay; no audit row", async () => {
    const loc = await createLocation();
    const m = await manager(loc.id);
    const s = await signedInEverywhere(false, [loc.id]);
    const res = await form(`/doctors/list/edit/${s.user.id}`, { intent: "two_factor" }, m.cookie);
    expect(res.status).toBe(303);
    const flash = new URL(res.headers.get("Location")!, "http://localhost").searchParams.get("flash");
    expect(flash).toBe(AUTH_MESSAGES.twoFactorAlreadyOff);
    expect(await stillSignedIn(s)).toEqual({ screen: true, token: true });
    expect(await switchRows(s.user)).toHaveLength(0);
  });

  it("API reset: 200 with the message and the state; the employee's sessions and tokens stay; no audit row", async () => {
    const loc = await createLocation();
    const m = await manager(loc.id);
    const s = await signedInEverywhere(false, [loc.id]);
    const res = await api(`/v2/users/${s.user.id}/reset-two-factor`, { method: "POST", token: m.token });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ message: AUTH_MESSAGES.twoFactorAlreadyOff, two_factor_enabled: false });
    expect(await stillSignedIn(s)).toEqual({ screen: true, token: true });
    expect(await switchRows(s.user)).toHaveLength(0);
  });
});

describe("turning two-factor off when it is on still ends every session and token", () => {
  it("profile: this browser gets a fresh session, the other device and the token are signed out, one audit row", async () => {
    const s = await signedInEverywhere(true);
    const res = await form("/profile", { intent: "two-factor", enabled: "false", current_password: s.user.password }, s.cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get("Set-Cookie") ?? "").toContain("__session=");
    expect(await stillSignedIn(s)).toEqual({ screen: false, token: false });
    expect((await switchRows(s.user)).map((r) => r.action)).toEqual(["two_factor_off"]);
  });

  it.each([
    ["employee screen", (m: { cookie: string; token: string }, id: number) => form(`/doctors/list/edit/${id}`, { intent: "two_factor" }, m.cookie), 303],
    ["API reset", (m: { cookie: string; token: string }, id: number) => api(`/v2/users/${id}/reset-two-factor`, { method: "POST", token: m.token }), 200],
  ] as const)("%s: the employee is signed out everywhere, one audit row", async (_where, reset, status) => {
    const loc = await createLocation();
    const m = await manager(loc.id);
    const s = await signedInEverywhere(true, [loc.id]);
    const res = await reset(m, s.user.id);
    expect(res.status).toBe(status);
    expect(await stillSignedIn(s)).toEqual({ screen: false, token: false });
    expect((await switchRows(s.user)).map((r) => r.action)).toEqual(["two_factor_reset"]);
  });
});
