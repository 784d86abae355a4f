import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { RoleForm, roleFormValues } from "~/components/role-form";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { permissionLabel } from "~/domain/roles";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { grantablePermissions, mayEditRole, permissionsBeyond } from "~/domain/who-may-change";
import { deleteRole, getRole, updateRole, type RoleJson } from "~/models/roles.server";
import { formResult, formValues, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requirePermission, requireId } from "~/services/guard.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Edit ${data?.role.name ?? "role"} · Baseline` }];
export const handle = { guard: "manage_roles" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_roles");
  const role = await getRole(modelContextFor(context, actor), requireId(params.id, "Role"));
  if (!role) throw notFound("Role not found.");
  // The model's own rule (decision 015): a role above the actor is shown, not offered for change.
  const rank = mayEditRole(actor, role, role);
  const locked = rank.ok ? null : { message: rank.message, missing: permissionsBeyond(actor, role.permissions) };
  return { role, locked, offered: grantablePermissions(actor) };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_roles");
  const id = requireId(params.id, "Role");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  switch (values.intent) {
    case "delete":
      // Only the confirm step's 'Yes, delete it' deletes.
      requireDeleteConfirmed(values, `/roles/list/edit/${id}?confirm=delete#delete-role`);
      return formResult(await deleteRole(ctx, id), values, () => "/roles/list");
    case "save":
      // No checkbox ticked sends no "permissions" field: that means an empty set, not "unchanged".
      return formResult(await withFormVersion(values.version, (version) => updateRole(ctx, id, { permissions: [], ...values }, { partial: false, version })), values, () => "/roles/list");
    default:
      if (!(await getRole(ctx, id))) throw notFound("Role not found.");
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

export default function EditRole() {
  const { role, locked, offered } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const current = (answer?.current ?? null) as RoleJson | null;
  // After a stale save the form shows what is stored now, with its version, so saving again is deliberate.
  // A refused delete answers too; the form then keeps the stored values.
  const typed = answer && answer.values.intent === "save" ? answer.values : null;
  const values = current ? roleFormValues(current) : (typed ?? roleFormValues(role));
  const version = current ? current.version : (formVersion(typed?.version) ?? role.version);
  return (
    <section className="card">
      <div className="page-head">
        <h1>{locked ? "Role" : "Edit role"}</h1>
        <Link to="/roles/list">Back to roles</Link>
      </div>
      {current && typed ? (
        <StaleNotice message={answer!.message} version={current.version} unsaved={typed} hidden={["intent", "version"]} stored={values} />
      ) : (
        <FormMessage error={answer?.message} />
      )}
      {role.all_access ? <p className="muted">{role.name} passes every permission check, whatever its permission set.</p> : null}
      <p>
        {role.users} user(s) hold this role.
      </p>
      {locked ? (
        <>
          <p className="muted">
            {locked.message}{" "}
            {locked.missing.length
              ? `It holds ${locked.missing.join(", ")}, which you do not hold, so it is shown here without the forms that change or delete it.`
              : "It is shown here without the forms that change or delete it."}
          </p>
          <dl>
            <dt>Name</dt>
            <dd>{role.name}</dd>
            <dt>Permissions</dt>
            <dd>
              {role.permissions.length ? (
                <ul>
                  {role.permissions.map((p) => (
                    <li key={p}>{permissionLabel(p)}</li>
                  ))}
                </ul>
              ) : (
                "None"
              )}
            </dd>
          </dl>
        </>
      ) : (
        <RoleForm key={JSON.stringify([values, version])} values={values} errors={typed ? answer!.errors : {}} version={version} nameLocked={role.all_access} offered={offered} submitLabel="Save changes" busy={busy} />
      )}
      {role.all_access || locked ? null : (
        <section className="danger-zone" aria-labelledby="delete-role">
          <h2 id="delete-role">Delete role</h2>
          {params.get("confirm") === "delete" ? (
            <ConfirmDelete question={`Are you sure you want to delete the role “${role.name}”?`} intent="delete" fields={DELETE_CONFIRMED} cancelTo={`/roles/list/edit/${role.id}`} busy={busy} />
          ) : (
            <>
              <p>Deleting {role.name} removes it for good. A role that users still hold cannot be deleted.</p>
              <Link className="btn btn-danger" to="?confirm=delete#delete-role">
                Delete role…
              </Link>
            </>
          )}
        </section>
      )}
    </section>
  );
}
