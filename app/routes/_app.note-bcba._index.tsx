import type { MetaFunction } from "@remix-run/cloudflare";
import { NoteFormScreen } from "~/components/notes/screens";
import { createNoteAction, createNoteLoader } from "~/services/note-screens.server";

/** New BCBA note: choose the client, then the form (app/services/note-screens.server.ts). */
export const meta: MetaFunction = () => [{ title: "New BCBA note · Baseline" }];
export const handle = { guard: "view_notes" };
export const loader = createNoteLoader("bcba");
export const action = createNoteAction("bcba");
export default NoteFormScreen;
