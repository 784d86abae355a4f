import { and, asc, inArray, isNull, sql } from "drizzle-orm";
import { locations, rateRecords, users } from "~/db/schema";
import { locationScope } from "~/domain/permissions";
import { payCents, payRoleOf, reportHours, type PayRole } from "~/domain/report-operations";
import type { PayrollRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { employeeLabel, noteSums, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";

/**
 * Payroll (decision 039): per employee, location and pay role (RBT notes → rbt, BCBA and combined notes →
 * bcba), the sessions and hours of the period times the hourly amount of the location's rate/pay record
 * (platform §3: a record's amounts for rbt, bcba, manager are hourly pay by role; the location's record is its
 * oldest live one). Pay is integer cents, rounded once per row. One batch: the grouped sums and the scope's
 * rate records.
 */
export type { PayrollRow };

export interface PayrollReport {
  rows: PayrollRow[];
  total: number;
  /** Every matching row's pay (the sum of the rows' pay, cents) and minutes, not only the page's. */
  totals: { minutes: number; pay_cents: number; unpriced_rows: number };
}

export async function payrollReport(ctx: ModelContext, f: NoteReportFilters, page: Window, batch: ReadBatch = dbBatch(ctx)): Promise<PayrollReport> {
  // The period's notes as sums (whole months from note_month_totals, edge days from the notes; decision 039).
  const src = noteSums(ctx, f);
  // RBT notes pay at the rbt amount, BCBA and combined at the bcba amount: group by that role, not by note type.
  const role = sql<string>`case when ${src.type} = 'rbt' then 'rbt' else 'bcba' end`;
  const g = ctx.db
    .select({
      locationId: sql<number>`${src.locationId}`.as("g_location_id"),
      providerId: sql<number | null>`${src.providerId}`.as("g_provider_id"),
      role: role.as("role"),
      sessions: sql<number>`sum(${src.n})`.as("sessions"),
      minutes: sql<number>`sum(${src.minutes})`.as("minutes"),
    })
    .from(src)
    .groupBy(sql`${src.locationId}`, sql`${src.providerId}`, role)
    .as("g");
  const scope = locationScope(ctx.actor);
  // Every group (at most employees × their locations × 2 roles), so the total is the exact sum of the rows' pay;
  // the notes themselves are summed by SQLite.
  const [groups, rates] = await batch([
    ctx.db
      .select({
        locationId: g.locationId,
        providerId: g.providerId,
        role: g.role,
        sessions: g.sessions,
        minutes: g.minutes,
        name: users.name,
        surname: users.surname,
        location: locations.title,
      })
      .from(g)
      .leftJoin(users, sql`${users.id} = ${g.providerId}`)
      .leftJoin(locations, sql`${locations.id} = ${g.locationId}`)
      .orderBy(asc(users.surname), asc(users.name), asc(g.providerId), asc(locations.title), asc(g.role)),
    ctx.db
      .select({
        id: rateRecords.id,
        name: rateRecords.name,
        locationId: rateRecords.locationId,
        rbt: rateRecords.rbt,
        bcba: rateRecords.bcba,
      })
      .from(rateRecords)
      .where(and(isNull(rateRecords.deletedAt), scope === null ? undefined : inArray(rateRecords.locationId, scope.length ? scope : [-1])))
      .orderBy(asc(rateRecords.id)),
  ]);
  const rateOf = locationRates(rates);
  const rows: PayrollRow[] = groups.map((r) => {
    const payRole = payRoleOf(r.role);
    const rate = rateOf.get(r.locationId);
    const hourly = rate ? rate[payRole] : null;
    const minutes = Number(r.minutes);
    return {
      provider_id: r.providerId,
      employee: employeeLabel(r),
      location_id: r.locationId,
      location: r.location ?? "",
      role: payRole,
      sessions: Number(r.sessions),
      minutes,
      hours: reportHours(minutes),
      hourly_rate: hourly,
      rate_record: rate?.name ?? null,
      pay_cents: payCents(minutes, hourly),
    };
  });
  const totals = { minutes: 0, pay_cents: 0, unpriced_rows: 0 };
  for (const r of rows) {
    totals.minutes += r.minutes;
    if (r.pay_cents === null) totals.unpriced_rows++;
    else totals.pay_cents += r.pay_cents;
  }
  return {
    rows: rows.slice(page.offset, page.offset + page.limit),
    total: rows.length,
    totals,
  };
}

/** Each location's rate record: its oldest live one (the rows come ordered by id). */
function locationRates(
  rates: readonly {
    id: number;
    name: string;
    locationId: number | null;
    rbt: number | null;
    bcba: number | null;
  }[]
) {
  const out = new Map<number, { name: string; rbt: number | null; bcba: number | null }>();
  for (const r of rates) if (r.locationId !== null && !out.has(r.locationId)) out.set(r.locationId, { name: r.name, rbt: r.rbt, bcba: r.bcba });
  return out;
}
