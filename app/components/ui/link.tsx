import { useLocation } from "@remix-run/react";
import type { AnchorHTMLAttributes } from "react";

/**
 * Links as plain anchors (decision 042). No screen hydrates (decision 006), so Remix's `<Link>` only ever
 * renders an `<a>` — but it resolves its target against the route tree on every render (about half a
 * millisecond per ten links on the bench box; a list page has over a hundred). These render the same
 * `href` without that work: a target is an absolute path ("/notes-list?…") or a query on this page
 * ("?page=2"), which is resolved against the current path as the router would.
 */
type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, "href"> & { to: string };

function useHref(to: string): string {
  const { pathname } = useLocation();
  if (!to.startsWith("?")) return to;
  return to === "?" ? pathname : `${pathname}${to}`;
}

export function Link({ to, ...props }: LinkProps) {
  // The address last, as the router's link writes it.
  return <a {...props} href={useHref(to)} />;
}

/** A sidebar entry: marked `active` (and `aria-current="page"`) on its own page and the pages under it. */
export function NavLink({ to, className, ...props }: LinkProps) {
  const { pathname } = useLocation();
  const active = pathname === to || pathname.startsWith(to.endsWith("/") ? to : `${to}/`);
  return <a aria-current={active ? "page" : undefined} className={[className, active ? "active" : null].filter(Boolean).join(" ") || undefined} {...props} href={to} />;
}
