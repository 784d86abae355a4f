import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { REPORT_DEFINITIONS } from "~/domain/report-registry";
import { REPORT_KEYS, type ReportKey } from "~/domain/reports";
import { REPORT_RUNNERS } from "~/models/reports/index.server";
import { requirePermission } from "./guard.server";

/** The /reports index: guard (manage_notes), then the reports that have a definition and a query. No data read. */
export async function availableReports({ request, context }: LoaderFunctionArgs) {
  await requirePermission(request, context, "manage_notes");
  const available: ReportKey[] = REPORT_KEYS.filter((k) => REPORT_DEFINITIONS[k] && REPORT_RUNNERS[k]);
  return { available };
}
