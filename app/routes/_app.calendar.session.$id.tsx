import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { ConfirmDelete } from "~/components/goals/objectives-table";
import { Link } from "~/components/ui/link";
import { FormMessage } from "~/components/ui/field";
import { can } from "~/domain/permissions";
import { cancelFromInput, longDate, noteNotYetWritable, SCHEDULE_MESSAGES, writeNoteHref } from "~/domain/schedule";
import { DELETE_CONFIRMED } from "~/domain/validation";
import { zonePlace } from "~/domain/time";
import { minuteWord, unitCount } from "~/domain/pa-pacing";
import { cancelRestOfSeries, cancelSession, getScheduledSession } from "~/models/schedule.server";
import { formValues, modelContextFor, requireDeleteConfirmed } from "~/services/forms.server";
import { forbidden, notFound, requireId, requirePermission } from "~/services/guard.server";

export const meta: MetaFunction = () => [{ title: "Scheduled session · Baseline" }];
/**
 * One scheduled session (issue 12, decision 037; view_notes, its client's location): its details, "Write the
 * note" (the note form filled in from it), cancel this one, cancel the rest of its weekly series: each cancel asks
 * first on a confirm step (`?confirm=cancel|cancel_rest&from=`), which says what it will cancel.
 */
export const handle = { guard: "view_notes" };

/** The screen's confirm step for a cancel (decision 037, stop 37): `?confirm=cancel` or `?confirm=cancel_rest&from=`. */
const CANCEL_STEP = "#cancel-session";

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  const ctx = modelContextFor(context, actor);
  const id = requireId(params.id, "Scheduled session");
  const query = new URL(request.url).searchParams;
  const confirm = query.get("confirm");
  // The cancel-the-rest step counts what the cancel would cancel in the session's own read (no round trip more).
  const typedFrom = confirm === "cancel_rest" ? query.get("from") ?? "" : "";
  const from = confirm === "cancel_rest" ? cancelFromInput(typedFrom) : null;
  const session = await getScheduledSession(ctx, id, from ?? undefined);
  if (!session) throw notFound("Scheduled session not found.");
  const mayChange = session.provider_id === actor.id || can(actor, "manage_notes");
  return {
    session,
    mayChange,
    step: cancelStep(session, mayChange, confirm, typedFrom),
    // "Write the note" once the session has ended where its note's save checks it, the client's current location
    // (a note cannot end in the future: decision 037).
    notYet: noteNotYetWritable({ ...session, time_zone: session.note_time_zone }, ctx.now()),
    flash: query.get("flash"),
  };
}

type CancelStep =
  | { kind: "cancel"; question: string }
  | { kind: "cancel_rest"; question: string; from: string; count: number }
  /** No question: why (a message; `from` for an error on the date, with the date typed). */
  | { kind: "refused"; message: string; from: string | null };

/** What the confirm step asks, or why it asks nothing (the session no longer cancellable, a bad date, nothing left). */
function cancelStep(s: NonNullable<Awaited<ReturnType<typeof getScheduledSession>>>, mayChange: boolean, confirm: string | null, typedFrom: string): CancelStep | null {
  if (confirm !== "cancel" && confirm !== "cancel_rest") return null;
  if (!mayChange) return { kind: "refused", message: SCHEDULE_MESSAGES.otherProvider, from: null };
  if (s.status !== "scheduled") return { kind: "refused", message: SCHEDULE_MESSAGES.notScheduled, from: null };
  if (confirm === "cancel") return { kind: "cancel", question: SCHEDULE_MESSAGES.confirmCancel(s.session_date, s.time_in, s.time_out) };
  if (s.series_id === null) return { kind: "refused", message: SCHEDULE_MESSAGES.notInSeries, from: null };
  if (!s.rest) return { kind: "refused", message: SCHEDULE_MESSAGES.cancelFrom, from: typedFrom };
  if (s.rest.count === 0) return { kind: "refused", message: SCHEDULE_MESSAGES.nothingLeftInSeries, from: typedFrom };
  return { kind: "cancel_rest", question: SCHEDULE_MESSAGES.confirmCancelRest(s.rest.count, s.rest.from), from: s.rest.from, count: s.rest.count };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requirePermission(request, context, "view_notes");
  const ctx = modelContextFor(context, actor);
  const id = requireId(params.id, "Scheduled session");
  const values = formValues(await request.formData());
  const intent = values.intent;
  const typedFrom = typeof values.from === "string" ? values.from : "";
  if (intent !== "cancel" && intent !== "cancel_rest") return data({ errors: {} as Record<string, string>, message: "Unknown action.", from: "" }, { status: 400 });
  if (intent === "cancel_rest") {
    // A bad date is said at its field, as typed, before any confirm step.
    const from = cancelFromInput(values.from);
    if (from === null) return data({ errors: { from: SCHEDULE_MESSAGES.cancelFrom } as Record<string, string>, message: SCHEDULE_MESSAGES.cancelFrom, from: typedFrom }, { status: 422 });
    // Nothing is cancelled without the confirm step's field (decision 037, stop 37): the step counts what it will cancel.
    requireDeleteConfirmed(values, `/calendar/session/${id}?${new URLSearchParams({ confirm: intent, from })}${CANCEL_STEP}`);
  } else requireDeleteConfirmed(values, `/calendar/session/${id}?confirm=cancel${CANCEL_STEP}`);
  const result = intent === "cancel" ? await cancelSession(ctx, id) : await cancelRestOfSeries(ctx, id, values.from);
  if (result.ok) {
    const date = "session_date" in result.data ? result.data.session_date : result.data.from;
    return redirect(`/calendar/view?view=week&date=${date}&flash=${encodeURIComponent(result.message ?? "Saved.")}`, 303);
  }
  if (result.status === 404) throw notFound(result.message);
  if (result.status === 403) throw forbidden(result.message);
  return data({ errors: result.status === 422 ? result.errors : {}, message: result.message, from: typedFrom }, { status: result.status });
}

