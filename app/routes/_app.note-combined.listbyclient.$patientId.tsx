import type { MetaFunction } from "@remix-run/cloudflare";
import { NotesByClientScreen } from "~/components/notes/screens";
import { notesByClientLoader } from "~/services/note-screens.server";

/** A client's Combined notes, paginated (app/services/note-screens.server.ts). */
export const meta: MetaFunction = () => [{ title: "Combined notes by client · Baseline" }];
export const handle = { guard: "view_notes" };
export const loader = notesByClientLoader("combined");
export default NotesByClientScreen;
