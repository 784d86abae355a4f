import { createContext, useContext, type InputHTMLAttributes, type ReactNode, type SelectHTMLAttributes, type TextareaHTMLAttributes } from "react";
import { Label } from "~/components/ui/field";

/**
 * The note form's controls (docs/decisions/025): each one is labelled, takes its typed value from the form's
 * values by its field name (app/domain/note-form.ts), and shows the error the rules gave for that field next
 * to it (`aria-invalid`, `aria-describedby`). The first control with an error takes the focus on load, so a
 * refused save puts the user on the field to fix, with or without JavaScript.
 */

export type FormValues = Record<string, string | string[]>;

interface NoteFormState {
  values: FormValues;
  errors: Record<string, string>;
  /** Fields whose error was shown beside its control (the rest go to the summary). */
  shown: Set<string>;
  focusClaimed: { done: boolean };
  readOnly: boolean;
  /** Prefix of the element ids (a hidden CPT section repeats field names; ids stay unique). */
  idPrefix: string;
}

const Ctx = createContext<NoteFormState>({ values: {}, errors: {}, shown: new Set(), focusClaimed: { done: false }, readOnly: false, idPrefix: "" });

export function NoteFormProvider({
  values,
  errors,
  readOnly = false,
  idPrefix = "",
  children,
}: {
  values: FormValues;
  errors: Record<string, string>;
  readOnly?: boolean;
  idPrefix?: string;
  children: ReactNode;
}) {
  return <Ctx.Provider value={{ values, errors, shown: new Set(), focusClaimed: { done: false }, readOnly, idPrefix }}>{children}</Ctx.Provider>;
}

export function useNoteForm() {
  return useContext(Ctx);
}

/** The element id of a field: `content.maladaptives[0].frequency` → `f-content-maladaptives-0-frequency`. */
export function fieldId(name: string): string {
  return `f-${name.replace(/[^A-Za-z0-9_]+/g, "-").replace(/-+$/, "")}`;
}

export function valueOf(values: FormValues, name: string): string {
  const v = values[name];
  return Array.isArray(v) ? (v[0] ?? "") : (v ?? "");
}

export function valuesOf(values: FormValues, name: string): string[] {
  const v = values[name];
  return Array.isArray(v) ? v : v === undefined || v === "" ? [] : [v];
}

/** The error of a field and the attributes that tie it to its control; the first control with an error takes the focus. */
export function useFieldError(name: string, hintId?: string) {
  const state = useNoteForm();
  const error = state.errors[name];
  const id = state.idPrefix + fieldId(name);
  const errorId = `${id}-error`;
  let autoFocus = false;
  if (error) {
    state.shown.add(name);
    if (!state.focusClaimed.done) {
      state.focusClaimed.done = true;
      autoFocus = true;
    }
  }
  const describedBy = [hintId, error ? errorId : null].filter(Boolean).join(" ") || undefined;
  return {
    id,
    error,
    attrs: { "aria-invalid": error ? (true as const) : undefined, "aria-describedby": describedBy, autoFocus: autoFocus || undefined },
    node: error ? (
      <p id={errorId} className="field-error" role="alert">
        {error}
      </p>
    ) : null,
  };
}

type InputProps = { label: ReactNode; name: string; hint?: ReactNode; value?: string } & Omit<InputHTMLAttributes<HTMLInputElement>, "name" | "value" | "defaultValue">;

export function NoteInput({ label, name, hint, value, className, ...input }: InputProps) {
  const { values, readOnly, idPrefix } = useNoteForm();
  const hintId = hint ? `${idPrefix}${fieldId(name)}-hint` : undefined;
  const f = useFieldError(name, hintId);
  return (
    <div className={`field ${className ?? ""}`.trim()}>
      <Label htmlFor={f.id} required={input.required}>
        {label}
      </Label>
      <input id={f.id} name={name} defaultValue={value ?? valueOf(values, name)} readOnly={readOnly || undefined} {...f.attrs} {...input} />
      <FieldFoot hint={hint} hintId={hintId} error={f.node} />
    </div>
  );
}

export function NoteTextarea({ label, name, hint, ...area }: { label: string; name: string; hint?: ReactNode } & Omit<TextareaHTMLAttributes<HTMLTextAreaElement>, "name">) {
  const { values, readOnly, idPrefix } = useNoteForm();
  const hintId = hint ? `${idPrefix}${fieldId(name)}-hint` : undefined;
  const f = useFieldError(name, hintId);
  return (
    <div className="field">
      <Label htmlFor={f.id} required={area.required}>
        {label}
      </Label>
      <textarea id={f.id} name={name} rows={area.rows ?? 3} defaultValue={valueOf(values, name)} readOnly={readOnly || undefined} maxLength={area.maxLength ?? 5000} {...f.attrs} {...area} />
      <FieldFoot hint={hint} hintId={hintId} error={f.node} />
    </div>
  );
}

