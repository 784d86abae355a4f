import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ClaimAdjustments, RemittanceLines } from "~/components/billing/remittance-report";
import { Field, FormMessage } from "~/components/ui/field";
import { TextareaField } from "~/components/ui/form-controls";
import { money } from "~/domain/billing";
import { MAX_835_BYTES } from "~/domain/x12-835";
import { importRemittance, type RemittanceReport } from "~/models/remittances.server";
import { modelContextFor } from "~/services/forms.server";
import { forbidden, requirePermission } from "~/services/guard.server";

/**
 * Import an 835 (decision 033): upload the file or paste its text, Check (a dry run: the report of what would be
 * recorded, or why it cannot be), then Import. Works without JavaScript: one plain multipart form with two
 * submit buttons; after a check the file's text is put in the paste box, so Import sends exactly what was checked
 * (and the model checks it again). A refused import re-shows the form with the report and the text kept.
 */
export const meta: MetaFunction = () => [{ title: "Import an 835 · Baseline" }];
export const handle = { guard: "manage_claims" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_claims");
  return { maxMb: MAX_835_BYTES / 1_000_000 };
}

interface Answer {
  message: string | null;
  success: string | null;
  report: RemittanceReport | null;
  content: string;
  fileName: string;
  errors: { content?: string; file_name?: string };
}

const answerWith = (x: Partial<Answer>, status: number) => data<Answer>({ message: null, success: null, report: null, content: "", fileName: "", errors: {}, ...x }, { status });

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "manage_claims");
  // The file, and its text once more when it was checked before (the paste box): at most twice the limit.
  if (Number(request.headers.get("Content-Length") ?? 0) > MAX_835_BYTES * 2 + 10_000) return answerWith({ message: `The file is too large: at most ${MAX_835_BYTES / 1_000_000} MB.` }, 413);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return answerWith({ message: "Choose an 835 file or paste its text.", errors: { content: "Choose an 835 file or paste its text." } }, 422);
  }
  const file = form.get("file");
  const pasted = form.get("content");
  let content = typeof pasted === "string" ? pasted : "";
  let fileName = String(form.get("file_name") ?? "");
  if (file && typeof file !== "string" && file.size > 0) {
    if (file.size > MAX_835_BYTES) return answerWith({ message: `The file is too large: at most ${MAX_835_BYTES / 1_000_000} MB.` }, 413);
    content = await file.text();
    fileName = file.name;
  }
  if (!content.trim()) return answerWith({ message: "Choose an 835 file or paste its text.", errors: { content: "Choose an 835 file or paste its text." } }, 422);
  const dryRun = form.get("intent") !== "import";
  const ctx = modelContextFor(context, actor);
  const result = await importRemittance(ctx, content, { dryRun, fileName: fileName || undefined, tail: auditTail });
  if (!result.ok) {
    if (result.status === 403) throw forbidden();
    // A refused file name is not carried to the next submit: choose the file again once renamed, or import the text as it is.
    if (result.errors) return answerWith({ message: result.message, content, errors: result.errors }, result.status);
    return answerWith({ message: result.message, report: result.report, content, fileName }, result.status);
  }
  if (!dryRun && result.report.remittance_id) return redirect(`/claims/remittances/${result.report.remittance_id}?flash=${encodeURIComponent(result.message)}`, 303);
  return answerWith({ success: result.message, report: result.report, content, fileName }, 200);
}

function ReportView({ report }: { report: RemittanceReport }) {
  return (
    <section aria-labelledby="report-title">
      <h2 id="report-title">{report.ok ? "What the import will record" : "Why the file cannot be imported"}</h2>
      {report.errors.length ? (
        <ul className="error-list" role="list">
          {report.errors.map((e, i) => (
            <li key={i}>
              {e.position ? `Segment ${e.position}${e.segment ? ` (${e.segment})` : ""}: ` : ""}
              {e.message}
            </li>
          ))}
        </ul>
      ) : null}
      {report.trace_number ? (
        <p>
          {report.payer_name || "Unknown payer"}, trace {report.trace_number}
          {report.payment_date ? `, paid on ${report.payment_date}` : ""}: {money(report.total_paid_cents)}
          {report.provider_adjustments_cents ? ` (after provider adjustments of ${money(report.provider_adjustments_cents)})` : ""}.
        </p>
      ) : null}
      {report.claims.map((c) => (
        <section key={`${c.position}`} aria-label={`Claim ${c.claim_number}`}>
          <h3>
            Claim {c.claim_number}: {c.status_text}, charged {money(c.charge_cents)}, paid {money(c.paid_cents)}
          </h3>
          <ClaimAdjustments adjustments={c.adjustments} />
          <RemittanceLines lines={c.lines} caption={`Service lines of claim ${c.claim_number}`} />
        </section>
      ))}
    </section>
  );
}

export default function ImportRemittance() {
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="card">
      <div className="page-head">
        <h1>Import an 835</h1>
        <Link to="/claims/remittances">Remittances</Link>
      </div>
      <p>
        An X12 835 remittance from a payer: one payment (one trace number) per file. Check shows what it would record — what each service line was paid,
        adjusted or denied — or why it cannot be imported; nothing changes until you import, and a file that does not match our claims changes nothing.
      </p>
      <FormMessage error={answer?.message} success={answer?.success} />
      <Form method="post" encType="multipart/form-data" className="form-grid">
        <input type="hidden" name="file_name" value={answer?.fileName ?? ""} />
        <Field label="835 file" name="file" id="f-file" type="file" accept=".835,.x12,.edi,.txt,text/plain" error={answer?.errors.file_name} />
        <TextareaField
          label="Or paste the file's text"
          name="content"
          id="f-content"
          rows={8}
          spellCheck={false}
          defaultValue={answer?.content ?? ""}
          key={answer?.content ?? ""}
          error={answer?.errors.content}
        />
        <div className="form-actions">
          <button className="btn" type="submit" name="intent" value="check" disabled={busy}>
            Check
          </button>
          <button className="btn btn-primary" type="submit" name="intent" value="import" disabled={busy}>
            Import
          </button>
        </div>
      </Form>
      {answer?.report ? <ReportView report={answer.report} /> : null}
    </section>
  );
}
