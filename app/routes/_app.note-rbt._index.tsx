import type { MetaFunction } from "@remix-run/cloudflare";
import { NoteFormScreen } from "~/components/notes/screens";
import { createNoteAction, createNoteLoader } from "~/services/note-screens.server";

/** New RBT note: choose the client, then the form (app/services/note-screens.server.ts). */
export const meta: MetaFunction = () => [{ title: "New RBT note · Baseline" }];
export const handle = { guard: "view_notes" };
export const loader = createNoteLoader("rbt");
export const action = createNoteAction("rbt");
export default NoteFormScreen;
