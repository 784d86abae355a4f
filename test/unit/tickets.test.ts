import * as v from "valibot";
import { describe, expect, it } from "vitest";
import type { Actor, Permission } from "~/domain/permissions";
import { badgeText, headerBadgeCount, sidebarBadgeCount } from "~/domain/shell";
import {
  afterResponse,
  AssigneeInput,
  canAssignTicket,
  canCloseTicket,
  isEligibleAssignee,
  canEditTicket,
  canReopenTicket,
  canRespond,
  canSeeTicket,
  isUnreadFor,
  ResponseInput,
  staffCountsInScope,
  TicketFilters,
  TicketInput,
  ticketListAddress,
  ticketTime,
  ticketRole,
} from "~/domain/tickets";
import { notificationSummary } from "~/models/notifications.server";

function actor(id: number, opts: { roles?: string[]; permissions?: Permission[]; locations?: number[]; kind?: Actor["kind"] } = {}): Actor {
  return {
    kind: opts.kind ?? "user",
    id,
    name: "A",
    surname: "B",
    email: "a@b.c",
    roles: opts.roles ?? ["RBT"],
    permissions: opts.permissions ?? [],
    locationIds: opts.locations ?? [1],
    locationId: opts.locations?.[0] ?? 1,
    timeZone: null,
    avatar: null,
    status: "active",
    phone: null,
    twoFactorEnabled: false,
  };
}

const requester = actor(10, { locations: [1] });
const officeMiami = actor(20, { roles: ["MANAGER"], permissions: ["manage_tickets"], locations: [1] });
const officeDenver = actor(21, { roles: ["MANAGER"], permissions: ["manage_tickets"], locations: [2] });
const officeAll = actor(22, { roles: ["MANAGER"], permissions: ["manage_tickets", "access_all_locations"], locations: [] });
const admin = actor(23, { roles: ["ADMIN"], locations: [] });
const colleague = actor(11, { locations: [1] });
const parent = actor(10, { kind: "parent", roles: [] });

const ticket = (status: string, locationId: number | null = 1, userId = 10, firstResponseAt: string | null = status === "answered" ? "2026-11-20T10:00:00Z" : null) => ({ userId, locationId, status, firstResponseAt });

describe("who stands where on a ticket", () => {
  it.each([
    ["the requester", requester, ticket("open"), "requester"],
    ["the office of its location", officeMiami, ticket("open"), "office"],
    ["the office of another location", officeDenver, ticket("open"), null],
    ["the office of every location (access_all_locations)", officeAll, ticket("open", 2), "office"],
    ["ADMIN", admin, ticket("open", 3), "office"],
    ["a colleague of the same location without manage_tickets", colleague, ticket("open"), null],
    ["a parent with the requester's id", parent, ticket("open"), null],
    ["the office of a location when the ticket has none", officeMiami, ticket("open", null), null],
    ["all-locations office when the ticket has no location", officeAll, ticket("open", null), "office"],
    ["an office member on their own ticket is its requester", officeMiami, ticket("open", 1, 20), "requester"],
  ] as const)("%s → %s", (_l, who, t, role) => {
    expect(ticketRole(who, t)).toBe(role);
    expect(canSeeTicket(who, t)).toBe(role !== null);
  });
});

describe("what each may do", () => {
  // [who, status, respond, edit, close, reopen]
  it.each([
    ["requester", requester, "open", true, true, true, false],
    ["requester", requester, "answered", true, false, true, false],
    ["requester", requester, "closed", false, false, false, true],
    ["office", officeMiami, "open", true, true, true, false],
    ["office", officeMiami, "answered", true, true, true, false],
    ["office", officeMiami, "closed", false, false, false, true],
    ["other office", officeDenver, "open", false, false, false, false],
    ["colleague", colleague, "open", false, false, false, false],
    ["other office", officeDenver, "closed", false, false, false, false],
  ] as const)("%s on a ticket %s: respond %s, edit %s, close %s, reopen %s", (_l, who, status, respond, edit, close, reopen) => {
    const t = ticket(status);
    expect(canRespond(who, t)).toBe(respond);
    expect(canEditTicket(who, t)).toBe(edit);
    expect(canCloseTicket(who, t)).toBe(close);
    expect(canReopenTicket(who, t)).toBe(reopen);
  });

  // Decision 036: once the office answered, the question is on record, whatever the status says now.
  it.each([
    ["open, never answered", requester, "open", null, true],
    ["open again after an answer (follow-up or reopen)", requester, "open", "2026-11-20T10:00:00Z", false],
    ["closed, never answered", requester, "closed", null, false],
    ["the office on a ticket open again after an answer", officeMiami, "open", "2026-11-20T10:00:00Z", true],
  ] as const)("edit: %s → %s", (_l, who, status, firstResponseAt, edit) => {
    expect(canEditTicket(who, ticket(status, 1, 10, firstResponseAt))).toBe(edit);
  });

  it("an office response answers the ticket and gives the requester one unread; the requester's reopens the question", () => {
    expect(afterResponse("office")).toEqual({ status: "answered", readByStaff: true, unreadDelta: 1 });
    expect(afterResponse("requester")).toEqual({ status: "open", readByStaff: false, unreadDelta: 0 });
  });

  it.each([
    ["office", { read_by_staff: false, unread_responses: 0, status: "open" }, true],
    ["office", { read_by_staff: false, unread_responses: 0, status: "closed" }, false],
    ["office", { read_by_staff: true, unread_responses: 3, status: "answered" }, false],
    ["requester", { read_by_staff: false, unread_responses: 0, status: "open" }, false],
    ["requester", { read_by_staff: true, unread_responses: 2, status: "answered" }, true],
  ] as const)("a row is unread for the %s: %j → %s", (role, t, unread) => {
    expect(isUnreadFor(role, t)).toBe(unread);
  });
});

