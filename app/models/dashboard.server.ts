import { and, desc, isNull, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "~/db/client.server";
import { bips, locations, noteCounts, patients, users } from "~/db/schema";
import { MONTHS_NAME, patientsByGender, percentChange } from "~/domain/dashboard";
import { locationScope, type Actor } from "~/domain/permissions";
import { auditClientsRead, auditTail, clientIds } from "~/services/audit.server";
import { zonedMidnight, zonedMonthStart, zonedYearMonth } from "~/domain/time";
import { idsIn } from "./scope.server";

/** Rows visible to the actor: every location, or only theirs (none for an actor without locations). */
function inScope(column: SQLiteColumn, scope: number[] | null): SQL {
  return scope === null ? sql`1 = 1` : idsIn(column, scope);
}

const DEFAULT_TIME_ZONE = "America/New_York";

/** The dashboard: counts, and the newest clients and BIPs (client data: the read is recorded, naming them). */
export async function getAdminDashboard(db: Db, actor: Actor, now: Date, ip: string) {
  return (await dashboardRead(db, actor, now, ip, null)).dashboard;
}

/**
 * The dashboard screen: the dashboard and the year answer of `year`, whose query rides in the
 * dashboard's batch (session + batch + audit row: 3 D1 round trips, decision 019).
 */
export async function getDashboardWithYear(db: Db, actor: Actor, now: Date, ip: string, year: number) {
  const { dashboard, yearAnswer } = await dashboardRead(db, actor, now, ip, year);
  return { dashboard, yearAnswer: yearAnswer! };
}

async function dashboardRead(db: Db, actor: Actor, now: Date, ip: string, year: number | null) {
  const scope = locationScope(actor);
  const tz = actor.timeZone ?? DEFAULT_TIME_ZONE;
  const thisMonth = zonedMonthStart(now, tz, 0).toISOString();
  const lastMonth = zonedMonthStart(now, tz, -1).toISOString();
  const cur = (col: SQLiteColumn) => sql<number>`coalesce(sum(case when ${col} >= ${thisMonth} then 1 else 0 end), 0)`;
  const before = (col: SQLiteColumn) => sql<number>`coalesce(sum(case when ${col} >= ${lastMonth} and ${col} < ${thisMonth} then 1 else 0 end), 0)`;

  // Every count in one statement (scalar subqueries), the three short lists beside it: one round trip.
  const patientScope = and(isNull(patients.deletedAt), inScope(patients.locationId, scope));
  // A plan counts where its client is (bips.location_id follows the client: migration 0022) and while its
  // client is not deleted — as the plan list shows it.
  const bipScope = and(isNull(bips.deletedAt), inScope(bips.locationId, scope), sql`${bips.patientId} not in (select ${patients.id} from ${patients} where ${patients.deletedAt} is not null)`);
  const noteCountScope = inScope(noteCounts.locationId, scope);
  const employeeScope = and(
    isNull(users.deletedAt),
    scope === null ? sql`1 = 1` : scope.length === 0 ? sql`1 = 0` : sql`exists (select 1 from user_locations ul where ul.user_id = users.id and ${idsIn(sql`ul.location_id`, scope)})`,
  );
  const yearRead = year === null ? null : yearQuery(db, actor, year);
  const [counts, recentPatients, recentBips, visibleLocations, yearRows] = await db.batch([
    // One pass over each table: the counts of a table come from one derived row (p, b), not one scan each.
    // (Column names stay unique across both rows: D1 answers rows keyed by column name.)
    db
      .select({
        patients: sql<number>`p.p_n`,
        patientsCurrent: sql<number>`p.p_cur`,
        patientsBefore: sql<number>`p.p_bef`,
        bips: sql<number>`b.b_n`,
        bipsCurrent: sql<number>`b.b_cur`,
        bipsBefore: sql<number>`b.b_bef`,
        attentionCurrent: sql<number>`b.att_cur`,
        attentionBefore: sql<number>`b.att_bef`,
        // Kept per location and type by triggers (decision 035): live notes of live clients, as the notes list counts them.
        rbt: sql<number>`(select coalesce(sum(${noteCounts.n}), 0) from ${noteCounts} where ${noteCountScope} and ${noteCounts.type} = 'rbt')`,
        bcba: sql<number>`(select coalesce(sum(${noteCounts.n}), 0) from ${noteCounts} where ${noteCountScope} and ${noteCounts.type} = 'bcba')`,
        employees: sql<number>`(select count(*) from ${users} where ${employeeScope})`,
        tail: auditTail,
      })
      .from(
        sql`(select count(*) as p_n, ${cur(patients.createdAt)} as p_cur, ${before(patients.createdAt)} as p_bef from ${patients} where ${patientScope}) p,
            (select count(*) as b_n, ${cur(bips.createdAt)} as b_cur, ${before(bips.createdAt)} as b_bef,
                    coalesce(sum(case when ${bips.attention} = 1 and ${bips.createdAt} >= ${thisMonth} then 1 else 0 end), 0) as att_cur,
                    coalesce(sum(case when ${bips.attention} = 1 and ${bips.createdAt} >= ${lastMonth} and ${bips.createdAt} < ${thisMonth} then 1 else 0 end), 0) as att_bef
             from ${bips} where ${bipScope}) b`,
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
      .where(bipScope)
      .orderBy(desc(bips.createdAt))
      .limit(5),
    db
      .select({ id: locations.id, title: locations.title })
      .from(locations)
      .where(and(isNull(locations.deletedAt), inScope(locations.id, scope)))
      .orderBy(locations.title),
    ...(yearRead ? [yearRead.query] : []),
  ]);

  const c = counts[0]!;
  const shown = [...recentPatients.map((p) => p.id), ...recentBips.map((b) => b.patient_id)];
  await auditClientsRead(db, { actor, ip }, "dashboard", clientIds(shown, (id) => id), c.tail);
  const num = (x: unknown) => Number(x ?? 0);
  const yearAnswer = yearRead ? yearRead.answer(yearRows as YearRow[]) : null;
  const dashboard = {
    bips: recentBips,
    locations: visibleLocations,
    total_bips: num(c.bips),
    total_patients: num(c.patients),
    total_noteRbts: num(c.rbt),
    total_noteBcbas: num(c.bcba),
    total_employees: num(c.employees),
    recent_patients: recentPatients,
    num_bips_current: num(c.bipsCurrent),
    num_bips_before: num(c.bipsBefore),
    porcentaje_d: percentChange(num(c.bipsCurrent), num(c.bipsBefore)),
    num_bips_attention_current: num(c.attentionCurrent),
    num_bips_attention_before: num(c.attentionBefore),
    porcentaje_da: percentChange(num(c.attentionCurrent), num(c.attentionBefore)),
    num_patients_current: num(c.patientsCurrent),
    num_patients_before: num(c.patientsBefore),
    porcentajeDP: percentChange(num(c.patientsCurrent), num(c.patientsBefore)),
  };
  return { dashboard, yearAnswer };
}

export type AdminDashboard = Awaited<ReturnType<typeof getAdminDashboard>>;

/** The current year in the actor's time zone (the year answer's default). */
export function actorYear(actor: Actor, now: Date): number {
  return zonedYearMonth(now, actor.timeZone ?? DEFAULT_TIME_ZONE).year;
}

/** New patients per month of a year by gender, in the actor's time zone. */
export async function getAdminYear(db: Db, actor: Actor, now: Date, year?: number) {
  const read = yearQuery(db, actor, year ?? actorYear(actor, now));
  return read.answer(await read.query);
}

interface YearRow {
  hour: string;
  gender: number | null;
  n: number;
}

/** The year answer's statement (to run alone or in a batch) and how its rows become the answer. */
function yearQuery(db: Db, actor: Actor, y: number) {
  const scope = locationScope(actor);
  const tz = actor.timeZone ?? DEFAULT_TIME_ZONE;
  const from = zonedMidnight(y, 1, 1, tz).toISOString();
  const to = zonedMidnight(y + 1, 1, 1, tz).toISOString();
  // Group by UTC hour in SQL (at most ~8,800 small rows), then place each hour in its local month.
  const hour = sql<string>`substr(${patients.createdAt}, 1, 13)`;
  const query = db
    .select({ hour, gender: patients.gender, n: sql<number>`count(*)` })
    .from(patients)
    .where(and(isNull(patients.deletedAt), inScope(patients.locationId, scope), sql`${patients.createdAt} >= ${from} and ${patients.createdAt} < ${to}`))
    .groupBy(hour, patients.gender);
  const answer = (rows: YearRow[]) => {
    const perMonth = rows.map((r) => ({ month: zonedYearMonth(new Date(`${r.hour}:00:00Z`), tz).month, gender: r.gender, n: Number(r.n) }));
    return { months_name: MONTHS_NAME, query_patients_by_gender: patientsByGender(y, perMonth) };
  };
  return { query, answer };
}
