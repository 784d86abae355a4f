import { and, asc, count, desc, eq, or, sql, type SQL } from "drizzle-orm";
import { primaryOf } from "~/db/client.server";
import { claimLines, claims, clientReports, notes, patients, remittanceClaimAdjustments, remittanceLines, remittances, x12Files } from "~/db/schema";
import { money } from "~/domain/billing";
import { changedNotesMessage, notesChangedSinceClaim, notesPaidTwice, notesPaidTwiceMessage, RemittanceFileInput, type NoteNow } from "~/domain/claims";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { can, locationScope } from "~/domain/permissions";
import { parseWith } from "~/domain/validation";
import { ADJUSTMENT_GROUPS, carcText, claimStatusText, payerMismatch, rarcText, read835, serviceStatus, type AdjustmentGroup, type ClaimPayment, type LineStatus, type Remittance835, type ServicePayment } from "~/domain/x12-835";
import { auditRead, auditWho, clientsReadEntry, withAudit, type KnownTail } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { contains } from "./like.server";
import { NOTES } from "./notes.server";

/**
 * Remittances (issue 11, decision 033): an X12 835 is read (app/domain/x12-835.ts), its claims matched to ours
 * by claim number (CLP01 = CLM01) within the actor's locations and paid by the claim's own payer (payerMismatch), each service line to a claim line (CPT,
 * modifiers, date of service, then charge), and — only when every claim and line matched and the payment
 * balances — applied in ONE D1 batch: the file, the remittance, its lines, the claim lines' payment,
 * adjustments, remarks and status, the notes' pay flags, the claims' totals and status, and the audit row.
 * Anything wrong and nothing changes: the answer is a report of what was read and why it was refused.
 */

export const REMITTANCES = "remittances";
/** The claims engineer's list key (claims lists cache by it); bumped when a remittance changes claims. */
const CLAIMS = "claims";

export interface AdjustmentJson {
  group: AdjustmentGroup;
  group_text: string;
  reason: string;
  amount_cents: number;
  /** The CARC's meaning for the common codes; null otherwise. */
  meaning: string | null;
}

export interface RemarkJson {
  code: string;
  meaning: string | null;
}

export interface ReportLine {
  /** The SVC segment's position in the file. */
  position: number;
  claim_line_id: number | null;
  line_number: number | null;
  cpt_code: string;
  modifiers: string[];
  service_date: string | null;
  units: number;
  charge_cents: number;
  paid_cents: number;
  status: LineStatus;
  adjustments: AdjustmentJson[];
  remarks: RemarkJson[];
}

export interface ReportClaim {
  position: number;
  claim_number: string;
  claim_id: number | null;
  status_code: string;
  status_text: string;
  charge_cents: number;
  paid_cents: number;
  /** Claim-level adjustments (CAS right after CLP): the claim's own, not any line's (CLP04 = Σ lines paid − Σ these). */
  adjustments: AdjustmentJson[];
  lines: ReportLine[];
}

export interface ReportError {
  position: number | null;
  segment: string | null;
  claim_number?: string;
  message: string;
}

/** What an import (or its dry run) found: the payment, per claim and line what the payer did, and the errors. */
export interface RemittanceReport {
  /** True when the file can be (or was) applied: no error. */
  ok: boolean;
  dry_run: boolean;
  remittance_id: number | null;
  payer_name: string;
  trace_number: string;
  payment_date: string | null;
  total_paid_cents: number;
  provider_adjustments_cents: number;
  summary: { claims: number; lines: number; paid: number; partial: number; patient: number; denied: number };
  claims: ReportClaim[];
  errors: ReportError[];
}

export type ImportOutcome =
  | { ok: true; report: RemittanceReport; message: string }
  | { ok: false; status: 403 | 409 | 413 | 422; message: string; report: RemittanceReport | null; errors?: { file_name?: string } };

const DENIED = "You don't have permission to access this resource.";

function adjustmentJson(a: { group: AdjustmentGroup; reason: string; amountCents: number }): AdjustmentJson {
  return { group: a.group, group_text: ADJUSTMENT_GROUPS[a.group] ?? a.group, reason: a.reason, amount_cents: a.amountCents, meaning: carcText(a.reason) };
}

function remarkJson(code: string): RemarkJson {
  return { code, meaning: rarcText(code) };
}

/** Stored adjustments ([{ group, reason, amount_cents }]) with their meanings. */
export function storedAdjustments(json: string): AdjustmentJson[] {
  try {
    const list = JSON.parse(json) as { group: AdjustmentGroup; reason: string; amount_cents: number }[];
    return Array.isArray(list) ? list.map((a) => adjustmentJson({ group: a.group, reason: String(a.reason), amountCents: Number(a.amount_cents) })) : [];
  } catch {
    return [];
  }
}

export function storedRemarks(json: string): RemarkJson[] {
  try {
    const list = JSON.parse(json) as string[];
    return Array.isArray(list) ? list.map((c) => remarkJson(String(c))) : [];
  } catch {
    return [];
  }
}

