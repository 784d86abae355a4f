import { and, asc, eq, gt, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, weeklyReports } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { NOTHING_CHANGED_NOTICE, NOTHING_TO_CHANGE } from "~/models/results";
import { weeklySheet, xlsxFile } from "../support/xlsx";
import { apiToken, BASE, createBip, createLocation, createPatient, createPlan, createUser, createWeeklyReport, db, request, signInCookie } from "./helpers";
import { appFetch } from "./app-fetch";

/**
 * Weekly data written by the .xlsx import and the forms (decisions 009, 019, 029, stop 36): a column the sheet does not
 * carry keeps the stored value; the check's read of stored values is audited; a measurement is stored and shown to
 * 2 decimals, and an Update that changes nothing writes nothing.
 */
const MANAGE: Permission[] = ["view_bips", "manage_bips"];

async function world() {
  const loc = await createLocation();
  const patient = await createPatient({ locationId: loc.id });
  const bip = await createBip(patient);
  const plan = await createPlan(bip, { name: "Elopement", timeframe: "per_hour" });
  const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
  return { patient, plan, manager, token: await apiToken(manager), cookie: await signInCookie(manager) };
}

function upload(path: string, token: string, fields: Record<string, string>, file: Uint8Array) {
  const body = new FormData();
  for (const [k, v] of Object.entries(fields)) body.append(k, v);
  body.append("file", new Blob([file as BlobPart]), "weeks.xlsx");
  return appFetch(`${BASE}/api${path}`, { method: "POST", headers: { Accept: "application/json", Authorization: `Bearer ${token}` }, body });
}

async function stored(planId: number) {
  return db().select().from(weeklyReports).where(eq(weeklyReports.planId, planId)).orderBy(asc(weeklyReports.weekEnd));
}

async function lastAuditId() {
  const [row] = await db().select({ id: sql<number>`coalesce(max(${auditLog.id}), 0)` }).from(auditLog);
  return row!.id;
}

const noUnits = (rows: [string, number][]) => xlsxFile([["Week Ending", "Value"], ...rows]);

describe("M1: a forced import keeps the total units the sheet does not carry", () => {
  it("API: a sheet without Total Units overwrites the value and keeps the units; the check shows the stored units", async () => {
    const w = await world();
    await createWeeklyReport(w.plan, "2026-11-21", 15, 28);
    await createWeeklyReport(w.plan, "2026-11-14", 10, 40);
    const check = await upload("/v2/weekly-reports/check-excel", w.token, { plan_id: String(w.plan.id) }, noUnits([["2026-11-21", 16], ["2026-11-14", 10]]));
    expect(check.status).toBe(200);
    const body = (await check.json()) as { data: { rows: Record<string, unknown>[]; overwrite: number; unchanged: number } };
    expect(body.data.rows.map((r) => [r.week_end, r.status, r.current_value, r.current_total_units])).toEqual([
      ["2026-11-21", "overwrite", 15, 28],
      ["2026-11-14", "unchanged", 10, 40],
    ]);
    const res = await upload("/v2/weekly-reports/import-data", w.token, { plan_id: String(w.plan.id), force_update: "true" }, noUnits([["2026-11-21", 16], ["2026-11-14", 10]]));
    expect(res.status).toBe(200);
    expect((await stored(w.plan.id)).map((r) => [r.weekEnd, r.value, r.totalUnits, r.version])).toEqual([
      ["2026-11-14", 10, 40, 1], // the same value: not rewritten
      ["2026-11-21", 16, 28, 2], // the value replaced, the units kept
    ]);
  });

  it("API: a blank Total Units cell keeps the stored units; a number replaces them", async () => {
    const w = await world();
    await createWeeklyReport(w.plan, "2026-11-21", 15, 28);
    await createWeeklyReport(w.plan, "2026-11-14", 10, 40);
    const sheet = weeklySheet([["2026-11-21", 15, null], ["2026-11-14", 10, 36]]);
    const check = (await (await upload("/v2/weekly-reports/check-excel", w.token, { plan_id: String(w.plan.id) }, sheet)).json()) as { data: { rows: Record<string, unknown>[] } };
    expect(check.data.rows.map((r) => [r.status, r.total_units, r.current_total_units])).toEqual([
      ["unchanged", null, 28],
      ["overwrite", 36, 40],
    ]);
    expect((await upload("/v2/weekly-reports/import-data?force_update=true", w.token, { plan_id: String(w.plan.id) }, sheet)).status).toBe(200);
    expect((await stored(w.plan.id)).map((r) => [r.weekEnd, r.value, r.totalUnits])).toEqual([
      ["2026-11-14", 10, 36],
      ["2026-11-21", 15, 28],
    ]);
  });

  it("screen: the check says the units stay, and the forced import keeps them", async () => {
    const w = await world();
    await createWeeklyReport(w.plan, "2026-11-21", 15, 28);
    const path = `/bip/goal/${w.plan.id}/import`;
    const form = new FormData();
    form.append("intent", "check");
    form.append("file", new Blob([noUnits([["2026-11-21", 16]]) as BlobPart]), "weeks.xlsx");
    const checked = await request(path, { method: "POST", body: form, cookie: w.cookie });
    const html = await checked.text();
    expect(html).toContain("Week already has a report (now 15, 28 total units; the sheet has no total units, so these stay)");
    const imp = new FormData();
    imp.append("intent", "import");
    imp.append("file_name", "weeks.xlsx");
    imp.append("file_b64", /name="file_b64" value="([^"]+)"/.exec(html)![1]!);
    imp.append("force_update", "true");
    expect((await request(path, { method: "POST", body: imp, cookie: w.cookie })).status).toBe(303);
    expect((await stored(w.plan.id)).map((r) => [r.value, r.totalUnits])).toEqual([[16, 28]]);
  });
});

