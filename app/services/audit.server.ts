import { asc, desc, sql, type SQL } from "drizzle-orm";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { primaryOf, type Db } from "~/db/client.server";
import { auditLog } from "~/db/schema";
import type { Actor } from "~/domain/permissions";
import { CHAIN_BUSY_MESSAGE } from "~/domain/shell";
import { sha256Hex } from "./crypto.server";

/**
 * The audit trail: who did what to which record of which client, when, from where. Rows are chained:
 * hash = SHA-256(previous hash | fields), the fields as `canonical` writes them. The write and its audit row
 * go in one batch (one transaction), and a unique previous hash makes a racing writer retry, so the chain
 * stays linear.
 *
 * The tail can be read with the request's own data (`auditTail` as a column of the read that precedes
 * the audit): that saves a statement and weakens nothing, because correctness rests on the unique
 * previous hash, not on how fresh the tail was. A tail that another writer has moved past is some
 * row's previous hash already, so the insert fails on the unique index and is retried with a fresh read.
 *
 * With read replicas (decision 022) the tail read beside the data may come from a replica that lags;
 * the batch itself is a write, so D1 runs it on the primary, where the unique index holds. The fresh
 * read of a retry goes to the primary, so a lagging replica cannot make the retries fail again.
 */
export const GENESIS = "0".repeat(64);

export interface AuditEntry {
  action: "read" | "create" | "update" | "delete" | "status" | string;
  entity: "patient" | "parent" | "employee" | "pa_service" | string;
  entityId: string | number | null;
  patientId?: number | null;
  /** What the other columns cannot say (the clients of a list, the email a sign-in tried); stored as JSON. */
  detail?: Record<string, unknown> | null;
}

export interface AuditWho {
  /**
   * The acting principal; `{ kind: "anonymous", id: null }` for a sign-in that did not succeed,
   * `{ kind: "system", id: null }` for the Worker's own scheduled work (expiring PDF files).
   */
  actor: Pick<Actor, "kind" | "id"> | { kind: "anonymous"; id: null } | { kind: "system"; id: null };
  ip: string;
}

/** Who acts in a model call: its actor and address. */
export function auditWho(ctx: { actor: AuditWho["actor"]; ip: string }): AuditWho {
  return { actor: ctx.actor, ip: ctx.ip };
}

/** The fields of a row that its hash covers. */
type HashedRow = { actorType: string; actorId: number | null; action: string; entity: string; entityId: string | null; patientId: number | null; ip: string | null; at: string; detail?: string | null };

/**
 * The hashed text of a row (decision 019, 2026-11-27): a JSON array of a fixed length that starts with the
 * form's version, 2, so each field has one encoding and "no detail" (null) differs from any text.
 */
function canonical(row: HashedRow): string {
  return JSON.stringify([2, row.actorType, row.actorId, row.action, row.entity, row.entityId, row.patientId, row.ip, row.at, row.detail ?? null]);
}

/**
 * The hashed text of rows written before 2026-11-27: the fields joined by "|", `detail` appended when present.
 * Ambiguous (a detail moved onto the end of `at` joined the same), so it is only verified, never written. It
 * begins with `actor_type`; a text that begins with "[" is refused in this form, so no row can pass as
 * old-form with a text of the current form (which always begins with "[").
 */
function legacyCanonical(row: HashedRow): string | null {
  const fields = [row.actorType, row.actorId ?? "", row.action, row.entity, row.entityId ?? "", row.patientId ?? "", row.ip ?? "", row.at];
  if (row.detail != null) fields.push(row.detail);
  const text = fields.join("|");
  return text.startsWith("[") ? null : text;
}

/** Whether `hash` is the row's hash after `prevHash`: in the current form, or else in the one before it. */
async function hashHolds(prevHash: string, row: HashedRow, hash: string): Promise<boolean> {
  if (hash === (await sha256Hex(`${prevHash}|${canonical(row)}`))) return true;
  const legacy = legacyCanonical(row);
  return legacy !== null && hash === (await sha256Hex(`${prevHash}|${legacy}`));
}

/** The chain's current tail hash as a scalar subquery (null while the log is empty), to select beside other data. */
export const auditTail = sql<string | null>`(select "hash" from "audit_log" order by "id" desc limit 1)`.mapWith((v: unknown) => (v == null ? null : String(v)));

