import { Hono } from "hono";
import type { NoteType } from "~/domain/notes";
import { getNoteView } from "~/models/notes.server";
import { notePdfResponse } from "~/services/note-pdf.server";
import { jsonError, requireApiPermission, type AppEnv } from "./env";
import { modelContext, pathId, refuseOtherMethods } from "./rest";

/** The path segment of each note type's PDF (clinical §7: /v2/note_rbt/pdf/{id}, /v2/note_bcba/pdf/{id}). */
export const NOTE_PDF_SEGMENTS: Readonly<Record<NoteType, string>> = { rbt: "note_rbt", bcba: "note_bcba", combined: "note_combined" };

/**
 * GET /v2/note_rbt/pdf/{id}, /v2/note_bcba/pdf/{id} and /v2/note_combined/pdf/{id}: the note's PDF
 * (decision 027), shown inline. view_notes; the note is read through the model as an audited read, so
 * a note of another location, of another type or deleted answers 404 and nothing is rendered.
 */
export const notePdfsApi = new Hono<AppEnv>();

for (const [type, segment] of Object.entries(NOTE_PDF_SEGMENTS) as [NoteType, string][]) {
  notePdfsApi.get(`/${segment}/pdf/:id`, requireApiPermission("view_notes"), async (c) => {
    const id = pathId(c.req.param("id"));
    const view = id === null ? null : await getNoteView(modelContext(c), type, id);
    if (!view) return jsonError(c, 404, "Note not found.");
    return notePdfResponse(view);
  });
}

refuseOtherMethods(notePdfsApi, Object.values(NOTE_PDF_SEGMENTS).map((segment) => `/${segment}/pdf/:id`));
