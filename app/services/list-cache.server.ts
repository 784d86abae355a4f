import { sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { listVersions } from "~/db/schema";

/**
 * Cached v2 lists (`cache=true`). Lists carry other resources' data (a client's name on a PA service, a role's
 * name on an employee, note units in a PA service's `spent_units`, a deleted client's records gone), so a cached
 * answer depends on every write, not only on its own resource's: it is keyed by the sum of all rows of
 * list_versions, and every write of data a list can show bumps one row in its own batch (`bumpListVersion`, or
 * `bumpListVersionIfChanged`). Any write anywhere therefore invalidates every cached list at once (decision 017).
 * The cache itself is per isolate, bounded, and short-lived.
 */
const TTL_MS = 60_000;
const MAX_ENTRIES = 500;
const store = new Map<string, { at: number; value: unknown }>();

/**
 * The version every cached list is keyed by: the sum of all resources' versions (one statement). Each bump adds one
 * to one row, so the sum moves on every write and never comes back to an earlier value.
 */
export async function listVersion(db: Db): Promise<number> {
  const [row] = await db.select({ v: sql<number>`coalesce(sum(${listVersions.version}), 0)` }).from(listVersions);
  return Number(row?.v ?? 0);
}

/** The statement that invalidates every cached list; put it in the write's batch (`resource` names the row moved). */
export function bumpListVersion(db: Db, resource: string) {
  return db
    .insert(listVersions)
    .values({ resource, version: 1 })
    .onConflictDoUpdate({ target: listVersions.resource, set: { version: sql`${listVersions.version} + 1` } });
}

/**
 * As `bumpListVersion`, run only when the statement just before it in the batch changed exactly one row (a write
 * conditioned in SQL, whose batch runs whether or not it applies).
 */
export function bumpListVersionIfChanged(db: Db, resource: string) {
  return db
    .insert(listVersions)
    .select(sql`select ${resource}, 1 where changes() = 1`)
    .onConflictDoUpdate({ target: listVersions.resource, set: { version: sql`${listVersions.version} + 1` } });
}

export async function cachedList<T>(db: Db, resource: string, key: string, enabled: boolean, load: () => Promise<T>): Promise<T> {
  if (!enabled) return load();
  const version = await listVersion(db);
  const full = `${resource}@${version}:${key}`;
  const hit = store.get(full);
  if (hit && Date.now() - hit.at < TTL_MS) return hit.value as T;
  const value = await load();
  if (store.size >= MAX_ENTRIES) store.delete(store.keys().next().value!);
  store.set(full, { at: Date.now(), value });
  return value;
}

/** Forgets every cached list: for a database emptied under a running isolate (the workers tests' fresh database per file). */
export function clearListCache(): void {
  store.clear();
}
