import { describe, it } from "vitest";
import { apiGroups, checkApiGroupForbidden } from "./route-guards.shared";

/** Missing permission on the API, part 3 of 3 (see route-guards.shared.ts). */
describe("API guards", () => {
  it.each(apiGroups(2, 3).map((g) => [g[0]!, g] as const))(
    "a token without the permission answers 403, a parent token 403 on staff routes (%s …)",
    { timeout: 120_000 },
    (_first, group) => checkApiGroupForbidden(group)
  );
});
