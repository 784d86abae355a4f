import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /bip → the BIP list. */
export const handle = { guard: "view_bips" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "view_bips");
  return redirect("/bip/list");
}

export { default } from "~/components/ui/redirect-only";
