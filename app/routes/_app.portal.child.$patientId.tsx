import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { ASSET_URLS } from "~/assets";
import { BehaviorChart } from "~/components/charts/behavior-chart";
import { DataTable } from "~/components/ui/data-list";
import { Field, FormMessage } from "~/components/ui/field";
import { CheckboxField, FormActions } from "~/components/ui/form-controls";
import { buildChartModel, chartHeading } from "~/domain/chart";
import { isSignatureImage } from "~/domain/signature-image";
import { pathId } from "~/domain/validation";
import { OTHER_SIGNER } from "~/domain/consents";
import { signConsent } from "~/models/consents.server";
import { getPortalChild } from "~/models/portal.server";
import { formResult, formValues, modelContextFor, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requireId, requireParent } from "~/services/guard.server";

/**
 * The parent portal's page for one of the signed-in parent's children (docs/decisions/040): next
 * scheduled sessions, the active goals' charts (the behavior chart, read-only), recent session dates (the
 * note summary only when the clinic turns narratives on), the consents to sign, and the documents shared.
 * Parents only (staff: 403); a child that is not theirs answers 404. Signing is a plain form (typed name;
 * with JavaScript also a drawn signature), POST → 303 → GET.
 */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `${data?.child.first_name ?? "Child"} · Baseline` }];
export const handle = { guard: "parent" };

const NOTE_TYPE_LABELS: Record<string, string> = { rbt: "Therapy session", bcba: "Supervision session", combined: "Therapy and supervision session" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requireParent(request, context);
  const patientId = requireId(params.patientId, "Child");
  const page = await getPortalChild(modelContextFor(context, actor), patientId);
  if (!page) throw notFound("Child not found.");
  // Named fields only: the page data (also served as /portal/child/:id.data) carries what a parent may see (decision 040).
  const { child, upcoming, recent, toSign, signed, documents, showNarrative, goals } = page;
  const charts = goals.map(({ id, input }) => ({ id, name: input.plan.name, heading: chartHeading(input.plan.category), model: buildChartModel(input) }));
  return { child, upcoming, recent, toSign, signed, documents, showNarrative, charts };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requireParent(request, context);
  const patientId = requireId(params.patientId, "Child");
  const values = formValues(await request.formData());
  if (values.intent !== "sign") return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  const consentId = pathId(typeof values.consent_id === "string" ? values.consent_id : undefined);
  if (consentId === null) throw notFound("Consent not found.");
  // The version of the text the parent read: only that version is signed (a changed draft answers 409).
  const result = await withFormVersion(values.version, (version) => signConsent(modelContextFor(context, actor), consentId, values, { version }));
  // A consent of another of the parent's children is signed from that child's page only.
  if (result.ok && result.data.patient_id !== patientId) return formResult(result, values, (c) => `/portal/child/${c.patient_id}`);
  return formResult(result, values, () => `/portal/child/${patientId}`);
}

