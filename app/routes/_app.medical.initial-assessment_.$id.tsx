import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { IntakeForm } from "~/components/intake/intake-form";
import { IntakeView } from "~/components/intake/intake-view";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { applyRowIntent, nestFormFields, rowIntent } from "~/domain/intake";
import { can } from "~/domain/permissions";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { deleteIntakeAssessment, findIntakeAssessment, getIntakeAssessmentWithBipOptions, updateIntakeAssessment, type IntakeJson } from "~/models/intake-assessments.server";
import { formResult, formValues, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { forbidden, notFound, requireId, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Intake assessment${data ? ` of ${data.intake.patient_name}` : ""} · Baseline` }];
/** Viewing needs view_bips; ?edit and every change need manage_bips as well (decision 011). */
export const handle = { guard: "view_bips" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  // The intake in scope (404 first), then its client's BIPs in the batch of the read's audit row.
  const read = await getIntakeAssessmentWithBipOptions(ctx, requireId(params.id, "Intake assessment"));
  if (!read) throw notFound("Intake assessment not found.");
  const { intake, bipOptions } = read;
  const canManage = can(actor, "manage_bips");
  return {
    intake,
    canManage,
    editing: canManage && new URL(request.url).searchParams.has("edit"),
    bipOptions: canManage ? bipOptions : [],
    bipLabel: bipOptions.find((b) => b.id === intake.bip_id)?.label ?? (intake.bip_id ? `BIP #${intake.bip_id}` : null),
  };
}

/** Intents: save, delete, add-row:<list>, remove-row:<list>:<n>. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  if (!can(actor, "manage_bips")) throw forbidden();
  const id = requireId(params.id, "Intake assessment");
  const ctx = modelContextFor(context, actor);
  if (!(await findIntakeAssessment(ctx, id))) throw notFound("Intake assessment not found.");
  const values = formValues(await request.formData());
  const rows = rowIntent(values.intent);
  if (rows) return data<FormAnswer>({ errors: {}, message: null, values: applyRowIntent(values, rows) as FormAnswer["values"] });
  switch (values.intent) {
    case "save":
      return formResult(await withFormVersion(values.version, (version) => updateIntakeAssessment(ctx, id, values, { partial: false, version })), values, () => `/medical/initial-assessment/${id}`);
    case "delete":
      // Only the confirm step's 'Yes, delete it' deletes.
      requireDeleteConfirmed(values, `/medical/initial-assessment/${id}?confirm=delete#delete-intake`);
      return formResult(await deleteIntakeAssessment(ctx, id), values, () => "/medical/initial-assessment");
    default:
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

export default function IntakeAssessment() {
  const { intake, canManage, editing, bipOptions, bipLabel } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const current = (answer?.current ?? null) as IntakeJson | null;
  const showForm = canManage && (editing || !!answer);
  // After a stale save the form shows what is stored now, with its version, so saving again is deliberate.
  const draft: Record<string, unknown> = current ?? (answer ? nestFormFields(answer.values) : intake);
  const version = current ? current.version : (formVersion(answer?.values.version) ?? intake.version);
  return (
    <section className="card">
      <div className="page-head">
        <h1>Intake assessment of {intake.patient_name}</h1>
        <Link to={`/medical/initial-assessment?patient_id=${intake.patient_id}`}>Back to {intake.patient_name}&apos;s intake assessments</Link>
      </div>
      <p className="muted">
        Client identifier: {intake.patient_identifier} · Observation date: {intake.observation_date ?? "—"} · Version {intake.version}
      </p>
      <FormMessage success={showForm ? null : params.get("flash")} />
      {showForm ? (
        <>
          {current && answer ? (
            <StaleNotice message={answer.message} version={current.version} unsaved={answer.values} hidden={["intent", "version", "patient_id"]} stored={draft} />
          ) : (
            <FormMessage error={answer?.message} />
          )}
          <IntakeForm
            key={JSON.stringify([draft, version])}
            action={`/medical/initial-assessment/${intake.id}?edit`}
            draft={draft}
            errors={current ? {} : (answer?.errors ?? {})}
            version={version}
            patientId={intake.patient_id}
            bipOptions={bipOptions}
            submitLabel="Save changes"
            busy={busy}
          />
          <p>
            <Link to={`/medical/initial-assessment/${intake.id}`}>Cancel</Link>
          </p>
        </>
      ) : (
        <>
          {canManage ? (
            <p>
              <Link className="btn btn-primary" to="?edit">
                Edit intake assessment
              </Link>
            </p>
          ) : null}
          <IntakeView intake={intake} bipLabel={bipLabel} />
          {canManage ? (
            <section className="danger-zone" aria-labelledby="delete-intake">
              <h2 id="delete-intake">Delete intake assessment</h2>
              {params.get("confirm") === "delete" ? (
                <ConfirmDelete
                  question={`Are you sure you want to delete the intake assessment of ${intake.patient_name}${intake.observation_date ? ` observed on ${intake.observation_date}` : ""}?`}
                  intent="delete"
                  fields={DELETE_CONFIRMED}
                  cancelTo={`/medical/initial-assessment/${intake.id}`}
                  busy={busy}
                />
              ) : (
                <>
                  <p>Deleting removes the intake assessment from lists. The record and its audit trail are kept.</p>
                  <Link className="btn btn-danger" to="?confirm=delete#delete-intake">
                    Delete intake assessment…
                  </Link>
                </>
              )}
            </section>
          ) : null}
        </>
      )}
    </section>
  );
}
