import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { CheckboxField } from "~/components/ui/form-controls";
import { FormMessage, Label } from "~/components/ui/field";
import { ImportResult } from "~/components/weekly/import-result";
import { IMPORT_MAX_BYTES, IMPORT_MAX_ROWS, IMPORT_MESSAGES } from "~/domain/weekly-reports";
import { flag, MESSAGES } from "~/domain/fields";
import * as v from "valibot";
import { findPlanInScope } from "~/models/bip-scope.server";
import { checkWeeklyReportsFile, importWeeklyReportsFile, type ImportCheck, type Upload } from "~/models/weekly-reports.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";
import { auditRead, auditWho } from "~/services/audit.server";

/**
 * Import weekly reports from an .xlsx sheet (clinical §7 check-excel / import-data, as a screen): upload
 * → the check of every row (valid, invalid and why, would overwrite) → Import, with "Overwrite existing
 * weeks" (force_update). Works without JavaScript: the checked file rides along in a hidden field, so the
 * second submit imports exactly what was checked (and is checked again by the same model function).
 */
export const meta: MetaFunction = () => [{ title: "Import weekly reports · Baseline" }];
export const handle = { guard: "manage_bips" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const planId = requireId(params.planId, "Goal");
  const ctx = modelContextFor(context, actor);
  const plan = await findPlanInScope(ctx, planId);
  if (!plan) throw notFound("Goal not found.");
  // The screen names the goal's client: a read of the plan, recorded (decision 019).
  await auditRead(ctx.db, auditWho(ctx), { entity: "plan", entityId: plan.planId, patientId: plan.patientId }, plan.tail);
  return { goal: { id: plan.planId, patientName: plan.patientName }, maxRows: IMPORT_MAX_ROWS, maxMb: IMPORT_MAX_BYTES / 1024 / 1024 };
}

interface ImportAnswer {
  message: string | null;
  check: ImportCheck | null;
  file: { name: string; base64: string } | null;
}

function toBase64(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) s += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(s);
}

function fromBase64(text: string): Uint8Array | null {
  try {
    const s = atob(text);
    const out = new Uint8Array(s.length);
    for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** The file of this submit: a new upload, else the one checked before (hidden field). */
async function uploadOf(form: FormData): Promise<Upload | null> {
  const file = form.get("file");
  if (file && typeof file !== "string" && file.size > 0) return { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  const carried = form.get("file_b64");
  const bytes = typeof carried === "string" && carried ? fromBase64(carried) : null;
  return bytes ? { name: String(form.get("file_name") ?? "sheet.xlsx"), bytes } : null;
}

const answerWith = (x: Partial<ImportAnswer>, status: number) => data<ImportAnswer>({ message: null, check: null, file: null, ...x }, { status });

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const planId = requireId(params.planId, "Goal");
  const ctx = modelContextFor(context, actor);
  if (!(await findPlanInScope(ctx, planId))) throw notFound("Goal not found.");
  // The file (≤ 1 MB), carried once more as base64 on the import step, plus the form's small fields.
  if (Number(request.headers.get("Content-Length") ?? 0) > IMPORT_MAX_BYTES * 3) return answerWith({ message: IMPORT_MESSAGES.tooLarge }, 413);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return answerWith({ message: IMPORT_MESSAGES.noFile }, 422);
  }
  const upload = await uploadOf(form);
  const raw = { plan_id: planId };
  if (form.get("intent") === "import") {
    const forceField = form.get("force_update");
    const force = v.safeParse(flag, typeof forceField === "string" ? forceField : false);
    if (!force.success) return answerWith({ message: MESSAGES.flag }, 422);
    const result = await importWeeklyReportsFile(ctx, raw, upload, force.output);
    if (result.ok) return redirect(`/bip/goal/${planId}?edit=1&flash=${encodeURIComponent(result.message ?? "Imported.")}`, 303);
    if (result.status === 404) throw notFound(result.message);
    return answerWith({ message: result.message }, result.status);
  }
  const result = await checkWeeklyReportsFile(ctx, raw, upload);
  if (!result.ok) {
    if (result.status === 404) throw notFound(result.message);
    return answerWith({ message: result.message }, result.status);
  }
  return answerWith({ check: result.data, file: upload && { name: upload.name, base64: toBase64(upload.bytes) } }, 200);
}

export default function ImportWeeklyReports() {
  const { goal, maxRows, maxMb } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const check = answer?.check ?? null;
  return (
    <section className="card">
      <div className="page-head">
        <h1>Import weekly reports</h1>
        <Link to={`/bip/goal/${goal.id}?edit=1`}>Back to the goal</Link>
      </div>
      <p>
        {goal.patientName}. The first sheet of the workbook is read: a header row <strong>Week Ending | Value | Total Units</strong>, then one row per week. Week
        Ending is a Saturday (a date cell, or text as yyyy-mm-dd or mm/dd/yyyy); Value is 0 or more; Total Units is optional (4 units = 1 hour). At most {maxRows}{" "}
        weeks and {maxMb} MB per file.
      </p>
      <FormMessage error={answer?.message} />
      <Form method="post" encType="multipart/form-data" className="form-grid">
        <input type="hidden" name="intent" value="check" />
        <div className="field">
          <Label htmlFor="f-file" required>
            Excel file (.xlsx)
          </Label>
          <input id="f-file" type="file" name="file" accept=".xlsx,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" required />
        </div>
        <div className="form-actions">
          <button className="btn" type="submit" disabled={busy}>
            Check file
          </button>
        </div>
      </Form>
      {check && answer?.file ? (
        <section aria-labelledby="check-result">
          <h2 id="check-result">{`Check of ${answer.file.name}`}</h2>
          <ImportResult check={check} />
          <Form method="post" encType="multipart/form-data">
            <input type="hidden" name="intent" value="import" />
            <input type="hidden" name="file_name" value={answer.file.name} />
            <input type="hidden" name="file_b64" value={answer.file.base64} />
            {check.overwrite > 0 ? <CheckboxField label="Overwrite existing weeks" name="force_update" /> : null}
            <div className="form-actions">
              <button className="btn btn-primary" type="submit" disabled={busy || check.valid + check.overwrite === 0} data-pending="Please wait while your changes are being saved">
                Import
              </button>
            </div>
          </Form>
        </section>
      ) : null}
    </section>
  );
}