function emptyReport(dryRun: boolean, r: Remittance835 | null): RemittanceReport {
  return {
    ok: false,
    dry_run: dryRun,
    remittance_id: null,
    payer_name: r?.payerName ?? "",
    trace_number: r?.traceNumber ?? "",
    payment_date: r?.paymentDate ?? null,
    total_paid_cents: r?.totalPaidCents ?? 0,
    provider_adjustments_cents: (r?.providerAdjustments ?? []).reduce((a, p) => a + p.amountCents, 0),
    summary: { claims: 0, lines: 0, paid: 0, partial: 0, patient: 0, denied: 0 },
    claims: [],
    errors: [],
  };
}

function scopeSql(ctx: ModelContext, locationColumn: SQL | typeof claims.locationId): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return sql`1 = 1`;
  return scope.length ? sql`${locationColumn} in (select value from json_each(${JSON.stringify(scope)}))` : sql`1 = 0`;
}

type LineRow = {
  id: number;
  claimId: number;
  lineNumber: number;
  serviceDate: string;
  cptCode: string;
  modifiers: string;
  units: number;
  unitPriceCents: number;
  chargeCents: number;
  pos: string;
  status: string;
  /** A rejected claim's line: its notes as they are now (notesNowSql); null for any other claim. */
  notesNow: string | null;
};

/**
 * The line's notes as they are now, as JSON [[id, deleted, cpt, date, md, md2, pos, units, own unit price, billed], …], read
 * only for a rejected claim (whose notes are free to change, decision 032): an appeal pays the line only while they
 * still match it (decision 033, stop 43). A column of the lines' select (claim_lines joined to claims).
 */
const notesNowSql = sql<string | null>`case when "claims"."status" = 'rejected' then (
  select json_group_array(json_array(n.id, n.deleted_at is not null, n.cpt_code, n.session_date, n.md, n.md2, n.pos, n.units, n.unit_price_cents, n.billed))
  from claim_line_notes cln join notes n on n.id = cln.note_id where cln.claim_line_id = "claim_lines"."id") end`.as("notes_now");

function notesNowOf(json: string | null): NoteNow[] {
  const rows = JSON.parse(json ?? "[]") as [number, number, string, string, string | null, string | null, string | null, number, number | null, number][];
  return rows.map(([id, deleted, cptCode, sessionDate, md, md2, pos, units, unitPriceCents, billed]) => ({ id, deleted: Boolean(deleted), cptCode, sessionDate, md, md2, pos: pos ?? "", units: Number(units), unitPriceCents, billed: Boolean(billed) }));
}

type ClaimRow = { id: number; claimNumber: string; status: string; patientId: number; locationId: number; liveElsewhere: string | null; claimPayerName: string | null; claimPayerId: string | null };

/**
 * The claim's payer as its 837P named it (NM1*PR: insurer name + payer id, decision 032): what it sent
 * (`claims.sent_data`) once generated, else its insurer's record (a claim generated before the claim kept what it
 * sent). Columns of a select from "claims", each under a name of its own (D1's batch keys rows by column name).
 */
export function claimPayerColumns() {
  return {
    claimPayerName: sql<string | null>`case when "claims"."sent_data" is not null then json_extract("claims"."sent_data", '$.payer.name') else (select i.name from insurances i where i.id = "claims"."insurer_id") end`.as("claim_payer_name"),
    claimPayerId: sql<string | null>`case when "claims"."sent_data" is not null then json_extract("claims"."sent_data", '$.payer.payerId') else (select i.payer_id from insurances i where i.id = "claims"."insurer_id") end`.as("claim_payer_id"),
  };
}

const modifierKey = (mods: readonly string[]) => mods.map((m) => m.trim().toUpperCase()).filter(Boolean).sort().join("-");
const storedModifierKey = (mods: string) => modifierKey(mods.split("-"));
const describeService = (s: ServicePayment) => `${s.cptCode}${s.modifiers.length ? ` ${s.modifiers.join(" ")}` : ""}${s.serviceDate ? ` on ${s.serviceDate}` : ""}`;

/** The remittance of the same payer and trace that the answer may name: one the actor sees, or any when the file is otherwise importable. */
function namedDuplicate(rows: { id: number; seen: number }[], report: RemittanceReport): { id: number } | null {
  const row = rows[0];
  return row && (Number(row.seen) === 1 || report.errors.length === 0) ? row : null;
}

/** 1 when the actor sees the remittance selected from "remittances" (as `visible`, written out: a one-table select's columns are unqualified). */
function seenSql(ctx: ModelContext) {
  if (locationScope(ctx.actor) === null) return sql<number>`1`.as("seen");
  return sql<number>`exists (select 1 from remittance_lines rl join claims c on c.id = rl.claim_id where rl.remittance_id = "remittances"."id" and ${scopeSql(ctx, sql`c.location_id`)})`.as("seen");
}

