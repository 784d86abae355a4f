import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { InsurerForm, insurerFormValues, ServiceForm, serviceFormValues, twinColumns, type FormValues } from "~/components/insurance-form";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import {
  createInsuranceService,
  deleteInsurance,
  deleteInsuranceService,
  notesPricedByService,
  getInsurance,
  updateInsurance,
  updateInsuranceService,
  type InsuranceJson,
  type InsuranceServiceJson,
} from "~/models/insurances.server";
import { locationOptions } from "~/models/locations.server";
import { formResult, formValues, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requirePermission, requireId } from "~/services/guard.server";
import { DataTable, type Column } from "~/components/ui/data-list";
import { dollarPrice } from "~/domain/billing";
import { SERVICE_IN_USE, serviceLocationText } from "~/domain/insurance";
import { DELETE_CONFIRMED } from "~/domain/validation";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Edit ${data?.insurance.name ?? "insurance"} · Baseline` }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const ctx = modelContextFor(context, actor);
  const insurance = await getInsurance(ctx, requireId(params.id, "Insurance"));
  if (!insurance) throw notFound("Insurance not found.");
  // A service's confirm step says how many notes it prices today: the delete is refused while any are (decision 017, stop 40).
  const confirming = /^delete-service-(\d{1,15})$/.exec(new URL(request.url).searchParams.get("confirm") ?? "");
  const toDelete = confirming ? insurance.services.find((s) => s.id === Number(confirming[1])) : undefined;
  const [options, priced] = await Promise.all([locationOptions(ctx), toDelete ? notesPricedByService(ctx, toDelete) : 0]);
  return { insurance, locations: options, priced };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const id = requireId(params.id, "Insurance");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const here = `/insurance/list/edit/${id}`;
  switch (values.intent) {
    case "save":
      return formResult(await withFormVersion(values.version, (version) => updateInsurance(ctx, id, values, { partial: false, version })), values, (i) => `/insurance/view/${i.id}`);
    case "delete":
      // Only a confirm step's 'Yes, delete it' deletes, here and for a service.
      requireDeleteConfirmed(values, `${here}?confirm=delete#delete-insurance`);
      return formResult(await deleteInsurance(ctx, id), values, () => "/insurance/list");
    case "add-service":
      return formResult(await createInsuranceService(ctx, id, values), values, () => here);
    case "update-service": {
      const serviceId = requireId(typeof values.service_id === "string" ? values.service_id : undefined, "Service");
      return formResult(await withFormVersion(values.version, (version) => updateInsuranceService(ctx, serviceId, values, { partial: false, version, insuranceId: id })), values, () => here);
    }
    case "delete-service": {
      const serviceId = requireId(typeof values.service_id === "string" ? values.service_id : undefined, "Service");
      requireDeleteConfirmed(values, `${here}?confirm=delete-service-${serviceId}#services-title`);
      return formResult(await deleteInsuranceService(ctx, serviceId, id), values, () => here);
    }
    default:
      if (!(await getInsurance(ctx, id))) throw notFound("Insurance not found.");
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

/** Labels that a field's name in words would not give, for the list of what a stale save did not save. */
const INSURER_LABELS = {
  payer_id: "Payer ID",
  street2: "Street 2",
  zip: "ZIP code",
  uses_is_telehealth: "Uses the telehealth flag",
  pos_allowed_to_cg: "POS allowed to CG",
  pos_allowed_to_tt: "POS allowed to TT",
  extra_pos_for_bcba: "Extra POS for BCBA",
};
const SERVICE_LABELS = { max_per_day: "Max units per day", location_id: "Location" };

