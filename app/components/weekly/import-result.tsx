import type { ImportCheck, ImportCheckRow } from "~/models/weekly-reports.server";
import { DataTable, type Column } from "~/components/ui/data-list";
import { formatMeasure } from "~/domain/measure";
import type { ImportStatus } from "~/domain/weekly-reports";

/**
 * The check of an uploaded sheet (POST /v2/weekly-reports/check-excel, and the import screen): each
 * row with what will happen to it — imported, refused and why, or overwriting a week that has a report.
 */
const STATUS_LABEL = { valid: "Will be imported", invalid: "Invalid", overwrite: "Week already has a report", unchanged: "Week already has this value" } satisfies Record<ImportStatus, string>;

/**
 * What the week holds now, for a week that has a report: the value and total units, and whether an overwrite keeps
 * the units (the row carries none: decision 029) or replaces them.
 */
function stored(r: ImportCheckRow): string {
  if (r.status !== "overwrite" && r.status !== "unchanged") return "";
  const units = r.current_total_units === null ? "no total units" : `${formatMeasure(r.current_total_units)} total units`;
  const note = r.status === "overwrite" && r.current_total_units !== null ? (r.total_units === null ? "; the sheet has no total units, so these stay" : "; both are replaced") : "";
  return ` (now ${formatMeasure(r.current_value)}, ${units}${note})`;
}

const COLUMNS: Column<ImportCheckRow>[] = [
  { header: "Row", cell: (r) => r.row },
  { header: "Week Ending", cell: (r) => r.raw.week_end || "—" },
  { header: "Value", cell: (r) => r.raw.value || "—" },
  { header: "Total Units", cell: (r) => r.raw.total_units || "—" },
  { header: "Result", cell: (r) => `${STATUS_LABEL[r.status]}${r.reason ? `: ${r.reason}` : ""}${stored(r)}` },
];

export function ImportResult({ check }: { check: ImportCheck }) {
  return (
    <>
      <p data-testid="import-summary">
        <strong>{check.valid}</strong> valid, <strong>{check.invalid}</strong> invalid, <strong>{check.overwrite}</strong> would overwrite an existing week
        {check.unchanged ? (
          <>
            , <strong>{check.unchanged}</strong> already {check.unchanged === 1 ? "has" : "have"} the same value
          </>
        ) : null}
        .
      </p>
      <DataTable rows={check.rows} columns={COLUMNS} rowKey={(r) => r.row} empty={null} keepHeader caption="Rows of the import" rowData={(r) => ({ "data-status": r.status })} />
    </>
  );
}
