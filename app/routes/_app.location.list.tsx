import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { SearchForm } from "~/components/ui/list";
import { posText } from "~/domain/locations";
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
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "Title", cell: (l) => l.title },
    { header: "City", cell: (l) => l.city },
    { header: "State", cell: (l) => l.state },
    { header: "Phone", cell: (l) => l.phone1 },
    { header: "Time zone", cell: (l) => l.time_zone },
    { header: "POS codes", cell: (l) => l.pos_codes.map(posText).join(", ") },
    actionsColumn((l) => [
      <Link key="view" to={`/location/view/${l.id}`} aria-label={`View ${l.title}`}>
        View
      </Link>,
      canManage ? (
        <Link key="edit" to={`/location/list/edit/${l.id}`} aria-label={`Edit ${l.title}`}>
          Edit
        </Link>
      ) : null,
    ]),
  ];
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
      <DataList caption="Locations" page={page} columns={columns} filters={<SearchForm placeholder="Search by title or city" />} />
    </section>
  );
}
