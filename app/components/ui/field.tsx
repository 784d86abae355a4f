import { PASSWORD_MIN_LENGTH } from "~/domain/passwords";
import type { InputHTMLAttributes, ReactNode } from "react";

/**
 * A control's label; a required control's label ends in a visible " *" (WCAG 3.3.2), drawn by the stylesheet
 * (`label.required`) and left out of the label's text and accessible name: `required` already tells assistive
 * technology, and the field keeps its plain name ("Email"). Any form with one explains it once at its top.
 */
export function Label({ htmlFor, required, children }: { htmlFor: string; required?: boolean; children: ReactNode }) {
  return (
    <label htmlFor={htmlFor} className={required ? "required" : undefined}>
      {children}
    </label>
  );
}

/**
 * A control's aria-describedby: its hint, any description the caller gives, then its error. The error is also the
 * control's aria-errormessage, but several screen readers (VoiceOver, TalkBack, older JAWS) read only
 * aria-describedby, so the error is read with the field there too (decision 021).
 */
export function describedBy(...ids: (string | false | null | undefined)[]): string | undefined {
  return ids.filter(Boolean).join(" ") || undefined;
}

/** A labelled input with its error message wired for assistive technology. */
export function Field({ label, name, error, hint, "aria-describedby": described, ...input }: { label: string; name: string; error?: string; hint?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = input.id ?? `f-${name}`;
  const errorId = `${id}-error`;
  return (
    <div className="field">
      <Label htmlFor={id} required={input.required}>
        {label}
      </Label>
      <input id={id} name={name} aria-invalid={error ? true : undefined} aria-errormessage={error ? errorId : undefined} aria-describedby={describedBy(hint && `${id}-hint`, described, error && errorId)} autoFocus={!!error} {...input} />
      {hint ? (
        <small id={`${id}-hint`} className="hint">
          {hint}
        </small>
      ) : null}
      {error ? (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** An error alone, or a success and a warning (a booking over the PA service's units), each its own message. */
export function FormMessage({ error, success, warning }: { error?: string | null; success?: string | null; warning?: string | null }) {
  if (error)
    return (
      <p className="alert alert-danger" role="alert">
        {error}
      </p>
    );
  return (
    <>
      {success ? (
        <p className="alert alert-success" role="status">
          {success}
        </p>
      ) : null}
      {warning ? (
        <p className="alert alert-warning" role="status">
          {warning}
        </p>
      ) : null}
    </>
  );
}

/** A new password and its confirmation, with the password rule as the hint. */
export function NewPasswordFields({ errors, label = "New password", confirmLabel = "Confirm new password" }: { errors: Record<string, string | undefined>; label?: string; confirmLabel?: string }) {
  return (
    <>
      <Field
        label={label}
        name="password"
        type="password"
        autoComplete="new-password"
        required
        minLength={PASSWORD_MIN_LENGTH}
        hint={`At least ${PASSWORD_MIN_LENGTH} characters.`}
        error={errors.password}
      />
      <Field label={confirmLabel} name="password_confirmation" type="password" autoComplete="new-password" required error={errors.password_confirmation} />
    </>
  );
}
