import worker from "../../workers/app";
import { D1_COUNT_HEADER } from "./d1-count-header";

/**
 * Benchmark-only Worker entry: the real app with its D1 binding wrapped so every statement it runs
 * is counted, reported per request in the `X-Bench-D1` header as "statements;round-trips;wait-ms"
 * (a `batch` is one round trip carrying several statements; wait-ms is the time the request had a D1
 * call outstanding, overlapping calls counted once). Started by test/bench/run.ts as
 * `wrangler dev test/bench/d1-count-worker.ts`; never deployed.
 */

interface Counter {
  statements: number;
  roundTrips: number;
  /** Time with at least one D1 call outstanding, and the bookkeeping for it. */
  waitMs: number;
  outstanding: number;
  since: number;
}

/** Adds the time `call` is outstanding to the counter's wait (once while several overlap). */
function waited<T>(counter: Counter, call: Promise<T>): Promise<T> {
  if (counter.outstanding++ === 0) counter.since = performance.now();
  const done = () => {
    if (--counter.outstanding === 0) counter.waitMs += performance.now() - counter.since;
  };
  return call.finally(done);
}

const originals = new WeakMap<object, D1PreparedStatement>();

function countStatement(stmt: D1PreparedStatement, counter: Counter): D1PreparedStatement {
  const once = <T>(call: () => Promise<T>) => {
    counter.statements += 1;
    counter.roundTrips += 1;
    return waited(counter, call());
  };
  const wrapped = {
    bind: (...values: unknown[]) => countStatement(stmt.bind(...values), counter),
    first: (column?: string) => once(() => (column === undefined ? stmt.first() : stmt.first(column))),
    run: () => once(() => stmt.run()),
    all: () => once(() => stmt.all()),
    raw: (options?: { columnNames?: boolean }) => once(() => stmt.raw(options as { columnNames: true })),
  } as unknown as D1PreparedStatement;
  originals.set(wrapped, stmt);
  return wrapped;
}

/** prepare and batch of the binding or of a D1 session (the app runs each request in one), counted. */
function countQueries(db: Pick<D1Database, "prepare" | "batch">, counter: Counter) {
  return {
    prepare: (query: string) => countStatement(db.prepare(query), counter),
    batch: (statements: D1PreparedStatement[]) => {
      counter.statements += statements.length;
      counter.roundTrips += 1;
      return waited(counter, db.batch(statements.map((s) => originals.get(s) ?? s)));
    },
  };
}

function countD1(db: D1Database, counter: Counter): D1Database {
  return {
    ...countQueries(db, counter),
    exec: (query: string) => {
      counter.statements += query.split(";").filter((q) => q.trim()).length;
      counter.roundTrips += 1;
      return waited(counter, db.exec(query));
    },
    dump: () => db.dump(),
    withSession: (...args: Parameters<D1Database["withSession"]>) => {
      const session = db.withSession(...args);
      return { ...countQueries(session, counter), getBookmark: () => session.getBookmark() } as D1DatabaseSession;
    },
  } as D1Database;
}

export default {
  async fetch(request, env, ctx) {
    const counter: Counter = { statements: 0, roundTrips: 0, waitMs: 0, outstanding: 0, since: 0 };
    // Work deferred with waitUntil is awaited here (this instance only counts), so it is counted too.
    const deferred: Promise<unknown>[] = [];
    const countingCtx = { waitUntil: (p: Promise<unknown>) => void deferred.push(p), passThroughOnException: () => ctx.passThroughOnException(), props: ctx.props } as ExecutionContext;
    const res = await worker.fetch(request, { ...env, DB: countD1(env.DB, counter) }, countingCtx);
    // The wait up to the answer (deferred work below may query D1 too: counted, but not as the answer's wait).
    const wait = counter.waitMs + (counter.outstanding ? performance.now() - counter.since : 0);
    // Documents are rendered whole before the response is returned (entry.server awaits allReady),
    // so every loader and action query has run by now.
    for (let done = 0; done < deferred.length; ) {
      const batch = deferred.slice(done);
      done = deferred.length;
      await Promise.allSettled(batch);
    }
    const out = new Response(res.body, res);
    out.headers.set(D1_COUNT_HEADER, `${counter.statements};${counter.roundTrips};${wait.toFixed(1)}`);
    return out;
  },
  queue: worker.queue,
} satisfies ExportedHandler<Env>;
