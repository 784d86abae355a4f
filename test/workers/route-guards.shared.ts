import { expect } from "vitest";
import * as build from "../../build/index.js";
import { PUBLIC_API_ROUTES, api as apiApp } from "../../workers/api";
import {
  api,
  apiToken,
  createParent,
  createUser,
  request,
  signInCookie,
} from "./helpers";

/**
 * Every screen and every API route is either guarded or on the explicit public list, and the guard it
 * declares is the one it applies: no session → sign-in (401 for the API), wrong kind or missing
 * permission → 403. The walks are split over several route-guards*.test.ts files: in the Workers test pool
 * each request a file makes slows the next ones down (cloudflare/workers-sdk#15446; ~1,000 requests in one
 * file took four minutes), and each file starts a fresh runtime.
 */

type RouteModule = {
  handle?: { guard?: string };
  loader?: unknown;
  action?: unknown;
};
type BuildRoute = {
  id: string;
  path?: string;
  parentId?: string;
  index?: boolean;
  module: RouteModule;
};
export const routes = Object.values(
  (build as unknown as { routes: Record<string, BuildRoute> }).routes
);

/** Public screens: sign-in and its companions, preferences, errors, the unknown-path redirect. */
export const PUBLIC_SCREENS = new Set([
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
export const PRINCIPAL_RECORD_ROUTES = new Set(["routes/avatars.$id"]);

/** "staff" screens of one stored record the actor must be allowed to see (a ticket: its requester or the office): /1 is none of theirs, so past the guard it is 404. */
export const STAFF_RECORD_ROUTES = new Set([
  "routes/_app.tickets.view.$id",
  "routes/_app.tickets.edit.$id",
]);

export function fullPath(route: BuildRoute): string {
  const parts: string[] = [];
  for (
    let r: BuildRoute | undefined = route;
    r;
    r = r.parentId ? routes.find((x) => x.id === r!.parentId) : undefined
  ) {
    if (r.path) parts.unshift(r.path);
  }
  return (
    "/" +
    parts
      .join("/")
      .replace(/:[^/]+/g, "1")
      .replace(/\*/g, "x")
  );
}

export const guarded = routes
  .filter((r) => r.module.loader || r.module.action)
  .filter((r) => !PUBLIC_SCREENS.has(r.id));
export const leafGuarded = guarded.filter((r) => r.path || r.index);

/** A staff user without permissions and a parent, on every leaf screen whose index is `part` modulo `parts`. */
export async function walkScreensForbidden(part: number, parts: number) {
  const staffCookie = await signInCookie(await createUser({ permissions: [] }));
  const parentCookie = await signInCookie(await createParent(), true);
  const check = async (r: (typeof leafGuarded)[number]) => {
    const guard = r.module.handle!.guard!;
    const path = fullPath(r);
    const [asStaff, asParent] = await Promise.all([
      request(path, { cookie: staffCookie }),
      request(path, { cookie: parentCookie }),
    ]);
    await Promise.all([asStaff.body?.cancel(), asParent.body?.cancel()]);
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
      expect(asStaff.status, `${r.id} as staff`).toBe(
        STAFF_RECORD_ROUTES.has(r.id) ? 404 : 200
      );
      expect(asParent.status, `${r.id} as parent`).toBe(403);
    } else {
      expect(asStaff.status, `${r.id} as staff without ${guard}`).toBe(403);
      expect(asParent.status, `${r.id} as parent`).toBe(403);
    }
  };
  const mine = leafGuarded.filter((_, i) => i % parts === part);
  // Five screens at a time: the answers are independent, and one by one takes minutes.
  for (let i = 0; i < mine.length; i += 5)
    await Promise.all(mine.slice(i, i + 5).map(check));
}

/* ------------------------------------------------------------------ the API */

const apiRoutes = apiApp.routes.filter((r) => r.method !== "ALL");
export const apiKeys = [
  ...new Set(apiRoutes.map((r) => `${r.method} ${r.path}`)),
];
export const isPublicApi = (key: string) =>
  (PUBLIC_API_ROUTES as readonly string[]).includes(key);
export const apiGuardOf = (key: string) =>
  apiRoutes
    .filter((r) => `${r.method} ${r.path}` === key)
    .map((r) => (r.handler as { guard?: string }).guard)
    .find(Boolean);

/** Any valid token passes a "principal" guard (and logout would revoke the token for the rest). */
const apiGuarded = apiKeys.filter(
  (k) => !isPublicApi(k) && apiGuardOf(k) !== "principal"
);

/** The guarded API routes in groups of ten (each group a test of its own, with its own time limit), `part` of `parts`. */
export function apiGroups(part: number, parts: number): string[][] {
  const mine = apiGuarded.filter((_, i) => i % parts === part);
  return Array.from({ length: Math.ceil(mine.length / 10) }, (_, i) =>
    mine.slice(i * 10, i * 10 + 10)
  );
}

/** One staff and one parent token per test file (each file has its own database; this module outlives it). */
let tokens: { file: string | undefined; value: Promise<{ staff: string; parent: string }> } | undefined;
const tokensOnce = () => {
  const file = expect.getState().testPath;
  if (tokens && tokens.file === file) return tokens.value;
  const value = (async () => ({
    staff: await apiToken(await createUser({ permissions: [] })),
    parent: await apiToken(await createParent(), true),
  }))();
  tokens = { file, value };
  return value;
};

/** A token without the permission answers 403 on each route of the group, a parent token 403 on staff routes. */
export async function checkApiGroupForbidden(group: readonly string[]) {
  const { staff, parent } = await tokensOnce();
  await Promise.all(
    group.map(async (key) => {
      const [method, path] = key.split(" ") as [string, string];
      const guard = apiGuardOf(key)!;
      const url = path.replace(/:[^/]+/g, "1");
      const body = method === "GET" ? undefined : {};
      const [asStaff, asParent] = await Promise.all([
        api(url, { method, token: staff, body }),
        api(url, { method, token: parent, body }),
      ]);
      await Promise.all([asStaff.body?.cancel(), asParent.body?.cancel()]);
      if (guard !== "staff")
        expect(asStaff.status, `${key} as staff without ${guard}`).toBe(403);
      else expect(asStaff.status, `${key} as staff`).not.toBe(403);
      expect(asParent.status, `${key} as parent`).toBe(403);
    })
  );
}
