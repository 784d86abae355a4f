// Kept out of workers/app.ts: every named export of the Worker's main module must be a handler (workerd refuses a
// constant there), so the screens' body rule and its messages live here.

const URLENCODED = "application/x-www-form-urlencoded";
const MULTIPART = "multipart/form-data";
/** What a screen's form is sent as; a browser's form, with or without JavaScript, always is one of these. */
const FORM_BODIES = [URLENCODED, MULTIPART];
export const NOT_A_FORM = "Send the form as application/x-www-form-urlencoded or multipart/form-data.";
export const FORM_UNREADABLE = "The form could not be read. Send it again.";
/**
 * The largest multipart screen post read at all: above every upload screen's own limit (an 835 or .xlsx of 1 MB, an
 * avatar of 200 kB, each checked with its own message below this), so a huge body is refused before it is read twice.
 */
export const MAX_SCREEN_MULTIPART_BYTES = 4 * 1024 * 1024;
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
 * take apart (no boundary, a truncated message) is refused 400 (probe 8986 #5); it is read here once more, so only
 * multipart posts (the upload screens) pay for that. A URL-encoded body reads as UTF-8 whatever charset its type names
 * (asUtf8Form). The API reads its own bodies.
 */
export async function asFormChange(request: Request): Promise<Request | FormRefusal> {
  if (request.method === "GET" || request.method === "HEAD") return request;
  const type = request.headers.get("Content-Type");
  if (type !== null) {
    const media = type.split(";")[0]!.trim().toLowerCase();
    if (!FORM_BODIES.includes(media)) return { status: 415, message: NOT_A_FORM };
    if (media === URLENCODED) return asUtf8Form(request, type);
    if (Number(request.headers.get("Content-Length") ?? 0) > MAX_SCREEN_MULTIPART_BYTES) return { status: 413, message: FORM_TOO_LARGE };
    return (await readsAsForm(request)) ? request : { status: 400, message: FORM_UNREADABLE };
  }
  if (await request.clone().text()) return { status: 415, message: NOT_A_FORM };
  const headers = new Headers(request.headers);
  headers.set("Content-Type", URLENCODED);
  return new Request(request, { headers, body: "" });
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
async function asUtf8Form(request: Request, type: string): Promise<Request | FormRefusal> {
  if (!type.includes(";")) return request;
  const headers = new Headers(request.headers);
  headers.set("Content-Type", URLENCODED);
  const charset = charsetOf(type);
  if (charset === null || UTF8_LABELS.has(charset)) return new Request(request, { headers });
  const bytes = new Uint8Array(await request.arrayBuffer());
  return isAsciiForm(bytes) ? new Request(request, { headers, body: bytes }) : { status: 415, message: FORM_UNREADABLE };
}
