import { beforeAll, describe, expect, it } from "vitest";
import { api, apiToken } from "./helpers";
import { apiKeys, apiGuardOf, isPublicApi } from "./route-guards.shared";
import { inGroups, manyLocationsActor, type ManyLocations } from "./many-locations.shared";

/**
 * The API for a staff user assigned explicitly to 120 locations (many-locations.shared.ts): every GET list or
 * collection route that needs no id, and the client's lists by id, answer below 500.
 */

let m: ManyLocations;
let token: string;

beforeAll(async () => {
  m = await manyLocationsActor();
  token = await apiToken(m.user);
}, 60_000);

const lists = apiKeys
  .filter((k) => k.startsWith("GET ") && !k.includes(":") && !isPublicApi(k) && apiGuardOf(k) !== "parent")
  .map((k) => k.slice(4))
  .filter((path) => path !== "/auth/refresh");

async function noServerError(paths: readonly string[]) {
  await Promise.all(
    paths.map(async (path) => {
      const res = await api(path, { token });
      await res.body?.cancel();
      expect(res.status, path).toBeLessThan(500);
    })
  );
}

describe("the API for a staff user at 120 locations", () => {
  it.each(inGroups(lists).map((g) => [g[0]!, g] as const))("GET lists answer below 500 (%s …)", { timeout: 120_000 }, (_first, group) => noServerError(group));

  it("the client's lists by id answer 200", { timeout: 120_000 }, async () => {
    const id = m.client.id;
    const paths = [`/note_rbt/byclient/${id}`, `/note_bcba/byclient/${id}`, `/v2/notes-rbt?patient_id=${id}`, `/client_report/byprofile/${id}`, `/client_report/profile/${id}`, `/v2/get-client-consents/${id}`];
    await Promise.all(
      paths.map(async (path) => {
        const res = await api(path, { token });
        await res.body?.cancel();
        expect(res.status, path).toBe(200);
      })
    );
  });
});
