import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import { CheckboxField, CheckboxGroup, FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import { nestFormFields, rowsOf } from "~/domain/intake";
import { POS_CODES } from "~/domain/locations";
import { TOO_MANY_STAFF_TO_ADD } from "~/domain/employees";
import { ASSESSMENT_TEXT, assessmentName, MAX_ASSESSMENT_SERVICES, MAX_ASSESSMENTS, serviceName } from "~/domain/pa-assessments";
import { DOCUMENT_STATUSES, FIELD_GROUPS, GENDERS, INTERVIEW_STATUSES, PATIENT_FIELDS, PATIENT_STATUSES, staffOptionsFor, type PatientField, type StaffField } from "~/domain/patients";

/** The client form (clinical §3 Patient), rendered from the field declarations; shared by add and edit. Works without JavaScript. */

export type PatientFormValues = Record<string, unknown>;
export interface Option {
  id: number;
  name: string;
}
export interface PatientFormOptions {
  locations: { id: number; title: string }[];
  parents: Option[];
  /** `only`: a stored insurer that was deleted, offered only in the fields that store it. */
  insurers: (Option & { only?: readonly string[] })[];
  /** Staff selects: one group per location offered, its employees (and a client's stored ones, marked). */
  staff: { label: string; options: Option[] }[];
  /** No location chosen and more staff than a select lists (STAFF_OPTIONS_MAX): the location is chosen first. */
  tooManyStaff?: boolean;
}

const POS_OPTIONS = POS_CODES.map((p) => ({ value: p.code, label: `${p.code} ${p.label}` }));
const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** A stored client (API shape) as form values. */
export function patientFormValues(p: Record<string, unknown>): PatientFormValues {
  const out: PatientFormValues = {};
  for (const f of PATIENT_FIELDS) out[f.name] = p[f.name];
  out.gender = p.gender == null ? "" : String(p.gender);
  out.pa_assessments = p.pa_assessments;
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
            {staffOptionsFor(field.name as StaffField, g.options).map((o) => (
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
    case "code":
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
    case "npi":
      return <Field label={label} name={name} inputMode="numeric" maxLength={255} defaultValue={text(value)} error={error} />;
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
      return <SelectField label={label} name={name} placeholder="None" options={options.insurers.filter((i) => !i.only || i.only.includes(name)).map((i) => ({ value: i.id, label: i.name }))} defaultValue={text(value)} error={error} />;
    case "staff":
      return <StaffSelect field={field} value={text(value)} error={error} groups={options.staff} />;
  }
}

const cellId = (errorKey: string) => `f-${errorKey.replace(/\./g, "-")}`;

/**
 * PA assessments (clinical §3 Authorizations) as indexed rows: pa_assessments[0][services][1][cpt].
 * Adding and removing rows are submit buttons (intents pa-add-assessment, pa-add-service:i,
 * pa-remove-assessment:i, pa-remove-service:i:j) that re-render the form with every typed value kept.
 * Values are either a stored client (a nested list) or the posted flat fields; both are read nested.
 */
function PaAssessmentsFieldset({ values, errors }: { values: PatientFormValues; errors: Record<string, string> }) {
  const assessments = rowsOf(nestFormFields(values), "pa_assessments");
  const cell = (name: string, errorKey: string, label: string, value: unknown, extra: Record<string, unknown> = {}) => (
    <Field id={cellId(errorKey)} label={label} name={name} defaultValue={text(value)} error={errors[errorKey]} {...extra} />
  );
  return (
    <fieldset className="field-group" id="pa-assessments">
      <legend>PA assessments</legend>
      {errors.pa_assessments ? (
        <p className="field-error" role="alert">
          {errors.pa_assessments}
        </p>
      ) : null}
      {assessments.length === 0 ? <p className="muted">No PA assessments yet.</p> : null}
      {assessments.map((a, i) => {
        const services = rowsOf(a, "services");
        const key = `pa_assessments.${i}`;
        return (
          <fieldset key={i} className="field">
            <legend>Assessment {i + 1}</legend>
            <div className="form-grid">
              {cell(assessmentName(i, "assessment"), `${key}.assessment`, "Assessment", a.assessment, { required: true, maxLength: ASSESSMENT_TEXT })}
              {cell(assessmentName(i, "start_date"), `${key}.start_date`, "Start date", a.start_date, { type: "date", required: true })}
              {cell(assessmentName(i, "end_date"), `${key}.end_date`, "End date", a.end_date, { type: "date", required: true })}
            </div>
            {errors[`${key}.services`] ? (
              <p className="field-error" role="alert">
                {errors[`${key}.services`]}
              </p>
            ) : null}
            {services.map((s, j) => {
              const sk = `${key}.services.${j}`;
              return (
                <fieldset key={j} className="field">
                  <legend>
                    Service {j + 1} of assessment {i + 1}
                  </legend>
                  <div className="form-grid">
                    {cell(serviceName(i, j, "start_date"), `${sk}.start_date`, "Service start date", s.start_date, { type: "date", required: true })}
                    {cell(serviceName(i, j, "end_date"), `${sk}.end_date`, "Service end date", s.end_date, { type: "date", required: true })}
                    {cell(serviceName(i, j, "cpt"), `${sk}.cpt`, "CPT", s.cpt, { required: true, maxLength: 10 })}
                    {cell(serviceName(i, j, "n_units"), `${sk}.n_units`, "Units", s.n_units, { type: "number", min: 0, step: 1, inputMode: "numeric", required: true })}
                    {cell(serviceName(i, j, "provider"), `${sk}.provider`, "Provider", s.provider, { maxLength: ASSESSMENT_TEXT })}
                  </div>
                  <button type="submit" className="btn" name="intent" value={`pa-remove-service:${i}:${j}`}>
                    Remove<span className="visually-hidden"> service {j + 1} of assessment {i + 1}</span>
                  </button>
                </fieldset>
              );
            })}
            {services.length < MAX_ASSESSMENT_SERVICES ? (
              <button type="submit" className="btn" name="intent" value={`pa-add-service:${i}`}>
                Add a service<span className="visually-hidden"> to assessment {i + 1}</span>
              </button>
            ) : (
              <p className="muted">This assessment has the most services allowed ({MAX_ASSESSMENT_SERVICES}).</p>
            )}{" "}
            <button type="submit" className="btn" name="intent" value={`pa-remove-assessment:${i}`}>
              Remove<span className="visually-hidden"> assessment {i + 1}</span>
            </button>
          </fieldset>
        );
      })}
      {assessments.length < MAX_ASSESSMENTS ? (
        <button type="submit" className="btn" name="intent" value="pa-add-assessment">
          Add an assessment
        </button>
      ) : (
        <p className="muted">The list is full ({MAX_ASSESSMENTS} assessments).</p>
      )}
    </fieldset>
  );
}

export function PatientForm({
  values,
  errors,
  version,
  options,
  submitLabel,
  busy,
  formToken,
}: {
  values: PatientFormValues;
  errors: Record<string, string>;
  version?: number;
  /** The add form's one-time token (decision 024): a resend of the form adds one client. */
  formToken?: string;
  options: PatientFormOptions;
  submitLabel: string;
  busy: boolean;
}) {
  return (
    <Form method="post" noValidate>
      {/* The first submit button is the one Enter presses: save, not a row's Remove. */}
      <button type="submit" name="intent" value="save" className="visually-hidden" tabIndex={-1} aria-hidden="true">
        {submitLabel}
      </button>
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      {formToken ? <input type="hidden" name="form_token" value={formToken} /> : null}
      {FIELD_GROUPS.map((g) => (
        <fieldset key={g.id} className="field-group">
          <legend>{g.label}</legend>
          {g.id === "staff" && options.staff.length === 0 ? <p className="muted">{options.tooManyStaff ? TOO_MANY_STAFF_TO_ADD : "Choose a location and save to assign staff of that location."}</p> : null}
          {PATIENT_FIELDS.filter((f) => f.group === g.id).map((f) => (
            <Control key={f.name} field={f} values={values} errors={errors} options={options} />
          ))}
        </fieldset>
      ))}
      <PaAssessmentsFieldset values={values} errors={errors} />
      <FormActions>
        <button className="btn btn-primary" type="submit" name="intent" value="save" disabled={busy}>
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}
