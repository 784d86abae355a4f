import * as v from "valibot";
import { choiceOr, requiredLine, requiredText } from "./fields";
import { goneStaffLabel, type StaffGone } from "./patients";
import { can, locationScope, type Actor } from "./permissions";
import { listQuerySchema } from "./paging";
import { localDateTime, zonedDate, zonePlace } from "./time";

/**
 * Customer-service tickets (platform §2 tickets; issue 12): a staff member asks the office for help,
 * the office (manage_tickets, for the requester's location) answers. Pure rules: the choices, the
 * schemas, who may see, answer, edit, close and reopen a ticket, and the staff badge counts in scope.
 * See docs/decisions/036-tickets.md.
 */

export const TICKET_CATEGORIES = ["general", "technical", "billing", "clinical", "account"] as const;
export type TicketCategory = (typeof TICKET_CATEGORIES)[number];
export const TICKET_PRIORITIES = ["low", "normal", "high", "urgent"] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];
export const TICKET_STATUSES = ["open", "answered", "closed"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

/** PUT /api/v2/tickets/update-status/{id}: only closing and reopening are set; "answered" comes from a response. */
export const TICKET_STATUS_MESSAGE = "Send status \"closed\" to close the ticket or \"open\" to reopen it; a ticket is answered by a response.";

const LABELS: Record<string, string> = {
  general: "General",
  technical: "Technical",
  billing: "Billing",
  clinical: "Clinical",
  account: "Account",
  low: "Low",
  normal: "Normal",
  high: "High",
  urgent: "Urgent",
  open: "Open",
  answered: "Answered",
  closed: "Closed",
};
export const ticketLabel = (value: string): string => LABELS[value] ?? value;
export const optionsOf = (values: readonly string[]) => values.map((value) => ({ value, label: ticketLabel(value) }));

export const SUBJECT_MAX = 200;
export const BODY_MAX = 5000;

/** A new ticket, or the whole of an edited one (subject 1–200, body 1–5000, plain text). */
export const TicketInput = v.object({
  subject: requiredLine("Subject", SUBJECT_MAX),
  body: requiredText("Message", BODY_MAX),
  category: choiceOr(TICKET_CATEGORIES, "general", "Choose a category from the list."),
  priority: choiceOr(TICKET_PRIORITIES, "normal", "Choose a priority from the list."),
});
export type TicketInput = v.InferOutput<typeof TicketInput>;

export const TICKET_LOCATION_MESSAGE = "Choose one of your locations.";

/**
 * The location a new ticket is opened at: the `location_id` sent when it is one of the requester's own locations,
 * else refused with the field's message (a ticket is never filed where the requester does not work, and never at
 * their primary location while they asked for another: decision 036, stop 38). Not sent (absent, null or ""): the
 * requester's primary location, else their first, else none, as before. Read from the actor alone: no round trip.
 */
export function ticketLocation(actor: Pick<Actor, "locationId" | "locationIds">, raw: unknown): { ok: true; locationId: number | null } | { ok: false; message: string } {
  if (raw === undefined || raw === null || (typeof raw === "string" && raw.trim() === "")) return { ok: true, locationId: actor.locationId ?? actor.locationIds[0] ?? null };
  const id = typeof raw === "number" ? raw : typeof raw === "string" && /^\s*\d{1,15}\s*$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(id) && actor.locationIds.includes(id) ? { ok: true, locationId: id } : { ok: false, message: TICKET_LOCATION_MESSAGE };
}

/** A response on a ticket (1–5000 characters). */
export const ResponseInput = v.object({ body: requiredText("Response", BODY_MAX) });
export type ResponseInput = v.InferOutput<typeof ResponseInput>;

const optionalChoice = <T extends string>(values: readonly T[], label: string) =>
  v.pipe(
    v.optional(v.string(), ""),
    v.transform((x) => x.trim()),
    v.union([v.literal(""), v.picklist(values)], `Unknown ${label}.`),
  );
const optionalId = (label: string) =>
  v.pipe(
    v.optional(v.string(), ""),
    v.check((x) => x === "" || /^\d{1,9}$/.test(x), `${label} must be a whole number.`),
    v.transform((x) => (x === "" ? null : Number(x))),
  );

/** The "Assigned to" filter: anyone (empty), the one looking (me), nobody (none). */
export const TICKET_ASSIGNED_FILTERS = ["me", "none"] as const;
export const ASSIGNED_FILTER_OPTIONS = [
  { value: "me", label: "Me" },
  { value: "none", label: "Unassigned" },
] as const;

/** The list filters beyond the paging ones (status, priority, category, location, assignee; date range from ListQuery). */
export const TicketFilters = v.object({
  status: optionalChoice(TICKET_STATUSES, "status"),
  priority: optionalChoice(TICKET_PRIORITIES, "priority"),
  category: optionalChoice(TICKET_CATEGORIES, "category"),
  location_id: optionalId("Location"),
  assigned: optionalChoice(TICKET_ASSIGNED_FILTERS, "assignee filter (me or none)"),
});
export type TicketFilters = v.InferOutput<typeof TicketFilters>;
export const TICKET_FILTER_NAMES = ["status", "priority", "category", "location_id", "assigned"] as const;

/**
 * The assignee a form or the API sends: a staff user's id, or nobody (null, "" or "none"). Absent
 * (undefined) leaves the assignment as it is.
 */
export const AssigneeInput = v.pipe(
  v.unknown(),
  v.transform((x) => (x === null || x === "" || x === "none" ? null : typeof x === "string" && /^\d{1,9}$/.test(x.trim()) ? Number(x.trim()) : x)),
  v.union([v.null(), v.pipe(v.number(), v.integer(), v.minValue(1))], "Choose a staff member from the list."),
);
export const TicketListQuery = listQuerySchema();

/** What the rules need to know about a stored ticket. */
export interface TicketFacts {
  userId: number;
  locationId: number | null;
  status: string;
}

/** The office's reach: manage_tickets, and the ticket's location within the actor's (all for access_all_locations). */
export function coversTicket(actor: Actor, t: Pick<TicketFacts, "locationId">): boolean {
  if (!can(actor, "manage_tickets")) return false;
  const scope = locationScope(actor);
  return scope === null || (t.locationId != null && scope.includes(t.locationId));
}

/**
 * How the actor stands to a ticket: its requester (their own ticket, even if they also answer for the
 * office), the office (covers it), or nobody (404: its existence is not revealed). Parents never.
 */
export type TicketRole = "requester" | "office" | null;
export function ticketRole(actor: Actor, t: TicketFacts): TicketRole {
  if (actor.kind !== "user") return null;
  if (t.userId === actor.id) return "requester";
  return coversTicket(actor, t) ? "office" : null;
}

export const canSeeTicket = (actor: Actor, t: TicketFacts): boolean => ticketRole(actor, t) !== null;

/** Responses are written on a ticket that is not closed (reopen it first). */
export const canRespond = (actor: Actor, t: TicketFacts): boolean => ticketRole(actor, t) !== null && t.status !== "closed";

/**
 * The requester edits their ticket while it is open and the office has never answered it (`first_response_at`
 * unset): once answered, the question is on record as asked, even after a follow-up or a reopen puts it back to
 * open. The office edits it unless closed.
 */
export function canEditTicket(actor: Actor, t: TicketFacts & { firstResponseAt: string | null }): boolean {
  const role = ticketRole(actor, t);
  if (role === "office") return t.status !== "closed";
  return role === "requester" && t.status === "open" && t.firstResponseAt === null;
}

/**
 * Assigning (or unassigning) is the office's, on a ticket it covers that is not closed. The requester never
 * assigns, not even an office member on their own ticket (they stand to it as its requester).
 */
export const canAssignTicket = (actor: Actor, t: TicketFacts): boolean => ticketRole(actor, t) === "office" && t.status !== "closed";

/** Who may be assigned a ticket: an active staff member who holds manage_tickets and covers its location. */
export const isEligibleAssignee = (candidate: Actor | null | undefined, t: Pick<TicketFacts, "locationId">): boolean => !!candidate && candidate.kind === "user" && coversTicket(candidate, t);

/** An active assignee who no longer passes isEligibleAssignee (manage_tickets for the ticket's location). */
export const ASSIGNEE_ELSEWHERE = "no longer answers tickets for this location";

/**
 * The stored assignee as the ticket's view names them: with why when they could no longer be assigned (deleted,
 * inactive, or no longer answering this location's tickets: goneStaffLabel, as the note, client and BIP forms do).
 */
export function assigneeLabel(name: string, gone: StaffGone | null): string {
  return gone ? goneStaffLabel(name, gone, ASSIGNEE_ELSEWHERE) : name;
}

export const canCloseTicket = (actor: Actor, t: TicketFacts): boolean => ticketRole(actor, t) !== null && t.status !== "closed";
export const canReopenTicket = (actor: Actor, t: TicketFacts): boolean => ticketRole(actor, t) !== null && t.status === "closed";

/** Why a change is refused, in the words the form shows. */
export const TICKET_MESSAGES = {
  closed: "This ticket is closed. Reopen it to respond.",
  notEditable: "This ticket can no longer be edited: the office has answered it or it is closed.",
  alreadyClosed: "This ticket is already closed.",
  notClosed: "This ticket is not closed.",
  assignNotOffice: "Only the office can assign this ticket.",
  assignClosed: "This ticket is closed. Reopen it to assign it.",
  assigneeOutOfScope: "Choose someone who answers tickets (manage_tickets) for this ticket's location.",
  /** A resend of the new-ticket form (its one-time token): the first ticket answers (decision 024's notes do the same). */
  alreadySent: "This ticket was already sent.",
  formUsed: "This form was already used. Open a new form to ask something else.",
} as const;

/** A response's effect on the ticket: the office answers (the requester has one more unread), the requester reopens the question. */
export function afterResponse(role: Exclude<TicketRole, null>): { status: TicketStatus; readByStaff: boolean; unreadDelta: number } {
  return role === "office" ? { status: "answered", readByStaff: true, unreadDelta: 1 } : { status: "open", readByStaff: false, unreadDelta: 0 };
}

/**
 * Unread tickets per location as read with the session (JSON `{ "<location id or 0>": [unread, new] }`,
 * 0 for a ticket without a location) summed over the locations the actor covers: an office member of
 * Miami is not told about Denver's tickets. Null scope (all locations) sums every entry.
 */
export function staffCountsInScope(actor: Actor, byLocation: string | null | undefined): { unread: number; fresh: number } {
  if (!can(actor, "manage_tickets") || !byLocation) return { unread: 0, fresh: 0 };
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(byLocation) as Record<string, unknown>;
  } catch {
    return { unread: 0, fresh: 0 };
  }
  const scope = locationScope(actor);
  let unread = 0;
  let fresh = 0;
  for (const [key, value] of Object.entries(parsed)) {
    const id = Number(key);
    if (scope !== null && (id === 0 || !scope.includes(id))) continue;
    const [u, n] = Array.isArray(value) ? value : [0, 0];
    unread += Number(u) || 0;
    fresh += Number(n) || 0;
  }
  return { unread, fresh };
}

