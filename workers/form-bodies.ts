// Kept out of workers/app.ts: every named export of the Worker's main module must be a handler (workerd refuses a
// constant there), so the screens' body rule and its message live here.

/** What a screen's form is sent as; a browser's form, with or without JavaScript, always is one of these. */
const FORM_BODIES = ["application/x-www-form-urlencoded", "multipart/form-data"];
export const NOT_A_FORM = "Send the form as application/x-www-form-urlencoded or multipart/form-data.";

/**
 * A change to a screen (any method but GET or HEAD) as its action reads it: a form. Every screen action reads a form,
 * and the runtime's form reader throws on anything else, which was a 500 (probe 8955 #1). A change with no
 * Content-Type and no body is an empty form (a bare sign-out, a scripted post: the action answers it, with its field
 * errors where it needs fields); any other body that is not a form is null, answered 415. The API reads its own bodies.
 */
export async function asFormChange(request: Request): Promise<Request | null> {
  if (request.method === "GET" || request.method === "HEAD") return request;
  const type = request.headers.get("Content-Type");
  if (type !== null) return FORM_BODIES.includes(type.split(";")[0]!.trim().toLowerCase()) ? request : null;
  if (await request.clone().text()) return null;
  const headers = new Headers(request.headers);
  headers.set("Content-Type", FORM_BODIES[0]!);
  return new Request(request, { headers, body: "" });
}
