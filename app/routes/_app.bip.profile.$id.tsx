import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { localDate } from "~/domain/time";
import { DocumentView } from "~/components/bip/document-view";
import { BehaviorChart } from "~/components/charts/behavior-chart";
import { buildChartModel, type ChartModel } from "~/domain/chart";
import { FormMessage } from "~/components/ui/field";
import { typeOfAssessmentLabel } from "~/domain/bip-document";
import { can } from "~/domain/permissions";
import { PLAN_CATEGORY_LABELS } from "~/domain/plans";
import { addDays, weekEndingOn } from "~/domain/weeks";
import { goalsByCategory, readBip, shownDocument } from "~/models/bips.server";
import { chartInputsFrom, profileChartsQuery } from "~/models/charts.server";
import { modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Plan of ${data?.bip.patient_name ?? "client"} · Baseline` }];
export const handle = { guard: "view_bips" };

/** The plan read-only: defaults applied, placeholders filled with the client's name and pronouns; goals by category. */
export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const ctx = modelContextFor(context, actor);
  // The charts of the goals measured weekly, the last 52 weeks (the goal screen has every week and the
  // date filters); read in the same batch as the plan and its audit row.
  const range = { from: addDays(weekEndingOn(ctx.now().toISOString().slice(0, 10)), -7 * 52) };
  const read = await readBip(ctx, requireId(params.id, "BIP"), (scope) => [profileChartsQuery(ctx, scope.bipId, range)] as const);
  if (!read) throw notFound("BIP not found.");
  const detail = read.detail;
  const { bip } = detail;
  const goals = goalsByCategory(bip);
  const charts: Record<number, ChartModel> = {};
  for (const [id, input] of chartInputsFrom(read.more[0], range)) if (input.reports.length > 0) charts[id] = buildChartModel(input);
  return {
    bip: { id: bip.id, patient_id: bip.patient_id, patient_name: bip.patient_name, patient_identifier: bip.patient_identifier, type_of_assessment: bip.type_of_assessment, doctor_name: bip.doctor_name, needs_attention: bip.needs_attention, updated_at: bip.updated_at },
    charts,
    goals: goals.map((g) => ({ category: g.category, plans: g.plans.map((p) => ({ id: p.id, name: p.name, status: p.status, description: p.description })) })),
    doc: shownDocument(detail),
    canManage: can(actor, "manage_bips"),
  };
}

export default function BipProfile() {
  const { bip, goals, doc, canManage, charts } = useLoaderData<typeof loader>();
  const timeZone = useActorTimeZone();
  const [params] = useSearchParams();
  return (
    <section className="card">
      <div className="page-head">
        <h1>
          {bip.patient_name} · {typeOfAssessmentLabel(bip.type_of_assessment)} {bip.needs_attention ? <span className="badge">Needs attention</span> : null}
        </h1>
        <span>
          <Link to={`/bip/show/patient/${bip.patient_id}`}>Plans of {bip.patient_name}</Link>
          {" "}
          <Link className="btn" to={`/bip/pdf/${bip.id}`}>
            PDF
          </Link>
          {canManage ? (
            <>
              {" "}
              <Link className="btn btn-primary" to={`/bip/tabbed/${bip.id}`}>
                Edit plan
              </Link>
            </>
          ) : null}
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <dl className="details">
        <dt>Client</dt>
        <dd>
          {bip.patient_name} <span className="muted">{bip.patient_identifier}</span>
        </dd>
        <dt>Doctor</dt>
        <dd>{bip.doctor_name ?? "—"}</dd>
        <dt>Updated</dt>
        <dd>{localDate(bip.updated_at, timeZone)}</dd>
      </dl>

      <section aria-labelledby="goals">
        <div className="page-head">
          <h2 id="goals">Goals</h2>
          {canManage ? (
            <Link className="btn" to={`/bip/goal/add/${bip.id}`}>
              Add goal
            </Link>
          ) : null}
        </div>
        {goals.map((g) => (
          <section key={g.category} aria-labelledby={`goals-${g.category}`}>
            <h3 id={`goals-${g.category}`}>{PLAN_CATEGORY_LABELS[g.category]}</h3>
            {g.plans.length === 0 ? (
              <p className="muted">No goals in this category.</p>
            ) : (
              <ol>
                {g.plans.map((p) => (
                  <li key={p.id}>
                    <Link to={`/bip/goal/${p.id}`}>{p.name}</Link> <span className="muted">({p.status})</span>
                    {charts[p.id] ? <BehaviorChart model={charts[p.id]!} id={`goal-chart-${p.id}`} caption={`${p.name} — the last 52 weeks`} /> : null}
                  </li>
                ))}
              </ol>
            )}
          </section>
        ))}
      </section>

      <DocumentView doc={doc} />
    </section>
  );
}
