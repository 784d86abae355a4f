import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { redirect } from "@remix-run/cloudflare";
import { requirePermission } from "~/services/guard.server";

/** /tickets (platform §2 tickets: base) → the tickets list, with the same filters; guarded like the list. */
export const handle = { guard: "manage_tickets" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_tickets");
  const url = new URL(request.url);
  return redirect(`/tickets/list${url.search}`);
}

export { default } from "~/components/ui/redirect-only";
