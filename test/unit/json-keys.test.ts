import { describe, expect, it } from "vitest";
import { repeatedJsonKey } from "~/domain/validation";

/** A JSON body that gives a key twice is refused (JSON.parse would keep the last silently): the scanner names it. */
describe("repeatedJsonKey", () => {
  it.each([
    ["no repeat", '{"name":"A","title":"B"}', null],
    ["top level", '{"name":"A","name":"B"}', "name"],
    ["top level, the same value twice", '{"name":"A","name":"A"}', "name"],
    ["nested object", '{"a":{"b":1,"c":{"d":1,"d":2}}}', "a.c.d"],
    ["inside an array, by position", '{"locations":[{"id":1,"salary":2},{"id":3,"salary":4,"salary":5}]}', "locations.1.salary"],
    ["the same key in sibling objects is fine", '{"locations":[{"id":1},{"id":2}],"x":{"id":3}}', null],
    ["the same key at two depths is fine", '{"id":1,"a":{"id":2}}', null],
    ["an escaped key equal to a plain one", '{"name":"A","n\\u0061me":"B"}', "name"],
    ["escaped quotes and backslashes in keys", '{"a\\"b":1,"a\\\\b":2,"a\\"b":3}', 'a"b'],
    ["a value that looks like a key", '{"a":"b","c":"a","d":["a","a"]}', null],
    ["strings with braces and commas inside", '{"a":"{,}[","b":"\\",\\"a\\":1","a":2}', "a"],
    ["whitespace around", ' { "x" : 1 ,\n "x" : 2 } ', "x"],
    ["arrays of arrays", '{"m":[[1,2],[{"k":1,"k":2}]]}', "m.1.0.k"],
    ["empty object and array", '{"a":{},"b":[],"c":[{}]}', null],
  ])("%s", (_, text, expected) => {
    JSON.parse(text); // every case is well-formed JSON
    expect(repeatedJsonKey(text)).toBe(expected);
  });

  it("stays linear on a large body (no quadratic rescans)", () => {
    const big = `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":{"v":"${"x".repeat(20)}"}`).join(",")}}`;
    const started = performance.now();
    expect(repeatedJsonKey(big)).toBeNull();
    expect(performance.now() - started).toBeLessThan(1000);
  });
});
