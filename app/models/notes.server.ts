import type { BatchItem } from "drizzle-orm/batch";
import { and, asc, desc, eq, getTableColumns, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import * as v from "valibot";
import { movedReferences, REFERENCE_MESSAGES } from "~/domain/references";
import { refuseInklessDrawing } from "~/domain/signature-ink.server";
import { FilterFlag, FilterId } from "~/domain/list-filters";
import { primaryOf, type Db } from "~/db/client.server";
import { auditLog, bips, insurances, locations, noteCounts, notes, noteVersions, paServices, parents, patients, plans, scheduledSessions, userLocations, users } from "~/db/schema";
import {
  AmendmentReason,
  checkSessionDate,
  sessionEndRefusal,
  signDateRefusal,
  halfSignatureRefusal,
  amendedSignatureRefusal,
  changesNothing,
  BILLED_NOTE_FIELDS,
  claimedNoteChanges,
  writesSupervisorSignature,
  supervisorRefusal,
  canSupervise,
  CountersignInput,
  firstRefusal,
  isSigning,
  NOTE_MESSAGES,
  NoteBody,
  NOTE_CONTENT_KEYS,
  noteBodyErrors,
  NoteModifier,
  noteBodyInput,
  contentSentTwiceErrors,
  withEditedSummary,
  posRefusal,
  scanWindow,
  storedPairs,
  sessionTimes,
  todayIn,
  weekOf,
  inZone,
  withoutPreviousSignature,
  ZONE_SPREAD_MINUTES,
  type NoteIntervals,
  type Refusal,
  type SessionTimes,
  type Surroundings,
} from "~/domain/note-rules";
import { NOTE_CPT_CODES, NOTE_LIMITS, NOTE_SPEC_FIELD_KEYS, NOTE_STATUSES, NOTE_SUBTYPES, NOTE_TYPES, type NoteContent, type NoteContext, type NoteInput, type NoteJson, type NoteStatus, type NoteSubtype, type NoteType } from "~/domain/notes";
import { NOTE_TYPE_LABELS } from "~/domain/note-list";
import { dollarsOf } from "~/domain/billing";
import { fittingModifiers, modifierRefusal, type ModifierSlot } from "~/domain/insurance";
import { posCodesOf } from "~/domain/locations";
import type { StaffGone } from "~/domain/patients";
import { countLimit, offset, paged, pagedAtLeast, type ListQuery, type Paged } from "~/domain/paging";
import { can, locationScope } from "~/domain/permissions";
import { fieldErrors, isPlainObject, namesNoField, parseWith, pathId, safeParseChange, safeParsePlain } from "~/domain/validation";
import type { SummaryDisclosure } from "~/services/ai-summary.server";
import { isProductDate } from "~/domain/weeks";
import { auditClientsRead, auditedRead, auditRead, auditTail, chainBackoff, chainBusy, isChainRace, withAudit, withConditionalAudit, withConditionalAuditIfUnchanged, type AuditEntry, type ConditionalAudit, type KnownTail } from "~/services/audit.server";
import { bumpListVersionIfChanged } from "~/services/list-cache.server";
import { idempotencyKeyReused, isTokenRace, keyScopeFree, oneTimeToken, tokenMatch } from "~/services/idempotency.server";
import type { ModelContext } from "./context";
import { meterUnitsQuery } from "./pa-pacing.server";
import { averageUnitsPerWeek, currentWeek } from "~/domain/pa-pacing";
import { contains } from "./like.server";
import { isKeyRace, patientScope, searchCondition, who } from "./patients.server";
import { conflict, denied, invalid, notFound, ok, type ModelResult, nothingToChange } from "./results";
import { liveClaimLabel, liveClaimOf } from "./claimed-notes.server";
import { providerCredentialSql } from "./billing-prices.server";
import { idsIn, inLocationScope } from "./scope.server";
import { nextIdOf } from "./ids.server";
import { noteSessionReads, sessionCancelledOnDelete, sessionGiveBack, settleNoteSession } from "./schedule.server";
import { choosableStaff, choosableStaffAt, isChoosableStaff, whyNotChoosable } from "./staff.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * Session notes (clinical §3, §4, §5, §7; issue 10; decisions 023 and 024).
 *
 * Scope: a note is visible when its location is one of the actor's and its client is not deleted (the
 * stored location decides, decision 017); anything else answers 404. view_notes reads notes and writes
 * and edits the actor's OWN notes (provider = the actor); manage_notes writes for another provider,
 * changes status and modifiers, and deletes. A signed note changes only by amendment (a reason; the
 * earlier version is kept in note_versions).
 *
 * Atomicity (decision 024): every create / update / delete is ONE D1 batch. The note's write is a
 * conditional statement whose WHERE holds every rule (no client overlap, no provider overlap within the
 * 15-minute buffer, day and week caps, PA units and coverage), so racing requests cannot both pass; the
 * audit row rides in the same batch conditioned on `changes() = 1`. When the write did not happen, a
 * follow-up read (refusal path only) finds which rule refused, with the pure predicates of
 * app/domain/note-rules.ts, and the answer is a 422 on that field.
 */
export const NOTES = "notes";

type NoteRow = typeof notes.$inferSelect;

export const NOTE_CREATED = "Note created.";
export const NOTE_UPDATED = "Note updated.";
export const NOTE_AMENDED = "Note amended; the earlier version is kept in its history.";
export const NOTE_ALREADY_SAVED = "This note was already saved.";
export const NOTE_DELETED = "Note deleted.";

/* ------------------------------------------------------------------ shapes */

function parseContent(text: string): NoteContent {
  try {
    const c = JSON.parse(text) as unknown;
    return c && typeof c === "object" && !Array.isArray(c) ? (c as NoteContent) : {};
  } catch {
    return {};
  }
}

const span = (a: number | null, b: number | null) => (a !== null && b !== null ? b - a : 0);

/** A stored note as every reader sees it (NoteJson: the spec's field names). */
export function noteJson(row: NoteRow, patientName: string): NoteJson {
  const morning = span(row.start1At, row.end1At);
  const afternoon = span(row.start2At, row.end2At);
  const content = parseContent(row.content);
  return {
    id: row.id,
    type: row.type,
    patient_id: row.patientId,
    patient_name: patientName,
    location_id: row.locationId,
    provider_id: row.providerId,
    provider_name: row.providerName,
    supervisor_id: row.supervisorId,
    supervisor_name: row.supervisorName,
    bip_id: row.bipId,
    pa_service_id: row.paServiceId,
    cpt_code: row.cptCode,
    subtype: (row.subtype as NoteSubtype | null) ?? null,
    diagnosis_code: row.diagnosisCode,
    pos: row.pos,
    is_telehealth: row.isTelehealth,
    session_date: row.sessionDate,
    time_in: row.timeIn,
    time_out: row.timeOut,
    time_in2: row.timeIn2,
    time_out2: row.timeOut2,
    session_length_morning_total: morning,
    session_length_afternon_total: afternoon,
    session_length_total: morning + afternoon,
    total_hours: Math.round((row.minutes / 60) * 100) / 100,
    total_minutes: row.minutes,
    total_units: row.units,
    md: row.md,
    md2: row.md2,
    md3: row.md3,
    unit_price_cents: row.unitPriceCents,
    unit_price: row.unitPriceCents === null ? null : dollarsOf(row.unitPriceCents),
    note_type: row.type,
    doctor_id: row.providerId,
    status: (row.status as NoteStatus) ?? "pending",
    billed: row.billed,
    paid: row.paid,
    provider_signature: row.providerSignature,
    provider_signed_on: row.providerSignedOn,
    supervisor_signature: row.supervisorSignature,
    supervisor_signed_on: row.supervisorSignedOn,
    signed_at: row.signedAt,
    summary_note: row.summaryNote,
    content: { ...content, summary_note: row.summaryNote },
    version: row.version,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
}

/** An earlier version of a note (kept by an amendment), as the note's history shows it. */
export interface NoteHistoryEntry {
  version: number;
  reason: string;
  amended_by: number | null;
  amended_by_name: string;
  amended_at: string;
  /** The note as it was before the amendment. */
  note: NoteJson;
}

/** A note with its history (getNote, the API's show). */
export type NoteWithHistory = NoteJson & { history: NoteHistoryEntry[] };

/** A stored note as the body of an update (PATCH merges the change into it). */
export function noteAsInput(n: NoteJson): NoteInput {
  const { summary_note, ...content } = n.content;
  return {
    type: n.type,
    patient_id: n.patient_id,
    provider_id: n.provider_id ?? 0,
    supervisor_id: n.supervisor_id,
    bip_id: n.bip_id,
    pa_service_id: n.pa_service_id ?? 0,
    cpt_code: n.cpt_code,
    subtype: n.subtype,
    diagnosis_code: n.diagnosis_code,
    pos: n.pos,
    is_telehealth: n.is_telehealth,
    session_date: n.session_date,
    time_in: n.time_in,
    time_out: n.time_out,
    time_in2: n.time_in2,
    time_out2: n.time_out2,
    md: n.md,
    md2: n.md2,
    md3: n.md3,
    provider_name: n.provider_name,
    provider_signature: n.provider_signature,
    provider_signed_on: n.provider_signed_on,
    supervisor_name: n.supervisor_name,
    supervisor_signature: n.supervisor_signature,
    supervisor_signed_on: n.supervisor_signed_on,
    unit_price_cents: n.unit_price_cents,
    content: { ...content, summary_note: summary_note ?? n.summary_note },
  };
}

/* ------------------------------------------------------------------ scope and reads */

/**
 * A note is in scope when its location is one of the actor's and its client is not deleted (joined:
 * notes, patients). `viaOtherIndex`: a query narrowed by client or provider filters on the location
 * without offering its index (`+location_id`), so SQLite reads the client's or provider's index instead of
 * walking the whole location. `scope`: the locations read (a list's, narrowed by its location filter: listScope).
 */
export function noteScope(ctx: ModelContext, viaOtherIndex = false, at?: number, scope: readonly number[] | null = locationScope(ctx.actor)): SQL {
  if (scope === null) return and(isNull(notes.deletedAt), isNull(patients.deletedAt))!;
  if (!scope.length) return sql`1 = 0`;
  // `at`: one location of the scope (the notes list reads each location of a limited scope on its own, pageIds).
  const inScope = idsIn(viaOtherIndex ? sql`+${notes.locationId}` : notes.locationId, at !== undefined && scope.includes(at) ? [at] : scope);
  return and(isNull(notes.deletedAt), isNull(patients.deletedAt), inScope)!;
}

const patientName = sql<string>`trim(${patients.firstName} || ' ' || ${patients.lastName})`;

/** The users chosen as a note's provider and supervisor (NoteContext), joined by id in the note's own read. */
const providerUsers = alias(users, "provider_users");
const supervisorUsers = alias(users, "supervisor_users");

/** The columns of a note found in scope: the note, its client, location, PA service, provider and supervisor (NoteContext), and the audit tail. */
const foundColumns = {
  n: notes,
  patientName,
  patient: {
    id: patients.id,
    firstName: patients.firstName,
    lastName: patients.lastName,
    identifier: patients.patientIdentifier,
    birthDate: patients.birthDate,
    insuranceIdentifier: sql<string | null>`json_extract(${patients.details}, '$.insuranceId')`,
  },
  insuranceName: insurances.name,
  location: {
    id: locations.id,
    title: locations.title,
    address: locations.address,
    city: locations.city,
    state: locations.state,
    zip: locations.zip,
    phone1: locations.phone1,
    timeZone: locations.timeZone,
    posCodes: locations.posCodes,
  },
  pa: {
    id: paServices.id,
    paService: paServices.paService,
    cpt: paServices.cpt,
    nUnits: paServices.nUnits,
    startDate: paServices.startDate,
    endDate: paServices.endDate,
  },
  providerUser: { id: providerUsers.id, name: providerUsers.name, surname: providerUsers.surname },
  supervisorUser: { id: supervisorUsers.id, name: supervisorUsers.name, surname: supervisorUsers.surname },
  // The supervisor's credential now (canSupervise: only a BCBA or BCaBA countersigns).
  supervisorCredential: providerCredentialSql(notes.supervisorId),
  // The claim (not rejected) that holds the note, if any: what it billed stays (claimedNoteChanges).
  liveClaim: liveClaimLabel(notes.id),
  // Whether a scheduled session is still marked written by this note (scheduled_note_idx): its delete then checks it.
  writesSession: sql<number>`exists (select 1 from "scheduled_sessions" where "scheduled_sessions"."note_id" = ${notes.id} and "scheduled_sessions"."status" = 'written')`.mapWith(Number),
  tail: auditTail,
};

const chosenUser = (u: { id: number | null; name: string | null; surname: string | null } | null) => (u?.id != null ? { id: u.id, name: `${u.name ?? ""} ${u.surname ?? ""}`.trim() } : null);

interface Found {
  row: NoteRow;
  note: NoteJson;
  context: NoteContext;
  tail: KnownTail;
  /** "C0000003 (sent)": the live claim holding the note, or null. */
  liveClaim: string | null;
  /** The place-of-service codes of the note's location (posRefusal). */
  posCodes: string[];
  /** Whether the note's supervisor can supervise now (a BCBA or BCaBA: canSupervise); false without one. */
  supervisorQualified: boolean;
  /** Whether a scheduled session is still marked written by this note. */
  writesSession: boolean;
}

/** One statement: the note of that type in scope, with its context and the audit chain's tail; null when not found. */
async function findNote(ctx: ModelContext, type: NoteType | null, id: number, db: Db = ctx.db): Promise<Found | null> {
  const [r] = await db
    .select(foundColumns)
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .innerJoin(locations, eq(locations.id, notes.locationId))
    .leftJoin(insurances, eq(insurances.id, patients.insurerId))
    .leftJoin(paServices, eq(paServices.id, notes.paServiceId))
    .leftJoin(providerUsers, eq(providerUsers.id, notes.providerId))
    .leftJoin(supervisorUsers, eq(supervisorUsers.id, notes.supervisorId))
    .where(and(eq(notes.id, id), type ? eq(notes.type, type) : undefined, noteScope(ctx)));
  if (!r) return null;
  const context: NoteContext = {
    patient: {
      id: r.patient.id,
      first_name: r.patient.firstName,
      last_name: r.patient.lastName,
      patient_identifier: r.patient.identifier,
      birth_date: r.patient.birthDate,
      insurance_identifier: r.patient.insuranceIdentifier == null ? null : String(r.patient.insuranceIdentifier),
      insurance_name: r.insuranceName,
    },
    location: { id: r.location.id, title: r.location.title, address: r.location.address, city: r.location.city, state: r.location.state, zip: r.location.zip, phone1: r.location.phone1, time_zone: r.location.timeZone },
    pa_service: r.pa?.id != null ? { id: r.pa.id, pa_service: r.pa.paService, cpt: r.pa.cpt, n_units: r.pa.nUnits, start_date: r.pa.startDate, end_date: r.pa.endDate } : null,
    provider: chosenUser(r.providerUser),
    supervisor: chosenUser(r.supervisorUser),
  };
  return { row: r.n, note: noteJson(r.n, r.patientName), context, tail: r.tail, liveClaim: r.liveClaim, posCodes: posCodesOf(r.location.posCodes), supervisorQualified: r.n.supervisorId !== null && canSupervise(r.supervisorCredential), writesSession: Number(r.writesSession) === 1 };
}

function historyQuery(ctx: ModelContext, noteId: number) {
  return ctx.db
    .select({ v: noteVersions, name: users.name, surname: users.surname })
    .from(noteVersions)
    .leftJoin(users, eq(users.id, noteVersions.amendedBy))
    .where(eq(noteVersions.noteId, noteId))
    .orderBy(desc(noteVersions.version));
}

function historyJson(r: { v: typeof noteVersions.$inferSelect; name: string | null; surname: string | null }): NoteHistoryEntry {
  return {
    version: r.v.version,
    reason: r.v.reason,
    amended_by: r.v.amendedBy,
    amended_by_name: `${r.name ?? ""} ${r.surname ?? ""}`.trim(),
    amended_at: r.v.createdAt,
    note: JSON.parse(r.v.snapshot) as NoteJson,
  };
}

const readEntry = (found: Found) => ({ entity: "note", entityId: found.row.id, patientId: found.row.patientId, detail: { patients: [found.row.patientId], type: found.row.type } });

/** One note with its history: an audited read (the history rides in the audit row's batch). Null: not found or out of scope. */
export async function getNote(ctx: ModelContext, type: NoteType | null, id: number): Promise<{ note: NoteJson; history: NoteHistoryEntry[] } | null> {
  const found = await findNote(ctx, type, id);
  if (!found) return null;
  const [history] = await auditedRead(ctx.db, who(ctx), readEntry(found), () => [historyQuery(ctx, id)], found.tail);
  return { note: found.note, history: history.map(historyJson) };
}

/**
 * What the view screen, the PDF and the AI summary need: the note, its context (client, location, PA
 * service) and its history. Two round trips: the scoped read, then the history with the audit row.
 */
export async function getNoteView(ctx: ModelContext, type: NoteType | null, id: number): Promise<{ note: NoteJson; context: NoteContext; history: NoteHistoryEntry[]; supervisorQualified: boolean } | null> {
  const found = await findNote(ctx, type, id);
  if (!found) return null;
  const [history] = await auditedRead(ctx.db, who(ctx), readEntry(found), () => [historyQuery(ctx, id)], found.tail);
  return { note: found.note, context: found.context, history: history.map(historyJson), supervisorQualified: found.supervisorQualified };
}

/* ------------------------------------------------------------------ lists */

const DATE_FILTER = "Dates must be real dates like 2026-01-31.";
const idFilter = FilterId;
const dateFilter = v.optional(v.union([v.literal(""), v.pipe(v.string(), v.check(isProductDate, DATE_FILTER))], DATE_FILTER), "");

/** The notes list's filters (clinical §5: empty values are left out; type '' means all). */
export const NoteFilters = v.object({
  patient_id: idFilter,
  provider_id: idFilter,
  // The note's own stored location (decision 017), within the actor's scope: another location's lists nothing.
  location_id: idFilter,
  billed: FilterFlag,
  type: v.optional(v.union([v.literal(""), v.picklist(NOTE_TYPES)], "Choose a note type: rbt, bcba or combined."), ""),
  status: v.optional(v.union([v.literal(""), v.picklist(NOTE_STATUSES)], NOTE_MESSAGES.status), ""),
  date_from: dateFilter,
  date_to: dateFilter,
});
export type NoteFilters = v.InferOutput<typeof NoteFilters>;

const FILTER_KEYS = ["patient_id", "provider_id", "location_id", "billed", "type", "status", "date_from", "date_to"] as const;

/**
 * The locations a list reads: the actor's scope (null: every location), narrowed to the location filter. A location
 * outside the scope leaves none (`1 = 0`): the list is empty, as the clients list is for it (decision 017).
 */
function listScope(ctx: ModelContext, f: Pick<NoteFilters, "location_id">): readonly number[] | null {
  const scope = locationScope(ctx.actor);
  if (f.location_id === "") return scope;
  return scope === null || scope.includes(f.location_id) ? [f.location_id] : [];
}

function filtersFrom(raw: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of FILTER_KEYS) {
    const x = raw[k];
    // "null" is the spec's "all" for the type filter.
    if (x !== undefined && x !== null && x !== "null") out[k] = typeof x === "number" ? String(x) : x;
  }
  return out;
}

