import { withoutFlash } from "~/domain/flash";
import { redirect } from "@remix-run/cloudflare";
import { readCookies, serializeCookie } from "./cookies.server";

/**
 * Short-lived HttpOnly cookies that carry a screen flow across requests, so a reload keeps its place:
 * the pending two-factor challenge, and the password-reset email and token.
 */
const CHALLENGE = "__2fa";
const RESET_EMAIL = "__reset_email";
const RESET_TOKEN = "__reset_token";
/** The reset challenge this browser asked for: the code is checked only against it (docs/decisions/016). */
const RESET_CHALLENGE = "__reset_challenge";
/** The account kind the reset was asked for ("parent" or "user"), for "Send a new code" (decision 016, stop 35). */
const RESET_KIND = "__reset_kind";
const FLOW_SECONDS = 30 * 60;

const set = (name: string, value: string, secure: boolean) => serializeCookie(name, value, { httpOnly: true, secure, maxAge: FLOW_SECONDS, sameSite: "Strict" });
const clear = (name: string, secure: boolean) => serializeCookie(name, "", { httpOnly: true, secure, maxAge: 0, sameSite: "Strict" });

export const readChallengeId = (request: Request) => readCookies(request)[CHALLENGE] || null;
export const challengeCookie = (id: string, secure: boolean) => set(CHALLENGE, id, secure);
export const clearChallengeCookie = (secure: boolean) => clear(CHALLENGE, secure);

export const readResetEmail = (request: Request) => readCookies(request)[RESET_EMAIL] || null;
export const resetEmailCookie = (email: string, secure: boolean) => set(RESET_EMAIL, email, secure);
export const readResetToken = (request: Request) => readCookies(request)[RESET_TOKEN] || null;
export const resetTokenCookie = (token: string, secure: boolean) => set(RESET_TOKEN, token, secure);
export const readResetChallenge = (request: Request) => readCookies(request)[RESET_CHALLENGE] || null;
export const resetChallengeCookie = (id: string, secure: boolean) => set(RESET_CHALLENGE, id, secure);
export const readResetKind = (request: Request): "user" | "parent" => (readCookies(request)[RESET_KIND] === "parent" ? "parent" : "user");
export const resetKindCookie = (kind: "user" | "parent", secure: boolean) => set(RESET_KIND, kind, secure);
export const clearResetCookies = (secure: boolean) => [clear(RESET_EMAIL, secure), clear(RESET_TOKEN, secure), clear(RESET_CHALLENGE, secure), clear(RESET_KIND, secure)];

/**
 * Only same-site paths are followed after sign-in, and without a flash: the address came from a link, so its flash
 * is not the server's own, and the redirect would otherwise tag it (app/services/flash.server.ts; probe 8895, stop 25).
 */
export function safeRedirect(to: FormDataEntryValue | string | null | undefined, fallback = "/dashboard"): string {
  if (typeof to !== "string" || !to.startsWith("/") || to.startsWith("//") || to.startsWith("/\\")) return fallback;
  // A control character: browsers drop TAB, CR and LF from a URL before reading it ("/<TAB>/evil.example" is another
  // host), and a newline or NUL cannot go in a Location header (a 500). Whatever is left must read as a path here.
  if (/[\u0000-\u001f\u007f]/.test(to) || new URL(to, "https://here.invalid").origin !== "https://here.invalid") return fallback;
  if (to.startsWith("/login") || to.startsWith("/logout")) return fallback;
  const query = to.indexOf("?");
  if (query < 0) return to;
  const kept = withoutFlash(new URLSearchParams(to.slice(query + 1))).toString();
  return `${to.slice(0, query)}${kept ? `?${kept}` : ""}`;
}

/** A redirect (303 after a form post) carrying several Set-Cookie headers. */
export function redirectWithCookies(to: string, cookies: string[], status = 303) {
  const headers = new Headers();
  for (const c of cookies) headers.append("Set-Cookie", c);
  return redirect(to, { status, headers });
}
