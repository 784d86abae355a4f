import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { TicketFields } from "~/components/ticket-ui";
import { FormMessage } from "~/components/ui/field";
import { FormActions } from "~/components/ui/form-controls";
import { StaleNotice } from "~/components/ui/stale-notice";
import { canEditTicket, TICKET_MESSAGES } from "~/domain/tickets";
import { getTicket, updateTicket, type TicketJson } from "~/models/tickets.server";
import { formResult, formValues, formVersion, modelContextFor, withFormVersion } from "~/services/forms.server";
import { notFound, requireId, requireStaff } from "~/services/guard.server";
import { ticketNotice } from "~/services/ticket-screens.server";

export const meta: MetaFunction = () => [{ title: "Edit ticket · Baseline" }];
/** The requester while the ticket is open, or the office (platform §2 tickets). Another's ticket: 404. */
export const handle = { guard: "staff" };

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  const found = await getTicket(modelContextFor(context, actor), requireId(params.id, "Ticket"));
  if (!found) throw notFound("Ticket not found.");
  const { requester_email: _e, ...ticket } = found;
  return { ticket, editable: canEditTicket(actor, { userId: ticket.user_id, locationId: ticket.location_id, status: ticket.status, firstResponseAt: ticket.first_response_at }) };
}

export async function action({ request, context, params }: ActionFunctionArgs) {
  const { actor } = await requireStaff(request, context);
  const id = requireId(params.id, "Ticket");
  const values = formValues(await request.formData());
  const result = await withFormVersion(values.version, (version) => updateTicket(modelContextFor(context, actor), id, values, { partial: false, version, notice: ticketNotice(request, context.app, actor) }));
  return formResult(result, values, (t) => `/tickets/view/${t.id}`);
}

const fieldsOf = (t: Pick<TicketJson, "subject" | "body" | "category" | "priority">) => ({ subject: t.subject, body: t.body, category: t.category, priority: t.priority });

export default function EditTicket() {
  const { ticket, editable } = useLoaderData<typeof loader>();
  const answer = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  // After a stale save the form shows what is stored now, with its version, so saving again is deliberate.
  const current = (answer?.current ?? null) as TicketJson | null;
  const values = current ? fieldsOf(current) : (answer?.values ?? fieldsOf(ticket));
  const version = current ? current.version : (formVersion(answer?.values.version) ?? ticket.version);
  return (
    <section className="card">
      <div className="page-head">
        <h1>Edit ticket #{ticket.id}</h1>
        <Link to={`/tickets/view/${ticket.id}`}>Back to the ticket</Link>
      </div>
      {editable ? (
        <>
          {/* A stale save keeps what was typed beside the stored values (probe 8955 #4), as the plan forms do. */}
          {current ? <StaleNotice message={answer!.message} version={current.version} unsaved={answer!.values} hidden={["version"]} stored={fieldsOf(current)} /> : <FormMessage error={answer?.message} />}
          <Form method="post" key={JSON.stringify([values, version])}>
            <input type="hidden" name="version" value={version} />
            <TicketFields values={values} errors={current ? {} : (answer?.errors ?? {})} />
            <FormActions>
              <button className="btn btn-primary" type="submit" disabled={busy}>
                Save changes
              </button>
              <Link className="btn" to={`/tickets/view/${ticket.id}`}>
                Cancel
              </Link>
            </FormActions>
          </Form>
        </>
      ) : (
        <FormMessage error={TICKET_MESSAGES.notEditable} />
      )}
    </section>
  );
}
