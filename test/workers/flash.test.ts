import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { flashTag, sealFlashRedirects } from "~/services/flash.server";
import { tickets } from "~/db/schema";
import { BASE, createBip, createLocation, createPatient, createPlan, createUser, db, form, request, signInCookie, withFlashTag } from "./helpers";

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

describe("a refused save on a page reached by a success redirect (probe 8903 §4)", () => {
  /** A page's text with React's escapes read back. */
  const textOf = async (res: Response) => (await res.text()).replaceAll("&#x27;", "'").replaceAll("&amp;", "&");

  it.each([
    [
      "client profile: a PA service with its end before its start",
      async () => {
        const loc = await createLocation();
        const p = await createPatient({ locationId: loc.id });
        const cookie = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
        const pa = { intent: "pa-create", pa_service: "Direct", cpt: "97153", n_units: "100", start_date: "2026-01-01", end_date: "2026-07-01" };
        return { cookie, path: `/patients/profile/${p.id}`, good: pa, bad: { ...pa, end_date: "2025-01-01" }, success: "PA service created.", error: "The end date cannot be before the start date." };
      },
    ],
    [
      "goal editor: an empty comment",
      async () => {
        const loc = await createLocation();
        const plan = await createPlan(await createBip(await createPatient({ locationId: loc.id })));
        const cookie = await signInCookie(await createUser({ permissions: ["view_clients", "view_bips", "manage_bips"], locations: [loc.id] }));
        return { cookie, path: `/bip/goal/${plan.id}?edit=1`, good: { intent: "add-comment", comment_date: "2026-01-07", comment: "Sick week" }, bad: { intent: "add-comment", comment_date: "2026-01-07", comment: "" }, success: "Comment added successfully", error: "Please enter a comment before saving." };
      },
    ],
    [
      "ticket view: a blank answer",
      async () => {
        const loc = await createLocation();
        const requester = await createUser({ permissions: [], locations: [loc.id] });
        const [t] = await db().insert(tickets).values({ userId: requester.id, locationId: loc.id, subject: "Printer", body: "It jams." }).returning();
        const cookie = await signInCookie(await createUser({ permissions: ["manage_tickets"], locations: [loc.id] }));
        return { cookie, path: `/tickets/view/${t!.id}`, good: { intent: "respond", body: "Fixed it." }, bad: { intent: "respond", body: "   " }, success: "Response sent.", error: "Response is required." };
      },
    ],
  ])("%s: the page shows the error alone, and its forms post back without the old flash", async (_label, setup) => {
    const { cookie, path, good, bad, success, error } = await setup();
    const saved = await form(path, good, cookie);
    expect(saved.status).toBe(303);
    const page = saved.headers.get("Location")!;
    expect(decodeURIComponent(page)).toContain(`flash=${success}`);
    // The form on that page posts to the page's own address, flash and tag included.
    const refused = await form(page, bad, cookie);
    expect(refused.status).toBe(422);
    const html = await textOf(refused);
    expect(html).toContain(error);
    expect(html).not.toContain(success);
    expect(html).not.toMatch(/action="[^"]*[?&](flash|fs)=/);
  });
});
