import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { FormMessage } from "~/components/ui/field";
import { Pagination, SearchForm } from "~/components/ui/list";
import { can } from "~/domain/permissions";
import { listParents } from "~/models/parents.server";
import { modelContextFor, listQueryFrom } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";
import { auditClientsRead, auditWho, clientIds } from "~/services/audit.server";

export const meta: MetaFunction = () => [{ title: "Parents · Baseline" }];
export const handle = { guard: "view_parents" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "view_parents");
  const { query, queryError } = listQueryFrom(request);
  const ctx = modelContextFor(context, actor);
  const page = await listParents(ctx, query);
  // Parents are part of their clients' records: the page's parents are recorded as read (decision 019).
  await auditClientsRead(ctx.db, auditWho(ctx), "parent", clientIds(page.data, (r) => r.id), auditTail, "parents");
  return { page, queryError, canManage: can(actor, "manage_parents") };
}

export default function ParentList() {
  const { page, queryError, canManage } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  return (
    <section className="card">
      <div className="page-head">
        <h1>Parents</h1>
        {canManage ? (
          <Link className="btn btn-primary" to="/parents/add">
            Add parent
          </Link>
        ) : null}
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <SearchForm placeholder="Search by name or email" />
      {page.data.length === 0 ? (
        <p>No data to display.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th>Name</th>
              <th>Email</th>
              <th>Phone</th>
              <th>Location</th>
              <th>Status</th>
              <th>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((p) => (
              <tr key={p.id}>
                <td>{p.full_name}</td>
                <td>{p.email}</td>
                <td>{p.phone ?? "—"}</td>
                <td>{p.location?.title ?? "—"}</td>
                <td>
                  <span className="badge">{p.status}</span>
                </td>
                <td className="actions">
                  <Link to={`/parents/profile/${p.id}`} aria-label={`Profile of ${p.full_name}`}>
                    Profile
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
