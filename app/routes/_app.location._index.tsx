import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /location → the location list. */
export const handle = { guard: "manage_locations_access" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_locations_access");
  return redirect("/location/list");
}

export { default } from "~/components/ui/redirect-only";
