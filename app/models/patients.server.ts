import { and, asc, count, eq, inArray, isNull, like, or, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import * as v from "valibot";
import { insurances, locations, parents, patients, userLocations, users } from "~/db/schema";
import { ageOn, COLUMN_FIELDS, DETAIL_FIELDS, PATIENT_STATUSES, PatientInput, PatientStatusInput, STAFF_FIELDS, type StaffField } from "~/domain/patients";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { parseWith } from "~/domain/validation";
import { withAudit, auditRead, type AuditWho } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { insuranceOptions } from "./insurances.server";
import { locationOptions } from "./locations.server";
import { conflict, invalid, notFound, ok, type ModelResult } from "./results";

/** Clients (clinical §3 Patient). Every read and write is limited to the actor's locations and audited. */

export const PATIENTS = "patients";
type Row = typeof patients.$inferSelect;

const STAFF_COLUMNS: Record<StaffField, SQLiteColumn> = {
  rbt_home_id: patients.rbtHomeId,
  rbt2_school_id: patients.rbt2SchoolId,
  bcba_home_id: patients.bcbaHomeId,
  bcba_school_id: patients.bcbaSchoolId,
  bcba2_school_id: patients.bcba2SchoolId,
  clin_director_id: patients.clinDirectorId,
  case_manager_id: patients.caseManagerId,
};

function parseDetails(raw: string): Record<string, unknown> {
  try {
    const x = JSON.parse(raw) as unknown;
    return x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

export function patientJson(r: Row, today = new Date().toISOString().slice(0, 10)) {
  const details = parseDetails(r.details);
  const known = Object.fromEntries(DETAIL_FIELDS.map((name) => [name, details[name] ?? null]));
  return {
    ...known,
    id: r.id,
    patient_identifier: r.patientIdentifier,
    first_name: r.firstName,
    last_name: r.lastName,
    full_name: `${r.firstName} ${r.lastName}`.trim(),
    status: r.status,
    gender: r.gender,
    birth_date: r.birthDate,
    age: ageOn(r.birthDate, today),
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
  return and(isNull(patients.deletedAt), scope.length ? inArray(patients.locationId, scope) : sql`1 = 0`)!;
}

const id = v.pipe(v.string(), v.regex(/^\d{1,15}$/, "Filters take a record id."), v.transform(Number));
export const PatientFilters = v.object({
  location_id: v.optional(v.union([v.literal(""), id]), ""),
  insurer_id: v.optional(v.union([v.literal(""), id]), ""),
  staff_id: v.optional(v.union([v.literal(""), id]), ""),
  parent_id: v.optional(v.union([v.literal(""), id]), ""),
  status: v.optional(v.union([v.literal(""), v.picklist(PATIENT_STATUSES, "Choose a status from the list.")]), ""),
});
export type PatientFilters = v.InferOutput<typeof PatientFilters>;

export async function listPatients(ctx: ModelContext, query: ListQuery, rawFilters: Record<string, unknown> = {}): Promise<ModelResult<Paged<PatientJson>>> {
  const picked = Object.fromEntries(Object.entries(rawFilters).filter(([k]) => k in PatientFilters.entries));
  const parsed = parseWith(PatientFilters, picked);
  if (!parsed.ok) return invalid(parsed.errors);
  const fl = parsed.data;
  const s = query.search;
  const where = and(
    patientScope(ctx),
    s ? or(like(patients.firstName, `%${s}%`), like(patients.lastName, `%${s}%`), like(sql`${patients.firstName} || ' ' || ${patients.lastName}`, `%${s}%`), like(patients.patientIdentifier, `%${s}%`)) : undefined,
    fl.location_id !== "" ? eq(patients.locationId, fl.location_id) : undefined,
    fl.insurer_id !== "" ? or(eq(patients.insurerId, fl.insurer_id), eq(patients.insurerSecondaryId, fl.insurer_id)) : undefined,
    fl.parent_id !== "" ? eq(patients.parentId, fl.parent_id) : undefined,
    fl.status !== "" ? eq(patients.status, fl.status) : undefined,
    fl.staff_id !== "" ? or(...Object.values(STAFF_COLUMNS).map((c) => eq(c, fl.staff_id as number))) : undefined,
    query.date_from ? sql`${patients.createdAt} >= ${query.date_from}` : undefined,
    query.date_to ? sql`${patients.createdAt} <= ${`${query.date_to}T23:59:59.999Z`}` : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    ctx.db.select().from(patients).where(where).orderBy(asc(patients.lastName), asc(patients.firstName), asc(patients.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(patients).where(where),
  ]);
  const today = ctx.now().toISOString().slice(0, 10);
  return ok(paged(rows.map((r) => patientJson(r, today)), total?.n ?? 0, query));
}

/** A client in scope, without an audit row (for checks inside other use cases). */
export async function findPatient(ctx: ModelContext, patientId: number): Promise<PatientJson | null> {
  const [row] = await ctx.db.select().from(patients).where(and(eq(patients.id, patientId), patientScope(ctx)));
  return row ? patientJson(row, ctx.now().toISOString().slice(0, 10)) : null;
}

/** A client record read (profile, show): in scope, and the read is audited. */
export async function getPatient(ctx: ModelContext, patientId: number): Promise<PatientJson | null> {
  const p = await findPatient(ctx, patientId);
  if (p) await auditRead(ctx.db, who(ctx), { entity: "patient", entityId: p.id, patientId: p.id });
  return p;
}

export async function getPatientByIdentifier(ctx: ModelContext, identifier: string): Promise<PatientJson | null> {
  const [row] = await ctx.db.select({ id: patients.id }).from(patients).where(and(eq(patients.patientIdentifier, identifier), patientScope(ctx)));
  return row ? getPatient(ctx, row.id) : null;
}

/** Active staff who work at the location (user_locations), for the assignment selects. */
export async function staffOptions(ctx: ModelContext, locationId: number) {
  return ctx.db
    .select({ id: users.id, name: users.name, surname: users.surname })
    .from(users)
    .innerJoin(userLocations, eq(userLocations.userId, users.id))
    .where(and(eq(userLocations.locationId, locationId), isNull(users.deletedAt)))
    .orderBy(asc(users.name), asc(users.surname));
}

/** Staff of every location the actor can see, keyed by location (for the add form, before a location is chosen). */
export async function staffByLocation(ctx: ModelContext, locationIds: number[]) {
  if (!locationIds.length) return {} as Record<number, { id: number; name: string }[]>;
  const rows = await ctx.db
    .select({ id: users.id, name: users.name, surname: users.surname, locationId: userLocations.locationId })
    .from(users)
    .innerJoin(userLocations, eq(userLocations.userId, users.id))
    .where(and(inArray(userLocations.locationId, locationIds), isNull(users.deletedAt)))
    .orderBy(asc(users.name), asc(users.surname));
  const out: Record<number, { id: number; name: string }[]> = {};
  for (const r of rows) (out[r.locationId] ??= []).push({ id: r.id, name: `${r.name} ${r.surname}`.trim() });
  return out;
}

export async function parentOptions(ctx: ModelContext) {
  const scope = locationScope(ctx.actor);
  const where = and(isNull(parents.deletedAt), scope === null ? undefined : or(isNull(parents.locationId), scope.length ? inArray(parents.locationId, scope) : sql`1 = 0`));
  const rows = await ctx.db.select({ id: parents.id, name: parents.name, surname: parents.surname, email: parents.email }).from(parents).where(where).orderBy(asc(parents.name)).limit(500);
  return rows.map((r) => ({ id: r.id, name: `${r.name} ${r.surname}`.trim(), email: r.email }));
}

/** Checks that need the database: location in scope, staff of that location, parent and insurers exist, identifier unique. */
async function checkReferences(ctx: ModelContext, input: PatientInput, selfId: number | null): Promise<Record<string, string>> {
  const errors: Record<string, string> = {};
  const [loc] = await ctx.db.select({ id: locations.id }).from(locations).where(and(eq(locations.id, input.location_id), isNull(locations.deletedAt)));
  if (!loc || !canSeeLocation(ctx.actor, input.location_id)) errors.location_id = "Choose one of your locations.";
  const staffIds = STAFF_FIELDS.map(([name]) => input[name]).filter((x): x is number => typeof x === "number");
  if (staffIds.length) {
    const members = await ctx.db
      .select({ id: userLocations.userId })
      .from(userLocations)
      .innerJoin(users, eq(users.id, userLocations.userId))
      .where(and(eq(userLocations.locationId, input.location_id), inArray(userLocations.userId, staffIds), isNull(users.deletedAt)));
    const ok = new Set(members.map((m) => m.id));
    for (const [name] of STAFF_FIELDS) {
      const staffId = input[name];
      if (typeof staffId === "number" && !ok.has(staffId)) errors[name] = "Choose an employee of the client's location.";
    }
  }
  if (input.parent_id !== null) {
    const [p] = await ctx.db.select({ id: parents.id }).from(parents).where(and(eq(parents.id, input.parent_id), isNull(parents.deletedAt)));
    if (!p) errors.parent_id = "Choose a parent from the list.";
  }
  for (const name of ["insurer_id", "insurer_secondary_id"] as const) {
    const insurerId = input[name];
    if (insurerId === null) continue;
    const [i] = await ctx.db.select({ id: insurances.id }).from(insurances).where(and(eq(insurances.id, insurerId), isNull(insurances.deletedAt)));
    if (!i) errors[name] = "Choose an insurer from the list.";
  }
  const [dup] = await ctx.db.select({ id: patients.id }).from(patients).where(eq(patients.patientIdentifier, input.patient_identifier));
  if (dup && dup.id !== selfId) errors.patient_identifier = "This patient identifier is already in use.";
  return errors;
}

function values(input: PatientInput) {
  const details = Object.fromEntries(DETAIL_FIELDS.map((name) => [name, input[name] ?? null]));
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

/** A stored client as schema input (for a PATCH merge or the edit form). */
export function patientAsInput(p: PatientJson): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of [...COLUMN_FIELDS, ...DETAIL_FIELDS]) out[name] = p[name];
  out.gender = p.gender === null ? null : String(p.gender);
  return out;
}

/** The next id of a table (so the audit row of a create names the record; a racing insert fails on the key and is retried). */
export async function nextId(ctx: ModelContext, table: typeof patients | typeof parents | { id: typeof patients.id }): Promise<number> {
  const t = table as typeof patients;
  const [row] = await ctx.db.select({ n: sql<number>`coalesce(max(${t.id}), 0) + 1` }).from(t);
  return Number(row?.n ?? 1);
}

export function isKeyRace(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    if (/UNIQUE constraint failed: \w+\.id\b/.test(String((x as Error).message ?? x))) return true;
  }
  return false;
}

export async function createPatient(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<PatientJson>> {
  const parsed = parseWith(PatientInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const errors = await checkReferences(ctx, parsed.data, null);
  if (Object.keys(errors).length) return invalid(errors);
  for (let attempt = 0; ; attempt++) {
    const newId = await nextId(ctx, patients);
    try {
      const [rows] = (await withAudit(ctx.db, who(ctx), { action: "create", entity: "patient", entityId: newId, patientId: newId }, () => [
        ctx.db.insert(patients).values({ id: newId, ...values(parsed.data) }).returning(),
        bumpListVersion(ctx.db, PATIENTS),
      ])) as [Row[]];
      return ok(patientJson(rows[0]!, ctx.now().toISOString().slice(0, 10)), "Client created.");
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

export async function updatePatient(ctx: ModelContext, patientId: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<PatientJson>> {
  const current = await findPatient(ctx, patientId);
  if (!current) return notFound("Patient");
  const parsed = parseWith(PatientInput, opts.partial ? { ...patientAsInput(current), ...raw } : raw);
  if (!parsed.ok) return invalid(parsed.errors);
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  const errors = await checkReferences(ctx, parsed.data, patientId);
  if (Object.keys(errors).length) return invalid(errors);
  const [rows] = (await withAudit(ctx.db, who(ctx), { action: "update", entity: "patient", entityId: patientId, patientId }, () => [
    ctx.db
      .update(patients)
      .set({ ...values(parsed.data), version: sql`${patients.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(patients.id, patientId), isNull(patients.deletedAt), opts.version === null ? undefined : eq(patients.version, opts.version)))
      .returning(),
    bumpListVersion(ctx.db, PATIENTS),
  ])) as [Row[]];
  if (!rows[0]) return conflict((await findPatient(ctx, patientId)) ?? current);
  return ok(patientJson(rows[0], ctx.now().toISOString().slice(0, 10)), "Client updated.");
}

export async function updatePatientStatus(ctx: ModelContext, patientId: number, raw: Record<string, unknown>): Promise<ModelResult<PatientJson>> {
  const current = await findPatient(ctx, patientId);
  if (!current) return notFound("Patient");
  const parsed = parseWith(PatientStatusInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const [rows] = (await withAudit(ctx.db, who(ctx), { action: "status", entity: "patient", entityId: patientId, patientId }, () => [
    ctx.db
      .update(patients)
      .set({ status: parsed.data.status, version: sql`${patients.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(patients.id, patientId), isNull(patients.deletedAt)))
      .returning(),
    bumpListVersion(ctx.db, PATIENTS),
  ])) as [Row[]];
  if (!rows[0]) return notFound("Patient");
  return ok(patientJson(rows[0], ctx.now().toISOString().slice(0, 10)), "Status updated.");
}

/** Soft delete. */
export async function deletePatient(ctx: ModelContext, patientId: number): Promise<ModelResult<null>> {
  const current = await findPatient(ctx, patientId);
  if (!current) return notFound("Patient");
  await withAudit(ctx.db, who(ctx), { action: "delete", entity: "patient", entityId: patientId, patientId }, () => [
    ctx.db.update(patients).set({ deletedAt: ctx.now().toISOString() }).where(eq(patients.id, patientId)),
    bumpListVersion(ctx.db, PATIENTS),
  ]);
  return ok(null, "Client deleted.");
}

/**
 * What the client form's selects offer. Staff: the employees of the client's location only; before a
 * location is chosen (add form), one labelled group per location the actor can see.
 */
export async function patientFormOptions(ctx: ModelContext, locationId: number | null) {
  const [locs, insurers, parentList] = await Promise.all([locationOptions(ctx), insuranceOptions(ctx), parentOptions(ctx)]);
  const shown = locationId !== null && locs.some((l) => l.id === locationId) ? locs.filter((l) => l.id === locationId) : locs;
  const byLocation = await staffByLocation(ctx, shown.map((l) => l.id));
  return {
    locations: locs,
    parents: parentList.map((p) => ({ id: p.id, name: `${p.name} (${p.email})` })),
    insurers: insurers.map((i) => ({ id: i.id, name: i.name })),
    staff: shown.map((l) => ({ label: l.title, options: byLocation[l.id] ?? [] })),
  };
}

/**
 * What the client profile shows besides the record: the names behind its ids (location, parent, assigned
 * staff) and the insurers for the PA form — one batch, one round trip. The shape matches
 * patientFormOptions so the screen reads either.
 */
export async function patientProfileNames(ctx: ModelContext, patient: PatientJson) {
  const staffIds = STAFF_FIELDS.map(([name]) => (patient as unknown as Record<string, number | null>)[name]).filter((x): x is number => typeof x === "number");
  const [locs, parentRows, insurerRows, staffRows] = await ctx.db.batch([
    ctx.db.select({ id: locations.id, title: locations.title }).from(locations).where(eq(locations.id, patient.location_id)),
    ctx.db.select({ id: parents.id, name: parents.name, surname: parents.surname, email: parents.email }).from(parents).where(eq(parents.id, patient.parent_id ?? 0)),
    ctx.db.select({ id: insurances.id, name: insurances.name }).from(insurances).where(isNull(insurances.deletedAt)).orderBy(asc(insurances.name)),
    ctx.db.select({ id: users.id, name: users.name, surname: users.surname }).from(users).where(inArray(users.id, staffIds.length ? staffIds : [0])),
  ]);
  return {
    locations: locs,
    parents: parentRows.map((p) => ({ id: p.id, name: `${`${p.name} ${p.surname}`.trim()} (${p.email})` })),
    insurers: insurerRows,
    staff: [{ label: locs[0]?.title ?? "", options: staffRows.map((s) => ({ id: s.id, name: `${s.name} ${s.surname}`.trim() })) }],
  };
}
