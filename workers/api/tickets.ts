import { Hono, type Context } from "hono";
import * as v from "valibot";
import { TICKET_FILTER_NAMES, TICKET_STATUS_MESSAGE, TicketFilters, TicketListQuery } from "~/domain/tickets";
import { flag, MESSAGES } from "~/domain/fields";
import { LIST_QUERY_KEYS, MAX_PAGE, PositiveInt } from "~/domain/paging";
import { parseWith, pathId } from "~/domain/validation";
import { getTicket, listTicketResponses, listTickets, markTicketRead, respondToTicket, setTicketClosed, updateTicket, createTicket, type TicketNotice } from "~/models/tickets.server";
import { appAddress } from "~/services/email.server";
import { enqueueEmail } from "~/services/jobs.server";
import { idempotencyKey, idempotencyToken } from "~/services/idempotency.server";
import { jsonError, readBody, requireApiStaff, type AppEnv } from "./env";
import { answer, emptyChange, isEmptyChange, modelContext, otherRecordId, refuseUnknownParams, requestVersion, unsupported } from "./rest";

/**
 * Tickets on the generic v2 pattern (platform §7), by hand rather than RestResource: every staff user
 * may list, open and answer tickets, and the model decides which (their own; the office those of the
 * locations it covers). A ticket the asker may not see answers 404. DELETE closes (tickets are kept).
 * PUT/PATCH take `assigned_to` (a staff id or null; the office only, an assignee with manage_tickets for
 * the ticket's location, else 422 on assigned_to; a new assignee other than the caller is emailed); the list
 * filters `assigned=me|none`. The list and a ticket's responses answer any other query parameter with 422 naming it
 * (decision 017, stop 45).
 * `GET /v2/tickets/notifications/summary` is served by ./dashboard.ts, mounted before this router.
 */

const PageQuery = v.object({ page: PositiveInt("page", MAX_PAGE, 1) });
/** The list's parameters: the v2 list query's, its filters and `mine` (My Tickets). */
const TICKET_LIST_PARAMS = [...LIST_QUERY_KEYS, ...TICKET_FILTER_NAMES, "mine"];

function idOr404(c: Context<AppEnv>): number | null {
  return pathId(c.req.param("id"));
}

const notFound = (c: Context<AppEnv>) => jsonError(c, 404, "Ticket not found.");

export const ticketsV2 = new Hono<AppEnv>()
  .get("/", requireApiStaff, async (c) => {
    const refused = refuseUnknownParams(c, TICKET_LIST_PARAMS);
    if (refused) return refused;
    const raw = c.req.query();
    const { status, priority, category, location_id, assigned, mine, ...rest } = raw;
    const query = parseWith(TicketListQuery, rest);
    const filters = parseWith(TicketFilters, { status, priority, category, location_id, assigned });
    const mineFlag = parseWith(flag, mine);
    const errors = { ...(query.ok ? {} : query.errors), ...(filters.ok ? {} : filters.errors), ...(mineFlag.ok ? {} : { mine: MESSAGES.flag }) };
    if (!query.ok || !filters.ok || !mineFlag.ok) return jsonError(c, 422, Object.values(errors)[0] ?? "The query is not valid.", { errors });
    return c.json(await listTickets(modelContext(c), query.data, filters.data, { mine: mineFlag.data }));
  })
  .post("/", requireApiStaff, async (c) => {
    const body = await readBody(c);
    return answer(c, await createTicket(modelContext(c), body), 201);
  })
  .get("/:id", requireApiStaff, async (c) => {
    const id = idOr404(c);
    const ticket = id === null ? null : await getTicket(modelContext(c), id);
    if (!ticket) return notFound(c);
    const { requester_email: _e, ...data } = ticket;
    return c.json({ data });
  })
  .put("/:id", requireApiStaff, (c) => update(c, false))
  .patch("/:id", requireApiStaff, (c) => update(c, true))
  .delete("/:id", requireApiStaff, async (c) => {
    const id = idOr404(c);
    if (id === null) return notFound(c);
    const version = requestVersion(c, {});
    const result = await setTicketClosed(modelContext(c), id, true, version);
    return result.ok ? c.json({ data: result.data, message: result.message }) : answer(c, result);
  })
  // The generic v2 status call (platform §7): "closed" closes (as DELETE does), "open" reopens; "answered" comes from a response.
  .put("/update-status/:id", requireApiStaff, async (c) => {
    const id = idOr404(c);
    if (id === null) return notFound(c);
    const body = await readBody(c);
    const status = typeof body.status === "string" ? body.status.trim().toLowerCase() : "";
    if (status !== "closed" && status !== "open") return jsonError(c, 422, TICKET_STATUS_MESSAGE, { errors: { status: TICKET_STATUS_MESSAGE } });
    return answer(c, await setTicketClosed(modelContext(c), id, status === "closed", requestVersion(c, body)));
  })
  .post("/:id/reopen", requireApiStaff, async (c) => {
    const id = idOr404(c);
    if (id === null) return notFound(c);
    const body = await readBody(c);
    return answer(c, await setTicketClosed(modelContext(c), id, false, requestVersion(c, body)));
  })
  .post("/:id/mark-read", requireApiStaff, async (c) => {
    const id = idOr404(c);
    if (id === null) return notFound(c);
    return answer(c, await markTicketRead(modelContext(c), id));
  })
  .get("/:id/responses", requireApiStaff, async (c) => {
    const id = idOr404(c);
    if (id === null) return notFound(c);
    const refused = refuseUnknownParams(c, Object.keys(PageQuery.entries));
    if (refused) return refused;
    const q = parseWith(PageQuery, { page: c.req.query("page") });
    if (!q.ok) return jsonError(c, 422, Object.values(q.errors)[0]!, { errors: q.errors });
    const page = await listTicketResponses(modelContext(c), id, q.data.page);
    return page ? c.json(page) : notFound(c);
  })
  .post("/:id/responses", requireApiStaff, async (c) => {
    const id = idOr404(c);
    if (id === null) return notFound(c);
    const body = await readBody(c);
    const ctx = modelContext(c);
    // Idempotency-Key (decision 024), scoped to the actor and the ticket: a resend answers the first response (200), no second email.
    const formToken = await idempotencyToken(ctx.actor, ["ticket_response", id], idempotencyKey(c.req.raw.headers), body);
    const result = await respondToTicket(ctx, id, body, { version: requestVersion(c, body), notice: notice(c), formToken });
    return answer(c, result, result.ok && result.replayed ? 200 : 201);
  })
  .all("/", unsupported)
  .all("/:id", unsupported)
  .all("/:id/reopen", unsupported)
  .all("/update-status/:id", unsupported)
  .all("/:id/mark-read", unsupported)
  .all("/:id/responses", unsupported);

/** How a call tells someone about a ticket (an answer's requester, a new assignee): the email queue, a link on the app's configured address (decision 005). */
function notice(c: Context<AppEnv>): TicketNotice {
  const app = c.var.app;
  return { send: (email, about) => enqueueEmail(app, email, about, { actor: c.var.actor, ip: app.ip }), origin: appAddress(app.env, c.req.url) };
}

async function update(c: Context<AppEnv>, partial: boolean) {
  const id = idOr404(c);
  if (id === null) return notFound(c);
  const body = await readBody(c);
  const refused = otherRecordId(c, id, body);
  if (refused) return refused;
  if (isEmptyChange(body)) return emptyChange(c);
  return answer(c, await updateTicket(modelContext(c), id, body, { partial, version: requestVersion(c, body), notice: notice(c) }));
}
