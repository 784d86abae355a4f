import { and, asc, eq, isNull, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, listVersions, objectives, plans } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { OBJECTIVE_MESSAGES } from "~/domain/objectives";
import { REFERENCE_MESSAGES } from "~/domain/references";
import { verifyAuditChain } from "~/services/audit.server";
import type { Db } from "~/db/client.server";
import { getActor } from "~/models/actors.server";
import { deletePlan } from "~/models/plans.server";
import { reorderPlanObjectives } from "~/models/objectives.server";
import { api, apiToken, countingDb, createBip, createLocation, createObjective, createPatient, createPlan, createUser, db, request, signInCookie, withoutFlashTag, withFlashTag } from "./helpers";

/** Goals (plans) and objectives (clinical §3, §4, §5): the API and the goal add/edit screens (JavaScript off). */

const VIEW: Permission[] = ["view_bips"];
const MANAGE: Permission[] = ["view_bips", "manage_bips"];

/** A BIP in the user's location and one in another location. */
async function world() {
  const loc = await createLocation();
  const otherLoc = await createLocation();
  const patient = await createPatient({ locationId: loc.id, firstName: "Goal", lastName: "Client" });
  const bip = await createBip(patient);
  const otherBip = await createBip(await createPatient({ locationId: otherLoc.id }));
  const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
  const viewer = await createUser({ permissions: VIEW, locations: [loc.id] });
  return { loc, patient, bip, otherBip, manager, viewer };
}

type Json = Record<string, unknown> & { data: Record<string, unknown> & { id: number }; message: string; errors: Record<string, string> };
async function json(res: Response): Promise<Json> {
  return (await res.json()) as Json;
}

/** A plan's live objectives in position order, as "S12 S13 L14" (type initial + id) with positions checked 1..n. */
async function order(planId: number): Promise<string> {
  const rows = await db()
    .select()
    .from(objectives)
    .where(and(eq(objectives.planId, planId), isNull(objectives.deletedAt)))
    .orderBy(asc(objectives.position));
  rows.forEach((r, i) => expect(r.position, `position of objective ${r.id}`).toBe(i + 1));
  return rows.map((r) => `${r.type === "LTO" ? "L" : "S"}${r.id}`).join(" ");
}

/** Live plans of a BIP's category in position order, checked 1..n. */
async function planOrder(bipId: number, category: string): Promise<number[]> {
  const rows = await db()
    .select()
    .from(plans)
    .where(and(eq(plans.bipId, bipId), eq(plans.category, category), isNull(plans.deletedAt)))
    .orderBy(asc(plans.position));
  rows.forEach((r, i) => expect(r.position).toBe(i + 1));
  return rows.map((r) => r.id);
}

/** Rows written: plans, objectives and audit rows of changes (a re-rendered screen may add audit reads). */
async function counts() {
  const [p] = await db().select({ n: sql<number>`count(*)` }).from(plans);
  const [o] = await db().select({ n: sql<number>`count(*)` }).from(objectives);
  const [a] = await db().select({ n: sql<number>`count(*)` }).from(auditLog).where(sql`${auditLog.action} <> 'read' and ${auditLog.action} not like 'sign_in%'`);
  const [changed] = await db().select({ n: sql<number>`count(*)` }).from(objectives).where(sql`${objectives.version} > 1 or ${objectives.deletedAt} is not null`);
  const positions = await db().select({ id: objectives.id, position: objectives.position }).from(objectives).orderBy(asc(objectives.id));
  return { plans: p!.n, objectives: o!.n, audit: a!.n, changed: changed!.n, positions };
}

async function auditActions(entity: string, entityId: number | null) {
  const rows = await db()
    .select()
    .from(auditLog)
    .where(entityId === null ? sql`${auditLog.entity} = ${entity}` : sql`${auditLog.entity} = ${entity} and ${auditLog.entityId} = ${String(entityId)}`)
    .orderBy(asc(auditLog.id));
  return rows;
}

/** Three STOs and an LTO, stored in order. */
async function planWithObjectives(bip: { id: number; patientId: number }) {
  const plan = await createPlan(bip);
  const s1 = await createObjective(plan, { type: "STO", position: 1, name: "First" });
  const s2 = await createObjective(plan, { type: "STO", position: 2, name: "Second" });
  const s3 = await createObjective(plan, { type: "STO", position: 3, name: "Third" });
  const lto = await createObjective(plan, { type: "LTO", position: 4, name: "Long" });
  return { plan, s1, s2, s3, lto };
}

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

