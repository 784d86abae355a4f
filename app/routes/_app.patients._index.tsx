import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /patients → the client list. */
export const handle = { guard: "view_clients" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "view_clients");
  return redirect("/patients/list");
}

export { default } from "~/components/ui/redirect-only";
