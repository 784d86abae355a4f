import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /doctors/addemployee (platform §2): the same screen as /doctors/add. */
export const handle = { guard: "manage_employees" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_employees");
  return redirect("/doctors/add", 302);
}

export { default } from "~/components/ui/redirect-only";