/** Matches the file's claims and lines to ours. Fills the report (claims, lines, errors); returns the matches. */
function match(parsed: Remittance835, found: ClaimRow[], lines: LineRow[], report: RemittanceReport) {
  const byNumber = new Map(found.map((c) => [c.claimNumber, c]));
  const linesOf = new Map<number, LineRow[]>();
  for (const l of lines) linesOf.set(l.claimId, [...(linesOf.get(l.claimId) ?? []), l]);
  const used = new Set<number>();
  const matched: { line: LineRow; claim: ClaimRow; service: ServicePayment; status: LineStatus }[] = [];
  const err = (c: ClaimPayment, position: number, segment: string, message: string) => report.errors.push({ position, segment, claim_number: c.claimNumber, message });

  for (const c of parsed.claims) {
    const claim = byNumber.get(c.claimNumber) ?? null;
    const rc: ReportClaim = {
      position: c.position,
      claim_number: c.claimNumber,
      claim_id: claim?.id ?? null,
      status_code: c.statusCode,
      status_text: claimStatusText(c.statusCode),
      charge_cents: c.chargeCents,
      paid_cents: c.paidCents,
      adjustments: c.adjustments.map(adjustmentJson),
      lines: [],
    };
    report.claims.push(rc);
    if (!claim) err(c, c.position, "CLP", `Claim ${c.claimNumber}: no such claim in your locations.`);
    else if (claim.status === "draft") err(c, c.position, "CLP", `Claim ${c.claimNumber} is a draft: its 837P was never generated, so no payer can have paid it.`);
    // Its file was never sent, and is still sendable: paying it here would leave a file that bills it again (decision 033, stop 34).
    else if (claim.status === "generated") err(c, c.position, "CLP", `Claim ${c.claimNumber} was generated but its 837P file was never sent, so no payer can have paid it. If the file reached the payer another way, record it with Send on the claim's page, then import this file again. Not imported.`);
    // A rejected claim freed its notes (decision 032): paying it could pay them twice. Only a claim rejected
    // because every line was denied, whose notes are on no other live claim, may still be paid (an appeal).
    else if (claim.status === "rejected" && claim.liveElsewhere) err(c, c.position, "CLP", `Claim ${c.claimNumber} is rejected and its notes are now on claim ${claim.liveElsewhere}: this file pays it, which would pay them twice. Not imported.`);
    else if (claim.status === "rejected" && (linesOf.get(claim.id) ?? []).some((l) => l.status !== "denied")) err(c, c.position, "CLP", `Claim ${c.claimNumber} was voided (rejected): this file pays it; its notes may be on another claim. Not imported.`);
    // Its freed notes may have been amended, re-modified or deleted since the denial: an appeal pays the claim only
    // while every note of its lines still matches what the line billed (decision 033, stop 43).
    else if (claim.status === "rejected") {
      const changed = notesChangedSinceClaim((linesOf.get(claim.id) ?? []).map((l) => ({ line: l, notes: notesNowOf(l.notesNow) })));
      if (changed.length) err(c, c.position, "CLP", changedNotesMessage(c.claimNumber, changed));
    }
    // Only the claim's own payer pays it (decision 033, stop 37): a file from another payer is refused whole.
    const otherPayer = claim ? payerMismatch(c.claimNumber, claim.claimPayerName === null ? null : { name: claim.claimPayerName, payerId: claim.claimPayerId }, parsed) : null;
    if (otherPayer) err(c, c.position, "CLP", otherPayer);
    if (c.statusCode === "22") err(c, c.position, "CLP", `Claim ${c.claimNumber}: reversals of an earlier payment (CLP02 = 22) are not imported; record them with the payer's corrected remittance.`);
    if (!c.services.length) err(c, c.position, "CLP", `Claim ${c.claimNumber} has no service lines (SVC) to match to its claim lines.`);
    // Money given back is a take-back, refused like a reversal (which already says so): not handled.
    if (c.statusCode !== "22" && c.paidCents < 0) err(c, c.position, "CLP", `Negative paid amount (take-back) on claim ${c.claimNumber}: not imported.`);
    for (const s of c.services) {
      const status = serviceStatus(c, s);
      const rl: ReportLine = {
        position: s.position,
        claim_line_id: null,
        line_number: null,
        cpt_code: s.cptCode,
        modifiers: s.modifiers,
        service_date: s.serviceDate,
        units: s.units,
        charge_cents: s.chargeCents,
        paid_cents: s.paidCents,
        status,
        adjustments: s.adjustments.map(adjustmentJson),
        remarks: s.remarks.map(remarkJson),
      };
      rc.lines.push(rl);
      report.summary.lines++;
      report.summary[status]++;
      if (c.statusCode !== "22" && s.paidCents < 0) err(c, s.position, "SVC", `Negative paid amount (take-back) on claim ${c.claimNumber}, ${describeService(s)}: not imported.`);
      if (!claim) continue;
      const same = (linesOf.get(claim.id) ?? []).filter(
        (l) => l.cptCode === s.cptCode && storedModifierKey(l.modifiers) === modifierKey(s.modifiers) && (s.serviceDate === null || l.serviceDate === s.serviceDate),
      );
      const candidates = same.filter((l) => !used.has(l.id));
      const sameCharge = candidates.filter((l) => l.chargeCents === s.chargeCents);
      // The line this service would match was matched by an earlier service of this file (the same CLP or another).
      if (!sameCharge.length && same.some((l) => used.has(l.id) && l.chargeCents === s.chargeCents)) {
        err(c, s.position, "SVC", `Claim ${c.claimNumber}: the line ${describeService(s)} appears more than once in this file.`);
        continue;
      }
      if (!candidates.length) {
        err(c, s.position, "SVC", `Claim ${c.claimNumber}: no claim line for ${describeService(s)}.`);
        continue;
      }
      if (!sameCharge.length) {
        err(c, s.position, "SVC", `Claim ${c.claimNumber}, ${describeService(s)}: the payer says ${money(s.chargeCents)} was charged; the claim line charged ${money(candidates[0]!.chargeCents)}.`);
        continue;
      }
      if (s.serviceDate === null && new Set(sameCharge.map((l) => l.serviceDate)).size > 1) {
        err(c, s.position, "SVC", `Claim ${c.claimNumber}, ${describeService(s)}: the payer left out the date of service (DTM*472) and several claim lines match.`);
        continue;
      }
      const line = sameCharge[0]!;
      used.add(line.id);
      rl.claim_line_id = line.id;
      rl.line_number = line.lineNumber;
      if (line.status === "paid" || line.status === "partial") {
        err(c, s.position, "SVC", `Claim ${c.claimNumber}, line ${line.lineNumber} (${describeService(s)}) was already paid by an earlier remittance.`);
        continue;
      }
      if (line.status === "patient") {
        err(c, s.position, "SVC", `Claim ${c.claimNumber}, line ${line.lineNumber} (${describeService(s)}) was already processed by an earlier remittance: the patient's responsibility.`);
        continue;
      }
      matched.push({ line, claim, service: s, status });
    }
  }
  // A denied claim and its denied rebuild bill the same note, and neither is live, so each passes the checks above;
  // a file paying both would pay the session twice (decision 033, stop 45). Only a rejected claim's notes are read.
  const paidClaims = new Map<number, ClaimRow>();
  for (const m of matched) if (m.status !== "denied" && m.claim.status === "rejected") paidClaims.set(m.claim.id, m.claim);
  const notesOf = (claim: ClaimRow) => (linesOf.get(claim.id) ?? []).flatMap((l) => notesNowOf(l.notesNow).map((n) => n.id));
  for (const twice of notesPaidTwice([...paidClaims.values()].map((claim) => ({ claimNumber: claim.claimNumber, noteIds: notesOf(claim) })))) {
    const c = parsed.claims.find((p) => p.claimNumber === twice.claimNumber)!;
    err(c, c.position, "CLP", notesPaidTwiceMessage(twice));
  }
  report.summary.claims = report.claims.length;
  if (parsed.totalPaidCents < 0) report.errors.push({ position: null, segment: "BPR", message: `The payment is negative (${money(parsed.totalPaidCents)}): a take-back is not imported.` });
  return matched;
}

