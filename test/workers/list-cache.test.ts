import { describe, expect, it } from "vitest";
import { cachedList } from "~/services/list-cache.server";
import { api, apiToken, countingDb, createBip, createLocation, createPatient, createUser } from "./helpers";

/**
 * Cached v2 lists (`cache=true`) answer what the same list answers without the cache, right after any write
 * (platform §7 "cached by query"; decision 017): lists carry other resources' data, so every write invalidates them.
 */
async function body(path: string, token: string) {
  const res = await api(path, { token });
  expect(res.status).toBe(200);
  return (await res.json()) as { total: number; data: Record<string, unknown>[] };
}

describe("cached lists after another resource's write", () => {
  const cases: { name: string; list: (p: { id: number }) => string; write: (p: { id: number }, token: string) => Promise<Response>; check: (cached: { total: number; data: Record<string, unknown>[] }) => void }[] = [
    {
      name: "client delete → the client's cached BIP list is empty",
      list: (p) => `/v2/bips?patient_id=${p.id}&cache=true`,
      write: (p, token) => api(`/v2/patients/${p.id}`, { method: "DELETE", token }),
      check: (cached) => expect(cached.total).toBe(0),
    },
    {
      name: "client rename → the cached BIP list shows the new name",
      list: (p) => `/v2/bips?patient_id=${p.id}&cache=true`,
      write: (p, token) => api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { first_name: "Renamed" } }),
      check: (cached) => expect(String(cached.data[0]?.patient_name)).toMatch(/^Renamed /),
    },
  ];

  for (const c of cases)
    it(c.name, async () => {
      const loc = await createLocation();
      const patient = await createPatient({ locationId: loc.id });
      await createBip(patient);
      const admin = await apiToken(await createUser({ role: "ADMIN" }));
      await body(c.list(patient), admin); // cached now
      expect((await c.write(patient, admin)).status).toBe(200);
      const cached = await body(c.list(patient), admin);
      const fresh = await body(c.list(patient).replace("&cache=true", ""), admin);
      c.check(cached);
      expect(cached).toEqual(fresh);
    });
});

describe("cached list cost", () => {
  it("a cached list reads its version in one statement, as before", async () => {
    const counting = countingDb();
    await cachedList(counting.db, "any", `k${Math.random()}`, true, async () => 1);
    expect(counting.statements()).toBe(1);
    await cachedList(counting.db, "any", "k-same", true, async () => 1);
    const before = counting.statements();
    await cachedList(counting.db, "any", "k-same", true, async () => 1);
    expect(counting.statements() - before).toBe(1);
  });
});
