import { and, asc, count, desc, eq, getTableColumns, inArray, isNull, ne, or, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { localDayBounds } from "~/domain/time";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { AnySQLiteColumn, AnySQLiteTable, SQLiteColumn } from "drizzle-orm/sqlite-core";
import * as v from "valibot";
import { primaryOf } from "~/db/client.server";
import { idempotencyKeyReused, keyScope, oneTimeToken, tokenMatch } from "~/services/idempotency.server";
import { auditLog, insurances, locations, parents, patients, scheduledSessions, userLocations, users } from "~/db/schema";
import { changeDetail, changesNoField } from "~/domain/audit-changes";
import { isFutureDate, MESSAGES } from "~/domain/fields";
import { deletedInsurerLabel } from "~/domain/insurance";
import { readPaAssessments, type PaAssessment } from "~/domain/pa-assessments";
import { LINKED_PARENT_ELSEWHERE, LINKED_PARENT_NOT_SHOWN, parentOptionLabel } from "~/domain/parents";
import { todayAtLocation } from "~/domain/pa-pacing";
import { ageOn, COLUMN_FIELDS, DETAIL_FIELDS, goneStaffLabel, IDENTIFIER_IN_USE, identifierRefusal, INACTIVE_STAFF, insurerPairRefusal, isDiagnosisCodeText, parsePatient, primaryLeavesPaUncovered, PATIENT_FIELDS, PATIENT_INPUT_FIELDS, PATIENT_SET_ELSEWHERE, PATIENT_STATUSES, PatientStatusInput, STAFF_FIELDS, type PatientInput, type StaffField, type StaffGone, type StaffOption } from "~/domain/patients";
import { STAFF_OPTIONS_MAX } from "~/domain/employees";
import { FilterId, filterStatus, parseFilters as parseListFilters } from "~/domain/list-filters";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canReadParents, canSeeLocation, locationScope } from "~/domain/permissions";
import { withCancelledCount } from "~/domain/schedule";
import { fieldsSetElsewhere, namesNoField, parseWith } from "~/domain/validation";
import { auditClientsRead, auditedRead, auditRead, auditTail, clientIds, clientsReadEntry, withAudit, type AuditEntry, type AuditWho, type KnownTail } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { insuranceOptionsQuery } from "./insurances.server";
import { locationOptionsQuery } from "./locations.server";
import { cancelledCount, cancelUnfitBookings, futureBookingsOfClientCount, unfitDetail } from "./schedule.server";
import { conflict, errorText, invalid, type ModelResult, notFound, nothingToChange, ok, replayedOk } from "./results";
import { contains } from "./like.server";
import { idsIn, inLocationScope } from "./scope.server";
import { nextIdOf, plainId } from "./ids.server";
import { coversCptSql } from "./pa-services.server";
import { choosableStaff, choosableStaffAt, isChoosableStaff, whyNotChoosable } from "./staff.server";

/** Clients (clinical §3 Patient). Every read and write is limited to the actor's locations and audited. */

export const PATIENTS = "patients";
type Row = typeof patients.$inferSelect;

/**
 * A client's columns with their location's time zone, which decides their today and so their age (probe 8953 §4):
 * every read or write that answers a client selects this.
 */
const zonedPatient = { ...getTableColumns(patients), timeZone: sql<string | null>`(select "time_zone" from "locations" where "id" = "patients"."location_id")` };
type ZonedRow = Row & { timeZone: string | null };

const STAFF_COLUMNS: Record<StaffField, SQLiteColumn> = {
  rbt_home_id: patients.rbtHomeId,
  rbt2_school_id: patients.rbt2SchoolId,
  bcba_home_id: patients.bcbaHomeId,
  bcba_school_id: patients.bcbaSchoolId,
  bcba2_school_id: patients.bcba2SchoolId,
  clin_director_id: patients.clinDirectorId,
  case_manager_id: patients.caseManagerId,
};

const INSURER_FIELDS = ["insurer_id", "insurer_secondary_id"] as const;
const BIRTH_DATE_FIELDS = PATIENT_FIELDS.filter((f) => f.name === "birth_date" || f.name === "parent_birth_date");

