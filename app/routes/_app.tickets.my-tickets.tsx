import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { DataList } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { DateRangeFilter, FilterButtons, FilterSelect } from "~/components/ui/list";
import { ticketColumns } from "~/components/ticket-ui";
import { can } from "~/domain/permissions";
import { canEditTicket, optionsOf, TICKET_STATUSES } from "~/domain/tickets";
import { listTickets } from "~/models/tickets.server";
import { modelContextFor } from "~/services/forms.server";
import { requireStaff } from "~/services/guard.server";
import { ticketListQuery } from "~/services/ticket-screens.server";

export const meta: MetaFunction = () => [{ title: "My Tickets · Baseline" }];
/** The header's customer-service icon (platform §2): the actor's own tickets and their unread responses. */
export const handle = { guard: "staff" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor, notifications } = await requireStaff(request, context);
  const { query, filters, queryError } = ticketListQuery(request);
  const page = await listTickets(modelContextFor(context, actor), query, filters, { mine: true });
  const editable = page.data.filter((t) => canEditTicket(actor, { userId: t.user_id, locationId: t.location_id, status: t.status, firstResponseAt: t.first_response_at })).map((t) => t.id);
  return { page, editable, queryError, unread: notifications.unread_responses_count, isOffice: can(actor, "manage_tickets") };
}

export default function MyTickets() {
  const { page, editable, queryError, unread, isOffice } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const columns = ticketColumns<(typeof page.data)[number]>({ view: "mine", canEdit: (t) => editable.includes(t.id) });
  return (
    <section className="card">
      <div className="page-head">
        <h1>My Tickets</h1>
        <span>
          {isOffice ? <Link to="/tickets/list">All tickets</Link> : null}{" "}
          <Link className="btn btn-primary" to="/tickets/add">
            New ticket
          </Link>
        </span>
      </div>
      <p data-testid="my-unread">{unread === 0 ? "No unread responses." : `${unread} unread ${unread === 1 ? "response" : "responses"}.`}</p>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        page={page}
        columns={columns}
        caption="My tickets"
        empty="You have no tickets yet."
        filters={
          <Form method="get" className="search-form" role="search" aria-label="Filter my tickets">
            <label htmlFor="f-search">Subject</label>
            <input id="f-search" type="search" name="search" defaultValue={params.get("search") ?? ""} />
            <FilterSelect visible name="status" label="Status" any="Any" options={optionsOf(TICKET_STATUSES)} />
            <DateRangeFilter />
            <FilterButtons reset="/tickets/my-tickets" />
          </Form>
        }
      />
    </section>
  );
}
