import { aliasedTable, and, asc, count, desc, eq, gt, gte, inArray, isNull, lt, lte, ne, sql, type SQL } from "drizzle-orm";
import { localDayBounds } from "~/domain/time";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { primaryOf } from "~/db/client.server";
import { claimLineNotes, claimLines, claims, insurances, locations, notes, paServices, patients, remittanceLines, remittances, users, x12Files } from "~/db/schema";
import { notePayer, priceNote } from "~/domain/billing";
import { claimParties, profileDiagnoses, renderingProvider, type PartyRows } from "~/domain/claim-parties";
import { unbillableMessage, type ScrubReason } from "~/domain/scrubber";
import { BuildInput, canTransition, CLAIM_MESSAGES, claimsNamed, diagnosesWithoutLine, ClaimFilters, ClaimIdsInput, NotePickFilters, StatusInput, groupClaims, type ClaimStatus, type GroupedClaim, type PricedClaimNote, type SeenClaims } from "~/domain/claims";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { parseWith } from "~/domain/validation";
import { DEFAULT_ENVELOPE, diagnosisPointers, interchangeControl, readable837P, validateClaim, write837P, type ClaimData, type ClaimIssue, type ReadableSegment } from "~/domain/x12-837p";
import { auditTail, auditWho, auditedRead, clientIds, clientsReadEntry, withAudit, withConditionalAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { localClaimSender, type ClaimSender } from "~/services/claim-sender.server";
import { priceServicesQuery, providerCredentialSql } from "./billing-prices.server";
import { noteProviderName } from "./client-reports.server";
import { noteScope } from "./notes.server";
import { reasonsFromReads, scrubReadsFor } from "./scrubber.server";
import type { ModelContext } from "./context";
import { locationOptionsQuery } from "./locations.server";
import { conflict, denied, invalid, notFound, ok, replayedOk, type ModelResult } from "./results";
import { idempotencyKeyReused, keyScope, oneTimeToken, tokenMatch } from "~/services/idempotency.server";
import { nextIdOf } from "./ids.server";
import { storedAdjustments, storedRemarks, type AdjustmentJson, type RemarkJson } from "./remittances.server";

/**
 * Claims (platform §2 claims and claims/edit-viewer; issue 11; decision 032). Every read is limited to the
 * actor's locations (another location's claim or note answers 404); the routes and API check manage_claims first.
 *
 * Build: selected billed notes → one draft claim per client + location + rendering provider + payer, lines per
 * CPT + date (+ modifiers), charges from priceNote. One conditional batch: a note already on a claim that is not
 * rejected (or no longer billed) makes the whole build insert nothing, so two racing builds cannot both take it.
 * Generate: drafts, priced again from today's records (stop 28) → one 837P file (x12_files row whose id is the
 * control number) → generated, with the lines and total as the file charges them.
 * Send: through a ClaimSender (local default records the file) → sent. Then accepted / rejected by hand.
 * A draft's line can be taken off it (removeClaimLine), its notes then build candidates again.
 */

export const CLAIMS = "claims";

function inIds(column: SQL | SQLiteColumn, ids: readonly number[]): SQL {
  return sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
}

function scopeOf(ctx: ModelContext, column: typeof notes.locationId | typeof claims.locationId): SQL | undefined {
  const scope = locationScope(ctx.actor);
  if (scope === null) return undefined;
  return scope.length ? sql`${column} in (select value from json_each(${JSON.stringify(scope)}))` : sql`1 = 0`;
}

/**
 * A generated claim whose 837P was not sent and holds a voided (rejected) claim: that file is never sent, and the
 * claim is generated again into a new file (decision 032, stop 33). A rejected claim is final and keeps its file, so
 * once true this stays true until the claim leaves the file.
 */
function regenerableSql(claim: typeof claims): SQL<number> {
  return sql<number>`(${claim.status} = 'generated'
    and exists (select 1 from x12_files f where f.id = ${claim.fileId} and f.sent_at is null)
    and exists (select 1 from claims r where r.file_id = ${claim.fileId} and r.status = 'rejected'))`;
}

/**
 * How many claims of the file `fileId` are of locations the actor does not manage (0 without a file, or for someone
 * who sees every location). Such a file carries those clients' data, so the actor neither downloads nor sends it
 * (decision 032, stop 33).
 */
function otherLocationsSql(ctx: ModelContext, fileId: typeof claims.fileId): SQL.Aliased<number> {
  const scope = locationScope(ctx.actor);
  // Named: D1's batch answers rows keyed by column name.
  if (scope === null) return sql<number>`0`.as("other_locations");
  return sql<number>`(select count(*) from claims o where o.file_id = ${fileId} and o.location_id not in (select value from json_each(${JSON.stringify(scope)})))`.as("other_locations");
}

/** Whether the claim's client was deleted (1) or not (0). */
function clientDeletedSql(c: typeof claims) {
  return sql<number>`exists (select 1 from patients dp where dp.id = ${c.patientId} and dp.deleted_at is not null)`;
}

/** Every claim of the file that claim `id` is in (none when it has no file), with the file's name. */
function fileMatesQuery(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ id: claims.id, claimNumber: claims.claimNumber, status: claims.status, locationId: claims.locationId, fileName: x12Files.fileName, clientDeleted: clientDeletedSql(claims).as("client_deleted") })
    .from(claims)
    .innerJoin(x12Files, eq(x12Files.id, claims.fileId))
    .where(sql`${claims.fileId} = (select c2.file_id from claims c2 where c2.id = ${id})`)
    .orderBy(asc(claims.id));
}

type FileMate = Awaited<ReturnType<typeof fileMatesQuery>>[number];

/** Claims as the actor may see them: by number in their locations, the others counted (claimsNamed, generateAgain). */
function seenBy(ctx: ModelContext, rows: readonly Pick<FileMate, "claimNumber" | "locationId">[]): SeenClaims {
  const seen = rows.filter((r) => canSeeLocation(ctx.actor, r.locationId));
  return { numbers: seen.map((r) => r.claimNumber), hidden: rows.length - seen.length };
}

/** Why a file is not sent: it holds a voided claim (decision 032, stop 33); null when it holds none. */
function voidedFileRefusal(ctx: ModelContext, mates: readonly FileMate[]): string | null {
  const voided = mates.filter((m) => m.status === "rejected");
  if (!voided.length) return null;
  return CLAIM_MESSAGES.fileHoldsVoided(mates[0]!.fileName, seenBy(ctx, voided), seenBy(ctx, mates.filter((m) => m.status === "generated")));
}

/**
 * Why a file is not sent: it holds a claim of a deleted client (decision 032, stop 41); null when it holds none. The
 * voided-claim refusal comes first: a voided claim of a deleted client is already out of the way.
 */
function deletedClientFileRefusal(ctx: ModelContext, mates: readonly FileMate[]): string | null {
  const deleted = mates.filter((m) => Number(m.clientDeleted) === 1 && m.status === "generated");
  if (!deleted.length) return null;
  return CLAIM_MESSAGES.fileOfDeletedClient(mates[0]!.fileName, seenBy(ctx, deleted), seenBy(ctx, mates.filter((m) => m.status === "generated" && Number(m.clientDeleted) !== 1)));
}

/* ---------- claim data from rows ---------- */

/** The 837P data of a claim: its parties (claimParties, the scrubber's too), diagnoses and lines. */
export function claimDataOf(claimNumber: string, rows: PartyRows, diagnosisCodes: string[], lines: ClaimData["lines"]): ClaimData {
  return { claimNumber, ...claimParties(rows), diagnosisCodes, lines };
}

/* ---------- build ---------- */

const payerInsurer = aliasedTable(insurances, "payer_insurer");
const provider = aliasedTable(users, "claim_provider");
const supervisor = aliasedTable(users, "claim_supervisor");
/**
 * The payer's name under its own column name: D1's batch answers rows keyed by column name, so two columns
 * called "name" (the provider's and the payer's) would collapse into one.
 */
const payerName = () => sql<string | null>`${payerInsurer.name}`.as("payer_name");

/** The parties of a claim as the 837P needs them: client (and subscriber details), location, rendering provider, payer. */
function partyColumns() {
  return {
    patient: { firstName: patients.firstName, lastName: patients.lastName, birthDate: patients.birthDate, gender: patients.gender, details: patients.details, parentId: patients.parentId },
    location: { title: locations.title, address: locations.address, city: locations.city, state: locations.state, zip: locations.zip, phone1: locations.phone1, npi: locations.npi, taxId: locations.taxId },
    provider: { name: provider.name, surname: provider.surname, profile: provider.profile },
    insurer: { name: payerName(), payerId: payerInsurer.payerId },
  };
}

