import { and, eq, gte, isNotNull, isNull, ne, sql } from "drizzle-orm";
import { locations, notes, paServices, patients } from "~/db/schema";
import { paCalculation, paPacing, todayAtLocation, unitsWindowStart, type DayUnits, type PaCalculation, type Pacing } from "~/domain/pa-pacing";
import { auditRead, auditTail } from "~/services/audit.server";
import type { ModelContext } from "./context";
import { paServiceJson, paServicesOfPatientQuery, spentUnits, type PaServiceJson } from "./pa-services.server";
import { patientScope, who } from "./patients.server";

/**
 * The PA calculator (clinical §7 GET /v2/pa-service-calculator/{id}) and pacing (issue 11, decision 031).
 * Scoped like PA services: through the client's location; a PA service or client out of scope is null (404).
 * Each call is one batch (the service or client in scope with its location's time zone and the audit tail,
 * and its live notes' units per day since `unitsWindowStart`) and the read's audit row: with the API's guard,
 * 3 D1 round trips. The day sums read notes_patient_date_idx (patient_id, session_date) of live notes.
 */

/** Live notes' units per PA service and session date, for one client, from `since` on. */
export function recentUnitsQuery(ctx: ModelContext, patientId: number | ReturnType<typeof sql>, since: string, paServiceId?: number) {
  return ctx.db
    .select({ paServiceId: notes.paServiceId, date: notes.sessionDate, units: sql<number>`sum(${notes.units})`.mapWith(Number) })
    .from(notes)
    .where(
      and(
        eq(notes.patientId, patientId as number),
        gte(notes.sessionDate, since),
        isNull(notes.deletedAt),
        paServiceId === undefined ? isNotNull(notes.paServiceId) : eq(notes.paServiceId, paServiceId),
      ),
    )
    .groupBy(notes.paServiceId, notes.sessionDate);
}

type DayRow = { paServiceId: number | null; date: string; units: number };

/** Day rows of one PA service. */
export function daysOf(rows: readonly DayRow[], paServiceId: number): DayUnits[] {
  return rows.filter((r) => r.paServiceId === paServiceId).map((r) => ({ date: r.date, units: Number(r.units) }));
}

export interface PaPacingJson {
  id: number;
  patient_id: number;
  pa_service: string;
  cpt: string;
  n_units: number;
  spent_units: number;
  available_units: number;
  start_date: string;
  end_date: string;
  today: string;
  calculation: PaCalculation;
  pacing: Pacing;
}

/** A PA service with its calculation and pacing, "today" being the date at its client's location. */
export function pacingOf(pa: PaServiceJson, rows: readonly DayRow[], today: string): PaPacingJson {
  const facts = { n_units: pa.n_units, start_date: pa.start_date, end_date: pa.end_date, spent_units: pa.spent_units };
  const days = daysOf(rows, pa.id);
  return {
    id: pa.id,
    patient_id: pa.patient_id,
    pa_service: pa.pa_service,
    cpt: pa.cpt,
    n_units: pa.n_units,
    spent_units: pa.spent_units,
    available_units: pa.available_units,
    start_date: pa.start_date,
    end_date: pa.end_date,
    today,
    calculation: paCalculation(facts, days, today),
    pacing: paPacing(facts, days, today),
  };
}

/** One PA service in scope with its day sums and its location's zone; null when out of scope. Not audited. */
async function readOne(ctx: ModelContext, id: number) {
  const since = unitsWindowStart(ctx.now());
  const [found, days] = await ctx.db.batch([
    ctx.db
      .select({ pa: paServices, firstName: patients.firstName, lastName: patients.lastName, insuranceName: sql<string | null>`null`, spentUnits, timeZone: locations.timeZone, tail: auditTail })
      .from(paServices)
      .innerJoin(patients, eq(patients.id, paServices.patientId))
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .where(and(eq(paServices.id, id), isNull(paServices.deletedAt), patientScope(ctx))),
    recentUnitsQuery(ctx, sql`(select ${paServices.patientId} from ${paServices} where ${paServices.id} = ${id})`, since, id),
  ]);
  const row = found[0];
  if (!row) return null;
  const pa = paServiceJson(row);
  const today = todayAtLocation(ctx.now(), row.timeZone);
  return { pa, today, days, tail: row.tail };
}

/** GET /v2/pa-service-calculator/{id}: the weekly calculation with the units left; null when out of scope. */
export async function paCalculator(ctx: ModelContext, id: number): Promise<(PaCalculation & { id: number; patient_id: number; pa_service: string; cpt: string; start_date: string; end_date: string }) | null> {
  const read = await readOne(ctx, id);
  if (!read) return null;
  await auditRead(ctx.db, who(ctx), { entity: "pa_service", entityId: id, patientId: read.pa.patient_id, detail: { for: "pa_calculator" } }, read.tail);
  const p = pacingOf(read.pa, read.days, read.today);
  return { id: p.id, patient_id: p.patient_id, pa_service: p.pa_service, cpt: p.cpt, start_date: p.start_date, end_date: p.end_date, ...p.calculation };
}

/** One PA service's pacing (GET /v2/pa-services/{id}/pacing); null when out of scope. */
export async function paServicePacing(ctx: ModelContext, id: number): Promise<PaPacingJson | null> {
  const read = await readOne(ctx, id);
  if (!read) return null;
  await auditRead(ctx.db, who(ctx), { entity: "pa_service", entityId: id, patientId: read.pa.patient_id, detail: { for: "pa_pacing" } }, read.tail);
  return pacingOf(read.pa, read.days, read.today);
}

/** Every PA service of a client with its pacing (GET /v2/pa-pacing?patient_id=); null when the client is out of scope. */
export async function patientPacing(ctx: ModelContext, patientId: number): Promise<PaPacingJson[] | null> {
  const since = unitsWindowStart(ctx.now());
  const [client, pas, days] = await ctx.db.batch([
    ctx.db
      .select({ id: patients.id, timeZone: locations.timeZone, tail: auditTail })
      .from(patients)
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .where(and(eq(patients.id, patientId), patientScope(ctx))),
    paServicesOfPatientQuery(ctx, patientId),
    recentUnitsQuery(ctx, patientId, since),
  ]);
  const c = client[0];
  if (!c) return null;
  await auditRead(ctx.db, who(ctx), { entity: "pa_service", entityId: null, patientId, detail: { for: "pa_pacing" } }, c.tail);
  const today = todayAtLocation(ctx.now(), c.timeZone);
  return pas.map((r) => pacingOf(paServiceJson(r), days, today));
}

/**
 * For the note form's meter: each PA service's units this week and in total WITHOUT the note being edited
 * (its own units are not counted twice), as one statement for a batch.
 */
export function meterUnitsQuery(ctx: ModelContext, patientId: number, weekStart: string, weekEnd: string, excludeNoteId: number | null) {
  return ctx.db
    .select({
      paServiceId: notes.paServiceId,
      spent: sql<number>`sum(${notes.units})`.mapWith(Number),
      week: sql<number>`coalesce(sum(case when ${notes.sessionDate} between ${weekStart} and ${weekEnd} then ${notes.units} else 0 end), 0)`.mapWith(Number),
    })
    .from(notes)
    .where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt), isNotNull(notes.paServiceId), excludeNoteId === null ? undefined : ne(notes.id, excludeNoteId)))
    .groupBy(notes.paServiceId);
}
