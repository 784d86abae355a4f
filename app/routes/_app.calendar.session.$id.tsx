import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { can } from "~/domain/permissions";
import { longDate, noteNotYetWritable, SCHEDULE_MESSAGES, writeNoteHref } from "~/domain/schedule";
import { zonePlace } from "~/domain/time";
import { cancelRestOfSeries, cancelSession, getScheduledSession } from "~/models/schedule.server";
import { modelContextFor } from "~/services/forms.server";
import { forbidden, notFound, requireId, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Scheduled session · Baseline" }];
/**
 * One scheduled session (issue 12, decision 037; view_notes, its client's location): its details, "Write the
 * note" (the note form filled in from it), cancel this one, cancel the rest of its weekly series.
 */
export const handle = { guard: "view_notes" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  const ctx = modelContextFor(context, actor);
  const id = requireId(params.id, "Scheduled session");
  const session = await getScheduledSession(ctx, id);
  if (!session) throw notFound("Scheduled session not found.");
  const mayChange = session.provider_id === actor.id || can(actor, "manage_notes");
  // "Write the note" once the session has ended where its note's save checks it, the client's current location
  // (a note cannot end in the future: decision 037).
  return { session, mayChange, notYet: noteNotYetWritable({ ...session, time_zone: session.note_time_zone }, ctx.now()), flash: new URL(request.url).searchParams.get("flash") };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  const ctx = modelContextFor(context, actor);
  const id = requireId(params.id, "Scheduled session");
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const result = intent === "cancel" ? await cancelSession(ctx, id) : intent === "cancel_rest" ? await cancelRestOfSeries(ctx, id, String(form.get("from") ?? "")) : null;
  if (!result) return data({ errors: {} as Record<string, string>, message: "Unknown action.", from: "" }, { status: 400 });
  if (result.ok) {
    const date = "session_date" in result.data ? result.data.session_date : result.data.from;
    return redirect(`/calendar/view?view=week&date=${date}&flash=${encodeURIComponent(result.message ?? "Saved.")}`, 303);
  }
  if (result.status === 404) throw notFound(result.message);
  if (result.status === 403) throw forbidden(result.message);
  return data({ errors: result.status === 422 ? result.errors : {}, message: result.message, from: String(form.get("from") ?? "") }, { status: result.status });
}

export default function ScheduledSession() {
  const { session: s, mayChange, notYet, flash } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const errors = answer?.errors ?? {};
  return (
    <section className="card">
      <div className="page-head">
        <h1>Scheduled session</h1>
        <Link className="btn" to={`/calendar/view?view=week&date=${s.session_date}`}>
          Back to the calendar
        </Link>
      </div>
      <FormMessage success={flash} error={answer?.message} />
      <dl className="note-dl">
        <dt>Client</dt>
        <dd>{s.patient_name}</dd>
        <dt>Provider</dt>
        <dd>{s.provider_name}</dd>
        <dt>Date</dt>
        <dd>{longDate(s.session_date)}</dd>
        <dt>Time (local to the location, {s.time_zone})</dt>
        <dd>
          {s.note_time_zone === s.time_zone ? `${s.time_in}–${s.time_out}` : `${s.time_in}–${s.time_out} (${zonePlace(s.time_zone)} time, as booked)`} ({s.minutes} minutes, {s.units} units)
          {s.note_time_zone === s.time_zone ? null : <p className="hint">{SCHEDULE_MESSAGES.noteInOtherZone(s.time_in, s.time_out, s.note_time_zone)}</p>}
        </dd>
        <dt>CPT</dt>
        <dd>{s.cpt_code}</dd>
        <dt>Status</dt>
        <dd>{s.status === "written" && s.note_id ? "Written (a note was saved from it)" : s.status === "cancelled" ? "Cancelled" : "Scheduled"}</dd>
        {s.series_id !== null ? (
          <>
            <dt>Series</dt>
            <dd>Weekly</dd>
          </>
        ) : null}
      </dl>
      {s.status === "scheduled" && mayChange ? (
        <>
          {notYet === null ? (
            <p>
              <Link className="btn btn-primary" to={writeNoteHref(s)}>
                Write the note
              </Link>
            </p>
          ) : (
            <p className="hint">{notYet}</p>
          )}
          <Form method="post" className="inline-form">
            <input type="hidden" name="intent" value="cancel" />
            <button type="submit" className="btn btn-danger">
              Cancel this session
            </button>
          </Form>
          {s.series_id !== null ? (
            <Form method="post" className="inline-form">
              <input type="hidden" name="intent" value="cancel_rest" />
              <label htmlFor="cancel-from">Cancel the rest of the series from</label>
              <input id="cancel-from" type="date" name="from" defaultValue={answer?.from || s.session_date} aria-invalid={errors.from ? true : undefined} aria-errormessage={errors.from ? "cancel-from-error" : undefined} />
              {errors.from ? (
                <p id="cancel-from-error" className="field-error" role="alert">
                  {errors.from}
                </p>
              ) : null}
              <button type="submit" className="btn btn-danger">
                Cancel the rest of the series
              </button>
            </Form>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
