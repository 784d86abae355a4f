import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

/** D1 binds at most 100 values a statement (the limit the comments across app/models name). */
export const D1_MAX_BOUND_VALUES = 100;

/**
 * `rows` for a multi-row insert into `table`, split so that no statement binds more than D1_MAX_BOUND_VALUES
 * values: one insert per chunk, all in the same batch (so still one transaction). A row binds at most one value
 * per column of the table, so the chunk size counts every column. No rows: no chunk.
 */
export function insertChunks<Row>(table: SQLiteTable, rows: readonly Row[]): Row[][] {
  const size = Math.max(1, Math.floor(D1_MAX_BOUND_VALUES / Object.keys(getTableColumns(table)).length));
  const out: Row[][] = [];
  for (let i = 0; i < rows.length; i += size) out.push(rows.slice(i, i + size));
  return out;
}

/**
 * New positions as a derived table `j (id, position)` from ONE bound JSON value, for `update … set position = j.position
 * from <this> where id = j.id`: a re-numbering is one statement however many rows move (D1 counts every statement of a
 * batch against its queries per invocation, and binds at most D1_MAX_BOUND_VALUES values a statement).
 */
export function positionsTable(changes: readonly { id: number; position: number }[]): SQL {
  return sql`(select value ->> 0 as id, value ->> 1 as position from json_each(${JSON.stringify(changes.map((c) => [c.id, c.position]))})) as j`;
}