/**
 * The provider a notes list shows (as the view does: noteStaffName): the chosen provider's name, else the typed
 * signature name for a note whose provider is gone; a key lookup per row. Columns written out: never left unqualified.
 */
const shownProviderName = () =>
  sql<string>`coalesce((select nullif(trim(coalesce(pu.name, '') || ' ' || coalesce(pu.surname, '')), '') from users pu where pu.id = "notes"."provider_id"), "notes"."provider_name")`;

/**
 * The notes list's search ("Name or CPT") finds what its rows show: the client by the clients list's own rule
 * (searchCondition: "first last" or the identifier, decision 012), the provider by the name the list shows, or the CPT
 * code (decision 028, 2026-11-28).
 */
function searchWhere(s: string): SQL | undefined {
  return or(searchCondition(s), contains(shownProviderName(), s), contains(notes.cptCode, s));
}

function listWhere(ctx: ModelContext, query: Pick<ListQuery, "search" | "date_from" | "date_to">, f: NoteFilters, at?: number): SQL {
  const from = f.date_from || query.date_from;
  const to = f.date_to || query.date_to;
  const s = query.search;
  return and(
    noteScope(ctx, f.patient_id !== "" || f.provider_id !== "", at, listScope(ctx, f)),
    f.patient_id !== "" ? eq(notes.patientId, f.patient_id) : undefined,
    f.provider_id !== "" ? eq(notes.providerId, f.provider_id) : undefined,
    f.type !== "" ? (f.patient_id !== "" || f.provider_id !== "" ? sql`+${notes.type} = ${f.type}` : eq(notes.type, f.type)) : undefined,
    f.status !== "" ? eq(notes.status, f.status) : undefined,
    f.billed !== "" ? eq(notes.billed, f.billed) : undefined,
    from ? sql`${notes.sessionDate} >= ${from}` : undefined,
    to ? sql`${notes.sessionDate} <= ${to}` : undefined,
    s ? searchWhere(s) : undefined,
  )!;
}

/**
 * The most notes a filtered list counts (decision 035). Counting every match through an index costs about
 * a microsecond a note (2,000,000 notes: two seconds); counting at most this many (or up to the page asked
 * for) stays within a few milliseconds, and a list with more says "10,000+" (`total_is_lower_bound`).
 */
export const NOTE_COUNT_CAP = 10_000;
/** A search by name reads each candidate note and its client: its count stops sooner ("1,000+"). */
export const NOTE_SEARCH_COUNT_CAP = 1_000;

const capOf = (query: Pick<ListQuery, "search">) => (query.search ? NOTE_SEARCH_COUNT_CAP : NOTE_COUNT_CAP);

/** A list with no filter but the actor's scope and the type: its total is exact, from note_counts. */
function countsFromCounters(query: Pick<ListQuery, "search" | "date_from" | "date_to">, f: NoteFilters): boolean {
  return !query.search && !query.date_from && !query.date_to && f.patient_id === "" && f.provider_id === "" && f.status === "" && f.billed === "" && f.date_from === "" && f.date_to === "";
}

/**
 * The capped count's condition: the list's filters on notes alone, answered from a covering index
 * (notes_type_date_idx or notes_location_type_idx: type, date, status and client are in it). A deleted
 * client's notes are left out by the short list of deleted clients (patients_deleted_idx) instead of a
 * join that would read each note's client. With a search (client names), the join is needed.
 */
function countWhere(ctx: ModelContext, query: Pick<ListQuery, "search" | "date_from" | "date_to">, f: NoteFilters): SQL {
  const from = f.date_from || query.date_from;
  const to = f.date_to || query.date_to;
  const s = query.search;
  const byPerson = f.patient_id !== "" || f.provider_id !== "";
  const scope = listScope(ctx, f);
  return and(
    isNull(notes.deletedAt),
    scope === null ? undefined : !scope.length ? sql`1 = 0` : idsIn(byPerson ? sql`+${notes.locationId}` : notes.locationId, scope),
    s ? isNull(patients.deletedAt) : sql`${notes.patientId} not in (select ${patients.id} from ${patients} where ${patients.deletedAt} is not null)`,
    f.patient_id !== "" ? eq(notes.patientId, f.patient_id) : undefined,
    f.provider_id !== "" ? eq(notes.providerId, f.provider_id) : undefined,
    // Every type spelled out lets SQLite walk the (type, session_date, …) index once per type.
    // A client's or provider's notes are found through their own index: the type (`+`) does not offer its index.
    f.type !== "" ? (byPerson ? sql`+${notes.type} = ${f.type}` : eq(notes.type, f.type)) : byPerson ? undefined : inArray(notes.type, [...NOTE_TYPES]),
    f.status !== "" ? eq(notes.status, f.status) : undefined,
    f.billed !== "" ? eq(notes.billed, f.billed) : undefined,
    from ? sql`${notes.sessionDate} >= ${from}` : undefined,
    to ? sql`${notes.sessionDate} <= ${to}` : undefined,
    s ? searchWhere(s) : undefined,
  )!;
}

/**
 * The page's total, with the audit chain's tail beside it. Exact from note_counts when the list has no
 * filter but the scope and the type (decision 035: triggers keep those counts in the statement of every
 * note and client write); otherwise a count of at most `limit` + 1 matching notes.
 */
function totalRead(ctx: ModelContext, query: ListQuery, f: NoteFilters, limit: number) {
  if (countsFromCounters(query, f)) {
    const scope = listScope(ctx, f);
    return ctx.db
      .select({ n: sql<number>`coalesce(sum(${noteCounts.n}), 0)`, tail: auditTail })
      .from(noteCounts)
      .where(and(inLocationScope(noteCounts.locationId, scope), f.type !== "" ? eq(noteCounts.type, f.type) : undefined));
  }
  const matching = ctx.db.select({ one: sql<number>`1`.as("one") }).from(notes);
  const capped = (query.search ? matching.innerJoin(patients, eq(patients.id, notes.patientId)) : matching).where(countWhere(ctx, query, f)).limit(limit + 1).as("matching");
  return ctx.db.select({ n: sql<number>`count(*)`, tail: auditTail }).from(capped);
}

/**
 * What the notes lists show of a note (the notes list and a client's notes): the screens read only these
 * columns, not a note's content and signatures (decision 042). The API's lists answer whole notes.
 */
export type NoteListItem = Pick<
  NoteJson,
  "id" | "type" | "patient_id" | "patient_name" | "provider_id" | "provider_name" | "cpt_code" | "session_date" | "time_in" | "time_out" | "time_in2" | "time_out2" | "total_units" | "status" | "signed_at" | "provider_signed_on"
>;

const listItemColumns = {
  id: notes.id,
  type: notes.type,
  patientId: notes.patientId,
  providerId: notes.providerId,
  providerName: shownProviderName().as("list_provider_name"),
  cptCode: notes.cptCode,
  sessionDate: notes.sessionDate,
  timeIn: notes.timeIn,
  timeOut: notes.timeOut,
  timeIn2: notes.timeIn2,
  timeOut2: notes.timeOut2,
  units: notes.units,
  status: notes.status,
  signedAt: notes.signedAt,
  providerSignedOn: notes.providerSignedOn,
  patientName,
};
type ListItemRow = Pick<NoteRow, Exclude<keyof typeof listItemColumns, "patientName">> & { patientName: string };

function noteListItem(r: ListItemRow): NoteListItem {
  return {
    id: r.id,
    type: r.type,
    patient_id: r.patientId,
    patient_name: r.patientName,
    provider_id: r.providerId,
    provider_name: r.providerName,
    cpt_code: r.cptCode,
    session_date: r.sessionDate,
    time_in: r.timeIn,
    time_out: r.timeOut,
    time_in2: r.timeIn2,
    time_out2: r.timeOut2,
    total_units: r.units,
    status: (r.status as NoteStatus) ?? "pending",
    signed_at: r.signedAt,
    provider_signed_on: r.providerSignedOn,
  };
}

/** How a page reads its notes: whole (the API) or as list items (the screens). */
interface PageShape<T> {
  rows: (ctx: ModelContext) => SQLiteSelectNotes;
  item: (row: never) => T;
}
type SQLiteSelectNotes = ReturnType<ReturnType<ModelContext["db"]["select"]>["from"]>;
const WHOLE: PageShape<NoteJson> = {
  rows: (ctx) => ctx.db.select({ n: notes, patientName }).from(notes) as unknown as SQLiteSelectNotes,
  item: ((r: { n: NoteRow; patientName: string }) => noteJson(r.n, r.patientName)) as (row: never) => NoteJson,
};
const LIST: PageShape<NoteListItem> = {
  rows: (ctx) => ctx.db.select(listItemColumns).from(notes) as unknown as SQLiteSelectNotes,
  item: noteListItem as (row: never) => NoteListItem,
};

/**
 * The most locations whose notes a page reads location by location (pageIds). A larger scope is read as one
 * statement over all its locations, as before (decision 043, 2026-11-28).
 */
export const PER_LOCATION_PAGE_MAX = 40;
/**
 * D1 binds at most 100 parameters a statement: the location-by-location arms may bind this many together (the rest is
 * the page's own); a scope and filters that would bind more are read as one statement, as before.
 */
const PER_LOCATION_PARAMS_MAX = 80;
/** D1's SQLite takes at most 5 terms in one compound SELECT ("too many terms in compound SELECT" past it). */
const COMPOUND_TERMS_MAX = 5;

/** `a union all b union all …`, nested five terms at a time so that no compound has more than D1 allows. */
function unionAll(terms: SQL[]): SQL {
  if (terms.length <= COMPOUND_TERMS_MAX) return sql.join(terms, sql` union all `);
  const groups: SQL[] = [];
  for (let i = 0; i < terms.length; i += COMPOUND_TERMS_MAX) groups.push(sql`select * from (${unionAll(terms.slice(i, i + COMPOUND_TERMS_MAX))})`);
  return unionAll(groups);
}

/**
 * The ids of a page of a limited scope's notes, newest session first, when the list is not a client's or a
 * provider's (those walk their own date index). One location's notes are read in page order through
 * notes_location_date_idx (location_id, session_date, rowid), but `location_id in (1, 2)` can only be read
 * location after location, so SQLite sorted every note of the scope for each page (100,000 notes for a
 * manager of two bench locations). Here each location gives its newest `offset + per_page` matching notes in
 * index order (`location_id = ?`, the list's own conditions), and only those are sorted: the page of the
 * union is the page of the scope, since each of its notes is among the newest `offset + per_page` of its own
 * location. Null when the scope is every location, a client's or provider's list, or more than
 * PER_LOCATION_PAGE_MAX locations (decision 043, 2026-11-28 (stop 41)).
 */
function pageIds(ctx: ModelContext, query: ListQuery, f: NoteFilters): SQL | null {
  const scope = listScope(ctx, f);
  if (scope === null || !scope.length || scope.length > PER_LOCATION_PAGE_MAX || f.patient_id !== "" || f.provider_id !== "") return null;
  const reach = offset(query) + query.per_page;
  const arm = (at: number) =>
    ctx.db
      .select({ id: notes.id, sessionDate: sql`${notes.sessionDate}`.as("session_date") })
      .from(notes)
      .leftJoin(patients, eq(patients.id, notes.patientId))
      .where(listWhere(ctx, query, f, at))
      .orderBy(desc(notes.sessionDate), desc(notes.id))
      .limit(reach);
  // Each arm binds its own filters (a search binds several): past D1's 100 parameters a statement, one statement.
  if (arm(scope[0]!).toSQL().params.length * scope.length > PER_LOCATION_PARAMS_MAX) return null;
  const arms = unionAll(scope.map((at) => sql`select * from ${arm(at)}`));
  return sql`(select "id" from (${arms}) order by "session_date" desc, "id" desc limit ${query.per_page} offset ${offset(query)})`;
}

