import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { BipTable } from "~/components/bip/bip-table";
import { isPastEnd } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { Pagination, FilterSelect, SearchForm } from "~/components/ui/list";
import { TYPES_OF_ASSESSMENT } from "~/domain/bip-document";
import { can } from "~/domain/permissions";
import { listBips } from "~/models/bips.server";
import { locationOptionsQuery } from "~/models/locations.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";
import { auditedRead, auditWho, clientIds, clientsReadEntry } from "~/services/audit.server";

export const meta: MetaFunction = () => [{ title: "Behavior plans · Baseline" }];
export const handle = { guard: "view_bips" };

const FILTERS = ["location_id", "type_of_assessment", "needs_attention"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  const { query, queryError, params } = listQueryFrom(request, FILTERS);
  let result = await listBips(ctx, query, params);
  let error = queryError;
  if (!result.ok) {
    // A hand-edited filter that does not parse falls back to everything, with a note.
    error = result.message;
    result = await listBips(ctx, query, {});
  }
  // The page's clients are recorded as read before it renders (decision 019); the filter's location
  // options ride in the same batch as the audit row, so the screen stays at three round trips.
  const ids = result.ok ? clientIds(result.data.data, (r) => r.patient_id) : [];
  const locations = ids.length ? (await auditedRead(ctx.db, auditWho(ctx), clientsReadEntry("bip", ids), () => [locationOptionsQuery(ctx)], auditTail))[0] : await locationOptionsQuery(ctx);
  return {
    page: result.ok ? result.data : { data: [], total: 0, page: 1, per_page: query.per_page, last_page: 1 },
    locations,
    canManage: can(actor, "manage_bips"),
    queryError: error,
  };
}

export default function BipList() {
  const { page, locations, canManage, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  return (
    <section className="card">
      <div className="page-head">
        <h1>Behavior intervention plans</h1>
        <span>
          <Link to="/bip/attention">Needs attention</Link>
          {canManage ? (
            <>
              {" "}
              <Link className="btn btn-primary" to="/bip/register">
                New BIP
              </Link>
            </>
          ) : null}
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <SearchForm placeholder="Search by client name or identifier">
        <FilterSelect name="location_id" label="Location" any="Any location" options={locations.map((l) => ({ value: l.id, label: l.title }))} />
        <FilterSelect name="type_of_assessment" label="Type of assessment" any="Any type" options={TYPES_OF_ASSESSMENT} />
      </SearchForm>
      {isPastEnd(page) ? null : <BipTable rows={page.data} canManage={canManage} caption="Behavior plans" />}
      <Pagination page={page} />
    </section>
  );
}
