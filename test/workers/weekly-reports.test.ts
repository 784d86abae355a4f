import { env } from "cloudflare:test";
import { and, asc, eq, sql } from "drizzle-orm";
import { strToU8, zipSync } from "fflate";
import { describe, expect, it } from "vitest";
import { auditLog, chartComments, objectives as objectivesTable, plans, weeklyReports } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { CHART_COMMENT_NOTICES, IMPORT_MAX_BYTES, IMPORT_MESSAGES, WEEKLY_REPORT_MESSAGES, WEEKLY_REPORT_NOTICES, weeklyDataRange } from "~/domain/weekly-reports";
import { todayIn } from "~/domain/note-rules";
import { addDays, weekEndingOn } from "~/domain/weeks";
import { d1Database } from "~/db/client.server";
import type { Actor } from "~/domain/permissions";
import { chartInputsFrom, chartInputsQuery, editorRowsFrom, editorRowsQuery, profileChartsQuery, type ChartRange } from "~/models/charts.server";
import type { ModelContext } from "~/models/context";
import { findPlanInScope, type PlanInScope } from "~/models/bip-scope.server";
import { verifyAuditChain } from "~/services/audit.server";
import { MAX_UNZIPPED_BYTES } from "~/domain/xlsx";
import { weeklySheet, xlsxFile } from "../support/xlsx";
import { api, apiToken, BASE, createBip, createChartComment, createLocation, createObjective, createPatient, createPlan, createUser, createWeeklyReport, db, request, signInCookie, withoutFlashTag } from "./helpers";
import { appFetch } from "./app-fetch";

/** Weekly reports and chart comments (clinical §2, §5, §7, §8): the v2 API, the .xlsx check and import, and the goal screen with JavaScript off. */

const VIEW: Permission[] = ["view_bips"];
const MANAGE: Permission[] = ["view_bips", "manage_bips"];
const W = WEEKLY_REPORT_NOTICES;
const C = CHART_COMMENT_NOTICES;

/** A client with a BIP and a goal in a location of its own, and a goal of another location. */
async function world() {
  const loc = await createLocation();
  const elsewhere = await createLocation();
  const patient = await createPatient({ locationId: loc.id, firstName: "Mia", lastName: "Lopez" });
  const bip = await createBip(patient);
  const plan = await createPlan(bip, { name: "Physical aggression" });
  const otherPatient = await createPatient({ locationId: elsewhere.id });
  const otherPlan = await createPlan(await createBip(otherPatient));
  const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
  const viewer = await createUser({ permissions: VIEW, locations: [loc.id] });
  const outsider = await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] });
  return { loc, patient, bip, plan, otherPlan, manager, viewer, outsider };
}

async function tokens(w: Awaited<ReturnType<typeof world>>) {
  return { manage: await apiToken(w.manager), view: await apiToken(w.viewer), none: await apiToken(w.outsider) };
}

async function json<T = Record<string, unknown>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

async function counts() {
  const [r] = await db().select({ n: sql<number>`count(*)` }).from(weeklyReports);
  const [c] = await db().select({ n: sql<number>`count(*)` }).from(chartComments);
  // Change rows only: re-rendering the goal screen after refused input records a read, which is right.
  const [a] = await db().select({ n: sql<number>`count(*)` }).from(auditLog).where(sql`${auditLog.action} <> 'read' and ${auditLog.action} not like 'sign_in%'`);
  return { reports: r!.n, comments: c!.n, audit: a!.n };
}

async function auditOf(entity: string, entityId: number) {
  return db().select().from(auditLog).where(and(eq(auditLog.entity, entity), eq(auditLog.entityId, String(entityId)))).orderBy(asc(auditLog.id));
}

async function reportsOf(planId: number) {
  return db().select().from(weeklyReports).where(eq(weeklyReports.planId, planId)).orderBy(asc(weeklyReports.weekEnd));
}

function upload(path: string, token: string | null, fields: Record<string, string>, file?: Uint8Array | string, name = "weekly.xlsx") {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  if (file !== undefined) body.append("file", new Blob([file as BlobPart]), name);
  const headers = new Headers({ Accept: "application/json" });
  if (token) headers.set("Authorization", `Bearer ${token}`);
  return appFetch(`${BASE}/api${path}`, { method: "POST", headers, body });
}

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

/* ------------------------------------------------------------------ API: weekly reports */

