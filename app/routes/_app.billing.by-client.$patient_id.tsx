import type { MetaFunction } from "@remix-run/cloudflare";
import { ClientReportScreen } from "~/components/billing/client-report-screen";
import { reportAction, reportLoader } from "~/services/billing-screens.server";

export const meta: MetaFunction = () => [{ title: "Billing by client · Baseline" }];
/** Billing by client (clinical §2 report-by-client; decision 030): manage_claims, the client's location. */
export const handle = { guard: "manage_claims" };
export const loader = reportLoader;
export const action = reportAction;

export default function BillingByClient() {
  return <ClientReportScreen title="Billing by client" />;
}
