import { drizzle as drizzleD1, type DrizzleD1Database } from "drizzle-orm/d1";
import * as schema from "./schema";

/**
 * The database every model function takes: D1 in the Worker, libSQL in scripts. Both drivers share the
 * async SQLite query builder and `batch`; the libSQL one is typed as this too (see libsql.server.ts).
 */
export type Db = DrizzleD1Database<typeof schema>;

export function d1Database(binding: D1Database): Db {
  return drizzleD1(binding, { schema });
}

export { schema };
