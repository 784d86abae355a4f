import { Hono } from "hono";
import { CLAIM_MESSAGES, ClaimFilters, NotePickFilters } from "~/domain/claims";
import { LIST_QUERY_KEYS, listQuerySchema } from "~/domain/paging";
import { parseWith, pathId } from "~/domain/validation";
import { billableNotes, buildClaims, generateClaims, getClaim, getClaimFile, listClaims, removeClaimLine, sendClaim, setClaimStatus } from "~/models/claims.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, modelContext, refuseOtherMethods, refuseUnknownParams, requestVersion, unsupported } from "./rest";
import { idempotencyKey, idempotencyToken } from "~/services/idempotency.server";

/**
 * Claims (platform §2 claims; issue 11; decision 032), all under manage_claims and the actor's locations
 * (another location's claim or note answers 404):
 *   GET  /v2/claims                 list (status, location_id, patient_id, insurer_id, date_from, date_to; paginated)
 *   GET  /v2/claims/billable-notes  billed notes on no open claim (location_id, patient_id, from, to)
 *   GET  /v2/claims/:id             show: data, lines, validation errors, readable 837P
 *   POST /v2/claims                 build drafts from { note_ids }
 *   POST /v2/claims/generate        one 837P for { claim_ids } (drafts) → generated
 *   POST /v2/claims/:id/send        send the claim's file (local sender records it) → sent
 *   POST /v2/claims/:id/status      { status: accepted | rejected, version? }
 *   GET  /v2/claims/:id/download    the 837P as an attachment (403 when the file also holds claims of other locations)
 *   DELETE /v2/claims/:id/lines/:lineId  take a line (and its notes) off a draft; If-Match: the claim's version
 * The two lists answer any other query parameter with 422 naming it (decision 017, stop 45).
 */
const manage = requireApiPermission("manage_claims");
const NOT_FOUND = "Claim not found.";
const ListQuery = listQuerySchema();
/** The list's parameters: the v2 list query's and its filters. */
const CLAIM_LIST_PARAMS = [...LIST_QUERY_KEYS, ...Object.keys(ClaimFilters.entries)];
/** The billable notes' parameters: the build form's note filters (location_id, patient_id, from, to). */
const BILLABLE_PARAMS = Object.keys(NotePickFilters.entries);

export const claimsV2 = new Hono<AppEnv>()
  .get("/", manage, async (c) => {
    const refused = refuseUnknownParams(c, CLAIM_LIST_PARAMS);
    if (refused) return refused;
    const q = parseWith(ListQuery, c.req.query());
    if (!q.ok) return jsonError(c, 422, Object.values(q.errors)[0]!, { errors: q.errors });
    const result = await listClaims(modelContext(c), q.data, c.req.query());
    return result.ok ? c.json(result.data) : answer(c, result);
  })
  .get("/billable-notes", manage, async (c) => refuseUnknownParams(c, BILLABLE_PARAMS) ?? answer(c, await billableNotes(modelContext(c), c.req.query())))
  .post("/", manage, async (c) => {
    const body = await readBody(c);
    const ctx = modelContext(c);
    // Idempotency-Key (decision 024), scoped to the actor: a resend answers the claims the first build made (200).
    const result = await buildClaims(ctx, body, { formToken: await idempotencyToken(ctx.actor, ["claim_build"], idempotencyKey(c.req.raw.headers), body) });
    return answer(c, result, result.ok && result.replayed ? 200 : 201);
  })
  .post("/generate", manage, async (c) => {
    const body = await readBody(c);
    return answer(c, await generateClaims(modelContext(c), body), 201);
  })
  // Before `/:id`, which would read "generate" as an id ("Claim not found.").
  .all("/generate", unsupported)
  .get("/:id", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    const found = id === null ? null : await getClaim(modelContext(c), id);
    return found ? c.json({ data: found }) : jsonError(c, 404, NOT_FOUND);
  })
  .get("/:id/download", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, CLAIM_MESSAGES.noFile);
    const file = await getClaimFile(modelContext(c), id);
    if (!file.ok) return jsonError(c, file.status, file.message);
    return c.body(file.data.content, 200, { "Content-Type": "application/edi-x12", "Content-Disposition": `attachment; filename="${file.data.fileName}"`, "Cache-Control": "no-store" });
  })
  .post("/:id/send", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    return answer(c, await sendClaim(modelContext(c), id));
  })
  .post("/:id/status", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    const body = await readBody(c);
    return answer(c, await setClaimStatus(modelContext(c), id, body));
  })
  .delete("/:id/lines/:lineId", manage, async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, NOT_FOUND);
    const lineId = pathId(c.req.param("lineId"));
    if (lineId === null) return jsonError(c, 404, "Claim line not found.");
    return answer(c, await removeClaimLine(modelContext(c), id, lineId, requestVersion(c, {})));
  });

refuseOtherMethods(claimsV2, ["/", "/billable-notes", "/:id", "/:id/download", "/:id/send", "/:id/status", "/:id/lines/:lineId"]);
