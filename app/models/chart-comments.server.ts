import { and, asc, count, eq, sql } from "drizzle-orm";
import { bips, chartComments, patients, plans } from "~/db/schema";
import { leavesAsStored } from "~/domain/audit-changes";
import { MOVE_MESSAGES, movedReferences } from "~/domain/references";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { CHART_COMMENT_NOTICES, ChartCommentInput, ChartCommentUpdate, weeklyDataDateRefusal } from "~/domain/weekly-reports";
import { todayIn } from "~/domain/note-rules";
import { withClients } from "~/services/audit.server";
import { planInScopeWhere, planScope, planScopeColumns, type PlanInScope } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { isKeyRace, nextId } from "./patients.server";
import { conflict, invalid, type ModelResult, notFound, nothingToChange, ok } from "./results";
import { inWindow, listScope, planFromInput, writeMeasurement } from "./weekly-reports.server";
import { contains } from "./like.server";

/**
 * Chart comments (clinical §3, §5, §7): a date and at most 50 characters, drawn as markers on the
 * chart. Scoped through the plan like weekly reports; deletes are hard, every change is audited
 * (entity chart_comment, with the client) in the same batch.
 */
export const CHART_COMMENTS = "chart_comments";

type Row = typeof chartComments.$inferSelect;

export function chartCommentJson(r: Row) {
  return { id: r.id, plan_id: r.planId, comment_date: r.commentDate, comment: r.comment, version: r.version, created_at: r.createdAt, updated_at: r.updatedAt };
}
export type ChartCommentJson = ReturnType<typeof chartCommentJson>;

