import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Link, useLoaderData, useSearchParams } from "@remix-run/react";
import { BipTable } from "~/components/bip/bip-table";
import { FormMessage } from "~/components/ui/field";
import { Pagination, SearchForm } from "~/components/ui/list";
import { TYPES_OF_ASSESSMENT } from "~/domain/bip-document";
import { can } from "~/domain/permissions";
import { listBips } from "~/models/bips.server";
import { locationOptions } from "~/models/locations.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Behavior plans · Baseline" }];
export const handle = { guard: "view_bips" };

const FILTERS = ["location_id", "type_of_assessment", "needs_attention"] as const;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  const { query, queryError, params } = listQueryFrom(request, FILTERS);
  let result = await listBips(ctx, query, params);
  let error = queryError;
  if (!result.ok) {
    // A hand-edited filter that does not parse falls back to everything, with a note.
    error = result.message;
    result = await listBips(ctx, query, {});
  }
  return {
    page: result.ok ? result.data : { data: [], total: 0, page: 1, per_page: query.per_page, last_page: 1 },
    locations: await locationOptions(ctx),
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
        <label className="visually-hidden" htmlFor="f-location_id">
          Location
        </label>
        <select id="f-location_id" name="location_id" defaultValue={params.get("location_id") ?? ""}>
          <option value="">Any location</option>
          {locations.map((l) => (
            <option key={l.id} value={l.id}>
              {l.title}
            </option>
          ))}
        </select>
        <label className="visually-hidden" htmlFor="f-type_of_assessment">
          Type of assessment
        </label>
        <select id="f-type_of_assessment" name="type_of_assessment" defaultValue={params.get("type_of_assessment") ?? ""}>
          <option value="">Any type</option>
          {TYPES_OF_ASSESSMENT.map((t) => (
            <option key={t.value} value={t.value}>
              {t.label}
            </option>
          ))}
        </select>
      </SearchForm>
      <BipTable rows={page.data} canManage={canManage} />
      <Pagination page={page} />
    </section>
  );
}
