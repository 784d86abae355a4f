import { asc, desc, eq, inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog } from "~/db/schema";
import { auditedRead, auditRead, auditTail, CHAIN_ATTEMPTS, GENESIS, verifyAuditChain, verifyShownEntries, withAudit, withConditionalAudit } from "~/services/audit.server";
import { sha256Hex } from "~/services/crypto.server";
import { CHAIN_BUSY_MESSAGE } from "~/domain/shell";
import type { Db } from "~/db/client.server";
import { api, apiToken, createLocation, createPatient, createUser } from "./helpers";
import { locations } from "~/db/schema";
import { countingDb, db } from "./helpers";

const who = { actor: { kind: "user" as const, id: 7 }, ip: "203.0.113.9" };

describe("audit trail", () => {
  it("writes the change and its audit row together, chained", async () => {
    await withAudit(db(), who, { action: "create", entity: "location", entityId: 1 }, () => [db().insert(locations).values({ title: "Audited" })]);
    await auditRead(db(), who, { entity: "patient", entityId: 5, patientId: 5 });
    const rows = await db().select().from(auditLog).orderBy(asc(auditLog.id));
    expect(rows.slice(-2).map((r) => [r.action, r.entity, r.actorId, r.ip])).toEqual([
      ["create", "location", 7, "203.0.113.9"],
      ["read", "patient", 7, "203.0.113.9"],
    ]);
    expect(rows.at(-1)!.prevHash).toBe(rows.at(-2)!.hash);
    expect(await verifyAuditChain(db())).toMatchObject({ ok: true, brokenAt: null });
  });

  it("racing writers still leave one linear chain", async () => {
    await Promise.all(Array.from({ length: 6 }, (_, i) => auditRead(db(), who, { entity: "patient", entityId: i, patientId: i })));
    const check = await verifyAuditChain(db());
    expect(check.ok).toBe(true);
    expect(check.rows).toBeGreaterThanOrEqual(6);
  });

  it("a crowd of 30 writers at once (a shift signing in) all land, in one linear chain: the losers wait and retry", async () => {
    const before = (await db().select().from(auditLog)).length;
    const results = await Promise.allSettled(Array.from({ length: 30 }, (_, i) => auditRead(db(), who, { entity: "patient", entityId: i, patientId: i })));
    expect(results.filter((r) => r.status === "rejected")).toEqual([]);
    expect((await db().select().from(auditLog)).length).toBe(before + 30);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("30 reads of one client through the API at once: every one 200 and audited (probe, stop 24: 11 of them were 500)", async () => {
    const loc = await createLocation();
    const patient = await createPatient({ locationId: loc.id });
    const reader = await createUser({ permissions: ["view_clients"], locations: [loc.id] });
    const token = await apiToken(reader);
    const statuses = await Promise.all(Array.from({ length: 30 }, async () => (await api(`/v2/patients/${patient.id}`, { token })).status));
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    const reads = await db().select().from(auditLog).where(eq(auditLog.actorId, reader.id));
    expect(reads.filter((r) => r.action === "read" && r.patientId === patient.id)).toHaveLength(30);
  });

  it.each([
    ["withAudit", (d: Db) => withAudit(d, who, { action: "create", entity: "location", entityId: null }, () => [d.insert(locations).values({ title: "Busy" })])],
    ["withConditionalAudit", (d: Db) => withConditionalAudit(d, who, { action: "create", entity: "location", entityId: null }, (audit) => [d.insert(locations).values({ title: "Busy" }), audit(sql`changes() = 1`)])],
  ])("%s: a chain that stays contended through every attempt answers 503 with Retry-After, never a 500, and writes nothing", async (_, run) => {
    let batches = 0;
    const busy = new Proxy(db(), {
      get(target, key, receiver) {
        if (key === "batch")
          return async () => {
            batches++;
            throw new Error("D1_ERROR: UNIQUE constraint failed: audit_log.prev_hash: SQLITE_CONSTRAINT");
          };
        return Reflect.get(target, key, receiver);
      },
    }) as Db;
    const thrown = await run(busy).then(
      () => null,
      (e: unknown) => e,
    );
    expect(thrown).toBeInstanceOf(Response);
    const res = thrown as Response;
    expect([res.status, res.headers.get("Retry-After")]).toEqual([503, "1"]);
    expect(await res.json()).toEqual({ message: CHAIN_BUSY_MESSAGE });
    expect(batches).toBe(CHAIN_ATTEMPTS);
    expect(await db().select().from(locations).where(eq(locations.title, "Busy"))).toHaveLength(0);
  });

  it("a failed write leaves no audit row and no half-written record", async () => {
    const before = (await db().select().from(auditLog)).length;
    await expect(
      withAudit(db(), who, { action: "create", entity: "location", entityId: null }, () => [
        db().insert(locations).values({ title: "Half" }),
        db().insert(locations).values({ id: 1, title: "Duplicate id" }),
      ]),
    ).rejects.toThrow();
    expect((await db().select().from(auditLog)).length).toBe(before);
    expect(await db().select().from(locations).where(eq(locations.title, "Half"))).toHaveLength(0);
  });

  describe("a tail read beside the request's data", () => {
    async function tailNow(): Promise<string | null> {
      const [row] = await db().select({ tail: auditTail }).from(locations).limit(1);
      return row ? row.tail : null;
    }

    it("costs one statement (the insert) and chains to that tail", async () => {
      await createLocationRow();
      const tail = await tailNow();
      const counting = countingDb();
      await auditRead(counting.db, who, { entity: "patient", entityId: 200, patientId: 200 }, tail);
      expect(counting.statements()).toBe(1);
      const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
      expect(last!.prevHash).toBe(tail ?? GENESIS);
      expect((await verifyAuditChain(db())).ok).toBe(true);
    });

    it("a tail someone has moved past fails on the unique link and is retried with a fresh read: the chain stays linear", async () => {
      await createLocationRow();
      const stale = await tailNow();
      await auditRead(db(), who, { entity: "patient", entityId: 201, patientId: 201 });
      await withAudit(db(), who, { action: "create", entity: "location", entityId: null }, () => [db().insert(locations).values({ title: "After a stale tail" })], stale);
      const rows = await db().select().from(auditLog).orderBy(asc(auditLog.id));
      expect(rows.at(-1)!.prevHash).toBe(rows.at(-2)!.hash);
      expect(rows.filter((r) => r.prevHash === (stale ?? GENESIS))).toHaveLength(1);
      expect(await db().select().from(locations).where(eq(locations.title, "After a stale tail"))).toHaveLength(1);
      expect((await verifyAuditChain(db())).ok).toBe(true);
    });

    it("reads recorded with their audit row: one round trip, the data returned, a retry after a stale tail reads again", async () => {
      const id = await createLocationRow("Tail test");
      const tail = await tailNow();
      const counting = countingDb();
      const [rows] = await auditedRead(counting.db, who, { entity: "location", entityId: id }, () => [counting.db.select({ title: locations.title }).from(locations).where(eq(locations.id, id))], tail);
      expect(rows).toEqual([{ title: "Tail test" }]);
      expect(counting.roundTrips()).toBe(1);
      expect(counting.statements()).toBe(2);
      const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
      expect([last!.action, last!.entity, last!.entityId, last!.prevHash]).toEqual(["read", "location", String(id), tail ?? GENESIS]);

      // The same (now stale) tail: the batch fails on the link and is retried whole, so the data still comes back once, audited once.
      const before = (await db().select().from(auditLog)).length;
      const [again] = await auditedRead(db(), who, { entity: "location", entityId: id }, () => [db().select({ title: locations.title }).from(locations).where(eq(locations.id, id))], tail);
      expect(again).toEqual([{ title: "Tail test" }]);
      expect((await db().select().from(auditLog)).length).toBe(before + 1);
      expect((await verifyAuditChain(db())).ok).toBe(true);
    });

    it("many readers holding the same tail all land, once each, in one chain", async () => {
      await createLocationRow();
      const tail = await tailNow();
      const before = (await db().select().from(auditLog)).length;
      await Promise.all(Array.from({ length: 5 }, (_, i) => auditRead(db(), who, { entity: "patient", entityId: 300 + i, patientId: 300 + i }, tail)));
      const rows = await db().select().from(auditLog).orderBy(asc(auditLog.id));
      expect(rows.length).toBe(before + 5);
      expect(rows.filter((r) => Number(r.entityId) >= 300 && Number(r.entityId) < 305).map((r) => Number(r.entityId)).sort()).toEqual([300, 301, 302, 303, 304]);
      expect((await verifyAuditChain(db())).ok).toBe(true);
    });
  });

  it("detects an edited row", async () => {
    await auditRead(db(), who, { entity: "patient", entityId: 99, patientId: 99 });
    const [row] = await db().select().from(auditLog).where(eq(auditLog.entityId, "99"));
    await db().update(auditLog).set({ actorId: 8 }).where(eq(auditLog.id, row!.id));
    expect(await verifyAuditChain(db())).toMatchObject({ ok: false, brokenAt: row!.id });
    await db().update(auditLog).set({ actorId: 7 }).where(eq(auditLog.id, row!.id));
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("detects a removed row", async () => {
    await auditRead(db(), who, { entity: "patient", entityId: 100 });
    await auditRead(db(), who, { entity: "patient", entityId: 101 });
    const [row] = await db().select().from(auditLog).where(eq(auditLog.entityId, "100"));
    await db().run(sql`delete from audit_log where id = ${row!.id}`);
    const check = await verifyAuditChain(db());
    expect(check.ok).toBe(false);
    expect(check.brokenAt).toBeGreaterThan(row!.id);
    await db().insert(auditLog).values(row!);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("the hashed text is unambiguous (probe 8902)", () => {
  /** Both checks on one entry: the whole chain, and the logs report's check of the entry shown with the one before it. */
  async function checks(id: number) {
    const entries = await db().select().from(auditLog).where(inArray(auditLog.id, [id - 1, id]));
    return { chain: await verifyAuditChain(db()), shown: await verifyShownEntries([id], entries) };
  }
  const broken = (id: number) => ({ chain: { ok: false, brokenAt: id }, shown: { ok: false, brokenAt: id } });
  const holds = { chain: { ok: true, brokenAt: null }, shown: { ok: true, brokenAt: null } };

  async function listRead(ip = who.ip) {
    await auditRead(db(), { ...who, ip }, { entity: "patient", entityId: null, detail: { patients: [3, 4, 5] } });
    const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    return row!;
  }

  it("the probe's edit (detail moved onto the end of `at`, detail emptied) breaks the entry's hash in both checks", async () => {
    const row = await listRead();
    expect(await checks(row.id)).toMatchObject(holds);
    await db().run(sql`update audit_log set at = at || '|' || detail, detail = null where id = ${row.id}`);
    expect(await checks(row.id)).toMatchObject(broken(row.id));
    await db().update(auditLog).set({ at: row.at, detail: row.detail }).where(eq(auditLog.id, row.id));
    expect(await checks(row.id)).toMatchObject(holds);
  });

  it.each([
    ["actorType", "parent"],
    ["actorId", 8],
    ["actorId", null],
    ["action", "update"],
    ["entity", "parent"],
    ["entityId", "3"],
    ["entityId", ""],
    ["patientId", 3],
    ["ip", "10.9.9.9"],
    ["ip", null],
    ["at", "2020-01-01T00:00:00.000Z"],
    ["detail", '{"patients":[3]}'],
    ["detail", null],
    ["detail", ""],
  ] as const)("an edit of %s (to %j) breaks the entry's hash in both checks", async (field, value) => {
    const row = await listRead();
    await db().update(auditLog).set({ [field]: value }).where(eq(auditLog.id, row.id));
    expect(await checks(row.id)).toMatchObject(broken(row.id));
    await db().update(auditLog).set({ [field]: row[field] }).where(eq(auditLog.id, row.id));
    expect(await checks(row.id)).toMatchObject(holds);
  });

  it("entries written in the old form (fields joined by |) still verify, and a new entry chains after them", async () => {
    const [tail] = await db().select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const prev = tail?.hash ?? GENESIS;
    const old = { actorType: "user", actorId: 7, action: "read", entity: "patient", entityId: null, patientId: null, ip: "203.0.113.9", at: new Date().toISOString(), detail: '{"patients":[1,2]}' };
    const oldText = [old.actorType, old.actorId, old.action, old.entity, "", "", old.ip, old.at, old.detail].join("|");
    const [written] = await db().insert(auditLog).values({ ...old, prevHash: prev, hash: await sha256Hex(`${prev}|${oldText}`) }).returning();
    expect(await checks(written!.id)).toMatchObject(holds);
    const next = await listRead();
    expect(next.prevHash).toBe(written!.hash);
    expect(await checks(next.id)).toMatchObject(holds);
  });

  it("a new entry cannot be rewritten into old-form fields that join to its new-form text (an address with | in it)", async () => {
    const row = await listRead("a|b|c|d|e|f|g|h");
    const text = JSON.stringify([2, row.actorType, row.actorId, row.action, row.entity, row.entityId, row.patientId, row.ip, row.at, row.detail]);
    const [actorType, actorId, action, entity, entityId, patientId, ip, at] = text.split("|") as [string, string, string, string, string, string, string, string];
    await db().run(sql`update audit_log set actor_type = ${actorType}, actor_id = ${actorId}, action = ${action}, entity = ${entity}, entity_id = ${entityId}, patient_id = ${patientId}, ip = ${ip}, at = ${at}, detail = null where id = ${row.id}`);
    expect(await checks(row.id)).toMatchObject(broken(row.id));
  });
});

/** A location row, so a select from locations has a row to carry the tail. */
async function createLocationRow(title = `Tail carrier ${Date.now()}`): Promise<number> {
  const [row] = await db().insert(locations).values({ title }).returning({ id: locations.id });
  return row!.id;
}
