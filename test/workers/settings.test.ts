import { and, asc, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { auditLog, sessions, settings } from "~/db/schema";
import { api, createParent, createUser, db, request, signInCookie, type TestUser, withoutFlashTag } from "./helpers";

/**
 * The settings screen (/settings; platform §9 constants the product reads): SUPERADMIN only, bounded values
 * with field errors, every change audited, and a new value in effect at once.
 */

const DEFAULTS = { code_expiry_minutes: "5", idle_minutes: "30", absolute_hours: "12", demo_mode: "true" };
const PERMISSIONS = ["manage_employees", "view_employees", "manage_roles", "access_all_locations", "manage_clients", "view_clients"] as const;

let superadmin: string | null = null;
async function superadminCookie(): Promise<string> {
  superadmin ??= await signInCookie(await createUser({ role: "SUPERADMIN" }));
  return superadmin;
}

function save(fields: Record<string, string>, cookie: string) {
  const body = new URLSearchParams({ intent: "save", ...fields });
  if (fields.demo_mode !== "true") body.delete("demo_mode");
  return request("/settings", { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}
const stored = async () => Object.fromEntries((await db().select().from(settings).orderBy(asc(settings.key))).map((r) => [r.key, r.value]));
const settingAudits = () => db().select().from(auditLog).where(eq(auditLog.entity, "setting")).orderBy(asc(auditLog.id));
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const idleFor = (user: TestUser, minutes: number) =>
  db()
    .update(sessions)
    .set({ lastSeenAt: minutesAgo(minutes) })
    .where(and(eq(sessions.principalType, "user"), eq(sessions.principalId, user.id)));

// Back to the defaults through the screen, so the Worker's cached copy is cleared too.
afterEach(async () => {
  expect((await save(DEFAULTS, await superadminCookie())).status).toBe(303);
});

describe("/settings", () => {
  it("a SUPERADMIN sees the values in effect and changes them: one audit row naming the changed keys", async () => {
    const cookie = await superadminCookie();
    const page = await request("/settings", { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    for (const [name, value] of [["code_expiry_minutes", "5"], ["idle_minutes", "30"], ["absolute_hours", "12"]]) expect(html).toMatch(new RegExp(`name="${name}"[^>]*value="${value}"`));
    expect(await (await request("/dashboard", { cookie })).text()).toContain('href="/settings"');

    const auditsBefore = (await settingAudits()).length;
    const res = await save({ ...DEFAULTS, code_expiry_minutes: "10", absolute_hours: "8" }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe(`/settings?flash=${encodeURIComponent("Settings saved.")}`);
    expect(await stored()).toMatchObject({ two_factor_code_expiry_minutes: "10", session_absolute_hours: "8" });
    expect((await stored()).session_idle_minutes).toBeUndefined();
    const rows = (await settingAudits()).slice(auditsBefore);
    expect(rows.map((r) => [r.action, r.entityId])).toEqual([["update", "two_factor_code_expiry_minutes,session_absolute_hours"]]);
    expect(await (await request(res.headers.get("Location")!, { cookie })).text()).toMatch(/name="absolute_hours"[^>]*value="8"/);

    // The same values again: nothing written, nothing audited.
    const same = await save({ ...DEFAULTS, code_expiry_minutes: "10", absolute_hours: "8" }, cookie);
    expect(withoutFlashTag(same.headers.get("Location"))).toBe(`/settings?flash=${encodeURIComponent("Nothing changed.")}`);
    expect((await settingAudits()).length).toBe(auditsBefore + 1);
  });

  it("ADMIN, staff holding every permission and parents get 403 on the screen and the form; nothing changes", async () => {
    const admin = await signInCookie(await createUser({ role: "ADMIN" }));
    const manager = await signInCookie(await createUser({ permissions: PERMISSIONS }));
    const parent = await signInCookie(await createParent(), true);
    const before = await stored();
    const auditsBefore = (await settingAudits()).length;
    for (const cookie of [admin, manager, parent]) {
      expect((await request("/settings", { cookie })).status).toBe(403);
      expect((await save({ ...DEFAULTS, idle_minutes: "5" }, cookie)).status).toBe(403);
    }
    expect(await (await request("/dashboard", { cookie: admin })).text()).not.toContain('href="/settings"');
    expect(await stored()).toEqual(before);
    expect((await settingAudits()).length).toBe(auditsBefore);
    const signedOut = await request("/settings");
    expect(signedOut.status).toBe(302);
    expect(signedOut.headers.get("Location")).toMatch(/^\/login\?redirectTo=%2Fsettings/);
  });

  it.each([
    ["code_expiry_minutes", "0", "Two-factor code expiry must be a whole number of minutes from 1 to 60."],
    ["code_expiry_minutes", "61", "Two-factor code expiry must be a whole number of minutes from 1 to 60."],
    ["code_expiry_minutes", "", "Two-factor code expiry must be a whole number of minutes from 1 to 60."],
    ["idle_minutes", "4", "Idle limit must be a whole number of minutes from 5 to 120."],
    ["idle_minutes", "121", "Idle limit must be a whole number of minutes from 5 to 120."],
    ["idle_minutes", "7.5", "Idle limit must be a whole number of minutes from 5 to 120."],
    ["idle_minutes", "ten", "Idle limit must be a whole number of minutes from 5 to 120."],
    ["absolute_hours", "0", "Absolute session limit must be a whole number of hours from 1 to 24."],
    ["absolute_hours", "25", "Absolute session limit must be a whole number of hours from 1 to 24."],
    ["absolute_hours", "-3", "Absolute session limit must be a whole number of hours from 1 to 24."],
  ])("%s = %j is refused with its field error and the typed value kept; nothing changes", async (field, value, message) => {
    const cookie = await superadminCookie();
    const before = await stored();
    const auditsBefore = (await settingAudits()).length;
    const res = await save({ ...DEFAULTS, idle_minutes: "45", [field]: value }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(message);
    expect(html).toMatch(new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`));
    expect(html).toMatch(new RegExp(`name="${field}"[^>]*value="${value.replace(".", "\\.")}"`));
    expect(await stored()).toEqual(before);
    expect((await settingAudits()).length).toBe(auditsBefore);
  });

  it("an idle limit as long as the absolute limit is refused", async () => {
    const before = await stored();
    const res = await save({ ...DEFAULTS, idle_minutes: "60", absolute_hours: "1" }, await superadminCookie());
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("The idle limit must be shorter than the absolute session limit.");
    expect(await stored()).toEqual(before);
  });

  it("a shorter idle limit takes effect at once: a session idle for 10 minutes locks", async () => {
    const user = await createUser({ permissions: ["view_clients"] });
    const cookie = await signInCookie(user);
    await idleFor(user, 10);
    expect((await request("/dashboard", { cookie })).status).toBe(200);
    expect((await save({ ...DEFAULTS, idle_minutes: "5" }, await superadminCookie())).status).toBe(303);
    await idleFor(user, 10);
    const locked = await request("/dashboard", { cookie });
    expect(locked.status).toBe(302);
    expect(locked.headers.get("Location")).toBe("/lock-screen?redirectTo=%2Fdashboard");
  });

  it("a new two-factor code expiry is what sign-in answers", async () => {
    expect((await save({ ...DEFAULTS, code_expiry_minutes: "2" }, await superadminCookie())).status).toBe(303);
    const user = await createUser({ twoFactor: true });
    const res = await api("/auth/login", { method: "POST", body: { email: user.email, password: user.password } });
    expect(res.status).toBe(202);
    expect(((await res.json()) as { expires_in_minutes: number }).expires_in_minutes).toBe(2);
  });

  it("demo mode off hides the demo banner; on shows it again", async () => {
    const cookie = await superadminCookie();
    expect(await (await request("/dashboard", { cookie })).text()).toContain("Demo Environment Notice");
    expect((await save({ ...DEFAULTS, demo_mode: "" }, cookie)).status).toBe(303);
    expect((await stored()).demo_mode).toBe("false");
    expect(await (await request("/dashboard", { cookie })).text()).not.toContain("Demo Environment Notice");
    expect((await save(DEFAULTS, cookie)).status).toBe(303);
    expect(await (await request("/dashboard", { cookie })).text()).toContain("Demo Environment Notice");
  });
});