describe("/api/v2/weekly-reports", () => {
  it("lists a plan's reports in date order, filtered by dates and search, and every plan of a BIP with bip_id", async () => {
    const w = await world();
    const t = await tokens(w);
    const second = await createPlan(w.bip, { name: "Elopement", category: "replacement" });
    await createWeeklyReport(w.plan, "2026-01-17", 5);
    await createWeeklyReport(w.plan, "2026-01-10", 4, 80);
    await createWeeklyReport(w.plan, "2026-02-07", 2);
    await createWeeklyReport(second, "2026-01-10", 50);
    await createWeeklyReport(w.otherPlan, "2026-01-10", 9);
    const list = await json<{ data: { week_end: string; week_start: string; value: number; total_units: number | null }[]; total: number; page: number; per_page: number; last_page: number }>(
      await api(`/v2/weekly-reports?plan_id=${w.plan.id}`, { token: t.view }),
    );
    expect(list.data.map((r) => [r.week_start, r.week_end, r.value, r.total_units])).toEqual([
      ["2026-01-04", "2026-01-10", 4, 80],
      ["2026-01-11", "2026-01-17", 5, null],
      ["2026-02-01", "2026-02-07", 2, null],
    ]);
    expect(list).toMatchObject({ total: 3, page: 1, per_page: 500, last_page: 1 });
    const ranged = await json<{ data: { week_end: string }[] }>(await api(`/v2/weekly-reports?plan_id=${w.plan.id}&date_start=2026-01-11&date_end=2026-01-31`, { token: t.view }));
    expect(ranged.data.map((r) => r.week_end)).toEqual(["2026-01-17"]);
    const searched = await json<{ data: { week_end: string }[] }>(await api(`/v2/weekly-reports?plan_id=${w.plan.id}&search=2026-02`, { token: t.view }));
    expect(searched.data.map((r) => r.week_end)).toEqual(["2026-02-07"]);
    const paged = await json<{ data: { week_end: string }[]; last_page: number }>(await api(`/v2/weekly-reports?plan_id=${w.plan.id}&per_page=2&page=2`, { token: t.view }));
    expect(paged).toMatchObject({ data: [{ week_end: "2026-02-07" }], last_page: 2 });
    const byBip = await json<{ data: { plan_id: number; value: number }[] }>(await api(`/v2/weekly-reports?bip_id=${w.bip.id}&date_end=2026-01-10`, { token: t.view }));
    expect(byBip.data.map((r) => [r.plan_id, r.value]).sort((a, b) => a[0]! - b[0]!)).toEqual([
      [w.plan.id, 4],
      [second.id, 50],
    ]);
  });

  it("list: plan_id or bip_id required, per_page at most 2500, another location's filter lists nothing, no view_bips 403", async () => {
    const w = await world();
    const t = await tokens(w);
    const missing = await api("/v2/weekly-reports", { token: t.view });
    expect(missing.status).toBe(422);
    expect((await json<{ errors: Record<string, string> }>(missing)).errors.plan_id).toBe("plan_id or bip_id is required.");
    expect((await api(`/v2/weekly-reports?plan_id=${w.plan.id}&per_page=2500`, { token: t.view })).status).toBe(200);
    expect((await api(`/v2/weekly-reports?plan_id=${w.plan.id}&per_page=2501`, { token: t.view })).status).toBe(422);
    // −1 is a whole number: it gets the message 0 gets (probe 8952 #7).
    for (const perPage of ["0", "-1"]) {
      const low = await api(`/v2/weekly-reports?plan_id=${w.plan.id}&per_page=${perPage}`, { token: t.view });
      expect(low.status).toBe(422);
      expect((await json<{ errors: Record<string, string> }>(low)).errors.per_page).toBe("per_page must be at least 1.");
    }
    expect((await api(`/v2/weekly-reports?plan_id=${w.plan.id}&date_start=2026-03-01&date_end=2026-01-01`, { token: t.view })).status).toBe(422);
    // Another location's goal or BIP filter lists nothing (decision 017).
    for (const q of [`plan_id=${w.otherPlan.id}`, `bip_id=${w.otherPlan.bipId}`, `plan_id=${w.plan.id}&bip_id=${w.otherPlan.bipId}`]) {
      expect(await json(await api(`/v2/weekly-reports?${q}`, { token: t.view })), q).toMatchObject({ data: [], total: 0 });
    }
    expect((await api(`/v2/weekly-reports?plan_id=${w.plan.id}`, { token: t.none })).status).toBe(403);
  });

  it("a cached list (cache=true) is renewed by a write", async () => {
    const w = await world();
    const t = await tokens(w);
    const path = `/v2/weekly-reports?plan_id=${w.plan.id}&cache=true`;
    expect((await json<{ total: number }>(await api(path, { token: t.manage }))).total).toBe(0);
    expect((await api("/v2/weekly-reports", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, week_end: "2026-01-10", value: 1 } })).status).toBe(201);
    expect((await json<{ total: number }>(await api(path, { token: t.manage }))).total).toBe(1);
  });

  it("show: 200 in scope, 404 for another location's report, 403 without view_bips", async () => {
    const w = await world();
    const t = await tokens(w);
    const mine = await createWeeklyReport(w.plan, "2026-01-10", 3);
    const theirs = await createWeeklyReport(w.otherPlan, "2026-01-10", 3);
    const res = await api(`/v2/weekly-reports/${mine.id}`, { token: t.view });
    expect(res.status).toBe(200);
    expect((await json<{ data: unknown }>(res)).data).toMatchObject({ id: mine.id, plan_id: w.plan.id, week_end: "2026-01-10", value: 3 });
    expect((await api(`/v2/weekly-reports/${theirs.id}`, { token: t.view })).status).toBe(404);
    expect((await api("/v2/weekly-reports/999999", { token: t.view })).status).toBe(404);
    expect((await api(`/v2/weekly-reports/${mine.id}`, { token: t.none })).status).toBe(403);
  });

  it("create: 201 with the message, week_start computed, audited with the client in the same batch, plan touched", async () => {
    const w = await world();
    const t = await tokens(w);
    await db().update(plans).set({ updatedAt: "2000-01-01T00:00:00.000Z" }).where(eq(plans.id, w.plan.id));
    const res = await api("/v2/weekly-reports", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, week_start: "2026-01-04", week_end: "2026-01-10", value: 6, total_units: "" } });
    expect(res.status).toBe(201);
    const body = await json<{ data: { id: number; week_start: string; total_units: number | null }; message: string }>(res);
    expect(body.message).toBe("Weekly report added successfully");
    expect(body.data).toMatchObject({ week_start: "2026-01-04", total_units: null });
    const audit = await auditOf("weekly_report", body.data.id);
    expect(audit.map((a) => [a.action, a.patientId])).toEqual([["create", w.patient.id]]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
    const [plan] = await db().select().from(plans).where(eq(plans.id, w.plan.id));
    expect(plan!.updatedAt > "2000-01-01").toBe(true);
    expect(plan!.version).toBe(w.plan.version);
  });

  it("create: a viewer 403, another location's plan 422 at plan_id (decision 017); nothing written", async () => {
    const w = await world();
    const t = await tokens(w);
    const before = await counts();
    expect((await api("/v2/weekly-reports", { method: "POST", token: t.view, body: { plan_id: w.plan.id, week_end: "2026-01-10", value: 1 } })).status).toBe(403);
    expect((await api("/v2/weekly-reports", { method: "POST", token: t.manage, body: { plan_id: w.otherPlan.id, week_end: "2026-01-10", value: 1 } })).status).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it.each([
    [{ week_end: "2026-01-06" }, "week_end", W.saturday.text],
    [{ week_end: "2026-02-30" }, "week_end", W.saturday.text],
    [{ week_end: "" }, "week_end", W.missing.text],
    [{ value: "" }, "value", W.missing.text],
    [{ value: -1 }, "value", WEEKLY_REPORT_MESSAGES.valueMin],
    [{ value: "many" }, "value", WEEKLY_REPORT_MESSAGES.valueNumber],
    [{ value: "0x1A" }, "value", WEEKLY_REPORT_MESSAGES.valueNumber],
    [{ total_units: "1e2" }, "total_units", WEEKLY_REPORT_MESSAGES.totalUnitsNumber],
    [{ total_units: -8 }, "total_units", WEEKLY_REPORT_MESSAGES.totalUnitsMin],
    [{ week_start: "2026-01-03" }, "week_start", WEEKLY_REPORT_MESSAGES.weekStart],
    [{ plan_id: "" }, "plan_id", W.missing.text],
  ])("create refuses %j with 422 on %s and writes nothing", async (over, field, message) => {
    const w = await world();
    const t = await tokens(w);
    const before = await counts();
    const res = await api("/v2/weekly-reports", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, week_end: "2026-01-10", value: 2, ...over } });
    expect(res.status).toBe(422);
    const body = await json<{ message: string; errors: Record<string, string> }>(res);
    expect(body.errors[field]).toBe(message);
    expect(body.message).toBe(Object.values(body.errors)[0]);
    expect(await counts()).toEqual(before);
  });

  it("a week that already has a report answers 409 with the report as it is, and nothing changes", async () => {
    const w = await world();
    const t = await tokens(w);
    const existing = await createWeeklyReport(w.plan, "2026-01-10", 3);
    const before = await counts();
    const res = await api("/v2/weekly-reports", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, week_end: "2026-01-10", value: 7 } });
    expect(res.status).toBe(409);
    const body = await json<{ message: string; current: { id: number; value: number } }>(res);
    expect(body.message).toBe(WEEKLY_REPORT_MESSAGES.duplicate("2026-01-10"));
    expect(body.message).toContain("01/10/2026 already exists");
    expect(body.current).toMatchObject({ id: existing.id, value: 3 });
    expect(await counts()).toEqual(before);
    // The same week on another plan is fine.
    const second = await createPlan(w.bip);
    expect((await api("/v2/weekly-reports", { method: "POST", token: t.manage, body: { plan_id: second.id, week_end: "2026-01-10", value: 7 } })).status).toBe(201);
  });

  it("update: PUT answers status success and 'Value updated successfully'; PATCH keeps what is not sent; week and plan are read-only; stale version 409", async () => {
    const w = await world();
    const t = await tokens(w);
    const r = await createWeeklyReport(w.plan, "2026-01-10", 3, 40);
    const put = await api(`/v2/weekly-reports/${r.id}`, { method: "PUT", token: t.manage, body: { id: r.id, plan_id: w.plan.id, week_start: "2026-01-04", week_end: "2026-01-10", value: 5, total_units: 20 } });
    expect(put.status).toBe(200);
    expect(await json(put)).toMatchObject({ status: "success", message: "Value updated successfully", data: { id: r.id, value: 5, total_units: 20, version: 2 } });
    const patch = await api(`/v2/weekly-reports/${r.id}`, { method: "PATCH", token: t.manage, body: { value: 8 } });
    expect(await json(patch)).toMatchObject({ status: "success", data: { value: 8, total_units: 20, version: 3 } });
    const full = await api(`/v2/weekly-reports/${r.id}`, { method: "PUT", token: t.manage, body: { value: 8 } });
    expect(await json(full)).toMatchObject({ data: { value: 8, total_units: null } });

    const before = await counts();
    for (const [body, field, message] of [
      [{ value: 1, week_end: "2026-01-17" }, "week_end", WEEKLY_REPORT_MESSAGES.weekEndReadOnly],
      [{ value: 1, plan_id: w.otherPlan.id }, "plan_id", WEEKLY_REPORT_MESSAGES.planReadOnly],
      [{ value: -3 }, "value", WEEKLY_REPORT_MESSAGES.valueMin],
      [{ total_units: 4 }, "value", W.missing.text],
    ] as const) {
      const res = await api(`/v2/weekly-reports/${r.id}`, { method: "PUT", token: t.manage, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect((await json<{ errors: Record<string, string> }>(res)).errors[field]).toBe(message);
    }
    const stale = await api(`/v2/weekly-reports/${r.id}`, { method: "PUT", token: t.manage, body: { value: 1, version: 1 } });
    expect(stale.status).toBe(409);
    expect((await json<{ current: { value: number } }>(stale)).current.value).toBe(8);
    expect(await counts()).toEqual(before);
    // The stale answer carries the stored report: an audited read of the client's data.
    expect((await auditOf("weekly_report", r.id)).map((a) => [a.action, a.patientId])).toEqual([
      ["update", w.patient.id],
      ["update", w.patient.id],
      ["update", w.patient.id],
      ["read", w.patient.id],
    ]);
  });

  it("update and delete: 404 for another location's report, 403 for a viewer", async () => {
    const w = await world();
    const t = await tokens(w);
    const theirs = await createWeeklyReport(w.otherPlan, "2026-01-10", 3);
    const mine = await createWeeklyReport(w.plan, "2026-01-10", 3);
    expect((await api(`/v2/weekly-reports/${theirs.id}`, { method: "PUT", token: t.manage, body: { value: 1 } })).status).toBe(404);
    expect((await api(`/v2/weekly-reports/${theirs.id}`, { method: "DELETE", token: t.manage })).status).toBe(404);
    expect((await api(`/v2/weekly-reports/${mine.id}`, { method: "PATCH", token: t.view, body: { value: 1 } })).status).toBe(403);
    expect((await api(`/v2/weekly-reports/${mine.id}`, { method: "DELETE", token: t.view })).status).toBe(403);
    expect((await reportsOf(w.otherPlan.id))[0]!.value).toBe(3);
    expect(await reportsOf(w.plan.id)).toHaveLength(1);
  });

  it("delete: a hard delete with its audit row", async () => {
    const w = await world();
    const t = await tokens(w);
    const r = await createWeeklyReport(w.plan, "2026-01-10", 3);
    const res = await api(`/v2/weekly-reports/${r.id}`, { method: "DELETE", token: t.manage });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ message: "Weekly report deleted successfully" });
    expect(await reportsOf(w.plan.id)).toEqual([]);
    expect((await auditOf("weekly_report", r.id)).map((a) => [a.action, a.patientId])).toEqual([["delete", w.patient.id]]);
    expect((await api(`/v2/weekly-reports/${r.id}`, { method: "DELETE", token: t.manage })).status).toBe(404);
  });

  it("other methods answer 405 'Unsupported HTTP method'", async () => {
    const w = await world();
    const t = await tokens(w);
    for (const [method, path] of [
      ["PUT", "/v2/weekly-reports"],
      ["DELETE", "/v2/weekly-reports"],
      ["POST", "/v2/weekly-reports/1"],
      ["PUT", "/v2/chart-comments"],
    ] as const) {
      const res = await api(path, { method, token: t.manage, body: {} });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect((await json<{ message: string }>(res)).message).toBe("Unsupported HTTP method");
    }
  });
});

