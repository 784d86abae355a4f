import { eq, sql, type SQLWrapper } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { tickets, users } from "~/db/schema";
import { can, type Actor } from "~/domain/permissions";
import { NO_NOTIFICATIONS, type NotificationSummary } from "~/domain/shell";

/** The ticket counts behind the notification summary. */
export interface TicketCounts {
  /** Tickets nobody on staff has read, and those of them still open. */
  staffUnread: number;
  staffNew: number;
  /** Unread responses on the user's own tickets. */
  ownUnreadResponses: number;
}

/**
 * The counts as scalar subqueries, to select beside another read — the session's, so a screen's
 * header and sidebar badges cost no statement of their own. `userId`: the user's id column (null for a
 * parent). Served by tickets_unread_by_staff_idx (partial) and tickets_user_idx.
 */
export function ticketCountColumns(userId: SQLWrapper) {
  return {
    staffUnread: sql<number>`(select count(*) from ${tickets} where ${tickets.readByStaff} = 0)`.mapWith(Number),
    staffNew: sql<number>`(select count(*) from ${tickets} where ${tickets.readByStaff} = 0 and ${tickets.status} = 'open')`.mapWith(Number),
    ownUnreadResponses: sql<number>`(select coalesce(sum(${tickets.unreadResponses}), 0) from ${tickets} where ${tickets.userId} = ${userId})`.mapWith(Number),
  };
}

/**
 * The ticket notification summary (platform §3) from the counts. Support staff (manage_tickets) count
 * tickets nobody on staff has read; everyone else counts unread responses on their own tickets; a
 * parent has none.
 */
export function notificationSummary(actor: Actor, counts: TicketCounts | null): NotificationSummary {
  if (actor.kind !== "user" || !counts) return { ...NO_NOTIFICATIONS };
  const staff = can(actor, "manage_tickets");
  const unread_tickets_count = staff ? counts.staffUnread : 0;
  const unread_responses_count = counts.ownUnreadResponses;
  return { unread_tickets_count, unread_responses_count, new_tickets_count: staff ? counts.staffNew : 0, total_unread: unread_tickets_count + unread_responses_count };
}

/** The summary on its own (the API): one statement. Screens get it with the session (Signed.notifications). */
export async function getNotificationSummary(db: Db, actor: Actor): Promise<NotificationSummary> {
  if (actor.kind !== "user") return notificationSummary(actor, null);
  const [row] = await db.select(ticketCountColumns(users.id)).from(users).where(eq(users.id, actor.id));
  return notificationSummary(actor, row ?? null);
}
