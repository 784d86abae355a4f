// The one rule for how large a request body may be, for the API and the screens alike (decision 017, stop 42).

/**
 * The largest request body read at all, API or screen, whatever its type. Above every legitimate body with room: the
 * largest are an 835 sent as JSON (the remittance call takes at most 2 MB of body), a weekly-report or 835 upload
 * (1 MB and its multipart wrapping), and a note form with its drawn signatures (200,000 characters each) and summary.
 */
export const MAX_REQUEST_BODY_BYTES = 4 * 1024 * 1024;
/** The API's answer (413 JSON `{ message }`) to a body over the limit. */
export const BODY_TOO_LARGE = "The request body is larger than 4 MB.";

/**
 * A request's body, read only while it stays within `limit` bytes: null when it is larger. A `Content-Length` over the
 * limit is refused before a byte is read; a body without one (chunked, a stream) is read with a running count and
 * the read is cancelled as soon as the count passes the limit, so a huge body is never read whole (it stalled the
 * Worker for half a minute). A request without a body reads as no bytes. The body is consumed: the caller passes
 * the bytes on.
 */
export async function readBoundedBody(request: Request, limit = MAX_REQUEST_BODY_BYTES): Promise<Uint8Array<ArrayBuffer> | null> {
  const declared = request.headers.get("Content-Length");
  if (declared !== null && /^\s*\d+\s*$/.test(declared) && Number(declared) > limit) return null;
  if (request.body === null) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      return null;
    }
    chunks.push(value as Uint8Array<ArrayBuffer>);
  }
  if (chunks.length === 1) return chunks[0]!;
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}