/* ------------------------------------------------------------------ API: chart comments */

describe("/api/v2/chart-comments", () => {
  it("lists by plan or BIP with dates and search; another location's lists nothing; 403 without view_bips", async () => {
    const w = await world();
    const t = await tokens(w);
    await createChartComment(w.plan, "2026-01-14", "New medication");
    await createChartComment(w.plan, "2026-01-07", "Sick week");
    await createChartComment(w.plan, "2026-02-02", "Medication stopped");
    await createChartComment(w.otherPlan, "2026-01-07", "Not yours");
    const all = await json<{ data: { comment_date: string; comment: string }[]; total: number }>(await api(`/v2/chart-comments?plan_id=${w.plan.id}`, { token: t.view }));
    expect(all.data.map((c) => c.comment)).toEqual(["Sick week", "New medication", "Medication stopped"]);
    const found = await json<{ data: { comment: string }[] }>(await api(`/v2/chart-comments?bip_id=${w.bip.id}&search=medication&date_end=2026-01-31`, { token: t.view }));
    expect(found.data.map((c) => c.comment)).toEqual(["New medication"]);
    expect(await json(await api(`/v2/chart-comments?plan_id=${w.otherPlan.id}`, { token: t.view }))).toMatchObject({ data: [], total: 0 });
    expect((await api(`/v2/chart-comments?plan_id=${w.plan.id}`, { token: t.none })).status).toBe(403);
  });

  it("create (trimmed), update, delete, each audited with the client; a viewer 403; other location 404", async () => {
    const w = await world();
    const t = await tokens(w);
    const res = await api("/v2/chart-comments", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, comment_date: "2026-01-07", comment: "  Started new school  " } });
    expect(res.status).toBe(201);
    const created = await json<{ data: { id: number; comment: string }; message: string }>(res);
    expect(created).toMatchObject({ message: "Comment added successfully", data: { comment: "Started new school" } });
    const id = created.data.id;
    const upd = await api(`/v2/chart-comments/${id}`, { method: "PUT", token: t.manage, body: { plan_id: w.plan.id, comment_date: "2026-01-08", comment: "Started a new school" } });
    expect(await json(upd)).toMatchObject({ message: "Comment updated successfully", data: { comment_date: "2026-01-08", comment: "Started a new school" } });
    const patched = await api(`/v2/chart-comments/${id}`, { method: "PATCH", token: t.manage, body: { comment: "School change" } });
    expect(await json(patched)).toMatchObject({ data: { comment_date: "2026-01-08", comment: "School change" } });
    expect((await api(`/v2/chart-comments/${id}`, { method: "DELETE", token: t.view })).status).toBe(403);
    const del = await api(`/v2/chart-comments/${id}`, { method: "DELETE", token: t.manage });
    expect(await json(del)).toEqual({ message: "Comment deleted successfully" });
    expect((await auditOf("chart_comment", id)).map((a) => [a.action, a.patientId])).toEqual([
      ["create", w.patient.id],
      ["update", w.patient.id],
      ["update", w.patient.id],
      ["delete", w.patient.id],
    ]);
    const theirs = await createChartComment(w.otherPlan, "2026-01-07", "Not yours");
    expect((await api(`/v2/chart-comments/${theirs.id}`, { token: t.view })).status).toBe(404);
    expect((await api(`/v2/chart-comments/${theirs.id}`, { method: "PATCH", token: t.manage, body: { comment: "x" } })).status).toBe(404);
    expect((await api("/v2/chart-comments", { method: "POST", token: t.manage, body: { plan_id: w.otherPlan.id, comment_date: "2026-01-07", comment: "x" } })).status).toBe(422);
  });

  it.each([
    [{ comment: "x".repeat(51) }, { comment: C.invalid.text }],
    [{ comment: "   " }, { comment: C.commentRequired.text }],
    [{ comment_date: "" }, { comment_date: C.dateRequired.text }],
    [{ comment_date: "", comment: "" }, { comment_date: C.missing.text, comment: C.missing.text }],
    [{ comment_date: "2026-02-30" }, { comment_date: C.invalid.text }],
  ])("create refuses %j with 422 and writes nothing", async (over, errors) => {
    const w = await world();
    const t = await tokens(w);
    const before = await counts();
    const res = await api("/v2/chart-comments", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, comment_date: "2026-01-07", comment: "ok", ...over } });
    expect(res.status).toBe(422);
    expect((await json<{ errors: Record<string, string> }>(res)).errors).toEqual(errors);
    expect(await counts()).toEqual(before);
  });

  it("a changed row that is not valid is 'Invalid Comment' and nothing changes", async () => {
    const w = await world();
    const t = await tokens(w);
    const c = await createChartComment(w.plan, "2026-01-07", "Sick week");
    const before = await counts();
    for (const body of [{ comment_date: "2026-01-07", comment: "x".repeat(51) }, { comment_date: "", comment: "ok" }, { comment_date: "2026-01-07", comment: " " }]) {
      const res = await api(`/v2/chart-comments/${c.id}`, { method: "PUT", token: t.manage, body });
      expect(res.status).toBe(422);
      expect((await json<{ message: string }>(res)).message).toBe(C.invalid.text);
    }
    expect(await counts()).toEqual(before);
    const [row] = await db().select().from(chartComments).where(eq(chartComments.id, c.id));
    expect(row!.comment).toBe("Sick week");
  });
});

/* ------------------------------------------------------------------ API: .xlsx check and import */

/** A workbook whose first sheet unpacks to just over the per-part limit, made once (it is slow to deflate). */
let bomb: Uint8Array | undefined;
function zipBomb(): Uint8Array {
  bomb ??= zipSync({ "xl/workbook.xml": strToU8("<workbook/>"), "xl/worksheets/sheet1.xml": new Uint8Array(MAX_UNZIPPED_BYTES + 1) }, { level: 9 });
  expect(bomb.length).toBeLessThan(IMPORT_MAX_BYTES / 10);
  return bomb;
}

