import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { FilterSelect, SearchForm } from "~/components/ui/list";
import { PATIENT_STATUSES } from "~/domain/patients";
import { can } from "~/domain/permissions";
import { patientListScreen } from "~/models/patients.server";
import { modelContextFor, listQueryFrom } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Clients · Baseline" }];
/**
 * The sidebar shows Clients to view_notes holders (platform §2), but the list is client records, so it
 * is guarded with view_clients (clinical §6); a view_notes-only user gets the Access Denied page.
 */
export const handle = { guard: "view_clients" };

const FILTERS = ["status", "location_id", "insurer_id", "staff_id"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_clients");
  const { query, queryError, params } = listQueryFrom(request, FILTERS);
  // The page, its total and the filter options in one batch; a hand-edited filter that does not parse
  // falls back to everything, with a note.
  const { page, locations, insurers, staff, filterError } = await patientListScreen(modelContextFor(context, actor), query, params);
  return { page, locations, insurers, staff, canManage: can(actor, "manage_clients"), queryError: queryError ?? filterError };
}

export default function PatientList() {
  const { page, locations, insurers, staff, canManage, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const locationTitle = (id: number) => locations.find((l) => l.id === id)?.title ?? "";
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "Identifier", cell: (p) => p.patient_identifier },
    { header: "Name", cell: (p) => p.full_name },
    { header: "Status", cell: (p) => <span className="badge">{p.status}</span> },
    { header: "Age", cell: (p) => p.age ?? "—" },
    { header: "Location", cell: (p) => locationTitle(p.location_id) },
    actionsColumn((p) => [
      <Link key="profile" to={`/patients/profile/${p.id}`} aria-label={`Profile of ${p.full_name}`}>
        Profile
      </Link>,
      canManage ? (
        <Link key="edit" to={`/patients/list/edit/${p.id}`} aria-label={`Edit ${p.full_name}`}>
          Edit
        </Link>
      ) : null,
    ]),
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Clients</h1>
        {canManage ? (
          <Link className="btn btn-primary" to="/patients/add">
            Add client
          </Link>
        ) : null}
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        caption="Clients"
        page={page}
        columns={columns}
        filters={
          <SearchForm placeholder="Search by name or identifier">
            <FilterSelect name="status" label="Status" any="Any status" options={PATIENT_STATUSES.map((s) => ({ value: s, label: s }))} />
            <FilterSelect name="location_id" label="Location" any="Any location" options={locations.map((l) => ({ value: l.id, label: l.title }))} />
            <FilterSelect name="insurer_id" label="Insurer" any="Any insurer" options={insurers.map((i) => ({ value: i.id, label: i.name }))} />
            <FilterSelect name="staff_id" label="Assigned staff" any={staff.length ? "Any staff" : "Any staff (choose a location to pick one)"} options={staff.map((m) => ({ value: m.id, label: `${m.name} ${m.surname}` }))} />
          </SearchForm>
        }
      />
    </section>
  );
}