describe("/api/v2/plans", () => {
  it("lists a BIP's goals by category with their objectives (LTO last); another location's BIP lists nothing; bad filter 422; 403 without view_bips", async () => {
    const w = await world();
    const a = await createPlan(w.bip, { name: "Aggression", position: 1 });
    const b = await createPlan(w.bip, { name: "Elopement", position: 2 });
    const r = await createPlan(w.bip, { name: "Mand", category: "replacement", unitType: null });
    const other = await createPlan({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const lto = await createObjective(a, { type: "LTO", position: 2 });
    const sto = await createObjective(a, { type: "STO", position: 1 });
    const token = await apiToken(w.viewer);

    const all = await json(await api(`/v2/plans?bip_id=${w.bip.id}`, { token }));
    const list = all as unknown as { data: { id: number; objectives: { id: number }[] }[]; total: number };
    expect(list.data.map((p) => p.id)).toEqual([a.id, b.id, r.id]);
    expect(list.data[0]!.objectives.map((o) => o.id)).toEqual([sto.id, lto.id]);
    const byCategory = (await json(await api(`/v2/plans?bip_id=${w.bip.id}&category=replacement`, { token }))) as unknown as { data: { id: number }[] };
    expect(byCategory.data.map((p) => p.id)).toEqual([r.id]);
    const unfiltered = (await json(await api(`/v2/plans?per_page=100`, { token }))) as unknown as { data: { id: number }[] };
    expect(unfiltered.data.map((p) => p.id)).not.toContain(other.id);
    expect(unfiltered.data.map((p) => p.id)).toEqual(expect.arrayContaining([a.id, b.id, r.id]));

    // Another location's BIP filter lists nothing (decision 017).
    expect(await json(await api(`/v2/plans?bip_id=${w.otherBip.id}`, { token }))).toMatchObject({ data: [], total: 0 });
    const bad = await api(`/v2/plans?category=others`, { token });
    expect(bad.status).toBe(422);
    expect((await json(bad)).errors.category).toBe("Choose a category from the list.");
    expect((await api(`/v2/plans?bip_id=abc`, { token })).status).toBe(422);
    const none = await apiToken(await createUser({ permissions: ["view_clients"], locations: [w.loc.id] }));
    expect((await api(`/v2/plans?bip_id=${w.bip.id}`, { token: none })).status).toBe(403);
    expect((await api(`/v2/plans`)).status).toBe(401);
  });

  it("filters by the client (patient_id or client_id) as the BIP list does; a client out of scope lists nothing there and here; an unknown key is refused (probe 8952 #5; decision 017, stop 44)", async () => {
    const w = await world();
    const sibling = await createPatient({ locationId: w.loc.id });
    const mine = await createPlan(w.bip, { name: "Aggression" });
    const theirs = await createPlan(await createBip(sibling), { name: "Elopement" });
    await createPlan({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const token = await apiToken(w.viewer);
    const listed = async (path: string) => {
      const res = await api(`${path}&per_page=100`, { token });
      expect(res.status, path).toBe(200);
      return ((await res.json()) as { data: { id: number }[] }).data.map((p) => p.id);
    };
    // [query, goals listed]
    const cases: [string, number[]][] = [
      [`patient_id=${w.patient.id}`, [mine.id]],
      [`client_id=${sibling.id}`, [theirs.id]],
      [`patient_id=${w.patient.id}&client_id=${sibling.id}`, [mine.id]],
      [`patient_id=${w.otherBip.patientId}`, []],
      ["patient_id=99999999", []],
    ];
    for (const [query, goals] of cases) expect(await listed(`/v2/plans?${query}`), query).toEqual(goals);
    const unknown = await api(`/v2/plans?patient_id=${sibling.id}&bogus=1`, { token });
    expect(unknown.status).toBe(422);
    expect((await json(unknown)).errors.bogus).toBe("This list cannot be filtered by bogus.");
    // The BIP list answers the same for another location's client: nothing, not an error.
    expect(await listed(`/v2/bips?patient_id=${w.otherBip.patientId}`)).toEqual([]);
    for (const path of ["/v2/bips", "/v2/plans"]) {
      const bad = await api(`${path}?client_id=abc`, { token });
      expect(bad.status, path).toBe(422);
      expect((await json(bad)).errors.client_id, path).toBe("Filters take a record id.");
    }
  });

  it("show: the spec's field names and objectives; the read is audited; 404 for another location", async () => {
    const w = await world();
    const { plan, s1, s2, s3, lto } = await planWithObjectives(w.bip);
    const other = await createPlan({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const token = await apiToken(w.viewer);
    const res = await api(`/v2/plans/${plan.id}`, { token });
    expect(res.status).toBe(200);
    const body = (await json(res)).data;
    for (const key of [
      "id",
      "bip_id",
      "name",
      "description",
      "category",
      "status",
      "current_progress",
      "baseline_level",
      "baseline_date",
      "baseline_timeframe",
      "initial_intensity",
      "current_intensity",
      "intensity_key",
      "timeframe",
      "unit_type",
      "objectives",
      "version",
      "created_at",
      "updated_at",
    ])
      expect(body, key).toHaveProperty(key);
    expect(body).toMatchObject({ bip_id: w.bip.id, category: "maladaptive", status: "active", timeframe: "per_week", baseline_timeframe: "per_hour", unit_type: "occurrences", version: 1 });
    const objs = body.objectives as { id: number; type: string; index: number; order: number; status: string }[];
    expect(objs.map((o) => o.id)).toEqual([s1.id, s2.id, s3.id, lto.id]);
    expect(objs[3]).toMatchObject({ type: "LTO", index: 4, order: 4, status: "not started" });
    const reads = await auditActions("plan", plan.id);
    expect(reads.map((r) => [r.action, r.patientId])).toEqual([["read", w.patient.id]]);
    expect((await api(`/v2/plans/${other.id}`, { token })).status).toBe(404);
    expect((await api(`/v2/plans/99999999`, { token })).status).toBe(404);
  });

  it("creates at the end of its category, normalised (clinical §5), with its objectives in the same batch; one audit row", async () => {
    const w = await world();
    const first = await createPlan(w.bip, { position: 1 });
    const token = await apiToken(w.manager);
    const res = await api("/v2/plans", {
      method: "POST",
      token,
      body: {
        bip_id: w.bip.id,
        name: "Tantrums",
        category: "maladaptive",
        timeframe: "per_day",
        unit_type: "minutes",
        baseline_level: 14,
        baseline_date: "2025-01-04",
        objectives: [
          { type: "LTO", name: "Zero a week", target: 0, comparison_operator: "<=" },
          { name: "Ten a week", target: 10 },
          { name: "Five a week", target: 5, initial_date: "2025-01-04", end_date: "2025-03-29", weeks_to_complete: 12 },
        ],
      },
    });
    expect(res.status).toBe(201);
    const body = await json(res);
    expect(body.message).toBe("Goal created.");
    expect(body.data).toMatchObject({ name: "Tantrums", timeframe: "per_week", baseline_timeframe: "per_hour", unit_type: "minutes", baseline_level: 14, position: 2 });
    const objs = body.data.objectives as { name: string; type: string; position: number }[];
    expect(objs.map((o) => [o.name, o.type, o.position])).toEqual([
      ["Ten a week", "STO", 1],
      ["Five a week", "STO", 2],
      ["Zero a week", "LTO", 3],
    ]);
    expect(await planOrder(w.bip.id, "maladaptive")).toEqual([first.id, body.data.id]);
    expect((await auditActions("plan", body.data.id)).map((r) => [r.action, r.patientId])).toEqual([["create", w.patient.id]]);

    const training = await json(await api("/v2/plans", { method: "POST", token, body: { bip_id: w.bip.id, name: "Parent uses praise", category: "caregiver_training", timeframe: "per_week", baseline_timeframe: "hourly", unit_type: "minutes" } }));
    expect(training.data).toMatchObject({ position: 1, timeframe: "per_week", baseline_timeframe: null, unit_type: null, objectives: [] });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("creates a goal with 50 objectives (the most one create takes) in one batch, in the order sent", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    const objectives = Array.from({ length: 50 }, (_, i) => ({ name: `Step ${i + 1}`, target: 50 - i, initial_date: "2025-01-04", end_date: "2025-03-29", weeks_to_complete: 12 }));
    const res = await api("/v2/plans", { method: "POST", token, body: { bip_id: w.bip.id, name: "Long ladder", category: "maladaptive", timeframe: "per_day", baseline_level: 60, baseline_date: "2025-01-04", objectives } });
    const body = await json(res);
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect((body.data.objectives as { name: string; position: number }[]).map((o) => [o.name, o.position])).toEqual(objectives.map((o, i) => [o.name, i + 1]));
  });

  it.each([
    [{ name: "" }, "name", "Name is required."],
    [{ category: "others" }, "category", "Choose a category from the list."],
    [{ status: "paused" }, "status", "Choose a status from the list."],
    [{ baseline_level: -1 }, "baseline_level", "Baseline level must be 0 or more."],
    [{ baseline_date: "2025-02-30" }, "baseline_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ bip_id: "" }, "bip_id", "BIP is required."],
    [{ objectives: [{ type: "LTO" }, { type: "LTO" }] }, "objectives.1.type", OBJECTIVE_MESSAGES.secondLto],
    [{ objectives: [{ name: "ok" }, { initial_date: "2025-03-01", end_date: "2025-02-01" }] }, "objectives.1.end_date", "The end date must be after the start date."],
    [{ objectives: "none" }, "objectives", "Objectives must be a list of at most 50 objectives."],
  ])("create refuses bad input %# with 422 on its field and writes nothing", async (over, field, message) => {
    const w = await world();
    const token = await apiToken(w.manager);
    const before = await counts();
    const res = await api("/v2/plans", { method: "POST", token, body: { bip_id: w.bip.id, name: "Hitting", category: "maladaptive", ...over } });
    expect(res.status).toBe(422);
    const body = await json(res);
    expect(body.errors[field]).toBe(message);
    expect(body.message).toBeTruthy();
    expect(await counts()).toEqual(before);
  });

  it("create: a BIP of another location is refused at bip_id (decision 017) and nothing is written; a viewer gets 403", async () => {
    const w = await world();
    const before = await counts();
    const res = await api("/v2/plans", { method: "POST", token: await apiToken(w.manager), body: { bip_id: w.otherBip.id, name: "X", category: "maladaptive" } });
    expect(res.status).toBe(422);
    expect((await json(res)).errors.bip_id).toBe(REFERENCE_MESSAGES.bip);
    expect((await api("/v2/plans", { method: "POST", token: await apiToken(w.viewer), body: { bip_id: w.bip.id, name: "X", category: "maladaptive" } })).status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it("update: versioned (409 with the current values, nothing changed), PATCH merges and normalises, a new category puts it last there and closes the gap", async () => {
    const w = await world();
    const a = await createPlan(w.bip, { position: 1 });
    const b = await createPlan(w.bip, { position: 2 });
    const c = await createPlan(w.bip, { position: 3 });
    const r1 = await createPlan(w.bip, { category: "replacement", unitType: null, position: 1 });
    const token = await apiToken(w.manager);
    const put = await api(`/v2/plans/${a.id}`, { method: "PUT", token, body: { name: "Renamed", category: "maladaptive", status: "inactive", unit_type: "seconds", version: 1 } });
    expect(put.status).toBe(200);
    expect((await json(put)).data).toMatchObject({ name: "Renamed", status: "inactive", unit_type: "seconds", timeframe: "per_week", version: 2 });

    const before = await counts();
    const stale = await api(`/v2/plans/${a.id}`, { method: "PUT", token, body: { name: "Stale", category: "maladaptive", version: 1 } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { name: string; version: number } }).current).toMatchObject({ name: "Renamed", version: 2 });
    expect(await counts()).toEqual(before);
    const [still] = await db().select().from(plans).where(eq(plans.id, a.id));
    expect(still!.name).toBe("Renamed");

    const patched = await api(`/v2/plans/${b.id}`, { method: "PATCH", token, body: { category: "replacement" } });
    expect(patched.status).toBe(200);
    expect((await json(patched)).data).toMatchObject({ category: "replacement", unit_type: null, timeframe: "per_week", position: 2, version: 2 });
    expect(await planOrder(w.bip.id, "maladaptive")).toEqual([a.id, c.id]);
    expect(await planOrder(w.bip.id, "replacement")).toEqual([r1.id, b.id]);

    const bad = await api(`/v2/plans/${c.id}`, { method: "PATCH", token, body: { baseline_level: "lots" } });
    expect(bad.status).toBe(422);
    expect((await json(bad)).errors.baseline_level).toBe("Baseline level must be a number.");
    expect((await auditActions("plan", a.id)).map((x) => x.action)).toEqual(["update", "read"]);
  });

  it("update-status and delete (soft; the rest of the category re-indexed); other location 404; viewer 403; other methods 405", async () => {
    const w = await world();
    const a = await createPlan(w.bip, { position: 1 });
    const b = await createPlan(w.bip, { position: 2 });
    const c = await createPlan(w.bip, { position: 3 });
    const other = await createPlan({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const token = await apiToken(w.manager);
    const status = await api(`/v2/plans/update-status/${b.id}`, { method: "PUT", token, body: { status: "discontinued" } });
    expect(status.status).toBe(200);
    expect((await json(status)).data).toMatchObject({ status: "discontinued" });
    const badStatus = await api(`/v2/plans/update-status/${b.id}`, { method: "PUT", token, body: { status: "done" } });
    expect(badStatus.status).toBe(422);
    expect((await json(badStatus)).errors.status).toBe("Choose a status from the list.");

    expect((await api(`/v2/plans/${a.id}`, { method: "DELETE", token: await apiToken(w.viewer) })).status).toBe(403);
    const del = await api(`/v2/plans/${a.id}`, { method: "DELETE", token });
    expect(del.status).toBe(200);
    expect((await json(del)).message).toBe("Goal deleted.");
    const [gone] = await db().select().from(plans).where(eq(plans.id, a.id));
    expect(gone!.deletedAt).not.toBeNull();
    expect(await planOrder(w.bip.id, "maladaptive")).toEqual([b.id, c.id]);
    expect((await api(`/v2/plans/${a.id}`, { token })).status).toBe(404);
    expect((await auditActions("plan", a.id)).map((x) => x.action)).toEqual(["delete"]);

    for (const [method, path] of [
      ["PUT", `/v2/plans/${other.id}`],
      ["PATCH", `/v2/plans/${other.id}`],
      ["PUT", `/v2/plans/update-status/${other.id}`],
      ["DELETE", `/v2/plans/${other.id}`],
    ] as const) {
      const res = await api(path, { method, token, body: { name: "Taken", category: "maladaptive", status: "inactive" } });
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    const [untouched] = await db().select().from(plans).where(eq(plans.id, other.id));
    expect(untouched).toMatchObject({ name: other.name, status: "active", deletedAt: null, version: 1 });
    const unsupported = await api(`/v2/plans`, { method: "DELETE", token });
    expect(unsupported.status).toBe(405);
    expect((await json(unsupported)).message).toBe("Unsupported HTTP method");
  });
});

describe("/api/v2/objectives", () => {
  it("lists a plan's objectives in order (LTO last); another location's goal lists nothing; 403 without view_bips", async () => {
    const w = await world();
    const plan = await createPlan(w.bip);
    const lto = await createObjective(plan, { type: "LTO", position: 1 });
    const s2 = await createObjective(plan, { type: "STO", position: 2 });
    const s1 = await createObjective(plan, { type: "STO", position: 1 });
    const other = await createPlan({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const otherObjective = await createObjective(other);
    const token = await apiToken(w.viewer);
    const list = (await json(await api(`/v2/objectives?plan_id=${plan.id}`, { token }))) as unknown as { data: { id: number }[]; total: number };
    expect(list.data.map((o) => o.id)).toEqual([s1.id, s2.id, lto.id]);
    expect(list.total).toBe(3);
    // Another location's goal filter lists nothing (decision 017).
    expect(await json(await api(`/v2/objectives?plan_id=${other.id}`, { token }))).toMatchObject({ data: [], total: 0 });
    expect((await api(`/v2/objectives/${otherObjective.id}`, { token })).status).toBe(404);
    const shown = await api(`/v2/objectives/${s1.id}`, { token });
    expect(shown.status).toBe(200);
    expect((await json(shown)).data).toMatchObject({ id: s1.id, plan_id: plan.id, type: "STO" });
    const all = (await json(await api(`/v2/objectives?per_page=100`, { token }))) as unknown as { data: { id: number }[] };
    expect(all.data.map((o) => o.id)).not.toContain(otherObjective.id);
    expect((await api(`/v2/objectives?plan_id=x`, { token })).status).toBe(422);
    const none = await apiToken(await createUser({ permissions: ["view_notes"], locations: [w.loc.id] }));
    expect((await api(`/v2/objectives?plan_id=${plan.id}`, { token: none })).status).toBe(403);
  });

  it("create follows the ordering rules: after the STOs (before the LTO), at a position, beyond the end; a second LTO is refused and nothing changes", async () => {
    const w = await world();
    const { plan, s1, s2, s3, lto } = await planWithObjectives(w.bip);
    const token = await apiToken(w.manager);
    const add = async (body: Record<string, unknown>) => api("/v2/objectives", { method: "POST", token, body: { plan_id: plan.id, ...body } });

    const appended = await add({ name: "Appended" });
    expect(appended.status).toBe(201);
    const a = (await json(appended)).data;
    expect(a).toMatchObject({ type: "STO", status: "not started", position: 4 });
    expect(await order(plan.id)).toBe(`S${s1.id} S${s2.id} S${s3.id} S${a.id} L${lto.id}`);

    const first = (await json(await add({ name: "First now", position: 1 }))).data;
    expect(await order(plan.id)).toBe(`S${first.id} S${s1.id} S${s2.id} S${s3.id} S${a.id} L${lto.id}`);
    const middle = (await json(await add({ name: "Middle", index: 3 }))).data;
    expect(middle.position).toBe(3);
    const beyond = (await json(await add({ name: "Beyond", position: 99 }))).data;
    expect(await order(plan.id)).toBe(`S${first.id} S${s1.id} S${middle.id} S${s2.id} S${s3.id} S${a.id} S${beyond.id} L${lto.id}`);

    const before = await counts();
    const second = await add({ type: "LTO", name: "Another LTO" });
    expect(second.status).toBe(422);
    expect((await json(second)).errors.type).toBe(OBJECTIVE_MESSAGES.secondLto);
    const badDates = await add({ initial_date: "2025-05-01", end_date: "2025-04-01" });
    expect(badDates.status).toBe(422);
    expect((await json(badDates)).errors.end_date).toBe("The end date must be after the start date.");
    expect((await add({ weeks_to_complete: -3 })).status).toBe(422);
    expect(await counts()).toEqual(before);
    expect((await auditActions("objective", a.id)).map((r) => [r.action, r.patientId])).toEqual([["create", w.patient.id]]);
  });

  it("create: a plan of another location is refused at plan_id (decision 017); no plan_id is 422; a viewer gets 403", async () => {
    const w = await world();
    const other = await createPlan({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const plan = await createPlan(w.bip);
    const before = await counts();
    const token = await apiToken(w.manager);
    const far = await api("/v2/objectives", { method: "POST", token, body: { plan_id: other.id, name: "X" } });
    expect(far.status).toBe(422);
    expect((await json(far)).errors.plan_id).toBe(REFERENCE_MESSAGES.goal);
    const missing = await api("/v2/objectives", { method: "POST", token, body: { name: "X" } });
    expect(missing.status).toBe(422);
    expect((await json(missing)).errors.plan_id).toBe("Plan is required.");
    expect((await api("/v2/objectives", { method: "POST", token: await apiToken(w.viewer), body: { plan_id: plan.id } })).status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  it("update moves and converts (STO ↔ LTO re-sorts; a second LTO refused); versioned; update-status", async () => {
    const w = await world();
    const { plan, s1, s2, s3, lto } = await planWithObjectives(w.bip);
    const token = await apiToken(w.manager);
    const moved = await api(`/v2/objectives/${s3.id}`, { method: "PATCH", token, body: { position: 1, version: 1 } });
    expect(moved.status).toBe(200);
    expect((await json(moved)).data).toMatchObject({ position: 1, name: "Third", version: 2 });
    expect(await order(plan.id)).toBe(`S${s3.id} S${s1.id} S${s2.id} L${lto.id}`);

    const before = await counts();
    const twoLtos = await api(`/v2/objectives/${s1.id}`, { method: "PATCH", token, body: { type: "LTO" } });
    expect(twoLtos.status).toBe(422);
    expect((await json(twoLtos)).errors.type).toBe(OBJECTIVE_MESSAGES.secondLto);
    const stale = await api(`/v2/objectives/${s3.id}`, { method: "PUT", token, body: { name: "Stale", version: 1 } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: { name: string } }).current.name).toBe("Third");
    expect(await counts()).toEqual(before);

    const toSto = await api(`/v2/objectives/${lto.id}`, { method: "PATCH", token, body: { type: "sto", position: 2 } });
    expect(toSto.status).toBe(200);
    expect(await order(plan.id)).toBe(`S${s3.id} S${lto.id} S${s1.id} S${s2.id}`);
    const toLto = await api(`/v2/objectives/${s3.id}`, { method: "PATCH", token, body: { type: "LTO" } });
    expect(toLto.status).toBe(200);
    expect(await order(plan.id)).toBe(`S${lto.id} S${s1.id} S${s2.id} L${s3.id}`);

    const status = await api(`/v2/objectives/update-status/${s1.id}`, { method: "PUT", token, body: { status: "mastered" } });
    expect((await json(status)).data).toMatchObject({ status: "mastered" });
    expect((await api(`/v2/objectives/update-status/${s1.id}`, { method: "PUT", token, body: { status: "finished" } })).status).toBe(422);
    expect((await auditActions("objective", s3.id)).map((r) => r.action)).toEqual(["update", "read", "update"]);
  });

  it("delete closes the gap; reorder saves the STOs as given with the LTO last; bad ids 422 and nothing changed; another location's goal 422, its objective 404", async () => {
    const w = await world();
    const { plan, s1, s2, s3, lto } = await planWithObjectives(w.bip);
    const other = await planWithObjectives({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const token = await apiToken(w.manager);
    const del = await api(`/v2/objectives/${s1.id}`, { method: "DELETE", token });
    expect(del.status).toBe(200);
    expect(await order(plan.id)).toBe(`S${s2.id} S${s3.id} L${lto.id}`);
    expect((await api(`/v2/objectives/${s1.id}`, { token })).status).toBe(404);

    const reordered = await api("/v2/objectives/reorder", { method: "POST", token, body: { plan_id: plan.id, ids: [s3.id, s2.id] } });
    expect(reordered.status).toBe(200);
    expect(((await json(reordered)).data as unknown as { id: number }[]).map((o) => o.id)).toEqual([s3.id, s2.id, lto.id]);
    expect(await order(plan.id)).toBe(`S${s3.id} S${s2.id} L${lto.id}`);
    expect((await auditActions("objective", null)).filter((r) => r.action === "reorder").map((r) => r.patientId)).toEqual([w.patient.id]);

    const before = await counts();
    for (const ids of [[s3.id], [s3.id, s2.id, lto.id], [s3.id, s3.id], [s3.id, other.s1.id], "x"]) {
      const res = await api("/v2/objectives/reorder", { method: "POST", token, body: { plan_id: plan.id, ids } });
      expect(res.status, JSON.stringify(ids)).toBe(422);
      expect((await json(res)).errors.ids).toBe(OBJECTIVE_MESSAGES.reorder);
    }
    // The goal is a body reference: another location's is 422 at plan_id (decision 017).
    expect((await api("/v2/objectives/reorder", { method: "POST", token, body: { plan_id: other.plan.id, ids: [other.s3.id, other.s2.id, other.s1.id] } })).status).toBe(422);
    expect((await api(`/v2/objectives/${other.s1.id}`, { method: "DELETE", token })).status).toBe(404);
    expect((await api("/v2/objectives/reorder", { method: "POST", token: await apiToken(w.viewer), body: { plan_id: plan.id, ids: [s2.id, s3.id] } })).status).toBe(403);
    expect(await counts()).toEqual(before);
    expect(await order(other.plan.id)).toBe(`S${other.s1.id} S${other.s2.id} S${other.s3.id} L${other.lto.id}`);
    expect((await api("/v2/objectives/reorder", { method: "PUT", token, body: {} })).status).toBe(405);
  });
});

describe("an objective move that changes nothing (decision 010, stop 37)", () => {
  it("past either end or into the same order: says so and writes nothing (no audit row, no list version, no position)", async () => {
    const w = await world();
    const { plan, s1, s2, s3, lto } = await planWithObjectives(w.bip);
    const cookie = await signInCookie(w.manager);
    const token = await apiToken(w.manager);
    const path = `/bip/goal/${plan.id}/edit`;
    const lists = () => db().select().from(listVersions).orderBy(asc(listVersions.resource));
    const before = await counts();
    const versions = await lists();
    const steps: [number, "up" | "down", string][] = [
      [s1.id, "up", "Already first."],
      [s3.id, "down", "Already last."],
    ];
    for (const [id, direction, message] of steps) {
      const res = await post(path, { intent: "move-objective", objective_id: String(id), direction }, cookie);
      expect(res.status, `${id} ${direction}`).toBe(303);
      expect(decodeURIComponent(res.headers.get("Location") ?? ""), `${id} ${direction}`).toContain(`flash=${message}`);
    }
    const same = await api("/v2/objectives/reorder", { method: "POST", token, body: { plan_id: plan.id, ids: [s1.id, s2.id, s3.id] } });
    expect(same.status).toBe(200);
    const answer = (await same.json()) as { message: string; data: { id: number }[] };
    expect(answer.message).toBe("Already in that order.");
    expect(answer.data.map((o) => o.id)).toEqual([s1.id, s2.id, s3.id, lto.id]);
    expect(await counts()).toEqual(before);
    expect(await lists()).toEqual(versions);
    // A move that moves still saves, with its audit row.
    expect((await post(path, { intent: "move-objective", objective_id: String(s3.id), direction: "up" }, cookie)).status).toBe(303);
    expect(await order(plan.id)).toBe(`S${s1.id} S${s3.id} S${s2.id} L${lto.id}`);
    expect((await counts()).audit).toBe(before.audit + 1);
  });
});

describe("goal screens", () => {
  it("add: manage_bips only; the category preselected; a BIP of another location 404", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const res = await request(`/bip/goal/add/${w.bip.id}?category=replacement`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Add replacement behaviors goal");
    expect(html).toMatch(/<option value="replacement" selected="">/);
    expect(html).toContain("Maladaptive goals only; other categories are saved without a unit type.");
    expect(html).toContain(`href="/bip/profile/${w.bip.id}"`);
    expect((await request(`/bip/goal/add/${w.otherBip.id}`, { cookie })).status).toBe(404);
    const viewer = await signInCookie(w.viewer);
    expect((await request(`/bip/goal/add/${w.bip.id}`, { cookie: viewer })).status).toBe(403);
    const before = await counts();
    expect((await post(`/bip/goal/add/${w.bip.id}`, { name: "X", category: "maladaptive" }, viewer)).status).toBe(403);
    expect((await post(`/bip/goal/add/${w.otherBip.id}`, { name: "X", category: "maladaptive" }, cookie)).status).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it("add: bad input re-renders with the messages and the typed values, nothing written; good input redirects to the edit screen with objectives in order", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const path = `/bip/goal/add/${w.bip.id}`;
    const before = await counts();
    const bad = await post(
      path,
      {
        category: "replacement",
        name: "",
        description: "Typed text",
        "objectives.0.type": "LTO",
        "objectives.0.name": "Long one",
        "objectives.1.type": "STO",
        "objectives.2.type": "LTO",
        "objectives.2.name": "Second long",
      },
      cookie,
    );
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain("Name is required.");
    expect(html).toContain("Typed text");
    expect(html).toContain("Second long");
    // The second LTO is reported on the row it was typed in (row 3), not on the second row sent.
    expect(html).toMatch(/id="new-objective-2-type-error"[^>]*>This plan already has an LTO/);
    expect(await counts()).toEqual(before);

    const good = await post(
      path,
      {
        category: "replacement",
        name: "Requests a break",
        status: "active",
        unit_type: "minutes",
        timeframe: "per_week",
        baseline_level: "2",
        "objectives.0.type": "LTO",
        "objectives.0.name": "Independent",
        "objectives.0.target": "90",
        "objectives.1.type": "STO",
        "objectives.1.status": "not started",
        "objectives.2.type": "STO",
        "objectives.2.name": "With a prompt",
        "objectives.2.target": "50",
        "objectives.2.comparison_operator": ">=",
      },
      cookie,
    );
    expect(good.status).toBe(303);
    const [created] = await db().select().from(plans).where(and(eq(plans.bipId, w.bip.id), eq(plans.name, "Requests a break")));
    expect(withoutFlashTag(good.headers.get("Location"))).toBe(`/bip/goal/${created!.id}/edit?flash=${encodeURIComponent("Goal created.")}`);
    expect(created).toMatchObject({ category: "replacement", unitType: null, timeframe: "per_week", baselineLevel: 2, position: 1 });
    const objs = await db().select().from(objectives).where(eq(objectives.planId, created!.id)).orderBy(asc(objectives.position));
    expect(objs.map((o) => [o.name, o.type, o.position, o.comparisonOperator])).toEqual([
      ["With a prompt", "STO", 1, ">="],
      ["Independent", "LTO", 2, null],
    ]);
  });

  it("edit: shows the goal and its objectives in order with links; 404 other location; 403 viewer", async () => {
    const w = await world();
    const { plan, s1, lto } = await planWithObjectives(w.bip);
    const other = await createPlan({ id: w.otherBip.id, patientId: w.otherBip.patientId });
    const cookie = await signInCookie(w.manager);
    const res = await request(await withFlashTag(`/bip/goal/${plan.id}/edit?flash=Goal%20created.`), { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Goal created.");
    expect(html).toContain(`href="/bip/goal/${plan.id}"`);
    expect(html).toContain(`href="/bip/profile/${w.bip.id}"`);
    expect(html.indexOf(">STO1<")).toBeLessThan(html.indexOf(">STO3<"));
    expect(html.indexOf(">STO3<")).toBeLessThan(html.indexOf(">LTO<"));
    expect(html).toContain(`data-testid="objective-${s1.id}"`);
    expect(html).not.toContain(`aria-label="Move LTO up"`);
    expect(html).toContain(`Save LTO`);
    expect(html).not.toContain("Yes, delete it");
    expect((await auditActions("plan", plan.id)).map((r) => r.action)).toEqual(["read"]);
    expect((await request(`/bip/goal/${other.id}/edit`, { cookie })).status).toBe(404);
    expect((await request(`/bip/goal/${plan.id}/edit`, { cookie: await signInCookie(w.viewer) })).status).toBe(403);
    expect((await post(`/bip/goal/${plan.id}/edit`, { intent: "delete-objective", objective_id: String(lto.id), confirmed: "yes" }, await signInCookie(w.viewer))).status).toBe(403);
    expect((await post(`/bip/goal/${other.id}/edit`, { intent: "save-plan", name: "X", category: "maladaptive", version: "1" }, cookie)).status).toBe(404);
  });

  it("edit: save (bad input kept and nothing written; a stale version answers 409 with the stored values), status", async () => {
    const w = await world();
    const plan = await createPlan(w.bip, { name: "Hitting" });
    const cookie = await signInCookie(w.manager);
    const path = `/bip/goal/${plan.id}/edit`;
    const fields = { intent: "save-plan", category: "maladaptive", status: "active", timeframe: "per_hour", unit_type: "seconds" };
    const bad = await post(path, { ...fields, name: "Kicking", baseline_level: "-4", version: "1" }, cookie);
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain("Baseline level must be 0 or more.");
    expect(badHtml).toContain('value="Kicking"');
    const saved = await post(path, { ...fields, name: "Kicking", version: "1" }, cookie);
    expect(saved.status).toBe(303);
    expect(withoutFlashTag(saved.headers.get("Location"))).toBe(`${path}?flash=${encodeURIComponent("Goal updated.")}`);
    const stale = await post(path, { ...fields, name: "Biting", version: "1" }, cookie);
    expect(stale.status).toBe(409);
    const staleHtml = await stale.text();
    expect(staleHtml).toContain("Someone else saved a newer version");
    expect(staleHtml).toContain('value="Kicking"');
    expect(staleHtml).toContain('name="version" value="2"');
    const [row] = await db().select().from(plans).where(eq(plans.id, plan.id));
    expect(row).toMatchObject({ name: "Kicking", timeframe: "per_hour", unitType: "seconds", version: 2 });
    expect((await post(path, { intent: "status", status: "inactive" }, cookie)).status).toBe(303);
    const badStatus = await post(path, { intent: "status", status: "gone" }, cookie);
    expect(badStatus.status).toBe(422);
    expect(await badStatus.text()).toContain("Choose a status from the list.");
    const [after] = await db().select().from(plans).where(eq(plans.id, plan.id));
    expect(after!.status).toBe("inactive");
  });

  it("edit: objectives through the forms — add at a position, second LTO refused, move up/down, save, delete with a confirm step", async () => {
    const w = await world();
    const { plan, s1, s2, s3, lto } = await planWithObjectives(w.bip);
    const otherPlan = await planWithObjectives(w.bip);
    const cookie = await signInCookie(w.manager);
    const path = `/bip/goal/${plan.id}/edit`;

    expect((await post(path, { intent: "add-objective", type: "STO", name: "Top", position: "1", status: "in progress" }, cookie)).status).toBe(303);
    const [top] = await db().select().from(objectives).where(and(eq(objectives.planId, plan.id), eq(objectives.name, "Top")));
    expect(await order(plan.id)).toBe(`S${top!.id} S${s1.id} S${s2.id} S${s3.id} L${lto.id}`);

    const before = await counts();
    const second = await post(path, { intent: "add-objective", type: "LTO", name: "Typed LTO" }, cookie);
    expect(second.status).toBe(422);
    const secondHtml = await second.text();
    expect(secondHtml).toContain(OBJECTIVE_MESSAGES.secondLto);
    expect(secondHtml).toContain('value="Typed LTO"');
    const ltoMove = await post(path, { intent: "move-objective", objective_id: String(lto.id), direction: "up" }, cookie);
    expect(ltoMove.status).toBe(422);
    expect(await ltoMove.text()).toContain(OBJECTIVE_MESSAGES.ltoStaysLast);
    expect(await counts()).toEqual(before);

    expect((await post(path, { intent: "move-objective", objective_id: String(top!.id), direction: "down" }, cookie)).status).toBe(303);
    expect((await post(path, { intent: "move-objective", objective_id: String(s3.id), direction: "up" }, cookie)).status).toBe(303);
    expect(await order(plan.id)).toBe(`S${s1.id} S${top!.id} S${s3.id} S${s2.id} L${lto.id}`);

    const saved = await post(path, { intent: "save-objective", objective_id: String(s2.id), version: "1", type: "STO", status: "mastered", name: "Second, mastered", target: "3", position: "1" }, cookie);
    expect(saved.status).toBe(303);
    expect(await order(plan.id)).toBe(`S${s2.id} S${s1.id} S${top!.id} S${s3.id} L${lto.id}`);
    const stale = await post(path, { intent: "save-objective", objective_id: String(s2.id), version: "1", type: "STO", name: "Stale" }, cookie);
    expect(stale.status).toBe(409);
    expect(await stale.text()).toContain('value="Second, mastered"');
    const badDates = await post(path, { intent: "save-objective", objective_id: String(s1.id), version: "1", initial_date: "2025-06-01", end_date: "2025-05-01" }, cookie);
    expect(badDates.status).toBe(422);
    expect(await badDates.text()).toContain("The end date must be after the start date.");

    // An objective of another plan is not found through this goal's screen.
    expect((await post(path, { intent: "delete-objective", objective_id: String(otherPlan.s1.id), confirmed: "yes" }, cookie)).status).toBe(404);
    expect((await post(path, { intent: "save-objective", objective_id: String(otherPlan.s1.id), version: "1", name: "Hijack" }, cookie)).status).toBe(404);

    const confirm = await (await request(`${path}?delete-objective=${s1.id}`, { cookie })).text();
    expect(confirm).toContain("Are you sure you want to delete STO2");
    expect(confirm).toContain("This action cannot be undone.");
    expect(confirm).toContain("Yes, delete it");
    expect((await post(path, { intent: "delete-objective", objective_id: String(s1.id), confirmed: "yes" }, cookie)).status).toBe(303);
    expect(await order(plan.id)).toBe(`S${s2.id} S${top!.id} S${s3.id} L${lto.id}`);
    expect(await order(otherPlan.plan.id)).toBe(`S${otherPlan.s1.id} S${otherPlan.s2.id} S${otherPlan.s3.id} L${otherPlan.lto.id}`);
  });

  it("edit: delete the goal after the confirm step; the BIP's category is re-indexed", async () => {
    const w = await world();
    const a = await createPlan(w.bip, { position: 1 });
    const b = await createPlan(w.bip, { position: 2 });
    const c = await createPlan(w.bip, { position: 3 });
    const cookie = await signInCookie(w.manager);
    const confirm = await (await request(`/bip/goal/${b.id}/edit?confirm=delete`, { cookie })).text();
    expect(confirm).toContain("Are you sure you want to delete the goal");
    expect(confirm).toContain("Yes, delete it");
    const res = await post(`/bip/goal/${b.id}/edit`, { intent: "delete-plan", confirmed: "yes" }, cookie);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe(`/bip/profile/${w.bip.id}?flash=${encodeURIComponent("Goal deleted.")}`);
    expect(await planOrder(w.bip.id, "maladaptive")).toEqual([a.id, c.id]);
    expect((await request(`/bip/goal/${b.id}/edit`, { cookie })).status).toBe(404);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("re-numbering is one statement however many rows move (D1: queries per invocation)", () => {
  const ctxOf = async (userId: number, database: Db) => ({ db: database, actor: (await getActor(db(), "user", userId))!, ip: "127.0.0.1", now: () => new Date() });

  it.each([3, 40])("%i STOs reversed, then the first of as many goals of a category deleted", async (n) => {
    const w = await world();
    const plan = await createPlan(w.bip, { category: "replacement" });
    const stos = [];
    for (let i = 1; i <= n; i++) stos.push(await createObjective(plan, { type: "STO", position: i, name: `S${i}` }));
    const lto = await createObjective(plan, { type: "LTO", position: n + 1, name: "Long" });
    const goals = [];
    for (let i = 1; i <= n; i++) goals.push(await createPlan(w.bip, { category: "maladaptive", position: i }));

    const reorder = countingDb();
    const reversed = [...stos].reverse().map((s) => s.id);
    const r = await reorderPlanObjectives(await ctxOf(w.manager.id, reorder.db), { plan_id: plan.id, ids: reversed });
    expect(r.ok, JSON.stringify(r)).toBe(true);
    expect(await order(plan.id)).toBe([...reversed.map((id) => `S${id}`), `L${lto.id}`].join(" "));

    const remove = countingDb();
    const d = await deletePlan(await ctxOf(w.manager.id, remove.db), goals[0]!.id);
    expect(d.ok, JSON.stringify(d)).toBe(true);
    expect(await planOrder(w.bip.id, "maladaptive")).toEqual(goals.slice(1).map((g) => g.id));
    // The same statements for 3 rows as for 40 (the figures of the 3-row case, measured when this was written).
    expect([reorder.statements(), remove.statements()]).toEqual([8, 7]);
  });
});

describe("a goal PATCH that changes nothing, or a measurement that is not text (decision 017, stop 42)", () => {
  type Case = [label: string, patch: Record<string, unknown>, field: string | null];
  const CASES: Case[] = [
    ["baseline_timeframe a lone surrogate", { baseline_timeframe: "\ud800" }, "baseline_timeframe"],
    ["baseline_timeframe with a NUL", { baseline_timeframe: "\u0000x" }, "baseline_timeframe"],
    ["baseline_timeframe an object", { baseline_timeframe: {} }, "baseline_timeframe"],
    ["baseline_timeframe a number", { baseline_timeframe: 123 }, "baseline_timeframe"],
    ["baseline_timeframe 1e308", { baseline_timeframe: 1e308 }, "baseline_timeframe"],
    ["timeframe true", { timeframe: true }, "timeframe"],
    ["unit_type a list", { unit_type: ["minutes"] }, "unit_type"],
    ["an unlisted word normalised back to the stored default", { baseline_timeframe: "per_day" }, null],
    ["the stored value itself", { baseline_timeframe: "per_hour" }, null],
    ["the stored name", { name: "Tantrums" }, null],
  ];
  it.each(CASES)("%s: 422, nothing written, the version stays", async (_label, patch, field) => {
    const w = await world();
    const token = await apiToken(w.manager);
    const plan = await createPlan(w.bip, { name: "Tantrums", category: "maladaptive", timeframe: "per_week", baselineTimeframe: "per_hour", unitType: "occurrences" });
    const [before] = await db().select().from(plans).where(eq(plans.id, plan.id));
    const res = await api(`/v2/plans/${plan.id}`, { method: "PATCH", token, body: patch });
    const answer = await json(res);
    expect(res.status, JSON.stringify(answer)).toBe(422);
    if (field) expect(answer.errors[field]).toBeTruthy();
    else expect(answer.message).toMatch(/^Nothing to change/);
    const [after] = await db().select().from(plans).where(eq(plans.id, plan.id));
    expect(after).toEqual(before);
  });

  it("a real change still saves; an unlisted word on a new plan still normalises (clinical §5)", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    const plan = await createPlan(w.bip, { name: "Tantrums", category: "maladaptive", timeframe: "per_week", baselineTimeframe: "per_hour", unitType: "occurrences" });
    const res = await api(`/v2/plans/${plan.id}`, { method: "PATCH", token, body: { baseline_timeframe: "per_week" } });
    expect(res.status).toBe(200);
    expect((await json(res)).data).toMatchObject({ baseline_timeframe: "per_week", version: plan.version + 1 });
  });
});
