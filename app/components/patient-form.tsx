import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import { CheckboxField, CheckboxGroup, FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import { POS_CODES } from "~/domain/locations";
import { DOCUMENT_STATUSES, FIELD_GROUPS, GENDERS, INTERVIEW_STATUSES, PATIENT_FIELDS, PATIENT_STATUSES, type PatientField } from "~/domain/patients";

/** The client form (clinical §3 Patient), rendered from the field declarations; shared by add and edit. Works without JavaScript. */

export type PatientFormValues = Record<string, unknown>;
export interface Option {
  id: number;
  name: string;
}
export interface PatientFormOptions {
  locations: { id: number; title: string }[];
  parents: Option[];
  insurers: Option[];
  /** Staff selects list only employees of the client's location: one group per location offered. */
  staff: { label: string; options: Option[] }[];
}

const POS_OPTIONS = POS_CODES.map((p) => ({ value: p.code, label: `${p.code} ${p.label}` }));
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A stored client (API shape) as form values. */
export function patientFormValues(p: Record<string, unknown>): PatientFormValues {
  const out: PatientFormValues = {};
  for (const f of PATIENT_FIELDS) out[f.name] = p[f.name];
  out.gender = p.gender == null ? "" : String(p.gender);
  return out;
}

function text(x: unknown): string {
  if (x === null || x === undefined) return "";
  if (Array.isArray(x)) return x.join(", ");
  return String(x);
}
function list(x: unknown): string[] {
  return Array.isArray(x) ? x.map(String) : typeof x === "string" && x ? x.split(",") : [];
}
function checked(x: unknown): boolean {
  return x === true || x === "true" || x === "on" || x === "1" || x === 1;
}

function StaffSelect({ field, value, error, groups }: { field: PatientField; value: string; error?: string; groups: PatientFormOptions["staff"] }) {
  const id = `f-${field.name}`;
  return (
    <div className="field">
      <label htmlFor={id}>{field.label}</label>
      <select id={id} name={field.name} defaultValue={value} aria-invalid={error ? true : undefined} aria-errormessage={error ? `${id}-error` : undefined}>
        <option value="">None</option>
        {groups.map((g) => (
          <optgroup key={g.label} label={g.label}>
            {g.options.map((o) => (
              <option key={o.id} value={o.id}>
                {o.name}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

function Control({ field, values, errors, options }: { field: PatientField; values: PatientFormValues; errors: Record<string, string>; options: PatientFormOptions }) {
  const { name, label } = field;
  const value = values[name];
  const error = errors[name];
  switch (field.type) {
    case "required":
      return <Field label={label} name={name} required maxLength={120} defaultValue={text(value)} error={error} />;
    case "text":
    case "codes":
      return <Field label={label} name={name} maxLength={255} defaultValue={text(value)} error={error} hint={field.type === "codes" ? "Separate codes with commas." : undefined} />;
    case "longtext":
      return <TextareaField label={label} name={name} maxLength={2000} defaultValue={text(value)} error={error} />;
    case "email":
      return <Field label={label} name={name} type="email" defaultValue={text(value)} error={error} />;
    case "phone":
      return <Field label={label} name={name} type="tel" defaultValue={text(value)} error={error} />;
    case "zip":
      return <Field label={label} name={name} inputMode="numeric" defaultValue={text(value)} error={error} />;
    case "date":
      return <Field label={label} name={name} type="date" defaultValue={text(value)} error={error} />;
    case "money":
      return <Field label={label} name={name} type="number" min={0} step="0.01" defaultValue={text(value)} error={error} />;
    case "flag":
      return <CheckboxField label={label} name={name} defaultChecked={checked(value)} error={error} />;
    case "status":
      return <SelectField label={label} name={name} required options={PATIENT_STATUSES.map((s) => ({ value: s, label: cap(s) }))} defaultValue={text(value) || "active"} error={error} />;
    case "gender":
      return <SelectField label={label} name={name} placeholder="Not given" options={GENDERS} defaultValue={text(value)} error={error} />;
    case "document":
      return <SelectField label={label} name={name} placeholder="Not started" options={DOCUMENT_STATUSES.map((s) => ({ value: s, label: cap(s) }))} defaultValue={text(value)} error={error} />;
    case "interview":
      return <SelectField label={label} name={name} placeholder="Not started" options={INTERVIEW_STATUSES.map((s) => ({ value: s, label: cap(s) }))} defaultValue={text(value)} error={error} />;
    case "pos":
      return <CheckboxGroup legend={label} name={name} options={POS_OPTIONS} selected={list(value)} error={error} />;
    case "location":
      return <SelectField label={label} name={name} required placeholder="Choose a location" options={options.locations.map((l) => ({ value: l.id, label: l.title }))} defaultValue={text(value)} error={error} />;
    case "parent":
      return <SelectField label={label} name={name} placeholder="None" options={options.parents.map((p) => ({ value: p.id, label: p.name }))} defaultValue={text(value)} error={error} />;
    case "insurer":
      return <SelectField label={label} name={name} placeholder="None" options={options.insurers.map((i) => ({ value: i.id, label: i.name }))} defaultValue={text(value)} error={error} />;
    case "staff":
      return <StaffSelect field={field} value={text(value)} error={error} groups={options.staff} />;
  }
}

export function PatientForm({
  values,
  errors,
  version,
  options,
  submitLabel,
  busy,
}: {
  values: PatientFormValues;
  errors: Record<string, string>;
  version?: number;
  options: PatientFormOptions;
  submitLabel: string;
  busy: boolean;
}) {
  return (
    <Form method="post" noValidate>
      <input type="hidden" name="intent" value="save" />
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      {FIELD_GROUPS.map((g) => (
        <fieldset key={g.id} className="field-group">
          <legend>{g.label}</legend>
          {g.id === "staff" && options.staff.length === 0 ? <p className="muted">Choose a location and save to assign staff of that location.</p> : null}
          {PATIENT_FIELDS.filter((f) => f.group === g.id).map((f) => (
            <Control key={f.name} field={f} values={values} errors={errors} options={options} />
          ))}
        </fieldset>
      ))}
      <FormActions>
        <button className="btn btn-primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}