/** The page's two reads (rows, and the total with the audit chain's tail), to ride in one batch. */
function pageReads<T>(ctx: ModelContext, query: ListQuery, f: NoteFilters, shape: PageShape<T>) {
  const ids = pageIds(ctx, query, f);
  const rows = shape
    .rows(ctx)
    // A left join, so that SQLite reads each note's client by its key instead of first building a Bloom
    // filter of every client (about 6 ms a page at 20,000 clients; decision 043). It finds the same rows as
    // the inner join: every note has its client (a foreign key, enforced by D1), and the scope keeps only
    // clients not deleted. No "client found" term: SQLite may turn the join back into an inner one for it.
    .leftJoin(patients, eq(patients.id, notes.patientId));
  return [
    ids
      ? // The page's notes found location by location (pageIds), in the list's order.
        rows.where(sql`${notes.id} in ${ids}`).orderBy(desc(notes.sessionDate), desc(notes.id))
      : rows
          .where(listWhere(ctx, query, f))
          // Newest session first; (session_date, id) is the order of the location's and the client's date indexes.
          .orderBy(desc(notes.sessionDate), desc(notes.id))
          .limit(query.per_page)
          .offset(offset(query)),
    totalRead(ctx, query, f, countLimit(capOf(query), query)),
  ] as const;
}

type PageRows = [never[], { n: number; tail: string | null }[]];

function pageOf<T>(query: ListQuery, f: NoteFilters, [rows, [total]]: PageRows, shape: PageShape<T>): { page: Paged<T>; tail: KnownTail } {
  const data = rows.map(shape.item);
  const n = Number(total?.n ?? 0);
  const page = countsFromCounters(query, f) ? paged(data, n, query) : pagedAtLeast(data, n, countLimit(capOf(query), query), query);
  return { page, tail: total ? total.tail : undefined };
}

const clientsOfPage = (page: Paged<{ patient_id: number }>) => [...new Set(page.data.map((n) => n.patient_id))].sort((a, b) => a - b);

/**
 * The filters of a list: all types, or the one type of its path (`/v2/notes-rbt`, `/note_bcba`). There a `type`
 * naming another type is refused at `type` (decision 017, stop 45) rather than answered with the path's notes as if
 * they were the type asked for; the path's own type, '' and "null" (all) list the path's type.
 */
function parseFilters(raw: Record<string, unknown>, pathType: NoteType | null = null): ModelResult<NoteFilters> {
  const parsed = parseWith(NoteFilters, filtersFrom(raw));
  if (!parsed.ok) return invalid(parsed.errors);
  if (pathType === null) return ok(parsed.data);
  if (parsed.data.type !== "" && parsed.data.type !== pathType) {
    return invalid({ type: `This list holds only ${NOTE_TYPE_LABELS[pathType]} notes: leave type out, or give ${pathType}.` });
  }
  return ok({ ...parsed.data, type: pathType });
}

/**
 * A page of notes in the actor's scope, newest session first, NOT audited: the API's RestResource records
 * the page's read itself (workers/api/rest.ts). Screens use listNotes, which records it.
 */
export async function notesPage(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}, pathType: NoteType | null = null): Promise<ModelResult<Paged<NoteJson>>> {
  const f = parseFilters(raw, pathType);
  if (!f.ok) return f;
  const result = await ctx.db.batch([...pageReads(ctx, query, f.data, WHOLE)]);
  return ok(pageOf(query, f.data, result as unknown as PageRows, WHOLE).page);
}

/**
 * The notes list (screens and legacy API): a page in scope with the filters, its read recorded (one audit
 * row naming the page's clients). Two round trips: the page (with the audit tail), the audit row.
 */
export function listNotes(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}, pathType: NoteType | null = null): Promise<ModelResult<Paged<NoteJson>>> {
  return auditedPage(ctx, query, raw, WHOLE, pathType);
}

/** The notes list as the screen shows it: listNotes with list items rather than whole notes. */
export function listNoteItems(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown> = {}): Promise<ModelResult<Paged<NoteListItem>>> {
  return auditedPage(ctx, query, raw, LIST);
}

async function auditedPage<T extends { patient_id: number }>(ctx: ModelContext, query: ListQuery, raw: Record<string, unknown>, shape: PageShape<T>, pathType: NoteType | null = null): Promise<ModelResult<Paged<T>>> {
  const f = parseFilters(raw, pathType);
  if (!f.ok) return f;
  const { page, tail } = pageOf(query, f.data, (await ctx.db.batch([...pageReads(ctx, query, f.data, shape)])) as unknown as PageRows, shape);
  await auditClientsRead(ctx.db, who(ctx), "note", clientsOfPage(page), tail);
  return ok(page);
}

/** A client's notes (of one type, or all): null when the client is not found (clientFound, 404). Audited; two round trips. */
export async function notesByClient(ctx: ModelContext, type: NoteType | null, patientId: number, query: ListQuery): Promise<Paged<NoteJson> | null> {
  return (await clientPage(ctx, type, patientId, query, WHOLE, false))?.page ?? null;
}

/**
 * A client's notes as the screen lists them (notesByClient with list items), with the client's name for the
 * heading. An empty page's read is recorded as a read of the client, whose name the screen shows.
 */
export function noteItemsByClient(ctx: ModelContext, type: NoteType | null, patientId: number, query: ListQuery): Promise<{ page: Paged<NoteListItem>; clientName: string } | null> {
  return clientPage(ctx, type, patientId, query, LIST, true);
}

/**
 * A client whose notes the actor may list: one of their clients, or a client (not deleted) with a live note at a
 * location of theirs (the stored location decides, decision 017: a client who moved keeps their old notes at
 * the old location, whose staff see them on the note screens, the notes list and the client's lists alike).
 */
function clientFound(ctx: ModelContext, patientId: number): SQL {
  const scope = locationScope(ctx.actor);
  const noteHere = sql`exists (select 1 from ${notes} where ${notes.patientId} = ${patients.id} and ${notes.deletedAt} is null and ${scope === null ? sql`1 = 1` : idsIn(notes.locationId, scope)})`;
  return and(eq(patients.id, patientId), or(patientScope(ctx), and(isNull(patients.deletedAt), noteHere)))!;
}

async function clientPage<T extends { patient_id: number }>(ctx: ModelContext, type: NoteType | null, patientId: number, query: ListQuery, shape: PageShape<T>, namesClient: boolean): Promise<{ page: Paged<T>; clientName: string } | null> {
  const f: NoteFilters = { patient_id: patientId, provider_id: "", location_id: "", billed: "", type: type ?? "", status: "", date_from: "", date_to: "" };
  const [[patient], ...rest] = await ctx.db.batch([ctx.db.select({ id: patients.id, name: patientName }).from(patients).where(clientFound(ctx, patientId)), ...pageReads(ctx, query, f, shape)]);
  if (!patient) return null;
  const { page, tail } = pageOf(query, f, rest as unknown as PageRows, shape);
  await auditClientsRead(ctx.db, who(ctx), "note", namesClient && !page.data.length ? [patientId] : clientsOfPage(page), tail);
  return { page, clientName: patient.name };
}

/**
 * A provider's notes ("byprofile"), in the actor's scope. Null (404) when the user does not exist or the actor
 * cannot see them — no location in common, unless the actor sees every location — so an outsider cannot tell
 * which user ids exist. A deleted provider's notes are still listed (they stay clinical records, and the notes list's
 * provider filter finds them too: decision 023, stop 43). Audited; two round trips.
 */
export async function notesByProvider(ctx: ModelContext, type: NoteType | null, providerId: number, query: ListQuery): Promise<Paged<NoteJson> | null> {
  const f: NoteFilters = { patient_id: "", provider_id: providerId, location_id: "", billed: "", type: type ?? "", status: "", date_from: "", date_to: "" };
  const scope = locationScope(ctx.actor);
  const visible =
    scope === null
      ? undefined
      : or(eq(users.id, ctx.actor.id), scope.length ? sql`exists (select 1 from ${userLocations} where ${userLocations.userId} = ${users.id} and ${idsIn(userLocations.locationId, scope)})` : sql`1 = 0`);
  const [[user], ...rest] = await ctx.db.batch([ctx.db.select({ id: users.id }).from(users).where(and(eq(users.id, providerId), visible)), ...pageReads(ctx, query, f, WHOLE)]);
  if (!user) return null;
  const { page, tail } = pageOf(query, f, rest as unknown as PageRows, WHOLE);
  await auditClientsRead(ctx.db, who(ctx), "note", clientsOfPage(page), tail);
  return page;
}

/* ------------------------------------------------------------------ the rules in SQL */

/**
 * The values of a note's write, bound once in a CTE `n` (column name → value), so the rules below refer
 * to them by name and a statement stays well under D1's 100 bound parameters.
 */
type WriteValues = Record<string, string | number | null>;

function writeValues(ctx: ModelContext, input: NoteInput, times: SessionTimes, extra: { id: number; locationId: number; signedAt: string | null }): WriteValues {
  const week = weekOf(input.session_date);
  const { summary_note, ...content } = input.content;
  return {
    id: extra.id,
    patient_id: input.patient_id,
    location_id: extra.locationId,
    provider_id: input.provider_id,
    supervisor_id: input.supervisor_id,
    bip_id: input.bip_id,
    pa_service_id: input.pa_service_id,
    cpt_code: input.cpt_code,
    subtype: input.subtype,
    diagnosis_code: input.diagnosis_code,
    pos: input.pos,
    is_telehealth: input.is_telehealth ? 1 : 0,
    session_date: input.session_date,
    time_in: times.pair1 ? input.time_in : null,
    time_out: times.pair1 ? input.time_out : null,
    time_in2: times.pair2 ? input.time_in2 : null,
    time_out2: times.pair2 ? input.time_out2 : null,
    start1_at: times.pair1?.start ?? null,
    end1_at: times.pair1?.end ?? null,
    start2_at: times.pair2?.start ?? null,
    end2_at: times.pair2?.end ?? null,
    start_at: times.startAt,
    end_at: times.endAt,
    utc_offset: times.utcOffset,
    minutes: times.minutes,
    units: times.units,
    md: input.md,
    md2: input.md2,
    md3: input.md3,
    unit_price_cents: input.unit_price_cents,
    provider_name: input.provider_name,
    provider_signature: input.provider_signature,
    provider_signed_on: input.provider_signed_on,
    supervisor_name: input.supervisor_name,
    supervisor_signature: input.supervisor_signature,
    supervisor_signed_on: input.supervisor_signed_on,
    signed_at: extra.signedAt,
    summary_note: summary_note ?? "",
    content: JSON.stringify(content),
    updated_at: ctx.now().toISOString(),
    // Not columns: the rules' week (Sunday–Saturday, app/domain/weeks.ts).
    week_start: week.start,
    week_end: week.end,
  };
}

function cte(values: WriteValues): SQL {
  return sql`with n as (select ${sql.join(
    Object.entries(values).map(([k, x]) => sql`${x} as ${sql.identifier(k)}`),
    sql`, `,
  )})`;
}

const B = NOTE_LIMITS.providerBufferMinutes;
const Z = ZONE_SPREAD_MINUTES;

/**
 * Minutes to add to note `o`'s local minutes to put them on the clock of the new values `n`: the difference of
 * their UTC offsets, 0 when either is NULL (a note written before offsets were stored: local, as before). The
 * mirror of zoneShift in app/domain/note-rules.ts; the client's overlap and the provider's rules compare with it.
 */
const zoneShiftSql = (n = "n", o = "o") => `coalesce(${n}.utc_offset - ${o}.utc_offset, 0)`;
const ZONE_SHIFT_SQL = zoneShiftSql();

/**
 * Any pair of note `o` within `gap` minutes of any pair of the new values `n` (touching ends do not overlap at
 * gap 0); with `shift`, `o`'s pairs are first moved by it (ZONE_SHIFT_SQL). With `continuation`, a pair of the
 * same client that continues the other across midnight is no conflict (continuesAtMidnight in
 * app/domain/note-rules.ts: one ends at 24:00 of its day, on its own clock, at the moment the other starts).
 */
function overlapSql(gap: number, shift?: string, n = "n", o = "o", continuation = false): string {
  const pairs = [
    ["1", "1"],
    ["1", "2"],
    ["2", "1"],
    ["2", "2"],
  ];
  const moved = shift ? ` + ${shift}` : "";
  return `(${pairs
    .map(([a, b]) => {
      const [os, oe, ns, ne] = [`(${o}.start${a}_at${moved})`, `(${o}.end${a}_at${moved})`, `${n}.start${b}_at`, `${n}.end${b}_at`];
      const near = `${os} < ${ne} + ${gap} and ${ns} < ${oe} + ${gap}`;
      return continuation ? `(${near} and not (${o}.patient_id = ${n}.patient_id and ((${oe} = ${ns} and ${o}.end${a}_at % 1440 = 0) or (${ne} = ${os} and ${ne} % 1440 = 0))))` : `(${near})`;
    })
    .join(" or ")})`;
}

/**
 * The provider overlap of note `o` with note `n` (table names or aliases in the statement), `o` moved onto `n`'s
 * clock: the SQL mirror of the scrubber's provider_overlap (overlaps + zoneShift, app/domain/note-rules.ts). The
 * scrubber reads only the provider's notes this keeps and still runs its own rule on them.
 */
export function providerOverlapSql(n: string, o: string): SQL {
  return sql.raw(overlapSql(0, zoneShiftSql(n, o), n, o));
}

/**
 * Every rule as one SQL condition over `n` (the new values) — the mirror of firstRefusal in
 * app/domain/note-rules.ts. Range scans are bounded by start_at (a note spans at most one day; the client's and the
 * provider's scans are wider by ZONE_SPREAD_MINUTES, as another offset's local minutes may be that far from the same
 * moment) and
 * use the partial indexes notes_patient_start_idx, notes_provider_start_idx, notes_patient_date_idx and
 * notes_pa_service_idx.
 */
const TIME_RULES = `
  not exists (select 1 from notes o where o.patient_id = n.patient_id and o.deleted_at is null and o.start_at > n.start_at - ${1440 + B + Z} and o.start_at < n.end_at + ${B + Z} and o.id <> n.id and ${overlapSql(0, ZONE_SHIFT_SQL)})
  and not exists (select 1 from notes o where o.provider_id = n.provider_id and o.deleted_at is null and o.start_at > n.start_at - ${1440 + B + Z} and o.start_at < n.end_at + ${B + Z} and o.id <> n.id and ${overlapSql(B, ZONE_SHIFT_SQL, "n", "o", true)})
  and (select coalesce(sum(o.minutes), 0) from notes o where o.patient_id = n.patient_id and o.session_date = n.session_date and o.deleted_at is null and o.id <> n.id) + n.minutes <= ${NOTE_LIMITS.clientDayMinutes}
  and (select coalesce(sum(o.minutes), 0) from notes o where o.patient_id = n.patient_id and o.session_date between n.week_start and n.week_end and o.deleted_at is null and o.id <> n.id) + n.minutes <= ${NOTE_LIMITS.clientWeekMinutes}`;
const PA_RULE = `
  exists (select 1 from pa_services p where p.id = n.pa_service_id and p.patient_id = n.patient_id and p.deleted_at is null and p.cpt = n.cpt_code
    and p.start_date <= n.session_date and p.end_date >= n.session_date
    and (select coalesce(sum(o.units), 0) from notes o where o.pa_service_id = p.id and o.deleted_at is null and o.id <> n.id) + n.units <= p.n_units)`;
const RULES_SQL = sql.raw(`${TIME_RULES} and ${PA_RULE}`);
/** The rules but the PA service's: an update that leaves the PA service, CPT, date and units as stored (paTouched). */
const RULES_SQL_KEEPING_PA = sql.raw(TIME_RULES);

/** The columns of notes in table order: drizzle's INSERT … SELECT lists every one of them. */
const NOTE_COLUMNS = Object.entries(getTableColumns(notes)).map(([key, column]) => ({ key, name: column.name }));