describe("ticket input", () => {
  const good = { subject: "Printer", body: "It jams." };
  it.each([
    ["a subject and message, defaults for the rest", good, null],
    ["a subject of 200 characters", { ...good, subject: "x".repeat(200) }, null],
    ["a message of 5000 characters", { ...good, body: "x".repeat(5000) }, null],
    ["no subject", { body: "x" }, "subject"],
    ["a blank subject", { ...good, subject: "   " }, "subject"],
    ["a subject of 201 characters", { ...good, subject: "x".repeat(201) }, "subject"],
    ["a message of 5001 characters", { ...good, body: "x".repeat(5001) }, "body"],
    ["an empty message", { ...good, body: "" }, "body"],
    ["a control character", { ...good, subject: "a\u0000b" }, "subject"],
    ["a text-direction override", { ...good, body: "exe\u202Etxt" }, "body"],
    ["an unknown category", { ...good, category: "gossip" }, "category"],
    ["an unknown priority", { ...good, priority: "asap" }, "priority"],
  ] as const)("%s", (_l, input, field) => {
    const r = v.safeParse(TicketInput, input);
    if (field === null) {
      expect(r.success).toBe(true);
      if (r.success) expect([r.output.category, r.output.priority]).toEqual([(input as { category?: string }).category ?? "general", "normal"]);
    } else {
      expect(r.success).toBe(false);
      expect(r.issues?.[0]?.path?.[0]?.key).toBe(field);
    }
  });

  it("a response needs 1 to 5000 characters of plain text", () => {
    expect(v.safeParse(ResponseInput, { body: "Thanks" }).success).toBe(true);
    expect(v.safeParse(ResponseInput, { body: " " }).success).toBe(false);
    expect(v.safeParse(ResponseInput, { body: "x".repeat(5001) }).success).toBe(false);
    expect(v.safeParse(ResponseInput, {}).success).toBe(false);
  });

  it.each([
    [{}, { status: "", priority: "", category: "", location_id: null, assigned: "" }],
    [{ status: "open", priority: "high", category: "billing", location_id: "3", assigned: "me" }, { status: "open", priority: "high", category: "billing", location_id: 3, assigned: "me" }],
  ])("filters %j", (input, out) => {
    expect(v.parse(TicketFilters, input)).toEqual(out);
  });
  it.each([{ status: "lost" }, { priority: "x" }, { location_id: "1e3" }, { location_id: "-1" }])("refuses the filter %j", (input) => {
    expect(v.safeParse(TicketFilters, input).success).toBe(false);
  });

  it("a list address leaves out the empty filters a GET form sends", () => {
    expect(ticketListAddress("/tickets/list", new URLSearchParams("status=&priority=high&search=&page=2"))).toBe("/tickets/list?priority=high&page=2");
    expect(ticketListAddress("/tickets/list", new URLSearchParams("status=&category="))).toBe("/tickets/list");
  });
});

describe("badges and the notification summary (platform §2, §3)", () => {
  const byLocation = JSON.stringify({ "0": [1, 1], "1": [3, 2], "2": [5, 0] });
  it.each([
    ["office of Miami counts Miami's", officeMiami, { unread: 3, fresh: 2 }],
    ["office of Denver counts Denver's", officeDenver, { unread: 5, fresh: 0 }],
    ["office of every location counts all, the ones without location too", officeAll, { unread: 9, fresh: 3 }],
    ["ADMIN counts all", admin, { unread: 9, fresh: 3 }],
    ["someone without manage_tickets counts none", requester, { unread: 0, fresh: 0 }],
  ] as const)("%s", (_l, who, counts) => {
    expect(staffCountsInScope(who, byLocation)).toEqual(counts);
  });

  it("nothing unread or a bad value counts zero", () => {
    expect(staffCountsInScope(officeAll, null)).toEqual({ unread: 0, fresh: 0 });
    expect(staffCountsInScope(officeAll, "not json")).toEqual({ unread: 0, fresh: 0 });
  });

  it.each([
    ["a requester: header shows their unread responses, no sidebar badge", requester, 4, "4", null],
    ["a requester above 99: '99+'", requester, 120, "99+", null],
    ["the office: header 0, sidebar the unread tickets", officeMiami, 4, "0", "3"],
  ] as const)("%s", (_l, who, own, header, sidebar) => {
    const summary = notificationSummary(who, { staffByLocation: byLocation, ownUnreadResponses: own });
    expect(badgeText(headerBadgeCount(who, summary))).toBe(header);
    const side = sidebarBadgeCount(who, summary);
    expect(side === null ? null : badgeText(side)).toBe(sidebar);
    expect(summary.total_unread).toBe(summary.unread_tickets_count + summary.unread_responses_count);
  });

  it("a parent has nothing", () => {
    expect(notificationSummary(parent, { staffByLocation: byLocation, ownUnreadResponses: 3 })).toEqual({ unread_tickets_count: 0, unread_responses_count: 0, new_tickets_count: 0, total_unread: 0 });
  });
});

