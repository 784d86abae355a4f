import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/cloudflare";
import { noteSummaryDisclosure } from "~/models/notes.server";
import { requirePermission } from "~/services/guard.server";
import { summarizeNoteForm } from "~/services/ai-summary.server";
import { modelContextFor } from "~/services/forms.server";
import { pathId } from "~/domain/validation";

/**
 * The note forms' AI summary with JavaScript (app/client/note-summary.ts; docs/decisions/026): the note FORM's
 * fields (`noteFormToBody`) in, JSON out like the API — `{ summary }`, 422 `{ message, missing, errors }` or (a field beyond
 * a note's bounds, or no client: `patient_id`) `{ message, errors }`, 404 (a client or `?note_id=` note not the actor's),
 * 502/504 `{ message }`. Screen session (cookie); the Worker refuses
 * cross-site posts before Remix (workers/app.ts).
 * Without JavaScript the note form's own action answers the same submit (intent=generate-summary).
 */
export const handle = { guard: "view_notes" };

const json = (body: unknown, status = 200) => Response.json(body, { status, headers: { "Cache-Control": "no-store" } });

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "view_notes");
  return json({ message: "Use POST with the note form's fields." }, 405);
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  // A body that is not a form never gets here: the Worker answers it 415 (asFormChange in workers/form-bodies.ts).
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return json({ message: "The note form could not be read." }, 400);
  }
  // The form carries the client's id, not their name: the server looks it up to scrub it, and audits the request.
  // An edited note's form asks with `?note_id=`: the summary is then about the stored note's client (decision 026).
  const noteParam = new URL(request.url).searchParams.get("note_id");
  const noteId = noteParam === null ? null : pathId(noteParam.trim());
  if (noteParam !== null && noteId === null) return json({ message: "Note not found." }, 404);
  const ctx = modelContextFor(context, actor);
  const result = await summarizeNoteForm(context.app.env, form, { disclose: (note, provider) => noteSummaryDisclosure(ctx, note, provider, noteId) });
  if (result.ok) return json({ summary: result.summary, provider: result.provider });
  if (result.status === 422) return json({ message: result.message, ...("missing" in result ? { missing: result.missing, errors: result.errors } : { errors: result.errors }) }, 422);
  return json({ message: result.message }, result.status);
}
