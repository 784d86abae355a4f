import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { flashTag, sealFlashRedirects } from "~/services/flash.server";
import { BASE, createLocation, createUser, form, request, signInCookie, withFlashTag } from "./helpers";

/**
 * A screen shows only the server's own flash (app/services/flash.server.ts; probe 8893, stop 25): a redirect that
 * carries one is tagged, and a page asked for with a flash it did not write is sent to the same address without it.
 */

const FORGED = "Your account is locked. Call 305-555-0000 to unlock.";

async function managerCookie() {
  const location = await createLocation();
  return signInCookie(await createUser({ permissions: ["view_clients", "manage_clients", "manage_roles", "manage_parents"], locations: [location.id] }));
}

describe("a flash the server did not write", () => {
  it.each([
    ["no tag", `/patients/list?flash=${encodeURIComponent(FORGED)}`, "/patients/list"],
    ["a wrong tag", `/patients/list?search=Ann&flash=${encodeURIComponent(FORGED)}&fs=${"0".repeat(32)}`, "/patients/list?search=Ann"],
    ["a tag of another text", `/roles/list?flash=${encodeURIComponent(FORGED)}&fs=TAG`, "/roles/list"],
    ["a tag alone", "/roles/list?fs=abc", "/roles/list"],
  ])("%s: 303 to the same page without it, which then never shows the text", async (_label, path, to) => {
    const cookie = await managerCookie();
    const target = path.includes("fs=TAG") ? path.replace("TAG", new URL(await withFlashTag("/x?flash=Role%20created."), "http://h").searchParams.get("fs")!) : path;
    const res = await request(target, { cookie });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`${BASE}${to}`);
    const page = await request(to, { cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).not.toContain("account is locked");
  });

  it("a path that begins with // stays on this site (no open redirect; probe 8895, stop 25)", async () => {
    const res = await request(`//evil.example/?flash=${encodeURIComponent(FORGED)}`, { cookie: await managerCookie() });
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("Location")!, "http://other.invalid").origin).toBe(new URL(BASE).origin);
  });

  it("a sign-in's redirectTo never carries a flash, which its redirect would tag (probe 8895, stop 25)", async () => {
    const location = await createLocation();
    const user = await createUser({ permissions: ["view_clients"], locations: [location.id] });
    const res = await form(`/login?redirectTo=${encodeURIComponent(`/patients/list?search=Ann&flash=${encodeURIComponent(FORGED)}`)}`, { email: user.email, password: user.password, redirectTo: `/patients/list?search=Ann&flash=${FORGED}` });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/patients/list?search=Ann");
  });

  it("the server's own flash, after a save, is tagged and shown", async () => {
    const cookie = await managerCookie();
    const saved = await form("/roles/register", { intent: "save", name: `Flash role ${Date.now()}`, permissions: "view_clients" }, cookie);
    expect(saved.status).toBe(303);
    const to = saved.headers.get("Location")!;
    expect(to).toMatch(/^\/roles\/list\?flash=Role%20created\.&fs=[0-9a-f]{32}$/);
    const page = await request(to, { cookie });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Role created.");
  });

  it("a data request of JavaScript's navigation is not redirected: only a document request can come from a link", async () => {
    const cookie = await managerCookie();
    const res = await request(`/roles/list.data?flash=${encodeURIComponent(FORGED)}`, { cookie });
    expect(res.status).toBe(200);
  });
});

describe("a redirect back to an address that still had an older flash's tag", () => {
  it("keeps one tag, the new flash's (a billing row saved after a status switch showed no message)", async () => {
    const res = new Response(null, { status: 303, headers: { Location: `/billing/by-client/7?type=rbt&fs=${"a".repeat(32)}&flash=Updated%20-%20Added%20successfully!#row-3` } });
    await sealFlashRedirects(env, new Request("http://localhost/billing/by-client/7"), res);
    expect(res.headers.get("Location")).toBe(`/billing/by-client/7?type=rbt&flash=Updated%20-%20Added%20successfully!&fs=${await flashTag(env, "Updated - Added successfully!")}#row-3`);
  });

  it("a data request's redirect is not tagged: its own flash was never checked, so a link cannot mint a tag that way", async () => {
    const res = new Response(null, { status: 302, headers: { Location: "/billing/list?flash=Your%20account%20is%20locked." } });
    await sealFlashRedirects(env, new Request("http://localhost/billing/list.data?location_id=&flash=Your%20account%20is%20locked."), res);
    expect(res.headers.get("Location")).toBe("/billing/list?flash=Your%20account%20is%20locked.");
  });
});
