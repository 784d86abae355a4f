import { describe, expect, it } from "vitest";
import * as build from "../../build/index.js";
import { PUBLIC_API_ROUTES, api as apiApp } from "../../workers/api";
import { api, apiToken, createParent, createUser, request, signInCookie } from "./helpers";

/**
 * Every screen and every API route is either guarded or on the explicit public list, and the guard it
 * declares is the one it applies: no session → sign-in (401 for the API), wrong kind or missing
 * permission → 403.
 */

type RouteModule = { handle?: { guard?: string }; loader?: unknown; action?: unknown };
type BuildRoute = { id: string; path?: string; parentId?: string; index?: boolean; module: RouteModule };
const routes = Object.values((build as unknown as { routes: Record<string, BuildRoute> }).routes);

/** Public screens: sign-in and its companions, preferences, errors, the unknown-path redirect. */
const PUBLIC_SCREENS = new Set([
  "root",
  "routes/_index",
  "routes/$",
  "routes/login",
  "routes/logout",
  "routes/register",
  "routes/forgot-password",
  "routes/reset-password-verify",
  "routes/reset-password-change",
  "routes/two-factor-verify",
  "routes/lock-screen",
  "routes/prefs",
  "routes/error.error404",
  "routes/error.error500",
  "routes/dev.outbox",
]);

/** "principal" resource routes that answer a stored record by id (avatars: random ids, so /1 never exists). */
const PRINCIPAL_RECORD_ROUTES = new Set(["routes/avatars.$id"]);

/** "staff" screens of one stored record the actor must be allowed to see (a ticket: its requester or the office): /1 is none of theirs, so past the guard it is 404. */
const STAFF_RECORD_ROUTES = new Set(["routes/_app.tickets.view.$id", "routes/_app.tickets.edit.$id"]);

function fullPath(route: BuildRoute): string {
  const parts: string[] = [];
  for (let r: BuildRoute | undefined = route; r; r = r.parentId ? routes.find((x) => x.id === r!.parentId) : undefined) {
    if (r.path) parts.unshift(r.path);
  }
  return "/" + parts.join("/").replace(/:[^/]+/g, "1").replace(/\*/g, "x");
}

const guarded = routes.filter((r) => r.module.loader || r.module.action).filter((r) => !PUBLIC_SCREENS.has(r.id));
const leafGuarded = guarded.filter((r) => r.path || r.index);

describe("screen guards", () => {
  it("every route module declares a guard, and public ones are on the list", () => {
    for (const r of routes) {
      if (!r.module.loader && !r.module.action) continue;
      const guard = r.module.handle?.guard;
      expect(guard, `${r.id} declares no guard`).toBeTruthy();
      if (guard === "public") expect(PUBLIC_SCREENS.has(r.id), `${r.id} is public but not on the public list`).toBe(true);
      else expect(PUBLIC_SCREENS.has(r.id), `${r.id} is on the public list but guarded`).toBe(false);
    }
  });

  it.each(leafGuarded.map((r) => [r.id, fullPath(r)]))("%s without a session redirects to sign-in", async (_id, path) => {
    const res = await request(path);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
  });

  it.each(leafGuarded.filter((r) => r.module.action).map((r) => [r.id, fullPath(r)]))("%s refuses a POST without a session", async (_id, path) => {
    const res = await request(path, { method: "POST", body: new URLSearchParams({ intent: "x" }) });
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get("Location")).toMatch(/^\/login/);
  });

  it("a staff user without permissions gets 403 on every permission-guarded screen, and a parent on every staff screen", { timeout: 360_000 }, async () => {
    const staffCookie = await signInCookie(await createUser({ permissions: [] }));
    const parentCookie = await signInCookie(await createParent(), true);
    const check = async (r: (typeof leafGuarded)[number]) => {
      const guard = r.module.handle!.guard!;
      const path = fullPath(r);
      const [asStaff, asParent] = await Promise.all([request(path, { cookie: staffCookie }), request(path, { cookie: parentCookie })]);
      if (guard === "principal") {
        // A resource route that answers a stored record by id has none at /1: past the guard it is 404, not 302/403.
        const passed = PRINCIPAL_RECORD_ROUTES.has(r.id) ? 404 : 200;
        expect(asStaff.status, `${r.id} as staff`).toBe(passed);
        expect(asParent.status, `${r.id} as parent`).toBe(passed);
      } else if (guard === "parent") {
        // The parent portal: staff are refused; every parent route answers one of the parent's own records
        // by id, and /1 is not this parent's, so past the guard it is 404.
        expect(asStaff.status, `${r.id} as staff`).toBe(403);
        expect(asParent.status, `${r.id} as parent`).toBe(404);
      } else if (guard === "staff") {
        expect(asStaff.status, `${r.id} as staff`).toBe(STAFF_RECORD_ROUTES.has(r.id) ? 404 : 200);
        expect(asParent.status, `${r.id} as parent`).toBe(403);
      } else {
        expect(asStaff.status, `${r.id} as staff without ${guard}`).toBe(403);
        expect(asParent.status, `${r.id} as parent`).toBe(403);
      }
    };
    // Five screens at a time: the answers are independent, and one by one takes minutes.
    for (let i = 0; i < leafGuarded.length; i += 5) await Promise.all(leafGuarded.slice(i, i + 5).map(check));
  });

  it("a 403 renders the Access Denied dialog", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes"] }));
    const res = await request("/roles/list", { cookie });
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain("Access Denied");
    expect(html).toContain("You don&#x27;t have permission to access this resource.");
    expect(html).toContain("Go to Dashboard");
  });
});

