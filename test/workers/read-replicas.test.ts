import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import worker from "../../workers/app";
import { d1SessionDatabase } from "~/db/client.server";
import { auditLog, locations, patients } from "~/db/schema";
import { nextId } from "~/models/patients.server";
import { auditRead, auditTail, verifyAuditChain } from "~/services/audit.server";
import { BOOKMARK_COOKIE, BOOKMARK_HEADER, openBookmark, sealBookmark } from "~/services/bookmark.server";
import { apiToken, BASE, cookiesFrom, createBip, createLocation, createPatient, createPlan, createUser, signInCookie } from "./helpers";

/**
 * Reads through D1's Sessions API (decision 022). Local D1 has no replicas, so these tests run the Worker
 * with its D1 binding behind a recorder: where each request's session started, how many round trips it
 * made, and (like D1 in production) a failure for a session started at anything D1 never handed out.
 */

const D1_BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;
const SEALED = /^([0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32})\.[0-9a-f]{32}$/;

interface Recorder {
  starts: string[];
  roundTrips: number;
}

function recordingBinding(binding: D1Database, rec: Recorder): D1Database {
  const originals = new WeakMap<object, D1PreparedStatement>();
  const counted = (db: Pick<D1Database, "prepare" | "batch">) => {
    const wrap = (stmt: D1PreparedStatement): D1PreparedStatement => {
      const once = <T>(f: () => T) => (rec.roundTrips++, f());
      const wrapped = {
        bind: (...values: unknown[]) => wrap(stmt.bind(...values)),
        first: (column?: string) => once(() => (column === undefined ? stmt.first() : stmt.first(column))),
        run: () => once(() => stmt.run()),
        all: () => once(() => stmt.all()),
        raw: (options?: { columnNames?: boolean }) => once(() => stmt.raw(options as { columnNames: true })),
      } as unknown as D1PreparedStatement;
      originals.set(wrapped, stmt);
      return wrapped;
    };
    return {
      prepare: (query: string) => wrap(db.prepare(query)),
      batch: (statements: D1PreparedStatement[]) => (rec.roundTrips++, db.batch(statements.map((s) => originals.get(s) ?? s))),
    };
  };
  return {
    ...counted(binding),
    exec: (query: string) => binding.exec(query),
    dump: () => binding.dump(),
    withSession: (start?: string) => {
      rec.starts.push(start ?? "");
      if (start !== "first-primary" && start !== "first-unconstrained" && !D1_BOOKMARK.test(start ?? "")) {
        const refuse = () => {
          throw new Error(`D1_ERROR: invalid bookmark ${start}`);
        };
        return { prepare: refuse, batch: refuse, getBookmark: () => null } as unknown as D1DatabaseSession;
      }
      const session = binding.withSession(start);
      return { ...counted(session), getBookmark: () => session.getBookmark() } as D1DatabaseSession;
    },
  } as D1Database;
}