/** The values the rules read (bound once in the CTE `n` of an update's condition). */
const RULE_KEYS = ["id", "patient_id", "provider_id", "pa_service_id", "cpt_code", "session_date", "start1_at", "end1_at", "start2_at", "end2_at", "start_at", "end_at", "utc_offset", "minutes", "units", "week_start", "week_end"];

/** INSERT … WITH n AS (…) SELECT … FROM n WHERE <rules>: inserts the note only when every rule holds. */
function conditionalInsert(ctx: ModelContext, values: WriteValues, type: NoteType, formToken: string | null) {
  const now = ctx.now().toISOString();
  const all: WriteValues = { ...values, type, created_by: ctx.actor.id, form_token: formToken, status: "pending", billed: 0, paid: 0, version: 1, deleted_at: null, created_at: now, updated_at: now };
  const missing = NOTE_COLUMNS.filter((c) => !(c.name in all));
  if (missing.length) throw new Error(`insertNote: no value for ${missing.map((c) => c.name).join(", ")}`);
  return ctx.db.insert(notes).select(sql`${cte(all)} select ${sql.raw(NOTE_COLUMNS.map((c) => `n."${c.name}"`).join(", "))} from n where ${RULES_SQL}${scopeFree(formToken)}`);
}

/** UPDATE … WHERE id, version, live AND EXISTS (WITH n AS (…) SELECT 1 FROM n WHERE <rules>): changes the note only when every rule holds and nobody saved first. */
function conditionalUpdate(ctx: ModelContext, values: WriteValues, expectedVersion: number, also: SQL | undefined, checkPa: boolean) {
  const fixed = new Set(["id", "patient_id", "location_id"]);
  const set: Record<string, unknown> = {};
  for (const c of NOTE_COLUMNS) if (c.name in values && !fixed.has(c.name)) set[c.key] = values[c.name];
  const rules: WriteValues = Object.fromEntries(RULE_KEYS.map((k) => [k, values[k] ?? null]));
  return ctx.db
    .update(notes)
    .set({ ...(set as Partial<typeof notes.$inferInsert>), version: sql`${notes.version} + 1` })
    .where(and(eq(notes.id, values.id as number), eq(notes.version, expectedVersion), isNull(notes.deletedAt), also, sql`exists (${cte(rules)} select 1 from n where ${checkPa ? RULES_SQL : RULES_SQL_KEEPING_PA})`));
}

/** 1 when a note's client was deleted: the note still takes its provider's time, but no screen shows it, so a refusal says whose it is (NOTE_MESSAGES.ofDeletedClient). */
export const noteOfDeletedClient = sql<number>`(select "deleted_at" is not null from "patients" where "patients"."id" = "notes"."patient_id")`;

/** The surroundings of a session for firstRefusal: read only when a write was refused (decision 024). */
async function surroundings(ctx: ModelContext, input: NoteInput, times: SessionTimes, selfId: number): Promise<Surroundings> {
  const db = primaryOf(ctx.db);
  const week = weekOf(input.session_date);
  const intervalCols = {
    id: notes.id,
    s1: notes.start1At,
    e1: notes.end1At,
    s2: notes.start2At,
    e2: notes.end2At,
    in1: notes.timeIn,
    out1: notes.timeOut,
    in2: notes.timeIn2,
    out2: notes.timeOut2,
    off: notes.utcOffset,
    zone: sql<string | null>`(select "time_zone" from "locations" where "locations"."id" = "notes"."location_id")`,
    gone: noteOfDeletedClient,
    patient: notes.patientId,
  };
  const near = (column: typeof notes.patientId | typeof notes.providerId, id: number, w: { from: number; to: number }) =>
    db
      .select(intervalCols)
      .from(notes)
      .where(and(eq(column, id), isNull(notes.deletedAt), sql`${notes.startAt} > ${w.from}`, sql`${notes.startAt} < ${w.to}`, sql`${notes.id} <> ${selfId}`))
      .orderBy(asc(notes.startAt));
  const minutes = (range: SQL) =>
    db
      .select({ m: sql<number>`coalesce(sum(${notes.minutes}), 0)` })
      .from(notes)
      .where(and(eq(notes.patientId, input.patient_id), isNull(notes.deletedAt), range, sql`${notes.id} <> ${selfId}`));
  const [client, provider, [day], [wk], [pa]] = await db.batch([
    // The client's and the provider's on every offset: as wide as RULES_SQL's scans.
    near(notes.patientId, input.patient_id, scanWindow(times, B, Z)),
    near(notes.providerId, input.provider_id, scanWindow(times, B, Z)),
    minutes(sql`${notes.sessionDate} = ${input.session_date}`),
    minutes(sql`${notes.sessionDate} between ${week.start} and ${week.end}`),
    db
      .select({
        cpt: paServices.cpt,
        start_date: paServices.startDate,
        end_date: paServices.endDate,
        n_units: paServices.nUnits,
        spent_units: sql<number>`(select coalesce(sum(o.units), 0) from notes o where o.pa_service_id = "pa_services"."id" and o.deleted_at is null and o.id <> ${selfId})`,
      })
      .from(paServices)
      .where(and(eq(paServices.id, input.pa_service_id), eq(paServices.patientId, input.patient_id), isNull(paServices.deletedAt))),
  ]);
  const intervals = (rows: (Parameters<typeof storedPairs>[0] & { id: number; off: number | null; zone: string | null; gone: number; patient: number })[]): NoteIntervals[] =>
    rows.map((r) => ({
      id: r.id,
      utcOffset: r.off,
      zone: r.zone,
      clientDeleted: Number(r.gone) === 1,
      sameClient: r.patient === input.patient_id,
      pairs: storedPairs(r),
    }));
  return {
    clientNotes: intervals(client),
    providerNotes: intervals(provider),
    dayMinutes: Number(day?.m ?? 0),
    weekMinutes: Number(wk?.m ?? 0),
    pa: pa ? { ...pa, spent_units: Number(pa.spent_units) } : null,
  };
}

/**
 * The list cache's version bump, placed last in a write's batch and run only when the statement
 * before it (the audit row, or an amendment's kept version, both conditioned on the write) inserted a row.
 */
function bumpIfWritten(ctx: ModelContext) {
  return bumpListVersionIfChanged(ctx.db, NOTES);
}

/** Whether a batch's write statement (run) changed a row. */
function changed(result: unknown): boolean {
  return Number((result as { meta?: { changes?: number } })?.meta?.changes ?? 0) > 0;
}

const refused = (r: Refusal) => invalid({ [r.field]: r.message });

/* ------------------------------------------------------------------ references */

/** A staff member of the client's location (provider, supervisor), and whether they may be chosen (choosableStaff: active); the location may be a subquery. */
function staffOfLocation(db: Db, userId: number, locationId: number | SQL) {
  return db
    .select({ id: users.id, choosable: isChoosableStaff() })
    .from(users)
    .innerJoin(userLocations, eq(userLocations.userId, users.id))
    .where(and(eq(users.id, userId), typeof locationId === "number" ? eq(userLocations.locationId, locationId) : sql`${userLocations.locationId} = ${locationId}`, isNull(users.deletedAt)));
}

/** The plan ids a note's content names (goals from the client's BIPs). */
function contentPlanIds(c: NoteContent): number[] {
  const ids = new Set<number>();
  for (const list of [c.maladaptives, c.replacements, c.replacement_percentages, c.caregiver_goals]) for (const e of list ?? []) if (e.plan_id != null) ids.add(e.plan_id);
  return [...ids];
}

interface RefsToCheck {
  provider: number | null;
  supervisor: number | null;
  bip: number | null;
  plans: number[];
}

/**
 * The reads that check a note's references (provider and supervisor: staff of the client's location, the
 * supervisor with their credential; BIP and goals: the client's), to ride in a batch. `locationId` may be a
 * subquery on the client.
 */
function refReads(db: Db, patientId: number, locationId: number | SQL, refs: RefsToCheck) {
  const none = db.select({ id: users.id }).from(users).where(sql`1 = 0`);
  return [
    refs.provider !== null ? staffOfLocation(db, refs.provider, locationId) : db.select({ id: users.id, choosable: sql<number>`0` }).from(users).where(sql`1 = 0`),
    refs.supervisor !== null ? supervisorOfLocation(db, refs.supervisor, locationId) : db.select({ id: users.id, credential: sql<string | null>`null`, choosable: sql<number>`0` }).from(users).where(sql`1 = 0`),
    refs.bip !== null ? db.select({ id: bips.id }).from(bips).where(and(eq(bips.id, refs.bip), eq(bips.patientId, patientId), isNull(bips.deletedAt))) : none,
    // The goals' ids written into the statement (idsIn): a note may name up to 400 (four lists of 100).
    refs.plans.length ? db.select({ id: plans.id }).from(plans).where(and(idsIn(plans.id, refs.plans), eq(plans.patientId, patientId), isNull(plans.deletedAt))) : none,
  ] as const;
}

/** A staff member of the client's location with the credential that says whether they may supervise (canSupervise), and whether they may be chosen. */
function supervisorOfLocation(db: Db, userId: number, locationId: number | SQL) {
  return db
    .select({ id: users.id, credential: providerCredentialSql(users.id), choosable: isChoosableStaff() })
    .from(users)
    .innerJoin(userLocations, eq(userLocations.userId, users.id))
    .where(and(eq(users.id, userId), typeof locationId === "number" ? eq(userLocations.locationId, locationId) : sql`${userLocations.locationId} = ${locationId}`, isNull(users.deletedAt)))
    .limit(1);
}

/**
 * 422 field errors for references that are not the client's (never revealing other locations: decision 017), for
 * a new provider or supervisor who is inactive (decision 037, stop 31), and for a new supervisor who is the
 * provider or cannot supervise (a BCBA or BCaBA: supervisorRefusal). Only the references the write changes are in
 * `refs`, so a stored inactive provider or supervisor stays.
 */
function refErrors(refs: RefsToCheck, providerId: number, [provider, supervisor, bip, planRows]: readonly { id: number; credential?: string | null; choosable?: number }[][]): Record<string, string> {
  const errors: Record<string, string> = {};
  if (refs.provider !== null && !provider!.length) errors.provider_id = NOTE_MESSAGES.providerOutOfScope;
  else if (refs.provider !== null && !provider![0]!.choosable) errors.provider_id = NOTE_MESSAGES.providerInactive;
  const supervising = refs.supervisor !== null && supervisor!.length ? supervisorRefusal(providerId, refs.supervisor, supervisor![0]!.credential ?? null) : null;
  if (refs.supervisor !== null && !supervisor!.length) errors.supervisor_id = NOTE_MESSAGES.supervisorOutOfScope;
  else if (refs.supervisor !== null && !supervisor![0]!.choosable) errors.supervisor_id = NOTE_MESSAGES.supervisorInactive;
  else if (supervising) errors.supervisor_id = supervising;
  if (refs.bip !== null && !bip!.length) errors.bip_id = NOTE_MESSAGES.bip;
  if (planRows!.length < refs.plans.length) errors.content = NOTE_MESSAGES.plan;
  return errors;
}

const manages = (ctx: ModelContext) => can(ctx.actor, "manage_notes");
const MODIFIERS_NEED_MANAGE = "Only a user with manage_notes may set modifiers.";
/** The field a body names a note's own price by (clinical §3's `unit_price` in dollars, or `unit_price_cents`): where its refusal is shown. */
const priceField = (raw: Record<string, unknown>) => (raw.unit_price !== undefined ? "unit_price" : "unit_price_cents");

/** A write's md, md2, md3 for modifierRefusal, beside the stored ones (none for a new note). */
type Modifiers = { md: string | null; md2: string | null; md3: string | null };
function modifierSlots(next: Modifiers, stored?: Modifiers): ModifierSlot[] {
  return (["md", "md2", "md3"] as const).map((field) => ({ field, code: next[field] ?? null, stored: stored ? (stored[field] ?? null) : null }));
}

/**
 * A billed note keeps what it billed (BILLED_NOTE_FIELDS: date, times, CPT, md/md2, place of service, PA service,
 * provider, own price) and is not deleted: its billing row, which scrubs the note it bills, unticks Billed first
 * (decision 034, stop 30). `next` is the note as the write leaves it; the first changed field is refused (`price`:
 * the field the body named the price by). md3 and the narrative are not billed and still change. The write is
 * conditional on the version read, so a note billed meanwhile makes the change a 409.
 */
function billedRefusal(stored: NoteJson, next: Partial<Record<(typeof BILLED_NOTE_FIELDS)[number], unknown>>, price = "unit_price_cents"): ModelResult<never> | null {
  if (!stored.billed) return null;
  const [field] = claimedNoteChanges(next, stored, BILLED_NOTE_FIELDS);
  return field ? invalid({ [field === "unit_price_cents" ? price : field]: NOTE_MESSAGES.billed }) : null;
}

/* ------------------------------------------------------------------ create */

/** `sent` (a PATCH over the stored note): checks only the values the body sends, as safeParseChange does. */
function parseNote(type: NoteType, raw: Record<string, unknown>, sent: ((keys: (string | number)[]) => boolean) | null = null): { ok: true; input: NoteInput } | { ok: false; result: ModelResult<never> } {
  // A PATCH's body arrives merged over the stored note, whose content holds no flat copy: two values are the body's own.
  const twice = contentSentTwiceErrors(raw);
  if (twice) return { ok: false, result: invalid(twice) };
  const input = noteBodyInput(type, raw);
  const parsed = sent ? safeParseChange(NoteBody, input, sent) : safeParsePlain(NoteBody, input);
  // A drawing must show ink (decision 040): checked on the drawings the body sends, beside the schema's errors.
  const drawings = NOTE_DRAWINGS.filter((field) => !sent || sent([field]));
  if (!parsed.success) {
    const errors = noteBodyErrors(type, fieldErrors(parsed.issues));
    return { ok: false, result: invalid({ ...errors, ...refuseInklessDrawing(input, drawings, errors) }) };
  }
  const inkless = refuseInklessDrawing(parsed.output, drawings);
  if (inkless) return { ok: false, result: invalid(inkless) };
  return { ok: true, input: parsed.output };
}

/** A note's drawn signatures. */
const NOTE_DRAWINGS = ["provider_signature", "supervisor_signature"] as const;

/** The values a note's PATCH body sends: its keys, and content fields sent flat or inside `content` (or all of a `content` that is not an object). */
function sentByNoteBody(raw: Record<string, unknown>): (keys: (string | number)[]) => boolean {
  return ([first, second]) => {
    if (first !== "content" || second === undefined) return Object.hasOwn(raw, String(first));
    if (raw.content !== undefined && !isPlainObject(raw.content)) return true;
    return raw[second] !== undefined || (isPlainObject(raw.content) && raw.content[second] !== undefined);
  };
}

const MAX_ATTEMPTS = 40;
const RACED = "Other notes changed while this one was saved. Save again.";

export const IDEMPOTENCY_KEY_REUSED = idempotencyKeyReused("note");

/** An Idempotency-Key's note is inserted only while its scope holds none (keyScopeFree). */
const scopeFree = (formToken: string | null) => keyScopeFree(notes, notes.formToken, formToken);

/** The note a form token already created (none without a token). */
function tokenRead(db: Db, formToken: string | null) {
  return db.select({ id: notes.id }).from(notes).where(formToken ? tokenMatch(notes.formToken, formToken) : sql`1 = 0`);
}

/**
 * The note a form token (or Idempotency-Key) already created, if the actor may see it; its read is recorded.
 * An Idempotency-Key sent before with another body answers 422 and names no note.
 */
