import { and, eq, lte, sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { ticketResponses, tickets } from "../app/db/schema";
import { zonedDate } from "../app/domain/time";

/**
 * Demo tickets (issue 12; docs/decisions/036): one of each state, in the three locations, with
 * responses. rbt@demo.test has one unread office response (the header badge shows 1); the MANAGER (Miami
 * and Denver) has unread tickets on the sidebar's Tickets item, one of them assigned to them (the list's
 * "Assigned to: Me"). Fixed ids, written once: a ticket already
 * stored (it may have been answered or closed since) is left as it is.
 */

const at = (now: Date, daysAgo: number, hour = 10) => {
  const d = new Date(now.getTime() - daysAgo * 86_400_000);
  d.setUTCHours(hour, 0, 0, 0);
  return d.toISOString();
};

export async function seedDemoTickets(db: Db, now: Date): Promise<void> {
  const T = (daysAgo: number, hour?: number) => at(now, daysAgo, hour);
  const rows: (typeof tickets.$inferInsert)[] = [
    { id: 1, userId: 8, locationId: 1, subject: "Cannot see Friday session", body: "My Friday afternoon session does not show in the notes list. Could someone check?", category: "technical", priority: "normal", status: "answered", readByStaff: true, unreadResponses: 1, firstResponseAt: T(2, 15), createdAt: T(3), updatedAt: T(2, 15), version: 2 },
    { id: 2, userId: 6, locationId: 1, subject: "Update my NPI", body: "My NPI changed after the renewal; the new one is on file with HR.", category: "account", priority: "normal", status: "open", readByStaff: false, unreadResponses: 0, createdAt: T(1), updatedAt: T(1) },
    { id: 3, userId: 4, locationId: 1, subject: "Printer at Miami", body: "The front-desk printer jams on every second page.", category: "general", priority: "low", status: "closed", readByStaff: true, unreadResponses: 0, firstResponseAt: T(9, 11), closedAt: T(8), createdAt: T(10), updatedAt: T(8), version: 3 },
    { id: 4, userId: 14, locationId: 2, subject: "Mileage reimbursement form", body: "Where do I send the mileage form for home sessions?", category: "billing", priority: "high", status: "open", readByStaff: false, unreadResponses: 0, assignedTo: 3, firstResponseAt: T(4, 12), createdAt: T(5), updatedAt: T(4, 16), version: 3 },
    { id: 5, userId: 15, locationId: 3, subject: "Schedule change request", body: "A family asked to move their sessions to mornings from next week.", category: "clinical", priority: "urgent", status: "open", readByStaff: false, unreadResponses: 0, createdAt: T(0, 8), updatedAt: T(0, 8) },
  ];
  const responses: (typeof ticketResponses.$inferInsert)[] = [
    { id: 1, ticketId: 1, userId: 3, byStaff: true, body: "Thanks, Jasmine. The session was saved as a draft; you can find it under Notes with the Draft status.", createdAt: T(2, 15), updatedAt: T(2, 15) },
    { id: 2, ticketId: 3, userId: 3, byStaff: true, body: "A technician comes on Thursday.", createdAt: T(9, 11), updatedAt: T(9, 11) },
    { id: 3, ticketId: 3, userId: 4, byStaff: false, body: "Fixed, thank you.", createdAt: T(8), updatedAt: T(8) },
    { id: 4, ticketId: 4, userId: 3, byStaff: true, body: "Send it to the Denver office manager by the 5th of the month.", createdAt: T(4, 12), updatedAt: T(4, 12) },
    { id: 5, ticketId: 4, userId: 14, byStaff: false, body: "By email or on paper?", createdAt: T(4, 16), updatedAt: T(4, 16) },
  ];
  // The three tickets of an earlier seed (before issue 12) had no message nor location: replaced.
  await db.delete(tickets).where(and(lte(tickets.id, 5), eq(tickets.body, ""), sql`not exists (select 1 from ${ticketResponses} where ${ticketResponses.ticketId} = ${tickets.id})`));
  // The day each was opened at its location (Miami, Denver, Los Angeles), as the app stores it (decision 036).
  const zones: Record<number, string> = { 1: "America/New_York", 2: "America/Denver", 3: "America/Los_Angeles" };
  for (const r of rows) r.openedOn = zonedDate(new Date(r.createdAt!), zones[r.locationId!]!);
  await db.insert(tickets).values(rows).onConflictDoNothing();
  await db.insert(ticketResponses).values(responses).onConflictDoNothing();
}
