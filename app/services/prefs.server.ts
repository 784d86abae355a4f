import { readCookies, serializeCookie } from "./cookies.server";

/** Per-browser display preferences kept in cookies, so they work without JavaScript. */
export interface Prefs {
  dark: boolean;
  miniSidebar: boolean;
  /** The phone menu is open on this page (the cookie names the page it was opened on; docs/decisions/004). */
  mobileSidebar: boolean;
  versionDismissed: string | null;
}

const NAMES = { dark: "pref_dark", miniSidebar: "pref_mini_sidebar", mobileSidebar: "pref_mobile_sidebar", versionDismissed: "version_mismatch_dismissed" } as const;
const YEAR = 365 * 24 * 3600;

/** The preferences as they apply to the page at `pathname` (the request's own path unless told). */
export function readPrefs(request: Request, pathname = new URL(request.url).pathname): Prefs {
  const c = readCookies(request);
  return {
    dark: c[NAMES.dark] === "1",
    miniSidebar: c[NAMES.miniSidebar] === "1",
    mobileSidebar: c[NAMES.mobileSidebar] === pathname,
    versionDismissed: c[NAMES.versionDismissed] || null,
  };
}

export type PrefToggle = "dark" | "miniSidebar" | "mobileSidebar";

/** Flips one flag for the page at `pathname`: the flags that result and the cookie that remembers them. */
export function togglePref(prefs: Prefs, which: PrefToggle, pathname: string, secure: boolean): { prefs: Prefs; cookie: string } {
  const on = !prefs[which];
  const value = which === "mobileSidebar" ? (on ? pathname : "") : on ? "1" : "0";
  return { prefs: { ...prefs, [which]: on }, cookie: serializeCookie(NAMES[which], value, { maxAge: value ? YEAR : 0, secure }) };
}

/**
 * A page other than the one the phone menu was opened on closes it for good: following a menu link (or any
 * other) lands on the page itself, and the menu stays closed there after (docs/decisions/004).
 */
export function closedMobileSidebarCookie(request: Request, secure: boolean): string | null {
  const openOn = readCookies(request)[NAMES.mobileSidebar];
  return openOn && openOn !== new URL(request.url).pathname ? serializeCookie(NAMES.mobileSidebar, "", { maxAge: 0, secure }) : null;
}

export function dismissVersionCookie(version: string, secure: boolean): string {
  return serializeCookie(NAMES.versionDismissed, version, { maxAge: YEAR, secure });
}
