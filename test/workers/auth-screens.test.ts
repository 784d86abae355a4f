import { and, count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import * as build from "../../build/index.js";
import { auditLog, backupCodes, outboxEmails, sessions, twoFactorChallenges, userRoles, roles, users } from "~/db/schema";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { generateBackupCodes, selfWho } from "~/models/auth.server";
import { forgetAuthSettings, getAuthSettings } from "~/models/settings.server";
import { readSessionActor } from "~/services/session.server";
import { codeIn, cookiesBesidesBookmark, cookiesFrom, countingDb, createLocation, createParent, createUser, db, form, lastEmail, request, setCookiesBesidesBookmark, signInCookie, type TestUser } from "./helpers";

/** The auth screens without JavaScript: plain form posts, 303 after success, field errors and 4xx on bad input. */

/** A page's HTML with React's text separators removed, so sentences read as the user sees them. */
async function page(res: Response): Promise<string> {
  return (await res.text()).replaceAll("<!-- -->", "");
}

/** Any six digits other than `code`. */
const otherCode = (code: string, step = 1) => String((Number(code) + step) % 1_000_000).padStart(6, "0");

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

async function challengeOf(user: TestUser) {
  const [row] = await db()
    .select()
    .from(twoFactorChallenges)
    .where(and(eq(twoFactorChallenges.principalType, "user"), eq(twoFactorChallenges.principalId, user.id), eq(twoFactorChallenges.context, "login")))
    .orderBy(twoFactorChallenges.createdAt);
  return row!;
}

async function sessionCount(type: "user" | "parent", id: number) {
  const [row] = await db()
    .select({ n: count() })
    .from(sessions)
    .where(and(eq(sessions.principalType, type), eq(sessions.principalId, id)));
  return row!.n;
}

/** Signs in a two-factor user through the form; returns the cookie jar holding the pending challenge. */
async function startTwoFactor(user: TestUser, redirectTo = "/dashboard"): Promise<string> {
  const res = await form("/login", { email: user.email, password: user.password, redirectTo });
  expect(res.status).toBe(303);
  expect(res.headers.get("Location")).toBe(`/two-factor-verify?redirectTo=${encodeURIComponent(redirectTo)}`);
  const jar = cookiesFrom(res);
  expect(jar).toMatch(/__2fa=/);
  return jar;
}

async function emailedCode(to: string) {
  return codeIn((await lastEmail(to))!.text);
}

describe("two-factor-verify", () => {
  it("without a pending challenge sends the browser to sign-in", async () => {
    const none = await request("/two-factor-verify");
    expect(none.status).toBe(302);
    expect(none.headers.get("Location")).toBe("/login");

    const stale = await request("/two-factor-verify", { cookie: "__2fa=not-a-challenge" });
    expect(stale.status).toBe(302);
    expect(stale.headers.get("Location")).toBe("/login");
    expect(cookiesBesidesBookmark(stale, "__2fa=not-a-challenge")).toBe("");

    const post = await form("/two-factor-verify", { code: "123456" });
    expect(post.status).toBe(303);
    expect(post.headers.get("Location")).toBe("/login");
  });

  it("a signed-in user goes on to the dashboard", async () => {
    const cookie = await signInCookie(await createUser());
    const res = await request("/two-factor-verify", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/dashboard");
  });

  it("signs in end to end with the emailed code, keeping the challenge across reloads", async () => {
    const user = await createUser({ twoFactor: true });
    const jar = await startTwoFactor(user, "/profile");

    for (let reload = 0; reload < 2; reload++) {
      const res = await request("/two-factor-verify?redirectTo=%2Fprofile", { cookie: jar });
      expect(res.status).toBe(200);
      const html = await page(res);
      expect(html).toContain(`We sent a code to <strong data-testid="sent-to">u***@test.example</strong>`);
      expect(html).toContain("5 attempts remaining.");
      expect(html).toContain("It expires in 5 minutes.");
      expect(html).toContain("Send code by email");
      expect(html).toContain('name="redirectTo" value="/profile"');
    }

    const res = await form("/two-factor-verify", { intent: "verify", code: await emailedCode(user.email), redirectTo: "/profile" }, jar);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/profile");
    const signed = cookiesFrom(res, jar);
    expect(signed).toMatch(/__session=/);
    expect(signed).not.toMatch(/__2fa=/);
    expect((await request("/dashboard", { cookie: signed })).status).toBe(200);
    expect((await challengeOf(user)).consumedAt).not.toBeNull();
    // The challenge is used: the screen now sends the signed-in user on.
    expect((await request("/two-factor-verify", { cookie: signed })).headers.get("Location")).toBe("/dashboard");
  });

  it("refuses a malformed code with 422 and spends no attempt", async () => {
    const user = await createUser({ twoFactor: true });
    const jar = await startTwoFactor(user);
    const res = await form("/two-factor-verify", { intent: "verify", code: "12ab" }, jar);
    expect(res.status).toBe(422);
    const html = await page(res);
    expect(html).toContain("Enter the 6-digit code.");
    expect(html).toContain('aria-invalid="true"');
    expect((await challengeOf(user)).attemptsRemaining).toBe(5);
    expect(await sessionCount("user", user.id)).toBe(0);
  });

  it("counts wrong codes down and ends the challenge after the fifth", async () => {
    const user = await createUser({ twoFactor: true });
    const jar = await startTwoFactor(user);
    const code = await emailedCode(user.email);
    for (let i = 1; i <= 4; i++) {
      const res = await form("/two-factor-verify", { intent: "verify", code: otherCode(code, i) }, jar);
      expect(res.status).toBe(422);
      const html = await page(res);
      expect(html).toContain(AUTH_MESSAGES.verificationFailed);
      expect(html).toContain(5 - i === 1 ? "1 attempt remaining." : `${5 - i} attempts remaining.`);
    }
    const fifth = await form("/two-factor-verify", { intent: "verify", code: otherCode(code, 5) }, jar);
    expect(fifth.status).toBe(422);
    const html = await page(fifth);
    expect(html).toContain(AUTH_MESSAGES.attemptsExhausted);
    expect(html).toContain('href="/login"');
    expect(html).not.toContain('name="code"');
    expect(cookiesFrom(fifth, jar)).not.toMatch(/__2fa=/);

    // Even the right code no longer works on the void challenge.
    const late = await form("/two-factor-verify", { intent: "verify", code }, jar);
    expect(late.status).toBe(303);
    expect(late.headers.get("Location")).toBe("/login");
    expect(await sessionCount("user", user.id)).toBe(0);
    expect((await request("/two-factor-verify")).headers.get("Location")).toBe("/login");
  });

  it("says the code expired once its time is up", async () => {
    const user = await createUser({ twoFactor: true });
    const jar = await startTwoFactor(user);
    const code = await emailedCode(user.email);
    await db().update(twoFactorChallenges).set({ expiresAt: minutesAgo(1) }).where(eq(twoFactorChallenges.id, (await challengeOf(user)).id));
    const res = await form("/two-factor-verify", { intent: "verify", code }, jar);
    expect(res.status).toBe(422);
    const html = await page(res);
    expect(html).toContain(AUTH_MESSAGES.codeExpired);
    expect(html).toContain("It has expired; ask for a new one.");
    expect(await sessionCount("user", user.id)).toBe(0);
  });

  it("resend emails a new code that works, and the old one stops working", async () => {
    const user = await createUser({ twoFactor: true });
    const jar = await startTwoFactor(user);
    const first = await emailedCode(user.email);
    const res = await form("/two-factor-verify", { intent: "resend", redirectTo: "/dashboard" }, jar);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/two-factor-verify?redirectTo=%2Fdashboard&sent=1");
    const [sent] = await db().select({ n: count() }).from(outboxEmails).where(eq(outboxEmails.to, user.email));
    expect(sent!.n).toBe(2);
    expect(await page(await request(res.headers.get("Location")!, { cookie: jar }))).toContain(AUTH_MESSAGES.codeResent);

    const second = await emailedCode(user.email);
    if (second !== first) expect((await form("/two-factor-verify", { intent: "verify", code: first }, jar)).status).toBe(422);
    const ok = await form("/two-factor-verify", { intent: "verify", code: second }, jar);
    expect(ok.status).toBe(303);
    expect(cookiesFrom(ok)).toMatch(/__session=/);
  });

  it("the method block sends the code by email and refuses other methods", async () => {
    const user = await createUser({ twoFactor: true });
    const jar = await startTwoFactor(user);
    const email = await form("/two-factor-verify", { intent: "send", method: "email" }, jar);
    expect(email.status).toBe(303);
    expect(email.headers.get("Location")).toMatch(/sent=1$/);
    const sms = await form("/two-factor-verify", { intent: "send", method: "sms" }, jar);
    expect(sms.status).toBe(422);
    expect(await page(sms)).toContain("Only email verification is available.");
  });

  it("a backup code works once and only once", async () => {
    const user = await createUser({ twoFactor: true });
    const codes = await generateBackupCodes(db(), { type: "user", id: user.id }, selfWho({ type: "user", id: user.id }, "127.0.0.1"));

    const empty = await form("/two-factor-verify", { intent: "backup", backup_code: " " }, await startTwoFactor(user));
    expect(empty.status).toBe(422);
    expect(await page(empty)).toContain("Enter a backup code.");

    const first = await form("/two-factor-verify", { intent: "backup", backup_code: codes[0]! }, await startTwoFactor(user));
    expect(first.status).toBe(303);
    expect(first.headers.get("Location")).toBe("/dashboard");
    expect(cookiesFrom(first)).toMatch(/__session=/);

    const jar = await startTwoFactor(user);
    const again = await form("/two-factor-verify", { intent: "backup", backup_code: codes[0]! }, jar);
    expect(again.status).toBe(422);
    const html = await page(again);
    expect(html).toContain(AUTH_MESSAGES.backupFailed);
    expect(html).toContain("4 attempts remaining.");

    // Another unused code, typed in lower case without the dash, still works.
    const other = await form("/two-factor-verify", { intent: "backup", backup_code: codes[1]!.replace("-", "").toLowerCase() }, jar);
    expect(other.status).toBe(303);
    const [left] = await db()
      .select({ n: count() })
      .from(backupCodes)
      .where(and(eq(backupCodes.principalType, "user"), eq(backupCodes.principalId, user.id)));
    expect(left!.n).toBe(10);
  });
});

describe("password reset screens", () => {
  it("forgot-password refuses a bad email with 422, keeps it, and starts nothing", async () => {
    const res = await form("/forgot-password", { email: "not-an-email" });
    expect(res.status).toBe(422);
    const html = await page(res);
    expect(html).toContain(AUTH_MESSAGES.emailInvalid);
    expect(html).toContain('value="not-an-email"');
    expect(res.headers.getSetCookie()).toEqual([]);
  });

  it("answers the same for a known and an unknown email", async () => {
    const user = await createUser();
    const known = await form("/forgot-password", { email: user.email });
    const unknown = await form("/forgot-password", { email: "nobody-here@test.example" });
    for (const res of [known, unknown]) {
      expect(res.status).toBe(303);
      expect(res.headers.get("Location")).toBe("/reset-password-verify");
      const html = await page(await request("/reset-password-verify", { cookie: cookiesFrom(res) }));
      expect(html).toContain(AUTH_MESSAGES.resetSent);
    }
    expect(codeIn((await lastEmail(user.email))!.text)).toMatch(/^\d{6}$/);
    expect(await lastEmail("nobody-here@test.example")).toBeNull();

    // Any code for the unknown email just fails.
    const verify = await form("/reset-password-verify", { code: "123456" }, cookiesFrom(unknown));
    expect(verify.status).toBe(422);
    expect(await page(verify)).toContain(AUTH_MESSAGES.verificationFailed);
  });

  it("the later steps send a browser that skipped a step back", async () => {
    expect((await request("/reset-password-verify")).headers.get("Location")).toBe("/forgot-password");
    expect((await form("/reset-password-verify", { code: "123456" })).headers.get("Location")).toBe("/forgot-password");
    expect((await request("/reset-password-change")).headers.get("Location")).toBe("/forgot-password");
    const emailOnly = "__reset_email=someone%40test.example";
    expect((await request("/reset-password-change", { cookie: emailOnly })).headers.get("Location")).toBe("/reset-password-verify");
    expect((await form("/reset-password-change", { password: "whatever-123", password_confirmation: "whatever-123" }, emailOnly)).headers.get("Location")).toBe(
      "/reset-password-verify",
    );
  });

  it("resets end to end: wrong code, a new code, the change; then only the new password signs in", async () => {
    const user = await createUser();
    const elsewhere = await signInCookie(user);
    let jar = cookiesFrom(await form("/forgot-password", { email: user.email }));
    expect(await page(await request("/reset-password-verify", { cookie: jar }))).toContain("u***@test.example");

    const first = codeIn((await lastEmail(user.email))!.text);
    const wrong = await form("/reset-password-verify", { intent: "verify", code: otherCode(first) }, jar);
    expect(wrong.status).toBe(422);
    expect(await page(wrong)).toContain("4 attempts remaining.");
    const bad = await form("/reset-password-verify", { intent: "verify", code: "abc" }, jar);
    expect(bad.status).toBe(422);
    expect(await page(bad)).toContain("Enter the 6-digit code.");

    const resend = await form("/reset-password-verify", { intent: "resend" }, jar);
    expect(resend.status).toBe(303);
    expect(resend.headers.get("Location")).toBe("/reset-password-verify?sent=1");
    jar = cookiesFrom(resend, jar);
    const code = codeIn((await lastEmail(user.email))!.text);

    const verified = await form("/reset-password-verify", { intent: "verify", code }, jar);
    expect(verified.status).toBe(303);
    expect(verified.headers.get("Location")).toBe("/reset-password-change");
    jar = cookiesFrom(verified, jar);
    expect(jar).toMatch(/__reset_token=/);
    expect((await request("/reset-password-change", { cookie: jar })).status).toBe(200);

    const [before] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    const mismatch = await form("/reset-password-change", { password: "brand-new-pass-1", password_confirmation: "brand-new-pass-2" }, jar);
    expect(mismatch.status).toBe(422);
    expect(await page(mismatch)).toContain("Passwords do not match.");
    const short = await form("/reset-password-change", { password: "short", password_confirmation: "short" }, jar);
    expect(short.status).toBe(422);
    expect(await page(short)).toContain("Password must be at least 8 characters.");
    const [unchanged] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    expect(unchanged!.hash).toBe(before!.hash);

    const changed = await form("/reset-password-change", { password: "brand-new-pass-1", password_confirmation: "brand-new-pass-1" }, jar);
    expect(changed.status).toBe(303);
    expect(changed.headers.get("Location")).toBe("/login?reset=1");
    expect(cookiesBesidesBookmark(changed, jar)).toBe("");
    expect(await page(await request("/login?reset=1"))).toContain(AUTH_MESSAGES.passwordChanged);
    // Recorded on the account (never the password): the request, the wrong code and the new code's request by nobody
    // signed in (decision 019, stop 44; a code that is not 6 digits is a form error, not a guess), the change by the account.
    const trail = await db().select().from(auditLog).where(and(eq(auditLog.entity, "employee"), eq(auditLog.entityId, String(user.id))));
    expect(trail.map((r) => [r.action, r.actorType, r.actorId])).toEqual([
      ["password_reset_requested", "anonymous", null],
      ["password_reset_failed", "anonymous", null],
      ["password_reset_requested", "anonymous", null],
      ["password_reset", "user", user.id],
    ]);
    expect(JSON.stringify(trail)).not.toContain("brand-new-pass-1");

    // Every earlier session ended; the old password fails and the new one works.
    expect((await request("/dashboard", { cookie: elsewhere })).status).toBe(302);
    expect((await form("/login", { email: user.email, password: user.password })).status).toBe(401);
    expect((await form("/login", { email: user.email, password: "brand-new-pass-1" })).status).toBe(303);

    // The reset token was one-time: replaying the old cookies ends the flow.
    const replay = await form("/reset-password-change", { password: "another-pass-22", password_confirmation: "another-pass-22" }, jar);
    expect(replay.status).toBe(422);
    expect(await page(replay)).toContain(AUTH_MESSAGES.resetTokenInvalid);
    expect(cookiesBesidesBookmark(replay, jar)).toBe("");
  });

  it("five wrong reset codes void the code", async () => {
    const user = await createUser();
    const jar = cookiesFrom(await form("/forgot-password", { email: user.email }));
    const code = codeIn((await lastEmail(user.email))!.text);
    let last: Response | null = null;
    for (let i = 1; i <= 5; i++) last = await form("/reset-password-verify", { code: otherCode(code, i) }, jar);
    expect(last!.status).toBe(422);
    expect(await page(last!)).toContain(AUTH_MESSAGES.resetAttemptsExhausted);
    const late = await form("/reset-password-verify", { code }, jar);
    expect(late.status).toBe(422);
    expect(await page(late)).toContain(AUTH_MESSAGES.verificationFailed);
  });
});

describe("change-password", () => {
  it("without a session sends the browser to sign-in", async () => {
    const res = await request("/change-password");
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/login?redirectTo=%2Fchange-password");
    const post = await form("/change-password", { current_password: "x", password: "new-password-1", password_confirmation: "new-password-1" });
    expect(post.headers.get("Location")).toMatch(/^\/login/);
  });

  it("changes the password, ends other sessions, and keeps this browser signed in", async () => {
    const user = await createUser({ name: "Casey" });
    const here = await signInCookie(user);
    const there = await signInCookie(user);
    const res = await form("/change-password", { current_password: user.password, password: "fresh-password-9", password_confirmation: "fresh-password-9" }, here);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/change-password?changed=1");
    const renewed = cookiesFrom(res, here);
    expect(renewed).not.toBe(here);

    const after = await request("/change-password?changed=1", { cookie: renewed });
    expect(after.status).toBe(200);
    expect(await page(after)).toContain("Your password has been changed. Other devices have been signed out.");
    expect((await request("/dashboard", { cookie: here })).status).toBe(302);
    expect((await request("/dashboard", { cookie: there })).status).toBe(302);
    expect(await sessionCount("user", user.id)).toBe(1);
    expect((await form("/login", { email: user.email, password: "fresh-password-9" })).status).toBe(303);
  });

  it.each([
    [{ current_password: "wrong-password", password: "fresh-password-9", password_confirmation: "fresh-password-9" }, AUTH_MESSAGES.currentPasswordWrong],
    [{ current_password: "", password: "fresh-password-9", password_confirmation: "fresh-password-9" }, "Password is required."],
    [{ current_password: "CURRENT", password: "fresh-password-9", password_confirmation: "fresh-password-8" }, "Passwords do not match."],
    [{ current_password: "CURRENT", password: "short", password_confirmation: "short" }, "Password must be at least 8 characters."],
  ])("refuses %j with 422 and changes nothing", async (fields, message) => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    const [before] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    const res = await form("/change-password", { ...fields, current_password: fields.current_password.replace("CURRENT", user.password) }, cookie);
    expect(res.status).toBe(422);
    expect(await page(res)).toContain(message);
    const [after] = await db().select({ hash: users.passwordHash }).from(users).where(eq(users.id, user.id));
    expect(after!.hash).toBe(before!.hash);
    expect((await request("/dashboard", { cookie })).status).toBe(200);
  });

  it("a parent can change their password too", async () => {
    const parent = await createParent();
    const cookie = await signInCookie(parent, true);
    const res = await form("/change-password", { current_password: parent.password, password: "parent-pass-123", password_confirmation: "parent-pass-123" }, cookie);
    expect(res.status).toBe(303);
    expect((await request("/dashboard", { cookie: cookiesFrom(res, cookie) })).status).toBe(200);
    expect((await form("/login", { email: parent.email, password: "parent-pass-123", parent: "on" })).status).toBe(303);
  });
});

describe("lock-screen", () => {
  const idle = (user: TestUser) =>
    db()
      .update(sessions)
      .set({ lastSeenAt: minutesAgo(31) })
      .where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, user.id)));

  it("without a session goes to sign-in; with an active one goes to the dashboard", async () => {
    expect((await request("/lock-screen")).headers.get("Location")).toBe("/login");
    expect((await form("/lock-screen", { password: "x" })).headers.get("Location")).toBe("/login");
    const cookie = await signInCookie(await createUser());
    const res = await request("/lock-screen", { cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/dashboard");
  });

  it("an idle session locks, and the right password resumes the same session", async () => {
    const user = await createUser({ name: "Jordan" });
    const cookie = await signInCookie(user);
    await idle(user);

    const locked = await request("/dashboard", { cookie });
    expect(locked.status).toBe(302);
    expect(locked.headers.get("Location")).toBe("/lock-screen?redirectTo=%2Fdashboard");

    const screen = await request("/lock-screen?redirectTo=%2Fdashboard", { cookie });
    expect(screen.status).toBe(200);
    const html = await page(screen);
    expect(html).toContain('data-testid="locked-name">Jordan User<');
    expect(html).toContain('action="/logout"');

    const wrong = await form("/lock-screen", { password: "wrong-password", redirectTo: "/dashboard" }, cookie);
    expect(wrong.status).toBe(401);
    expect(await page(wrong)).toContain(AUTH_MESSAGES.unlockPasswordWrong);
    const empty = await form("/lock-screen", { password: "", redirectTo: "/dashboard" }, cookie);
    expect(empty.status).toBe(422);
    expect(await page(empty)).toContain("Password is required.");
    expect((await request("/dashboard", { cookie })).status).toBe(302);

    const unlocked = await form("/lock-screen", { password: user.password, redirectTo: "/dashboard" }, cookie);
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers.get("Location")).toBe("/dashboard");
    expect(setCookiesBesidesBookmark(unlocked)).toEqual([]);
    expect((await request("/dashboard", { cookie })).status).toBe(200);
    expect(await sessionCount("user", user.id)).toBe(1);
  });

  it("a session past the absolute limit is gone: the lock screen sends to sign-in", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    await db()
      .update(sessions)
      .set({ createdAt: minutesAgo(13 * 60), lastSeenAt: minutesAgo(31) })
      .where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, user.id)));
    expect((await request("/lock-screen", { cookie })).headers.get("Location")).toBe("/login");
  });

  it("sign out from the lock screen ends the session", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    await idle(user);
    const res = await form("/logout", {}, cookie);
    expect(res.headers.get("Location")).toBe("/login?loggedOut=1");
    expect(await sessionCount("user", user.id)).toBe(0);
  });

  it("the audit trail tells an unlock and a refused password there from sign-ins: who, why, and the unlock itself", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    await idle(user);
    const rowsOf = async () => (await db().select().from(auditLog).where(and(eq(auditLog.actorType, "user"), eq(auditLog.actorId, user.id)))).map((r) => ({ action: r.action, entityId: r.entityId, detail: r.detail && JSON.parse(r.detail) }));
    const before = (await rowsOf()).length;
    const anonymousFailures = async () => (await db().select({ n: count() }).from(auditLog).where(eq(auditLog.action, "sign_in_failed")))[0]!.n;
    const failuresBefore = await anonymousFailures();

    expect((await form("/lock-screen", { password: "wrong-password", redirectTo: "/dashboard" }, cookie)).status).toBe(401);
    expect((await form("/lock-screen", { password: user.password, redirectTo: "/dashboard" }, cookie)).status).toBe(303);
    expect((await rowsOf()).slice(before)).toEqual([
      { action: "password_check_failed", entityId: String(user.id), detail: { purpose: "unlock" } },
      { action: "session_unlocked", entityId: String(user.id), detail: null },
    ]);
    expect(await anonymousFailures()).toBe(failuresBefore);

    // The change-password screen's refused current password is the same kind of row, with its own purpose.
    const fresh = await signInCookie(user);
    const refused = await form("/change-password", { current_password: "wrong-password", password: "another-pass-123", password_confirmation: "another-pass-123" }, fresh);
    expect(refused.status).toBe(422);
    expect((await rowsOf()).at(-1)).toEqual({ action: "password_check_failed", entityId: String(user.id), detail: { purpose: "change_password" } });
  });
});

