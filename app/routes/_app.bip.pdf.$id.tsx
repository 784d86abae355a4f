import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { FormMessage } from "~/components/ui/field";
import { ErrorText } from "~/components/ui/form-controls";
import { Link } from "~/components/ui/link";
import { DEFAULT_PDF_MONTHS, isSectionToggle, MAX_PDF_MONTHS, PDF_SECTION_KEYS, PDF_SECTIONS, SECTION_TOGGLES, sectionToggle } from "~/domain/plan-pdf";
import { findBipInScope } from "~/models/bip-scope.server";
import { requestPlanPdf } from "~/models/pdf-jobs.server";
import { auditRead, auditWho } from "~/services/audit.server";
import { randomToken } from "~/services/crypto.server";
import { formValues, modelContextFor } from "~/services/forms.server";
import { notFound, requireId, requirePermission } from "~/services/guard.server";

/**
 * The plan PDF's 'Select sections' chooser (clinical §2, §4, §5; decision 041): the 26 sections, all
 * checked at first; Select All / Deselect All ticks or clears them all (a submit button carrying the action it
 * shows without JavaScript, in place with it: public/enhance.js); Close goes back to the plan; Save PDF queues the job and opens its status page
 * (so does Enter in the month count). No section chosen answers 'You must select at least one section.' beside the
 * sections, with the focus on the first box (decision 041, stop 29).
 */
export const meta: MetaFunction = () => [{ title: "Plan PDF · Baseline" }];
export const handle = { guard: "view_bips" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const id = requireId(params.id, "BIP");
  const ctx = modelContextFor(context, actor);
  const bip = await findBipInScope(ctx, id);
  if (!bip) throw notFound("BIP not found.");
  // The chooser names the plan's client: a read of the BIP, recorded (decision 019).
  await auditRead(ctx.db, auditWho(ctx), { entity: "bip", entityId: bip.bipId, patientId: bip.patientId }, bip.tail);
  // A one-time token per load of the form: a resend of it (a double click) makes one job and opens it (decision 041).
  return { bip: { id: bip.bipId, patientName: bip.patientName }, formToken: randomToken(18) };
}

interface ChooserAnswer {
  selected: string[];
  months: string;
  errors: Record<string, string>;
  message: string | null;
  /** The form's one-time token as posted, kept when the form is shown again (a toggle, a refusal). */
  formToken: string;
}

const listOf = (x: string | string[] | undefined) => (x === undefined || x === "" ? [] : Array.isArray(x) ? x : [x]);

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_bips");
  const id = requireId(params.id, "BIP");
  const values = formValues(await request.formData());
  const selected = listOf(values.sections).filter((s) => (PDF_SECTION_KEYS as readonly string[]).includes(s));
  const months = String(values.months ?? "");
  const formToken = typeof values.form_token === "string" ? values.form_token : "";
  // Select All / Deselect All: what the button said, whatever boxes were changed since the page was drawn.
  if (isSectionToggle(values.intent)) return data<ChooserAnswer>({ selected: [...SECTION_TOGGLES[values.intent].sections], months, errors: {}, message: null, formToken });
  // Anything else (the toggle's intent=toggle of a page drawn before stop 35) makes no PDF.
  if (values.intent !== "save") return data<ChooserAnswer>({ selected, months, errors: {}, message: "Unknown action.", formToken }, { status: 400 });
  const ctx = modelContextFor(context, actor);
  const result = await requestPlanPdf(ctx, { env: context.app.env, waitUntil: context.app.waitUntil }, id, { sections: listOf(values.sections), months }, { formToken });
  if (result.ok) return redirect(`/pdf-jobs/${result.data.id}`, 303);
  if (result.status === 404) throw notFound(result.message);
  const errors = result.status === 422 ? result.errors : {};
  return data<ChooserAnswer>({ selected, months, errors, message: result.message, formToken }, { status: result.status });
}

export default function PlanPdfChooser() {
  const { bip, formToken: fresh } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const selected = answer ? answer.selected : [...PDF_SECTION_KEYS];
  const toggle = sectionToggle(selected);
  const sectionError = answer?.errors.sections;
  const monthsError = answer?.errors.months;
  // A refusal of the form as a whole (a used form), or one that names no field.
  const formError = answer ? (answer.errors.form ?? (Object.keys(answer.errors).length === 0 ? answer.message : null)) : null;
  const formToken = answer?.formToken || fresh;

  return (
    <section className="card" aria-labelledby="select-sections">
      <p className="muted">
        <Link to={`/bip/profile/${bip.id}`}>{bip.patientName} · Behavior plan</Link>
      </p>
      <h1 id="select-sections">Select sections</h1>
      <FormMessage error={formError} />
      <Form method="post">
        <input type="hidden" name="form_token" value={formToken} />
        {/* The first submit button is the one Enter presses (in the month count): Save PDF, not Deselect All. */}
        <button type="submit" name="intent" value="save" className="visually-hidden" tabIndex={-1} aria-hidden="true">
          Save PDF
        </button>
        <fieldset aria-describedby={sectionError ? "sections-error" : undefined}>
          <legend>Sections of the PDF</legend>
          <ErrorText id="sections" error={sectionError} />
          <ul className="checkbox-list">
            {PDF_SECTIONS.map((s, i) => (
              <li key={`${s.key}-${selected.includes(s.key)}`}>
                <label>
                  <input type="checkbox" name="sections" value={s.key} defaultChecked={selected.includes(s.key)} autoFocus={i === 0 && !!sectionError} /> {s.label}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <p>
          <label htmlFor="months">Months of weekly data and comments</label>{" "}
          <input
            id="months"
            name="months"
            type="number"
            min={1}
            max={MAX_PDF_MONTHS}
            step={1}
            defaultValue={answer?.months ?? String(DEFAULT_PDF_MONTHS)}
            aria-invalid={monthsError ? true : undefined}
            aria-describedby={monthsError ? "months-error" : undefined}
            autoFocus={!!monthsError && !sectionError}
          />
          {monthsError ? (
            <span id="months-error" className="field-error">
              {monthsError}
            </span>
          ) : null}
        </p>
        <p className="actions">
          <Link className="btn" to={`/bip/profile/${bip.id}`}>
            Close
          </Link>{" "}
          {/* Without JavaScript it submits the action it shows (intent=select-all or select-none); with it, public/enhance.js
              flips the boxes in place (data-toggle-all) and keeps its label and value with the boxes. */}
          <button
            type="submit"
            name="intent"
            value={toggle}
            className="btn"
            data-toggle-all="sections"
            data-label-all={SECTION_TOGGLES["select-all"].label}
            data-value-all="select-all"
            data-label-none={SECTION_TOGGLES["select-none"].label}
            data-value-none="select-none"
          >
            {SECTION_TOGGLES[toggle].label}
          </button>{" "}
          <button type="submit" name="intent" value="save" className="btn btn-primary" disabled={busy}>
            Save PDF
          </button>
        </p>
      </Form>
    </section>
  );
}
