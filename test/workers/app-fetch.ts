import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import worker from "../../workers/app";

/**
 * A request through the whole Worker, called in the test's own context: the main module's `fetch` with the test
 * bindings and an execution context, as the runtime calls it. Not `SELF.fetch`: in the workers pool each call
 * through `SELF` costs more than the one before for the life of the runtime (5 requests went from 0.1 s to over
 * 1 s across five test files), which made the suite's long files several times slower than their requests.
 *
 * Redirects are followed unless `redirect: "manual"` (as `fetch` does); background work (`waitUntil`) runs as it
 * would after a response and is awaited after each test (`settleBackgroundWork`, from setup.ts).
 */
const contexts: ExecutionContext[] = [];
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

export async function appFetch(input: string, init: RequestInit = {}): Promise<Response> {
  let request = new Request(input, { ...init, redirect: "manual" });
  if (request.body && !(init.body instanceof ReadableStream) && !request.headers.has("Content-Length")) {
    // A browser sends the length of a body it holds whole; the runtime's request does too (the app reads it).
    const bytes = await request.arrayBuffer();
    const headers = new Headers(request.headers);
    headers.set("Content-Length", String(bytes.byteLength));
    request = new Request(request.url, { method: request.method, headers, body: bytes, redirect: "manual" });
  }
  for (let hops = 0; ; hops++) {
    const ctx = createExecutionContext();
    contexts.push(ctx);
    const response = await worker.fetch(request, env, ctx);
    const location = response.headers.get("Location");
    if (init.redirect === "manual" || !location || !REDIRECTS.has(response.status) || hops >= 20) return response;
    const toGet = response.status === 303 || ((response.status === 301 || response.status === 302) && request.method === "POST");
    if (!toGet && request.method !== "GET" && request.method !== "HEAD") return response; // a 307/308 of a body: not re-sent here
    request = new Request(new URL(location, request.url), { method: toGet ? "GET" : request.method, headers: request.headers, redirect: "manual" });
  }
}

/** Waits for the background work of every request sent since the last call; a failure in it fails the test. */
export async function settleBackgroundWork(): Promise<void> {
  const pending = contexts.splice(0);
  await Promise.all(pending.map((ctx) => waitOnExecutionContext(ctx)));
}
