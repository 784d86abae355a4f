import { sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { tickets } from "~/db/schema";
import { can, type Actor } from "~/domain/permissions";
import type { NotificationSummary } from "~/domain/shell";

/**
 * The ticket notification summary (platform §3). Support staff (manage_tickets) count tickets nobody on
 * staff has read; everyone else counts unread responses on their own tickets. One query.
 */
export async function getNotificationSummary(db: Db, actor: Actor): Promise<NotificationSummary> {
  if (actor.kind !== "user") return { unread_tickets_count: 0, unread_responses_count: 0, new_tickets_count: 0, total_unread: 0 };
  const staff = can(actor, "manage_tickets");
  const [row] = await db
    .select({
      unreadTickets: staff ? sql<number>`coalesce(sum(case when ${tickets.readByStaff} = 0 then 1 else 0 end), 0)` : sql<number>`0`,
      newTickets: staff ? sql<number>`coalesce(sum(case when ${tickets.readByStaff} = 0 and ${tickets.status} = 'open' then 1 else 0 end), 0)` : sql<number>`0`,
      unreadResponses: sql<number>`coalesce(sum(case when ${tickets.userId} = ${actor.id} then ${tickets.unreadResponses} else 0 end), 0)`,
    })
    .from(tickets)
    .where(staff ? sql`1 = 1` : sql`${tickets.userId} = ${actor.id}`);
  const unread_tickets_count = Number(row?.unreadTickets ?? 0);
  const unread_responses_count = Number(row?.unreadResponses ?? 0);
  return { unread_tickets_count, unread_responses_count, new_tickets_count: Number(row?.newTickets ?? 0), total_unread: unread_tickets_count + unread_responses_count };
}
