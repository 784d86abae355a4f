import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataTable } from "~/components/ui/data-list";
import { FormActions, SelectField } from "~/components/ui/form-controls";
import { TYPES_OF_ASSESSMENT } from "~/domain/bip-document";
import { parseWith, pathId, searchText } from "~/domain/validation";
import { clientChoices, createBip, newBipFormFor } from "~/models/bips.server";
import { auditClientsRead, auditWho, clientIds } from "~/services/audit.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

export const meta: MetaFunction = () => [{ title: "New BIP · Baseline" }];
export const handle = { guard: "manage_bips" };

/**
 * A new BIP in two steps that work without JavaScript: find and choose the client (GET ?search=, then
 * ?patient_id=), then the type of assessment and the doctor (employees of the client's location). Both steps show
 * client data and record it (decision 019): the list, one row naming the clients listed (none when none is); the
 * chosen client, one read of that client with the doctors in the batch of its row. A client out of scope (or none
 * such) answers 404, as the intake and note forms do.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "manage_bips", "view_bips");
  const ctx = modelContextFor(context, actor);
  const url = new URL(request.url);
  const searched = parseWith(searchText(), url.searchParams.get("search") ?? "");
  const search = searched.ok ? searched.data : "";
  const patientId = pathId(url.searchParams.get("patient_id") ?? undefined);
  if (patientId !== null) {
    const form = await newBipFormFor(ctx, patientId);
    if (!form) throw notFound(CLIENT_NOT_FOUND);
    const { patient, doctors } = form;
    return {
      patient: { id: patient.id, full_name: patient.full_name, patient_identifier: patient.patient_identifier },
      doctors,
      choices: [],
      search,
      notice: null,
    };
  }
  const choices = searched.ok ? await clientChoices(ctx, search) : [];
  await auditClientsRead(ctx.db, auditWho(ctx), "patient", clientIds(choices, (c) => c.id), auditTail);
  return {
    patient: null,
    doctors: [],
    choices,
    search: searched.ok ? search : (url.searchParams.get("search") ?? "").slice(0, 100),
    notice: !searched.ok ? searched.errors.form! : null,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  return formResult(await createBip(ctx, values), values, (b) => `/bip/tabbed/${b.id}`);
}

export default function RegisterBip() {
  const { patient, doctors, choices, search, notice } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const typed = answer?.values ?? {};
  const errors = answer?.errors ?? {};
  return (
    <section className="card">
      <div className="page-head">
        <h1>New behavior intervention plan</h1>
        <Link to="/bip/list">Back to plans</Link>
      </div>
      <FormMessage error={answer?.message ?? notice} />
      {patient ? (
        <Form method="post" key={JSON.stringify(typed)}>
          <input type="hidden" name="patient_id" value={patient.id} />
          <p>
            Client: <strong>{patient.full_name}</strong> <span className="muted">{patient.patient_identifier}</span> · <Link to="/bip/register">Choose another client</Link>
          </p>
          {errors.patient_id ? (
            <p className="field-error" role="alert">
              {errors.patient_id}
            </p>
          ) : null}
          <SelectField label="Type of assessment" name="type_of_assessment" options={TYPES_OF_ASSESSMENT} defaultValue={String(typed.type_of_assessment ?? "1")} error={errors.type_of_assessment} />
          <SelectField
            label="Doctor"
            name="doctor_id"
            placeholder="None"
            options={doctors.map((d) => ({ value: d.id, label: d.name }))}
            defaultValue={String(typed.doctor_id ?? "")}
            error={errors.doctor_id}
          />
          <p className="hint">The plan starts with the default clinical content and the thirteen caregiver-training goals; edit them on the next page.</p>
          <FormActions>
            <button className="btn btn-primary" type="submit" data-pending="Creating…">
              Create BIP
            </button>
          </FormActions>
        </Form>
      ) : (
        <>
          <Form method="get" className="search-form" role="search">
            <label htmlFor="f-search">Find the client</label>
            <input id="f-search" type="search" name="search" defaultValue={search} placeholder="Name or identifier" />
            <button className="btn" type="submit">
              Search
            </button>
          </Form>
          <DataTable
            caption="Clients to choose from"
            rows={choices}
            columns={[
              { header: "Identifier", cell: (c) => c.identifier },
              { header: "Client", cell: (c) => c.name },
              actionsColumn<(typeof choices)[number]>((c) => (
                <Link to={`/bip/register?patient_id=${c.id}`} aria-label={`Choose ${c.name}`}>
                  Choose
                </Link>
              )),
            ]}
          />
        </>
      )}
    </section>
  );
}
