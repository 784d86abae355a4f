import { Link } from "~/components/ui/link";
import { actionsColumn, DataTable, type Column } from "~/components/ui/data-list";
import { useActorTimeZone } from "~/components/shell/actor-time-zone";
import { typeOfAssessmentLabel } from "~/domain/bip-document";
import { localDate } from "~/domain/time";

/** BIP rows as the list, attention and client screens show them (summary rows of listBips). */
export interface BipRowView {
  id: number;
  patient_id: number;
  patient_identifier: string;
  patient_name: string;
  type_of_assessment: string;
  doctor_name: string | null;
  goals_count: number;
  needs_attention: boolean;
  created_at: string;
  updated_at: string;
}

export function BipTable({ rows, canManage, showClient = true, empty, caption }: { rows: readonly BipRowView[]; canManage: boolean; showClient?: boolean; empty?: string; caption: string }) {
  const timeZone = useActorTimeZone();
  const columns: Column<BipRowView>[] = [
    {
      header: "Client",
      when: showClient,
      cell: (b) => (
        <>
          <Link to={`/bip/show/patient/${b.patient_id}`}>{b.patient_name}</Link> <span className="muted">{b.patient_identifier}</span>
        </>
      ),
    },
    { header: "Type", cell: (b) => typeOfAssessmentLabel(b.type_of_assessment) },
    { header: "Doctor", cell: (b) => b.doctor_name ?? "—" },
    { header: "Goals", cell: (b) => b.goals_count },
    // Created is the day the list's From/To filter on (decision 039); Updated the last change.
    { header: "Created", cell: (b) => localDate(b.created_at, timeZone) },
    { header: "Updated", cell: (b) => localDate(b.updated_at, timeZone) },
    { header: "Attention", cell: (b) => (b.needs_attention ? <span className="badge">Needs attention</span> : "—") },
    actionsColumn((b) => [
      <Link key="view" to={`/bip/profile/${b.id}`} aria-label={`View the plan of ${b.patient_name}, ${typeOfAssessmentLabel(b.type_of_assessment)}`}>
        View
      </Link>,
      canManage ? (
        <Link key="edit" to={`/bip/tabbed/${b.id}`} aria-label={`Edit the plan of ${b.patient_name}`}>
          Edit
        </Link>
      ) : null,
    ]),
  ];
  return <DataTable rows={rows} columns={columns} empty={empty} caption={caption} />;
}