async function replay(ctx: ModelContext, formToken: string): Promise<ModelResult<NoteJson>> {
  const [r] = await primaryOf(ctx.db).select({ id: notes.id, type: notes.type, formToken: notes.formToken }).from(notes).where(tokenMatch(notes.formToken, formToken));
  if (r && r.formToken !== formToken) return invalid({ form: IDEMPOTENCY_KEY_REUSED });
  const found = r ? await findNote(ctx, r.type, r.id, primaryOf(ctx.db)) : null;
  if (!found) return invalid({ form: "This form was already used. Open a new form to write another note." });
  await auditRead(ctx.db, who(ctx), readEntry(found), found.tail);
  return ok(found.note, NOTE_ALREADY_SAVED);
}

export const SCHEDULED_NOT_FOUND = "The scheduled session was not found.";
export const SCHEDULED_OTHER_CLIENT = "The scheduled session is another client's.";
export const SCHEDULED_OTHER_PROVIDER = "The scheduled session is another provider's: the note for it is written by its provider.";
export const scheduledOtherDate = (date: string) => `The scheduled session is on ${date}: write its note for that date.`;

/** A note's `scheduled_id` (form or API): null when absent or empty, false when malformed. */
function scheduledIdOf(x: unknown): number | null | false {
  if (x === undefined || x === null || x === "") return null;
  const text = typeof x === "number" ? String(x) : typeof x === "string" ? x.trim() : null;
  if (text === null || !/^[1-9]\d{0,14}$/.test(text)) return false;
  return Number(text);
}

/** The scheduled session a note is written for, when in the actor's scope (read in the create's lookup batch). */
function scheduledForNote(ctx: ModelContext, db: Db, scheduledId: number | null) {
  const s = scheduledSessions;
  const scope = locationScope(ctx.actor);
  return db
    .select({ id: s.id, patientId: s.patientId, providerId: s.providerId, sessionDate: s.sessionDate, status: s.status })
    .from(s)
    .innerJoin(patients, eq(patients.id, s.patientId))
    .where(
      scheduledId === null
        ? sql`1 = 0`
        : and(eq(s.id, scheduledId), patientScope(ctx), inLocationScope(s.locationId, scope)),
    );
}

/**
 * Marks a scheduled session written by a note, inside the note's create batch (decision 037): only when
 * `inserted` holds (the note's audit row was written), the session is still scheduled, the note's client's,
 * provider's and date's, and of the actor's locations.
 */
function markWritten(ctx: ModelContext, scheduledId: number, noteId: number, note: { patientId: number; providerId: number; sessionDate: string }, inserted: SQL) {
  const patientId = note.patientId;
  const s = scheduledSessions;
  const scope = locationScope(ctx.actor);
  return ctx.db
    .update(s)
    .set({ status: "written", noteId, version: sql`${s.version} + 1`, updatedAt: ctx.now().toISOString() })
    .where(
      and(
        eq(s.id, scheduledId),
        eq(s.status, "scheduled"),
        eq(s.patientId, patientId),
        eq(s.providerId, note.providerId),
        eq(s.sessionDate, note.sessionDate),
        inLocationScope(s.locationId, scope),
        inserted,
        sql`exists (select 1 from ${notes} where ${notes.id} = ${noteId} and ${notes.patientId} = ${patientId} and ${notes.deletedAt} is null)`,
      ),
    );
}

/**
 * Creates a note (form or API). `input` carries its `type` (the route's); a missing provider is the actor.
 * `formToken` (the form's one-time token, or the API's Idempotency-Key) makes a resend answer the first
 * note (message NOTE_ALREADY_SAVED) instead of creating a second. Round trips: one read batch (client,
 * location, references, next id, token, audit tail), one write batch; more only on a race or a refusal.
 */
export async function createNote(ctx: ModelContext, raw: Record<string, unknown>, opts: { formToken?: string | null } = {}): Promise<ModelResult<NoteJson>> {
  const type = raw.type as NoteType;
  if (!NOTE_TYPES.includes(type)) return invalid({ type: "Unknown note type." });
  const formToken = oneTimeToken(opts.formToken);
  const withProvider = raw.provider_id === undefined || raw.provider_id === null || raw.provider_id === "" ? { ...raw, provider_id: ctx.actor.id } : raw;
  const parsed = parseNote(type, withProvider);
  if (!parsed.ok) return parsed.result;
  const input = parsed.input;
  if (input.provider_id !== ctx.actor.id && !manages(ctx)) return denied(NOTE_MESSAGES.otherProvider);
  if ((input.md || input.md2 || input.md3) && !manages(ctx)) return invalid({ md: MODIFIERS_NEED_MANAGE });
  // A combined note's own price replaces the insurer's in billing: a billing fact, as the modifiers are (decision 023).
  if (input.unit_price_cents !== null && !manages(ctx)) return invalid({ [priceField(raw)]: NOTE_MESSAGES.priceNeedsManage });
  const badModifier = modifierRefusal(type, modifierSlots(input));
  if (badModifier) return refused(badModifier);
  // The supervisor's signature is written only by their countersignature, on a signed note (decision 023).
  if (writesSupervisorSignature(input, null)) return invalid({ supervisor_name: NOTE_MESSAGES.countersignOnView });
  const timed = sessionTimes(input);
  if (!timed.ok) return invalid(Object.fromEntries(timed.refusals.map((r) => [r.field, r.message])));

  const scheduledId = scheduledIdOf(raw.scheduled_id);
  if (scheduledId === false) return invalid({ scheduled_id: SCHEDULED_NOT_FOUND });

  const db = primaryOf(ctx.db);
  const refs: RefsToCheck = { provider: input.provider_id, supervisor: input.supervisor_id, bip: input.bip_id, plans: contentPlanIds(input.content) };
  const clientLocation = sql`(select ${patients.locationId} from ${patients} where ${patients.id} = ${input.patient_id})`;
  const [[patient], [next], byToken, scheduled, ...refRows] = await db.batch([
    db
      .select({ id: patients.id, locationId: patients.locationId, name: patientName, timeZone: locations.timeZone, locationTitle: locations.title, posCodes: locations.posCodes, tail: auditTail })
      .from(patients)
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .where(and(eq(patients.id, input.patient_id), patientScope(ctx))),
    db.select({ n: nextIdOf(notes) }).from(notes),
    tokenRead(db, formToken),
    scheduledForNote(ctx, db, scheduledId),
    // Read beside the client, answered only once the client is found in scope.
    ...refReads(db, input.patient_id, clientLocation, refs),
  ]);
  if (byToken.length) return replay(ctx, formToken!);
  // The client is a body reference (decision 017): another location's, or none, is 422 at patient_id, nothing written.
  if (!patient) return invalid({ patient_id: REFERENCE_MESSAGES.client });
  // The moment of the session: the client's location's UTC offset at its first start (the provider rules compare
  // moments), and the time that passed across a daylight-saving change.
  const zoned = inZone(timed.times, patient.timeZone, input.session_date);
  if (!zoned.ok) return invalid(Object.fromEntries(zoned.refusals.map((r) => [r.field, r.message])));
  const times = zoned.times;
  // The session the note is written for: in the actor's scope (else "not found", never naming another
  // location's) and the same client's; one no longer scheduled (cancelled, written) is left as it is.
  const found = scheduled[0];
  if (scheduledId !== null && !found) return invalid({ scheduled_id: SCHEDULED_NOT_FOUND });
  if (found && found.patientId !== input.patient_id) return invalid({ scheduled_id: SCHEDULED_OTHER_CLIENT });
  // The note is that session's: its provider's, on its date (else a note could take someone else's booking off
  // the schedule, and with it out of the overlap and cap checks).
  if (found && found.status === "scheduled" && found.providerId !== input.provider_id) return invalid({ scheduled_id: SCHEDULED_OTHER_PROVIDER });
  if (found && found.status === "scheduled" && found.sessionDate !== input.session_date) return invalid({ scheduled_id: scheduledOtherDate(found.sessionDate) });
  const markScheduled = found && found.status === "scheduled" ? found.id : null;
  const today = todayIn(ctx.now(), patient.timeZone);
  const dateRefusal = checkSessionDate(input.session_date, today, can(ctx.actor, "ignore_time_limits")) ?? sessionEndRefusal(times, ctx.now(), patient.timeZone, patient.locationTitle);
  if (dateRefusal) return refused(dateRefusal);
  const halfSigned = halfSignatureRefusal(input);
  if (halfSigned) return invalid(halfSigned);
  const signDate = isSigning(input) ? signDateRefusal("provider", input.provider_signed_on!, input.session_date, today) : null;
  if (signDate) return invalid({ provider_signed_on: signDate });
  // The place of service: one the client's location offers (the form's select).
  const badPos = posRefusal(input.pos, posCodesOf(patient.posCodes));
  const badRefs = { ...(badPos ? { [badPos.field]: badPos.message } : {}), ...refErrors(refs, input.provider_id, refRows) };
  if (Object.keys(badRefs).length) return invalid(badRefs);

  let id = Number(next?.n ?? 1);
  let tail: KnownTail = patient.tail;
  const signedAt = isSigning(input) ? ctx.now().toISOString() : null;
  let unexplained = 0;
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    if (attempt > 0) {
      // A retry: a fresh id, and the token again (a racing resend may have landed: its note is the answer).
      const [[n], sent] = await db.batch([db.select({ n: nextIdOf(notes) }).from(notes), tokenRead(db, formToken)]);
      if (sent.length) return replay(ctx, formToken!);
      id = Number(n?.n ?? 1);
      tail = undefined;
    }
    const values = writeValues(ctx, input, times, { id, locationId: patient.locationId, signedAt });
    try {
      const [inserted, , rows] = await withConditionalAudit(
        ctx.db,
        who(ctx),
        { action: "create", entity: "note", entityId: id, patientId: patient.id, detail: { patients: [patient.id], type, ...(markScheduled !== null ? { scheduled_id: markScheduled } : {}) } },
        (audit) => [
          conditionalInsert(ctx, values, type, formToken),
          audit(sql`changes() = 1`),
          ctx.db.select().from(notes).where(eq(notes.id, id)),
          bumpIfWritten(ctx),
          // The scheduled session it was written for, marked in the same transaction: only when the note was
          // inserted (its audit row is the chain's newest), still scheduled, the same client's, in scope.
          markScheduled !== null ? markWritten(ctx, markScheduled, id, { patientId: input.patient_id, providerId: input.provider_id, sessionDate: input.session_date }, audit.written) : ctx.db.select({ id: notes.id }).from(notes).where(sql`1 = 0`),
        ],
        tail,
      );
      const row = (rows as NoteRow[])[0];
      if (changed(inserted) && row) return ok(noteJson(row, patient.name), NOTE_CREATED);
      // A racing resend with the same token may be what refused this one (its note overlaps): answer that note.
      if (formToken && (await tokenRead(db, formToken)).length) return replay(ctx, formToken);
      const refusal = firstRefusal(input, times, await surroundings(ctx, input, times, id));
      if (refusal) return refused(refusal);
      // The rule that refused no longer holds (the other note changed meanwhile): try again, a few times.
      if (++unexplained >= 3) return invalid({ form: RACED });
    } catch (e) {
      if (formToken && isTokenRace(e, "notes.form_token")) return replay(ctx, formToken);
      if (isKeyRace(e)) continue;
      if (isChainRace(e)) {
        await chainBackoff(attempt);
        continue;
      }
      throw e;
    }
  }
  throw chainBusy();
}

/* ------------------------------------------------------------------ update (and amendment) */

export interface UpdateNoteOptions {
  /** The version the user edited (null: the current one). */
  version: number | null;
  /** PATCH: the body changes only the fields it names. */
  partial: boolean;
  /** Required to change a signed note: the amendment's reason. */
  amendmentReason?: string | null;
  /**
   * The note form (edit and amend screens) has no modifier fields: they are set on the view screen
   * (`setNoteModifiers`), so a screen edit keeps the stored md, md2, md3 whatever the body says.
   */
  keepModifiers?: boolean;
  /**
   * The note form shows none of clinical §3's extra content fields (NOTE_SPEC_FIELD_KEYS, written through the API):
   * its full save keeps the stored ones instead of dropping them (stop 25).
   */
  keepSpecContent?: boolean;
  /**
   * The note form's save (decision 025): a post on the version just before the stored one, when that stored version
   * is this user's own save of what this post would write (a form sent twice: a double click without JavaScript),
   * answers as that save did and writes nothing, instead of 409. Anything else on an older version stays 409.
   */
  resend?: boolean;
}

/**
 * The keys an update's body names, a `content` object counting by its own keys (flat or nested, the same fields): a body
 * whose content names only unknown keys changes nothing (probe 8895, stop 25). A `content` that is not an object
 * stays a key, for the schema to refuse.
 */
function namedNoteKeys(raw: Record<string, unknown>): Record<string, unknown> {
  const content = raw.content;
  if (!isPlainObject(content)) return raw;
  const { content: _content, ...rest } = raw;
  return { ...rest, ...content };
}

/**
 * The answer of the save that wrote the note's `version` when it was this actor's own edit or amendment (its audit
 * row names the version it wrote; an amendment also its reason, which the resend must repeat): "Note updated." or
 * "Note amended…". Null for any other writer or write (a status, modifiers, another user's save).
 */
async function ownSaveAgain(db: Db, ctx: ModelContext, id: number, version: number, amendmentReason: string | null | undefined): Promise<string | null> {
  if (ctx.actor.kind !== "user") return null;
  const [row] = await db
    .select({ action: auditLog.action, detail: auditLog.detail })
    .from(auditLog)
    .where(and(eq(auditLog.entity, "note"), eq(auditLog.entityId, String(id)), inArray(auditLog.action, ["update", "amend"]), eq(auditLog.actorType, ctx.actor.kind), eq(auditLog.actorId, ctx.actor.id), sql`json_extract(${auditLog.detail}, '$.version') = ${version}`))
    .orderBy(desc(auditLog.id))
    .limit(1);
  if (!row) return null;
  if (row.action === "update") return NOTE_UPDATED;
  const reason = parseWith(AmendmentReason, amendmentReason ?? "");
  let stored: unknown = null;
  try {
    stored = JSON.parse(row.detail ?? "null");
  } catch {
    return null;
  }
  return reason.ok && isPlainObject(stored) && stored.reason === reason.data ? NOTE_AMENDED : null;
}

/**
 * Changes a note: the same rules as a create (the note never conflicts with itself). A signed note
 * changes only as an amendment: it needs a reason, and the version it replaces is kept in note_versions
 * (in the same batch). The client of a note cannot change.
 */
