import { getTableName, sql, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn, AnySQLiteTable } from "drizzle-orm/sqlite-core";

type Keyed = AnySQLiteTable & { id: AnySQLiteColumn };

/**
 * A table's next id, chosen before an insert so that the create's audit row can name it (decision 019): one more
 * than the largest id ever given, so an id is never given twice. The table's largest id alone would give the id of
 * a deleted newest row (a role, a billing record, a weekly report are deleted outright) to the next create, and an
 * API client still holding the old id would then read another record; SQLite's AUTOINCREMENT keeps the largest id
 * ever given in `sqlite_sequence` (a table without AUTOINCREMENT has no row there). An aggregate: select it `from`
 * the table itself (one row).
 */
export function nextIdOf(table: Keyed): SQL<number> {
  return sql<number>`max(coalesce(max(${table.id}), 0), coalesce((select seq from sqlite_sequence where name = ${getTableName(table)}), 0)) + 1`;
}

/** nextIdOf as a scalar subquery, for a column of a read from another table (read with the audit tail). */
export function nextIdQuery(table: Keyed): SQL<number> {
  return sql<number>`(select ${nextIdOf(table)} from ${table})`;
}

/**
 * The id a body's field plainly names (a positive whole number, or its digits), to read it ahead in a save's read
 * batch; else null. Only a guess: the save compares it with what its schema parsed and looks up any other id on its own.
 */
export function plainId(x: unknown): number | null {
  const n = typeof x === "number" ? x : typeof x === "string" && /^\s*\d{1,15}\s*$/.test(x) ? Number(x.trim()) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}
