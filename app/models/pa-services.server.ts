import { and, asc, count, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { FilterId, parseFilters } from "~/domain/list-filters";
import { movedReferences, REFERENCE_MESSAGES } from "~/domain/references";
import { insurances, locations, notes, paServices, patients, scheduledSessions } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import { locationScope } from "~/domain/permissions";
import { PA_SERVICE_CLIENT_FIXED, PA_SERVICE_IN_USE, paCptNotCovered, paCptNotCoveredByPrimary, paServiceInput, PaServiceInput } from "~/domain/patients";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { withConditionalAudit } from "~/services/audit.server";
import { changeDetail, changesNoField } from "~/domain/audit-changes";
import { idempotencyKeyReused, isTokenRace, keyScopeFree, oneTimeToken, rowCells, tokenMatch } from "~/services/idempotency.server";
import { primaryOf, type Db } from "~/db/client.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { findPatient, isKeyRace, patientScope, who } from "./patients.server";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok, replayedOk } from "./results";
import { contains } from "./like.server";
import { idsIn } from "./scope.server";
import { nextIdOf } from "./ids.server";

/**
 * Prior-authorization services (clinical §3). Scoped through the client's location: a PA service is
 * visible exactly when its client is. spent_units is the sum of the units of the service's live notes
 * (every type; a deleted note gives its units back), available_units what is left of n_units (negative
 * when the notes overspent the authorization: shown as it is, not hidden).
 */
export const PA_SERVICES = "pa_services";

type Joined = { pa: typeof paServices.$inferSelect; firstName: string; lastName: string; insuranceName: string | null; spentUnits: number | null };

/**
 * The units the service's live notes used, as a correlated subquery selected beside the service: no
 * round trip of its own (notes_pa_service_idx: pa_service_id where deleted_at is null).
 */
export const spentUnits = sql<number>`(select coalesce(sum(${notes.units}), 0) from ${notes} where ${notes.paServiceId} = ${paServices.id} and ${notes.deletedAt} is null)`.mapWith(Number);

export function paServiceJson(r: Joined) {
  const spent = Number(r.spentUnits ?? 0);
  return {
    id: r.pa.id,
    patient_id: r.pa.patientId,
    patient_name: `${r.firstName} ${r.lastName}`.trim(),
    pa_service: r.pa.paService,
    cpt: r.pa.cpt,
    n_units: r.pa.nUnits,
    spent_units: spent,
    available_units: r.pa.nUnits - spent,
    start_date: r.pa.startDate,
    end_date: r.pa.endDate,
    insurance_id: r.pa.insuranceId,
    insurance_name: r.insuranceName,
    is_primary: r.pa.isPrimary,
    version: r.pa.version,
    created_at: r.pa.createdAt,
    updated_at: r.pa.updatedAt,
  };
}
export type PaServiceJson = ReturnType<typeof paServiceJson>;

function select(ctx: ModelContext) {
  return ctx.db
    .select({ pa: paServices, firstName: patients.firstName, lastName: patients.lastName, insuranceName: insurances.name, spentUnits })
    .from(paServices)
    .innerJoin(patients, eq(patients.id, paServices.patientId))
    .leftJoin(insurances, eq(insurances.id, paServices.insuranceId));
}

const live = isNull(paServices.deletedAt);
/** The PA services list's filters: the client, and the client's location (a PA service belongs to its client). */
const PaFilters = v.object({ patient_id: FilterId, location_id: FilterId });

export async function listPaServices(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}): Promise<ModelResult<Paged<PaServiceJson>>> {
  const parsed = parseFilters(PaFilters, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const s = query.search;
  const where = and(
    live,
    patientScope(ctx),
    parsed.data.patient_id !== "" ? eq(paServices.patientId, parsed.data.patient_id) : undefined,
    // Within the actor's scope (patientScope): another location's id lists nothing (decision 017).
    parsed.data.location_id !== "" ? eq(patients.locationId, parsed.data.location_id) : undefined,
    s ? or(contains(paServices.paService, s), contains(paServices.cpt, s)) : undefined,
    query.date_from ? sql`${paServices.endDate} >= ${query.date_from}` : undefined,
    query.date_to ? sql`${paServices.startDate} <= ${query.date_to}` : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    select(ctx).where(where).orderBy(asc(paServices.endDate), asc(paServices.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(paServices).innerJoin(patients, eq(patients.id, paServices.patientId)).where(where),
  ]);
  return ok(paged(rows.map(paServiceJson), total?.n ?? 0, query));
}

/** Every PA service of one client (the profile table); null when the client is out of scope. */
export async function listPaServicesOfPatient(ctx: ModelContext, patientId: number, patientKnown = false): Promise<PaServiceJson[] | null> {
  const query = paServicesOfPatientQuery(ctx, patientId);
  if (patientKnown) return (await query).map(paServiceJson);
  // The query itself is scoped; the check, in the same batch, only tells "no such client" (null) from "no PA services" ([]).
  const [patient, rows] = await ctx.db.batch([ctx.db.select({ id: patients.id }).from(patients).where(and(eq(patients.id, patientId), patientScope(ctx))), query]);
  return patient.length ? rows.map(paServiceJson) : null;
}

/** A client's PA services as one statement (scoped by the client's location), to run in a batch. */
export function paServicesOfPatientQuery(ctx: ModelContext, patientId: number) {
  return select(ctx)
    .where(and(live, eq(paServices.patientId, patientId), patientScope(ctx)))
    .orderBy(asc(paServices.endDate), asc(paServices.id));
}

/**
 * The units a client's PA services spent through live notes stored at a location the actor cannot see (a client
 * who moved keeps their old notes at the old location, decision 017): per service and location, with its title, so
 * the profile's figures, which count every note, say where the notes it cannot list are. One statement, for a batch;
 * no rows for an actor who sees every location.
 */
export function unitsElsewhereQuery(ctx: ModelContext, patientId: number) {
  const scope = locationScope(ctx.actor);
  return ctx.db
    .select({ paServiceId: paServices.id, location: locations.title, units: sql<number>`sum(${notes.units})`.mapWith(Number) })
    .from(notes)
    .innerJoin(paServices, eq(paServices.id, notes.paServiceId))
    .innerJoin(patients, eq(patients.id, paServices.patientId))
    .innerJoin(locations, eq(locations.id, notes.locationId))
    .where(and(eq(paServices.patientId, patientId), eq(notes.patientId, patientId), live, isNull(notes.deletedAt), patientScope(ctx), scope === null ? sql`1 = 0` : sql`not ${idsIn(notes.locationId, scope)}`))
    .groupBy(paServices.id, locations.id)
    .orderBy(asc(paServices.id), asc(locations.title));
}

export async function getPaService(ctx: ModelContext, id: number): Promise<PaServiceJson | null> {
  const [row] = await select(ctx).where(and(eq(paServices.id, id), live, patientScope(ctx)));
  return row ? paServiceJson(row) : null;
}

/**
 * Whether `insuranceId` (a bound id or a subquery giving one) has a live price (insurance_services, not deleted) for
 * `cpt`, at any location: what "the insurer covers the CPT" means for a PA service (decision 031, stop 38). With
 * `exceptServiceId`, a price other than that one. SQL for a select or a WHERE; every column qualified by `s`.
 */
export function coversCptSql(insuranceId: number | SQL, cpt: string | SQL, exceptServiceId?: number): SQL {
  return sql`exists (select 1 from insurance_services s where s.insurance_id = ${insuranceId} and upper(s.cpt_code) = ${cpt} and s.deleted_at is null${exceptServiceId === undefined ? sql`` : sql` and s.id <> ${exceptServiceId}`})`;
}

/**
 * Who pays a PA service's notes: the insurer it names, else the client's primary insurer (`notePayer`, decision 030).
 * `primaryOf`: the save names no insurer, so that client's primary one is checked (by a subquery, in the same read).
 */
type Payer = { insuranceId: number } | { primaryOf: number };
const payerIdSql = (payer: Payer): number | SQL => ("insuranceId" in payer ? payer.insuranceId : sql`(select p.insurer_id from patients p where p.id = ${payer.primaryOf})`);

/**
 * The insurer that pays a PA service's notes, whether it is deleted, and whether it has a live service
 * (insurance_services) for `cpt`: one statement, for the save's read (no rows for a missing insurer, or for a client
 * with no primary insurer when the PA service names none).
 */
function insurerCoverageQuery(ctx: ModelContext, payer: Payer, cpt: string) {
  const id = payerIdSql(payer);
  return ctx.db
    .select({
      name: insurances.name,
      deleted: sql<number>`${insurances.deletedAt} is not null`.mapWith(Number),
      // The insurer by its id (bound): a column of the one-table select is written unqualified, which `s` would capture.
      covers: sql<number>`${coversCptSql(id, cpt)}`.mapWith(Number),
    })
    .from(insurances)
    .where(sql`${insurances.id} = ${id}`);
}

/**
 * The insurer's field errors of a save: a new link must be a live insurer, and the CPT one the insurer covers (an
 * insurance service for it). `link`: "new" for an insurer the save names anew; "kept" for the stored insurer, which
 * passes even once deleted (decision 017, stop 33); "primary" when the PA service names no insurer and the client's
 * primary insurer pays its notes (decision 030): its CPT is checked against that insurer (decision 031, stop 44), and
 * a client with no primary insurer leaves nothing to check.
 */
function insurerErrors(row: { name: string; deleted: number; covers: number } | undefined, cpt: string, link: "new" | "kept" | "primary"): Record<string, string> {
  if (link === "primary") return !row || row.covers ? {} : { cpt: paCptNotCoveredByPrimary(row.name, cpt) };
  if (!row || (row.deleted && link === "new")) return { insurance_id: "Choose an insurer from the list." };
  return row.covers ? {} : { cpt: paCptNotCovered(row.name, cpt) };
}

function values(input: PaServiceInput) {
  return {
    paService: input.pa_service,
    cpt: input.cpt.toUpperCase(),
    nUnits: input.n_units,
    startDate: input.start_date,
    endDate: input.end_date,
    insuranceId: input.insurance_id,
    isPrimary: input.is_primary,
  };
}

const PatientRef = v.object({ patient_id: v.pipe(v.union([v.string(), v.number()], "Patient is required."), v.transform(Number), v.number(), v.integer("Patient is required."), v.minValue(1, "Patient is required.")) });

/** What a resend of a create answers besides the first service (decision 024, stop 39). */
export const PA_SERVICE_MESSAGES = {
  created: "PA service created.",
  /** A form token that made a service the actor no longer sees (deleted since), or another client's. */
  formUsed: "This form was already used. Open the client's profile again to add another PA service.",
  keyReused: idempotencyKeyReused("PA service"),
} as const;

/** The service a one-time token (or, for an Idempotency-Key, any token of its scope) made: for a batch. */
function tokenRead(db: Db, token: string | null) {
  return db
    .select({ id: paServices.id, patientId: paServices.patientId, formToken: paServices.formToken })
    .from(paServices)
    .where(token ? tokenMatch(paServices.formToken, token) : sql`1 = 0`);
}

/**
 * A resend: the service the token made, as it is now, with the first answer's message (the screen's flash, the API's
 * 200). The same Idempotency-Key with another body answers 422 keyReused; a token whose service was deleted since,
 * or is another client's, 422 formUsed. Nothing is written.
 */
async function replayPaService(ctx: ModelContext, token: string, sent: { id: number; patientId: number; formToken: string | null } | undefined, patientId: number): Promise<ModelResult<PaServiceJson>> {
  if (sent && sent.formToken !== token) return invalid({ form: PA_SERVICE_MESSAGES.keyReused });
  const found = sent && sent.patientId === patientId ? await getPaService({ ...ctx, db: primaryOf(ctx.db) }, sent.id) : null;
  return found ? replayedOk(found, PA_SERVICE_MESSAGES.created) : invalid({ form: PA_SERVICE_MESSAGES.formUsed });
}

/**
 * Adds a PA service to a client in scope. `formToken` (the form's one-time token, or the API's Idempotency-Key as
 * idempotencyToken made it) makes a resend answer the first service instead of adding a second authorization with
 * its own units (decision 024, stop 39). The token is read beside the next id; the insert is conditional (an
 * Idempotency-Key's scope still free) and the UNIQUE index on form_token settles a racing resend.
 */
export async function createPaService(ctx: ModelContext, raw: Record<string, unknown>, opts: { formToken?: string | null } = {}): Promise<ModelResult<PaServiceJson>> {
  const formToken = oneTimeToken(opts.formToken);
  const ref = parseWith(PatientRef, { patient_id: raw.patient_id ?? "" });
  const parsed = parseWith(PaServiceInput, raw);
  if (!ref.ok || !parsed.ok) return invalid({ ...(ref.ok ? {} : ref.errors), ...(parsed.ok ? {} : parsed.errors) });
  const patient = await findPatient(ctx, ref.data.patient_id);
  // A client out of scope is one the actor cannot name: same answer as a missing one.
  if (!patient) return invalid({ patient_id: REFERENCE_MESSAGES.client });
  // The CPT must be one the payer covers: the insurer named, else the client's primary insurer (decision 031, stop 44).
  const payerId = parsed.data.insurance_id ?? patient.insurer_id;
  if (payerId !== null) {
    const cpt = values(parsed.data).cpt;
    const errors = insurerErrors((await insurerCoverageQuery(ctx, { insuranceId: payerId }, cpt))[0], cpt, parsed.data.insurance_id === null ? "primary" : "new");
    if (Object.keys(errors).length) return invalid(errors);
  }
  const db = primaryOf(ctx.db);
  for (let attempt = 0; ; attempt++) {
    const [[max], sent] = await db.batch([db.select({ n: nextIdOf(paServices) }).from(paServices), tokenRead(db, formToken)]);
    if (sent.length) return replayPaService(ctx, formToken!, sent[0], patient.id);
    const newId = Number(max?.n ?? 1);
    const at = ctx.now().toISOString();
    try {
      const [rows] = await withConditionalAudit(ctx.db, who(ctx), { action: "create", entity: "pa_service", entityId: newId, patientId: patient.id }, (audit) => [
        ctx.db
          .insert(paServices)
          .select(
            sql`select ${rowCells(paServices, { id: newId, patientId: patient.id, ...values(parsed.data), version: 1, deletedAt: null, formToken, createdAt: at, updatedAt: at })}
              where 1${keyScopeFree(paServices, paServices.formToken, formToken)}`,
          )
          .returning({ id: paServices.id }),
        audit(sql`changes() = 1`),
        bumpListVersion(ctx.db, PA_SERVICES),
      ]);
      // Only an Idempotency-Key's scope keeps the insert from landing: the next turn reads what it made.
      if (rows[0]) return ok((await getPaService({ ...ctx, db }, newId))!, PA_SERVICE_MESSAGES.created);
    } catch (e) {
      if (formToken && isTokenRace(e, "pa_services.form_token")) return replayPaService(ctx, formToken, (await tokenRead(db, formToken))[0], patient.id);
      if (!(attempt < 5 && isKeyRace(e))) throw e;
    }
    if (attempt >= 5) throw new Error("PA service create: no id after 6 attempts");
  }
}

function asInput(p: PaServiceJson): Record<string, unknown> {
  return { pa_service: p.pa_service, cpt: p.cpt, n_units: p.n_units, start_date: p.start_date, end_date: p.end_date, insurance_id: p.insurance_id, is_primary: p.is_primary };
}

/** The fields of a PA service whose new values its update's audit row shows: the authorization's units, period, code and payer (decision 019, stop 43). */
const PA_SERVICE_SHOWN = ["n_units", "start_date", "end_date", "cpt", "insurance_id", "is_primary"];

/** What an update changes of a PA service, for its audit row: the service's name by name only, the rest with values. */
function paServiceChange(current: PaServiceJson, next: ReturnType<typeof values>) {
  const written = { pa_service: next.paService, cpt: next.cpt, n_units: next.nUnits, start_date: next.startDate, end_date: next.endDate, insurance_id: next.insuranceId, is_primary: next.isPrimary };
  return changeDetail(current, written, PA_SERVICE_SHOWN);
}

export async function updatePaService(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<PaServiceJson>> {
  const current = await getPaService(ctx, id);
  if (!current) return notFound("PA service");
  // An authorization is its client's: another client, under `patient_id` or the spec's `client_id`, is refused, never
  // dropped, and so is an empty one (decision 044); a value that is no record id answers the record-id words; the same
  // client passes (decision 017, stop 45).
  const fixed = movedReferences(raw, { patient_id: [current.patient_id, PA_SERVICE_CLIENT_FIXED], client_id: [current.patient_id, PA_SERVICE_CLIENT_FIXED] });
  const emptied = ["patient_id", "client_id"].filter((k) => Object.hasOwn(raw, k) && (raw[k] === null || raw[k] === ""));
  if (fixed || emptied.length) return invalid({ ...Object.fromEntries(emptied.map((k) => [k, PA_SERVICE_CLIENT_FIXED])), ...fixed });
  if (namesNoField(raw, PaServiceInput)) return nothingToChange();
  // A stored CPT sent back as it is passes; a new or changed one must pass the CPT rule (decision 017, stop 36).
  const parsed = parseChange(paServiceInput(current.cpt), raw, opts.partial ? asInput(current) : null);
  if (!parsed.ok) return invalid(parsed.errors);
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  const next = values(parsed.data);
  const detail = paServiceChange(current, next);
  // A save that leaves every field as stored writes nothing and keeps the version (decision 017, stop 44).
  if (changesNoField(detail)) return nothingToChange(current);
  const was: Coverage = { cpt: current.cpt, startDate: current.start_date, endDate: current.end_date };
  // An insurer the save does not change is kept, even once it was deleted (decision 017, stop 33); a stored CPT the
  // payer does not cover likewise passes while neither changes. A new insurer or CPT is checked: against the insurer
  // named, else against the client's primary insurer, who pays then (decision 031, stop 44).
  const keptInsurer = next.insuranceId === current.insurance_id;
  const insurerChecked = !keptInsurer || next.cpt !== current.cpt;
  const payer: Payer = next.insuranceId === null ? { primaryOf: current.patient_id } : { insuranceId: next.insuranceId };
  // New dates or another CPT: refused while sessions booked under it (probe 8973 §4) or notes written under it would
  // no longer be covered.
  const moved = next.cpt !== current.cpt || next.startDate !== current.start_date || next.endDate !== current.end_date;
  // The client's location's today, from which the sessions count (as for the delete); null when nothing moved.
  let today: string | null = null;
  if (moved || insurerChecked) {
    // One round trip: the insurer and its coverage of the CPT, the client's zone, the uncovered sessions from the
    // earliest "today" of any zone (UTC−12) on, and the notes the change would leave uncovered.
    const [insurer, place, sessions, stranded] = await ctx.db.batch([
      insurerCoverageQuery(ctx, payer, next.cpt),
      patientTimeZoneQuery(ctx, current.patient_id),
      uncoveredSessionsQuery(ctx, id, addDays(ctx.now().toISOString().slice(0, 10), -1), next),
      uncoveredNotesQuery(ctx, id, was, next),
    ]);
    if (insurerChecked) {
      const errors = insurerErrors(insurer[0], next.cpt, next.insuranceId === null ? "primary" : keptInsurer ? "kept" : "new");
      if (Object.keys(errors).length) return invalid(errors);
    }
    if (moved) {
      const localToday = todayIn(ctx.now(), place[0]?.timeZone ?? "UTC");
      const refusal = uncoveredRefusal(sessions.filter((r) => r.date >= localToday), stranded, next);
      if (refusal) return refusal;
      today = localToday;
    }
  }
  const [rows] = await withConditionalAudit(ctx.db, who(ctx), { action: "update", entity: "pa_service", entityId: id, patientId: current.patient_id, detail }, (audit) => [
    ctx.db
      .update(paServices)
      .set({ ...next, version: sql`${paServices.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(
        and(
          eq(paServices.id, id),
          live,
          opts.version === null ? undefined : eq(paServices.version, opts.version),
          today === null ? undefined : sql`not exists (select 1 ${uncoveredBy(id, today, next)}) and not exists (select 1 ${strandedBy(id, was, next)})`,
        ),
      )
      .returning({ id: paServices.id }),
    audit(sql`changes() = 1`),
    bumpListVersion(ctx.db, PA_SERVICES),
  ]);
  if (!rows[0]) {
    // A session booked or a note written meanwhile that the change would leave uncovered, else a newer version saved meanwhile.
    const refusal = today === null ? null : uncoveredRefusal(...(await ctx.db.batch([uncoveredSessionsQuery(ctx, id, today, next), uncoveredNotesQuery(ctx, id, was, next)])), next);
    return refusal ?? conflict((await getPaService(ctx, id)) ?? current);
  }
  return ok((await getPaService(ctx, id))!, "PA service updated.");
}

/**
 * What still uses the PA service, as `from … where` SQL: its live notes, and the sessions booked under it still
 * scheduled from `today` (the client's location's date) on.
 */
function usesOf(id: number, today: string) {
  return {
    notes: sql`from notes n where n.pa_service_id = ${id} and n.deleted_at is null`,
    sessions: sql`from scheduled_sessions s where s.pa_service_id = ${id} and s.status = 'scheduled' and s.session_date >= ${today}`,
  };
}

/** The time zone of a client's location, as a statement for a batch. */
export function patientTimeZoneQuery(ctx: ModelContext, patientId: number) {
  return ctx.db.select({ timeZone: locations.timeZone }).from(patients).innerJoin(locations, eq(locations.id, patients.locationId)).where(eq(patients.id, patientId));
}

type Coverage = Pick<ReturnType<typeof values>, "cpt" | "startDate" | "endDate">;

/** The sessions still scheduled under the PA service from `today` on that its new CPT and dates would not cover, as `from … where` SQL. */
function uncoveredBy(id: number, today: string, next: Coverage) {
  return sql`${usesOf(id, today).sessions} and (s.session_date < ${next.startDate} or s.session_date > ${next.endDate} or s.cpt_code <> ${next.cpt})`;
}

/** Those sessions' dates and CPT codes, by date. */
function uncoveredSessionsQuery(ctx: ModelContext, id: number, today: string, next: Coverage) {
  return ctx.db
    .select({ date: scheduledSessions.sessionDate, cpt: scheduledSessions.cptCode })
    .from(scheduledSessions)
    .where(sql`${scheduledSessions.id} in (select s.id ${uncoveredBy(id, today, next)})`)
    .orderBy(asc(scheduledSessions.sessionDate), asc(scheduledSessions.id));
}

/**
 * The live notes written under the PA service that its new CPT and dates would not cover, as `from … where` SQL.
 * Only those its stored CPT and dates (`was`) cover: a note already outside them (stored data) is not the edit's doing,
 * so it does not stop an edit (decision 017's "stored values pass when kept"); the scrubber reports it.
 */
function strandedBy(id: number, was: Coverage, next: Coverage) {
  const outside = (c: Coverage) => sql`(n.session_date < ${c.startDate} or n.session_date > ${c.endDate} or n.cpt_code <> ${c.cpt})`;
  return sql`from notes n where n.pa_service_id = ${id} and n.deleted_at is null and ${outside(next)} and not ${outside(was)}`;
}

/** Those notes' dates and CPT codes, by date. */
function uncoveredNotesQuery(ctx: ModelContext, id: number, was: Coverage, next: Coverage) {
  return ctx.db
    .select({ date: notes.sessionDate, cpt: notes.cptCode })
    .from(notes)
    .where(sql`${notes.id} in (select n.id ${strandedBy(id, was, next)})`)
    .orderBy(asc(notes.sessionDate), asc(notes.id));
}

type Uses = readonly { date: string; cpt: string }[];

/**
 * 422 naming how many sessions and how many notes the change would leave uncovered and their first dates, each at
 * the field that uncovers them (the CPT, else the start date, else the end date); null when none would be. The units
 * are not a rule here: lowering them below the booked or written units is allowed (the booking's warning says so).
 */
function uncoveredRefusal(sessions: Uses, notesLeft: Uses, next: Coverage): ModelResult<never> | null {
  const errors: Record<string, string> = {};
  const add = (rows: Uses, message: (n: number, dates: readonly string[]) => string) => {
    if (!rows.length) return;
    const field = rows.some((r) => r.cpt !== next.cpt) ? "cpt" : rows.some((r) => r.date < next.startDate) ? "start_date" : "end_date";
    const text = message(rows.length, [...new Set(rows.map((r) => r.date))]);
    errors[field] = errors[field] ? `${errors[field]} ${text}` : text;
  };
  add(sessions, PA_SERVICE_IN_USE.uncovered);
  add(notesLeft, PA_SERVICE_IN_USE.uncoveredNotes);
  return Object.keys(errors).length ? invalid(errors) : null;
}

/** 422 naming how many notes and scheduled sessions use the PA service, or null when none does. */
async function stillInUse(ctx: ModelContext, id: number, today: string): Promise<ModelResult<never> | null> {
  const u = usesOf(id, today);
  const [n] = await ctx.db.select({ notes: sql<number>`(select count(*) ${u.notes})`, sessions: sql<number>`(select count(*) ${u.sessions})` }).from(paServices).where(eq(paServices.id, id));
  const messages = (["notes", "sessions"] as const).filter((k) => Number(n?.[k] ?? 0) > 0).map((k) => PA_SERVICE_IN_USE[k](Number(n![k])));
  return messages.length ? invalid({ pa_service: messages.join(" ") }) : null;
}

/**
 * Soft delete; refused (422) while live notes or scheduled sessions use the service: they would fail the scrubber
 * and could not be claimed (probe 8931 §4). The delete is conditional on that in SQL too, so a note written
 * meanwhile makes it write nothing (no audit row).
 */
export async function deletePaService(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await getPaService(ctx, id);
  if (!current) return notFound("PA service");
  const [place] = await patientTimeZoneQuery(ctx, current.patient_id);
  const today = todayIn(ctx.now(), place?.timeZone ?? "UTC");
  const refusal = await stillInUse(ctx, id, today);
  if (refusal) return refusal;
  const u = usesOf(id, today);
  const [deleted] = await withConditionalAudit(ctx.db, who(ctx), { action: "delete", entity: "pa_service", entityId: id, patientId: current.patient_id }, (audit) => [
    ctx.db
      .update(paServices)
      .set({ deletedAt: ctx.now().toISOString() })
      .where(and(eq(paServices.id, id), live, sql`not exists (select 1 ${u.notes}) and not exists (select 1 ${u.sessions})`))
      .returning({ id: paServices.id }),
    audit(sql`changes() = 1`),
    bumpListVersion(ctx.db, PA_SERVICES),
  ]);
  if (!deleted.length) return (await stillInUse(ctx, id, today)) ?? notFound("PA service");
  return ok(null, "PA service deleted.");
}