describe("M2: the API's check-excel records its read of stored weekly values", () => {
  it("writes one read row on the plan, with the client, as the screen's check does", async () => {
    const w = await world();
    await createWeeklyReport(w.plan, "2026-11-21", 15, 28);
    for (const via of ["api", "screen"] as const) {
      const before = await lastAuditId();
      if (via === "api") {
        expect((await upload("/v2/weekly-reports/check-excel", w.token, { plan_id: String(w.plan.id) }, noUnits([["2026-11-21", 16]]))).status).toBe(200);
      } else {
        const form = new FormData();
        form.append("intent", "check");
        form.append("file", new Blob([noUnits([["2026-11-21", 16]]) as BlobPart]), "weeks.xlsx");
        expect((await request(`/bip/goal/${w.plan.id}/import`, { method: "POST", body: form, cookie: w.cookie })).status).toBe(200);
      }
      const rows = await db().select().from(auditLog).where(and(gt(auditLog.id, before), eq(auditLog.entity, "plan"), eq(auditLog.entityId, String(w.plan.id))));
      expect(rows.filter((r) => r.action === "read").map((r) => [r.actorId, r.patientId]), via).toContainEqual([w.manager.id, w.patient.id]);
    }
    // Nothing else was written by a check.
    expect((await stored(w.plan.id)).map((r) => [r.value, r.version])).toEqual([[15, 1]]);
  });
});

describe("M3: a measurement is stored and shown to 2 decimals; an Update that changes nothing writes nothing", () => {
  it.each([
    ["82.9268292682927", 82.93],
    ["2.675", 2.68],
    ["1.005", 1.01],
    ["7", 7],
    ["0.004", 0],
  ])("the API stores %s as %d", async (typed, kept) => {
    const w = await world();
    const res = await appFetch(`${BASE}/api/v2/weekly-reports`, {
      method: "POST",
      headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${w.token}` },
      body: JSON.stringify({ plan_id: w.plan.id, week_end: "2026-11-21", value: typed, total_units: "12.345" }),
    });
    expect(res.status).toBe(201);
    expect((await stored(w.plan.id)).map((r) => [r.value, r.totalUnits])).toEqual([[kept, 12.35]]);
  });

  it("a value stored with more decimals is shown rounded everywhere on the goal screen, and an untouched Update keeps it and its version", async () => {
    const w = await world();
    const long = 340 / 4.1; // 82.92682926829268, as notes made it before the rule
    const report = await createWeeklyReport(w.plan, "2026-11-21", long, 60);
    const page = await (await request(`/bip/goal/${w.plan.id}?edit=1`, { cookie: w.cookie })).text();
    expect(page).not.toMatch(/82\.926/);
    expect(page).toContain('value="82.93"');
    const res = await request(`/bip/goal/${w.plan.id}?edit=1`, {
      method: "POST",
      cookie: w.cookie,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ intent: "update-report", report_id: String(report.id), version: "1", value: "82.93", total_units: "60" }),
    });
    // Decision 017, stop 45: the save goes where a save goes, with the flash every unchanged form save gives.
    expect(res.status).toBe(303);
    expect(new URL(res.headers.get("Location")!, BASE).searchParams.get("flash")).toBe(NOTHING_CHANGED_NOTICE);
    expect((await stored(w.plan.id)).map((r) => [r.value, r.version])).toEqual([[long, 1]]);
  });

  it("the API answers an unchanged Update 422 'Nothing to change' (decision 017, stop 45); a changed one writes the rounded value", async () => {
    const w = await world();
    const report = await createWeeklyReport(w.plan, "2026-11-21", 5, 8);
    const patch = (body: unknown) =>
      appFetch(`${BASE}/api/v2/weekly-reports/${report.id}`, {
        method: "PATCH",
        headers: { Accept: "application/json", "Content-Type": "application/json", Authorization: `Bearer ${w.token}` },
        body: JSON.stringify(body),
      });
    const same = await patch({ value: 5.001 });
    expect(same.status).toBe(422);
    expect(((await same.json()) as { message: string }).message).toBe(NOTHING_TO_CHANGE);
    expect((await stored(w.plan.id))[0]!.version).toBe(1);
    const changed = await patch({ value: 5.006 });
    expect(changed.status).toBe(200);
    expect((await stored(w.plan.id)).map((r) => [r.value, r.totalUnits, r.version])).toEqual([[5.01, 8, 2]]);
  });
});
