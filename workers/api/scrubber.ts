import { Hono } from "hono";
import { ScrubReportQuery, scrubOneNote, scrubReport } from "~/models/scrubber.server";
import { jsonError, requireApiPermission, type AppEnv } from "./env";
import { answer, modelContext, pathId, refuseOtherMethods, refuseUnknownParams } from "./rest";

/**
 * The pre-billing scrubber (decision 034), manage_claims:
 * - GET /v2/billing/scrubber?location_id&date_from&date_to&page&per_page — the notes of a location and period
 *   (at most 31 days) with at least one reason, oldest first; 422 with field errors for bad filters; a location
 *   out of scope (or none) lists nothing, `location` null (decision 017); any other query parameter answers 422
 *   naming it (decision 017, stop 45).
 * - GET /v2/billing/scrubber/notes/{id} — one note's reasons (an empty list: it may be billed); 404 out of scope.
 * Both are audited reads.
 */
export const scrubberApi = new Hono<AppEnv>()
  .get("/", requireApiPermission("manage_claims"), async (c) => refuseUnknownParams(c, Object.keys(ScrubReportQuery.entries)) ?? answer(c, await scrubReport(modelContext(c), c.req.query())))
  .get("/notes/:id", requireApiPermission("manage_claims"), async (c) => {
    const id = pathId(c.req.param("id"));
    const note = id === null ? null : await scrubOneNote(modelContext(c), id);
    if (!note) return jsonError(c, 404, "Note not found.");
    return c.json({ data: note });
  });

refuseOtherMethods(scrubberApi, ["/", "/notes/:id"]);
