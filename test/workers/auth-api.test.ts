import { describe, expect, it } from "vitest";
import { api, apiToken, codeIn, createLocation, createUser, lastEmail } from "./helpers";

describe("POST /api/auth/login", () => {
  it("answers a token and the user for correct credentials", async () => {
    const loc = await createLocation();
    const user = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
    const res = await api("/auth/login", { method: "POST", body: { email: user.email, password: user.password, parent: false } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, any>;
    expect(body.token_type).toBe("bearer");
    expect(body.expires_in).toBe(900);
    expect(body.user).toMatchObject({ email: user.email, permissions: ["view_clients"], locations: [loc.id] });
  });

  it("answers 202 with the two-factor fields when two-factor is on, and emails a code", async () => {
    const user = await createUser({ twoFactor: true });
    const res = await api("/auth/login", { method: "POST", body: { email: user.email, password: user.password } });
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({
      message: "Two-factor verification required.",
      two_factor_required: true,
      challenge_id: expect.stringMatching(/^[\w-]{32}$/),
      method_selection_required: false,
      attempts_remaining: 5,
      expires_in_minutes: 5,
      development_mode: true,
      sms_service_active: false,
    });
    const mail = await lastEmail(user.email);
    expect(codeIn(mail!.text)).toMatch(/^\d{6}$/);
  });

  it.each([
    [{ email: "", password: "x" }, 422, "Email is required."],
    [{ email: "not-an-email", password: "x" }, 422, "Enter a valid email address."],
    [{ email: "a@b.co", password: "" }, 422, "Password is required."],
  ])("refuses bad input %j with %i", async (body, status, message) => {
    const res = await api("/auth/login", { method: "POST", body });
    expect(res.status).toBe(status);
    expect(((await res.json()) as { message: string }).message).toBe(message);
  });

  it("gives the same answer for a wrong password and an unknown email", async () => {
    const user = await createUser();
    const wrong = await api("/auth/login", { method: "POST", body: { email: user.email, password: "wrong-password" } });
    const unknown = await api("/auth/login", { method: "POST", body: { email: "nobody@test.example", password: "wrong-password" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
  });

  it("locks the account with 429 and retry_after after repeated failures", async () => {
    const user = await createUser();
    for (let i = 0; i < 5; i++) await api("/auth/login", { method: "POST", body: { email: user.email, password: "wrong-password" } });
    const res = await api("/auth/login", { method: "POST", body: { email: user.email, password: user.password } });
    expect(res.status).toBe(429);
    const body = (await res.json()) as { retry_after: number };
    expect(body.retry_after).toBeGreaterThan(0);
    expect(res.headers.get("Retry-After")).toBe(String(body.retry_after));
  });
});

describe("refresh, me and logout", () => {
  it("refresh answers a new token and the old one stops working", async () => {
    const user = await createUser({ permissions: ["view_bips"] });
    const token = await apiToken(user);
    const res = await api("/auth/refresh", { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; user: { email: string } };
    expect(body.user.email).toBe(user.email);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(401);
    expect((await api("/auth/me", { method: "POST", token: body.access_token })).status).toBe(200);
  });

  it("logout revokes the token", async () => {
    const token = await apiToken(await createUser());
    expect((await api("/auth/logout", { method: "POST", token })).status).toBe(200);
    const after = await api("/auth/me", { method: "POST", token });
    expect(after.status).toBe(401);
    expect(await after.json()).toEqual({ message: "Unauthenticated." });
  });

  it("me without a token answers 401 JSON", async () => {
    const res = await api("/auth/me", { method: "POST" });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBe("Unauthenticated.");
  });
});

describe("GET /api/version", () => {
  it("answers the version", async () => {
    expect(await (await api("/version")).json()).toEqual({ version: "0.1.2-beta" });
  });
});
