import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { data, redirect } from "@remix-run/cloudflare";
import * as v from "valibot";
import { Form, useActionData, useLoaderData, useNavigation, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { StatusBadge } from "~/components/ticket-ui";
import { FormMessage } from "~/components/ui/field";
import { FormActions, SelectField, TextareaField } from "~/components/ui/form-controls";
import { Pagination } from "~/components/ui/list";
import { MAX_PAGE, PositiveInt } from "~/domain/paging";
import { parseWith } from "~/domain/validation";
import { assigneeLabel, BODY_MAX, canCloseTicket, canEditTicket, canReopenTicket, canRespond, ticketLabel, ticketTime } from "~/domain/tickets";
import { respondToTicket, setTicketClosed, updateTicket, viewTicket, type TicketJson } from "~/models/tickets.server";
import { formResult, formValues, modelContextFor, withFormVersion, type FormAnswer } from "~/services/forms.server";
import { notFound, requireId, requireStaff } from "~/services/guard.server";
import { randomToken } from "~/services/crypto.server";
import { ticketNotice } from "~/services/ticket-screens.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: `Ticket #${data?.ticket.id ?? ""} · Baseline` }];
/** A ticket's thread, the response form, close and reopen (platform §2 tickets). Another's ticket: 404. */
export const handle = { guard: "staff" };

/**
 * Requests whose action ran: the loaders that render its answer (a 4xx with the form's errors) must not
 * redirect, or the message would be lost. Remix calls them with a GET request, so the method cannot tell.
 */
const posted = new WeakSet<object>();

/** The responses' page by the lists' one rule (`PositiveInt`): a bad page shows page 1 with the reason, as the lists do. */
const ResponsesPage = v.object({ page: PositiveInt("Page", MAX_PAGE, 1) });
function pageOf(url: URL): { page: number; pageError: string | null } {
  const parsed = parseWith(ResponsesPage, { page: url.searchParams.get("page") ?? undefined });
  return parsed.ok ? { page: parsed.data.page, pageError: null } : { page: 1, pageError: Object.values(parsed.errors)[0]! };
}

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  const id = requireId(params.id, "Ticket");
  const url = new URL(request.url);
  const { page, pageError } = pageOf(url);
  const thread = await viewTicket(modelContextFor(context, actor), id, page, { markRead: true });
  if (!thread) throw notFound("Ticket not found.");
  const { ticket, responses, assignees, assigneeGone } = thread;
  // Opening the ticket marked it read. The header and sidebar badges were read with the session, before
  // that: answer once more (a plain redirect, `seen` keeps it to one) so the page shows the counts as
  // they are now.
  if (thread.markedRead && !posted.has(context.app) && !url.searchParams.has("seen")) {
    url.searchParams.set("seen", "1");
    throw redirect(`${url.pathname}${url.search}`);
  }
  const facts = { userId: ticket.user_id, locationId: ticket.location_id, status: ticket.status, firstResponseAt: ticket.first_response_at };
  return {
    ticket,
    responses,
    assignees,
    assigneeGone,
    pageError,
    may: { respond: canRespond(actor, facts), edit: canEditTicket(actor, facts), close: canCloseTicket(actor, facts), reopen: canReopenTicket(actor, facts) },
    // The response form's one-time token per load: a resend of it posts (and emails) once (decision 024).
    formToken: randomToken(18),
  };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  posted.add(context.app);
  const id = requireId(params.id, "Ticket");
  const ctx = modelContextFor(context, actor);
  const values = formValues(await request.formData());
  const back = () => `/tickets/view/${id}`;
  switch (values.intent) {
    case "respond":
      return formResult(await withFormVersion(values.version, (version) => respondToTicket(ctx, id, values, { version, notice: ticketNotice(request, context.app, actor), formToken: typeof values.form_token === "string" ? values.form_token : null })), values, back);
    case "close":
      return formResult(await withFormVersion(values.version, (version) => setTicketClosed(ctx, id, true, version)), values, back);
    case "reopen":
      return formResult(await withFormVersion(values.version, (version) => setTicketClosed(ctx, id, false, version)), values, back);
    case "assign":
      // Only the assignee is sent: the ticket's other fields stay as stored (PATCH semantics).
      return formResult(await withFormVersion(values.version, (version) => updateTicket(ctx, id, { assigned_to: values.assigned_to ?? "" }, { partial: true, version, notice: ticketNotice(request, context.app, actor) })), values, back);
    default:
      if (!(await viewTicket(ctx, id, 1, { markRead: false }))) throw notFound("Ticket not found.");
      return data<FormAnswer>({ errors: {}, message: "Unknown action.", values }, { status: 400 });
  }
}

