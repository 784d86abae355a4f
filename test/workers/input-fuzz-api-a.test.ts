import { describe, expect, it } from "vitest";
import { api, apiToken } from "./helpers";
import { fixture, fuzzApiLists } from "./input-fuzz.shared";

/** Hostile list query parameters on the API, first half of the lists (see input-fuzz.shared.ts). */
describe("hostile list query parameters: the API", () => {
  it(
    "every API list answers a non-500 to every hostile value of every parameter (first half of the lists)",
    { timeout: 600_000 },
    () => fuzzApiLists(0, 2)
  );

  it(
    "a search D1 cannot take answers 422 with the field's message, and one it can answers 200",
    { timeout: 120_000 },
    async () => {
      const { admin } = await fixture();
      const token = await apiToken(admin);
      for (const search of ["x".repeat(49), "a\u0000b", "%".repeat(25)]) {
        const res = await api(
          `/v2/patients?${new URLSearchParams({ search })}`,
          { token }
        );
        expect(res.status).toBe(422);
        const body = (await res.json()) as {
          message: string;
          errors: Record<string, string>;
        };
        expect(body.errors.search).toBe(body.message);
      }
      for (const search of ["x".repeat(48), "%".repeat(24), "50%_off"]) {
        const res = await api(
          `/v2/patients?${new URLSearchParams({ search })}`,
          { token }
        );
        expect(res.status).toBe(200);
      }
      expect((await api("/v2/patients?page=1e3", { token })).status).toBe(422);
      expect(
        (await api("/v2/patients?date_from=2026-02-30", { token })).status
      ).toBe(422);
    }
  );
});