describe("register", () => {
  const fields = { name: "Avery", surname: "First", email: "first-admin@test.example", password: "first-admin-pass", password_confirmation: "first-admin-pass" };
  const userCount = async () => (await db().select({ n: count() }).from(users))[0]!.n;

  it("is closed once a user exists: GET explains, POST answers 403 and writes nothing", async () => {
    await createUser();
    const get = await request("/register");
    expect(get.status).toBe(200);
    const html = await page(get);
    expect(html).toContain(AUTH_MESSAGES.registrationClosed);
    expect(html).toContain('href="/login"');
    expect(html).not.toContain('name="password"');

    const before = await userCount();
    const post = await form("/register", { ...fields, email: "late-comer@test.example" });
    expect(post.status).toBe(403);
    expect(await page(post)).toContain(AUTH_MESSAGES.registrationClosed);
    expect(await userCount()).toBe(before);
  });

  it("on a fresh installation creates the first SUPERADMIN and signs them in", async () => {
    // A fresh installation: no users at all (their roles and locations go with them).
    await db().delete(users);
    expect(await page(await request("/register"))).toContain("Create the first account");

    const badEmail = await form("/register", { ...fields, email: "nope" });
    expect(badEmail.status).toBe(422);
    const html = await page(badEmail);
    expect(html).toContain(AUTH_MESSAGES.emailInvalid);
    expect(html).toContain('value="Avery"');
    expect(html).toContain('value="First"');
    expect(html).toContain('value="nope"');
    const mismatch = await form("/register", { ...fields, password_confirmation: "different-pass" });
    expect(mismatch.status).toBe(422);
    expect(await page(mismatch)).toContain("Passwords do not match.");
    const noName = await form("/register", { ...fields, name: "  " });
    expect(noName.status).toBe(422);
    expect(await page(noName)).toContain("Name is required.");
    expect(await userCount()).toBe(0);

    const res = await form("/register", fields);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/dashboard");
    const cookie = cookiesFrom(res);
    expect((await request("/dashboard", { cookie })).status).toBe(200);
    const [role] = await db()
      .select({ name: roles.name })
      .from(userRoles)
      .innerJoin(roles, eq(roles.id, userRoles.roleId))
      .innerJoin(users, eq(users.id, userRoles.userId))
      .where(eq(users.email, fields.email));
    expect(role!.name).toBe("SUPERADMIN");

    const again = await form("/register", { ...fields, email: "second@test.example" });
    expect(again.status).toBe(403);
    expect(await userCount()).toBe(1);
  });
});