/**
 * Imports an 835 (or, with dryRun, only checks it). The file is applied only when it reads without error,
 * balances, every claim is one of ours in the actor's locations and every service line matches a claim line
 * that is not paid yet, and the payer's trace number was not imported before; otherwise nothing changes and
 * the report says why. Round trips: the lookup batch, then the write batch (or the dry run's audit row).
 */
export async function importRemittance(ctx: ModelContext, text: string, opts: { dryRun: boolean; fileName?: string; tail?: KnownTail }): Promise<ImportOutcome> {
  if (!can(ctx.actor, "manage_claims")) return { ok: false, status: 403, message: DENIED, report: null };
  const named = parseWith(RemittanceFileInput, { file_name: opts.fileName ?? null });
  if (!named.ok) return { ok: false, status: 422, message: Object.values(named.errors)[0]!, report: null, errors: named.errors };
  const read = read835(text);
  const parsed = read.remittance;
  const report = emptyReport(opts.dryRun, parsed);
  if (!read.ok || !parsed) {
    report.errors = read.ok ? [] : read.errors.map((e) => ({ ...e }));
    const tooLarge = report.errors.some((e) => /too large/.test(e.message));
    return { ok: false, status: tooLarge ? 413 : 422, message: `The file cannot be read: ${report.errors[0]?.message ?? "it is not an 835."}`, report };
  }

  const db = primaryOf(ctx.db);
  const numbers = JSON.stringify([...new Set(parsed.claims.map((c) => c.claimNumber))]);
  const inFile = sql`${claims.claimNumber} in (select value from json_each(${numbers}))`;
  const [found, lines, dupRows] = await db.batch([
    db
      .select({
        id: claims.id,
        claimNumber: claims.claimNumber,
        status: claims.status,
        patientId: claims.patientId,
        locationId: claims.locationId,
        // A rejected claim's notes on another claim that is not rejected (a rebuild): that claim's number.
        liveElsewhere: sql<string | null>`case when "claims"."status" = 'rejected' then (
          select min(xc.claim_number) from claim_lines ol
          join claim_line_notes a on a.claim_line_id = ol.id
          join claim_line_notes b on b.note_id = a.note_id
          join claim_lines xl on xl.id = b.claim_line_id
          join claims xc on xc.id = xl.claim_id
          where ol.claim_id = "claims"."id" and xc.id <> "claims"."id" and xc.status <> 'rejected') end`.as("live_elsewhere"),
        ...claimPayerColumns(),
      })
      .from(claims)
      .where(and(inFile, scopeSql(ctx, claims.locationId))),
    db
      .select({
        id: claimLines.id,
        claimId: claimLines.claimId,
        lineNumber: claimLines.lineNumber,
        serviceDate: claimLines.serviceDate,
        cptCode: claimLines.cptCode,
        modifiers: claimLines.modifiers,
        units: claimLines.units,
        unitPriceCents: claimLines.unitPriceCents,
        chargeCents: claimLines.chargeCents,
        pos: claimLines.pos,
        status: claimLines.status,
        notesNow: notesNowSql,
      })
      .from(claimLines)
      .innerJoin(claims, eq(claims.id, claimLines.claimId))
      .where(and(inFile, scopeSql(ctx, claims.locationId)))
      .orderBy(asc(claimLines.claimId), asc(claimLines.lineNumber)),
    db
      // Whether the actor sees that remittance (it paid a claim of their locations): `visible`, as the list and the view.
      .select({ id: remittances.id, seen: seenSql(ctx) })
      .from(remittances)
      .where(and(eq(remittances.payerName, parsed.payerName), eq(remittances.traceNumber, parsed.traceNumber))),
  ]);

  const matched = match(parsed, found, lines, report);
  // "Imported before" is said of a remittance the actor can see. One they cannot see is not named while the file is
  // refused for other reasons (its claims not in their locations: the same 422 as a trace never imported, decision
  // 033 "no probing"); a file that is otherwise importable cannot be imported over it, so then it is the 409 (the dry
  // run says so too, as the import would).
  const duplicate = namedDuplicate(dupRows, report);
  if (duplicate) report.errors.unshift({ position: null, segment: "TRN", message: `This payment (${parsed.payerName}, trace ${parsed.traceNumber}) was imported before.` });
  const patientIds = [...new Set(found.map((c) => c.patientId))].sort((a, b) => a - b);
  const claimIds = [...new Set(matched.map((m) => m.claim.id))].sort((a, b) => a - b);

  if (report.errors.length) {
    // The report names only claims of the actor's locations; reading them is recorded like any other read.
    if (patientIds.length) await auditRead(ctx.db, auditWho(ctx), clientsReadEntry("remittance", patientIds), opts.tail);
    const status = duplicate ? 409 : 422;
    return { ok: false, status, message: duplicate ? report.errors[0]!.message : `Nothing was imported: ${report.errors.length === 1 ? report.errors[0]!.message : `${report.errors.length} problems, the first: ${report.errors[0]!.message}`}`, report };
  }

  report.ok = true;
  const summary = `${report.summary.lines} service line${report.summary.lines === 1 ? "" : "s"} on ${report.summary.claims} claim${report.summary.claims === 1 ? "" : "s"}: ${report.summary.paid} paid, ${report.summary.partial} partly paid, ${report.summary.patient ? `${report.summary.patient} patient responsibility, ` : ""}${report.summary.denied} denied.`;
  if (opts.dryRun) {
    if (patientIds.length) await auditRead(ctx.db, auditWho(ctx), clientsReadEntry("remittance", patientIds), opts.tail);
    return { ok: true, report, message: `The file can be imported. ${summary}` };
  }

  const now = ctx.now().toISOString();
  const payload = JSON.stringify(
    matched.map((m) => ({
      l: m.line.id,
      c: m.claim.id,
      ch: m.service.chargeCents,
      p: m.service.paidCents,
      a: JSON.stringify(m.service.adjustments.map((a) => ({ group: a.group, reason: a.reason, amount_cents: a.amountCents }))),
      r: JSON.stringify(m.service.remarks),
      s: m.status,
    })),
  );
  // Money was received for these; a line on the patient's responsibility was not paid by the payer.
  const paidLines = JSON.stringify(matched.filter((m) => m.status === "paid" || m.status === "partial").map((m) => m.line.id));
  const n = matched.length;
  const j = (key: string) => sql.raw(`json_extract(value, '$.${key}')`);
  const remittanceId = sql`(select id from remittances where payer_name = ${parsed.payerName} and trace_number = ${parsed.traceNumber})`;
  const paidNotes = sql`(select note_id from claim_line_notes where claim_line_id in (select value from json_each(${paidLines})))`;
  // The claims' own (claim-level) adjustments: recorded by claim, not spread on its lines.
  const claimAdjustments = report.claims.flatMap((rc) => rc.adjustments.map((a) => ({ c: rc.claim_id, g: a.group, r: a.reason, a: a.amount_cents })));
  const claimLevel = sql`(select coalesce(sum(ca.amount_cents), 0) from remittance_claim_adjustments ca where ca.claim_id = "claims"."id")`;
  const fileName = named.data.file_name ?? `835-${parsed.traceNumber}.x12`;

  try {
    const results = await withAudit(
      ctx.db,
      auditWho(ctx),
      {
        action: "import",
        entity: "remittance",
        entityId: parsed.traceNumber,
        patientId: patientIds.length === 1 ? patientIds[0]! : null,
        detail: { payer: parsed.payerName, trace: parsed.traceNumber, claims: claimIds, patients: patientIds, lines: n },
      },
      () => [
        ctx.db.insert(x12Files).values({ kind: "835", fileName, content: text, createdBy: ctx.actor.id, createdAt: now }),
        // Columns in table order: id (assigned), file_id (the file just inserted), payer_name, trace_number,
        // payment_date, total_paid_cents, created_by, created_at.
        ctx.db
          .insert(remittances)
          .select(sql`select null, last_insert_rowid(), ${parsed.payerName}, ${parsed.traceNumber}, ${parsed.paymentDate}, ${parsed.totalPaidCents}, ${ctx.actor.id}, ${now}`),
        // Every matched line at once; only lines still open (or denied before) take a payment.
        ctx.db
          .update(claimLines)
          .set({ paidCents: sql`j.p`, adjustments: sql`j.a`, remarks: sql`j.r`, status: sql`j.s` })
          .from(sql`(select ${j("l")} as l, ${j("p")} as p, ${j("a")} as a, ${j("r")} as r, ${j("s")} as s from json_each(${payload})) as j`)
          .where(sql`${claimLines.id} = j.l and ${claimLines.status} in ('open', 'denied')`),
        // The remittance's lines. If another import paid one of these lines meanwhile, the update above changed
        // fewer than n rows: claim_line_id is then NULL, the NOT NULL constraint fails and the whole batch rolls back.
        // Columns in table order: id, remittance_id, claim_id, claim_line_id, charge_cents, paid_cents, adjustments, remarks, status.
        ctx.db
          .insert(remittanceLines)
          .select(sql`select null, ${remittanceId}, ${j("c")}, case when changes() = ${n} then ${j("l")} end, ${j("ch")}, ${j("p")}, ${j("a")}, ${j("r")}, ${j("s")} from json_each(${payload})`),
        // Columns in table order: id, remittance_id, claim_id, adjustment_group, reason, amount_cents.
        ...(claimAdjustments.length
          ? [ctx.db.insert(remittanceClaimAdjustments).select(sql`select null, ${remittanceId}, ${j("c")}, ${j("g")}, ${j("r")}, ${j("a")} from json_each(${JSON.stringify(claimAdjustments)})`)]
          : []),
        // The pay flags of the notes billed by lines paid in full or in part.
        ctx.db
          .update(notes)
          .set({ paid: true, version: sql`${notes.version} + 1`, updatedAt: now })
          .where(sql`${notes.paid} = 0 and ${notes.id} in ${paidNotes}`),
        ctx.db
          .update(clientReports)
          .set({ pay: true, version: sql`${clientReports.version} + 1`, updatedAt: now })
          .where(sql`${clientReports.pay} = 0 and ${clientReports.noteId} in ${paidNotes}`),
        // The claims' totals from all their lines and every remittance's claim-level adjustments, and their status.
        ctx.db
          .update(claims)
          .set({
            paidCents: sql`(select coalesce(sum(l.paid_cents), 0) from claim_lines l where l.claim_id = "claims"."id") - ${claimLevel}`,
            adjustedCents: sql`(select coalesce(sum(json_extract(a.value, '$.amount_cents')), 0) from claim_lines l, json_each(l.adjustments) a where l.claim_id = "claims"."id") + ${claimLevel}`,
            status: sql`case
                when exists (select 1 from claim_lines l where l.claim_id = "claims"."id" and l.status in ('paid', 'partial', 'patient')) then 'accepted'
                when not exists (select 1 from claim_lines l where l.claim_id = "claims"."id" and l.status <> 'denied') then 'rejected'
                else "claims"."status" end`,
            version: sql`${claims.version} + 1`,
            updatedAt: now,
          })
          .where(sql`${claims.id} in (select value from json_each(${JSON.stringify(claimIds)}))`),
        bumpListVersion(ctx.db, NOTES),
        bumpListVersion(ctx.db, CLAIMS),
        bumpListVersion(ctx.db, REMITTANCES),
        ctx.db.select({ id: remittances.id }).from(remittances).where(and(eq(remittances.payerName, parsed.payerName), eq(remittances.traceNumber, parsed.traceNumber))),
      ],
      opts.tail,
    );
    const created = results[results.length - 1] as { id: number }[];
    report.remittance_id = created[0]?.id ?? null;
    return { ok: true, report, message: `Remittance imported. ${summary}` };
  } catch (e) {
    const text = String((e as { cause?: unknown })?.cause ?? e);
    report.ok = false;
    if (/UNIQUE constraint failed: remittances/i.test(text) || /remittances_trace_unique/.test(text)) {
      report.errors.push({ position: null, segment: "TRN", message: `This payment (${parsed.payerName}, trace ${parsed.traceNumber}) was imported before.` });
      return { ok: false, status: 409, message: report.errors[0]!.message, report };
    }
    if (/NOT NULL constraint failed: remittance_lines/i.test(text)) {
      report.errors.push({ position: null, segment: null, message: "Another import paid some of these claim lines meanwhile. Check the file again." });
      return { ok: false, status: 409, message: report.errors[0]!.message, report };
    }
    throw e;
  }
}