/** One request through the Worker with the recording binding. */
async function run(path: string, init: RequestInit & { cookie?: string } = {}) {
  const rec: Recorder = { starts: [], roundTrips: 0 };
  const headers = new Headers(init.headers);
  if (init.cookie) headers.set("Cookie", init.cookie);
  headers.set("Host", new URL(BASE).host);
  if (init.method && init.method !== "GET") headers.set("Origin", BASE);
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`${BASE}${path}`, { ...init, headers, redirect: "manual" }), { ...env, DB: recordingBinding(env.DB, rec) }, ctx);
  await waitOnExecutionContext(ctx);
  return { res, rec };
}

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return run(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

function apiCall(path: string, opts: { method?: string; token: string; body?: unknown; bookmark?: string }) {
  const headers: Record<string, string> = { Accept: "application/json", Authorization: `Bearer ${opts.token}` };
  if (opts.body !== undefined) headers["Content-Type"] = "application/json";
  if (opts.bookmark !== undefined) headers[BOOKMARK_HEADER] = opts.bookmark;
  return run(`/api${path}`, { method: opts.method ?? "GET", headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
}

/** The bookmark cookie a response sets (its raw D1 bookmark), or null. */
function bookmarkCookie(res: Response): string | null {
  const set = res.headers.getSetCookie().find((c) => c.startsWith(`${BOOKMARK_COOKIE}=`));
  if (!set) return null;
  expect(set).toContain("HttpOnly");
  expect(set).toContain("SameSite=Lax");
  const value = decodeURIComponent(set.slice(BOOKMARK_COOKIE.length + 1).split(";")[0]!);
  return SEALED.exec(value)![1]!;
}

function bookmarkHeader(res: Response): string | null {
  const value = res.headers.get(BOOKMARK_HEADER);
  return value === null ? null : SEALED.exec(value)![1]!;
}

const locationForm = { intent: "save", title: "", address: "1 Bay St", city: "Tampa", state: "FL", zip: "33602", phone1: "813-555-0100", phone2: "", email: "tampa@clinic.test", telfax: "", time_zone: "America/New_York", pos_codes: ["11"] };
const locationJson = { title: "", city: "Orlando", state: "FL", zip: "32801", phone1: "407-555-0100", email: "orlando@clinic.test", time_zone: "America/New_York", pos_codes: ["11"] };

describe("screens: the bookmark travels in a cookie", () => {
  it("signing in hands out a bookmark; a change reads the primary and its redirect carries a newer one; the next page reads from it and shows the change", async () => {
    const loc = await createLocation({ title: "Before Replica" });
    let cookie = await signInCookie(await createUser({ permissions: ["manage_locations_access", "manage_locations"], locations: [loc.id] }));
    const signedIn = SEALED.exec(decodeURIComponent(/__bookmark=([^;]+)/.exec(cookie)![1]!))![1]!;

    const save = await post(`/location/list/edit/${loc.id}`, { ...locationForm, title: "After Replica", version: "1" }, cookie);
    expect(save.res.status).toBe(303);
    expect(save.rec.starts).toEqual(["first-primary"]);
    const written = bookmarkCookie(save.res)!;
    expect(written > signedIn).toBe(true);
    cookie = cookiesFrom(save.res, cookie);

    const page = await run(`/location/view/${loc.id}`, { cookie });
    expect(page.res.status).toBe(200);
    expect(page.rec.starts).toEqual([written]);
    expect(await page.res.text()).toContain("After Replica");
    // A read leaves the cookie alone: its answer could overtake a change's and set an older bookmark.
    expect(bookmarkCookie(page.res)).toBeNull();
  });

  it("a browser without a bookmark reads the primary and is handed one", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations_access"] }));
    const { res, rec } = await run("/location/list", { cookie: cookie.replace(/;? ?__bookmark=[^;]*/, "") });
    expect(res.status).toBe(200);
    expect(rec.starts).toEqual(["first-primary"]);
    expect(bookmarkCookie(res)).toMatch(D1_BOOKMARK);
  });

  it("keeps the pages within three D1 round trips", async () => {
    const loc = await createLocation();
    const patient = await createPatient({ locationId: loc.id });
    const plan = await createPlan(await createBip(patient));
    const cookie = await signInCookie(await createUser({ role: "ADMIN" }));
    // The goal screen is an audited read: scope check with the audit tail, then data and audit row in one batch.
    for (const path of ["/dashboard", "/location/list", "/patients/list", "/insurance/list", `/bip/goal/${plan.id}`]) {
      const { res, rec } = await run(path, { cookie });
      expect([path, res.status]).toEqual([path, 200]);
      expect([path, rec.roundTrips <= 3]).toEqual([path, true]);
      expect(rec.starts).toHaveLength(1);
      expect(rec.starts[0]).toMatch(D1_BOOKMARK);
    }
  });
});

describe("API: the bookmark travels in the x-d1-bookmark header", () => {
  it("echoes a bookmark on every answer; a change followed by a read with it sees the change", async () => {
    const loc = await createLocation({ title: "Api Before" });
    const token = await apiToken(await createUser({ permissions: ["manage_locations_access", "manage_locations"], locations: [loc.id] }));

    const save = await apiCall(`/v2/locations/${loc.id}`, { method: "PUT", token, body: { ...locationJson, title: "Api After", version: 1 } });
    expect(save.res.status).toBe(200);
    expect(save.rec.starts).toEqual(["first-primary"]);
    const written = bookmarkHeader(save.res)!;
    expect(written).toMatch(D1_BOOKMARK);

    const read = await apiCall(`/v2/locations/${loc.id}`, { token, bookmark: save.res.headers.get(BOOKMARK_HEADER)! });
    expect(read.res.status).toBe(200);
    expect(read.rec.starts).toEqual([written]);
    expect(((await read.res.json()) as { data: { title: string } }).data.title).toBe("Api After");
    expect(bookmarkHeader(read.res)! >= written).toBe(true);
    // No cookie for API clients.
    expect(read.res.headers.getSetCookie().some((c) => c.startsWith(BOOKMARK_COOKIE))).toBe(false);
  });

  it("a read without the header reads the primary and still gets a bookmark; so do errors", async () => {
    const token = await apiToken(await createUser({ permissions: ["manage_locations_access"] }));
    const list = await apiCall("/v2/locations", { token });
    expect(list.res.status).toBe(200);
    expect(list.rec.starts).toEqual(["first-primary"]);
    expect(bookmarkHeader(list.res)).toMatch(D1_BOOKMARK);
    const missing = await apiCall("/v2/locations/999999", { token, bookmark: list.res.headers.get(BOOKMARK_HEADER)! });
    expect(missing.res.status).toBe(404);
    expect(bookmarkHeader(missing.res)).toMatch(D1_BOOKMARK);
  });
});

describe("a bookmark the server did not hand out is ignored", () => {
  const real = "00000000-0000000b-00000000-00000000000000000000000000000000";
  const cases: [string, string][] = [
    ["garbage", "garbage!!"],
    ["empty", ""],
    ["a bare D1 bookmark (not sealed)", real],
    ["a sealed bookmark with a wrong tag", `${real}.${"0".repeat(32)}`],
    ["a made-up bookmark from the future", `ffffffff-ffffffff-ffffffff-${"f".repeat(32)}.${"a".repeat(32)}`],
    ["a constraint instead of a bookmark", "first-unconstrained"],
    ["something very long", "0".repeat(5000)],
  ];

  it.each(cases)("screens: %s", async (_, value) => {
    const loc = await createLocation({ title: "Bad Cookie Clinic" });
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations_access"], locations: [loc.id] }));
    const forged = cookie.replace(/__bookmark=[^;]*/, `__bookmark=${encodeURIComponent(value)}`);
    const { res, rec } = await run("/location/list", { cookie: forged });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Bad Cookie Clinic");
    expect(rec.starts).toEqual(["first-primary"]);
    expect(bookmarkCookie(res)).toMatch(D1_BOOKMARK);
  });

  it.each(cases)("API: %s", async (_, value) => {
    const token = await apiToken(await createUser({ permissions: ["manage_locations_access"] }));
    const { res, rec } = await apiCall("/v2/locations", { token, bookmark: value });
    expect(res.status).toBe(200);
    expect(rec.starts).toEqual(["first-primary"]);
    const echoed = res.headers.get(BOOKMARK_HEADER)!;
    expect(echoed).not.toBe(value);
    expect(bookmarkHeader(res)).toMatch(D1_BOOKMARK);
  });

  it("a sealed bookmark is accepted only as handed out", async () => {
    const token = await apiToken(await createUser({ permissions: ["manage_locations_access"] }));
    const sealed = await sealBookmark(env, real);
    expect((await apiCall("/v2/locations", { token, bookmark: sealed })).rec.starts).toEqual([real]);
    expect((await apiCall("/v2/locations", { token, bookmark: sealed.replace(/.$/, (c) => (c === "0" ? "1" : "0")) })).rec.starts).toEqual(["first-primary"]);
  });

  it("a value checked once is still checked against the secret: accepted again, refused under another secret", async () => {
    // The isolate keeps the values it has checked (decision 042); that must not let a tampered value or another key's value through.
    const sealed = await sealBookmark(env, real);
    for (let i = 0; i < 2; i++) expect(await openBookmark(env, sealed)).toBe(real);
    expect(await openBookmark(env, sealed.replace(/.$/, (c) => (c === "0" ? "1" : "0")))).toBeNull();
    expect(await openBookmark({ JWT_SECRET: "another secret" }, sealed)).toBeNull();
    expect(await openBookmark(env, sealed)).toBe(real);
  });
});

/**
 * A replica that lags: its reads see `table` only up to `lastId`, while the binding itself (the primary)
 * sees every row.
 */
function laggingSession(table: string, lastId: number) {
  const binding = {
    prepare: (q: string) => env.DB.prepare(q),
    batch: (s: D1PreparedStatement[]) => env.DB.batch(s),
    exec: (q: string) => env.DB.exec(q),
    dump: () => env.DB.dump(),
    withSession: (start?: string) => {
      const session = env.DB.withSession(start);
      const lag = (q: string) => (/^\s*select/i.test(q) ? q.replaceAll(`from "${table}"`, `from (select * from "${table}" where "id" <= ${lastId}) "${table}"`) : q);
      return { prepare: (q: string) => session.prepare(lag(q)), batch: (s: D1PreparedStatement[]) => session.batch(s), getBookmark: () => session.getBookmark() } as unknown as D1DatabaseSession;
    },
  } as unknown as D1Database;
  return d1SessionDatabase(binding, "first-primary").db;
}

describe("what stays on the primary", () => {
  const primary = () => d1SessionDatabase(env.DB, "first-primary").db;
  const who = { actor: { kind: "user" as const, id: 9 }, ip: "198.51.100.7" };

  it("an audited read whose chain tail came from a lagging replica still lands on the chain", async () => {
    await createLocation();
    await auditRead(primary(), who, { entity: "patient", entityId: 1, patientId: 1 });
    const [last] = await primary().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const replica = laggingSession("audit_log", last!.id);
    // Someone else reads a record: the chain moves on, the replica has not seen it yet.
    await auditRead(primary(), who, { entity: "patient", entityId: 2, patientId: 2 });
    const [stale] = await replica.select({ tail: auditTail }).from(locations).limit(1);
    await auditRead(replica, who, { entity: "patient", entityId: 3, patientId: 3 }, stale?.tail ?? null);
    const rows = await primary().select().from(auditLog).orderBy(desc(auditLog.id)).limit(2);
    expect(rows.map((r) => r.entityId)).toEqual(["3", "2"]);
    expect(rows[0]!.prevHash).toBe(rows[1]!.hash);
    expect((await verifyAuditChain(primary())).ok).toBe(true);
  });

  it("a create takes its next id from the primary, not from a lagging replica", async () => {
    const loc = await createLocation();
    const first = await createPatient({ locationId: loc.id });
    const replica = laggingSession("patients", first.id);
    const second = await createPatient({ locationId: loc.id });
    const actor = { kind: "user" as const, id: 1, roles: [], permissions: [], locationIds: [], allLocations: true };
    const id = await nextId({ db: replica, actor, ip: "127.0.0.1", now: () => new Date() } as unknown as Parameters<typeof nextId>[0], patients);
    expect(id).toBe(second.id + 1);
    const [row] = await replica.select({ id: patients.id }).from(patients).where(eq(patients.id, second.id));
    expect(row).toBeUndefined(); // the replica really lags
  });
});
