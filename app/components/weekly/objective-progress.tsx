import { badgeTone, objectiveLabels, type ChartInput } from "~/domain/chart";
import { formatMeasure } from "~/domain/measure";
import { DataTable, type Column } from "~/components/ui/data-list";

/**
 * A goal's objectives with their status and a badge comparing the latest value shown on the chart
 * with each target (badge colour rule, clinical §9: badgeTone in app/domain/chart.ts). For a maladaptive
 * goal lower is better, so the goal's category decides which way "behind" points.
 */
const TONE_STYLE: Record<ReturnType<typeof badgeTone>, { background: string; label: string }> = {
  success: { background: "var(--success)", label: "on track" },
  warning: { background: "var(--warning)", label: "behind" },
  danger: { background: "var(--danger)", label: "far behind" },
};

type Objective = ChartInput["objectives"][number];

export function ObjectiveProgress({ goalName, objectives, latest, category }: { goalName: string; objectives: ChartInput["objectives"]; latest: { value: number; weekEnd: string } | null; category: string }) {
  const labels = objectiveLabels(objectives);
  const columns: Column<Objective>[] = [
    {
      header: "Objective",
      cell: (o) => (
        <strong className="obj-chip" style={{ color: labels.get(o.id)?.color }}>
          {labels.get(o.id)?.label ?? o.type}
        </strong>
      ),
    },
    { header: "Name", cell: (o) => o.name ?? "—" },
    { header: "Status", cell: (o) => o.status },
    { header: "Target", cell: (o) => o.target ?? "—" },
    { header: "End date", cell: (o) => o.endDate ?? "—" },
    { header: "Latest vs target", cell: (o) => <LatestBadge latest={latest} target={o.target} category={category} /> },
  ];
  return <DataTable rows={objectives} columns={columns} empty="No objectives yet." emptyClassName="muted" caption={`Objectives of ${goalName}`} rowData={(o) => ({ "data-testid": `objective-${o.id}` })} />;
}

function LatestBadge({ latest, target, category }: { latest: { value: number; weekEnd: string } | null; target: Objective["target"]; category: string }) {
  if (latest === null) return <span className="muted">No data yet</span>;
  const tone = badgeTone(latest.value, target, category);
  return (
    <span className="badge" data-tone={tone} style={{ background: TONE_STYLE[tone].background }} title={`Latest value ${formatMeasure(latest.value)} (week ending ${latest.weekEnd})`}>
      {`${formatMeasure(latest.value)} vs ${target ?? "—"} · ${TONE_STYLE[tone].label}`}
    </span>
  );
}
