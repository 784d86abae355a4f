import type { MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { REPORT_TITLES } from "~/domain/reports";
import { availableReports } from "~/services/report-index.server";

/** /reports (platform §2 reports base): the reports the user may open (payroll also needs manage_employees, location-cpt manage_claims). manage_notes. */
export const meta: MetaFunction = () => [{ title: "Reports · Baseline" }];
export const handle = { guard: "manage_notes" };
export const loader = availableReports;

export default function ReportsIndex() {
  const { available } = useLoaderData<typeof loader>();
  return (
    <section className="card">
      <div className="page-head">
        <h1>Reports</h1>
      </div>
      <ul className="report-index">
        {available.map((key) => (
          <li key={key}>
            <Link to={`/reports/${key}`}>{REPORT_TITLES[key].title}</Link>
            <br />
            <small>{REPORT_TITLES[key].description}</small>
          </li>
        ))}
      </ul>
    </section>
  );
}
