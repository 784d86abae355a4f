import * as v from "valibot";
import { describe, expect, it } from "vitest";
import { optionalText, requiredDate, requiredInt, requiredText } from "~/domain/fields";
import { isPlainObject, keyLabel, parseWith, plainObject } from "~/domain/validation";

/** Decision 017 (stop 24): valibot's own wording ("Invalid key: Expected …", "Invalid type: …") never reaches an answer. */

const Item = v.object({ start_date: requiredDate("Service start date"), units: requiredInt("Units") });
const Schema = v.object({
  surname: requiredText("Surname"),
  email: v.pipe(v.string(), v.email("Enter a valid email address.")),
  note: optionalText("Note"),
  kind: v.picklist(["a", "b"]),
  flag: v.boolean(),
  tags: v.array(v.string()),
  items: v.optional(v.array(Item), []),
  owner: v.object({ name: requiredText("Owner name") }),
});

const full = { surname: "Diaz", email: "a@b.test", kind: "a", flag: true, tags: [], owner: { name: "Ana" } };

describe("parseWith: a key left out gets the message its field gives an empty value", () => {
  it.each([
    ["surname", "Surname is required."],
    ["email", "Enter a valid email address."],
    // Fields whose empty value has no message of their own (valibot's wording): the key in words.
    ["kind", "Kind is required."],
    ["flag", "Flag is required."],
    ["tags", "Tags is required."],
    ["owner", "Owner is required."],
  ])("%s missing: %s", (key, message) => {
    const input: Record<string, unknown> = { ...full };
    delete input[key];
    const r = parseWith(Schema, input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual({ [key]: message });
  });

  it("inside a list item and a nested object, on the item's own field", () => {
    const r = parseWith(Schema, { ...full, items: [{ units: 1 }], owner: {} });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors).toEqual({ "items.start_date": "Service start date is required.", "owner.name": "Owner name is required." });
  });

  it("leaves the caller's input as it was", () => {
    const input = { ...full, items: [{ units: 1 }] };
    parseWith(Schema, input);
    expect(input.items).toEqual([{ units: 1 }]);
  });
});

describe("parseWith: a value of the wrong kind is said in plain words", () => {
  it.each([
    [{ tags: "x" }, "tags", "Tags must be a list."],
    [{ tags: [5] }, "tags", "Each entry of Tags must be text."],
    [{ items: [null] }, "items", "Each entry of Items must be an object."],
    [{ owner: null }, "owner", "Owner must be an object."],
    [{ flag: "yes" }, "flag", "Flag must be true or false."],
    [{ kind: "c" }, "kind", "Kind must be one of the listed values."],
    [{ note: 42 }, "note", "Note must be text."],
  ])("%j", (over, key, message) => {
    const r = parseWith(Schema, { ...full, ...over });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[key]).toBe(message);
  });

  it.each([null, 7, "text", []])("a body that is not an object (%j)", (body) => {
    const r = parseWith(Schema, body);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(Object.values(r.errors).join(" ")).not.toMatch(/Invalid|Expected/);
  });

  it("a schema's own message is kept", () => {
    const r = parseWith(v.object({ n: v.number("Enter a number of units.") }), { n: "x" });
    expect(r.ok ? null : r.errors).toEqual({ n: "Enter a number of units." });
  });
});

describe("keyLabel", () => {
  it.each([
    ["surname", "Surname"],
    ["pa_assessments", "PA assessments"],
    ["location_id", "Location"],
    ["cpt", "CPT"],
    ["first_name", "First name"],
  ])("%s → %s", (key, label) => {
    expect(keyLabel(key)).toBe(label);
  });
});

/** probe 8913 §1 (stop 28): valibot's object and record schemas take an array for an object; plainObject does not. */
describe("plainObject", () => {
  const Content = v.object({ summary: v.optional(v.string(), "") });
  const Body = v.object({
    content: v.optional(plainObject(Content), {}),
    info: v.optional(plainObject(v.object({ a: v.optional(v.string(), "") }, "Info must be an object with a.")), {}),
    section: v.optional(plainObject(v.record(v.string(), v.string(), "This section must be an object of texts.")), {}),
  });

  it.each([
    ["[]", []],
    ["[1, 2, 3]", [1, 2, 3]],
    ["[{…}]", [{ summary: "x" }]],
    ["null", null],
    ['"x"', "x"],
    ["1", 1],
    ["a Date", new Date(0)],
  ])("refuses %s as it refuses any value that is not an object", (_label, value) => {
    expect(parseWith(Body, { content: value })).toEqual({ ok: false, errors: { content: "Content must be an object." } });
    expect(parseWith(Body, { info: value })).toEqual({ ok: false, errors: { info: "Info must be an object with a." } });
    expect(parseWith(Body, { section: value })).toEqual({ ok: false, errors: { section: "This section must be an object of texts." } });
  });

  it("passes a plain object (and a missing key) on to its schema", () => {
    expect(parseWith(Body, { content: { summary: "Calm" } })).toEqual({ ok: true, data: { content: { summary: "Calm" }, info: { a: "" }, section: {} } });
    expect(parseWith(Body, {})).toEqual({ ok: true, data: { content: { summary: "" }, info: { a: "" }, section: {} } });
    expect(parseWith(Body, { content: { summary: 1 } }).ok).toBe(false);
  });

  it.each([
    [{}, true],
    [Object.create(null), true],
    [[], false],
    [null, false],
    [new Date(0), false],
    ["{}", false],
  ])("isPlainObject(%o) is %s", (value, expected) => {
    expect(isPlainObject(value)).toBe(expected);
  });
});
