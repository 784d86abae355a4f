import { describe, expect, it } from "vitest";
import { api } from "./helpers";
import { apiKeys, isPublicApi } from "./route-guards.shared";

/** No token: every guarded API route answers 401 JSON (see route-guards.shared.ts). */
describe("API guards without a token", () => {
  it.each(apiKeys.filter((k) => !isPublicApi(k)))(
    "%s without a token answers 401 JSON",
    async (key) => {
      const [method, path] = key.split(" ") as [string, string];
      const res = await api(path.replace(/:[^/]+/g, "1"), {
        method,
        body: method === "GET" ? undefined : {},
      });
      expect(res.status).toBe(401);
      expect(((await res.json()) as { message: string }).message).toBeTruthy();
    }
  );
});
