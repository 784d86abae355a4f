import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { openPdfDownload } from "~/models/pdf-jobs.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";

/**
 * A done PDF job's file, streamed from R2 (decision 041): view_bips, the job's client in the user's
 * locations (404 otherwise), an audited read. A job that is not done yet sends the user to its status
 * page. Named by the kind and record id, never the client; never cached.
 */
export const handle = { guard: "view_bips" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const id = params.id ?? "";
  const result = await openPdfDownload(modelContextFor(context, actor), context.app.env.FILES, id);
  if (!result.ok) {
    if (result.status === 409) throw redirect(`/pdf-jobs/${id}`, 303);
    throw notFound(result.message);
  }
  return new Response(result.data.body, {
    headers: {
      "Content-Type": "application/pdf",
      "Content-Disposition": `attachment; filename="${result.data.filename}"`,
      "Content-Length": String(result.data.size),
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
