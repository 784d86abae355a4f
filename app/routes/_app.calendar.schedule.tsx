import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { Field, FormMessage } from "~/components/ui/field";
import { SelectField } from "~/components/ui/form-controls";
import { flashWithWarning } from "~/domain/flash";
import { can } from "~/domain/permissions";
import { SCHEDULE_CPT_CODES } from "~/domain/schedule";
import { TIME_OUT_FIELD } from "~/domain/notes";
import { formFields, parseWith, pathId, searchText } from "~/domain/validation";
import { clientChoices } from "~/models/bips.server";
import { bookingFormOptions, bookSessions, type BookingFormOptions } from "~/models/schedule.server";
import { auditClientsRead, auditWho } from "~/services/audit.server";
import { modelContextFor, parentInAddress } from "~/services/forms.server";
import { forbidden, notFound, requirePermission } from "~/services/guard.server";
import { randomToken } from "~/services/crypto.server";
import { CLIENT_NOT_FOUND } from "~/domain/patients";

export const meta: MetaFunction = () => [{ title: "Schedule a session · Baseline" }];
/**
 * Schedule a session (issue 12, decision 037): choose the client, then provider, CPT, PA service, date, time
 * in and out, once or weekly until a date. view_notes books for oneself; manage_notes for another provider
 * (decision 023). A refusal shows next to its field with the typed values kept; a PA units warning shows on
 * the calendar after the booking.
 */
export const handle = { guard: "view_notes" };

type Choice = { id: number; name: string; identifier: string };
type LoaderData =
  | { kind: "choose"; choices: Choice[]; search: string; notice: string | null }
  | { kind: "form"; options: BookingFormOptions; values: Record<string, string>; manages: boolean; selfId: number };

export async function loader({ request, context }: LoaderFunctionArgs): Promise<LoaderData> {
  const { actor, auditTail } = await requirePermission(request, context, "view_notes");
  const ctx = modelContextFor(context, actor);
  const url = new URL(request.url);
  const patientId = pathId(url.searchParams.get("patient_id") ?? undefined);
  if (patientId === null) {
    const raw = url.searchParams.get("search") ?? "";
    const searched = parseWith(searchText(), raw);
    const choices = searched.ok ? await clientChoices(ctx, searched.data) : [];
    await auditClientsRead(context.app.db, auditWho(ctx), "patient", choices.map((c) => c.id), auditTail);
    return { kind: "choose", choices: choices.map((c) => ({ id: c.id, name: c.name, identifier: c.identifier })), search: raw.slice(0, 100), notice: searched.ok ? null : (searched.errors.form ?? null) };
  }
  const options = await bookingFormOptions(ctx, patientId);
  if (!options) throw notFound(CLIENT_NOT_FOUND);
  const values: Record<string, string> = {
    patient_id: String(patientId),
    provider_id: String(actor.id),
    session_date: url.searchParams.get("session_date")?.slice(0, 10) || options.today,
    cpt_code: options.paServices[0]?.cpt ?? "",
    pa_service_id: options.paServices.length === 1 ? String(options.paServices[0]!.value) : "",
    time_in: "",
    time_out: "",
    repeat: "once",
    until: "",
    // The form's one-time token per load: a resend of it (a slow answer, a double click) answers the first booking (decision 037).
    form_token: randomToken(18),
  };
  return { kind: "form", options, values, manages: can(actor, "manage_notes"), selfId: actor.id };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  const ctx = modelContextFor(context, actor);
  const posted = formFields(await request.formData());
  // The one-time token is not a booking field; it rides back in the answer's values, so the form shown again keeps it.
  const { form_token: formToken, ...values } = posted;
  // The client is this page's address (?patient_id=): one the actor cannot see is the page's 404, not a field error.
  const result = parentInAddress(await bookSessions(ctx, values, { formToken: typeof formToken === "string" ? formToken : null }), "patient_id", CLIENT_NOT_FOUND);
  if (result.ok) {
    const first = result.data.sessions[0]?.session_date ?? values.session_date ?? "";
    const message = flashWithWarning(result.message ?? "", result.data.warning);
    return redirect(`/calendar/view?view=week&date=${encodeURIComponent(first)}&patient_id=${encodeURIComponent(values.patient_id ?? "")}&flash=${encodeURIComponent(message)}`, 303);
  }
  if (result.status === 404) throw notFound(result.message);
  if (result.status === 403) throw forbidden(result.message);
  return data({ errors: result.status === 422 ? result.errors : {}, message: result.message, values: posted }, { status: result.status });
}

