import { describe, it } from "vitest";
import { fuzzApiLists } from "./input-fuzz.shared";

/** Hostile list query parameters on the API, second half of the lists (see input-fuzz.shared.ts). */
describe("hostile list query parameters: the API", () => {
  it(
    "every API list answers a non-500 to every hostile value of every parameter (second half of the lists)",
    { timeout: 600_000 },
    () => fuzzApiLists(1, 2)
  );
});
