import { and, count, desc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, ticketResponses, tickets } from "~/db/schema";
import { getUserActor } from "~/models/actors.server";
import { createTicket, listTicketsWithOptions, respondToTicket, setTicketClosed, updateTicket, viewTicket } from "~/models/tickets.server";
import { TicketFilters, TicketListQuery } from "~/domain/tickets";
import * as v from "valibot";
import { api, apiToken, BASE, countingDb, createLocation, createParent, createUser, db, emailTo, emailsTo, form, request, signInCookie, type TestUser, expectUnsupportedMethods } from "./helpers";
import { appFetch } from "./app-fetch";

/** Tickets (platform §2, §3, §7; issue 12; decision 036): screens and API, allowed, 403, 404, bad input, badges, email. */

let A: number;
let B: number;
let requester: TestUser;
let colleague: TestUser;
let officeA: TestUser;
let officeB: TestUser;
const cookies: Record<string, string> = {};
const tokens: Record<string, string> = {};

beforeAll(async () => {
  A = (await createLocation()).id;
  B = (await createLocation()).id;
  requester = await createUser({ permissions: [], locations: [A], name: "Rita" });
  colleague = await createUser({ permissions: [], locations: [A] });
  officeA = await createUser({ role: "MANAGER", permissions: ["manage_tickets"], locations: [A], name: "Olga" });
  officeB = await createUser({ permissions: ["manage_tickets"], locations: [B] });
  for (const [k, u] of Object.entries({ requester, colleague, officeA, officeB })) {
    cookies[k] = await signInCookie(u);
    tokens[k] = await apiToken(u);
  }
  const parent = await createParent();
  cookies.parent = await signInCookie(parent, true);
  tokens.parent = await apiToken(parent, true);
});

async function ticketRow(id: number) {
  const [row] = await db().select().from(tickets).where(eq(tickets.id, id));
  return row!;
}
async function ticketCount() {
  const [row] = await db().select({ n: count() }).from(tickets);
  return row!.n;
}
async function responseCount(id: number) {
  const [row] = await db().select({ n: count() }).from(ticketResponses).where(eq(ticketResponses.ticketId, id));
  return row!.n;
}
async function newTicket(subject = `Help ${Math.random().toString(36).slice(2, 8)}`, who = "requester") {
  const res = await api("/v2/tickets", { method: "POST", token: tokens[who], body: { subject, body: "The printer jams.", category: "technical", priority: "high" } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { id: number; version: number; subject: string } }).data;
}
async function summary(who: string) {
  return (await (await request("/resources/notifications", { cookie: cookies[who] })).json()) as { unread_tickets_count: number; unread_responses_count: number; ticketBadge: string };
}
const html = async (res: Response) => res.text();

describe("a new ticket's location (decision 036, stop 38)", () => {
  let twoPlaces: TestUser;
  let token2: string;
  let cookie2: string;
  beforeAll(async () => {
    twoPlaces = await createUser({ permissions: [], locations: [A, B] });
    token2 = await apiToken(twoPlaces);
    cookie2 = await signInCookie(twoPlaces);
  });
  const post = (token: string, location_id: unknown) =>
    api("/v2/tickets", { method: "POST", token, body: { subject: "Where", body: "Which office?", category: "general", priority: "low", ...(location_id === undefined ? {} : { location_id }) } });

  it.each([
    ["absent: the primary location", undefined, () => A],
    ["null: the primary location", null, () => A],
    ["one of theirs (the second)", "B", () => B],
    ["one of theirs, as digits", "B-string", () => B],
  ] as const)("%s", async (_, sent, expected) => {
    const value = sent === "B" ? B : sent === "B-string" ? String(B) : sent;
    const res = await post(token2, value);
    expect(res.status).toBe(201);
    const { data } = (await res.json()) as { data: { id: number; location_id: number } };
    expect(data.location_id).toBe(expected());
    expect((await ticketRow(data.id)).locationId).toBe(expected());
  });

  it.each([
    ["another location", "other"],
    ["a location that does not exist", 999_999],
    ["not an id", "abc"],
    ["a fraction", 1.5],
    ["a list", [1]],
  ] as const)("%s: 422 on location_id, nothing written", async (_, sent) => {
    const other = (await createLocation()).id;
    const before = await ticketCount();
    const res = await post(token2, sent === "other" ? other : sent);
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ location_id: "Choose one of your locations." });
    expect(await ticketCount()).toBe(before);
  });

  it("a one-location requester may name theirs, never another", async () => {
    expect((await post(tokens.requester!, A)).status).toBe(201);
    expect((await post(tokens.requester!, B)).status).toBe(422);
  });

  it("the screen form: a two-location requester picks, a one-location requester sees no choice", async () => {
    const two = await html(await request("/tickets/add", { cookie: cookie2 }));
    expect(two).toContain('name="location_id"');
    expect(await html(await request("/tickets/add", { cookie: cookies.requester }))).not.toContain('name="location_id"');
    const res = await form("/tickets/add", { subject: "Denver printer", body: "Jammed", category: "general", priority: "normal", location_id: String(B) }, cookie2);
    expect(res.status).toBe(303);
    const id = Number(/\/tickets\/view\/(\d+)/.exec(res.headers.get("Location")!)![1]);
    expect((await ticketRow(id)).locationId).toBe(B);
    const bad = await form("/tickets/add", { subject: "Elsewhere", body: "Typed stays", category: "general", priority: "normal", location_id: "999999" }, cookie2);
    expect(bad.status).toBe(422);
    const page = await html(bad);
    expect(page).toContain("Choose one of your locations.");
    expect(page).toContain("Typed stays");
  });
});

