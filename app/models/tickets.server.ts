import { aliasedTable, and, asc, count, desc, eq, gte, isNull, lte, ne, or, sql, type SQL } from "drizzle-orm";
import { locations, ticketResponses, tickets, users } from "~/db/schema";
import { offset, paged, type ListQuery, type Paged } from "~/domain/paging";
import { can, locationScope } from "~/domain/permissions";
import {
  afterResponse,
  AssigneeInput,
  canAssignTicket,
  canCloseTicket,
  isEligibleAssignee,
  canEditTicket,
  canReopenTicket,
  canRespond,
  ResponseInput,
  TICKET_MESSAGES,
  TicketInput,
  ticketLocation,
  ticketRole,
  type TicketFacts,
  type TicketFilters,
  type TicketRole,
} from "~/domain/tickets";
import type { StaffGone } from "~/domain/patients";
import { zonedDate } from "~/domain/time";
import { namesNoField, parseChange, parseWith } from "~/domain/validation";
import { leavesAsStored } from "~/domain/audit-changes";
import type { Email } from "~/services/email.server";
import type { EmailAbout } from "~/services/jobs.server";
import { auditTail, auditWho, withConditionalAudit, type KnownTail } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { idempotencyKeyReused, isTokenRace, oneTimeToken, tokenMatch } from "~/services/idempotency.server";
import { primaryOf } from "~/db/client.server";
import type { ModelContext } from "./context";
import { conflict, invalid, notFound, ok, replayedOk, type ModelResult, nothingToChange, unchangedAt } from "./results";
import { contains } from "./like.server";
import { withNextId } from "./patients.server";
import { userActorFields, userActorFrom } from "./actors.server";
import { idsIn, inLocationScope } from "./scope.server";
import { choosableStaff, goneStaffOf, whyNotChoosable } from "./staff.server";

/** The list-version row ticket writes bump (every cached list depends on every write: decision 017). */
const TICKETS = "tickets";

/**
 * Customer-service tickets (platform §2; issue 12; docs/decisions/036). The office (manage_tickets)
 * sees every ticket of the locations it covers; a requester sees their own. Every change is one batch,
 * conditional on the ticket's version and state, with its audit row (no ticket text in the trail).
 */

type Row = typeof tickets.$inferSelect;
const requesters = aliasedTable(users, "requester");
const assignees = aliasedTable(users, "assignee");

const ticketColumns = {
  ticket: tickets,
  requesterName: sql<string>`trim(${requesters.name} || ' ' || ${requesters.surname})`,
  // A deleted requester's address is free for someone else (decision 015, stop 33): no ticket mail goes to it (decision 036, stop 40).
  requesterEmail: sql<string | null>`case when ${requesters.deletedAt} is null then ${requesters.email} end`,
  requesterDeleted: sql<number>`${requesters.deletedAt} is not null`.mapWith(Boolean),
  locationTitle: locations.title,
  locationTimeZone: locations.timeZone,
  assigneeName: sql<string | null>`trim(${assignees.name} || ' ' || ${assignees.surname})`,
};
type Joined = { ticket: Row; requesterName: string | null; requesterEmail: string | null; requesterDeleted: boolean; locationTitle: string | null; locationTimeZone: string | null; assigneeName: string | null };

export function ticketJson(r: Joined, role: TicketRole = null) {
  const t = r.ticket;
  return {
    id: t.id,
    subject: t.subject,
    body: t.body,
    category: t.category,
    priority: t.priority,
    status: t.status,
    user_id: t.userId,
    requester_name: r.requesterName ?? "",
    /** The requester was deleted: they cannot read an answer, and none is mailed to their old address. */
    requester_deleted: r.requesterDeleted,
    location_id: t.locationId,
    location_title: r.locationTitle,
    /** The ticket's location's time zone (the requester's location when it was opened): the screens' days are its. */
    time_zone: r.locationTimeZone,
    read_by_staff: t.readByStaff,
    unread_responses: t.unreadResponses,
    assigned_to: t.assignedTo,
    assignee_name: t.assignedTo === null ? null : (r.assigneeName ?? null),
    first_response_at: t.firstResponseAt,
    closed_at: t.closedAt,
    version: t.version,
    created_at: t.createdAt,
    /** The day it was opened at its location (the lists' Opened, and their date filter). */
    opened_on: t.openedOn,
    updated_at: t.updatedAt,
    /** How the asker stands to it: "requester" (their own) or "office". */
    role,
  };
}
export type TicketJson = ReturnType<typeof ticketJson>;

export interface ResponseJson {
  id: number;
  ticket_id: number;
  user_id: number;
  author_name: string;
  body: string;
  by_staff: boolean;
  created_at: string;
}

