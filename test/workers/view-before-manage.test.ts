import { sql } from "drizzle-orm";
import { paServices } from "~/db/schema";
import { describe, expect, it } from "vitest";
import type { Permission } from "~/domain/permissions";
import { api, apiToken, createBip, createLocation, createPatient, createUser, db, oneRecordOfEach, request, signInCookie } from "./helpers";

/**
 * A screen or call that shows or answers a record needs the record's view permission; a change needs the
 * view permission as well as its own (probe 8932 §1, §2, §4; decision 007, 2026-11-27).
 */

type Records = Awaited<ReturnType<typeof oneRecordOfEach>>;

/** One row per resource: the manage permission alone, its view permission, the stored row, the edit screen and the calls. */
const RESOURCES: readonly {
  name: string;
  manage: Permission;
  view: Permission;
  table: string;
  id: (r: Records) => number;
  screen?: (id: number) => string;
  change: (id: number) => [method: string, path: string, body: Record<string, unknown>];
  create?: string;
}[] = [
  { name: "clients", manage: "manage_clients", view: "view_clients", table: "patients", id: (r) => r.patient.id, screen: (id) => `/patients/list/edit/${id}`, change: (id) => ["PATCH", `/v2/patients/${id}`, { city: "Miami" }], create: "/v2/patients" },
  { name: "client settings", manage: "manage_clients", view: "view_clients", table: "patients", id: (r) => r.patient.id, screen: (id) => `/patients/setting/${id}`, change: (id) => ["PUT", `/patient/update/${id}`, { city: "Miami" }], create: "/patient/store" },
  { name: "plans", manage: "manage_bips", view: "view_bips", table: "bips", id: (r) => r.bip.id, screen: (id) => `/bip/tabbed/${id}`, change: (id) => ["PATCH", `/v2/bips/${id}`, { needs_attention: true }], create: "/v2/bips" },
  { name: "goals", manage: "manage_bips", view: "view_bips", table: "plans", id: (r) => r.plan.id, screen: (id) => `/bip/goal/${id}/edit`, change: (id) => ["PATCH", `/v2/plans/${id}`, { name: "Renamed" }], create: "/v2/plans" },
  { name: "objectives", manage: "manage_bips", view: "view_bips", table: "objectives", id: (r) => r.objective.id, change: (id) => ["PATCH", `/v2/objectives/${id}`, { name: "Reduce to 1 per week" }], create: "/v2/objectives" },
  { name: "intake", manage: "manage_bips", view: "view_bips", table: "intake_assessments", id: (r) => r.intake.id, change: (id) => ["PATCH", `/v2/intake-assessments/${id}`, { person_responding: "Father" }], create: "/v2/intake-assessments" },
  { name: "parents", manage: "manage_parents", view: "view_parents", table: "parents", id: (r) => r.parent.id, change: (id) => ["PATCH", `/v2/parents/${id}`, { city: "Miami" }], create: "/v2/parents" },
  { name: "locations", manage: "manage_locations", view: "manage_locations_access", table: "locations", id: (r) => r.location.id, screen: (id) => `/location/list/edit/${id}`, change: (id) => ["PATCH", `/v2/locations/${id}`, { city: "Miami" }], create: "/v2/locations" },
  { name: "PA services", manage: "manage_clients", view: "view_clients", table: "pa_services", id: (r) => r.pa.id, change: (id) => ["PATCH", `/v2/pa-services/${id}`, { n_units: 40 }], create: "/v2/pa-services" },
  { name: "note status", manage: "manage_notes", view: "view_notes", table: "notes", id: (r) => r.note.id, change: (id) => ["PUT", `/v2/notes-rbt/update-status/${id}`, { status: "ok" }] },
  { name: "note status (legacy)", manage: "manage_notes", view: "view_notes", table: "notes", id: (r) => r.note.id, change: (id) => ["PUT", `/note_rbt/update/status/${id}`, { status: "ok" }] },
];

async function stored(table: string, id: number): Promise<unknown> {
  return (await db().all(sql`select * from ${sql.identifier(table)} where id = ${id}`))[0];
}

async function rowCount(table: string): Promise<number> {
  const [row] = await db().all<{ n: number }>(sql`select count(*) as n from ${sql.identifier(table)}`);
  return Number(row!.n);
}

describe("the manage permission alone neither shows nor answers a record (probe 8932 §2)", () => {
  it.each(RESOURCES)("$name: $manage without $view → 403 on the edit screen and the writes that answer the record, nothing written", async (r) => {
    const records = await oneRecordOfEach();
    const id = r.id(records);
    const manageOnly = await createUser({ permissions: [r.manage], locations: [records.location.id] });
    const both = await createUser({ permissions: [r.manage, r.view], locations: [records.location.id] });
    const before = await stored(r.table, id);
    const count = await rowCount(r.table);
    const [method, path, body] = r.change(id);
    if (r.screen) {
      const refused = await request(r.screen(id), { cookie: await signInCookie(manageOnly) });
      expect(refused.status).toBe(403);
      expect(await refused.text()).toContain("Access Denied");
    }
    const token = await apiToken(manageOnly);
    const change = await api(path, { method, token, body });
    expect(change.status).toBe(403);
    expect(await change.text()).not.toContain(`"id":${id},`);
    if (r.create) expect((await api(r.create, { method: "POST", token, body: {} })).status).toBe(403);
    expect(await stored(r.table, id)).toEqual(before);
    expect(await rowCount(r.table)).toBe(count);
    // The same user with the view permission too is let through (the paths are right).
    if (r.screen) expect((await request(r.screen(id), { cookie: await signInCookie(both) })).status).toBe(200);
    expect((await api(path, { method, token: await apiToken(both), body })).status).not.toBe(403);
  });

  it("delete answers a message only, so the manage permission alone still deletes (as for notes)", async () => {
    const records = await oneRecordOfEach();
    const token = await apiToken(await createUser({ permissions: ["manage_clients"], locations: [records.location.id] }));
    // A PA service no note uses (one in use is not deleted at all: decision 017, stop 30).
    const [unused] = await db().insert(paServices).values({ patientId: records.patient.id, paService: "Unused", cpt: "97155", nUnits: 8, startDate: "2026-01-01", endDate: "2030-12-31" }).returning();
    const res = await api(`/v2/pa-services/${unused!.id}`, { method: "DELETE", token });
    expect(res.status).toBe(200);
    expect(Object.keys((await res.json()) as object)).toEqual(["message"]);
  });
});

