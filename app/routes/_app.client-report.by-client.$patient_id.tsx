import type { MetaFunction } from "@remix-run/cloudflare";
import { ClientReportScreen } from "~/components/billing/client-report-screen";
import { reportAction, reportLoader } from "~/services/billing-screens.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Report by client · ${data?.report.patient.full_name ?? "Client"} · Baseline` }];
/** The spec's other address of the report-by-client screen (platform §2): the same loader and action as /billing/by-client. */
export const handle = { guard: "manage_claims" };
export const loader = reportLoader;
export const action = reportAction;

export default function ClientReportByClient() {
  return <ClientReportScreen title="Report by client" />;
}
