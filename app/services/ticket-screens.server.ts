import { redirect } from "@remix-run/cloudflare";
import * as v from "valibot";
import { TICKET_FILTER_NAMES, TicketFilters, ticketListAddress, type TicketFilters as Filters } from "~/domain/tickets";
import { parseWith } from "~/domain/validation";
import type { TicketNotice } from "~/models/tickets.server";
import type { AuditWho } from "./audit.server";
import type { AppContext } from "./context.server";
import { listQueryFrom } from "./forms.server";
import { appAddress } from "./email.server";
import { enqueueEmail } from "./jobs.server";

/**
 * The ticket lists' query (office list and My Tickets): empty filters redirect to the address without
 * them (a GET form without JavaScript sends them), a hand-edited bad value shows its message and the
 * list without the filters.
 */
export function ticketListQuery(request: Request) {
  const url = new URL(request.url);
  const clean = ticketListAddress(url.pathname, url.searchParams);
  if (clean !== `${url.pathname}${url.search}`) throw redirect(clean);
  const { query, queryError, params } = listQueryFrom(request, TICKET_FILTER_NAMES);
  const parsed = parseWith(TicketFilters, Object.fromEntries(TICKET_FILTER_NAMES.map((k) => [k, params[k] ?? ""])));
  const filters: Filters = parsed.ok ? parsed.data : v.parse(TicketFilters, {});
  return { query, filters, queryError: queryError ?? (parsed.ok ? null : Object.values(parsed.errors)[0]!) };
}

/**
 * How a screen tells someone about a ticket (the requester of an answer, the staff member it was assigned
 * to): the email queue, with a link on this app's configured address (appAddress, decision 005).
 */
export function ticketNotice(request: Request, app: AppContext, actor: AuditWho["actor"]): TicketNotice {
  return { send: (email, about) => enqueueEmail(app, email, about, { actor, ip: app.ip }), origin: appAddress(app.env, request.url) };
}
