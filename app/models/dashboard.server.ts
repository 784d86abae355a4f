import { and, desc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "~/db/client.server";
import { bips, locations, notes, patients, users } from "~/db/schema";
import { MONTHS_NAME, patientsByGender, percentChange } from "~/domain/dashboard";
import { locationScope, type Actor } from "~/domain/permissions";
import { zonedMidnight, zonedMonthStart, zonedYearMonth } from "~/domain/time";

/** Rows visible to the actor: every location, or only theirs (none for an actor without locations). */
function inScope(column: SQLiteColumn, scope: number[] | null): SQL {
  if (scope === null) return sql`1 = 1`;
  if (scope.length === 0) return sql`1 = 0`;
  return inArray(column, scope);
}

/** The actor's calendar: their primary location's time zone, else the first one they can see. */
async function actorTimeZone(db: Db, actor: Actor, scope: number[] | null): Promise<string> {
  const id = actor.locationId ?? scope?.[0];
  if (id == null) return "America/New_York";
  const [row] = await db.select({ tz: locations.timeZone }).from(locations).where(eq(locations.id, id));
  return row?.tz ?? "America/New_York";
}

export async function getAdminDashboard(db: Db, actor: Actor, now: Date) {
  const scope = locationScope(actor);
  const tz = await actorTimeZone(db, actor, scope);
  const thisMonth = zonedMonthStart(now, tz, 0).toISOString();
  const lastMonth = zonedMonthStart(now, tz, -1).toISOString();
  const cur = (col: SQLiteColumn) => sql<number>`coalesce(sum(case when ${col} >= ${thisMonth} then 1 else 0 end), 0)`;
  const before = (col: SQLiteColumn) => sql<number>`coalesce(sum(case when ${col} >= ${lastMonth} and ${col} < ${thisMonth} then 1 else 0 end), 0)`;

  const [patientAgg, bipAgg, noteAgg, employeeAgg, recentPatients, recentBips, visibleLocations] = await db.batch([
    db
      .select({ total: sql<number>`count(*)`, current: cur(patients.createdAt), before: before(patients.createdAt) })
      .from(patients)
      .where(and(isNull(patients.deletedAt), inScope(patients.locationId, scope))),
    db
      .select({
        total: sql<number>`count(*)`,
        current: cur(bips.createdAt),
        before: before(bips.createdAt),
        attentionCurrent: sql<number>`coalesce(sum(case when ${bips.attention} = 1 and ${bips.createdAt} >= ${thisMonth} then 1 else 0 end), 0)`,
        attentionBefore: sql<number>`coalesce(sum(case when ${bips.attention} = 1 and ${bips.createdAt} >= ${lastMonth} and ${bips.createdAt} < ${thisMonth} then 1 else 0 end), 0)`,
      })
      .from(bips)
      .where(and(isNull(bips.deletedAt), inScope(bips.locationId, scope))),
    db
      .select({
        rbt: sql<number>`coalesce(sum(case when ${notes.type} = 'rbt' then 1 else 0 end), 0)`,
        bcba: sql<number>`coalesce(sum(case when ${notes.type} = 'bcba' then 1 else 0 end), 0)`,
      })
      .from(notes)
      .where(and(isNull(notes.deletedAt), inScope(notes.locationId, scope))),
    db
      .select({ total: sql<number>`count(*)` })
      .from(users)
      .where(
        and(
          isNull(users.deletedAt),
          scope === null
            ? sql`1 = 1`
            : scope.length === 0
              ? sql`1 = 0`
              : sql`exists (select 1 from user_locations ul where ul.user_id = users.id and ul.location_id in ${scope})`,
        ),
      ),
    db
      .select({
        id: patients.id,
        patient_identifier: patients.patientIdentifier,
        first_name: patients.firstName,
        last_name: patients.lastName,
        status: patients.status,
        location_id: patients.locationId,
        created_at: patients.createdAt,
      })
      .from(patients)
      .where(and(isNull(patients.deletedAt), inScope(patients.locationId, scope)))
      .orderBy(desc(patients.createdAt))
      .limit(5),
    db
      .select({ id: bips.id, patient_id: bips.patientId, type_of_assessment: bips.typeOfAssessment, attention: bips.attention, created_at: bips.createdAt })
      .from(bips)
      .where(and(isNull(bips.deletedAt), inScope(bips.locationId, scope)))
      .orderBy(desc(bips.createdAt))
      .limit(5),
    db
      .select({ id: locations.id, title: locations.title })
      .from(locations)
      .where(and(isNull(locations.deletedAt), inScope(locations.id, scope)))
      .orderBy(locations.title),
  ]);

  const p = patientAgg[0]!;
  const b = bipAgg[0]!;
  const n = noteAgg[0]!;
  const num = (x: unknown) => Number(x ?? 0);
  return {
    bips: recentBips,
    locations: visibleLocations,
    total_bips: num(b.total),
    total_patients: num(p.total),
    total_noteRbts: num(n.rbt),
    total_noteBcbas: num(n.bcba),
    total_employees: num(employeeAgg[0]?.total),
    recent_patients: recentPatients,
    num_bips_current: num(b.current),
    num_bips_before: num(b.before),
    porcentaje_d: percentChange(num(b.current), num(b.before)),
    num_bips_attention_current: num(b.attentionCurrent),
    num_bips_attention_before: num(b.attentionBefore),
    porcentaje_da: percentChange(num(b.attentionCurrent), num(b.attentionBefore)),
    num_patients_current: num(p.current),
    num_patients_before: num(p.before),
    porcentajeDP: percentChange(num(p.current), num(p.before)),
  };
}

export type AdminDashboard = Awaited<ReturnType<typeof getAdminDashboard>>;

/** New patients per month of a year by gender, in the actor's time zone. */
export async function getAdminYear(db: Db, actor: Actor, now: Date, year?: number) {
  const scope = locationScope(actor);
  const tz = await actorTimeZone(db, actor, scope);
  const y = year ?? zonedYearMonth(now, tz).year;
  const from = zonedMidnight(y, 1, 1, tz).toISOString();
  const to = zonedMidnight(y + 1, 1, 1, tz).toISOString();
  // Group by UTC hour in SQL (at most ~8,800 small rows), then place each hour in its local month.
  const hour = sql<string>`substr(${patients.createdAt}, 1, 13)`;
  const rows = await db
    .select({ hour, gender: patients.gender, n: sql<number>`count(*)` })
    .from(patients)
    .where(and(isNull(patients.deletedAt), inScope(patients.locationId, scope), sql`${patients.createdAt} >= ${from} and ${patients.createdAt} < ${to}`))
    .groupBy(hour, patients.gender);
  const perMonth = rows.map((r) => ({ month: zonedYearMonth(new Date(`${r.hour}:00:00Z`), tz).month, gender: r.gender, n: Number(r.n) }));
  return { months_name: MONTHS_NAME, query_patients_by_gender: patientsByGender(y, perMonth) };
}
