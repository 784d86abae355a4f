import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { SearchForm } from "~/components/ui/list";
import { can } from "~/domain/permissions";
import { listIntakeAssessments } from "~/models/intake-assessments.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { auditClientsRead, auditWho, clientIds } from "~/services/audit.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Intake assessments · Baseline" }];
/** Intake assessments belong to the BIP process: view_bips to see them, manage_bips to change them (decision 011). */
export const handle = { guard: "view_bips" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  const { query, queryError, params } = listQueryFrom(request, ["patient_id"]);
  let result = await listIntakeAssessments(ctx, query, params);
  let error = queryError;
  if (!result.ok) {
    // A hand-edited filter that does not parse falls back to everything, with a note.
    error = result.message;
    result = await listIntakeAssessments(ctx, query, {});
  }
  // The page's clients are recorded as read before it renders (decision 019).
  if (result.ok) await auditClientsRead(ctx.db, auditWho(ctx), "intake_assessment", clientIds(result.data.data, (r) => r.patient_id), auditTail);
  return {
    page: result.ok ? result.data : { data: [], total: 0, page: 1, per_page: query.per_page, last_page: 1 },
    canManage: can(actor, "manage_bips"),
    queryError: error,
  };
}

export default function IntakeAssessmentList() {
  const { page, canManage, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const patientFilter = params.get("patient_id");
  const columns: Column<(typeof page.data)[number]>[] = [
    {
      header: "Client",
      cell: (x) => (
        <>
          <Link to={`/medical/initial-assessment?patient_id=${x.patient_id}`} aria-label={`Intake assessments of ${x.patient_name}`}>
            {x.patient_name}
          </Link>{" "}
          <span className="muted">{x.patient_identifier}</span>
        </>
      ),
    },
    { header: "Observation date", cell: (x) => x.observation_date ?? "—" },
    { header: "Person responding", cell: (x) => x.person_responding ?? "—" },
    { header: "BIP", cell: (x) => (x.bip_id ? `#${x.bip_id}` : "—") },
    actionsColumn((x) => [
      <Link key="view" to={`/medical/initial-assessment/${x.id}`} aria-label={`View the intake assessment of ${x.patient_name} on ${x.observation_date ?? "no date"}`}>
        View
      </Link>,
      canManage ? (
        <Link key="new" to={`/medical/initial-assessment/create?patient_id=${x.patient_id}`} aria-label={`New intake assessment for ${x.patient_name}`}>
          New intake assessment
        </Link>
      ) : null,
    ]),
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Intake assessments</h1>
        {canManage ? (
          <Link className="btn btn-primary" to={patientFilter ? `/medical/initial-assessment/create?patient_id=${encodeURIComponent(patientFilter)}` : "/medical/initial-assessment/create"}>
            New intake assessment
          </Link>
        ) : null}
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        caption="Intake assessments"
        page={page}
        columns={columns}
        filters={
          <>
            <SearchForm placeholder="Search by client name or identifier">{patientFilter ? <input type="hidden" name="patient_id" value={patientFilter} /> : null}</SearchForm>
            {patientFilter ? (
              <p>
                Showing one client&apos;s intake assessments. <Link to="/medical/initial-assessment">Show every client</Link>
              </p>
            ) : null}
          </>
        }
      />
    </section>
  );
}