export function NoteSelect({
  label,
  name,
  options,
  placeholder,
  hint,
  ...select
}: { label: string; name: string; options: readonly { value: string | number; label: string; off?: boolean }[]; placeholder?: string; hint?: ReactNode } & Omit<SelectHTMLAttributes<HTMLSelectElement>, "name">) {
  const { values, readOnly, idPrefix } = useNoteForm();
  const hintId = hint ? `${idPrefix}${fieldId(name)}-hint` : undefined;
  const f = useFieldError(name, hintId);
  const current = valueOf(values, name);
  const known = options.some((o) => String(o.value) === current);
  return (
    <div className="field">
      <Label htmlFor={f.id} required={select.required}>
        {label}
      </Label>
      <select id={f.id} name={name} defaultValue={current} disabled={readOnly || undefined} {...f.attrs} {...select}>
        {placeholder !== undefined ? <option value="">{placeholder}</option> : null}
        {/* A typed value no longer among the options stays visible, so the user sees what was refused. */}
        {!known && current !== "" ? <option value={current}>{current}</option> : null}
        {options.map((o) => (
          // `off`: not offered (disabled and hidden), kept so the browser module can offer it again.
          <option key={o.value} value={o.value} disabled={o.off || undefined} hidden={o.off || undefined}>
            {o.label}
          </option>
        ))}
      </select>
      <FieldFoot hint={hint} hintId={hintId} error={f.node} />
    </div>
  );
}

export function NoteCheckbox({ label, name, value = "on" }: { label: string; name: string; value?: string }) {
  const { values, readOnly } = useNoteForm();
  const f = useFieldError(name);
  const checked = valuesOf(values, name).some((v) => v === value || v === "on" || v === "true");
  return (
    <div className="field-check">
      <input id={f.id} type="checkbox" name={name} value={value} defaultChecked={checked} disabled={readOnly || undefined} {...f.attrs} />
      <label htmlFor={f.id}>{label}</label>
      {f.node}
    </div>
  );
}

/** Several checkboxes sharing one list name (`content.interventions[]`). */
export function NoteCheckboxList({ legend, name, options, hint }: { legend: string; name: string; options: readonly string[]; hint?: string }) {
  const { values, readOnly } = useNoteForm();
  const f = useFieldError(name);
  const selected = valuesOf(values, name);
  // Values typed before that are no longer offered stay, so nothing typed is dropped silently.
  const all = [...options, ...selected.filter((s) => !options.includes(s))];
  return (
    <fieldset className="field note-checks" aria-invalid={f.error ? true : undefined} aria-describedby={f.attrs["aria-describedby"]}>
      <legend>{legend}</legend>
      {hint ? <small className="hint">{hint}</small> : null}
      {all.length === 0 ? <p className="muted">None in the client's active plans.</p> : null}
      {all.map((o, i) => (
        <label key={o} className="check-row" htmlFor={`${f.id}-${i}`}>
          <input id={`${f.id}-${i}`} type="checkbox" name={name} value={o} defaultChecked={selected.includes(o)} disabled={readOnly || undefined} /> {o}
        </label>
      ))}
      {f.node}
    </fieldset>
  );
}

/** The error of a whole list (`content.maladaptives`: the rules name the list, not the row). */
export function ListError({ name }: { name: string }) {
  const f = useFieldError(name);
  return f.node;
}

/** The errors no control showed (a field the form does not have, or the note as a whole), as a list at the top. */
export function UnshownErrors() {
  const { errors, shown } = useNoteForm();
  const rest = Object.entries(errors).filter(([k]) => !shown.has(k));
  if (rest.length === 0) return null;
  return (
    <ul className="alert alert-danger" role="alert">
      {rest.map(([k, m]) => (
        <li key={k}>{m}</li>
      ))}
    </ul>
  );
}

/** A field's hint (described by the input) and its error message, under the control. */
function FieldFoot({ hint, hintId, error }: { hint?: ReactNode; hintId?: string; error: ReactNode }) {
  return (
    <>
      {hint ? (
        <small id={hintId} className="hint">
          {hint}
        </small>
      ) : null}
      {error}
    </>
  );
}
