import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getClaimFile } from "~/models/claims.server";
import { modelContextFor } from "~/services/forms.server";
import { forbidden, notFound, requireId, requirePermission } from "~/services/guard.server";

/** GET /claims/edit-viewer/{id}/download: the claim's 837P file as an attachment (an audited read); 403 when it holds another location's claim. */
export const handle = { guard: "manage_claims" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const id = requireId(params.id, "Claim");
  const file = await getClaimFile(modelContextFor(context, actor), id);
  // A file that also holds claims of locations the actor does not manage: 403 with the reason (decision 032, stop 33).
  if (!file.ok) throw file.status === 403 ? forbidden(file.message) : notFound(file.message);
  return new Response(file.data.content, {
    headers: { "Content-Type": "application/edi-x12; charset=utf-8", "Content-Disposition": `attachment; filename="${file.data.fileName}"`, "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff" },
  });
}
