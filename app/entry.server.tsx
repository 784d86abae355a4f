import type { AppLoadContext, EntryContext } from "@remix-run/cloudflare";
import { RemixServer } from "@remix-run/react";
import { renderToReadableStream, renderToString } from "react-dom/server";
import { routesHydrate } from "~/components/hydrate";
import { NonceProvider } from "~/components/nonce";

const ABORT_DELAY = 5000;

export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  // The Content-Security-Policy nonce of this response (workers/security-headers.ts) for every script it writes.
  const nonce = loadContext.app.cspNonce;
  const hydrate = routesHydrate(remixContext.staticHandlerContext.matches.map((m) => remixContext.routeModules[m.route.id]?.handle));
  if (!hydrate) {
    // Most documents do not hydrate (decision 006): nothing reads the loader data hand-off React would stream
    // to the browser, so it is never encoded (patches/@remix-run+server-runtime makes it lazy), and the page is
    // rendered as one string rather than a stream of small encoded chunks (decision 042).
    Object.defineProperty(remixContext, "serverHandoffStream", { value: undefined, configurable: true });
    const html = renderToString(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
    );
    return new Response(`<!DOCTYPE html>${html}`, { headers: responseHeaders, status: responseStatusCode });
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ABORT_DELAY);
  const app = (
    <NonceProvider value={nonce}>
      <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY} nonce={nonce} />
    </NonceProvider>
  );
  const body = await renderToReadableStream(app, {
    nonce,
    signal: controller.signal,
    onError(error: unknown) {
      if (!controller.signal.aborted) console.error(error);
      responseStatusCode = 500;
    },
  });
  body.allReady.then(() => clearTimeout(timer));
  // Wait for the whole document: pages are small, and a complete response works without JavaScript.
  await body.allReady;
  return new Response(body, { headers: responseHeaders, status: responseStatusCode });
}
