import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { FormActions, SelectField } from "~/components/ui/form-controls";
import { PATIENT_STATUSES, STAFF_FIELDS, staffOptionsFor, type StaffField, CLIENT_NOT_FOUND } from "~/domain/patients";
import { findPatient, getPatientSettings, updatePatientStaff, updatePatientStatus, type PatientJson } from "~/models/patients.server";
import { formResult, formValues, formVersion, modelContextFor, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * /patients/setting/:id (platform §2): a client's settings — the status (active, inactive, incoming) and
 * the staff assignments (clinical §3), each chosen among the employees of the client's location. The rest
 * of the record is changed on the edit screen. Changing settings needs manage_clients.
 */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Settings of ${data?.patient.full_name ?? "client"} · Baseline` }];
export const handle = { guard: "manage_clients" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_clients", "view_clients");
  const settings = await getPatientSettings(modelContextFor(context, actor), requireId(params.id, "Patient"));
  if (!settings) throw notFound(CLIENT_NOT_FOUND);
  return settings;
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_clients", "view_clients");
  const id = requireId(params.id, "Patient");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const back = () => `/patients/setting/${id}`;
  switch (values.intent) {
    case "status":
      return formResult(await updatePatientStatus(ctx, id, values), values, back);
    case "staff":
      return formResult(await withFormVersion(values.version, (version) => updatePatientStaff(ctx, id, values, { version })), values, back);
    default:
      if (!(await findPatient(ctx, id))) throw notFound(CLIENT_NOT_FOUND);
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
const text = (x: unknown) => (x === null || x === undefined ? "" : String(x));

export default function PatientSettings() {
  const { patient, staff } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const statusAnswer = answer?.values.intent === "status" ? answer : null;
  const staffAnswer = answer?.values.intent === "staff" ? answer : null;
  // After a stale save the staff form shows what is stored now, with its version, so saving again is deliberate.
  const current = (staffAnswer?.current ?? null) as PatientJson | null;
  const staffValues: Record<string, unknown> = current ?? (staffAnswer ? staffAnswer.values : patient);
  const version = current ? current.version : (formVersion(staffAnswer?.values.version) ?? patient.version);
  // What a stale save did not save is listed by the employees' names, as the selects show them.
  const staffNames = (x: Record<string, unknown>) =>
    Object.fromEntries(STAFF_FIELDS.map(([name]) => [name, text(x[name]) === "" ? "" : (staff.find((s) => String(s.id) === text(x[name]))?.name ?? text(x[name]))]));
  const options = (field: StaffField) => staffOptionsFor(field, staff).map((s) => ({ value: s.id, label: s.name }));
  return (
    <section className="card">
      <div className="page-head">
        <h1>Settings of {patient.full_name}</h1>
        <span>
          <Link to={`/patients/profile/${patient.id}`}>Back to {patient.full_name}</Link>{" "}
          <Link to={`/patients/list/edit/${patient.id}`}>Edit client</Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />

      <Form method="post" className="status-zone" aria-labelledby="status-heading">
        <h2 id="status-heading">Status</h2>
        <FormMessage error={statusAnswer?.message} />
        <input type="hidden" name="intent" value="status" />
        <SelectField
          label="Status"
          name="status"
          required
          options={PATIENT_STATUSES.map((s) => ({ value: s, label: cap(s) }))}
          defaultValue={text(statusAnswer ? statusAnswer.values.status : patient.status)}
          error={statusAnswer?.errors.status}
          key={`status-${patient.version}`}
        />
        <FormActions>
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Change status
          </button>
        </FormActions>
      </Form>

      <Form method="post" aria-labelledby="staff-heading" key={JSON.stringify([staffValues, version])}>
        <h2 id="staff-heading">Staff assignments</h2>
        {current && staffAnswer ? (
          <StaleNotice message={staffAnswer.message} version={current.version} unsaved={staffNames(staffAnswer.values)} stored={staffNames(current)} labels={Object.fromEntries(STAFF_FIELDS)} />
        ) : (
          <FormMessage error={staffAnswer?.message} />
        )}
        <input type="hidden" name="intent" value="staff" />
        <input type="hidden" name="version" value={version} />
        {staff.every((s) => s.only) ? <p className="muted">No employees work at this client's location yet.</p> : null}
        {STAFF_FIELDS.map(([name, label]) => (
          <SelectField key={name} label={label} name={name} placeholder="None" options={options(name)} defaultValue={text(staffValues[name])} error={staffAnswer?.errors[name]} />
        ))}
        <FormActions>
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Save staff assignments
          </button>
        </FormActions>
      </Form>
    </section>
  );
}
