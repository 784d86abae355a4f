import { NoteFormScreen, noteFormMeta } from "~/components/notes/screens";
import { createNoteAction, createNoteLoader } from "~/services/note-screens.server";

/** New Combined note: choose the client, then the form (app/services/note-screens.server.ts). */
export const meta = noteFormMeta("New Combined note");
export const handle = { guard: "view_notes" };
export const loader = createNoteLoader("combined");
export const action = createNoteAction("combined");
export default NoteFormScreen;
