import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData } from "@remix-run/react";
import { BillingListScreen } from "~/components/billing/billing-list-screen";
import { ClientReportScreen } from "~/components/billing/client-report-screen";
import { EmployeeByClientQuery } from "~/domain/client-reports";
import { parseWith } from "~/domain/validation";
import { billingListLoader, reportAction, reportData } from "~/services/billing-screens.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Employee by client · Baseline" }];

/**
 * An employee's rows for one client (platform §2 client-report/employee-by-client; decision 030):
 * ?patient_id=…&employee_id=… shows the report by client with only that employee's notes; without a client
 * it lists the clients with notes of the employee (`provider_id` or `employee_id`) in the period. No employee is
 * Provider "All" (clinical §5: an empty filter is left out): every provider's clients in the actor's locations,
 * and a client's report with every provider's notes (decision 030, stop 41).
 */
export const handle = { guard: "manage_claims" };

export async function loader(args: LoaderFunctionArgs) {
  await requirePermission(args.request, args.context, "manage_claims");
  const url = new URL(args.request.url);
  const parsed = parseWith(EmployeeByClientQuery, Object.fromEntries(url.searchParams));
  const q = parsed.ok ? parsed.data : null;
  const patientId = q?.patient_id || null;
  const employeeId = q?.employee_id || q?.provider_id || null;
  if (patientId !== null) return { mode: "report" as const, employeeId, ...(await reportData(args.request, args.context, patientId, employeeId)) };
  const list = new URL(url);
  list.searchParams.delete("employee_id");
  // A malformed client or employee: the list with its message and no client (the employee's beside Provider).
  const refused = parsed.ok ? null : Object.fromEntries(Object.entries(parsed.errors).map(([k, m]) => [k === "employee_id" ? "provider_id" : k, m]));
  if (!refused && employeeId !== null) list.searchParams.set("provider_id", String(employeeId));
  const data = await billingListLoader({ ...args, request: new Request(list, args.request) }, refused);
  return { mode: "list" as const, employeeId, ...data };
}

export const action = reportAction;

export default function EmployeeByClient() {
  const data = useLoaderData<typeof loader>();
  const employee = data.employeeId === null ? "" : `employee_id=${data.employeeId}`;
  if (data.mode === "report") return <ClientReportScreen title="Employee by client" clientInQuery backTo={`/client-report/employee-by-client${employee ? `?${employee}` : ""}`} />;
  return <BillingListScreen title="Employee by client" rowHref={(r, reportQuery) => `/client-report/employee-by-client?patient_id=${r.patient_id}${employee ? `&${employee}` : ""}&${reportQuery}`} />;
}
