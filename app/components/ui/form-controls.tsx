import type { ReactNode, SelectHTMLAttributes, TextareaHTMLAttributes } from "react";
import { describedBy, Label } from "~/components/ui/field";

/**
 * Form controls that work without JavaScript; each shows its field error and keeps the typed value. A control
 * with an error takes the focus when the page loads (the first one in the page wins), as `Field` does.
 */

/** A field's error beside it (`${id}-error`, the control's aria-errormessage). */
export function ErrorText({ id, error }: { id: string; error?: string }) {
  return error ? (
    <p id={`${id}-error`} className="field-error" role="alert">
      {error}
    </p>
  ) : null;
}

export function SelectField({
  label,
  name,
  error,
  options,
  placeholder,
  "aria-describedby": described,
  ...select
}: { label: string; name: string; error?: string; options: readonly { value: string | number; label: string }[]; placeholder?: string } & SelectHTMLAttributes<HTMLSelectElement>) {
  const id = select.id ?? `f-${name}`;
  return (
    <div className="field">
      <Label htmlFor={id} required={select.required}>
        {label}
      </Label>
      <select id={id} name={name} aria-invalid={error ? true : undefined} aria-errormessage={error ? `${id}-error` : undefined} aria-describedby={describedBy(described, error && `${id}-error`)} autoFocus={!!error} {...select}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      <ErrorText id={id} error={error} />
    </div>
  );
}

export function TextareaField({ label, name, error, "aria-describedby": described, ...area }: { label: string; name: string; error?: string } & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const id = area.id ?? `f-${name}`;
  return (
    <div className="field">
      <Label htmlFor={id} required={area.required}>
        {label}
      </Label>
      <textarea id={id} name={name} rows={area.rows ?? 4} aria-invalid={error ? true : undefined} aria-errormessage={error ? `${id}-error` : undefined} aria-describedby={describedBy(described, error && `${id}-error`)} autoFocus={!!error} {...area} />
      <ErrorText id={id} error={error} />
    </div>
  );
}

export function CheckboxField({ label, name, defaultChecked, error, hint, id: given }: { label: string; name: string; defaultChecked?: boolean; error?: string; hint?: string; id?: string }) {
  const id = given ?? `f-${name}`;
  return (
    <div className="field-check">
      <input id={id} type="checkbox" name={name} value="true" defaultChecked={defaultChecked} aria-invalid={error ? true : undefined} aria-errormessage={error ? `${id}-error` : undefined} aria-describedby={describedBy(hint && `${id}-hint`, error && `${id}-error`)} autoFocus={!!error} />
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      ) : null}
      <ErrorText id={id} error={error} />
    </div>
  );
}

/**
 * Several checkboxes sharing one name (a form repeats it; the schema reads a list). Its error describes the group
 * (read with the legend when a box is reached) and its first box takes the focus, as the other controls do.
 */
export function CheckboxGroup({ legend, name, options, selected, error }: { legend: string; name: string; options: readonly { value: string; label: string }[]; selected: readonly string[]; error?: string }) {
  const errorId = error ? `f-${name}-error` : undefined;
  return (
    <fieldset className="field" aria-invalid={error ? true : undefined} aria-describedby={errorId}>
      <legend>{legend}</legend>
      {options.map((o, i) => (
        <label key={o.value} className="check-inline">
          <input type="checkbox" name={name} value={o.value} defaultChecked={selected.includes(o.value)} aria-invalid={error ? true : undefined} aria-errormessage={errorId} autoFocus={!!error && i === 0} /> {o.label}
        </label>
      ))}
      <ErrorText id={`f-${name}`} error={error} />
    </fieldset>
  );
}

/** A CheckboxGroup's choice shown but not offered for change: the options listed, each posted as it is (hidden), so the rest of the form saves. */
export function FixedChoice({ legend, name, options, error }: { legend: string; name: string; options: readonly { value: string; label: string }[]; error?: string }) {
  return (
    <fieldset className="field" aria-invalid={error ? true : undefined}>
      <legend>{legend}</legend>
      <ul id={`f-${name}`}>
        {options.map((o) => (
          <li key={o.value}>
            {o.label}
            <input type="hidden" name={name} value={o.value} />
          </li>
        ))}
      </ul>
      <ErrorText id={`f-${name}`} error={error} />
    </fieldset>
  );
}

export function FormActions({ children }: { children: ReactNode }) {
  return <div className="form-actions">{children}</div>;
}
