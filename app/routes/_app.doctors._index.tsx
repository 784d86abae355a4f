import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { canReadEmployees } from "~/domain/permissions";
import { forbidden, requireStaff } from "~/services/guard.server";

/** /doctors → the employee list, for whoever may open it (view_employees or manage_employees). */
export const handle = { guard: "view_employees" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  if (!canReadEmployees(actor)) throw forbidden();
  return redirect("/doctors/list");
}

export { default } from "~/components/ui/redirect-only";
