import { NoteFormScreen, noteFormMeta } from "~/components/notes/screens";
import { createNoteAction, createNoteLoader } from "~/services/note-screens.server";

/** New BCBA note: choose the client, then the form (app/services/note-screens.server.ts). */
export const meta = noteFormMeta("New BCBA note");
export const handle = { guard: "view_notes" };
export const loader = createNoteLoader("bcba");
export const action = createNoteAction("bcba");
export default NoteFormScreen;
