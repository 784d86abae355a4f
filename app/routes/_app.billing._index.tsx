import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /billing → the billing list, with the same filters. */
export const handle = { guard: "manage_claims" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_claims");
  const url = new URL(request.url);
  return redirect(`/billing/list${url.search}`);
}

export { default } from "~/components/ui/redirect-only";
