import { and, eq, isNull } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { bips, notes, paServices, patients, tickets, userLocations, users } from "~/db/schema";
import { NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import { INACTIVE_STAFF } from "~/domain/patients";
import { ASSIGNEE_ELSEWHERE } from "~/domain/tickets";
import type { Permission } from "~/domain/permissions";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie, type TestUser } from "./helpers";

/**
 * Inactive employees are not offered as staff (decision 037, stop 31): the note forms' provider and supervisor
 * selects and the client's staff selects offer active employees only, by the booking form's rule (choosableStaff).
 * A record whose stored value is an inactive employee keeps it, marked "(inactive)", and saves unchanged; a save that
 * newly names an inactive employee is refused at the field.
 */

const today = () => todayIn(new Date(), "America/New_York");
const day = (offset: number) => addDays(today(), offset);

type Staff = TestUser & { token: string; cookie: string };
let location: { id: number };
let noteManager: Staff;
let clientManager: Staff;
let activeRbt: Staff;
let activeBcba: Staff;
let inactiveRbt: Staff;
let inactiveBcba: Staff;
let slot = 0;

async function staff(name: string, role: string | undefined, permissions: Permission[], status = "active"): Promise<Staff> {
  const u = await createUser({ name, role, permissions, locations: [location.id] });
  const signed = { ...u, token: await apiToken(u), cookie: await signInCookie(u) };
  if (status !== "active") await db().update(users).set({ status }).where(eq(users.id, u.id));
  return signed;
}

beforeAll(async () => {
  location = await createLocation();
  noteManager = await staff("Marcus", undefined, ["view_notes", "manage_notes"]);
  clientManager = await staff("Clara", undefined, ["view_clients", "manage_clients"]);
  activeRbt = await staff("Jasmine", "RBT", ["view_notes"]);
  activeBcba = await staff("Elena", "BCBA", ["view_notes"]);
  inactiveRbt = await staff("Idris", "RBT", ["view_notes"], "inactive");
  inactiveBcba = await staff("Ines", "BCBA", ["view_notes"], "inactive");
});

/** The options of one select of a page: [value, label]. */
function optionsOf(html: string, name: string): [number, string][] {
  const select = new RegExp(`<select[^>]*name="${name}"[^>]*>([\\s\\S]*?)</select>`).exec(html)?.[1] ?? "";
  return [...select.matchAll(/<option value="(\d+)"[^>]*>([^<]*)<\/option>/g)].map((m) => [Number(m[1]), m[2]!]);
}
const ids = (html: string, name: string) => optionsOf(html, name).map(([id]) => id);

async function noteScene(cpt = "97153") {
  const patient = await createPatient({ locationId: location.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Auth", cpt, nUnits: 400, startDate: day(-200), endDate: day(200) }).returning();
  return { patient, pa: pa! };
}

function noteBody(s: Awaited<ReturnType<typeof noteScene>>, over: Record<string, unknown> = {}) {
  const h = 8 + (slot++ % 10);
  return { patient_id: s.patient.id, pa_service_id: s.pa.id, cpt_code: "97153", session_date: day(-1 - Math.floor(slot / 10)), time_in: `${String(h).padStart(2, "0")}:00`, time_out: `${String(h).padStart(2, "0")}:30`, pos: "12", provider_id: activeRbt.id, ...over };
}

async function call(token: string, method: string, path: string, b?: unknown) {
  const res = await api(path, { method, token, body: b });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

const liveNotes = async (patientId: number) => db().select().from(notes).where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt)));

