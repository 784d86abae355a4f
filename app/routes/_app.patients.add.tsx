import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { SelectField } from "~/components/ui/form-controls";
import { Link } from "~/components/ui/link";
import { PatientForm } from "~/components/patient-form";
import { FormMessage } from "~/components/ui/field";
import { nestFormFields } from "~/domain/intake";
import { applyPaAssessmentIntent, paAssessmentIntent } from "~/domain/pa-assessments";
import { createPatient, patientFormOptions } from "~/models/patients.server";
import { formResult, formValues, modelContextFor, type FormAnswer } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";
import { randomToken } from "~/services/crypto.server";

export const meta: MetaFunction = () => [{ title: "Add client · Baseline" }];
export const handle = { guard: "manage_clients" };

function locationParam(raw: string | null): number | null {
  const n = Number(raw);
  return raw && Number.isSafeInteger(n) && n > 0 ? n : null;
}

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "manage_clients", "view_clients");
  const ctx = modelContextFor(context, actor);
  const locationId = locationParam(new URL(request.url).searchParams.get("location_id")) ?? (actor.locationIds.length === 1 ? actor.locationIds[0]! : null);
  // The form's one-time token per load: a resend of it (a double click) adds one client (decision 024).
  return { options: await patientFormOptions(ctx, locationId, auditTail), locationId, formToken: randomToken(18) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_clients", "view_clients");
  const ctx = modelContextFor(context, actor);
  const posted = formValues(await request.formData());
  // The one-time token is not a client field; it rides back in the answer's values, so the form shown again keeps it.
  const { form_token: formToken, ...values } = posted;
  const rows = paAssessmentIntent(values.intent);
  // "Add an assessment", "Add a service", "Remove": the form again with the row changed; nothing is saved.
  if (rows) return data<FormAnswer>({ errors: {}, message: null, values: { ...(applyPaAssessmentIntent(values, rows) as FormAnswer["values"]), ...(formToken ? { form_token: formToken } : {}) } });
  const result = await createPatient(ctx, nestFormFields(values), { formToken: typeof formToken === "string" ? formToken : null });
  // A refused save with a location chosen: the form again with that location's staff to choose from.
  const chosen = locationParam(typeof values.location_id === "string" ? values.location_id : null);
  if (!result.ok && result.status === 422 && chosen !== null) {
    const options = await patientFormOptions(ctx, chosen);
    if (options.locations.some((l) => l.id === chosen)) return data<FormAnswer & { staff: typeof options.staff }>({ errors: result.errors, message: result.message, values: posted, staff: options.staff }, { status: 422 });
  }
  return formResult(result, posted, (p) => `/patients/profile/${p.id}`);
}

export default function AddPatient() {
  const { options: loaded, locationId, formToken } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>() as (FormAnswer & { staff?: typeof loaded.staff }) | undefined;
  const options = answer?.staff ? { ...loaded, staff: answer.staff, tooManyStaff: false } : loaded;
  const busy = useNavigation().state === "submitting";
  const values = answer?.values ?? { status: "active", location_id: locationId ? String(locationId) : "" };
  return (
    <section className="card">
      <div className="page-head">
        <h1>Add client</h1>
        <Link to="/patients/list">Back to clients</Link>
      </div>
      <FormMessage error={answer?.message} />
      {options.tooManyStaff ? (
        // With more staff than a select lists, the location comes first (a GET: nothing typed is lost yet).
        <Form method="get" className="filters" aria-label="The client's location">
          <SelectField label="The client's location" name="location_id" id="f-staff-location" required placeholder="Choose a location" options={options.locations.map((l) => ({ value: l.id, label: l.title }))} />
          <button className="btn" type="submit">
            Show its staff
          </button>
        </Form>
      ) : null}
      <PatientForm key={JSON.stringify(answer?.values ?? null)} values={values} errors={answer?.errors ?? {}} options={options} submitLabel="Add client" busy={busy} formToken={typeof answer?.values.form_token === "string" && answer.values.form_token ? answer.values.form_token : formToken} />
    </section>
  );
}
