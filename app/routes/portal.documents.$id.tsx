import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { getPortalDocument } from "~/models/portal.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requireParent } from "~/services/guard.server";

/**
 * GET /portal/documents/{id}: a document staff shared with the signed-in parent's child (a finished PDF
 * job), streamed from R2 (docs/decisions/040). Parents only; a document of another family, revoked, not
 * finished or whose file is gone answers 404. The read is audited before the file is sent.
 */
export const handle = { guard: "parent" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requireParent(request, context);
  const id = requireId(params.id, "Document");
  const doc = await getPortalDocument(modelContextFor(context, actor), id);
  const files = context.app.env.FILES;
  if (!doc || !files) throw notFound("Document not found.");
  const object = await files.get(doc.fileKey);
  if (!object) throw notFound("Document not found.");
  const name = `${doc.title.replace(/[^A-Za-z0-9 ._-]+/g, "").trim().slice(0, 80) || "document"}.pdf`;
  return new Response(object.body, {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${name}"`,
      ...(object.size ? { "Content-Length": String(object.size) } : {}),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
