import { Link } from "@remix-run/react";
import { typeOfAssessmentLabel } from "~/domain/bip-document";

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
  updated_at: string;
}

export function BipTable({ rows, canManage, showClient = true, empty = "No data to display." }: { rows: readonly BipRowView[]; canManage: boolean; showClient?: boolean; empty?: string }) {
  if (!rows.length) return <p>{empty}</p>;
  return (
    <table>
      <thead>
        <tr>
          {showClient ? <th>Client</th> : null}
          <th>Type</th>
          <th>Doctor</th>
          <th>Goals</th>
          <th>Updated</th>
          <th>Attention</th>
          <th>
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((b) => (
          <tr key={b.id}>
            {showClient ? (
              <td>
                <Link to={`/bip/show/patient/${b.patient_id}`}>{b.patient_name}</Link> <span className="muted">{b.patient_identifier}</span>
              </td>
            ) : null}
            <td>{typeOfAssessmentLabel(b.type_of_assessment)}</td>
            <td>{b.doctor_name ?? "—"}</td>
            <td>{b.goals_count}</td>
            <td>{b.updated_at.slice(0, 10)}</td>
            <td>{b.needs_attention ? <span className="badge">Needs attention</span> : "—"}</td>
            <td className="actions">
              <Link to={`/bip/profile/${b.id}`} aria-label={`View the plan of ${b.patient_name}, ${typeOfAssessmentLabel(b.type_of_assessment)}`}>
                View
              </Link>
              {canManage ? (
                <>
                  {" · "}
                  <Link to={`/bip/tabbed/${b.id}`} aria-label={`Edit the plan of ${b.patient_name}`}>
                    Edit
                  </Link>
                </>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
