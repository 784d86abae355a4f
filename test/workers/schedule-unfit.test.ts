import { count, desc, eq, inArray, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, paServices, patients, scheduledSessions, users } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import { SCHEDULE_MESSAGES } from "~/domain/schedule";
import { addDays, dayNumber } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie, type TestUser, withoutFlashTag, nextWeekdayIn } from "./helpers";

/**
 * Future bookings that no longer fit (probe 8931 §2, §3, §8; decision 037, 2026-11-27): a client deleted or moved,
 * a provider deactivated, deleted or taken off a location cancels the future sessions it makes unfit in the same
 * batch, says how many, and names the reason in its audit row; other sessions and past ones stay. New bookings
 * refuse an inactive provider or client.
 */

const ZONE = "America/Denver";
const today = () => todayAtLocation(new Date(), ZONE);
/** The next date (after today + `after` days) that falls on `weekday` (0 = Sunday). */
const nextOn = (weekday: number, after = 2) => nextWeekdayIn(ZONE, weekday, after);

let w: { home: number; away: number; admin: TestUser; token: string; cookie: string };

beforeAll(async () => {
  const home = await createLocation({ timeZone: ZONE });
  const away = await createLocation({ timeZone: "America/New_York" });
  const admin = await createUser({ permissions: ["view_notes", "manage_notes", "view_clients", "manage_clients", "manage_employees", "view_employees"], locations: [home.id, away.id] });
  w = { home: home.id, away: away.id, admin, token: await apiToken(admin), cookie: await signInCookie(admin) };
});

async function client(locationId: number, status = "active") {
  const p = await createPatient({ locationId, status });
  const [pa] = await db().insert(paServices).values({ patientId: p.id, paService: "RBT direct", cpt: "97153", nUnits: 4000, startDate: addDays(today(), -30), endDate: addDays(today(), 400) }).returning();
  return { id: p.id, pa: pa!.id };
}

async function book(body: Record<string, unknown>): Promise<number[]> {
  const res = await api("/v2/scheduled-sessions", { method: "POST", token: w.token, body: { cpt_code: "97153", ...body } });
  expect(res.status).toBe(201);
  return ((await res.json()) as { data: { sessions: { id: number }[] } }).data.sessions.map((s) => s.id);
}

async function statuses(ids: number[]): Promise<string[]> {
  const rows = await db().select({ id: scheduledSessions.id, status: scheduledSessions.status }).from(scheduledSessions).where(inArray(scheduledSessions.id, ids));
  return ids.map((id) => rows.find((r) => r.id === id)!.status);
}

/**
 * A world: client C and provider P (of `home`, P also of `away`), their weekly series (2 future sessions) and a
 * session of C that took place yesterday; C with another provider Q; another client D with P; a client E of `away`
 * with P. Each change below names which of these it must cancel.
 */
async function world() {
  const P = await createUser({ permissions: ["view_notes"], locations: [w.home, w.away], name: "Pat" });
  const Q = await createUser({ permissions: ["view_notes"], locations: [w.home], name: "Quinn" });
  const C = await client(w.home);
  const D = await client(w.home);
  const E = await client(w.away);
  const monday = nextOn(1);
  const cp = await book({ patient_id: C.id, provider_id: P.id, pa_service_id: C.pa, session_date: monday, time_in: "09:00", time_out: "10:00", repeat: "weekly", until: addDays(monday, 7) });
  const cq = await book({ patient_id: C.id, provider_id: Q.id, pa_service_id: C.pa, session_date: nextOn(3), time_in: "13:00", time_out: "14:00" });
  const dp = await book({ patient_id: D.id, provider_id: P.id, pa_service_id: D.pa, session_date: nextOn(2), time_in: "09:00", time_out: "10:00" });
  const ep = await book({ patient_id: E.id, provider_id: P.id, pa_service_id: E.pa, session_date: nextOn(4), time_in: "09:00", time_out: "10:00" });
  // A session that has taken place: booked ahead, then moved to yesterday (a booking cannot be made for the past).
  const [past] = await book({ patient_id: C.id, provider_id: P.id, pa_service_id: C.pa, session_date: nextOn(5), time_in: "09:00", time_out: "10:00" });
  const s = scheduledSessions;
  const shift = dayNumber(nextOn(5))! - dayNumber(addDays(today(), -1))!;
  await db()
    .update(s)
    .set({ sessionDate: addDays(today(), -1), startAt: sql`${s.startAt} - ${shift * 1440}`, endAt: sql`${s.endAt} - ${shift * 1440}` })
    .where(eq(s.id, past!));
  return { P, Q, C, D, E, sessions: { cp, cq, dp, ep, past: [past!] } };
}

