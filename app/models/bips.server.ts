import { and, asc, count, desc, eq, isNull, or, sql, type SQL } from "drizzle-orm";
import { leavesAsStored } from "~/domain/audit-changes";
import { localDayBounds } from "~/domain/time";
import * as v from "valibot";
import { bips, patients, plans, userLocations, users, weeklyReports } from "~/db/schema";
import { DEFAULT_CAREGIVER_GOALS, defaultedSections, withDefaults } from "~/domain/bip-defaults";
import { MOVE_MESSAGES, movedReferences, REFERENCE_MESSAGES } from "~/domain/references";
import { BipClientRef, BipInput, bipInputFor, ClientFilter, DOCUMENT_KEYS, FilterId, filteredClientId, keptCpts, ListOpInput, LIST_SECTIONS, parseItem, readDocument, type BipDocument, type ListSectionKey } from "~/domain/bip-document";
import { deleteItem, moveItem, reorderItems, saveItem, type ListOpResult } from "~/domain/list-sections";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { fillPlaceholdersDeep, type PlaceholderClient } from "~/domain/placeholders";
import { goneStaffLabel, INACTIVE_STAFF } from "~/domain/patients";
import { PLAN_CATEGORIES, type PlanCategory } from "~/domain/plans";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { addDays } from "~/domain/weeks";
import { weeklyDataRange } from "~/domain/weekly-reports";
import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import { auditedRead, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { findBipInScope, type BipInScope } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { objectivesByPlan, objectivesOfBipQuery, type ObjectiveJson } from "./objectives.server";
import { choosableStaffAtQuery, findPatient, getPatientWith, isKeyRace, patientScope, who } from "./patients.server";
import { planJson, PLANS, type PlanJson } from "./plans.server";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";
import { nextIdOf } from "./ids.server";
import { choosableStaffAt, isChoosableStaff, whyNotChoosable } from "./staff.server";

/**
 * Behavior intervention plans (clinical §3): the BIP row (client, type of assessment, doctor, the
 * needs-attention flag) and its document. Every function resolves the BIP through findBipInScope first
 * (a BIP of a location the actor cannot see answers 404), writes go with their audit row in one batch,
 * and a stale version answers 409 with the current values. Goals are plans rows, read here and created
 * here only as the default caregiver-training goals of a new BIP.
 */

export const BIPS = "bips";

type BipRow = typeof bips.$inferSelect;
type PlanRow = typeof plans.$inferSelect;

/** The plan lists of the API shape, by category (clinical §3 "Plan lists"). */
const PLAN_LISTS: Record<PlanCategory, string> = {
  maladaptive: "maladaptives",
  replacement: "replacements",
  caregiver_training: "caregiver_trainings",
  teacher_training: "teacher_trainings",
  rbt_training: "rbt_trainings",
};

export interface Loaded {
  row: BipRow;
  client: { id: number; identifier: string; firstName: string; fullName: string; gender: number | null };
  doctorName: string | null;
  plans: PlanRow[];
  objectives: Map<number, ObjectiveJson[]>;
}

/**
 * The API shape: the BIP's fields with the spec's names, every document field at top level with the
 * defaults applied (placeholders left in, for an editor), and the plan lists. `attention` is the
 * attention-strategies list of the document; the flag is `needs_attention` (docs/decisions/010).
 */
export function bipJson(b: Loaded) {
  const doc = withDefaults(readDocument(b.row.document));
  const lists = Object.fromEntries(Object.values(PLAN_LISTS).map((k) => [k, [] as PlanJson[]]));
  for (const p of b.plans) lists[PLAN_LISTS[p.category as PlanCategory] ?? "others"]?.push(planJson(p, b.client.fullName, b.objectives.get(p.id) ?? []));
  return {
    id: b.row.id,
    client_id: b.row.patientId,
    patient_id: b.row.patientId,
    patient_identifier: b.client.identifier,
    patient_name: b.client.fullName,
    location_id: b.row.locationId,
    type_of_assessment: String(b.row.typeOfAssessment),
    doctor_id: b.row.doctorId,
    doctor_name: b.doctorName,
    needs_attention: b.row.attention,
    version: b.row.version,
    created_at: b.row.createdAt,
    updated_at: b.row.updatedAt,
    ...doc,
    consent_to_treatment: { ...doc.consent_to_treatment, bip_id: b.row.id, patient_id: b.row.patientId, client_id: b.row.patientId },
    ...(lists as Record<"maladaptives" | "replacements" | "caregiver_trainings" | "teacher_trainings" | "rbt_trainings", PlanJson[]>),
  };
}
export type BipJson = ReturnType<typeof bipJson>;

/** A BIP as the screens need it: the API shape, the client for placeholders, the stored (raw) document. */
export interface BipDetail {
  bip: BipJson;
  client: PlaceholderClient & { id: number; fullName: string; identifier: string };
  stored: BipDocument;
  /** Sections shown with default content (nothing of theirs is stored yet). */
  defaulted: string[];
}

/** The document as shown and exported: defaults applied and the placeholders filled from the client. */
export function shownDocument(d: BipDetail): BipDocument {
  const doc = Object.fromEntries(DOCUMENT_KEYS.map((k) => [k, d.bip[k]])) as unknown as BipDocument;
  return fillPlaceholdersDeep(doc, d.client);
}

function detail(b: Loaded): BipDetail {
  const stored = readDocument(b.row.document);
  return {
    bip: bipJson(b),
    client: { id: b.client.id, firstName: b.client.firstName, fullName: b.client.fullName, identifier: b.client.identifier, gender: b.client.gender },
    stored,
    defaulted: defaultedSections(stored),
  };
}

/**
 * The reads of a BIP (scope already checked), not yet run: the BIP row with its client and doctor, its
 * goals, and their objectives — three statements for one batch.
 */
function loadReads(ctx: ModelContext, bipId: number) {
  return [
    ctx.db
      .select({ row: bips, identifier: patients.patientIdentifier, firstName: patients.firstName, lastName: patients.lastName, gender: patients.gender, doctorName: users.name, doctorSurname: users.surname })
      .from(bips)
      .innerJoin(patients, eq(patients.id, bips.patientId))
      .leftJoin(users, eq(users.id, bips.doctorId))
      .where(and(eq(bips.id, bipId), isNull(bips.deletedAt))),
    ctx.db
      .select()
      .from(plans)
      .where(and(eq(plans.bipId, bipId), isNull(plans.deletedAt)))
      .orderBy(asc(plans.category), asc(plans.position), asc(plans.id)),
    objectivesOfBipQuery(ctx, bipId),
  ] as const;
}

function loadedFrom([rows, planRows, objectiveRows]: BatchResponse<ReturnType<typeof loadReads>>): Loaded | null {
  const r = rows[0];
  if (!r) return null;
  return {
    objectives: objectivesByPlan(planRows.map((p) => p.id), objectiveRows),
    row: r.row,
    client: { id: r.row.patientId, identifier: r.identifier, firstName: r.firstName, fullName: `${r.firstName} ${r.lastName}`.trim(), gender: r.gender },
    doctorName: r.doctorName === null ? null : `${r.doctorName} ${r.doctorSurname ?? ""}`.trim(),
    plans: planRows,
  };
}

/** The BIP row, its client, doctor, goals and their objectives (scope already checked): one batch. */
async function load(ctx: ModelContext, bipId: number): Promise<Loaded | null> {
  return loadedFrom(await ctx.db.batch(loadReads(ctx, bipId)));
}

async function loadInScope(ctx: ModelContext, bipId: number): Promise<{ scope: BipInScope; loaded: Loaded } | null> {
  const scope = await findBipInScope(ctx, bipId);
  if (!scope) return null;
  const loaded = await load(ctx, bipId);
  return loaded ? { scope, loaded } : null;
}

/** A BIP read (profile, editor, API show): in scope, and the read is audited. */
export async function getBipDetail(ctx: ModelContext, bipId: number): Promise<BipDetail | null> {
  return (await readBip(ctx, bipId, () => [] as const))?.detail ?? null;
}

/**
 * A BIP read with more reads of the same request (e.g. the profile's charts) in ONE batch with the
 * read's audit row, after the scope check: 2 round trips in all. `more` gets the scope (for reads that
 * must stay within it) and is built again if the batch is retried.
 */
export async function readBip<M extends readonly BatchItem<"sqlite">[]>(
  ctx: ModelContext,
  bipId: number,
  more: (scope: BipInScope) => M,
): Promise<{ detail: BipDetail; scope: BipInScope; more: BatchResponse<[...M]> } | null> {
  const scope = await findBipInScope(ctx, bipId);
  if (!scope) return null;
  const results = await auditedRead(ctx.db, who(ctx), { entity: "bip", entityId: bipId, patientId: scope.patientId }, () => [...loadReads(ctx, bipId), ...more(scope)], scope.tail);
  const loaded = loadedFrom([results[0], results[1], results[2]]);
  return loaded ? { detail: detail(loaded), scope, more: results.slice(3) as BatchResponse<[...M]> } : null;
}

/**
 * The tabbed BIP editor: the BIP read, and with `withDoctors` the active employees of the client's location
 * (choosableStaffAt, the rule of every staff select: decision 037, stop 31) for the identity tab's doctor select, in
 * the batch of the read's audit row: session, scope, batch. The plan's stored doctor is always among them, marked when
 * they no longer work at the client's location, were made inactive or were deleted (whyNotChoosable), so the select
 * shows what is stored and saving the tab unchanged keeps it (`updateBip` checks a changed doctor only).
 */
export async function getBipEditor(ctx: ModelContext, bipId: number, withDoctors: boolean) {
  // Columns written out with their tables: in a select from one table drizzle leaves its columns unqualified,
  // which the subqueries' own tables would capture.
  const clientLocation = sql`(select "patients"."location_id" from "bips" join "patients" on "patients"."id" = "bips"."patient_id" where "bips"."id" = ${bipId})`;
  const choosable = choosableStaffAt(clientLocation);
  const doctorsQuery = () =>
    ctx.db
      .select({ id: users.id, name: users.name, surname: users.surname, choosable: sql<number>`${choosable}`, gone: whyNotChoosable() })
      .from(users)
      .where(sql`${choosable} or "users"."id" = (select "bips"."doctor_id" from "bips" where "bips"."id" = ${bipId})`)
      .orderBy(asc(users.name), asc(users.surname));
  const read = await readBip(ctx, bipId, () => (withDoctors ? ([doctorsQuery()] as const) : ([] as const)));
  if (!read) return null;
  const [doctors] = read.more;
  return {
    detail: read.detail,
    doctors: (doctors ?? []).map((d) => {
      const name = `${d.name} ${d.surname}`.trim();
      return { id: d.id, name: Number(d.choosable) ? name : goneStaffLabel(name, d.gone) };
    }),
  };
}

export async function getBip(ctx: ModelContext, bipId: number): Promise<BipJson | null> {
  return (await getBipDetail(ctx, bipId))?.bip ?? null;
}

// ------------------------------------------------------------------------------------------ lists

export function bipListJson(r: { row: BipRow; identifier: string; firstName: string; lastName: string; doctorName: string | null; doctorSurname: string | null; goals: number }) {
  return {
    id: r.row.id,
    client_id: r.row.patientId,
    patient_id: r.row.patientId,
    patient_identifier: r.identifier,
    patient_name: `${r.firstName} ${r.lastName}`.trim(),
    location_id: r.row.locationId,
    type_of_assessment: String(r.row.typeOfAssessment),
    doctor_id: r.row.doctorId,
    doctor_name: r.doctorName === null ? null : `${r.doctorName} ${r.doctorSurname ?? ""}`.trim(),
    needs_attention: r.row.attention,
    goals_count: Number(r.goals),
    version: r.row.version,
    created_at: r.row.createdAt,
    updated_at: r.row.updatedAt,
  };
}
export type BipListJson = ReturnType<typeof bipListJson>;

/** The client's name ("first last") or identifier contains the text. */
function clientSearch(s: string) {
  return s ? or(contains(patients.firstName, s), contains(patients.lastName, s), contains(sql`${patients.firstName} || ' ' || ${patients.lastName}`, s), contains(patients.patientIdentifier, s)) : undefined;
}

export const BipFilters = v.object({
  ...ClientFilter,
  location_id: FilterId,
  type_of_assessment: v.optional(v.union([v.literal(""), v.picklist(["1", "2"], "Choose Initial Assessment or Reassessment.")]), ""),
  needs_attention: v.optional(v.union([v.literal(""), v.picklist(["true", "false", "1", "0"], "needs_attention is true or false.")]), ""),
});

/** BIPs with their client and doctor, in the list's columns, where `where` holds (and the client was found). */
function listSelect(ctx: ModelContext, where: SQL | undefined) {
  return ctx.db
    .select({
      row: bips,
      identifier: patients.patientIdentifier,
      firstName: patients.firstName,
      lastName: patients.lastName,
      doctorName: users.name,
      doctorSurname: users.surname,
      goals: sql<number>`(select count(*) from ${plans} where ${plans.bipId} = ${bips.id} and ${plans.deletedAt} is null)`,
    })
    .from(bips)
    .innerJoin(patients, bipClient)
    .leftJoin(users, eq(users.id, bips.doctorId))
    .where(where);
}

/**
 * A BIP's client. The unary plus keeps SQLite from reaching BIPs through their client index: it reads the
 * BIPs newest first, each one's client by its key, and stops after the page, instead of scanning every
 * client and sorting all their BIPs (50–70 ms a page at 20,000 clients; decision 043).
 */
const bipClient = sql`${patients.id} = +${bips.patientId}`;

/** BIPs in the actor's locations: search by client name or identifier; filter by client, location, type, flag. */
export async function listBips(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}): Promise<ModelResult<Paged<BipListJson>>> {
  const picked = Object.fromEntries(Object.entries(raw).filter(([k]) => k in BipFilters.entries));
  const parsed = parseWith(BipFilters, picked);
  if (!parsed.ok) return invalid(parsed.errors);
  const f = parsed.data;
  const patientId = filteredClientId(f);
  const s = query.search;
  // From/To are days on the actor's clock, the one the list's dates are shown on (decision 039).
  const days = localDayBounds(query.date_from, query.date_to, ctx.actor.timeZone);
  const where = and(
    isNull(bips.deletedAt),
    patientScope(ctx),
    patientId !== "" ? eq(bips.patientId, patientId) : undefined,
    f.location_id !== "" ? eq(patients.locationId, f.location_id) : undefined,
    f.type_of_assessment !== "" ? eq(bips.typeOfAssessment, Number(f.type_of_assessment)) : undefined,
    f.needs_attention !== "" ? eq(bips.attention, f.needs_attention === "true" || f.needs_attention === "1") : undefined,
    clientSearch(s),
    days.start ? sql`${bips.createdAt} >= ${days.start}` : undefined,
    days.before ? sql`${bips.createdAt} < ${days.before}` : undefined,
  );
  const [rows, [total]] = await ctx.db.batch([
    listSelect(ctx, where).orderBy(desc(bips.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(bips).innerJoin(patients, bipClient).where(where),
  ]);
  return ok(paged(rows.map(bipListJson), total?.n ?? 0, query));
}

/** Every BIP of one client, newest first; null when the client is out of scope. The read is audited. */
export async function listBipsOfPatient(ctx: ModelContext, patientId: number) {
  // The client in scope (404 first), then its BIPs in the batch of the read's audit row.
  const read = await getPatientWith(
    ctx,
    patientId,
    () => [listSelect(ctx, and(isNull(bips.deletedAt), eq(bips.patientId, patientId), patientScope(ctx))).orderBy(desc(bips.id))],
    { entity: "bip", entityId: null },
  );
  if (!read) return null;
  const [rows] = read.also;
  return { patient: read.patient, bips: rows.map(bipListJson) };
}

/** How far back a behavior goal must have data not to be listed as "without recent data". */
export const RECENT_DATA_WEEKS = 4;
const STALE_LIMIT = 50;

/**
 * BIPs whose client has an active maladaptive or replacement goal with no weekly report in the last
 * 4 weeks (the attention screen's second list; at most 50, newest BIPs first). Training goals are left
 * out: their data are monthly fidelity checks.
 */
export async function listBipsWithoutRecentData(ctx: ModelContext): Promise<BipListJson[]> {
  const today = ctx.now().toISOString().slice(0, 10);
  const since = addDays(today, -7 * RECENT_DATA_WEEKS);
  // Weeks up to the current one count (weeklyDataRange, as the goal screen's badge): a week stored in the future
  // does not hide a goal whose data stopped. UTC, as `since` (the list spans locations).
  const { latest } = weeklyDataRange(today);
  const staleGoal = sql`exists (select 1 from ${plans} where ${plans.bipId} = ${bips.id} and ${plans.deletedAt} is null and ${plans.status} = 'active' and ${plans.category} in ('maladaptive', 'replacement') and not exists (select 1 from ${weeklyReports} where ${weeklyReports.planId} = ${plans.id} and ${weeklyReports.weekEnd} between ${since} and ${latest}))`;
  const rows = await listSelect(ctx, and(isNull(bips.deletedAt), patientScope(ctx), staleGoal))
    .orderBy(desc(bips.id))
    .limit(STALE_LIMIT);
  return rows.map(bipListJson);
}

// ------------------------------------------------------------------------------------------ writes

/** A doctor being chosen must be an active employee of the client's location (choosableStaff, decision 037 stop 31). */
async function checkDoctor(ctx: ModelContext, doctorId: number | null, locationId: number): Promise<Record<string, string>> {
  if (doctorId === null) return {};
  const [m] = await ctx.db
    .select({ choosable: isChoosableStaff() })
    .from(userLocations)
    .innerJoin(users, eq(users.id, userLocations.userId))
    .where(and(eq(userLocations.locationId, locationId), eq(userLocations.userId, doctorId), isNull(users.deletedAt)));
  if (!m) return { doctor_id: "Choose an employee of the client's location." };
  return m.choosable ? {} : { doctor_id: INACTIVE_STAFF };
}

function documentOf(input: BipInput): BipDocument {
  return Object.fromEntries(DOCUMENT_KEYS.map((k) => [k, input[k]])) as BipDocument;
}

function rowValues(input: BipInput) {
  return { typeOfAssessment: Number(input.type_of_assessment), doctorId: input.doctor_id, attention: input.needs_attention, document: JSON.stringify(documentOf(input)) };
}

/** A stored BIP as schema input (for a PATCH merge): its own fields and the stored (not defaulted) document. */
function asInput(row: BipRow): Record<string, unknown> {
  return { type_of_assessment: String(row.typeOfAssessment), doctor_id: row.doctorId, needs_attention: row.attention, ...readDocument(row.document) };
}

/**
 * Creates a BIP for a client in scope, with the thirteen default caregiver-training goals as plans
 * (category caregiver_training, positions 1..13, active, no unit type), all in one batch with its audit row.
 */
export async function createBip(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<BipJson>> {
  const ref = parseWith(BipClientRef, { patient_id: raw.patient_id ?? raw.client_id ?? "" });
  const parsed = parseWith(BipInput, raw);
  if (!ref.ok || !parsed.ok) return invalid({ ...(ref.ok ? {} : ref.errors), ...(parsed.ok ? {} : parsed.errors) });
  const patient = await findPatient(ctx, ref.data.patient_id);
  // A client out of scope is one the actor cannot name: the same answer as a missing one.
  if (!patient) return invalid({ patient_id: REFERENCE_MESSAGES.client });
  const errors = await checkDoctor(ctx, parsed.data.doctor_id, patient.location_id);
  if (Object.keys(errors).length) return invalid(errors);
  const values = rowValues(parsed.data);
  if (tooLong(values.document)) return TOO_LONG;
  for (let attempt = 0; ; attempt++) {
    const [max] = await ctx.db.select({ n: nextIdOf(bips) }).from(bips);
    const newId = Number(max?.n ?? 1);
    try {
      await withAudit(ctx.db, who(ctx), { action: "create", entity: "bip", entityId: newId, patientId: patient.id }, () => [
        ctx.db.insert(bips).values({ id: newId, patientId: patient.id, locationId: patient.location_id, ...values }),
        // One statement per goal: D1 binds at most 100 parameters per statement.
        ...DEFAULT_CAREGIVER_GOALS.map((g, i) =>
          ctx.db.insert(plans).values({ bipId: newId, patientId: patient.id, name: g.name, description: g.description, category: "caregiver_training", status: "active", unitType: null, position: i + 1 }),
        ),
        bumpListVersion(ctx.db, BIPS),
        bumpListVersion(ctx.db, PLANS),
      ]);
      return ok(bipJson((await load(ctx, newId))!), "BIP created.");
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/** A stored document is at most 1 MB of JSON (a D1 value holds 2 MB; the rest is headroom). */
export const DOCUMENT_MAX_BYTES = 1_000_000;
const TOO_LONG = invalid({ document: "The plan is too long to save. Shorten the longest sections and save again." });
const tooLong = (json: string | undefined) => json !== undefined && new TextEncoder().encode(json).length > DOCUMENT_MAX_BYTES;

/** Writes a new document and fields when the version still matches; the audit row goes in the same batch. */
async function write(ctx: ModelContext, scope: BipInScope, values: Partial<ReturnType<typeof rowValues>>, version: number | null, message: string): Promise<ModelResult<BipJson>> {
  if (tooLong(values.document)) return TOO_LONG;
  const [rows] = await withAudit(ctx.db, who(ctx), { action: "update", entity: "bip", entityId: scope.bipId, patientId: scope.patientId }, () => [
    ctx.db
      .update(bips)
      .set({ ...values, version: sql`${bips.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(bips.id, scope.bipId), isNull(bips.deletedAt), version === null ? undefined : eq(bips.version, version)))
      .returning({ id: bips.id }),
    bumpListVersion(ctx.db, BIPS),
  ]);
  const after = await load(ctx, scope.bipId);
  if (!rows[0]) return after ? conflict(bipJson(after)) : notFound("BIP");
  return ok(bipJson(after!), message);
}

/**
 * Updates a BIP: a full replace (PUT: missing document fields become empty, so defaults show there) or a
 * merge of the given top-level fields (PATCH, and every editor form: a tab, a table, the attention flag).
 */
export async function updateBip(
  ctx: ModelContext,
  bipId: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null; message?: string },
): Promise<ModelResult<BipJson>> {
  const found = await loadInScope(ctx, bipId);
  if (!found) return notFound("BIP");
  const { scope, loaded } = found;
  // Its location is its client's (decision 010, kept by the patients_bips_location trigger): read-only as the client.
  const fixed = movedReferences(raw, {
    patient_id: [loaded.row.patientId, MOVE_MESSAGES.bipClient],
    client_id: [loaded.row.patientId, MOVE_MESSAGES.bipClient],
    location_id: [loaded.row.locationId, MOVE_MESSAGES.bipLocation],
  });
  if (fixed) return invalid(fixed);
  if (namesNoField(raw, BipInput)) return nothingToChange();
  // A recommended service's CPT stored before the CPT rule passes sent back as it is (decision 017, stop 37).
  const parsed = parseChange(bipInputFor(keptCpts(readDocument(loaded.row.document))), raw, opts.partial ? asInput(loaded.row) : null);
  if (!parsed.ok) return invalid(parsed.errors);
  // A stale version is refused before anything (or any audit row) is written; the versioned WHERE catches a race.
  if (opts.version !== null && opts.version !== loaded.row.version) return conflict(bipJson(loaded));
  // A save that leaves every field and section as stored writes nothing and keeps the version (decision 017, stop 44).
  if (leavesAsStored(asInput(loaded.row), { type_of_assessment: String(Number(parsed.data.type_of_assessment)), doctor_id: parsed.data.doctor_id, needs_attention: parsed.data.needs_attention, ...documentOf(parsed.data) }))
    return nothingToChange(bipJson(loaded));
  // Only a doctor being chosen is checked: a stored one who has since left the client's location, was made inactive
  // (or the client moved) stays until someone changes it, and does not block saving the plan's other sections.
  const errors = parsed.data.doctor_id === loaded.row.doctorId ? {} : await checkDoctor(ctx, parsed.data.doctor_id, scope.locationId);
  if (Object.keys(errors).length) return invalid(errors);
  return write(ctx, scope, rowValues(parsed.data), opts.version, opts.message ?? "BIP updated.");
}

const OP_MESSAGES = { save: "item saved.", add: "item added.", delete: "item deleted.", move: "item moved.", reorder: "order saved." } as const;

/**
 * One change to a list section of the document (clinical §4 list-and-form): save an item (append when no
 * index, else replace), delete (indexes renumbered), move up/down, reorder. The change applies to the list
 * as shown, defaults included, and is saved at once (docs/decisions/010); a move or reorder that changes
 * nothing saves nothing and says so.
 */
export async function changeBipList(ctx: ModelContext, bipId: number, raw: Record<string, unknown>, version: number | null): Promise<ModelResult<BipJson>> {
  const found = await loadInScope(ctx, bipId);
  if (!found) return notFound("BIP");
  const { scope, loaded } = found;
  const op = parseWith(ListOpInput, raw);
  if (!op.ok) return invalid(op.errors);
  if (version !== null && version !== loaded.row.version) return conflict(bipJson(loaded));
  const section: ListSectionKey = op.data.section;
  const stored = readDocument(loaded.row.document);
  const shown = withDefaults(stored)[section] as unknown as object[];
  let result: ListOpResult<object>;
  let message: string;
  switch (op.data.op) {
    case "save": {
      const item = parseItem(section, raw, keptCpts(stored));
      if (!item.ok) return { ok: false, status: 422, message: item.message, errors: item.errors };
      result = saveItem(shown, item.item, op.data.index);
      message = op.data.index === null ? OP_MESSAGES.add : OP_MESSAGES.save;
      break;
    }
    case "delete":
      result = deleteItem(shown, op.data.index);
      message = OP_MESSAGES.delete;
      break;
    case "move":
      result = moveItem(shown, op.data.index, op.data.direction);
      message = OP_MESSAGES.move;
      break;
    case "reorder":
      result = reorderItems(shown, op.data.order);
      message = OP_MESSAGES.reorder;
      break;
  }
  if (!result.ok) return invalid({ index: result.error });
  // A move past either end (or a reorder into the same order) writes nothing: no new version to make a colleague's form stale.
  if (result.unchanged) return ok(bipJson(loaded), `${LIST_SECTIONS[section].label}: ${result.unchanged}`);
  const next = parseWith(bipInputFor(keptCpts(stored)), { ...asInput(loaded.row), [section]: result.items });
  if (!next.ok) return invalid(next.errors);
  return write(ctx, scope, { document: JSON.stringify(documentOf(next.data)) }, loaded.row.version, `${LIST_SECTIONS[section].label}: ${message}`);
}

/** Soft delete: the BIP and its goals leave every list; the rows and the audit trail stay. */
export async function deleteBip(ctx: ModelContext, bipId: number): Promise<ModelResult<null>> {
  const scope = await findBipInScope(ctx, bipId);
  if (!scope) return notFound("BIP");
  await withAudit(ctx.db, who(ctx), { action: "delete", entity: "bip", entityId: bipId, patientId: scope.patientId }, () => [
    ctx.db.update(bips).set({ deletedAt: ctx.now().toISOString() }).where(eq(bips.id, bipId)),
    bumpListVersion(ctx.db, BIPS),
  ]);
  return ok(null, "BIP deleted.");
}

// ------------------------------------------------------------------------------------------ options

/**
 * The new-BIP form for one client (/bip/register?patient_id=): the client in scope with the chain's tail, then the
 * doctors to choose (the staff of the client's location) in the batch of the audit row recording the read of the
 * client (decision 019: session, client, batch: 3 round trips). Null when the client is not in the actor's scope.
 */
export async function newBipFormFor(ctx: ModelContext, patientId: number) {
  const read = await getPatientWith(ctx, patientId, (p) => [choosableStaffAtQuery(ctx, p.location_id)], { entity: "patient", entityId: patientId, detail: { patients: [patientId] } });
  if (!read) return null;
  const [staff] = read.also;
  return { patient: read.patient, doctors: staff.map((u) => ({ id: u.id, name: `${u.name} ${u.surname}`.trim() })) };
}

/** Clients in scope for the register screen's search (at most 20 matches). */
export async function clientChoices(ctx: ModelContext, search: string) {
  const s = search.trim();
  const where = and(
    patientScope(ctx),
    clientSearch(s),
  );
  const rows = await ctx.db
    .select({ id: patients.id, identifier: patients.patientIdentifier, firstName: patients.firstName, lastName: patients.lastName, locationId: patients.locationId })
    .from(patients)
    .where(where)
    .orderBy(asc(patients.lastName), asc(patients.firstName), asc(patients.id))
    .limit(20);
  return rows.map((r) => ({ id: r.id, identifier: r.identifier, name: `${r.firstName} ${r.lastName}`.trim(), location_id: r.locationId }));
}

/** Plan categories in display order, with the goals of each (the profile groups goals by category). */
export function goalsByCategory(bip: BipJson) {
  return PLAN_CATEGORIES.map((category) => ({ category, plans: bip[PLAN_LISTS[category] as keyof BipJson] as PlanJson[] }));
}