export default function PortalChild() {
  const d = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const name = `${d.child.first_name} ${d.child.last_name}`;
  // An answer about a consent no longer offered for signing (signed meanwhile) shows at the top.
  const orphan = answer && !d.toSign.some((c) => String(c.id) === answer.values.consent_id) ? answer : null;
  return (
    <>
      <section className="card">
        <div className="page-head">
          <h1>{name}</h1>
          <Link to="/dashboard">Back to your children</Link>
        </div>
        <FormMessage success={params.get("flash")} />
        <FormMessage error={orphan?.message} />
        <h2>Next sessions</h2>
        <DataTable
          caption="Next scheduled sessions"
          rows={d.upcoming}
          empty="No sessions scheduled."
          columns={[
            { header: "Date", cell: (s) => s.session_date },
            { header: "Time", cell: (s) => `${s.time_in}–${s.time_out}` },
            { header: "With", cell: (s) => s.provider_first_name ?? "—" },
          ]}
        />
      </section>

      <section className="card" id="consents">
        <h2>Consents to sign</h2>
        {d.toSign.length === 0 ? <p>Nothing to sign.</p> : null}
        {d.toSign.map((c) => {
          const mine = answer && answer.values.consent_id === String(c.id) ? answer : null;
          const errors = mine?.errors ?? {};
          // A refused sign keeps the drawing, as the note form does (decision 040), unless the drawing itself was refused.
          const drawn = !errors.signature && typeof mine?.values.signature === "string" && isSignatureImage(mine.values.signature) ? mine.values.signature : "";
          return (
            <article key={c.id} className="consent" aria-labelledby={`consent-${c.id}`}>
              <h3 id={`consent-${c.id}`}>{`Consent #${c.id}`}</h3>
              <ul>
                {c.section_texts.map((s) => (
                  <li key={s.label}>
                    <strong>{s.label}.</strong> {s.text}
                  </li>
                ))}
              </ul>
              {c.notes ? <p>{c.notes}</p> : null}
              <FormMessage error={mine?.message} />
              <Form method="post" noValidate data-consent-sign key={JSON.stringify(mine ?? null)}>
                <input type="hidden" name="intent" value="sign" />
                <input type="hidden" name="consent_id" value={c.id} />
                <input type="hidden" name="version" value={c.version} />
                <Field label="Your full name" name="signer_name" id={`signer-${c.id}`} autoComplete="name" maxLength={120} defaultValue={String(mine?.values.signer_name ?? "")} error={errors.signer_name} />
                <input type="hidden" name="signature" defaultValue={drawn} data-signature-input />
                {drawn ? <img className="signature-img" src={drawn} alt="Your drawn signature" data-signature-preview /> : null}
                {/* With JavaScript, a drawing pad appears here (app/client/consent-sign.ts). */}
                <div data-signature-pad="signature" data-label="Draw your signature (optional)" aria-describedby={errors.signature ? `signature-${c.id}-error` : undefined} />
                {errors.signature ? (
                  <p id={`signature-${c.id}-error`} className="field-error" role="alert">
                    {errors.signature}
                  </p>
                ) : null}
                <CheckboxField id={`agree-${c.id}`} label="I have read these sections and I agree to them." name="agree" error={errors.agree} />
                {errors.form ? (
                  <p id={`consent-${c.id}-error`} className="field-error" role="alert">
                    {errors.form}
                  </p>
                ) : null}
                <FormActions>
                  <button className="btn btn-primary" type="submit" disabled={busy}>
                    Sign consent
                  </button>
                </FormActions>
              </Form>
            </article>
          );
        })}
        {d.signed.length ? (
          <>
            <h3>Signed</h3>
            <ul>
              {d.signed.map((c) => (
                <li key={c.id} data-testid={`signed-consent-${c.id}`}>
                  {`Consent #${c.id} (${c.section_labels.join(", ")}): signed by ${c.signer_name ?? OTHER_SIGNER} on ${c.signed_on ?? ""}`}{" "}
                  <a href={`/portal/consents/${c.id}/pdf`} aria-label={`Download PDF of consent #${c.id}`}>
                    Download PDF
                  </a>
                </li>
              ))}
            </ul>
          </>
        ) : null}
        {d.toSign.length ? <script type="module" src={ASSET_URLS.consentSignJs} /> : null}
      </section>

      <section className="card">
        <h2>Progress</h2>
        {d.charts.length === 0 ? <p>No active goals to show yet.</p> : null}
        {d.charts.map((c) => (
          <figure key={c.id} className="portal-chart">
            <figcaption>
              {c.heading}: {c.name}
            </figcaption>
            <BehaviorChart model={c.model} id={`goal-${c.id}`} caption={c.name} interactive={false} />
          </figure>
        ))}
      </section>

      <section className="card">
        <h2>Recent sessions</h2>
        <DataTable
          caption="Recent sessions"
          rows={d.recent}
          empty="No sessions recorded yet."
          columns={[
            { header: "Date", cell: (s) => s.session_date },
            { header: "Session", cell: (s) => NOTE_TYPE_LABELS[s.type] ?? "Session" },
            { header: "With", cell: (s) => s.provider_first_name ?? "—" },
            { header: "Summary", cell: (s) => s.summary ?? "", when: d.showNarrative },
          ]}
        />
      </section>

      <section className="card">
        <h2>Documents</h2>
        {d.documents.length === 0 ? (
          <p>No documents shared yet.</p>
        ) : (
          <ul>
            {d.documents.map((doc) => (
              <li key={doc.id}>
                <a href={`/portal/documents/${doc.id}`}>{doc.title}</a> <small>shared {doc.shared_on}</small>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