function parseDetails(raw: string): Record<string, unknown> {
  try {
    const x = JSON.parse(raw) as unknown;
    return x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A client as the screens and the API show it; `age` in whole years on today at the client's location. */
export function patientJson(r: ZonedRow, now: Date) {
  const details = parseDetails(r.details);
  const known = Object.fromEntries(DETAIL_FIELDS.map((name) => [name, details[name] ?? null]));
  return {
    ...known,
    pa_assessments: readPaAssessments(details.pa_assessments),
    id: r.id,
    patient_identifier: r.patientIdentifier,
    first_name: r.firstName,
    last_name: r.lastName,
    full_name: `${r.firstName} ${r.lastName}`.trim(),
    status: r.status,
    gender: r.gender,
    birth_date: r.birthDate,
    age: ageOn(r.birthDate, todayAtLocation(now, r.timeZone ?? "UTC")),
    location_id: r.locationId,
    parent_id: r.parentId,
    parents_id: r.parentId,
    insurer_id: r.insurerId,
    insurer_secondary_id: r.insurerSecondaryId,
    rbt_home_id: r.rbtHomeId,
    rbt2_school_id: r.rbt2SchoolId,
    bcba_home_id: r.bcbaHomeId,
    bcba_school_id: r.bcbaSchoolId,
    bcba2_school_id: r.bcba2SchoolId,
    clin_director_id: r.clinDirectorId,
    case_manager_id: r.caseManagerId,
    version: r.version,
    created_at: r.createdAt,
  } as Record<string, unknown> & {
    id: number;
    patient_identifier: string;
    first_name: string;
    last_name: string;
    full_name: string;
    status: string;
    gender: number | null;
    birth_date: string | null;
    age: number | null;
    location_id: number;
    parent_id: number | null;
    insurer_id: number | null;
    insurer_secondary_id: number | null;
    version: number;
    created_at: string;
    pa_assessments: PaAssessment[];
  } & Record<StaffField, number | null>;
}
export type PatientJson = ReturnType<typeof patientJson>;

export function who(ctx: ModelContext): AuditWho {
  return { actor: ctx.actor, ip: ctx.ip };
}

/** The actor's location scope as a condition on patients. */
export function patientScope(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return isNull(patients.deletedAt);
  return and(isNull(patients.deletedAt), idsIn(patients.locationId, scope))!;
}

export const PatientFilters = v.object({
  location_id: FilterId,
  insurer_id: FilterId,
  staff_id: FilterId,
  parent_id: FilterId,
  status: filterStatus(PATIENT_STATUSES),
});
export type PatientFilters = v.InferOutput<typeof PatientFilters>;

/**
 * A select as one JSON array column (`[{column: value, …}]`), so small option lists ride along with another
 * read instead of costing a statement each. SQLite keeps the subquery's ORDER BY under an aggregate over a
 * single subquery (it is neither flattened nor dropped there), so the rows arrive in that order.
 */
export function jsonRows<T>(query: SQLWrapper, columns: readonly string[]): SQL<T[]> {
  const pairs = sql.raw(columns.map((c) => `'${c}', "${c}"`).join(", "));
  return sql`(select json_group_array(json_object(${pairs})) from ${query})`.mapWith((v: unknown) => (typeof v === "string" ? (JSON.parse(v) as T[]) : []));
}

/** The locations the actor can see, as an embeddable select (what locationOptions answers). */
export function visibleLocationsQuery(ctx: ModelContext) {
  const scope = locationScope(ctx.actor);
  return ctx.db
    .select({ id: locations.id, title: locations.title })
    .from(locations)
    .where(and(isNull(locations.deletedAt), inLocationScope(locations.id, scope)))
    .orderBy(asc(locations.title));
}

/** Every insurer (insuranceOptionsQuery), as a JSON column. */
function insurerOptionsColumn(ctx: ModelContext) {
  return jsonRows<{ id: number; name: string }>(insuranceOptionsQuery(ctx), ["id", "name"]);
}

/** FTS5 phrase syntax: the text in double quotes, quotes doubled; everything else is literal. */
function ftsPhrase(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}
/** The trigram index serves searches of 3 characters or more; shorter ones scan (docs/decisions/012-client-search.md). */
const TRIGRAM = 3;

/** Substring search over "first last" and the patient identifier, case-insensitive: the client list's, reused wherever clients are searched. */
export function searchCondition(s: string): SQL | undefined {
  if (!s) return undefined;
  if ([...s].length >= TRIGRAM) return sql`${patients.id} in (select rowid from patients_search where patients_search match ${ftsPhrase(s)})`;
  return or(contains(patients.firstName, s), contains(patients.lastName, s), contains(sql`${patients.firstName} || ' ' || ${patients.lastName}`, s), contains(patients.patientIdentifier, s));
}

function parseFilters(rawFilters: Record<string, unknown>) {
  return parseListFilters(PatientFilters, rawFilters);
}

function listWhere(ctx: ModelContext, query: ListQuery, fl: PatientFilters): SQL | undefined {
  // From/To are days on the actor's clock, the one a client's "Added" is shown on (decision 039).
  const days = localDayBounds(query.date_from, query.date_to, ctx.actor.timeZone);
  return and(
    patientScope(ctx),
    searchCondition(query.search),
    fl.location_id !== "" ? eq(patients.locationId, fl.location_id) : undefined,
    fl.insurer_id !== "" ? or(eq(patients.insurerId, fl.insurer_id), eq(patients.insurerSecondaryId, fl.insurer_id)) : undefined,
    fl.parent_id !== "" ? eq(patients.parentId, fl.parent_id) : undefined,
    fl.status !== "" ? eq(patients.status, fl.status) : undefined,
    fl.staff_id !== "" ? or(...Object.values(STAFF_COLUMNS).map((c) => eq(c, fl.staff_id as number))) : undefined,
    days.start ? sql`${patients.createdAt} >= ${days.start}` : undefined,
    days.before ? sql`${patients.createdAt} < ${days.before}` : undefined,
  );
}

function pageQuery(ctx: ModelContext, query: ListQuery, where: SQL | undefined) {
  return ctx.db.select(zonedPatient).from(patients).where(where).orderBy(asc(patients.lastName), asc(patients.firstName), asc(patients.id)).limit(query.per_page).offset(offset(query));
}

export async function listPatients(ctx: ModelContext, query: ListQuery, rawFilters: Record<string, unknown> = {}): Promise<ModelResult<Paged<PatientJson>>> {
  const parsed = parseFilters(rawFilters);
  if (!parsed.ok) return invalid(parsed.errors);
  const where = listWhere(ctx, query, parsed.data);
  const [rows, [total]] = await ctx.db.batch([pageQuery(ctx, query, where), ctx.db.select({ n: count() }).from(patients).where(where)]);
  return ok(paged(rows.map((r) => patientJson(r, ctx.now())), total?.n ?? 0, query));
}

type Named = { id: number; name: string; surname: string };

/**
 * The client list screen: the page, its total and the filter options (locations, insurers, and the staff
 * of the chosen location) in one batch of two statements. A filter that does not parse is dropped, with
 * its message to show.
 */
export async function patientListScreen(ctx: ModelContext, query: ListQuery, rawFilters: Record<string, unknown> = {}) {
  const parsed = parseFilters(rawFilters);
  const fl = parsed.ok ? parsed.data : v.parse(PatientFilters, {});
  const where = listWhere(ctx, query, fl);
  const chosen = fl.location_id !== "" && canSeeLocation(ctx.actor, fl.location_id) ? fl.location_id : null;
  const [rows, [extra]] = await ctx.db.batch([
    pageQuery(ctx, query, where),
    ctx.db
      .select({
        n: count(),
        tail: auditTail,
        locations: jsonRows<{ id: number; title: string }>(visibleLocationsQuery(ctx), ["id", "title"]),
        insurers: insurerOptionsColumn(ctx),
        // Staff to filter by come from the chosen location only: a practice has thousands of employees.
        staff: chosen === null ? sql<Named[]>`'[]'`.mapWith(() => [] as Named[]) : jsonRows<Named>(staffQuery(ctx, chosen), ["id", "name", "surname"]),
      })
      .from(patients)
      .where(where),
  ]);
  // The page's clients are recorded as read (one row) before the screen renders them.
  await auditClientsRead(ctx.db, who(ctx), "patient", clientIds(rows, (r) => r.id), extra?.tail);
  return {
    page: paged(rows.map((r) => patientJson(r, ctx.now())), extra?.n ?? 0, query),
    locations: extra?.locations ?? [],
    insurers: extra?.insurers ?? [],
    staff: extra?.staff ?? [],
    filterError: parsed.ok ? null : Object.values(parsed.errors)[0]!,
  };
}

/** A client in scope, without an audit row (for checks inside other use cases). */
export async function findPatient(ctx: ModelContext, patientId: number): Promise<PatientJson | null> {
  const row = await findPatientRow(ctx, patientId);
  return row ? patientJson(row, ctx.now()) : null;
}

async function findPatientRow(ctx: ModelContext, patientId: number): Promise<ZonedRow | null> {
  const [row] = await ctx.db.select(zonedPatient).from(patients).where(and(eq(patients.id, patientId), patientScope(ctx)));
  return row ?? null;
}

/** Reads one client in scope with the audit chain's tail, and records the read: two statements. */
async function readAudited(ctx: ModelContext, condition: SQL): Promise<PatientJson | null> {
  const [row] = await ctx.db
    .select({ p: zonedPatient, tail: auditTail })
    .from(patients)
    .where(and(condition, patientScope(ctx)));
  if (!row) return null;
  await auditRead(ctx.db, who(ctx), { entity: "patient", entityId: row.p.id, patientId: row.p.id }, row.tail);
  return patientJson(row.p, ctx.now());
}

/**
 * A client record read in scope with the audit chain's tail, then `alsoRead` (statements built from the
 * record, e.g. a form's options) in the batch of its audit row (`recorded`: what the row names, the
 * client by default): the scope check decides first, and the
 * record and the rest come back in one more round trip with the row that records them (decision 019).
 */
export async function getPatientWith<T extends BatchItem<"sqlite">[]>(
  ctx: ModelContext,
  patientId: number,
  alsoRead: (patient: PatientJson) => [...T],
  recorded: Pick<AuditEntry, "entity" | "entityId" | "detail"> = { entity: "patient", entityId: patientId },
): Promise<{ patient: PatientJson; also: BatchResponse<T> } | null> {
  const [row] = await ctx.db
    .select({ p: zonedPatient, tail: auditTail })
    .from(patients)
    .where(and(eq(patients.id, patientId), patientScope(ctx)));
  if (!row) return null;
  const patient = patientJson(row.p, ctx.now());
  const also = await auditedRead(ctx.db, who(ctx), { ...recorded, patientId: row.p.id }, () => alsoRead(patient), row.tail);
  return { patient, also };
}

/** A client record read (profile, show): in scope, and the read is audited. */
export async function getPatient(ctx: ModelContext, patientId: number): Promise<PatientJson | null> {
  return readAudited(ctx, eq(patients.id, patientId));
}

/** A client in scope by patient identifier (findPatientIdByIdentifier's rule), the read audited. */
export async function getPatientByIdentifier(ctx: ModelContext, identifier: string): Promise<PatientJson | null> {
  const exact = await readAudited(ctx, eq(patients.patientIdentifier, identifier));
  if (exact) return exact;
  const id = await onlyMatchAnyCase(ctx, identifier);
  return id === null ? null : readAudited(ctx, eq(patients.id, id));
}

/**
 * A patient identifier compared without letter case (A–Z: SQLite's NOCASE). The duplicate check and the lookups by
 * identifier use it. No index has that collation: the subquery reads every identifier from the unique index (a
 * covering scan, never the wide client rows), so it runs only where the exact identifier (indexed) was not enough: a
 * new identifier, a lookup that found none.
 */
function sameIdentifierAnyCase(identifier: string): SQL {
  return sql`${patients.id} in (select "id" from "patients" where "patient_identifier" = ${identifier} collate nocase)`;
}

/** The one client in scope whose identifier differs from `identifier` only in letter case; null for none or several (never one of them picked). */
async function onlyMatchAnyCase(ctx: ModelContext, identifier: string): Promise<number | null> {
  const rows = await ctx.db.select({ id: patients.id }).from(patients).where(and(sameIdentifierAnyCase(identifier), patientScope(ctx))).limit(2);
  return rows.length === 1 ? rows[0]!.id : null;
}

/** Staff who work at the location (user_locations), for the assignment selects. */
function staffQuery(ctx: ModelContext, locationId: number) {
  return ctx.db
    .select({ id: users.id, name: users.name, surname: users.surname })
    .from(users)
    .innerJoin(userLocations, eq(userLocations.userId, users.id))
    .where(and(eq(userLocations.locationId, locationId), isNull(users.deletedAt)))
    .orderBy(asc(users.name), asc(users.surname));
}

/**
 * The staff a client's assignment selects offer: the active employees of the locations `where` picks
 * (choosableStaff, the booking form's rule), then the employees the client's stored links name who do not (or no
 * longer) work at its location, were made inactive or were deleted, with `gone` saying which ("elsewhere",
 * "inactive" or "deleted") and the client's location. A form lists each of those in the fields that store them only,
 * named with why (staffOptionOf), so saving it unchanged keeps the link (checkReferences checks a changed link
 * only), as the BIP editor does for a plan's doctor. One statement.
 */
function assignableStaffQuery(ctx: ModelContext, where: SQL | undefined, client: PatientJson | null) {
  const linked = client ? STAFF_FIELDS.map(([name]) => client[name]).filter((x): x is number => typeof x === "number") : [];
  const members = ctx.db
    // Named columns: D1 answers rows keyed by name, and a key like "1" would be put first.
    .select({ id: users.id, name: users.name, surname: users.surname, locationId: userLocations.locationId, gone: sql<StaffGone | null>`null`.as("gone") })
    .from(users)
    .innerJoin(userLocations, eq(userLocations.userId, users.id))
    .where(and(choosableStaff(), where));
  const gone = ctx.db
    .select({
      id: users.id,
      name: users.name,
      surname: users.surname,
      locationId: sql<number>`${client?.location_id ?? null}`.as("location_id"),
      gone: whyNotChoosable().as("gone"),
    })
    .from(users)
    .where(client && linked.length ? and(inArray(users.id, linked), sql`not ${choosableStaffAt(client.location_id)}`) : sql`1 = 0`);
  return members.unionAll(gone).orderBy(asc(users.name), asc(users.surname));
}

/** A row of assignableStaffQuery as a select option: a stored link no longer choosable is named with why, and offered only in the fields of `client` that store it. */
function staffOptionOf(s: { id: number; name: string; surname: string; gone: StaffGone | null }, client: PatientJson | null): StaffOption {
  if (!s.gone) return { id: s.id, name: fullName(s) };
  return { id: s.id, name: goneStaffLabel(fullName(s), s.gone), only: STAFF_FIELDS.filter(([field]) => client?.[field] === s.id).map(([field]) => field) };
}

/** The staff who may be newly chosen (choosableStaff: active) at a location, as a statement (the new BIP's doctor select rides in a batch). */
export function choosableStaffAtQuery(ctx: ModelContext, locationId: number) {
  return ctx.db
    .select({ id: users.id, name: users.name, surname: users.surname })
    .from(users)
    .innerJoin(userLocations, eq(userLocations.userId, users.id))
    .where(and(eq(userLocations.locationId, locationId), choosableStaff()))
    .orderBy(asc(users.name), asc(users.surname));
}

/** The parents the actor can see (those of no location too), as a statement (to ride in a batch). */
function parentOptionsQuery(ctx: ModelContext) {
  const scope = locationScope(ctx.actor);
  const where = and(isNull(parents.deletedAt), scope === null ? undefined : or(isNull(parents.locationId), idsIn(parents.locationId, scope)));
  return ctx.db.select({ id: parents.id, name: parents.name, surname: parents.surname, email: parents.email }).from(parents).where(where).orderBy(asc(parents.name)).limit(500);
}

/**
 * What checkReferences needs, read ahead in an update's read batch (referenceReads): for the ids and identifier the
 * body plainly names and the stored ones. A lookup the batch did not cover (a body the schema read differently) is
 * made on its own, so no check is ever skipped.
 */
interface ReadAhead {
  locationIds: number[];
  locations: { id: number; timeZone: string }[];
  /** The staff read (`staffIds`) at `locationIds`, with whether each may be newly chosen. */
  staffIds: number[];
  members: { id: number; locationId: number; choosable: number }[];
  parentIds: number[];
  parents: { id: number; locationId: number | null }[];
  insurerIds: number[];
  insurers: { id: number; name: string }[];
  /** The primary insurer the body plainly names (null: none) and the PA services it would leave uncovered (primaryUncoveredSql); null: not read. */
  primary: { insurerId: number | null; uncovered: { name: string; cpt: string }[] } | null;
  /** The identifier looked up (null: none), and whether another client holds it. */
  identifier: string | null;
  identifierTaken: boolean;
}

/** A stored column of the client, as a scalar subquery (to read ahead beside it, before the row is known). */
function storedColumn(patientId: number, column: SQLiteColumn): SQL {
  return sql`(select ${column} from ${patients} where ${patients.id} = ${patientId})`;
}

/**
 * The client's live PA services naming no insurer — billed to the primary insurer (decision 030) — whose CPT
 * `insurerId` as primary insurer does not cover (`coversCptSql`, decision 031 stop 44); null (no primary insurer): every
 * one, as they would have no payer at all (decision 031, stop 45). A condition on `pa_services ps`.
 */
function primaryUncoveredSql(patientId: number, insurerId: number | null): SQL {
  const covered = insurerId === null ? sql`` : sql` and not ${coversCptSql(insurerId, sql`upper(ps.cpt)`)}`;
  return sql`ps.patient_id = ${patientId} and ps.insurance_id is null and ps.deleted_at is null${covered}`;
}

/** The PA services a primary insurer change to `insurerId` would leave uncovered (primaryUncoveredSql), oldest first. */
function primaryUncoveredQuery(ctx: ModelContext, patientId: number, insurerId: number | null, gate: SQL = sql`1`) {
  return ctx.db
    .select({ name: sql<string>`ps.pa_service`, cpt: sql<string>`ps.cpt` })
    .from(sql`pa_services ps`)
    .where(sql`${gate} and ${primaryUncoveredSql(patientId, insurerId)}`)
    .orderBy(sql`ps.id`);
}

function oneOf(column: SQLiteColumn, values: (number | null | SQL)[]): SQL {
  return sql`${column} in (${sql.join(values.map((x) => sql`${x}`), sql`, `)})`;
}

/**
 * Another client (a live one in any letter case, any one exactly) already holds `identifier`: the unique rule's
 * statement. `gate`: a condition that must hold for the lookup to run at all. It is a one-row table that a CROSS JOIN
 * makes the outer loop (SQLite keeps a cross join's order), not a WHERE term: SQLite would still scan every identifier
 * for the letter-case match under a WHERE term that holds a subquery, and it put an inner join's gate last.
 */
function identifierTakenQuery(ctx: ModelContext, identifier: string, selfId: number | null, gate: SQL = sql`1`) {
  const same = or(eq(patients.patientIdentifier, identifier), and(sameIdentifierAnyCase(identifier), isNull(patients.deletedAt)));
  return ctx.db
    .select({ id: sql<number>`"patients"."id"`.mapWith(Number) })
    .from(sql`(select 1 where ${gate}) as "gate" cross join ${patients}`)
    .where(and(same, selfId === null ? undefined : ne(patients.id, selfId)))
    .limit(1);
}

/**
 * The statements of an update's read batch that answer checkReferences ahead (decision 043, stop 37): the live
 * locations, the staff memberships there, the live parents and insurers among what the body plainly names and what is
 * stored, and whether another client holds the sent identifier (looked up only when it differs from the stored one, so
 * a save that sends it back unchanged does not scan every identifier: identifierTakenQuery's gate).
 */
function referenceReads(ctx: ModelContext, patientId: number, raw: Record<string, unknown>) {
  const stored = (column: SQLiteColumn) => storedColumn(patientId, column);
  const sentLocation = plainId(raw.location_id);
  const sentStaff = STAFF_FIELDS.map(([name]) => plainId(raw[name])).filter((x): x is number => x !== null);
  const sentParent = plainId(raw.parent_id);
  const sentInsurers = INSURER_FIELDS.map((name) => plainId(raw[name]));
  // The primary insurer the body names (an empty or null one: none), read when it differs from the stored one.
  const sentPrimary = Object.hasOwn(raw, "insurer_id") && (raw.insurer_id === null || raw.insurer_id === "" || plainId(raw.insurer_id) !== null) ? { insurerId: plainId(raw.insurer_id) } : null;
  const identifier = typeof raw.patient_identifier === "string" ? raw.patient_identifier.trim() : null;
  const places = [sentLocation, stored(patients.locationId)];
  const statements = [
    ctx.db.select({ id: locations.id, timeZone: locations.timeZone }).from(locations).where(and(oneOf(locations.id, places), isNull(locations.deletedAt))),
    ctx.db
      .select({ id: userLocations.userId, locationId: userLocations.locationId, choosable: isChoosableStaff() })
      .from(userLocations)
      .innerJoin(users, eq(users.id, userLocations.userId))
      .where(and(oneOf(userLocations.locationId, places), oneOf(userLocations.userId, [...sentStaff, ...Object.values(STAFF_COLUMNS).map(stored)]), isNull(users.deletedAt))),
    ctx.db.select({ id: parents.id, locationId: parents.locationId }).from(parents).where(and(oneOf(parents.id, [sentParent, stored(patients.parentId)]), isNull(parents.deletedAt))),
    ctx.db.select({ id: insurances.id, name: insurances.name }).from(insurances).where(and(oneOf(insurances.id, [...sentInsurers, stored(patients.insurerId), stored(patients.insurerSecondaryId)]), isNull(insurances.deletedAt))),
    identifier === null ? ctx.db.select({ id: patients.id }).from(patients).where(sql`0`) : identifierTakenQuery(ctx, identifier, patientId, sql`${stored(patients.patientIdentifier)} is not ${identifier}`),
    primaryUncoveredQuery(ctx, patientId, sentPrimary?.insurerId ?? null, sentPrimary === null ? sql`0` : sql`${stored(patients.insurerId)} is not ${sentPrimary.insurerId}`),
  ] as const;
  type Results = BatchResponse<[...typeof statements]>;
  /** The read-ahead, once the batch answered and the stored client is known. */
  const answer = ([locationRows, members, parentRows, insurerRows, taken, uncovered]: Results, current: PatientJson): ReadAhead => ({
    locationIds: [sentLocation, current.location_id].filter((x): x is number => x !== null),
    locations: locationRows.map((l) => ({ id: l.id, timeZone: l.timeZone })),
    staffIds: [...sentStaff, ...STAFF_FIELDS.map(([name]) => current[name]).filter((x): x is number => typeof x === "number")],
    members,
    parentIds: [sentParent, current.parent_id].filter((x): x is number => x !== null),
    parents: parentRows,
    insurerIds: [...sentInsurers, current.insurer_id, current.insurer_secondary_id].filter((x): x is number => x !== null),
    insurers: insurerRows,
    identifier,
    identifierTaken: taken.length > 0,
    // Read only when the sent primary insurer differs from the stored one (none read otherwise: nothing changes).
    primary: sentPrimary && sentPrimary.insurerId !== current.insurer_id ? { insurerId: sentPrimary.insurerId, uncovered } : null,
  });
  return { statements, answer };
}

/**
 * Checks that need the database: location in scope, staff of that location, parent and insurers exist, identifier
 * unique. `ahead`: what an update's read batch already read (referenceReads).
 */
async function checkReferences(ctx: ModelContext, input: PatientInput, selfId: number | null, current?: PatientJson, ahead?: ReadAhead): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  const [loc] = ahead?.locationIds.includes(input.location_id)
    ? ahead.locations.filter((l) => l.id === input.location_id)
    : await ctx.db.select({ id: locations.id, timeZone: locations.timeZone }).from(locations).where(and(eq(locations.id, input.location_id), isNull(locations.deletedAt)));
  if (!loc || !canSeeLocation(ctx.actor, input.location_id)) errors.location_id = "Choose one of your locations.";
  // A birth date (the client's, the parent's) after today at the client's location is refused when the save sets it;
  // a stored one is kept as it is.
  const today = todayAtLocation(ctx.now(), loc?.timeZone ?? "UTC");
  for (const { name, label } of BIRTH_DATE_FIELDS) {
    if (isFutureDate(input[name] as string | null, today) && current?.[name] !== input[name]) errors[name] = MESSAGES.futureDate(label);
  }
  // A staff link the save does not change is kept as it is, even once that employee has left the client's
  // location or was made inactive (an edit must not fail on a link the user did not touch, as for the parent
  // below); a new link, and every link of a client who moves, must be an active employee of the client's location
  // (choosableStaff, decision 037 stop 31).
  const changed = STAFF_FIELDS.map(([name]) => name).filter((name) => !current || current.location_id !== input.location_id || current[name] !== input[name]);
  const staffIds = changed.map((name) => input[name]).filter((x): x is number => typeof x === "number");
  if (staffIds.length) {
    const readAhead = ahead && ahead.locationIds.includes(input.location_id) && staffIds.every((s) => ahead.staffIds.includes(s));
    const members = readAhead
      ? ahead.members.filter((m) => m.locationId === input.location_id && staffIds.includes(m.id))
      : await ctx.db
          .select({ id: userLocations.userId, choosable: isChoosableStaff() })
          .from(userLocations)
          .innerJoin(users, eq(users.id, userLocations.userId))
          .where(and(eq(userLocations.locationId, input.location_id), inArray(userLocations.userId, staffIds), isNull(users.deletedAt)));
    const member = new Map(members.map((m) => [m.id, Boolean(m.choosable)]));
    for (const name of changed) {
      const staffId = input[name];
      if (typeof staffId !== "number") continue;
      if (!member.has(staffId)) errors[name] = "Choose an employee of the client's location.";
      else if (!member.get(staffId)) errors[name] = INACTIVE_STAFF;
    }
  }
  if (input.parent_id !== null) {
    // A parent of a location the actor cannot see is one they cannot name: the same answer as a missing one.
    const parentId = input.parent_id;
    const [p] = ahead?.parentIds.includes(parentId)
      ? ahead.parents.filter((x) => x.id === parentId)
      : await ctx.db.select({ id: parents.id, locationId: parents.locationId }).from(parents).where(and(eq(parents.id, parentId), isNull(parents.deletedAt)));
    // A link already stored is kept as it is (an edit of another field must not fail on it).
    const kept = current?.parent_id === input.parent_id;
    if (!p || (!kept && p.locationId !== null && !canSeeLocation(ctx.actor, p.locationId))) errors.parent_id = "Choose a parent from the list.";
  }
  const insurerNames = new Map<number, string>();
  for (const name of INSURER_FIELDS) {
    const insurerId = input[name];
    // An insurer link the save does not change is kept, even once that insurer was deleted (decision 017, stop 33).
    if (insurerId === null || current?.[name] === insurerId) continue;
    const [i] = ahead?.insurerIds.includes(insurerId)
      ? ahead.insurers.filter((x) => x.id === insurerId)
      : await ctx.db.select({ id: insurances.id, name: insurances.name }).from(insurances).where(and(eq(insurances.id, insurerId), isNull(insurances.deletedAt)));
    if (!i) errors[name] = "Choose an insurer from the list.";
    else insurerNames.set(insurerId, i.name);
  }
  // A new primary insurer (or none) must cover every CPT of the client's PA services that name no insurer: their notes
  // are billed to it (decision 031, stops 44 and 45). A client being created has no PA service yet.
  if (current && selfId !== null && input.insurer_id !== current.insurer_id && !errors.insurer_id) {
    const primary = input.insurer_id;
    const uncovered = ahead?.primary && ahead.primary.insurerId === primary ? ahead.primary.uncovered : await primaryUncoveredQuery(ctx, selfId, primary);
    if (uncovered.length) errors.insurer_id = primaryLeavesPaUncovered(primary === null ? null : (insurerNames.get(primary) ?? "The new primary insurer"), uncovered);
  }
  // The secondary insurer must be another insurer than the primary; a pair stored so and kept as it is passes.
  const samePair = errors.insurer_secondary_id ? null : insurerPairRefusal(input, current ?? null);
  if (samePair) errors.insurer_secondary_id = samePair;
  // A new identifier (a create, or an edit that changes it): no invisible character, and not one a live client has
  // in any letter case (or any client exactly: the unique index). A stored one is kept as it is.
  if (!current || current.patient_identifier !== input.patient_identifier) {
    const refusal = identifierRefusal(input.patient_identifier);
    if (refusal) errors.patient_identifier = refusal;
    else if (ahead?.identifier === input.patient_identifier ? ahead.identifierTaken : (await identifierTakenQuery(ctx, input.patient_identifier, selfId)).length > 0) errors.patient_identifier = IDENTIFIER_IN_USE;
  }
  return errors;
}

const DETAIL_KEYS = [...DETAIL_FIELDS, "pa_assessments"];

/**
 * The details an update leaves as they are (decision 017, stop 31): a field a PATCH (`partial`) does not send, and one
 * the body sends back as the API read it (an echo: null, a list in its stored order). The parse reads a null flag as
 * false, a null list as [] and puts a list in its options' order: written back, those would change what nobody changed.
 */
function keptDetails(body: Record<string, unknown>, current: PatientJson, partial: boolean): (name: string) => boolean {
  return (name) => (Object.hasOwn(body, name) ? JSON.stringify(body[name]) === JSON.stringify(current[name]) : partial);
}

/**
 * A save's columns. The details are `stored` (parsed from the row) with the parsed value of every field `kept` does
 * not keep put over it, so a kept field stays byte for byte; a create keeps none.
 */
function values(input: PatientInput, stored: Record<string, unknown> = {}, kept: (name: string) => boolean = () => false) {
  const details = { ...stored, ...Object.fromEntries(DETAIL_KEYS.filter((name) => !kept(name)).map((name) => [name, input[name] ?? null])) };
  return {
    patientIdentifier: input.patient_identifier,
    firstName: input.first_name,
    lastName: input.last_name,
    status: input.status,
    gender: input.gender === null ? null : Number(input.gender),
    birthDate: input.birth_date,
    locationId: input.location_id,
    parentId: input.parent_id,
    insurerId: input.insurer_id,
    insurerSecondaryId: input.insurer_secondary_id,
    rbtHomeId: input.rbt_home_id,
    rbt2SchoolId: input.rbt2_school_id,
    bcbaHomeId: input.bcba_home_id,
    bcbaSchoolId: input.bcba_school_id,
    bcba2SchoolId: input.bcba2_school_id,
    clinDirectorId: input.clin_director_id,
    caseManagerId: input.case_manager_id,
    details: JSON.stringify(details),
  };
}

/** The field name of each column a save writes (values), for its audit row. */
const COLUMN_NAMES: Record<Exclude<keyof ReturnType<typeof values>, "details">, string> = {
  patientIdentifier: "patient_identifier",
  firstName: "first_name",
  lastName: "last_name",
  status: "status",
  gender: "gender",
  birthDate: "birth_date",
  locationId: "location_id",
  parentId: "parent_id",
  insurerId: "insurer_id",
  insurerSecondaryId: "insurer_secondary_id",
  rbtHomeId: "rbt_home_id",
  rbt2SchoolId: "rbt2_school_id",
  bcbaHomeId: "bcba_home_id",
  bcbaSchoolId: "bcba_school_id",
  bcba2SchoolId: "bcba2_school_id",
  clinDirectorId: "clin_director_id",
  caseManagerId: "case_manager_id",
};

/**
 * The fields of a client whose new values its update's audit row shows (decision 019, stop 43): its location, status,
 * parent, insurers and the staff assigned to it, all ids or a status, never the client's own data.
 */
const PATIENT_SHOWN = ["location_id", "status", "parent_id", "insurer_id", "insurer_secondary_id", ...STAFF_FIELDS.map(([name]) => name)];

/** What an update changes of a client, for its audit row: its name, identifier, dates and clinical details by name only. */
function patientChange(row: Row, written: ReturnType<typeof values>) {
  const storedDetails = parseDetails(row.details);
  const writtenDetails = parseDetails(written.details);
  const columns = Object.entries(COLUMN_NAMES) as [keyof typeof COLUMN_NAMES, string][];
  const before = { ...Object.fromEntries(columns.map(([key, name]) => [name, row[key]])), ...Object.fromEntries(DETAIL_KEYS.map((k) => [k, storedDetails[k]])) };
  const after = { ...Object.fromEntries(columns.map(([key, name]) => [name, written[key]])), ...Object.fromEntries(DETAIL_KEYS.map((k) => [k, writtenDetails[k]])) };
  return changeDetail(before, after, PATIENT_SHOWN);
}

/** A stored client as schema input (for a PATCH merge or the edit form). */
export function patientAsInput(p: PatientJson): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of [...COLUMN_FIELDS, ...DETAIL_FIELDS]) out[name] = p[name];
  out.gender = p.gender === null ? null : String(p.gender);
  out.pa_assessments = p.pa_assessments;
  return out;
}