/** The tickets the actor may see, as SQL: their own, and (manage_tickets) those of the locations they cover. */
function visible(ctx: ModelContext): SQL {
  const own = eq(tickets.userId, ctx.actor.id);
  if (ctx.actor.kind !== "user") return sql`1 = 0`;
  if (!can(ctx.actor, "manage_tickets")) return own;
  const scope = locationScope(ctx.actor);
  if (scope === null) return sql`1 = 1`;
  return scope.length ? or(own, idsIn(tickets.locationId, scope))! : own;
}

/** A list's rows: the tickets with, beside each, whether its assignee has left the staff (the office list names them so). */
function joinedSelect(ctx: ModelContext) {
  return ctx.db
    .select({ ...ticketColumns, assigneeGone: goneStaffOf(assignees) })
    .from(tickets)
    .leftJoin(requesters, eq(requesters.id, tickets.userId))
    .leftJoin(locations, eq(locations.id, tickets.locationId))
    .leftJoin(assignees, eq(assignees.id, tickets.assignedTo));
}

/**
 * One page of tickets, newest first. `mine`: the actor's own tickets (My Tickets); otherwise every ticket
 * the actor may see (the office's list; for someone without manage_tickets that is their own again).
 */
function listStatements(ctx: ModelContext, query: ListQuery, filters: TicketFilters, opts: { mine: boolean }) {
  const where = and(
    opts.mine ? eq(tickets.userId, ctx.actor.id) : visible(ctx),
    filters.status ? eq(tickets.status, filters.status) : undefined,
    filters.priority ? eq(tickets.priority, filters.priority) : undefined,
    filters.category ? eq(tickets.category, filters.category) : undefined,
    filters.location_id !== null ? eq(tickets.locationId, filters.location_id) : undefined,
    filters.assigned === "me" ? eq(tickets.assignedTo, ctx.actor.id) : filters.assigned === "none" ? isNull(tickets.assignedTo) : undefined,
    query.search ? or(contains(tickets.subject, query.search), contains(requesters.name, query.search), contains(requesters.surname, query.search)) : undefined,
    // The day the lists show as Opened, at the ticket's location (decision 036).
    query.date_from ? gte(tickets.openedOn, query.date_from) : undefined,
    query.date_to ? lte(tickets.openedOn, query.date_to) : undefined,
  );
  return [
    joinedSelect(ctx).where(where).orderBy(desc(tickets.createdAt), desc(tickets.id)).limit(query.per_page).offset(offset(query)),
    ctx.db.select({ n: count() }).from(tickets).leftJoin(requesters, eq(requesters.id, tickets.userId)).where(where),
  ] as const;
}

function pageOf(ctx: ModelContext, rows: Joined[], total: { n: number } | undefined, query: ListQuery): Paged<TicketJson> {
  return paged(
    rows.map((r) => ticketJson(r, ticketRole(ctx.actor, r.ticket))),
    total?.n ?? 0,
    query,
  );
}

/**
 * One page of tickets, newest first. `mine`: the actor's own tickets (My Tickets); otherwise every ticket
 * the actor may see (the office's list; for someone without manage_tickets that is their own again).
 */
export async function listTickets(ctx: ModelContext, query: ListQuery, filters: TicketFilters, opts: { mine: boolean }): Promise<Paged<TicketJson>> {
  const [rows, [total]] = await ctx.db.batch(listStatements(ctx, query, filters, opts));
  return pageOf(ctx, rows, total, query);
}

/** The ticket with its requester, or null when it does not exist or the actor may not see it. */
export async function getTicket(ctx: ModelContext, id: number): Promise<(TicketJson & { requester_email: string | null }) | null> {
  return (await findTicket(ctx, id))?.ticket ?? null;
}

/** The ticket in scope with the audit chain's tail beside it, as one statement. */
function findTicketQuery(ctx: ModelContext, id: number) {
  return ctx.db
    .select({ ...ticketColumns, tail: auditTail })
    .from(tickets)
    .leftJoin(requesters, eq(requesters.id, tickets.userId))
    .leftJoin(locations, eq(locations.id, tickets.locationId))
    .leftJoin(assignees, eq(assignees.id, tickets.assignedTo))
    .where(and(eq(tickets.id, id), visible(ctx)));
}

type Found = { ticket: TicketJson & { requester_email: string | null }; tail: KnownTail };

function foundFrom(ctx: ModelContext, row: (Joined & { tail: KnownTail }) | undefined): Found | null {
  if (!row) return null;
  const role = ticketRole(ctx.actor, row.ticket);
  return role ? { ticket: { ...ticketJson(row, role), requester_email: row.requesterEmail }, tail: row.tail } : null;
}

