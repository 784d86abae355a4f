import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /client-report → the billing list (the clients to report on). */
export const handle = { guard: "manage_claims" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_claims");
  return redirect("/billing/list");
}

export { default } from "~/components/ui/redirect-only";