export async function updateNote(ctx: ModelContext, type: NoteType, id: number, body: Record<string, unknown>, opts: UpdateNoteOptions): Promise<ModelResult<NoteJson>> {
  const db = primaryOf(ctx.db);
  const found = await findNote(ctx, type, id, db);
  if (!found) return notFound("Note");
  const current = found.note;
  // A read sent back with one of its two summaries edited saves the edit (decision 025, stop 42).
  const raw = withEditedSummary(body, current.summary_note);
  if (current.provider_id !== ctx.actor.id && !manages(ctx)) return denied(NOTE_MESSAGES.otherProvider);
  // Its client (`patient_id`, or the spec's `client_id`) and its location are fixed: another one, or a value that is no
  // record id, answers at the field; the stored one sent back is no change (decision 017, stops 43 to 45).
  const fixed = movedReferences(raw, {
    patient_id: [current.patient_id, NOTE_MESSAGES.patientReadOnly],
    client_id: [current.patient_id, NOTE_MESSAGES.patientReadOnly],
    location_id: [current.location_id, NOTE_MESSAGES.locationReadOnly],
  });
  if (fixed) return invalid(fixed);
  // The endpoint decides the type (decision 017, stop 42): the same type sent back is no change, another is refused.
  if (raw.type !== undefined && raw.type !== type) return invalid({ type: NOTE_MESSAGES.typeReadOnly });
  const { type: _type, ...named } = namedNoteKeys(raw);
  if (namesNoField(named, [...Object.keys(noteAsInput(current)), "unit_price"], NOTE_CONTENT_KEYS)) return nothingToChange();
  const base: Record<string, unknown> = opts.partial ? { ...noteAsInput(current), ...raw } : { patient_id: current.patient_id, provider_id: current.provider_id, ...raw };
  if (opts.partial) {
    // A PATCH changes the content fields it names, sent flat or inside `content`; the others stay.
    const flat = Object.fromEntries(NOTE_CONTENT_KEYS.filter((k) => raw[k] !== undefined).map((k) => [k, raw[k]]));
    const sent = raw.content;
    // A `content` that is not a plain object (null, text, a list) goes to the schema as it is, which refuses it.
    base.content = sent !== undefined && !isPlainObject(sent) ? sent : { ...noteAsInput(current).content, ...flat, ...(isPlainObject(sent) ? sent : {}) };
  }
  if (opts.keepModifiers) Object.assign(base, { md: current.md, md2: current.md2, md3: current.md3 });
  if (opts.keepSpecContent) {
    const sent = isPlainObject(raw.content) ? raw.content : {};
    for (const k of NOTE_SPEC_FIELD_KEYS) if (raw[k] === undefined && sent[k] === undefined && current.content[k] !== undefined) base[k] = current.content[k];
  }
  // Fields a body leaves out that it could not change anyway stay as they are: the supervisor's signature (only
  // the countersignature writes it) and, for a user without manage_notes, the modifiers and the note's own price.
  // A signed note stays signed, so a PUT that leaves out its provider's signature keeps it (stop 33); removing a
  // part of it is refused below (amendedSignatureRefusal).
  const kept: (keyof NoteJson)[] = [
    "supervisor_name",
    "supervisor_signed_on",
    "supervisor_signature",
    ...(current.signed_at ? (["provider_name", "provider_signed_on", "provider_signature"] as const) : []),
    ...(manages(ctx) ? [] : (["md", "md2", "md3", "unit_price_cents"] as const)),
  ];
  for (const k of kept) if (raw[k] === undefined) base[k] = current[k];
  // A body naming the price in dollars names it alone: the stored cents merged above are not a second price.
  if (raw.unit_price !== undefined) base.unit_price_cents = raw.unit_price_cents;
  const parsed = parseNote(type, base, opts.partial ? sentByNoteBody(raw) : null);
  if (!parsed.ok) return parsed.result;
  const input = parsed.input;
  if (writesSupervisorSignature(input, current)) return invalid({ supervisor_name: NOTE_MESSAGES.countersignOnView });
  // A signed note sent back unchanged is no amendment: it answers "Nothing to change" whether or not it names a
  // reason, never "needs a reason" first (decision 023, stop 37). A real change still needs the reason. A PATCH
  // that leaves every field as stored changes nothing either: no write, the version stays (decision 017, stop 42).
  const unchanged = changesNothing(input, noteAsInput(current));
  const unchangedSigned = Boolean(current.signed_at) && unchanged;
  let reason: string | null = null;
  if (current.signed_at && !unchangedSigned) {
    const r = parseWith(AmendmentReason, opts.amendmentReason ?? "");
    if (!r.ok) return invalid({ amendment_reason: opts.amendmentReason?.trim() ? Object.values(r.errors)[0]! : NOTE_MESSAGES.signed });
    reason = r.data;
  }
  if (opts.version !== null && opts.version !== current.version) {
    const again = opts.resend && current.version === opts.version + 1 && unchanged ? await ownSaveAgain(db, ctx, id, current.version, opts.amendmentReason) : null;
    return again ? ok(current, again) : conflict(current);
  }
  if (unchangedSigned || (opts.partial && unchanged)) return nothingToChange();
  // On a claim that is not rejected, what the claim billed stays (the write's WHERE holds it against a claim built meanwhile).
  const claimed = claimedNoteChanges(input, current);
  if (claimed.length && found.liveClaim) return invalid({ [claimed[0]!]: NOTE_MESSAGES.onClaim(found.liveClaim) });
  if (input.provider_id !== ctx.actor.id && !manages(ctx)) return denied(NOTE_MESSAGES.otherProvider);
  if ((input.md !== current.md || input.md2 !== current.md2 || input.md3 !== current.md3) && !manages(ctx)) return invalid({ md: MODIFIERS_NEED_MANAGE });
  const billed = billedRefusal(current, input, priceField(raw));
  if (billed) return billed;
  if (input.unit_price_cents !== current.unit_price_cents && !manages(ctx)) return invalid({ [priceField(raw)]: NOTE_MESSAGES.priceNeedsManage });
  const badModifier = modifierRefusal(type, modifierSlots(input, current));
  if (badModifier) return refused(badModifier);
  // The pairs' order is checked when a time changes: a note stored the other way round keeps its pairs (decision 024, stop 35).
  const timed = sessionTimes(input, current);
  if (!timed.ok) return invalid(Object.fromEntries(timed.refusals.map((r) => [r.field, r.message])));
  const zoned = inZone(timed.times, found.context.location.time_zone, input.session_date);
  if (!zoned.ok) return invalid(Object.fromEntries(zoned.refusals.map((r) => [r.field, r.message])));
  const times = zoned.times;
  const zone = found.context.location.time_zone;
  const dateRefusal = checkSessionDate(input.session_date, todayIn(ctx.now(), zone), can(ctx.actor, "ignore_time_limits")) ?? sessionEndRefusal(times, ctx.now(), zone, found.context.location.title);
  if (dateRefusal) return refused(dateRefusal);
  // Only the references the change names are checked (decision 017: an edit never fails on a link it did not touch),
  // and the place of service only when it changes (one the location has since dropped stays).
  const badPos = input.pos !== current.pos ? posRefusal(input.pos, found.posCodes) : null;
  if (badPos) return refused(badPos);
  const oldPlans = new Set(contentPlanIds(current.content));
  // The supervisor is never the provider: checked when either changes (a stored pair stays, as every reference
  // does); a changed supervisor is checked with their credential below (refErrors).
  const selfSupervised = input.provider_id !== current.provider_id ? supervisorRefusal(input.provider_id, input.supervisor_id) : null;
  if (selfSupervised) return invalid({ supervisor_id: selfSupervised });
  // The PA service likewise: checked (client, date, CPT, units left) only when the save changes one of those, so a
  // note whose PA service was deleted before deletes were refused can still be edited, signed and amended; the
  // scrubber keeps reporting it (probe 8931 §4).
  const paTouched = input.pa_service_id !== current.pa_service_id || input.cpt_code !== current.cpt_code || input.session_date !== current.session_date || times.units !== current.total_units;
  const refs: RefsToCheck = {
    provider: input.provider_id !== current.provider_id ? input.provider_id : null,
    supervisor: input.supervisor_id !== current.supervisor_id ? input.supervisor_id : null,
    bip: input.bip_id !== current.bip_id ? input.bip_id : null,
    plans: contentPlanIds(input.content).filter((p) => !oldPlans.has(p)),
  };
  if (refs.provider !== null || refs.supervisor !== null || refs.bip !== null || refs.plans.length) {
    const badRefs = refErrors(refs, input.provider_id, await db.batch([...refReads(db, current.patient_id, found.row.locationId, refs)]));
    if (Object.keys(badRefs).length) return invalid(badRefs);
  }

  const today = todayIn(ctx.now(), zone);
  // A new provider does not take over the signature (probe 8922 §1): a signed note becomes unsigned until they sign
  // it, and an unsigned one keeps only what the body newly types (withoutPreviousSignature).
  const newProvider = input.provider_id !== current.provider_id;
  const signing = newProvider ? withoutPreviousSignature(input, current) : input;
  const keptSignedAt = newProvider ? null : current.signed_at;
  // A signed note stays signed: an amendment may correct its name or date but not remove either, and a changed
  // date passes the date rule (stop 33). Signing now: a name with a date, from the session date to today.
  const signRefusal = keptSignedAt ? amendedSignatureRefusal(signing, current, today) : halfSignatureRefusal(signing);
  if (signRefusal) return invalid(signRefusal);
  const signDate = !keptSignedAt && isSigning(signing) ? signDateRefusal("provider", signing.provider_signed_on!, signing.session_date, today) : null;
  if (signDate) return invalid({ provider_signed_on: signDate });
  const signedAt = keptSignedAt ?? (isSigning(signing) ? ctx.now().toISOString() : null);
  // An amendment changes what the supervisor countersigned: the countersignature stays with the version it
  // signed (note_versions) and the amended note waits for a new one.
  const values = writeValues(ctx, reason !== null ? { ...signing, supervisor_name: "", supervisor_signed_on: null, supervisor_signature: null } : signing, times, { id, locationId: found.row.locationId, signedAt });
  const action = reason !== null ? "amend" : "update";
  for (let attempt = 0; attempt < 3; attempt++) {
    const [updated, , , rows] = await withConditionalAudit(
      ctx.db,
      who(ctx),
      // `version`: the version this save writes, so a resend of the same form can be told from another save (ownSaveAgain).
      { action, entity: "note", entityId: id, patientId: current.patient_id, detail: { patients: [current.patient_id], type, version: current.version + 1, ...(reason !== null ? { reason } : {}) } },
      (audit) => [
        conditionalUpdate(ctx, values, current.version, claimed.length ? sql`not exists (select 1 from ${liveClaimOf(id)})` : undefined, paTouched),
        audit(sql`changes() = 1`),
        // An amendment keeps the version it replaces, in the same batch (only when the update happened: the audit row did).
        reason !== null
          ? ctx.db.insert(noteVersions).select(sql`select null, ${id}, ${current.version}, ${JSON.stringify(current)}, ${reason}, ${ctx.actor.id}, ${ctx.now().toISOString()}, ${ctx.now().toISOString()} where changes() = 1`)
          : ctx.db.select({ id: notes.id }).from(notes).where(sql`1 = 0`),
        ctx.db.select().from(notes).where(and(eq(notes.id, id), eq(notes.version, current.version + 1))),
        bumpIfWritten(ctx),
      ],
      attempt === 0 ? found.tail : undefined,
    );
    const row = (rows as NoteRow[])[0];
    if (changed(updated) && row) {
      const message = reason !== null ? NOTE_AMENDED : NOTE_UPDATED;
      return ok(noteJson(row, current.patient_name), current.signed_at && !signedAt ? `${message} ${NOTE_MESSAGES.newProviderUnsigned}` : message);
    }
    const now = await findNote(ctx, type, id, db);
    if (!now) return notFound("Note");
    if (now.note.version !== current.version) return conflict(now.note);
    if (claimed.length && now.liveClaim) return invalid({ [claimed[0]!]: NOTE_MESSAGES.onClaim(now.liveClaim) });
    const refusal = firstRefusal(input, times, await surroundings(ctx, input, times, id), { pa: paTouched });
    if (refusal) return refused(refusal);
  }
  return invalid({ form: RACED });
}

/* ------------------------------------------------------------------ delete, status, modifiers */

