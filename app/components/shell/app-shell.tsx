import { Form, useLocation } from "@remix-run/react";
import { NavLink } from "~/components/ui/link";
import type { ReactNode } from "react";
import { DEMO_BANNER, initials, versionMismatchText } from "~/domain/shell";
import type { ShellData } from "~/routes/_app";

/** Header, sidebar, banners and footer around every signed-in screen (platform §2 page shell). */
export function AppShell({ data, children }: { data: ShellData; children: ReactNode }) {
  const location = useLocation();
  const here = location.pathname + location.search;
  const ticketBadge = data.ticketBadge;
  const classes = ["shell", data.prefs.miniSidebar ? "mini-sidebar" : "", data.prefs.mobileSidebar ? "mobile-open" : ""].filter(Boolean).join(" ");

  return (
    <div className={classes}>
      {/* The first Tab stop of every screen (WCAG 2.4.1): past the banners, header and sidebar to the page itself. */}
      <a className="skip-link" href="#main">
        Skip to main content
      </a>
      {data.demo ? (
        <div className="banner banner-demo" role="region" aria-label={DEMO_BANNER.title}>
          <strong>{DEMO_BANNER.title}</strong> <span>{DEMO_BANNER.text}</span>{" "}
          <a className="btn btn-small" href={data.demo.productionUrl} target="_blank" rel="noopener noreferrer">
            {DEMO_BANNER.button}
          </a>
        </div>
      ) : null}
      <VersionAlert pageVersion={data.version} dismissed={data.prefs.versionDismissed} redirectTo={here} />
      <header className="header">
        {data.logoLink ? (
          <a className="logo" href="/dashboard" aria-label="Baseline dashboard">
            Baseline
          </a>
        ) : (
          <span className="logo">Baseline</span>
        )}
        <PrefButton pref="miniSidebar" face={{ label: "Toggle sidebar", icon: "☰" }} redirectTo={here} className="desktop-only" expands={{ when: "off", now: !data.prefs.miniSidebar }} />
        <PrefButton pref="mobileSidebar" face={{ label: "Toggle mobile sidebar", icon: "▤" }} redirectTo={here} className="mobile-only" expands={{ when: "on", now: !!data.prefs.mobileSidebar }} />
        <PrefButton pref="dark" face={data.prefs.dark ? DARK_MODE.on : DARK_MODE.off} faces={DARK_MODE} redirectTo={here} />
        <span className="spacer" />
        {/* The ticket link's name is its text ("My tickets, 3 unread"), so the 90 s poll's new count is what a screen reader hears too (probe 9042). */}
        {data.user.isParent ? null : (
          <a className="ticket-icon" href="/tickets/my-tickets">
            <span aria-hidden="true">✉</span>
            <span className="visually-hidden">My tickets, </span>
            <span className="badge" data-testid="ticket-badge">{ticketBadge}</span>
            <span className="visually-hidden"> unread</span>
          </a>
        )}
        <details className="user-menu">
          <summary>
            <span className="avatar" aria-hidden="true">
              {data.user.avatar ? <img src={data.user.avatar} alt="" width={32} height={32} /> : initials(data.user.fullName)}
            </span>
            <span className="user-name">{data.user.fullName || data.user.name}</span>
            <span className="user-role">{data.user.role}</span>
          </summary>
          <div className="menu">
            {data.profileLink ? <a href="/profile">Profile</a> : null}
            <a href="/change-password">Change password</a>
            {/* With JavaScript, signing out also removes this user's note drafts from the browser (public/enhance.js). */}
            <Form method="post" action="/logout" data-clear-drafts={data.user.drafts ?? undefined}>
              <button type="submit" className="link-button">
                Logout
              </button>
            </Form>
          </div>
        </details>
      </header>
      <nav className="sidebar" id="main-sidebar" aria-label="Main">
        <ul>
          {data.nav.map((item) => (
            <li key={item.to}>
              <NavLink to={item.to}>
                {item.label}
                {item.badge !== null ? (
                  // Only the Tickets item has a badge (platform §2); the 90 s poll refreshes it.
                  <span className="badge" data-testid="sidebar-ticket-badge">
                    {item.badge}
                  </span>
                ) : null}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main className="content" id="main" tabIndex={-1}>
        {children}
      </main>
      <footer className="footer">
        <span>
          © {data.year} Baseline · v{data.version} New Deploy
        </span>
        <span className="hipaa">Fully HIPAA Compliance Website</span>
      </footer>
    </div>
  );
}

type Face = { label: string; icon: string };
const DARK_MODE = { on: { label: "Switch to light mode", icon: "☀" }, off: { label: "Switch to dark mode", icon: "☾" } } as const;

/**
 * A preference toggle: a plain form post that sets a cookie and comes back to the same page. With JavaScript
 * it posts in place (`data-pref`) and the page takes the answer's flags; a button whose face follows its flag
 * names both faces (`data-on`, `data-off`: icon and label).
 */
/**
 * A header toggle. `expands`: a toggle that shows or hides the main sidebar says whether it is shown now
 * (`aria-expanded`, `aria-controls`); `when` is the flag's value that shows it, so enhance.js can follow an
 * in-place toggle.
 */
function PrefButton({ pref, face, faces, redirectTo, className, expands }: { pref: string; face: Face; faces?: { on: Face; off: Face }; redirectTo: string; className?: string; expands?: { when: "on" | "off"; now: boolean } }) {
  const attr = (f: Face) => `${f.icon}|${f.label}`;
  return (
    <Form method="post" action="/prefs" className={className} data-pref={pref}>
      <input type="hidden" name="intent" value={pref} />
      <input type="hidden" name="redirectTo" value={redirectTo} />
      <button
        type="submit"
        className="icon-button"
        aria-label={face.label}
        title={face.label}
        data-on={faces && attr(faces.on)}
        data-off={faces && attr(faces.off)}
        aria-controls={expands && "main-sidebar"}
        aria-expanded={expands?.now}
        data-expands={expands?.when}
      >
        {face.icon}
      </button>
    </Form>
  );
}

/**
 * The version-mismatch alert. A page open across a deploy runs an older version than the server; the
 * enhancement script checks /api/version when the page starts and with every poll, asks whether to
 * update, and shows this template if the user says no (not for a version dismissed since the page
 * started). Dismiss works in place with JavaScript; the form post is its fallback (docs/decisions/018).
 */
function VersionAlert({ pageVersion, dismissed, redirectTo }: { pageVersion: string; dismissed: string | null; redirectTo: string }) {
  return (
    <template id="version-alert" data-dismissed={dismissed ?? ""}>
      <div id="version-mismatch" className="banner banner-warning" role="alert">
        <strong>Version Mismatch Detected</strong> <span>{versionMismatchText(pageVersion)}</span>{" "}
        <a className="btn btn-small" href={`${redirectTo}${redirectTo.includes("?") ? "&" : "?"}v=reload`}>
          Reload
        </a>
        <form method="post" action="/prefs">
          <input type="hidden" name="intent" value="dismissVersion" />
          <input type="hidden" name="version" value="" />
          <input type="hidden" name="redirectTo" value={redirectTo} />
          <button type="submit" className="btn btn-small">
            Dismiss
          </button>
        </form>
      </div>
    </template>
  );
}
