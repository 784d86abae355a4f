// Kept out of workers/app.ts: every named export of the Worker's main module must be a handler (workerd refuses a
// constant there), so the screens' body rule and its messages live here.

import { readBoundedBody } from "./body-limit";

const URLENCODED = "application/x-www-form-urlencoded";
const MULTIPART = "multipart/form-data";
/** What a screen's form is sent as; a browser's form, with or without JavaScript, always is one of these. */
const FORM_BODIES = [URLENCODED, MULTIPART];
export const NOT_A_FORM = "Send the form as application/x-www-form-urlencoded or multipart/form-data.";
export const FORM_UNREADABLE = "The form could not be read. Send it again.";
/**
 * A screen post over MAX_REQUEST_BODY_BYTES (workers/body-limit.ts), URL-encoded or multipart, is refused 413 with this
 * before it is read whole: above every upload screen's own limit (an 835 or .xlsx of 1 MB, an avatar of 200 kB, each
 * checked with its own message below this) and every form's fields.
 */
export const FORM_TOO_LARGE = "The form is too large: at most 4 MB.";

/** Why a screen change is not passed on: its answer's status and message. */
export interface FormRefusal {
  status: 400 | 413 | 415;
  message: string;
}

/**
 * A change to a screen (any method but GET or HEAD) as its action reads it: a form. Every screen action reads a form,
 * and the runtime's form reader throws on anything else, which was a 500 (probe 8955 #1). A change with no
 * Content-Type and no body is an empty form (a bare sign-out, a scripted post: the action answers it, with its field
 * errors where it needs fields); any other body that is not a form is refused 415. A multipart body the reader cannot
 * take apart (no boundary, a truncated message) is refused 400 (probe 8986 #5); it is parsed here once more, so only
 * multipart posts (the upload screens) pay for that. A URL-encoded body reads as UTF-8 whatever charset its type names
 * (asUtf8Form). Any body over MAX_REQUEST_BODY_BYTES is refused 413 before it is read whole (readBoundedBody); the
 * action gets a request carrying the bytes read here. The API bounds its own bodies with the same helper.
 */
export async function asFormChange(request: Request): Promise<Request | FormRefusal> {
  if (request.method === "GET" || request.method === "HEAD") return request;
  const type = request.headers.get("Content-Type");
  const media = type === null ? null : type.split(";")[0]!.trim().toLowerCase();
  if (media !== null && !FORM_BODIES.includes(media)) return { status: 415, message: NOT_A_FORM };
  // Read once, at most MAX_REQUEST_BODY_BYTES (decision 017, stop 42); the action reads the bytes read here.
  const bytes = await readBoundedBody(request);
  if (bytes === null) return { status: 413, message: FORM_TOO_LARGE };
  if (type === null) {
    if (bytes.byteLength > 0) return { status: 415, message: NOT_A_FORM };
    const headers = new Headers(request.headers);
    headers.set("Content-Type", URLENCODED);
    return new Request(request, { headers, body: "" });
  }
  if (media === URLENCODED) return asUtf8Form(request, type, bytes);
  const form = new Request(request, { body: bytes });
  return (await readsAsForm(form)) ? form : { status: 400, message: FORM_UNREADABLE };
}

async function readsAsForm(request: Request): Promise<boolean> {
  try {
    await request.clone().formData();
    return true;
  } catch {
    return false;
  }
}

/** The WHATWG Encoding standard's labels of UTF-8. */
const UTF8_LABELS = new Set(["utf-8", "utf8", "unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "x-unicode20utf8"]);

/** The charset a Content-Type names (lower case, unquoted), or null. */
function charsetOf(type: string): string | null {
  for (const param of type.split(";").slice(1)) {
    const at = param.indexOf("=");
    if (at < 0 || param.slice(0, at).trim().toLowerCase() !== "charset") continue;
    return param.slice(at + 1).trim().replace(/^"(.*)"$/, "$1").trim().toLowerCase();
  }
  return null;
}

/**
 * What a form encoder sends in a URL-encoded body: printable ASCII, with every other byte as a percent-escape (tab,
 * CR and LF are let through: the parser reads them as themselves). An escape of a byte from 0x80 up stands for a
 * character of the charset the type names, which is not UTF-8's.
 */
function isAsciiForm(bytes: Uint8Array): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b > 0x7e || (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d)) return false;
    if (b === 0x25 && i + 2 < bytes.length && /^[89a-f][0-9a-f]$/i.test(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!))) return false;
  }
  return true;
}

/**
 * A URL-encoded form, read as UTF-8 whatever charset its type names. The WHATWG URL standard's
 * application/x-www-form-urlencoded parser, which Fetch's formData() uses, always decodes UTF-8 and takes no
 * charset, but the runtime's form reader throws on any charset but UTF-8: a 500 on every screen (even sign-in) for a
 * script's `; charset=iso-8859-1`. So the type's parameters are dropped. Under another charset the body is read as
 * it is only when it is ASCII with no escape from %80 up (`isAsciiForm`): then every character means the same in
 * UTF-8. Any other body (a raw Latin-1 letter or its escape, UTF-16's zero bytes) would read as other text than
 * was sent, so it is refused 415, and the action never sees it.
 */
function asUtf8Form(request: Request, type: string, bytes: Uint8Array<ArrayBuffer>): Request | FormRefusal {
  if (!type.includes(";")) return new Request(request, { body: bytes });
  const headers = new Headers(request.headers);
  headers.set("Content-Type", URLENCODED);
  const charset = charsetOf(type);
  if (charset === null || UTF8_LABELS.has(charset) || isAsciiForm(bytes)) return new Request(request, { headers, body: bytes });
  return { status: 415, message: FORM_UNREADABLE };
}
