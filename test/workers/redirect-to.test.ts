import { describe, expect, it } from "vitest";
import { BASE, createLocation, createUser, form, request, signInCookie } from "./helpers";

/**
 * A `redirectTo` (sign-in, lock screen, two-factor) is followed only to a path of this site (probe 8986 §1, §2): a
 * browser drops TAB, CR and LF from a URL before reading it, so "/<TAB>/evil.example" was another host, and a newline
 * or NUL in the Location header was a 500. Each such value falls back to the dashboard.
 */
const HOSTILE: [string, string][] = [
  ["TAB between the slashes", "/\t/example.org/phish"],
  ["CR between the slashes", "/\r/example.org/phish"],
  ["LF between the slashes", "/\n/example.org/phish"],
  ["a newline in a path", "/dash\nboard"],
  ["NUL", "/\u0000x"],
  ["DEL", "/\u007fx"],
  ["two slashes", "//example.org/phish"],
  ["slash backslash", "/\\example.org"],
];

async function user() {
  const location = await createLocation();
  return createUser({ permissions: ["view_clients"], locations: [location.id] });
}

describe("a redirectTo that would leave the site, or break the answer, falls back to the dashboard", () => {
  it.each(HOSTILE)("%s: a signed-in sign-in page", async (_label, to) => {
    const cookie = await signInCookie(await user());
    for (const path of ["/login", "/lock-screen", "/two-factor-verify"]) {
      const res = await request(`${path}?redirectTo=${encodeURIComponent(to)}`, { cookie });
      expect(res.status, path).toBeLessThan(500);
      const location = res.headers.get("Location");
      if (location !== null) expect(new URL(location, BASE).href, path).toBe(new URL("/dashboard", BASE).href);
    }
  });

  it.each(HOSTILE)("%s: the sign-in's own redirect", async (_label, to) => {
    const u = await user();
    const res = await form("/login", { email: u.email, password: u.password, redirectTo: to });
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe("/dashboard");
  });

  it("a path of this site is still followed", async () => {
    const u = await user();
    const res = await form("/login", { email: u.email, password: u.password, redirectTo: "/patients/list?search=Ann" });
    expect(res.headers.get("Location")).toBe("/patients/list?search=Ann");
  });
});
