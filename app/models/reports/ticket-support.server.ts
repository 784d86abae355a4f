import { and, eq, gte, lte, sql, type SQL } from "drizzle-orm";
import { tickets } from "~/db/schema";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { AGE_BUCKETS, TICKET_STATUSES, type AgeBucket } from "~/domain/report-operations";
import type { TicketSupportRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { dbBatch, type ReadBatch } from "./note-scope.server";
import { idsIn } from "../scope.server";

/**
 * Ticket support (decision 039): the tickets opened in the period, per status, in age buckets (< 1 day,
 * 1–3, 3–7, > 7 days: from opening to now, or to closing for a closed ticket), with the mean hours to the
 * first response. A ticket counts on the day it was opened at its location (`opened_on`), the day the tickets lists
 * show and filter by (decision 036, decision 039 stop 42). One grouped statement over
 * `tickets_location_opened_idx (location_id, opened_on)`.
 * A ticket without a location (its requester had none) is seen only by actors with every location.
 */
export type { TicketSupportRow };

export interface TicketSupportReport {
  rows: TicketSupportRow[];
  total: number;
}

export interface TicketFilters {
  locationId: number | null;
  from: string;
  to: string;
}

export async function ticketSupportReport(ctx: ModelContext, f: TicketFilters, batch: ReadBatch = dbBatch(ctx)): Promise<TicketSupportReport> {
  const scope = locationScope(ctx.actor);
  let location: SQL | undefined;
  if (f.locationId !== null) location = canSeeLocation(ctx.actor, f.locationId) ? eq(tickets.locationId, f.locationId) : sql`0`;
  else if (scope !== null) location = scope.length ? idsIn(tickets.locationId, scope) : sql`0`;
  const nowIso = ctx.now().toISOString();
  // Age in days, measured in SQL from the ISO timestamps (julianday handles the trailing Z and fractions).
  const age = sql`(julianday(coalesce(case when ${tickets.status} = 'closed' then ${tickets.closedAt} end, ${nowIso})) - julianday(${tickets.createdAt}))`;
  const bucket = sql<string>`case ${sql.join(
    AGE_BUCKETS.filter((b) => Number.isFinite(b.maxDays)).map((b) => sql`when ${age} < ${b.maxDays} then ${b.key}`),
    sql` `
  )} else ${AGE_BUCKETS[AGE_BUCKETS.length - 1]!.key} end`;
  // The period's days are the tickets' opened_on: the day at the ticket's location, as the lists file it.
  const [rows] = await batch([
    ctx.db
      .select({
        status: tickets.status,
        bucket: bucket.as("bucket"),
        n: sql<number>`count(*)`,
        answered: sql<number>`count(${tickets.firstResponseAt})`,
        responseHours: sql<number | null>`sum((julianday(${tickets.firstResponseAt}) - julianday(${tickets.createdAt})) * 24)`,
      })
      .from(tickets)
      .where(and(location, gte(tickets.openedOn, f.from), lte(tickets.openedOn, f.to)))
      .groupBy(tickets.status, bucket),
  ]);
  const out = new Map<string, { row: TicketSupportRow; answered: number; hours: number }>();
  for (const s of TICKET_STATUSES)
    out.set(s, {
      row: {
        status: s,
        total: 0,
        buckets: emptyBuckets(),
        mean_first_response_hours: null,
      },
      answered: 0,
      hours: 0,
    });
  for (const r of rows) {
    const e = out.get(r.status);
    if (!e) continue; // a status this report does not know is not counted under another one
    const n = Number(r.n);
    e.row.total += n;
    e.row.buckets[r.bucket as AgeBucket] += n;
    e.answered += Number(r.answered);
    e.hours += Number(r.responseHours ?? 0);
  }
  const list = [...out.values()].map((e) => ({
    ...e.row,
    mean_first_response_hours: e.answered ? Math.round((e.hours / e.answered) * 10) / 10 : null,
  }));
  return { rows: list, total: list.length };
}

function emptyBuckets(): Record<AgeBucket, number> {
  return Object.fromEntries(AGE_BUCKETS.map((b) => [b.key, 0])) as Record<AgeBucket, number>;
}
