import { redirect, type AppLoadContext } from "@remix-run/cloudflare";
import { canAll, isSuperadmin, type Actor, type Permission } from "~/domain/permissions";
import { pathId } from "~/domain/validation";
import type { NotificationSummary } from "~/domain/shell";
import type { KnownTail } from "./audit.server";
import { readSessionActor, type ScreenSession, type SessionAndActor } from "./session.server";

/**
 * Route guards for loaders and actions. Each throws (a redirect to sign-in, the lock screen, or a 403
 * Response) before the route reads any data. Every route module also declares its guard in `handle`
 * so the route-coverage test can prove the declaration and the behaviour agree.
 */
export type Guard = "public" | "principal" | "staff" | "parent" | "superadmin" | Permission;
export interface Signed {
  actor: Actor;
  session: ScreenSession;
  /** The ticket notifications, read with the session (no statement of their own). */
  notifications: NotificationSummary;
  /** The audit chain's tail as read with the session, for the screen's read audit (decision 019). */
  auditTail: KnownTail;
}

function returnTo(request: Request): string {
  const url = new URL(request.url);
  // Single-fetch data requests end in .data; send the user back to the page itself.
  const path = url.pathname.replace(/\.data$/, "") || "/";
  return path + url.search.replace(/([?&])_data=[^&]*&?/, "$1").replace(/[?&]$/, "");
}

export function forbidden(message = "You don't have permission to access this resource."): Response {
  return new Response(message, { status: 403, statusText: "Forbidden" });
}

export function notFound(message = "Not Found"): Response {
  return new Response(message, { status: 404, statusText: "Not Found" });
}

type Loaded = SessionAndActor;
interface Reads {
  action?: Promise<Loaded>;
  loaders?: Promise<Loaded>;
  /** The session an action moved this browser to (movedToSession). */
  movedTo?: string;
}
/**
 * One session-and-actor read (one statement) per request and phase, however many loaders (layout and screen) ask.
 * A form posted without JavaScript runs the action and then the loaders in one request: the loaders (GET) read
 * again, so the page answered shows the state after the action's change, not the one read before it (probe 8933 §4).
 */
const perRequest = new WeakMap<object, Reads>();

function load(request: Request, context: AppLoadContext): Promise<Loaded> {
  let reads = perRequest.get(context.app);
  if (!reads) perRequest.set(context.app, (reads = {}));
  const phase = request.method === "GET" || request.method === "HEAD" ? "loaders" : "action";
  let loaded = reads[phase];
  if (!loaded) {
    const { db, now } = context.app;
    loaded = readSessionActor(db, request, now(), phase === "loaders" ? reads.movedTo : undefined);
    reads[phase] = loaded;
  }
  return loaded;
}

/**
 * An action that answers in place (no redirect) after one's own change gave this browser a fresh session
 * (sessionAfterOwnChange, stored by the change, which ended the one the request's cookie names): the loaders of
 * the same response read through that session.
 */
export function movedToSession(context: AppLoadContext, fresh: { idHash: string }): void {
  perRequest.set(context.app, { ...perRequest.get(context.app), movedTo: fresh.idHash });
}

/** The signed-in principal of an active session, or null (no redirect). */
export async function getSigned(request: Request, context: AppLoadContext): Promise<Signed | null> {
  const { session, actor, notifications, auditTail } = await load(request, context);
  return session && actor ? { actor, session, notifications, auditTail } : null;
}

/**
 * The staff user whose session ended (locked or expired) when this request has no active session, or null:
 * what a note form's POST needs to keep its text for that user (decision 025). Not a guard: the caller
 * still applies one.
 */
export async function endedSessionUser(request: Request, context: AppLoadContext): Promise<{ userId: number; locked: boolean } | null> {
  const { session, actor, ended } = await load(request, context);
  if (actor || !ended || ended.principalType !== "user") return null;
  return { userId: ended.principalId, locked: session?.state === "locked" };
}

/** Any signed-in principal (staff or parent). Redirects to sign-in, or to the lock screen after the idle limit. */
export async function requirePrincipal(request: Request, context: AppLoadContext): Promise<Signed> {
  const { session, actor, notifications, auditTail } = await load(request, context);
  const to = encodeURIComponent(returnTo(request));
  if (!session) throw redirect(`/login?redirectTo=${to}`);
  if (session.state === "locked") throw redirect(`/lock-screen?redirectTo=${to}`);
  if (!actor) throw redirect(`/login?redirectTo=${to}`);
  return { actor, session, notifications, auditTail };
}

/** A signed-in staff user; parents are refused with 403. */
export async function requireStaff(request: Request, context: AppLoadContext): Promise<Signed> {
  const signed = await requirePrincipal(request, context);
  if (signed.actor.kind !== "user") throw forbidden();
  return signed;
}

/** A signed-in parent (the parent portal, docs/decisions/040); staff are refused with 403. */
export async function requireParent(request: Request, context: AppLoadContext): Promise<Signed> {
  const signed = await requirePrincipal(request, context);
  if (signed.actor.kind !== "parent") throw forbidden();
  return signed;
}

/**
 * A staff user holding the permission and each of `also` (SUPERADMIN and ADMIN always pass). A screen that
 * shows a record needs the record's view permission besides the one that changes it (decision 007, 2026-11-27).
 */
export async function requirePermission(request: Request, context: AppLoadContext, permission: Permission, ...also: Permission[]): Promise<Signed> {
  const signed = await requireStaff(request, context);
  if (!canAll(signed.actor, [permission, ...also])) throw forbidden();
  return signed;
}

/** A SUPERADMIN (the product settings); ADMIN and everyone else are refused with 403. */
export async function requireSuperadmin(request: Request, context: AppLoadContext): Promise<Signed> {
  const signed = await requireStaff(request, context);
  if (!isSuperadmin(signed.actor)) throw forbidden();
  return signed;
}

/** The record id of a route path; anything else answers 404 ("Client not found."). */
export function requireId(raw: string | undefined, what: string): number {
  const id = pathId(raw);
  if (id === null) throw notFound(`${what} not found.`);
  return id;
}
