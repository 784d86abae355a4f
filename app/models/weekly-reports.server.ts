import { and, asc, count, eq, inArray, isNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import * as v from "valibot";
import { bips, patients, plans, weeklyReports } from "~/db/schema";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { MOVE_MESSAGES, movedReferences, REFERENCE_MESSAGES } from "~/domain/references";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import {
  importReason,
  IMPORT_MAX_BYTES,
  IMPORT_MESSAGES,
  sheetToReports,
  WEEKLY_REPORT_MESSAGES,
  WEEKLY_REPORT_NOTICES,
  parseWeeklyListFilters,
  type WeeklyListFilters,
  WeeklyReportInput,
  WeeklyReportUpdate,
  weeklyDataDateRefusal,
  type ImportStatus,
} from "~/domain/weekly-reports";
import { todayIn } from "~/domain/note-rules";
import { roundMeasure, sameMeasure } from "~/domain/measure";
import { leavesAsStored } from "~/domain/audit-changes";
import { weekStartOf } from "~/domain/weeks";
import { readXlsx } from "~/domain/xlsx";
import { auditedRead, withAudit, withClients } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { findPlanInScope, planInScopeWhere, planScope, planScopeColumns, type PlanInScope } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { isKeyRace, nextId, patientScope, who } from "./patients.server";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { contains } from "./like.server";

/**
 * Weekly reports (clinical §3, §5, §7): one value per plan and week. Every function finds the plan in
 * the actor's scope first (another location's plan answers 404). Reports are measurements: a delete is
 * a hard delete, and every change writes its audit row (entity weekly_report, with the client) in the
 * same batch, bumps the list cache and touches the plan's updated_at.
 */
export const WEEKLY_REPORTS = "weekly_reports";

type Row = typeof weeklyReports.$inferSelect;

export function weeklyReportJson(r: Row) {
  return {
    id: r.id,
    plan_id: r.planId,
    week_start: r.weekStart,
    week_end: r.weekEnd,
    value: r.value,
    total_units: r.totalUnits,
    version: r.version,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
export type WeeklyReportJson = ReturnType<typeof weeklyReportJson>;

/* ------------------------------------------------------------------ shared with chart comments */

/** The plan's updated_at moves with its data (the chart and the BIP pages show how fresh it is). */
export function touchPlan(ctx: ModelContext, planId: number | readonly number[]) {
  return ctx.db
    .update(plans)
    .set({ updatedAt: ctx.now().toISOString() })
    .where(typeof planId === "number" ? eq(plans.id, planId) : sql`${plans.id} in (select value from json_each(${JSON.stringify(planId)}))`);
}

/**
 * A change to a plan's measurements in one batch: the statement, its audit row (with the client), the
 * list cache and the plan's updated_at. Answers the statement's result.
 */
export async function writeMeasurement<T>(
  ctx: ModelContext,
  what: { action: string; entity: string; entityId: number; plan: Pick<PlanInScope, "planId" | "patientId">; list: string },
  statement: () => BatchItem<"sqlite">,
): Promise<T> {
  const [result] = await withAudit(ctx.db, who(ctx), { action: what.action, entity: what.entity, entityId: what.entityId, patientId: what.plan.patientId }, () => [
    statement(),
    bumpListVersion(ctx.db, what.list),
    touchPlan(ctx, what.plan.planId),
  ]);
  return result as T;
}

const PlanRef = v.object({
  plan_id: v.pipe(
    v.union([v.string(), v.number()], WEEKLY_REPORT_NOTICES.missing.text),
    v.transform((x) => (typeof x === "string" && x.trim() === "" ? NaN : Number(x))),
    v.check((n) => Number.isSafeInteger(n) && n > 0, WEEKLY_REPORT_NOTICES.missing.text),
  ),
});

/**
 * The plan a new record names, in scope: 422 at plan_id when it is missing (`missingMessage`), and when it names no
 * goal the actor can see, whether none or another location's (a body reference, decision 017).
 */
export async function planFromInput(ctx: ModelContext, raw: Record<string, unknown>, missingMessage: string): Promise<ModelResult<PlanInScope>> {
  const ref = parseWith(PlanRef, { plan_id: raw.plan_id ?? "" });
  if (!ref.ok) return invalid({ plan_id: missingMessage });
  const plan = await findPlanInScope(ctx, ref.data.plan_id);
  return plan ? ok(plan) : invalid({ plan_id: REFERENCE_MESSAGES.goal });
}

/**
 * The plans a list covers (plan_id, or every plan of bip_id) and the date range, as statements not yet run:
 * `check` finds the plan or BIP in the actor's scope (its client, for the read's audit row), and `plans` filters a
 * column to the plans in scope, so the page read is scoped by itself. Both ride in the page's batch: the
 * scope check costs no round trip of its own. A plan or BIP filter of another location, or of none, lists nothing
 * (decision 017): the same 200 and empty page whichever it is.
 */
export function listScope(ctx: ModelContext, raw: Record<string, unknown>) {
  const parsed = parseWeeklyListFilters(raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const f: WeeklyListFilters = parsed.data;
  const range = { from: f.date_start, to: f.date_end };
  const planId = f.plan_id === "" ? null : f.plan_id;
  // The BIP in scope: bip_id, or the BIP of plan_id (and then of bip_id too, when both are given).
  const bip = and(
    planId === null
      ? eq(bips.id, f.bip_id as number)
      : inArray(bips.id, ctx.db.select({ id: plans.bipId }).from(plans).where(and(eq(plans.id, planId), isNull(plans.deletedAt), f.bip_id !== "" ? eq(plans.bipId, f.bip_id) : undefined))),
    isNull(bips.deletedAt),
    patientScope(ctx),
  );
  const bipIds = ctx.db.select({ id: bips.id }).from(bips).innerJoin(patients, eq(patients.id, bips.patientId)).where(bip);
  const inScope = ctx.db
    .select({ id: plans.id })
    .from(plans)
    .where(and(isNull(plans.deletedAt), planId === null ? undefined : eq(plans.id, planId), inArray(plans.bipId, bipIds)));
  return ok({
    check: ctx.db.select({ patientId: patients.id }).from(bips).innerJoin(patients, eq(patients.id, bips.patientId)).where(bip),
    plans: (column: SQLWrapper) => inArray(column, inScope),
    ...range,
  });
}

/** A date column within [from, to] (either end may be open). */
export function inWindow(column: SQLWrapper, from: string | null | undefined, to: string | null | undefined): SQL | undefined {
  return and(from ? sql`${column} >= ${from}` : undefined, to ? sql`${column} <= ${to}` : undefined);
}

/* ------------------------------------------------------------------ reads */

export async function listWeeklyReports(ctx: ModelContext, query: Pick<ListQuery, "page" | "per_page" | "search">, raw: Record<string, unknown>): Promise<ModelResult<Paged<WeeklyReportJson>>> {
  const scope = listScope(ctx, raw);
  if (!scope.ok) return scope;
  const { check, plans: inPlans, from, to } = scope.data;
  const where = and(
    inPlans(weeklyReports.planId),
    inWindow(weeklyReports.weekEnd, from, to),
    query.search ? contains(weeklyReports.weekEnd, query.search) : undefined,
  );
  const [[found], rows, [total]] = await ctx.db.batch([
    check,
    ctx.db.select().from(weeklyReports).where(where).orderBy(asc(weeklyReports.weekEnd), asc(weeklyReports.planId), asc(weeklyReports.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(weeklyReports).where(where),
  ]);
  // A filter naming no plan or BIP in scope lists nothing (decision 017); the page read, scoped by itself, found none.
  // One client's measurements: the API records the read with the client (withClients).
  return ok(withClients(paged(rows.map(weeklyReportJson), total?.n ?? 0, query), found && rows.length ? [found.patientId] : []));
}

/** A weekly report with its plan, or null when either is missing or out of scope. */
async function findReport(ctx: ModelContext, id: number, planId?: number): Promise<{ row: Row; plan: PlanInScope } | null> {
  // One statement: the report and its plan's scope (a single read stays within 3 round trips with its audit row).
  const [found] = await ctx.db
    .select({ row: weeklyReports, scope: planScopeColumns })
    .from(weeklyReports)
    .innerJoin(plans, eq(plans.id, weeklyReports.planId))
    .innerJoin(bips, eq(bips.id, plans.bipId))
    .innerJoin(patients, eq(patients.id, plans.patientId))
    .where(and(eq(weeklyReports.id, id), planId === undefined ? undefined : eq(weeklyReports.planId, planId), planInScopeWhere(ctx)));
  return found ? { row: found.row, plan: planScope(found.scope) } : null;
}

export async function getWeeklyReport(ctx: ModelContext, id: number): Promise<WeeklyReportJson | null> {
  const found = await findReport(ctx, id);
  return found ? withClients(weeklyReportJson(found.row), [found.plan.patientId]) : null;
}

/* ------------------------------------------------------------------ writes */

function isWeekRace(e: unknown): boolean {
  for (let x: unknown = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) {
    if (/UNIQUE constraint failed: weekly_reports\.plan_id/.test(String((x as Error).message ?? x))) return true;
  }
  return false;
}

async function existingWeek(ctx: ModelContext, planId: number, weekEnd: string) {
  const [row] = await ctx.db.select().from(weeklyReports).where(and(eq(weeklyReports.planId, planId), eq(weeklyReports.weekEnd, weekEnd)));
  return row ?? null;
}

/** A week that already has a report: 409 with the report as it is (docs/decisions/009), its client attached for the read's audit row. */
function duplicate(row: Row, patientId: number): ModelResult<never> {
  return { ok: false, status: 409, message: WEEKLY_REPORT_MESSAGES.duplicate(row.weekEnd), current: withClients(weeklyReportJson(row), [patientId]) };
}

export async function createWeeklyReport(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<WeeklyReportJson>> {
  const found = await planFromInput(ctx, raw, WEEKLY_REPORT_NOTICES.missing.text);
  if (!found.ok) return found;
  const plan = found.data;
  const parsed = parseWith(WeeklyReportInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const input = parsed.data;
  const outOfRange = weeklyDataDateRefusal("report", input.week_end, todayIn(ctx.now(), plan.timeZone));
  if (outOfRange) return invalid({ week_end: outOfRange });
  const existing = await existingWeek(ctx, plan.planId, input.week_end);
  if (existing) return duplicate(existing, plan.patientId);
  for (let attempt = 0; ; attempt++) {
    const id = await nextId(ctx, weeklyReports);
    try {
      const rows = await writeMeasurement<Row[]>(ctx, { action: "create", entity: "weekly_report", entityId: id, plan, list: WEEKLY_REPORTS }, () =>
        ctx.db.insert(weeklyReports).values({ id, planId: plan.planId, weekStart: input.week_start, weekEnd: input.week_end, value: input.value, totalUnits: input.total_units }).returning(),
      );
      return ok(weeklyReportJson(rows[0]!), WEEKLY_REPORT_NOTICES.added.text);
    } catch (e) {
      if (isWeekRace(e)) {
        const now = await existingWeek(ctx, plan.planId, input.week_end);
        if (now) return duplicate(now, plan.patientId);
      }
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/**
 * A new value (and total units) for a week. The week and the plan are read-only: a body that names
 * another week or plan is refused. `planId` limits the change to one plan (the goal screen).
 */
export async function updateWeeklyReport(
  ctx: ModelContext,
  id: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null; planId?: number },
): Promise<ModelResult<WeeklyReportJson>> {
  const found = await findReport(ctx, id, opts.planId);
  if (!found) return notFound("Weekly report");
  const { row } = found;
  // The plan and the week are read-only (decision 017, stop 43): another value answers at its field, sent alone too.
  const fixed = movedReferences(raw, {
    week_end: [row.weekEnd, WEEKLY_REPORT_MESSAGES.weekEndReadOnly],
    week_start: [row.weekStart, WEEKLY_REPORT_MESSAGES.weekEndReadOnly],
    plan_id: [row.planId, WEEKLY_REPORT_MESSAGES.planReadOnly],
    // The report list takes bip_id (its goal's BIP): the same kind of read-only reference.
    bip_id: [found.plan.bipId, MOVE_MESSAGES.reportBip],
  });
  if (namesNoField(raw, ["value", "total_units"])) return fixed ? invalid(fixed) : nothingToChange();
  const parsed = parseChange(WeeklyReportUpdate, raw, opts.partial ? { value: row.value, total_units: row.totalUnits } : null);
  const errors: Record<string, string> = { ...(parsed.ok ? {} : parsed.errors), ...fixed };
  if (!parsed.ok || Object.keys(errors).length) return invalid(errors);
  if (opts.version !== null && opts.version !== row.version) return conflict(withClients(weeklyReportJson(row), [found.plan.patientId]));
  // The value and units that are stored (compared as stored, to 2 decimals: decision 029) write nothing and keep the
  // version: "Nothing to change" (decision 017, stop 45). A value stored with more decimals before that rule is kept.
  if (leavesAsStored({ value: roundMeasure(row.value), total_units: roundMeasure(row.totalUnits) }, parsed.data)) return nothingToChange(weeklyReportJson(row));
  const rows = await writeMeasurement<Row[]>(ctx, { action: "update", entity: "weekly_report", entityId: id, plan: found.plan, list: WEEKLY_REPORTS }, () =>
    ctx.db
      .update(weeklyReports)
      .set({ value: parsed.data.value, totalUnits: parsed.data.total_units, version: sql`${weeklyReports.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(weeklyReports.id, id), opts.version === null ? undefined : eq(weeklyReports.version, opts.version)))
      .returning(),
  );
  if (!rows[0]) {
    const now = await findReport(ctx, id);
    return now ? conflict(withClients(weeklyReportJson(now.row), [now.plan.patientId])) : notFound("Weekly report");
  }
  return ok(weeklyReportJson(rows[0]), WEEKLY_REPORT_NOTICES.updated.text);
}

export async function deleteWeeklyReport(ctx: ModelContext, id: number, opts: { planId?: number } = {}): Promise<ModelResult<WeeklyReportJson>> {
  const found = await findReport(ctx, id, opts.planId);
  if (!found) return notFound("Weekly report");
  await writeMeasurement(ctx, { action: "delete", entity: "weekly_report", entityId: id, plan: found.plan, list: WEEKLY_REPORTS }, () => ctx.db.delete(weeklyReports).where(eq(weeklyReports.id, id)));
  return ok(weeklyReportJson(found.row), WEEKLY_REPORT_NOTICES.deleted.text);
}

/* ------------------------------------------------------------------ .xlsx check and import */

export interface ImportCheckRow {
  row: number;
  week_end: string | null;
  value: number | null;
  total_units: number | null;
  status: ImportStatus;
  reason: string | null;
  /** The value stored today for a week the import would overwrite (or that holds the same value already). */
  current_value: number | null;
  /**
   * The total units stored today for that week. The import replaces them only when the row carries total units; a
   * sheet without the column, or a blank cell, keeps them (decision 029, stop 36).
   */
  current_total_units: number | null;
  raw: { week_end: string; value: string; total_units: string };
}

export interface ImportCheck {
  plan_id: number;
  rows: ImportCheckRow[];
  valid: number;
  invalid: number;
  overwrite: number;
  /** Weeks whose report already holds the row's value and units: nothing to write. */
  unchanged: number;
}

export interface ImportDone extends ImportCheck {
  imported: number;
  overwritten: number;
  skipped: number;
}

/** What an upload carried: the file's bytes (null when no file was sent). */
export interface Upload {
  name: string;
  bytes: Uint8Array;
}

type ImportResult<T> = ModelResult<T> | { ok: false; status: 413; message: string };

/** A sheet checked against the rules and the plan's stored weeks, with the plan it was checked for. */
interface CheckedSheet {
  plan: PlanInScope;
  check: ImportCheck;
}

/**
 * Reads and checks an uploaded sheet against the rules and the plan's stored weeks. The stored values of the sheet's
 * weeks are client data the answer shows (current_value, current_total_units), so they are read with their audit row
 * (auditedRead: entity plan, action read, with the client) — the API's check-excel and the import screen alike
 * (decision 019). Writes nothing else.
 */
async function checkSheet(ctx: ModelContext, raw: Record<string, unknown>, upload: Upload | null): Promise<ImportResult<CheckedSheet>> {
  const found = await planFromInput(ctx, raw, "Choose the goal (plan_id) the sheet belongs to.");
  if (!found.ok) return found;
  const plan = found.data;
  if (!upload || upload.bytes.length === 0) return invalid({ file: IMPORT_MESSAGES.noFile });
  if (upload.bytes.length > IMPORT_MAX_BYTES) return { ok: false, status: 413, message: IMPORT_MESSAGES.tooLarge };
  const book = readXlsx(upload.bytes);
  // readXlsx's too_large is about what the zip unpacks to (the upload itself passed the check above).
  if (!book.ok) return book.reason === "too_large" ? { ok: false, status: 413, message: IMPORT_MESSAGES.contentsTooLarge } : invalid({ file: IMPORT_MESSAGES.notXlsx });
  const sheet = sheetToReports(book.rows, book.date1904);
  if (!sheet.ok) return invalid({ file: sheet.message });
  const today = todayIn(ctx.now(), plan.timeZone);
  const checked = sheet.rows.map((r) => ({ r, reason: importReason(r) ?? (r.week_end === null ? null : weeklyDataDateRefusal("report", r.week_end, today)) }));
  const weeksOfSheet = checked.flatMap(({ r, reason }) => (reason || r.week_end === null ? [] : [r.week_end]));
  // Only the sheet's weeks are read (one JSON parameter: D1 binds at most 100 per statement).
  const [stored] = await auditedRead(
    ctx.db,
    who(ctx),
    { entity: "plan", entityId: plan.planId, patientId: plan.patientId },
    () => [
      ctx.db
        .select({ weekEnd: weeklyReports.weekEnd, value: weeklyReports.value, totalUnits: weeklyReports.totalUnits })
        .from(weeklyReports)
        .where(and(eq(weeklyReports.planId, plan.planId), sql`${weeklyReports.weekEnd} in (select value from json_each(${JSON.stringify(weeksOfSheet)}))`)),
    ],
    plan.tail,
  );
  const current = new Map(stored.map((s) => [s.weekEnd, s]));
  const rows: ImportCheckRow[] = checked.map(({ r, reason }) => {
    const existing = r.week_end !== null && !reason ? current.get(r.week_end) : undefined;
    // A row without total units keeps the stored ones, so only its value can make it a change.
    const same = existing !== undefined && sameMeasure(existing.value, r.value) && (r.total_units === null || sameMeasure(existing.totalUnits, r.total_units));
    return {
      row: r.row,
      week_end: r.week_end,
      value: r.value,
      total_units: r.total_units,
      status: reason ? "invalid" : existing === undefined ? "valid" : same ? "unchanged" : "overwrite",
      reason,
      current_value: existing?.value ?? null,
      current_total_units: existing?.totalUnits ?? null,
      raw: r.raw,
    };
  });
  const n = (s: ImportStatus) => rows.filter((r) => r.status === s).length;
  return ok({ plan, check: { plan_id: plan.planId, rows, valid: n("valid"), invalid: n("invalid"), overwrite: n("overwrite"), unchanged: n("unchanged") } });
}

/** Reads and checks an uploaded sheet (checkSheet): what the import would do with every row. */
export async function checkWeeklyReportsFile(ctx: ModelContext, raw: Record<string, unknown>, upload: Upload | null): Promise<ImportResult<ImportCheck>> {
  const checked = await checkSheet(ctx, raw, upload);
  return checked.ok ? ok(checked.data.check) : checked;
}

/**
 * Imports the valid rows of a sheet in one batch (one statement for all rows, with the audit row).
 * Weeks that already have a report are skipped, or overwritten with `force`; a week that already holds the row's
 * value and units is left as it is. The write rule is the one of the weeks generated from notes (decision 029): a
 * total units the row does not carry (no such column, or a blank cell) keeps the stored one.
 */
export async function importWeeklyReportsFile(ctx: ModelContext, raw: Record<string, unknown>, upload: Upload | null, force: boolean): Promise<ImportResult<ImportDone>> {
  const checked = await checkSheet(ctx, raw, upload);
  if (!checked.ok) return checked;
  const { plan, check } = checked.data;
  const writes = check.rows.filter((r) => r.status === "valid" || (force && r.status === "overwrite"));
  const skipped = force ? 0 : check.overwrite;
  const done: ImportDone = { ...check, imported: writes.filter((r) => r.status === "valid").length, overwritten: force ? check.overwrite : 0, skipped };
  if (writes.length === 0) return ok(done, importMessage(done));
  const payload = JSON.stringify(writes.map((r) => ({ s: r.week_end && weekStartOf(r.week_end), e: r.week_end, v: r.value, u: r.total_units })));
  const now = ctx.now().toISOString();
  // Every row in one statement: the rows travel as one JSON parameter (D1 binds at most 100 per statement).
  // Columns in table order: id (assigned), plan_id, week_start, week_end, value, total_units, version, created_at, updated_at.
  const rows = sql`select null, ${plan.planId}, json_extract(value, '$.s'), json_extract(value, '$.e'), json_extract(value, '$.v'), json_extract(value, '$.u'), 1, ${now}, ${now}
    from json_each(${payload}) where true`;
  const target = [weeklyReports.planId, weeklyReports.weekEnd];
  const insert = () => {
    const q = ctx.db.insert(weeklyReports).select(rows);
    return force
      ? q.onConflictDoUpdate({
          target,
          set: { value: sql`excluded.value`, totalUnits: sql`coalesce(excluded.total_units, ${weeklyReports.totalUnits})`, version: sql`${weeklyReports.version} + 1`, updatedAt: now },
        })
      : q.onConflictDoNothing({ target });
  };
  // One audit row for the whole import, on the plan (its rows have no single id): docs/decisions/009.
  await writeMeasurement(ctx, { action: "import_weekly_reports", entity: "plan", entityId: plan.planId, plan, list: WEEKLY_REPORTS }, insert);
  return ok(done, importMessage(done));
}

const weeks = (n: number) => `${n} week${n === 1 ? "" : "s"}`;

export function importMessage(d: Pick<ImportDone, "imported" | "overwritten" | "skipped" | "invalid"> & { unchanged?: number }): string {
  const parts = [`Imported ${weeks(d.imported)}`];
  if (d.overwritten) parts.push(`overwrote ${weeks(d.overwritten)}`);
  if (d.unchanged) parts.push(`left ${weeks(d.unchanged)} that already had the same value`);
  if (d.skipped) parts.push(`skipped ${weeks(d.skipped)} that already had a report (tick "Overwrite existing weeks" or send force_update=true to replace them)`);
  if (d.invalid) parts.push(`left out ${d.invalid} invalid row${d.invalid === 1 ? "" : "s"}`);
  return `${parts.join("; ")}.`;
}
