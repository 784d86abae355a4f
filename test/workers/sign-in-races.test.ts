import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { Db } from "~/db/client.server";
import { sessions, users } from "~/db/schema";
import { signIn, verifyLoginCode } from "~/models/auth.server";
import { emailSenderFor } from "~/services/email.server";
import { createSession } from "~/services/session.server";
import { issueAccessToken, secretKey } from "~/services/tokens.server";
import { api, apiToken, beforeWriteDb, codeIn, cookiesFrom, createLocation, createUser, db, form, lastEmail, request, signInCookie, type TestUser } from "./helpers";

/**
 * Probe 8905, defect 2: a sign-in that checked the OLD password while an access-ending change commits must not
 * get a session or token that outlives the change. The race is made deterministic with beforeWriteDb: the change
 * lands after the sign-in read the password hash (and its access generation) and before the sign-in writes;
 * the session or token is then issued as the routes issue it, and must be refused.
 */

const NEW_PASSWORD = "a brand new passphrase";

function appWith(database: Db) {
  const e = env as unknown as Env;
  return { db: database, env: e, email: emailSenderFor(e, database), ip: "203.0.113.80", isDev: true, now: () => new Date() };
}

async function setup(twoFactor = false) {
  const loc = await createLocation();
  const admin = await createUser({ role: "ADMIN", locations: [loc.id] });
  const adminToken = await apiToken(admin);
  const user = await createUser({ permissions: ["view_clients"], locations: [loc.id], twoFactor });
  return { adminToken, user };
}

/** The administrator's change of the user's password through the API: "signed out everywhere". */
async function adminSetsPassword(adminToken: string, user: TestUser) {
  const res = await api(`/v2/users/${user.id}/change-password`, { method: "PATCH", token: adminToken, body: { new_password: NEW_PASSWORD, new_password_confirmation: NEW_PASSWORD } });
  expect(res.status).toBe(200);
}

/** What the screen and the API do with a signed-in principal: a session (cookie) and a token. */
async function issueBoth(principal: { type: "user" | "parent"; id: number; accessGeneration: number }) {
  const cookie = cookiesFrom(new Response(null, { headers: { "Set-Cookie": await createSession(db(), principal, new Date(), false) } }));
  const { access_token: token } = await issueAccessToken(env as unknown as Env, principal, new Date());
  return { cookie, token };
}

async function expectRefused(issued: { cookie: string; token: string }, user: TestUser) {
  expect((await api("/auth/me", { method: "POST", token: issued.token })).status).toBe(401);
  const page = await request("/dashboard", { cookie: issued.cookie });
  expect(page.status).toBe(302);
  expect(page.headers.get("Location")).toMatch(/^\/login/);
  // The refused session is gone; the old password signs in no more.
  expect(await db().select().from(sessions).where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, user.id)))).toHaveLength(0);
  expect((await api("/auth/login", { method: "POST", body: { email: user.email, password: user.password } })).status).toBe(401);
}

