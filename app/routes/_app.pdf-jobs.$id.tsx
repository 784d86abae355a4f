import type { ActionFunctionArgs, HeadersFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { localDate } from "~/domain/time";
import { FormMessage } from "~/components/ui/field";
import { getPdfJob, remakePdfJob, retryPdfJob, sharePdfJob, unsharePdfJob, canSharePdf, PDF_FILE_KEEP_DAYS, PDF_JOB_MESSAGES } from "~/models/pdf-jobs.server";
import { formValues, modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";

/**
 * A PDF job's status (decision 041): 'Please wait…' while it is queued or running — the document answer
 * carries `Refresh: 2` so the page reloads itself, with JavaScript or without (the page does not hydrate,
 * decision 006, so every visit is a document load that sees the header) —
 * then the download link; a failed job shows its error and a Retry button (none once its plan or goal is deleted:
 * Retry would fail again); a done plan PDF can be shared with
 * the client's parents (manage_bips or manage_clients), who are served its family copy once made (decision 041, stop 38). An expired job (its file deleted after
 * PDF_FILE_KEEP_DAYS, unless shared) says so and offers "Make it again": a new job with the same sections
 * and months, whose status page the user is sent to; so does a failed job whose requester lost access (a
 * Retry would render as them again). A done job whose plan or goal was deleted since offers neither its
 * download nor a share. The status carries no client data.
 */
export const meta: MetaFunction = () => [{ title: "PDF · Baseline" }];
export const handle = { guard: "view_bips" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  const job = await getPdfJob(ctx, params.id ?? "");
  if (!job) throw notFound("PDF job not found.");
  const pending = job.status === "queued" || job.status === "running";
  return data({ job, canShare: canSharePdf(ctx) }, { headers: pending ? { Refresh: String(REFRESH_SECONDS) } : {} });
}

/** Without JavaScript the page reloads itself this often while the job runs. */
const REFRESH_SECONDS = 2;

export const headers: HeadersFunction = ({ loaderHeaders }) => {
  const out = new Headers();
  const refresh = loaderHeaders.get("Refresh");
  if (refresh) out.set("Refresh", refresh);
  return out;
};

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  const id = params.id ?? "";
  const values = formValues(await request.formData());
  const runner = { env: context.app.env, waitUntil: context.app.waitUntil };
  const result =
    values.intent === "share"
      ? await sharePdfJob(ctx, runner, id)
      : values.intent === "unshare"
        ? await unsharePdfJob(ctx, id)
        : values.intent === "retry"
          ? await retryPdfJob(ctx, runner, id)
          : values.intent === "remake"
            ? await remakePdfJob(ctx, runner, id)
            : null;
  if (!result) return data({ message: "Choose Retry, Make it again, Share or Stop sharing." }, { status: 400 });
  // "Make it again" answers a new job: its status page is the one to wait on.
  if (result.ok) return redirect(`/pdf-jobs/${result.data.id}?flash=${encodeURIComponent(result.message ?? "Done.")}`, 303);
  if (result.status === 404) throw notFound(result.message);
  return data({ message: result.message }, { status: result.status });
}

function size(bytes: number | null): string {
  if (bytes == null) return "";
  return bytes < 1024 * 1024 ? `${Math.max(1, Math.round(bytes / 1024))} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export default function PdfJobStatus() {
  const { job, canShare } = useLoaderData<typeof loader>();
  const timeZone = useActorTimeZone();
  const answer = useActionData<typeof action>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const pending = job.status === "queued" || job.status === "running";
  const back = job.plan_deleted
    ? { to: "/bip/list", label: "Back to behavior plans" }
    : job.kind === "plan"
      ? { to: `/bip/profile/${job.bip_id}`, label: "Back to the plan" }
      : { to: `/bip/goal/${job.plan_id}`, label: "Back to the goal" };

  return (
    <section className="card" aria-labelledby="pdf-job">
      <p className="muted">
        <Link to={back.to}>{back.label}</Link>
      </p>
      <h1 id="pdf-job">{job.kind_label} PDF</h1>
      <FormMessage success={params.get("flash")} error={answer?.message} />
      <div aria-live="polite" id="pdf-status" data-status={job.status}>
        {pending ? (
          <>
            <p>
              <strong>Please wait…</strong> Your PDF is being prepared. This page updates by itself.
            </p>
            <p className="muted">
              <Link to={`/pdf-jobs/${job.id}`}>
                Refresh now
              </Link>
            </p>
          </>
        ) : job.status === "done" && job.plan_deleted ? (
          <p data-testid="pdf-plan-deleted">
            <strong>{PDF_JOB_MESSAGES.planDeleted}</strong>
          </p>
        ) : job.status === "done" ? (
          <>
            <p>
              <a className="btn btn-primary" href={`/pdf-jobs/${job.id}/download`} download={job.file_name}>
                Download PDF
              </a>{" "}
              <span className="muted">
                {job.file_name} · {size(job.file_size)}
              </span>
            </p>
            {job.file_expires_at ? <p className="muted">Kept until {localDate(job.file_expires_at, timeZone)} unless shared with parents.</p> : null}
            {job.shared ? (
              <>
                {canShare ? (
                  <Form method="post">
                    <p>
                      Shared with the client's parents.{" "}
                      <button type="submit" name="intent" value="unshare" className="btn" disabled={busy}>
                        Stop sharing
                      </button>
                    </p>
                  </Form>
                ) : (
                  <p>Shared with the client's parents.</p>
                )}
                {job.family_copy_status === "done" ? (
                  <p className="muted">They get a family copy: chart comments only when the clinic shows narratives, staff by first name.</p>
                ) : (
                  <p className="muted" data-testid="pdf-family-copy">
                    {job.family_copy_status === "failed" ? PDF_JOB_MESSAGES.familyFailed : PDF_JOB_MESSAGES.familyPreparing}
                  </p>
                )}
              </>
            ) : canShare && job.kind === "plan" ? (
              <Form method="post">
                <p>
                  <button type="submit" name="intent" value="share" className="btn" disabled={busy}>
                    Share with parents
                  </button>{" "}
                  <span className="muted">The parents get a family copy: chart comments only when the clinic shows narratives, staff by first name.</span>
                </p>
              </Form>
            ) : canShare ? (
              <p className="muted">{PDF_JOB_MESSAGES.notPlan}</p>
            ) : null}
          </>
        ) : job.status === "expired" ? (
          <>
            <p data-testid="pdf-expired">
              <strong>This PDF has expired.</strong> Its file was deleted {job.expired_at ? `on ${localDate(job.expired_at, timeZone)} ` : ""}because PDFs are kept for {PDF_FILE_KEEP_DAYS} days
              unless they are shared with parents.{job.remakeable ? " Make it again to get a new one with the same choices." : null}
            </p>
            {job.plan_deleted ? (
              <p data-testid="pdf-no-remake">
                <strong>{PDF_JOB_MESSAGES.remakePlanDeleted}</strong>
              </p>
            ) : null}
            <Form method="post">
              {job.remakeable ? (
                <button type="submit" name="intent" value="remake" className="btn btn-primary" disabled={busy}>
                  Make it again
                </button>
              ) : null}{" "}
              <Link className="btn" to={back.to}>
                Close
              </Link>
            </Form>
          </>
        ) : (
          <div role="alert" className="dialog dialog-error" aria-labelledby="pdf-error-title">
            <h2 id="pdf-error-title">Error</h2>
            <p>{job.error ?? "The PDF could not be made."}</p>
            {job.plan_deleted ? (
              <p data-testid="pdf-no-retry">
                <strong>{PDF_JOB_MESSAGES.retryPlanDeleted}</strong>
              </p>
            ) : null}
            <Form method="post">
              {job.plan_deleted ? null : job.remakeable ? (
                <button type="submit" name="intent" value="remake" className="btn btn-primary" disabled={busy}>
                  Make it again
                </button>
              ) : (
                <button type="submit" name="intent" value="retry" className="btn btn-primary" disabled={busy}>
                  Retry
                </button>
              )}{" "}
              <Link className="btn" to={back.to}>
                Close
              </Link>
            </Form>
          </div>
        )}
      </div>
    </section>
  );
}
