import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/cloudflare";
import { Form, useLoaderData, useSearchParams } from "@remix-run/react";
import { Link } from "~/components/ui/link";
import { DataList } from "~/components/ui/data-list";
import { FormMessage } from "~/components/ui/field";
import { DateRangeFilter, FilterButtons, FilterSelect } from "~/components/ui/list";
import { ticketColumns } from "~/components/ticket-ui";
import { ASSIGNED_FILTER_OPTIONS, canEditTicket, optionsOf, TICKET_CATEGORIES, TICKET_PRIORITIES, TICKET_STATUSES } from "~/domain/tickets";
import { listTicketsWithOptions } from "~/models/tickets.server";
import { modelContextFor } from "~/services/forms.server";
import { requirePermission } from "~/services/guard.server";
import { ticketListQuery } from "~/services/ticket-screens.server";

export const meta: MetaFunction = () => [{ title: "Tickets · Baseline" }];
/** The office's list (platform §2 tickets): every ticket of the locations the actor covers. */
export const handle = { guard: "manage_tickets" };

export async function loader({ request, context }: LoaderFunctionArgs) {
  const { actor } = await requirePermission(request, context, "manage_tickets");
  const { query, filters, queryError } = ticketListQuery(request);
  const { page, locations } = await listTicketsWithOptions(modelContextFor(context, actor), query, filters);
  const editable = page.data.filter((t) => canEditTicket(actor, { userId: t.user_id, locationId: t.location_id, status: t.status, firstResponseAt: t.first_response_at })).map((t) => t.id);
  return { page, locations, editable, queryError };
}

export default function TicketList() {
  const { page, locations, editable, queryError } = useLoaderData<typeof loader>();
  const [params] = useSearchParams();
  const columns = ticketColumns<(typeof page.data)[number]>({ view: "office", canEdit: (t) => editable.includes(t.id) });
  return (
    <section className="card">
      <div className="page-head">
        <h1>Tickets</h1>
        <span>
          <Link to="/tickets/my-tickets">My tickets</Link>{" "}
          <Link className="btn btn-primary" to="/tickets/add">
            New ticket
          </Link>
        </span>
      </div>
      <FormMessage success={params.get("flash")} />
      <FormMessage error={queryError} />
      <DataList
        page={page}
        columns={columns}
        caption="Tickets"
        filters={
          <Form method="get" className="search-form" role="search" aria-label="Filter tickets">
            <label htmlFor="f-search">Subject or requester</label>
            <input id="f-search" type="search" name="search" defaultValue={params.get("search") ?? ""} />
            <FilterSelect visible name="status" label="Status" any="Any" options={optionsOf(TICKET_STATUSES)} />
            <FilterSelect visible name="priority" label="Priority" any="Any" options={optionsOf(TICKET_PRIORITIES)} />
            <FilterSelect visible name="category" label="Category" any="Any" options={optionsOf(TICKET_CATEGORIES)} />
            <FilterSelect visible name="location_id" label="Location" any="All" options={locations.map((l) => ({ value: l.id, label: l.title }))} />
            <FilterSelect visible name="assigned" label="Assigned to" any="Anyone" options={ASSIGNED_FILTER_OPTIONS} />
            <DateRangeFilter />
            <FilterButtons reset="/tickets/list" />
          </Form>
        }
      />
    </section>
  );
}