describe("a sign-in racing a change that ends access", () => {
  it("the password checked before the change, the session and token issued after it: both refused", async () => {
    const { adminToken, user } = await setup();
    // The sign-in first claims its place in the throttle (a batch of two statements, decision 003 stop 37), then reads
    // the password: the change lands after that read, before the sign-in's write.
    const racing = beforeWriteDb(() => adminSetsPassword(adminToken, user), 1);
    const result = await signIn(appWith(racing), { email: user.email, password: user.password, parent: false });
    expect(result.kind).toBe("signed_in");
    if (result.kind !== "signed_in") return;
    await expectRefused(await issueBoth(result.principal), user);
  });

  it("the sign-in finished before the change, the session and token issued after it: both refused", async () => {
    const { adminToken, user } = await setup();
    const result = await signIn(appWith(db()), { email: user.email, password: user.password, parent: false });
    if (result.kind !== "signed_in") throw new Error(result.kind);
    await adminSetsPassword(adminToken, user);
    await expectRefused(await issueBoth(result.principal), user);
  });

  it("two-factor: a challenge started on the old password after the change (its void missed it) signs in nobody", async () => {
    const { adminToken, user } = await setup(true);
    // The sign-in first claims its place in the throttle (a batch of two statements, decision 003 stop 37), then reads
    // the password: the change lands after that read, before the sign-in's write.
    const racing = beforeWriteDb(() => adminSetsPassword(adminToken, user), 1);
    const result = await signIn(appWith(racing), { email: user.email, password: user.password, parent: false });
    if (result.kind !== "two_factor") throw new Error(result.kind);
    const code = codeIn((await lastEmail(user.email))!.text);
    const verified = await verifyLoginCode(appWith(db()), { id: result.challengeId }, code);
    expect(verified.kind).toBe("ok");
    if (verified.kind !== "ok") return;
    await expectRefused(await issueBoth(verified.principal), user);
  });

  it("two-factor: a code checked before the change, the session and token issued after it: both refused", async () => {
    const { adminToken, user } = await setup(true);
    const result = await signIn(appWith(db()), { email: user.email, password: user.password, parent: false });
    if (result.kind !== "two_factor") throw new Error(result.kind);
    const code = codeIn((await lastEmail(user.email))!.text);
    // The first batch is the code's read (the address's failures, the chain's tail, the challenge's account): the
    // change lands after it, before the write.
    const racing = beforeWriteDb(() => adminSetsPassword(adminToken, user), 1);
    const verified = await verifyLoginCode(appWith(racing), { id: result.challengeId }, code);
    if (verified.kind !== "ok") throw new Error(verified.kind);
    await expectRefused(await issueBoth(verified.principal), user);
  });

  it("a deactivation and reactivation in between end it too (any change that ends access, not only a password)", async () => {
    const { adminToken, user } = await setup();
    const result = await signIn(appWith(db()), { email: user.email, password: user.password, parent: false });
    if (result.kind !== "signed_in") throw new Error(result.kind);
    for (const status of ["inactive", "active"]) {
      expect((await api(`/v2/employees/update-status/${user.id}`, { method: "PUT", token: adminToken, body: { status } })).status).toBe(200);
    }
    const issued = await issueBoth(result.principal);
    expect((await api("/auth/me", { method: "POST", token: issued.token })).status).toBe(401);
    expect((await request("/dashboard", { cookie: issued.cookie })).status).toBe(302);
  });
});

describe("what keeps working", () => {
  it("an ordinary sign-in (screen and API), its sign-out, and a refresh", async () => {
    const { user } = await setup();
    const cookie = await signInCookie(user);
    expect((await request("/dashboard", { cookie })).status).toBe(200);
    const token = await apiToken(user);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(200);
    const refreshed = await api("/auth/refresh", { token });
    expect(refreshed.status).toBe(200);
    const next = ((await refreshed.json()) as { access_token: string }).access_token;
    expect((await api("/auth/me", { method: "POST", token: next })).status).toBe(200);
    expect((await api("/auth/logout", { method: "POST", token: next })).status).toBe(200);
    expect((await api("/auth/me", { method: "POST", token: next })).status).toBe(401);
    expect((await request("/logout", { method: "POST", cookie })).status).toBe(303);
    expect((await request("/dashboard", { cookie })).status).toBe(302);
  });

  it("one's own password change keeps this browser signed in at the new generation; the other session and token end", async () => {
    const { user } = await setup();
    const here = await signInCookie(user);
    const elsewhere = await signInCookie(user);
    const token = await apiToken(user);
    const [before] = await db().select({ g: users.accessGeneration }).from(users).where(eq(users.id, user.id));
    const res = await form("/change-password", { current_password: user.password, password: NEW_PASSWORD, password_confirmation: NEW_PASSWORD }, here);
    expect(res.status).toBe(303);
    const fresh = cookiesFrom(res, here);
    expect((await request("/dashboard", { cookie: fresh })).status).toBe(200);
    expect((await request("/dashboard", { cookie: elsewhere })).status).toBe(302);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(401);
    const rows = await db().select({ g: sessions.accessGeneration }).from(sessions).where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, user.id)));
    expect(rows).toEqual([{ g: before!.g + 1 }]);
  });

  it("a token issued before the generation claim holds until the next change that ends access", async () => {
    const { adminToken, user } = await setup();
    const { SignJWT } = await import("jose");
    const now = Math.floor(Date.now() / 1000);
    const legacy = await new SignJWT({ typ: "user", auth_time: now, fam: "legacy", iat_ms: Date.now() })
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(String(user.id))
      .setIssuer("baseline")
      .setJti(crypto.randomUUID())
      .setIssuedAt(now)
      .setExpirationTime(now + 900)
      .sign(secretKey(env as unknown as Env));
    expect((await api("/auth/me", { method: "POST", token: legacy })).status).toBe(200);
    await adminSetsPassword(adminToken, user);
    expect((await api("/auth/me", { method: "POST", token: legacy })).status).toBe(401);
  });
});
