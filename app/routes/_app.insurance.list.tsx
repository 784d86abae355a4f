import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { SearchForm } from "~/components/ui/list";
import { listInsurances } from "~/models/insurances.server";
import { modelContextFor, listQueryFrom } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Insurance · Baseline" }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const { query, queryError } = listQueryFrom(request);
  const page = await listInsurances(modelContextFor(context, actor), query);
  return { page, queryError };
}

export default function InsuranceList() {
  const { page, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "Name", cell: (i) => i.name },
    { header: "Payer ID", cell: (i) => i.payer_id },
    { header: "City", cell: (i) => i.city },
    { header: "State", cell: (i) => i.state },
    actionsColumn((i) => [
      <Link key="view" to={`/insurance/view/${i.id}`} aria-label={`View ${i.name}`}>
        View
      </Link>,
      <Link key="edit" to={`/insurance/list/edit/${i.id}`} aria-label={`Edit ${i.name}`}>
        Edit
      </Link>,
    ]),
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Insurance</h1>
        <span>
          <Link to="/insurance/rates">Rate records</Link>{" "}
          <Link className="btn btn-primary" to="/insurance/register">
            Register insurance
          </Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList caption="Insurers" page={page} columns={columns} filters={<SearchForm placeholder="Search by name or payer ID" />} />
    </section>
  );
}
