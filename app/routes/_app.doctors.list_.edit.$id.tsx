import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { AvatarForm } from "~/components/avatar-form";
import { echoValues, EmployeeForm, employeeFormValues } from "~/components/employee-form";
import { Field, FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { PASSWORD_MIN_LENGTH } from "~/domain/passwords";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { CHANGE_MESSAGES } from "~/domain/who-may-change";
import {
  changeEmployeePassword,
  deleteEmployee,
  employeeConfig,
  employeeChangeReach,
  getEmployee,
  resetEmployeeTwoFactor,
  updateEmployee,
  updateEmployeeStatus,
  type EmployeeJson,
} from "~/models/employees.server";
import { removeUserAvatar, setUserAvatar } from "~/models/avatars.server";
import { avatarFormAction, isAvatarIntent } from "~/services/avatar-forms.server";
import { formResult, formValues, formVersion, modelContextFor, requireDeleteConfirmed, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { forbidden, notFound, requirePermission, requireId } from "~/services/guard.server";
import { keptSessionCookies, sessionAfterOwnChange } from "~/services/session.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Edit ${data?.employee.full_name ?? "employee"} · Baseline` }];
export const handle = { guard: "manage_employees" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_employees");
  const ctx = modelContextFor(context, actor);
  const employee = await getEmployee(ctx, requireId(params.id, "Employee"));
  if (!employee) throw notFound("Employee not found.");
  // The rule's verdict for the whole form (decision 015): everything, all but who they are, or nothing (above the actor's rank).
  const [config, reach] = await Promise.all([employeeConfig(ctx), employeeChangeReach(ctx, employee.id)]);
  if (!reach) throw notFound("Employee not found.");
  // A primary location the actor cannot see is kept on a save (decision 015): the form offers no choice for it.
  const primaryHidden = employee.location_id !== null && !config.locations.some((l) => l.id === employee.location_id);
  return { employee, config, self: employee.id === actor.id, reach, primaryHidden };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_employees");
  const id = requireId(params.id, "Employee");
  const ctx = modelContextFor(context, actor);
  const form = await request.formData();
  const values = formValues(form);
  if (isAvatarIntent(values.intent)) {
    return avatarFormAction(form, values.intent, { set: (file) => setUserAvatar(ctx, id, file), remove: () => removeUserAvatar(ctx, id) }, `/doctors/list/edit/${id}`);
  }
  const echo = echoValues(values);
  // One's own password or two-factor (the screen shows neither form on one's own record) answers on the page with where
  // to change them, with the current password (decision 015, stop 35); a refusal on someone else is Access Denied.
  const refusedCredential = (message: string) => {
    if (id !== actor.id) throw forbidden(message);
    return data<FormAnswer>({ errors: {}, message, values: echo }, { status: 403 });
  };
  switch (values.intent) {
    case "delete": {
      // Only the confirm step's 'Yes, delete it' deletes.
      requireDeleteConfirmed(values, `/doctors/list/edit/${id}?confirm=delete#delete-employee`);
      const result = await deleteEmployee(ctx, id);
      if (!result.ok && result.status === 403) throw forbidden(result.message);
      return formResult(result, echo, () => "/doctors/list");
    }
    case "status": {
      const result = await updateEmployeeStatus(ctx, id, values);
      if (!result.ok && result.status === 403) throw forbidden(result.message);
      return formResult(result, echo, (e) => `/doctors/profile/${e.id}`);
    }
    case "password": {
      const result = await changeEmployeePassword(ctx, context.app, id, values);
      if (!result.ok && result.status === 403) return refusedCredential(result.message);
      return formResult(result, echo, () => `/doctors/profile/${id}`);
    }
    case "two_factor": {
      const result = await resetEmployeeTwoFactor(ctx, id);
      if (!result.ok && result.status === 403) return refusedCredential(result.message);
      return formResult(result, echo, () => `/doctors/profile/${id}`);
    }
    case "save": {
      // One's own new locations end every session and token, this one included (decision 015): as on
      // change-password, this browser alone gets a fresh session (stored in the save's batch) and sees the saved flash.
      const app = context.app;
      const fresh = id === actor.id ? await sessionAfterOwnChange(app.db, { type: "user", id }, app.now(), app.secure) : null;
      const result = await withFormVersion(values.version, (version) => updateEmployee(ctx, id, values, { partial: false, version, app, keep: fresh?.insert }));
      // A save the rule refuses answers the form, not the Access Denied page (decision 015, stop 33): the message, also
      // at each field whose change it refuses, and the typed values. Nothing is written; the API answers 403. One's own
      // email is refused the same way, with where to change it at the field (decision 015, stop 35).
      if (!result.ok && result.status === 403) {
        const fieldMessage = id === actor.id ? result.message : CHANGE_MESSAGES.notCoveredField;
        const errors = Object.fromEntries((result.fields ?? []).map((f) => [f, fieldMessage]));
        return data<FormAnswer>({ errors, message: result.message, values: echo }, { status: 422 });
      }
      const cookies = result.ok && fresh ? await keptSessionCookies(app.db, fresh) : [];
      return formResult(result, echo, (e) => `/doctors/profile/${e.id}`, cookies);
    }
    default:
      if (!(await getEmployee(ctx, id))) throw notFound("Employee not found.");
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values: echo }, { status: 400 });
  }
}

