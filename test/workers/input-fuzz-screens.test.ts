import { describe, expect, it } from "vitest";
import { request, signInCookie } from "./helpers";
import { fixture, OTHER, PARAMS, SCREENS, TEXT } from "./input-fuzz.shared";

/** Hostile list query parameters on the screens (see input-fuzz.shared.ts). */
describe("hostile list query parameters: the screens", () => {
  it(
    "every list screen renders or redirects for every hostile value, and says what was wrong",
    { timeout: 600_000 },
    async () => {
      const { admin } = await fixture();
      const cookie = await signInCookie(admin);
      const failures: string[] = [];
      for (const path of SCREENS) {
        // Every parameter at once (each screen parses its own and falls back on a bad one), then the search alone.
        const queries = [
          ...OTHER.slice(0, 4).map((value) =>
            Object.fromEntries(PARAMS.map((n) => [n, value]))
          ),
          ...TEXT.map((value) => ({ search: value })),
        ];
        for (const params of queries) {
          const url = `${path}?${new URLSearchParams(params)}`;
          const res = await request(url, { cookie });
          if (
            res.status >= 500 ||
            res.headers.get("Location")?.includes("error500")
          )
            failures.push(`${res.status} GET ${url}`);
          await res.body?.cancel();
        }
      }
      expect(failures).toEqual([]);
      const res = await request(
        `/patients/list?${new URLSearchParams({ search: "x".repeat(60) })}`,
        { cookie }
      );
      expect(res.status).toBe(200);
      expect(await res.text()).toContain("Search is too long");
    }
  );
});
