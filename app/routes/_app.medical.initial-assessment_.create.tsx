import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { IntakeForm } from "~/components/intake/intake-form";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList } from "~/components/ui/data-list";
import { SearchForm } from "~/components/ui/list";
import { applyRowIntent, nestFormFields, rowIntent } from "~/domain/intake";
import { createIntakeAssessment, newIntakeFormFor } from "~/models/intake-assessments.server";
import { listPatients } from "~/models/patients.server";
import { formResult, formValues, listQueryFrom, modelContextFor, parentInAddress, type FormAnswer } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";
import { auditClientsRead, auditWho, clientIds } from "~/services/audit.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

export const meta: MetaFunction = () => [{ title: "New intake assessment · Baseline" }];
export const handle = { guard: "manage_bips" };

/**
 * Without ?patient_id= the screen is a client picker (search, pages); with it, the intake form for that
 * client. A client of another location answers 404.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "manage_bips", "view_bips");
  const ctx = modelContextFor(context, actor);
  const raw = new URL(request.url).searchParams.get("patient_id");
  if (raw) {
    // The client and its BIPs, recorded as one read of the client (decision 019).
    const form = await newIntakeFormFor(ctx, requireId(raw, "Patient"));
    if (!form) throw notFound(CLIENT_NOT_FOUND);
    const { patient, bipOptions } = form;
    return { patient: { id: patient.id, name: patient.full_name, identifier: patient.patient_identifier }, bipOptions, clients: null, queryError: null };
  }
  const { query, queryError } = listQueryFrom(request, ["patient_id"]);
  const result = await listPatients(ctx, query, {});
  const page = result.ok ? result.data : { data: [], total: 0, page: 1, per_page: query.per_page, last_page: 1 };
  // The client picker shows names and identifiers: recorded as read (decision 019).
  await auditClientsRead(ctx.db, auditWho(ctx), "patient", clientIds(page.data, (p) => p.id), auditTail);
  return {
    patient: null,
    bipOptions: [],
    clients: { ...page, data: page.data.map((p) => ({ id: p.id, name: p.full_name, identifier: p.patient_identifier })) },
    queryError,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_bips", "view_bips");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const rows = rowIntent(values.intent);
  // "Add a row" / "Remove": the same form again with the typed values, one row more or less; nothing saved.
  if (rows) return data<FormAnswer>({ errors: {}, message: null, values: applyRowIntent(values, rows) as FormAnswer["values"] });
  if (values.intent !== "save") return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  // The client is this page's address (?patient_id=): one the actor cannot see is the page's 404, not a field error.
  return formResult(parentInAddress(await createIntakeAssessment(ctx, values), "patient_id", CLIENT_NOT_FOUND), values, (x) => `/medical/initial-assessment/${x.id}`);
}

export default function CreateIntakeAssessment() {
  const { patient, bipOptions, clients, queryError } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="card">
      <div className="page-head">
        <h1>{`New intake assessment${patient ? ` for ${patient.name}` : ""}`}</h1>
        <Link to="/medical/initial-assessment">Back to intake assessments</Link>
      </div>
      {patient ? (
        <>
          <p className="muted">Client identifier: {patient.identifier}</p>
          <FormMessage error={answer?.message} />
          <IntakeForm
            key={JSON.stringify(answer?.values ?? null)}
            action={`/medical/initial-assessment/create?patient_id=${patient.id}`}
            draft={answer ? nestFormFields(answer.values) : {}}
            errors={answer?.errors ?? {}}
            patientId={patient.id}
            bipOptions={bipOptions}
            submitLabel="Save intake assessment"
            busy={busy}
          />
        </>
      ) : clients ? (
        <>
          <p>Choose the client for the intake assessment.</p>
          <FormMessage error={queryError} />
          <DataList
            caption="Clients to choose from"
            page={clients}
            filters={<SearchForm placeholder="Search by client name or identifier" />}
            columns={[
              { header: "Client", cell: (c) => c.name },
              { header: "Identifier", cell: (c) => c.identifier },
              actionsColumn<(typeof clients.data)[number]>((c) => (
                <Link to={`?patient_id=${c.id}`} aria-label={`Start an intake assessment for ${c.name}`}>
                  Start an intake assessment
                </Link>
              )),
            ]}
          />
        </>
      ) : null}
    </section>
  );
}
