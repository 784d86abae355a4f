import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { localDate } from "~/domain/time";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { SearchForm } from "~/components/ui/list";
import { money } from "~/domain/billing";
import { listRemittances, type RemittanceListJson } from "~/models/remittances.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

/**
 * Remittances (decision 033): the imported 835 payments that paid claims of the actor's locations, newest
 * first, searchable by trace number or payer. manage_claims. No client is named here.
 */
export const meta: MetaFunction = () => [{ title: "Remittances · Baseline" }];
export const handle = { guard: "manage_claims" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_claims");
  const { query, queryError } = listQueryFrom(request);
  return { page: await listRemittances(modelContextFor(context, actor), query), queryError };
}

export default function Remittances() {
  const { page, queryError } = useLoaderData<typeof loader>();
  const timeZone = useActorTimeZone();
  const [params] = useSearchParams();
  const columns: Column<RemittanceListJson>[] = [
    { header: "Payment date", cell: (r) => r.payment_date ?? "—" },
    { header: "Payer", cell: (r) => r.payer_name },
    { header: "Trace number", cell: (r) => r.trace_number },
    { header: "Paid", cell: (r) => money(r.total_paid_cents) },
    { header: "Claims", cell: (r) => r.claims },
    { header: "Lines", cell: (r) => r.lines },
    { header: "Denied lines", cell: (r) => r.denied },
    { header: "Imported", cell: (r) => localDate(r.created_at, timeZone) },
    actionsColumn((r) => (
      <Link to={`/claims/remittances/${r.id}`} aria-label={`View remittance ${r.trace_number}`}>
        View
      </Link>
    )),
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Remittances</h1>
        <span>
          <Link to="/claims">Claims</Link>{" "}
          <Link className="btn btn-primary" to="/claims/remittances/import">
            Import an 835
          </Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList page={page} columns={columns} filters={<SearchForm placeholder="Search by trace number or payer" />} caption="Remittances" />
    </section>
  );
}
