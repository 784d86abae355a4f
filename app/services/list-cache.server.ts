import { sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { listVersions } from "~/db/schema";

/**
 * Cached v2 lists (`cache=true`). Each resource has a version counter in D1 that every write bumps in the
 * same batch; a cached answer is keyed by that version, so any write anywhere invalidates it. The cache
 * itself is per isolate, bounded, and short-lived.
 */
const TTL_MS = 60_000;
const MAX_ENTRIES = 500;
const store = new Map<string, { at: number; value: unknown }>();

/** The row every resource's cached lists also depend on (`bumpEveryListVersion`). */
const EVERY = "*";

/** A resource's version and the version of every list, as one cache key part ("3.1"): one statement. */
export async function listVersion(db: Db, resource: string): Promise<string> {
  const [row] = await db
    .select({
      own: sql<number>`coalesce(max(case when ${listVersions.resource} = ${resource} then ${listVersions.version} end), 0)`,
      every: sql<number>`coalesce(max(case when ${listVersions.resource} = ${EVERY} then ${listVersions.version} end), 0)`,
    })
    .from(listVersions)
    .where(sql`${listVersions.resource} in (${resource}, ${EVERY})`);
  return `${row?.own ?? 0}.${row?.every ?? 0}`;
}

/** The statement that invalidates a resource's cached lists; put it in the write's batch. */
export function bumpListVersion(db: Db, resource: string) {
  return db
    .insert(listVersions)
    .values({ resource, version: 1 })
    .onConflictDoUpdate({ target: listVersions.resource, set: { version: sql`${listVersions.version} + 1` } });
}

/**
 * The statement that invalidates every resource's cached lists: for a write that changes who may see records of
 * many resources at once (a client moving to another location moves its plans, goals, PA services… with it).
 */
export function bumpEveryListVersion(db: Db) {
  return bumpListVersion(db, EVERY);
}

export async function cachedList<T>(db: Db, resource: string, key: string, enabled: boolean, load: () => Promise<T>): Promise<T> {
  if (!enabled) return load();
  const version = await listVersion(db, resource);
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