/** The ticket in scope with the audit chain's tail beside it (one statement), for a change's batch. */
async function findTicket(ctx: ModelContext, id: number): Promise<Found | null> {
  const [row] = await findTicketQuery(ctx, id);
  return foundFrom(ctx, row);
}

/** The staff user who would be assigned, as an actor (their roles, permissions and locations now). */
function candidateQuery(ctx: ModelContext, userId: number) {
  return ctx.db.select(userActorFields).from(users).where(and(eq(users.id, userId), isNull(users.deletedAt)));
}

function responseQuery(ctx: ModelContext, id: number) {
  // The scope rides in the statement: responses of a ticket the actor may not see are never read.
  return and(eq(ticketResponses.ticketId, id), sql`exists (select 1 from ${tickets} where ${tickets.id} = ${id} and ${visible(ctx)})`);
}

const RESPONSES_PER_PAGE = 20;

/** A page of a ticket's responses, oldest first. */
function responsesPage(ctx: ModelContext, id: number, page: number) {
  const where = responseQuery(ctx, id);
  return [
    ctx.db
      .select({ r: ticketResponses, author: sql<string>`trim(${users.name} || ' ' || ${users.surname})` })
      .from(ticketResponses)
      .leftJoin(users, eq(users.id, ticketResponses.userId))
      .where(where)
      .orderBy(asc(ticketResponses.id))
      .limit(RESPONSES_PER_PAGE)
      .offset((page - 1) * RESPONSES_PER_PAGE),
    ctx.db.select({ n: count() }).from(ticketResponses).where(where),
  ] as const;
}

function responseJson(x: { r: typeof ticketResponses.$inferSelect; author: string | null }): ResponseJson {
  return { id: x.r.id, ticket_id: x.r.ticketId, user_id: x.r.userId, author_name: x.author ?? "", body: x.r.body, by_staff: x.r.byStaff, created_at: x.r.createdAt };
}

/** A ticket's responses alone (the API's list). Null when the ticket is not the actor's to see. */
export async function listTicketResponses(ctx: ModelContext, id: number, page: number): Promise<Paged<ResponseJson> | null> {
  const [ticketRows, rows, [total]] = await ctx.db.batch([joinedSelect(ctx).where(and(eq(tickets.id, id), visible(ctx))), ...responsesPage(ctx, id, page)]);
  if (!ticketRows[0] || !ticketRole(ctx.actor, ticketRows[0].ticket)) return null;
  return paged(rows.map(responseJson), total?.n ?? 0, { page, per_page: RESPONSES_PER_PAGE });
}

export interface TicketThread {
  ticket: TicketJson;
  responses: Paged<ResponseJson>;
  /** True when this view marked the ticket read (the badges read before it are one behind). */
  markedRead: boolean;
  /** Whom the office may assign it to (null: the actor may not assign it). */
  assignees: AssigneeOption[] | null;
  /** Why the stored assignee could no longer be assigned it (null: unassigned, or they still could): assigneeLabel names them. */
  assigneeGone: StaffGone | null;
}

/** The ticket's stored assignee as they are now (deleted or not), with why the staff rule no longer offers them. */
function storedAssigneeQuery(ctx: ModelContext, ticketId: number) {
  return ctx.db
    .select({ ...userActorFields, gone: whyNotChoosable() })
    .from(users)
    .where(eq(users.id, sql`(select ${tickets.assignedTo} from ${tickets} where ${tickets.id} = ${ticketId})`));
}

/** Deleted or inactive (choosableStaff), or active but no longer one who answers the ticket's tickets (isEligibleAssignee). */
function whyAssigneeGone(row: Awaited<ReturnType<typeof storedAssigneeQuery>>[number] | undefined, facts: Pick<TicketFacts, "locationId">): StaffGone | null {
  if (!row) return null;
  if (row.gone !== "elsewhere") return row.gone;
  return isEligibleAssignee(userActorFrom(row), facts) ? null : "elsewhere";
}

/**
 * The ticket and a page of its responses in one batch (the scope in both statements; for an office member
 * also the staff it may be assigned to), then — when the screen opens it — marked read for the one who
 * opened it (the office: read_by_staff; the requester: unread_responses back to 0). Null: not found or not
 * the actor's to see (404).
 */