export async function listChartComments(ctx: ModelContext, query: Pick<ListQuery, "page" | "per_page" | "search">, raw: Record<string, unknown>): Promise<ModelResult<Paged<ChartCommentJson>>> {
  const scope = listScope(ctx, raw);
  if (!scope.ok) return scope;
  const { check, plans: inPlans, from, to } = scope.data;
  const where = and(
    inPlans(chartComments.planId),
    inWindow(chartComments.commentDate, from, to),
    query.search ? contains(chartComments.comment, query.search) : undefined,
  );
  const [[found], rows, [total]] = await ctx.db.batch([
    check,
    ctx.db.select().from(chartComments).where(where).orderBy(asc(chartComments.commentDate), asc(chartComments.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(chartComments).where(where),
  ]);
  // A filter naming no plan or BIP in scope lists nothing (decision 017); the page read, scoped by itself, found none.
  // One client's chart notes: the API records the read with the client (withClients).
  return ok(withClients(paged(rows.map(chartCommentJson), total?.n ?? 0, query), found && rows.length ? [found.patientId] : []));
}

async function findComment(ctx: ModelContext, id: number, planId?: number): Promise<{ row: Row; plan: PlanInScope } | null> {
  // One statement: the comment and its plan's scope (a single read stays within 3 round trips with its audit row).
  const [found] = await ctx.db
    .select({ row: chartComments, scope: planScopeColumns })
    .from(chartComments)
    .innerJoin(plans, eq(plans.id, chartComments.planId))
    .innerJoin(bips, eq(bips.id, plans.bipId))
    .innerJoin(patients, eq(patients.id, plans.patientId))
    .where(and(eq(chartComments.id, id), planId === undefined ? undefined : eq(chartComments.planId, planId), planInScopeWhere(ctx)));
  return found ? { row: found.row, plan: planScope(found.scope) } : null;
}

export async function getChartComment(ctx: ModelContext, id: number): Promise<ChartCommentJson | null> {
  const found = await findComment(ctx, id);
  return found ? withClients(chartCommentJson(found.row), [found.plan.patientId]) : null;
}

export async function createChartComment(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<ChartCommentJson>> {
  const found = await planFromInput(ctx, raw, CHART_COMMENT_NOTICES.missing.text);
  if (!found.ok) return found;
  const plan = found.data;
  const parsed = parseWith(ChartCommentInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const outOfRange = weeklyDataDateRefusal("comment", parsed.data.comment_date, todayIn(ctx.now(), plan.timeZone));
  if (outOfRange) return invalid({ comment_date: outOfRange });
  for (let attempt = 0; ; attempt++) {
    const id = await nextId(ctx, chartComments);
    try {
      const rows = await writeMeasurement<Row[]>(ctx, { action: "create", entity: "chart_comment", entityId: id, plan, list: CHART_COMMENTS }, () =>
        ctx.db.insert(chartComments).values({ id, planId: plan.planId, commentDate: parsed.data.comment_date, comment: parsed.data.comment }).returning(),
      );
      return ok(chartCommentJson(rows[0]!), CHART_COMMENT_NOTICES.added.text);
    } catch (e) {
      if (attempt < 5 && isKeyRace(e)) continue;
      throw e;
    }
  }
}

/** A changed row: date and comment (PATCH keeps what is not sent). `planId` limits it to one plan. */
export async function updateChartComment(
  ctx: ModelContext,
  id: number,
  raw: Record<string, unknown>,
  opts: { partial: boolean; version: number | null; planId?: number },
): Promise<ModelResult<ChartCommentJson>> {
  const found = await findComment(ctx, id, opts.planId);
  if (!found) return notFound("Chart comment");
  const { row } = found;
  // The comment list takes bip_id (its goal's BIP): read-only as its plan_id (decision 017).
  const fixed = movedReferences(raw, { plan_id: [row.planId, MOVE_MESSAGES.commentGoal], bip_id: [found.plan.bipId, MOVE_MESSAGES.commentBip] });
  if (fixed) return invalid(fixed);
  if (namesNoField(raw, ChartCommentUpdate)) return nothingToChange();
  const parsed = parseChange(ChartCommentUpdate, raw, opts.partial ? { comment_date: row.commentDate, comment: row.comment } : null);
  if (!parsed.ok) return invalid(parsed.errors);
  // Checked when the date changes (decision 017): a comment stored before the rule keeps its date while its text is edited.
  const outOfRange = parsed.data.comment_date === row.commentDate ? null : weeklyDataDateRefusal("comment", parsed.data.comment_date, todayIn(ctx.now(), found.plan.timeZone));
  if (outOfRange) return invalid({ comment_date: outOfRange });
  if (opts.version !== null && opts.version !== row.version) return conflict(withClients(chartCommentJson(row), [found.plan.patientId]));
  // A save that leaves the date and the text as stored writes nothing and keeps the version (decision 017, stop 45).
  if (leavesAsStored({ comment_date: row.commentDate, comment: row.comment }, parsed.data)) return nothingToChange(chartCommentJson(row));
  const rows = await writeMeasurement<Row[]>(ctx, { action: "update", entity: "chart_comment", entityId: id, plan: found.plan, list: CHART_COMMENTS }, () =>
    ctx.db
      .update(chartComments)
      .set({ commentDate: parsed.data.comment_date, comment: parsed.data.comment, version: sql`${chartComments.version} + 1`, updatedAt: ctx.now().toISOString() })
      .where(and(eq(chartComments.id, id), opts.version === null ? undefined : eq(chartComments.version, opts.version)))
      .returning(),
  );
  if (!rows[0]) {
    const now = await findComment(ctx, id);
    return now ? conflict(withClients(chartCommentJson(now.row), [now.plan.patientId])) : notFound("Chart comment");
  }
  return ok(chartCommentJson(rows[0]), CHART_COMMENT_NOTICES.updated.text);
}

export async function deleteChartComment(ctx: ModelContext, id: number, opts: { planId?: number } = {}): Promise<ModelResult<ChartCommentJson>> {
  const found = await findComment(ctx, id, opts.planId);
  if (!found) return notFound("Chart comment");
  await writeMeasurement(ctx, { action: "delete", entity: "chart_comment", entityId: id, plan: found.plan, list: CHART_COMMENTS }, () => ctx.db.delete(chartComments).where(eq(chartComments.id, id)));
  return ok(chartCommentJson(found.row), CHART_COMMENT_NOTICES.deleted.text);
}
