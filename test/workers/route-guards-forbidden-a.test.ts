import { describe, it } from "vitest";
import { walkScreensForbidden } from "./route-guards.shared";

/** Wrong kind or missing permission on the screens, part 1 of 2 (see route-guards.shared.ts). */
describe("screen guards", () => {
  it(
    "a staff user without permissions gets 403 on every permission-guarded screen, and a parent on every staff screen (part 1 of 2)",
    { timeout: 360_000 },
    () => walkScreensForbidden(0, 2)
  );
});
