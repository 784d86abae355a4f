import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { SearchForm } from "~/components/ui/list";
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
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "Role", cell: (r) => r.name },
    { header: "Users", cell: (r) => r.users },
    { header: "Permissions", cell: (r) => (r.all_access ? "All permissions" : r.permissions.join(", ") || "none") },
    actionsColumn((r) => (
      <Link to={`/roles/list/edit/${r.id}`} aria-label={`Edit ${r.name}`}>
        Edit
      </Link>
    )),
  ];
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
      <DataList caption="Roles" page={page} columns={columns} filters={<SearchForm placeholder="Search by name" />} />
    </section>
  );
}
