import { noteViewMeta, NoteViewScreen } from "~/components/notes/screens";
import { viewNoteAction, viewNoteLoader } from "~/services/note-screens.server";

/** A RBT note as read, with its status and modifier forms (app/services/note-screens.server.ts). */
export const meta = noteViewMeta;
export const handle = { guard: "view_notes" };
export const loader = viewNoteLoader("rbt");
export const action = viewNoteAction("rbt");
export default NoteViewScreen;
