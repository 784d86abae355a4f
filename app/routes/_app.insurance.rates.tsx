import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { FilterSelect, SearchForm } from "~/components/ui/list";
import { locationOptions } from "~/models/locations.server";
import { parseFilters } from "~/domain/list-filters";
import { paged } from "~/domain/paging";
import { listRateRecords, RateRecordFilters } from "~/models/rate-records.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

/** Rate/pay records (platform §3): search by name, filter by location, paginated; only the actor's locations. */

export const meta: MetaFunction = () => [{ title: "Rate records · Baseline" }];
export const handle = { guard: "manage_insurances" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_insurances");
  const ctx = modelContextFor(context, actor);
  const { query, queryError, params } = listQueryFrom(request, ["location_id"]);
  // A malformed location filter lists every record the user sees, with the message at the filter (decision 017).
  const filters = parseFilters(RateRecordFilters, { location_id: params.location_id });
  const [result, locations] = await Promise.all([listRateRecords(ctx, query, filters.ok ? { location_id: params.location_id } : {}), locationOptions(ctx)]);
  return { page: result.ok ? result.data : paged([], 0, query), locations, queryError, filterErrors: filters.ok ? null : filters.errors };
}

function amount(n: number | null): string {
  return n === null ? "—" : `$${n.toFixed(2)}`;
}

export default function RateRecordList() {
  const { page, locations, queryError, filterErrors } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const locationTitle = (id: number | null) => locations.find((l) => l.id === id)?.title ?? "—";
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "Name", cell: (r) => r.name },
    { header: "Location", cell: (r) => locationTitle(r.location_id) },
    { header: "RBT", cell: (r) => amount(r.rbt) },
    { header: "BCBA", cell: (r) => amount(r.bcba) },
    { header: "Manager", cell: (r) => amount(r.manager) },
    { header: "Client", cell: (r) => amount(r.client) },
    actionsColumn((r) => (
      <Link to={`/insurance/rates/edit/${r.id}`} aria-label={`Edit ${r.name}`}>
        Edit
      </Link>
    )),
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Rate records</h1>
        <span>
          <Link to="/insurance/list">Insurance</Link>{" "}
          <Link className="btn btn-primary" to="/insurance/rates/register">
            Register rate record
          </Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        caption="Rate records"
        page={page}
        columns={columns}
        filters={
          <SearchForm placeholder="Search by name">
            <FilterSelect name="location_id" label="Location" any="Any location" options={locations.map((l) => ({ value: l.id, label: l.title }))} error={filterErrors?.location_id} />
          </SearchForm>
        }
      />
    </section>
  );
}