export default function EditEmployee() {
  const { employee, config, self, reach, primaryHidden } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const current = (answer?.current ?? null) as EmployeeJson | null;
  // After a stale save the form shows what is stored now, with its version, so saving again is deliberate.
  const typed = answer && answer.values.intent === "save" ? answer.values : null;
  const shown = current ? employeeFormValues(current) : (typed ?? employeeFormValues(employee));
  // Who the employee is, when the actor may not change it, is shown as stored, so saving again keeps it.
  const fixed = reach.reach === "details";
  const stored = employeeFormValues(employee);
  // One's own email, read-only here, shows as stored too.
  const values = fixed ? { ...shown, email: stored.email, status: stored.status, roles: stored.roles, locations: stored.locations } : self ? { ...shown, email: stored.email } : shown;
  const version = current ? current.version : (formVersion(typed?.version) ?? employee.version);
  const avatarAnswer = answer && answer.values.intent === "avatar" ? answer : null;
  // What a stale save did not save names the roles and locations chosen, as the checkboxes do.
  const roleNames = new Map([...config.roles, ...employee.roles].map((r) => [String(r.id), r.name]));
  const locationNames = new Map([...config.locations, ...employee.locations].map((l) => [String(l.id), l.title]));
  const chosenByName = (x: Record<string, unknown>) => {
    const ids = (v: unknown) => (Array.isArray(v) ? v.map(String) : v === undefined || v === null || v === "" ? [] : [String(v)]);
    const named = (names: Map<string, string>, v: unknown) => ids(v).map((id) => names.get(id) ?? id);
    return { ...x, roles: named(roleNames, x.roles), locations: named(locationNames, x.locations), location_id: named(locationNames, x.location_id).join("") };
  };
  const otherError = answer && answer.values.intent !== "save" && !avatarAnswer ? answer.message : null;
  const passwordErrors = answer && answer.values.intent === "password" ? answer.errors : {};
  if (reach.reach === "none") {
    return (
      <section className="card">
        <div className="page-head">
          <h1>Employee</h1>
          <Link to={`/doctors/profile/${employee.id}`}>Back to {employee.full_name}</Link>
        </div>
        <FormMessage error={answer?.message} />
        <p className="muted">
          {reach.message}{" "}
          {reach.missing.length
            ? `${employee.full_name} holds ${reach.missing.join(", ")}, which you do not hold, so they are shown here without the forms that change them.`
            : `${employee.full_name} is shown here without the forms that change them.`}
        </p>
        <dl>
          <dt>Name</dt>
          <dd>{employee.full_name}</dd>
          <dt>Email</dt>
          <dd>{employee.email}</dd>
          <dt>Roles</dt>
          <dd>{employee.roles.map((r) => r.name).join(", ") || "None"}</dd>
          <dt>Locations</dt>
          <dd>{employee.locations.map((l) => l.title).join(", ") || "None"}</dd>
          <dt>Status</dt>
          <dd>{employee.status === "active" ? "Active" : "Inactive"}</dd>
        </dl>
      </section>
    );
  }
  return (
    <section className="card">
      <div className="page-head">
        <h1>Edit employee</h1>
        <Link to={`/doctors/profile/${employee.id}`}>Back to {employee.full_name}</Link>
      </div>
      {current && typed ? (
        <StaleNotice message={answer!.message} version={current.version} unsaved={chosenByName(typed)} hidden={["intent", "version", "ss_number"]} stored={chosenByName(values)} labels={{ location_id: "Primary location" }} />
      ) : (
        <FormMessage error={typed || current ? answer?.message : otherError} />
      )}
      {fixed ? (
        <p className="muted">
          {reach.message} You can still change their contact, profile and employment details here.
        </p>
      ) : null}
      <EmployeeForm
        key={JSON.stringify([values, version])}
        values={values}
        errors={typed ? answer!.errors : {}}
        version={version}
        roles={fixed ? employee.roles : config.roles}
        locations={fixed ? employee.locations : config.locations}
        maskedSsn={employee.ss_number}
        withPassword={false}
        submitLabel="Save changes"
        busy={busy}
        rolesHint={self ? "You cannot change your own roles: another administrator must do it." : undefined}
        emailFixedHint={self ? CHANGE_MESSAGES.ownEmailHint : undefined}
        primaryHidden={primaryHidden}
        storedGender={employee.gender}
        identityFixed={fixed}
      />
      <AvatarForm avatar={employee.avatar} label={employee.full_name} error={avatarAnswer?.errors.avatar} busy={busy} />
      {self || fixed ? null : (
        <>
          <Form method="post" className="status-zone" id="settings">
            <h2>Status</h2>
            <input type="hidden" name="intent" value="status" />
            <input type="hidden" name="status" value={employee.status === "active" ? "inactive" : "active"} />
            <p>{employee.full_name} is {employee.status === "active" ? "active" : "inactive"}. An inactive employee cannot sign in and is signed out everywhere.</p>
            <button className="btn" type="submit" disabled={busy}>
              {employee.status === "active" ? "Deactivate employee" : "Activate employee"}
            </button>
          </Form>
          <Form method="post" className="password-zone" noValidate>
            <h2>Set a new password</h2>
            <input type="hidden" name="intent" value="password" />
            <p>The employee is signed out everywhere and gets an email that the password changed.</p>
            <Field label="New password" name="new_password" type="password" autoComplete="new-password" minLength={PASSWORD_MIN_LENGTH} hint={`At least ${PASSWORD_MIN_LENGTH} characters.`} error={passwordErrors.new_password} />
            <Field label="Confirm new password" name="new_password_confirmation" type="password" autoComplete="new-password" error={passwordErrors.new_password_confirmation} />
            <button className="btn" type="submit" disabled={busy}>
              Set password
            </button>
          </Form>
          {employee.two_factor_enabled ? (
            <Form method="post" className="two-factor-zone">
              <h2>Two-factor authentication</h2>
              <input type="hidden" name="intent" value="two_factor" />
              <p>Turning it off also clears the employee's backup codes; they can switch it on again from their profile.</p>
              <button className="btn" type="submit" disabled={busy}>
                Turn off two-factor authentication
              </button>
            </Form>
          ) : null}
          <section className="danger-zone" aria-labelledby="delete-employee">
            <h2 id="delete-employee">Delete employee</h2>
            {params.get("confirm") === "delete" ? (
              <ConfirmDelete question={`Are you sure you want to delete the employee “${employee.full_name}”?`} intent="delete" fields={DELETE_CONFIRMED} cancelTo={`/doctors/list/edit/${employee.id}`} busy={busy} />
            ) : (
              <>
                <p>Deleting {employee.full_name} removes them from lists and signs them out; the record is kept for the audit trail.</p>
                <Link className="btn btn-danger" to="?confirm=delete#delete-employee">
                  Delete employee…
                </Link>
              </>
            )}
          </section>
        </>
      )}
    </section>
  );
}
