import type { MetaFunction } from "@remix-run/cloudflare";
import { ClientReportScreen } from "~/components/billing/client-report-screen";
import { reportAction, reportLoader } from "~/services/billing-screens.server";

// The client is named in the title (a staff screen; decision 021, 2026-11-27 (stop 29)): two clients' tabs differ.
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Billing by client · ${data?.report.patient.full_name ?? "Client"} · Baseline` }];
/** Billing by client (clinical §2 report-by-client; decision 030): manage_claims, the client's location. */
export const handle = { guard: "manage_claims" };
export const loader = reportLoader;
export const action = reportAction;

export default function BillingByClient() {
  return <ClientReportScreen title="Billing by client" />;
}
