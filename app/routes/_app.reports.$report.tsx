import type { MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { ReportScreen } from "~/components/reports/report-screen";
import type { Paged } from "~/domain/paging";
import { REPORT_DEFINITIONS } from "~/domain/report-registry";
import { REPORT_TITLES, isReportKey } from "~/domain/reports";
import { reportScreenLoader } from "~/services/report-screens.server";

/** One report (platform §2 reports routes; decision 038): /reports/logs, /reports/access, … manage_notes. */
export const meta: MetaFunction = ({ params }) => [
  {
    title: `${isReportKey(params.report) ? REPORT_TITLES[params.report].title : "Reports"} · Reports · Baseline`,
  },
];
export const handle = { guard: "manage_notes" };
export const loader = reportScreenLoader;

export default function ReportRoute() {
  const d = useLoaderData<typeof loader>();
  const def = REPORT_DEFINITIONS[d.key]!;
  return <ReportScreen def={def} values={d.values} errors={d.errors} options={d.options} page={d.page as unknown as Paged<object>} notes={d.notes} chart={d.chart} pinned={d.pinned} links={d.links} />;
}
