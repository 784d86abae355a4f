import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { isRouteErrorResponse, Links, Meta, Outlet, Scripts, ScrollRestoration, useMatches, useRouteError, useRouteLoaderData } from "@remix-run/react";
import { ASSET_URLS } from "~/assets";
import { AccessDenied } from "~/components/access-denied";
import { CHAIN_BUSY_MESSAGE, errorPageTitle } from "~/domain/shell";
import { routesHydrate } from "~/components/hydrate";
import { useNonce } from "~/components/nonce";
import { readPrefs } from "~/services/prefs.server";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: ASSET_URLS.appCss },
  { rel: "icon", href: "/favicon.ico" },
];

/** A screen names itself; an error page the root boundary shows is named by its status (403 'Access Denied', 404 …). */
export const meta: MetaFunction = ({ error }) => [
  { title: error ? errorPageTitle(isRouteErrorResponse(error) ? error.status : null) : "Baseline" },
  { name: "description", content: "Practice management for ABA therapy providers" },
];

/** Public: display preferences and the server's version only; no user data. */
export const handle = { guard: "public" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const prefs = readPrefs(request);
  return { dark: prefs.dark, version: context.app.env.APP_VERSION };
}

/**
 * React hydrates only screens that ask for it (`handle.hydrate`), e.g. in-place editors and charts; the
 * rest get a small enhancement script and ship no framework JavaScript (docs/decisions/006).
 */
function useHydrate(): boolean {
  return routesHydrate(useMatches().map((m) => m.handle));
}

export function Layout({ children }: { children: React.ReactNode }) {
  const data = useRouteLoaderData<typeof loader>("root");
  const hydrate = useHydrate();
  const nonce = useNonce();
  return (
    <html lang="en-US" data-version={data?.version}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links />
      </head>
      <body className={data?.dark ? "dark" : undefined}>
        {children}
        {hydrate ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : (
          <script src={ASSET_URLS.enhanceJs} defer />
        )}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary() {
  const error = useRouteError();
  if (isRouteErrorResponse(error) && (error.status === 403 || error.status === 423)) {
    return <AccessDenied status={error.status} />;
  }
  if (isRouteErrorResponse(error) && error.status === 404) {
    return (
      <main className="error-page">
        <h1>404</h1>
        <p>The page you were looking for could not be found.</p>
        <a className="btn" href="/dashboard">
          Go to Dashboard
        </a>
      </main>
    );
  }
  if (isRouteErrorResponse(error) && error.status === 503) {
    // The audit chain stayed busy through every retry (chainBusy): nothing was saved; the same request again will do.
    return (
      <main className="error-page">
        <h1>503</h1>
        <p>{CHAIN_BUSY_MESSAGE}</p>
        <a className="btn" href="">
          Try again
        </a>
      </main>
    );
  }
  if (!isRouteErrorResponse(error)) console.error(error);
  return (
    <main className="error-page">
      <h1>500</h1>
      <p>Algo salió mal, por favor intenta de nuevo más tarde.</p>
      <p>Something went wrong. Please try again later.</p>
      <a className="btn" href="/dashboard">
        Go to Dashboard
      </a>
    </main>
  );
}
