import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { unionAll } from "drizzle-orm/sqlite-core";
import { insurances, locations, paServices, patients } from "~/db/schema";
import type { EligibilityFilters, EligibilityRow } from "~/domain/report-defs/eligibility";
import { addDays } from "~/domain/reports";
import { windowed, type ReportRunner } from "~/services/report-screens.server";
import { patientScope } from "../patients.server";
import { actorTodayText, readAtLocalToday, type LocalToday } from "../local-today.server";

/**
 * client-eligibility's reads (decision 038): the lapses of authorizations (pa_services by end date; a renewal
 * for the same CPT code starting by the next day hides the lapse) and of the clients' primary and secondary
 * insurance eligibility dates (the `details` JSON), within [today, today + window], today at the client's location
 * (app/models/local-today.server.ts, decision 038 stop 32), in the actor's scope; one
 * UNION ALL, paged (one row of lookahead, no count), in one batch. Indexes: pa_services_end_idx (migration 0013) for
 * the authorizations; the insurance dates are read from the clients of the actor's locations
 * (patients_location_status_name_idx) — see the bench.
 */

export const runClientEligibilityReport: ReportRunner<EligibilityFilters, EligibilityRow> = async (rc, q) => {
  const f = q.filters;
  const windowDays = Number(f.window);
  const clientWhere = (extra: SQL | undefined) =>
    and(patientScope(rc), f.location_id === null ? undefined : eq(patients.locationId, f.location_id), f.patient_id === null ? undefined : eq(patients.id, f.patient_id), extra);
  const daysLeft = (date: SQL, t: LocalToday) => sql<number>`cast(julianday(${date}) - julianday(${t.at(locations.timeZone)}) as integer)`.mapWith(Number);
  const lapsesWithin = (date: SQL, t: LocalToday) => sql`${date} between ${t.at(locations.timeZone)} and ${t.at(locations.timeZone, windowDays)}`;
  const name = sql<string>`${patients.firstName} || ' ' || ${patients.lastName}`;

  const authorizations = (t: LocalToday) =>
    rc.db
      .select({
        patient_id: sql<number>`${patients.id}`.mapWith(Number).as("patient_id"),
        client_name: name.as("client_name"),
        location: sql<string>`${locations.title}`.as("location"),
        kind: sql<EligibilityRow["kind"]>`'authorization'`.as("kind"),
        item: sql<string>`${paServices.paService} || ' (' || ${paServices.cpt} || ')'`.as("item"),
        lapses_on: sql<string>`${paServices.endDate}`.as("lapses_on"),
        days_left: daysLeft(sql`${paServices.endDate}`, t).as("days_left"),
      })
      .from(paServices)
      .innerJoin(patients, eq(patients.id, paServices.patientId))
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .where(
        clientWhere(
          and(
            isNull(paServices.deletedAt),
            // The bound on the earliest and latest today anywhere lets pa_services_end_idx range over the dates.
            sql`${paServices.endDate} between ${t.earliest} and ${addDays(t.latest, windowDays)}`,
            lapsesWithin(sql`${paServices.endDate}`, t),
            sql`not exists (select 1 from pa_services r where r.patient_id = ${paServices.patientId} and r.cpt = ${paServices.cpt} and r.deleted_at is null and r.id <> ${paServices.id} and r.end_date > ${paServices.endDate} and r.start_date <= date(${paServices.endDate}, '+1 day'))`
          )
        )
      );
  const insurance = (kind: "insurance" | "secondary_insurance", t: LocalToday) => {
    const key = kind === "insurance" ? "$.elegibility_date" : "$.secondary_elegibility_date";
    const insurer = kind === "insurance" ? patients.insurerId : patients.insurerSecondaryId;
    const date = sql`json_extract(${patients.details}, ${key})`;
    return rc.db
      .select({
        patient_id: sql<number>`${patients.id}`.mapWith(Number).as("patient_id"),
        client_name: name.as("client_name"),
        location: sql<string>`${locations.title}`.as("location"),
        kind: sql<EligibilityRow["kind"]>`${kind}`.as("kind"),
        item: sql<string>`coalesce(${insurances.name}, ${kind === "insurance" ? "Primary insurance" : "Secondary insurance"})`.as("item"),
        lapses_on: sql<string>`${date}`.as("lapses_on"),
        days_left: daysLeft(date, t).as("days_left"),
      })
      .from(patients)
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .leftJoin(insurances, eq(insurances.id, insurer))
      .where(clientWhere(lapsesWithin(date, t)));
  };
  const parts = (t: LocalToday) =>
    f.kind === "authorization"
      ? [authorizations(t)]
      : f.kind === "insurance"
      ? [insurance("insurance", t), insurance("secondary_insurance", t)]
      : [authorizations(t), insurance("insurance", t), insurance("secondary_insurance", t)];
  // The three selects have the same columns; drizzle's types tell their tables apart, so the union is cast.
  const union = (t: LocalToday) => {
    const p = parts(t);
    return p.length === 1 ? p[0]! : (unionAll as (...q: unknown[]) => ReturnType<typeof authorizations>)(...p);
  };
  const {
    results: [rows],
  } = await readAtLocalToday(rc, (t) => [
    union(t)
      .orderBy(sql`lapses_on`, sql`client_name`, sql`patient_id`, sql`kind`)
      .limit(q.limit)
      .offset(q.offset),
  ]);
  const out = windowed(
    (rows as EligibilityRow[]).map((r) => ({ ...r, days_left: Number(r.days_left), client_name: String(r.client_name).trim() })),
    q,
  );
  return {
    ...out,
    patientIds: [...new Set(out.rows.map((r) => r.patient_id))],
    notes: [`Lapses from today to ${windowDays} days ahead, today at each client's location (it is ${actorTodayText(rc)}).`],
  };
};