type World = Awaited<ReturnType<typeof world>>;
type Group = keyof World["sessions"];

const cases: { name: string; change: (x: World) => Promise<Response>; message: string; cancelled: Group[]; entity: string; reason: string }[] = [
  {
    name: "client deleted → all its future bookings",
    change: (x) => api(`/v2/patients/${x.C.id}`, { method: "DELETE", token: w.token }),
    message: "Client deleted. 3 future sessions were cancelled.",
    cancelled: ["cp", "cq"],
    entity: "patient",
    reason: "client_deleted",
  },
  {
    name: "client moved to another location → its future bookings",
    change: (x) => api(`/v2/patients/${x.C.id}`, { method: "PATCH", token: w.token, body: { location_id: w.away } }),
    message: "Client updated. 3 future sessions were cancelled.",
    cancelled: ["cp", "cq"],
    entity: "patient",
    reason: "client_moved",
  },
  {
    name: "client made inactive (status call) → all its future bookings",
    change: (x) => api(`/v2/patients/update-status/${x.C.id}`, { method: "PUT", token: w.token, body: { status: "inactive" } }),
    message: "Status updated. 3 future sessions were cancelled.",
    cancelled: ["cp", "cq"],
    entity: "patient",
    reason: "client_inactive",
  },
  {
    name: "client made inactive by a save → all its future bookings",
    change: (x) => api(`/v2/patients/${x.C.id}`, { method: "PATCH", token: w.token, body: { status: "inactive" } }),
    message: "Client updated. 3 future sessions were cancelled.",
    cancelled: ["cp", "cq"],
    entity: "patient",
    reason: "client_inactive",
  },
  {
    name: "provider deactivated → their future bookings",
    change: (x) => api(`/doctors/update/status/${x.P.id}`, { method: "PUT", token: w.token, body: { status: "inactive" } }),
    message: "Employee deactivated. 4 future sessions were cancelled.",
    cancelled: ["cp", "dp", "ep"],
    entity: "employee",
    reason: "provider_inactive",
  },
  {
    name: "provider made inactive by a save → their future bookings",
    change: (x) => api(`/v2/employees/${x.P.id}`, { method: "PATCH", token: w.token, body: { status: "inactive" } }),
    message: "Employee updated. 4 future sessions were cancelled.",
    cancelled: ["cp", "dp", "ep"],
    entity: "employee",
    reason: "provider_inactive",
  },
  {
    name: "provider deleted → their future bookings",
    change: (x) => api(`/doctors/destroy/${x.P.id}`, { method: "DELETE", token: w.token }),
    message: "Employee deleted. 4 future sessions were cancelled.",
    cancelled: ["cp", "dp", "ep"],
    entity: "employee",
    reason: "provider_deleted",
  },
  {
    name: "provider removed from a location → their future bookings there",
    change: (x) => api(`/v2/employees/${x.P.id}`, { method: "PATCH", token: w.token, body: { locations: [w.away], location_id: w.away, employment: [] } }),
    message: "Employee updated. 3 future sessions were cancelled.",
    cancelled: ["cp", "dp"],
    entity: "employee",
    reason: "provider_left_location",
  },
];

