import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { SearchForm } from "~/components/ui/list";
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
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "Name", cell: (p) => p.full_name },
    { header: "Email", cell: (p) => p.email },
    { header: "Phone", cell: (p) => p.phone ?? "—" },
    { header: "Location", cell: (p) => p.location?.title ?? "—" },
    { header: "Status", cell: (p) => <span className="badge">{p.status}</span> },
    actionsColumn((p) => (
      <Link to={`/parents/profile/${p.id}`} aria-label={`Profile of ${p.full_name}`}>
        Profile
      </Link>
    )),
  ];
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
      <DataList caption="Parents" page={page} columns={columns} filters={<SearchForm placeholder="Search by name or email" />} />
    </section>
  );
}