describe("ticket assignment rules (stop 17)", () => {
  const office = actor(10, { permissions: ["manage_tickets"], locations: [1] });
  const ticket = (status: string, userId = 1, locationId: number | null = 1) => ({ userId, locationId, status });
  it.each([
    ["the office, open ticket", office, ticket("open"), true],
    ["the office, answered ticket", office, ticket("answered"), true],
    ["the office, closed ticket", office, ticket("closed"), false],
    ["the office member on their own ticket (its requester)", office, ticket("open", 10), false],
    ["the requester", actor(1), ticket("open"), false],
    ["another location's office", actor(11, { permissions: ["manage_tickets"], locations: [2] }), ticket("open"), false],
    ["an all-locations office", actor(12, { permissions: ["manage_tickets", "access_all_locations"], locations: [] }), ticket("open", 1, 5), true],
    ["an ADMIN", actor(13, { roles: ["ADMIN"], locations: [] }), ticket("open"), true],
    ["a parent", actor(14, { kind: "parent" }), ticket("open"), false],
  ])("canAssignTicket: %s → %s", (_label, who, t, expected) => {
    expect(canAssignTicket(who, t)).toBe(expected);
  });

  it.each([
    ["holds manage_tickets at the ticket's location", actor(20, { permissions: ["manage_tickets"], locations: [1, 3] }), 1, true],
    ["holds manage_tickets elsewhere", actor(21, { permissions: ["manage_tickets"], locations: [2] }), 1, false],
    ["at the location without manage_tickets", actor(22, { permissions: ["view_notes"], locations: [1] }), 1, false],
    ["all locations with manage_tickets", actor(23, { permissions: ["manage_tickets", "access_all_locations"], locations: [] }), 7, true],
    ["a ticket without a location: only an all-locations office", actor(24, { permissions: ["manage_tickets"], locations: [1] }), null, false],
    ["SUPERADMIN", actor(25, { roles: ["SUPERADMIN"], locations: [] }), 1, true],
    ["a parent", actor(26, { kind: "parent" }), 1, false],
    ["nobody (unknown or inactive)", null, 1, false],
  ])("isEligibleAssignee: %s → %s", (_label, who, locationId, expected) => {
    expect(isEligibleAssignee(who, { locationId })).toBe(expected);
  });

  it.each([
    [null, null],
    ["", null],
    ["none", null],
    ["42", 42],
    [" 42 ", 42],
    [42, 42],
  ])("AssigneeInput accepts %j as %j", (raw, expected) => {
    expect(v.parse(AssigneeInput, raw)).toBe(expected);
  });
  it.each([["abc"], ["-3"], [0], [1.5], [true], [{}], ["1e3"]])("AssigneeInput refuses %j", (raw) => {
    expect(v.safeParse(AssigneeInput, raw).success).toBe(false);
  });

  it("the list's assignee filter: anyone, me, none; anything else is refused", () => {
    expect(v.parse(TicketFilters, {}).assigned).toBe("");
    expect(v.parse(TicketFilters, { assigned: "me" }).assigned).toBe("me");
    expect(v.parse(TicketFilters, { assigned: "none" }).assigned).toBe("none");
    expect(v.safeParse(TicketFilters, { assigned: "bob" }).success).toBe(false);
  });
});

describe("a ticket's times are on its location's clock, as its lists' days are (probe 9042 L2)", () => {
  it.each([
    ["an evening in New York is that evening, not the next UTC day", "2026-11-29T01:19:00.000Z", "America/New_York", "2026-11-28 20:19 (New York time)"],
    ["Denver, across its DST change", "2027-03-14T09:30:00.000Z", "America/Denver", "2027-03-14 03:30 (Denver time)"],
    ["no location: UTC, said so", "2026-11-29T01:19:00.000Z", null, "2026-11-29 01:19 UTC"],
  ])("%s", (_label, at, zone, shown) => {
    expect(ticketTime(at, zone)).toBe(shown);
  });
});
