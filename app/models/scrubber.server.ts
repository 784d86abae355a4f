import { and, asc, eq, gte, inArray, isNull, lt, sql, type SQL } from "drizzle-orm";
import { alias, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { fastRows } from "~/db/fast-rows.server";
import * as v from "valibot";
import { insurances, locations, notes, paServices, patients, userLocations, users } from "~/db/schema";
import type { PriceService } from "~/domain/billing";
import { PARTY_DETAIL_KEYS } from "~/domain/claim-parties";
import { claimedLine, claimedLineOf } from "./claimed-notes.server";
import { canSeeLocation } from "~/domain/permissions";
import { codeList, SCRUB_MAX_DAYS, scrubNote, type ScrubFacts, type ScrubNoteFacts, type ScrubOtherNote, type ScrubReason, type PartyMemo } from "~/domain/scrubber";
import { ZONE_SPREAD_MINUTES, type Interval } from "~/domain/note-rules";
import type { NoteType } from "~/domain/notes";
import { lastPage, MAX_PAGE, PositiveInt, type Paged } from "~/domain/paging";
import { parseWith } from "~/domain/validation";
import { dayNumber, isProductDate } from "~/domain/weeks";
import { auditClientsRead, auditRead, auditTail, type KnownTail } from "~/services/audit.server";
import { priceServicesQuery, providerCredentialSql } from "./billing-prices.server";
import type { ModelContext } from "./context";
import { noteScope, providerOverlapSql } from "./notes.server";
import { locationOptionsQuery } from "./locations.server";
import { who } from "./patients.server";
import { invalid, ok, type ModelResult } from "./results";
import { idsIn } from "./scope.server";

/**
 * The pre-billing scrubber's reads (decision 034): every fact the rules of app/domain/scrubber.ts need for a
 * set of notes, read in ONE D1 batch whatever the number of notes — the notes with their client, payer, PA
 * service and provider; the payers' services; the clients' other notes of the same days; the providers'
 * notes near them; and each PA service's units before each note. Notes out of the actor's scope (another
 * location, deleted note or client) are simply absent.
 */

export type { ScrubReason } from "~/domain/scrubber";

/** Notes per D1 batch (a page of billing or a claim batch); more take one more round trip per this many. */
export const SCRUB_MAX_NOTES = 1000;
export { SCRUB_MAX_DAYS } from "~/domain/scrubber";

const o = alias(notes, "o");
/** The note's supervisor: the claim's rendering provider when the payer bills under the supervisor (renderingProvider). */
const sup = alias(users, "sup");

/**
 * What a save is about to write, per note id, among the facts the rules read: the note is scrubbed as it will be
 * after the save, priced by the same priceNote. The modifiers, and the billing record's PA number (the claim line's
 * REF*G1, checked since stop 31); the billing save also writes billed, paid and the NPI, which no rule reads.
 */
export type ScrubOverrides = ReadonlyMap<number, Pick<ScrubNoteFacts, "modifiers" | "paNumber">>;

/** One scrubbed note, with what the report and the API show beside its reasons. */
export interface ScrubbedNote {
  id: number;
  type: NoteType;
  patient_id: number;
  client_name: string;
  location_id: number;
  provider_id: number | null;
  provider_name: string;
  session_date: string;
  cpt_code: string;
  units: number;
  billed: boolean;
  reasons: ScrubReason[];
}

const pairsOf = (r: { start1At: number | null; end1At: number | null; start2At: number | null; end2At: number | null }): Interval[] => {
  const out: Interval[] = [];
  if (r.start1At != null && r.end1At != null) out.push({ start: r.start1At, end: r.end1At });
  if (r.start2At != null && r.end2At != null) out.push({ start: r.start2At, end: r.end2At });
  return out;
};

const otherColumns = {
  id: o.id,
  patientId: o.patientId,
  providerId: o.providerId,
  locationId: o.locationId,
  sessionDate: o.sessionDate,
  cptCode: o.cptCode,
  units: o.units,
  start1At: o.start1At,
  end1At: o.end1At,
  start2At: o.start2At,
  end2At: o.end2At,
  utcOffset: o.utcOffset,
};

function parseJson(text: string | null | undefined): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/**
 * A column under its own name: drizzle maps a D1 batch's rows by column name, so joined tables' columns of
 * the same name (id, patient_id, name) must not meet in one result.
 */
function named<T extends SQLiteColumn>(column: T, name: string) {
  return sql<T["_"]["data"] | (T["_"]["notNull"] extends true ? never : null)>`${column}`.mapWith(column).as(name);
}

/** Only the keys of a JSON column the claim's parties read (PARTY_DETAIL_KEYS, the provider's NPI), as one JSON object. */
function jsonKeys(column: SQLiteColumn, keys: readonly string[], name: string) {
  return sql<string | null>`json_object(${sql.join(
    keys.map((k) => sql`${sql.raw(`'${k}'`)}, json_extract(${column}, ${sql.raw(`'$.${k}'`)})`),
    sql.raw(", "),
  )})`.as(name);
}

/**
 * The batch that reads every fact for the notes `filter` selects (a condition on `notes`, within the actor's
 * scope). `extra` rides in the same batch (e.g. the audit chain's tail).
 */
function factReads(ctx: ModelContext, filter: SQL, withTail = false) {
  const where = and(filter, noteScope(ctx))!;
  const payer = sql<number | null>`coalesce(${paServices.insuranceId}, ${patients.insurerId})`;
  const targets = () => ctx.db.select({ id: notes.id }).from(notes).innerJoin(patients, eq(patients.id, notes.patientId)).where(where);
  const main = ctx.db
    .select({
      n: {
        id: notes.id,
        type: notes.type,
        patientId: notes.patientId,
        locationId: notes.locationId,
        providerId: notes.providerId,
        paServiceId: notes.paServiceId,
        cptCode: notes.cptCode,
        diagnosisCode: notes.diagnosisCode,
        pos: notes.pos,
        sessionDate: notes.sessionDate,
        minutes: notes.minutes,
        units: notes.units,
        md: notes.md,
        md2: notes.md2,
        unitPriceCents: notes.unitPriceCents,
        // The billing record's PA number (client_reports_note_unique), which the claim line sends before the PA service's text.
        paNumber: sql<string | null>`(select cr.pa_number from client_reports cr where cr.note_id = ${notes.id})`.as("cr_pa_number"),
        signedAt: notes.signedAt,
        supervisorId: notes.supervisorId,
        billed: notes.billed,
        start1At: notes.start1At,
        end1At: notes.end1At,
        start2At: notes.start2At,
        end2At: notes.end2At,
        startAt: notes.startAt,
        utcOffset: notes.utcOffset,
      },
      // The line of the generated, sent or accepted claim that bills the note: its price is the line's (decision 030).
      claimedLine: claimedLineOf(notes.id).as("claimed_line"),
      clientName: sql<string>`trim(${patients.firstName} || ' ' || ${patients.lastName})`.as("client_name"),
      clientInsurerId: named(patients.insurerId, "client_insurer_id"),
      clientDiagnosis: sql<string | null>`json_extract(${patients.details}, '$.diagnosis_code')`.as("client_diagnosis"),
      clientPos: sql<string | null>`json_extract(${patients.details}, '$.pos_covered')`.as("client_pos"),
      pa: {
        id: named(paServices.id, "pa_id"),
        patientId: named(paServices.patientId, "pa_patient_id"),
        name: named(paServices.paService, "pa_name"),
        cpt: named(paServices.cpt, "pa_cpt"),
        nUnits: named(paServices.nUnits, "pa_n_units"),
        startDate: named(paServices.startDate, "pa_start_date"),
        endDate: named(paServices.endDate, "pa_end_date"),
        insuranceId: named(paServices.insuranceId, "pa_insurance_id"),
      },
      insurer: {
        id: named(insurances.id, "ins_id"),
        name: named(insurances.name, "ins_name"),
        cg: named(insurances.posAllowedToCg, "ins_cg"),
        tt: named(insurances.posAllowedToTt, "ins_tt"),
        bcba: named(insurances.extraPosForBcba, "ins_bcba"),
        usesSupervisor: named(insurances.usesSupervisorAsProvider, "ins_uses_supervisor"),
      },
      provider: { id: named(users.id, "prov_id"), name: sql<string>`trim(${users.name} || ' ' || ${users.surname})`.as("prov_name") },
      // The claim's parties as the claims model reads them (claimParties): the 837P's checks run on them.
      party: {
        firstName: named(patients.firstName, "pt_first_name"),
        lastName: named(patients.lastName, "pt_last_name"),
        birthDate: named(patients.birthDate, "pt_birth_date"),
        gender: named(patients.gender, "pt_gender"),
        parentId: named(patients.parentId, "pt_parent_id"),
        details: jsonKeys(patients.details, PARTY_DETAIL_KEYS, "pt_party_details"),
        providerFirst: named(users.name, "prov_first_name"),
        providerLast: named(users.surname, "prov_last_name"),
        providerProfile: jsonKeys(users.profile, ["npi"], "prov_profile"),
        payerId: named(insurances.payerId, "ins_payer_id"),
      },
      supervisor: { id: named(sup.id, "sup_id"), name: named(sup.name, "sup_first_name"), surname: named(sup.surname, "sup_last_name"), profile: jsonKeys(sup.profile, ["npi"], "sup_profile") },
      location: {
        title: named(locations.title, "loc_title"),
        address: named(locations.address, "loc_address"),
        city: named(locations.city, "loc_city"),
        state: named(locations.state, "loc_state"),
        zip: named(locations.zip, "loc_zip"),
        phone1: named(locations.phone1, "loc_phone1"),
        npi: named(locations.npi, "loc_npi"),
        taxId: named(locations.taxId, "loc_tax_id"),
      },
      // The credential the note is priced for: the same expression as the billing rows, the save and claims.
      providerCredential: providerCredentialSql(notes.providerId).as("prov_credential"),
      compliance: named(userLocations.compliance, "prov_compliance"),
      // The audit chain's tail, when the caller records its read next (a one-note read: no round trip of its own).
      tail: withTail ? sql<string | null>`${auditTail}`.as("audit_tail") : sql<null>`null`.as("audit_tail"),
    })
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .leftJoin(paServices, and(eq(paServices.id, notes.paServiceId), isNull(paServices.deletedAt)))
    .leftJoin(insurances, and(eq(insurances.id, payer), isNull(insurances.deletedAt)))
    .leftJoin(users, and(eq(users.id, notes.providerId), isNull(users.deletedAt)))
    .leftJoin(sup, and(eq(sup.id, notes.supervisorId), isNull(sup.deletedAt)))
    .leftJoin(userLocations, and(eq(userLocations.userId, notes.providerId), eq(userLocations.locationId, notes.locationId)))
    .innerJoin(locations, eq(locations.id, notes.locationId))
    .where(where)
    .orderBy(asc(notes.sessionDate), asc(notes.startAt), asc(notes.id));
  // The payers' services, as the one price function needs them; the insurers come from a subquery, so the
  // prices ride in this batch.
  const services = priceServicesQuery(
    ctx,
    ctx.db
      .select({ id: payer })
      .from(notes)
      .innerJoin(patients, eq(patients.id, notes.patientId))
      .leftJoin(paServices, and(eq(paServices.id, notes.paServiceId), isNull(paServices.deletedAt)))
      .where(where)
      .$dynamic(),
  );
  // The clients' live notes of the same session dates (notes_patient_date_idx).
  const sameDay = ctx.db
    .selectDistinct(otherColumns)
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .innerJoin(o, and(eq(o.patientId, notes.patientId), eq(o.sessionDate, notes.sessionDate), isNull(o.deletedAt)))
    .where(where);
  // The providers' live notes starting within a day before a note's end (notes_provider_start_idx), widened by
  // the largest difference of two zones' offsets: a provider's sessions at other locations are compared as
  // moments (their clock moved onto this note's, zoneShift; decision 024), so they may carry another date. Each
  // row names the note it is near (`near`).
  const nearby = ctx.db
    .selectDistinct({ ...otherColumns, near: sql<number>`${notes.id}`.as("near_id") })
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .innerJoin(
      o,
      and(
        eq(o.providerId, notes.providerId),
        gte(o.startAt, sql`${notes.startAt} - ${1440 + ZONE_SPREAD_MINUTES}`),
        lt(o.startAt, sql`${notes.endAt} + ${ZONE_SPREAD_MINUTES}`),
        isNull(o.deletedAt),
        // Only the notes the provider rule can find overlapping (its SQL mirror; the rule still decides): a
        // provider's other sessions of those days are most of the window above and none of the answer.
        sql`${o.id} <> ${notes.id}`,
        providerOverlapSql(`"notes"`, `"o"`),
      ),
    )
    .where(where);
  // Each PA service's units spent before each note (session date, start, id), over all its live notes up to the
  // last session date of the notes scrubbed (a later note comes after every one of them in that order).
  const lastDate = sql`(select max(${notes.sessionDate}) from ${notes} inner join ${patients} on ${patients.id} = ${notes.patientId} where ${where})`;
  const running = ctx.db
    .select({
      id: o.id,
      before: sql<number>`sum(${o.units}) over (partition by ${o.paServiceId} order by ${o.sessionDate}, coalesce(${o.startAt}, 0), ${o.id} rows between unbounded preceding and current row) - ${o.units}`.as("before"),
    })
    .from(o)
    .where(and(isNull(o.deletedAt), inArray(o.paServiceId, ctx.db.select({ id: notes.paServiceId }).from(notes).innerJoin(patients, eq(patients.id, notes.patientId)).where(where)), sql`${o.sessionDate} <= ${lastDate}`))
    .as("running");
  const before = ctx.db
    .select({ id: running.id, before: running.before })
    .from(running)
    .where(inArray(running.id, targets()));
  // Mapped by fastRows (app/db/fast-rows.server.ts): the same rows as drizzle's mapping, without its per-cell checks.
  return [fastRows(main), fastRows(services), fastRows(sameDay), fastRows(nearby), fastRows(before)] as const;
}

type FactRows = [
  Awaited<ReturnType<typeof factReads>[0]>,
  PriceService[],
  Awaited<ReturnType<typeof factReads>[2]>,
  Awaited<ReturnType<typeof factReads>[3]>,
  { id: number; before: number }[],
];

/** The reads' rows → each note scrubbed, in session order (with `overrides` in place of the stored facts). */
function scrubRows([main, services, sameDay, nearby, before]: FactRows, overrides?: ScrubOverrides): ScrubbedNote[] {
  const key = (a: number | null, d: string) => `${a}|${d}`;
  const group = <R extends (typeof sameDay)[number]>(rows: readonly R[], by: (r: R) => string) => {
    const m = new Map<string, ScrubOtherNote[]>();
    for (const r of rows) {
      const k = by(r);
      const list = m.get(k) ?? [];
      list.push({ id: r.id, locationId: r.locationId, cptCode: r.cptCode, units: r.units, pairs: pairsOf(r), utcOffset: r.utcOffset });
      m.set(k, list);
    }
    return m;
  };
  const byClient = group(sameDay, (r) => key(r.patientId, r.sessionDate));
  const byNote = group(nearby, (r) => String(r.near));
  const unitsBefore = new Map(before.map((r) => [r.id, Number(r.before) || 0]));
  const parties: PartyMemo = new Map();
  return main.map((r) => {
    const n = r.n;
    const over = overrides?.get(n.id);
    const facts: ScrubFacts = {
      note: {
        id: n.id,
        type: n.type,
        patientId: n.patientId,
        locationId: n.locationId,
        cptCode: n.cptCode,
        diagnosisCode: n.diagnosisCode,
        pos: n.pos,
        sessionDate: n.sessionDate,
        minutes: n.minutes,
        units: n.units,
        signedAt: n.signedAt,
        providerId: n.providerId,
        supervisorId: n.supervisorId,
        modifiers: over?.modifiers ?? [n.md, n.md2],
        paNumber: over?.paNumber !== undefined ? over.paNumber : n.paNumber,
        unitPriceCents: n.unitPriceCents,
        pairs: pairsOf(n),
        utcOffset: n.utcOffset,
        claimedLine: claimedLine(r.claimedLine),
      },
      client: { insurerId: r.clientInsurerId, diagnosisCode: r.clientDiagnosis == null ? "" : String(r.clientDiagnosis), posCovered: codeList(parseJson(r.clientPos) ?? r.clientPos) },
      insurer: r.insurer?.id != null ? { id: r.insurer.id, name: r.insurer.name, posAllowedToCg: codeList(r.insurer.cg), posAllowedToTt: codeList(r.insurer.tt), extraPosForBcba: codeList(r.insurer.bcba), usesSupervisorAsProvider: Boolean(r.insurer.usesSupervisor) } : null,
      services,
      provider: r.provider?.id != null ? { name: r.provider.name || `Provider #${r.provider.id}`, credential: r.providerCredential, compliance: complianceOf(r.compliance) } : null,
      pa:
        r.pa?.id != null
          ? { id: r.pa.id, patientId: r.pa.patientId, name: r.pa.name, cpt: r.pa.cpt, nUnits: r.pa.nUnits, startDate: r.pa.startDate, endDate: r.pa.endDate, insuranceId: r.pa.insuranceId, unitsBefore: unitsBefore.get(n.id) ?? 0 }
          : null,
      clientSameDay: byClient.get(key(n.patientId, n.sessionDate)) ?? [],
      providerNearby: n.providerId == null ? [] : (byNote.get(String(n.id)) ?? []),
      parties: {
        patient: { firstName: r.party.firstName, lastName: r.party.lastName, birthDate: r.party.birthDate, gender: r.party.gender, details: r.party.details ?? "{}", parentId: r.party.parentId },
        location: r.location,
        provider: r.provider?.id != null ? { name: r.party.providerFirst ?? "", surname: r.party.providerLast ?? "", profile: r.party.providerProfile ?? "{}" } : null,
        insurer: r.insurer?.id != null ? { name: r.insurer.name, payerId: r.party.payerId } : null,
      },
      supervisor: r.supervisor?.id != null ? { name: r.supervisor.name ?? "", surname: r.supervisor.surname ?? "", profile: r.supervisor.profile ?? "{}" } : null,
    };
    return {
      id: n.id,
      type: n.type,
      patient_id: n.patientId,
      client_name: r.clientName,
      location_id: n.locationId,
      provider_id: n.providerId,
      provider_name: facts.provider?.name ?? "",
      session_date: n.sessionDate,
      cpt_code: n.cptCode,
      units: n.units,
      billed: n.billed,
      reasons: scrubNote(facts, parties),
    };
  });
}

function complianceOf(text: string | null): Record<string, string | null> {
  const parsed = parseJson(text);
  if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return {};
  const out: Record<string, string | null> = {};
  for (const [k, val] of Object.entries(parsed as Record<string, unknown>)) out[k] = typeof val === "string" ? val : null;
  return out;
}

function cleanIds(noteIds: readonly number[]): number[] {
  return [...new Set(noteIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
}

async function scrubbed(ctx: ModelContext, noteIds: readonly number[], withTail = false, overrides?: ScrubOverrides): Promise<{ notes: ScrubbedNote[]; tail: KnownTail }> {
  const ids = cleanIds(noteIds);
  if (!ids.length) return { notes: [], tail: undefined };
  if (ids.length > SCRUB_MAX_NOTES) {
    // More than a page: one batch per SCRUB_MAX_NOTES notes (each note's facts are read whole in its batch).
    const out: ScrubbedNote[] = [];
    for (let i = 0; i < ids.length; i += SCRUB_MAX_NOTES) out.push(...(await scrubbed(ctx, ids.slice(i, i + SCRUB_MAX_NOTES), false, overrides)).notes);
    return { notes: out, tail: undefined };
  }
  const rows = (await ctx.db.batch([...factReads(ctx, idsIn(notes.id, ids), withTail)])) as unknown as FactRows;
  const first = rows[0][0];
  return { notes: scrubRows(rows, overrides), tail: withTail && first ? (first.tail == null ? null : String(first.tail)) : undefined };
}

/**
 * The reasons each note cannot be billed (empty list: it can), for up to SCRUB_MAX_NOTES notes in ONE D1
 * round trip (more: one more per SCRUB_MAX_NOTES). Notes out of the actor's scope, deleted or unknown are
 * absent from the map (callers treat absent as not found). Not audited: callers record their own read or write.
 * `overrides`: a save's new modifiers, so that a note is scrubbed as that save will leave it.
 */
export async function scrubNotes(ctx: ModelContext, noteIds: number[], overrides?: ScrubOverrides): Promise<Map<number, ScrubReason[]>> {
  return new Map((await scrubbed(ctx, noteIds, false, overrides)).notes.map((n) => [n.id, n.reasons]));
}

/** GET …/scrubber/notes/{id}: one note's reasons, its read recorded. Two round trips. Null: not found or out of scope. */
export async function scrubOneNote(ctx: ModelContext, id: number): Promise<ScrubbedNote | null> {
  const {
    notes: [note],
    tail,
  } = await scrubbed(ctx, [id], true);
  if (!note) return null;
  await auditRead(ctx.db, who(ctx), { entity: "note", entityId: note.id, patientId: note.patient_id, detail: { scrubber: true } }, tail);
  return note;
}

/* ------------------------------------------------------------------ the report */

const DATE_MESSAGE = "Dates must be real dates like 2026-01-31.";
const text = v.pipe(
  v.optional(v.union([v.string(), v.number()]), ""),
  v.transform((x) => String(x).trim()),
);
const isoDate = (label: string) => v.pipe(text, v.nonEmpty(`${label} is required.`), v.regex(/^\d{4}-\d{2}-\d{2}$/, DATE_MESSAGE), v.check(isProductDate, DATE_MESSAGE));
const wholeNumber = (label: string, min: number, max: number, fallback?: number) =>
  v.pipe(
    text,
    v.transform((x) => (x === "" && fallback !== undefined ? String(fallback) : x)),
    v.nonEmpty(`${label} is required.`),
    v.regex(/^\d+$/, `${label} must be a whole number.`),
    v.transform(Number),
    v.minValue(min, `${label} must be at least ${min}.`),
    v.maxValue(max, `${label} must be at most ${max}.`),
  );

export const ScrubReportQuery = v.pipe(
  v.object({
    location_id: wholeNumber("Location", 1, Number.MAX_SAFE_INTEGER),
    date_from: isoDate("From"),
    date_to: isoDate("To"),
    page: PositiveInt("Page", MAX_PAGE, 1),
    per_page: PositiveInt("per_page", 100, 50),
  }),
  v.forward(
    v.check((q) => q.date_from <= q.date_to, "To must be on or after From."),
    ["date_to"],
  ),
  v.forward(
    v.check((q) => dayNumber(q.date_to)! - dayNumber(q.date_from)! < SCRUB_MAX_DAYS, `The period may cover at most ${SCRUB_MAX_DAYS} days.`),
    ["date_to"],
  ),
);
export type ScrubReportQuery = v.InferOutput<typeof ScrubReportQuery>;

export interface ScrubReport extends Paged<ScrubbedNote> {
  /** The location scrubbed; null when the actor can see no location of that id (the report is then empty). */
  location: { id: number; title: string } | null;
  /** The locations the actor can see (the screen's filter), when asked for. */
  locations?: { id: number; title: string }[];
  date_from: string;
  date_to: string;
  /** Notes of the period scrubbed (with and without reasons). */
  scrubbed: number;
}

/**
 * Every note of a location and period (at most 31 days) with at least one reason, oldest first, a page at a
 * time. 422 for bad filters. A location the actor cannot see (another location's, a deleted one, or none) lists
 * nothing, as every list's location filter does (decision 017, 2026-11-28): 200, no notes, `location` null.
 * Two round trips: every fact of the period's notes
 * (notes_location_date_idx) with the location and the audit chain's tail, then the audit row naming the page's
 * clients.
 */
export async function scrubReport(ctx: ModelContext, raw: Record<string, unknown>, opts: { locationOptions?: boolean } = {}): Promise<ModelResult<ScrubReport>> {
  const parsed = parseWith(ScrubReportQuery, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const q = parsed.data;
  const seen = canSeeLocation(ctx.actor, q.location_id);
  // Out of scope: no note is read (sql`0`), the answer is the empty report below.
  const filter = and(seen ? eq(notes.locationId, q.location_id) : sql`0`, gte(notes.sessionDate, q.date_from), sql`${notes.sessionDate} <= ${q.date_to}`)!;
  const [loc, options, ...rows] = await ctx.db.batch([
    ctx.db.select({ id: locations.id, title: locations.title, tail: auditTail }).from(locations).where(and(eq(locations.id, seen ? q.location_id : 0), isNull(locations.deletedAt))),
    opts.locationOptions ? locationOptionsQuery(ctx) : ctx.db.select({ id: locations.id, title: locations.title }).from(locations).where(sql`0`),
    ...factReads(ctx, filter),
  ]);
  const location = (loc as { id: number; title: string; tail: string | null }[])[0];
  const all = location ? scrubRows(rows as unknown as FactRows) : [];
  const failing = all.filter((n) => n.reasons.length);
  const start = (q.page - 1) * q.per_page;
  const data = failing.slice(start, start + q.per_page);
  await auditClientsRead(ctx.db, who(ctx), "note", [...new Set(data.map((n) => n.patient_id))].sort((a, b) => a - b), location?.tail);
  return ok({
    data,
    total: failing.length,
    page: q.page,
    per_page: q.per_page,
    last_page: lastPage(failing.length, q.per_page),
    location: location ? { id: location.id, title: location.title } : null,
    date_from: q.date_from,
    date_to: q.date_to,
    scrubbed: all.length,
    ...(opts.locationOptions ? { locations: options as { id: number; title: string }[] } : {}),
  });
}

/**
 * The scrubber's reads for the notes a filter selects (e.g. one page of the billing table), to ride in another
 * read's batch so that the reasons cost no round trip of their own; `reasonsFromReads` turns their answers
 * (in order) into each note's reasons. Notes out of scope are absent, as with scrubNotes.
 */
export function scrubReadsFor(ctx: ModelContext, filter: SQL) {
  return factReads(ctx, filter);
}

export function reasonsFromReads(rows: readonly unknown[]): Map<number, ScrubReason[]> {
  return new Map(scrubRows(rows as unknown as FactRows).map((n) => [n.id, n.reasons]));
}
