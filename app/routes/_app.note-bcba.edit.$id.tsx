import { NoteFormScreen, noteFormMeta } from "~/components/notes/screens";
import { editNoteAction, editNoteLoader } from "~/services/note-screens.server";

/** Edit a BCBA note, or amend it once signed (app/services/note-screens.server.ts). */
export const meta = noteFormMeta("Edit BCBA note");
export const handle = { guard: "view_notes" };
export const loader = editNoteLoader("bcba");
export const action = editNoteAction("bcba");
export default NoteFormScreen;
