import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getParentConsentDocument } from "~/models/consents.server";
import { consentPdfResponse } from "~/services/consent-pdf.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requireParent } from "~/services/guard.server";

/**
 * GET /portal/consents/{id}/pdf: the PDF of a consent the signed-in parent signed for their own child —
 * the same document staff get at /patients/consents/pdf/{id} (one render function), every section the
 * consent covers, as a download (docs/decisions/040). Parents only (staff: 403). Another family's consent,
 * a draft or a withdrawn one answers 404. The read is audited with the parent as actor before it is sent.
 */
export const handle = { guard: "parent" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requireParent(request, context);
  const id = requireId(params.id, "Consent");
  const doc = await getParentConsentDocument(modelContextFor(context, actor), id);
  if (!doc) throw notFound("Consent not found.");
  return consentPdfResponse(doc, [], false);
}