describe("ticket screens", () => {
  it("any staff user opens a ticket at their location; bad input keeps the typed values and writes nothing", async () => {
    expect((await request("/tickets/add", { cookie: cookies.colleague })).status).toBe(200);
    expect((await request("/tickets/add", { cookie: cookies.parent })).status).toBe(403);
    const before = await ticketCount();
    const bad = await form("/tickets/add", { subject: "   ", body: "Typed message stays", category: "general", priority: "normal" }, cookies.requester);
    expect(bad.status).toBe(422);
    const page = await html(bad);
    expect(page).toContain("Subject is required.");
    expect(page).toContain("Typed message stays");
    expect(await ticketCount()).toBe(before);
    expect((await form("/tickets/add", { subject: "x".repeat(201), body: "b" }, cookies.requester)).status).toBe(422);
    expect((await form("/tickets/add", { subject: "Hi", body: "b", priority: "asap" }, cookies.requester)).status).toBe(422);
    expect(await ticketCount()).toBe(before);

    const res = await form("/tickets/add", { subject: "Screen ticket", body: "Please help", category: "billing", priority: "urgent" }, cookies.requester);
    expect(res.status).toBe(303);
    const id = Number(/\/tickets\/view\/(\d+)/.exec(res.headers.get("Location")!)![1]);
    const row = await ticketRow(id);
    expect(row).toMatchObject({ userId: requester.id, locationId: A, subject: "Screen ticket", body: "Please help", category: "billing", priority: "urgent", status: "open", readByStaff: false, unreadResponses: 0, version: 1 });
  });

  it("a resend of the same form load opens one ticket and lands on it, sent one after the other or at once (probe 8905 #5)", async () => {
    const tokenOf = async () => /<input type="hidden" name="form_token" value="([^"]+)"/.exec(await html(await request("/tickets/add", { cookie: cookies.requester })))![1]!;
    const creates = async () => (await db().all<{ n: number }>(sql`select count(*) as n from audit_log where action = 'create' and entity = 'ticket'`))[0]!.n;
    const tap = (token: string, cookie = cookies.requester) => form("/tickets/add", { form_token: token, subject: "Printer broken (double tap)", body: "The printer in room 2 is broken.", category: "general", priority: "normal" }, cookie);
    const landing = (res: Response) => {
      const to = new URL(res.headers.get("Location") ?? "", "https://x.test");
      return { id: /^\/tickets\/view\/(\d+)$/.exec(to.pathname)?.[1], flash: to.searchParams.get("flash") };
    };
    const one = await tokenOf();
    expect(await tokenOf()).not.toBe(one);

    // A refused form keeps its token: fixing and sending it is still that form's one ticket.
    const refused = await form("/tickets/add", { form_token: one, subject: " ", body: "b" }, cookies.requester);
    expect(refused.status).toBe(422);
    expect(await html(refused)).toContain(`name="form_token" value="${one}"`);

    const sequential = async (t: string) => [await tap(t), await tap(t)];
    const atOnce = (t: string) => Promise.all([tap(t), tap(t)]);
    for (const [send, token] of [[sequential, one], [atOnce, await tokenOf()]] as const) {
      const [before, audits] = [await ticketCount(), await creates()];
      const answers = await send(token);
      expect(answers.map((r) => r.status)).toEqual([303, 303]);
      const [a, b] = answers.map(landing);
      expect(a!.id).toBe(b!.id);
      expect([a!.flash, b!.flash].sort()).toEqual(["This ticket was already sent.", "Ticket created."]);
      expect(await ticketCount()).toBe(before + 1);
      expect(await creates()).toBe(audits + 1);
      expect(await ticketRow(Number(a!.id))).toMatchObject({ userId: requester.id, subject: "Printer broken (double tap)", status: "open" });
    }

    // Another user's token opens nothing and names no ticket.
    const before = await ticketCount();
    const other = await tap(one, cookies.colleague);
    expect(other.status).toBe(422);
    expect(await html(other)).toContain("This form was already used.");
    expect(await ticketCount()).toBe(before);
  });

  it("the office list: manage_tickets only, the locations it covers, unread marked, filters", async () => {
    const t = await newTicket("Office list ticket");
    expect((await request("/tickets/list", { cookie: cookies.requester })).status).toBe(403);
    expect((await request("/tickets/list", { cookie: cookies.parent })).status).toBe(403);
    const mine = await html(await request("/tickets/list", { cookie: cookies.officeA }));
    expect(mine).toContain("Office list ticket");
    expect(mine).toMatch(/Office list ticket<\/strong><\/a><span class="badge badge-unread"[^>]*> Unread/);
    expect(await html(await request("/tickets/list", { cookie: cookies.officeB }))).not.toContain("Office list ticket");
    // Filters: a GET form's empty values are left out of the address; a bad one shows its message.
    const empty = await request("/tickets/list?status=&priority=high&category=&location_id=", { cookie: cookies.officeA });
    expect(empty.status).toBe(302);
    expect(empty.headers.get("Location")).toBe("/tickets/list?priority=high");
    expect(await html(await request(`/tickets/list?priority=high&location_id=${A}`, { cookie: cookies.officeA }))).toContain("Office list ticket");
    expect(await html(await request("/tickets/list?status=closed", { cookie: cookies.officeA }))).not.toContain("Office list ticket");
    expect(await html(await request("/tickets/list?category=account", { cookie: cookies.officeA }))).not.toContain("Office list ticket");
    const bad = await request("/tickets/list?status=lost", { cookie: cookies.officeA });
    expect(bad.status).toBe(200);
    expect(await html(bad)).toContain("Unknown status.");
    expect((await request(`/tickets/view/${t.id}`, { cookie: cookies.officeB })).status).toBe(404);
  });

  it("My Tickets lists the actor's own tickets only", async () => {
    await newTicket("Rita's own");
    await newTicket("Colleague's own", "colleague");
    const page = await html(await request("/tickets/my-tickets", { cookie: cookies.requester }));
    expect(page).toContain("Rita&#x27;s own");
    expect(page).not.toContain("Colleague&#x27;s own");
    expect((await request("/tickets/my-tickets", { cookie: cookies.parent })).status).toBe(403);
  });

  it("the whole round: the office opens (read), answers (email, badge 1), the requester opens (badge 0), answers back (office unread again)", async () => {
    const t = await newTicket("Round trip");
    expect((await request(`/tickets/view/${t.id}`, { cookie: cookies.colleague })).status).toBe(404);
    expect((await request(`/tickets/view/${t.id}`, { cookie: cookies.parent })).status).toBe(403);
    const officeBefore = await summary("officeA");
    expect(officeBefore.ticketBadge).toBe("0");
    // Opening marks it read by the office, then answers once more so the badges are current.
    const open = await request(`/tickets/view/${t.id}`, { cookie: cookies.officeA });
    expect(open.status).toBe(302);
    expect(open.headers.get("Location")).toBe(`/tickets/view/${t.id}?seen=1`);
    expect((await ticketRow(t.id)).readByStaff).toBe(true);
    expect((await summary("officeA")).unread_tickets_count).toBe(officeBefore.unread_tickets_count - 1);
    const viewed = await request(`/tickets/view/${t.id}?seen=1`, { cookie: cookies.officeA });
    expect(viewed.status).toBe(200);
    expect(await html(viewed)).toContain("The printer jams.");

    // Bad input and a stale version change nothing.
    const v1 = (await ticketRow(t.id)).version;
    const blank = await form(`/tickets/view/${t.id}`, { intent: "respond", body: " ", version: String(v1) }, cookies.officeA);
    expect(blank.status).toBe(422);
    const blankPage = await html(blank);
    expect(blankPage).toContain("Response is required.");
    // The focus goes to the answer's field, as on every form with an error (probe 8903).
    expect(blankPage).toMatch(/<textarea[^>]*name="body"[^>]*autofocus/);
    const stale = await form(`/tickets/view/${t.id}`, { intent: "respond", body: "Late", version: String(v1 - 1 || 99) }, cookies.officeA);
    expect(stale.status).toBe(409);
    expect(await responseCount(t.id)).toBe(0);
    expect((await ticketRow(t.id)).version).toBe(v1);

    const answered = await form(`/tickets/view/${t.id}`, { intent: "respond", body: "A technician comes Thursday.", version: String(v1) }, cookies.officeA);
    expect(answered.status).toBe(303);
    const row = await ticketRow(t.id);
    expect(row).toMatchObject({ status: "answered", unreadResponses: 1, readByStaff: true, version: v1 + 1 });
    expect(row.firstResponseAt).toBeTruthy();
    const mail = await emailTo(requester.email, /ticket #\d+ has a new response/);
    expect(mail?.text).toContain(`/tickets/view/${t.id}`);
    expect(mail?.text).not.toContain("technician");
    expect(mail?.subject).not.toContain("Round trip");

    // The requester's header badge shows 1 until they open the ticket.
    expect((await summary("requester")).ticketBadge).toBe("1");
    expect(await html(await request("/dashboard", { cookie: cookies.requester }))).toMatch(/data-testid="ticket-badge">1</);
    const mine = await html(await request("/tickets/my-tickets", { cookie: cookies.requester }));
    expect(mine).toContain("1 unread response.");
    const reqOpen = await request(`/tickets/view/${t.id}`, { cookie: cookies.requester });
    expect(reqOpen.status).toBe(302);
    const reqView = await html(await request(reqOpen.headers.get("Location")!, { cookie: cookies.requester }));
    expect(reqView).toMatch(/data-testid="ticket-badge">0</);
    expect(reqView).toContain("A technician comes Thursday.");
    expect((await ticketRow(t.id)).unreadResponses).toBe(0);

    // The requester answers back: unread for the office again, the ticket open.
    const before = (await summary("officeA")).unread_tickets_count;
    const back = await form(`/tickets/view/${t.id}`, { intent: "respond", body: "Thanks, which time?", version: String(v1 + 1) }, cookies.requester);
    expect(back.status).toBe(303);
    expect(await ticketRow(t.id)).toMatchObject({ status: "open", readByStaff: false, unreadResponses: 0 });
    expect((await summary("officeA")).unread_tickets_count).toBe(before + 1);
    const sidebar = await html(await request("/dashboard", { cookie: cookies.officeA }));
    expect(/href="\/tickets\/list"[^>]*>[\s\S]*?<span class="badge" data-testid="sidebar-ticket-badge">(\d+)<\/span>/.exec(sidebar)?.[1]).toBe(String(before + 1));
    expect(sidebar).toMatch(/data-testid="ticket-badge">0</);
    // Another location's office cannot answer.
    expect((await form(`/tickets/view/${t.id}`, { intent: "respond", body: "Not mine" }, cookies.officeB)).status).toBe(404);
    expect(await responseCount(t.id)).toBe(2);
  });

  it("edit: the requester while open, the office unless closed; others 404; bad input and stale versions change nothing", async () => {
    const t = await newTicket("Edit me");
    expect((await request(`/tickets/edit/${t.id}`, { cookie: cookies.colleague })).status).toBe(404);
    expect((await form(`/tickets/edit/${t.id}`, { subject: "Hijack", body: "x", version: "1" }, cookies.officeB)).status).toBe(404);
    const bad = await form(`/tickets/edit/${t.id}`, { subject: "", body: "kept body", version: "1" }, cookies.requester);
    expect(bad.status).toBe(422);
    expect(await html(bad)).toContain("kept body");
    const ok = await form(`/tickets/edit/${t.id}`, { subject: "Edited", body: "New body", category: "account", priority: "low", version: "1" }, cookies.requester);
    expect(ok.status).toBe(303);
    expect(await ticketRow(t.id)).toMatchObject({ subject: "Edited", body: "New body", category: "account", priority: "low", version: 2 });
    const stale = await form(`/tickets/edit/${t.id}`, { subject: "Stale", body: "my long typed message", version: "1" }, cookies.requester);
    expect(stale.status).toBe(409);
    expect((await ticketRow(t.id)).subject).toBe("Edited");
    // The form shows what is stored (version 2) and keeps what was typed beside it (probe 8955 #4).
    const page = await html(stale);
    expect(page).toContain('name="version" value="2"');
    expect(page).toContain("Your changes that were not saved");
    expect(page).toContain("my long typed message");
    // Once answered, the requester can no longer edit; the office can.
    await form(`/tickets/view/${t.id}`, { intent: "respond", body: "Done", version: "2" }, cookies.officeA);
    expect(await html(await request(`/tickets/edit/${t.id}`, { cookie: cookies.requester }))).toContain("can no longer be edited");
    expect((await form(`/tickets/edit/${t.id}`, { subject: "Again", body: "x", version: "3" }, cookies.requester)).status).toBe(422);
    expect((await form(`/tickets/edit/${t.id}`, { subject: "By office", body: "x", version: "3" }, cookies.officeA)).status).toBe(303);
    expect((await ticketRow(t.id)).subject).toBe("By office");
  });

  it("close and reopen; a closed ticket takes no response", async () => {
    const t = await newTicket("Close me");
    expect((await form(`/tickets/view/${t.id}`, { intent: "close", version: "1" }, cookies.colleague)).status).toBe(404);
    expect((await form(`/tickets/view/${t.id}`, { intent: "close", version: "1" }, cookies.requester)).status).toBe(303);
    const closed = await ticketRow(t.id);
    expect(closed.status).toBe("closed");
    expect(closed.closedAt).toBeTruthy();
    const refused = await form(`/tickets/view/${t.id}`, { intent: "respond", body: "Hello?", version: "2" }, cookies.officeA);
    expect(refused.status, refused.headers.get("Location") ?? "").toBe(422);
    expect(await html(refused)).toContain("This ticket is closed.");
    expect(await responseCount(t.id)).toBe(0);
    expect((await form(`/tickets/view/${t.id}`, { intent: "close", version: "2" }, cookies.requester)).status).toBe(422);
    expect((await form(`/tickets/view/${t.id}`, { intent: "reopen", version: "2" }, cookies.officeA)).status).toBe(303);
    expect(await ticketRow(t.id)).toMatchObject({ status: "open", closedAt: null, version: 3 });
    expect((await form(`/tickets/view/${t.id}`, { intent: "dance" }, cookies.requester)).status).toBe(400);
  });

  it("a bad responses page shows page 1 with the lists' reason (page=-1, 0, 1.5, abc); a good page is kept", async () => {
    const t = await newTicket("Paged thread");
    for (const [page, reason] of [
      ["-1", "Page must be at least 1."],
      ["0", "Page must be at least 1."],
      ["1.5", "Page must be a whole number."],
      ["abc", "Page must be a whole number."],
      ["2000000", "Page must be at most 1000000."],
    ] as const) {
      const res = await request(`/tickets/view/${t.id}?seen=1&page=${page}`, { cookie: cookies.requester });
      expect(res.status, page).toBe(200);
      const body = await html(res);
      expect(body, page).toContain(reason);
      expect(body, page).toContain("Paged thread");
    }
    const fine = await html(await request(`/tickets/view/${t.id}?seen=1&page=1`, { cookie: cookies.requester }));
    expect(fine).not.toMatch(/Page must be/);
  });

  it("every change leaves an audit row without the ticket's text", async () => {
    const t = await newTicket("Audited subject");
    const rows = await db().select().from(auditLog).where(eq(auditLog.entity, "ticket"));
    const created = rows.filter((r) => r.action === "create");
    expect(created.length).toBeGreaterThan(0);
    expect(rows.map((r) => r.detail ?? "").join(" ")).not.toContain("Audited subject");
    await api(`/v2/tickets/${t.id}/responses`, { method: "POST", token: tokens.officeA, body: { body: "ok" } });
    const named = await db().select().from(auditLog).where(and(eq(auditLog.entity, "ticket"), eq(auditLog.entityId, String(t.id))));
    expect(named.map((r) => r.action)).toEqual(["create", "respond"]);
  });
});

