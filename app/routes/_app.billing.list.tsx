import type { MetaFunction } from "@remix-run/cloudflare";
import { BillingListScreen } from "~/components/billing/billing-list-screen";
import { Link } from "~/components/ui/link";
import { billingListLoader } from "~/services/billing-screens.server";

export const meta: MetaFunction = () => [{ title: "Billing · Baseline" }];
/** The billing list (platform §2 billing, billing/list; decision 030): manage_claims, the actor's locations. */
export const handle = { guard: "manage_claims" };
export const loader = billingListLoader;

export default function BillingListRoute() {
  // The pre-billing scrubber (decision 034) and employee by client (decision 030) need manage_claims, as this list does.
  const links = (
    <>
      <Link to="/billing/scrubber">Pre-billing check</Link> <Link to="/client-report/employee-by-client">Employee by client</Link>
    </>
  );
  return <BillingListScreen title="Billing" rowHref={(r, reportQuery) => `/billing/by-client/${r.patient_id}?${reportQuery}`} links={links} />;
}
