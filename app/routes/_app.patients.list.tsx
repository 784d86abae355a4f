import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { FormMessage } from "~/components/ui/field";
import { Pagination, SearchForm } from "~/components/ui/list";
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
      <SearchForm placeholder="Search by name or identifier">
        <label className="visually-hidden" htmlFor="f-status">
          Status
        </label>
        <select id="f-status" name="status" defaultValue={params.get("status") ?? ""}>
          <option value="">Any status</option>
          {PATIENT_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label className="visually-hidden" htmlFor="f-location_id">
          Location
        </label>
        <select id="f-location_id" name="location_id" defaultValue={params.get("location_id") ?? ""}>
          <option value="">Any location</option>
          {locations.map((l) => (
            <option key={l.id} value={l.id}>
              {l.title}
            </option>
          ))}
        </select>
        <label className="visually-hidden" htmlFor="f-insurer_id">
          Insurer
        </label>
        <select id="f-insurer_id" name="insurer_id" defaultValue={params.get("insurer_id") ?? ""}>
          <option value="">Any insurer</option>
          {insurers.map((i) => (
            <option key={i.id} value={i.id}>
              {i.name}
            </option>
          ))}
        </select>
        <label className="visually-hidden" htmlFor="f-staff_id">
          Assigned staff
        </label>
        <select id="f-staff_id" name="staff_id" defaultValue={params.get("staff_id") ?? ""}>
          <option value="">{staff.length ? "Any staff" : "Any staff (choose a location to pick one)"}</option>
          {staff.map((s) => (
            <option key={s.id} value={s.id}>
              {s.name} {s.surname}
            </option>
          ))}
        </select>
      </SearchForm>
      {page.data.length === 0 ? (
        <p>No data to display.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Identifier</th>
              <th>Name</th>
              <th>Status</th>
              <th>Age</th>
              <th>Location</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((p) => (
              <tr key={p.id}>
                <td>{p.patient_identifier}</td>
                <td>{p.full_name}</td>
                <td>
                  <span className="badge">{p.status}</span>
                </td>
                <td>{p.age ?? "—"}</td>
                <td>{locationTitle(p.location_id)}</td>
                <td className="actions">
                  <Link to={`/patients/profile/${p.id}`} aria-label={`Profile of ${p.full_name}`}>
                    Profile
                  </Link>
                  {canManage ? (
                    <>
                      {" · "}
                      <Link to={`/patients/list/edit/${p.id}`} aria-label={`Edit ${p.full_name}`}>
                        Edit
                      </Link>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pagination page={page} />
    </section>
  );
}
