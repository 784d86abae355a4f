import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /doctors → the employee list. */
export const handle = { guard: "manage_employees" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_employees");
  return redirect("/doctors/list");
}

export { default } from "~/components/ui/redirect-only";
