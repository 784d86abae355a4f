import type { ReportKey } from "~/domain/reports";
import type { ReportRunner } from "~/services/report-screens.server";
import { runAccessReport, runLogsReport } from "./audit-reports.server";
import { runClientProjectionReport, runPasReport } from "./authorizations.server";
import { runClientEligibilityReport } from "./eligibility.server";
import { runExpirationDatesReport } from "./expiration-dates.server";
import { runCaseloadReport, runHoursReport, runLocationCptReport, runPayrollReport, runSupervisionReport, runTicketSupportReport } from "./operations.server";

/**
 * The query of each report (decision 038), by key; its definition is in app/domain/report-registry.ts.
 * A key without a runner answers 404 and shows on the index without a link.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const REPORT_RUNNERS: Partial<Record<ReportKey, ReportRunner<any, any>>> = {
  logs: runLogsReport,
  access: runAccessReport,
  pas: runPasReport,
  "client-projection": runClientProjectionReport,
  "client-eligibility": runClientEligibilityReport,
  "expiration-dates": runExpirationDatesReport,
  payroll: runPayrollReport,
  hours: runHoursReport,
  "bcba-report": runSupervisionReport,
  "location-cpt": runLocationCptReport,
  "provider-clients": runCaseloadReport,
  "ticket-support": runTicketSupportReport,
};
