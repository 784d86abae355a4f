import { Hono } from "hono";
import { consentSectionsMap } from "~/domain/consents";
import { listPatientConsents, openConsentPdf, saveConsentDraft, withdrawConsent } from "~/models/consents.server";
import { consentPdfResponse } from "~/services/consent-pdf.server";
import { idempotencyKey, idempotencyToken } from "~/services/idempotency.server";
import { jsonError, readBody, requireApiPermission, type AppEnv } from "./env";
import { answer, answerChange, modelContext, pathId, requestVersion, refuseOtherMethods } from "./rest";
import { CLIENT_NOT_FOUND } from "~/domain/patients";
import { bodyRecordId, recordIdMessage } from "~/domain/validation";

/**
 * Client consents (clinical §7; docs/decisions/040):
 * - POST /v2/store-client-consents — create a draft, or change one (`id` and optional `version` in the body); manage_clients.
 *   A create takes `Idempotency-Key` (actor and client): a resend answers the first draft with 200, the same key with
 *   another body 422.
 * - GET /v2/get-client-consents/{id} — a client's consents ({id} is the client's id); view_clients, audited.
 * - GET /v2/get-client-consents-sections — the sections as a map from id to label; view_clients.
 * - POST /v2/get-client-consent-pdf/{id} — the consent's PDF ({id} is the consent's id), `sections` limits
 *   the sections printed, `isPrint` shows it inline instead of as a download; view_clients, audited.
 * - DELETE /v2/client-consents/{id} — withdraws a draft ({id} is the consent's id; optional If-Match
 *   version); manage_clients. The consent stays on record as withdrawn; a signed one answers 422.
 * Signing is the parent's, on the parent portal (screens only).
 */
/** A change's 409 answers the consent as stored: a read of the client's consents, recorded as the list's is. */
const consentAudit = { audit: { entity: "consent", patientOf: (r: { patient_id?: number | null }) => r.patient_id ?? null } };

export const consentsApi = new Hono<AppEnv>()
  .get("/get-client-consents-sections", requireApiPermission("view_clients"), (c) => c.json({ data: consentSectionsMap() }))
  .get("/get-client-consents/:id", requireApiPermission("view_clients"), async (c) => {
    const id = pathId(c.req.param("id"));
    const found = id === null ? null : await listPatientConsents(modelContext(c), id);
    if (!found) return jsonError(c, 404, CLIENT_NOT_FOUND);
    return c.json({ data: found.consents, patient: found.patient });
  })
  .post("/store-client-consents", requireApiPermission("manage_clients", "view_clients"), async (c) => {
    const body = await readBody(c);
    const rawId = body.id;
    let id: number | null = null;
    if (rawId !== undefined && rawId !== null && rawId !== "") {
      // The one record-id rule (decision 017, stop 44): a list, an object or a boolean names no consent.
      id = bodyRecordId(rawId);
      if (id === null) return jsonError(c, 422, recordIdMessage("id"), { errors: { id: recordIdMessage("id") } });
    }
    const version = requestVersion(c, body);
    const ctx = modelContext(c);
    // A create takes Idempotency-Key (decision 024), scoped to the actor and the client: a resend answers the first draft (200).
    const formToken = id === null ? await idempotencyToken(ctx.actor, ["consent", String(body.patient_id ?? "")], idempotencyKey(c.req.raw.headers), body) : null;
    const result = await saveConsentDraft(ctx, body, { id, version, formToken });
    return answerChange(c, consentAudit, id, result, id === null && !(result.ok && result.replayed) ? 201 : 200);
  })
  .post("/get-client-consent-pdf/:id", requireApiPermission("view_clients"), async (c) => {
    const body = await readBody(c);
    const result = await openConsentPdf(modelContext(c), pathId(c.req.param("id")), body);
    if (!result.ok) return answer(c, result);
    return consentPdfResponse(result.data.doc, result.data.sections, result.data.isPrint);
  })
  .delete("/client-consents/:id", requireApiPermission("manage_clients", "view_clients"), async (c) => {
    const id = pathId(c.req.param("id"));
    if (id === null) return jsonError(c, 404, "Consent not found.");
    return answerChange(c, consentAudit, id, await withdrawConsent(modelContext(c), id, { version: requestVersion(c, {}) }));
  });

refuseOtherMethods(consentsApi, ["/get-client-consents-sections", "/get-client-consents/:id", "/store-client-consents", "/get-client-consent-pdf/:id", "/client-consents/:id"]);
