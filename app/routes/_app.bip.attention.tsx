import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { BipTable } from "~/components/bip/bip-table";
import { FormMessage } from "~/components/ui/field";
import { Pagination } from "~/components/ui/list";
import { can } from "~/domain/permissions";
import { listBips, listBipsWithoutRecentData, RECENT_DATA_WEEKS } from "~/models/bips.server";
import { listQueryFrom, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";
import { auditClientsRead, auditWho, clientIds } from "~/services/audit.server";

export const meta: MetaFunction = () => [{ title: "Plans that need attention · Baseline" }];
export const handle = { guard: "view_bips" };

/** Plans flagged "needs attention"; on request (?stale=1), plans with an active behavior goal and no data for 4 weeks. */
export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  const { query, queryError } = listQueryFrom(request, ["stale"]);
  // The second list scans every active behavior goal in scope, so it is computed only when asked for.
  const showStale = new URL(request.url).searchParams.get("stale") === "1";
  const [flagged, stale] = await Promise.all([listBips(ctx, query, { needs_attention: "true" }), showStale ? listBipsWithoutRecentData(ctx) : null]);
  // Both lists' clients are recorded as read, in one row, before the page renders (decision 019).
  const shown = [...(flagged.ok ? flagged.data.data : []), ...(stale ?? [])];
  await auditClientsRead(ctx.db, auditWho(ctx), "bip", clientIds(shown, (r) => r.patient_id), auditTail);
  return {
    page: flagged.ok ? flagged.data : { data: [], total: 0, page: 1, per_page: query.per_page, last_page: 1 },
    stale,
    canManage: can(actor, "manage_bips"),
    queryError,
  };
}

export default function BipAttention() {
  const { page, stale, canManage, queryError } = useLoaderData<typeof loader>();
  return (
    <section className="card">
      <div className="page-head">
        <h1>Plans that need attention</h1>
        <Link to="/bip/list">All plans</Link>
      </div>
      <FormMessage error={queryError} />
      <section aria-labelledby="flagged">
        <h2 id="flagged">Flagged “needs attention”</h2>
        <BipTable rows={page.data} canManage={canManage} empty="No plans are flagged." caption="Plans flagged “needs attention”" />
        <Pagination page={page} />
      </section>
      <section aria-labelledby="stale">
        <h2 id="stale">Behavior goals without data in the last {RECENT_DATA_WEEKS} weeks</h2>
        {stale ? (
          <>
            <p className="muted">Active maladaptive or replacement goals with no weekly report in the last {RECENT_DATA_WEEKS} weeks (the 50 newest plans).</p>
            <BipTable rows={stale} canManage={canManage} empty="Every active behavior goal has recent data." caption="Plans whose behavior goals have no recent data" />
          </>
        ) : (
          <p>
            <Link to="?stale=1">Find plans whose behavior goals have had no data for {RECENT_DATA_WEEKS} weeks</Link>
          </p>
        )}
      </section>
    </section>
  );
}
