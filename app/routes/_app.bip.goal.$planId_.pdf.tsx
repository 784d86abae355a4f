import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { DEFAULT_PDF_MONTHS, MAX_PDF_MONTHS } from "~/domain/plan-pdf";
import { findPlanInScope } from "~/models/bip-scope.server";
import { requestGoalPdf } from "~/models/pdf-jobs.server";
import { auditRead, auditWho } from "~/services/audit.server";
import { randomToken } from "~/services/crypto.server";
import { formValues, modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * A goal's weekly-report or chart-comment PDF (clinical §5: the month count, default 6; decision 041):
 * choose which, and how many months back; Save PDF queues the job and opens its status page.
 */
export const meta: MetaFunction = () => [{ title: "Goal PDF · Baseline" }];
export const handle = { guard: "view_bips" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const id = requireId(params.planId, "Goal");
  const ctx = modelContextFor(context, actor);
  const plan = await findPlanInScope(ctx, id);
  if (!plan) throw notFound("Goal not found.");
  await auditRead(ctx.db, auditWho(ctx), { entity: "plan", entityId: plan.planId, patientId: plan.patientId }, plan.tail);
  // A one-time token per load of the form: a resend of it (a double click) makes one job and opens it (decision 041).
  return { goal: { id: plan.planId, patientName: plan.patientName }, formToken: randomToken(18) };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const id = requireId(params.planId, "Goal");
  const values = formValues(await request.formData());
  const raw = { kind: String(values.kind ?? ""), months: String(values.months ?? "") };
  const formToken = typeof values.form_token === "string" ? values.form_token : "";
  const result = await requestGoalPdf(modelContextFor(context, actor), { env: context.app.env, waitUntil: context.app.waitUntil }, id, raw, { formToken });
  if (result.ok) return redirect(`/pdf-jobs/${result.data.id}`, 303);
  if (result.status === 404) throw notFound(result.message);
  return data({ values: raw, errors: result.status === 422 ? result.errors : {}, message: result.message, formToken }, { status: result.status });
}

export default function GoalPdfChooser() {
  const { goal, formToken: fresh } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const kind = answer?.values.kind || "weekly_report";
  // A refused form keeps its token, so fixing and sending it again is still one job.
  const formToken = answer?.formToken || fresh;
  return (
    <section className="card" aria-labelledby="goal-pdf">
      <p className="muted">
        <Link to={`/bip/goal/${goal.id}`}>{goal.patientName} · Goal</Link>
      </p>
      <h1 id="goal-pdf">PDF of the goal's weekly data</h1>
      {answer?.message ? (
        <p role="alert" className="form-error">
          {answer.message}
        </p>
      ) : null}
      <Form method="post">
        <input type="hidden" name="form_token" value={formToken} />
        <fieldset>
          <legend>Which PDF</legend>
          <label>
            <input type="radio" name="kind" value="weekly_report" defaultChecked={kind === "weekly_report"} /> Weekly reports
          </label>{" "}
          <label>
            <input type="radio" name="kind" value="chart_comments" defaultChecked={kind === "chart_comments"} /> Chart comments
          </label>
          {answer?.errors.kind ? <span className="field-error">{answer.errors.kind}</span> : null}
        </fieldset>
        <p>
          <label htmlFor="months">Months</label>{" "}
          <input id="months" name="months" type="number" min={1} max={MAX_PDF_MONTHS} step={1} defaultValue={answer?.values.months ?? String(DEFAULT_PDF_MONTHS)} aria-invalid={answer?.errors.months ? true : undefined} />
          {answer?.errors.months ? <span className="field-error">{answer.errors.months}</span> : null}
        </p>
        <p className="actions">
          <Link className="btn" to={`/bip/goal/${goal.id}`}>
            Close
          </Link>{" "}
          <button type="submit" className="btn btn-primary" disabled={busy}>
            Save PDF
          </button>
        </p>
      </Form>
    </section>
  );
}
