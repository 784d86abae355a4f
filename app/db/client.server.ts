import { drizzle as drizzleD1, type DrizzleD1Database } from "drizzle-orm/d1";
import { isolateState } from "./isolate-state";
import * as schema from "./schema";

/**
 * The database every model function takes: D1 in the Worker, libSQL in scripts. Both drivers share the
 * async SQLite query builder and `batch`; the libSQL one is typed as this too (see libsql.server.ts).
 */
export type Db = DrizzleD1Database;

/**
 * Without drizzle's relational schema: no model uses `db.query`, and building its relations config costs
 * about a millisecond of CPU per drizzle instance — two per request (the session and its primary).
 */
export function d1Database(binding: D1Database): Db {
  return drizzleD1(binding);
}

/** Where a request's D1 session starts: a bookmark it must read at least, or the primary. */
export type SessionStart = D1SessionBookmark | "first-primary";

export interface SessionDatabase {
  db: Db;
  /** The latest bookmark the session has seen (covers every write it made); null before its first query. */
  bookmark: () => string | null;
}

/**
 * Each session database's way to the primary, for the reads that must not lag (see primaryOf). Kept once per
 * isolate (isolateState): the request's database is made by the Worker's copy of this module, and the screens'
 * copy (inside the Remix build) must find its primary too.
 */
const primaries = isolateState("d1Primaries", () => new WeakMap<Db, Db>());

/**
 * A request's database through D1's Sessions API: reads may go to a nearby replica that has caught up
 * with `start`, writes go to the primary, and every query of the request sees the ones before it.
 */
export function d1SessionDatabase(binding: D1Database, start: SessionStart): SessionDatabase {
  const session = binding.withSession(start);
  // drizzle's D1 driver uses only prepare and batch, which a session has too.
  const db = drizzleD1(session as unknown as D1Database);
  // The binding itself (not a session) always queries the primary.
  primaries.set(db, d1Database(binding));
  return { db, bookmark: () => session.getBookmark() };
}

/**
 * The primary behind a request's database, for a read that must see every committed row (the next id
 * of a create, the audit chain's tail after a race). The database itself when it has no replicas
 * (the plain binding, libSQL).
 */
export function primaryOf(db: Db): Db {
  return primaries.get(db) ?? db;
}

export { schema };
