import { createElement as h, type ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { Link as RouterLink, MemoryRouter, NavLink as RouterNavLink, Route, Routes } from "react-router-dom";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { Link, NavLink } from "~/components/ui/link";

/** Renders an element at a URL, as the router would for a route matching every path. */
function at(url: string, el: ReactElement): string {
  return renderToStaticMarkup(h(MemoryRouter, { initialEntries: [url] }, h(Routes, null, h(Route, { path: "*", element: el }))));
}
const hrefOf = (html: string) => /href="([^"]*)"/.exec(html)?.[1];
const activeOf = (html: string) => ({ active: /class="active"/.test(html), current: /aria-current="page"/.test(html) });

// The router's own links (the reference) warn that their layout effect does nothing on a server.
beforeAll(() => {
  const error = console.error;
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
    if (!String(args[0]).includes("useLayoutEffect does nothing on the server")) error(...args);
  });
});

describe("plain links resolve their targets as the router's links do (decision 042)", () => {
  it.each([
    ["/notes-list", "?page=2"],
    ["/notes-list?type=bcba", "?type=rbt&page=3"],
    ["/notes-list?page=2", "?"],
    ["/note-rbt/view/5", "/note-rbt/edit/5"],
    ["/billing/by-client/15", "/notes-list?patient_id=15&provider_id=3"],
    ["/patients/list", "/patients/profile/7#pa"],
  ])("at %s, to %s", (url, to) => {
    const mine = hrefOf(at(url, h(Link, { to }, "x")));
    expect(mine).toBe(hrefOf(at(url, h(RouterLink, { to }, "x"))));
    expect(mine).toBeDefined();
  });

  it("keeps the anchor's own attributes", () => {
    expect(at("/x", h(Link, { to: "/y", className: "btn", "aria-label": "Go" }, "y"))).toBe('<a class="btn" aria-label="Go" href="/y">y</a>');
  });

  it.each([
    ["/notes-list", "/notes-list", true],
    ["/notes-list?page=2", "/notes-list", true],
    ["/bip/list/edit/4", "/bip/list", true],
    ["/notes-listing", "/notes-list", false],
    ["/dashboard", "/notes-list", false],
  ])("a sidebar entry at %s for %s is active: %s", (url, to, active) => {
    const mine = activeOf(at(url, h(NavLink, { to }, "x")));
    expect(mine).toEqual({ active, current: active });
    expect(mine).toEqual(activeOf(at(url, h(RouterNavLink, { to }, "x"))));
  });
});
