import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { openConsentPdf } from "~/models/consents.server";
import { consentPdfResponse } from "~/services/consent-pdf.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * GET /patients/consents/pdf/{id}?sections=1&sections=3&print=1: a consent's PDF for staff (view_clients),
 * the screen's twin of POST /api/v2/get-client-consent-pdf/{id} (docs/decisions/040), through the same rule
 * (openConsentPdf): the consent in scope first (404), then the options (422, the API's message); `print` is a
 * yes/no (1 shows it inline, else it downloads).
 */
export const handle = { guard: "view_clients" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_clients");
  const id = requireId(params.id, "Consent");
  const url = new URL(request.url);
  const result = await openConsentPdf(modelContextFor(context, actor), id, { sections: url.searchParams.getAll("sections"), isPrint: url.searchParams.get("print") ?? undefined });
  if (!result.ok) throw result.status === 404 ? notFound("Consent not found.") : plain(result.message, result.status);
  return consentPdfResponse(result.data.doc, result.data.sections, result.data.isPrint);
}

/** A refusal of this file link, as the text a browser shows (the link has no page of its own to show it on). */
function plain(message: string, status: number): Response {
  return new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}
