import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { Fragment } from "react";
import { FormMessage } from "~/components/ui/field";
import { COMPLIANCE_FIELDS, COMPLIANCE_LABELS, EMPLOYMENT_NUMBER_FIELDS, PAY_FIELDS, PROFILE_DATE_FIELDS, PROFILE_TEXT_FIELDS } from "~/domain/employees";
import { can, canReadEmployees } from "~/domain/permissions";
import { getEmployeeProfile, type EmployeeProfile as Profile } from "~/models/employees.server";
import { modelContextFor } from "~/services/forms.server";
import { forbidden, notFound, requireStaff } from "~/services/guard.server";
import { DataTable, type Column } from "~/components/ui/data-list";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.employee.full_name ?? "Employee"} · Baseline` }];
/** view_employees or manage_employees. */
export const handle = { guard: "view_employees" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  if (!canReadEmployees(actor)) throw forbidden();
  const id = Number(params.id);
  const employee = Number.isSafeInteger(id) && id > 0 ? await getEmployeeProfile(modelContextFor(context, actor), id) : null;
  if (!employee) throw notFound("Employee not found.");
  return { employee, canManage: can(actor, "manage_employees") };
}

/** A location entry's compliance items: each one's date and its state. */
const complianceColumns = (l: Pick<Profile["locations"][number], "compliance" | "compliance_state">): Column<(typeof COMPLIANCE_FIELDS)[number]>[] => [
  { header: "Item", cell: ([, label]) => label },
  { header: "Date", cell: ([k]) => l.compliance[k] ?? "—" },
  { header: "State", cell: ([k]) => <span className={`badge badge-${l.compliance_state[k]}`}>{COMPLIANCE_LABELS[l.compliance_state[k]]}</span> },
];

export default function EmployeeProfile() {
  const { employee: e, canManage } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const rows: [string, string | null][] = [
    ["Name", e.full_name],
    ["Email", e.email],
    ["Phone", e.phone],
    ["Gender", e.gender],
    ["Address", e.address],
    ["City", e.city],
    ["Status", e.status === "active" ? "Active" : "Inactive"],
    ["Roles", e.roles.map((r) => r.name).join(", ")],
    ["Locations", e.locations.map((l) => l.title).join(", ")],
    ["Two-factor authentication", e.two_factor_enabled ? "On" : "Off"],
    ["Social security number", e.ss_number],
    ...PROFILE_TEXT_FIELDS.map(([k, label]) => [label, e[k]] as [string, string | null]),
    ...PROFILE_DATE_FIELDS.map(([k, label]) => [label, e[k]] as [string, string | null]),
    ["Note", e.note],
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>{e.full_name}</h1>
        <span>
          {canManage ? <Link to="/doctors/list">Back to employees</Link> : null}
          {canManage ? (
            <>
              {" "}
              <Link className="btn btn-primary" to={`/doctors/list/edit/${e.id}`}>
                Edit employee
              </Link>
            </>
          ) : null}
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <dl className="details">
        {rows.map(([label, value]) => (
          <Fragment key={label}>
            <dt>{label}</dt>
            <dd>{value || "—"}</dd>
          </Fragment>
        ))}
      </dl>
      {e.locations.map((l) => (
        <section key={l.id} className="employment">
          <h2>{l.title}</h2>
          <dl className="details">
            <dt>Position</dt>
            <dd>{l.position_id ?? "—"}</dd>
            {EMPLOYMENT_NUMBER_FIELDS.filter(([k]) => canManage || !PAY_FIELDS.includes(k)).map(([k, label]) => (
              <Fragment key={k}>
                <dt>{label}</dt>
                <dd>{l[k] ?? "—"}</dd>
              </Fragment>
            ))}
          </dl>
          <DataTable rows={COMPLIANCE_FIELDS} columns={complianceColumns(l)} rowKey={([k]) => k} caption={`Compliance at ${l.title}`} showCaption />
        </section>
      ))}
    </section>
  );
}