export default function EditInsurance() {
  const { insurance, locations, priced } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const [params] = useSearchParams();
  const busy = useNavigation().state === "submitting";
  const intent = answer?.values.intent;

  // The insurer form: after a stale save it shows what is stored now, with its version, so saving again is deliberate.
  const insurerCurrent = intent === "save" ? ((answer?.current ?? null) as InsuranceJson | null) : null;
  const insurerTyped = intent === "save" && !insurerCurrent ? answer!.values : null;
  const insurerValues: FormValues = insurerCurrent ? insurerFormValues(insurerCurrent) : (insurerTyped ?? insurerFormValues(insurance));
  const insurerVersion = insurerCurrent ? insurerCurrent.version : insurerTyped ? (formVersion(insurerTyped.version) ?? insurance.version) : insurance.version;

  // The service form: add by default; edit the service named by ?service= or by a refused update.
  const serviceIntent = intent === "add-service" || intent === "update-service" ? intent : null;
  const serviceCurrent = intent === "update-service" ? ((answer?.current ?? null) as InsuranceServiceJson | null) : null;
  const editingId = serviceIntent === "update-service" ? Number(answer!.values.service_id) : serviceIntent === "add-service" ? null : Number(params.get("service")) || null;
  const editing = editingId === null ? null : (insurance.services.find((s) => s.id === editingId) ?? null);
  const serviceTyped = serviceIntent && !serviceCurrent ? answer!.values : null;
  const serviceValues: FormValues = serviceCurrent ? serviceFormValues(serviceCurrent) : (serviceTyped ?? (editing ? serviceFormValues(editing) : { multiplier: "1" }));
  const serviceVersion = serviceCurrent ? serviceCurrent.version : serviceTyped && editing ? (formVersion(serviceTyped.version) ?? editing.version) : editing?.version;
  const insurerError = intent === "save" || intent === "delete" || !intent ? answer?.message : null;
  const serviceError = intent && intent !== "save" && intent !== "delete" ? answer?.message : null;
  // A service row's Delete asks first: `?confirm=delete-service-<id>` shows the step above the table.
  const confirmService = /^delete-service-(\d{1,15})$/.exec(params.get("confirm") ?? "");
  const toDelete = confirmService ? insurance.services.find((s) => s.id === Number(confirmService[1])) : undefined;
  const serviceColumns: Column<InsuranceServiceJson>[] = [
    { header: "Code", cell: (s) => s.code },
    { header: "Provider", cell: (s) => s.provider || "All" },
    { header: "Type", cell: (s) => s.type },
    { header: "Location", cell: (s) => serviceLocationText(s.location_id, locations) },
    { header: "Description", cell: (s) => s.description },
    { header: "Unit price", cell: (s) => dollarPrice(s.unit_price) },
    { header: "Multiplier", cell: (s) => s.multiplier },
    ...twinColumns(insurance.services),
    {
      header: "Actions",
      hideHeader: true,
      className: "actions",
      cell: (s) => (
        <>
          <Link to={`?service=${s.id}#service-form`} aria-label={`Edit service ${s.code}`}>
            Edit
          </Link>
          <Link to={`?confirm=delete-service-${s.id}#services-title`} aria-label={`Delete service ${s.code}`}>
            Delete
          </Link>
        </>
      ),
    },
  ];

  return (
    <>
      <section className="card">
        <div className="page-head">
          <h1>Edit insurance</h1>
          <Link to={`/insurance/view/${insurance.id}`}>Back to {insurance.name}</Link>
        </div>
        <FormMessage success={answer ? null : params.get("flash")} />
        {insurerCurrent ? (
          <StaleNotice message={answer!.message} version={insurerCurrent.version} unsaved={answer!.values} hidden={["intent", "version"]} stored={insurerValues} labels={INSURER_LABELS} />
        ) : (
          <FormMessage error={insurerError} />
        )}
        <InsurerForm
          key={JSON.stringify([insurerValues, insurerVersion])}
          intent="save"
          values={insurerValues}
          errors={insurerTyped ? answer!.errors : {}}
          version={insurerVersion}
          submitLabel="Save changes"
          busy={busy}
        />
      </section>

      <section className="card" aria-labelledby="services-title">
        <h2 id="services-title">CPT services</h2>
        {serviceCurrent ? (
          <StaleNotice message={answer!.message} version={serviceCurrent.version} unsaved={answer!.values} hidden={["intent", "version", "service_id"]} stored={serviceValues} labels={SERVICE_LABELS} />
        ) : (
          <FormMessage error={serviceError} />
        )}
        {toDelete ? (
          <ConfirmDelete
            question={`${priced > 0 ? `${SERVICE_IN_USE(priced)} ` : ""}Are you sure you want to delete the service “${toDelete.code}”${toDelete.description ? ` (${toDelete.description})` : ""}?`}
            intent="delete-service"
            fields={{ service_id: toDelete.id, ...DELETE_CONFIRMED }}
            cancelTo={`/insurance/list/edit/${insurance.id}`}
            busy={busy}
          />
        ) : null}
        <DataTable rows={insurance.services} columns={serviceColumns} empty="No services yet. Add the first one below." caption="CPT services" />
        <h3 id="service-form">{editing ? `Edit service ${editing.code}` : "Add service"}</h3>
        <ServiceForm
          key={JSON.stringify([editing?.id ?? null, serviceValues, serviceVersion])}
          values={serviceValues}
          errors={serviceTyped ? answer!.errors : {}}
          serviceId={editing?.id}
          version={serviceVersion}
          locations={locations}
          busy={busy}
          cancelTo={`/insurance/list/edit/${insurance.id}`}
        />
      </section>

      <section className="card danger-zone" aria-labelledby="delete-insurance">
        <h2 id="delete-insurance">Delete insurance</h2>
        {params.get("confirm") === "delete" ? (
          <ConfirmDelete question={`Are you sure you want to delete the insurance “${insurance.name}”?`} intent="delete" fields={DELETE_CONFIRMED} cancelTo={`/insurance/list/edit/${insurance.id}`} busy={busy} />
        ) : (
          <>
            <p>Deleting {insurance.name} removes it and its services from lists and price lookups.</p>
            <Link className="btn btn-danger" to="?confirm=delete#delete-insurance">
              Delete insurance…
            </Link>
          </>
        )}
      </section>
    </>
  );
}
