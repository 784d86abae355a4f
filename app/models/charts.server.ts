import { and, asc, eq, inArray, isNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { chartComments, objectives, plans, weeklyReports } from "~/db/schema";
import type { ChartInput } from "~/domain/chart";
import { roundMeasure } from "~/domain/measure";
import { lastPage, type Paged } from "~/domain/paging";
import { EDITOR_PER_PAGE } from "~/domain/weekly-reports";
import type { PlanInScope } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { inWindow } from "./weekly-reports.server";

/**
 * What the behavior charts need, read for many plans at once in ONE statement (one round trip): each
 * plan row carries its objectives, its weekly reports and its chart comments in the date range as JSON
 * arrays (correlated json_group_array subqueries, each served by its plan_id index). The plan ids travel
 * as one JSON parameter (json_each), so a BIP with many goals stays within D1's bound-parameter limit.
 * The statements are built here and run by the caller in one batch with the read's audit row
 * (auditedRead, readBip): the goal screen is session + scope + that batch, 3 round trips
 * (docs/decisions/009). The caller has already found the plans in scope (findPlanInScope /
 * findBipInScope); ids it did not check must not be passed here.
 */
export interface ChartRange {
  from?: string | null;
  to?: string | null;
}

function inIds(column: SQLWrapper, ids: readonly number[]) {
  return sql`${column} in (select value from json_each(${JSON.stringify(ids)}))`;
}

/** A JSON array of `object` for the rows of `table` that match `where`, in `order`; with `page`, that page of them. */
function jsonRows(object: SQL, from: SQLWrapper, where: SQL | undefined, order: SQL, page?: { size: number; number: SQL }): SQL<string> {
  const limit = page ? sql` limit ${page.size} offset (${page.number} - 1) * ${page.size}` : sql``;
  return sql<string>`(select json_group_array(json(j)) from (select ${object} as j from ${from} where ${where ?? sql`1`} order by ${order}${limit}))`;
}

/**
 * A REAL column inside a JSON object, exactly as stored: json_object writes a REAL with 15 significant digits
 * (82.92682926829268 came back as 82.9268292682927), so it travels as text with 17 (enough to give back the same
 * double) and `exactNumber` reads it. Null stays null.
 */
function exactReal(column: SQLWrapper): SQL {
  return sql`case when ${column} is null then null else printf('%!.17g', ${column}) end`;
}

/** A value written by exactReal. */
function exactNumber(x: number | string | null): number | null {
  return x === null ? null : Number(x);
}

/** The JSON array of a subquery, put in order (SQLite does not promise the order of an aggregate's input). */
function parse<T>(text: string | null, order: (a: T, b: T) => number): T[] {
  return text ? (JSON.parse(text) as T[]).sort(order) : [];
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function planIds(planIds: readonly number[]): number[] {
  return [...new Set(planIds.filter((id) => Number.isSafeInteger(id) && id > 0))];
}

/** The chart-input statement for plans already found in scope, not yet run; its rows go to chartInputsFrom. */
export function chartInputsQuery(ctx: ModelContext, ids: readonly number[], range: ChartRange) {
  return chartInputsWhere(ctx, inIds(plans.id, planIds(ids)), range);
}

/**
 * The goals a BIP profile charts — its active maladaptive and replacement goals, measured weekly (the
 * training goals are monthly fidelity checks and keep their chart on the goal screen) — as
 * chartInputsQuery does, for a BIP already found in scope. `commentsWhen` as for patientChartsQuery: the family copy of
 * a shared plan PDF passes the portal's narrative setting (decision 041, stop 38).
 */
export function profileChartsQuery(ctx: ModelContext, bipId: number, range: ChartRange, commentsWhen?: SQL) {
  return chartInputsWhere(ctx, and(eq(plans.bipId, bipId), inArray(plans.category, ["maladaptive", "replacement"]), eq(plans.status, "active")), range, commentsWhen);
}

/**
 * A client's active maladaptive and replacement goals, as profileChartsQuery does for one BIP, across the
 * client's BIPs (the parent portal, docs/decisions/040), for a client already found in the actor's reach.
 * `commentsWhen` is a SQL condition the chart comments are read under: the portal passes its narrative
 * setting, so staff's free text stays in the database unless the clinic shows narratives (decision 040).
 */
export function patientChartsQuery(ctx: ModelContext, patientId: number, range: ChartRange, commentsWhen: SQL) {
  return chartInputsWhere(
    ctx,
    and(eq(plans.patientId, patientId), inArray(plans.category, ["maladaptive", "replacement"]), eq(plans.status, "active"), sql`${plans.bipId} in (select "id" from "bips" where "deleted_at" is null)`),
    range,
    commentsWhen,
  );
}

function chartInputsWhere(ctx: ModelContext, where: SQL | undefined, range: ChartRange, commentsWhen?: SQL) {
  const from = range.from || null;
  const to = range.to || null;
  const o = objectives;
  const r = weeklyReports;
  const c = chartComments;
  return ctx.db
    .select({
      id: plans.id,
      name: plans.name,
      category: plans.category,
      baselineDate: plans.baselineDate,
      baselineLevel: plans.baselineLevel,
      unitType: plans.unitType,
      timeframe: plans.timeframe,
      objectives: jsonRows(
        sql`json_object('id', ${o.id}, 'type', ${o.type}, 'position', ${o.position}, 'status', ${o.status}, 'target', ${o.target}, 'initialDate', ${o.initialDate}, 'endDate', ${o.endDate}, 'name', ${o.name})`,
        o,
        and(eq(o.planId, plans.id), isNull(o.deletedAt)),
        sql`${o.position}, ${o.id}`,
      ),
      reports: jsonRows(sql`json_object('weekEnd', ${r.weekEnd}, 'value', ${exactReal(r.value)}, 'totalUnits', ${exactReal(r.totalUnits)})`, r, and(eq(r.planId, plans.id), inWindow(r.weekEnd, from, to)), sql`${r.weekEnd}`),
      comments: jsonRows(sql`json_object('id', ${c.id}, 'commentDate', ${c.commentDate}, 'comment', ${c.comment})`, c, and(eq(c.planId, plans.id), inWindow(c.commentDate, from, to), commentsWhen), sql`${c.commentDate}, ${c.id}`),
    })
    .from(plans)
    .where(and(where, isNull(plans.deletedAt)))
    .orderBy(asc(plans.id));
}

/** A report as the chart statement writes it (exactReal: numbers as text). */
type ExactReport = { weekEnd: string; value: string | number; totalUnits: string | number | null };

export type ChartInputRows = Awaited<ReturnType<typeof chartInputsWhere>>;

/** The chart inputs by plan id, from the rows of chartInputsQuery for the same range. */
export function chartInputsFrom(rows: ChartInputRows, range: ChartRange): Map<number, ChartInput> {
  const out = new Map<number, ChartInput>();
  const from = range.from || null;
  const to = range.to || null;
  for (const { id, objectives: objectiveJson, reports, comments, ...plan } of rows) {
    out.set(id, {
      plan,
      objectives: parse<ChartInput["objectives"][number]>(objectiveJson, (a, b) => a.position - b.position || a.id - b.id),
      // The chart shows a measurement as it is stored under decision 029 (2 decimals): a value stored with more
      // decimals before that rule is charted, summarised and compared with the targets rounded, as every screen shows it.
      reports: parse<ExactReport>(reports, (a, b) => byText(a.weekEnd, b.weekEnd)).map((x) => ({
        weekEnd: x.weekEnd,
        value: roundMeasure(exactNumber(x.value) ?? 0),
        totalUnits: roundMeasure(exactNumber(x.totalUnits)),
      })),
      comments: parse<ChartInput["comments"][number]>(comments, (a, b) => byText(a.commentDate, b.commentDate) || a.id - b.id),
      from,
      to,
    });
  }
  return out;
}


export interface EditorReport {
  id: number;
  week_end: string;
  value: number;
  total_units: number | null;
  version: number;
}
export interface EditorComment {
  id: number;
  comment_date: string;
  comment: string;
  version: number;
}

/**
 * Which page of each editor to read: page 1 holds the newest rows (decision 009, stop 32). `week` (a date) asks for
 * the reports page that holds that week (the 409 of an add leads there); a `reports` page given wins over it.
 */
export interface EditorPages {
  reports: number | null;
  comments: number;
  week: string | null;
}

/** One editor's page as the pager reads it (page, per_page, total, last_page). */
export type EditorPage = Pick<Paged<unknown>, "page" | "per_page" | "total" | "last_page">;

/**
 * The rows of the goal screen's editors (Update Weekly Reports, Update Comments) for a plan already
 * found in scope (a PlanInScope only comes from findPlanInScope): one statement, not yet run (like
 * chartInputsQuery). Each editor shows a page of 500 rows (the editors' page size, clinical §9) counted from the
 * newest end, so the weeks a BCBA corrects are on the first page; within a page the rows are in date order.
 * The statement also answers each editor's total and the page it read, each under its own name (a batch reads rows by
 * column name, and two bare `?` columns would share one).
 */
export function editorRowsQuery(ctx: ModelContext, plan: PlanInScope, range: ChartRange, pages: EditorPages) {
  const r = weeklyReports;
  const c = chartComments;
  const reportsWhere = and(eq(r.planId, plan.planId), inWindow(r.weekEnd, range.from, range.to));
  const commentsWhere = and(eq(c.planId, plan.planId), inWindow(c.commentDate, range.from, range.to));
  // The page holding `week`: one more than the whole pages of reports newer than it.
  const reportsPage =
    pages.reports === null && pages.week !== null
      ? // A whole number whatever type the driver binds the page size as (a REAL made this 2.04 and LIMIT refused it).
        sql`(cast((select count(*) from ${r} where ${and(reportsWhere, sql`${r.weekEnd} > ${pages.week}`)}) / ${EDITOR_PER_PAGE} as integer) + 1)`
      : sql`${pages.reports ?? 1}`;
  const commentsPage = sql`${pages.comments}`;
  return ctx.db
    .select({
      reports: jsonRows(
        sql`json_object('id', ${r.id}, 'week_end', ${r.weekEnd}, 'value', ${exactReal(r.value)}, 'total_units', ${exactReal(r.totalUnits)}, 'version', ${r.version})`,
        r,
        reportsWhere,
        sql`${r.weekEnd} desc`,
        { size: EDITOR_PER_PAGE, number: reportsPage },
      ),
      reportsTotal: sql<number>`(select count(*) from ${r} where ${reportsWhere})`.as("reports_total"),
      reportsPage: sql<number>`${reportsPage}`.as("reports_page"),
      comments: jsonRows(
        sql`json_object('id', ${c.id}, 'comment_date', ${c.commentDate}, 'comment', ${c.comment}, 'version', ${c.version})`,
        c,
        commentsWhere,
        sql`${c.commentDate} desc, ${c.id} desc`,
        { size: EDITOR_PER_PAGE, number: commentsPage },
      ),
      commentsTotal: sql<number>`(select count(*) from ${c} where ${commentsWhere})`.as("comments_total"),
      commentsPage: sql<number>`${commentsPage}`.as("comments_page"),
    })
    .from(plans)
    .where(eq(plans.id, plan.planId));
}

export interface EditorRows {
  reports: EditorReport[];
  comments: EditorComment[];
  reportsPage: EditorPage;
  commentsPage: EditorPage;
}

function editorPage(page: number | undefined, total: number | undefined): EditorPage {
  const n = Number(total ?? 0);
  return { page: Number(page ?? 1), per_page: EDITOR_PER_PAGE, total: n, last_page: lastPage(n, EDITOR_PER_PAGE) };
}

export function editorRowsFrom([row]: Awaited<ReturnType<typeof editorRowsQuery>>): EditorRows {
  return {
    // As stored, exactly (the editor's inputs show them through formatMeasure).
    reports: parse<Omit<EditorReport, "value" | "total_units"> & { value: string | number; total_units: string | number | null }>(row?.reports ?? null, (a, b) => byText(a.week_end, b.week_end)).map(
      (x) => ({ ...x, value: exactNumber(x.value) ?? 0, total_units: exactNumber(x.total_units) }),
    ),
    comments: parse<EditorComment>(row?.comments ?? null, (a, b) => byText(a.comment_date, b.comment_date) || a.id - b.id),
    reportsPage: editorPage(row?.reportsPage, row?.reportsTotal),
    commentsPage: editorPage(row?.commentsPage, row?.commentsTotal),
  };
}
