import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { PatientForm, patientFormValues } from "~/components/patient-form";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { nestFormFields } from "~/domain/intake";
import { PATIENT_FIELDS, CLIENT_NOT_FOUND } from "~/domain/patients";
import { applyPaAssessmentIntent, paAssessmentIntent } from "~/domain/pa-assessments";
import { SCHEDULE_MESSAGES } from "~/domain/schedule";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { deletePatient, findPatient, getPatientForm, updatePatient, type PatientJson } from "~/models/patients.server";
import { unchangedRecord } from "~/models/results";
import { formResult, formValues, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requirePermission, requireId } from "~/services/guard.server";

/** The client form's labels by field name, for the list of what a stale save did not save. */
const PATIENT_LABELS = Object.fromEntries(PATIENT_FIELDS.map((f) => [f.name, f.label]));

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Edit ${data?.patient.full_name ?? "client"} · Baseline` }];
export const handle = { guard: "manage_clients" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_clients", "view_clients");
  const ctx = modelContextFor(context, actor);
  // The record with the parents its select offers (scope decides 404 first), then the other options in the
  // batch of its audit row, which names the parents too.
  const read = await getPatientForm(ctx, requireId(params.id, "Patient"));
  if (!read) throw notFound(CLIENT_NOT_FOUND);
  return read;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_clients", "view_clients");
  const id = requireId(params.id, "Patient");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const rows = paAssessmentIntent(values.intent);
  if (rows) {
    // "Add an assessment", "Add a service", "Remove": the form again with the row changed; nothing is saved.
    if (!(await findPatient(ctx, id))) throw notFound(CLIENT_NOT_FOUND);
    return data<FormAnswer>({ errors: {}, message: null, values: applyPaAssessmentIntent(values, rows) as FormAnswer["values"] });
  }
  switch (values.intent) {
    case "delete":
      // Only the confirm step's 'Yes, delete it' deletes (probe 8972): it also cancels the client's future sessions.
      requireDeleteConfirmed(values, `/patients/list/edit/${id}?confirm=delete#delete-client`);
      return formResult(await deletePatient(ctx, id), values, () => "/patients/list");
    case "save": {
      const result = await withFormVersion(values.version, (version) => updatePatient(ctx, id, nestFormFields(values), { partial: false, version }));
      // A refused save that chose another location: the form again with that location's staff to choose from.
      const chosen = Number(values.location_id);
      if (!result.ok && result.status === 422 && !unchangedRecord(result) && Number.isSafeInteger(chosen) && chosen > 0) {
        const again = await getPatientForm(ctx, id, chosen);
        if (again && again.patient.location_id !== chosen && again.options.locations.some((l) => l.id === chosen))
          return data<FormAnswer & { staff: typeof again.options.staff }>({ errors: result.errors, message: result.message, values, staff: again.options.staff }, { status: 422 });
      }
      return formResult(result, values, (p) => `/patients/profile/${p.id}`);
    }
    default:
      if (!(await findPatient(ctx, id))) throw notFound(CLIENT_NOT_FOUND);
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

export default function EditPatient() {
  const { patient, options: stored, futureSessions } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const answer = useActionData<typeof action>() as (FormAnswer & { staff?: typeof stored.staff }) | undefined;
  const options = answer?.staff ? { ...stored, staff: answer.staff } : stored;
  const busy = useNavigation().state === "submitting";
  const current = (answer?.current ?? null) as PatientJson | null;
  // After a stale save the form shows what is stored now, with its version, so saving again is deliberate.
  const typed = answer && (answer.values.intent === "save" || paAssessmentIntent(answer.values.intent)) ? answer.values : null;
  const values = current ? patientFormValues(current) : (typed ?? patientFormValues(patient));
  const version = current ? current.version : (formVersion(typed?.version) ?? patient.version);
  return (
    <section className="card">
      <div className="page-head">
        <h1>Edit client</h1>
        <Link to={`/patients/profile/${patient.id}`}>Back to {patient.full_name}</Link>
      </div>
      {current && answer ? <StaleNotice message={answer.message} version={current.version} unsaved={answer.values} hidden={["intent", "version"]} stored={values} labels={PATIENT_LABELS} /> : <FormMessage error={answer?.message} />}
      <PatientForm key={JSON.stringify([values, version])} values={values} errors={typed ? answer!.errors : {}} version={version} options={options} submitLabel="Save changes" busy={busy} />
      <section className="danger-zone" aria-labelledby="delete-client">
        <h2 id="delete-client">Delete client</h2>
        {params.get("confirm") === "delete" ? (
          <ConfirmDelete
            question={`Are you sure you want to delete the client “${patient.full_name}”?`}
            detail={futureSessions > 0 ? SCHEDULE_MESSAGES.futureToCancel(futureSessions) : null}
            intent="delete"
            fields={DELETE_CONFIRMED}
            cancelTo={`/patients/list/edit/${patient.id}`}
            busy={busy}
          />
        ) : (
          <>
            <p>Deleting {patient.full_name} removes the client from lists and cancels their future scheduled sessions. The record and its audit trail are kept.</p>
            <Link className="btn btn-danger" to="?confirm=delete#delete-client">
              Delete client…
            </Link>
          </>
        )}
      </section>
    </section>
  );
}
