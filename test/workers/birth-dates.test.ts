import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { parents, patients } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import type { Permission } from "~/domain/permissions";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, form, signInCookie } from "./helpers";

/**
 * A birth date after today is refused when a save sets it: a client's and their parent's (today at the client's
 * location), a parent account's (today at its location, else UTC). Stored ones are kept (probe 8963 D5, decision 017
 * stop 33). Two zones 25 hours apart always have different dates, so "today" is the location's, not UTC's.
 */

const MANAGE: Permission[] = ["view_clients", "manage_clients", "view_parents", "manage_parents"];
const EAST = "Pacific/Kiritimati"; // UTC+14
const WEST = "Pacific/Pago_Pago"; // UTC-11
let n = 0;
const unique = () => `${Date.now().toString(36)}-${++n}`;
const client = (locationId: number, over: Record<string, unknown> = {}) => ({ patient_identifier: `BD-${unique()}`, first_name: "Bea", last_name: "Date", location_id: locationId, ...over });

async function scene(zone: string) {
  const loc = await createLocation({ timeZone: zone });
  const user = await createUser({ permissions: MANAGE, locations: [loc.id] });
  return { loc, today: todayAtLocation(new Date(), zone), token: await apiToken(user), cookie: await signInCookie(user) };
}

async function errorsOf(res: Response) {
  return ((await res.json()) as { errors?: Record<string, string> }).errors;
}

describe("a client's birth date (and their parent's)", () => {
  it.each([
    ["birth_date", "Birth date cannot be in the future."],
    ["parent_birth_date", "Parent birth date cannot be in the future."],
  ])("%s: after today at the client's location is refused (API and add screen), today there is taken", async (field, message) => {
    const east = await scene(EAST);
    const tomorrow = addDays(east.today, 1);
    const refused = await api("/v2/patients", { method: "POST", token: east.token, body: client(east.loc.id, { [field]: tomorrow }) });
    expect(refused.status).toBe(422);
    expect(await errorsOf(refused)).toEqual({ [field]: message });
    const screen = await form("/patients/add", { intent: "save", ...client(east.loc.id, { [field]: tomorrow }), location_id: String(east.loc.id) }, east.cookie);
    expect(screen.status).toBe(422);
    expect(await screen.text()).toContain(message);
    // Today at Kiritimati is tomorrow in UTC or later than it: still taken there.
    expect((await api("/v2/patients", { method: "POST", token: east.token, body: client(east.loc.id, { [field]: east.today }) })).status).toBe(201);
    // The same date at a location where it is still yesterday is the future.
    const west = await scene(WEST);
    const there = await api("/v2/patients", { method: "POST", token: west.token, body: client(west.loc.id, { [field]: east.today }) });
    expect(await errorsOf(there)).toEqual({ [field]: message });
  });

  it("an edit that sets a future birth date is refused; one stored before is kept when another field is saved", async () => {
    const { loc, today, token } = await scene(EAST);
    const future = addDays(today, 30);
    const p = await createPatient({ locationId: loc.id, birthDate: future, details: JSON.stringify({ parent_birth_date: future }) });
    const patch = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { phone: "305-555-0199" } });
    expect(patch.status).toBe(200);
    const q = await createPatient({ locationId: loc.id });
    const refused = await api(`/v2/patients/${q.id}`, { method: "PATCH", token, body: { birth_date: future } });
    expect(await errorsOf(refused)).toEqual({ birth_date: "Birth date cannot be in the future." });
    expect((await db().select().from(patients).where(eq(patients.id, q.id)))[0]!.birthDate).toBe("2018-04-02");
  });
});

describe("a parent's birth date", () => {
  it("after today at the parent's location is refused (API and screen); today is taken; without a location, UTC's today", async () => {
    const { loc, today, token, cookie } = await scene(EAST);
    const body = (over: Record<string, unknown>) => ({ name: "Pia", surname: "Parent", email: `pia-${unique()}@test.example`, location_id: loc.id, ...over });
    const refused = await api("/v2/parents", { method: "POST", token, body: body({ birth_date: addDays(today, 1) }) });
    expect(refused.status).toBe(422);
    expect(await errorsOf(refused)).toEqual({ birth_date: "Birth date cannot be in the future." });
    const fields = { ...body({ birth_date: addDays(today, 1) }), location_id: String(loc.id) };
    const screen = await form("/parents/add", fields, cookie);
    expect(screen.status).toBe(422);
    expect(await screen.text()).toContain("Birth date cannot be in the future.");
    expect(await db().select().from(parents).where(eq(parents.email, fields.email))).toHaveLength(0);
    expect((await api("/v2/parents", { method: "POST", token, body: body({ birth_date: today }) })).status).toBe(201);
    const admin = await apiToken(await createUser({ role: "ADMIN" }));
    const utcTomorrow = addDays(new Date().toISOString().slice(0, 10), 1);
    const noPlace = await api("/v2/parents", { method: "POST", token: admin, body: body({ birth_date: utcTomorrow, location_id: null }) });
    expect(await errorsOf(noPlace)).toEqual({ birth_date: "Birth date cannot be in the future." });
  });

  it("a stored future birth date is kept when another field is saved", async () => {
    const { loc, today, token } = await scene(EAST);
    const created = await api("/v2/parents", { method: "POST", token, body: { name: "Kai", surname: "Kept", email: `kai-${unique()}@test.example`, location_id: loc.id } });
    const { id } = ((await created.json()) as { data: { id: number } }).data;
    await db().update(parents).set({ birthDate: addDays(today, 10) }).where(eq(parents.id, id));
    expect((await api(`/v2/parents/${id}`, { method: "PATCH", token, body: { phone: "305-555-0177" } })).status).toBe(200);
  });
});
