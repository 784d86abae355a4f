import { noteViewMeta, NoteViewScreen } from "~/components/notes/screens";
import { viewNoteAction, viewNoteLoader } from "~/services/note-screens.server";

/** A Combined note as read, with its status and modifier forms (app/services/note-screens.server.ts). */
export const meta = noteViewMeta;
export const handle = { guard: "view_notes" };
export const loader = viewNoteLoader("combined");
export const action = viewNoteAction("combined");
export default NoteViewScreen;
