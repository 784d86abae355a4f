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
 * multipart posts (the upload screens) pay for that: a URL-encoded body always reads. The API reads its own bodies.
 */
export async function asFormChange(request: Request): Promise<Request | FormRefusal> {
  if (request.method === "GET" || request.method === "HEAD") return request;
  const type = request.headers.get("Content-Type");
  if (type !== null) {
    const media = type.split(";")[0]!.trim().toLowerCase();
    if (!FORM_BODIES.includes(media)) return { status: 415, message: NOT_A_FORM };
    if (media !== MULTIPART) return request;
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
