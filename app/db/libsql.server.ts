import { createClient } from "@libsql/client";
import { drizzle } from "drizzle-orm/libsql";
import { migrate } from "drizzle-orm/libsql/migrator";
import type { Db } from "./client.server";

/**
 * The libSQL driver path: the same schema over a `file:` URL (or a libSQL server). Used by the seed and
 * benchmark scripts, and by self-hosting.
 */
export function libsqlDatabase(url: string) {
  const client = createClient({ url });
  const db = drizzle(client) as unknown as Db;
  return { db, client };
}

/** Applies migrations/ with drizzle's own journal (for databases wrangler does not manage). */
export async function migrateLibsql(url: string, migrationsFolder = "migrations") {
  const client = createClient({ url });
  await migrate(drizzle(client), { migrationsFolder });
  client.close();
}