describe("tickets API", () => {
  it("store: 201 for any staff user, 422 with message and errors for bad input (nothing written), 403 for a parent, 401 without a token", async () => {
    const before = await ticketCount();
    const bad = await api("/v2/tickets", { method: "POST", token: tokens.requester, body: { subject: "", body: "x".repeat(5001) } });
    expect(bad.status).toBe(422);
    const body = (await bad.json()) as { message: string; errors: Record<string, string> };
    expect(body.message).toBeTruthy();
    expect(Object.keys(body.errors).sort()).toEqual(["body", "subject"]);
    expect((await api("/v2/tickets", { method: "POST", token: tokens.parent, body: { subject: "a", body: "b" } })).status).toBe(403);
    expect((await api("/v2/tickets", { method: "POST", body: { subject: "a", body: "b" } })).status).toBe(401);
    expect(await ticketCount()).toBe(before);
    const t = await newTicket("API ticket");
    expect(t.subject).toBe("API ticket");
  });

  it("list and show: own tickets, the office's locations; another's ticket 404; bad filters 422", async () => {
    const t = await newTicket("API listed");
    const list = async (who: string, q = "") => ((await (await api(`/v2/tickets${q}`, { token: tokens[who] })).json()) as { data: { id: number }[] }).data.map((x) => x.id);
    expect(await list("requester")).toContain(t.id);
    expect(await list("officeA")).toContain(t.id);
    expect(await list("officeB")).not.toContain(t.id);
    expect(await list("colleague")).not.toContain(t.id);
    expect(await list("officeA", "?mine=1")).not.toContain(t.id);
    expect(await list("officeA", "?status=open&priority=high&category=technical")).toContain(t.id);
    expect(await list("officeA", "?status=closed")).not.toContain(t.id);
    const bad = await api("/v2/tickets?status=lost", { token: tokens.officeA });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { message: string }).message).toBe("Unknown status.");
    expect((await api("/v2/tickets?per_page=0", { token: tokens.officeA })).status).toBe(422);
    expect((await api(`/v2/tickets/${t.id}`, { token: tokens.officeA })).status).toBe(200);
    expect((await api(`/v2/tickets/${t.id}`, { token: tokens.colleague })).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}`, { token: tokens.officeB })).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}`, { token: tokens.parent })).status).toBe(403);
    expect((await api(`/v2/tickets/${t.id}/responses`, { token: tokens.officeB })).status).toBe(404);
    expect((await api("/v2/tickets/abc", { token: tokens.officeA })).status).toBe(404);
  });

  it("responses and mark-read move the summary; the requester is emailed when the office answers", async () => {
    const t = await newTicket("API answered");
    const sum = async (who: string) => (await (await api("/v2/tickets/notifications/summary", { token: tokens[who] })).json()) as { unread_tickets_count: number; unread_responses_count: number };
    const officeBefore = (await sum("officeA")).unread_tickets_count;
    expect((await api(`/v2/tickets/${t.id}/mark-read`, { method: "POST", token: tokens.colleague })).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}/mark-read`, { method: "POST", token: tokens.officeB })).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}/mark-read`, { method: "POST", token: tokens.officeA })).status).toBe(200);
    expect((await sum("officeA")).unread_tickets_count).toBe(officeBefore - 1);

    const responsesBefore = (await sum("requester")).unread_responses_count;
    const bad = await api(`/v2/tickets/${t.id}/responses`, { method: "POST", token: tokens.officeA, body: { body: "" } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: Record<string, string> }).errors.body).toBe("Response is required.");
    expect((await api(`/v2/tickets/${t.id}/responses`, { method: "POST", token: tokens.officeB, body: { body: "x" } })).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}/responses`, { method: "POST", token: tokens.officeA, body: { body: "x", version: 99 } })).status).toBe(409);
    expect(await responseCount(t.id)).toBe(0);
    const res = await api(`/v2/tickets/${t.id}/responses`, { method: "POST", token: tokens.officeA, body: { body: "Answered by API" } });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { data: { by_staff: boolean } }).data.by_staff).toBe(true);
    expect((await sum("requester")).unread_responses_count).toBe(responsesBefore + 1);
    expect(await emailTo(requester.email, new RegExp(`ticket #${t.id} has a new response`))).not.toBeNull();

    const thread = (await (await api(`/v2/tickets/${t.id}/responses`, { token: tokens.requester })).json()) as { data: { body: string }[]; total: number };
    expect(thread.total).toBe(1);
    expect(thread.data[0]!.body).toBe("Answered by API");
    expect((await api(`/v2/tickets/${t.id}/responses?page=x`, { token: tokens.requester })).status).toBe(422);
    const below = await api(`/v2/tickets/${t.id}/responses?page=-1`, { token: tokens.requester });
    expect(below.status).toBe(422);
    expect(((await below.json()) as { message: string }).message).toBe("page must be at least 1.");

    expect((await api(`/v2/tickets/${t.id}/mark-read`, { method: "POST", token: tokens.requester })).status).toBe(200);
    expect((await sum("requester")).unread_responses_count).toBe(responsesBefore);
  });

  it("any other method on the notification summary (and the dashboard's counts) answers 405 JSON 'Unsupported HTTP method'", async () => {
    const cases: [method: string, path: string][] = [
      ["PATCH", "/v2/tickets/notifications/summary"],
      ["POST", "/v2/tickets/notifications/summary"],
      ["POST", "/dashboard/admin"],
      ["DELETE", "/dashboard/admin-year"],
    ];
    await expectUnsupportedMethods(tokens.officeA, cases);
  });

  it("update, close (DELETE) and reopen: the rules, stale versions, empty changes", async () => {
    const t = await newTicket("API edit");
    expect((await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.requester, body: {} })).status).toBe(422);
    expect((await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.colleague, body: { subject: "x" } })).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.requester, body: { subject: "x", version: 7 } })).status).toBe(409);
    const bad = await api(`/v2/tickets/${t.id}`, { method: "PUT", token: tokens.requester, body: { subject: "only a subject" } });
    expect(bad.status).toBe(422);
    expect((await ticketRow(t.id)).subject).toBe("API edit");
    const ok = await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.requester, body: { priority: "low", version: 1 } });
    expect(ok.status).toBe(200);
    expect(await ticketRow(t.id)).toMatchObject({ subject: "API edit", priority: "low", version: 2 });
    expect((await api(`/v2/tickets/${t.id}`, { method: "DELETE", token: tokens.officeB })).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}`, { method: "DELETE", token: tokens.requester })).status).toBe(200);
    expect((await ticketRow(t.id)).status).toBe("closed");
    expect((await api(`/v2/tickets/${t.id}`, { method: "DELETE", token: tokens.requester })).status).toBe(422);
    expect((await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.officeA, body: { subject: "closed" } })).status).toBe(422);
    expect((await api(`/v2/tickets/${t.id}/reopen`, { method: "POST", token: tokens.requester })).status).toBe(200);
    expect((await ticketRow(t.id)).status).toBe("open");
    expect((await api(`/v2/tickets/${t.id}/reopen`, { method: "POST", token: tokens.requester })).status).toBe(422);
    expect((await api(`/v2/tickets/${t.id}/mark-read`, { method: "GET", token: tokens.requester })).status).toBe(405);
  });

  it("reopen sent with a JSON type and no body: another location's ticket is 404, one's own reopens (probe 8955 #2)", async () => {
    const t = await newTicket("Empty body reopen");
    expect((await api(`/v2/tickets/${t.id}`, { method: "DELETE", token: tokens.requester })).status).toBe(200);
    const bare = (token: string) => appFetch(`${BASE}/api/v2/tickets/${t.id}/reopen`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json" } });
    expect((await bare(tokens.officeB!)).status).toBe(404);
    expect((await bare(tokens.requester!)).status).toBe(200);
    expect((await ticketRow(t.id)).status).toBe("open");
  });

  it("PUT /v2/tickets/update-status/{id} closes and reopens (the generic v2 status call; probe 8896, stop 25)", async () => {
    const t = await newTicket("Status call");
    const bad = await api(`/v2/tickets/update-status/${t.id}`, { method: "PUT", token: tokens.requester, body: { status: "answered" } });
    expect(bad.status).toBe(422);
    expect((await ticketRow(t.id)).status).toBe("open");
    expect((await api(`/v2/tickets/update-status/${t.id}`, { method: "PUT", token: tokens.officeB, body: { status: "closed" } })).status).toBe(404);
    expect((await api(`/v2/tickets/update-status/${t.id}`, { method: "PUT", token: tokens.requester, body: { status: "closed" } })).status).toBe(200);
    expect((await ticketRow(t.id)).status).toBe("closed");
    expect((await api(`/v2/tickets/update-status/${t.id}`, { method: "PUT", token: tokens.requester, body: { status: "Open" } })).status).toBe(200);
    expect((await ticketRow(t.id)).status).toBe("open");
    expect((await api(`/v2/tickets/update-status/${t.id}`, { method: "GET", token: tokens.requester })).status).toBe(405);
  });
});

describe("round trips (≤ 3 per request with the session's)", () => {
  it("list with its location options, view, create, update, respond and close each take at most 2 of their own", async () => {
    const counting = countingDb();
    const ctxOf = async (u: TestUser) => ({ db: counting.db, actor: (await getUserActor(db(), u.id))!, ip: "127.0.0.1", now: () => new Date() });
    const asRequester = await ctxOf(requester);
    const asOffice = await ctxOf(officeA);
    const trips = async <T>(f: () => Promise<T>) => {
      const before = counting.roundTrips();
      const out = await f();
      return { out, trips: counting.roundTrips() - before };
    };
    const created = await trips(() => createTicket(asRequester, { subject: "Counted", body: "b" }));
    expect(created.trips).toBeLessThanOrEqual(2);
    if (!created.out.ok) throw new Error(created.out.message);
    const id = created.out.data.id;
    expect(created.out.data).toMatchObject({ subject: "Counted", location_id: A, role: "requester" });
    expect((await trips(() => listTicketsWithOptions(asOffice, v.parse(TicketListQuery, {}), v.parse(TicketFilters, {})))).trips).toBe(1);
    const viewed = await trips(() => viewTicket(asOffice, id, 1, { markRead: true }));
    expect(viewed.trips).toBe(2);
    expect(viewed.out?.markedRead).toBe(true);
    expect((await trips(() => viewTicket(asOffice, id, 1, { markRead: true }))).trips).toBe(1);
    const updated = await trips(() => updateTicket(asRequester, id, { subject: "Counted 2", body: "b" }, { partial: false, version: 1 }));
    expect(updated.trips).toBeLessThanOrEqual(2);
    expect(updated.out.ok && updated.out.data.subject).toBe("Counted 2");
    const stale = await trips(() => updateTicket(asRequester, id, { subject: "Stale", body: "b" }, { partial: false, version: 1 }));
    expect(stale.trips).toBeLessThanOrEqual(2);
    expect(stale.out.ok ? 200 : stale.out.status).toBe(409);
    const responded = await trips(() => respondToTicket(asOffice, id, { body: "Counted answer" }, { version: 2 }));
    expect(responded.trips).toBeLessThanOrEqual(2);
    expect(responded.out.ok).toBe(true);
    const closed = await trips(() => setTicketClosed(asRequester, id, true, 3));
    expect(closed.trips).toBeLessThanOrEqual(2);
    expect(closed.out.ok && closed.out.data.status).toBe("closed");
  });
});

describe("ticket assignment (decision 036, stop 17)", () => {
  let officeA2: TestUser;
  let everywhere: TestUser;
  let inactive: TestUser;
  beforeAll(async () => {
    officeA2 = await createUser({ permissions: ["manage_tickets"], locations: [A], name: "Aldo" });
    everywhere = await createUser({ permissions: ["manage_tickets", "access_all_locations"], locations: [], name: "Wanda" });
    inactive = await createUser({ permissions: ["manage_tickets"], locations: [A], name: "Idle", status: "inactive" });
    for (const [k, u] of Object.entries({ officeA2, everywhere })) {
      cookies[k] = await signInCookie(u);
      tokens[k] = await apiToken(u);
    }
  });
  const assign = (id: number, to: string, who = "officeA", version?: number) => form(`/tickets/view/${id}`, { intent: "assign", assigned_to: to, ...(version === undefined ? {} : { version: String(version) }) }, cookies[who]);

  it("the office assigns and unassigns on the view without JavaScript; the choices are the staff who answer tickets there; audited without text", async () => {
    const t = await newTicket("Assign me please");
    const page = await html(await request(`/tickets/view/${t.id}?seen=1`, { cookie: cookies.officeA }));
    const select = /<select[^>]*name="assigned_to"[\s\S]*?<\/select>/.exec(page)?.[0] ?? "";
    expect(select).toContain(`value="${officeA.id}"`);
    expect(select).toContain(`value="${officeA2.id}"`);
    expect(select).toContain(`value="${everywhere.id}"`);
    for (const u of [officeB, colleague, requester, inactive]) expect(select, `user ${u.id}`).not.toContain(`value="${u.id}"`);
    expect(page).toContain("Unassigned");

    const res = await assign(t.id, String(officeA2.id), "officeA", t.version);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toContain(`/tickets/view/${t.id}?flash=`);
    const row = await ticketRow(t.id);
    expect(row).toMatchObject({ assignedTo: officeA2.id, version: t.version + 1, subject: "Assign me please" });
    const [audit] = await db().select().from(auditLog).where(eq(auditLog.entity, "ticket")).orderBy(desc(auditLog.id)).limit(1);
    expect(audit).toMatchObject({ action: "assign", entityId: String(t.id), actorId: officeA.id });
    expect(JSON.parse(audit!.detail!)).toEqual({ assigned_to: officeA2.id });
    expect(audit!.detail).not.toContain("Assign me");
    const after = await html(await request(`/tickets/view/${t.id}?seen=1`, { cookie: cookies.officeA }));
    expect(after).toMatch(/data-testid="ticket-assignee"[^>]*>Aldo /);

    expect((await assign(t.id, "", "officeA")).status).toBe(303);
    expect((await ticketRow(t.id)).assignedTo).toBeNull();
    // An all-locations office member may take it.
    expect((await assign(t.id, String(everywhere.id), "officeA")).status).toBe(303);
    expect((await ticketRow(t.id)).assignedTo).toBe(everywhere.id);
  });

  it("saving without a change is no change: 'Nothing to change' (422; the screen's flash), no version bump, no audit row (screen and API)", async () => {
    const nothing = "Nothing to change: send at least one field to update.";
    const t = await newTicket("Already assigned");
    expect((await assign(t.id, String(officeA2.id), "officeA", t.version)).status).toBe(303);
    const before = await ticketRow(t.id);
    const trail = async () => (await db().select({ id: auditLog.id }).from(auditLog).where(and(eq(auditLog.entity, "ticket"), eq(auditLog.entityId, String(t.id))))).length;
    const rows = await trail();
    // The view's "Save assignment" with the current assignee: where a save goes, saying so (decision 017, stop 45).
    const same = await assign(t.id, String(officeA2.id), "officeA", before.version);
    expect(same.status).toBe(303);
    expect(decodeURIComponent(same.headers.get("Location") ?? "")).toContain("flash=Nothing to change.");
    // The API: the same assignee, the same priority, the same text.
    for (const body of [{ assigned_to: officeA2.id }, { priority: "high" }, { subject: "Already assigned", category: "technical" }, { assigned_to: String(officeA2.id), priority: "high" }]) {
      const res = await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.officeA, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe(nothing);
    }
    // A whole-ticket PUT that sends it back as stored, by the requester too (the office has not answered).
    const put = await api(`/v2/tickets/${t.id}`, { method: "PUT", token: tokens.requester, body: { subject: "Already assigned", body: "The printer jams.", category: "technical", priority: "high" } });
    expect(put.status).toBe(422);
    expect(((await put.json()) as { message: string }).message).toBe(nothing);
    expect(await ticketRow(t.id)).toEqual(before);
    expect(await trail()).toBe(rows);
    // A stale version is still a conflict (the form was made from older values), and a real change still saves.
    expect((await assign(t.id, String(officeA2.id), "officeA", before.version - 1)).status).toBe(409);
    const changed = await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.officeA, body: { priority: "low" } });
    expect(((await changed.json()) as { message: string }).message).toBe("Ticket updated.");
    expect(await ticketRow(t.id)).toMatchObject({ priority: "low", version: before.version + 1 });
    expect(await trail()).toBe(rows + 1);
  });

  it("an assignee without manage_tickets, out of the ticket's location, inactive or unknown: 422 on assigned_to, nothing changed", async () => {
    const t = await newTicket("Refusals");
    const before = await ticketRow(t.id);
    for (const to of [String(colleague.id), String(officeB.id), String(inactive.id), "99999999", "abc", "-3"]) {
      const res = await assign(t.id, to);
      expect(res.status, to).toBe(422);
      const page = await html(res);
      expect(page, to).toMatch(/Choose (someone who answers tickets|a staff member from the list)/);
    }
    // (The re-rendered view marks the ticket read for the office, as any view does; nothing else changes.)
    expect({ ...(await ticketRow(t.id)), readByStaff: before.readByStaff }).toEqual(before);
  });

  it("the requester cannot assign (no form; a POST is 422), others 404, a stale version 409, a closed ticket 422", async () => {
    const t = await newTicket("Requester tries");
    const own = await html(await request(`/tickets/view/${t.id}?seen=1`, { cookie: cookies.requester }));
    expect(own).not.toContain('name="assigned_to"');
    expect((await assign(t.id, String(officeA.id), "requester")).status).toBe(422);
    expect((await assign(t.id, String(officeA.id), "colleague")).status).toBe(404);
    expect((await assign(t.id, String(officeB.id), "officeB")).status).toBe(404);
    expect((await request(`/tickets/view/${t.id}`, { method: "POST", body: new URLSearchParams({ intent: "assign", assigned_to: String(officeA.id) }), cookie: cookies.parent, headers: { "Content-Type": "application/x-www-form-urlencoded" } })).status).toBe(403);
    expect((await assign(t.id, String(officeA.id), "officeA", t.version + 7)).status).toBe(409);
    expect((await ticketRow(t.id)).assignedTo).toBeNull();
    expect((await form(`/tickets/view/${t.id}`, { intent: "close" }, cookies.requester)).status).toBe(303);
    const closed = await assign(t.id, String(officeA.id));
    expect(closed.status).toBe(422);
    expect(await html(closed)).toContain("This ticket is closed. Reopen it to assign it.");
    expect((await ticketRow(t.id)).assignedTo).toBeNull();
  });

  it("the office list shows the assignee and filters by anyone / me / unassigned", async () => {
    const mine = await newTicket("Filter mine");
    const theirs = await newTicket("Filter theirs");
    const nobody = await newTicket("Filter nobody");
    expect((await assign(mine.id, String(officeA.id))).status).toBe(303);
    expect((await assign(theirs.id, String(officeA2.id))).status).toBe(303);
    const all = await html(await request("/tickets/list?search=Filter", { cookie: cookies.officeA }));
    expect(all).toContain("Assigned to");
    for (const s of ["Filter mine", "Filter theirs", "Filter nobody"]) expect(all).toContain(s);
    expect(all).toContain("Aldo ");
    const me = await html(await request("/tickets/list?search=Filter&assigned=me", { cookie: cookies.officeA }));
    expect(me).toContain("Filter mine");
    expect(me).not.toContain("Filter theirs");
    expect(me).not.toContain("Filter nobody");
    const none = await html(await request("/tickets/list?search=Filter&assigned=none", { cookie: cookies.officeA }));
    expect(none).toContain("Filter nobody");
    expect(none).not.toContain("Filter mine");
    expect(none).not.toContain("Filter theirs");
    const bad = await html(await request("/tickets/list?search=Filter&assigned=bogus", { cookie: cookies.officeA }));
    expect(bad).toContain("Unknown assignee filter");
    // The same filter on the API.
    const api2 = (await (await api("/v2/tickets?search=Filter&assigned=me", { token: tokens.officeA2 })).json()) as { data: { id: number; assignee_name: string | null }[] };
    expect(api2.data.map((t) => t.id)).toEqual([theirs.id]);
    expect(api2.data[0]!.assignee_name).toMatch(/^Aldo /);
    expect((await api("/v2/tickets?assigned=bogus", { token: tokens.officeA })).status).toBe(422);
    void nobody;
  });

  it("API PUT/PATCH take assigned_to under the same checks", async () => {
    const t = await newTicket("API assign");
    const ok = await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.officeA, body: { assigned_to: officeA2.id } });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(((await ok.json()) as { data: { assigned_to: number; assignee_name: string } }).data).toMatchObject({ assigned_to: officeA2.id, assignee_name: expect.stringMatching(/^Aldo /) });
    const before = await ticketRow(t.id);
    for (const [token, to] of [[tokens.officeA, officeB.id], [tokens.officeA, colleague.id], [tokens.officeA, "x"], [tokens.requester, officeA.id]] as const) {
      const res = await api(`/v2/tickets/${t.id}`, { method: "PATCH", token, body: { assigned_to: to } });
      expect(res.status, String(to)).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors.assigned_to, String(to)).toBeTruthy();
    }
    // The requester's whole-ticket PUT that sends the assignee back unchanged is an ordinary edit.
    const put = await api(`/v2/tickets/${t.id}`, { method: "PUT", token: tokens.requester, body: { subject: "API assign (edited)", body: "b", assigned_to: officeA2.id } });
    expect(put.status, await put.clone().text()).toBe(200);
    expect(await ticketRow(t.id)).toMatchObject({ subject: "API assign (edited)", assignedTo: officeA2.id, version: before.version + 1 });
    const unassign = await api(`/v2/tickets/${t.id}`, { method: "PUT", token: tokens.officeA, body: { subject: "API assign (edited)", body: "b", assigned_to: null } });
    expect(unassign.status).toBe(200);
    expect((await ticketRow(t.id)).assignedTo).toBeNull();
    expect((await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.officeB, body: { assigned_to: officeB.id } })).status).toBe(404);
  });

  /** The assignment emails `to` got about ticket `id`, once the queue has delivered `expect` of them (newest first). */
  async function assignedMails(to: string, id: number) {
    const res = await api(`/dev/outbox?to=${encodeURIComponent(to)}`);
    const rows = ((await res.json()) as { data: { subject: string; text: string }[] }).data;
    return rows.filter((m) => m.subject === `Baseline: ticket #${id} was assigned to you`);
  }
  /** Waits until `to` got an assignment email about ticket `id`. */
  async function awaitAssignedMail(to: string, id: number) {
    for (let i = 0; i < 50; i++) {
      const mails = await assignedMails(to, id);
      if (mails.length) return mails;
      await new Promise((r) => setTimeout(r, 100));
    }
    return [];
  }

  it("the assignee is emailed (screen): a link, no ticket text; oneself, unassigning, the same person again and refused assignments send nothing", async () => {
    const t = await newTicket("Mail me the printer case");
    expect((await assign(t.id, String(officeA.id), "officeA")).status).toBe(303); // oneself
    expect((await assign(t.id, "", "officeA")).status).toBe(303); // unassigned
    expect((await assign(t.id, String(officeA2.id), "officeA")).status).toBe(303); // told
    expect((await assign(t.id, String(officeA2.id), "officeA")).status).toBe(303); // the same person again
    // Refused: not eligible, a stale version, the requester, another location's office.
    expect((await assign(t.id, String(colleague.id), "officeA")).status).toBe(422);
    expect((await assign(t.id, String(everywhere.id), "officeA", 1)).status).toBe(409);
    expect((await assign(t.id, String(everywhere.id), "requester")).status).toBe(422);
    expect((await assign(t.id, String(officeB.id), "officeB")).status).toBe(404);
    // Last, one that is told: the queue delivers in order, so once it arrived every earlier one has too.
    expect((await assign(t.id, String(officeA.id), "officeA2")).status).toBe(303);
    const toOffice = await awaitAssignedMail(officeA.email, t.id);
    const toAldo = await assignedMails(officeA2.email, t.id);
    expect(toOffice).toHaveLength(1); // the marker, not the self-assignment
    expect(toAldo).toHaveLength(1); // once, not again for the same person
    for (const u of [colleague, everywhere, officeB]) expect(await assignedMails(u.email, t.id), `user ${u.id}`).toEqual([]);
    const mail = toAldo[0]!;
    expect(mail.text).toContain(`/tickets/view/${t.id}`);
    expect(mail.text).toContain("Hello Aldo");
    expect(`${mail.subject}\n${mail.text}`).not.toMatch(/printer|Mail me|jams/i);
    // The audit rows are the assignment's own (no separate row for the email), without ticket text.
    const rows = await db().select().from(auditLog).where(eq(auditLog.entity, "ticket")).orderBy(desc(auditLog.id)).limit(1);
    expect(rows[0]).toMatchObject({ action: "assign", entityId: String(t.id), actorId: officeA2.id });
  });

  it("the assignee is emailed (API PUT/PATCH) under the same rules", async () => {
    const t = await newTicket("API mail case");
    const patch = (token: string, to: unknown, extra: Record<string, unknown> = {}) => api(`/v2/tickets/${t.id}`, { method: "PATCH", token, body: { assigned_to: to, ...extra } });
    expect((await patch(tokens.officeA, officeA.id)).status).toBe(200); // oneself
    expect((await patch(tokens.officeA, null)).status).toBe(200); // unassigned
    expect((await patch(tokens.officeA, officeA2.id)).status).toBe(200); // told
    expect((await patch(tokens.officeA, officeA2.id)).status).toBe(422); // the same person again: nothing to change
    const put = await api(`/v2/tickets/${t.id}`, { method: "PUT", token: tokens.officeA, body: { subject: "API mail case", body: "b", assigned_to: officeA2.id } });
    expect(put.status).toBe(200); // a whole-ticket PUT that keeps the assignee
    expect((await patch(tokens.officeA, colleague.id)).status).toBe(422);
    expect((await patch(tokens.officeA, everywhere.id, { version: 1 })).status).toBe(409);
    expect((await patch(tokens.requester, everywhere.id)).status).toBe(422);
    expect((await patch(tokens.officeB, officeB.id)).status).toBe(404);
    expect((await api(`/v2/tickets/${t.id}`, { method: "PUT", token: tokens.officeA2, body: { subject: "API mail case", body: "b", assigned_to: officeA.id } })).status).toBe(200);
    const toOffice = await awaitAssignedMail(officeA.email, t.id);
    expect(toOffice).toHaveLength(1);
    expect(await assignedMails(officeA2.email, t.id)).toHaveLength(1);
    for (const u of [colleague, everywhere, officeB]) expect(await assignedMails(u.email, t.id), `user ${u.id}`).toEqual([]);
    expect(toOffice[0]!.text).toContain(`/tickets/view/${t.id}`);
  });

  it("the model queues exactly one email per assignment to someone else, none otherwise (table)", async () => {
    const asOf = async (u: TestUser) => ({ db: db(), actor: (await getUserActor(db(), u.id))!, ip: "127.0.0.1", now: () => new Date() });
    const t = await newTicket("Table of mails");
    const cases: [string, TestUser, number | null, boolean, number][] = [
      // [case, actor, assigned_to, ok, emails]
      ["oneself", officeA, officeA.id, true, 0],
      ["unassign", officeA, null, true, 0],
      ["someone else", officeA, officeA2.id, true, 1],
      ["the same person again (nothing to change)", officeA, officeA2.id, false, 0],
      ["not eligible", officeA, colleague.id, false, 0],
      ["the requester", requester, everywhere.id, false, 0],
      ["an all-locations office member", officeA2, everywhere.id, true, 1],
    ];
    for (const [name, actor, to, ok, emails] of cases) {
      const sent: { to: string; subject: string; text: string }[] = [];
      const out = await updateTicket(await asOf(actor), t.id, { assigned_to: to }, { partial: true, version: null, notice: { send: async (e) => void sent.push(e), origin: "https://app.example" } });
      expect(out.ok, name).toBe(ok);
      expect(sent.length, name).toBe(emails);
      if (emails) expect(sent[0], name).toMatchObject({ to: (to === officeA2.id ? officeA2 : everywhere).email, subject: `Baseline: ticket #${t.id} was assigned to you`, text: expect.stringContaining(`https://app.example/tickets/view/${t.id}`) });
    }
  });

  it("assigning takes at most 2 round trips of its own (the ticket and the assignee read together)", async () => {
    const counting = countingDb();
    const asOffice = { db: counting.db, actor: (await getUserActor(db(), officeA.id))!, ip: "127.0.0.1", now: () => new Date() };
    const t = await newTicket("Counted assign");
    const before = counting.roundTrips();
    const out = await updateTicket(asOffice, t.id, { assigned_to: officeA2.id }, { partial: true, version: null });
    expect(out.ok).toBe(true);
    expect(counting.roundTrips() - before).toBeLessThanOrEqual(2);
    const viewStart = counting.roundTrips();
    const view = await viewTicket(asOffice, t.id, 1, { markRead: false });
    expect(counting.roundTrips() - viewStart).toBe(1);
    expect(view?.assignees?.map((a) => a.value)).toContain(officeA2.id);
  });
});

