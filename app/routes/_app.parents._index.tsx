import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /parents (platform §2 parent routes) → the parent list. */
export const handle = { guard: "view_parents" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "view_parents");
  return redirect("/parents/list");
}

export { default } from "~/components/ui/redirect-only";