/** A change that touches neither time nor units (status, modifiers, delete): one versioned statement and its audit row. */
async function simpleChange(
  ctx: ModelContext,
  type: NoteType,
  id: number,
  what: {
    action: string;
    set: Partial<typeof notes.$inferInsert>;
    message: string;
    version?: number | null;
    /**
     * Who may, decided on the note found in scope (its supervisor countersigns): a refusal, or null. Without it,
     * manage_notes is required before anything is read.
     */
    may?: (found: Found) => ModelResult<never> | null;
    /** A further condition of the update (the state `may` saw still holds). */
    where?: SQL;
    /**
     * The status asked for (setNoteStatus): a note that already has it is not written (no version bump, no audit row),
     * checked on the note read and again in the update's own condition (`status is not ?`), whose outcome the batch's
     * read-back tells (no further round trip): 422 "Nothing to change" (decision 023, 2026-11-28).
     */
    status?: NoteStatus;
    /** The change touches what a claim billed (delete, modifiers): refused while a claim that is not rejected holds the note. */
    claimed?: string;
    /**
     * When `need` holds for the note found, further reads (one batch, with the chain's tail) and a further write of the
     * change's batch decided on them, made only when the change was (`written`: the change's audit row is the chain's
     * newest). The change's write then chains to the tail read with them: on a chain race the note and the reads are
     * read and decided again, so a decision on data changed since is never written (decision 037, 2026-11-28).
     */
    follow?: {
      need: (found: Found) => boolean;
      reads: () => readonly BatchItem<"sqlite">[];
      decide: (results: unknown[], found: Found) => { also: (written: SQL) => BatchItem<"sqlite">; detail: Record<string, unknown>; message: string } | null;
    };
  },
): Promise<ModelResult<NoteJson>> {
  if (!what.may && !manages(ctx)) return denied();
  const db = primaryOf(ctx.db);
  for (let round = 0; round < FOLLOW_ROUNDS; round++) {
    const found = await findNote(ctx, type, id, db);
    if (!found) return notFound("Note");
    // The follow-up's reads, with the chain's tail they are decided on, only when `need` says so (one read batch more).
    const reads = what.follow?.need(found) ? await db.batch([...what.follow.reads(), db.select({ tail: auditTail }).from(notes).limit(1)] as unknown as [BatchItem<"sqlite">]) : null;
    const results = (reads ?? []) as unknown[];
    const readTail = reads ? ((results.pop() as { tail: string | null }[])[0]?.tail ?? null) : null;
    const current = found.note;
    if (what.version != null && what.version !== current.version) return conflict(current);
    if (what.status && current.status === what.status) return statusUnchanged(what.status);
    const refused = what.may?.(found);
    if (refused) return refused;
    if (what.claimed && found.liveClaim) return invalid({ [what.claimed]: NOTE_MESSAGES.onClaim(found.liveClaim) });
    const held = what.claimed ? sql`not exists (select 1 from ${liveClaimOf(id)})` : undefined;
    const followed = reads ? (what.follow!.decide(results, found) ?? null) : null;
    const entry = { action: what.action, entity: "note", entityId: id, patientId: current.patient_id, detail: { patients: [current.patient_id], type, ...followed?.detail } };
    const writes = (audit: ConditionalAudit): BatchItem<"sqlite">[] => [
      ctx.db
        .update(notes)
        .set({ ...what.set, version: sql`${notes.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(and(eq(notes.id, id), eq(notes.version, current.version), isNull(notes.deletedAt), what.where, held, what.status ? sql`${notes.status} is not ${what.status}` : undefined)),
      audit(sql`changes() = 1`),
      ctx.db.select().from(notes).where(eq(notes.id, id)),
      bumpIfWritten(ctx),
      ...(followed ? [followed.also(audit.written)] : []),
    ];
    let batch: unknown[];
    if (followed) {
      try {
        batch = await withConditionalAuditIfUnchanged(ctx.db, who(ctx), entry, writes, readTail);
      } catch (e) {
        // An audited write landed since the read: what was decided on it may no longer hold.
        if (isChainRace(e)) continue;
        throw e;
      }
    } else batch = await withConditionalAudit(ctx.db, who(ctx), entry, writes, found.tail);
    const [updated, , rows] = batch;
    const row = (rows as NoteRow[])[0];
    if (!changed(updated) || !row) {
      // The status was set meanwhile to the one asked for (a form sent twice): nothing written, nothing to change.
      if (what.status && row && row.version === current.version && !row.deletedAt && row.status === what.status) return statusUnchanged(what.status);
      const now = await findNote(ctx, type, id, db);
      if (now && what.claimed && now.liveClaim && now.note.version === current.version) return invalid({ [what.claimed]: NOTE_MESSAGES.onClaim(now.liveClaim) });
      return now ? conflict(now.note) : notFound("Note");
    }
    return ok(noteJson(row, current.patient_name), followed?.message ?? what.message);
  }
  return invalid({ form: RACED });
}

/** Read-decide-write rounds of a change with `follow` before it gives up on concurrent writers (422, RACED). */
const FOLLOW_ROUNDS = 5;

/**
 * Soft delete (manage_notes): the note leaves every list and its units go back to its PA service. A billed note stays.
 * The scheduled session it was written for goes back on the schedule when the booking rules still allow it, else it
 * is cancelled and the message says why (decision 037, 2026-11-28).
 */
export async function deleteNote(ctx: ModelContext, type: NoteType, id: number): Promise<ModelResult<NoteJson>> {
  if (!manages(ctx)) return denied();
  const now = ctx.now().toISOString();
  return simpleChange(ctx, type, id, {
    action: "delete",
    set: { deletedAt: now },
    message: NOTE_DELETED,
    // A billed note is not deleted (billedRefusal's rule); one on a live claim is answered by the claim's rule.
    may: ({ note, liveClaim }) => (note.billed && !liveClaim ? invalid({ form: NOTE_MESSAGES.billed }) : null),
    claimed: "form",
    // The scheduled session the note was written for (decision 037, stop 25; found by its note, scheduled_note_idx:
    // the note's date or times may have been edited since) is checked by the booking rules against the notes and
    // sessions read with the note (2026-11-28): scheduled again when it still fits (back on the calendar, counted by
    // the rules, "Write the note" offered), else cancelled, the delete's message and audit row saying why.
    follow: {
      need: (found) => found.writesSession,
      reads: () => noteSessionReads(ctx, id),
      decide: (results) => {
        const g = sessionGiveBack(results);
        if (!g) return null;
        return {
          also: (written) => settleNoteSession(ctx, id, g, written),
          detail: g.why === null ? { scheduled_id: g.id, scheduled: "scheduled" } : { scheduled_id: g.id, scheduled: "cancelled", cancelled_because: g.rule },
          message: g.why === null ? NOTE_DELETED : `${NOTE_DELETED} ${sessionCancelledOnDelete(g)}`,
        };
      },
    },
  });
}

const StatusBody = v.object({ status: v.picklist(NOTE_STATUSES, NOTE_MESSAGES.status) });

/** PUT …/update/status/{id} (manage_notes): pending or ok (clinical §4), saved at once. Allowed on signed notes (billing, not content). */
export async function setNoteStatus(ctx: ModelContext, type: NoteType, id: number, raw: Record<string, unknown>): Promise<ModelResult<NoteJson>> {
  const parsed = parseWith(StatusBody, { status: typeof raw.status === "string" ? raw.status.trim().toLowerCase() : raw.status });
  if (!parsed.ok) return invalid(parsed.errors);
  return simpleChange(ctx, type, id, { action: "status", set: { status: parsed.data.status }, status: parsed.data.status, message: "Status updated." });
}

/** A status change to the status the note has (a form or request sent twice): 422, nothing written (decision 023, 2026-11-28). */
function statusUnchanged(status: NoteStatus): ModelResult<never> {
  return invalid({ status: `Nothing to change: the status is already ${status === "ok" ? "OK" : "Pending"}.` });
}

/** A modifiers change to the codes the note has: 422, nothing written (decision 023, 2026-11-28). */
const MODIFIERS_UNCHANGED = "Nothing to change: the note already has these modifiers.";

const modifierField = v.optional(NoteModifier);
const ModifierBody = v.object({ md: modifierField, md2: modifierField, md3: modifierField });

/**
 * PUT …/update/modifier/{id} (manage_notes): md, md2, md3 — the ones the body names change. `version`: the note's
 * version the screen's form was opened on (the view's form sends all three codes): a stale one answers 409 with the
 * note as it is, nothing written (decision 030's rule for a stale save). The API sends none (no stale check).
 */
export async function setNoteModifiers(ctx: ModelContext, type: NoteType, id: number, raw: Record<string, unknown>, version: number | null = null): Promise<ModelResult<NoteJson>> {
  const parsed = parseWith(ModifierBody, { md: raw.md, md2: raw.md2, md3: raw.md3 });
  if (!parsed.ok) return invalid(parsed.errors);
  const set: Partial<typeof notes.$inferInsert> = {};
  if (parsed.data.md !== undefined) set.md = parsed.data.md;
  if (parsed.data.md2 !== undefined) set.md2 = parsed.data.md2;
  if (parsed.data.md3 !== undefined) set.md3 = parsed.data.md3;
  if (!Object.keys(set).length) return invalid({ md: "Send md, md2 or md3." });
  if (!manages(ctx)) return denied();
  return simpleChange(ctx, type, id, {
    action: "update_modifiers",
    set,
    version,
    // What the note then holds: the codes sent, and the stored ones for the fields the body leaves out.
    // A billed note's md/md2 stay (billedRefusal); one on a live claim is answered by the claim's rule below
    // instead, which names what to do first (void the claim).
    may: ({ note, liveClaim }) => {
      const next = { md: note.md, md2: note.md2, md3: note.md3, ...set };
      // The codes the note already has (a form sent twice, or saved as shown): nothing written, as a status (decision 023).
      const same = (a: string | null | undefined, b: string | null | undefined) => (a || null) === (b || null);
      if (same(next.md, note.md) && same(next.md2, note.md2) && same(next.md3, note.md3)) return invalid({ md: MODIFIERS_UNCHANGED });
      const bad = modifierRefusal(type, modifierSlots(next, note));
      return bad ? refused(bad) : liveClaim ? null : billedRefusal(note, { ...note, ...next });
    },
    message: "Modifiers updated.",
    claimed: "md",
  });
}

/**
 * The supervisor's countersignature (decision 023, stop 22): the user named as the note's supervisor signs a
 * note its provider has signed — typed name, a date from the session date to today at the client's location,
 * the drawn image when given. It changes no clinical content, so it is not an amendment: one conditional
 * update (the version read, not yet countersigned) with its audit row. Anyone else: 403; a note out of scope:
 * 404; a stale version or a countersignature that landed first: 409 with the note as it is.
 */
export async function countersignNote(ctx: ModelContext, type: NoteType, id: number, raw: Record<string, unknown>): Promise<ModelResult<NoteJson>> {
  const parsed = parseWith(CountersignInput, raw);
  if (!parsed.ok) return invalid({ ...parsed.errors, ...refuseInklessDrawing(raw, ["supervisor_signature"], parsed.errors) });
  const inkless = refuseInklessDrawing(parsed.data, ["supervisor_signature"]);
  if (inkless) return invalid(inkless);
  const input = parsed.data;
  return simpleChange(ctx, type, id, {
    action: "countersign",
    version: input.version,
    may: ({ note, context, supervisorQualified }) => {
      if (note.supervisor_id !== ctx.actor.id || ctx.actor.kind !== "user") return denied(NOTE_MESSAGES.countersignNotSupervisor);
      // A note stored before the supervisor rule may name its provider as supervisor, or someone who cannot supervise
      // (an RBT): they still cannot countersign it. The credential is the one read now, as a new supervisor's is.
      if (note.provider_id === ctx.actor.id) return denied(NOTE_MESSAGES.countersignOwnNote);
      // 422, not the Access Denied page: the view says why (the note names them, but only a BCBA or BCaBA countersigns).
      if (!supervisorQualified) return invalid({ form: NOTE_MESSAGES.countersignNotQualified });
      if (!note.signed_at) return invalid({ form: NOTE_MESSAGES.countersignUnsigned });
      if (note.supervisor_signed_on) return invalid({ form: NOTE_MESSAGES.countersignTwice });
      const date = signDateRefusal("supervisor", input.supervisor_signed_on, note.session_date, todayIn(ctx.now(), context.location.time_zone));
      return date ? invalid({ supervisor_signed_on: date }) : null;
    },
    set: { supervisorName: input.supervisor_name, supervisorSignedOn: input.supervisor_signed_on, supervisorSignature: input.supervisor_signature },
    where: and(isNull(notes.supervisorSignedOn), eq(notes.supervisorId, ctx.actor.id)),
    message: "Note countersigned.",
  });
}

/* ------------------------------------------------------------------ form configuration and replacements */

/** A JSON array of titles as SQLite's json_group_array answers it (null or unreadable: none). */
function parseTitles(json: string | null): string[] {
  if (!json) return [];
  try {
    const list = JSON.parse(json) as unknown;
    return Array.isArray(list) ? list.filter((x): x is string => typeof x === "string").map((x) => x.trim()).filter(Boolean) : [];
  } catch {
    return [];
  }
}

export interface NoteConfig {
  type: NoteType;
  cpt_codes: readonly string[];
  subtypes: readonly string[];
  statuses: readonly string[];
  modifiers: { code: string; meaning: string }[];
  /** With a client: its location's POS codes, staff (providers and supervisors), BIPs, goals and PA services. */
  client: {
    patient_id: number;
    patient_name: string;
    location_id: number;
    time_zone: string;
    today: string;
    pos_codes: string[];
    providers: { id: number; name: string }[];
    /** The staff who may supervise a note (a BCBA or BCaBA: canSupervise); the form offers them but the provider. */
    supervisors: { id: number; name: string }[];
    /**
     * Only with `editedNoteId`: the edited note's stored provider and supervisor who are no longer staff of its
     * location or no longer choosable (they left it, were made inactive or were deleted), so its form names them in their own
     * fields (goneStaffLabel).
     */
    departed?: { id: number; name: string; gone: StaffGone }[];
    bips: { id: number }[];
    /** The interventions named in the client's live BIPs (titles, newest BIP first, each once). */
    interventions: string[];
    maladaptives: { plan_id: number; name: string; bip_id: number }[];
    replacements: { plan_id: number; name: string; bip_id: number }[];
    caregiver_goals: { plan_id: number; name: string; bip_id: number }[];
    /**
     * The client's live PA services for the note's CPT codes; with `session_date` (and `cpt_code`), only those covering it.
     * With `editedNoteId` (the edit screen), also that note's own PA service when it was deleted (`deleted: true`), so
     * the form keeps it and an untouched save does not fail on it (probe 8931 §4). Their spent and available units,
     * like the meter's, leave that note out (decision 031).
     */
    pa_services: { id: number; pa_service: string; cpt: string; n_units: number; spent_units: number; available_units: number; start_date: string; end_date: string; meter: PaMeter; deleted?: true }[];
  } | null;
}

const ConfigQuery = v.object({
  patient_id: FilterId,
  session_date: dateFilter,
  cpt_code: v.optional(v.string(), ""),
});

/** The active goals of a client's live BIPs, by category (one statement). */
function goalsQuery(ctx: ModelContext, patientId: number, categories: string[]) {
  return ctx.db
    .select({ plan_id: plans.id, name: plans.name, bip_id: plans.bipId, category: plans.category })
    .from(plans)
    .innerJoin(bips, eq(bips.id, plans.bipId))
    .where(and(eq(plans.patientId, patientId), isNull(plans.deletedAt), isNull(bips.deletedAt), eq(plans.status, "active"), inArray(plans.category, categories)))
    .orderBy(asc(plans.category), asc(plans.position), asc(plans.id));
}

/**
 * The weekly units meter's facts of a PA service (clinical §2, decision 031): its units this week at the client's
 * location and its units left, both without the note being edited (`editedNoteId`), and the weekly average.
 */
export interface PaMeter {
  used_units_this_week: number;
  average_units_per_week: number;
  available_units: number;
  week_start_date: string;
  week_end_date: string;
}

/** A note form's options that do not depend on a client. */
function configBase(type: NoteType) {
  return {
    type,
    cpt_codes: NOTE_CPT_CODES[type],
    subtypes: NOTE_SUBTYPES,
    statuses: NOTE_STATUSES,
    modifiers: fittingModifiers(type).map((m) => ({ code: m.code, meaning: m.meaning })),
  };
}

/**
 * What a note form needs (GET …/config): the CPT codes of the type, subtypes, statuses and modifiers;
 * with `patient_id`, the client's location (POS codes, time zone and today, staff), BIPs, active goals
 * and the PA services that cover `session_date` and `cpt_code` (all of the type's codes when absent).
 * A client out of scope answers 404; a client's options are an audited read. With `editedNoteId` (the edit
 * form) the note's stored location decides, as it does for the note's save (decision 017): the client is
 * found through that note in scope, and the location's facts (staff, POS codes, time zone) are the note's
 * location's, the ones updateNote checks, also after the client moved elsewhere.
 */
export async function noteConfig(ctx: ModelContext, type: NoteType, patientOrQuery: number | Record<string, unknown> = {}, opts: { editedNoteId?: number | null } = {}): Promise<ModelResult<NoteConfig>> {
  const raw: Record<string, unknown> = typeof patientOrQuery === "number" ? { patient_id: patientOrQuery } : patientOrQuery;
  const parsed = parseWith(ConfigQuery, { patient_id: raw.patient_id == null ? "" : String(raw.patient_id), session_date: raw.session_date ?? "", cpt_code: raw.cpt_code ?? "" });
  if (!parsed.ok) return invalid(parsed.errors);
  const q = parsed.data;
  const base = configBase(type);
  if (q.patient_id === "") return ok({ ...base, client: null });
  const patientId = q.patient_id;
  const edited = opts.editedNoteId ?? null;
  const columns = { id: patients.id, name: patientName, timeZone: locations.timeZone, posCodes: locations.posCodes, tail: auditTail };
  const [p] =
    edited === null
      ? await ctx.db
          .select({ ...columns, locationId: patients.locationId })
          .from(patients)
          .innerJoin(locations, eq(locations.id, patients.locationId))
          .where(and(eq(patients.id, patientId), patientScope(ctx)))
      : await ctx.db
          .select({ ...columns, locationId: notes.locationId })
          .from(notes)
          .innerJoin(patients, eq(patients.id, notes.patientId))
          .innerJoin(locations, eq(locations.id, notes.locationId))
          .where(and(eq(notes.id, edited), eq(notes.patientId, patientId), noteScope(ctx)));
  if (!p) return notFound("Client");
  const entry = { entity: "patient", entityId: patientId, patientId, detail: { patients: [patientId], for: `note_${type}_config` } };
  return ok({ ...base, client: await clientConfig(ctx, type, q, { ...p, posCodes: posCodesOf(p.posCodes) }, edited, entry, p.tail) });
}

/**
 * The edit form of a note: the note in scope with the chain's tail; `allowed` decides whether the actor may open it
 * (403 otherwise, nothing recorded); then the form's options (noteConfig's, at the note's stored location) in the
 * batch of ONE audit row, the note's read as its view writes it (decision 019: session, note, batch = 3 round trips).
 */
export async function noteEditForm(ctx: ModelContext, type: NoteType, id: number, allowed: (note: NoteJson) => boolean): Promise<ModelResult<{ note: NoteJson; config: NoteConfig }>> {
  const found = await findNote(ctx, type, id);
  if (!found) return notFound("Note");
  if (!allowed(found.note)) return denied();
  const q = { patient_id: found.row.patientId, session_date: "", cpt_code: "" } satisfies ConfigQuery;
  const head = { id: found.row.patientId, name: found.note.patient_name, timeZone: found.context.location.time_zone, posCodes: found.posCodes, locationId: found.row.locationId };
  const client = await clientConfig(ctx, type, q, head, id, readEntry(found), found.tail);
  return ok({ note: found.note, config: { ...configBase(type), client } });
}

type ConfigQuery = v.InferOutput<typeof ConfigQuery>;

/** The client part of a note form's options: the reads ride in the batch of the audit row `entry` (chained to `tail`). */
async function clientConfig(
  ctx: ModelContext,
  type: NoteType,
  q: ConfigQuery,
  p: { id: number; name: string; timeZone: string; posCodes: string[]; locationId: number },
  edited: number | null,
  entry: Omit<AuditEntry, "action">,
  tail: KnownTail,
): Promise<NonNullable<NoteConfig["client"]>> {
  const patientId = p.id;
  const cpts = q.cpt_code && NOTE_CPT_CODES[type].includes(q.cpt_code) ? [q.cpt_code] : [...NOTE_CPT_CODES[type]];
  const today = todayIn(ctx.now(), p.timeZone);
  const week = currentWeek(today);
  // The location's active staff (choosableStaff), then (editing) the note's stored provider and supervisor who are no longer among them.
  // Columns written out with their table: in a select from one table drizzle leaves them unqualified, which the
  // subqueries' own tables would capture.
  const departed = ctx.db
    .select({
      id: sql<number>`"users"."id"`.as("id"),
      name: sql<string>`"users"."name"`.as("name"),
      surname: sql<string>`"users"."surname"`.as("surname"),
      credential: sql<string | null>`null`.as("credential"),
      gone: whyNotChoosable().as("gone"),
    })
    .from(users)
    .where(
      edited === null
        ? sql`1 = 0`
        : sql`"users"."id" in (select "provider_id" from "notes" where "notes"."id" = ${edited} union select "supervisor_id" from "notes" where "notes"."id" = ${edited}) and not ${choosableStaffAt(p.locationId)}`,
    );
  const [staff, bipRows, goals, pas, meterUnits] = await auditedRead(
    ctx.db,
    who(ctx),
    entry,
    () => [
      ctx.db
        .select({ id: users.id, name: users.name, surname: users.surname, credential: providerCredentialSql(users.id), gone: sql<StaffGone | null>`null`.as("gone") })
        .from(users)
        .innerJoin(userLocations, eq(userLocations.userId, users.id))
        .where(and(eq(userLocations.locationId, p.locationId), choosableStaff()))
        .unionAll(departed)
        .orderBy(asc(users.name), asc(users.surname)),
      // Each live BIP, newest first, with the titles of its interventions (the plan document's list section).
      ctx.db
        .select({ id: bips.id, interventions: sql<string | null>`(select json_group_array(json_extract(i.value, '$.title')) from json_each(${bips.document}, '$.interventions') i where trim(coalesce(json_extract(i.value, '$.title'), '')) <> '')` })
        .from(bips)
        .where(and(eq(bips.patientId, patientId), isNull(bips.deletedAt)))
        .orderBy(desc(bips.id)),
      goalsQuery(ctx, patientId, ["maladaptive", "replacement", "caregiver_training"]),
      ctx.db
        .select({
          id: paServices.id,
          pa_service: paServices.paService,
          cpt: paServices.cpt,
          n_units: paServices.nUnits,
          start_date: paServices.startDate,
          end_date: paServices.endDate,
          deleted: sql<number>`${paServices.deletedAt} is not null`,
        })
        .from(paServices)
        .where(
          and(
            eq(paServices.patientId, patientId),
            edited == null
              ? isNull(paServices.deletedAt)
              : or(isNull(paServices.deletedAt), sql`${paServices.id} = (select ${notes.paServiceId} from ${notes} where ${notes.id} = ${edited})`),
            inArray(paServices.cpt, cpts),
            q.session_date ? sql`${paServices.startDate} <= ${q.session_date} and ${paServices.endDate} >= ${q.session_date}` : undefined,
          ),
        )
        .orderBy(asc(paServices.endDate), asc(paServices.id)),
      meterUnitsQuery(ctx, patientId, week.week_start_date, week.week_end_date, edited),
    ],
    tail,
  );
  // One figure of each PA service's units, without the edited note (decision 031): the option's "units left" and the
  // meter's come from it alike.
  const unitsOf = (x: { id: number; n_units: number }) => {
    const m = meterUnits.find((r) => r.paServiceId === x.id);
    const spent = Number(m?.spent ?? 0);
    return { week: Number(m?.week ?? 0), spent_units: spent, available_units: x.n_units - spent };
  };
  const meterOf = (x: { id: number; n_units: number; start_date: string; end_date: string }): PaMeter => {
    const u = unitsOf(x);
    return {
      used_units_this_week: u.week,
      average_units_per_week: averageUnitsPerWeek(x.n_units, x.start_date, x.end_date),
      available_units: u.available_units,
      ...week,
    };
  };
  const members = staff.filter((s) => !s.gone);
  const byCategory = (c: string) => goals.filter((g) => g.category === c).map(({ plan_id, name, bip_id }) => ({ plan_id, name, bip_id }));
  return {
      patient_id: p.id,
      patient_name: p.name,
      location_id: p.locationId,
      time_zone: p.timeZone,
      today,
      pos_codes: p.posCodes,
      providers: members.map((s) => ({ id: s.id, name: `${s.name} ${s.surname}`.trim() })),
      supervisors: members.filter((s) => canSupervise(s.credential)).map((s) => ({ id: s.id, name: `${s.name} ${s.surname}`.trim() })),
      ...(edited === null ? {} : { departed: staff.flatMap((s) => (s.gone ? [{ id: s.id, name: `${s.name} ${s.surname}`.trim(), gone: s.gone }] : [])) }),
      bips: bipRows.map((b) => ({ id: b.id })),
      interventions: [...new Set(bipRows.flatMap((b) => parseTitles(b.interventions)))],
      maladaptives: byCategory("maladaptive"),
      replacements: byCategory("replacement"),
      caregiver_goals: byCategory("caregiver_training"),
      pa_services: pas.map(({ deleted, ...x }) => {
        const { spent_units, available_units } = unitsOf(x);
        return { ...x, spent_units, available_units, meter: meterOf(x), ...(Number(deleted) ? { deleted: true as const } : {}) };
      }),
  };
}

export interface ReplacementOfPatient {
  plan_id: number;
  bip_id: number;
  name: string;
  /** The latest RBT note data for the goal: trials and correct responses, with the note's date. */
  last: { note_id: number; session_date: string; total_trials: number | null; correct_responses: number | null } | null;
}

/**
 * GET /note_rbt/showReplacementBypatient/{id}: the client's active replacement goals, each with its data
 * from the client's latest RBT note that measured it. Null when the client is out of scope. Audited.
 */
export async function replacementsByPatient(ctx: ModelContext, patientId: number): Promise<ReplacementOfPatient[] | null> {
  const [p] = await ctx.db.select({ id: patients.id, tail: auditTail }).from(patients).where(and(eq(patients.id, patientId), patientScope(ctx)));
  if (!p) return null;
  const [goals, recent] = await auditedRead(
    ctx.db,
    who(ctx),
    { entity: "patient", entityId: patientId, patientId, detail: { patients: [patientId], for: "note_rbt_replacements" } },
    () => [
      goalsQuery(ctx, patientId, ["replacement"]),
      ctx.db
        .select({ id: notes.id, sessionDate: notes.sessionDate, content: notes.content })
        .from(notes)
        .where(and(eq(notes.patientId, patientId), eq(notes.type, "rbt"), isNull(notes.deletedAt)))
        .orderBy(desc(notes.sessionDate), desc(notes.startAt))
        .limit(30),
    ],
    p.tail,
  );
  return goals.map((g) => {
    let last: ReplacementOfPatient["last"] = null;
    for (const n of recent) {
      const hit = (parseContent(n.content).replacements ?? []).find((r) => r.plan_id === g.plan_id);
      if (hit) {
        last = { note_id: n.id, session_date: n.sessionDate, total_trials: hit.total_trials, correct_responses: hit.correct_responses };
        break;
      }
    }
    return { plan_id: g.plan_id, bip_id: g.bip_id, name: g.name, last };
  });
}

const StoreReplacements = v.object({
  note_id: v.pipe(v.union([v.string(), v.number()], "Choose the RBT note (note_id)."), v.transform(Number), v.number("Choose the RBT note (note_id)."), v.integer("Choose the RBT note (note_id)."), v.minValue(1, "Choose the RBT note (note_id).")),
  // The payload itself: a request without it changes nothing (an empty list still clears the data). Its entries are NoteBody's.
  replacements: v.array(v.unknown(), "Send the replacement data as a list (replacements)."),
});

/**
 * POST /note_rbt/storeReplacemts (decision 023): saves the replacement data (goal, trials, correct
 * responses) of an RBT note — a partial update of its content.replacements through updateNote, so the
 * same permission, version, signature and amendment rules apply. Body: note_id, replacements, and
 * optionally version and amendment_reason.
 */
export async function storeReplacements(ctx: ModelContext, raw: Record<string, unknown>, opts: { version: number | null }): Promise<ModelResult<NoteJson>> {
  const ref = parseWith(StoreReplacements, { note_id: raw.note_id ?? "", replacements: raw.replacements ?? null });
  if (!ref.ok) return invalid(ref.errors);
  return updateNote(ctx, "rbt", ref.data.note_id, { content: { replacements: ref.data.replacements } }, { partial: true, version: opts.version, amendmentReason: typeof raw.amendment_reason === "string" ? raw.amendment_reason : null });
}

/* ------------------------------------------------------------------ AI summary */

/** A summary request that names neither its client nor a stored note (decision 026, stop 41). */
export const SUMMARY_CLIENT_FIRST = "Choose the client first.";

/** The client's details kept in `patients.details` that a summary must not repeat, read by key. */
const CLIENT_DETAIL_IDENTIFIERS = ["email", "phone", "home_phone", "work_phone", "city", "zip", "insuranceId", "insuranceId_secondary", "insured_policy_group", "eqhlid", "secondary_eqhlid", "school_name", "parent_city", "parent_zip", "parent_birth_date"] as const;
const CLIENT_DETAIL_ADDRESSES = ["address", "parent_address"] as const;
const CLIENT_DETAIL_NAMES = ["parent_name", "referring_provider_first_name", "referring_provider_last_name"] as const;
const detailOf = (key: string) => sql<unknown>`json_extract(${patients.details}, ${`$.${key}`})`;
const secondaryInsurers = alias(insurances, "secondary_insurers");

/**
 * Before a note's AI summary is asked for (decision 026, stops 33 and 41): the client the request is about, in the
 * actor's scope, with what the summary must not repeat; or the refusal, before anything is sent.
 * - The client: the stored note's when the request summarises one (`noteId`: the edit and amend screens; `note_id` in
 *   an API body), of the note's type and in the actor's note scope, whatever client the body names; else the body's
 *   `patient_id`, found as their notes are (clientFound). Not found or malformed: 404, nothing sent or recorded.
 *   Neither: 422 at `patient_id` ("Choose the client first."), nothing read, sent or recorded.
 * - What it must not repeat, in the same one statement (with the audit chain's tail): the client's first and last
 *   name (→ "the client"); the parents' names (the parent account's and the details' parent name) and the referring
 *   provider's; and, cut whole in any letter case, the client's address and city, ZIP, phones, email, birth date,
 *   identifier, member ids, insurers' names and school, and the parent account's address, city, ZIP, phones and email.
 * - The disclosure's audit row (`ai_summary`: who, the client, the note when known, the note type and the provider;
 *   never the content) is written after that read and before the provider is asked.
 */
export async function noteSummaryDisclosure(ctx: ModelContext, note: Record<string, unknown>, provider: string, noteId: number | null = null): Promise<SummaryDisclosure> {
  const given = (v: unknown) => v !== undefined && v !== null && v !== "";
  const type = typeof note.type === "string" && (NOTE_TYPES as readonly string[]).includes(note.type) ? (note.type as NoteType) : null;
  const storedId = noteId ?? (given(note.note_id) ? pathId(String(note.note_id).trim()) : null);
  if (noteId === null && given(note.note_id) && storedId === null) return { ok: false, status: 404, message: "Note not found." };
  const bodyClient = given(note.patient_id) ? pathId(String(note.patient_id).trim()) : null;
  if (storedId === null) {
    if (!given(note.patient_id)) return { ok: false, status: 422, message: SUMMARY_CLIENT_FIRST, errors: { patient_id: SUMMARY_CLIENT_FIRST } };
    if (bodyClient === null) return { ok: false, status: 404, message: CLIENT_NOT_FOUND };
  }
  const columns = {
    patientId: patients.id,
    firstName: patients.firstName,
    lastName: patients.lastName,
    identifier: patients.patientIdentifier,
    birthDate: patients.birthDate,
    ...Object.fromEntries([...CLIENT_DETAIL_IDENTIFIERS, ...CLIENT_DETAIL_ADDRESSES, ...CLIENT_DETAIL_NAMES].map((k) => [`detail_${k}`, detailOf(k)])),
    accountName: parents.name,
    accountSurname: parents.surname,
    accountEmail: parents.email,
    accountPhone: parents.phone,
    accountWorkPhone: parents.workPhone,
    accountHomePhone: parents.homePhone,
    accountAddress: parents.address,
    accountCity: parents.city,
    accountZip: parents.zipCode,
    insurer: insurances.name,
    secondaryInsurer: secondaryInsurers.name,
    noteId: storedId === null ? sql<number | null>`null` : sql<number | null>`${notes.id}`,
    tail: auditTail,
  } as Record<string, unknown> as Record<string, SQL<unknown>>;
  const [p] =
    storedId === null
      ? await ctx.db
          .select(columns)
          .from(patients)
          .leftJoin(parents, eq(parents.id, patients.parentId))
          .leftJoin(insurances, eq(insurances.id, patients.insurerId))
          .leftJoin(secondaryInsurers, eq(secondaryInsurers.id, patients.insurerSecondaryId))
          .where(clientFound(ctx, bodyClient!))
      : await ctx.db
          .select(columns)
          .from(notes)
          .innerJoin(patients, eq(patients.id, notes.patientId))
          .leftJoin(parents, eq(parents.id, patients.parentId))
          .leftJoin(insurances, eq(insurances.id, patients.insurerId))
          .leftJoin(secondaryInsurers, eq(secondaryInsurers.id, patients.insurerSecondaryId))
          .where(and(eq(notes.id, storedId), type === null ? undefined : eq(notes.type, type), noteScope(ctx)));
  if (!p) return { ok: false, status: 404, message: storedId === null ? CLIENT_NOT_FOUND : "Note not found." };
  const row = p as Record<string, unknown>;
  const patientId = Number(row.patientId);
  const str = (v: unknown) => (typeof v === "string" ? v.trim() : typeof v === "number" && Number.isFinite(v) ? String(v) : "");
  const list = (values: unknown[]) => values.map(str).filter(Boolean);
  const detail = { patients: [patientId], type, provider };
  await withAudit(ctx.db, who(ctx), { action: "ai_summary", entity: "note", entityId: row.noteId == null ? null : Number(row.noteId), patientId, detail }, () => [], row.tail as KnownTail);
  const firstName = str(row.firstName);
  const lastName = str(row.lastName);
  return {
    ok: true,
    known: {
      client: [`${firstName} ${lastName}`, firstName, lastName],
      other: list([[str(row.accountName), str(row.accountSurname)].join(" "), ...CLIENT_DETAIL_NAMES.map((k) => row[`detail_${k}`])]),
      identifiers: list([
        row.identifier, row.birthDate, row.insurer, row.secondaryInsurer,
        ...CLIENT_DETAIL_IDENTIFIERS.map((k) => row[`detail_${k}`]),
        row.accountEmail, row.accountPhone, row.accountWorkPhone, row.accountHomePhone, row.accountCity, row.accountZip,
      ]),
      addresses: list([...CLIENT_DETAIL_ADDRESSES.map((k) => row[`detail_${k}`]), row.accountAddress]),
    },
  };
}