export default function ViewTicket() {
  const { ticket, responses, assignees, assigneeGone, pageError, may, formToken: fresh } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const [params] = useSearchParams();
  const current = (answer?.current ?? null) as TicketJson | null;
  const version = current?.version ?? ticket.version;
  const typed = answer?.values.intent === "respond" && typeof answer.values.body === "string" ? answer.values.body : "";
  // A response shown again (refused, or the ticket changed meanwhile) keeps its token: nothing was sent with it yet.
  const formToken = answer?.values.intent === "respond" && typeof answer.values.form_token === "string" && answer.values.form_token ? answer.values.form_token : fresh;
  return (
    <section className="card">
      <div className="page-head">
        <h1>
          Ticket #{ticket.id}: {ticket.subject}
        </h1>
        <span>
          <Link to={ticket.role === "office" ? "/tickets/list" : "/tickets/my-tickets"}>Back to the tickets</Link>
          {may.edit ? (
            <>
              {" · "}
              <Link to={`/tickets/edit/${ticket.id}`}>Edit</Link>
            </>
          ) : null}
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={answer?.message} />
      <FormMessage error={pageError} />
      {current ? <p className="alert alert-warning">The ticket changed while you were reading it: the page below shows it as it is now. Send again if you still want to.</p> : null}
      <dl className="details">
        <dt>Status</dt>
        <dd data-testid="ticket-status">
          <StatusBadge status={ticket.status} />
        </dd>
        <dt>Requester</dt>
        <dd>
          {ticket.requester_name || "—"}
          {ticket.requester_deleted ? " (deleted: they cannot read answers, and none is emailed to them)" : ""}
        </dd>
        <dt>Location</dt>
        <dd>{ticket.location_title ?? "—"}</dd>
        <dt>Category</dt>
        <dd>{ticketLabel(ticket.category)}</dd>
        <dt>Priority</dt>
        <dd>{ticketLabel(ticket.priority)}</dd>
        <dt>Assigned to</dt>
        <dd data-testid="ticket-assignee">{ticket.assignee_name ? assigneeLabel(ticket.assignee_name, assigneeGone) : "Unassigned"}</dd>
        <dt>Opened</dt>
        <dd>{ticketTime(ticket.created_at, ticket.time_zone)}</dd>
        {ticket.closed_at ? (
          <>
            <dt>Closed</dt>
            <dd>{ticketTime(ticket.closed_at, ticket.time_zone)}</dd>
          </>
        ) : null}
      </dl>
      <article className="ticket-message">
        <h2 className="visually-hidden">Message</h2>
        <p style={{ whiteSpace: "pre-wrap" }}>{ticket.body}</p>
      </article>
      <h2>Responses</h2>
      {responses.data.length === 0 ? (
        <p>No responses yet.</p>
      ) : (
        <ol className="ticket-thread">
          {responses.data.map((r) => (
            <li key={r.id} data-testid="ticket-response">
              <p>
                <strong>{r.author_name || "—"}</strong> {r.by_staff ? "(office)" : "(requester)"} · {ticketTime(r.created_at, ticket.time_zone)}
              </p>
              <p style={{ whiteSpace: "pre-wrap" }}>{r.body}</p>
            </li>
          ))}
        </ol>
      )}
      {responses.last_page > 1 || responses.page > 1 ? <Pagination page={responses} /> : null}
      {may.respond ? (
        <Form method="post" key={`respond-${version}`}>
          <input type="hidden" name="intent" value="respond" />
          <input type="hidden" name="form_token" value={formToken} />
          <input type="hidden" name="version" value={version} />
          <TextareaField label="Your response" name="body" required maxLength={BODY_MAX} rows={4} defaultValue={current ? typed : answer ? typed : ""} error={answer?.values.intent === "respond" ? answer.errors.body : undefined} />
          <FormActions>
            <button className="btn btn-primary" type="submit" disabled={busy}>
              Send response
            </button>
          </FormActions>
        </Form>
      ) : null}
      {assignees ? (
        <Form method="post" className="ticket-assign" key={`assign-${version}-${ticket.assigned_to ?? ""}`}>
          <input type="hidden" name="intent" value="assign" />
          <input type="hidden" name="version" value={version} />
          <SelectField
            label="Assign to"
            name="assigned_to"
            options={[
              { value: "", label: "Unassigned" },
              // The current assignee stays choosable (unchanged is no change) even if they no longer qualify, named with why.
              ...(ticket.assigned_to !== null && !assignees.some((a) => a.value === ticket.assigned_to)
                ? [{ value: ticket.assigned_to, label: assigneeGone ? assigneeLabel(ticket.assignee_name || "—", assigneeGone) : `${ticket.assignee_name || "—"} (current)` }]
                : []),
              ...assignees,
            ]}
            defaultValue={answer?.values.intent === "assign" && typeof answer.values.assigned_to === "string" ? answer.values.assigned_to : String(ticket.assigned_to ?? "")}
            error={answer?.values.intent === "assign" ? answer.errors.assigned_to : undefined}
          />
          <button className="btn" type="submit" disabled={busy}>
            Save assignment
          </button>
        </Form>
      ) : null}
      {may.close ? <VersionedIntent intent="close" version={version} busy={busy} label="Close ticket" /> : null}
      {may.reopen ? <VersionedIntent intent="reopen" version={version} busy={busy} label="Reopen ticket" /> : null}
    </section>
  );
}

/** A one-button form posting an intent with the ticket's version (a plain POST without JavaScript). */
function VersionedIntent({ intent, version, busy, label }: { intent: string; version: number | string; busy: boolean; label: string }) {
  return (
    <Form method="post">
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="version" value={version} />
      <button className="btn" type="submit" disabled={busy}>
        {label}
      </button>
    </Form>
  );
}
