/**
 * Response headers every Worker answer carries (issue 9 item 11; docs/decisions/018). Static files are
 * answered by the assets layer before the Worker and take their headers from public/_headers.
 */

const LOCAL_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** http://localhost and loopback addresses are never sent HSTS: it would pin a developer's browser to https. */
export function isLocalHost(url: URL): boolean {
  return LOCAL_HOSTS.has(url.hostname) || url.hostname.endsWith(".localhost");
}

/**
 * Scripts run only from this site's own files or with this response's nonce (the inline scripts Remix and
 * the screens write); no 'unsafe-inline' for scripts. Styles keep 'unsafe-inline' for React's style attributes.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
    "base-uri 'self'",
  ].join("; ");
}

/**
 * A PDF the browser shows in its own viewer (the note PDFs, decision 027). Chrome's viewer is an `<embed>`
 * in a page it makes from the response, under the response's own policy, and Chrome builds have blocked
 * it under `object-src 'none'` ("This content is blocked"). The PDF may embed itself and the viewer's page
 * may style itself; nothing else loads, no script runs and no site may frame it.
 */
export const PDF_CONTENT_SECURITY_POLICY = ["default-src 'none'", "object-src 'self'", "style-src 'unsafe-inline'", "frame-ancestors 'none'", "form-action 'none'", "base-uri 'none'"].join("; ");

const isPdf = (headers: Headers) => (headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase() === "application/pdf";

/**
 * Pages, single-fetch `.data` answers and the API carry client data: no cache (browser, proxy or
 * back/forward) may keep them. Other Worker answers (avatars, resource routes) keep a Cache-Control
 * they chose and get `no-store` otherwise.
 */
function mustNotStore(url: URL, headers: Headers): boolean {
  if (url.pathname === "/api" || url.pathname.startsWith("/api/")) return true;
  if (url.pathname.endsWith(".data")) return true;
  if ((headers.get("Content-Type") ?? "").startsWith("text/html")) return true;
  return !headers.has("Cache-Control");
}

/** Sets the headers on a Worker answer (in place: Hono copies headers over a replaced response). */
export function applySecurityHeaders(request: Request, headers: Headers, nonce: string): void {
  const url = new URL(request.url);
  if (mustNotStore(url, headers)) headers.set("Cache-Control", "no-store");
  headers.set("Content-Security-Policy", isPdf(headers) ? PDF_CONTENT_SECURITY_POLICY : contentSecurityPolicy(nonce));
  headers.set("X-Content-Type-Options", "nosniff");
  headers.set("Referrer-Policy", "same-origin");
  headers.set("X-Frame-Options", "DENY");
  headers.set("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
  if (!isLocalHost(url)) headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
}
