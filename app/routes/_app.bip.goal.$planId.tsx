import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { formatMeasure } from "~/domain/measure";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { BehaviorChart } from "~/components/charts/behavior-chart";
import { ObjectiveProgress } from "~/components/weekly/objective-progress";
import { Notice } from "~/components/weekly/notice";
import { FromNotesForm } from "~/components/weekly/from-notes-form";
import { AddCommentForm, AddReportForm, CommentsTable, ConfirmDelete, ReportsTable } from "~/components/weekly/weekly-editor";
import { buildChartModel } from "~/domain/chart";
import { defaultNotesRange } from "~/domain/notes-weekly";
import { can } from "~/domain/permissions";
import { PLAN_CATEGORY_LABELS, type PlanCategory } from "~/domain/plans";
import { chartWindow, editorPageParam, usDate, weeklyDataRange } from "~/domain/weekly-reports";
import { isProductDate } from "~/domain/weeks";
import { todayIn } from "~/domain/note-rules";
import { findPlanInScope } from "~/models/bip-scope.server";
import { who } from "~/models/patients.server";
import { auditedRead } from "~/services/audit.server";
import { createChartComment, deleteChartComment, updateChartComment } from "~/models/chart-comments.server";
import { chartInputsFrom, chartInputsQuery, editorRowsFrom, editorRowsQuery } from "~/models/charts.server";
import { generateWeeklyReportsFromNotes } from "~/models/notes-weekly.server";
import { createWeeklyReport, deleteWeeklyReport, updateWeeklyReport } from "~/models/weekly-reports.server";
import { formResult, formValues, parentInAddress, modelContextFor, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { forbidden, notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * The goal (plan) screen with its weekly chart (clinical §2 "Weekly chart screen"): the chart for a
 * From/To window, the objectives with a progress badge, and — with manage_bips, in edit mode
 * (?edit=1) — the four weekly editors. Every change is a plain form post (intent) followed by a 303
 * back here, which reloads the data and redraws the chart.
 */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.goal.name ?? "Goal"} · ${data?.goal.patientName ?? "Client"} · Baseline` }];
export const handle = { guard: "view_bips" };

/** Where a change returns to: edit mode, with the same window and the same pages of the editors. */
function screenUrl(planId: number, params: URLSearchParams | Record<string, string | string[]>, extra: Record<string, string> = {}): string {
  const get = (k: string) => (params instanceof URLSearchParams ? params.get(k) : typeof params[k] === "string" ? (params[k] as string) : null);
  const q = new URLSearchParams();
  for (const k of ["from", "to", "week", "reports_page", "comments_page"]) if (get(k)) q.set(k, get(k)!);
  for (const [k, v] of Object.entries(extra)) q.set(k, v);
  const s = q.toString();
  return `/bip/goal/${planId}${s ? `?${s}` : ""}`;
}

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const planId = requireId(params.planId, "Goal");
  const ctx = modelContextFor(context, actor);
  const plan = await findPlanInScope(ctx, planId);
  if (!plan) throw notFound("Goal not found.");
  const url = new URL(request.url);
  const dates = chartWindow({ from: url.searchParams.get("from"), to: url.searchParams.get("to") });
  const canManage = can(actor, "manage_bips");
  const editing = canManage && url.searchParams.get("edit") === "1";
  // The goal's data is client data: its read is audited. The chart's data (and the editors' rows) come
  // back in one batch with the audit row — one round trip; the tail came with the scope.
  const entry = { entity: "plan", entityId: planId, patientId: plan.patientId };
  const chart = () => chartInputsQuery(ctx, [planId], dates);
  // The editors' pages (page 1 holds the newest rows); `week` asks for the reports page that holds it (a 409's link).
  const week = url.searchParams.get("week");
  const pages = {
    reports: editorPageParam(url.searchParams.get("reports_page")),
    comments: editorPageParam(url.searchParams.get("comments_page")) ?? 1,
    week: week && isProductDate(week) ? week : null,
  };
  const [chartRows, editorResult] = editing
    ? await auditedRead(ctx.db, who(ctx), entry, () => [chart(), editorRowsQuery(ctx, plan, dates, pages)], plan.tail)
    : [...(await auditedRead(ctx.db, who(ctx), entry, () => [chart()], plan.tail)), null];
  const input = chartInputsFrom(chartRows, dates).get(planId);
  if (!input) throw notFound("Goal not found.");
  const model = buildChartModel(input);
  const editor = editorResult ? editorRowsFrom(editorResult) : null;
  // The badge's latest week is one a report may record now (weeklyDataRange): a week stored in the future drives no figure.
  const { latest: lastWeek } = weeklyDataRange(todayIn(ctx.now(), plan.timeZone));
  const last = [...model.points].reverse().find((p) => p.value !== null && p.weekEnd <= lastWeek);
  const confirm = editing ? /^delete-(report|comment)-(\d{1,15})$/.exec(url.searchParams.get("confirm") ?? "") : null;
  const confirmKind = confirm?.[1] as "report" | "comment" | undefined;
  const confirmId = confirm ? Number(confirm[2]) : null;
  const confirmReport = confirmKind === "report" ? editor?.reports.find((r) => r.id === confirmId) : undefined;
  const confirmComment = confirmKind === "comment" ? editor?.comments.find((c) => c.id === confirmId) : undefined;
  return {
    goal: {
      id: plan.planId,
      bipId: plan.bipId,
      name: input.plan.name,
      category: input.plan.category,
      categoryLabel: PLAN_CATEGORY_LABELS[input.plan.category as PlanCategory] ?? input.plan.category,
      patientName: plan.patientName,
      patientId: plan.patientId,
    },
    model,
    objectives: input.objectives,
    latest: last && last.value !== null ? { value: last.value, weekEnd: last.weekEnd } : null,
    dates,
    canManage,
    // "Generate from notes": the last 12 weeks up to today in the user's time zone.
    notesRange: canManage ? defaultNotesRange(ctx.now(), actor.timeZone ?? "America/New_York") : null,
    editing,
    editor,
    confirm: confirmReport
      ? { kind: "report" as const, id: confirmReport.id, what: `Week ending ${usDate(confirmReport.week_end)}: value ${formatMeasure(confirmReport.value)}.` }
      : confirmComment
        ? { kind: "comment" as const, id: confirmComment.id, what: `${usDate(confirmComment.comment_date)}: “${confirmComment.comment}”` }
        : null,
  };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  if (!can(actor, "manage_bips")) throw forbidden();
  const planId = requireId(params.planId, "Goal");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const back = screenUrl(planId, new URL(request.url).searchParams, { edit: "1" });
  const id = (field: string) => {
    const n = Number(values[field]);
    if (!Number.isSafeInteger(n) || n <= 0) throw notFound("Not found.");
    return n;
  };
  const done = () => back;
  // Each model call finds the plan in the actor's scope first (another location's goal: 404; a create answers it
  // as a body reference, 422 at plan_id, which parentInAddress turns into this page's 404), and a row id is taken
  // only within this plan.
  switch (values.intent) {
    case "add-report":
      return formResult(parentInAddress(await createWeeklyReport(ctx, { ...values, plan_id: planId }), "plan_id", "Goal not found."), values, done);
    case "update-report":
      return formResult(await withFormVersion(values.version, (version) => updateWeeklyReport(ctx, id("report_id"), { value: values.value, total_units: values.total_units }, { partial: false, version, planId })), values, done);
    case "delete-report":
      return formResult(await deleteWeeklyReport(ctx, id("report_id"), { planId }), values, done);
    case "add-comment":
      return formResult(parentInAddress(await createChartComment(ctx, { ...values, plan_id: planId }), "plan_id", "Goal not found."), values, done);
    case "update-comment":
      return formResult(await withFormVersion(values.version, (version) => updateChartComment(ctx, id("comment_id"), { comment_date: values.comment_date, comment: values.comment }, { partial: false, version, planId })), values, done);
    case "delete-comment":
      return formResult(await deleteChartComment(ctx, id("comment_id"), { planId }), values, done);
    case "from-notes":
      // This goal only, from its client's RBT notes (the client is the plan's; another location's goal: 404).
      return formResult(parentInAddress(await generateWeeklyReportsFromNotes(ctx, { plan_id: planId, date_from: values.date_from, date_to: values.date_to }), "plan_id", "Goal not found."), values, done);
    default:
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

export default function GoalScreen() {
  const { goal, model, objectives, latest, dates, canManage, notesRange, editing, editor, confirm } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  // Edit mode on the pages shown now (a row's delete step and its Cancel come back to them).
  const editorPages: Record<string, string> = { edit: "1" };
  if (editor && editor.reportsPage.page > 1) editorPages.reports_page = String(editor.reportsPage.page);
  if (editor && editor.commentsPage.page > 1) editorPages.comments_page = String(editor.commentsPage.page);
  return (
    <section className="card">
      <div className="page-head">
        <div>
          <p className="muted">
            <Link to={`/bip/profile/${goal.bipId}`}>{goal.patientName} · Behavior plan</Link>
          </p>
          <h1>{goal.name}</h1>
          <p>
            <span className="muted">Client:</span> {goal.patientName} · <span className="muted">Category:</span> {goal.categoryLabel}
          </p>
        </div>
        <span>
          <Link to={`/bip/profile/${goal.bipId}`}>Back to the BIP</Link>
          {" "}
          <Link className="btn" to={`/bip/goal/${goal.id}/pdf`}>
            PDF
          </Link>
          {canManage ? (
            <>
              {" "}
              <Link className="btn" to={`/bip/goal/${goal.id}/edit`}>
                Edit goal
              </Link>{" "}
              {editing ? (
                <Link className="btn" to={screenUrlFromWindow(goal.id, dates)} aria-label="Cancel editing weekly data">
                  ✕ Cancel
                </Link>
              ) : (
                <Link className="btn btn-primary" to={screenUrlFromWindow(goal.id, dates, { edit: "1" })} aria-label="Edit weekly data">
                  ✎ Edit
                </Link>
              )}
            </>
          ) : null}
        </span>
      </div>
      <Notice text={params.get("flash")} tone="success" />
      {answer && !answer.values.intent ? <Notice text={answer.message} tone="danger" /> : null}

      <Form method="get" className="search-form" aria-label="Chart dates">
        {editing ? <input type="hidden" name="edit" value="1" /> : null}
        <label htmlFor="f-from">From</label>
        <input id="f-from" type="date" name="from" defaultValue={dates.from ?? ""} />
        <label htmlFor="f-to">To</label>
        <input id="f-to" type="date" name="to" defaultValue={dates.to ?? ""} />
        <button type="submit" className="btn">
          Show
        </button>
        <Link className="btn" to={screenUrlFromWindow(goal.id, { from: null, to: null }, editing ? { edit: "1" } : {})}>
          All dates
        </Link>
      </Form>
      {dates.error ? <p className="alert alert-info">{dates.error} Showing every date.</p> : null}

      <BehaviorChart model={model} id={`chart-${goal.id}`} caption={`${goal.patientName} · ${goal.name}`} />

      <section aria-labelledby="objectives">
        <h2 id="objectives">Objectives</h2>
        <ObjectiveProgress goalName={goal.name} objectives={objectives} latest={latest} category={goal.category} />
      </section>

      {notesRange ? <FromNotesForm answer={answer} busy={busy} range={notesRange} /> : null}

      {editing && editor ? (
        <section aria-labelledby="weekly-data" className="weekly-editor">
          <h2 id="weekly-data">Weekly data</h2>
          <p>
            <Link to={`/bip/goal/${goal.id}/import`}>Import weekly reports from an .xlsx file</Link>
          </p>
          <AddReportForm answer={answer} busy={busy} rowHref={(r) => `${screenUrlFromWindow(goal.id, inWindow(r.week_end, dates) ? dates : { from: null, to: null }, { edit: "1", week: r.week_end })}#report-${r.id}-value`} />
          <ReportsTable reports={editor.reports} page={editor.reportsPage} answer={answer} busy={busy} deleteHref={(id) => screenUrlFromWindow(goal.id, dates, { ...editorPages, confirm: `delete-report-${id}` })} />
          <AddCommentForm answer={answer} busy={busy} />
          <CommentsTable comments={editor.comments} page={editor.commentsPage} answer={answer} busy={busy} deleteHref={(id) => screenUrlFromWindow(goal.id, dates, { ...editorPages, confirm: `delete-comment-${id}` })} />
        </section>
      ) : null}

      {confirm ? <ConfirmDelete kind={confirm.kind} id={confirm.id} what={confirm.what} cancelHref={screenUrlFromWindow(goal.id, dates, editorPages)} busy={busy} /> : null}
    </section>
  );
}

/** Whether a date is inside the chart's From/To window. */
function inWindow(date: string, dates: { from: string | null; to: string | null }): boolean {
  return (!dates.from || date >= dates.from) && (!dates.to || date <= dates.to);
}

function screenUrlFromWindow(planId: number, dates: { from: string | null; to: string | null }, extra: Record<string, string> = {}) {
  const q: Record<string, string> = {};
  if (dates.from) q.from = dates.from;
  if (dates.to) q.to = dates.to;
  return screenUrl(planId, q, extra);
}
