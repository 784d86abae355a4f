import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getClaimFile } from "~/models/claims.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/** GET /claims/edit-viewer/{id}/download: the claim's 837P file as an attachment (an audited read). */
export const handle = { guard: "manage_claims" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const id = requireId(params.id, "Claim");
  const file = await getClaimFile(modelContextFor(context, actor), id);
  if (!file) throw notFound("No 837P file for this claim.");
  return new Response(file.content, {
    headers: { "Content-Type": "application/edi-x12; charset=utf-8", "Content-Disposition": `attachment; filename="${file.fileName}"`, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
  });
}
