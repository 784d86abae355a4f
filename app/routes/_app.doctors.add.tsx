import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { echoValues, EmployeeForm } from "~/components/employee-form";
import { FormMessage } from "~/components/ui/field";
import { createEmployee, employeeConfig } from "~/models/employees.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Add employee · Baseline" }];
export const handle = { guard: "manage_employees" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_employees");
  return { config: await employeeConfig(modelContextFor(context, actor)) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_employees");
  const values = formValues(await request.formData());
  const result = await createEmployee(modelContextFor(context, actor), values, context.app.env.PASSWORD_PEPPER ?? "");
  return formResult(result, echoValues(values), (e) => `/doctors/profile/${e.id}`);
}

export default function AddEmployee() {
  const { config } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="card">
      <div className="page-head">
        <h1>Add employee</h1>
        <Link to="/doctors/list">Back to employees</Link>
      </div>
      <FormMessage error={answer?.message} />
      <EmployeeForm
        key={JSON.stringify(answer?.values ?? null)}
        values={answer?.values ?? { status: "active" }}
        errors={answer?.errors ?? {}}
        roles={config.roles}
        locations={config.locations}
        withPassword
        submitLabel="Add employee"
        busy={busy}
      />
    </section>
  );
}
