import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { RoleForm } from "~/components/role-form";
import { FormMessage } from "~/components/ui/field";
import { grantablePermissions } from "~/domain/who-may-change";
import { createRole } from "~/models/roles.server";
import { formResult, formValues, modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Register role · Baseline" }];
export const handle = { guard: "manage_roles" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_roles");
  // Only the permissions the actor may give are offered (decision 015); the model refuses any other (422).
  return { offered: grantablePermissions(actor) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_roles");
  const values = formValues(await request.formData());
  const result = await createRole(modelContextFor(context, actor), values);
  return formResult(result, values, () => "/roles/list");
}

export default function RegisterRole() {
  const { offered } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <section className="card">
      <div className="page-head">
        <h1>Register role</h1>
        <Link to="/roles/list">Back to roles</Link>
      </div>
      <FormMessage error={answer?.message} />
      {/* A new key after each answer so the inputs take the re-rendered values when JavaScript is on. */}
      <RoleForm key={JSON.stringify(answer?.values ?? null)} values={answer?.values ?? {}} errors={answer?.errors ?? {}} offered={offered} submitLabel="Register role" busy={busy} />
    </section>
  );
}
