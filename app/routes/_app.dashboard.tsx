import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { YearChart } from "~/components/charts/year-chart";
import { DataTable } from "~/components/ui/data-list";
import { buildYearChartModel, YearQuery } from "~/domain/dashboard";
import { greetingName } from "~/domain/shell";
import { parseWith } from "~/domain/validation";
import { actorYear, getDashboardWithYear } from "~/models/dashboard.server";
import { listChildrenOfParent } from "~/models/parents.server";
import { auditClientsRead } from "~/services/audit.server";
import { requirePrincipal } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Dashboard · Baseline" }];
/**
 * Home needs no permission (platform §2 sidebar); the counts and the year chart are scoped to the
 * user's locations. Also served at dashboard/admin and dashboard/dashboard (platform §2 routes), which
 * re-export this module. `?year=` picks the chart's year (the year answer's rule: 2000 … 2100).
 */
export const handle = { guard: "principal" };

/** The years offered in the chart's year picker: this year and the four before it. */
const YEARS_OFFERED = 5;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, auditTail } = await requirePrincipal(request, context);
  const name = greetingName(actor);
  if (actor.kind === "parent") {
    // The parent's own children (names only); the read is audited with the parent as actor (decision 040).
    const children = await listChildrenOfParent(context.app.db, actor);
    await auditClientsRead(context.app.db, { actor, ip: context.app.ip }, "portal_children", children.map((c) => c.id), auditTail);
    return { kind: "parent" as const, name, children };
  }
  const now = context.app.now();
  const thisYear = actorYear(actor, now);
  const asked = new URL(request.url).searchParams.get("year");
  const parsed = asked === null ? null : parseWith(YearQuery, { year: asked });
  const year = parsed?.ok ? (parsed.data.year ?? thisYear) : thisYear;
  const { dashboard, yearAnswer } = await getDashboardWithYear(context.app.db, actor, now, context.app.ip, year);
  const years = Array.from({ length: YEARS_OFFERED }, (_, i) => thisYear - i);
  if (!years.includes(year)) years.push(year);
  return {
    kind: "staff" as const,
    name,
    dashboard,
    yearChart: buildYearChartModel(year, yearAnswer.query_patients_by_gender),
    years,
    yearError: parsed && !parsed.ok ? (Object.values(parsed.errors)[0] ?? null) : null,
  };
}

function Trend({ current, before, percent }: { current: number; before: number; percent: number }) {
  const sign = percent > 0 ? "+" : "";
  return (
    <small className={percent >= 0 ? "trend up" : "trend down"}>
      {current} this month · {before} last month ({sign}
      {percent}%)
    </small>
  );
}

export default function Dashboard() {
  const data = useLoaderData<typeof loader>();
  return (
    <>
      <section className="greeting">
        <h1>Good Day, {data.name}</h1>
        <p>Have a nice day at work.</p>
        <blockquote>“Every small step forward is progress worth celebrating.”</blockquote>
      </section>
      {data.kind === "parent" ? (
        <section className="card">
          <h2>Your children</h2>
          {data.children.length === 0 ? (
            <p>No children are linked to your account yet.</p>
          ) : (
            <ul>
              {data.children.map((c) => (
                <li key={c.id}>
                  <Link to={`/portal/child/${c.id}`}>
                    {c.first_name} {c.last_name}
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </section>
      ) : (
        <>
          <section className="stats" aria-label="Totals">
            <div className="stat">
              <span className="stat-label">Plans</span>
              <strong data-testid="total-bips">{data.dashboard.total_bips}</strong>
              <Trend current={data.dashboard.num_bips_current} before={data.dashboard.num_bips_before} percent={data.dashboard.porcentaje_d} />
            </div>
            <div className="stat">
              <span className="stat-label">Patients</span>
              <strong data-testid="total-patients">{data.dashboard.total_patients}</strong>
              <Trend current={data.dashboard.num_patients_current} before={data.dashboard.num_patients_before} percent={data.dashboard.porcentajeDP} />
            </div>
            <div className="stat">
              <span className="stat-label">RBT notes</span>
              <strong data-testid="total-note-rbts">{data.dashboard.total_noteRbts}</strong>
            </div>
            <div className="stat">
              <span className="stat-label">BCBA notes</span>
              <strong data-testid="total-note-bcbas">{data.dashboard.total_noteBcbas}</strong>
            </div>
            <div className="stat">
              <span className="stat-label">Employees</span>
              <strong data-testid="total-employees">{data.dashboard.total_employees}</strong>
            </div>
            <div className="stat">
              <span className="stat-label">Plans needing attention</span>
              <strong>{data.dashboard.num_bips_attention_current}</strong>
              <Trend current={data.dashboard.num_bips_attention_current} before={data.dashboard.num_bips_attention_before} percent={data.dashboard.porcentaje_da} />
            </div>
          </section>
          <section className="card">
            <h2>Recent patients</h2>
            <DataTable
              caption="Recent patients"
              rows={data.dashboard.recent_patients}
              columns={[
                { header: "Patient", cell: (p) => `${p.first_name} ${p.last_name}` },
                { header: "Identifier", cell: (p) => p.patient_identifier },
                { header: "Status", cell: (p) => p.status },
                { header: "Added", cell: (p) => p.created_at.slice(0, 10) },
              ]}
            />
            <p className="muted">Locations: {data.dashboard.locations.map((l) => l.title).join(", ") || "none"}</p>
          </section>
          <section className="card" aria-labelledby="year-chart-heading">
            <h2 id="year-chart-heading">New patients by month</h2>
            <Form method="get" className="search-form" aria-label="Chart year">
              <label htmlFor="dashboard-year">Year</label>
              <select id="dashboard-year" name="year" defaultValue={String(data.yearChart.year)}>
                {data.years.map((y) => (
                  <option key={y} value={y}>
                    {y}
                  </option>
                ))}
              </select>
              <button type="submit" className="btn">
                Show
              </button>
            </Form>
            {data.yearError ? (
              <p className="alert alert-info" role="status">
                {data.yearError} Showing {data.yearChart.year}.
              </p>
            ) : null}
            <YearChart model={data.yearChart} id="year-chart" />
          </section>
        </>
      )}
    </>
  );
}
