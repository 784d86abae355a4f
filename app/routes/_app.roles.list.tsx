import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { listRoles } from "~/models/roles.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Roles · Baseline" }];
export const handle = { guard: "manage_roles" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_roles");
  return { roles: await listRoles(context.app.db, actor) };
}

export default function RolesList() {
  const { roles } = useLoaderData<typeof loader>();
  return (
    <section className="card">
      <h1>Roles</h1>
      <p className="muted">SUPERADMIN and ADMIN pass every permission check; other roles hold exactly the permissions listed.</p>
      {roles.length === 0 ? (
        <p>No data to display.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Role</th>
              <th>Users</th>
              <th>Permissions</th>
            </tr>
          </thead>
          <tbody>
            {roles.map((r) => (
              <tr key={r.id}>
                <td>{r.name}</td>
                <td>{r.users}</td>
                <td>{r.permissions.join(", ") || "none"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