describe("API guards", () => {
  const apiRoutes = apiApp.routes.filter((r) => r.method !== "ALL");
  const keys = [...new Set(apiRoutes.map((r) => `${r.method} ${r.path}`))];
  const isPublic = (key: string) => (PUBLIC_API_ROUTES as readonly string[]).includes(key);
  const guardOf = (key: string) =>
    apiRoutes.filter((r) => `${r.method} ${r.path}` === key).map((r) => (r.handler as { guard?: string }).guard).find(Boolean);

  it("every API route is guarded or on the public list", () => {
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(isPublic(key) || !!guardOf(key), `${key} has no guard`).toBe(true);
    for (const key of PUBLIC_API_ROUTES) expect(keys, `${key} is listed public but does not exist`).toContain(key);
  });

  it.each(keys.filter((k) => !isPublic(k)))("%s without a token answers 401 JSON", async (key) => {
    const [method, path] = key.split(" ") as [string, string];
    const res = await api(path.replace(/:[^/]+/g, "1"), { method, body: method === "GET" ? undefined : {} });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { message: string }).message).toBeTruthy();
  });

  // Any valid token passes a "principal" guard (and logout would revoke the token for the rest).
  const guarded = keys.filter((k) => !isPublic(k) && guardOf(k) !== "principal");
  // In groups of ten, each group a test of its own (its own time limit): the answers do not depend on each other.
  const groups = Array.from({ length: Math.ceil(guarded.length / 10) }, (_, i) => guarded.slice(i * 10, i * 10 + 10));
  let tokens: Promise<{ staff: string; parent: string }> | undefined;
  const tokensOnce = () =>
    (tokens ??= (async () => ({ staff: await apiToken(await createUser({ permissions: [] })), parent: await apiToken(await createParent(), true) }))());

  it.each(groups.map((g) => [g[0]!, g] as const))("a token without the permission answers 403, a parent token 403 on staff routes (%s …)", { timeout: 120_000 }, async (_first, group) => {
    const { staff, parent } = await tokensOnce();
    await Promise.all(
      group.map(async (key) => {
        const [method, path] = key.split(" ") as [string, string];
        const guard = guardOf(key)!;
        const url = path.replace(/:[^/]+/g, "1");
        const body = method === "GET" ? undefined : {};
        const [asStaff, asParent] = await Promise.all([api(url, { method, token: staff, body }), api(url, { method, token: parent, body })]);
        if (guard !== "staff") expect(asStaff.status, `${key} as staff without ${guard}`).toBe(403);
        else expect(asStaff.status, `${key} as staff`).not.toBe(403);
        expect(asParent.status, `${key} as parent`).toBe(403);
      }),
    );
  });
});
