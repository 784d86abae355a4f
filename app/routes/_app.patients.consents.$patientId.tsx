import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { StaleNotice } from "~/components/ui/stale-notice";
import { CheckboxGroup, FormActions, TextareaField } from "~/components/ui/form-controls";
import { DataTable } from "~/components/ui/data-list";
import { CONSENT_MESSAGES, CONSENT_SECTIONS, consentStatusLabel } from "~/domain/consents";
import { can } from "~/domain/permissions";
import { pathId } from "~/domain/validation";
import { listPatientConsents, saveConsentDraft, withdrawConsent, type ConsentJson } from "~/models/consents.server";
import { formResult, formValues, parentInAddress, modelContextFor, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { forbidden, notFound, requireId, requirePermission } from "~/services/guard.server";
import { randomToken } from "~/services/crypto.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

/**
 * The client-consent-form screen (clinical §2; docs/decisions/040): the client's consents (who signed
 * what and when), and — with manage_clients — the form that writes a draft for the client's parent to
 * sign on the parent portal (`?edit=<id>` loads a draft into it). The sections come from the server with
 * the page, so they cannot fail to load; the spec's message stays for an empty section list. A signed
 * consent is read-only: it offers its PDF only. A draft can be withdrawn (a small POST form per draft):
 * it stays on the list as withdrawn and the parent no longer sees it.
 */
export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Consents · ${data?.patient.name ?? "Client"} · Baseline` }];
export const handle = { guard: "view_clients" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_clients");
  const patientId = requireId(params.patientId, "Patient");
  const found = await listPatientConsents(modelContextFor(context, actor), patientId);
  if (!found) throw notFound(CLIENT_NOT_FOUND);
  const canManage = can(actor, "manage_clients");
  const editId = pathId(new URL(request.url).searchParams.get("edit") ?? undefined);
  const editing = canManage && editId !== null ? (found.consents.find((c) => c.id === editId && c.editable) ?? null) : null;
  // The new-consent form's one-time token per load: a resend of it (a double click) writes one draft (decision 024).
  return { ...found, canManage, editing, sections: CONSENT_SECTIONS.map((s) => ({ value: String(s.id), label: s.label, text: s.text })), formToken: randomToken(18) };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_clients");
  if (!can(actor, "manage_clients")) throw forbidden();
  const patientId = requireId(params.patientId, "Patient");
  const values = formValues(await request.formData());
  if (values.intent !== "save" && values.intent !== "withdraw") return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  const rawId = typeof values.id === "string" && values.id !== "" ? values.id : null;
  const id = rawId === null ? null : pathId(rawId);
  if (rawId !== null && id === null) throw notFound("Consent not found.");
  const ctx = modelContextFor(context, actor);
  if (values.intent === "withdraw") {
    if (id === null) throw notFound("Consent not found.");
    // Only a consent of this client is withdrawn from this client's page (another's: 404, nothing changed).
    return formResult(await withFormVersion(values.version, (version) => withdrawConsent(ctx, id, { version, patientId })), values, () => `/patients/consents/${patientId}`);
  }
  const sections = Array.isArray(values.sections) ? values.sections : values.sections ? [values.sections] : [];
  const result = await withFormVersion(values.version, (version) => saveConsentDraft(ctx, { patient_id: patientId, sections, notes: values.notes ?? "" }, { id, version, formToken: typeof values.form_token === "string" ? values.form_token : null }));
  // The client is this page's address: one the actor cannot see is the page's 404, not a field error.
  parentInAddress(result, "patient_id", CLIENT_NOT_FOUND);
  // A consent id that belongs to another client is not this client's: it answers like one that does not exist.
  if (result.ok && result.data.patient_id !== patientId) throw notFound("Consent not found.");
  if (!result.ok && result.status === 422 && result.errors.patient_id) throw notFound("Consent not found.");
  return formResult(result, values, () => `/patients/consents/${patientId}`);
}

function signedText(c: ConsentJson): string {
  if (c.status === "withdrawn") return c.withdrawn_at ? `Withdrawn ${c.withdrawn_at.slice(0, 10)} ${c.withdrawn_at.slice(11, 16)} UTC` : "Withdrawn";
  if (c.status !== "signed") return "Not signed yet";
  const at = c.signed_at ? `${c.signed_at.slice(0, 10)} ${c.signed_at.slice(11, 16)} UTC` : "";
  return `${c.signer_name ?? ""}${c.signer_type === "parent" ? " (parent)" : ""} · ${at}`;
}

export default function ClientConsentForm() {
  const { patient, consents, canManage, editing, sections, formToken: fresh } = useLoaderData<typeof loader>();
  const posted = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  // The draft form shows only its own answer; a refused withdrawal shows its message at the top.
  const answer = posted?.values.intent === "save" ? posted : undefined;
  const errors = answer?.errors ?? {};
  const answered = (answer?.current ?? null) as ConsentJson | null;
  // A consent signed or withdrawn while it was being edited (409) is not loaded into the form again: the message says why.
  const lost = answered !== null && !answered.editable;
  const typed = lost ? undefined : answer?.values;
  const current = lost ? null : answered;
  const draft = current ?? editing;
  const selected: string[] = typed && !current ? (Array.isArray(typed.sections) ? typed.sections : typed.sections ? [typed.sections] : []) : (draft?.sections.map(String) ?? sections.map((s) => s.value));
  const notes = typed && !current ? String(typed.notes ?? "") : (draft?.notes ?? "");
  const id = typed && !current ? String(typed.id ?? "") : draft ? String(draft.id) : "";
  const version = current ? String(current.version) : typed ? String(typed.version ?? "") : draft ? String(draft.version) : "";
  // A create shown again after a refusal keeps its token, so its resend still writes once.
  const formToken = typed && typeof typed.form_token === "string" && typed.form_token ? typed.form_token : fresh;
  // A draft changed by someone else meanwhile (409): the form shows it as stored; what was typed is listed, sections by name.
  const stale = current;
  const sectionNames = (ids: unknown) => (Array.isArray(ids) ? ids : ids ? [ids] : []).map((v) => sections.find((s) => s.value === String(v))?.label ?? String(v));
  return (
    <section className="card">
      <div className="page-head">
        <h1>Consents · {patient.name}</h1>
        <Link to={`/patients/profile/${patient.id}`}>Back to the client</Link>
      </div>
      <FormMessage success={params.get("flash")} />
      {stale ? null : <FormMessage error={posted?.message} />}
      <h2>Consents</h2>
      <DataTable
        caption="The client's consents"
        rows={consents}
        empty="No consents yet."
        columns={[
          { header: "Consent", cell: (c) => `#${c.id}` },
          { header: "Sections", cell: (c) => c.section_labels.join(", ") },
          { header: "Status", cell: (c) => <span className="badge" data-testid={`status-${c.id}`}>{consentStatusLabel(c.status)}</span> },
          { header: "Signed by", cell: (c) => <span data-testid={`signed-${c.id}`}>{signedText(c)}</span> },
          {
            header: "Actions",
            hideHeader: true,
            className: "actions",
            cell: (c) => (
              <>
                <a href={`/patients/consents/pdf/${c.id}?print=1`} target="_blank" rel="noreferrer">
                  PDF
                </a>
                {canManage && c.editable ? (
                  <>
                    {" · "}
                    <Link to={`?edit=${c.id}`}>Edit</Link>
                    {" · "}
                    <Form method="post" className="inline-form">
                      <input type="hidden" name="intent" value="withdraw" />
                      <input type="hidden" name="id" value={c.id} />
                      <input type="hidden" name="version" value={c.version} />
                      <button className="link-button" type="submit" disabled={busy} aria-label={`Withdraw consent #${c.id}`}>
                        Withdraw
                      </button>
                    </Form>
                  </>
                ) : null}
              </>
            ),
          },
        ]}
      />
      {!patient.has_parent ? <p className="hint">This client has no parent linked: a parent signs consents on the parent portal once linked.</p> : null}
      {canManage ? (
        <>
          <h2>{id ? `Edit consent #${id}` : "New consent"}</h2>
          {stale ? (
            <StaleNotice
              message={answer!.message}
              version={stale.version}
              unsaved={{ ...answer!.values, sections: sectionNames(answer!.values.sections) }}
              hidden={["intent", "id", "version", "form_token"]}
              stored={{ sections: sectionNames(stale.sections), notes: stale.notes }}
            />
          ) : null}
          <Form method="post" noValidate key={JSON.stringify([id, version, selected, notes])}>
            <input type="hidden" name="intent" value="save" />
            <input type="hidden" name="id" value={id} />
            <input type="hidden" name="version" value={version} />
            {id ? null : <input type="hidden" name="form_token" value={formToken} />}
            {sections.length === 0 ? (
              <p className="field-error" role="alert">
                {CONSENT_MESSAGES.sectionsLoadError}
              </p>
            ) : (
              <CheckboxGroup legend="Sections" name="sections" options={sections} selected={selected} error={errors.sections} />
            )}
            <TextareaField label="Notes (optional)" name="notes" defaultValue={notes} maxLength={2000} error={errors.notes} />
            {errors.form ? (
              <p className="field-error" role="alert">
                {errors.form}
              </p>
            ) : null}
            <FormActions>
              <button className="btn btn-primary" type="submit" disabled={busy}>
                {id ? "Save consent" : "Create consent"}
              </button>
              {id ? <Link to=".">Cancel</Link> : null}
            </FormActions>
          </Form>
        </>
      ) : null}
    </section>
  );
}
