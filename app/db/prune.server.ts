import { sql, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "./client.server";

/** How much one clean-up run may delete from a table: at most `batch` rows a statement, `maxSteps` statements. */
export interface PruneLimits {
  batch: number;
  maxSteps: number;
}
export const PRUNE_LIMITS: PruneLimits = { batch: 500, maxSteps: 10 };

/**
 * Deletes the rows of `table` that `where` picks, in bounded statements (`rowid in (select rowid … limit batch)`),
 * so no D1 statement's work grows with the table; what is left over goes on the next run. Answers how many went.
 */
export async function deleteInSteps(db: Db, table: SQLiteTable, where: SQL, limits: PruneLimits = PRUNE_LIMITS): Promise<number> {
  let total = 0;
  for (let step = 0; step < limits.maxSteps; step++) {
    const result = await db.delete(table).where(sql`rowid in (select rowid from ${table} where ${where} limit ${limits.batch})`);
    const n = Number((result as { meta?: { changes?: number }; rowsAffected?: number }).meta?.changes ?? (result as { rowsAffected?: number }).rowsAffected ?? 0);
    total += n;
    if (n < limits.batch) break;
  }
  return total;
}
