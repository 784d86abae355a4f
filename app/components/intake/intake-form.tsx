import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import { FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import { fieldName, INTAKE_SECTIONS, LONG_TEXT, rowsOf, SHORT_TEXT, valueAt, yesNo, type IntakeField, type IntakeSection } from "~/domain/intake";

/**
 * The intake assessment form (clinical §3), rendered from the section declarations; shared by create and
 * edit. Works without JavaScript: list rows are posted with indexed names, "Add a row" and "Remove" are
 * submit buttons (intent add-row:… / remove-row:…:n) that re-render the form with every typed value kept.
 */

export interface BipOption {
  id: number;
  label: string;
}

function text(x: unknown): string {
  if (x === null || x === undefined) return "";
  return typeof x === "object" ? "" : String(x);
}

const fieldId = (errorKey: string) => `f-${errorKey.replace(/\./g, "-")}`;

function YesNoField({ id, label, name, value, error }: { id: string; label: string; name: string; value: unknown; error?: string }) {
  const yes = yesNo(value) === true;
  return (
    <fieldset className="field" aria-invalid={error ? true : undefined} aria-errormessage={error ? `${id}-error` : undefined}>
      <legend>{label}</legend>
      <label className="check-inline">
        <input type="radio" id={`${id}-yes`} name={name} value="yes" defaultChecked={yes} /> Yes
      </label>
      <label className="check-inline">
        <input type="radio" id={`${id}-no`} name={name} value="no" defaultChecked={!yes} /> No
      </label>
      {error ? (
        <p id={`${id}-error`} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </fieldset>
  );
}

function Control({ section, field, row, draft, errors, bipOptions }: { section: IntakeSection; field: IntakeField; row?: number; draft: unknown; errors: Record<string, string>; bipOptions: readonly BipOption[] }) {
  const { name, errorKey, path } = fieldName(section, field, row);
  const id = fieldId(errorKey);
  const value = valueAt(draft, path);
  const error = errors[errorKey];
  const label = field.label;
  switch (field.type) {
    case "text":
      return <Field id={id} label={label} name={name} required={field.required} maxLength={SHORT_TEXT} defaultValue={text(value)} error={error} />;
    case "longtext":
      return <TextareaField id={id} label={label} name={name} rows={3} maxLength={LONG_TEXT} defaultValue={text(value)} error={error} />;
    case "date":
      return <Field id={id} label={label} name={name} type="date" required={field.required} defaultValue={text(value)} error={error} />;
    case "yesno":
      return <YesNoField id={id} label={label} name={name} value={value} error={error} />;
    case "number":
      return <Field id={id} label={label} name={name} type="number" min={0} max={field.max} step="any" inputMode="decimal" defaultValue={text(value)} error={error} />;
    case "int":
      return <Field id={id} label={label} name={name} type="number" min={0} max={field.max} step={1} inputMode="numeric" defaultValue={text(value)} error={error} />;
    case "phone":
      return <Field id={id} label={label} name={name} type="tel" defaultValue={text(value)} error={error} />;
    case "choice":
      return <SelectField id={id} label={label} name={name} placeholder="Not given" options={field.options ?? []} defaultValue={text(value)} error={error} />;
    case "bip":
      return <SelectField id={id} label={label} name={name} placeholder="None" options={bipOptions.map((b) => ({ value: b.id, label: b.label }))} defaultValue={text(value)} error={error} />;
  }
}

function RowList({ section, draft, errors }: { section: IntakeSection; draft: unknown; errors: Record<string, string> }) {
  const rows = rowsOf(draft, section.id);
  const rowLabel = section.rowLabel ?? "Row";
  const listError = errors[section.id];
  return (
    <fieldset className="field-group" id={`section-${section.id}`}>
      <legend>{section.label}</legend>
      {listError ? (
        <p className="field-error" role="alert">
          {listError}
        </p>
      ) : null}
      {rows.length === 0 ? <p className="muted">No rows yet.</p> : null}
      {rows.map((_, i) => (
        <fieldset key={i} className="field">
          <legend>
            {rowLabel} {i + 1}
          </legend>
          <div className="form-grid">
            {section.fields.map((field) => (
              <Control key={field.name} section={section} field={field} row={i} draft={draft} errors={errors} bipOptions={[]} />
            ))}
          </div>
          <button type="submit" className="btn" name="intent" value={`remove-row:${section.id}:${i}`}>
            Remove<span className="visually-hidden"> {`${rowLabel.toLowerCase()} ${i + 1}`}</span>
          </button>
        </fieldset>
      ))}
      {rows.length < (section.maxRows ?? Number.MAX_SAFE_INTEGER) ? (
        <button type="submit" className="btn" name="intent" value={`add-row:${section.id}`}>
          Add a row<span className="visually-hidden"> to {section.label}</span>
        </button>
      ) : (
        <p className="muted">This list is full ({section.maxRows} rows).</p>
      )}
    </fieldset>
  );
}

export function IntakeForm({
  action,
  draft,
  errors,
  version,
  patientId,
  bipOptions,
  submitLabel,
  busy,
}: {
  action: string;
  draft: Record<string, unknown>;
  errors: Record<string, string>;
  version?: number;
  patientId: number;
  bipOptions: readonly BipOption[];
  submitLabel: string;
  busy: boolean;
}) {
  return (
    <Form method="post" action={action} noValidate>
      {/* The first submit button is the one Enter presses: save, not a row's Remove. */}
      <button type="submit" name="intent" value="save" className="visually-hidden" tabIndex={-1} aria-hidden="true">
        {submitLabel}
      </button>
      <input type="hidden" name="patient_id" value={patientId} />
      {version !== undefined ? <input type="hidden" name="version" value={version} /> : null}
      {INTAKE_SECTIONS.map((section) =>
        section.kind === "list" ? (
          <RowList key={section.id} section={section} draft={draft} errors={errors} />
        ) : (
          <fieldset key={section.id} className="field-group" id={`section-${section.id}`}>
            <legend>{section.label}</legend>
            <div className="form-grid">
              {section.fields.map((field) => (
                <Control key={field.name} section={section} field={field} draft={draft} errors={errors} bipOptions={bipOptions} />
              ))}
            </div>
          </fieldset>
        ),
      )}
      <FormActions>
        <button className="btn btn-primary" type="submit" name="intent" value="save" disabled={busy} data-pending="Saving…">
          {busy ? "Saving…" : submitLabel}
        </button>
      </FormActions>
    </Form>
  );
}