export default function Schedule() {
  const loaded = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  if (loaded.kind === "choose") {
    return (
      <section className="card">
        <div className="page-head">
          <h1>Schedule a session</h1>
          <Link className="btn" to="/calendar/view">
            Back to the calendar
          </Link>
        </div>
        <Form method="get" className="search-form" role="search">
          <label htmlFor="s-search">Find the client</label>
          <input id="s-search" type="search" name="search" defaultValue={loaded.search} />
          <button type="submit" className="btn">
            Search
          </button>
        </Form>
        <FormMessage error={loaded.notice} />
        <ul className="choice-list">
          {loaded.choices.map((c) => (
            <li key={c.id}>
              <Link className="btn choice" to={`/calendar/schedule?patient_id=${c.id}`}>
                {c.name} ({c.identifier})
              </Link>
            </li>
          ))}
        </ul>
        {loaded.choices.length === 0 ? <p className="hint">No client matches.</p> : null}
      </section>
    );
  }
  const { options, manages, selfId } = loaded;
  const values = { ...loaded.values, ...(answer?.values ?? {}) };
  const errors: Record<string, string> = answer?.errors ?? {};
  // The fields shown as inputs carry their own errors; any other (the client, or the provider when it is a hidden
  // input for a user booking for themselves) is said at the top of the form, never dropped.
  const shown = new Set(["cpt_code", "pa_service_id", "session_date", "time_in", "time_out", "repeat", "until", ...(manages ? ["provider_id"] : [])]);
  const other = Object.entries(errors).filter(([k]) => !shown.has(k)).map(([, m]) => m);
  return (
    <section className="card">
      <div className="page-head">
        <h1>Schedule a session for {options.patient.name}</h1>
        <Link className="btn" to={`/calendar/view?patient_id=${options.patient.id}`}>
          Back to the calendar
        </Link>
      </div>
      <p className="hint">Times are the local time of the client's location ({options.patient.time_zone}). The same rules as notes apply: no overlap for the client or the provider, 15 minutes between the provider's sessions, at most 10 hours a day and 40 hours a week for the client.</p>
      <FormMessage error={answer && Object.keys(errors).length === 0 ? answer.message : other.length ? other.join(" ") : answer ? null : options.notice} />
      <Form method="post" className="note-form" noValidate>
        <input type="hidden" name="patient_id" value={options.patient.id} />
        {values.form_token ? <input type="hidden" name="form_token" value={values.form_token} /> : null}
        {manages ? (
          <SelectField label="Provider" name="provider_id" options={options.providers} defaultValue={values.provider_id} error={errors.provider_id} />
        ) : (
          <input type="hidden" name="provider_id" value={selfId} />
        )}
        <SelectField label="CPT" name="cpt_code" options={SCHEDULE_CPT_CODES.map((c) => ({ value: c, label: c }))} placeholder="Choose a CPT code" defaultValue={values.cpt_code} error={errors.cpt_code} />
        <SelectField label="PA service" name="pa_service_id" options={options.paServices} placeholder="Choose the PA service" defaultValue={values.pa_service_id} error={errors.pa_service_id} />
        <div className="note-grid">
          <Field label="Date" name="session_date" type="date" defaultValue={values.session_date} error={errors.session_date} required />
          <SelectField
            label="Repeat"
            name="repeat"
            options={[
              { value: "once", label: "Once" },
              { value: "weekly", label: "Weekly on this weekday" },
            ]}
            defaultValue={values.repeat}
            error={errors.repeat}
          />
          <Field label="Time in" name="time_in" type="time" defaultValue={values.time_in} error={errors.time_in} required />
          <Field label="Time out" name="time_out" {...TIME_OUT_FIELD} defaultValue={values.time_out} error={errors.time_out} required />
          <Field label="Until (weekly: the last date, inclusive)" name="until" type="date" defaultValue={values.until} error={errors.until} hint="At most 53 sessions in one series." />
        </div>
        <div className="form-actions">
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? "Scheduling…" : "Schedule"}
          </button>
        </div>
      </Form>
    </section>
  );
}
