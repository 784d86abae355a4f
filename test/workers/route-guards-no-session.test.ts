import { describe, expect, it } from "vitest";
import { request } from "./helpers";
import { fullPath, leafGuarded } from "./route-guards.shared";

/** No session: every guarded screen redirects to sign-in, and refuses a POST (see route-guards.shared.ts). */
describe("screen guards without a session", () => {
  it.each(leafGuarded.map((r) => [r.id, fullPath(r)]))(
    "%s without a session redirects to sign-in",
    async (_id, path) => {
      const res = await request(path);
      expect(res.status).toBe(302);
      expect(res.headers.get("Location")).toMatch(/^\/login\?redirectTo=/);
    }
  );

  it.each(
    leafGuarded.filter((r) => r.module.action).map((r) => [r.id, fullPath(r)])
  )("%s refuses a POST without a session", async (_id, path) => {
    const res = await request(path, {
      method: "POST",
      body: new URLSearchParams({ intent: "x" }),
    });
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get("Location")).toMatch(/^\/login/);
  });
});
