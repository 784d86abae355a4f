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
 * it lists the clients with notes of the employee (the signed-in user by default) in the period.
 */
export const handle = { guard: "manage_claims" };

export async function loader(args: LoaderFunctionArgs) {
  const { actor } = await requirePermission(args.request, args.context, "manage_claims");
  const url = new URL(args.request.url);
  const parsed = parseWith(EmployeeByClientQuery, Object.fromEntries(url.searchParams));
  const q = parsed.ok ? parsed.data : null;
  const patientId = q?.patient_id || null;
  const employeeId = q?.employee_id || q?.provider_id || actor.id;
  if (patientId !== null) return { mode: "report" as const, employeeId, ...(await reportData(args.request, args.context, patientId, employeeId)) };
  const list = new URL(url);
  list.searchParams.delete("employee_id");
  // A malformed client or employee: the list with its message and no client (the employee's beside Provider).
  const refused = parsed.ok ? null : Object.fromEntries(Object.entries(parsed.errors).map(([k, m]) => [k === "employee_id" ? "provider_id" : k, m]));
  if (!refused) list.searchParams.set("provider_id", String(employeeId));
  const data = await billingListLoader({ ...args, request: new Request(list, args.request) }, refused);
  return { mode: "list" as const, employeeId, ...data };
}

export const action = reportAction;

export default function EmployeeByClient() {
  const data = useLoaderData<typeof loader>();
  if (data.mode === "report") return <ClientReportScreen title="Employee by client" backTo={`/client-report/employee-by-client?employee_id=${data.employeeId}`} />;
  return <BillingListScreen title="Employee by client" rowHref={(r, reportQuery) => `/client-report/employee-by-client?patient_id=${r.patient_id}&employee_id=${data.employeeId}&${reportQuery}`} />;
}