describe("the dashboard shows each count and list only with the view permission of what it counts (probe 8932 §1)", () => {
  async function clinic() {
    const location = await createLocation();
    const patient = await createPatient({ locationId: location.id, firstName: "Hidden", lastName: "Client", patientIdentifier: `BL-${location.id}-1` });
    await createBip(patient);
    return { location, patient };
  }

  it.each([
    { perms: [] as Permission[], shows: [] as string[] },
    { perms: ["manage_claims", "manage_tickets", "access_all_locations"] as Permission[], shows: [] },
    { perms: ["view_clients"] as Permission[], shows: ["clients"] },
    { perms: ["view_bips"] as Permission[], shows: ["plans"] },
    { perms: ["view_clients", "view_bips"] as Permission[], shows: ["clients", "plans", "plan rows"] },
    { perms: ["view_notes"] as Permission[], shows: ["notes"] },
    { perms: ["view_employees"] as Permission[], shows: ["employees"] },
  ])("API with $perms", async ({ perms, shows }) => {
    const { location, patient } = await clinic();
    const user = await createUser({ permissions: perms, locations: [location.id] });
    const res = await api("/dashboard/admin", { token: await apiToken(user) });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    const has = (what: string) => shows.includes(what);
    expect(body.recent_patients === null).toBe(!has("clients"));
    expect(body.total_patients === null).toBe(!has("clients"));
    expect(body.porcentajeDP === null).toBe(!has("clients"));
    expect(body.total_bips === null).toBe(!has("plans"));
    expect(body.num_bips_attention_current === null).toBe(!has("plans"));
    expect(body.bips === null).toBe(!has("plan rows"));
    expect(body.total_noteRbts === null).toBe(!has("notes"));
    expect(body.total_employees === null).toBe(!has("employees"));
    expect(JSON.stringify(body).includes("Hidden")).toBe(has("clients"));
    // The read is recorded only when clients were shown, naming only them.
    const audit = await db().all<{ detail: string }>(sql`select detail from audit_log where actor_id = ${user.id} and entity = 'dashboard'`);
    if (has("clients")) expect(audit.map((a) => a.detail).join()).toContain(String(patient.id));
    else expect(audit).toEqual([]);
    expect((await api("/dashboard/admin-year", { token: await apiToken(user) })).status).toBe(has("clients") ? 200 : 403);
  });

  it("the screen without view_clients names no client and says nothing is there", async () => {
    const { location } = await clinic();
    const html = await (await request("/dashboard", { cookie: await signInCookie(await createUser({ permissions: ["manage_tickets"], locations: [location.id] })) })).text();
    expect(html).not.toContain("Hidden");
    expect(html).not.toContain("Recent patients");
    expect(html).not.toContain("New patients by month");
    expect(html).not.toContain('data-testid="total-patients"');
    expect(html).toContain("Nothing to show here: your role gives no access to plans, clients, notes or employees.");
  });

  it("the screen with view_notes shows the note counts and no client", async () => {
    const { location } = await clinic();
    const html = await (await request("/dashboard", { cookie: await signInCookie(await createUser({ permissions: ["view_notes"], locations: [location.id] })) })).text();
    expect(html).toContain('data-testid="total-note-rbts"');
    expect(html).not.toContain('data-testid="total-patients"');
    expect(html).not.toContain('data-testid="total-bips"');
    expect(html).not.toContain("Hidden");
    expect(html).not.toContain("Nothing to show here");
  });
});

describe("the employee list admits view_employees (probe 8932 §4)", () => {
  it.each([
    { perms: ["view_employees"] as Permission[], manage: false },
    { perms: ["manage_employees"] as Permission[], manage: true },
  ])("$perms: 200, add and edit links only with manage_employees", async ({ perms, manage }) => {
    const location = await createLocation();
    const colleague = await createUser({ permissions: [], locations: [location.id], name: "Colleague" });
    const cookie = await signInCookie(await createUser({ permissions: perms, locations: [location.id] }));
    for (const path of ["/doctors/list", "/doctors"]) {
      const res = await request(path, { cookie });
      expect(res.status, path).toBe(path === "/doctors" ? 302 : 200);
    }
    const html = await (await request("/doctors/list", { cookie })).text();
    expect(html).toContain(`/doctors/profile/${colleague.id}`);
    expect(html.includes(`/doctors/list/edit/${colleague.id}`)).toBe(manage);
    expect(html.includes("Add employee")).toBe(manage);
  });

  it("without either permission: 403", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_notes"] }));
    expect((await request("/doctors/list", { cookie })).status).toBe(403);
  });
});