describe("the note forms offer active staff only", () => {
  it.each(["note-rbt", "note-bcba"])("/%s: the provider and supervisor selects leave inactive employees out", async (path) => {
    const s = await noteScene(path === "note-rbt" ? "97153" : "97155");
    const html = await (await request(`/${path}?patient_id=${s.patient.id}`, { cookie: noteManager.cookie })).text();
    expect(ids(html, "provider_id")).toEqual(expect.arrayContaining([activeRbt.id, activeBcba.id]));
    expect(ids(html, "provider_id")).not.toContain(inactiveRbt.id);
    expect(ids(html, "provider_id")).not.toContain(inactiveBcba.id);
    expect(ids(html, "supervisor_id")).toContain(activeBcba.id);
    expect(ids(html, "supervisor_id")).not.toContain(inactiveBcba.id);
  });

  it("the API's config lists active providers and supervisors only", async () => {
    const s = await noteScene();
    const r = await call(noteManager.token, "GET", `/note_rbt/config?patient_id=${s.patient.id}`);
    expect(r.status).toBe(200);
    const providers = (r.json.data.client.providers as { id: number }[]).map((p) => p.id);
    const supervisors = (r.json.data.client.supervisors as { id: number }[]).map((p) => p.id);
    expect(providers).toEqual(expect.arrayContaining([activeRbt.id, activeBcba.id]));
    expect(providers).not.toContain(inactiveRbt.id);
    expect(supervisors).toEqual([activeBcba.id]);
  });

  it("the edit form of a note whose provider and supervisor were made inactive keeps both, marked, each in its own field", async () => {
    const s = await noteScene();
    const created = await call(noteManager.token, "POST", "/v2/notes-rbt", noteBody(s, { supervisor_id: activeBcba.id }));
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const id = created.json.data.id as number;
    await db().update(notes).set({ providerId: inactiveRbt.id, supervisorId: inactiveBcba.id }).where(eq(notes.id, id));
    const html = await (await request(`/note-rbt/edit/${id}`, { cookie: noteManager.cookie })).text();
    expect(optionsOf(html, "provider_id").filter(([v]) => v === inactiveRbt.id)).toEqual([[inactiveRbt.id, "Idris User (inactive)"]]);
    expect(optionsOf(html, "supervisor_id").filter(([v]) => v === inactiveBcba.id)).toEqual([[inactiveBcba.id, "Ines User (inactive)"]]);
    expect(html).toMatch(new RegExp(`<option value="${inactiveRbt.id}" selected="">Idris User \\(inactive\\)</option>`));
    expect(ids(html, "supervisor_id")).not.toContain(inactiveRbt.id);
    expect(ids(html, "provider_id")).not.toContain(inactiveBcba.id);
  });
});

