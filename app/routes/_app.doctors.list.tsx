import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { actionsColumn, DataList, type Column } from "~/components/ui/data-list";
import { FilterSelect, SearchForm } from "~/components/ui/list";
import { EMPLOYEE_STATUSES } from "~/domain/employees";
import { employeeListScreen } from "~/models/employees.server";
import { modelContextFor, listQueryFrom } from "~/services/forms.server";
import { can, canReadEmployees } from "~/domain/permissions";
import { forbidden, requireStaff } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Employees · Baseline" }];
/**
 * The list reads like the employee API and the profile: view_employees or manage_employees (platform §6 maps
 * list_employers to view_employees); adding and editing are offered only with manage_employees. The sidebar's
 * Employees item still needs manage_employees (platform §2; decision 007, 2026-11-27).
 */
export const handle = { guard: "view_employees" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  if (!canReadEmployees(actor)) throw forbidden();
  const { query, queryError, params } = listQueryFrom(request);
  const ctx = modelContextFor(context, actor);
  const { page, locations, filterErrors } = await employeeListScreen(ctx, query, { location_id: params.location_id, status: params.status });
  return { page, locations, queryError, filterErrors, canManage: can(actor, "manage_employees") };
}

export default function EmployeeList() {
  const { page, locations, queryError, filterErrors, canManage } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const columns: Column<(typeof page.data)[number]>[] = [
    { header: "Name", cell: (e) => e.full_name },
    { header: "Email", cell: (e) => e.email },
    { header: "Phone", cell: (e) => e.phone },
    { header: "Roles", cell: (e) => e.roles.map((r) => r.name).join(", ") },
    { header: "Locations", cell: (e) => e.locations.map((l) => l.title).join(", ") },
    { header: "Status", cell: (e) => <span className={`badge badge-${e.status}`}>{e.status === "active" ? "Active" : "Inactive"}</span> },
    actionsColumn((e) => [
      <Link key="profile" to={`/doctors/profile/${e.id}`} aria-label={`Profile of ${e.full_name}`}>
        Profile
      </Link>,
      ...(canManage
        ? [
            <Link key="edit" to={`/doctors/list/edit/${e.id}`} aria-label={`Edit ${e.full_name}`}>
              Edit
            </Link>,
          ]
        : []),
    ]),
  ];
  return (
    <section className="card">
      <div className="page-head">
        <h1>Employees</h1>
        {canManage ? (
          <Link className="btn btn-primary" to="/doctors/add">
            Add employee
          </Link>
        ) : null}
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        caption="Employees"
        page={page}
        columns={columns}
        filters={
          <SearchForm placeholder="Search by name or email">
            <FilterSelect name="location_id" label="Location" any="All locations" options={locations.map((l) => ({ value: l.id, label: l.title }))} error={filterErrors?.location_id} />
            <FilterSelect name="status" label="Status" any="Any status" options={EMPLOYEE_STATUSES.map((s) => ({ value: s, label: s === "active" ? "Active" : "Inactive" }))} error={filterErrors?.status} />
          </SearchForm>
        }
      />
    </section>
  );
}