describe("profile", () => {
  const codesIn = (html: string) => [...html.matchAll(/<li>([A-Z2-9]{5}-[A-Z2-9]{5})<\/li>/g)].map((m) => m[1]!);

  it("shows the user's name, email and roles", async () => {
    const user = await createUser({ name: "Riley", role: "BCBA" });
    const res = await request("/profile", { cookie: await signInCookie(user) });
    expect(res.status).toBe(200);
    const html = await page(res);
    expect(html).toContain('data-testid="profile-name">Riley User<');
    expect(html).toContain(user.email);
    expect(html).toContain("BCBA");
    expect(html).toContain("Off: signing in asks only for your password.");
  });

  it("turning two-factor on needs the password and shows ten backup codes once", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);

    const wrong = await form("/profile", { intent: "two-factor", enabled: "true", current_password: "wrong-password" }, cookie);
    expect(wrong.status).toBe(422);
    expect(await page(wrong)).toContain(AUTH_MESSAGES.currentPasswordWrong);
    const [still] = await db().select({ on: users.twoFactorEnabled }).from(users).where(eq(users.id, user.id));
    expect(still!.on).toBe(false);

    const on = await form("/profile", { intent: "two-factor", enabled: "true", current_password: user.password }, cookie);
    expect(on.status).toBe(200);
    expect(on.headers.get("Cache-Control")).toBe("no-store");
    const codes = codesIn(await page(on));
    expect(codes).toHaveLength(10);
    // The switch ended every session of the account; this browser goes on with the fresh one it was given.
    const here = cookiesFrom(on, cookie);

    const later = await page(await request("/profile", { cookie: here }));
    expect(later).toContain("10 unused backup codes left.");
    for (const c of codes) expect(later).not.toContain(c);

    // The next sign-in asks for a code; a shown backup code stands in for it.
    const jar = await startTwoFactor(user);
    expect((await form("/two-factor-verify", { intent: "backup", backup_code: codes[3]! }, jar)).status).toBe(303);
    expect(await page(await request("/profile", { cookie: here }))).toContain("9 unused backup codes left.");
  });

  it("the page answered right after turning two-factor on shows it on, offers to turn it off, and counts the codes (probe 8933 §4)", async () => {
    const user = await createUser({ name: "Noor" });
    const cookie = await signInCookie(user);
    const on = await form("/profile", { intent: "two-factor", enabled: "true", current_password: user.password }, cookie);
    expect(on.status).toBe(200);
    const html = await page(on);
    expect(codesIn(html)).toHaveLength(10);
    expect(html).toContain("On: signing in asks for a code sent to your email.");
    expect(html).not.toContain("Off: signing in asks only for your password.");
    expect(html).toContain("Turn off two-factor verification");
    expect(html).not.toContain("Turn on two-factor verification");
    expect(html).toContain('name="enabled" value="false"');
    expect(html).toContain("10 unused backup codes left.");
    // The layout read through the fresh session too: still signed in as Noor.
    expect(html).toContain('data-testid="profile-name">Noor User<');
  });

  it("turning two-factor on when it is already on is refused and keeps the backup codes and sessions (probe 8933 §4)", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    const on = await form("/profile", { intent: "two-factor", enabled: "true", current_password: user.password }, cookie);
    const codes = codesIn(await page(on));
    const here = cookiesFrom(on, cookie);
    const audited = async () =>
      (await db()
        .select({ n: count() })
        .from(auditLog)
        .where(and(eq(auditLog.action, "two_factor_on"), eq(auditLog.entityId, String(user.id)))))[0]!.n;
    expect(await audited()).toBe(1);

    // A form left from before (another tab, or a page that still said "Off") posts the same switch again.
    const again = await form("/profile", { intent: "two-factor", enabled: "true", current_password: user.password }, here);
    expect(again.status).toBe(422);
    const html = await page(again);
    expect(html).toContain(AUTH_MESSAGES.twoFactorAlreadyOn);
    expect(codesIn(html)).toEqual([]);
    expect(html).toContain("On: signing in asks for a code sent to your email.");
    expect(await audited()).toBe(1);

    // This browser stays signed in (nothing ended its session), and the codes shown first still work.
    expect(await page(await request("/profile", { cookie: here }))).toContain("10 unused backup codes left.");
    const jar = await startTwoFactor(user);
    expect((await form("/two-factor-verify", { intent: "backup", backup_code: codes[0]! }, jar)).status).toBe(303);
  });

  it("of two turn-ons posted at once (a double click), one shows codes that work and the other changes nothing", async () => {
    const user = await createUser();
    const cookie = await signInCookie(user);
    const answers = await Promise.all([1, 2].map(() => form("/profile", { intent: "two-factor", enabled: "true", current_password: user.password }, cookie)));
    // The other is refused (422), or finds its session already ended by the first and goes to sign-in.
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    expect([422, 302]).toContain(answers.find((r) => r.status !== 200)!.status);
    const switched = await db()
      .select({ n: count() })
      .from(auditLog)
      .where(and(eq(auditLog.action, "two_factor_on"), eq(auditLog.entityId, String(user.id))));
    expect(switched[0]!.n).toBe(1);
    const codes = codesIn(await page(answers.find((r) => r.status === 200)!));
    expect(codes).toHaveLength(10);
    const jar = await startTwoFactor(user);
    expect((await form("/two-factor-verify", { intent: "backup", backup_code: codes[0]! }, jar)).status).toBe(303);
  });

  it("new backup codes replace the old ones; turning off clears them", async () => {
    const user = await createUser({ twoFactor: true });
    const old = await generateBackupCodes(db(), { type: "user", id: user.id }, selfWho({ type: "user", id: user.id }, "127.0.0.1"));
    // A two-factor user signs in through the code screen.
    const jar = await startTwoFactor(user);
    const signed = cookiesFrom(await form("/two-factor-verify", { code: await emailedCode(user.email) }, jar));

    const noPassword = await form("/profile", { intent: "backup-codes", current_password: "" }, signed);
    expect(noPassword.status).toBe(422);
    expect(await page(noPassword)).toContain("Password is required.");

    const fresh = await form("/profile", { intent: "backup-codes", current_password: user.password }, signed);
    expect(fresh.status).toBe(200);
    const codes = codesIn(await page(fresh));
    expect(codes).toHaveLength(10);
    expect(codes.some((c) => old.includes(c))).toBe(false);

    const again = await startTwoFactor(user);
    expect((await form("/two-factor-verify", { intent: "backup", backup_code: old[0]! }, again)).status).toBe(422);

    const off = await form("/profile", { intent: "two-factor", enabled: "false", current_password: user.password }, signed);
    expect(off.status).toBe(303);
    expect(off.headers.get("Location")).toBe("/profile?twoFactor=off");
    const here = cookiesFrom(off, signed);
    const html = await page(await request("/profile?twoFactor=off", { cookie: here }));
    expect(html).toContain("Two-factor verification is off.");
    expect(html).not.toContain("Generate new backup codes");
    const [left] = await db()
      .select({ n: count() })
      .from(backupCodes)
      .where(and(eq(backupCodes.principalType, "user"), eq(backupCodes.principalId, user.id)));
    expect(left!.n).toBe(0);
    expect((await form("/login", { email: user.email, password: user.password })).headers.get("Location")).toBe("/dashboard");

    const refused = await form("/profile", { intent: "backup-codes", current_password: user.password }, here);
    expect(refused.status).toBe(422);
    expect(await page(refused)).toContain(AUTH_MESSAGES.twoFactorOffFirst);
  });

  it("an unknown action is refused with 400", async () => {
    const cookie = await signInCookie(await createUser());
    expect((await form("/profile", { intent: "delete-everything" }, cookie)).status).toBe(400);
  });
});

