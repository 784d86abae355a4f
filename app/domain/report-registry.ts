import type { ReportDefinition, ReportKey } from "./reports";
import { accessReport, logsReport } from "./report-defs/audit";
import { clientProjectionReport, pasReport } from "./report-defs/authorizations";
import { clientEligibilityReport } from "./report-defs/eligibility";
import { expirationDatesReport } from "./report-defs/expiration-dates";
import { caseloadReport, hoursReport, locationCptReport, payrollReport, supervisionReport, ticketSupportReport } from "./report-defs/operations";

/**
 * The definition of each report (decision 038), by key: filters and the one column list of the screen and
 * the CSV. The server's query for each is in app/models/reports/index.server.ts.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export const REPORT_DEFINITIONS: Partial<Record<ReportKey, ReportDefinition<any, any>>> = {
  logs: logsReport,
  access: accessReport,
  pas: pasReport,
  "client-projection": clientProjectionReport,
  "client-eligibility": clientEligibilityReport,
  "expiration-dates": expirationDatesReport,
  payroll: payrollReport,
  hours: hoursReport,
  "bcba-report": supervisionReport,
  "location-cpt": locationCptReport,
  "provider-clients": caseloadReport,
  "ticket-support": ticketSupportReport,
};