export default function ScheduledSession() {
  const { session: s, mayChange, step, notYet, flash } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  // A step that asks nothing says why; a refusal of its date is also said at the date field, with the date as typed.
  const refused = step?.kind === "refused" ? step : null;
  const errors: Record<string, string> = answer?.errors ?? (refused && refused.from !== null ? { from: refused.message } : {});
  const fromValue = answer ? answer.from : (refused?.from ?? "");
  const back = `/calendar/session/${s.id}`;
  return (
    <section className="card">
      <div className="page-head">
        <h1>Scheduled session</h1>
        <Link className="btn" to={`/calendar/view?view=week&date=${s.session_date}`}>
          Back to the calendar
        </Link>
      </div>
      <FormMessage success={flash} error={answer?.message ?? refused?.message} />
      <dl className="note-dl">
        <dt>Client</dt>
        <dd>{s.patient_name}</dd>
        <dt>Provider</dt>
        <dd>{s.provider_name}</dd>
        <dt>Date</dt>
        <dd>{longDate(s.session_date)}</dd>
        <dt>Time (local to the location, {s.time_zone})</dt>
        <dd>
          {s.note_time_zone === s.time_zone ? `${s.time_in}–${s.time_out}` : `${s.time_in}–${s.time_out} (${zonePlace(s.time_zone)} time, as booked)`} ({s.minutes} {minuteWord(s.minutes)}, {unitCount(s.units)})
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
          <section aria-labelledby="cancel-session">
            <h2 id="cancel-session">Cancel</h2>
            {step?.kind === "cancel" || step?.kind === "cancel_rest" ? (
              // The confirm step (decision 037, stop 37): only its button cancels.
              <ConfirmDelete
                question={step.question}
                detail={step.kind === "cancel_rest" ? "Sessions before that date and sessions whose note is written stay as they are." : null}
                intent={step.kind}
                fields={step.kind === "cancel_rest" ? { from: step.from, ...DELETE_CONFIRMED } : DELETE_CONFIRMED}
                cancelTo={back}
                busy={busy}
                confirmLabel={step.kind === "cancel" ? "Yes, cancel the session" : step.count === 1 ? "Yes, cancel 1 session" : `Yes, cancel ${step.count} sessions`}
                backLabel={step.kind === "cancel" ? "No, keep the session" : step.count === 1 ? "No, keep it" : "No, keep them"}
              />
            ) : (
              <>
                <Form method="post" className="inline-form">
                  <input type="hidden" name="intent" value="cancel" />
                  <button type="submit" className="btn btn-danger">
                    Cancel this session…
                  </button>
                </Form>
                {s.series_id !== null ? (
                  <Form method="post" className="inline-form">
                    <input type="hidden" name="intent" value="cancel_rest" />
                    <label htmlFor="cancel-from">Cancel the rest of the series from</label>
                    <input
                      id="cancel-from"
                      type="date"
                      name="from"
                      defaultValue={fromValue || s.session_date}
                      aria-invalid={errors.from ? true : undefined}
                      aria-errormessage={errors.from ? "cancel-from-error" : undefined}
                    />
                    {errors.from ? (
                      <p id="cancel-from-error" className="field-error" role="alert">
                        {errors.from}
                      </p>
                    ) : null}
                    <button type="submit" className="btn btn-danger">
                      Cancel the rest of the series…
                    </button>
                  </Form>
                ) : null}
              </>
            )}
          </section>
        </>
      ) : null}
    </section>
  );
}
