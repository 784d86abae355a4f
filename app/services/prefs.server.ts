import { readCookies, serializeCookie } from "./cookies.server";

/** Per-browser display preferences kept in cookies, so they work without JavaScript. */
export interface Prefs {
  dark: boolean;
  miniSidebar: boolean;
  mobileSidebar: boolean;
  versionDismissed: string | null;
}

const NAMES = { dark: "pref_dark", miniSidebar: "pref_mini_sidebar", mobileSidebar: "pref_mobile_sidebar", versionDismissed: "version_mismatch_dismissed" } as const;
const YEAR = 365 * 24 * 3600;

export function readPrefs(request: Request): Prefs {
  const c = readCookies(request);
  return {
    dark: c[NAMES.dark] === "1",
    miniSidebar: c[NAMES.miniSidebar] === "1",
    mobileSidebar: c[NAMES.mobileSidebar] === "1",
    versionDismissed: c[NAMES.versionDismissed] || null,
  };
}

export type PrefToggle = "dark" | "miniSidebar" | "mobileSidebar";

export function togglePrefCookie(prefs: Prefs, which: PrefToggle, secure: boolean): string {
  return serializeCookie(NAMES[which], prefs[which] ? "0" : "1", { maxAge: YEAR, secure });
}

export function dismissVersionCookie(version: string, secure: boolean): string {
  return serializeCookie(NAMES.versionDismissed, version, { maxAge: YEAR, secure });
}