/* ------------------------------------------------------------------ list and detail */

export interface RemittanceListJson {
  id: number;
  payer_name: string;
  trace_number: string;
  payment_date: string | null;
  total_paid_cents: number;
  claims: number;
  lines: number;
  denied: number;
  created_at: string;
}

/** Remittances that paid at least one claim of the actor's locations, newest first. No client is named. */
function visible(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return sql`1 = 1`;
  return sql`exists (select 1 from remittance_lines rl join claims c on c.id = rl.claim_id where rl.remittance_id = ${remittances.id} and ${scopeSql(ctx, sql`c.location_id`)})`;
}

export async function listRemittances(ctx: ModelContext, query: ListQuery): Promise<Paged<RemittanceListJson>> {
  const where = and(visible(ctx), query.search ? or(contains(remittances.traceNumber, query.search), contains(remittances.payerName, query.search)) : undefined);
  const scoped = locationScope(ctx.actor) !== null;
  // The remittance's lines of claims in the actor's locations. Written out: drizzle leaves a one-table select's
  // columns unqualified, and inside these subqueries a bare "id" would be the line's own id.
  const mine = sql`remittance_lines rl join claims c on c.id = rl.claim_id where rl.remittance_id = "remittances"."id" and ${scopeSql(ctx, sql`c.location_id`)}`;
  const [rows, [total]] = await ctx.db.batch([
    ctx.db
      .select({
        id: remittances.id,
        payerName: remittances.payerName,
        traceNumber: remittances.traceNumber,
        paymentDate: remittances.paymentDate,
        // An actor of some locations sees the part paid to those locations only (decision 033, stop 23).
        // Less the claim-level adjustments of those claims (their CLP04s are the lines' payments less these).
        totalPaidCents: scoped
          ? sql<number>`(select coalesce(sum(rl.paid_cents), 0) from ${mine}) - (select coalesce(sum(ca.amount_cents), 0) from remittance_claim_adjustments ca join claims c on c.id = ca.claim_id where ca.remittance_id = "remittances"."id" and ${scopeSql(ctx, sql`c.location_id`)})`
          : remittances.totalPaidCents,
        createdAt: remittances.createdAt,
        claims: sql<number>`(select count(distinct rl.claim_id) from ${mine})`,
        lines: sql<number>`(select count(*) from ${mine})`,
        denied: sql<number>`(select count(*) from ${mine} and rl.status = 'denied')`,
      })
      .from(remittances)
      .where(where)
      .orderBy(desc(remittances.createdAt), desc(remittances.id))
      .limit(query.per_page)
      .offset(offset(query)),
    ctx.db.select({ n: count() }).from(remittances).where(where),
  ]);
  return paged(
    rows.map((r) => ({ id: r.id, payer_name: r.payerName, trace_number: r.traceNumber, payment_date: r.paymentDate, total_paid_cents: r.totalPaidCents, claims: Number(r.claims), lines: Number(r.lines), denied: Number(r.denied), created_at: r.createdAt })),
    total?.n ?? 0,
    query,
  );
}

