import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requireId, requirePermission } from "~/services/guard.server";

/**
 * /doctors/setting/:id (platform §2): an employee's settings — status, password, two-factor reset, delete —
 * are the settings section of the edit screen, so this path opens it there.
 */
export const handle = { guard: "manage_employees" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_employees");
  return redirect(`/doctors/list/edit/${requireId(params.id, "Employee")}#settings`, 302);
}

export { default } from "~/components/ui/redirect-only";
