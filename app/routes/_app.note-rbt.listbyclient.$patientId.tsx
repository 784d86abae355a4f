import type { MetaFunction } from "@remix-run/cloudflare";
import { NotesByClientScreen } from "~/components/notes/screens";
import { notesByClientLoader } from "~/services/note-screens.server";

/** A client's RBT notes, paginated (app/services/note-screens.server.ts). */
export const meta: MetaFunction = () => [{ title: "RBT notes by client · Baseline" }];
export const handle = { guard: "view_notes" };
export const loader = notesByClientLoader("rbt");
export default NotesByClientScreen;
