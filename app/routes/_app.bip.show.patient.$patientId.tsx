import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { BipTable } from "~/components/bip/bip-table";
import { can } from "~/domain/permissions";
import { listBipsOfPatient } from "~/models/bips.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Plans of ${data?.patient.full_name ?? "client"} · Baseline` }];
export const handle = { guard: "view_bips" };

/** One client's BIPs, newest first; a client of another location is not found. */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  const found = await listBipsOfPatient(ctx, requireId(params.patientId, "Patient"));
  if (!found) throw notFound(CLIENT_NOT_FOUND);
  return { patient: { id: found.patient.id, full_name: found.patient.full_name, patient_identifier: found.patient.patient_identifier }, bips: found.bips, canManage: can(actor, "manage_bips") };
}

export default function PatientBips() {
  const { patient, bips, canManage } = useLoaderData<typeof loader>();
  return (
    <section className="card">
      <div className="page-head">
        <h1>
          Plans of {patient.full_name} <span className="muted">{patient.patient_identifier}</span>
        </h1>
        <span>
          <Link to="/bip/list">All plans</Link>
          {canManage ? (
            <>
              {" "}
              <Link className="btn btn-primary" to={`/bip/register?patient_id=${patient.id}`}>
                New BIP for {patient.full_name}
              </Link>
            </>
          ) : null}
        </span>
      </div>
      <BipTable rows={bips} canManage={canManage} showClient={false} empty="This client has no plans yet." caption={`Behavior plans of ${patient.full_name}`} />
    </section>
  );
}