describe("a note save that newly names an inactive employee is refused", () => {
  it.each([
    ["provider", { provider_id: () => inactiveRbt.id }, { provider_id: NOTE_MESSAGES.providerInactive }],
    ["supervisor", { supervisor_id: () => inactiveBcba.id }, { supervisor_id: NOTE_MESSAGES.supervisorInactive }],
  ] as const)("API create with an inactive %s: 422 at the field, nothing written", async (_what, over, errors) => {
    const s = await noteScene();
    const body = noteBody(s, Object.fromEntries(Object.entries(over).map(([k, f]) => [k, f()])));
    for (const path of ["/v2/notes-rbt", "/note_rbt/store"]) {
      const r = await call(noteManager.token, "POST", path, body);
      expect(r.status, path).toBe(422);
      expect(r.json.errors, path).toEqual(errors);
    }
    expect(await liveNotes(s.patient.id)).toHaveLength(0);
  });

  it("API edit: changing to an inactive provider or supervisor is refused; a note whose stored ones are inactive still saves unchanged", async () => {
    const s = await noteScene();
    const created = await call(noteManager.token, "POST", "/v2/notes-rbt", noteBody(s, { supervisor_id: activeBcba.id }));
    const id = created.json.data.id as number;
    const version = created.json.data.version as number;
    for (const [change, errors] of [
      [{ provider_id: inactiveRbt.id }, { provider_id: NOTE_MESSAGES.providerInactive }],
      [{ supervisor_id: inactiveBcba.id }, { supervisor_id: NOTE_MESSAGES.supervisorInactive }],
    ] as const) {
      const r = await call(noteManager.token, "PATCH", `/v2/notes-rbt/${id}`, { ...change, version });
      expect(r.status, JSON.stringify(change)).toBe(422);
      expect(r.json.errors).toEqual(errors);
    }
    expect((await liveNotes(s.patient.id))[0]).toMatchObject({ version, providerId: activeRbt.id, supervisorId: activeBcba.id });
    // Both made inactive after the note was written: an edit of another field keeps them.
    await db().update(notes).set({ providerId: inactiveRbt.id, supervisorId: inactiveBcba.id }).where(eq(notes.id, id));
    const kept = await call(noteManager.token, "PATCH", `/v2/notes-rbt/${id}`, { participants: "Mother", version });
    expect(kept.status, JSON.stringify(kept.json)).toBe(200);
    expect(kept.json.data).toMatchObject({ provider_id: inactiveRbt.id, supervisor_id: inactiveBcba.id, version: version + 1 });
  });

  it("the form: a tampered inactive supervisor is refused with the message at the field, nothing written", async () => {
    const s = await noteScene();
    const b = noteBody(s);
    const fields = { intent: "save", form_token: crypto.randomUUID(), type: "rbt", patient_id: String(s.patient.id), provider_id: String(activeRbt.id), supervisor_id: String(inactiveBcba.id), session_date: b.session_date, cpt_code: "97153", pa_service_id: String(s.pa.id), pos: "12", time_in: b.time_in, time_out: b.time_out, provider_name: "", provider_signed_on: "" };
    const refused = await post(`/note-rbt?patient_id=${s.patient.id}`, fields, noteManager.cookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(NOTE_MESSAGES.supervisorInactive);
    expect(await liveNotes(s.patient.id)).toHaveLength(0);
  });
});

describe("the client's staff selects offer active employees only", () => {
  const clientRow = async (id: number) => (await db().select().from(patients).where(eq(patients.id, id)))[0]!;

  it("the add form leaves inactive employees out of every staff select", async () => {
    const html = await (await request(`/patients/add?location_id=${location.id}`, { cookie: clientManager.cookie })).text();
    for (const field of ["rbt_home_id", "bcba_home_id", "case_manager_id"]) {
      expect(ids(html, field), field).toEqual(expect.arrayContaining([activeRbt.id, activeBcba.id]));
      expect(ids(html, field), field).not.toContain(inactiveRbt.id);
      expect(ids(html, field), field).not.toContain(inactiveBcba.id);
    }
  });

  it("edit and settings screens keep a stored inactive employee in their own field, marked, and saving unchanged keeps the link", async () => {
    const p = await createPatient({ locationId: location.id, firstName: "Kept", rbtHomeId: inactiveRbt.id, bcbaHomeId: activeBcba.id });
    const marked: [number, string] = [inactiveRbt.id, "Idris User (inactive)"];
    for (const path of [`/patients/list/edit/${p.id}`, `/patients/setting/${p.id}`]) {
      const html = await (await request(path, { cookie: clientManager.cookie })).text();
      expect(optionsOf(html, "rbt_home_id").filter(([v]) => v === inactiveRbt.id), path).toEqual([marked]);
      expect(html, path).toContain(`<option value="${inactiveRbt.id}" selected="">Idris User (inactive)</option>`);
      for (const field of ["rbt2_school_id", "bcba_home_id", "case_manager_id"]) expect(ids(html, field), `${path} ${field}`).not.toContain(inactiveRbt.id);
      expect(ids(html, "bcba_home_id"), path).not.toContain(inactiveBcba.id);
    }
    const saved = await post(`/patients/setting/${p.id}`, { intent: "staff", version: "1", rbt_home_id: String(inactiveRbt.id), bcba_home_id: String(activeBcba.id) }, clientManager.cookie);
    // Unchanged, the save changes nothing (decision 017, stop 44): the link and the version as stored.
    expect(saved.status).toBe(303);
    expect(await clientRow(p.id)).toMatchObject({ rbtHomeId: inactiveRbt.id, bcbaHomeId: activeBcba.id, version: 1 });
  });

  it("settings screen: newly assigning an inactive employee is refused at the field, nothing written", async () => {
    const p = await createPatient({ locationId: location.id });
    const refused = await post(`/patients/setting/${p.id}`, { intent: "staff", version: "1", bcba_home_id: String(inactiveBcba.id) }, clientManager.cookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(INACTIVE_STAFF);
    expect(await clientRow(p.id)).toMatchObject({ bcbaHomeId: null, version: 1 });
  });

  it("API: a PATCH that newly names an inactive employee is 422; a PATCH of another field keeps a stored inactive one", async () => {
    const p = await createPatient({ locationId: location.id, rbtHomeId: inactiveRbt.id });
    const token = clientManager.token;
    const refused = await call(token, "PATCH", `/v2/patients/${p.id}`, { bcba_home_id: inactiveBcba.id });
    expect(refused.status).toBe(422);
    expect(refused.json.errors).toEqual({ bcba_home_id: INACTIVE_STAFF });
    expect(await clientRow(p.id)).toMatchObject({ bcbaHomeId: null, rbtHomeId: inactiveRbt.id, version: 1 });
    const kept = await call(token, "PATCH", `/v2/patients/${p.id}`, { phone: "305-555-1236", bcba_home_id: activeBcba.id });
    expect(kept.status, JSON.stringify(kept.json)).toBe(200);
    expect(await clientRow(p.id)).toMatchObject({ bcbaHomeId: activeBcba.id, rbtHomeId: inactiveRbt.id, version: 2 });
  });
});

describe("a BIP's doctor: active employees only (the register, the identity tab, the API)", () => {
  let bipManager: Staff;
  beforeAll(async () => {
    bipManager = await staff("Bea", undefined, ["view_bips", "manage_bips"]);
  });
  const bipRow = async (id: number) => (await db().select().from(bips).where(eq(bips.id, id)))[0]!;
  const bipsOf = async (patientId: number) => db().select().from(bips).where(eq(bips.patientId, patientId));
  const deletedDoctor = async () => {
    const u = await staff("Dora", "BCBA", []);
    await db().update(users).set({ deletedAt: new Date().toISOString() }).where(eq(users.id, u.id));
    return u;
  };

  it("the register's doctor select leaves inactive and deleted employees out", async () => {
    const gone = await deletedDoctor();
    const p = await createPatient({ locationId: location.id });
    const html = await (await request(`/bip/register?patient_id=${p.id}`, { cookie: bipManager.cookie })).text();
    expect(ids(html, "doctor_id")).toEqual(expect.arrayContaining([activeRbt.id, activeBcba.id]));
    for (const out of [inactiveRbt.id, inactiveBcba.id, gone.id]) expect(ids(html, "doctor_id")).not.toContain(out);
  });

  it("creating with an inactive doctor is refused at the field, nothing written: the register screen and the API", async () => {
    const p = await createPatient({ locationId: location.id });
    const refused = await post(`/bip/register?patient_id=${p.id}`, { patient_id: String(p.id), type_of_assessment: "1", doctor_id: String(inactiveBcba.id) }, bipManager.cookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(INACTIVE_STAFF);
    const api422 = await call(bipManager.token, "POST", "/v2/bips", { patient_id: p.id, type_of_assessment: "1", doctor_id: inactiveBcba.id });
    expect(api422.status).toBe(422);
    expect(api422.json.errors).toEqual({ doctor_id: INACTIVE_STAFF });
    const gone = await deletedDoctor();
    const deleted = await call(bipManager.token, "POST", "/v2/bips", { patient_id: p.id, type_of_assessment: "1", doctor_id: gone.id });
    expect(deleted.status).toBe(422);
    expect(deleted.json.errors).toEqual({ doctor_id: "Choose an employee of the client's location." });
    expect(await bipsOf(p.id)).toHaveLength(0);
    const created = await call(bipManager.token, "POST", "/v2/bips", { patient_id: p.id, type_of_assessment: "1", doctor_id: activeBcba.id });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
  });

  it("the identity tab offers active employees, keeps a stored inactive doctor marked, and saves it unchanged", async () => {
    const p = await createPatient({ locationId: location.id });
    const bip = (await db().insert(bips).values({ patientId: p.id, locationId: location.id, doctorId: inactiveBcba.id }).returning())[0]!;
    const html = await (await request(`/bip/tabbed/${bip.id}?tab=identity`, { cookie: bipManager.cookie })).text();
    expect(html).toContain(`<option value="${inactiveBcba.id}" selected="">Ines User (inactive)</option>`);
    expect(ids(html, "doctor_id")).toEqual(expect.arrayContaining([activeRbt.id, activeBcba.id]));
    expect(ids(html, "doctor_id")).not.toContain(inactiveRbt.id);
    const same = await post(`/bip/tabbed/${bip.id}?tab=identity`, { intent: "save-tab", tab: "identity", version: "1", type_of_assessment: "2", doctor_id: String(inactiveBcba.id) }, bipManager.cookie);
    expect(same.status).toBe(303);
    expect(await bipRow(bip.id)).toMatchObject({ doctorId: inactiveBcba.id, typeOfAssessment: 2, version: 2 });
    const kept = await call(bipManager.token, "PATCH", `/v2/bips/${bip.id}`, { strengths: "Curious" });
    expect(kept.status, JSON.stringify(kept.json)).toBe(200);
    expect(await bipRow(bip.id)).toMatchObject({ doctorId: inactiveBcba.id, version: 3 });
  });

  it("changing a BIP's doctor to an inactive employee is refused at the field, nothing written: the identity tab and PATCH/PUT", async () => {
    const p = await createPatient({ locationId: location.id });
    const bip = (await db().insert(bips).values({ patientId: p.id, locationId: location.id, doctorId: activeBcba.id }).returning())[0]!;
    const tab = await post(`/bip/tabbed/${bip.id}?tab=identity`, { intent: "save-tab", tab: "identity", version: "1", type_of_assessment: "1", doctor_id: String(inactiveRbt.id) }, bipManager.cookie);
    expect(tab.status).toBe(422);
    expect(await tab.text()).toContain(INACTIVE_STAFF);
    for (const method of ["PATCH", "PUT"]) {
      const r = await call(bipManager.token, method, `/v2/bips/${bip.id}`, { type_of_assessment: "1", doctor_id: inactiveRbt.id });
      expect(r.status, method).toBe(422);
      expect(r.json.errors, method).toEqual({ doctor_id: INACTIVE_STAFF });
    }
    expect(await bipRow(bip.id)).toMatchObject({ doctorId: activeBcba.id, version: 1 });
  });
});

describe("a ticket's assignee: active staff only (already so; now by choosableStaff)", () => {
  it("an inactive ticket handler is not offered, and assigning them is refused with nothing written", async () => {
    const office = await staff("Olga", undefined, ["manage_tickets"]);
    const idle = await staff("Ivo", undefined, ["manage_tickets"], "inactive");
    const requester = await staff("Rita", undefined, []);
    const [ticket] = await db().insert(tickets).values({ userId: requester.id, locationId: location.id, subject: "Printer", body: "It jams." }).returning();
    const html = await (await request(`/tickets/view/${ticket!.id}?seen=1`, { cookie: office.cookie })).text();
    expect(ids(html, "assigned_to")).toContain(office.id);
    expect(ids(html, "assigned_to")).not.toContain(idle.id);
    const refused = await call(office.token, "PATCH", `/v2/tickets/${ticket!.id}`, { assigned_to: idle.id });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.json.errors)).toEqual(["assigned_to"]);
    expect((await db().select().from(tickets).where(eq(tickets.id, ticket!.id)))[0]).toMatchObject({ assignedTo: null, version: ticket!.version });
  });

  /** [why the stored assignee can no longer be chosen, what makes it so, the label the view gives them]. */
  const GONE: [string, (id: number) => Promise<unknown>, string][] = [
    ["inactive", (id) => db().update(users).set({ status: "inactive" }).where(eq(users.id, id)), "(inactive)"],
    ["deleted", (id) => db().update(users).set({ deletedAt: new Date().toISOString() }).where(eq(users.id, id)), "(deleted)"],
    ["no longer at the ticket's location", (id) => db().delete(userLocations).where(eq(userLocations.userId, id)), `(${ASSIGNEE_ELSEWHERE})`],
  ];

  it.each(GONE)("a stored assignee who is %s is named with why on the view (details and select), and the ticket still saves unchanged", async (_why, makeGone, mark) => {
    const office = await staff("Olga", undefined, ["manage_tickets"]);
    const handler = await staff("Priya", undefined, ["manage_tickets"]);
    const requester = await staff("Rita", undefined, []);
    const [ticket] = await db().insert(tickets).values({ userId: requester.id, locationId: location.id, subject: "Printer", body: "It jams.", assignedTo: handler.id }).returning();
    const view = async (cookie: string) => (await request(`/tickets/view/${ticket!.id}?seen=1`, { cookie })).text();
    const assigneeShown = (html: string) => /data-testid="ticket-assignee"[^>]*>([^<]*)</.exec(html)?.[1];

    const before = await view(office.cookie);
    expect(assigneeShown(before)).toBe("Priya User");
    expect(optionsOf(before, "assigned_to")).toContainEqual([handler.id, "Priya User"]);

    await makeGone(handler.id);
    const html = await view(office.cookie);
    expect(assigneeShown(html)).toBe(`Priya User ${mark}`);
    expect(optionsOf(html, "assigned_to")).toContainEqual([handler.id, `Priya User ${mark}`]);
    expect(assigneeShown(await view(requester.cookie))).toBe(`Priya User ${mark}`);

    // Unchanged saves still work: the screen's assignment form sent as shown, and an API change of another field.
    const saved = await post(`/tickets/view/${ticket!.id}`, { intent: "assign", assigned_to: String(handler.id), version: String(ticket!.version) }, office.cookie);
    expect(saved.status).toBe(303);
    const patched = await call(office.token, "PATCH", `/v2/tickets/${ticket!.id}`, { priority: "high" });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    expect((await db().select().from(tickets).where(eq(tickets.id, ticket!.id)))[0]).toMatchObject({ assignedTo: handler.id, priority: "high" });
  });

  it.each([
    [GONE[0]![0], GONE[0]![1], "Priya User (inactive)"],
    [GONE[1]![0], GONE[1]![1], "Priya User (deleted)"],
    // Whether an active employee still answers the location's tickets is the view's to say (their roles and locations).
    [GONE[2]![0], GONE[2]![1], "Priya User"],
  ])("the office list's Assigned to names a stored assignee who is %s as the view does (stop 33)", async (_why, makeGone, shown) => {
    const office = await staff("Olga", undefined, ["manage_tickets"]);
    const handler = await staff("Priya", undefined, ["manage_tickets"]);
    const requester = await staff("Rita", undefined, []);
    const subject = `Scanner ${++slot}`;
    const [ticket] = await db().insert(tickets).values({ userId: requester.id, locationId: location.id, subject, body: "It jams.", assignedTo: handler.id }).returning();
    const cells = async () => {
      const html = await (await request(`/tickets/list?search=${encodeURIComponent(subject)}`, { cookie: office.cookie })).text();
      const row = new RegExp(`<tr[^>]*>(?:(?!</tr>).)*/tickets/view/${ticket!.id}"(?:(?!</tr>).)*</tr>`, "s").exec(html)?.[0] ?? "";
      return [...row.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => m[1]!.replace(/<[^>]+>/g, ""));
    };
    expect(await cells()).toContain("Priya User");
    await makeGone(handler.id);
    expect(await cells()).toContain(shown);
    // The API's list answers the name as before.
    const listed = await call(office.token, "GET", `/v2/tickets?search=${encodeURIComponent(subject)}`);
    expect((listed.json as { data: { assignee_name: string }[] }).data[0]!.assignee_name).toBe("Priya User");
  });
});