describe("/tickets (platform §2 tickets: the base route)", () => {
  it("goes to the tickets list with the same filters for the office; 403 without manage_tickets and for a parent (not the 404 page)", async () => {
    const res = await request("/tickets?status=open&priority=high", { cookie: cookies.officeA });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/tickets/list?status=open&priority=high");
    const list = await request(res.headers.get("Location")!, { cookie: cookies.officeA });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain("<h1>Tickets</h1>");
    expect((await request("/tickets", { cookie: cookies.requester })).status).toBe(403);
    expect((await request("/tickets", { cookie: cookies.parent })).status).toBe(403);
    expect((await request("/tickets")).headers.get("Location")).toMatch(/^\/login\?redirectTo=%2Ftickets/);
  });
});

describe("the requester's edit ends with the office's first answer (probe 8904 #1)", () => {
  type Step = [who: string, call: "respond" | "close" | "reopen"];
  const steps: Record<Step[1], (id: number) => [string, { method: string; body?: Record<string, unknown> }]> = {
    respond: (id) => [`/v2/tickets/${id}/responses`, { method: "POST", body: { body: "A response" } }],
    close: (id) => [`/v2/tickets/${id}`, { method: "DELETE" }],
    reopen: (id) => [`/v2/tickets/${id}/reopen`, { method: "POST" }],
  };
  // [what happened, may the requester still edit, the steps]
  it.each<[string, boolean, Step[]]>([
    ["nothing yet", true, []],
    ["the requester's own follow-up, unanswered", true, [["requester", "respond"]]],
    ["closed and reopened by the requester, unanswered", true, [["requester", "close"], ["requester", "reopen"]]],
    ["answered by the office", false, [["officeA", "respond"]]],
    ["answered, then the requester's follow-up (open again)", false, [["officeA", "respond"], ["requester", "respond"]]],
    ["answered, closed and reopened by the office", false, [["officeA", "respond"], ["officeA", "close"], ["officeA", "reopen"]]],
    ["answered, closed and reopened by the requester", false, [["officeA", "respond"], ["requester", "close"], ["requester", "reopen"]]],
  ])("%s → editable: %s (API and screen)", async (_label, editable, sequence) => {
    const t = await newTicket(`Original question ${Math.random().toString(36).slice(2, 8)}`);
    for (const [who, call] of sequence) {
      const [path, init] = steps[call](t.id);
      expect((await api(path, { ...init, token: tokens[who] })).status).toBeLessThan(300);
    }
    const before = await ticketRow(t.id);
    expect(before.status).toBe(sequence.length && sequence.at(-1)![1] === "respond" && sequence.at(-1)![0] === "officeA" ? "answered" : "open");
    // The view offers the edit link only while the requester may edit.
    const viewed = await request(`/tickets/view/${t.id}`, { cookie: cookies.requester });
    const view = await html(viewed.status === 302 ? await request(viewed.headers.get("Location")!, { cookie: cookies.requester }) : viewed);
    expect(view.includes(`href="/tickets/edit/${t.id}"`)).toBe(editable);
    expect(await html(await request(`/tickets/edit/${t.id}`, { cookie: cookies.requester }))).toContain(editable ? "Save changes" : "can no longer be edited");

    const patch = await api(`/v2/tickets/${t.id}`, { method: "PATCH", token: tokens.requester, body: { body: "Totally different question now" } });
    expect(patch.status).toBe(editable ? 200 : 422);
    if (!editable) {
      expect(JSON.stringify(await patch.json())).toContain("This ticket can no longer be edited");
      const screen = await form(`/tickets/edit/${t.id}`, { subject: "Rewritten", body: "I never asked that", version: String(before.version) }, cookies.requester);
      expect(screen.status).toBe(422);
      expect(await ticketRow(t.id)).toMatchObject({ subject: before.subject, body: before.body, version: before.version });
    } else {
      expect((await ticketRow(t.id)).body).toBe("Totally different question now");
    }
  });
});

describe("a deleted requester's open ticket (decision 036, stop 40)", () => {
  it("answering it emails nobody (their address is free for someone else), and the view says they were deleted", async () => {
    const leaver = await createUser({ permissions: [], locations: [A], name: "Lena" });
    const res = await api("/v2/tickets", { method: "POST", token: await apiToken(leaver), body: { subject: "Leaving soon", body: "My badge.", category: "technical", priority: "low" } });
    expect(res.status).toBe(201);
    const t = ((await res.json()) as { data: { id: number } }).data;
    const admin = await apiToken(await createUser({ role: "ADMIN" }));
    expect((await api(`/doctors/destroy/${leaver.id}`, { method: "DELETE", token: admin })).status).toBe(200);
    const answered = await api(`/v2/tickets/${t.id}/responses`, { method: "POST", token: tokens.officeA, body: { body: "Noted." } });
    expect(answered.status).toBe(201);
    expect(await emailsTo(leaver.email)).toEqual([]);
    const view = await (await request(`/tickets/view/${t.id}`, { cookie: cookies.officeA })).text();
    expect(view).toContain("(deleted: they cannot read answers, and none is emailed to them)");
  });
});