export interface RemittanceDetailLine {
  claim_line_id: number;
  line_number: number;
  service_date: string;
  cpt_code: string;
  modifiers: string;
  units: number;
  charge_cents: number;
  paid_cents: number;
  adjusted_cents: number;
  status: LineStatus;
  adjustments: AdjustmentJson[];
  remarks: RemarkJson[];
}

export interface RemittanceDetailClaim {
  claim_id: number;
  claim_number: string;
  patient_id: number;
  patient_name: string;
  claim_status: string;
  charge_cents: number;
  /** What the payer paid on the claim (its CLP04s): its lines' payments less its claim-level adjustments. */
  paid_cents: number;
  /** Its lines' adjustments and its claim-level ones. */
  adjusted_cents: number;
  /** Claim-level adjustments (CAS right after CLP) of this remittance. */
  adjustments: AdjustmentJson[];
  lines: RemittanceDetailLine[];
}

export interface RemittanceDetail {
  id: number;
  payer_name: string;
  trace_number: string;
  payment_date: string | null;
  total_paid_cents: number;
  file_id: number;
  file_name: string;
  created_at: string;
  totals: { charge_cents: number; paid_cents: number; adjusted_cents: number; lines: number; paid: number; partial: number; patient: number; denied: number };
  claims: RemittanceDetailClaim[];
}

