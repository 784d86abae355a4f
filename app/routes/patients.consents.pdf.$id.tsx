import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { asksNoCoveredSection, CONSENT_MESSAGES, ConsentPdfInput } from "~/domain/consents";
import { parseWith } from "~/domain/validation";
import { getConsentDocument } from "~/models/consents.server";
import { consentPdfResponse } from "~/services/consent-pdf.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * GET /patients/consents/pdf/{id}?sections=1&sections=3&print=1: a consent's PDF for staff (view_clients),
 * the screen's twin of POST /api/v2/get-client-consent-pdf/{id} (docs/decisions/040). The consent is read
 * through the model (scope first, the read audited); `print=1` shows it inline, else it downloads.
 */
export const handle = { guard: "view_clients" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_clients");
  const id = requireId(params.id, "Consent");
  const url = new URL(request.url);
  const parsed = parseWith(ConsentPdfInput, { sections: url.searchParams.getAll("sections"), isPrint: url.searchParams.get("print") ?? undefined });
  if (!parsed.ok) throw plain(Object.values(parsed.errors)[0]!, 400);
  const doc = await getConsentDocument(modelContextFor(context, actor), id);
  if (!doc) throw notFound("Consent not found.");
  if (asksNoCoveredSection(doc.consent.sections, parsed.data.sections)) throw plain(CONSENT_MESSAGES.noCoveredSection, 422);
  return consentPdfResponse(doc, parsed.data.sections, parsed.data.isPrint);
}

/** A refusal of this file link, as the text a browser shows (the link has no page of its own to show it on). */
function plain(message: string, status: 400 | 422): Response {
  return new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
