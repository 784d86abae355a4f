import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices, tickets, users } from "~/db/schema";
import { zonedDate } from "~/domain/time";
import { todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * Days shown beside local dates are local days (probe 8903 §8): a note signed, a billing row created or a ticket
 * opened at 21:05 in New York on 2026-11-26 is 02:05 UTC on the 27th, and the screens say 2026-11-26.
 */

const EVENING_IN_NEW_YORK = "2026-11-27T02:05:00.000Z";
const LOCAL_DAY = "2026-11-26";
const UTC_DAY = "2026-11-27";

let location: { id: number };
let rbt: { id: number; token: string; cookie: string };
let biller: string;
let patient: { id: number };
let noteId: number;

beforeAll(async () => {
  location = await createLocation({ timeZone: "America/New_York" });
  patient = await createPatient({ locationId: location.id });
  const day = addDays(todayIn(new Date(), "America/New_York"), -1);
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Auth", cpt: "97153", nUnits: 400, startDate: addDays(day, -30), endDate: addDays(day, 30) }).returning();
  const u = await createUser({ name: "Jasmine", permissions: ["view_notes"], locations: [location.id] });
  rbt = { id: u.id, token: await apiToken(u), cookie: await signInCookie(u) };
  biller = await signInCookie(await createUser({ permissions: ["view_clients", "view_notes", "manage_notes", "manage_claims"], locations: [location.id] }));
  const res = await api("/v2/notes-rbt", { method: "POST", token: rbt.token, body: { patient_id: patient.id, pa_service_id: pa!.id, cpt_code: "97153", session_date: day, time_in: "09:00", time_out: "10:00", pos: "12", provider_name: "Jasmine User", provider_signed_on: day } });
  expect(res.status).toBe(201);
  noteId = ((await res.json()) as { data: { id: number } }).data.id;
  // Written and signed that evening (the session date is another day, so neither date below is it).
  await db().update(notes).set({ signedAt: EVENING_IN_NEW_YORK, createdAt: EVENING_IN_NEW_YORK, sessionDate: "2026-11-20" }).where(eq(notes.id, noteId));
});

describe("the local day of an instant", () => {
  it("a note view's 'Signed on' is the day at the client's location", async () => {
    const html = (await (await request(`/note-rbt/view/${noteId}`, { cookie: rbt.cookie })).text()).replaceAll("<!-- -->", "");
    expect(html).toContain(`Signed on ${LOCAL_DAY}.`);
    expect(html).not.toContain(`Signed on ${UTC_DAY}`);
  });

  it("a billing row's Created column is the day at the client's location", async () => {
    const html = await (await request(`/billing/by-client/${patient.id}`, { cookie: biller })).text();
    const row = new RegExp(`<tr[^>]*>(?:(?!</tr>)[\\s\\S])*/note-rbt/view/${noteId}(?:(?!</tr>)[\\s\\S])*</tr>`).exec(html)?.[0] ?? "";
    expect(row).toContain(`>${LOCAL_DAY}<`);
    expect(row).not.toContain(UTC_DAY);
  });

  it.each([
    ["at the ticket's location", () => location.id, LOCAL_DAY],
    ["without a location, the UTC day, marked so", () => null, `${UTC_DAY} UTC`],
  ])("a ticket's Opened and Last activity: %s", async (_label, locationId, shown) => {
    const requester = await createUser({ permissions: [], locations: [location.id] });
    const [t] = await db().insert(tickets).values({ userId: requester.id, locationId: locationId(), subject: `Printer ${shown}`, body: "It jams.", createdAt: EVENING_IN_NEW_YORK, updatedAt: EVENING_IN_NEW_YORK }).returning();
    const html = await (await request("/tickets/my-tickets", { cookie: await signInCookie(requester) })).text();
    const row = new RegExp(`<tr[^>]*>(?:(?!</tr>)[\\s\\S])*/tickets/view/${t!.id}"(?:(?!</tr>)[\\s\\S])*</tr>`).exec(html)?.[0] ?? "";
    expect(row.split(`>${shown}<`)).toHaveLength(3);
    if (locationId() !== null) expect(row).not.toContain(UTC_DAY);
  });
});

describe("the ticket lists' date filter is the Opened day shown (decision 036, stop 36)", () => {
  it("a ticket opened in the app stores its location's day; without a primary location, its first location's", async () => {
    const withPrimary = await createUser({ permissions: [], locations: [location.id] });
    const noPrimary = await createUser({ permissions: [], locations: [location.id] });
    await db().update(users).set({ locationId: null }).where(eq(users.id, noPrimary.id));
    for (const u of [withPrimary, noPrimary]) {
      const res = await api("/v2/tickets", { method: "POST", token: await apiToken(u), body: { subject: "Badge reader", body: "It beeps." } });
      expect(res.status).toBe(201);
      const { data } = (await res.json()) as { data: { id: number; created_at: string; opened_on: string; location_id: number } };
      expect(data.location_id).toBe(location.id);
      expect(data.opened_on).toBe(zonedDate(new Date(data.created_at), "America/New_York"));
    }
  });

  it("an evening ticket in New York is found by its local day on the office list, My Tickets and the API — not by the next UTC day", async () => {
    const requester = await createUser({ permissions: [], locations: [location.id] });
    const office = await createUser({ permissions: ["manage_tickets"], locations: [location.id] });
    const subject = `Evening ${Date.now()}`;
    // Opened at 21:05 in New York on the 26th: the app stores that day (as the test above shows) with the instant.
    const [t] = await db().insert(tickets).values({ userId: requester.id, locationId: location.id, subject, body: "It jams.", createdAt: EVENING_IN_NEW_YORK, updatedAt: EVENING_IN_NEW_YORK, openedOn: LOCAL_DAY }).returning();
    const range = (day: string) => `date_from=${day}&date_to=${day}`;
    const listed = async (path: string, cookie: string) => (await (await request(path, { cookie })).text()).includes(`/tickets/view/${t!.id}"`);
    const officeCookie = await signInCookie(office);
    const requesterCookie = await signInCookie(requester);
    expect(await listed(`/tickets/list?${range(LOCAL_DAY)}`, officeCookie)).toBe(true);
    expect(await listed(`/tickets/list?${range(UTC_DAY)}`, officeCookie)).toBe(false);
    expect(await listed(`/tickets/my-tickets?${range(LOCAL_DAY)}`, requesterCookie)).toBe(true);
    expect(await listed(`/tickets/my-tickets?${range(UTC_DAY)}`, requesterCookie)).toBe(false);
    // One end of the range is enough: from the local day on, and up to it.
    expect(await listed(`/tickets/list?date_to=${LOCAL_DAY}`, officeCookie)).toBe(true);
    expect(await listed(`/tickets/list?date_from=${UTC_DAY}`, officeCookie)).toBe(false);
    const ids = async (query: string, token: string) => ((await (await api(`/v2/tickets?${query}`, { token })).json()) as { data: { id: number }[] }).data.map((x) => x.id);
    const officeToken = await apiToken(office);
    const requesterToken = await apiToken(requester);
    expect(await ids(range(LOCAL_DAY), officeToken)).toContain(t!.id);
    expect(await ids(range(UTC_DAY), officeToken)).not.toContain(t!.id);
    expect(await ids(`mine=1&${range(LOCAL_DAY)}`, requesterToken)).toContain(t!.id);
    expect(await ids(`mine=1&${range(UTC_DAY)}`, requesterToken)).not.toContain(t!.id);
    // The list shows that day as Opened.
    const html = await (await request(`/tickets/list?${range(LOCAL_DAY)}`, { cookie: officeCookie })).text();
    const row = new RegExp(`<tr[^>]*>(?:(?!</tr>)[\\s\\S])*/tickets/view/${t!.id}"(?:(?!</tr>)[\\s\\S])*</tr>`).exec(html)?.[0] ?? "";
    expect(row).toContain(`>${LOCAL_DAY}<`);
  });
});