/** The notes `chosen` selects, with what pricing and grouping them needs and the parties of their claims. */
function buildRowsQuery(ctx: ModelContext, chosen: SQL) {
  return ctx.db
    .select({
      id: notes.id,
      type: notes.type,
      patientId: notes.patientId,
      locationId: notes.locationId,
      providerId: notes.providerId,
      cptCode: notes.cptCode,
      diagnosisCode: notes.diagnosisCode,
      pos: notes.pos,
      sessionDate: notes.sessionDate,
      units: notes.units,
      md: notes.md,
      md2: notes.md2,
      unitPriceCents: notes.unitPriceCents,
      billed: notes.billed,
      // The version priced: the write happens only while every note is still this version (decision 032).
      version: notes.version,
      // The billing record's PA number when one was saved (the payer's authorization number), else the PA
      // service's own text (decision 032).
      paNumber: sql<string | null>`coalesce(nullif(trim((select cr.pa_number from client_reports cr where cr.note_id = ${notes.id})), ''), ${paServices.paService})`.as("pa_number"),
      paInsurerId: paServices.insuranceId,
      patientInsurerId: patients.insurerId,
      providerCredential: providerCredentialSql(notes.providerId).as("prov_credential"),
      ...partyColumns(),
      // The note's supervisor, the rendering provider when the payer bills under the supervisor (renderingOf). Named
      // columns: D1's batch answers rows keyed by column name, beside the provider's name, surname and profile.
      supervisorId: notes.supervisorId,
      supervisor: { name: sql<string | null>`${supervisor.name}`.as("sup_name"), surname: sql<string | null>`${supervisor.surname}`.as("sup_surname"), profile: sql<string | null>`${supervisor.profile}`.as("sup_profile") },
      payerUsesSupervisor: sql<number | null>`${payerInsurer.usesSupervisorAsProvider}`.as("payer_uses_supervisor"),
    })
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .innerJoin(locations, eq(locations.id, notes.locationId))
    .leftJoin(paServices, eq(paServices.id, notes.paServiceId))
    .leftJoin(provider, eq(provider.id, notes.providerId))
    .leftJoin(supervisor, eq(supervisor.id, notes.supervisorId))
    .leftJoin(payerInsurer, eq(payerInsurer.id, sql`coalesce(${paServices.insuranceId}, ${patients.insurerId})`))
    .where(and(chosen, isNull(notes.deletedAt), isNull(patients.deletedAt), scopeOf(ctx, notes.locationId)));
}

type BuildRow = Awaited<ReturnType<typeof buildRowsQuery>>[number];
type PriceServices = Awaited<ReturnType<typeof priceServicesQuery>>;

/** The rendering provider of the note's claim (renderingProvider, the one rule): its user id and record. */
function renderingOf(r: BuildRow) {
  return renderingProvider(r, Boolean(r.payerUsesSupervisor), { provider: r.provider, supervisor: r.supervisor });
}

/**
 * The two reads that price notes, for one batch: the notes `chosen` selects (buildRowsQuery) and their payers'
 * services (the payers selected by a subquery of the same notes). The build and the generation both read these.
 */
function pricingReads(ctx: ModelContext, chosen: SQL) {
  const payerIds = ctx.db
    .select({ id: sql<number | null>`coalesce(${paServices.insuranceId}, ${patients.insurerId})` })
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .leftJoin(paServices, and(eq(paServices.id, notes.paServiceId), isNull(paServices.deletedAt)))
    .where(chosen)
    .$dynamic();
  return [buildRowsQuery(ctx, chosen), priceServicesQuery(ctx, payerIds)] as const;
}

/** Notes priced by the one price function with their payers' services, grouped into claims and lines. */
function groupPriced(rows: readonly BuildRow[], services: PriceServices): GroupedClaim[] {
  const priced: PricedClaimNote[] = rows.map((r) => {
    const payerId = notePayer(r.paInsurerId, r.patientInsurerId);
    return {
      id: r.id,
      patientId: r.patientId,
      locationId: r.locationId,
      // The claim's rendering provider: the build groups by it and stores it, generation compares it (repriceDrafts).
      providerId: renderingOf(r).id,
      payerId,
      sessionDate: r.sessionDate,
      cptCode: r.cptCode,
      units: r.units,
      pos: r.pos,
      paNumber: r.paNumber,
      diagnosisCode: r.diagnosisCode,
      price: priceNote(services, { type: r.type, cptCode: r.cptCode, units: r.units, modifiers: [r.md, r.md2], locationId: r.locationId, insurerId: payerId, providerCredential: r.providerCredential, unitPriceCents: r.unitPriceCents }),
    };
  });
  const detailsOf = new Map(rows.map((r) => [r.patientId, r.patient.details]));
  return groupClaims(priced, (pid) => profileDiagnoses(detailsOf.get(pid) ?? "{}"));
}

function takenQuery(ctx: ModelContext, noteIds: readonly number[]) {
  return ctx.db
    .select({ noteId: claimLineNotes.noteId, claimNumber: claims.claimNumber })
    .from(claimLineNotes)
    .innerJoin(claimLines, eq(claimLines.id, claimLineNotes.claimLineId))
    .innerJoin(claims, eq(claims.id, claimLines.claimId))
    .where(and(inIds(claimLineNotes.noteId, noteIds), ne(claims.status, "rejected")));
}

export interface BuiltClaim {
  id: number;
  claim_number: string;
  patient_id: number;
  total_cents: number;
  lines: number;
  errors: ClaimIssue[];
}

/** The same Idempotency-Key sent before with another build (422). */
export const BUILD_KEY_REUSED = idempotencyKeyReused("claim build");

/**
 * The claims a build's one-time token made (decision 024): its first claim holds the token, the others `<token>#<n>`
 * ('$' follows '#'); for an Idempotency-Key, any token of its scope (another body answers 422). In the actor's scope.
 */
function tokenClaimsRead(ctx: ModelContext, token: string | null) {
  const match = !token ? sql`1 = 0` : keyScope(token) ? tokenMatch(claims.formToken, token) : sql`(${claims.formToken} = ${token} or (${claims.formToken} > ${`${token}#`} and ${claims.formToken} < ${`${token}$`}))`;
  return ctx.db
    .select({ id: claims.id, claimNumber: claims.claimNumber, patientId: claims.patientId, totalCents: claims.totalCents, errors: claims.errors, formToken: claims.formToken, lines: sql<number>`(select count(*) from claim_lines l where l.claim_id = ${claims.id})`.mapWith(Number) })
    .from(claims)
    .where(and(match, scopeOf(ctx, claims.locationId)))
    .orderBy(asc(claims.id));
}

type SentClaim = Awaited<ReturnType<typeof tokenClaimsRead>>[number];

/** A resend's answer: the claims its build made, with the first answer's message (decision 032, stop 40). */
function replayBuild(token: string, sent: SentClaim[]): ModelResult<BuiltClaim[]> {
  if (!sent.some((c) => c.formToken === token)) return invalid({ form: BUILD_KEY_REUSED });
  const built: BuiltClaim[] = sent.map((c) => ({ id: c.id, claim_number: c.claimNumber, patient_id: c.patientId, total_cents: c.totalCents, lines: c.lines, errors: JSON.parse(c.errors || "[]") as ClaimIssue[] }));
  return replayedOk(built, builtMessage(built));
}

const builtMessage = (built: BuiltClaim[]) => (built.length === 1 ? `Claim ${built[0]!.claim_number} built.` : `${built.length} claims built.`);

/**
 * Builds draft claims from billed notes (see the module comment). `formToken` (the build form's one-time token, or
 * the API's Idempotency-Key as idempotencyToken made it) is stored with the claims: a resend answers the claims the
 * first build made, never "already on claim" about them (decision 032).
 */
