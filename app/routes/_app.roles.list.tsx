import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { FormMessage } from "~/components/ui/field";
import { Pagination, SearchForm } from "~/components/ui/list";
import { listRolesPage } from "~/models/roles.server";
import { modelContextFor, listQueryFrom } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Roles · Baseline" }];
export const handle = { guard: "manage_roles" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_roles");
  const { query, queryError } = listQueryFrom(request);
  return {
    page: await listRolesPage(modelContextFor(context, actor), query),
    queryError,
  };
}

export default function RolesList() {
  const { page, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  return (
    <section className="card">
      <div className="page-head">
        <h1>Roles</h1>
        <Link className="btn btn-primary" to="/roles/register">
          Register role
        </Link>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <p className="muted">SUPERADMIN and ADMIN pass every permission check; other roles hold exactly the permissions listed.</p>
      <SearchForm placeholder="Search by name" />
      {page.data.length === 0 ? (
        <p>No data to display.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Role</th>
              <th>Users</th>
              <th>Permissions</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td>
                <td>{r.users}</td>
                <td>{r.all_access ? "All permissions" : r.permissions.join(", ") || "none"}</td>
                <td className="actions">
                  <Link to={`/roles/list/edit/${r.id}`} aria-label={`Edit ${r.name}`}>
                    Edit
                  </Link>
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
