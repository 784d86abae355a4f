import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { badgeText, headerBadgeCount, sidebarBadgeText } from "~/domain/shell";
import { requireStaff } from "~/services/guard.server";

/**
 * The ticket badges for the signed-in screen session, polled every 90 s when JavaScript runs: the header's
 * (`ticketBadge`) and the sidebar Tickets item's (`sidebarTicketBadge`, null for users without the item's badge).
 */
export const handle = { guard: "staff" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, notifications: summary } = await requireStaff(request, context);
  return Response.json({ ...summary, ticketBadge: badgeText(headerBadgeCount(actor, summary)), sidebarTicketBadge: sidebarBadgeText(actor, summary) }, { headers: { "Cache-Control": "no-store" } });
}