describe("dev outbox", () => {
  it("lists emails newest first and filters by recipient", async () => {
    await db()
      .insert(outboxEmails)
      .values([
        { to: "reader@test.example", subject: "Older notice", text: "first body" },
        { to: "reader@test.example", subject: "Newer notice", text: "second body" },
        { to: "someone-else@test.example", subject: "Not for the reader", text: "other" },
      ]);
    const res = await request("/dev/outbox?to=reader%40test.example");
    expect(res.status).toBe(200);
    const html = await page(res);
    expect(html.indexOf("Newer notice")).toBeGreaterThan(-1);
    expect(html.indexOf("Newer notice")).toBeLessThan(html.indexOf("Older notice"));
    expect(html).toContain("<pre>second body</pre>");
    expect(html).not.toContain("Not for the reader");
    expect(await page(await request("/dev/outbox"))).toContain("Not for the reader");
  });

  it("does not exist outside development", async () => {
    const route = (build as unknown as { routes: Record<string, { module: { loader: (args: unknown) => Promise<unknown> } }> }).routes["routes/dev.outbox"]!;
    const thrown = await route.module
      .loader({ request: new Request("http://localhost/dev/outbox"), params: {}, context: { app: { isDev: false } } })
      .catch((e: unknown) => e);
    expect(thrown).toBeInstanceOf(Response);
    expect((thrown as Response).status).toBe(404);
  });
});

