import { sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { notes } from "~/db/schema";
import { idsIn, inLocationScope } from "~/models/scope.server";

/** Location scopes and id lists written into the statement (D1 binds at most 100 parameters a statement). */

const dialect = new SQLiteSyncDialect();
const render = (q: ReturnType<typeof idsIn>) => dialect.sqlToQuery(q);

describe("idsIn", () => {
  it.each([
    ["three ids", notes.locationId, [1, 2, 3], `"notes"."location_id" in (1, 2, 3)`],
    ["no ids", notes.locationId, [], "1 = 0"],
    ["an expression (off the index)", sql`+${notes.locationId}`, [7], `+"notes"."location_id" in (7)`],
  ] as const)("%s", (_name, column, ids, text) => {
    expect(render(idsIn(column, ids))).toEqual({ sql: text, params: [] });
  });

  it("binds nothing for 500 ids", () => {
    const ids = Array.from({ length: 500 }, (_, i) => i + 1);
    expect(render(idsIn(notes.locationId, ids)).params).toEqual([]);
  });

  it.each([[[1, 1.5]], [[Number.NaN]], [[2 ** 53]], [["1) or (1 = 1" as unknown as number]]])("refuses what is not an id: %j", (ids) => {
    expect(() => idsIn(notes.locationId, ids)).toThrow("not an id");
  });
});

describe("inLocationScope", () => {
  it("every location: no condition; none: 1 = 0; some: the ids", () => {
    expect(inLocationScope(notes.locationId, null)).toBeUndefined();
    expect(render(inLocationScope(notes.locationId, [])!).sql).toBe("1 = 0");
    expect(render(inLocationScope(notes.locationId, [4, 5])!).sql).toBe(`"notes"."location_id" in (4, 5)`);
  });
});
