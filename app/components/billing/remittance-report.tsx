import { DataTable, type Column } from "~/components/ui/data-list";
import { money } from "~/domain/billing";
import type { LineStatus } from "~/domain/x12-835";

/**
 * What a payer did with each service line of a remittance: paid, partly paid (with the adjustments), put on the
 * patient (nothing paid: the patient's responsibility) or denied, with the CARC and RARC codes and their meaning for
 * the common codes (decision 033). Shared by the import check and the remittance screen; plain HTML, no script.
 */

export interface AdjustmentView {
  group: string;
  group_text: string;
  reason: string;
  amount_cents: number;
  meaning: string | null;
}
export interface RemarkView {
  code: string;
  meaning: string | null;
}
export interface LineView {
  line_number: number | null;
  service_date: string | null;
  cpt_code: string;
  modifiers: string | string[];
  units: number;
  charge_cents: number;
  paid_cents: number;
  status: LineStatus;
  adjustments: AdjustmentView[];
  remarks: RemarkView[];
}

export const LINE_STATUS_TEXT: Record<LineStatus, string> = { paid: "Paid", partial: "Partly paid", patient: "Patient responsibility", denied: "Denied" };

export function Adjustments({ adjustments, remarks }: { adjustments: AdjustmentView[]; remarks: RemarkView[] }) {
  if (!adjustments.length && !remarks.length) return <>—</>;
  return (
    <ul className="plain-list">
      {adjustments.map((a, i) => (
        <li key={`a${i}`}>
          <abbr title={a.group_text}>{a.group}</abbr>-{a.reason} {money(a.amount_cents)}
          {a.meaning ? `: ${a.meaning}` : ""}
        </li>
      ))}
      {remarks.map((r, i) => (
        <li key={`r${i}`}>
          {r.code}
          {r.meaning ? `: ${r.meaning}` : ""}
        </li>
      ))}
    </ul>
  );
}

/** A claim's own adjustments (CAS right after CLP): nothing when it has none. */
export function ClaimAdjustments({ adjustments }: { adjustments: AdjustmentView[] }) {
  if (!adjustments.length) return null;
  return (
    <div>
      <p>Adjustments of the claim itself (not of a line), taken off what its lines were paid:</p>
      <Adjustments adjustments={adjustments} remarks={[]} />
    </div>
  );
}

const modifierText = (m: string | string[]) => (Array.isArray(m) ? m.join(" ") : m.split("-").filter(Boolean).join(" ")) || "—";

export function RemittanceLines({ lines, caption }: { lines: LineView[]; caption: string }) {
  const columns: Column<LineView>[] = [
    { header: "Line", cell: (l) => l.line_number ?? "—" },
    { header: "Date of service", cell: (l) => l.service_date ?? "—" },
    { header: "CPT", cell: (l) => l.cpt_code },
    { header: "Modifiers", cell: (l) => modifierText(l.modifiers) },
    { header: "Units", cell: (l) => l.units },
    { header: "Charged", cell: (l) => money(l.charge_cents) },
    { header: "Paid", cell: (l) => money(l.paid_cents) },
    { header: "Status", cell: (l) => <span className={`line-status line-status-${l.status}`}>{LINE_STATUS_TEXT[l.status]}</span> },
    { header: "Adjustments and remarks", cell: (l) => <Adjustments adjustments={l.adjustments} remarks={l.remarks} /> },
  ];
  return <DataTable rows={lines} columns={columns} caption={caption} />;
}
