import { and, desc, isNull, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { Db } from "~/db/client.server";
import { bips, locations, noteCounts, patients, users } from "~/db/schema";
import { MONTHS_NAME, patientsByGender, percentChange } from "~/domain/dashboard";
import { can, canReadClients, canReadEmployees, locationScope, type Actor } from "~/domain/permissions";
import { auditClientsRead, auditTail, clientIds } from "~/services/audit.server";
import { zonedDate, zonedMidnight, zonedMonthStart, zonedYearMonth } from "~/domain/time";
import { idsIn } from "./scope.server";

/** Rows visible to the actor: every location, or only theirs (none for an actor without locations). */
function inScope(column: SQLiteColumn, scope: number[] | null): SQL {
  return scope === null ? sql`1 = 1` : idsIn(column, scope);
}

/** An actor without a location reads the dashboard on UTC, as every other screen (`actorToday`, decision 039). */
const DEFAULT_TIME_ZONE = "UTC";

/**
 * What the dashboard may show the actor: each count and list only with the view permission of what it
 * counts or names (decision 007, 2026-11-27): clients → view_clients (the recent clients, the client counts and
 * the year chart), plans → view_bips (the plan rows also need view_clients: they name clients), notes →
 * view_notes, employees → whoever may list employees (view_employees or manage_employees, `canReadEmployees`).
 * What may not be shown is not read, and answers null.
 */
export function dashboardShows(actor: Actor) {
  const clients = canReadClients(actor);
  const plans = can(actor, "view_bips");
  return { clients, plans, planRows: plans && clients, notes: can(actor, "view_notes"), employees: canReadEmployees(actor) };
}

/** The dashboard: counts, and the newest clients and BIPs (client data: the read is recorded, naming them). */
export async function getAdminDashboard(db: Db, actor: Actor, now: Date, ip: string) {
  return (await dashboardRead(db, actor, now, ip, null, true)).dashboard;
}

/**
 * The dashboard screen: the dashboard and the year answer of `year` (null without view_clients), whose query
 * rides in the dashboard's batch (session + batch + audit row: 3 D1 round trips, decision 019). The screen shows
 * no list of recent BIPs, so it does not read them (`bips` is null): its audit row names exactly the recent
 * clients it shows (decision 019, 2026-11-28).
 */
export async function getDashboardWithYear(db: Db, actor: Actor, now: Date, ip: string, year: number) {
  return dashboardRead(db, actor, now, ip, year, false);
}

/** `recentBips`: whether the answer carries the newest BIPs (the API's; the screen does not show them). */
async function dashboardRead(db: Db, actor: Actor, now: Date, ip: string, year: number | null, recentBips: boolean) {
  const shows = dashboardShows(actor);
  const bipRows = recentBips && shows.planRows;
  const scope = locationScope(actor);
  const tz = actor.timeZone ?? DEFAULT_TIME_ZONE;
  const thisMonth = zonedMonthStart(now, tz, 0).toISOString();
  const lastMonth = zonedMonthStart(now, tz, -1).toISOString();
  const cur = (col: SQLiteColumn) => sql<number>`coalesce(sum(case when ${col} >= ${thisMonth} then 1 else 0 end), 0)`;
  const before = (col: SQLiteColumn) => sql<number>`coalesce(sum(case when ${col} >= ${lastMonth} and ${col} < ${thisMonth} then 1 else 0 end), 0)`;

  // Every count in one statement (scalar subqueries), the short lists beside it: one round trip.
  const patientScope = and(isNull(patients.deletedAt), inScope(patients.locationId, scope));
  // A plan counts where its client is (bips.location_id follows the client: migration 0022) and while its
  // client is not deleted — as the plan list shows it.
  const bipScope = and(isNull(bips.deletedAt), inScope(bips.locationId, scope), sql`${bips.patientId} not in (select ${patients.id} from ${patients} where ${patients.deletedAt} is not null)`);
  const noteCountScope = inScope(noteCounts.locationId, scope);
  const employeeScope = and(
    isNull(users.deletedAt),
    scope === null ? sql`1 = 1` : scope.length === 0 ? sql`1 = 0` : sql`exists (select 1 from user_locations ul where ul.user_id = users.id and ${idsIn(sql`ul.location_id`, scope)})`,
  );
  // One pass over each table: the counts of a table come from one derived row (p, b), not one scan each.
  // (Column names stay unique across both rows: D1 answers rows keyed by column name.) Only the counts the
  // actor may see are read; the audit chain's tail rides along either way.
  const derived: SQL[] = [];
  if (shows.clients) derived.push(sql`(select count(*) as p_n, ${cur(patients.createdAt)} as p_cur, ${before(patients.createdAt)} as p_bef from ${patients} where ${patientScope}) p`);
  if (shows.plans)
    derived.push(sql`(select count(*) as b_n, ${cur(bips.createdAt)} as b_cur, ${before(bips.createdAt)} as b_bef,
                    coalesce(sum(case when ${bips.attention} = 1 then 1 else 0 end), 0) as att_n,
                    coalesce(sum(case when ${bips.attention} = 1 and ${bips.createdAt} >= ${thisMonth} then 1 else 0 end), 0) as att_cur,
                    coalesce(sum(case when ${bips.attention} = 1 and ${bips.createdAt} >= ${lastMonth} and ${bips.createdAt} < ${thisMonth} then 1 else 0 end), 0) as att_bef
             from ${bips} where ${bipScope}) b`);
  // The type is written into the SQL, not bound: two subqueries that differ only in a bound value would share one column name.
  const noteCount = (type: "rbt" | "bcba") => sql<number>`(select coalesce(sum(${noteCounts.n}), 0) from ${noteCounts} where ${noteCountScope} and ${noteCounts.type} = ${sql.raw(`'${type}'`)})`;
  const countsRead = db
    .select({
      tail: auditTail,
      ...(shows.clients ? { patients: sql<number>`p.p_n`, patientsCurrent: sql<number>`p.p_cur`, patientsBefore: sql<number>`p.p_bef` } : {}),
      ...(shows.plans
        ? { bips: sql<number>`b.b_n`, bipsCurrent: sql<number>`b.b_cur`, bipsBefore: sql<number>`b.b_bef`, attention: sql<number>`b.att_n`, attentionCurrent: sql<number>`b.att_cur`, attentionBefore: sql<number>`b.att_bef` }
        : {}),
      // Kept per location and type by triggers (decision 035): live notes of live clients, as the notes list counts them.
      ...(shows.notes ? { rbt: noteCount("rbt"), bcba: noteCount("bcba") } : {}),
      ...(shows.employees ? { employees: sql<number>`(select count(*) from ${users} where ${employeeScope})` } : {}),
    })
    .from(derived.length > 0 ? sql.join(derived, sql`, `) : sql`(select 1) one`);
  const recentPatientsRead = db
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
    .where(patientScope)
    .orderBy(desc(patients.createdAt))
    .limit(5);
  const recentBipsRead = db
    .select({ id: bips.id, patient_id: bips.patientId, type_of_assessment: bips.typeOfAssessment, attention: bips.attention, created_at: bips.createdAt })
    .from(bips)
    .where(bipScope)
    .orderBy(desc(bips.createdAt))
    .limit(5);
  const locationsRead = db
    .select({ id: locations.id, title: locations.title })
    .from(locations)
    .where(and(isNull(locations.deletedAt), inScope(locations.id, scope)))
    .orderBy(locations.title);
  const yearRead = year === null || !shows.clients ? null : yearQuery(db, actor, year);
  const [counts, visibleLocations, ...optional] = await db.batch([
    countsRead,
    locationsRead,
    ...(shows.clients ? [recentPatientsRead] : []),
    ...(bipRows ? [recentBipsRead] : []),
    ...(yearRead ? [yearRead.query] : []),
  ]);
  const recentPatients = shows.clients ? (optional.shift() as Awaited<typeof recentPatientsRead>) : null;
  const recentBipList = bipRows ? (optional.shift() as Awaited<typeof recentBipsRead>) : null;
  const yearRows = yearRead ? (optional.shift() as YearRow[]) : null;

  const c = counts[0]! as { tail: string | null } & Partial<Record<"patients" | "patientsCurrent" | "patientsBefore" | "bips" | "bipsCurrent" | "bipsBefore" | "attention" | "attentionCurrent" | "attentionBefore" | "rbt" | "bcba" | "employees", number>>;
  const shown = [...(recentPatients ?? []).map((p) => p.id), ...(recentBipList ?? []).map((b) => b.patient_id)];
  await auditClientsRead(db, { actor, ip }, "dashboard", clientIds(shown, (id) => id), c.tail);
  const num = (x: unknown) => Number(x ?? 0);
  const when = <T>(allowed: boolean, value: () => T): T | null => (allowed ? value() : null);
  const yearAnswer = yearRead && yearRows ? yearRead.answer(yearRows) : null;
  const dashboard = {
    bips: recentBipList,
    locations: visibleLocations,
    total_bips: when(shows.plans, () => num(c.bips)),
    total_patients: when(shows.clients, () => num(c.patients)),
    total_noteRbts: when(shows.notes, () => num(c.rbt)),
    total_noteBcbas: when(shows.notes, () => num(c.bcba)),
    total_employees: when(shows.employees, () => num(c.employees)),
    // The day each client was added, on the actor's clock as the counts beside it (zonedMonthStart above).
    recent_patients: recentPatients?.map((p) => ({ ...p, added_on: zonedDate(new Date(p.created_at), tz) })) ?? null,
    num_bips_current: when(shows.plans, () => num(c.bipsCurrent)),
    num_bips_before: when(shows.plans, () => num(c.bipsBefore)),
    porcentaje_d: when(shows.plans, () => percentChange(num(c.bipsCurrent), num(c.bipsBefore))),
    // Beside the spec's month figures: every flagged plan in scope, the number /bip/attention lists (probe 9043 §2).
    total_bips_attention: when(shows.plans, () => num(c.attention)),
    num_bips_attention_current: when(shows.plans, () => num(c.attentionCurrent)),
    num_bips_attention_before: when(shows.plans, () => num(c.attentionBefore)),
    porcentaje_da: when(shows.plans, () => percentChange(num(c.attentionCurrent), num(c.attentionBefore))),
    num_patients_current: when(shows.clients, () => num(c.patientsCurrent)),
    num_patients_before: when(shows.clients, () => num(c.patientsBefore)),
    porcentajeDP: when(shows.clients, () => percentChange(num(c.patientsCurrent), num(c.patientsBefore))),
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
