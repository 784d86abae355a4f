import { auditTail, withConditionalAudit, type KnownTail } from "./audit.server";
import { and, eq, isNull, lte, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { writeWithNextBatch, type Db } from "~/db/client.server";
import { parents, sessions, users } from "~/db/schema";
import { deleteInSteps, PRUNE_LIMITS } from "~/db/prune.server";
import { sessionEndedAt, sessionState, type SessionState } from "~/domain/auth-rules";
import type { Actor } from "~/domain/permissions";
import { NO_NOTIFICATIONS, type NotificationSummary } from "~/domain/shell";
import { parentActorFields, parentActorFrom, userActorFields, userActorFrom, type PrincipalType, type PrincipalWithGeneration } from "~/models/actors.server";
import { notificationSummary, ticketCountColumns } from "~/models/notifications.server";
import { authSettingsColumn, authSettingsFromColumn, getAuthSettings, type AuthSettings } from "~/models/settings.server";
import { readCookies, serializeCookie } from "./cookies.server";
import { randomToken, sha256Hex } from "./crypto.server";

/** Screen sessions: a random id in an HttpOnly cookie; D1 keeps only its SHA-256. */
export const SESSION_COOKIE = "__session";
/** Write last_seen_at at most this often, so an active user does not cost a write per request. */
const TOUCH_EVERY_MS = 60_000;

export interface ScreenSession {
  idHash: string;
  principalType: PrincipalType;
  principalId: number;
  state: SessionState;
}

/** A new session id: its hash for the row and the cookie that carries it. */
async function newSessionId(db: Db, secure: boolean): Promise<{ idHash: string; cookie: string }> {
  const id = randomToken();
  const { absoluteHours } = await getAuthSettings(db);
  return { idHash: await sha256Hex(id), cookie: serializeCookie(SESSION_COOKIE, id, { httpOnly: true, secure, maxAge: absoluteHours * 3600 }) };
}

/**
 * A session on a sign-in: `accessGeneration` is the one read with the password hash (or stored on the two-factor
 * challenge that check started), so a change that ended access after that read leaves this session refused.
 */
export async function createSession(db: Db, principal: PrincipalWithGeneration, now: Date, secure: boolean): Promise<string> {
  const { idHash, cookie } = await newSessionId(db, secure);
  const at = now.toISOString();
  await db.insert(sessions).values({ idHash, principalType: principal.type, principalId: principal.id, createdAt: at, lastSeenAt: at, accessGeneration: principal.accessGeneration });
  return cookie;
}

/** The principal's access generation now (null when absent or deleted), for a statement on `sessions`. */
const currentGeneration = sql<number | null>`(case ${sessions.principalType}
  when 'user' then (select u.access_generation from users u where u.id = ${sessions.principalId} and u.deleted_at is null)
  else (select pa.access_generation from parents pa where pa.id = ${sessions.principalId} and pa.deleted_at is null) end)`;

export interface SessionAfterOwnChange {
  /** The session's insert: it goes into the change's batch after endAllAccessStatements (`writes` may call it again on a retry). */
  insert: () => BatchItem<"sqlite">;
  idHash: string;
  cookie: string;
}

/**
 * This browser's fresh session after one's own change that ends every session of the account (own password,
 * own two-factor switch, own email or locations: decision 015). Its insert goes into the change's own batch after
 * the statements that end access, so it carries the generation that change set, read in the same transaction:
 * the other sessions and tokens stay ended, and a change by someone else after it ends this one too.
 */
export async function sessionAfterOwnChange(db: Db, principal: { type: PrincipalType; id: number }, now: Date, secure: boolean): Promise<SessionAfterOwnChange> {
  const { idHash, cookie } = await newSessionId(db, secure);
  const at = now.toISOString();
  const table = principal.type === "user" ? users : parents;
  const insert = () =>
    db.insert(sessions).values({
      idHash,
      principalType: principal.type,
      principalId: principal.id,
      createdAt: at,
      lastSeenAt: at,
      accessGeneration: sql`(select ${table.accessGeneration} from ${table} where ${table.id} = ${principal.id})`,
    });
  return { insert, idHash, cookie };
}

export function clearSessionCookie(secure: boolean): string {
  return serializeCookie(SESSION_COOKIE, "", { httpOnly: true, secure, maxAge: 0 });
}

type SessionRow = typeof sessions.$inferSelect;

/**
 * Whether a stored session still carries its principal's access generation (`generation`, read with it). One that
 * does not was ended by a change made after its sign-in read the password (endAllAccessStatements): it is deleted,
 * as that change deleted the sessions it saw, and the request has no session.
 */
async function stillCurrent(db: Db, row: SessionRow, generation: number | null): Promise<boolean> {
  if (generation !== null && Number(generation) === row.accessGeneration) return true;
  await db.delete(sessions).where(eq(sessions.idHash, row.idHash));
  return false;
}

/**
 * Applies the idle (lock) and absolute (end) limits to a stored session, with the settings read beside it (so a
 * changed limit holds from the next request). The state is decided on the stored last-seen time, before any touch.
 * Writes when the state changes (lock, end: their own statement, once per session) or the session is due a
 * touch: that one rides in the request's next batch (writeWithNextBatch), not in a round trip of its own.
 */
async function applyLimits(db: Db, row: SessionRow, limits: AuthSettings, now: Date): Promise<ScreenSession | null> {
  const { idHash } = row;
  const state = sessionState(row, now, limits);
  if (state === "expired") {
    await db.delete(sessions).where(eq(sessions.idHash, idHash));
    return null;
  }
  if (state === "locked" && !row.locked) {
    await db.update(sessions).set({ locked: true }).where(eq(sessions.idHash, idHash));
  } else if (state === "active" && now.getTime() - new Date(row.lastSeenAt).getTime() > TOUCH_EVERY_MS) {
    await writeWithNextBatch(db, db.update(sessions).set({ lastSeenAt: now.toISOString() }).where(eq(sessions.idHash, idHash)));
  }
  return { idHash, principalType: row.principalType, principalId: row.principalId, state };
}

async function cookieHash(request: Request): Promise<string | null> {
  const id = readCookies(request)[SESSION_COOKIE];
  return id ? sha256Hex(id) : null;
}

/** Reads the request's session and applies the idle (lock) and absolute (end) limits. */
export async function readSession(db: Db, request: Request, now: Date): Promise<ScreenSession | null> {
  const idHash = await cookieHash(request);
  if (!idHash) return null;
  const [row] = await db.select({ session: sessions, generation: currentGeneration, settings: authSettingsColumn }).from(sessions).where(eq(sessions.idHash, idHash));
  return row && (await stillCurrent(db, row.session, row.generation)) ? applyLimits(db, row.session, authSettingsFromColumn(row.settings), now) : null;
}

export interface SessionAndActor {
  session: ScreenSession | null;
  /** The principal of an active session (null when locked, absent, deleted or inactive). */
  actor: Actor | null;
  /** The principal's ticket notifications (the header and sidebar badges); zero without an actor. */
  notifications: NotificationSummary;
  /** The audit chain's tail, read with the session so a screen's read audit costs only its insert (decision 019). */
  auditTail: KnownTail;
  /**
   * The principal whose session this request's cookie names when that session has ended (locked after the
   * idle limit, or expired just now): a note form posted after that keeps its text for them (decision 025).
   */
  ended?: { principalType: PrincipalType; principalId: number };
}

/**
 * The session and its principal in ONE statement: the session row joined to the user (with roles,
 * permissions and locations) or the parent it belongs to, the ticket counts of the badges, and the auth
 * settings (the limits; the shell's demo flag then comes from the cache this read refreshes). Same
 * limits and writes as readSession. `movedTo`: the hash of the session an action of this request moved the
 * browser to (guard's movedToSession), read instead of the cookie's.
 */
export async function readSessionActor(db: Db, request: Request, now: Date, movedTo?: string): Promise<SessionAndActor> {
  const idHash = movedTo ?? (await cookieHash(request));
  if (!idHash) return { session: null, actor: null, notifications: NO_NOTIFICATIONS, auditTail: undefined };
  const [row] = await db
    .select({ session: sessions, generation: currentGeneration, settings: authSettingsColumn, user: userActorFields, parent: parentActorFields, tickets: ticketCountColumns(users.id), tail: auditTail })
    .from(sessions)
    .leftJoin(users, and(eq(sessions.principalType, "user"), eq(users.id, sessions.principalId), isNull(users.deletedAt)))
    .leftJoin(parents, and(eq(sessions.principalType, "parent"), eq(parents.id, sessions.principalId), isNull(parents.deletedAt)))
    .where(eq(sessions.idHash, idHash));
  if (!row) return { session: null, actor: null, notifications: NO_NOTIFICATIONS, auditTail: undefined };
  if (!(await stillCurrent(db, row.session, row.generation))) return { session: null, actor: null, notifications: NO_NOTIFICATIONS, auditTail: row.tail };
  const session = await applyLimits(db, row.session, authSettingsFromColumn(row.settings), now);
  if (!session || session.state !== "active") {
    const ended = { principalType: row.session.principalType, principalId: row.session.principalId };
    return { session, actor: null, notifications: NO_NOTIFICATIONS, auditTail: row.tail, ended };
  }
  const actor = session.principalType === "user" ? userActorFrom(row.user) : parentActorFrom(row.parent);
  return { session, actor, notifications: actor ? notificationSummary(actor, row.tickets) : NO_NOTIFICATIONS, auditTail: row.tail };
}

/**
 * The Set-Cookie of a session made by sessionAfterOwnChange when the change stored it, that is when the change ended
 * every session of the account (an own email or locations change on the employee form, decision 015); none when
 * the change ended nothing and this browser's session goes on.
 */
export async function keptSessionCookies(db: Db, fresh: SessionAfterOwnChange): Promise<string[]> {
  const [row] = await db.select({ idHash: sessions.idHash }).from(sessions).where(eq(sessions.idHash, fresh.idHash));
  return row ? [fresh.cookie] : [];
}

/** The lock screen resumes the same session after the password is re-entered (a statement for its audited batch). */
export function unlockSession(db: Db, idHash: string, now: Date) {
  return db.update(sessions).set({ locked: false, lastSeenAt: now.toISOString() }).where(eq(sessions.idHash, idHash));
}

/**
 * The hourly clean-up: sessions past the absolute limit, which a read would delete (applyLimits). A session only
 * idle is locked, not ended (the lock screen resumes it), so it stays until the absolute limit too.
 */
export async function pruneEndedSessions(db: Db, now: Date, limits = PRUNE_LIMITS): Promise<number> {
  const { absoluteHours } = await getAuthSettings(db);
  return deleteInSteps(db, sessions, lte(sessions.createdAt, sessionEndedAt(now, absoluteHours).toISOString()), limits);
}

export async function destroySession(db: Db, request: Request): Promise<void> {
  const id = readCookies(request)[SESSION_COOKIE];
  if (id) await db.delete(sessions).where(eq(sessions.idHash, await sha256Hex(id)));
}

/**
 * The sign-out screen: ends the browser's session with a `sign_out` row on its account in the same batch (decision
 * 019, stop 43), read with the chain's tail. The row is written only when this delete ended the session, so a
 * cookie of an ended session, or two sign-outs at once, record nothing more. Two round trips.
 */
export async function signOutSession(db: Db, request: Request, ip: string): Promise<void> {
  const id = readCookies(request)[SESSION_COOKIE];
  if (!id) return;
  const idHash = await sha256Hex(id);
  const [row] = await db.select({ type: sessions.principalType, id: sessions.principalId, tail: auditTail }).from(sessions).where(eq(sessions.idHash, idHash));
  if (!row) return;
  const account = { type: row.type, id: row.id };
  await withConditionalAudit(
    db,
    { actor: { kind: account.type, id: account.id }, ip },
    { action: "sign_out", entity: account.type === "user" ? "employee" : "parent", entityId: account.id, detail: { via: "screen" } },
    (audit) => [db.delete(sessions).where(eq(sessions.idHash, idHash)), audit(sql`changes() = 1`)],
    row.tail,
  );
}