export async function viewTicket(ctx: ModelContext, id: number, page: number, opts: { markRead: boolean }): Promise<TicketThread | null> {
  const reads = [joinedSelect(ctx).where(and(eq(tickets.id, id), visible(ctx))), ...responsesPage(ctx, id, page), storedAssigneeQuery(ctx, id)] as const;
  const office = can(ctx.actor, "manage_tickets");
  const [ticketRows, rows, [total], storedAssignee, candidates] = office ? await ctx.db.batch([...reads, assigneeOptionsQuery(ctx, id)]) : [...(await ctx.db.batch(reads)), []];
  const row = ticketRows[0];
  const role = row ? ticketRole(ctx.actor, row.ticket) : null;
  if (!row || !role) return null;
  const ticket = ticketJson(row, role);
  const markedRead = opts.markRead && needsMarking(role, ticket);
  if (markedRead) {
    await markStatement(ctx, id, role).run();
    if (role === "office") ticket.read_by_staff = true;
    else ticket.unread_responses = 0;
  }
  const facts = { userId: ticket.user_id, locationId: ticket.location_id, status: ticket.status };
  const assignees = canAssignTicket(ctx.actor, facts)
    ? candidates.flatMap((c) => {
        const candidate = userActorFrom(c);
        return candidate && isEligibleAssignee(candidate, facts) ? [{ value: candidate.id, label: `${candidate.name} ${candidate.surname}`.trim() }] : [];
      })
    : null;
  return { ticket, responses: paged(rows.map(responseJson), total?.n ?? 0, { page, per_page: RESPONSES_PER_PAGE }), markedRead, assignees, assigneeGone: whyAssigneeGone(storedAssignee[0], facts) };
}

function needsMarking(role: Exclude<TicketRole, null>, t: Pick<TicketJson, "read_by_staff" | "unread_responses">) {
  return role === "office" ? !t.read_by_staff : t.unread_responses > 0;
}

/** Reading is not an edit: the version stays, so a form opened before is not made stale by a read. */
function markStatement(ctx: ModelContext, id: number, role: Exclude<TicketRole, null>) {
  return role === "office"
    ? ctx.db.update(tickets).set({ readByStaff: true }).where(eq(tickets.id, id))
    : ctx.db.update(tickets).set({ unreadResponses: 0 }).where(and(eq(tickets.id, id), eq(tickets.userId, ctx.actor.id)));
}

/** POST v2/tickets/{id}/mark-read: what the view screen does on opening, on its own. */
export async function markTicketRead(ctx: ModelContext, id: number): Promise<ModelResult<TicketJson>> {
  const current = await getTicket(ctx, id);
  if (!current || !current.role) return notFound("Ticket");
  if (needsMarking(current.role, current)) await markStatement(ctx, id, current.role).run();
  const { requester_email: _e, ...ticket } = current;
  return ok({ ...ticket, ...(current.role === "office" ? { read_by_staff: true } : { unread_responses: 0 }) }, "Marked as read.");
}

function nowIso(ctx: ModelContext) {
  return ctx.now().toISOString();
}

/**
 * The day a ticket opened now is opened on, at its location (`ticketDay`; the UTC day without a location): stored,
 * because the lists filter by it and SQLite cannot convert zones (decision 036). The actor's primary location's zone
 * comes with the session; only a user without a primary location (the ticket then goes to their first location)
 * costs a read.
 */
async function openedDay(ctx: ModelContext, locationId: number | null): Promise<string> {
  const now = ctx.now();
  if (locationId === null) return now.toISOString().slice(0, 10);
  let zone = locationId === ctx.actor.locationId ? ctx.actor.timeZone : null;
  if (zone === null) {
    const [row] = await ctx.db.select({ zone: locations.timeZone }).from(locations).where(eq(locations.id, locationId));
    zone = row?.zone ?? null;
  }
  return zone ? zonedDate(now, zone) : now.toISOString().slice(0, 10);
}

/**
 * The requester's own locations (id, title) for the new-ticket form's choice, read only when there is a choice (two or
 * more): a one-location requester gets [] and no round trip.
 */
export async function requesterLocations(ctx: ModelContext): Promise<{ id: number; title: string }[]> {
  const ids = ctx.actor.kind === "user" ? ctx.actor.locationIds : [];
  if (ids.length < 2) return [];
  return ctx.db.select({ id: locations.id, title: locations.title }).from(locations).where(idsIn(locations.id, ids)).orderBy(asc(locations.title));
}

