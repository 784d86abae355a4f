import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import type { NoteType } from "~/domain/notes";
import { getNoteView } from "~/models/notes.server";
import { modelContextFor } from "./forms.server";
import { notFound, requireId, requirePermission } from "./guard.server";
import { notePdfResponse } from "./note-pdf.server";

/**
 * The loader of the screens' PDF routes (/note-rbt/pdf/{id}, /note-bcba/pdf/{id}, /note-combined/pdf/{id}):
 * the cookie session's view_notes guard before any read, the note through the model (an audited read;
 * another location, another type or a deleted note is 404), then the PDF (decision 027).
 */
export async function notePdfLoader({ request, context, params }: LoaderFunctionArgs, type: NoteType): Promise<Response> {
  const { actor } = await requirePermission(request, context, "view_notes");
  const id = requireId(params.id, "Note");
  const view = await getNoteView(modelContextFor(context, actor), type, id);
  if (!view) throw notFound("Note not found.");
  return notePdfResponse(view);
}
