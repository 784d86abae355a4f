import { describe, expect, it } from "vitest";
import { deleteItem, LIST_MESSAGES, moveItem, renumber, reorderItems, saveItem } from "~/domain/list-sections";

/** List-and-form operations (clinical §4): append, replace, delete with renumbering, move, reorder. */

const list = (...names: string[]) => names.map((name, i) => ({ name, index: i + 1 }));
const names = (r: ReturnType<typeof saveItem<{ name: string }>>) => (r.ok ? r.items.map((x) => `${x.index}:${x.name}`).join(" ") : `error:${r.error}`);

describe("renumber", () => {
  it("gives indexes 1..n in list order whatever they were", () => {
    expect(renumber([{ name: "a", index: 7 }, { name: "b" }, { name: "c", index: 1 }])).toEqual(list("a", "b", "c"));
    expect(renumber([])).toEqual([]);
  });
});

describe("saveItem", () => {
  it.each([
    ["appends when there is no index", list("a", "b"), { name: "c" }, undefined, "1:a 2:b 3:c"],
    ["appends when the index is null", list("a"), { name: "b" }, null, "1:a 2:b"],
    ["appends to an empty list", [], { name: "a" }, undefined, "1:a"],
    ["replaces the first item", list("a", "b", "c"), { name: "x" }, 1, "1:x 2:b 3:c"],
    ["replaces the last item", list("a", "b", "c"), { name: "x" }, 3, "1:a 2:b 3:x"],
    ["refuses an index past the end", list("a", "b"), { name: "x" }, 3, `error:${LIST_MESSAGES.noSuchItem}`],
    ["refuses index 0", list("a"), { name: "x" }, 0, `error:${LIST_MESSAGES.noSuchItem}`],
    ["refuses a fractional index", list("a", "b"), { name: "x" }, 1.5, `error:${LIST_MESSAGES.noSuchItem}`],
  ])("%s", (_label, items, item, index, expected) => {
    expect(names(saveItem(items, item, index))).toBe(expected);
  });
});

describe("deleteItem", () => {
  it.each([
    ["the first item", list("a", "b", "c"), 1, "1:b 2:c"],
    ["a middle item", list("a", "b", "c", "d"), 2, "1:a 2:c 3:d"],
    ["the last item", list("a", "b", "c"), 3, "1:a 2:b"],
    ["the only item", list("a"), 1, ""],
    ["an index that is not there", list("a", "b"), 5, `error:${LIST_MESSAGES.noSuchItem}`],
  ])("%s", (_label, items, index, expected) => {
    expect(names(deleteItem(items, index))).toBe(expected);
  });
});

describe("moveItem", () => {
  it.each([
    ["up from the middle", list("a", "b", "c"), 2, "up", "1:b 2:a 3:c"],
    ["down from the middle", list("a", "b", "c"), 2, "down", "1:a 2:c 3:b"],
    ["up from the top stays", list("a", "b", "c"), 1, "up", "1:a 2:b 3:c"],
    ["down from the bottom stays", list("a", "b", "c"), 3, "down", "1:a 2:b 3:c"],
    ["down from the top", list("a", "b"), 1, "down", "1:b 2:a"],
    ["a missing index", list("a", "b"), 4, "up", `error:${LIST_MESSAGES.noSuchItem}`],
  ] as const)("%s", (_label, items, index, direction, expected) => {
    expect(names(moveItem(items, index, direction))).toBe(expected);
  });
});

describe("a move or reorder that changes nothing says so (nothing is saved)", () => {
  it.each([
    ["up from the top", moveItem(list("a", "b", "c"), 1, "up"), LIST_MESSAGES.alreadyFirst],
    ["down from the bottom", moveItem(list("a", "b", "c"), 3, "down"), LIST_MESSAGES.alreadyLast],
    ["up on the only item", moveItem(list("a"), 1, "up"), LIST_MESSAGES.alreadyFirst],
    ["down on the only item", moveItem(list("a"), 1, "down"), LIST_MESSAGES.alreadyLast],
    ["the same order", reorderItems(list("a", "b", "c"), [1, 2, 3]), LIST_MESSAGES.sameOrder],
    ["up from the middle", moveItem(list("a", "b", "c"), 2, "up"), undefined],
    ["down from the top", moveItem(list("a", "b"), 1, "down"), undefined],
    ["a new order", reorderItems(list("a", "b", "c"), [1, 3, 2]), undefined],
  ] as const)("%s", (_label, result, unchanged) => {
    expect(result.ok ? result.unchanged : `error:${result.error}`).toBe(unchanged);
  });

  it("the messages", () => {
    expect([LIST_MESSAGES.alreadyFirst, LIST_MESSAGES.alreadyLast]).toEqual(["Already first.", "Already last."]);
  });
});

describe("reorderItems", () => {
  it.each([
    ["reverses", list("a", "b", "c"), [3, 2, 1], "1:c 2:b 3:a"],
    ["keeps the same order", list("a", "b", "c"), [1, 2, 3], "1:a 2:b 3:c"],
    ["rotates", list("a", "b", "c", "d"), [2, 3, 4, 1], "1:b 2:c 3:d 4:a"],
    ["refuses a missing item", list("a", "b", "c"), [1, 2], `error:${LIST_MESSAGES.badOrder}`],
    ["refuses a repeated item", list("a", "b", "c"), [1, 1, 2], `error:${LIST_MESSAGES.badOrder}`],
    ["refuses an unknown index", list("a", "b"), [1, 3], `error:${LIST_MESSAGES.badOrder}`],
  ])("%s", (_label, items, order, expected) => {
    expect(names(reorderItems(items, order))).toBe(expected);
  });

  it("never changes the list it was given", () => {
    const items = list("a", "b", "c");
    deleteItem(items, 1);
    moveItem(items, 1, "down");
    reorderItems(items, [3, 1, 2]);
    saveItem(items, { name: "x" }, 2);
    expect(items).toEqual(list("a", "b", "c"));
  });
});