/** A ticket list's address with the empty filter values a GET form sends without JavaScript left out. */
export function ticketListAddress(pathname: string, params: URLSearchParams): string {
  const kept = new URLSearchParams();
  for (const [k, value] of params) if (value.trim() !== "") kept.append(k, value);
  const query = kept.toString();
  return query ? `${pathname}?${query}` : pathname;
}

/** Whether a row is unread for the one looking at it: the office (not read by staff, not closed), the requester (new responses). */
export function isUnreadFor(role: TicketRole, t: { read_by_staff: boolean; unread_responses: number; status: string }): boolean {
  if (role === "office") return !t.read_by_staff && t.status !== "closed";
  if (role === "requester") return t.unread_responses > 0;
  return false;
}

/**
 * A ticket's day (Opened, Last activity) at its location — the requester's when it was opened — as the clinic reads
 * its dates; a ticket without a location shows the UTC day, marked so (probe 8903).
 */
export function ticketDay(at: string, timeZone: string | null): string {
  return timeZone ? zonedDate(new Date(at), timeZone) : `${at.slice(0, 10)} UTC`;
}

/**
 * A ticket's moment (opened, closed, a response) on its location's clock, the clock its lists' days are on
 * ("2026-11-28 20:19 (New York time)"); UTC, said so, for a ticket without a location (probe 9042 L2).
 */
export function ticketTime(at: string, timeZone: string | null): string {
  return timeZone ? `${localDateTime(at, timeZone)} (${zonePlace(timeZone)} time)` : `${localDateTime(at, null)} UTC`;
}

/**
 * The day a ticket was opened, as the lists show it and filter it (date from/to): the day stored when it was opened
 * (`opened_on`, the location's day then), so a ticket is found by the date shown beside it (decision 036, stop 36).
 * A row without one (written outside the app) shows ticketDay of its creation.
 */
export function openedDay(t: { opened_on?: string | null; created_at: string; time_zone: string | null }): string {
  if (!t.opened_on) return ticketDay(t.created_at, t.time_zone);
  return t.time_zone ? t.opened_on : `${t.opened_on} UTC`;
}
