import { createRequire } from "node:module";
import path from "node:path";
// flatRoutes is what the Remix compiler reads app/routes with.
import { flatRoutes } from "@remix-run/dev/dist/config/flat-routes.js";
// The browser build, which patches/ leaves as published: the reference.
import * as publishedBuild from "@remix-run/router/dist/router.js";
import { describe, expect, it } from "vitest";
import remixConfig from "../../remix.config.js";

interface Match {
  route: { id: string };
  params: Record<string, string | undefined>;
  pathname: string;
  pathnameBase: string;
}
interface Router {
  matchRoutes(routes: Route[], pathname: string): Match[] | null;
}
const published = publishedBuild as unknown as Router;
/** The router build the Worker bundles, with the patch of decision 042. */
const patched = createRequire(import.meta.url)("@remix-run/router/dist/router.cjs.js") as Router;

interface Entry {
  id: string;
  parentId?: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
}
interface Route {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children?: Route[];
}

/** The app's real route tree, as the Remix compiler builds it from app/routes. */
const manifest: Record<string, Entry> = {
  root: { id: "root", path: "" },
  ...(flatRoutes(path.resolve("app"), remixConfig.ignoredRouteFiles) as Record<string, Entry>),
};
function tree(parentId: string | undefined): Route[] {
  return Object.values(manifest)
    .filter((r) => (r.id === "root" ? parentId === undefined : (r.parentId ?? "root") === parentId))
    .map((r) => {
      const children = tree(r.id);
      return { id: r.id, path: r.path, index: r.index, caseSensitive: r.caseSensitive, ...(children.length ? { children } : {}) };
    });
}
const routes = tree(undefined);

/** Every route's own address with its parameters filled, and variants a user or a crawler might send. */
function addresses(): string[] {
  const out = new Set<string>(["/", "", "//", "/x", "/api", "/notes-list%2Fx", "/%E2%82%AC", "/note%2Drbt/view/1", "/\u212Aey", "/n\u00F6tes-list"]);
  const full = (e: Entry): string => {
    const parent = e.parentId ? manifest[e.parentId] : undefined;
    return `${parent ? full(parent) : ""}/${e.path ?? ""}`.replace(/\/+/g, "/");
  };
  for (const e of Object.values(manifest)) {
    const p = full(e).replace(/:[\w-]+\??/g, "17").replace(/\*$/, "a/b");
    for (const v of [p, p.toUpperCase(), `${p}/`, `${p}//`, `/${p}`, `${p}/extra`, p.replace(/\/17(\/|$)/, "/x$1"), p.replace(/\/[^/]+$/, "")]) out.add(v);
  }
  return [...out];
}

describe("route matching with the patched router (decision 042)", () => {
  const list = addresses();

  it("covers the app's routes", () => {
    expect(Object.keys(manifest).length).toBeGreaterThan(100);
    expect(list.length).toBeGreaterThan(500);
  });

  it("finds, for every address, the same routes and parameters as the published router", () => {
    const shape = (m: Match[] | null) => m?.map((x) => ({ id: x.route.id, params: x.params, pathname: x.pathname, base: x.pathnameBase })) ?? null;
    const differ = list.filter((p) => JSON.stringify(shape(patched.matchRoutes(routes, p))) !== JSON.stringify(shape(published.matchRoutes(routes, p))));
    expect(differ).toEqual([]);
    // Hundreds of addresses through the published router, which builds its branches on every call: about 2 s alone,
    // past the default 5 s on a busy 2-CPU machine. The limit is for a hang, not a speed budget.
  }, 30_000);

  it("answers again the same way from its kept branches", () => {
    for (const p of ["/notes-list", "/note-rbt/view/3", "/nowhere/at/all"]) {
      expect(patched.matchRoutes(routes, p)).toEqual(published.matchRoutes(routes, p));
    }
  });
});