export async function buildClaims(ctx: ModelContext, raw: Record<string, unknown>, opts: { formToken?: string | null } = {}): Promise<ModelResult<BuiltClaim[]>> {
  const formToken = oneTimeToken(opts.formToken);
  const parsed = parseWith(BuildInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const ids = parsed.data.note_ids;
  // One batch: the notes with their parties and the payers' prices (pricingReads), the claims they are on, the
  // audit chain's tail and the pre-billing scrubber's facts (decision 034).
  const chosen = inIds(notes.id, ids);
  const [rows, services, taken, tailRows, sent, ...scrubRows] = await ctx.db.batch([
    ...pricingReads(ctx, chosen),
    takenQuery(ctx, ids),
    ctx.db.select({ tail: auditTail }).from(sql`(select 1)`),
    tokenClaimsRead(ctx, formToken),
    ...scrubReadsFor(ctx, chosen),
  ]);
  // A resend of a build that landed answers its claims (its notes are on them now).
  if (formToken && sent.length) return replayBuild(formToken, sent);
  const found = new Set(rows.map((r) => r.id));
  const missing = ids.filter((id) => !found.has(id));
  // Not a candidate (deleted, its client deleted, out of scope or unknown): a refusal on the form, never a 404 page.
  if (missing.length) return invalid({ note_ids: CLAIM_MESSAGES.notCandidates(missing) });
  const refusals: string[] = [];
  for (const r of rows) if (!r.billed) refusals.push(`Note ${r.id} (${r.sessionDate}) is not billed yet. Mark it billed on the billing screen first.`);
  for (const t of taken) refusals.push(`Note ${t.noteId} is already on claim ${t.claimNumber}. Reject that claim first to claim the note again.`);
  if (refusals.length) return invalid({ note_ids: refusals.join(" ") });
  // A note with any reason not to bill it is refused, with its reasons.
  const scrubbed = reasonsFromReads(scrubRows);
  const unbillable: Record<string, string> = {};
  for (const id of ids) {
    const reasons = scrubbed.get(id);
    if (reasons?.length) unbillable[`notes.${id}`] = `Note ${id}: ${unbillableMessage(reasons)}`;
  }
  if (Object.keys(unbillable).length) {
    const text = Object.values(unbillable).join(" ");
    return { ok: false, status: 422, message: text, errors: { note_ids: text, ...unbillable } };
  }

  // Each note priced by the one price function, with its payer's services.
  const grouped = groupPriced(rows, services);
  // What each draft lacks for its 837P (missing NPI, member id, …), stored with it so the list and viewer show it.
  const firstNote = new Map(rows.map((r) => [r.id, r]));
  const errors = grouped.map((g) => {
    const r = firstNote.get(g.lines[0]!.noteIds[0]!)!;
    const data = claimDataOf("C0000000", partyOf({ ...r, provider: renderingOf(r).record }), g.diagnosisCodes, g.lines.map((l) => ({ serviceDate: l.serviceDate, cptCode: l.cptCode, modifiers: l.modifiers, units: l.units, chargeCents: l.chargeCents, pos: l.pos, paNumber: l.paNumber, diagnosisCodes: l.diagnosisCodes })));
    return validateClaim(data);
  });
  return writeBuild(ctx, rows.map((r) => [r.id, r.version]), grouped, errors, tailRows[0]?.tail, formToken);
}

function partyOf(r: { patient: PartyRows["patient"]; location: PartyRows["location"]; provider: { name: string | null; surname: string | null; profile: string | null } | null; insurer: { name: string | null; payerId: string | null } | null }): PartyRows {
  return {
    patient: r.patient,
    location: r.location,
    provider: r.provider?.name != null ? { name: r.provider.name, surname: r.provider.surname ?? "", profile: r.provider.profile ?? "{}" } : null,
    insurer: r.insurer?.name != null ? { name: r.insurer.name, payerId: r.insurer.payerId } : null,
  };
}

/**
 * `read`: each note's id and the version the build read and priced. The build happens only while every note is
 * live, billed, still that version (an amendment or a modifier change meanwhile bumps it) and on no claim that is
 * not rejected. The notes' own writes refuse a claimed change while a live claim holds the note, in the same
 * statement (liveClaimOf): whichever commits first, the claim bills what its note says.
 */
async function writeBuild(ctx: ModelContext, read: [id: number, version: number][], grouped: GroupedClaim[], errors: ClaimIssue[][], tail: string | null | undefined, formToken: string | null): Promise<ModelResult<BuiltClaim[]>> {
  const now = ctx.now().toISOString();
  const ids = read.map(([id]) => id);
  const idsJson = JSON.stringify(ids);
  const free = sql`not exists (select 1 from claim_line_notes cln join claim_lines cl on cl.id = cln.claim_line_id join claims c on c.id = cl.claim_id
      where cln.note_id in (select value from json_each(${idsJson})) and c.status <> 'rejected')
    and (select count(*) from notes n join json_each(${JSON.stringify(read)}) j on n.id = j.value ->> 0 and n.version = j.value ->> 1
      where n.billed = 1 and n.deleted_at is null) = ${ids.length}`;
  // Each claim's temporary number (unique until the numbering statement gives it its own).
  const prefix = `tmp-${crypto.randomUUID()}-`;
  const tmps = grouped.map((_, i) => `${prefix}${i}`);
  // The one-time token on the first claim, `<token>#<n>` on the others (tokenClaimsRead).
  const claimRows = JSON.stringify(grouped.map((g, i) => [tmps[i], g.patientId, g.locationId, g.providerId, g.payerId, g.diagnosisCodes.join(","), g.totalCents, JSON.stringify(errors[i] ?? []), formToken && (i ? `${formToken}#${i}` : formToken)]));
  const lineRows = JSON.stringify(grouped.flatMap((g, i) => g.lines.map((l) => [tmps[i], l.lineNumber, l.serviceDate, l.cptCode, l.modifiers.join("-"), l.units, l.unitPriceCents, l.chargeCents, l.pos, l.paNumber, l.multiplier, l.diagnosisCodes.join(","), l.xpMultiplier])));
  const linkRows = JSON.stringify(grouped.flatMap((g, i) => g.lines.flatMap((l) => l.noteIds.map((n) => [tmps[i], l.lineNumber, n]))));
  const patientIds = [...new Set(grouped.map((g) => g.patientId))].sort((a, b) => a - b);
  const entry = { action: "create", entity: "claim", entityId: null, patientId: patientIds.length === 1 ? patientIds[0]! : null, detail: { patients: patientIds, notes: ids } };
  // Five statements whatever the number of claims (D1 counts every statement of a batch against its 1,000 queries
  // per invocation), each list one JSON value. The claims are inserted only when every note is free; the lines,
  // links and numbering join the inserted claims by temporary number, so a refused build writes nothing at all.
  const [, , , numbered] = await withConditionalAudit(
    ctx.db,
    auditWho(ctx),
    entry,
    (audit) => [
      // Columns in table order (drizzle's insert … select names them all): id, status, patient_id, location_id,
      // provider_id, insurer_id, claim_number, file_id, set_control, diagnosis_codes, total_cents, paid_cents,
      // adjusted_cents, errors, created_by, version, created_at, updated_at, sent_data, form_token. In the order of
      // `grouped`, so the claims' ids increase in that order.
      ctx.db.insert(claims).select(
        sql`select null, 'draft', j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 0, null, null, j.value ->> 5, j.value ->> 6, 0, 0, j.value ->> 7, ${ctx.actor.id}, 1, ${now}, ${now}, null, j.value ->> 8
          from json_each(${claimRows}) j where ${free} order by j.key`,
      ),
      // id, claim_id, line_number, service_date, cpt_code, modifiers, units, unit_price_cents, charge_cents, pos,
      // pa_number, paid_cents, adjustments, remarks, status, multiplier, diagnosis_codes, xp_multiplier.
      ctx.db.insert(claimLines).select(
        sql`select null, c.id, j.value ->> 1, j.value ->> 2, j.value ->> 3, j.value ->> 4, j.value ->> 5, j.value ->> 6, j.value ->> 7, j.value ->> 8, j.value ->> 9, 0, '[]', '[]', 'open', j.value ->> 10, j.value ->> 11, j.value ->> 12
          from json_each(${lineRows}) j join claims c on c.claim_number = j.value ->> 0`,
      ),
      ctx.db.insert(claimLineNotes).select(
        sql`select cl.id, j.value ->> 2 from json_each(${linkRows}) j join claims c on c.claim_number = j.value ->> 0 join claim_lines cl on cl.claim_id = c.id and cl.line_number = j.value ->> 1`,
      ),
      ctx.db
        .update(claims)
        .set({ claimNumber: sql`'C' || printf('%07d', ${claims.id})` })
        .where(sql`${claims.claimNumber} in (select value from json_each(${JSON.stringify(tmps)}))`)
        .returning({ id: claims.id, claimNumber: claims.claimNumber, patientId: claims.patientId, totalCents: claims.totalCents }),
      // changes() is the numbering's: every claim of the build when it was written, none when it was refused.
      audit(sql`changes() = ${grouped.length}`),
      bumpListVersion(ctx.db, CLAIMS),
    ],
    tail,
  );
  const made = [...(numbered as { id: number; claimNumber: string; patientId: number; totalCents: number }[])].sort((a, b) => a.id - b.id);
  if (made.length !== grouped.length) {
    // A racing resend of the same form built first: answer its claims.
    const sent = formToken ? await tokenClaimsRead({ ...ctx, db: primaryOf(ctx.db) }, formToken) : [];
    return formToken && sent.length ? replayBuild(formToken, sent) : buildRefused(ctx, read);
  }

  const built: BuiltClaim[] = made.map((m, i) => ({ id: m.id, claim_number: m.claimNumber, patient_id: m.patientId, total_cents: m.totalCents, lines: grouped[i]!.lines.length, errors: errors[i] ?? [] }));
  return ok(built, builtMessage(built));
}

/** Why a build's write changed nothing (409): a note changed after the build read it, or another build took one. */
async function buildRefused(ctx: ModelContext, read: [id: number, version: number][]): Promise<ModelResult<never>> {
  const now = await primaryOf(ctx.db)
    .select({ id: notes.id, version: notes.version })
    .from(notes)
    .where(inIds(notes.id, read.map(([id]) => id)));
  const versions = new Map(now.map((n) => [n.id, n.version]));
  const changed = read.filter(([id, version]) => versions.get(id) !== version).map(([id]) => id);
  return { ok: false, status: 409, message: changed.length ? CLAIM_MESSAGES.notesChanged(changed) : CLAIM_MESSAGES.notesTaken, current: { changed_notes: changed } };
}

/* ---------- reading claims ---------- */

interface LoadedClaim {
  claim: typeof claims.$inferSelect;
  data: ClaimData;
  /** `data` is what the 837P sent (claims.sent_data), not built from today's records. */
  dataAsSent: boolean;
  lines: (typeof claimLines.$inferSelect)[];
  noteIds: Map<number, number[]>;
}

function claimPartyQuery(ctx: ModelContext, claimIds: readonly number[]) {
  return ctx.db
    .select({
      claim: claims,
      ...partyColumns(),
      clientDeleted: clientDeletedSql(claims).as("client_deleted"),
    })
    .from(claims)
    .innerJoin(patients, eq(patients.id, claims.patientId))
    .innerJoin(locations, eq(locations.id, claims.locationId))
    .leftJoin(provider, eq(provider.id, claims.providerId))
    .leftJoin(payerInsurer, eq(payerInsurer.id, claims.insurerId))
    .where(and(inIds(claims.id, claimIds), scopeOf(ctx, claims.locationId)));
}

function linesQuery(ctx: ModelContext, claimIds: readonly number[]) {
  return ctx.db.select().from(claimLines).where(inIds(claimLines.claimId, claimIds)).orderBy(asc(claimLines.claimId), asc(claimLines.lineNumber));
}

function lineNotesQuery(ctx: ModelContext, claimIds: readonly number[]) {
  return ctx.db
    .select({ lineId: claimLineNotes.claimLineId, noteId: claimLineNotes.noteId })
    .from(claimLineNotes)
    .innerJoin(claimLines, eq(claimLines.id, claimLineNotes.claimLineId))
    .where(inIds(claimLines.claimId, claimIds));
}

type PartyRow = Awaited<ReturnType<typeof claimPartyQuery>>[number];

/** A stored line's own diagnoses (claim_lines.diagnosis_codes); none on a line built before stop 31. */
function lineDiagnoses(stored: string | null): Pick<ClaimData["lines"][number], "diagnosisCodes"> {
  return stored === null ? {} : { diagnosisCodes: stored.split(",").filter(Boolean) };
}

function assemble(parties: PartyRow[], lines: (typeof claimLines.$inferSelect)[], links: { lineId: number; noteId: number }[]): Map<number, LoadedClaim> {
  const byLine = new Map<number, number[]>();
  for (const l of links) byLine.set(l.lineId, [...(byLine.get(l.lineId) ?? []), l.noteId]);
  const out = new Map<number, LoadedClaim>();
  for (const p of parties) {
    const own = lines.filter((l) => l.claimId === p.claim.id);
    // A generated claim shows what its 837P sent; a draft (or a claim generated before that was kept) today's records.
    const sent = p.claim.sentData ? (JSON.parse(p.claim.sentData) as ClaimData) : null;
    const data = sent ?? claimDataOf(
      p.claim.claimNumber,
      partyOf(p),
      p.claim.diagnosisCodes ? p.claim.diagnosisCodes.split(",").filter(Boolean) : [],
      own.map((l) => ({ serviceDate: l.serviceDate, cptCode: l.cptCode, modifiers: l.modifiers ? l.modifiers.split("-").filter(Boolean) : [], units: l.units, chargeCents: l.chargeCents, pos: l.pos, paNumber: l.paNumber, ...lineDiagnoses(l.diagnosisCodes) })),
    );
    out.set(p.claim.id, { claim: p.claim, data, dataAsSent: sent !== null, lines: own, noteIds: new Map(own.map((l) => [l.id, byLine.get(l.id) ?? []])) });
  }
  return out;
}


export interface ClaimRow {
  id: number;
  claim_number: string;
  status: ClaimStatus;
  patient_id: number;
  patient_name: string;
  location_id: number;
  location: string;
  provider_name: string;
  insurer_id: number | null;
  payer: string;
  total_cents: number;
  paid_cents: number;
  errors: number;
  file_id: number | null;
  /** Generated into an unsent file that holds a voided claim: generated again, never sent (decision 032, stop 33). */
  regenerable: boolean;
  /** How many claims of its file are of locations the actor does not manage: then no download (decision 032, stop 33). */
  file_other_locations: number;
  created_at: string;
}

function listWhere(ctx: ModelContext, f: ClaimFilters, query: ListQuery): SQL | undefined {
  // The From/To days are the actor's, the clock the list's "Created" is shown on (localDate; decision 039).
  const days = localDayBounds(f.date_from || query.date_from, f.date_to || query.date_to, ctx.actor.timeZone);
  return and(
    scopeOf(ctx, claims.locationId),
    f.status ? eq(claims.status, f.status) : undefined,
    f.location_id ? eq(claims.locationId, Number(f.location_id)) : undefined,
    f.patient_id ? eq(claims.patientId, Number(f.patient_id)) : undefined,
    f.insurer_id ? eq(claims.insurerId, Number(f.insurer_id)) : undefined,
    days.start ? gte(claims.createdAt, days.start) : undefined,
    days.before ? lt(claims.createdAt, days.before) : undefined,
  );
}

/** The claims list (filters: status, location, client, payer, created between dates), newest first. */
export async function listClaims(ctx: ModelContext, query: ListQuery, rawFilters: Record<string, unknown>): Promise<ModelResult<Paged<ClaimRow>>> {
  const result = await claimsScreen(ctx, query, rawFilters, null, false);
  return result.ok ? ok(result.data.page) : result;
}

/**
 * The claims screen in one batch: the list page and its count, the location choices (when asked), the build
 * form's billed notes (when asked, by filters checked with parsePickFilters), and the audit chain's tail; then one
 * audit row naming every client shown. `withList` false: no claim is read (the screen's list filters were refused).
 */
export async function claimsScreen(
  ctx: ModelContext,
  query: ListQuery,
  rawFilters: Record<string, unknown>,
  picked: NotePickFilters | null,
  withLocations: boolean,
  withList = true,
): Promise<ModelResult<{ page: Paged<ClaimRow>; locations: { id: number; title: string }[]; pick: BillableNote[] | null }>> {
  const parsed = parseWith(ClaimFilters, pick(rawFilters, ["status", "location_id", "patient_id", "insurer_id", "date_from", "date_to"]));
  if (!parsed.ok) return invalid(parsed.errors);
  // A location filter of a location the actor cannot see lists nothing (decision 017): the claims and the build
  // form's notes are read within the actor's locations (scopeOf, noteScope), so such a filter matches no row.
  const where = withList ? listWhere(ctx, parsed.data, query) : sql`0`;
  const [rows, [total], tailRows, locationRows, pickRows, ...scrubRows] = await ctx.db.batch([
    ctx.db
      .select({
        id: claims.id,
        claimNumber: claims.claimNumber,
        status: claims.status,
        patientId: claims.patientId,
        firstName: patients.firstName,
        lastName: patients.lastName,
        locationId: claims.locationId,
        location: locations.title,
        providerName: provider.name,
        providerSurname: provider.surname,
        insurerId: claims.insurerId,
        payer: payerName(),
        totalCents: claims.totalCents,
        paidCents: claims.paidCents,
        errors: claims.errors,
        fileId: claims.fileId,
        regenerable: regenerableSql(claims).as("regenerable"),
        fileOtherLocations: otherLocationsSql(ctx, claims.fileId),
        createdAt: claims.createdAt,
      })
      .from(claims)
      .innerJoin(patients, eq(patients.id, claims.patientId))
      .innerJoin(locations, eq(locations.id, claims.locationId))
      .leftJoin(provider, eq(provider.id, claims.providerId))
      .leftJoin(payerInsurer, eq(payerInsurer.id, claims.insurerId))
      .where(where)
      .orderBy(desc(claims.createdAt), desc(claims.id))
      .limit(query.per_page)
      .offset(offset(query)),
    ctx.db.select({ n: count() }).from(claims).where(where),
    ctx.db.select({ tail: auditTail }).from(sql`(select 1)`),
    withLocations ? locationOptionsQuery(ctx) : ctx.db.select({ id: locations.id, title: locations.title }).from(locations).where(sql`0`),
    billableNotesQuery(ctx, picked),
    // The scrubber's reasons for the same notes (decision 034), in this batch: no round trip of their own.
    ...scrubReadsFor(ctx, picked ? inArray(notes.id, billableNoteIds(ctx, picked)) : sql`0`),
  ]);
  const data: ClaimRow[] = rows.map((r) => ({
    id: r.id,
    claim_number: r.claimNumber,
    status: r.status,
    patient_id: r.patientId,
    patient_name: `${r.firstName} ${r.lastName}`,
    location_id: r.locationId,
    location: r.location,
    provider_name: [r.providerName, r.providerSurname].filter(Boolean).join(" "),
    insurer_id: r.insurerId,
    payer: r.payer ?? "",
    total_cents: r.totalCents,
    paid_cents: r.paidCents,
    errors: (JSON.parse(r.errors || "[]") as unknown[]).length,
    file_id: r.fileId,
    regenerable: Boolean(r.regenerable),
    file_other_locations: r.fileOtherLocations,
    created_at: r.createdAt,
  }));
  const reasons = picked ? reasonsFromReads(scrubRows) : new Map<number, { message: string }[]>();
  const pickData = picked ? pickRows.map((r) => billableNoteJson(r, (reasons.get(r.id) ?? []).map((x) => x.message))) : null;
  const ids = clientIds([...data, ...(pickData ?? [])], (r) => r.patient_id);
  if (ids.length) await auditedRead(ctx.db, auditWho(ctx), clientsReadEntry("claim", ids), () => [] as [], tailRows[0]?.tail);
  return ok({ page: paged(data, total?.n ?? 0, query), locations: locationRows, pick: pickData });
}

function pick(raw: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (raw[k] !== undefined) out[k] = typeof raw[k] === "string" ? (raw[k] as string).trim() : raw[k];
  return out;
}

export interface ClaimDetail {
  id: number;
  claim_number: string;
  status: ClaimStatus;
  version: number;
  patient_id: number;
  location_id: number;
  provider_id: number | null;
  insurer_id: number | null;
  diagnosis_codes: string[];
  total_cents: number;
  paid_cents: number;
  adjusted_cents: number;
  file_id: number | null;
  set_control: string | null;
  created_at: string;
  updated_at: string;
  /** Stored at the last build or generation. */
  errors: ClaimIssue[];
  /** What would stop the claim if it were generated now (drafts only; others were written already). */
  current_errors: ClaimIssue[];
  /**
   * Drafts only: the scrubber's refusals of its notes kept from the last generation attempt (field `notes.<id>`;
   * decision 032), which generation checks again.
   */
  kept_refusals: ClaimIssue[];
  data: ClaimData;
  /** "sent": `data` is what the claim's 837P sent; "current": built from today's records (a draft, or a claim generated before stop 25). */
  data_source: "sent" | "current";
  /**
   * `paid_cents`, `status` (open until a remittance answers the line), `adjustments` (CAS: group, CARC, amount) and
   * `remarks` (RARC): what the latest remittance recorded for the line (decision 033).
   */
  lines: { id: number; line_number: number; service_date: string; cpt_code: string; modifiers: string; units: number; unit_price_cents: number; multiplier: number | null; charge_cents: number; pos: string; pa_number: string | null; diagnosis_pointers: number[]; paid_cents: number; status: string; adjustments: AdjustmentJson[]; remarks: RemarkJson[]; note_ids: number[] }[];
  /** The remittances that answered this claim, oldest payment first, with what each paid on it (its CLP04: the lines' payments less its claim-level adjustments). */
  remittances: { id: number; payer_name: string; trace_number: string; payment_date: string | null; paid_cents: number; lines: number }[];
  /**
   * `voided_claims`: the numbers of the file's other claims voided (rejected), in the actor's locations.
   * `other_locations`: how many of its claims are of locations the actor does not manage; when any, the actor neither
   * downloads nor sends the file (decision 032, stop 33).
   */
  file: { id: number; file_name: string; sender: string | null; sent_at: string | null; created_at: string; voided_claims: string[]; other_locations: number } | null;
  /**
   * Generated, and its unsent file holds a voided claim (of any location): that file is never sent, and this claim is
   * generated again into a new one (decision 032, stop 33).
   */
  regenerable: boolean;
  /** The claim's own transaction set of the file, segment by segment (with the envelope around it). */
  readable: ReadableSegment[];
}

/** One claim for the edit-viewer and the API's show: its data, lines, file and validation (an audited read). */
export async function getClaim(ctx: ModelContext, id: number): Promise<ClaimDetail | null> {
  const [parties, lines, links, files, mates, paidBy] = await ctx.db.batch([
    claimPartyQuery(ctx, [id]),
    linesQuery(ctx, [id]),
    lineNotesQuery(ctx, [id]),
    ctx.db
      .select({ id: x12Files.id, fileName: x12Files.fileName, content: x12Files.content, sender: x12Files.sender, sentAt: x12Files.sentAt, createdAt: x12Files.createdAt, otherLocations: otherLocationsSql(ctx, claims.fileId) })
      .from(x12Files)
      .innerJoin(claims, eq(claims.fileId, x12Files.id))
      .where(and(eq(claims.id, id), scopeOf(ctx, claims.locationId))),
    fileMatesQuery(ctx, id),
    // The remittances that answered it (the claim is in scope: it is read above, or nothing is answered), each with
    // what it paid on the claim: its CLP04, the lines' payments less its claim-level adjustments of this claim.
    ctx.db
      .select({
        remittanceId: remittances.id,
        payerName: remittances.payerName,
        traceNumber: remittances.traceNumber,
        paymentDate: remittances.paymentDate,
        paidCents: sql<number>`sum(${remittanceLines.paidCents}) - (select coalesce(sum(ca.amount_cents), 0) from remittance_claim_adjustments ca where ca.remittance_id = ${remittances.id} and ca.claim_id = ${id})`.as("paid_sum"),
        lines: count().as("line_count"),
      })
      .from(remittanceLines)
      .innerJoin(remittances, eq(remittances.id, remittanceLines.remittanceId))
      .where(eq(remittanceLines.claimId, id))
      .groupBy(remittances.id)
      .orderBy(asc(remittances.paymentDate), asc(remittances.id)),
  ]);
  const loaded = assemble(parties, lines, links).get(id);
  if (!loaded) return null;
  await auditedRead(ctx.db, auditWho(ctx), { entity: "claim", entityId: id, patientId: loaded.claim.patientId }, () => [] as []);
  const c = loaded.claim;
  const file = files[0] ?? null;
  const voided = mates.filter((m) => m.id !== id && m.status === "rejected");
  const stored = JSON.parse(c.errors || "[]") as ClaimIssue[];
  return {
    id: c.id,
    claim_number: c.claimNumber,
    status: c.status,
    version: c.version,
    patient_id: c.patientId,
    location_id: c.locationId,
    provider_id: c.providerId,
    insurer_id: c.insurerId,
    diagnosis_codes: loaded.data.diagnosisCodes,
    total_cents: c.totalCents,
    paid_cents: c.paidCents,
    adjusted_cents: c.adjustedCents,
    file_id: c.fileId,
    set_control: c.setControl,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    errors: stored,
    current_errors: c.status === "draft" ? validateClaim(loaded.data) : [],
    kept_refusals: c.status === "draft" ? stored.filter((e) => e.field.startsWith("notes.")) : [],
    data: loaded.data,
    data_source: loaded.dataAsSent ? "sent" : "current",
    lines: loaded.lines.map((l) => ({
      id: l.id,
      line_number: l.lineNumber,
      service_date: l.serviceDate,
      cpt_code: l.cptCode,
      modifiers: l.modifiers,
      units: l.units,
      unit_price_cents: l.unitPriceCents,
      multiplier: l.multiplier,
      charge_cents: l.chargeCents,
      pos: l.pos,
      pa_number: l.paNumber,
      // SV107: 1-based indexes into `diagnosis_codes`, the line's own first (decision 032, stop 31).
      diagnosis_pointers: diagnosisPointers(loaded.data.diagnosisCodes, lineDiagnoses(l.diagnosisCodes).diagnosisCodes),
      paid_cents: l.paidCents,
      status: l.status,
      adjustments: storedAdjustments(l.adjustments),
      remarks: storedRemarks(l.remarks),
      note_ids: loaded.noteIds.get(l.id) ?? [],
    })),
    remittances: paidBy.map((r) => ({ id: r.remittanceId, payer_name: r.payerName, trace_number: r.traceNumber, payment_date: r.paymentDate, paid_cents: Number(r.paidCents), lines: r.lines })),
    file: file ? { id: file.id, file_name: file.fileName, sender: file.sender, sent_at: file.sentAt, created_at: file.createdAt, voided_claims: voided.filter((m) => canSeeLocation(ctx.actor, m.locationId)).map((m) => m.claimNumber), other_locations: file.otherLocations } : null,
    regenerable: c.status === "generated" && file !== null && file.sentAt === null && voided.length > 0,
    readable: file ? ownSet(readable837P(file.content), c.setControl) : [],
  };
}

/** The envelope plus the claim's own ST…SE of a file that may hold several claims. */
function ownSet(segments: ReadableSegment[], setControl: string | null): ReadableSegment[] {
  const out: ReadableSegment[] = [];
  let inside = false;
  for (const s of segments) {
    if (s.id === "ST") inside = s.parts.find((p) => p.name === "Set control number")?.value === setControl;
    if (inside || s.id === "ISA" || s.id === "GS" || s.id === "GE" || s.id === "IEA") out.push(s);
    if (s.id === "SE") inside = false;
  }
  return out;
}

/**
 * The claim's 837P file, for download (an audited read: the file carries PHI). A file that also holds claims of
 * locations the actor does not manage is refused (403): it carries those clients' data (decision 032, stop 33).
 */
export async function getClaimFile(ctx: ModelContext, id: number): Promise<ModelResult<{ fileName: string; content: string }>> {
  const [row] = await ctx.db
    .select({ fileName: x12Files.fileName, content: x12Files.content, patientId: claims.patientId, otherLocations: otherLocationsSql(ctx, claims.fileId) })
    .from(claims)
    .innerJoin(x12Files, eq(x12Files.id, claims.fileId))
    .where(and(eq(claims.id, id), scopeOf(ctx, claims.locationId)));
  if (!row) return { ok: false, status: 404, message: CLAIM_MESSAGES.noFile };
  if (row.otherLocations > 0) return denied(CLAIM_MESSAGES.fileOfOtherLocations(row.fileName, row.otherLocations, "download"));
  await auditedRead(ctx.db, auditWho(ctx), { entity: "claim_file", entityId: id, patientId: row.patientId }, () => [] as []);
  return ok({ fileName: row.fileName, content: row.content });
}

/* ---------- generate, send, status ---------- */

export interface GeneratedFile {
  file_id: number;
  file_name: string;
  claims: { id: number; claim_number: string; set_control: string }[];
}

type LinePrice = Pick<typeof claimLines.$inferSelect, "unitPriceCents" | "chargeCents" | "paNumber"> & { multiplier: number; xpMultiplier: number; diagnosisCodes: string };
type ClaimPrice = { totalCents: number; diagnosisCodes: string };

/**
 * Draft claims priced again from today's records, as a build prices them (`groupPriced` over each claim's own
 * notes, read by `pricingReads`): each line's unit price, multiplier, charge, PA number and own diagnoses, and each claim's total
 * and diagnosis codes (its lines' own, then the client profile's while there is room). Each claim's notes must still make that one claim
 * (client, location, provider, payer) and the same lines (the same notes on each); the numbers of the claims whose
 * notes do not (a price or PA number change merged or split lines, the payer changed) come back instead.
 */
function repriceDrafts(drafts: readonly LoadedClaim[], rows: readonly BuildRow[], services: PriceServices): { ok: true; lines: Map<number, LinePrice>; claims: Map<number, ClaimPrice> } | { ok: false; claimNumbers: string[] } {
  const rowOf = new Map(rows.map((r) => [r.id, r]));
  const key = (noteIds: readonly number[]) => [...noteIds].sort((a, b) => a - b).join(",");
  const lines = new Map<number, LinePrice>();
  const priced = new Map<number, ClaimPrice>();
  const changed: string[] = [];
  for (const d of drafts) {
    const noteIds = d.lines.flatMap((l) => d.noteIds.get(l.id) ?? []);
    const own = noteIds.flatMap((id) => rowOf.get(id) ?? []);
    const groups = own.length === noteIds.length ? groupPriced(own, services) : [];
    const g = groups.length === 1 ? groups[0]! : null;
    const today = new Map(g?.lines.map((l) => [key(l.noteIds), l]) ?? []);
    const c = d.claim;
    const same = g !== null && g.patientId === c.patientId && g.locationId === c.locationId && g.providerId === c.providerId && g.payerId === c.insurerId && g.lines.length === d.lines.length && d.lines.every((l) => today.has(key(d.noteIds.get(l.id) ?? [])));
    if (!same) {
      changed.push(c.claimNumber);
      continue;
    }
    for (const l of d.lines) {
      const p = today.get(key(d.noteIds.get(l.id) ?? []))!;
      lines.set(l.id, { unitPriceCents: p.unitPriceCents, multiplier: p.multiplier, xpMultiplier: p.xpMultiplier, chargeCents: p.chargeCents, paNumber: p.paNumber, diagnosisCodes: p.diagnosisCodes.join(",") });
    }
    priced.set(c.id, { totalCents: g.totalCents, diagnosisCodes: g.diagnosisCodes.join(",") });
  }
  return changed.length ? { ok: false, claimNumbers: changed } : { ok: true, lines, claims: priced };
}

/**
 * 422 naming each draft claim and note the scrubber refuses now, with its reasons (as a build names them), or null
 * when every note may still be billed. Nothing is generated for any of the claims.
 */
function unbillableDrafts(drafts: readonly LoadedClaim[], scrubbed: ReadonlyMap<number, ScrubReason[]>): { result: ModelResult<never>; byClaim: Map<string, ClaimIssue[]> } | null {
  const errors: Record<string, string> = {};
  const byClaim = new Map<string, ClaimIssue[]>();
  for (const d of drafts)
    for (const id of [...new Set([...d.noteIds.values()].flat())].sort((a, b) => a - b)) {
      const reasons = scrubbed.get(id);
      if (!reasons?.length) continue;
      errors[`${d.claim.claimNumber}.notes.${id}`] = CLAIM_MESSAGES.unbillable(d.claim.claimNumber, id, unbillableMessage(reasons));
      byClaim.set(d.claim.claimNumber, [...(byClaim.get(d.claim.claimNumber) ?? []), ...reasons.map((r) => ({ field: `notes.${id}`, message: r.message }))]);
    }
  if (!Object.keys(errors).length) return null;
  const text = Object.values(errors).join(" ");
  return { result: { ok: false, status: 422, message: `No file was written. ${text}`, errors: { claim_ids: text, ...errors } }, byClaim };
}

/**
 * Keeps the reasons a generation was refused on each draft (the list and the viewer show them; a claim with none gets
 * an empty list): one statement for every claim (D1 counts each statement of a batch against its queries per
 * invocation), with its audit row.
 */
async function keepRefusals(ctx: ModelContext, drafts: readonly LoadedClaim[], byClaim: ReadonlyMap<string, ClaimIssue[]>): Promise<void> {
  const perClaim = JSON.stringify(drafts.map((c) => [c.claim.id, JSON.stringify(byClaim.get(c.claim.claimNumber) ?? [])]));
  await withAudit(ctx.db, auditWho(ctx), { action: "update", entity: "claim", entityId: null, detail: { claims: drafts.map((c) => c.claim.id), refused: true } }, () => [
    ctx.db
      .update(claims)
      .set({ errors: sql`j.errors` })
      .from(sql`(select value ->> 0 as id, value ->> 1 as errors from json_each(${perClaim})) as j`)
      .where(sql`${claims.id} = j.id and ${claims.status} in ('draft', 'generated')`),
    bumpListVersion(ctx.db, CLAIMS),
  ]);
}

/**
 * Writes one 837P for the draft claims (one transaction set each) and marks them generated. A draft is priced
 * again from today's records first (decision 032, stop 28): the file, the stored lines and the claim's total say
 * what the billing screen says the notes charge now, as its parties are today's too.
 */
export async function generateClaims(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<GeneratedFile>> {
  const parsed = parseWith(ClaimIdsInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const ids = parsed.data.claim_ids;
  const idsJson = JSON.stringify(ids);
  const onTheseClaims = sql`${notes.id} in (select cln.note_id from claim_line_notes cln join claim_lines cl on cl.id = cln.claim_line_id where cl.claim_id in (select value from json_each(${idsJson})))`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const [parties, lines, links, [next], regenerable, noteRows, services, ...scrubRows] = await ctx.db.batch([
      claimPartyQuery(ctx, ids),
      linesQuery(ctx, ids),
      lineNotesQuery(ctx, ids),
      ctx.db.select({ id: nextIdOf(x12Files) }).from(x12Files),
      // Generated claims of an unsent file that holds a voided claim: generated again (decision 032, stop 33).
      ctx.db.select({ id: claims.id, fileId: claims.fileId, fileName: x12Files.fileName }).from(claims).innerJoin(x12Files, eq(x12Files.id, claims.fileId)).where(and(inIds(claims.id, ids), regenerableSql(claims))),
      ...pricingReads(ctx, onTheseClaims),
      // The pre-billing scrubber again (decision 034): a PA service or rendering provider deleted since the build.
      ...scrubReadsFor(ctx, onTheseClaims),
    ]);
    const read = assemble(parties, lines, links);
    const missing = ids.filter((id) => !read.has(id));
    if (missing.length) return notFound(`Claim ${missing.slice(0, 5).join(", ")}`);
    const drafts = ids.map((id) => read.get(id)!).sort((a, b) => a.claim.id - b.claim.id);
    const again = new Map(regenerable.map((r) => [r.id, r]));
    const notDraft = drafts.filter((c) => c.claim.status !== "draft" && !again.has(c.claim.id));
    if (notDraft.length) return invalid({ claim_ids: notDraft.map((c) => CLAIM_MESSAGES.notGeneratable(c.claim.claimNumber, c.claim.status)).join(" ") });
    // A deleted client's claims: their notes are never candidates again, so they are not priced again nor built
    // again, only voided (decision 032, stop 41).
    const ofDeleted = parties.filter((p) => Number(p.clientDeleted) === 1).map((p) => p.claim.claimNumber);
    if (ofDeleted.length) return { ok: false, status: 409, message: CLAIM_MESSAGES.clientDeleted(ofDeleted), current: { claims: ofDeleted } };
    const repriced = repriceDrafts(drafts, noteRows, services);
    if (!repriced.ok) return { ok: false, status: 409, message: CLAIM_MESSAGES.regrouped(repriced.claimNumbers), current: { claims: repriced.claimNumbers } };
    // Written from today's records, also a claim generated again (not the data its unsent file was written with).
    const priced = assemble(
      parties.map((p) => ({ ...p, claim: { ...p.claim, ...repriced.claims.get(p.claim.id), sentData: null } })),
      lines.map((l) => ({ ...l, ...repriced.lines.get(l.id) })),
      links,
    );
    const ordered = drafts.map((d) => priced.get(d.claim.id)!);

    const fileId = Number(next?.id ?? 1);
    const now = ctx.now().toISOString();
    const written = write837P(
      ordered.map((c) => c.data),
      { ...DEFAULT_ENVELOPE, fileId, createdAt: now },
    );
    if (!written.ok) {
      // Keep the reasons on each claim (the list and the viewer show them), then refuse.
      const byClaim = new Map<string, ClaimIssue[]>();
      for (const e of written.errors) byClaim.set(e.claimNumber, [...(byClaim.get(e.claimNumber) ?? []), { field: e.field, message: e.message }]);
      await keepRefusals(ctx, ordered, byClaim);
      const errors: Record<string, string> = {};
      for (const e of written.errors) {
        const key = e.claimNumber ? `${e.claimNumber}.${e.field}` : e.field;
        errors[key] = errors[key] ? `${errors[key]} ${e.message}` : e.message;
      }
      return { ok: false, status: 422, message: `The 837P was not written: ${written.errors[0]!.message}`, errors };
    }
    // The pre-billing scrubber again (decision 034): what the file's own checks do not see, such as a PA service or a
    // rendering provider deleted since the build. Its reasons are kept on the claims as the file's are.
    const unbillable = unbillableDrafts(drafts, reasonsFromReads(scrubRows));
    if (unbillable) {
      await keepRefusals(ctx, drafts, unbillable.byClaim);
      return unbillable.result;
    }
    const file = written.file;
    // Every claim still the draft (or generated claim of a file never sent) at the version read: a change that landed
    // since (a line taken off, a status set, a send) bumps the version, writes no file, and the check below answers
    // 409 (probe 8942 §1).
    const readVersions = JSON.stringify(drafts.map((c) => [c.claim.id, c.claim.version]));
    const allDraft = sql`(select count(*) from claims join json_each(${readVersions}) j on claims.id = j.value ->> 0 and claims.version = j.value ->> 1 where claims.status in ('draft', 'generated')) = ${ids.length}`;
    const patientIds = [...new Set(ordered.map((c) => c.claim.patientId))].sort((a, b) => a - b);
    try {
      const results = await withConditionalAudit(
        ctx.db,
        auditWho(ctx),
        { action: "generate", entity: "claim", entityId: null, patientId: patientIds.length === 1 ? patientIds[0]! : null, detail: { claims: ordered.map((c) => c.claim.id), file: fileId, patients: patientIds, ...(again.size ? { regenerated: [...again.values()].map((r) => ({ claim: r.id, file: r.fileId })) } : {}) } },
        (audit) => [
          // id, kind, file_name, content, sender, sent_at, created_by, created_at.
          ctx.db.insert(x12Files).select(sql`select ${fileId}, '837P', ${file.fileName}, ${file.content}, null, null, ${ctx.actor.id}, ${now} where ${allDraft}`),
          // Every claim in one statement, each with its transaction set's control number, the data it was sent with
          // and its total and diagnosis codes as read now.
          ctx.db
            .update(claims)
            .set({ status: "generated", fileId, setControl: sql`j.set_control`, sentData: sql`j.sent_data`, totalCents: sql`j.total_cents`, diagnosisCodes: sql`j.diagnosis_codes`, errors: "[]", version: sql`${claims.version} + 1`, updatedAt: now })
            .from(sql`(select value ->> 0 as id, value ->> 1 as set_control, value ->> 2 as sent_data, value ->> 3 as total_cents, value ->> 4 as diagnosis_codes from json_each(${JSON.stringify(ordered.map((c, i) => [c.claim.id, file.sets[i]!.setControl, JSON.stringify(c.data), c.claim.totalCents, c.claim.diagnosisCodes]))})) as j`)
            .where(sql`${claims.id} = j.id and ${claims.status} in ('draft', 'generated') and exists (select 1 from x12_files where id = ${fileId} and created_at = ${now})`),
          // Every line of them in one statement, as the file charges it (and with the PA number and diagnoses it sends).
          ctx.db
            .update(claimLines)
            .set({ unitPriceCents: sql`j.unit_price_cents`, multiplier: sql`j.multiplier`, chargeCents: sql`j.charge_cents`, paNumber: sql`j.pa_number`, diagnosisCodes: sql`j.diagnosis_codes`, xpMultiplier: sql`j.xp_multiplier` })
            .from(sql`(select value ->> 0 as id, value ->> 1 as unit_price_cents, value ->> 2 as multiplier, value ->> 3 as charge_cents, value ->> 4 as pa_number, value ->> 5 as diagnosis_codes, value ->> 6 as xp_multiplier from json_each(${JSON.stringify([...repriced.lines].map(([id, p]) => [id, p.unitPriceCents, p.multiplier, p.chargeCents, p.paNumber, p.diagnosisCodes, p.xpMultiplier]))})) as j`)
            .where(sql`${claimLines.id} = j.id and exists (select 1 from x12_files where id = ${fileId} and created_at = ${now})`),
          audit(sql`exists (select 1 from x12_files where id = ${fileId} and created_at = ${now})`),
          bumpListVersion(ctx.db, CLAIMS),
        ],
      );
      void results;
    } catch (e) {
      if (String((e as Error)?.message ?? e).includes("x12_files.id") || String((e as { cause?: Error })?.cause?.message ?? "").includes("x12_files.id")) continue;
      throw e;
    }
    const [check] = await ctx.db.select({ id: x12Files.id }).from(x12Files).where(and(eq(x12Files.id, fileId), eq(x12Files.createdAt, now)));
    if (!check) return conflict({ message: "These claims changed while the file was written. Reload and try again." });
    const left = [...new Set([...again.values()].map((r) => r.fileName))];
    const moved = claimsNamed(ordered.filter((c) => again.has(c.claim.id)).map((c) => c.claim.claimNumber), 0);
    return ok(
      { file_id: fileId, file_name: file.fileName, claims: ordered.map((c, i) => ({ id: c.claim.id, claim_number: c.claim.claimNumber, set_control: file.sets[i]!.setControl })) },
      `837P ${file.fileName} generated.${left.length ? ` It takes ${moved} out of ${left.join(", ")}, which ${left.length === 1 ? "holds a voided claim and is" : "hold voided claims and are"} never sent.` : ""}`,
    );
  }
  return conflict({ message: "Other files were being written at the same time. Try again." });
}

/**
 * Sends the claim's file through the sender (local default: records it). Every claim of that file is sent with it.
 * The claim is marked sent (conditional on status generated and the version read, with its audit row) BEFORE the
 * file is handed to the sender: of two sends at once, only the one whose write changed the claim calls the sender;
 * the other answers 409. When the sender then fails, the claims this request marked go back to generated (while
 * they are still the sent state it wrote), with a `send_failed` audit row, and the failure is the answer.
 */
export async function sendClaim(ctx: ModelContext, id: number, sender: ClaimSender = localClaimSender): Promise<ModelResult<{ file_id: number; sender: string; sent_at: string; claims: number }>> {
  const [rows, mates] = await ctx.db.batch([
    ctx.db
      .select({ status: claims.status, version: claims.version, fileId: claims.fileId, patientId: claims.patientId, fileName: x12Files.fileName, content: x12Files.content, otherLocations: otherLocationsSql(ctx, claims.fileId), tail: auditTail })
      .from(claims)
      .leftJoin(x12Files, eq(x12Files.id, claims.fileId))
      .where(and(eq(claims.id, id), scopeOf(ctx, claims.locationId))),
    fileMatesQuery(ctx, id),
  ]);
  const row = rows[0];
  if (!row) return notFound("Claim");
  if (row.status !== "generated" || row.fileId === null || row.content === null) return invalid({ status: CLAIM_MESSAGES.notSendable(row.status) });
  // A file holding a voided claim is never sent: it would bill that claim too (decision 032, stop 33).
  const voided = voidedFileRefusal(ctx, mates) ?? deletedClientFileRefusal(ctx, mates);
  if (voided) return invalid({ status: voided });
  // Sending the file sends every claim in it: one of a location the actor does not manage is sent by someone who does.
  if (row.otherLocations > 0) return denied(CLAIM_MESSAGES.fileOfOtherLocations(row.fileName ?? "", row.otherLocations, "send"));
  const fileId = row.fileId;
  const now = ctx.now().toISOString();
  const who = auditWho(ctx);
  const sentAs = { status: "sent" as const, version: sql`${claims.version} + 1`, updatedAt: now };
  const marked = { id: claims.id, version: claims.version };
  const [mine, , , others] = await withConditionalAudit(ctx.db, who, { action: "send", entity: "claim", entityId: id, patientId: row.patientId, detail: { file: fileId, sender: sender.name } }, (audit) => [
    ctx.db
      .update(claims)
      .set(sentAs)
      // Not while the file holds a voided claim: a void landing since this request read the file stops the send.
      // Nor while it holds a claim of a client deleted since (decision 032, stop 41).
      .where(
        and(
          eq(claims.id, id),
          eq(claims.fileId, fileId),
          eq(claims.status, "generated"),
          eq(claims.version, row.version),
          sql`not exists (select 1 from claims r where r.file_id = ${fileId} and r.status = 'rejected')`,
          sql`not exists (select 1 from claims r join patients dp on dp.id = r.patient_id where r.file_id = ${fileId} and dp.deleted_at is not null)`,
        ),
      )
      .returning(marked),
    audit(sql`changes() = 1`),
    ctx.db.update(x12Files).set({ sender: sender.name, sentAt: now }).where(and(eq(x12Files.id, fileId), audit.written)),
    // The file's other claims go with it (only when this claim's write happened: its audit row is the newest).
    ctx.db
      .update(claims)
      .set(sentAs)
      .where(and(eq(claims.fileId, fileId), eq(claims.status, "generated"), ne(claims.id, id), audit.written))
      .returning(marked),
    bumpListVersion(ctx.db, CLAIMS),
  ], row.tail);
  if ((mine as unknown[]).length === 0) {
    // Another request sent it (or changed it, or voided a claim of its file) after this one read it: the sender is not called.
    const primary = primaryOf(ctx.db);
    const [[current], matesNow] = await primary.batch([primary.select({ status: claims.status, version: claims.version }).from(claims).where(eq(claims.id, id)), fileMatesQuery({ ...ctx, db: primary }, id)]);
    const voidedNow = current?.status === "generated" ? (voidedFileRefusal(ctx, matesNow) ?? deletedClientFileRefusal(ctx, matesNow)) : null;
    if (voidedNow) return invalid({ status: voidedNow });
    return { ok: false, status: 409, message: CLAIM_MESSAGES.notSendable(current?.status ?? row.status), current: current ?? null };
  }
  const sentClaims = [...(mine as { id: number; version: number }[]), ...(others as { id: number; version: number }[])];
  let sent: Awaited<ReturnType<ClaimSender["send"]>>;
  try {
    sent = await sender.send({ fileId, fileName: row.fileName ?? "", content: row.content, idempotencyKey: interchangeControl(fileId) });
  } catch {
    sent = { ok: false, message: CLAIM_MESSAGES.senderDidNotAnswer };
  }
  if (!sent.ok) {
    // Put back what this request marked, while it is still the sent state it wrote (nobody marked it since).
    const reverted = JSON.stringify(sentClaims.map((c) => [c.id, c.version]));
    const [back] = await withConditionalAudit(ctx.db, who, { action: "send_failed", entity: "claim", entityId: id, patientId: row.patientId, detail: { file: fileId, sender: sender.name, reason: sent.message } }, (audit) => [
      ctx.db
        .update(claims)
        .set({ status: "generated", version: sql`${claims.version} + 1`, updatedAt: ctx.now().toISOString() })
        .where(and(eq(claims.status, "sent"), sql`exists (select 1 from json_each(${reverted}) j where j.value ->> 0 = ${claims.id} and j.value ->> 1 = ${claims.version})`))
        .returning({ id: claims.id }),
      audit(sql`changes() > 0`),
      ctx.db.update(x12Files).set({ sender: null, sentAt: null }).where(and(eq(x12Files.id, fileId), eq(x12Files.sentAt, now), audit.written)),
      bumpListVersion(ctx.db, CLAIMS),
    ]);
    return invalid({ status: CLAIM_MESSAGES.notSent(sent.message, (back as unknown[]).length > 0) });
  }
  return ok({ file_id: fileId, sender: sender.name, sent_at: now, claims: sentClaims.length }, sentClaims.length > 1 ? `File sent with ${sentClaims.length} claims.` : "Claim sent.");
}

/** accepted or rejected by hand (TRANSITIONS); a stale version answers 409. */
export async function setClaimStatus(ctx: ModelContext, id: number, raw: Record<string, unknown>): Promise<ModelResult<{ id: number; status: ClaimStatus; version: number }>> {
  const parsed = parseWith(StatusInput, raw);
  const [rows, mates] = await ctx.db.batch([ctx.db.select({ status: claims.status, version: claims.version, patientId: claims.patientId }).from(claims).where(and(eq(claims.id, id), scopeOf(ctx, claims.locationId))), fileMatesQuery(ctx, id)]);
  const current = rows[0];
  if (!current) return notFound("Claim");
  if (!parsed.ok) return invalid(parsed.errors);
  const to = parsed.data.status;
  if (!canTransition(current.status, to)) return invalid({ status: `${current.status === "accepted" ? "An" : "A"} ${current.status} claim cannot become ${to}.` });
  const version = parsed.data.version;
  const now = ctx.now().toISOString();
  const [updated] = await withConditionalAudit(ctx.db, auditWho(ctx), { action: "status", entity: "claim", entityId: id, patientId: current.patientId, detail: { from: current.status, to } }, (audit) => [
    ctx.db
      .update(claims)
      .set({ status: to, version: sql`${claims.version} + 1`, updatedAt: now })
      .where(and(eq(claims.id, id), eq(claims.status, current.status), version === null ? undefined : eq(claims.version, version)))
      .returning({ id: claims.id, status: claims.status, version: claims.version }),
    audit(sql`changes() = 1`),
    bumpListVersion(ctx.db, CLAIMS),
  ]);
  const row = (updated as { id: number; status: ClaimStatus; version: number }[])[0];
  if (!row) return conflict({ status: current.status, version: current.version });
  // A generated claim voided: its unsent file is not sent now (sendClaim), so its other claims need a new file.
  const stranded = current.status === "generated" && to === "rejected" ? mates.filter((m) => m.id !== id && m.status === "generated") : [];
  return ok(row, stranded.length ? CLAIM_MESSAGES.voidedInUnsentFile(stranded[0]!.fileName, seenBy(ctx, stranded)) : `Claim marked ${to}.`);
}

export interface RemovedLine {
  id: number;
  claim_number: string;
  version: number;
  total_cents: number;
  diagnosis_codes: string[];
  lines: number;
  removed: { line_id: number; line_number: number; note_ids: number[] };
}

/**
 * Takes one service line off a draft claim (decision 032, stop 31): the line and its note links are deleted, so its
 * notes are build candidates again; the remaining lines are numbered 1, 2, … again (LX), the total is theirs and the
 * diagnosis codes are HI's one rule on them and the client's profile (`diagnosesWithoutLine`); the stored problems
 * are the claim's as it is now plus the kept refusals of its other notes. Only a draft, never its only line
 * (voiding is the way). One batch, conditional on the draft being the version read (and `version`, when given).
 */
export async function removeClaimLine(ctx: ModelContext, id: number, lineId: number, version: number | null): Promise<ModelResult<RemovedLine>> {
  const [parties, lines, links, tailRows] = await ctx.db.batch([
    claimPartyQuery(ctx, [id]),
    linesQuery(ctx, [id]),
    lineNotesQuery(ctx, [id]),
    ctx.db.select({ tail: auditTail }).from(sql`(select 1)`),
  ]);
  const loaded = assemble(parties, lines, links).get(id);
  if (!loaded) return notFound("Claim");
  const c = loaded.claim;
  const at = loaded.lines.findIndex((l) => l.id === lineId);
  const line = loaded.lines[at];
  if (!line) return notFound("Claim line");
  if (c.status !== "draft") return invalid({ status: CLAIM_MESSAGES.lineOfNotDraft(c.claimNumber, c.status) });
  if (version !== null && version !== c.version) return conflict({ status: c.status, version: c.version });
  if (loaded.lines.length === 1) return invalid({ line_id: CLAIM_MESSAGES.lastLine(c.claimNumber) });

  const noteIds = loaded.noteIds.get(line.id) ?? [];
  const kept = loaded.lines.filter((l) => l.id !== lineId);
  const codes = diagnosesWithoutLine(
    loaded.data.diagnosisCodes,
    lineDiagnoses(line.diagnosisCodes).diagnosisCodes ?? null,
    kept.map((l) => lineDiagnoses(l.diagnosisCodes).diagnosisCodes ?? null),
    profileDiagnoses(parties[0]!.patient.details),
  );
  const totalCents = kept.reduce((sum, l) => sum + l.chargeCents, 0);
  const data: ClaimData = { ...loaded.data, diagnosisCodes: codes, lines: loaded.data.lines.filter((_, i) => i !== at) };
  // The problems of the claim as it is now, and the refusals kept for its other notes (not the removed line's).
  const removedNotes = new Set(noteIds.map((n) => `notes.${n}`));
  const keptRefusals = (JSON.parse(c.errors || "[]") as ClaimIssue[]).filter((e) => e.field.startsWith("notes.") && !removedNotes.has(e.field));
  const now = ctx.now().toISOString();
  const after = eq(claimLines.claimId, id);
  const [updated] = await withConditionalAudit(
    ctx.db,
    auditWho(ctx),
    { action: "remove_line", entity: "claim", entityId: id, patientId: c.patientId, detail: { claim: id, line: lineId, line_number: line.lineNumber, notes: noteIds } },
    (audit) => [
      ctx.db
        .update(claims)
        .set({ totalCents, diagnosisCodes: codes.join(","), errors: JSON.stringify([...validateClaim(data), ...keptRefusals]), version: sql`${claims.version} + 1`, updatedAt: now })
        .where(and(eq(claims.id, id), eq(claims.status, "draft"), eq(claims.version, c.version)))
        .returning({ version: claims.version }),
      audit(sql`changes() = 1`),
      // The rest only with the claim's update (its audit row is then the newest).
      ctx.db.delete(claimLineNotes).where(and(eq(claimLineNotes.claimLineId, lineId), audit.written)),
      ctx.db.delete(claimLines).where(and(eq(claimLines.id, lineId), audit.written)),
      // The later lines move up one, through negative numbers: (claim_id, line_number) is unique at every row.
      ctx.db.update(claimLines).set({ lineNumber: sql`-${claimLines.lineNumber}` }).where(and(after, gt(claimLines.lineNumber, line.lineNumber), audit.written)),
      ctx.db.update(claimLines).set({ lineNumber: sql`-${claimLines.lineNumber} - 1` }).where(and(after, lt(claimLines.lineNumber, 0), audit.written)),
      bumpListVersion(ctx.db, CLAIMS),
    ],
    tailRows[0]?.tail,
  );
  const row = (updated as { version: number }[])[0];
  if (!row) {
    const [current] = await primaryOf(ctx.db).select({ status: claims.status, version: claims.version }).from(claims).where(eq(claims.id, id));
    return conflict(current ?? null);
  }
  return ok(
    { id, claim_number: c.claimNumber, version: row.version, total_cents: totalCents, diagnosis_codes: codes, lines: kept.length, removed: { line_id: lineId, line_number: line.lineNumber, note_ids: noteIds } },
    CLAIM_MESSAGES.lineRemoved(line.lineNumber, c.claimNumber, noteIds),
  );
}

/* ---------- the build form's note picker ---------- */

export interface BillableNote {
  id: number;
  type: string;
  patient_id: number;
  patient_name: string;
  location_id: number;
  session_date: string;
  cpt_code: string;
  units: number;
  md: string | null;
  md2: string | null;
  provider_name: string;
  /** The pre-billing scrubber's reasons not to claim the note (decision 034); a build refuses it while there are any. */
  reasons: string[];
}

/** Billed notes on no open claim, in the actor's scope, by location, client and period (newest first, at most 200). */
export async function billableNotes(ctx: ModelContext, rawFilters: Record<string, unknown>): Promise<ModelResult<BillableNote[]>> {
  const picked = parsePickFilters(rawFilters);
  if (!picked.ok) return invalid(picked.errors);
  const result = await claimsScreen(ctx, { page: 1, per_page: 1 } as ListQuery, {}, picked.data, false, false);
  return result.ok ? ok(result.data.pick ?? []) : result;
}

/** The build form's note filters (location_id, patient_id, from, to), trimmed and checked. */
export function parsePickFilters(raw: Record<string, unknown>) {
  return parseWith(NotePickFilters, pick(raw, ["location_id", "patient_id", "from", "to"]));
}

/** The build form's notes' filter: billed, live, in scope, on no claim that is not rejected. */
function billableWhere(ctx: ModelContext, f: NotePickFilters) {
  return and(
    // The notes' live scope, as every other notes list: no deleted note, and no note of a deleted client.
    noteScope(ctx),
    eq(notes.billed, true),
    f.location_id ? eq(notes.locationId, Number(f.location_id)) : undefined,
    f.patient_id ? eq(notes.patientId, Number(f.patient_id)) : undefined,
    f.from ? gte(notes.sessionDate, f.from) : undefined,
    f.to ? lte(notes.sessionDate, f.to) : undefined,
    sql`not exists (select 1 from claim_line_notes cln join claim_lines cl on cl.id = cln.claim_line_id join claims c on c.id = cl.claim_id where cln.note_id = ${notes.id} and c.status <> 'rejected')`,
  );
}

/** The ids of the notes the build form lists (the same filter, order and limit), as a subquery for the scrubber's reads. */
function billableNoteIds(ctx: ModelContext, f: NotePickFilters) {
  return ctx.db.select({ id: notes.id }).from(notes).innerJoin(patients, eq(patients.id, notes.patientId)).where(billableWhere(ctx, f)).orderBy(desc(notes.sessionDate), desc(notes.id)).limit(PICK_LIMIT);
}

/** At most this many notes on the build form. */
const PICK_LIMIT = 200;

/** The build form's notes as one statement (nothing when not asked: a constant false filter). */
function billableNotesQuery(ctx: ModelContext, f: NotePickFilters | null) {
  return ctx.db
    .select({
      id: notes.id,
      type: notes.type,
      patientId: notes.patientId,
      firstName: patients.firstName,
      lastName: patients.lastName,
      locationId: notes.locationId,
      sessionDate: notes.sessionDate,
      cptCode: notes.cptCode,
      units: notes.units,
      md: notes.md,
      md2: notes.md2,
      // The note's provider (notes.provider_id), named as on the billing rows; not the typed signer. (A payer that bills
      // under the supervisor names the note's supervisor as the claim's rendering provider: renderingProvider.)
      providerName: noteProviderName,
    })
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .leftJoin(users, eq(users.id, notes.providerId))
    .where(f ? billableWhere(ctx, f) : sql`0`)
    .orderBy(desc(notes.sessionDate), desc(notes.id))
    .limit(PICK_LIMIT);
}

function billableNoteJson(r: { id: number; type: BillableNote["type"]; patientId: number; firstName: string; lastName: string; locationId: number; sessionDate: string; cptCode: string; units: number; md: string | null; md2: string | null; providerName: string }, reasons: string[]): BillableNote {
  return { id: r.id, type: r.type, patient_id: r.patientId, patient_name: `${r.firstName} ${r.lastName}`, location_id: r.locationId, session_date: r.sessionDate, cpt_code: r.cptCode, units: r.units, md: r.md, md2: r.md2, provider_name: r.providerName, reasons };
}
