import { NoteFormScreen, noteFormMeta } from "~/components/notes/screens";
import { editNoteAction, editNoteLoader } from "~/services/note-screens.server";

/** Edit a RBT note, or amend it once signed (app/services/note-screens.server.ts). */
export const meta = noteFormMeta("Edit RBT note");
export const handle = { guard: "view_notes" };
export const loader = editNoteLoader("rbt");
export const action = editNoteAction("rbt");
export default NoteFormScreen;
