import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Fragment } from "react";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { localDate } from "~/domain/time";
import { FormMessage } from "~/components/ui/field";
import { posText } from "~/domain/locations";
import { can } from "~/domain/permissions";
import { getLocation } from "~/models/locations.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.location.title ?? "Location"} · Baseline` }];
export const handle = { guard: "manage_locations_access" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_locations_access");
  const id = Number(params.id);
  const location = Number.isSafeInteger(id) && id > 0 ? await getLocation(modelContextFor(context, actor), id) : null;
  if (!location) throw notFound("Location not found.");
  return { location, canManage: can(actor, "manage_locations") };
}

export default function ViewLocation() {
  const { location: l, canManage } = useLoaderData<typeof loader>();
  const timeZone = useActorTimeZone();
  const [params] = useSearchParams();
  const rows: [string, string | null][] = [
    ["Title", l.title],
    ["Address", l.address],
    ["City", l.city],
    ["State", l.state],
    ["ZIP code", l.zip],
    ["NPI", l.npi],
    ["Tax id", l.tax_id],
    ["Phone 1", l.phone1],
    ["Phone 2", l.phone2],
    ["Fax", l.telfax],
    ["Email", l.email],
    ["Time zone", l.time_zone],
    ["Place-of-service codes", l.pos_codes.map(posText).join(", ")],
    ["Created", localDate(l.created_at, timeZone)],
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>{l.title}</h1>
        <span>
          <Link to="/location/list">Back to locations</Link>
          {canManage ? (
            <>
              {" "}
              <Link className="btn btn-primary" to={`/location/list/edit/${l.id}`}>
                Edit location
              </Link>
            </>
          ) : null}
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <dl className="details">
        {rows.map(([label, value]) => (
          <Fragment key={label}>
            <dt>{label}</dt>
            <dd>{value || "—"}</dd>
          </Fragment>
        ))}
      </dl>
    </section>
  );
}
