import { describe, expect, it } from "vitest";
import { createLocation, createUser, request, signInCookie } from "./helpers";
import {
  apiGuardOf,
  apiKeys,
  isPublicApi,
  PUBLIC_SCREENS,
  routes,
} from "./route-guards.shared";
import { PUBLIC_API_ROUTES } from "../../workers/api";

/** Every screen and API route declares a guard or is on the public list (the walks: route-guards-*.test.ts). */
describe("screen guards", () => {
  it("every route module declares a guard, and public ones are on the list", () => {
    for (const r of routes) {
      if (!r.module.loader && !r.module.action) continue;
      const guard = r.module.handle?.guard;
      expect(guard, `${r.id} declares no guard`).toBeTruthy();
      if (guard === "public")
        expect(
          PUBLIC_SCREENS.has(r.id),
          `${r.id} is public but not on the public list`
        ).toBe(true);
      else
        expect(
          PUBLIC_SCREENS.has(r.id),
          `${r.id} is on the public list but guarded`
        ).toBe(false);
    }
  });

  it("a 403 renders the Access Denied dialog", async () => {
    const cookie = await signInCookie(
      await createUser({ permissions: ["view_notes"] })
    );
    const res = await request("/roles/list", { cookie });
    expect(res.status).toBe(403);
    const html = await res.text();
    expect(html).toContain("Access Denied");
    expect(html).toContain(
      "You don&#x27;t have permission to access this resource."
    );
    expect(html).toContain("Go to Dashboard");
  });
});

describe("API guards", () => {
  it("every API route is guarded or on the public list", () => {
    expect(apiKeys.length).toBeGreaterThan(10);
    for (const key of apiKeys)
      expect(isPublicApi(key) || !!apiGuardOf(key), `${key} has no guard`).toBe(
        true
      );
    for (const key of PUBLIC_API_ROUTES)
      expect(apiKeys, `${key} is listed public but does not exist`).toContain(
        key
      );
  });
});

describe("the spec's short paths (redirect-only routes) refuse with the app's error page, not bare text (probe 8897, stop 25)", () => {
  it.each(["/roles", "/tickets", "/billing", "/doctors", "/parents", "/insurance", "/location", "/doctors/addemployee", "/patients/profile-by-patient-id/NOPE-1"])("%s", async (path) => {
    const location = await createLocation();
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes"], locations: [location.id] }));
    const res = await request(path, { cookie });
    expect([403, 404]).toContain(res.status);
    expect(res.headers.get("Content-Type")).toMatch(/text\/html/);
    const html = await res.text();
    // The same page a refused screen shows (platform §8): its title and the way back to the dashboard.
    expect(html).toContain(res.status === 403 ? "Access Denied" : "Not Found");
    expect(html).toContain('href="/dashboard"');
  });
});
