import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

/**
 * `column in (1, 2, 3)` with the ids written into the statement, not bound. D1 binds at most 100 parameters a
 * statement, and an actor's location scope binds one per location — more than 100 for a regional manager, and
 * far fewer where a statement repeats the condition (subqueries, unions, the client scope inside a note scope).
 * The ids are the actor's own (or others read from the database), checked here to be integers, so no text of a
 * request reaches the SQL. SQLite plans `col in (1, 2, 3)` as it plans the bound form (decision 043).
 * `column` may be an expression: `+notes.location_id` keeps SQLite off that column's indexes. No ids: `1 = 0`.
 */
export function idsIn(column: SQLWrapper, ids: readonly number[]): SQL {
  if (!ids.length) return sql`1 = 0`;
  if (!ids.every((id) => Number.isSafeInteger(id))) throw new Error("ids in SQL: not an id");
  return sql`${column} in (${sql.raw(ids.join(", "))})`;
}

/** An actor's location scope (`locationScope`) on a location column: no condition for every location (null), `1 = 0` for none. */
export function inLocationScope(column: SQLWrapper, scope: readonly number[] | null): SQL | undefined {
  return scope === null ? undefined : idsIn(column, scope);
}
