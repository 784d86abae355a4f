import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requireId, requirePermission } from "~/services/guard.server";

/** /doctors/edit/:id (platform §2): the same screen as /doctors/list/edit/:id. */
export const handle = { guard: "manage_employees" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_employees");
  return redirect(`/doctors/list/edit/${requireId(params.id, "Employee")}`, 302);
}

export { default } from "~/components/ui/redirect-only";
