import { Form } from "@remix-run/react";
import { Field, NewPasswordFields } from "~/components/ui/field";
import { CheckboxGroup, FixedChoice, FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import { COMPLIANCE_FIELDS, EMPLOYEE_GENDERS, EMPLOYEE_STATUSES, EMPLOYMENT_NUMBER_FIELDS, isEmployeeGender, PROFILE_DATE_FIELDS, PROFILE_TEXT_FIELDS } from "~/domain/employees";

/**
 * The employee form (platform §3 User), shared by the add and edit screens. Works without JavaScript:
 * each location's employment details are plain fields named `emp_<locationId>_<field>`; only the
 * details of the checked locations are kept.
 */

export type EmployeeFormValues = Record<string, string | string[] | null | undefined>;

interface EmploymentLike {
  id: number;
  position_id: number | null;
  salary: number | null;
  telehealth_salary: number | null;
  fixed_hours_salary: number | null;
  fixed_weekly_hours: number | null;
  compliance: Record<string, string | null>;
}

/** A stored employee's fields as form values (the ss number is never filled in). */
export function employeeFormValues(e: Record<string, unknown> & { roles: { id: number }[]; locations: EmploymentLike[]; location_id: number | null }): EmployeeFormValues {
  const out: EmployeeFormValues = {};
  for (const k of ["name", "surname", "email", "phone", "gender", "address", "city", "status", "note", ...PROFILE_TEXT_FIELDS.map(([k]) => k), ...PROFILE_DATE_FIELDS.map(([k]) => k)]) {
    const val = e[k];
    out[k] = typeof val === "string" ? val : null;
  }
  out.roles = e.roles.map((r) => String(r.id));
  out.locations = e.locations.map((l) => String(l.id));
  out.location_id = e.location_id === null ? "" : String(e.location_id);
  for (const l of e.locations) {
    out[`emp_${l.id}_position_id`] = l.position_id === null ? "" : String(l.position_id);
    for (const [k] of EMPLOYMENT_NUMBER_FIELDS) out[`emp_${l.id}_${k}`] = l[k] === null ? "" : String(l[k]);
    for (const [k] of COMPLIANCE_FIELDS) out[`emp_${l.id}_${k}`] = l.compliance[k] ?? "";
  }
  return out;
}

/** The typed values to re-render with, without the secrets (passwords and the ss number never go back to the page). */
export function echoValues(values: Record<string, string | string[]>): Record<string, string | string[]> {
  const { password: _p, password_confirmation: _c, new_password: _n, new_password_confirmation: _nc, ss_number: _s, ...rest } = values;
  return rest;
}

/** The genders offered, with a stored one outside the list marked as such (decision 017). */
function genderOptions(stored: string | null | undefined): { value: string; label: string }[] {
  return [...EMPLOYEE_GENDERS, ...(stored && !isEmployeeGender(stored) ? [{ value: stored, label: `${stored} (not in the list)` }] : [])];
}

function text(v: EmployeeFormValues[string]): string {
  return typeof v === "string" ? v : Array.isArray(v) ? (v[0] ?? "") : "";
}
function list(v: EmployeeFormValues[string]): string[] {
  return Array.isArray(v) ? v : typeof v === "string" && v ? [v] : [];
}

export function EmployeeForm({
  values,
  errors,
  version,
  roles,
  locations,
  maskedSsn,
  withPassword,
  submitLabel,
  busy,
  rolesHint,
  primaryHidden,
  storedGender,
  identityFixed = false,
  emailFixedHint,
}: {
  values: EmployeeFormValues;
  errors: Record<string, string>;
  version?: number;
  roles: readonly { id: number; name: string }[];
  locations: readonly { id: number; title: string }[];
  /** The stored ss number, masked; leaving the field blank keeps it. */
  maskedSsn?: string | null;
  /** The add screen sets the first password. */
  withPassword: boolean;
  submitLabel: string;
  busy: boolean;
  /** A note shown above the roles (e.g. that one's own roles cannot be changed). */
  rolesHint?: string;
  /** The stored primary location is one the actor cannot see: it is kept, so the form offers no choice (decision 015). */
  primaryHidden?: boolean;
  /** The edit screen: the stored gender, offered even when no longer in the list, so saving unchanged keeps it. */
  storedGender?: string | null;
  /**
   * The actor may not change who the employee is (decision 015): email, status, roles and locations are shown but
   * not offered for change, and posted as given (`roles` and `locations` are then the employee's own), so the rest
   * of the form saves.
   */
  identityFixed?: boolean;
  /** One's own record: the email is shown read-only with this hint (it changes on the profile, decision 015). */
  emailFixedHint?: string;
}) {
  // A form post's employment errors come on their inputs (emp_<location>_<field>); a summary only for any other.
  const onInputs = Object.keys(errors).some((k) => k.startsWith("emp_"));
  const employmentError = onInputs ? undefined : (errors.employment ?? Object.entries(errors).find(([k]) => k.startsWith("employment."))?.[1]);
  return (
    <Form method="post" noValidate>
      <input type="hidden" name="intent" value="save" />
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      <fieldset>
        <legend>Personal details</legend>
        <Field label="Name" name="name" required maxLength={100} defaultValue={text(values.name)} error={errors.name} />
        <Field label="Surname" name="surname" required maxLength={100} defaultValue={text(values.surname)} error={errors.surname} />
        <Field
          label="Email"
          name="email"
          type="email"
          required
          readOnly={identityFixed || !!emailFixedHint}
          defaultValue={text(values.email)}
          error={errors.email}
          hint={emailFixedHint}
          autoComplete="off"
        />
        <Field label="Phone" name="phone" type="tel" defaultValue={text(values.phone)} error={errors.phone} />
        <SelectField label="Gender" name="gender" placeholder="Not given" options={genderOptions(storedGender)} defaultValue={text(values.gender)} error={errors.gender} />
        <Field label="Address" name="address" maxLength={255} defaultValue={text(values.address)} error={errors.address} />
        <Field label="City" name="city" maxLength={100} defaultValue={text(values.city)} error={errors.city} />
        <SelectField
          label="Status"
          name="status"
          options={EMPLOYEE_STATUSES.filter((s) => !identityFixed || s === (text(values.status) || "active")).map((s) => ({ value: s, label: s === "active" ? "Active" : "Inactive" }))}
          defaultValue={text(values.status) || "active"}
          error={errors.status}
        />
        <Field
          label="Social security number"
          name="ss_number"
          autoComplete="off"
          inputMode="numeric"
          defaultValue=""
          hint={maskedSsn ? `Stored: ${maskedSsn}. Leave blank to keep it.` : "9 digits. Only the last four are ever shown."}
          error={errors.ss_number}
        />
      </fieldset>
      {withPassword ? (
        <fieldset>
          <legend>First password</legend>
          <NewPasswordFields errors={errors} label="Password" confirmLabel="Confirm password" />
        </fieldset>
      ) : null}
      {rolesHint ? <p className="hint">{rolesHint}</p> : null}
      {identityFixed ? (
        <>
          <FixedChoice legend="Roles" name="roles" options={roles.map((r) => ({ value: String(r.id), label: r.name }))} error={errors.roles} />
          <FixedChoice legend="Locations" name="locations" options={locations.map((l) => ({ value: String(l.id), label: l.title }))} error={errors.locations} />
        </>
      ) : (
        <>
          <CheckboxGroup legend="Roles" name="roles" options={roles.map((r) => ({ value: String(r.id), label: r.name }))} selected={list(values.roles)} error={errors.roles} />
          <CheckboxGroup legend="Locations" name="locations" options={locations.map((l) => ({ value: String(l.id), label: l.title }))} selected={list(values.locations)} error={errors.locations} />
        </>
      )}
      {primaryHidden ? (
        <div className="field">
          <p id="f-location_id">Primary location: a location you do not manage. It stays as it is.</p>
          {errors.location_id ? (
            <p id="f-location_id-error" className="field-error" role="alert">
              {errors.location_id}
            </p>
          ) : null}
        </div>
      ) : (
        <SelectField label="Primary location" name="location_id" placeholder="The first chosen location" options={locations.map((l) => ({ value: l.id, label: l.title }))} defaultValue={text(values.location_id)} error={errors.location_id} />
      )}
      <fieldset>
        <legend>Professional details</legend>
        {PROFILE_TEXT_FIELDS.map(([k, label]) => (
          <Field key={k} label={label} name={k} maxLength={255} defaultValue={text(values[k])} error={errors[k]} />
        ))}
        {PROFILE_DATE_FIELDS.map(([k, label]) => (
          <Field key={k} label={label} name={k} type="date" defaultValue={text(values[k])} error={errors[k]} />
        ))}
        <TextareaField label="Note" name="note" maxLength={2000} defaultValue={text(values.note)} error={errors.note} />
      </fieldset>
      {employmentError ? (
        <p className="field-error" role="alert">
          Employment details: {employmentError}
        </p>
      ) : null}
      {locations.map((l) => (
        <details key={l.id} className="employment" open={list(values.locations).includes(String(l.id))}>
          <summary>Employment and compliance at {l.title}</summary>
          {identityFixed ? null : <p className="hint">Kept only when {l.title} is checked under Locations.</p>}
          <Field label="Position" name={`emp_${l.id}_position_id`} id={`f-emp-${l.id}-position_id`} inputMode="numeric" defaultValue={text(values[`emp_${l.id}_position_id`])} error={errors[`emp_${l.id}_position_id`]} />
          {EMPLOYMENT_NUMBER_FIELDS.map(([k, label]) => (
            <Field key={k} label={label} name={`emp_${l.id}_${k}`} id={`f-emp-${l.id}-${k}`} inputMode="decimal" defaultValue={text(values[`emp_${l.id}_${k}`])} error={errors[`emp_${l.id}_${k}`]} />
          ))}
          {COMPLIANCE_FIELDS.map(([k, label]) => (
            <Field key={k} label={label} name={`emp_${l.id}_${k}`} id={`f-emp-${l.id}-${k}`} type="date" defaultValue={text(values[`emp_${l.id}_${k}`])} error={errors[`emp_${l.id}_${k}`]} />
          ))}
        </details>
      ))}
      <FormActions>
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}
