import { and, asc, isNull, sql } from "drizzle-orm";
import { locations, rateRecords, users } from "~/db/schema";
import { locationScope } from "~/domain/permissions";
import { payCents, payRoleOf, reportHours } from "~/domain/report-operations";
import type { PayrollRow } from "~/domain/report-defs/operations";
import { providerCredentialSql } from "../billing-prices.server";
import type { ModelContext } from "../context";
import { employeeLabel, noteSums, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";
import { idsIn } from "../scope.server";

/**
 * Payroll (decision 039): per employee, location and pay role (RBT notes → rbt, BCBA notes → bcba, combined
 * notes → their provider's own type: `payRoleOf`), the sessions and hours of the period times the hourly
 * amount of the location's rate/pay record (platform §3: a record's amounts for rbt, bcba, manager are hourly
 * pay by role; the location's record is its oldest live one). Pay is integer cents, rounded once per row. One
 * batch: the grouped sums (with each provider's credential) and the scope's rate records.
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
  // Grouped by note type; each group's pay role (`payRoleOf`: a combined note's from its provider's credential)
  // is decided below, and the groups of one employee, location and pay role are added together.
  const g = ctx.db
    .select({
      locationId: sql<number>`${src.locationId}`.as("g_location_id"),
      providerId: sql<number | null>`${src.providerId}`.as("g_provider_id"),
      type: sql<string>`${src.type}`.as("g_type"),
      sessions: sql<number>`sum(${src.n})`.as("sessions"),
      minutes: sql<number>`sum(${src.minutes})`.as("minutes"),
    })
    .from(src)
    .groupBy(sql`${src.locationId}`, sql`${src.providerId}`, sql`${src.type}`)
    .as("g");
  const scope = locationScope(ctx.actor);
  // Every group (at most employees × their locations × 3 note types), so the total is the exact sum of the rows' pay;
  // the notes themselves are summed by SQLite.
  const [groups, rates] = await batch([
    ctx.db
      .select({
        locationId: g.locationId,
        providerId: g.providerId,
        type: g.type,
        credential: providerCredentialSql(sql`${g.providerId}`).as("provider_credential"),
        sessions: g.sessions,
        minutes: g.minutes,
        name: users.name,
        surname: users.surname,
        location: locations.title,
      })
      .from(g)
      .leftJoin(users, sql`${users.id} = ${g.providerId}`)
      .leftJoin(locations, sql`${locations.id} = ${g.locationId}`)
      .orderBy(asc(users.surname), asc(users.name), asc(g.providerId), asc(locations.title), asc(g.type)),
    ctx.db
      .select({
        id: rateRecords.id,
        name: rateRecords.name,
        locationId: rateRecords.locationId,
        rbt: rateRecords.rbt,
        bcba: rateRecords.bcba,
      })
      .from(rateRecords)
      .where(and(isNull(rateRecords.deletedAt), scope === null ? undefined : idsIn(rateRecords.locationId, scope.length ? scope : [-1])))
      .orderBy(asc(rateRecords.id)),
  ]);
  const rateOf = locationRates(rates);
  // One row per employee, location and pay role, in the groups' order (bcba before rbt within an employee's location).
  const byRole = new Map<string, PayrollRow>();
  for (const r of groups) {
    const payRole = payRoleOf(r.type, r.credential);
    const key = `${r.providerId}\u0000${r.locationId}\u0000${payRole}`;
    const rate = rateOf.get(r.locationId);
    const row: PayrollRow = byRole.get(key) ?? {
      provider_id: r.providerId,
      employee: employeeLabel(r),
      location_id: r.locationId,
      location: r.location ?? "",
      role: payRole,
      sessions: 0,
      minutes: 0,
      hours: 0,
      hourly_rate: rate ? rate[payRole] : null,
      rate_record: rate?.name ?? null,
      pay_cents: null,
    };
    row.sessions += Number(r.sessions);
    row.minutes += Number(r.minutes);
    byRole.set(key, row);
  }
  const rows = [...byRole.values()].map((r) => ({ ...r, hours: reportHours(r.minutes), pay_cents: payCents(r.minutes, r.hourly_rate) }));
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
