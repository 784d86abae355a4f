import { NoteFormScreen, noteFormMeta } from "~/components/notes/screens";
import { editNoteAction, editNoteLoader } from "~/services/note-screens.server";

/** Edit a Combined note, or amend it once signed (app/services/note-screens.server.ts). */
export const meta = noteFormMeta("Edit Combined note");
export const handle = { guard: "view_notes" };
export const loader = editNoteLoader("combined");
export const action = editNoteAction("combined");
export default NoteFormScreen;
