import { and, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, patients, plans, users } from "~/db/schema";
import { api, apiToken, createObjective, createParent, createPatient, createPlan, createUser, db, form, oneRecordOfEach, signInCookie } from "./helpers";

/**
 * A status call that sends the status the record already has changes nothing (decision 017, stop 45): 422 "Nothing to
 * change", nothing written, no audit row, the version as it was and, for an employee or a parent, their sessions and
 * tokens kept, as every other update that leaves a record as stored (stop 44). Another status still saves, once.
 */

const NOTHING = "Nothing to change: send at least one field to update.";
type World = Awaited<ReturnType<typeof oneRecordOfEach>>;
let w: World;

beforeAll(async () => {
  w = await oneRecordOfEach();
});

/** The audit rows that record a change of the record (a status call's, or the parent's update it goes through). */
const changeRows = async (entity: string, id: number) =>
  (await db().select({ id: auditLog.id }).from(auditLog).where(and(eq(auditLog.entity, entity), eq(auditLog.entityId, String(id)), inArray(auditLog.action, ["status", "update"])))).length;

async function show(path: string): Promise<{ status: string; version: number }> {
  const res = await api(path, { token: w.token });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { data: { status: string; version: number } }).data;
}

type Made = { id: number; path: string; show: string };
/** [record and call, its audit entity, a new record, another status than the one it is made with] */
const CASES: [string, string, () => Promise<Made>, string][] = [
  ["client (v2)", "patient", async () => { const p = await createPatient({ locationId: w.location.id }); return { id: p.id, path: `/v2/patients/update-status/${p.id}`, show: `/v2/patients/${p.id}` }; }, "inactive"],
  ["goal (v2)", "plan", async () => { const p = await createPlan(w.bip); return { id: p.id, path: `/v2/plans/update-status/${p.id}`, show: `/v2/plans/${p.id}` }; }, "discontinued"],
  ["objective (v2)", "objective", async () => { const o = await createObjective(w.plan); return { id: o.id, path: `/v2/objectives/update-status/${o.id}`, show: `/v2/objectives/${o.id}` }; }, "mastered"],
  ["employee (v2)", "employee", async () => { const u = await createUser({ permissions: ["view_notes"], locations: [w.location.id] }); return { id: u.id, path: `/v2/employees/update-status/${u.id}`, show: `/v2/employees/${u.id}` }; }, "inactive"],
  ["employee (v1)", "employee", async () => { const u = await createUser({ permissions: ["view_notes"], locations: [w.location.id] }); return { id: u.id, path: `/doctors/update/status/${u.id}`, show: `/v2/employees/${u.id}` }; }, "inactive"],
  ["parent (v2)", "parent", async () => { const p = await createParent({ locationId: w.location.id }); return { id: p.id, path: `/v2/parents/update-status/${p.id}`, show: `/v2/parents/${p.id}` }; }, "inactive"],
];

describe("update-status with the status the record already has", () => {
  it.each(CASES)("%s: 422 'Nothing to change', the version and audit rows as they were; another status saves once", async (name, entity, make, other) => {
    const rec = await make();
    const before = await show(rec.show);
    const rows = await changeRows(entity, rec.id);
    const res = await api(rec.path, { method: "PUT", token: w.token, body: { status: before.status } });
    expect(res.status, `${name}: ${await res.clone().text()}`).toBe(422);
    expect(((await res.json()) as { message: string }).message, name).toBe(NOTHING);
    expect((await show(rec.show)).version, name).toBe(before.version);
    expect(await changeRows(entity, rec.id), name).toBe(rows);
    const changed = await api(rec.path, { method: "PUT", token: w.token, body: { status: other } });
    expect(changed.status, `${name}: ${await changed.clone().text()}`).toBe(200);
    const after = await show(rec.show);
    expect(after.status, name).toBe(other);
    expect(after.version, name).toBe(before.version + 1);
    expect(await changeRows(entity, rec.id), name).toBe(rows + 1);
  });

  it("a bad status is still refused at the field before anything else", async () => {
    const p = await createPatient({ locationId: w.location.id });
    const res = await api(`/v2/patients/update-status/${p.id}`, { method: "PUT", token: w.token, body: { status: "gone" } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.status).toBe("Choose a status from the list.");
  });

  it.each([
    ["employee (v2)", (id: number) => `/v2/employees/update-status/${id}`],
    ["employee (v1)", (id: number) => `/doctors/update/status/${id}`],
  ])("%s: their stored status sent again keeps their sessions and tokens", async (_name, path) => {
    const employee = await createUser({ permissions: ["view_notes"], locations: [w.location.id] });
    const token = await apiToken(employee);
    const res = await api(path(employee.id), { method: "PUT", token: w.token, body: { status: "active" } });
    expect(res.status).toBe(422);
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(200);
  });

  it("an employee above the actor's rank is still refused (403) before 'Nothing to change'", async () => {
    const manager = await createUser({ permissions: ["view_employees", "manage_employees"], locations: [w.location.id] });
    const token = await apiToken(manager);
    const res = await api(`/v2/employees/update-status/${w.admin.id}`, { method: "PUT", token, body: { status: "active" } });
    expect(res.status).toBe(403);
  });
});

describe("a screen that posts the stored status", () => {
  const flashOf = (res: Response) => new URL(res.headers.get("Location")!, "http://x");

  it.each<[string, () => Promise<{ path: string; to: string; version: () => Promise<number> }>]>([
    ["the client's settings", async () => {
      const p = await createPatient({ locationId: w.location.id });
      return { path: `/patients/setting/${p.id}`, to: `/patients/setting/${p.id}`, version: async () => (await db().select().from(patients).where(eq(patients.id, p.id)))[0]!.version };
    }],
    ["the goal's edit page", async () => {
      const p = await createPlan(w.bip);
      return { path: `/bip/goal/${p.id}/edit`, to: `/bip/goal/${p.id}/edit`, version: async () => (await db().select().from(plans).where(eq(plans.id, p.id)))[0]!.version };
    }],
    ["the employee's edit page", async () => {
      const u = await createUser({ permissions: ["view_notes"], locations: [w.location.id] });
      return { path: `/doctors/list/edit/${u.id}`, to: `/doctors/profile/${u.id}`, version: async () => (await db().select().from(users).where(eq(users.id, u.id)))[0]!.version };
    }],
  ])("%s: 'Nothing to change.' where the save goes, nothing written", async (_name, make) => {
    const cookie = await signInCookie(w.admin);
    const rec = await make();
    const before = await rec.version();
    const res = await form(rec.path, { intent: "status", status: "active" }, cookie);
    expect(res.status, await res.clone().text()).toBe(303);
    expect(flashOf(res).pathname).toBe(rec.to);
    expect(flashOf(res).searchParams.get("flash")).toBe("Nothing to change.");
    expect(await rec.version()).toBe(before);
  });
});
