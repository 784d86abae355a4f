import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requireId, requirePermission } from "~/services/guard.server";

/** /patients/edit-patient/:id (platform §2): the legacy path of the client edit screen. */
export const handle = { guard: "manage_clients" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_clients", "view_clients");
  return redirect(`/patients/list/edit/${requireId(params.id, "Patient")}`, 302);
}

export { default } from "~/components/ui/redirect-only";