/**
 * One remittance with, per claim of the actor's locations, what was paid, adjusted (CARC/RARC with their
 * meanings) or denied. Null (404) when none of its claims is in the actor's locations. The read is recorded
 * (one audit row naming the clients) before it is answered.
 */
export async function getRemittance(ctx: ModelContext, id: number, tail?: KnownTail): Promise<RemittanceDetail | null> {
  if (!can(ctx.actor, "manage_claims")) return null;
  const [heads, rows, claimLevel] = await ctx.db.batch([
    ctx.db
      .select({ r: remittances, fileName: x12Files.fileName })
      .from(remittances)
      .innerJoin(x12Files, eq(x12Files.id, remittances.fileId))
      .where(and(eq(remittances.id, id), visible(ctx))),
    ctx.db
      // Every selected column has a name of its own: D1's batch answers rows keyed by column name.
      .select({
        line: {
          claimId: remittanceLines.claimId,
          claimLineId: remittanceLines.claimLineId,
          chargeCents: remittanceLines.chargeCents,
          paidCents: remittanceLines.paidCents,
          adjustments: remittanceLines.adjustments,
          remarks: remittanceLines.remarks,
          status: remittanceLines.status,
        },
        lineNumber: claimLines.lineNumber,
        serviceDate: claimLines.serviceDate,
        cptCode: claimLines.cptCode,
        modifiers: claimLines.modifiers,
        units: claimLines.units,
        claimNumber: claims.claimNumber,
        claimStatus: sql<string>`${claims.status}`.as("claim_status"),
        patientId: claims.patientId,
        firstName: patients.firstName,
        lastName: patients.lastName,
      })
      .from(remittanceLines)
      .innerJoin(claimLines, eq(claimLines.id, remittanceLines.claimLineId))
      .innerJoin(claims, eq(claims.id, remittanceLines.claimId))
      .innerJoin(patients, eq(patients.id, claims.patientId))
      .where(and(eq(remittanceLines.remittanceId, id), scopeSql(ctx, claims.locationId)))
      .orderBy(asc(claims.claimNumber), asc(claimLines.lineNumber), asc(remittanceLines.id)),
    ctx.db
      .select({ claimId: remittanceClaimAdjustments.claimId, group: remittanceClaimAdjustments.adjustmentGroup, reason: remittanceClaimAdjustments.reason, amountCents: remittanceClaimAdjustments.amountCents })
      .from(remittanceClaimAdjustments)
      .innerJoin(claims, eq(claims.id, remittanceClaimAdjustments.claimId))
      .where(and(eq(remittanceClaimAdjustments.remittanceId, id), scopeSql(ctx, claims.locationId)))
      .orderBy(asc(remittanceClaimAdjustments.id)),
  ]);
  const head = heads[0];
  if (!head || !rows.length) return null;
  const patientIds = [...new Set(rows.map((r) => r.patientId))].sort((a, b) => a - b);
  await auditRead(ctx.db, auditWho(ctx), { ...clientsReadEntry("remittance", patientIds), entityId: id }, tail);

  const byClaim = new Map<number, RemittanceDetailClaim>();
  const totals = { charge_cents: 0, paid_cents: 0, adjusted_cents: 0, lines: 0, paid: 0, partial: 0, patient: 0, denied: 0 };
  for (const r of rows) {
    const adjustments = storedAdjustments(r.line.adjustments);
    const adjusted = adjustments.reduce((a, x) => a + x.amount_cents, 0);
    const line: RemittanceDetailLine = {
      claim_line_id: r.line.claimLineId,
      line_number: r.lineNumber,
      service_date: r.serviceDate,
      cpt_code: r.cptCode,
      modifiers: r.modifiers,
      units: r.units,
      charge_cents: r.line.chargeCents,
      paid_cents: r.line.paidCents,
      adjusted_cents: adjusted,
      status: r.line.status,
      adjustments,
      remarks: storedRemarks(r.line.remarks),
    };
    let claim = byClaim.get(r.line.claimId);
    if (!claim) {
      claim = { claim_id: r.line.claimId, claim_number: r.claimNumber, patient_id: r.patientId, patient_name: `${r.firstName} ${r.lastName}`.trim(), claim_status: r.claimStatus, charge_cents: 0, paid_cents: 0, adjusted_cents: 0, adjustments: [], lines: [] };
      byClaim.set(r.line.claimId, claim);
    }
    claim.lines.push(line);
    claim.charge_cents += line.charge_cents;
    claim.paid_cents += line.paid_cents;
    claim.adjusted_cents += adjusted;
    totals.charge_cents += line.charge_cents;
    totals.paid_cents += line.paid_cents;
    totals.adjusted_cents += adjusted;
    totals.lines++;
    totals[line.status]++;
  }
  // The claims' own adjustments: taken off what was paid on them (CLP04), added to what was adjusted.
  for (const a of claimLevel) {
    const claim = byClaim.get(a.claimId);
    if (!claim) continue;
    const adjustment = adjustmentJson({ group: a.group as AdjustmentGroup, reason: a.reason, amountCents: a.amountCents });
    claim.adjustments.push(adjustment);
    claim.paid_cents -= adjustment.amount_cents;
    claim.adjusted_cents += adjustment.amount_cents;
    totals.paid_cents -= adjustment.amount_cents;
    totals.adjusted_cents += adjustment.amount_cents;
  }
  const h = head.r;
  return {
    id: h.id,
    payer_name: h.payerName,
    trace_number: h.traceNumber,
    payment_date: h.paymentDate,
    // The file's whole payment for an actor who sees every location; else the part paid on their lines.
    total_paid_cents: locationScope(ctx.actor) === null ? h.totalPaidCents : totals.paid_cents,
    file_id: h.fileId,
    file_name: head.fileName,
    created_at: h.createdAt,
    totals,
    claims: [...byClaim.values()],
  };
}
