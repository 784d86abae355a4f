import { and, asc, eq, inArray, isNull, sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { chartComments, objectives, plans, weeklyReports } from "~/db/schema";
import type { ChartInput } from "~/domain/chart";
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

/** A JSON array of `object` for the rows of `table` that match `where`, in `order`, at most `limit`. */
function jsonRows(object: SQL, from: SQLWrapper, where: SQL | undefined, order: SQL, limit?: number): SQL<string> {
  return sql<string>`(select json_group_array(json(j)) from (select ${object} as j from ${from} where ${where ?? sql`1`} order by ${order}${limit ? sql` limit ${limit}` : sql``}))`;
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
 * chartInputsQuery does, for a BIP already found in scope.
 */
export function profileChartsQuery(ctx: ModelContext, bipId: number, range: ChartRange) {
  return chartInputsWhere(ctx, and(eq(plans.bipId, bipId), inArray(plans.category, ["maladaptive", "replacement"]), eq(plans.status, "active")), range);
}

/**
 * A client's active maladaptive and replacement goals, as profileChartsQuery does for one BIP, across the
 * client's BIPs (the parent portal, docs/decisions/040), for a client already found in the actor's reach.
 */
export function patientChartsQuery(ctx: ModelContext, patientId: number, range: ChartRange) {
  return chartInputsWhere(
    ctx,
    and(eq(plans.patientId, patientId), inArray(plans.category, ["maladaptive", "replacement"]), eq(plans.status, "active"), sql`${plans.bipId} in (select "id" from "bips" where "deleted_at" is null)`),
    range,
  );
}

function chartInputsWhere(ctx: ModelContext, where: SQL | undefined, range: ChartRange) {
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
      reports: jsonRows(sql`json_object('weekEnd', ${r.weekEnd}, 'value', ${r.value}, 'totalUnits', ${r.totalUnits})`, r, and(eq(r.planId, plans.id), inWindow(r.weekEnd, from, to)), sql`${r.weekEnd}`),
      comments: jsonRows(sql`json_object('id', ${c.id}, 'commentDate', ${c.commentDate}, 'comment', ${c.comment})`, c, and(eq(c.planId, plans.id), inWindow(c.commentDate, from, to)), sql`${c.commentDate}, ${c.id}`),
    })
    .from(plans)
    .where(and(where, isNull(plans.deletedAt)))
    .orderBy(asc(plans.id));
}

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
      reports: parse<ChartInput["reports"][number]>(reports, (a, b) => byText(a.weekEnd, b.weekEnd)),
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
 * The rows of the goal screen's editors (Update Weekly Reports, Update Comments) for a plan already
 * found in scope (a PlanInScope only comes from findPlanInScope): one statement, not yet run (like
 * chartInputsQuery), in date order, at most 500 of each (the editors' page size, clinical §9).
 */
export function editorRowsQuery(ctx: ModelContext, plan: PlanInScope, range: ChartRange) {
  const r = weeklyReports;
  const c = chartComments;
  return ctx.db
    .select({
      reports: jsonRows(
        sql`json_object('id', ${r.id}, 'week_end', ${r.weekEnd}, 'value', ${r.value}, 'total_units', ${r.totalUnits}, 'version', ${r.version})`,
        r,
        and(eq(r.planId, plan.planId), inWindow(r.weekEnd, range.from, range.to)),
        sql`${r.weekEnd}`,
        EDITOR_PER_PAGE,
      ),
      comments: jsonRows(
        sql`json_object('id', ${c.id}, 'comment_date', ${c.commentDate}, 'comment', ${c.comment}, 'version', ${c.version})`,
        c,
        and(eq(c.planId, plan.planId), inWindow(c.commentDate, range.from, range.to)),
        sql`${c.commentDate}, ${c.id}`,
        EDITOR_PER_PAGE,
      ),
    })
    .from(plans)
    .where(eq(plans.id, plan.planId));
}

export interface EditorRows {
  reports: EditorReport[];
  comments: EditorComment[];
}

export function editorRowsFrom([row]: Awaited<ReturnType<typeof editorRowsQuery>>): EditorRows {
  return {
    reports: parse<EditorReport>(row?.reports ?? null, (a, b) => byText(a.week_end, b.week_end)),
    comments: parse<EditorComment>(row?.comments ?? null, (a, b) => byText(a.comment_date, b.comment_date) || a.id - b.id),
  };
}
