import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /roles → the role list. */
export const handle = { guard: "manage_roles" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_roles");
  return redirect("/roles/list");
}

export { default } from "~/components/ui/redirect-only";
