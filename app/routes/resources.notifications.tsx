import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { badgeText, headerBadgeCount } from "~/domain/shell";
import { getNotificationSummary } from "~/models/notifications.server";
import { requireStaff } from "~/services/guard.server";

/** The header badge for the signed-in screen session, polled every 90 s when JavaScript runs. */
export const handle = { guard: "staff" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  const summary = await getNotificationSummary(context.app.db, actor);
  return Response.json({ ...summary, ticketBadge: badgeText(headerBadgeCount(actor, summary)) }, { headers: { "Cache-Control": "no-store" } });
}