/** The tail as read beside other data (null: the log was empty); undefined when it was not read. */
export type KnownTail = string | null | undefined;

async function tailHash(db: Db): Promise<string> {
  const [row] = await primaryOf(db).select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row?.hash ?? GENESIS;
}

/** The hash of an entry that follows `prevHash` (for tools that write entries in bulk, such as the bench data). */
export function chainedHash(prevHash: string, row: HashedRow): Promise<string> {
  return sha256Hex(`${prevHash}|${canonical(row)}`);
}

/** The audit row's values. (Not the insert itself: an async function returning a drizzle query would run it.) */
async function auditValues(who: AuditWho, entry: AuditEntry, prevHash: string) {
  const row = {
    actorType: who.actor.kind,
    actorId: who.actor.id,
    action: entry.action,
    entity: entry.entity,
    entityId: entry.entityId == null ? null : String(entry.entityId),
    patientId: entry.patientId ?? null,
    ip: who.ip,
    at: new Date().toISOString(),
    detail: entry.detail == null ? null : JSON.stringify(entry.detail),
  };
  const hash = await sha256Hex(`${prevHash}|${canonical(row)}`);
  return { ...row, prevHash, hash };
}

/** A unique-constraint failure on prev_hash anywhere in the error's cause chain: another writer got the tail first. */
export function isChainRace(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    if (String((x as Error).message ?? x).includes("audit_log.prev_hash")) return true;
  }
  return false;
}

/**
 * Writers that lose the race for the chain's tail read it again and retry, after a short random wait that grows
 * with each attempt (so a crowd of them — a clinic signing in at the start of a shift — spreads out instead of
 * colliding again), at most CHAIN_ATTEMPTS times, about a second and a half in all. Then the request answers 503
 * (`chainBusy`), never a 500: nothing of it was written (its batch failed whole).
 */
export const CHAIN_ATTEMPTS = 40;

