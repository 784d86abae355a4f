import type { SessionStart } from "~/db/client.server";
import { readCookies, serializeCookie } from "./cookies.server";
import { timingSafeEqual, toHex } from "./crypto.server";

/**
 * D1 bookmarks between requests (docs/decisions/022): a user reads at least what their last request
 * saw, so their own writes stay visible when reads go to a replica. Screens carry the bookmark in a
 * cookie, the API in the `x-d1-bookmark` header. Both are sealed with an HMAC, so a value the server
 * did not hand out (malformed, or well formed but made up) is ignored rather than sent to D1.
 */
export const BOOKMARK_HEADER = "x-d1-bookmark";
export const BOOKMARK_COOKIE = "__bookmark";

/** What D1 hands out: four hex fields, 8-8-8-32 (lexicographically ordered, oldest first). */
const D1_BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;
/** HMAC-SHA-256, first 16 bytes in hex. */
const TAG_CHARS = 32;
const MAX_SEALED = 59 + 1 + TAG_CHARS;

const encoder = new TextEncoder();
let keyCache: { secret: string; key: Promise<CryptoKey> } | null = null;

function key(env: Pick<Env, "JWT_SECRET">): Promise<CryptoKey> {
  // Production requires JWT_SECRET (assertProductionSecrets); development uses a fixed local one.
  const secret = `d1-bookmark|${env.JWT_SECRET || "development"}`;
  if (keyCache?.secret !== secret) {
    keyCache = { secret, key: crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]) };
  }
  return keyCache.key;
}

async function tag(env: Pick<Env, "JWT_SECRET">, bookmark: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await key(env), encoder.encode(bookmark));
  return toHex(mac).slice(0, TAG_CHARS);
}

/** The bookmark as handed to a client: `<bookmark>.<tag>` (still sorts by the bookmark). */
export async function sealBookmark(env: Pick<Env, "JWT_SECRET">, bookmark: string): Promise<string> {
  return `${bookmark}.${await tag(env, bookmark)}`;
}

/**
 * Sealed values this isolate has already checked, per secret: a browser sends the same cookie on every
 * page until its next change, and the check is an HMAC each time (decision 042). Only values that
 * passed are kept, at most OPENED_MAX, the oldest dropped first.
 */
const OPENED_MAX = 512;
let opened: { secret: string | undefined; values: Map<string, string> } = { secret: undefined, values: new Map() };

/** The bookmark inside a value this server sealed; null for anything else. */
export async function openBookmark(env: Pick<Env, "JWT_SECRET">, value: string | null | undefined): Promise<string | null> {
  if (!value || value.length > MAX_SEALED) return null;
  if (opened.secret !== env.JWT_SECRET) opened = { secret: env.JWT_SECRET, values: new Map() };
  const { values } = opened;
  const known = values.get(value);
  if (known !== undefined) return known;
  const dot = value.indexOf(".");
  if (dot < 0) return null;
  const bookmark = value.slice(0, dot);
  if (!D1_BOOKMARK.test(bookmark)) return null;
  if (!timingSafeEqual(value.slice(dot + 1), await tag(env, bookmark))) return null;
  if (values.size >= OPENED_MAX) values.delete(values.keys().next().value!);
  values.set(value, bookmark);
  return bookmark;
}

export function isApiRequest(request: Request): boolean {
  const { pathname } = new URL(request.url);
  return pathname === "/api" || pathname.startsWith("/api/");
}

/** Changes (and anything not a plain read) read the primary; see decision 022. */
function isRead(request: Request): boolean {
  return request.method === "GET" || request.method === "HEAD";
}

/** The bookmark the request brings: the header for the API, the cookie for screens. Null when absent or not ours. */
export function requestBookmark(request: Request, env: Pick<Env, "JWT_SECRET">): Promise<string | null> {
  return openBookmark(env, isApiRequest(request) ? request.headers.get(BOOKMARK_HEADER) : readCookies(request)[BOOKMARK_COOKIE]);
}

/**
 * Where the request's D1 session starts. A read with a bookmark may use any replica that has caught up
 * with it. Everything else starts on the primary: a change (its checks and its retries must see every
 * committed row), and a read without a bookmark (nothing says how fresh it must be, so the freshest).
 */
export function sessionStart(request: Request, bookmark: string | null): SessionStart {
  return isRead(request) && bookmark ? bookmark : "first-primary";
}

export interface BookmarkState {
  /** The bookmark the request brought (null: none, or not ours). */
  received: string | null;
  /** The latest bookmark of the request's D1 session. */
  latest: () => string | null;
}

/**
 * Hands the session's bookmark back. API: the `x-d1-bookmark` header on every answer. Screens: the
 * cookie after a change (or when the browser has none yet). A read does not move the cookie: its answer
 * can arrive after a change's answer from the same browser and would set an older bookmark over it.
 */
export async function passBookmark(request: Request, response: Response, app: { env: Pick<Env, "JWT_SECRET">; secure: boolean; bookmark: BookmarkState }): Promise<void> {
  const { received, latest } = app.bookmark;
  const bookmark = latest() ?? received;
  if (!bookmark) return;
  if (isApiRequest(request)) {
    response.headers.set(BOOKMARK_HEADER, await sealBookmark(app.env, bookmark));
  } else if (bookmark !== received && (!isRead(request) || !received)) {
    response.headers.append("Set-Cookie", serializeCookie(BOOKMARK_COOKIE, await sealBookmark(app.env, bookmark), { httpOnly: true, secure: app.secure }));
  }
}
