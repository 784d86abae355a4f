import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /insurance → the insurer list. */
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_insurances");
  return redirect("/insurance/list");
}

export { default } from "~/components/ui/redirect-only";
