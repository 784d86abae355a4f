import { can, isAllAccess, isSuperadmin, type Actor, type Permission } from "./permissions";

/** The page shell's rules (platform §2 page shell): sidebar, header links, ticket badge, version alert. */

export const APP_VERSION = "0.1.2-beta";

/** A request that could not get its turn on the audit chain (app/services/audit.server.ts, chainBusy): 503, nothing saved. */
export const CHAIN_BUSY_MESSAGE = "Many people are saving at this moment. Please try again in a moment.";

export interface NavItem {
  label: string;
  to: string;
  permission: Permission | null;
  /** Tickets shows an unread badge for users with manage_tickets. */
  badge?: "tickets";
  hidden?: boolean;
  /** Shown to SUPERADMIN only (the product settings; docs/decisions/020). */
  superadminOnly?: boolean;
}

export const SIDEBAR: readonly NavItem[] = [
  { label: "Home", to: "/dashboard", permission: null },
  { label: "Employees", to: "/doctors/list", permission: "manage_employees" },
  // The spec's table says view_notes, but client screens are gated by view_clients (clinical §6); a link
  // that always ends in Access Denied helps nobody (docs/decisions/007).
  { label: "Clients", to: "/patients/list", permission: "view_clients" },
  { label: "Parents", to: "/parents/list", permission: "view_parents" },
  // Not in the spec's table: BIPs were reached only through a client. Clinicians work from the list of
  // plans every day, so it gets its own entry (docs/decisions/013).
  { label: "Behavior plans", to: "/bip/list", permission: "view_bips" },
  { label: "Notes", to: "/notes-list", permission: "view_notes" },
  { label: "Calendar", to: "/calendar/view", permission: "view_notes" },
  // Billing by client (issue 11; docs/decisions/030): the clients with notes to bill.
  { label: "Billing", to: "/billing/list", permission: "manage_claims" },
  { label: "Claims", to: "/claims", permission: "manage_claims" },
  { label: "Insurance", to: "/insurance/list", permission: "manage_insurances" },
  { label: "Location", to: "/location/list", permission: "manage_locations_access" },
  { label: "Reports", to: "/reports/access", permission: "manage_notes" },
  { label: "Tickets", to: "/tickets/list", permission: "manage_tickets", badge: "tickets" },
  { label: "Roles", to: "/roles/list", permission: "manage_roles" },
  { label: "Settings", to: "/settings", permission: null, superadminOnly: true },
];

/** SUPERADMIN and ADMIN see every item that is not hidden; others only items whose permission they hold. */
export function visibleSidebar(actor: Actor, items: readonly NavItem[] = SIDEBAR): NavItem[] {
  if (actor.kind !== "user") return items.filter((i) => i.permission === null && !i.hidden && !i.superadminOnly);
  return items.filter((i) => !i.hidden && (i.superadminOnly ? isSuperadmin(actor) : isAllAccess(actor) || i.permission === null || can(actor, i.permission)));
}

const LOGO_ROLES = ["SUPERADMIN", "ADMIN", "MANAGER", "BCBA", "RBT"];
export const showsLogoLink = (actor: Actor) => actor.roles.some((r) => LOGO_ROLES.includes(r));
/**
 * The user menu's Profile link, for every principal who may open /profile (its guard: any signed-in principal):
 * a staff user of any role, a custom one too, and a parent. /profile is everyone's own settings page (two-factor,
 * sign-in email, backup codes, avatar), wider than platform §2's list of roles (decision 015, stop 40).
 */
export const showsProfileLink = (actor: Pick<Actor, "kind">) => actor.kind === "user" || actor.kind === "parent";

export interface NotificationSummary {
  unread_tickets_count: number;
  unread_responses_count: number;
  new_tickets_count: number;
  total_unread: number;
}

/** Nothing unread: a parent, a signed-out request, a session without an active principal. */
export const NO_NOTIFICATIONS: Readonly<NotificationSummary> = { unread_tickets_count: 0, unread_responses_count: 0, new_tickets_count: 0, total_unread: 0 };

/** Header badge: users with manage_tickets see 0; others see their unread responses. */
export function headerBadgeCount(actor: Actor, summary: NotificationSummary): number {
  return can(actor, "manage_tickets") ? 0 : summary.unread_responses_count;
}

/** Sidebar Tickets badge: only for users with manage_tickets. */
export function sidebarBadgeCount(actor: Actor, summary: NotificationSummary): number | null {
  return can(actor, "manage_tickets") ? summary.unread_tickets_count : null;
}

/** The sidebar Tickets badge's text, or null where the item shows none (the screen and the 90 s poll). */
export function sidebarBadgeText(actor: Actor, summary: NotificationSummary): string | null {
  const count = sidebarBadgeCount(actor, summary);
  return count === null ? null : badgeText(count);
}

/** Badge text, capped at '99+'. Zero shows as '0'. */
export function badgeText(count: number): string {
  return count > 99 ? "99+" : String(Math.max(0, Math.trunc(count)));
}

export function greetingName(actor: Pick<Actor, "name"> | null | undefined): string {
  return actor?.name?.trim() || "User";
}

const GRAPHEMES = new Intl.Segmenter("en", { granularity: "grapheme" });

/**
 * The header avatar's letters: the first character as a reader sees it (a grapheme: an emoji with its skin tone, a
 * letter with its combining accent) of the first two words, upper-cased; "U" when the name has none. Indexing
 * `word[0]` took one UTF-16 unit, half of an emoji's surrogate pair, sent as invalid UTF-8 (probe 8921 #7).
 */
export function initials(name: string): string {
  const words = name.split(/\s+/).filter(Boolean).slice(0, 2);
  return words.map((w) => [...GRAPHEMES.segment(w)][0]!.segment.toUpperCase()).join("") || "U";
}

export function firstRole(actor: Actor): string {
  return actor.roles[0] ?? (actor.kind === "parent" ? "PARENT" : "");
}

export function versionMismatchText(version: string): string {
  return `Your browser is running an outdated version (v${version}) of the application. Please reload the page to get the latest version. If the issue persists, try using Ctrl+F5 to clear your browser cache.`;
}

export const DEMO_BANNER = {
  title: "Demo Environment Notice",
  text: "This site does not store production information. For the live application, please visit the production site.",
  button: "Visit Production Site",
} as const;

export const ACCESS_DENIED = {
  title: "Access Denied",
  forbidden: "You don't have permission to access this resource.",
  locked: "This resource is currently locked or unavailable.",
  button: "Go to Dashboard",
} as const;

/** The title of an error page, by its status (WCAG 2.4.2): the root error boundary's and the error routes'. */
export function errorPageTitle(status: number | null): string {
  const what = status === 403 || status === 423 ? ACCESS_DENIED.title : status === 404 ? "Page not found" : status === 503 ? "Please try again" : "Something went wrong";
  return `${what} · Baseline`;
}