describe("a change that makes future bookings unfit cancels them in its own batch", () => {
  it.each(cases)("$name", async ({ change, message, cancelled, entity, reason }) => {
    const x = await world();
    const res = await change(x);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: string }).message).toBe(message);
    for (const group of Object.keys(x.sessions) as Group[]) {
      const expected = cancelled.includes(group) ? "cancelled" : "scheduled";
      expect({ group, statuses: await statuses(x.sessions[group]) }).toEqual({ group, statuses: x.sessions[group].map(() => expected) });
    }
    // The change's audit row names why (scheduled_sessions has no field for a reason), beside what an update changed.
    const [row] = await db().select().from(auditLog).where(eq(auditLog.entity, entity)).orderBy(desc(auditLog.id)).limit(1);
    expect(JSON.parse(row!.detail!)).toMatchObject({ cancelled_future_sessions: reason });
  });

  it.each([
    ["a client saved without moving", (x: World) => api(`/v2/patients/${x.C.id}`, { method: "PATCH", token: w.token, body: { city: "Tampa" } }), "Client updated."],
    ["an employee saved without leaving a location", (x: World) => api(`/v2/employees/${x.P.id}`, { method: "PATCH", token: w.token, body: { phone: "305-555-0101" } }), "Employee updated."],
    // Marked inactive behind the model's back (their bookings kept), so the call activates them: an active employee
    // sent "active" again changes nothing (422, decision 017, stop 45).
    ["an employee activated", async (x: World) => {
      await db().update(users).set({ status: "inactive" }).where(eq(users.id, x.P.id));
      return api(`/doctors/update/status/${x.P.id}`, { method: "PUT", token: w.token, body: { status: "active" } });
    }, "Employee activated."],
  ] as const)("%s cancels nothing and says nothing of sessions", async (_name, change, message) => {
    const x = await world();
    const res = await change(x);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { message: string }).message).toBe(message);
    for (const group of ["cp", "cq", "dp", "ep", "past"] as const) expect(await statuses(x.sessions[group])).toEqual(x.sessions[group].map(() => "scheduled"));
  });

  it("the screen's delete asks first, saying how many future sessions it cancels; a post without that step deletes nothing (probe 8972)", async () => {
    const x = await world();
    const path = `/patients/list/edit/${x.C.id}`;
    const edit = await (await request(path, { cookie: w.cookie })).text();
    expect(edit).toContain(`href="${path}?confirm=delete#delete-client"`);
    expect(edit).not.toContain("Yes, delete it");
    const confirm = await (await request(`${path}?confirm=delete`, { cookie: w.cookie })).text();
    expect(confirm).toContain("Are you sure you want to delete the client");
    expect(confirm).toContain(SCHEDULE_MESSAGES.futureToCancel(3));
    expect(confirm).toContain("This action cannot be undone.");
    expect(confirm).toContain("Yes, delete it");
    expect(confirm).toMatch(/<a[^>]*href="\/patients\/list\/edit\/\d+"[^>]*>Cancel<\/a>/);
    expect(confirm).toContain('name="confirmed" value="yes"');
    // The one-click form of a page loaded before the confirm step (or any post without it): the step, nothing deleted.
    const unconfirmed = await form(path, { intent: "delete" }, w.cookie);
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.get("location")).toBe(`${path}?confirm=delete#delete-client`);
    const [kept] = await db().select({ deletedAt: patients.deletedAt }).from(patients).where(eq(patients.id, x.C.id));
    expect(kept!.deletedAt).toBeNull();
    expect(await statuses(x.sessions.cp)).toEqual(["scheduled", "scheduled"]);
    // A client with no future bookings: the step says nothing of sessions.
    const unbooked = await client(w.home);
    const none = await (await request(`/patients/list/edit/${unbooked.id}?confirm=delete`, { cookie: w.cookie })).text();
    expect(none).toContain("Are you sure you want to delete the client");
    expect(none).not.toContain("future scheduled session");
  });

  it("the screen's flash says how many (client deleted, JavaScript off); the provider's slot is free again", async () => {
    const x = await world();
    const res = await form(`/patients/list/edit/${x.C.id}?confirm=delete`, { intent: "delete", confirmed: "yes" }, w.cookie);
    expect(res.status).toBe(303);
    expect(decodeURIComponent(withoutFlashTag(res.headers.get("location"))!.replace(/\+/g, " "))).toContain("flash=Client deleted. 3 future sessions were cancelled.");
    expect(await statuses(x.sessions.cp)).toEqual(["cancelled", "cancelled"]);
    // The deleted client's slot no longer blocks the provider (probe 8931 §2 step 4).
    const [first] = await db().select().from(scheduledSessions).where(eq(scheduledSessions.id, x.sessions.cp[0]!));
    const res2 = await api("/v2/scheduled-sessions", {
      method: "POST",
      token: w.token,
      body: { patient_id: x.D.id, provider_id: x.P.id, cpt_code: "97153", pa_service_id: x.D.pa, session_date: first!.sessionDate, time_in: "09:00", time_out: "10:00" },
    });
    expect(res2.status).toBe(201);
  });
});

