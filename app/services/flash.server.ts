import { FLASH_PARAM, FLASH_TAG_PARAM, withoutFlash } from "~/domain/flash";
import { timingSafeEqual, toHex } from "./crypto.server";

/**
 * A screen's flash (the "Client updated." shown after a save) travels in the redirect's query, `?flash=…`, so it
 * works without JavaScript and survives a reload. Only the server's own flashes are shown (decision 017, stop 25):
 * on the way out, every redirect that carries one gets its tag (`fs`, an HMAC of the text, sealFlashRedirects); on
 * the way in, a page request whose flash has no valid tag is sent to the same address without it
 * (forgedFlashTarget). A link can no longer put invented text in the app's voice ("Your account is locked. Call …").
 * With JavaScript, Remix's single fetch carries an action's redirect inside its answer (not in a header) and the
 * browser follows it itself: that address is the server's own, but untagged, so its data requests (`….data`) are
 * not checked — only a document request can come from a link — and a reload of it drops the flash.
 */

/** HMAC-SHA-256 of the text, first 16 bytes in hex. */
const TAG_CHARS = 32;
const encoder = new TextEncoder();
let keyCache: { secret: string; key: Promise<CryptoKey> } | null = null;

function key(env: Pick<Env, "JWT_SECRET">): Promise<CryptoKey> {
  // Production requires JWT_SECRET (configurationProblem); development uses a fixed local one, as the bookmarks do.
  const secret = `flash|${env.JWT_SECRET || "development"}`;
  if (keyCache?.secret !== secret) keyCache = { secret, key: crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]) };
  return keyCache.key;
}

/** The tag of a flash text. */
export async function flashTag(env: Pick<Env, "JWT_SECRET">, text: string): Promise<string> {
  return toHex(await crypto.subtle.sign("HMAC", await key(env), encoder.encode(text))).slice(0, TAG_CHARS);
}

/** A data request of JavaScript's navigation (single fetch): its flash is neither checked nor tagged. */
const isDataRequest = (request: Request) => new URL(request.url).pathname.endsWith(".data");

/**
 * Adds the tag to a redirect of `response` that carries a flash (its headers are the Worker's own, mutable). Only for
 * a document request, whose own flash was checked on the way in: a data request's was not, and its redirect must not
 * turn a flash it carried into a tagged one.
 */
export async function sealFlashRedirects(env: Pick<Env, "JWT_SECRET">, request: Request, response: Response): Promise<void> {
  if (isDataRequest(request)) return;
  const to = response.headers.get("Location");
  if (!to || !to.includes(`${FLASH_PARAM}=`)) return;
  const text = new URL(to, "http://flash.invalid").searchParams.get(FLASH_PARAM);
  if (text === null) return;
  // Appended as it is: the address the screen wrote stays byte for byte what it was (less an older tag it kept).
  const hash = to.indexOf("#");
  const [written, fragment] = hash < 0 ? [to, ""] : [to.slice(0, hash), to.slice(hash)];
  const [base, query = ""] = written.split("?", 2) as [string, string?];
  const kept = query.split("&").filter((part) => part !== "" && !part.startsWith(`${FLASH_TAG_PARAM}=`));
  const path = kept.length ? `${base}?${kept.join("&")}` : base;
  response.headers.set("Location", `${path}${path.includes("?") ? "&" : "?"}${FLASH_TAG_PARAM}=${await flashTag(env, text)}${fragment}`);
}

/**
 * Where to send a page request whose flash the server did not write (no tag, or a wrong one): the same address
 * without `flash` and `fs`. Null when the request carries none, or its own.
 */
export async function forgedFlashTarget(env: Pick<Env, "JWT_SECRET">, request: Request): Promise<string | null> {
  if (request.method !== "GET" && request.method !== "HEAD") return null;
  if (isDataRequest(request)) return null;
  const url = new URL(request.url);
  const text = url.searchParams.get(FLASH_PARAM);
  const tag = url.searchParams.get(FLASH_TAG_PARAM);
  if (text === null && tag === null) return null;
  if (text !== null && tag !== null && timingSafeEqual(tag, await flashTag(env, text))) return null;
  url.searchParams.delete(FLASH_PARAM);
  url.searchParams.delete(FLASH_TAG_PARAM);
  // Absolute, on this origin: a path that begins with "//" would otherwise be read as another host (probe 8895).
  return `${url.origin}${url.pathname}${url.search}`;
}

/**
 * A form post as the screens see it: its address without `flash` and `fs` (probe 8903). A form posts to the page's
 * address, which after a save carries that save's message; a refused post re-rendered there showed the old success
 * above the new error ("PA service created." beside "The end date cannot be before the start date."). So an action
 * and the re-render's loaders never see the page's flash, and forms re-rendered by a post post back without it; a
 * redirect an action writes carries only its own flash. GET and HEAD are left as they are (the flash is for them).
 */
export function withoutPostedFlash(request: Request): Request {
  if (request.method === "GET" || request.method === "HEAD") return request;
  const url = new URL(request.url);
  if (!url.searchParams.has(FLASH_PARAM) && !url.searchParams.has(FLASH_TAG_PARAM)) return request;
  url.search = withoutFlash(url.searchParams).toString();
  return new Request(url, request);
}
