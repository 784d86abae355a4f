import type { ImportCheck } from "~/models/weekly-reports.server";
import { ScrollTable } from "~/components/ui/scroll-table";

/**
 * The check of an uploaded sheet (POST /v2/weekly-reports/check-excel, and the import screen): each
 * row with what will happen to it — imported, refused and why, or overwriting a week that has a report.
 */
const STATUS_LABEL = { valid: "Will be imported", invalid: "Invalid", overwrite: "Week already has a report" } as const;

export function ImportResult({ check }: { check: ImportCheck }) {
  return (
    <>
      <p data-testid="import-summary">
        <strong>{check.valid}</strong> valid, <strong>{check.invalid}</strong> invalid, <strong>{check.overwrite}</strong> would overwrite an existing week.
      </p>
      <ScrollTable caption="Rows of the import">
        <thead>
          <tr>
            <th>Row</th>
            <th>Week Ending</th>
            <th>Value</th>
            <th>Total Units</th>
            <th>Result</th>
          </tr>
        </thead>
        <tbody>
          {check.rows.map((r) => (
            <tr key={r.row} data-status={r.status}>
              <td>{r.row}</td>
              <td>{r.raw.week_end || "—"}</td>
              <td>{r.raw.value || "—"}</td>
              <td>{r.raw.total_units || "—"}</td>
              <td>{`${STATUS_LABEL[r.status]}${r.reason ? `: ${r.reason}` : ""}${r.status === "overwrite" ? ` (now ${r.current_value})` : ""}`}</td>
            </tr>
          ))}
        </tbody>
      </ScrollTable>
    </>
  );
}