/**
 * The next id of a table (so the audit row of a create names the record; a racing insert fails on the key
 * and is retried). Read on the primary: a replica may not have the racing row yet (decision 022).
 */
export async function nextId(ctx: ModelContext, table: AnySQLiteTable & { id: AnySQLiteColumn }): Promise<number> {
  const [row] = await primaryOf(ctx.db).select({ n: nextIdOf(table) }).from(table);
  return Number(row?.n ?? 1);
}

export function isKeyRace(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    if (/UNIQUE constraint failed: \w+\.id\b/.test(String((x as Error).message ?? x))) return true;
  }
  return false;
}

/**
 * Runs a create with the table's next id, so that its audit row names the new record (decision 019), and again
 * with a fresh id when a racing insert took that one. `create` inserts with that id, in the batch of its audit row;
 * `tail` is the audit chain's tail, read with the id (pass it to withAudit), so the id costs no round trip of its own.
 */
export async function withNextId<R>(ctx: ModelContext, table: AnySQLiteTable & { id: AnySQLiteColumn }, create: (id: number, tail: string | null) => Promise<R>): Promise<R> {
  for (let attempt = 0; ; attempt++) {
    const [row] = await primaryOf(ctx.db).select({ n: nextIdOf(table), tail: auditTail }).from(table);
    try {
      return await create(Number(row?.n ?? 1), row?.tail ?? null);
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/** The same Idempotency-Key sent before with another client (422). */
export const PATIENT_KEY_REUSED = idempotencyKeyReused("client");

/** What a resend of the add form answers when its client is gone from the actor's sight (decision 024, stop 39). */
export const PATIENT_FORM_USED = "This form was already used. Open the add form again to add another client.";

/**
 * A resend of a create: the client the form's one-time token added, in the actor's scope now, with the first answer's
 * message; null when the token added none (the refusal stands). Read only after a refusal, so a first send costs no
 * round trip.
 */
async function replayPatient(ctx: ModelContext, formToken: string): Promise<ModelResult<PatientJson> | null> {
  const [sent] = await primaryOf(ctx.db).select({ id: patients.id }).from(patients).where(eq(patients.formToken, formToken));
  if (!sent && keyScope(formToken)) {
    // An Idempotency-Key whose scope holds another body's client: the key was reused.
    const [other] = await primaryOf(ctx.db).select({ id: patients.id }).from(patients).where(tokenMatch(patients.formToken, formToken));
    if (other) return invalid({ form: PATIENT_KEY_REUSED });
  }
  if (!sent) return null;
  const found = await findPatient({ ...ctx, db: primaryOf(ctx.db) }, sent.id);
  return found ? replayedOk(found, "Client created.") : invalid({ form: PATIENT_FORM_USED });
}

/**
 * Adds a client. `formToken` (the add form's one-time token) is stored with it: a resend of the same form, which
 * its identifier refuses ("already in use") or the UNIQUE indexes refuse in a race, answers the client the first send
 * added (decision 024, stop 39).
 */
export async function createPatient(ctx: ModelContext, raw: Record<string, unknown>, opts: { formToken?: string | null } = {}): Promise<ModelResult<PatientJson>> {
  const formToken = oneTimeToken(opts.formToken);
  const elsewhere = fieldsSetElsewhere(raw, PATIENT_SET_ELSEWHERE);
  if (elsewhere) return invalid(elsewhere);
  const parsed = parsePatient(raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const errors = await checkReferences(ctx, parsed.data, null);
  if (Object.keys(errors).length) return (formToken && errors.patient_identifier === IDENTIFIER_IN_USE && (await replayPatient(ctx, formToken))) || invalid(errors);
  for (let attempt = 0; ; attempt++) {
    // An API create's Idempotency-Key (decision 024): any client of its scope, read with the next id. The same key and
    // body answers the client it added (200); the same key with another body is refused.
    const db = primaryOf(ctx.db);
    const [[next], byKey] = formToken && keyScope(formToken)
      ? await db.batch([db.select({ n: nextIdOf(patients) }).from(patients), db.select({ formToken: patients.formToken }).from(patients).where(tokenMatch(patients.formToken, formToken))])
      : [await db.select({ n: nextIdOf(patients) }).from(patients), []];
    if (byKey.length) return byKey.some((r) => r.formToken === formToken) ? ((await replayPatient(ctx, formToken!)) ?? invalid({ form: PATIENT_FORM_USED })) : invalid({ form: PATIENT_KEY_REUSED });
    const newId = Number(next?.n ?? 1);
    try {
      const [rows] = await withAudit(ctx.db, who(ctx), { action: "create", entity: "patient", entityId: newId, patientId: newId }, () => [
        ctx.db
          .insert(patients)
          .values({ id: newId, ...values(parsed.data), formToken })
          .returning(zonedPatient),
        bumpListVersion(ctx.db, PATIENTS),
      ]);
      return ok(patientJson(rows[0]!, ctx.now()), "Client created.");
    } catch (e) {
      // A racing resend of the same form landed first (its token, or its identifier, is taken now).
      const replay = formToken && /UNIQUE constraint failed: patients\.(form_token|patient_identifier)/.test(errorText(e)) ? await replayPatient(ctx, formToken) : null;
      if (replay) return replay;
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/** The client in the actor's scope with the audit chain's tail (withAudit's `tail`), as a statement. */
function forChangeQuery(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select({ p: zonedPatient, tail: auditTail })
    .from(patients)
    .where(and(eq(patients.id, patientId), patientScope(ctx)));
}

export async function updatePatient(ctx: ModelContext, patientId: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<PatientJson>> {
  // One read batch (the client with the audit tail, and what checkReferences needs for the ids the body names and the
  // stored ones), then the write batch, which reads the client back: two round trips (decision 043, stop 37).
  const refs = referenceReads(ctx, patientId, raw);
  const [[found], ...referenceRows] = await ctx.db.batch([forChangeQuery(ctx, patientId), ...refs.statements]);
  if (!found) return notFound("Client");
  const row = found.p;
  const current = patientJson(row, ctx.now());
  const elsewhere = fieldsSetElsewhere(raw, PATIENT_SET_ELSEWHERE);
  if (elsewhere) return invalid(elsewhere);
  if (namesNoField(raw, PATIENT_INPUT_FIELDS)) return nothingToChange();
  // A principal diagnosis code stored before today's rule stays while the save leaves it as it is (not sent by a
  // PATCH, or sent back unchanged): it is kept byte for byte (keptDetails), and only a new code is checked
  // (decision 017; the scrubber names the stored one).
  const keepsCode = !isDiagnosisCodeText(current.diagnosis_code) && keptDetails(raw, current, opts.partial)("diagnosis_code");
  const unchecked = keepsCode ? { diagnosis_code: null } : {};
  const parsed = parsePatient({ ...raw, ...unchecked }, opts.partial ? { ...patientAsInput(current), ...unchecked } : null, current);
  if (!parsed.ok) return invalid(parsed.errors);
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  // The secondary codes lose a repeat of the principal code whenever either changes (probe 8975 §3): a stored list the
  // save does not change is kept byte for byte unless it holds the principal code; then the parsed list (without it,
  // secondaryWithoutRepeats) is written.
  const kept = keptDetails(raw, current, opts.partial);
  const principal = parsed.data.diagnosis_code;
  const storedSecondary: unknown = current.secondary_diagnosis_codes;
  const repeatsPrincipal = !!principal && Array.isArray(storedSecondary) && storedSecondary.some((c) => typeof c === "string" && c.trim().toUpperCase() === principal);
  const keepsStored = (name: string) => kept(name) && !(name === "secondary_diagnosis_codes" && repeatsPrincipal);
  const moved = parsed.data.location_id !== current.location_id;
  const deactivated = parsed.data.status === "inactive" && current.status !== "inactive";
  const to = parsed.data.location_id;
  const unfit = deactivated ? "client_inactive" : moved ? "client_moved" : null;
  const written = values(parsed.data, parseDetails(row.details), keepsStored);
  const change = patientChange(row, written);
  // A save that leaves every field as stored writes nothing and keeps the version (decision 017, stop 44).
  if (changesNoField(change)) return nothingToChange(current);
  const errors = await checkReferences(ctx, parsed.data, patientId, current, refs.answer(referenceRows, current));
  if (Object.keys(errors).length) return invalid(errors);
  const entry = { action: "update", entity: "patient", entityId: patientId, patientId, detail: { ...change, ...(unfit ? unfitDetail(unfit) : {}) } };
  const [rows, , cancelled, [after]] = await withAudit(ctx.db, who(ctx), entry, () => [
    ctx.db
      .update(patients)
      .set({ ...written, version: sql`${patients.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(
        and(
          eq(patients.id, patientId),
          isNull(patients.deletedAt),
          opts.version === null ? undefined : eq(patients.version, opts.version),
          // A PA service with no insurer added meanwhile that the new primary insurer does not cover: nothing written (a 409).
          parsed.data.insurer_id === current.insurer_id ? undefined : sql`not exists (select 1 from pa_services ps where ${primaryUncoveredSql(patientId, parsed.data.insurer_id)})`,
        ),
      )
      .returning(zonedPatient),
    // Every cached list moves with it (a client's name, location and records show on many lists): decision 017.
    bumpListVersion(ctx.db, PATIENTS),
    // Their future bookings were the old location's (its provider, its zone): cancelled, to be booked again there.
    // A client made inactive is not seen any more: every future booking is cancelled (decision 037, stop 30).
    cancelUnfitBookings(
      ctx,
      deactivated
        ? eq(scheduledSessions.patientId, patientId)
        : moved
        ? and(eq(scheduledSessions.patientId, patientId), sql`${scheduledSessions.locationId} <> ${to}`, sql`(select ${patients.locationId} from ${patients} where ${patients.id} = ${patientId}) = ${to}`)!
        : sql`0`,
    ),
    // The client as the batch leaves it (saved, or as another save left it): answers a 409 without a further read.
    forChangeQuery(ctx, patientId),
  ], found.tail);
  if (!rows[0]) return conflict(after ? patientJson(after.p, ctx.now()) : current);
  return ok(patientJson(rows[0], ctx.now()), withCancelledCount("Client updated.", cancelledCount(cancelled)));
}

export async function updatePatientStatus(ctx: ModelContext, patientId: number, raw: Record<string, unknown>): Promise<ModelResult<PatientJson>> {
  const current = await findPatient(ctx, patientId);
  if (!current) return notFound("Client");
  const parsed = parseWith(PatientStatusInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  // The status it has already writes nothing, as every update that leaves a record as stored (decision 017, stop 45).
  if (parsed.data.status === current.status) return nothingToChange(current);
  const deactivated = parsed.data.status === "inactive";
  const entry = { action: "status", entity: "patient", entityId: patientId, patientId, ...(deactivated ? { detail: unfitDetail("client_inactive") } : {}) };
  const [rows, , cancelled] = await withAudit(ctx.db, who(ctx), entry, () => [
    ctx.db
      .update(patients)
      .set({ status: parsed.data.status, version: sql`${patients.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(patients.id, patientId), isNull(patients.deletedAt)))
      .returning(zonedPatient),
    bumpListVersion(ctx.db, PATIENTS),
    // A client made inactive keeps no future bookings (decision 037, stop 30), as new bookings refuse them.
    cancelUnfitBookings(ctx, deactivated ? and(eq(scheduledSessions.patientId, patientId), sql`exists (select 1 from ${patients} where ${patients.id} = ${patientId} and ${patients.deletedAt} is null)`)! : sql`0`),
  ]);
  if (!rows[0]) return notFound("Client");
  return ok(patientJson(rows[0], ctx.now()), withCancelledCount("Status updated.", cancelledCount(cancelled)));
}

/** Soft delete; the client's future bookings are cancelled with it (decision 037, 2026-11-27). */
export async function deletePatient(ctx: ModelContext, patientId: number): Promise<ModelResult<null>> {
  const current = await findPatient(ctx, patientId);
  if (!current) return notFound("Client");
  const [, , cancelled] = await withAudit(ctx.db, who(ctx), { action: "delete", entity: "patient", entityId: patientId, patientId, detail: unfitDetail("client_deleted") }, () => [
    ctx.db.update(patients).set({ deletedAt: ctx.now().toISOString() }).where(eq(patients.id, patientId)),
    bumpListVersion(ctx.db, PATIENTS),
    cancelUnfitBookings(ctx, eq(scheduledSessions.patientId, patientId)),
  ]);
  return ok(null, withCancelledCount("Client deleted.", cancelledCount(cancelled)));
}

/**
 * The client form's options as statements, to ride in one batch (or the batch of an audit row): the
 * locations the actor can see, the insurers, and the staff of `locationId` when it is one of those
 * locations (else of every one of them, one labelled group per location: the add form before a location is
 * chosen). A refused edit that chose another location is shown again with that location's staff (decision 017, stop 33).
 * The parents are read before (their read's audit row names them): turn both into options with
 * patientFormOptionsFrom.
 */
export function patientFormOptionReads(ctx: ModelContext, locationId: number | null, client: PatientJson | null = null) {
  const visible = sql`(select "id" from ${locationOptionsQuery(ctx)})`;
  const staff = assignableStaffQuery(
    ctx,
    and(sql`${userLocations.locationId} in ${visible}`, locationId === null ? undefined : sql`(${userLocations.locationId} = ${locationId} or ${locationId} not in ${visible})`),
    client,
  );
  // Every location's staff (no location chosen) stops at STAFF_OPTIONS_MAX + 1 rows: past it the form asks for the
  // location first (decision 043's rule for staff selects), as seven selects of thousands of staff would be megabytes.
  const capped = locationId === null ? staff.limit(STAFF_OPTIONS_MAX + 1) : staff;
  const reads: [ReturnType<typeof locationOptionsQuery>, ReturnType<typeof insuranceOptionsQuery>, typeof capped] = [locationOptionsQuery(ctx), insuranceOptionsQuery(ctx), capped];
  return reads;
}

type FormOptionRows = BatchResponse<ReturnType<typeof patientFormOptionReads>>;
type ParentOption = { id: number; name: string; surname: string; email: string };

/** The options of the client form from the results of patientFormOptionReads and the parents read. */
export function patientFormOptionsFrom(ctx: ModelContext, locationId: number | null, [locs, insurers, staffRows]: FormOptionRows, parentList: readonly ParentOption[], client: PatientJson | null = null) {
  const shown = locationId !== null && locs.some((l) => l.id === locationId) ? locs.filter((l) => l.id === locationId) : locs;
  const byLocation: Record<number, StaffOption[]> = {};
  // A stored employee listed marked (not at the client's location) is not offered again, unmarked, in the fields
  // that store them, when the form also lists the location where they do work.
  const marked = new Set(staffRows.filter((r) => r.gone).map((r) => r.id));
  const besides = (id: number) => STAFF_FIELDS.map(([field]) => field).filter((field) => client?.[field] !== id);
  for (const r of staffRows) (byLocation[r.locationId] ??= []).push(!r.gone && marked.has(r.id) ? { ...staffOptionOf(r, client), only: besides(r.id) } : staffOptionOf(r, client));
  const tooManyStaff = shown.length > 1 && staffRows.length > STAFF_OPTIONS_MAX;
  return {
    locations: locs,
    parents: parentList.map((p) => ({ id: p.id, name: parentOptionLabel(p, canReadParents(ctx.actor)) })),
    insurers: insurers.map((i) => ({ id: i.id, name: i.name })),
    staff: tooManyStaff ? [] : shown.map((l) => ({ label: l.title, options: byLocation[l.id] ?? [] })),
    tooManyStaff,
  };
}

/**
 * The client form's options (the add screen): one batch, then the read recorded before it is answered. The
 * parent select lists up to 500 parents with names and emails: a read of parents, recorded as the parents
 * list records its read (entity parent, their ids in `detail.parents`; decision 019). `tail`: read with the
 * session. No parent listed, no row.
 */
export async function patientFormOptions(ctx: ModelContext, locationId: number | null, tail?: KnownTail) {
  const [parentList, ...rows] = await ctx.db.batch([parentOptionsQuery(ctx), ...patientFormOptionReads(ctx, locationId)]);
  await auditClientsRead(ctx.db, who(ctx), "parent", clientIds(parentList, (p) => p.id), tail, "parents");
  return patientFormOptionsFrom(ctx, locationId, rows, parentList);
}

/**
 * The client editor: the client in scope with the tail, the parents the select offers and how many future sessions
 * deleting the client would cancel (its confirm step says so, probe 8972) (one statement),
 * then the other options in the batch of the read's audit row, which names the client and, in
 * `detail.parents`, the parents listed: session + record + batch = 3 round trips, one row (decision 019).
 */
export async function getPatientForm(ctx: ModelContext, patientId: number, staffAt: number | null = null) {
  const [row] = await ctx.db
    .select({
      p: zonedPatient,
      tail: auditTail,
      parents: jsonRows<ParentOption>(parentOptionsQuery(ctx), ["id", "name", "surname", "email"]),
      linked: linkedParentColumn,
      goneInsurers: goneInsurersColumn,
      futureSessions: futureBookingsOfClientCount(ctx, patientId),
    })
    .from(patients)
    .where(and(eq(patients.id, patientId), patientScope(ctx)));
  if (!row) return null;
  const patient = patientJson(row.p, ctx.now());
  // The stored parent stays in the select (an untouched save keeps the link, decision 017 stop 33), also when the list
  // leaves them out: named when the editor may see them, else LINKED_PARENT_ELSEWHERE, and not recorded as read.
  const linked = row.linked[0] && !row.parents.some((p) => p.id === row.linked[0]!.id) ? row.linked[0] : null;
  const linkedSeen = linked && canSeeParent(ctx, linked) ? linked : null;
  // json_group_array does not promise its input's order: the select's order (by name) again.
  const parentList = [...row.parents, ...(linkedSeen ? [linkedSeen] : [])].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
  const parentIds = clientIds(parentList, (p) => p.id);
  const entry = { entity: "patient", entityId: row.p.id, patientId: row.p.id, detail: parentIds.length ? clientsReadEntry("parent", parentIds, "parents").detail : null };
  // The staff of the client's location, or of `staffAt` (the location a refused save chose: the form re-shown
  // offers its staff, so a client can be moved with new staff, probe 8963 D3; the save still checks them). Every
  // location's staff at once would be hundreds of kilobytes of options at a large clinic.
  const at = staffAt ?? patient.location_id;
  const rows = await auditedRead(ctx.db, who(ctx), entry, () => patientFormOptionReads(ctx, at, patient), row.tail);
  const options = patientFormOptionsFrom(ctx, at, rows, parentList, patient);
  // A stored insurer that was deleted stays in the fields that store it, marked, so an untouched save keeps it.
  const insurers = [...options.insurers, ...row.goneInsurers.map((i) => ({ id: i.id, name: deletedInsurerLabel(i.name), only: INSURER_FIELDS.filter((f) => patient[f] === i.id) }))];
  const parentOptions = linked && !linkedSeen ? [...options.parents, { id: linked.id, name: LINKED_PARENT_ELSEWHERE }] : options.parents;
  return { patient, options: { ...options, parents: parentOptions, insurers }, futureSessions: row.futureSessions };
}

/** The deleted insurers the client's stored links name, as a JSON column of a select from patients. */
const goneInsurersColumn = jsonRows<{ id: number; name: string }>(
  sql`(select "id", "name" from "insurances" where "id" in ("patients"."insurer_id", "patients"."insurer_secondary_id") and "deleted_at" is not null)`,
  ["id", "name"],
);

/** The client's stored parent with their location, as a JSON column of a select from patients (at most one row). */
const linkedParentColumn = jsonRows<ParentOption & { location_id: number | null }>(sql`(select "id", "name", "surname", "email", "location_id" from "parents" where "id" = "patients"."parent_id")`, [
  "id",
  "name",
  "surname",
  "email",
  "location_id",
]);

/** Whether the actor may see the parent (parentOptionsQuery's rule): one of no location or of a location they see. */
const canSeeParent = (ctx: ModelContext, p: { location_id: number | null }) => p.location_id === null || canSeeLocation(ctx.actor, p.location_id);

const fullName = (p: { name: string; surname: string }) => `${p.name} ${p.surname}`.trim();

/**
 * The client profile: the record, the names behind its ids (location, parent, assigned staff), the
 * insurers for the PA form and the chain's tail in ONE statement (correlated JSON subqueries; they name
 * "patients" in plain SQL because drizzle leaves a single-table select's columns unqualified), then the
 * audited read. The names have the shape of patientFormOptions.
 */
/**
 * The client profile: the record with its option names (and the audit tail), then its read recorded.
 * `alsoRead`: more reads of this client's data (built in scope) that ride in the batch of the audit row
 * and come back in `also`: one round trip for both (decision 019).
 */
export async function getPatientProfile<T extends BatchItem<"sqlite">[] = []>(ctx: ModelContext, patientId: number, alsoRead: () => [...T] = () => [] as unknown as [...T]) {
  const staffColumns = sql.raw(STAFF_FIELDS.map(([name]) => `"patients"."${name}"`).join(", "));
  const [row] = await ctx.db
    .select({
      p: zonedPatient,
      tail: auditTail,
      location: jsonRows<{ id: number; title: string }>(sql`(select "id", "title" from "locations" where "id" = "patients"."location_id")`, ["id", "title"]),
      parent: linkedParentColumn,
      staff: jsonRows<Named>(sql`(select "id", "name", "surname" from "users" where "id" in (${staffColumns}))`, ["id", "name", "surname"]),
      insurers: insurerOptionsColumn(ctx),
      goneInsurers: goneInsurersColumn,
    })
    .from(patients)
    .where(and(eq(patients.id, patientId), patientScope(ctx)));
  if (!row) return null;
  const also = await auditedRead(ctx.db, who(ctx), { entity: "patient", entityId: row.p.id, patientId: row.p.id }, alsoRead, row.tail);
  return {
    also,
    patient: patientJson(row.p, ctx.now()),
    options: {
      locations: row.location,
      // Without view_parents only that a parent account is linked (decision 007, stop 40); with it, a parent at a
      // location the reader cannot see is not named either.
      parents: row.parent.map((p) => ({ id: p.id, name: !canReadParents(ctx.actor) ? LINKED_PARENT_NOT_SHOWN : canSeeParent(ctx, p) ? parentOptionLabel(p, true) : LINKED_PARENT_ELSEWHERE })),
      insurers: row.insurers,
      /** The client's stored insurers that were deleted, named so (for the profile's names, not to be chosen). */
      deletedInsurers: row.goneInsurers.map((i) => ({ id: i.id, name: deletedInsurerLabel(i.name) })),
      staff: [{ label: row.location[0]?.title ?? "", options: row.staff.map((s) => ({ id: s.id, name: fullName(s) })) }],
    },
  };
}

/**
 * The id of a client in scope by patient identifier (no audit row: the profile it leads to records the read): the
 * client with exactly that identifier, else the only one whose identifier differs from it only in letter case. Two
 * such clients (stored before the duplicate check ignored case) answer null, as none does (decision 017, stop 33).
 */
export async function findPatientIdByIdentifier(ctx: ModelContext, identifier: string): Promise<number | null> {
  const [row] = await ctx.db.select({ id: patients.id }).from(patients).where(and(eq(patients.patientIdentifier, identifier), patientScope(ctx)));
  return row?.id ?? (await onlyMatchAnyCase(ctx, identifier));
}

/**
 * The client settings screen (platform §2 patients/setting): the record (an audited read) and the
 * employees of the client's location to assign.
 */
export async function getPatientSettings(ctx: ModelContext, patientId: number) {
  // The staff of the client's location ride in the batch of the read's audit row.
  const read = await getPatientWith(ctx, patientId, (p) => [assignableStaffQuery(ctx, eq(userLocations.locationId, p.location_id), p)]);
  if (!read) return null;
  const [staff] = read.also;
  return { patient: read.patient, staff: staff.map((s) => staffOptionOf(s, read.patient)) };
}

/**
 * Changes only the staff assignments (the settings screen): the other fields stay as stored. Same rules as
 * a full update: each assignee must work at the client's location; a stale version answers 409.
 */
export async function updatePatientStaff(ctx: ModelContext, patientId: number, raw: Record<string, unknown>, opts: { version: number | null }): Promise<ModelResult<PatientJson>> {
  const staff = Object.fromEntries(STAFF_FIELDS.map(([name]) => [name, raw[name] ?? ""]));
  return updatePatient(ctx, patientId, staff, { partial: true, version: opts.version });
}

/** One row of a client's log report: an audit row with the name of who acted. */
export interface PatientLogRow {
  id: number;
  at: string;
  actor_type: string;
  actor_id: number | null;
  actor_name: string | null;
  action: string;
  entity: string;
  entity_id: string | null;
  ip: string | null;
}

/**
 * The client's log report (platform §2 patients/ws): the audit rows that name the client, newest first,
 * paginated. Null when the client is out of scope. Looking at the report is itself recorded (entity
 * "patient_log"), after the page is read, so the page shows what happened before this look.
 */
export async function patientLogReport(ctx: ModelContext, patientId: number, query: ListQuery): Promise<{ patient: PatientJson; page: Paged<PatientLogRow> } | null> {
  const inScope = and(eq(patients.id, patientId), patientScope(ctx));
  const [[head], rows] = await ctx.db.batch([
    ctx.db
      .select({ p: zonedPatient, tail: auditTail, n: sql<number>`(select count(*) from "audit_log" where "patient_id" = "patients"."id")`.mapWith(Number) })
      .from(patients)
      .where(inScope),
    ctx.db
      .select({
        a: auditLog,
        actorName: sql<string | null>`case ${auditLog.actorType} when 'user' then (select trim(u.name || ' ' || u.surname) from users u where u.id = ${auditLog.actorId}) when 'parent' then (select trim(pa.name || ' ' || pa.surname) from parents pa where pa.id = ${auditLog.actorId}) end`,
      })
      .from(auditLog)
      .innerJoin(patients, and(eq(patients.id, auditLog.patientId), inScope))
      .orderBy(desc(auditLog.id))
      .limit(query.per_page)
      .offset(offset(query)),
  ]);
  if (!head) return null;
  await auditRead(ctx.db, who(ctx), { entity: "patient_log", entityId: patientId, patientId }, head.tail);
  const data = rows.map(({ a, actorName }) => ({
    id: a.id,
    at: a.at,
    actor_type: a.actorType,
    actor_id: a.actorId,
    actor_name: actorName,
    action: a.action,
    entity: a.entity,
    entity_id: a.entityId,
    ip: a.ip,
  }));
  return { patient: patientJson(head.p, ctx.now()), page: paged(data, head.n, query) };
}
