import { afterEach, describe, expect, it } from "vitest";
import { api, createUser, form, lastEmail, request, signInCookie } from "./helpers";

/** The code emails say how long the code lasts in words that fit the number (probe 8951 #3). */

let superadmin: string | null = null;
async function setCodeExpiry(minutes: number) {
  superadmin ??= await signInCookie(await createUser({ role: "SUPERADMIN" }));
  const body = new URLSearchParams({ intent: "save", code_expiry_minutes: String(minutes), idle_minutes: "30", absolute_hours: "12", demo_mode: "true" });
  const res = await request("/settings", { method: "POST", body, cookie: superadmin, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
  expect(res.status).toBe(303);
}

afterEach(async () => {
  await setCodeExpiry(5);
});

describe("code emails", () => {
  it.each([
    [1, "It expires in 1 minute. It can be used once."],
    [5, "It expires in 5 minutes. It can be used once."],
  ])("with a %i-minute expiry, the sign-in and password reset emails say %j", async (minutes, sentence) => {
    await setCodeExpiry(minutes);
    const resetFor = await createUser();
    expect((await form("/forgot-password", { email: resetFor.email })).headers.get("Location")).toBe("/reset-password-verify");
    const signInFor = await createUser({ twoFactor: true });
    expect((await form("/login", { email: signInFor.email, password: signInFor.password })).headers.get("Location")).toMatch(/^\/two-factor-verify/);
    // The API reads the setting the screen just saved at once: one settings cache for the screens and the API.
    const apiResetFor = await createUser();
    expect((await api("/password-reset/request", { method: "POST", body: { email: apiResetFor.email } })).status).toBe(200);
    for (const to of [resetFor.email, signInFor.email, apiResetFor.email]) {
      const text = (await lastEmail(to))!.text;
      expect(text).toContain(sentence);
      expect(text).not.toContain("1 minutes");
    }
  });
});
