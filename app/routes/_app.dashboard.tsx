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
 * user's locations, and each shows only with the view permission of what it counts (decision 007,
 * 2026-11-27); a user who may see none of them is told so. Also served at dashboard/admin and dashboard/dashboard (platform §2 routes), which
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
    yearChart: yearAnswer ? buildYearChartModel(year, yearAnswer.query_patients_by_gender) : null,
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
        {/* Staff get the spec's workday greeting (P §2); a parent or guardian the family's wording (decision 040). */}
        {data.kind === "parent" ? (
          <>
            <h1>Good day, {data.name}</h1>
            <p>Here is what is coming up for your children.</p>
          </>
        ) : (
          <>
            <h1>Good Day, {data.name}</h1>
            <p>Have a nice day at work.</p>
          </>
        )}
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
        <StaffHome data={data} />
      )}
    </>
  );
}

type StaffData = Extract<ReturnType<typeof useLoaderData<typeof loader>>, { kind: "staff" }>;

/** The staff dashboard: the counts, the recent clients and the year chart the user may see. */
function StaffHome({ data }: { data: StaffData }) {
  const d = data.dashboard;
  const locations = <p className="muted">Locations: {d.locations.map((l) => l.title).join(", ") || "none"}</p>;
  const counts = d.total_bips !== null || d.total_patients !== null || d.total_noteRbts !== null || d.total_employees !== null;
  return (
    <>
      {counts ? (
        <section className="stats" aria-label="Totals">
          {d.total_bips !== null ? (
            <div className="stat">
              <span className="stat-label">Plans</span>
              <strong data-testid="total-bips">{d.total_bips}</strong>
              <Trend current={d.num_bips_current!} before={d.num_bips_before!} percent={d.porcentaje_d!} />
            </div>
          ) : null}
          {d.total_patients !== null ? (
            <div className="stat">
              <span className="stat-label">Patients</span>
              <strong data-testid="total-patients">{d.total_patients}</strong>
              <Trend current={d.num_patients_current!} before={d.num_patients_before!} percent={d.porcentajeDP!} />
            </div>
          ) : null}
          {d.total_noteRbts !== null ? (
            <>
              <div className="stat">
                <span className="stat-label">RBT notes</span>
                <strong data-testid="total-note-rbts">{d.total_noteRbts}</strong>
              </div>
              <div className="stat">
                <span className="stat-label">BCBA notes</span>
                <strong data-testid="total-note-bcbas">{d.total_noteBcbas}</strong>
              </div>
            </>
          ) : null}
          {d.total_employees !== null ? (
            <div className="stat">
              <span className="stat-label">Employees</span>
              <strong data-testid="total-employees">{d.total_employees}</strong>
            </div>
          ) : null}
          {d.total_bips_attention !== null ? (
            <div className="stat">
              {/* The headline is every flagged plan the list shows; the month figures are the trend, as on the cards beside it. */}
              <span className="stat-label">
                <Link to="/bip/attention">Plans needing attention</Link>
              </span>
              <strong data-testid="total-bips-attention">{d.total_bips_attention}</strong>
              <Trend current={d.num_bips_attention_current!} before={d.num_bips_attention_before!} percent={d.porcentaje_da!} />
            </div>
          ) : null}
        </section>
      ) : null}
      {d.recent_patients ? (
        <section className="card">
          <h2>Recent patients</h2>
          <DataTable
            caption="Recent patients"
            rows={d.recent_patients}
            columns={[
              { header: "Patient", cell: (p) => `${p.first_name} ${p.last_name}` },
              { header: "Identifier", cell: (p) => p.patient_identifier },
              { header: "Status", cell: (p) => p.status },
              { header: "Added", cell: (p) => p.added_on },
            ]}
          />
          {locations}
        </section>
      ) : (
        <section className="card">
          {counts ? null : <p data-testid="dashboard-nothing">Nothing to show here: your role gives no access to plans, clients, notes or employees.</p>}
          {locations}
        </section>
      )}
      {data.yearChart ? (
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
      ) : null}
    </>
  );
}
