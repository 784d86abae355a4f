import type { BaseSQLiteDatabase } from "drizzle-orm/sqlite-core";
import { drizzle as drizzleD1 } from "drizzle-orm/d1";
import * as schema from "./schema";

/** The database every model function takes: D1 in the Worker, libSQL in scripts. */
export type Db = BaseSQLiteDatabase<"async", unknown, typeof schema>;

export function d1Database(binding: D1Database): Db {
  return drizzleD1(binding, { schema }) as unknown as Db;
}

export { schema };