/** Opens a ticket for the actor, at their location (the office of that location answers it). */
export async function createTicket(ctx: ModelContext, raw: Record<string, unknown>, opts: { formToken?: string | null } = {}): Promise<ModelResult<TicketJson>> {
  if (ctx.actor.kind !== "user") return notFound("Ticket");
  const parsed = parseWith(TicketInput, raw);
  const located = ticketLocation(ctx.actor, raw.location_id);
  if (!parsed.ok || !located.ok) return invalid({ ...(parsed.ok ? {} : parsed.errors), ...(located.ok ? {} : { location_id: located.message }) });
  const locationId = located.locationId;
  const openedOn = await openedDay(ctx, locationId);
  const formToken = oneTimeToken(opts.formToken);
  // One batch: the insert (none when the form's one-time token already opened a ticket: a resend), the ticket read
  // back with its requester and location — by its token, else by its id — and the audit row, written only with the ticket.
  const entry = (id: number) => ({ action: "create", entity: "ticket", entityId: id, detail: { category: parsed.data.category, priority: parsed.data.priority } });
  const [inserted, created] = await withNextId(ctx, tickets, (id, tail) =>
    withConditionalAudit(
      ctx.db,
      auditWho(ctx),
      entry(id),
      (audit) => [
        ctx.db
          .insert(tickets)
          .values({ id, userId: ctx.actor.id, locationId, ...parsed.data, status: "open", readByStaff: false, unreadResponses: 0, formToken, openedOn, createdAt: nowIso(ctx), updatedAt: nowIso(ctx) })
          .onConflictDoNothing({ target: tickets.formToken })
          .returning({ id: tickets.id }),
        joinedSelect(ctx).where(formToken ? and(eq(tickets.formToken, formToken), eq(tickets.userId, ctx.actor.id)) : eq(tickets.id, id)),
        audit(sql`changes() = 1`),
        bumpListVersion(ctx.db, TICKETS),
      ],
      tail,
    ),
  );
  const row = created[0];
  if (!row) return invalid({ form: RESPONSE_RESEND.formUsed });
  return ok(ticketJson(row, "requester"), inserted.length ? "Ticket created." : TICKET_MESSAGES.alreadySent);
}

/** The ticket as it is after a change, read at the end of the change's batch (no round trip of its own). */
function afterStatement(ctx: ModelContext, id: number) {
  return joinedSelect(ctx).where(and(eq(tickets.id, id), visible(ctx)));
}

function afterJson(ctx: ModelContext, rows: Joined[]): TicketJson | null {
  const row = rows[0];
  const role = row ? ticketRole(ctx.actor, row.ticket) : null;
  return row && role ? ticketJson(row, role) : null;
}

/**
 * Edits subject, message, category and priority (PUT: all of them; PATCH: merged with the stored ones), and
 * `assigned_to` when given (absent: unchanged). A change of assignee is the office's (canAssignTicket) and
 * names an active staff member who holds manage_tickets and covers the ticket's location; otherwise 422 on
 * `assigned_to` and nothing changes. The candidate is read in the same round trip as the ticket. A new
 * assignee other than the actor is emailed (`notice`) after the write, as the requester of an answer is. A save
 * that leaves the text and the assignee as stored answers "Nothing to change" (nothingToChange) and emails no one.
 */
