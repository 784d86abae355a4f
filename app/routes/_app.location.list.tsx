import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { FormMessage } from "~/components/ui/field";
import { Pagination, SearchForm } from "~/components/ui/list";
import { posLabel } from "~/domain/locations";
import { can } from "~/domain/permissions";
import { listLocations } from "~/models/locations.server";
import { modelContextFor, listQueryFrom } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Locations · Baseline" }];
export const handle = { guard: "manage_locations_access" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_locations_access");
  const { query, queryError } = listQueryFrom(request);
  const page = await listLocations(modelContextFor(context, actor), query);
  return {
    page,
    canManage: can(actor, "manage_locations"),
    queryError,
  };
}

export default function LocationList() {
  const { page, canManage, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  return (
    <section className="card">
      <div className="page-head">
        <h1>Locations</h1>
        {canManage ? (
          <Link className="btn btn-primary" to="/location/register">
            Register location
          </Link>
        ) : null}
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <SearchForm placeholder="Search by title or city" />
      {page.data.length === 0 ? (
        <p>No data to display.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Title</th>
              <th>City</th>
              <th>State</th>
              <th>Phone</th>
              <th>Time zone</th>
              <th>POS codes</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((l) => (
              <tr key={l.id}>
                <td>{l.title}</td>
                <td>{l.city}</td>
                <td>{l.state}</td>
                <td>{l.phone1}</td>
                <td>{l.time_zone}</td>
                <td>{l.pos_codes.map((c) => `${c} ${posLabel(c)}`).join(", ")}</td>
                <td className="actions">
                  <Link to={`/location/view/${l.id}`} aria-label={`View ${l.title}`}>
                    View
                  </Link>
                  {canManage ? (
                    <>
                      {" · "}
                      <Link to={`/location/list/edit/${l.id}`} aria-label={`Edit ${l.title}`}>
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
