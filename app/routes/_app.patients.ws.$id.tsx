import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { DataList, type Column } from "~/components/ui/data-list";
import { patientLogReport } from "~/models/patients.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * /patients/ws/:id (platform §2): the client's log report — every audit row that names the client, newest
 * first, paginated. The legacy permission list_patient_log_report maps to manage_notes (platform §6).
 */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Log report of ${data?.patient.full_name ?? "client"} · Baseline` }];
export const handle = { guard: "manage_notes" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_notes");
  const id = requireId(params.id, "Patient");
  const { query, queryError } = listQueryFrom(request);
  const report = await patientLogReport(modelContextFor(context, actor), id, query);
  if (!report) throw notFound(CLIENT_NOT_FOUND);
  return { ...report, queryError };
}

const ACTIONS: Record<string, string> = { read: "Viewed", create: "Created", update: "Changed", status: "Status changed", delete: "Deleted" };
const ENTITIES: Record<string, string> = { patient: "Client record", patient_log: "Log report", pa_service: "PA service", parent: "Parent", employee: "Employee" };
const label = (map: Record<string, string>, key: string) => map[key] ?? key.replace(/_/g, " ");

export default function PatientLogReport() {
  const { patient, page, queryError } = useLoaderData<typeof loader>();
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "When (UTC)", cell: (r) => <time dateTime={r.at}>{r.at.replace("T", " ").slice(0, 19)}</time> },
    { header: "Who", cell: (r) => r.actor_name ?? `${r.actor_type} #${r.actor_id ?? "?"}` },
    { header: "Action", cell: (r) => label(ACTIONS, r.action) },
    {
      header: "Record",
      cell: (r) => `${label(ENTITIES, r.entity)}${r.entity_id && r.entity !== "patient" && r.entity !== "patient_log" ? ` #${r.entity_id}` : ""}`,
    },
    { header: "Address", cell: (r) => r.ip ?? "—" },
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Log report of {patient.full_name}</h1>
        <Link to={`/patients/profile/${patient.id}`}>Back to {patient.full_name}</Link>
      </div>
      <FormMessage error={queryError} />
      <DataList caption={`Log report of ${patient.full_name}`} page={page} columns={columns} />
    </section>
  );
}
