import { and, count, desc, eq, isNull, or, sql } from "drizzle-orm";
import { leavesAsStored } from "~/domain/audit-changes";
import * as v from "valibot";
import { MOVE_MESSAGES, movedReferences, REFERENCE_MESSAGES } from "~/domain/references";
import { FilterId } from "~/domain/list-filters";
import { bips, intakeAssessments, patients } from "~/db/schema";
import { checkedParts, documentOf, futureDateErrors, INTAKE_FIELDS, nestFormFields, parseIntake, readDocument, type IntakeInput } from "~/domain/intake";
import { todayAtLocation } from "~/domain/pa-pacing";
import { localDate } from "~/domain/time";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { namesNoField, parseWith } from "~/domain/validation";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { auditedRead, auditTail, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { bipInScopeQuery, bipScope } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { findPatient, getPatientWith, isKeyRace, patientScope, who } from "./patients.server";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";
import { nextIdOf } from "./ids.server";
import { patientTimeZoneQuery } from "./pa-services.server";

/**
 * Intake assessments (clinical §3; platform medical/initial-assessment). Scoped through the client: an
 * intake is visible exactly when its client is (another location answers 404). The header is in columns,
 * the sub-records in one JSON document (shape: app/domain/intake.ts). Reads of one intake and every
 * change are audited (entity "intake_assessment", with the client).
 */
export const INTAKE_ASSESSMENTS = "intake_assessments";
const ENTITY = "intake_assessment";

type Joined = { ia: typeof intakeAssessments.$inferSelect; firstName: string; lastName: string; patientIdentifier: string };

export function intakeJson(r: Joined) {
  const { ia } = r;
  return {
    id: ia.id,
    assessment_id: ia.id,
    patient_id: ia.patientId,
    patient_name: `${r.firstName} ${r.lastName}`.trim(),
    patient_identifier: r.patientIdentifier,
    bip_id: ia.bipId,
    person_responding: ia.personResponding,
    observation_date: ia.observationDate,
    current_insurance: ia.currentInsurance,
    additional_insurance: ia.additionalInsurance,
    impairs_other_services_without_rbt: ia.impairsOtherServicesWithoutRbt,
    ...readDocument(ia.document),
    version: ia.version,
    created_at: ia.createdAt,
    updated_at: ia.updatedAt,
  };
}
export type IntakeJson = ReturnType<typeof intakeJson>;

function select(ctx: ModelContext) {
  return ctx.db
    .select({ ia: intakeAssessments, firstName: patients.firstName, lastName: patients.lastName, patientIdentifier: patients.patientIdentifier })
    .from(intakeAssessments)
    .innerJoin(patients, eq(patients.id, intakeAssessments.patientId));
}

const live = isNull(intakeAssessments.deletedAt);
const IntakeFilters = v.object({
  patient_id: FilterId,
});

/** Intakes of the actor's clients, newest observation first; search by client name or identifier. */
export async function listIntakeAssessments(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}): Promise<ModelResult<Paged<IntakeJson>>> {
  const parsed = parseWith(IntakeFilters, { patient_id: raw.patient_id ?? "" });
  if (!parsed.ok) return invalid(parsed.errors);
  const s = query.search;
  const where = and(
    live,
    patientScope(ctx),
    parsed.data.patient_id !== "" ? eq(intakeAssessments.patientId, parsed.data.patient_id) : undefined,
    s
      ? or(
          contains(patients.firstName, s),
          contains(patients.lastName, s),
          contains(sql`${patients.firstName} || ' ' || ${patients.lastName}`, s),
          contains(patients.patientIdentifier, s),
        )
      : undefined,
    query.date_from ? sql`${intakeAssessments.observationDate} >= ${query.date_from}` : undefined,
    query.date_to ? sql`${intakeAssessments.observationDate} <= ${query.date_to}` : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    select(ctx).where(where).orderBy(desc(intakeAssessments.observationDate), desc(intakeAssessments.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(intakeAssessments).innerJoin(patients, eq(patients.id, intakeAssessments.patientId)).where(where),
  ]);
  return ok(paged(rows.map(intakeJson), total?.n ?? 0, query));
}

/** One intake in scope, not audited (for checks before a change). */
export async function findIntakeAssessment(ctx: ModelContext, id: number): Promise<IntakeJson | null> {
  const [row] = await select(ctx).where(and(eq(intakeAssessments.id, id), live, patientScope(ctx)));
  return row ? intakeJson(row) : null;
}

/** One intake in scope; the read is audited (view screen, API show). */
export async function getIntakeAssessment(ctx: ModelContext, id: number): Promise<IntakeJson | null> {
  return (await readIntake(ctx, id, () => []))?.intake ?? null;
}

/**
 * The intake screen: the intake in scope (404 first), then its client's BIPs for the form's select in the
 * batch of the read's audit row (session, intake, batch: 3 round trips).
 */
export async function getIntakeAssessmentWithBipOptions(ctx: ModelContext, id: number) {
  const read = await readIntake(ctx, id, (found) => [bipOptionsQuery(ctx, found.patient_id)]);
  if (!read) return null;
  const [rows] = read.also;
  return { intake: read.intake, bipOptions: rows.map((b) => bipOption(b, ctx.actor.timeZone)) };
}

/** The intake in scope with the chain's tail, then `alsoRead` in the batch of the audit row recording the read. */
async function readIntake<T extends BatchItem<"sqlite">[]>(ctx: ModelContext, id: number, alsoRead: (found: IntakeJson) => [...T]): Promise<{ intake: IntakeJson; also: BatchResponse<T> } | null> {
  // The chain's tail is read with the intake, so recording the read costs one round trip, not two.
  const [row] = await ctx.db
    .select({ ia: intakeAssessments, firstName: patients.firstName, lastName: patients.lastName, patientIdentifier: patients.patientIdentifier, tail: auditTail })
    .from(intakeAssessments)
    .innerJoin(patients, eq(patients.id, intakeAssessments.patientId))
    .where(and(eq(intakeAssessments.id, id), live, patientScope(ctx)));
  if (!row) return null;
  const found = intakeJson(row);
  const also = await auditedRead(ctx.db, who(ctx), { entity: ENTITY, entityId: found.id, patientId: found.patient_id }, () => alsoRead(found), row.tail);
  return { intake: found, also };
}

/**
 * The new-intake form for one client: the client in scope with the chain's tail, then the client's BIPs (the
 * form's BIP select) in the batch of the audit row recording the read, one row naming the client (decision 019:
 * session, client, batch: 3 round trips). Null when the client is not in the actor's scope (nothing recorded).
 */
export async function newIntakeFormFor(ctx: ModelContext, patientId: number) {
  const read = await getPatientWith(ctx, patientId, () => [bipOptionsQuery(ctx, patientId)], { entity: "patient", entityId: patientId, detail: { patients: [patientId] } });
  if (!read) return null;
  const [rows] = read.also;
  return { patient: read.patient, bipOptions: rows.map((b) => bipOption(b, ctx.actor.timeZone)) };
}

function bipOptionsQuery(ctx: ModelContext, patientId: number) {
  return ctx.db
    .select({ id: bips.id, createdAt: bips.createdAt })
    .from(bips)
    .where(and(eq(bips.patientId, patientId), isNull(bips.deletedAt)))
    .orderBy(desc(bips.createdAt), desc(bips.id));
}

/** A plan to pick, named by the day it was made on the actor's clock. */
const bipOption = (b: { id: number; createdAt: string }, timeZone: string | null) => ({ id: b.id, label: `BIP #${b.id} (${localDate(b.createdAt, timeZone)})` });

/**
 * The checks that need the database: bip_id, when given, a BIP of the same client that the actor can see; no observation
 * or prior-service date after today at the client's location (the one zone rule, decision 017), unless the save keeps
 * the stored one. Both reads go in one batch (one round trip).
 */
async function check(ctx: ModelContext, input: Pick<IntakeInput, "bip_id"> & Record<string, unknown>, patientId: number, stored: IntakeJson | null): Promise<Record<string, string>> {
  const zone = patientTimeZoneQuery(ctx, patientId);
  const [[place], bipRows] = input.bip_id === null ? [await zone, null] : await ctx.db.batch([zone, bipInScopeQuery(ctx, input.bip_id)]);
  const errors = futureDateErrors(input, todayAtLocation(ctx.now(), place?.timeZone ?? "UTC"), stored);
  if (bipRows && bipScope(bipRows[0])?.patientId !== patientId) errors.bip_id = "Choose a behavior intervention plan of this client.";
  return errors;
}

/**
 * A save refused on its input still runs the database checks on the fields that parsed, so one answer lists every
 * field error (decision 011, stop 43); a field's own parse error wins over a check's.
 */
async function everyError(ctx: ModelContext, errors: Record<string, string>, input: Record<string, unknown>, base: Record<string, unknown> | null, patientId: number, stored: IntakeJson | null) {
  return { ...(await check(ctx, checkedParts(input, base), patientId, stored)), ...errors };
}

function columns(input: IntakeInput) {
  return {
    bipId: input.bip_id,
    personResponding: input.person_responding,
    observationDate: input.observation_date,
    currentInsurance: input.current_insurance,
    additionalInsurance: input.additional_insurance,
    impairsOtherServicesWithoutRbt: input.impairs_other_services_without_rbt,
    document: JSON.stringify(documentOf(input)),
  };
}

const PatientRef = v.object({
  patient_id: v.pipe(v.union([v.string(), v.number()], "Client is required."), v.transform(Number), v.number(), v.integer("Client is required."), v.minValue(1, "Client is required.")),
});

/**
 * Creates an intake for a client in scope. The client is a body reference (decision 017): another location's, or
 * none, answers 422 at `patient_id`, nothing written.
 */
export async function createIntakeAssessment(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<IntakeJson>> {
  const input = nestFormFields(raw);
  const ref = parseWith(PatientRef, { patient_id: input.patient_id ?? "" });
  if (!ref.ok) return invalid(ref.errors);
  const patient = await findPatient(ctx, ref.data.patient_id);
  if (!patient) return invalid({ patient_id: REFERENCE_MESSAGES.client });
  const parsed = parseIntake(input);
  if (!parsed.ok) return invalid(await everyError(ctx, parsed.errors, input, null, patient.id, null));
  const errors = await check(ctx, parsed.data, patient.id, null);
  if (Object.keys(errors).length) return invalid(errors);
  for (let attempt = 0; ; attempt++) {
    const [max] = await ctx.db.select({ n: nextIdOf(intakeAssessments) }).from(intakeAssessments);
    const newId = Number(max?.n ?? 1);
    try {
      await withAudit(ctx.db, who(ctx), { action: "create", entity: ENTITY, entityId: newId, patientId: patient.id }, () => [
        ctx.db.insert(intakeAssessments).values({ id: newId, patientId: patient.id, ...columns(parsed.data) }),
        bumpListVersion(ctx.db, INTAKE_ASSESSMENTS),
      ]);
      return ok((await findIntakeAssessment(ctx, newId))!, "Intake assessment created.");
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/** A stored intake as schema input (for a PATCH merge). */
export function intakeAsInput(x: IntakeJson): Record<string, unknown> {
  const { id: _id, assessment_id: _a, patient_id: _p, patient_name: _n, patient_identifier: _i, version: _v, created_at: _c, updated_at: _u, ...rest } = x;
  return rest;
}

export async function updateIntakeAssessment(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null }): Promise<ModelResult<IntakeJson>> {
  const current = await findIntakeAssessment(ctx, id);
  if (!current) return notFound("Intake assessment");
  const input = nestFormFields(raw);
  // client_id is the spec's name for the client (as on a BIP): the same read-only reference. Its bip_id is a field.
  const fixed = movedReferences(input, { patient_id: [current.patient_id, MOVE_MESSAGES.intakeClient], client_id: [current.patient_id, MOVE_MESSAGES.intakeClient] });
  if (fixed) return invalid(fixed);
  if (namesNoField(input, INTAKE_FIELDS)) return nothingToChange();
  const base = opts.partial ? intakeAsInput(current) : null;
  const parsed = parseIntake(input, base);
  if (!parsed.ok) return invalid(await everyError(ctx, parsed.errors, input, base, current.patient_id, current));
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== current.version) return conflict(current);
  // A save that leaves every field as stored writes nothing and keeps the version (decision 017, stop 44).
  if (leavesAsStored(intakeAsInput(current), parsed.data)) return nothingToChange(current);
  const errors = await check(ctx, parsed.data, current.patient_id, current);
  if (Object.keys(errors).length) return invalid(errors);
  const [rows] = await withAudit(ctx.db, who(ctx), { action: "update", entity: ENTITY, entityId: id, patientId: current.patient_id }, () => [
    ctx.db
      .update(intakeAssessments)
      .set({ ...columns(parsed.data), version: sql`${intakeAssessments.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(intakeAssessments.id, id), live, opts.version === null ? undefined : eq(intakeAssessments.version, opts.version)))
      .returning({ id: intakeAssessments.id }),
    bumpListVersion(ctx.db, INTAKE_ASSESSMENTS),
  ]);
  if (!rows[0]) return conflict((await findIntakeAssessment(ctx, id)) ?? current);
  return ok((await findIntakeAssessment(ctx, id))!, "Intake assessment updated.");
}

/** Soft delete. */
export async function deleteIntakeAssessment(ctx: ModelContext, id: number): Promise<ModelResult<null>> {
  const current = await findIntakeAssessment(ctx, id);
  if (!current) return notFound("Intake assessment");
  await withAudit(ctx.db, who(ctx), { action: "delete", entity: ENTITY, entityId: id, patientId: current.patient_id }, () => [
    ctx.db.update(intakeAssessments).set({ deletedAt: ctx.now().toISOString() }).where(eq(intakeAssessments.id, id)),
    bumpListVersion(ctx.db, INTAKE_ASSESSMENTS),
  ]);
  return ok(null, "Intake assessment deleted.");
}