describe("the screen guard's session read", () => {
  const at = (cookie: string) => new Request("http://localhost/dashboard", { headers: { Cookie: cookie } });
  const ofUser = (id: number) => and(eq(sessions.principalType, "user"), eq(sessions.principalId, id));
  const sessionOf = async (id: number) => (await db().select().from(sessions).where(ofUser(id)))[0]!;

  it("reads the session and its user in one statement; the last-seen touch is written at most once a minute", async () => {
    const loc = await createLocation();
    const user = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
    const cookie = await signInCookie(user);
    // The settings are cached per isolate for 30 s: a fresh copy, so only the session read is counted below.
    forgetAuthSettings();
    await getAuthSettings(db());
    const first = countingDb();
    const fresh = await readSessionActor(first.db, at(cookie), new Date());
    expect(first.statements()).toBe(1);
    expect(fresh.session?.state).toBe("active");
    expect(fresh.actor).toMatchObject({ kind: "user", id: user.id, permissions: ["view_clients"], locationIds: [loc.id], timeZone: "America/New_York" });

    await db().update(sessions).set({ lastSeenAt: minutesAgo(2) }).where(ofUser(user.id));
    const due = countingDb();
    const now = new Date();
    await readSessionActor(due.db, at(cookie), now);
    expect(due.statements()).toBe(2);
    expect((await sessionOf(user.id)).lastSeenAt).toBe(now.toISOString());
  });

  it("a parent's session loads the parent", async () => {
    const parent = await createParent({ name: "Gwen" });
    const cookie = await signInCookie(parent, true);
    const { actor } = await readSessionActor(db(), at(cookie), new Date());
    expect(actor).toMatchObject({ kind: "parent", id: parent.id, name: "Gwen", roles: ["PARENT"], permissions: [] });
  });

  it("no actor for a deactivated or deleted user, nor while locked (the lock is written once); an expired session is removed", async () => {
    const inactive = await createUser();
    const cookie = await signInCookie(inactive);
    await db().update(users).set({ status: "inactive" }).where(eq(users.id, inactive.id));
    expect(await readSessionActor(db(), at(cookie), new Date())).toMatchObject({ session: { state: "active" }, actor: null });
    expect((await request("/dashboard", { cookie })).headers.get("Location")).toBe("/login?redirectTo=%2Fdashboard");

    const deleted = await createUser();
    const deletedCookie = await signInCookie(deleted);
    await db().update(users).set({ deletedAt: new Date().toISOString() }).where(eq(users.id, deleted.id));
    expect((await readSessionActor(db(), at(deletedCookie), new Date())).actor).toBeNull();

    const idle = await createUser();
    const idleCookie = await signInCookie(idle);
    await db().update(sessions).set({ lastSeenAt: minutesAgo(31) }).where(ofUser(idle.id));
    expect(await readSessionActor(db(), at(idleCookie), new Date())).toMatchObject({ session: { state: "locked" }, actor: null });
    expect((await sessionOf(idle.id)).locked).toBe(true);
    const again = countingDb();
    await readSessionActor(again.db, at(idleCookie), new Date());
    expect(again.statements()).toBe(1);

    const old = await createUser();
    const oldCookie = await signInCookie(old);
    await db().update(sessions).set({ createdAt: minutesAgo(13 * 60) }).where(ofUser(old.id));
    expect(await readSessionActor(db(), at(oldCookie), new Date())).toMatchObject({ session: null, actor: null });
    expect(await sessionCount("user", old.id)).toBe(0);
  });
});
