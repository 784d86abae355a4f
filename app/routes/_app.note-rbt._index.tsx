import { NoteFormScreen, noteFormMeta } from "~/components/notes/screens";
import { createNoteAction, createNoteLoader } from "~/services/note-screens.server";

/** New RBT note: choose the client, then the form (app/services/note-screens.server.ts). */
export const meta = noteFormMeta("New RBT note");
export const handle = { guard: "view_notes" };
export const loader = createNoteLoader("rbt");
export const action = createNoteAction("rbt");
export default NoteFormScreen;
