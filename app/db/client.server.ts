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

/** A request database's queue of writes that ride in its next batch (writeWithNextBatch); kept once per isolate. */
const carriers = isolateState("d1CarriedWrites", () => new WeakMap<Db, { session: D1DatabaseSession; carried: D1PreparedStatement[] }>());

/**
 * A request's database through D1's Sessions API: reads may go to a nearby replica that has caught up
 * with `start`, writes go to the primary, and every query of the request sees the ones before it.
 */
export function d1SessionDatabase(binding: D1Database, start: SessionStart): SessionDatabase {
  const session = binding.withSession(start);
  const carried: D1PreparedStatement[] = [];
  // drizzle's D1 driver uses only prepare and batch, which a session has too. A batch carries the writes
  // queued by writeWithNextBatch in front of its own statements, in the same round trip and transaction.
  const carrying = {
    prepare: (query: string) => session.prepare(query),
    batch: async <T>(statements: D1PreparedStatement[]): Promise<D1Result<T>[]> => {
      const ahead = carried.splice(0);
      if (!ahead.length) return session.batch<T>(statements);
      try {
        return (await session.batch<T>([...ahead, ...statements])).slice(ahead.length);
      } catch (e) {
        // Nothing of a failed batch is written: the writes wait for the next batch (or the end of the request).
        carried.unshift(...ahead);
        throw e;
      }
    },
  };
  const db = drizzleD1(carrying as unknown as D1Database);
  // The binding itself (not a session) always queries the primary.
  primaries.set(db, d1Database(binding));
  carriers.set(db, { session, carried });
  return { db, bookmark: () => session.getBookmark() };
}

/**
 * A small write nothing in the request reads back (the session's last-seen touch, decision 001): on a request's
 * database it goes in front of the request's next batch, so it costs no round trip of its own; what no batch
 * carried is written when the request ends (flushCarriedWrites, before the bookmark is handed back). On any other
 * database (the plain binding, libSQL) it is written at once.
 */
export async function writeWithNextBatch(db: Db, write: PromiseLike<unknown> & { toSQL(): { sql: string; params: unknown[] } }): Promise<void> {
  const carrier = carriers.get(db);
  if (!carrier) {
    await write;
    return;
  }
  const { sql, params } = write.toSQL();
  carrier.carried.push(carrier.session.prepare(sql).bind(...params));
}

/** Writes what writeWithNextBatch queued and no batch carried (one round trip, none when nothing is left). */
export async function flushCarriedWrites(db: Db): Promise<void> {
  const carrier = carriers.get(db);
  const left = carrier?.carried.splice(0) ?? [];
  if (left.length) await carrier!.session.batch(left);
}

/**
 * The primary behind a request's database, for a read that must see every committed row (the next id
 * of a create, the audit chain's tail after a race). The database itself when it has no replicas
 * (the plain binding, libSQL).
 */
export function primaryOf(db: Db): Db {
  return primaries.get(db) ?? db;
}

/** How many rows a write of a batch (run, without `returning`) changed, read from its result (D1's `meta.changes`). */
export function rowsChanged(result: unknown): number {
  const r = result as { meta?: { changes?: number }; rowsAffected?: number } | undefined;
  return Number(r?.meta?.changes ?? r?.rowsAffected ?? 0);
}

export { schema };