export async function updateTicket(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { partial: boolean; version: number | null; notice?: TicketNotice }): Promise<ModelResult<TicketJson>> {
  const wantsAssignee = raw.assigned_to !== undefined;
  const assignee = wantsAssignee ? parseWith(AssigneeInput, raw.assigned_to) : null;
  const candidateId = assignee?.ok && assignee.data !== null ? assignee.data : null;
  const [ticketRows, candidateRows] = candidateId === null ? [await findTicketQuery(ctx, id), []] : await ctx.db.batch([findTicketQuery(ctx, id), candidateQuery(ctx, candidateId)]);
  const found = foundFrom(ctx, ticketRows[0]);
  const current = found?.ticket ?? null;
  if (!current) return notFound("Ticket");
  if (namesNoField(raw, TicketInput, ["assigned_to"])) return nothingToChange();
  const facts = { userId: current.user_id, locationId: current.location_id, status: current.status, firstResponseAt: current.first_response_at };
  if (assignee && !assignee.ok) return invalid({ assigned_to: Object.values(assignee.errors)[0] ?? "Choose a staff member from the list." });
  const newAssignee = assignee?.ok ? assignee.data : undefined;
  const assigning = newAssignee !== undefined && newAssignee !== current.assigned_to;
  if (assigning) {
    if (!canAssignTicket(ctx.actor, facts)) return invalid({ assigned_to: current.role === "office" ? TICKET_MESSAGES.assignClosed : TICKET_MESSAGES.assignNotOffice });
    if (newAssignee !== null && !isEligibleAssignee(userActorFrom(candidateRows[0]), facts)) return invalid({ assigned_to: TICKET_MESSAGES.assigneeOutOfScope });
  }
  if (!canEditTicket(ctx.actor, facts)) return invalid({ form: TICKET_MESSAGES.notEditable });
  const base = { subject: current.subject, body: current.body, category: current.category, priority: current.priority };
  const parsed = parseChange(TicketInput, raw, opts.partial ? base : null);
  if (!parsed.ok) return invalid(parsed.errors);
  const sameText = leavesAsStored(base, parsed.data);
  // Saving what is already stored, the same assignee included, is no change (decision 017 stop 44, decision 036 stop
  // 45): 422 "Nothing to change", nothing written, no audit row, no email, the version kept (so no one else's open form
  // goes stale); a screen goes to the ticket saying so. A stale version still answers 409: the form was made from
  // older values.
  if (!assigning && sameText) {
    const { requester_email: _e, ...stored } = current;
    return unchangedAt(stored, current.version, opts.version);
  }
  const onlyAssignment = assigning && sameText;
  // The state the rule allowed is part of the condition: a requester's edit loses to an answer that landed first.
  const state = current.role === "requester" ? and(eq(tickets.status, "open"), isNull(tickets.firstResponseAt)) : ne(tickets.status, "closed");
  const entry = { action: onlyAssignment ? "assign" : "update", entity: "ticket", entityId: id, ...(assigning ? { detail: { assigned_to: newAssignee } } : {}) };
  const [rows, , after] = await withConditionalAudit(ctx.db, auditWho(ctx), entry, (audit) => [
    ctx.db
      .update(tickets)
      .set({ ...parsed.data, ...(assigning ? { assignedTo: newAssignee } : {}), version: sql`${tickets.version} + 1`, updatedAt: nowIso(ctx) })
      .where(and(eq(tickets.id, id), state, opts.version === null ? undefined : eq(tickets.version, opts.version)))
      .returning({ id: tickets.id }),
    audit(sql`changes() = 1`),
    afterStatement(ctx, id),
    bumpListVersion(ctx.db, TICKETS),
  ], found!.tail);
  const current2 = afterJson(ctx, after);
  if (!rows[0]) return current2 ? conflict(current2) : notFound("Ticket");
  if (!current2) return notFound("Ticket");
  // The new assignee is told, like the requester of an answer: after the write, through the queue. Not when
  // unassigned, nor when the actor took it themselves (an unchanged assignee is no assignment at all).
  const told = assigning && newAssignee !== null && newAssignee !== ctx.actor.id ? candidateRows[0] : undefined;
  if (told?.email && opts.notice) await opts.notice.send(assignedEmail(told.email, `${told.name} ${told.surname}`.trim(), id, opts.notice.origin), { kind: "ticket_assigned", account: { type: "user", id: told.id } });
  return ok(current2, onlyAssignment ? (newAssignee === null ? "Ticket unassigned." : "Ticket assigned.") : "Ticket updated.");
}

/**
 * The staff who may be assigned a ticket (the view's select): active users (choosableStaff, the rule of every staff
 * select: decision 037, stop 31) holding manage_tickets (or an all-access role) who cover its location, by name. SQL narrows to likely candidates by the roles' JSON;
 * the rule (isEligibleAssignee) decides. At most 200 (a location has tens of office staff).
 */
function assigneeOptionsQuery(ctx: ModelContext, ticketId: number) {
  const holds = (perm: string) => sql`exists (select 1 from user_roles ur join roles r on r.id = ur.role_id where ur.user_id = users.id and (r.name in ('SUPERADMIN', 'ADMIN') or r.permissions like ${`%"${perm}"%`}))`;
  const atLocation = sql`exists (select 1 from user_locations ul where ul.user_id = users.id and ul.location_id = (select t.location_id from tickets t where t.id = ${ticketId}))`;
  return ctx.db
    .select(userActorFields)
    .from(users)
    .where(and(choosableStaff(), holds("manage_tickets"), or(atLocation, holds("access_all_locations"))))
    .orderBy(asc(users.name), asc(users.surname), asc(users.id))
    .limit(200);
}

export type AssigneeOption = { value: number; label: string };

/** How a change tells someone about a ticket: the email queue and the app's address for the link. */
export interface TicketNotice {
  /** Queues the email (enqueueEmail with the request's app); never throws (a failed send is recorded). */
  send: (email: Email, about: EmailAbout) => Promise<void>;
  /** The app's address, for the link in the email (appAddress: APP_URL, else PRODUCTION_URL; in development the request's origin). */
  origin: string;
}

/** The email that tells a requester the office answered: no ticket text (it may hold client details), a link. */
export function answeredEmail(to: string, name: string, ticketId: number, origin: string): Email {
  return {
    to,
    subject: `Baseline: your ticket #${ticketId} has a new response`,
    text: `Hello ${name || "there"},\n\nThe office responded to your ticket #${ticketId}.\n\nRead the response: ${origin}/tickets/view/${ticketId}\n\nBaseline`,
  };
}

