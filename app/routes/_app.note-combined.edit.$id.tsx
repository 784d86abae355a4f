import type { MetaFunction } from "@remix-run/cloudflare";
import { NoteFormScreen } from "~/components/notes/screens";
import { editNoteAction, editNoteLoader } from "~/services/note-screens.server";

/** Edit a Combined note, or amend it once signed (app/services/note-screens.server.ts). */
export const meta: MetaFunction = () => [{ title: "Edit Combined note · Baseline" }];
export const handle = { guard: "view_notes" };
export const loader = editNoteLoader("combined");
export const action = editNoteAction("combined");
export default NoteFormScreen;