describe("new bookings refuse an inactive provider or client (probe 8931 §8)", () => {
  async function auditCount() {
    const [r] = await db().select({ n: count() }).from(auditLog);
    return r!.n;
  }

  it.each([
    ["an inactive provider", "active", "inactive", { provider_id: SCHEDULE_MESSAGES.inactiveProvider }],
    ["an inactive client", "inactive", "active", { patient_id: SCHEDULE_MESSAGES.inactiveClient }],
    ["both", "inactive", "inactive", { patient_id: SCHEDULE_MESSAGES.inactiveClient, provider_id: SCHEDULE_MESSAGES.inactiveProvider }],
  ] as const)("%s: 422 on the field, nothing written", async (_name, clientStatus, providerStatus, errors) => {
    const c = await client(w.home, clientStatus);
    const p = await createUser({ permissions: ["view_notes"], locations: [w.home], status: providerStatus });
    const before = await auditCount();
    const res = await api("/v2/scheduled-sessions", {
      method: "POST",
      token: w.token,
      body: { patient_id: c.id, provider_id: p.id, cpt_code: "97153", pa_service_id: c.pa, session_date: nextOn(2), time_in: "09:00", time_out: "10:00" },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual(errors);
    const [n] = await db().select({ n: count() }).from(scheduledSessions).where(eq(scheduledSessions.patientId, c.id));
    expect(n!.n).toBe(0);
    expect(await auditCount()).toBe(before);
  });

  it("an inactive client: the form says so before it is filled, and its POST (JS off) shows the message of the hidden client field", async () => {
    const c = await client(w.home, "inactive");
    const page = await (await request(`/calendar/schedule?patient_id=${c.id}`, { cookie: w.cookie })).text();
    expect(page).toContain(SCHEDULE_MESSAGES.inactiveClient);
    const res = await form(
      `/calendar/schedule?patient_id=${c.id}`,
      { patient_id: String(c.id), provider_id: String(w.admin.id), cpt_code: "97153", pa_service_id: String(c.pa), session_date: nextOn(2), time_in: "09:00", time_out: "10:00", repeat: "once" },
      w.cookie,
    );
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(SCHEDULE_MESSAGES.inactiveClient);
    expect(html).toContain('value="10:00"');
    const active = await client(w.home);
    expect(await (await request(`/calendar/schedule?patient_id=${active.id}`, { cookie: w.cookie })).text()).not.toContain(SCHEDULE_MESSAGES.inactiveClient);
  });

  it("the booking form offers active staff only; its POST with an inactive provider shows the message", async () => {
    const c = await client(w.home);
    const active = await createUser({ permissions: ["view_notes"], locations: [w.home], name: "Activa" });
    const inactive = await createUser({ permissions: ["view_notes"], locations: [w.home], name: "Dormant", status: "inactive" });
    const html = await (await request(`/calendar/schedule?patient_id=${c.id}`, { cookie: w.cookie })).text();
    expect(html).toContain(`value="${active.id}"`);
    expect(html).not.toContain(`value="${inactive.id}"`);
    expect(html).not.toContain("Dormant");
    const res = await form(
      `/calendar/schedule?patient_id=${c.id}`,
      { patient_id: String(c.id), provider_id: String(inactive.id), cpt_code: "97153", pa_service_id: String(c.pa), session_date: nextOn(2), time_in: "09:00", time_out: "10:00", repeat: "once" },
      w.cookie,
    );
    expect(res.status).toBe(422);
    expect(await res.text()).toContain(SCHEDULE_MESSAGES.inactiveProvider);
  });
});
