import { auditTail, type KnownTail } from "./audit.server";
import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { parents, sessions, users } from "~/db/schema";
import { sessionState, type SessionState } from "~/domain/auth-rules";
import type { Actor } from "~/domain/permissions";
import { NO_NOTIFICATIONS, type NotificationSummary } from "~/domain/shell";
import { parentActorFields, parentActorFrom, userActorFields, userActorFrom, type PrincipalType } from "~/models/actors.server";
import { notificationSummary, ticketCountColumns } from "~/models/notifications.server";
import { getAuthSettings } from "~/models/settings.server";
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

export async function createSession(db: Db, principal: { type: PrincipalType; id: number }, now: Date, secure: boolean): Promise<string> {
  const id = randomToken();
  const { absoluteHours } = await getAuthSettings(db);
  const at = now.toISOString();
  await db.insert(sessions).values({ idHash: await sha256Hex(id), principalType: principal.type, principalId: principal.id, createdAt: at, lastSeenAt: at });
  return serializeCookie(SESSION_COOKIE, id, { httpOnly: true, secure, maxAge: absoluteHours * 3600 });
}

export function clearSessionCookie(secure: boolean): string {
  return serializeCookie(SESSION_COOKIE, "", { httpOnly: true, secure, maxAge: 0 });
}

type SessionRow = typeof sessions.$inferSelect;

/** Applies the idle (lock) and absolute (end) limits to a stored session; writes only when its state changes or it is due a touch. */
async function applyLimits(db: Db, row: SessionRow, now: Date): Promise<ScreenSession | null> {
  const { idHash } = row;
  const limits = await getAuthSettings(db);
  const state = sessionState(row, now, limits);
  if (state === "expired") {
    await db.delete(sessions).where(eq(sessions.idHash, idHash));
    return null;
  }
  if (state === "locked" && !row.locked) {
    await db.update(sessions).set({ locked: true }).where(eq(sessions.idHash, idHash));
  } else if (state === "active" && now.getTime() - new Date(row.lastSeenAt).getTime() > TOUCH_EVERY_MS) {
    await db.update(sessions).set({ lastSeenAt: now.toISOString() }).where(eq(sessions.idHash, idHash));
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
  const [row] = await db.select().from(sessions).where(eq(sessions.idHash, idHash));
  return row ? applyLimits(db, row, now) : null;
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
 * permissions and locations) or the parent it belongs to, and the ticket counts of the badges. Same
 * limits and writes as readSession.
 */
export async function readSessionActor(db: Db, request: Request, now: Date): Promise<SessionAndActor> {
  const idHash = await cookieHash(request);
  if (!idHash) return { session: null, actor: null, notifications: NO_NOTIFICATIONS, auditTail: undefined };
  const [row] = await db
    .select({ session: sessions, user: userActorFields, parent: parentActorFields, tickets: ticketCountColumns(users.id), tail: auditTail })
    .from(sessions)
    .leftJoin(users, and(eq(sessions.principalType, "user"), eq(users.id, sessions.principalId), isNull(users.deletedAt)))
    .leftJoin(parents, and(eq(sessions.principalType, "parent"), eq(parents.id, sessions.principalId), isNull(parents.deletedAt)))
    .where(eq(sessions.idHash, idHash));
  if (!row) return { session: null, actor: null, notifications: NO_NOTIFICATIONS, auditTail: undefined };
  const session = await applyLimits(db, row.session, now);
  if (!session || session.state !== "active") {
    const ended = { principalType: row.session.principalType, principalId: row.session.principalId };
    return { session, actor: null, notifications: NO_NOTIFICATIONS, auditTail: row.tail, ended };
  }
  const actor = session.principalType === "user" ? userActorFrom(row.user) : parentActorFrom(row.parent);
  return { session, actor, notifications: actor ? notificationSummary(actor, row.tickets) : NO_NOTIFICATIONS, auditTail: row.tail };
}

/**
 * After one's own change that may have ended every session of the account (an own email or locations change,
 * decision 015), this browser alone keeps going as on change-password: a fresh session when its own was ended
 * (the Set-Cookie to send), none when it is still there.
 */
export async function renewEndedSession(db: Db, request: Request, principal: { type: PrincipalType; id: number }, now: Date, secure: boolean): Promise<string[]> {
  if (await readSession(db, request, now)) return [];
  return [await createSession(db, principal, now, secure)];
}

/** The lock screen resumes the same session after the password is re-entered. */
export async function unlockSession(db: Db, idHash: string, now: Date): Promise<void> {
  await db.update(sessions).set({ locked: false, lastSeenAt: now.toISOString() }).where(eq(sessions.idHash, idHash));
}

export async function lockSession(db: Db, idHash: string): Promise<void> {
  await db.update(sessions).set({ locked: true }).where(eq(sessions.idHash, idHash));
}

export async function destroySession(db: Db, request: Request): Promise<void> {
  const id = readCookies(request)[SESSION_COOKIE];
  if (id) await db.delete(sessions).where(eq(sessions.idHash, await sha256Hex(id)));
}

