import { data, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import { Outlet, useLoaderData } from "@remix-run/react";
import { AppShell } from "~/components/shell/app-shell";
import { badgeText, firstRole, greetingName, headerBadgeCount, showsLogoLink, showsProfileLink, sidebarBadgeText, visibleSidebar } from "~/domain/shell";
import { demoModeOn } from "~/domain/settings";
import { noteDraftPrefix } from "~/domain/note-drafts";
import { getAuthSettings } from "~/models/settings.server";
import { requirePrincipal } from "~/services/guard.server";
import { closedMobileSidebarCookie, readPrefs } from "~/services/prefs.server";

/** The signed-in page shell: header, sidebar, banners, footer. Children add their own guards. */
export const handle = { guard: "principal" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  // The badges' ticket counts came with the session (no statement of their own).
  const { actor, notifications: summary } = await requirePrincipal(request, context);
  const prefs = readPrefs(request);
  const { env } = context.app;
  // Read with the session's limits already (cached per isolate): no statement of its own.
  const { demoMode } = await getAuthSettings(context.app.db);
  const shell = {
    user: {
      name: greetingName(actor),
      fullName: `${actor.name} ${actor.surname}`.trim(),
      role: firstRole(actor),
      avatar: actor.avatar,
      isParent: actor.kind === "parent",
      /** The prefix of this user's note drafts in the browser, which Logout removes (decision 025). */
      drafts: actor.kind === "user" ? noteDraftPrefix(actor.id) : null,
    },
    nav: visibleSidebar(actor).map((item) => ({
      label: item.label,
      to: item.to,
      badge: item.badge === "tickets" ? sidebarBadgeText(actor, summary) : null,
    })),
    /** The actor's time zone (their location's; null: UTC), the clock every screen reads stored instants on (`useActorTimeZone`). */
    timeZone: actor.timeZone,
    logoLink: showsLogoLink(actor),
    profileLink: showsProfileLink(actor),
    ticketBadge: badgeText(headerBadgeCount(actor, summary)),
    prefs: { miniSidebar: prefs.miniSidebar, mobileSidebar: prefs.mobileSidebar, dark: prefs.dark, versionDismissed: prefs.versionDismissed },
    demo: demoModeOn(demoMode, env.DEMO_MODE) ? { productionUrl: env.PRODUCTION_URL } : null,
    version: env.APP_VERSION,
    year: context.app.now().getUTCFullYear(),
  };
  // The phone menu was opened on another page: a link was followed, and it stays closed from here on.
  const closeMenu = closedMobileSidebarCookie(request, context.app.secure);
  return data(shell, closeMenu ? { headers: { "Set-Cookie": closeMenu } } : undefined);
}

export type ShellData = ReturnType<typeof useLoaderData<typeof loader>>;

export default function AppLayout() {
  const data = useLoaderData<typeof loader>();
  return (
    <AppShell data={data}>
      <Outlet />
    </AppShell>
  );
}
