import { describe, expect, it } from "vitest";
import { fillPlaceholders, fillPlaceholdersDeep, pronounsFor } from "~/domain/placeholders";

/** Placeholders in plan text (clinical §1, §3): {name} and pronoun tokens, filled from the client. */

describe("pronounsFor", () => {
  it.each([
    [1, "male"],
    ["1", "male"],
    [2, "female"],
    ["2", "female"],
    [null, "neutral"],
    [undefined, "neutral"],
    ["", "neutral"],
    [3, "neutral"],
    ["x", "neutral"],
  ] as const)("gender %j → %s", (gender, expected) => {
    expect(pronounsFor(gender)).toBe(expected);
  });
});

describe("fillPlaceholders", () => {
  const text = "{name} said {he|she|they} wanted {his|her|their} ball; give it to {him|her|them} when {he|she|they} {is|are} calm. {He|She|They} did it {himself|herself|themselves}.";
  it.each([
    [1, "Leo said he wanted his ball; give it to him when he is calm. He did it himself."],
    [2, "Leo said she wanted her ball; give it to her when she is calm. She did it herself."],
    [null, "Leo said they wanted their ball; give it to them when they are calm. They did it themselves."],
  ])("gender %j", (gender, expected) => {
    expect(fillPlaceholders(text, { firstName: "Leo", gender })).toBe(expected);
  });

  it("replaces every occurrence and the other verb and possessive forms", () => {
    expect(fillPlaceholders("{name}, {name}! {was|were} {has|have} {does|do} {his|hers|theirs}", { firstName: "Ana", gender: 2 })).toBe("Ana, Ana! was has does hers");
    expect(fillPlaceholders("{was|were} {has|have} {does|do} {his|hers|theirs}", { firstName: "Ana", gender: null })).toBe("were have do theirs");
  });

  it("leaves unknown tokens, other braces and an empty name untouched", () => {
    expect(fillPlaceholders("{surname} {he|she} {} {x|y|z} {{name}}", { firstName: "Ana", gender: 1 })).toBe("{surname} {he|she} {} {x|y|z} {Ana}");
    expect(fillPlaceholders("Hello {name}", { firstName: "  ", gender: 1 })).toBe("Hello {name}");
    expect(fillPlaceholders("no tokens here", { firstName: "Ana", gender: 1 })).toBe("no tokens here");
  });

  it("fills every string inside objects and arrays and keeps other values", () => {
    const doc = { a: "{name}", list: [{ description: "{he|she|they} run", index: 1, when: null }], n: 3, flag: true };
    expect(fillPlaceholdersDeep(doc, { firstName: "Sam", gender: 1 })).toEqual({ a: "Sam", list: [{ description: "he run", index: 1, when: null }], n: 3, flag: true });
    expect(doc.a).toBe("{name}");
  });
});