describe("check-excel and import-data", () => {
  const sheet = () =>
    weeklySheet([
      [{ date: "2026-01-10" }, 4, 80], // valid
      ["01/17/2026", 5, null], // exists: would overwrite
      ["2026-01-20", 3, 8], // a Tuesday
      [{ date: "2026-01-24" }, -2, null], // negative
      ["2026-01-31", 0, ""], // valid
    ]);

  it("check-excel answers every row: valid, invalid with the rule's message, or would overwrite; nothing is written", async () => {
    const w = await world();
    const t = await tokens(w);
    await createWeeklyReport(w.plan, "2026-01-17", 9);
    const before = await counts();
    const res = await upload("/v2/weekly-reports/check-excel", t.manage, { plan_id: String(w.plan.id) }, sheet());
    expect(res.status).toBe(200);
    const body = await json<{ data: { valid: number; invalid: number; overwrite: number; rows: { row: number; week_end: string | null; status: string; reason: string | null; current_value: number | null }[] } }>(res);
    expect(body.data).toMatchObject({ valid: 2, invalid: 2, overwrite: 1 });
    expect(body.data.rows.map((r) => [r.row, r.week_end, r.status, r.reason, r.current_value])).toEqual([
      [2, "2026-01-10", "valid", null, null],
      [3, "2026-01-17", "overwrite", null, 9],
      [4, "2026-01-20", "invalid", W.saturday.text, null],
      [5, "2026-01-24", "invalid", WEEKLY_REPORT_MESSAGES.valueMin, null],
      [6, "2026-01-31", "valid", null, null],
    ]);
    expect(await counts()).toEqual(before);
  });

  it("import-data imports the valid rows in one batch and skips existing weeks; force_update=true overwrites them", async () => {
    const w = await world();
    const t = await tokens(w);
    await createWeeklyReport(w.plan, "2026-01-17", 9);
    const first = await upload("/v2/weekly-reports/import-data", t.manage, { plan_id: String(w.plan.id) }, sheet());
    expect(first.status).toBe(200);
    const done = await json<{ message: string; data: { imported: number; overwritten: number; skipped: number; invalid: number } }>(first);
    expect(done.data).toMatchObject({ imported: 2, overwritten: 0, skipped: 1, invalid: 2 });
    expect(done.message).toMatch(/^Imported 2 weeks; skipped 1 week that already had a report .*; left out 2 invalid rows\.$/);
    expect((await reportsOf(w.plan.id)).map((r) => [r.weekStart, r.weekEnd, r.value, r.totalUnits])).toEqual([
      ["2026-01-04", "2026-01-10", 4, 80],
      ["2026-01-11", "2026-01-17", 9, null],
      ["2026-01-25", "2026-01-31", 0, null],
    ]);
    const audit = await auditOf("plan", w.plan.id);
    // The check's read of the stored weeks, then the import itself (decision 029, stop 36).
    expect(audit.map((a) => [a.action, a.patientId])).toEqual([["read", w.patient.id], ["import_weekly_reports", w.patient.id]]);

    const forced = await upload("/v2/weekly-reports/import-data?force_update=true", t.manage, { plan_id: String(w.plan.id) }, sheet());
    // Weeks that already hold the row's value and units are left as they are (decision 029, stop 36): no new version.
    expect((await json<{ data: { imported: number; overwritten: number; skipped: number; unchanged: number } }>(forced)).data).toMatchObject({ imported: 0, overwritten: 1, skipped: 0, unchanged: 2 });
    const after = await reportsOf(w.plan.id);
    expect(after.map((r) => [r.weekEnd, r.value, r.version])).toEqual([
      ["2026-01-10", 4, 1],
      ["2026-01-17", 5, 2],
      ["2026-01-31", 0, 1],
    ]);
    const alsoForm = await upload("/v2/weekly-reports/import-data", t.manage, { plan_id: String(w.plan.id), force_update: "true" }, weeklySheet([["2026-01-10", 11]]));
    expect((await json<{ data: { overwritten: number } }>(alsoForm)).data.overwritten).toBe(1);
    expect((await reportsOf(w.plan.id))[0]!.value).toBe(11);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  const refusals: [string, () => Uint8Array | string | undefined, number, string][] = [
    ["a CSV file", () => "Week Ending,Value\n2026-01-10,3\n", 422, IMPORT_MESSAGES.notXlsx],
    ["no file", () => undefined, 422, IMPORT_MESSAGES.noFile],
    ["a sheet without the header", () => xlsxFile([["Date of week", "Amount"], ["2026-01-10", 3]]), 422, IMPORT_MESSAGES.noHeader],
    ["a file over 1 MB", () => new Uint8Array(IMPORT_MAX_BYTES + 1), 413, IMPORT_MESSAGES.tooLarge],
    // A small upload whose sheet unpacks past the reader's limit is not told it is over 1 MB (probe 8883 #6).
    ["a small zip bomb", zipBomb, 413, IMPORT_MESSAGES.contentsTooLarge],
  ];
  it.each(refusals)("refuses %s (%#) and writes nothing", async (_what, file, status, message) => {
    const w = await world();
    const t = await tokens(w);
    const before = await counts();
    for (const path of ["/v2/weekly-reports/check-excel", "/v2/weekly-reports/import-data"]) {
      const res = await upload(path, t.manage, { plan_id: String(w.plan.id) }, file());
      expect(res.status, path).toBe(status);
      expect((await json<{ message: string }>(res)).message).toBe(message);
    }
    expect(await counts()).toEqual(before);
  });

  it("a JSON body is refused with 422; another location's plan 422 at plan_id (decision 017); a viewer 403", async () => {
    const w = await world();
    const t = await tokens(w);
    const json422 = await api("/v2/weekly-reports/check-excel", { method: "POST", token: t.manage, body: { plan_id: w.plan.id } });
    expect(json422.status).toBe(422);
    expect((await upload("/v2/weekly-reports/check-excel", t.manage, { plan_id: String(w.otherPlan.id) }, sheet())).status).toBe(422);
    expect((await upload("/v2/weekly-reports/import-data", t.manage, { plan_id: String(w.otherPlan.id) }, sheet())).status).toBe(422);
    expect((await upload("/v2/weekly-reports/import-data", t.view, { plan_id: String(w.plan.id) }, sheet())).status).toBe(403);
    expect((await upload("/v2/weekly-reports/check-excel", null, { plan_id: String(w.plan.id) }, sheet())).status).toBe(401);
    expect(await reportsOf(w.otherPlan.id)).toEqual([]);
    expect(await reportsOf(w.plan.id)).toEqual([]);
  });
});

/* ------------------------------------------------------------------ chart inputs */

/** A model context over a D1 binding that counts the statements prepared. */
function countingContext(locationIds: number[]): { ctx: ModelContext; statements: () => number } {
  let n = 0;
  const binding = env.DB;
  const counted = new Proxy(binding, {
    get(target, key) {
      if (key === "prepare") return (query: string) => (n++, target.prepare(query));
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const actor = { kind: "user", id: 1, name: "T", surname: "U", email: "t@u", roles: [], permissions: ["view_bips"], locationIds, locationId: locationIds[0] ?? null, timeZone: null, avatar: null, status: "active" } as unknown as Actor;
  return { ctx: { db: d1Database(counted), actor, ip: "127.0.0.1", now: () => new Date() }, statements: () => n };
}

describe("chart inputs", () => {
  const chartInputsForPlans = async (ctx: ModelContext, ids: number[], range: ChartRange) => chartInputsFrom(await chartInputsQuery(ctx, ids, range), range);
  const editorRows = async (ctx: ModelContext, plan: PlanInScope, range: ChartRange) => editorRowsFrom(await editorRowsQuery(ctx, plan, range, { reports: null, comments: 1, week: null }));

  it("reads every plan's objectives, reports and comments in the window in one statement", async () => {
    const w = await world();
    const second = await createPlan(w.bip, { name: "Manding", category: "replacement", baselineDate: "2025-12-27", baselineLevel: 10, timeframe: null, unitType: null });
    await createObjective(w.plan, { type: "LTO", position: 3, target: 1, endDate: "2026-12-26", name: "Long term" });
    await createObjective(w.plan, { type: "STO", position: 1, target: 5, endDate: "2026-03-28", status: "in progress", initialDate: "2026-01-03" });
    const gone = await createObjective(w.plan, { type: "STO", position: 2, target: 3 });
    await db().update(objectivesTable).set({ deletedAt: "2026-01-01T00:00:00Z" }).where(eq(objectivesTable.id, gone.id));
    await createWeeklyReport(w.plan, "2026-01-17", 5.5, 40);
    await createWeeklyReport(w.plan, "2026-01-10", 7);
    await createWeeklyReport(w.plan, "2025-12-27", 9);
    await createChartComment(w.plan, "2026-01-12", "New RBT");
    await createChartComment(w.plan, "2025-12-20", "Before the window");
    await createWeeklyReport(second, "2026-01-10", 60);
    const { ctx, statements } = countingContext([w.loc.id]);
    const inputs = await chartInputsForPlans(ctx, [w.plan.id, second.id, 999_999, w.plan.id], { from: "2026-01-01", to: "2026-01-31" });
    expect(statements()).toBe(1);
    expect([...inputs.keys()].sort((a, b) => a - b)).toEqual([w.plan.id, second.id]);
    const first = inputs.get(w.plan.id)!;
    expect(first.plan).toEqual({ name: "Physical aggression", category: "maladaptive", baselineDate: null, baselineLevel: null, unitType: "occurrences", timeframe: "per_week" });
    expect(first.objectives.map((o) => [o.type, o.position, o.target, o.endDate])).toEqual([
      ["STO", 1, 5, "2026-03-28"],
      ["LTO", 3, 1, "2026-12-26"],
    ]);
    expect(first.objectives[0]).toMatchObject({ status: "in progress", initialDate: "2026-01-03", name: null });
    expect(first.reports).toEqual([
      { weekEnd: "2026-01-10", value: 7, totalUnits: null },
      { weekEnd: "2026-01-17", value: 5.5, totalUnits: 40 },
    ]);
    expect(first.comments.map((c) => [c.commentDate, c.comment])).toEqual([["2026-01-12", "New RBT"]]);
    expect([first.from, first.to]).toEqual(["2026-01-01", "2026-01-31"]);
    expect(inputs.get(second.id)).toMatchObject({ plan: { category: "replacement", baselineLevel: 10, baselineDate: "2025-12-27" }, objectives: [], reports: [{ weekEnd: "2026-01-10", value: 60, totalUnits: null }], comments: [] });
    const all = await chartInputsForPlans(ctx, [w.plan.id], {});
    expect(all.get(w.plan.id)!.reports.map((r) => r.weekEnd)).toEqual(["2025-12-27", "2026-01-10", "2026-01-17"]);
    expect(await chartInputsForPlans(ctx, [], {})).toEqual(new Map());
  });

  it("a BIP profile charts its active maladaptive and replacement goals only", async () => {
    const w = await world();
    const replacement = await createPlan(w.bip, { name: "Manding", category: "replacement" });
    const paused = await createPlan(w.bip, { name: "Elopement", category: "maladaptive" });
    await db().update(plans).set({ status: "inactive" }).where(eq(plans.id, paused.id));
    await createPlan(w.bip, { name: "Caregiver fidelity", category: "caregiver_training" });
    await createWeeklyReport(replacement, "2026-01-10", 60);
    const { ctx } = countingContext([w.loc.id]);
    const range = { from: "2026-01-01" };
    const inputs = chartInputsFrom(await profileChartsQuery(ctx, w.bip.id, range), range);
    expect([...inputs.keys()].sort((a, b) => a - b)).toEqual([w.plan.id, replacement.id]);
    expect(inputs.get(replacement.id)!.reports).toEqual([{ weekEnd: "2026-01-10", value: 60, totalUnits: null }]);
  });

  it("editor rows: one statement, ids and versions in date order", async () => {
    const w = await world();
    const b = await createWeeklyReport(w.plan, "2026-01-17", 2);
    const a = await createWeeklyReport(w.plan, "2026-01-10", 1, 8);
    const c = await createChartComment(w.plan, "2026-01-12", "Flu");
    await createWeeklyReport(w.otherPlan, "2026-01-10", 1);
    const { ctx, statements } = countingContext([w.loc.id]);
    const plan = (await findPlanInScope(ctx, w.plan.id))!;
    const before = statements();
    const rows = await editorRows(ctx, plan, {});
    expect(statements() - before).toBe(1);
    expect(rows.reports).toEqual([
      { id: a.id, week_end: "2026-01-10", value: 1, total_units: 8, version: 1 },
      { id: b.id, week_end: "2026-01-17", value: 2, total_units: null, version: 1 },
    ]);
    expect(rows.comments).toEqual([{ id: c.id, comment_date: "2026-01-12", comment: "Flu", version: 1 }]);
    expect((await editorRows(ctx, plan, { from: "2026-01-11" })).reports.map((r) => r.id)).toEqual([b.id]);
  });
});

/* ------------------------------------------------------------------ the goal screen, JavaScript off */

describe("goal screen /bip/goal/:planId", () => {
  it("shows the client, the goal, the chart and the objectives with a badge; the From/To form narrows the chart", async () => {
    const w = await world();
    await createObjective(w.plan, { type: "STO", name: "Fewer than five a week", target: 5, endDate: "2026-06-27", status: "in progress" });
    await createWeeklyReport(w.plan, "2026-01-10", 2);
    await createWeeklyReport(w.plan, "2026-02-07", 8);
    await createWeeklyReport(w.plan, "2026-03-07", 4);
    await createChartComment(w.plan, "2026-01-07", "Sick week");
    const cookie = await signInCookie(w.viewer);
    const res = await request(`/bip/goal/${w.plan.id}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Physical aggression");
    expect(html).toContain("Mia Lopez");
    expect(html).toContain("Maladaptive behaviors");
    expect(html).toContain(`href="/bip/profile/${w.bip.id}"`);
    expect(html).toContain("Target Behavior to Decrease");
    expect(html).toContain("Sick week");
    expect(html).toContain("03/07/2026");
    expect(html).toContain("Fewer than five a week");
    expect(html).toMatch(/data-tone="success"[^>]*>4 vs 5/);
    // Opening the goal is a read of client data: one audit row with the client.
    expect((await auditOf("plan", w.plan.id)).map((a) => [a.action, a.patientId, a.actorId])).toEqual([["read", w.patient.id, w.viewer.id]]);
    // A viewer sees no editing, even when asking for it.
    expect(html).not.toContain("Edit goal");
    const asked = await (await request(`/bip/goal/${w.plan.id}?edit=1`, { cookie })).text();
    expect(asked).not.toContain("Add Weekly Report");
    const narrowed = await (await request(`/bip/goal/${w.plan.id}?from=2026-01-01&to=2026-01-31`, { cookie })).text();
    expect(narrowed).toContain("01/10/2026");
    expect(narrowed).not.toContain("03/07/2026");
    // Badge rule (clinical §9) for a behaviour to decrease, lower is better: 4 vs 5 is +20% (success),
    // 2 vs 5 is +60% (success, not "far behind"), 8 vs 5 is −60% (danger).
    expect(narrowed).toMatch(/data-tone="success"[^>]*>2 vs 5 · on track/);
    const february = await (await request(`/bip/goal/${w.plan.id}?from=2026-02-01&to=2026-02-28`, { cookie })).text();
    expect(february).toMatch(/data-tone="danger"[^>]*>8 vs 5 · far behind/);
    const bad = await (await request(`/bip/goal/${w.plan.id}?from=2026-03-01&to=2026-01-01`, { cookie })).text();
    expect(bad).toContain("To must be on or after From.");
  });

  it("a goal in seconds with values in the thousands and 26 comments on one day: a readable axis and a '+11 more' marker (probe 8983 M1, L5)", async () => {
    const w = await world();
    const plan = await createPlan(w.bip, { name: "Tantrum duration", unitType: "seconds" });
    for (let i = 0; i < 12; i++) await createWeeklyReport(plan, addDays("2026-09-05", 7 * i), 9100 - 400 * i);
    for (let i = 1; i <= 26; i++) await createChartComment(plan, "2026-10-10", `Comment ${i}`);
    const html = await (await request(`/bip/goal/${plan.id}?from=2026-08-01&to=2026-11-21`, { cookie: await signInCookie(w.viewer) })).text();
    const svg = html.slice(html.indexOf("<svg"), html.indexOf("</svg>"));
    const yLabels = [...svg.matchAll(/<text class="bc-yt"[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(yLabels).toEqual(["0", "1000", "2000", "3000", "4000", "5000", "6000", "7000", "8000", "9000"]);
    expect(svg).toContain(">Comment 15</text>");
    expect(svg).not.toContain(">Comment 16</text>");
    expect(svg).toContain(">+11 more</text>");
    expect(html).toContain("<td>Comment 26</td>"); // the chart data table lists every comment
    // The uPlot module draws the same model: its ticks and the capped stack come with it.
    const model = JSON.parse(/<script type="application\/json" data-chart-model="">(.*?)<\/script>/s.exec(html)![1]!) as { y: { ticks: number[] }; commentMore: { label: string }[] };
    expect(model.y.ticks).toHaveLength(10);
    expect(model.commentMore.map((m) => m.label)).toEqual(["+11 more"]);
  });

  it("403 without view_bips, 404 for another location's goal or a bad id", async () => {
    const w = await world();
    expect((await request(`/bip/goal/${w.plan.id}`, { cookie: await signInCookie(w.outsider) })).status).toBe(403);
    const cookie = await signInCookie(w.manager);
    expect((await request(`/bip/goal/${w.otherPlan.id}`, { cookie })).status).toBe(404);
    expect((await request(`/bip/goal/${w.otherPlan.id}?edit=1`, { cookie })).status).toBe(404);
    expect((await request("/bip/goal/abc", { cookie })).status).toBe(404);
  });

  it("edit mode: the four blocks, empty states, the units note and the counter", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const view = await (await request(`/bip/goal/${w.plan.id}`, { cookie })).text();
    expect(view).toContain(`href="/bip/goal/${w.plan.id}/edit"`);
    expect(view).toContain(`href="/bip/goal/${w.plan.id}?edit=1"`);
    expect(view).not.toContain("Add Weekly Report");
    const html = await (await request(`/bip/goal/${w.plan.id}?edit=1`, { cookie })).text();
    for (const text of ["Add Weekly Report", "Update Weekly Reports", "Add Comment", "Update Comments", "No Weekly Reports", "No Comments", "4 units = 1 hour", "0<!-- -->/<!-- -->50"]) {
      expect(html, text).toContain(text);
    }
    expect(html).toContain('maxLength="50"');
  });

  it("adds a Saturday (303, flash, the point on the chart); refuses a Tuesday with the spec's message and keeps the value; nothing written", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const path = `/bip/goal/${w.plan.id}?edit=1`;
    const before = await counts();
    const tuesday = await post(path, { intent: "add-report", week_end: "2026-01-13", value: "7", total_units: "12" }, cookie);
    expect(tuesday.status).toBe(422);
    const refused = await tuesday.text();
    expect(refused).toContain("Invalid Date Selection");
    expect(refused).toContain("Please select a Saturday for the weekly report date.");
    expect(refused).toContain('value="7"');
    expect(refused).toContain('value="12"');
    expect(refused).not.toContain('value="2026-01-13"'); // the date is cleared (clinical §5)
    expect(await counts()).toEqual(before);
    const missing = await post(path, { intent: "add-report", week_end: "2026-01-17", value: "" }, cookie);
    expect(missing.status).toBe(422);
    const missingHtml = await missing.text();
    expect(missingHtml).toContain("Required Fields Missing");
    expect(missingHtml).toContain("You must fill out all required fields before proceeding.");

    const added = await post(path, { intent: "add-report", week_end: "2026-01-17", value: "7", total_units: "" }, cookie);
    expect(added.status).toBe(303);
    const to = added.headers.get("Location")!;
    expect(withoutFlashTag(to)).toBe(`/bip/goal/${w.plan.id}?edit=1&flash=${encodeURIComponent("Weekly report added successfully")}`);
    const after = await (await request(to, { cookie })).text();
    expect(after).toContain("Add Weekly Report");
    expect(after).toContain("Weekly report added successfully");
    expect(after).toContain("01/17/2026");
    expect(after).not.toContain("No Weekly Reports");
    expect((await reportsOf(w.plan.id)).map((r) => [r.weekEnd, r.value, r.totalUnits])).toEqual([["2026-01-17", 7, null]]);

    const again = await post(path, { intent: "add-report", week_end: "2026-01-17", value: "3" }, cookie);
    expect(again.status).toBe(409);
    expect(await again.text()).toContain("already exists");
  });

  it("refuses a 51-character comment and keeps it; adds a 50-character one (trimmed)", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const path = `/bip/goal/${w.plan.id}?edit=1`;
    const long = "a".repeat(51);
    const before = await counts();
    const res = await post(path, { intent: "add-comment", comment_date: "2026-01-07", comment: long }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Invalid Comment");
    expect(html).toContain("Please provide a valid date and comment (max 50 characters).");
    expect(html).toContain(long);
    expect(await counts()).toEqual(before);
    const noDate = await (await post(path, { intent: "add-comment", comment_date: "", comment: "Sick" }, cookie)).text();
    expect(noDate).toContain("Comment Date Required");
    expect(noDate).toContain("Please select a comment date before saving.");
    const ok = await post(path, { intent: "add-comment", comment_date: "2026-01-07", comment: ` ${"b".repeat(50)} ` }, cookie);
    expect(ok.status).toBe(303);
    expect(decodeURIComponent(withoutFlashTag(ok.headers.get("Location"))!)).toContain("flash=Comment added successfully");
    const [c] = await db().select().from(chartComments).where(eq(chartComments.planId, w.plan.id));
    expect(c!.comment).toBe("b".repeat(50));
  });

  it("updates and deletes rows through the confirm step; a row of another goal is not found; a viewer 403", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const r = await createWeeklyReport(w.plan, "2026-01-10", 3);
    const c = await createChartComment(w.plan, "2026-01-07", "Sick week");
    const foreign = await createWeeklyReport(w.otherPlan, "2026-01-10", 3);
    const path = `/bip/goal/${w.plan.id}?edit=1`;

    const upd = await post(path, { intent: "update-report", report_id: String(r.id), version: "1", value: "6", total_units: "40" }, cookie);
    expect(upd.status).toBe(303);
    expect(decodeURIComponent(withoutFlashTag(upd.headers.get("Location"))!)).toContain("flash=Value updated successfully");
    const badUpd = await post(path, { intent: "update-report", report_id: String(r.id), version: "2", value: "-1" }, cookie);
    expect(badUpd.status).toBe(422);
    expect(await badUpd.text()).toContain(WEEKLY_REPORT_MESSAGES.valueMin);
    const badComment = await post(path, { intent: "update-comment", comment_id: String(c.id), version: "1", comment_date: "2026-01-07", comment: "z".repeat(51) }, cookie);
    expect(badComment.status).toBe(422);
    expect(await badComment.text()).toContain("Invalid Comment");
    expect((await post(path, { intent: "update-comment", comment_id: String(c.id), version: "1", comment_date: "2026-01-08", comment: "Flu" }, cookie)).status).toBe(303);

    const confirm = await (await request(`/bip/goal/${w.plan.id}?edit=1&confirm=delete-report-${r.id}`, { cookie })).text();
    expect(confirm).toContain("Are you sure you want to delete this weekly report");
    expect(confirm).toContain("This action cannot be undone.");
    expect(confirm).toContain("Yes, delete it");
    expect(confirm).toContain("Cancel");
    const confirmComment = await (await request(`/bip/goal/${w.plan.id}?edit=1&confirm=delete-comment-${c.id}`, { cookie })).text();
    expect(confirmComment).toContain("Are you sure you want to delete this comment?");

    expect((await post(path, { intent: "delete-report", report_id: String(foreign.id) }, cookie)).status).toBe(404);
    expect((await post(`/bip/goal/${w.otherPlan.id}?edit=1`, { intent: "delete-report", report_id: String(foreign.id) }, cookie)).status).toBe(404);
    const viewer = await signInCookie(w.viewer);
    expect((await post(path, { intent: "delete-report", report_id: String(r.id) }, viewer)).status).toBe(403);
    expect((await post(path, { intent: "add-report", week_end: "2026-01-17", value: "1" }, viewer)).status).toBe(403);

    const del = await post(`/bip/goal/${w.plan.id}?edit=1&confirm=delete-report-${r.id}`, { intent: "delete-report", report_id: String(r.id) }, cookie);
    expect(del.status).toBe(303);
    expect(withoutFlashTag(del.headers.get("Location"))).toBe(`/bip/goal/${w.plan.id}?edit=1&flash=${encodeURIComponent("Weekly report deleted successfully")}`);
    expect((await post(path, { intent: "delete-comment", comment_id: String(c.id) }, cookie)).status).toBe(303);
    expect(await reportsOf(w.plan.id)).toEqual([]);
    expect(await db().select().from(chartComments).where(eq(chartComments.planId, w.plan.id))).toEqual([]);
    expect((await reportsOf(w.otherPlan.id))[0]!.value).toBe(3);
    const html = await (await request(path, { cookie })).text();
    expect(html).toContain("No Weekly Reports");
    expect(html).toContain("No Comments");
  });

  it("import screen: upload → check table → import (overwrite on request); a viewer 403; another location 404", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    await createWeeklyReport(w.plan, "2026-01-10", 1);
    const path = `/bip/goal/${w.plan.id}/import`;
    expect((await request(path, { cookie: await signInCookie(w.viewer) })).status).toBe(403);
    expect((await request(`/bip/goal/${w.otherPlan.id}/import`, { cookie })).status).toBe(404);
    const page = await (await request(path, { cookie })).text();
    expect(page).toMatch(/enctype="multipart\/form-data"/i);

    const form = new FormData();
    form.append("intent", "check");
    form.append("file", new Blob([weeklySheet([[{ date: "2026-01-10" }, 5], ["2026-01-17", 6, 40], ["2026-01-20", 2]]) as BlobPart]), "weeks.xlsx");
    const checked = await request(path, { method: "POST", body: form, cookie });
    expect(checked.status).toBe(200);
    const html = await checked.text();
    expect(html).toContain("Check of weeks.xlsx");
    expect(html).toContain("Week already has a report");
    expect(html).toContain(`Invalid: ${W.saturday.text}`);
    expect(html).toContain("Overwrite existing weeks");
    const carried = /name="file_b64" value="([^"]+)"/.exec(html)?.[1];
    expect(carried).toBeTruthy();
    expect(await reportsOf(w.plan.id)).toHaveLength(1);

    const imp = new FormData();
    imp.append("intent", "import");
    imp.append("file_name", "weeks.xlsx");
    imp.append("file_b64", carried!);
    imp.append("force_update", "true");
    const done = await request(path, { method: "POST", body: imp, cookie });
    expect(done.status).toBe(303);
    expect(decodeURIComponent(done.headers.get("Location")!)).toContain("Imported 1 week; overwrote 1 week; left out 1 invalid row.");
    expect((await reportsOf(w.plan.id)).map((r) => [r.weekEnd, r.value])).toEqual([
      ["2026-01-10", 5],
      ["2026-01-17", 6],
    ]);

    const notXlsx = new FormData();
    notXlsx.append("intent", "check");
    notXlsx.append("file", new Blob(["a,b"]), "weeks.csv");
    const refused = await request(path, { method: "POST", body: notXlsx, cookie });
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain("The file is not an .xlsx workbook.");
  });
});

describe("weekly data dates: not after the current week, not over ten years back (probe 8904 #2)", () => {
  // The product's week at the client's location (world() makes it America/New_York), as the models read it.
  const today = todayIn(new Date(), "America/New_York");
  const { earliest, latest } = weeklyDataRange(today);
  const M = WEEKLY_REPORT_MESSAGES;
  const firstSaturday = weekEndingOn(earliest);

  // [case, week_end, status, message at week_end]
  it.each<[string, string, number, string | null]>([
    ["the current week", latest, 201, null],
    ["last week", addDays(latest, -7), 201, null],
    ["next week", addDays(latest, 7), 422, M.weekAfterCurrent(latest)],
    ["a year typed wrong (next year)", addDays(latest, 7 * 52), 422, M.weekAfterCurrent(latest)],
    ["the oldest week allowed", firstSaturday, 201, null],
    ["the week before it", addDays(firstSaturday, -7), 422, M.weekTooOld(firstSaturday)],
    ["decades before the plan", "1999-01-02", 422, M.weekTooOld(firstSaturday)],
  ])("API weekly report for %s (%s) → %d", async (_label, weekEnd, status, message) => {
    const w = await world();
    const t = await tokens(w);
    const before = await counts();
    const res = await api("/v2/weekly-reports", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, week_end: weekEnd, value: 3 } });
    expect(res.status).toBe(status);
    if (message) {
      expect((await json<{ errors: Record<string, string> }>(res)).errors.week_end).toBe(message);
      expect(await counts()).toEqual(before);
    }
  });

  // [case, comment_date, status, message at comment_date]
  it.each<[string, string, number, string | null]>([
    ["today", today, 201, null],
    ["the end of the current week", latest, 201, null],
    ["the day after it", addDays(latest, 1), 422, M.commentAfterCurrent(latest)],
    ["two years ahead", addDays(latest, 730), 422, M.commentAfterCurrent(latest)],
    ["the earliest day allowed", earliest, 201, null],
    ["the day before it", addDays(earliest, -1), 422, M.commentTooOld(earliest)],
  ])("API chart comment dated %s (%s) → %d", async (_label, date, status, message) => {
    const w = await world();
    const t = await tokens(w);
    const before = await counts();
    const res = await api("/v2/chart-comments", { method: "POST", token: t.manage, body: { plan_id: w.plan.id, comment_date: date, comment: "Dated" } });
    expect(res.status).toBe(status);
    if (message) {
      expect((await json<{ errors: Record<string, string> }>(res)).errors.comment_date).toBe(message);
      expect(await counts()).toEqual(before);
    }
  });

  it("a comment's update: a new date after the current week is refused; a comment stored with one before the rule keeps it while its text changes", async () => {
    const w = await world();
    const t = await tokens(w);
    const ok = await createChartComment(w.plan, today, "Now");
    const moved = await api(`/v2/chart-comments/${ok.id}`, { method: "PATCH", token: t.manage, body: { comment_date: addDays(latest, 14) } });
    expect(moved.status).toBe(422);
    expect((await json<{ errors: Record<string, string> }>(moved)).errors.comment_date).toBe(M.commentAfterCurrent(latest));
    const put = await api(`/v2/chart-comments/${ok.id}`, { method: "PUT", token: t.manage, body: { comment_date: "1999-01-02", comment: "Now" } });
    expect(put.status).toBe(422);
    expect((await db().select().from(chartComments).where(eq(chartComments.id, ok.id)))[0]!.commentDate).toBe(today);
    const old = await createChartComment(w.plan, addDays(latest, 300), "Stored in the future");
    const text = await api(`/v2/chart-comments/${old.id}`, { method: "PATCH", token: t.manage, body: { comment: "Text fixed" } });
    expect(text.status).toBe(200);
    const fixed = await api(`/v2/chart-comments/${old.id}`, { method: "PATCH", token: t.manage, body: { comment_date: today } });
    expect(fixed.status).toBe(200);
  });

  // [intent, fields, the field, message]
  it.each<[string, Record<string, string>, string]>([
    ["add-report", { week_end: addDays(latest, 7 * 56), value: "0", total_units: "40" }, M.weekAfterCurrent(latest)],
    ["add-report", { week_end: "1999-01-02", value: "1" }, M.weekTooOld(firstSaturday)],
    ["add-comment", { comment_date: addDays(latest, 365), comment: "future comment" }, M.commentAfterCurrent(latest)],
  ])("the goal screen (no JavaScript): %s %j → 422 with the message, nothing written", async (intent, fields, message) => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const before = await counts();
    const res = await post(`/bip/goal/${w.plan.id}?edit=1`, { intent, ...fields }, cookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain(message.replace(/'/g, "&#x27;"));
    expect(await counts()).toEqual(before);
  });

  it("the goal screen's comment row update refuses a date after the current week", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const c = await createChartComment(w.plan, today, "Row");
    const res = await post(`/bip/goal/${w.plan.id}?edit=1`, { intent: "update-comment", comment_id: String(c.id), version: String(c.version), comment_date: addDays(latest, 7), comment: "Row" }, cookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain(M.commentAfterCurrent(latest));
    expect((await db().select().from(chartComments).where(eq(chartComments.id, c.id)))[0]!.commentDate).toBe(today);
  });

  it("check-excel marks weeks after the current one and over ten years back invalid; import-data leaves them out", async () => {
    const w = await world();
    const t = await tokens(w);
    const sheet = weeklySheet([
      [latest, 4, null],
      [addDays(latest, 7), 5, null],
      ["1999-01-02", 6, null],
    ]);
    const res = await upload("/v2/weekly-reports/check-excel", t.manage, { plan_id: String(w.plan.id) }, sheet);
    const body = await json<{ data: { rows: { week_end: string | null; status: string; reason: string | null }[] } }>(res);
    expect(body.data.rows.map((r) => [r.week_end, r.status, r.reason])).toEqual([
      [latest, "valid", null],
      [addDays(latest, 7), "invalid", M.weekAfterCurrent(latest)],
      ["1999-01-02", "invalid", M.weekTooOld(firstSaturday)],
    ]);
    expect((await upload("/v2/weekly-reports/import-data", t.manage, { plan_id: String(w.plan.id) }, sheet)).status).toBe(200);
    expect((await reportsOf(w.plan.id)).map((r) => r.weekEnd)).toEqual([latest]);
  });

  it("weeks stored in the future (before the rule) drive neither the 'latest vs target' badge nor hide a goal from the stale list", async () => {
    const w = await world();
    await createObjective(w.plan, { type: "STO", position: 1, target: 10, name: "Fewer" });
    const lastWeek = addDays(latest, -7);
    await createWeeklyReport(w.plan, lastWeek, 5);
    await createWeeklyReport(w.plan, addDays(latest, 7 * 56), 0);
    const cookie = await signInCookie(w.manager);
    const html = await (await request(`/bip/goal/${w.plan.id}`, { cookie })).text();
    expect(html).toContain(`Latest value 5 (week ending ${lastWeek})`);
    expect(html).not.toContain(`week ending ${addDays(latest, 7 * 56)})`);

    // A goal whose only report is a future week is listed as without recent data; one with the current week is not.
    const futureOnly = await createBip(w.patient);
    await createWeeklyReport(await createPlan(futureOnly, { name: "FutureOnly" }), addDays(latest, 7 * 56), 2);
    const current = await createBip(w.patient);
    await createWeeklyReport(await createPlan(current, { name: "Current" }), weekEndingOn(new Date().toISOString().slice(0, 10)), 2);
    const stale = (await (await request("/bip/attention?stale=1", { cookie })).text()).split('id="stale"')[1]!;
    expect(stale).toContain(`/bip/profile/${futureOnly.id}`);
    expect(stale).not.toContain(`/bip/profile/${current.id}`);
  });
});

/* ------------------------------------------------------------------ the editors' pages (probe 8952 #1) */

describe("the goal screen's editors page 500 rows, page 1 holding the newest (probe 8952 #1)", () => {
  const latest = weeklyDataRange(todayIn(new Date(), "America/New_York")).latest;
  const rowIds = (html: string, kind: "report" | "comment") => [...html.matchAll(new RegExp(`id="${kind}-(\\d+)-(?:value|text)"`, "g"))].map((m) => Number(m[1]));
  /** The pagers of a page (a failed match prints these, not the whole page with its chart). */
  const pagers = (html: string) => html.match(/<nav class="pagination"[^]*?<\/nav>/g)?.join("\n") ?? "no pager";
  const hrefWith = (html: string, part: string) => {
    const m = new RegExp(`href="([^"]*${part}[^"]*)"`).exec(html);
    expect(m, part).not.toBeNull();
    return m![1]!.replaceAll("&amp;", "&");
  };

  /** `n` weekly reports of the plan, one a week, the newest for the current week (ten years back makes 522). */
  async function weeks(planId: number, n: number) {
    await env.DB.prepare(
      "with recursive k(i) as (select 0 union all select i + 1 from k where i < ?2 - 1) insert into weekly_reports (plan_id, week_start, week_end, value) select ?1, date(?3, '-' || (i * 7 + 6) || ' days'), date(?3, '-' || (i * 7) || ' days'), i from k",
    )
      .bind(planId, n, latest)
      .run();
    return reportsOf(planId);
  }

  it("522 weeks: the default page shows the newest 500 (oldest first within it), the older 22 are one link away, and a change there comes back to that page", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const stored = await weeks(w.plan.id, 522);
    expect(stored.at(-1)!.weekEnd).toBe(latest);
    const html = await (await request(`/bip/goal/${w.plan.id}?edit=1`, { cookie })).text();
    // The newest 500 weeks, in date order; the current week is there.
    expect(rowIds(html, "report")).toEqual(stored.slice(22).map((r) => r.id));
    expect(pagers(html)).toContain("Showing 1 to 500 of 522 entries");
    expect(html).toContain("Page 1 holds the newest weeks");
    const older = await (await request(hrefWith(html, "reports_page=2"), { cookie })).text();
    expect(rowIds(older, "report")).toEqual(stored.slice(0, 22).map((r) => r.id));
    expect(pagers(older)).toContain("Showing 501 to 522 of 522 entries");
    // A row's delete step and a row saved on page 2 come back to page 2.
    const oldest = stored[0]!;
    expect(older).toContain(`href="/bip/goal/${w.plan.id}?edit=1&amp;reports_page=2&amp;confirm=delete-report-${oldest.id}"`);
    const saved = await post(`/bip/goal/${w.plan.id}?edit=1&reports_page=2`, { intent: "update-report", report_id: String(oldest.id), version: "1", value: "9" }, cookie);
    expect(saved.status).toBe(303);
    expect(saved.headers.get("Location")).toContain("reports_page=2");
    const after = await (await request(saved.headers.get("Location")!, { cookie })).text();
    expect(rowIds(after, "report")).toContain(oldest.id);
    expect(after).toContain(`id="report-${oldest.id}-value" form="report-${oldest.id}" name="value" type="number" min="0" step="any" required="" value="9"`);
  });

  it("a week that already has a report (409) links to the editor's page holding its row, the newest page or an older one", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const stored = await weeks(w.plan.id, 522);
    const before = await counts();
    for (const row of [stored.at(-1)!, stored[5]!]) {
      const res = await post(`/bip/goal/${w.plan.id}?edit=1`, { intent: "add-report", week_end: row.weekEnd, value: "50" }, cookie);
      expect(res.status).toBe(409);
      const html = await res.text();
      expect(html).toContain(WEEKLY_REPORT_MESSAGES.duplicate(row.weekEnd));
      const href = hrefWith(html, `week=${row.weekEnd}`);
      expect(href).toContain(`#report-${row.id}-value`);
      const page = await (await request(href.split("#")[0]!, { cookie })).text();
      expect(rowIds(page, "report"), row.weekEnd).toContain(row.id);
    }
    expect(await counts()).toEqual(before);
    // Every week's link opens a whole page (probe 8954 #1: a page of 2.04, or a 500, for all but the newest week).
    for (const row of [stored[0]!, stored[1]!, stored[21]!, stored[22]!, stored[300]!, stored.at(-2)!]) {
      const res = await request(`/bip/goal/${w.plan.id}?edit=1&week=${row.weekEnd}`, { cookie });
      expect(res.status, row.weekEnd).toBe(200);
      const page = await res.text();
      expect(rowIds(page, "report"), row.weekEnd).toContain(row.id);
      expect(pagers(page)).toContain(stored.indexOf(row) < 22 ? "Showing 501 to 522 of 522 entries" : "Showing 1 to 500 of 522 entries");
    }
    // Narrowed to a window without that week, the link leads to every date.
    const narrowed = await (await post(`/bip/goal/${w.plan.id}?edit=1&to=${stored[10]!.weekEnd}`, { intent: "add-report", week_end: latest, value: "50" }, cookie)).text();
    expect(hrefWith(narrowed, `week=${latest}`)).toBe(`/bip/goal/${w.plan.id}?edit=1&week=${latest}#report-${stored.at(-1)!.id}-value`);
  });

  it("comments page the same way: 501 comments show the newest 500 first, the oldest on page 2", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    await env.DB.prepare("with recursive k(i) as (select 0 union all select i + 1 from k where i < 500) insert into chart_comments (plan_id, comment_date, comment) select ?1, date(?2, '-' || i || ' days'), 'Day ' || i from k")
      .bind(w.plan.id, latest)
      .run();
    const stored = await db().select().from(chartComments).where(eq(chartComments.planId, w.plan.id)).orderBy(asc(chartComments.commentDate));
    const html = await (await request(`/bip/goal/${w.plan.id}?edit=1`, { cookie })).text();
    expect(rowIds(html, "comment")).toEqual(stored.slice(1).map((c) => c.id));
    expect(pagers(html)).toContain("Showing 1 to 500 of 501 entries");
    const older = await (await request(hrefWith(html, "comments_page=2"), { cookie })).text();
    expect(rowIds(older, "comment")).toEqual([stored[0]!.id]);
  });
});