export function chainBackoff(attempt: number): Promise<void> {
  const ms = Math.random() * Math.min(60, 3 * (attempt + 1));
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The answer when the chain stayed contended through every attempt: thrown, it becomes the screen's or the API's 503. */
export function chainBusy(): Response {
  return new Response(JSON.stringify({ message: CHAIN_BUSY_MESSAGE }), { status: 503, headers: { "Content-Type": "application/json", "Retry-After": "1" } });
}

/** After a failed batch: wait and go on when it lost a chain race with attempts left, else throw (the 503, or the error itself). */
async function afterChainFailure(e: unknown, attempt: number): Promise<void> {
  if (!isChainRace(e)) throw e;
  if (attempt + 1 >= CHAIN_ATTEMPTS) throw chainBusy();
  await chainBackoff(attempt);
}

/**
 * Runs the writes and appends one audit row in the same batch. `writes` is called again on a retry, so
 * build the statements inside it. Returns the batch results of the writes. `tail`: the chain's tail as
 * read with the request's data (`auditTail`); the first attempt uses it instead of reading it again.
 */
export async function withAudit<T extends BatchItem<"sqlite">[]>(db: Db, who: AuditWho, entry: AuditEntry, writes: () => [...T], tail?: KnownTail): Promise<BatchResponse<T>> {
  for (let attempt = 0; ; attempt++) {
    const prev = attempt === 0 && tail !== undefined ? (tail ?? GENESIS) : await tailHash(db);
    const values = await auditValues(who, entry, prev);
    const audit = db.insert(auditLog).values(values);
    try {
      const results = await db.batch([...writes(), audit] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
      return results.slice(0, -1) as BatchResponse<T>;
    } catch (e) {
      await afterChainFailure(e, attempt);
    }
  }
}

/**
 * One attempt of withAudit, chained to `tail` exactly as read (null: the log was empty), with no retry of
 * its own: a chain race (isChainRace) is thrown to the caller. This is optimistic concurrency on the chain:
 * every write of an audited table appends an audit row in its own batch, so when this batch's row still
 * chains to the tail read in the same transaction as the data a check used, nothing audited has been
 * written since that read, and the check still holds. On a chain race the caller reads and checks again
 * (a booking, decision 037) instead of writing with a fresh tail. Returns the batch results of the writes.
 */
export async function withAuditIfUnchanged<T extends BatchItem<"sqlite">[]>(db: Db, who: AuditWho, entry: AuditEntry, writes: () => [...T], tail: string | null): Promise<BatchResponse<T>> {
  const values = await auditValues(who, entry, tail ?? GENESIS);
  const results = await db.batch([...writes(), db.insert(auditLog).values(values)] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  return results.slice(0, -1) as BatchResponse<T>;
}

/**
 * Builds the audit row's insert for a batch, to run only when `condition` holds (e.g. `changes() = 1`).
 * `written` is an SQL condition, true in the statements after the insert once this row was inserted (it is
 * then the chain's newest row): a later statement of the batch that must happen only with the audited write
 * (a note's scheduled session marked written, decision 037) names it instead of chaining `changes()`.
 */
export type ConditionalAudit = ((condition: SQL) => BatchItem<"sqlite">) & { written: SQL };

/**
 * Like withAudit, for a write that may decide not to happen (a conditional INSERT … SELECT … WHERE or
 * an UPDATE … WHERE whose rules refuse it): `writes` receives `audit(condition)`, which builds the audit
 * row's insert as `INSERT … SELECT … WHERE condition`, and places it in the batch itself (right after
 * the write, conditioned on `changes() = 1`). A refused write then leaves no audit row and the chain's
 * tail where it was. Returns every result of the batch, the audit insert's included.
 */
export async function withConditionalAudit<T extends BatchItem<"sqlite">[]>(db: Db, who: AuditWho, entry: AuditEntry, writes: (audit: ConditionalAudit) => [...T], tail?: KnownTail): Promise<BatchResponse<T>> {
  for (let attempt = 0; ; attempt++) {
    const prev = attempt === 0 && tail !== undefined ? (tail ?? GENESIS) : await tailHash(db);
    try {
      return await conditionalBatch(db, who, entry, writes, prev);
    } catch (e) {
      await afterChainFailure(e, attempt);
    }
  }
}

/**
 * One attempt of withConditionalAudit, chained to `tail` exactly as read (null: the log was empty), with no retry:
 * a chain race is thrown to the caller, which reads and decides again (optimistic concurrency, as
 * withAuditIfUnchanged). For a conditional write whose batch also carries a decision made on data read with that
 * tail (a note delete that gives its scheduled session back only when the booking rules still allow it, decision 037).
 */
export function withConditionalAuditIfUnchanged<T extends BatchItem<"sqlite">[]>(db: Db, who: AuditWho, entry: AuditEntry, writes: (audit: ConditionalAudit) => [...T], tail: string | null): Promise<BatchResponse<T>> {
  return conditionalBatch(db, who, entry, writes, tail ?? GENESIS);
}

async function conditionalBatch<T extends BatchItem<"sqlite">[]>(db: Db, who: AuditWho, entry: AuditEntry, writes: (audit: ConditionalAudit) => [...T], prev: string): Promise<BatchResponse<T>> {
  const v = await auditValues(who, entry, prev);
  // Columns in table order: id (assigned), actor_type, actor_id, action, entity, entity_id, patient_id, ip, at, detail, prev_hash, hash.
  const insert = (condition: SQL) =>
    db.insert(auditLog).select(sql`select null, ${v.actorType}, ${v.actorId}, ${v.action}, ${v.entity}, ${v.entityId}, ${v.patientId}, ${v.ip}, ${v.at}, ${v.detail}, ${v.prevHash}, ${v.hash} where ${condition}`);
  const audit: ConditionalAudit = Object.assign(insert, { written: sql`(select "hash" from "audit_log" order by "id" desc limit 1) = ${v.hash}` });
  return (await db.batch(writes(audit) as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as BatchResponse<T>;
}

/** Records a read (no write to go with it). `tail` as for withAudit. */
export async function auditRead(db: Db, who: AuditWho, entry: Omit<AuditEntry, "action">, tail?: KnownTail): Promise<void> {
  await withAudit(db, who, { ...entry, action: "read" }, () => [] as [], tail);
}

/**
 * Runs the reads and records them (one audit row, action read) in the same batch: one round trip, and
 * the data comes back only when its read was recorded. Build the reads inside `reads` (called again on
 * a retry); only reads of records already found in the actor's scope. `tail` as for withAudit.
 */
export function auditedRead<T extends BatchItem<"sqlite">[]>(db: Db, who: AuditWho, entry: Omit<AuditEntry, "action">, reads: () => [...T], tail?: KnownTail): Promise<BatchResponse<T>> {
  return withAudit(db, who, { ...entry, action: "read" }, reads, tail);
}

/**
 * The clients an answer carries, attached to it by the model when its rows do not name them (a weekly
 * report names its plan, not its client). A symbol key: JSON answers leave it out.
 */
const CLIENTS = Symbol("audited clients");

/** Attaches the ids of the clients whose data `value` holds, for the read's audit row. */
export function withClients<T extends object>(value: T, patientIds: readonly number[]): T {
  Object.defineProperty(value, CLIENTS, { value: [...new Set(patientIds)].sort((a, b) => a - b), enumerable: false });
  return value;
}

/** The client ids attached by withClients; undefined when none were attached. */
export function clientsOf(value: object): number[] | undefined {
  return (value as { [CLIENTS]?: number[] })[CLIENTS];
}

/** The distinct client ids of a list's rows, in ascending order. */
export function clientIds<Row>(rows: readonly Row[], patientOf: (row: Row) => number | null | undefined): number[] {
  const ids = new Set<number>();
  for (const r of rows) {
    const id = patientOf(r);
    if (id != null) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/**
 * Records a read of many clients' records (a list page, a search, a dashboard): ONE row, action `read`,
 * the clients' ids in `detail.patients` (and in `patient_id` when there is exactly one). Nothing is
 * written when no client's data is returned. Call it before the data is answered, so that data leaves the
 * server only when its read is recorded. `tail` as for withAudit.
 */
export async function auditClientsRead(db: Db, who: AuditWho, entity: string, patientIds: readonly number[], tail?: KnownTail, subjects: "patients" | "parents" = "patients"): Promise<void> {
  if (patientIds.length === 0) return;
  await auditRead(db, who, clientsReadEntry(entity, patientIds, subjects), tail);
}

/** The audit entry of a read of many clients (see auditClientsRead), for auditedRead when more reads ride along. */
export function clientsReadEntry(entity: string, patientIds: readonly number[], subjects: "patients" | "parents" = "patients"): Omit<AuditEntry, "action"> {
  const one = patientIds.length === 1 && subjects === "patients" ? patientIds[0]! : null;
  return { entity, entityId: null, patientId: one, detail: { [subjects]: [...patientIds] } };
}

export interface ChainCheck {
  ok: boolean;
  rows: number;
  /** The id of the first row whose hash or link does not hold. */
  brokenAt: number | null;
}

/** Recomputes the chain from the start; an edited, inserted or removed row breaks it. */
export async function verifyAuditChain(db: Db): Promise<ChainCheck> {
  const rows = await db.select().from(auditLog).orderBy(asc(auditLog.id));
  let prev = GENESIS;
  for (const r of rows) {
    if (r.prevHash !== prev || !(await hashHolds(prev, r, r.hash))) return { ok: false, rows: rows.length, brokenAt: r.id };
    prev = r.hash;
  }
  return { ok: true, rows: rows.length, brokenAt: null };
}

export interface EntriesCheck {
  ok: boolean;
  /** How many entries were checked (the ones shown and the one before each). */
  rows: number;
  /** The id of the first entry shown whose hash, or whose link to the entry before it, does not hold. */
  brokenAt: number | null;
}

/**
 * Checks the entries a screen shows without reading the chain from its start (decision 038): each shown entry's
 * hash is recomputed from its previous hash and fields, and so is the hash of the entry just before it (id − 1),
 * which must be that previous hash. An edited entry, or one removed or inserted next to a shown one, breaks it.
 * `entries`: the shown entries and their predecessors, read by id.
 */
export async function verifyShownEntries(shownIds: readonly number[], entries: readonly (typeof auditLog.$inferSelect)[]): Promise<EntriesCheck> {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const valid = (e: typeof auditLog.$inferSelect) => hashHolds(e.prevHash, e, e.hash);
  for (const id of [...shownIds].sort((a, b) => a - b)) {
    const e = byId.get(id);
    if (!e || !(await valid(e))) return { ok: false, rows: entries.length, brokenAt: id };
    const before = byId.get(id - 1);
    const linked = before ? before.hash === e.prevHash && (await valid(before)) : e.prevHash === GENESIS;
    if (!linked) return { ok: false, rows: entries.length, brokenAt: id };
  }
  return { ok: true, rows: entries.length, brokenAt: null };
}
