import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { notePdfLoader } from "~/services/note-pdf-route.server";

/** GET /note-bcba/pdf/{id}: the note's PDF, opened from the note's view in a new tab (decision 027). */
export const handle = { guard: "view_notes" };

export const loader = (args: LoaderFunctionArgs) => notePdfLoader(args, "bcba");
