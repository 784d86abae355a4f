import { Hono, type Context } from "hono";
import type { NoteType } from "~/domain/notes";
import { noteSummaryDisclosure } from "~/models/notes.server";
import { generateNoteSummary } from "~/services/ai-summary.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { modelContext, refuseOtherMethods } from "./rest";

/**
 * The notes' AI summary (clinical §7 `POST .../generate-summary`; docs/decisions/026): the body is the prepared
 * note fields (`{ cpt_code, diagnosis_code, pos, time_in, …, content }`, or the content fields beside them),
 * the path decides the note type. Answers `{ summary }`, 422 `{ message: 'Missing Required Fields', missing, errors }`,
 * 422 `{ message, errors }` for a field beyond a note's bounds (as a save answers it) or for a body that names no
 * client (`patient_id`: "Choose the client first."), 404 when `patient_id` (or `note_id`) names no client (note) of the
 * actor's, 502/504 `{ message }`. With `note_id` the summary is about that stored note's client, whatever `patient_id`
 * says. The client's names and details are looked up to be scrubbed, and the request is audited (`ai_summary`) before
 * anything is sent; nothing else is read or stored (decision 026).
 */
async function summarize(c: Context<AppEnv>, type: NoteType) {
  const body = await readBody(c);
  const ctx = modelContext(c);
  const result = await generateNoteSummary(c.env, body, { type, disclose: (note, provider) => noteSummaryDisclosure(ctx, note, provider) });
  if (result.ok) return c.json({ summary: result.summary, provider: result.provider });
  if (result.status === 404) return jsonError(c, 404, result.message);
  if (result.status === 422) return jsonError(c, 422, result.message, "missing" in result ? { missing: result.missing, errors: result.errors } : { errors: result.errors });
  return c.json({ message: result.message }, result.status);
}

export const noteSummaryApi = new Hono<AppEnv>()
  .post("/note_rbt/generate-summary", requireApiPermission("view_notes"), (c) => summarize(c, "rbt"))
  .post("/note_bcba/generate-summary", requireApiPermission("view_notes"), (c) => summarize(c, "bcba"))
  .post("/note_combined/generate-summary", requireApiPermission("view_notes"), (c) => summarize(c, "combined"));

refuseOtherMethods(noteSummaryApi, ["/note_rbt/generate-summary", "/note_bcba/generate-summary", "/note_combined/generate-summary"]);
