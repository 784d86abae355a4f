import { and, asc, desc, eq, gt, gte, inArray, isNull, lt, lte, sql, type SQL } from "drizzle-orm";
import { locations, notes, paServices, patients } from "~/db/schema";
import { pacingState, paPacing, todayAtLocation, unitsWindowStart } from "~/domain/pa-pacing";
import { barChart } from "~/domain/report-operations";
import { ENDING_WITHIN_DAYS, projectedUse, type AuthorizationRow, type PaFilters, type PaStatus, type ProjectionFilters } from "~/domain/report-defs/authorizations";
import { addDays } from "~/domain/reports";
import { windowed, type ReportQuery, type ReportRunner, type ReportRunContext } from "~/services/report-screens.server";
import { actorTodayText, readAtLocalToday, type LocalToday } from "../local-today.server";
import { daysOf } from "../pa-pacing.server";
import { spentUnits } from "../pa-services.server";
import { patientScope } from "../patients.server";

/**
 * The pas and client-projection reports' reads (decision 038). One batch: the page of authorizations in the
 * actor's scope and one more (with each one's used units, the correlated sum of notes_pa_service_idx), and the live notes' units per day of the same page since the pacing window (notes_pa_service_date_idx),
 * selected through the same page as a subquery so no id list is bound. Pacing is computed per row by the one
 * rule (app/domain/pa-pacing.ts) with "today" at the client's location, and so is the status filter (in SQL:
 * app/models/local-today.server.ts, decision 038 stop 32), so a row's status and its pacing agree.
 */

/**
 * The status on today at the client's location. The end-date bounds on the earliest or latest today anywhere add
 * nothing to the exact condition but let pa_services_end_idx range over the dates.
 */
function statusWhere(status: PaStatus, t: LocalToday): SQL | undefined {
  const today = t.at(locations.timeZone);
  switch (status) {
    case "active":
      return and(gte(paServices.endDate, t.earliest), lte(paServices.startDate, today), gte(paServices.endDate, today));
    case "ending":
      return and(gte(paServices.endDate, t.earliest), lte(paServices.endDate, addDays(t.latest, ENDING_WITHIN_DAYS)), gte(paServices.endDate, today), lte(paServices.endDate, t.at(locations.timeZone, ENDING_WITHIN_DAYS)));
    case "ended":
      return and(lt(paServices.endDate, t.latest), lt(paServices.endDate, today));
    case "upcoming":
      return gt(paServices.startDate, today);
    case "all":
      return undefined;
  }
}

async function readAuthorizations(rc: ReportRunContext, q: ReportQuery<unknown>, f: { location_id: number | null; patient_id: number | null }, status: PaStatus) {
  const order = status === "ended" ? [desc(paServices.endDate), desc(paServices.id)] : [asc(paServices.endDate), asc(paServices.id)];
  const {
    results: [rows, days],
  } = await readAtLocalToday(rc, (today) => {
    const where = and(
      isNull(paServices.deletedAt),
      patientScope(rc),
      f.location_id === null ? undefined : eq(patients.locationId, f.location_id),
      f.patient_id === null ? undefined : eq(paServices.patientId, f.patient_id),
      statusWhere(status, today)
    )!;
    const pageIds = rc.db
      .select({ id: paServices.id })
      .from(paServices)
      .innerJoin(patients, eq(patients.id, paServices.patientId))
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .where(where)
      .orderBy(...order)
      .limit(q.limit)
      .offset(q.offset);
    return [
      rc.db
        .select({
          id: paServices.id,
          patient_id: paServices.patientId,
          first_name: patients.firstName,
          last_name: patients.lastName,
          location: locations.title,
          time_zone: locations.timeZone,
          pa_service: paServices.paService,
          cpt: paServices.cpt,
          n_units: paServices.nUnits,
          start_date: paServices.startDate,
          end_date: paServices.endDate,
          spent_units: spentUnits,
        })
        .from(paServices)
        .innerJoin(patients, eq(patients.id, paServices.patientId))
        .innerJoin(locations, eq(locations.id, patients.locationId))
        .where(where)
        .orderBy(...order)
        .limit(q.limit)
        .offset(q.offset),
      rc.db
        .select({
          paServiceId: notes.paServiceId,
          date: notes.sessionDate,
          units: sql<number>`sum(${notes.units})`.mapWith(Number),
        })
        .from(notes)
        .where(and(isNull(notes.deletedAt), gte(notes.sessionDate, unitsWindowStart(rc.now())), inArray(notes.paServiceId, pageIds)))
        .groupBy(notes.paServiceId, notes.sessionDate),
    ];
  });
  const out: AuthorizationRow[] = rows.map((r) => {
    const today = todayAtLocation(rc.now(), r.time_zone);
    const spent = Number(r.spent_units ?? 0);
    return {
      id: r.id,
      patient_id: r.patient_id,
      client_name: `${r.first_name} ${r.last_name}`.trim(),
      location: r.location,
      pa_service: r.pa_service,
      cpt: r.cpt,
      n_units: r.n_units,
      spent_units: spent,
      start_date: r.start_date,
      end_date: r.end_date,
      today,
      pacing: paPacing(
        {
          n_units: r.n_units,
          start_date: r.start_date,
          end_date: r.end_date,
          spent_units: spent,
        },
        daysOf(days, r.id),
        today
      ),
    };
  });
  const page = windowed(out, q);
  return { ...page, patientIds: [...new Set(page.rows.map((r) => r.patient_id))] };
}

export const runPasReport: ReportRunner<PaFilters, AuthorizationRow> = async (rc, q) => {
  const answer = await readAuthorizations(rc, q, q.filters, q.filters.status);
  return {
    ...answer,
    notes: [`Today is the date at each client's location (it is ${actorTodayText(rc)}).`],
  };
};

export const runClientProjectionReport: ReportRunner<ProjectionFilters, AuthorizationRow> = async (rc, q) => {
  const answer = await readAuthorizations(rc, q, q.filters, "active");
  const chart = q.csv
    ? null
    : {
        id: "projected-use",
        model: barChart(
          "Projected use by the end date",
          "units",
          answer.rows.map((r) => ({
            label: `${r.client_name} · ${r.cpt}`,
            value: projectedUse(r),
            target: r.n_units,
            flagged: r.pacing.will_run_out || r.pacing.exhausted,
          })),
          { legend: { value: "projected use (red: runs out)", target: "units authorized" }, empty: "no running authorizations" }
        ),
      };
  const short = answer.rows.filter((r) => r.pacing.will_run_out || r.pacing.exhausted).length;
  const under = answer.rows.filter((r) => pacingState(r.pacing) === "Under-using").length;
  return {
    ...answer,
    chart,
    notes: [`On this page: ${short} will run out before their end date, ${under} under-using.`],
  };
};
