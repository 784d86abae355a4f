import type { ImportCheck, ImportCheckRow } from "~/models/weekly-reports.server";
import { DataTable, type Column } from "~/components/ui/data-list";

/**
 * The check of an uploaded sheet (POST /v2/weekly-reports/check-excel, and the import screen): each
 * row with what will happen to it — imported, refused and why, or overwriting a week that has a report.
 */
const STATUS_LABEL = { valid: "Will be imported", invalid: "Invalid", overwrite: "Week already has a report" } as const;

const COLUMNS: Column<ImportCheckRow>[] = [
  { header: "Row", cell: (r) => r.row },
  { header: "Week Ending", cell: (r) => r.raw.week_end || "—" },
  { header: "Value", cell: (r) => r.raw.value || "—" },
  { header: "Total Units", cell: (r) => r.raw.total_units || "—" },
  { header: "Result", cell: (r) => `${STATUS_LABEL[r.status]}${r.reason ? `: ${r.reason}` : ""}${r.status === "overwrite" ? ` (now ${r.current_value})` : ""}` },
];

export function ImportResult({ check }: { check: ImportCheck }) {
  return (
    <>
      <p data-testid="import-summary">
        <strong>{check.valid}</strong> valid, <strong>{check.invalid}</strong> invalid, <strong>{check.overwrite}</strong> would overwrite an existing week.
      </p>
      <DataTable rows={check.rows} columns={COLUMNS} rowKey={(r) => r.row} empty={null} keepHeader caption="Rows of the import" rowData={(r) => ({ "data-status": r.status })} />
    </>
  );
}
