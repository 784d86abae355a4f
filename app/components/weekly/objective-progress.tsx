import { badgeTone, objectiveLabels, type ChartInput } from "~/domain/chart";
import { ScrollTable } from "~/components/ui/scroll-table";

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

export function ObjectiveProgress({ goalName, objectives, latest, category }: { goalName: string; objectives: ChartInput["objectives"]; latest: { value: number; weekEnd: string } | null; category: string }) {
  if (!objectives.length) return <p className="muted">No objectives yet.</p>;
  const labels = objectiveLabels(objectives);
  return (
    <ScrollTable caption={`Objectives of ${goalName}`}>
      <thead>
        <tr>
          <th>Objective</th>
          <th>Name</th>
          <th>Status</th>
          <th>Target</th>
          <th>End date</th>
          <th>Latest vs target</th>
        </tr>
      </thead>
      <tbody>
        {objectives.map((o) => {
          const tone = badgeTone(latest?.value ?? null, o.target, category);
          const label = labels.get(o.id);
          return (
            <tr key={o.id} data-testid={`objective-${o.id}`}>
              <td>
                <strong className="obj-chip" style={{ color: label?.color }}>{label?.label ?? o.type}</strong>
              </td>
              <td>{o.name ?? "—"}</td>
              <td>{o.status}</td>
              <td>{o.target ?? "—"}</td>
              <td>{o.endDate ?? "—"}</td>
              <td>
                {latest === null ? (
                  <span className="muted">No data yet</span>
                ) : (
                  <span className="badge" data-tone={tone} style={{ background: TONE_STYLE[tone].background }} title={`Latest value ${latest.value} (week ending ${latest.weekEnd})`}>
                    {`${latest.value} vs ${o.target ?? "—"} · ${TONE_STYLE[tone].label}`}
                  </span>
                )}
              </td>
            </tr>
          );
        })}
      </tbody>
    </ScrollTable>
  );
}
