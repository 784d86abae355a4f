import type { LoaderFunctionArgs } from "@remix-run/cloudflare";
import { REPORT_KEYS, type ReportKey } from "~/domain/reports";
import { requirePermission } from "./guard.server";
import { canOpenReport } from "./report-screens.server";

/**
 * The /reports index: guard (manage_notes), then the reports this user may open (the screens' own check, so a
 * listed report never answers 403: platform §2, menus show only what the user's permissions open). No data read.
 */
export async function availableReports({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_notes");
  const available: ReportKey[] = REPORT_KEYS.filter((k) => canOpenReport(actor, k));
  return { available };
}
