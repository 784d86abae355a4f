import { data, redirect, type AppLoadContext, type LoaderFunctionArgs } from "@remix-run/cloudflare";
import type { ReportChart } from "~/domain/report-operations";
import { and, asc, eq, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { locations, userLocations, users } from "~/db/schema";
import { csvFileName, csvStream, type CsvCell } from "~/domain/csv";
import { STAFF_OPTIONS_MAX, TOO_MANY_STAFF_HINT } from "~/domain/employees";
import { can, canSeeLocation, locationScope, type Actor } from "~/domain/permissions";
import { paged, type Paged } from "~/domain/paging";
import { CSV_MAX_ROWS, filterInput, isReportKey, profileLinksOf, REPORT_PER_PAGE, ReportPageQuery, type FilterOptions, type ProfileLinks, type ReportDefinition, type ReportKey } from "~/domain/reports";
import { REPORT_DEFINITIONS } from "~/domain/report-registry";
import { parseWith } from "~/domain/validation";
import type { ModelContext } from "~/models/context";
import { actorToday } from "~/models/local-today.server";
import { REPORT_RUNNERS } from "~/models/reports/index.server";
import { auditedRead, type AuditEntry, type KnownTail } from "./audit.server";
import { modelContextFor } from "./forms.server";
import { forbidden, notFound, requirePermission } from "./guard.server";
import { idsIn, inLocationScope } from "~/models/scope.server";

/**
 * The one report screen and CSV export (decision 038). Each report is a definition (app/domain/reports.ts:
 * filters, columns) and a runner (app/models/reports/*.server.ts: the query). This module:
 *
 *   guard (manage_notes, then the definition's permission) → parse the filters (valibot; a bad filter is a
 *   field message and a 400, never a 500) → run the report (one batch: the page, its count and the filter
 *   form's options) → audit (one row naming the clients shown, riding in a batch with any follow-up read)
 *   → the page, or the CSV of ALL matching rows (at most CSV_MAX_ROWS) as an attachment.
 *
 * So a report costs at most 3 D1 round trips: the session (with the audit tail), the batch, the audit.
 */

/** What a runner receives: the model context, the parsed filters, and the window to read. */
export interface ReportQuery<F> {
  filters: F;
  /** CSV: every row up to CSV_MAX_ROWS + 1 (one more tells the file was cut), no count needed. */
  csv: boolean;
  page: number;
  per_page: number;
  /** Rows to read: the page and ONE more (it tells there is a next page without counting), or for a CSV CSV_MAX_ROWS + 1. */
  limit: number;
  offset: number;
  /** The newest audit entry to read (`as_of`, fixed by the first page), or null on a first page (the logs and access reports). */
  asOf: number | null;
}

/**
 * A page read with one row of lookahead (`q.limit` rows) as the answer's rows and total: without the extra
 * row the total is exact; with it the total is a lower bound ("of 26+ entries") and there is a next page.
 * No report counts all its matching rows (decision 038): counting is what made them slow at scale.
 */
export function windowed<R>(rows: R[], q: Pick<ReportQuery<unknown>, "csv" | "per_page" | "offset">): { rows: R[]; total: number; totalIsLowerBound: boolean } {
  if (q.csv || rows.length <= q.per_page) return { rows, total: q.offset + rows.length, totalIsLowerBound: false };
  return { rows: rows.slice(0, q.per_page), total: q.offset + rows.length, totalIsLowerBound: true };
}

/** What a runner answers. */
export interface ReportAnswer<R> {
  rows: R[];
  /** Matching rows in all (ignored for CSV). */
  total: number;
  /** True when `total` is a capped count (more rows match). */
  totalIsLowerBound?: boolean;
  /** The clients whose data the rows hold, for the audit row (reports with clientData). */
  patientIds: number[];
  /** Lines said above the table (a check's result, the period read). */
  notes?: string[];
  /** A small chart (the one bar chart model: a server SVG, redrawn with uPlot with JavaScript), or null. */
  chart?: ReportChart | null;
  /** The newest entry the answer was read up to (logs, access): the page links and the CSV link carry it as `as_of`. */
  asOf?: number | null;
}

/**
 * The batch helpers a runner calls. `read` runs the report's first reads in ONE batch together with the
 * filter form's options (call it once). `audited` runs follow-up reads in the same batch as the audit row
 * (call it at most once, after `read`, with the rows the answer will show and their clients); without it the
 * framework writes the audit row after the runner returns.
 */
export interface ReportRunContext extends ModelContext {
  read<T extends BatchItem<"sqlite">[]>(
    reads: [...T]
  ): Promise<{
    [K in keyof T]: T[K] extends BatchItem<"sqlite"> ? Awaited<T[K]> : never;
  }>;
  audited<T extends BatchItem<"sqlite">[]>(
    answer: AnswerShown,
    reads: [...T]
  ): Promise<{
    [K in keyof T]: T[K] extends BatchItem<"sqlite"> ? Awaited<T[K]> : never;
  }>;
}

export type ReportRunner<F, R> = (rc: ReportRunContext, q: ReportQuery<F>) => Promise<ReportAnswer<R>>;

/** What the audit row is made from: the rows the answer shows and the clients they name. */
export type AnswerShown = Pick<ReportAnswer<unknown>, "rows" | "patientIds">;

/**
 * The clients a report's audit row names (decision 019): those its rows name, and the client its filters
 * narrow it to (`patient_id`, the filter of kind client) when it returned any row, since every figure is then
 * that client's (payroll, location-cpt or hours by provider name no client in their rows). One rule for every
 * report; a report whose rows hold no client data writes its row only when this names someone.
 */
export function reportClients(def: Pick<ReportDefinition<unknown, unknown>, "filters">, filters: unknown, answer: AnswerShown): number[] {
  const clientFilter = def.filters.find((f) => f.kind === "client");
  const narrowedTo = clientFilter ? (filters as Record<string, unknown>)[clientFilter.name] : null;
  return typeof narrowedTo === "number" && answer.rows.length > 0 ? [...answer.patientIds, narrowedTo] : [...answer.patientIds];
}

/** The audit detail lists at most this many client ids; a larger export records the count (and its filters). */
export const AUDIT_MAX_IDS = 5_000;

export function reportAuditEntry(key: ReportKey, patientIds: readonly number[], filters: unknown, csv: boolean): Omit<AuditEntry, "action"> {
  const ids = [...new Set(patientIds)].sort((a, b) => a - b);
  const detail: Record<string, unknown> = {
    report: key,
    format: csv ? "csv" : "screen",
    filters,
  };
  if (ids.length <= AUDIT_MAX_IDS) detail.patients = ids;
  else detail.patients_count = ids.length;
  return {
    entity: "report",
    entityId: key,
    patientId: ids.length === 1 ? ids[0]! : null,
    detail,
  };
}

/**
 * The filter form's options in the actor's scope: their locations, and the staff of the chosen location (of
 * every location in scope when none is chosen), at most STAFF_OPTIONS_MAX (one more is read to know), plus the
 * chosen provider so the select keeps it. An all-locations scope at bench size has 2,000 staff: listing them
 * all made the page ~80 kB; a location first keeps the select to its own staff.
 */
function optionReads(ctx: ModelContext, def: ReportDefinition<unknown, unknown>, values: Record<string, string>): BatchItem<"sqlite">[] {
  const scope = locationScope(ctx.actor);
  const needLocations = def.filters.some((f) => f.kind === "location");
  const staffFilter = def.filters.find((f) => f.kind === "provider" || f.kind === "actor");
  const locationFilter = def.filters.find((f) => f.kind === "location");
  const chosenLocation = locationFilter ? wholeId(values[locationFilter.name]) : null;
  const chosenStaff = staffFilter ? wholeId(values[staffFilter.name]) : null;
  const locationWhere = and(isNull(locations.deletedAt), inLocationScope(locations.id, scope));
  const staffLocations = chosenLocation !== null && canSeeLocation(ctx.actor, chosenLocation) ? [chosenLocation] : scope;
  const inStaffLocations = (userId: SQL | typeof users.id) =>
    staffLocations === null ? undefined : staffLocations.length ? sql`exists (select 1 from ${userLocations} where ${userLocations.userId} = ${userId} and ${idsIn(userLocations.locationId, staffLocations)})` : sql`1 = 0`;
  const inScope = scope === null ? undefined : scope.length ? sql`exists (select 1 from ${userLocations} where ${userLocations.userId} = ${users.id} and ${idsIn(userLocations.locationId, scope)})` : sql`1 = 0`;
  return [
    ctx.db
      .select({ id: locations.id, title: locations.title })
      .from(locations)
      .where(needLocations ? locationWhere : sql`1 = 0`)
      .orderBy(asc(locations.title)),
    ctx.db
      .select({ id: users.id, name: users.name, surname: users.surname })
      .from(users)
      .where(staffFilter ? and(isNull(users.deletedAt), inStaffLocations(users.id)) : sql`1 = 0`)
      .orderBy(asc(users.surname), asc(users.name))
      .limit(STAFF_OPTIONS_MAX + 1),
    // The chosen one, deleted or not: a deleted employee's work still counts (payroll, hours; decision 039), so the
    // select lists them, marked, and the filter shown is the filter applied (decision 038, 2026-11-28).
    ctx.db
      .select({ id: users.id, name: users.name, surname: users.surname, deleted: sql<number>`${users.deletedAt} is not null`.mapWith(Number) })
      .from(users)
      .where(chosenStaff !== null ? and(eq(users.id, chosenStaff), inScope) : sql`1 = 0`),
  ];
}

function wholeId(v: string | undefined): number | null {
  return v && /^\d{1,9}$/.test(v) ? Number(v) : null;
}

type LocRow = { id: number; title: string };
type StaffRow = { id: number; name: string; surname: string; deleted?: number };

function toOptions([locs, staff, chosen]: unknown[]): FilterOptions {
  const staffRows = staff as StaffRow[];
  const more = staffRows.length > STAFF_OPTIONS_MAX;
  const listed = more ? [] : staffRows;
  const label = (s: StaffRow) => `${s.name} ${s.surname}`.trim() + (s.deleted ? " (deleted)" : "");
  const shown = [...listed, ...(chosen as StaffRow[]).filter((c) => !listed.some((s) => s.id === c.id))];
  return {
    locations: (locs as LocRow[]).map((l) => ({ value: String(l.id), label: l.title })),
    staff: shown.map((s) => ({ value: String(s.id), label: label(s) })),
    staffHint: more ? TOO_MANY_STAFF_HINT : undefined,
  };
}

interface Ran<R> {
  answer: ReportAnswer<R>;
  options: FilterOptions;
}

/** Runs a report with its batches counted: first read (+ options), then the audited batch. */
async function runReport<F, R>(ctx: ModelContext, def: ReportDefinition<F, R>, runner: ReportRunner<F, R>, q: ReportQuery<F>, tail: KnownTail, values: Record<string, string> | null): Promise<Ran<R>> {
  const withOptions = values !== null;
  const extra = withOptions ? optionReads(ctx, def as ReportDefinition<unknown, unknown>, values ?? {}) : [];
  let options: FilterOptions = { locations: [], staff: [] };
  let audited = false;
  const db = ctx.db;
  const rc: ReportRunContext = {
    ...ctx,
    async read(reads) {
      const all = [...reads, ...extra] as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
      const results = (await db.batch(all)) as unknown[];
      if (extra.length) options = toOptions(results.slice(reads.length));
      extra.length = 0;
      return results.slice(0, reads.length) as never;
    },
    async audited(shown, reads) {
      audited = true;
      const named = reportClients(def, q.filters, shown);
      if (!def.clientData && named.length === 0) {
        if (reads.length === 0) return [] as never;
        return (await db.batch(reads as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as never;
      }
      return (await auditedRead(db, ctx, reportAuditEntry(def.key, named, q.filters, q.csv), () => reads, tail)) as never;
    },
  };
  const answer = await runner(rc, q);
  if (extra.length) {
    // A runner that read nothing through `read` (its data came otherwise): the options on their own.
    options = toOptions((await db.batch(extra as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[]);
  }
  if (!audited) {
    const named = reportClients(def, q.filters, answer);
    if (def.clientData || named.length) await auditedRead(db, ctx, reportAuditEntry(def.key, named, q.filters, q.csv), () => [] as [], tail);
  }
  return { answer, options };
}

/* ------------------------------------------------------------------ loaders */

function definitionFor(key: string | undefined): {
  def: ReportDefinition<unknown, unknown>;
  runner: ReportRunner<unknown, unknown>;
} {
  if (!isReportKey(key)) throw notFound("No such report.");
  const def = REPORT_DEFINITIONS[key] as ReportDefinition<unknown, unknown> | undefined;
  const runner = REPORT_RUNNERS[key] as ReportRunner<unknown, unknown> | undefined;
  if (!def || !runner) throw notFound("No such report.");
  return { def, runner };
}

/**
 * Whether a user past the screens' manage_notes guard may open the report: it has a definition and a query,
 * and they hold the definition's own permission (payroll: manage_employees; location-cpt: manage_claims; decision 039). The screen and the
 * CSV refuse the rest with 403; the /reports index lists only these.
 */
export function canOpenReport(actor: Pick<Actor, "roles" | "permissions" | "kind">, key: ReportKey): boolean {
  const def = REPORT_DEFINITIONS[key];
  return !!def && !!REPORT_RUNNERS[key] && can(actor, def.permission);
}

async function guardReport(request: Request, context: AppLoadContext, key: string | undefined) {
  const signed = await requirePermission(request, context, "manage_notes");
  const found = definitionFor(key);
  if (!canOpenReport(signed.actor, found.def.key)) throw forbidden();
  return { ...signed, ...found };
}

function parseFilters(def: ReportDefinition<unknown, unknown>, params: URLSearchParams) {
  const input = filterInput(def, params);
  const paging = parseWith(ReportPageQuery, {
    page: params.get("page") || undefined,
    per_page: params.get("per_page") || undefined,
    as_of: params.get("as_of") ?? undefined,
  });
  const filters = parseWith(def.schema, input);
  const errors = {
    ...(paging.ok ? {} : paging.errors),
    ...(filters.ok ? {} : filters.errors),
  };
  return {
    input,
    paging: paging.ok ? paging.data : { page: 1, per_page: REPORT_PER_PAGE, as_of: null },
    filters: filters.ok ? filters.data : null,
    errors,
  };
}

export interface ReportScreenData {
  key: ReportKey;
  values: Record<string, string>;
  errors: Record<string, string>;
  options: FilterOptions;
  page: Paged<unknown>;
  notes: string[];
  chart: ReportChart | null;
  /** The values the page links and the CSV link keep so that they read what this page read (`as_of`). */
  pinned: Record<string, string>;
  /** The profiles the reader may open: client and employee names link only to those (decision 007). */
  links: ProfileLinks;
}

/** GET /reports/:report — the screen's data; a bad filter answers 400 with its field messages and no rows. */
export async function reportScreenLoader({ request, context, params }: LoaderFunctionArgs) {
  const { actor, auditTail, def, runner } = await guardReport(request, context, params.report);
  const url = new URL(request.url);
  const parsed = parseFilters(def, url.searchParams);
  const ctx = modelContextFor(context, actor);
  const empty = (options: FilterOptions): ReportScreenData => ({
    key: def.key,
    values: parsed.input,
    errors: parsed.errors,
    options,
    page: paged([], 0, { page: 1, per_page: parsed.paging.per_page }),
    notes: [],
    chart: null,
    pinned: {},
    links: profileLinksOf(actor),
  });
  if (Object.keys(parsed.errors).length || parsed.filters === null) {
    const options = toOptions((await ctx.db.batch(optionReads(ctx, def, parsed.input) as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[]);
    return data(empty(options), { status: 400 });
  }
  const { page, per_page } = parsed.paging;
  const q: ReportQuery<unknown> = {
    filters: parsed.filters,
    csv: false,
    page,
    per_page,
    limit: per_page + 1,
    offset: (page - 1) * per_page,
    asOf: parsed.paging.as_of,
  };
  const { answer, options } = await runReport(ctx, def, runner, q, auditTail, parsed.input);
  // A page past the last (a stale or typed address) has no row to carry the total (count(*) over ()): back to
  // the first page with the same filters, rather than "Showing 0 to 0 of 0 entries".
  if (!answer.rows.length && page > 1) {
    url.searchParams.delete("page");
    throw redirect(`${url.pathname}${url.searchParams.size ? `?${url.searchParams}` : ""}`);
  }
  const body: ReportScreenData = {
    key: def.key,
    values: parsed.input,
    errors: {},
    options,
    // The page itself: a runner reads one row more than the page (windowed); one that does not slice is sliced here.
    page: answer.totalIsLowerBound
      ? {
          ...paged(answer.rows.slice(0, per_page), answer.total - 1, q),
          last_page: page + 1,
          total_is_lower_bound: true,
        }
      : paged(answer.rows.slice(0, per_page), answer.total, q),
    notes: answer.notes ?? [],
    chart: answer.chart ?? null,
    pinned: answer.asOf != null ? { as_of: String(answer.asOf) } : {},
    links: profileLinksOf(actor),
  };
  return body;
}

/** The CSV's header and records from the same column list as the screen. */
export function reportCsvRecords<R>(def: ReportDefinition<unknown, R>, rows: readonly R[]): { header: string[]; records: CsvCell[][] } {
  return {
    header: def.columns.map((c) => c.csvHeader ?? c.header),
    records: rows.map((r) => def.columns.map((c) => (c.csv ?? c.value)(r))),
  };
}

/** GET /reports/:report/export.csv — every matching row (at most CSV_MAX_ROWS) as an attachment. */
export async function reportCsvLoader({ request, context, params }: LoaderFunctionArgs) {
  const { actor, auditTail, def, runner } = await guardReport(request, context, params.report);
  const url = new URL(request.url);
  const parsed = parseFilters(def, url.searchParams);
  if (Object.keys(parsed.errors).length || parsed.filters === null) {
    return new Response(
      JSON.stringify({
        message: Object.values(parsed.errors)[0] ?? "The filters are not valid.",
        errors: parsed.errors,
      }),
      {
        status: 400,
        headers: {
          "Content-Type": "application/json; charset=utf-8",
          "Cache-Control": "no-store",
        },
      }
    );
  }
  const ctx = modelContextFor(context, actor);
  const q: ReportQuery<unknown> = {
    filters: parsed.filters,
    csv: true,
    page: 1,
    per_page: CSV_MAX_ROWS,
    limit: CSV_MAX_ROWS + 1,
    offset: 0,
    asOf: parsed.paging.as_of,
  };
  const { answer } = await runReport(ctx, def, runner, q, auditTail, null);
  const truncated = answer.rows.length > CSV_MAX_ROWS;
  const rows = truncated ? answer.rows.slice(0, CSV_MAX_ROWS) : answer.rows;
  const { header, records } = reportCsvRecords(def, rows);
  // Dated with the today the screens show (the actor's time zone), not UTC's: an evening export keeps its day.
  const name = csvFileName(`baseline-${def.key}`, actorToday(ctx));
  const headers: Record<string, string> = {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="${name}"`,
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
  };
  if (truncated) headers["X-Report-Truncated"] = `first ${CSV_MAX_ROWS} rows`;
  return new Response(csvStream(header, records), { headers });
}
