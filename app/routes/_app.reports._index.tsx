import type { MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { REPORT_KEYS, REPORT_TITLES } from "~/domain/reports";
import { availableReports } from "~/services/report-index.server";

/** /reports (platform §2 reports base): the twelve reports. manage_notes. */
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
        {REPORT_KEYS.map((key) => (
          <li key={key}>
            {available.includes(key) ? <Link to={`/reports/${key}`}>{REPORT_TITLES[key].title}</Link> : <span>{REPORT_TITLES[key].title} (not available yet)</span>}
            <br />
            <small>{REPORT_TITLES[key].description}</small>
          </li>
        ))}
      </ul>
    </section>
  );
}
