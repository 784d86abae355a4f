import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { badgeText, headerBadgeCount } from "~/domain/shell";
import { requireStaff } from "~/services/guard.server";

/** The header badge for the signed-in screen session, polled every 90 s when JavaScript runs. */
export const handle = { guard: "staff" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, notifications: summary } = await requireStaff(request, context);
  return Response.json({ ...summary, ticketBadge: badgeText(headerBadgeCount(actor, summary)) }, { headers: { "Cache-Control": "no-store" } });
}
