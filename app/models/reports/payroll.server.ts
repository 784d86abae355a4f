import { asc, sql, type SQL } from "drizzle-orm";
import { locations, rateRecordAmounts, rateRecords, users } from "~/db/schema";
import { locationScope } from "~/domain/permissions";
import { payCents, payRoleOf, reportHours } from "~/domain/report-operations";
import type { PayrollRow } from "~/domain/report-defs/operations";
import { FROM_THE_START } from "~/domain/rates";
import { providerCredentialSql } from "../billing-prices.server";
import type { ModelContext } from "../context";
import { datedNoteSums, employeeLabel, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";
import { idsIn } from "../scope.server";

/**
 * Payroll (decision 039): per employee, location, pay role (RBT notes → rbt, BCBA notes → bcba, combined notes →
 * their provider's own type: `payRoleOf`) and hourly amount, the sessions and hours of the period times the
 * hourly amount of the location's rate/pay record IN EFFECT ON EACH SESSION'S DATE (platform §3: a record's
 * amounts for rbt, bcba, manager are hourly pay by role; the location's record is its oldest live one; its
 * amounts over time are rate_record_amounts, decision 039 2026-11-28 stop 40). A period across an amount change
 * gives the employee one row per amount, each with the date that amount applies from. Pay is integer cents,
 * rounded once per row. One statement.
 */
export type { PayrollRow };

export interface PayrollReport {
  rows: PayrollRow[];
  total: number;
  /** Every matching row's pay (the sum of the rows' pay, cents) and minutes, not only the page's. */
  totals: { minutes: number; pay_cents: number; unpriced_rows: number };
}

/**
 * Each location's amounts over time: (location, record name, from, to exclusive, rbt and bcba cents) for the
 * location's record (its oldest live one) in the actor's scope, read by (record, date) on the amounts' key.
 */
function amountPeriods(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  const inScope = scope === null ? sql`1` : idsIn(sql`r.location_id`, scope.length ? scope : [-1]);
  return sql`(select r.location_id as iv_location_id, r.name as iv_name, a.effective_from as iv_from,
    coalesce(lead(a.effective_from) over (partition by a.rate_record_id order by a.effective_from), '9999-12-31') as iv_to,
    a.rbt_cents as iv_rbt, a.bcba_cents as iv_bcba
    from ${rateRecords} r join ${rateRecordAmounts} a on a.rate_record_id = r.id
    where r.deleted_at is null and r.location_id is not null and ${inScope}
      and r.id = (select min(r2.id) from ${rateRecords} r2 where r2.location_id = r.location_id and r2.deleted_at is null))`;
}

export async function payrollReport(ctx: ModelContext, f: NoteReportFilters, page: Window, batch: ReadBatch = dbBatch(ctx)): Promise<PayrollReport> {
  // The period's notes as sums (whole months from note_month_totals, edge days from the notes; decision 039).
  const periods = amountPeriods(ctx);
  // The months in which a location's amounts change on a day other than the 1st are summed from their notes, each
  // note with its own date; every other month is priced whole at the amounts of its first day.
  const splitMonths = sql`(select distinct p.iv_location_id as cm_location_id, substr(p.iv_from, 1, 7) as cm_month from ${periods} p where substr(p.iv_from, 9, 2) <> '01')`;
  const src = datedNoteSums(ctx, f, splitMonths);
  const iv = sql`${periods} as "iv"`;
  // Grouped by note type; each group's pay role (`payRoleOf`: a combined note's from its provider's credential)
  // is decided below, and the groups of one employee, location and pay role are added together.
  const g = ctx.db
    .select({
      locationId: sql<number>`${src.locationId}`.as("g_location_id"),
      providerId: sql<number | null>`${src.providerId}`.as("g_provider_id"),
      type: sql<string>`${src.type}`.as("g_type"),
      rateFrom: sql<string | null>`"iv"."iv_from"`.as("g_rate_from"),
      rateName: sql<string | null>`max("iv"."iv_name")`.as("g_rate_name"),
      rbtCents: sql<number | null>`max("iv"."iv_rbt")`.as("g_rbt_cents"),
      bcbaCents: sql<number | null>`max("iv"."iv_bcba")`.as("g_bcba_cents"),
      sessions: sql<number>`sum(${src.n})`.as("sessions"),
      minutes: sql<number>`sum(${src.minutes})`.as("minutes"),
    })
    .from(src)
    // The amounts in effect on the row's day: the period of the location's record holding that day.
    .leftJoin(iv, sql`"iv"."iv_location_id" = ${src.locationId} and ${src.day} >= "iv"."iv_from" and ${src.day} < "iv"."iv_to"`)
    .groupBy(sql`${src.locationId}`, sql`${src.providerId}`, sql`${src.type}`, sql`"iv"."iv_from"`)
    .as("g");
  // Every group (at most employees × their locations × 3 note types × the amounts in effect), so the total is the
  // exact sum of the rows' pay; the notes themselves are summed by SQLite.
  const [groups] = await batch([
    ctx.db
      .select({
        locationId: g.locationId,
        providerId: g.providerId,
        type: g.type,
        credential: providerCredentialSql(sql`${g.providerId}`).as("provider_credential"),
        rateFrom: g.rateFrom,
        rateName: g.rateName,
        rbtCents: g.rbtCents,
        bcbaCents: g.bcbaCents,
        sessions: g.sessions,
        minutes: g.minutes,
        name: users.name,
        surname: users.surname,
        location: locations.title,
      })
      .from(g)
      .leftJoin(users, sql`${users.id} = ${g.providerId}`)
      .leftJoin(locations, sql`${locations.id} = ${g.locationId}`)
      .orderBy(asc(users.surname), asc(users.name), asc(g.providerId), asc(locations.title), asc(g.type), asc(g.rateFrom)),
  ]);
  // One row per employee, location, pay role and hourly amount: the employee's roles in the groups' order (bcba
  // before rbt within an employee's location), each role's amounts by the date they apply from.
  const byRate = new Map<string, PayrollRow & { order: number; from: string }>();
  const roleOrder = new Map<string, number>();
  for (const r of groups) {
    const payRole = payRoleOf(r.type, r.credential);
    const roleKey = `${r.providerId}\u0000${r.locationId}\u0000${payRole}`;
    if (!roleOrder.has(roleKey)) roleOrder.set(roleKey, roleOrder.size);
    const cents = r.rateFrom === null ? null : payRole === "rbt" ? r.rbtCents : r.bcbaCents;
    const key = `${roleKey}\u0000${cents}`;
    const from = r.rateFrom ?? "";
    const row = byRate.get(key) ?? {
      provider_id: r.providerId,
      employee: employeeLabel(r),
      location_id: r.locationId,
      location: r.location ?? "",
      role: payRole,
      sessions: 0,
      minutes: 0,
      hours: 0,
      hourly_rate: cents === null ? null : cents / 100,
      rate_record: r.rateName ?? null,
      rate_from: from && from !== FROM_THE_START ? from : null,
      pay_cents: null,
      order: roleOrder.get(roleKey)!,
      from,
    };
    if (from < row.from) {
      row.from = from;
      row.rate_from = from && from !== FROM_THE_START ? from : null;
    }
    row.sessions += Number(r.sessions);
    row.minutes += Number(r.minutes);
    byRate.set(key, row);
  }
  const rows: PayrollRow[] = [...byRate.values()]
    .sort((a, b) => a.order - b.order || (a.from < b.from ? -1 : a.from > b.from ? 1 : 0))
    .map(({ order: _o, from: _f, ...r }) => ({ ...r, hours: reportHours(r.minutes), pay_cents: payCents(r.minutes, r.hourly_rate) }));
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
