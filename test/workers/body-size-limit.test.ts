import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { locations } from "~/db/schema";
import { BODY_TOO_LARGE, MAX_REQUEST_BODY_BYTES } from "../../workers/body-limit";
import { FORM_TOO_LARGE } from "../../workers/form-bodies";
import { appFetch } from "./app-fetch";
import { apiToken, BASE, createUser, db, request, signInCookie } from "./helpers";

/**
 * A body over MAX_REQUEST_BODY_BYTES (4 MB) is refused 413 before it is read whole, API and screens alike (decision
 * 017, stop 42): by its Content-Length when it has one, by a running count of the bytes read when it has none (a
 * chunked or streamed body). A 50 MB body used to be read whole, stalling the Worker for half a minute (other users'
 * requests got 503) and, on a screen, coming back in the page. A body just under the limit gets the call's own
 * validation.
 */
const encoder = new TextEncoder();

/** `text`'s bytes as a stream with no length, in chunks of 64 kB; `pulled` counts the bytes the reader took. */
function streamed(text: string): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const bytes = encoder.encode(text);
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (at >= bytes.byteLength) return controller.close();
      const chunk = bytes.slice(at, at + 64 * 1024);
      at += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return { body, pulled: () => at };
}

/** A stream of `total` bytes of "a" made as they are pulled (nothing held whole); `pulled` counts them. */
function endless(prefix: string, total: number): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  const chunk = encoder.encode("a".repeat(64 * 1024));
  let at = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(prefix));
      at = prefix.length;
    },
    pull(controller) {
      if (at >= total) return controller.close();
      at += chunk.byteLength;
      controller.enqueue(chunk.slice());
    },
  });
  return { body, pulled: () => at };
}

/** A JSON location whose title makes the body exactly `size` bytes. */
function locationJson(size: number): string {
  const shell = JSON.stringify({ title: "", time_zone: "America/New_York" });
  return JSON.stringify({ title: "a".repeat(size - shell.length), time_zone: "America/New_York" });
}

/** A URL-encoded location form exactly `size` bytes long. */
function locationForm(size: number): string {
  const shell = "time_zone=America%2FNew_York&pos_codes=12&title=";
  return shell + "a".repeat(size - shell.length);
}

async function locationCount(): Promise<number> {
  const [row] = await db().select({ n: sql<number>`count(*)` }).from(locations);
  return row!.n;
}

function apiPost(token: string, body: BodyInit) {
  return appFetch(`${BASE}/api/v2/locations`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json" }, body });
}

function screenPost(cookie: string, body: BodyInit) {
  return request("/location/register", { method: "POST", cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" }, body });
}

describe("a request body over the size limit", () => {
  it("API: just over the limit answers 413 with a message and writes nothing, with a Content-Length and without", async () => {
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const before = await locationCount();
    const over = locationJson(MAX_REQUEST_BODY_BYTES + 1);
    const cases: [string, () => { body: BodyInit; pulled?: () => number }][] = [
      ["with Content-Length", () => ({ body: over })],
      ["a stream with no length", () => streamed(over)],
      ["a 50 MB stream with no length", () => endless('{"title":"', 50_000_000)],
    ];
    for (const [label, make] of cases) {
      const { body, pulled } = make();
      const res = await apiPost(token, body);
      expect(res.status, label).toBe(413);
      expect(await res.json(), label).toEqual({ message: BODY_TOO_LARGE });
      // The read stopped at the limit: the rest of the stream was never pulled.
      if (pulled) expect(pulled(), label).toBeLessThan(MAX_REQUEST_BODY_BYTES + 256 * 1024);
    }
    expect(await locationCount()).toBe(before);
  });

  it("API: a body of exactly the limit gets the call's own validation (422 at the field), with and without a length", async () => {
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const before = await locationCount();
    const under = locationJson(MAX_REQUEST_BODY_BYTES);
    for (const [label, body] of [
      ["with Content-Length", under],
      ["a stream with no length", streamed(under).body],
    ] as const) {
      const res = await apiPost(token, body);
      expect(res.status, label).toBe(422);
      const answer = (await res.json()) as { message: string; errors: Record<string, string> };
      expect(answer.errors.title, label).toBeTruthy();
    }
    expect(await locationCount()).toBe(before);
  });

  it("API: a small body is read as before (the limit changes nothing for a normal call)", async () => {
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const res = await apiPost(token, streamed(JSON.stringify({ title: "Streamed clinic", time_zone: "America/New_York", pos_codes: ["12"] })).body);
    expect(res.status).toBeLessThan(300);
  });

  it("screen: just over the limit answers 413 with the form rule's message and writes nothing, with a length and without", async () => {
    const cookie = await signInCookie(await createUser({ role: "ADMIN" }));
    const before = await locationCount();
    const over = locationForm(MAX_REQUEST_BODY_BYTES + 1);
    for (const [label, make] of [
      ["with Content-Length", () => ({ body: over as BodyInit, pulled: undefined })],
      ["a stream with no length", () => streamed(over)],
      ["a 50 MB stream with no length", () => endless("time_zone=UTC&title=", 50_000_000)],
    ] as const) {
      const { body, pulled } = make();
      const res = await screenPost(cookie, body);
      expect(res.status, label).toBe(413);
      expect(await res.text(), label).toBe(FORM_TOO_LARGE);
      if (pulled) expect(pulled(), label).toBeLessThan(MAX_REQUEST_BODY_BYTES + 256 * 1024);
    }
    expect(await locationCount()).toBe(before);
  });

  it("screen: a form of exactly the limit gets the form's own field error (422)", async () => {
    const cookie = await signInCookie(await createUser({ role: "ADMIN" }));
    const before = await locationCount();
    const under = locationForm(MAX_REQUEST_BODY_BYTES);
    for (const [label, body] of [
      ["with Content-Length", under],
      ["a stream with no length", streamed(under).body],
    ] as const) {
      const res = await screenPost(cookie, body);
      expect(res.status, label).toBe(422);
      const html = await res.text();
      expect(html, label).toContain('id="f-title-error"');
    }
    expect(await locationCount()).toBe(before);
  });
});
