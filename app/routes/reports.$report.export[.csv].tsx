import { reportCsvLoader } from "~/services/report-screens.server";

/** GET /reports/:report/export.csv: the report's matching rows as a CSV attachment (decision 038). manage_notes. */
export const handle = { guard: "manage_notes" };
export const loader = reportCsvLoader;
