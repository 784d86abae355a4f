import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { unionAll } from "drizzle-orm/sqlite-core";
import { insurances, locations, paServices, patients } from "~/db/schema";
import type { EligibilityFilters, EligibilityRow } from "~/domain/report-defs/eligibility";
import { addDays } from "~/domain/reports";
import { windowed, type ReportRunner } from "~/services/report-screens.server";
import { patientScope } from "../patients.server";
import { actorToday } from "./authorizations.server";

/**
 * client-eligibility's reads (decision 038): the lapses of authorizations (pa_services by end date; a renewal
 * for the same CPT code starting by the next day hides the lapse) and of the clients' primary and secondary
 * insurance eligibility dates (the `details` JSON), within [today, today + window], in the actor's scope; one
 * UNION ALL, paged (one row of lookahead, no count), in one batch. Indexes: pa_services_end_idx (migration 0013) for
 * the authorizations; the insurance dates are read from the clients of the actor's locations
 * (patients_location_status_name_idx) — see the bench.
 */

export const runClientEligibilityReport: ReportRunner<EligibilityFilters, EligibilityRow> = async (rc, q) => {
  const f = q.filters;
  const today = actorToday(rc);
  const until = addDays(today, Number(f.window));
  const clientWhere = (extra: SQL | undefined) =>
    and(patientScope(rc), f.location_id === null ? undefined : eq(patients.locationId, f.location_id), f.patient_id === null ? undefined : eq(patients.id, f.patient_id), extra);
  const daysLeft = (date: SQL) => sql<number>`cast(julianday(${date}) - julianday(${today}) as integer)`.mapWith(Number);
  const name = sql<string>`${patients.firstName} || ' ' || ${patients.lastName}`;

  const authorizations = () =>
    rc.db
      .select({
        patient_id: sql<number>`${patients.id}`.mapWith(Number).as("patient_id"),
        client_name: name.as("client_name"),
        location: sql<string>`${locations.title}`.as("location"),
        kind: sql<EligibilityRow["kind"]>`'authorization'`.as("kind"),
        item: sql<string>`${paServices.paService} || ' (' || ${paServices.cpt} || ')'`.as("item"),
        lapses_on: sql<string>`${paServices.endDate}`.as("lapses_on"),
        days_left: daysLeft(sql`${paServices.endDate}`).as("days_left"),
      })
      .from(paServices)
      .innerJoin(patients, eq(patients.id, paServices.patientId))
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .where(
        clientWhere(
          and(
            isNull(paServices.deletedAt),
            sql`${paServices.endDate} between ${today} and ${until}`,
            sql`not exists (select 1 from pa_services r where r.patient_id = ${paServices.patientId} and r.cpt = ${paServices.cpt} and r.deleted_at is null and r.id <> ${paServices.id} and r.end_date > ${paServices.endDate} and r.start_date <= date(${paServices.endDate}, '+1 day'))`
          )
        )
      );
  const insurance = (kind: "insurance" | "secondary_insurance") => {
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
        days_left: daysLeft(date).as("days_left"),
      })
      .from(patients)
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .leftJoin(insurances, eq(insurances.id, insurer))
      .where(clientWhere(sql`${date} between ${today} and ${until}`));
  };
  const parts = () =>
    f.kind === "authorization"
      ? [authorizations()]
      : f.kind === "insurance"
      ? [insurance("insurance"), insurance("secondary_insurance")]
      : [authorizations(), insurance("insurance"), insurance("secondary_insurance")];
  // The three selects have the same columns; drizzle's types tell their tables apart, so the union is cast.
  const union = () => {
    const p = parts();
    return p.length === 1 ? p[0]! : (unionAll as (...q: unknown[]) => ReturnType<typeof authorizations>)(...p);
  };
  const page = union()
    .orderBy(sql`lapses_on`, sql`client_name`, sql`patient_id`, sql`kind`)
    .limit(q.limit)
    .offset(q.offset);
  const [rows] = await rc.read([page]);
  const out = windowed(
    (rows as EligibilityRow[]).map((r) => ({ ...r, days_left: Number(r.days_left), client_name: String(r.client_name).trim() })),
    q,
  );
  return {
    ...out,
    patientIds: [...new Set(out.rows.map((r) => r.patient_id))],
    notes: [`Today: ${today}; lapses from ${today} to ${until}.`],
  };
};
