import { Form } from "@remix-run/react";
import { Field } from "~/components/ui/field";
import type { FormAnswer } from "~/services/forms.server";
import { Notice } from "./notice";
import { answerFor } from "./weekly-editor";

/**
 * "Generate from notes" on the goal screen (issue 10; docs/decisions/029): a plain form (intent
 * from-notes) with a date range, default the last 12 weeks. Works without JavaScript: POST → 303 back
 * with the flash "N weeks updated from session notes"; bad dates come back with the typed values.
 */
export function FromNotesForm({ answer, busy, range }: { answer: FormAnswer | null | undefined; busy: boolean; range: { date_from: string; date_to: string } }) {
  const a = answerFor(answer, "from-notes");
  const errors = a?.errors ?? {};
  const typed = (k: "date_from" | "date_to") => (a ? String(a.values[k] ?? "") : range[k]);
  const fieldError = errors.date_from ?? errors.date_to;
  return (
    <section aria-labelledby="from-notes" className="weekly-block">
      <h2 id="from-notes">Weekly data from session notes</h2>
      <p className="muted">
        One value per week (Sunday to Saturday) from the client&apos;s RBT notes: the mean frequency per session for a maladaptive behavior (for one measured per hour, the week&apos;s count
        with its sessions&apos; units, so the chart shows incidents per hour of session), correct responses ÷ trials × 100 for a replacement. Every week the dates touch is computed whole; a week that has a report gets the new value. At most one year at a time.
      </p>
      {a && !fieldError ? <Notice text={a.message} tone="danger" /> : null}
      <Form method="post" key={JSON.stringify(a?.values ?? null)} className="form-grid" noValidate aria-label="Generate weekly data from session notes">
        <input type="hidden" name="intent" value="from-notes" />
        <Field id="f-notes-from" label="From" name="date_from" type="date" required defaultValue={typed("date_from")} error={errors.date_from} />
        <Field id="f-notes-to" label="To" name="date_to" type="date" required defaultValue={typed("date_to")} error={errors.date_to} />
        <div className="form-actions">
          <button className="btn btn-primary" type="submit" disabled={busy}>
            Generate from notes
          </button>
        </div>
      </Form>
    </section>
  );
}