/** The email that tells a staff member a ticket was assigned to them: no ticket text either, a link. */
export function assignedEmail(to: string, name: string, ticketId: number, origin: string): Email {
  return {
    to,
    subject: `Baseline: ticket #${ticketId} was assigned to you`,
    text: `Hello ${name || "there"},\n\nTicket #${ticketId} was assigned to you.\n\nOpen the ticket: ${origin}/tickets/view/${ticketId}\n\nBaseline`,
  };
}

/**
 * Adds a response. The office's: status answered, one more unread response for the requester,
 * first_response_at set once, and an email to the requester. The requester's: the office has not read
 * it (read_by_staff 0) and the ticket is open again. One batch: the ticket's update (conditional on its
 * version when given, and on not being closed), the response and the audit row, both only when the
 * update happened. `formToken` (the form's one-time token, or the API's Idempotency-Key as idempotencyToken made it):
 * the update lands only while no response holds it, so a resend of the same form (a double click, a browser's
 * resend) posts and emails once and answers the response the first send made (decision 024, stop 39).
 */
export async function respondToTicket(ctx: ModelContext, id: number, raw: Record<string, unknown>, opts: { version: number | null; notice?: TicketNotice; formToken?: string | null }): Promise<ModelResult<ResponseJson>> {
  const formToken = oneTimeToken(opts.formToken);
  const found = await findTicket(ctx, id);
  const current = found?.ticket ?? null;
  if (!current || !current.role) return notFound("Ticket");
  if (!canRespond(ctx.actor, { userId: current.user_id, locationId: current.location_id, status: current.status })) return invalid({ body: TICKET_MESSAGES.closed });
  const parsed = parseWith(ResponseInput, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const role = current.role;
  const effect = afterResponse(role);
  const at = nowIso(ctx);
  let written;
  try {
    written = await withConditionalAudit(ctx.db, auditWho(ctx), { action: "respond", entity: "ticket", entityId: id, detail: { by_staff: role === "office" } }, (audit) => [
      ctx.db
        .update(tickets)
        .set({
          status: effect.status,
          readByStaff: effect.readByStaff,
          unreadResponses: sql`${tickets.unreadResponses} + ${effect.unreadDelta}`,
          ...(role === "office" ? { firstResponseAt: sql`coalesce(${tickets.firstResponseAt}, ${at})` } : {}),
          version: sql`${tickets.version} + 1`,
          updatedAt: at,
        })
        .where(and(eq(tickets.id, id), ne(tickets.status, "closed"), opts.version === null ? undefined : eq(tickets.version, opts.version), tokenFree(formToken)))
        .returning({ id: tickets.id }),
      ctx.db
        .insert(ticketResponses)
        .select(sql`select null, ${id}, ${ctx.actor.id}, ${parsed.data.body}, ${role === "office" ? 1 : 0}, ${formToken}, ${at}, ${at} where changes() = 1`)
        .returning(),
      audit(sql`changes() = 1`),
      afterStatement(ctx, id),
      bumpListVersion(ctx.db, TICKETS),
    ], found!.tail);
  } catch (e) {
    if (formToken && isTokenRace(e, "ticket_responses.form_token")) return replayResponse(ctx, id, formToken);
    throw e;
  }
  const [updated, inserted, , after] = written;
  if (!updated[0]) {
    // The same form sent before (its version is now stale, or its response holds the token): the response it made.
    if (formToken) {
      const replay = await replayResponse(ctx, id, formToken);
      if (replay.ok || replay.message !== RESPONSE_RESEND.formUsed) return replay;
    }
    const now = afterJson(ctx, after);
    if (!now) return notFound("Ticket");
    if (now.status === "closed") return invalid({ body: TICKET_MESSAGES.closed });
    return conflict(now);
  }
  const response = inserted[0]!;
  if (role === "office" && opts.notice && current.requester_email) {
    await opts.notice.send(answeredEmail(current.requester_email, current.requester_name, id, opts.notice.origin), { kind: "ticket_answered", account: { type: "user", id: current.user_id } });
  }
  return ok({ id: response.id, ticket_id: id, user_id: ctx.actor.id, author_name: `${ctx.actor.name} ${ctx.actor.surname}`.trim(), body: response.body, by_staff: response.byStaff, created_at: response.createdAt }, "Response sent.");
}

/** What a resend of a response answers besides the first response (decision 024, stop 39). */
export const RESPONSE_RESEND = {
  formUsed: "This form was already used. Open the ticket again to send another response.",
  keyReused: idempotencyKeyReused("response"),
} as const;

/** The ticket's update lands only while no response holds the form's token (none without one). */
function tokenFree(formToken: string | null) {
  return formToken ? sql`not exists (select 1 from ${ticketResponses} where ${tokenMatch(ticketResponses.formToken, formToken)})` : undefined;
}

/**
 * A resend of a response: the one the token made, this actor's on this ticket, with the first answer's message (no
 * second email). The same Idempotency-Key with another body answers 422 keyReused; a token that made none (or another
 * ticket's), 422 formUsed, which the caller treats as "no earlier send".
 */
async function replayResponse(ctx: ModelContext, id: number, formToken: string): Promise<ModelResult<ResponseJson>> {
  const [r] = await primaryOf(ctx.db)
    .select({ r: ticketResponses, author: sql<string>`trim(${users.name} || ' ' || ${users.surname})` })
    .from(ticketResponses)
    .innerJoin(users, eq(users.id, ticketResponses.userId))
    .where(tokenMatch(ticketResponses.formToken, formToken));
  if (r && r.r.formToken !== formToken) return invalid({ body: RESPONSE_RESEND.keyReused });
  if (!r || r.r.ticketId !== id || r.r.userId !== ctx.actor.id) return invalid({ body: RESPONSE_RESEND.formUsed });
  return replayedOk(responseJson(r), "Response sent.");
}

/** Closes (the requester or the office) or reopens a ticket; conditional on its version when given. */
export async function setTicketClosed(ctx: ModelContext, id: number, closed: boolean, version: number | null): Promise<ModelResult<TicketJson>> {
  const found = await findTicket(ctx, id);
  const current = found?.ticket ?? null;
  if (!current || !current.role) return notFound("Ticket");
  const facts = { userId: current.user_id, locationId: current.location_id, status: current.status };
  if (closed && !canCloseTicket(ctx.actor, facts)) return invalid({ form: TICKET_MESSAGES.alreadyClosed });
  if (!closed && !canReopenTicket(ctx.actor, facts)) return invalid({ form: TICKET_MESSAGES.notClosed });
  const at = nowIso(ctx);
  const [rows, , after] = await withConditionalAudit(ctx.db, auditWho(ctx), { action: closed ? "close" : "reopen", entity: "ticket", entityId: id }, (audit) => [
    ctx.db
      .update(tickets)
      .set(
        closed
          ? { status: "closed", closedAt: at, version: sql`${tickets.version} + 1`, updatedAt: at }
          : // Reopened by the requester: a question for the office again (unread); by the office: read.
            { status: "open", closedAt: null, readByStaff: current.role === "office", version: sql`${tickets.version} + 1`, updatedAt: at },
      )
      .where(and(eq(tickets.id, id), closed ? ne(tickets.status, "closed") : eq(tickets.status, "closed"), version === null ? undefined : eq(tickets.version, version)))
      .returning({ id: tickets.id }),
    audit(sql`changes() = 1`),
    afterStatement(ctx, id),
    bumpListVersion(ctx.db, TICKETS),
  ], found!.tail);
  const now = afterJson(ctx, after);
  if (!rows[0]) return now ? conflict(now) : notFound("Ticket");
  if (!now) return notFound("Ticket");
  return ok(now, closed ? "Ticket closed." : "Ticket reopened.");
}

/** The location choices of the office's list filter (the actor's locations; a practice has tens). */
export function ticketLocationOptions(ctx: ModelContext) {
  const scope = locationScope(ctx.actor);
  return ctx.db
    .select({ id: locations.id, title: locations.title })
    .from(locations)
    .where(and(sql`${locations.deletedAt} is null`, inLocationScope(locations.id, scope)))
    .orderBy(asc(locations.title));
}

/** A row of the office's list: the ticket, and why its stored assignee could no longer be assigned (deleted, inactive). */
export type OfficeTicketRow = TicketJson & { assignee_gone: StaffGone | null };

/**
 * The office's list with its location options in one batch (one round trip). Its "Assigned to" names an assignee
 * who is deleted or inactive with why, as the view does (assigneeLabel); the API's list answers the name alone.
 */
export async function listTicketsWithOptions(ctx: ModelContext, query: ListQuery, filters: TicketFilters): Promise<{ page: Paged<OfficeTicketRow>; locations: { id: number; title: string }[] }> {
  const [rows, [total], options] = await ctx.db.batch([...listStatements(ctx, query, filters, { mine: false }), ticketLocationOptions(ctx)]);
  const data = rows.map((r) => ({ ...ticketJson(r, ticketRole(ctx.actor, r.ticket)), assignee_gone: r.assigneeGone }));
  return { page: paged(data, total?.n ?? 0, query), locations: options };
}
