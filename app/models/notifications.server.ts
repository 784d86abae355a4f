import { eq, sql, type SQLWrapper } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { tickets, users } from "~/db/schema";
import { type Actor } from "~/domain/permissions";
import { NO_NOTIFICATIONS, type NotificationSummary } from "~/domain/shell";
import { staffCountsInScope } from "~/domain/tickets";

/** The ticket counts behind the notification summary. */
export interface TicketCounts {
  /**
   * Tickets nobody on staff has read (not closed), and those of them still open, per location:
   * JSON `{ "<location id, 0 for none>": [unread, new] }` (null when there are none). The actor's
   * scope picks its locations (staffCountsInScope in app/domain/tickets.ts).
   */
  staffByLocation: string | null;
  /** Unread responses on the user's own tickets. */
  ownUnreadResponses: number;
}

/**
 * The counts as scalar subqueries, to select beside another read — the session's, so a screen's
 * header and sidebar badges cost no statement of their own. `userId`: the user's id column (null for a
 * parent). Served by tickets_unread_by_staff_idx (partial: only unread tickets) and tickets_user_idx.
 */
export function ticketCountColumns(userId: SQLWrapper) {
  return {
    staffByLocation: sql<string | null>`(select json_group_object(loc, json_array(n, f)) from (select coalesce(${tickets.locationId}, 0) as loc, count(*) as n, sum(${tickets.status} = 'open') as f from ${tickets} where ${tickets.readByStaff} = 0 and ${tickets.status} in ('open', 'answered') group by 1))`,
    ownUnreadResponses: sql<number>`(select coalesce(sum(${tickets.unreadResponses}), 0) from ${tickets} where ${tickets.userId} = ${userId})`.mapWith(Number),
  };
}

/**
 * The ticket notification summary (platform §3) from the counts. Support staff (manage_tickets) count
 * tickets nobody on staff has read in the locations they cover; everyone else counts unread responses
 * on their own tickets; a parent has none.
 */
export function notificationSummary(actor: Actor, counts: TicketCounts | null): NotificationSummary {
  if (actor.kind !== "user" || !counts) return { ...NO_NOTIFICATIONS };
  const staff = staffCountsInScope(actor, counts.staffByLocation);
  const unread_responses_count = counts.ownUnreadResponses;
  return { unread_tickets_count: staff.unread, unread_responses_count, new_tickets_count: staff.fresh, total_unread: staff.unread + unread_responses_count };
}

/** The summary on its own (the API): one statement. Screens get it with the session (Signed.notifications). */
export async function getNotificationSummary(db: Db, actor: Actor): Promise<NotificationSummary> {
  if (actor.kind !== "user") return notificationSummary(actor, null);
  // The user's id as a value, not a column: a select from one table leaves its columns unqualified, and
  // inside the subquery an unqualified "id" would be the ticket's.
  const [row] = await db.select(ticketCountColumns(sql`${actor.id}`)).from(users).where(eq(users.id, actor.id));
  return notificationSummary(actor, row ?? null);
}
