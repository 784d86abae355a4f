import { desc, gt } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog } from "~/db/schema";
import { api, createChartComment, createWeeklyReport, db, oneRecordOfEach } from "./helpers";

/**
 * A change the API refuses as stale (409 "Someone else saved a newer version…") answers the record as it is stored
 * (`current`): the client's data, as a show answers it. So it is an audited read like a show: exactly one `read` row
 * naming the record and its client, and nothing written (no update row, the record's version as it was).
 */

type Case = { name: string; method: "PATCH" | "PUT" | "POST"; path: string; body: Record<string, unknown> | (() => Promise<Record<string, unknown>>); entity: string; entityId: number; patientId: number | null; detail?: Record<string, unknown> };

const NAMES = ["client", "parent", "PA service", "BIP", "BIP (v1)", "plan", "objective", "weekly report", "weekly report (week taken)", "chart comment", "intake assessment", "RBT note", "RBT note (v1)"];
let token: string;
let cases: Case[];

beforeAll(async () => {
  const { token: adminToken, parent, patient, bip, plan, objective, pa, intake, note } = await oneRecordOfEach();
  token = adminToken;
  const report = await createWeeklyReport(plan, "2026-01-03", 4);
  const comment = await createChartComment(plan, "2026-01-02", "New routine");
  const stale = { version: 99 };
  const client = { patientId: patient.id, detail: { patients: [patient.id] } };
  cases = [
    { name: "client", method: "PATCH", path: `/v2/patients/${patient.id}`, body: { first_name: "Eve", ...stale }, entity: "patient", entityId: patient.id, ...client },
    { name: "parent", method: "PATCH", path: `/v2/parents/${parent.id}`, body: { phone: "555-0100", ...stale }, entity: "parent", entityId: parent.id, patientId: null, detail: { parents: [parent.id] } },
    { name: "PA service", method: "PATCH", path: `/v2/pa-services/${pa.id}`, body: { n_units: 40, ...stale }, entity: "pa_service", entityId: pa.id, ...client },
    { name: "BIP", method: "PATCH", path: `/v2/bips/${bip.id}`, body: { strengths: "zz", ...stale }, entity: "bip", entityId: bip.id, ...client },
    { name: "BIP (v1)", method: "PUT", path: `/bip/update/${bip.id}`, body: { strengths: "zz", ...stale }, entity: "bip", entityId: bip.id, ...client },
    { name: "plan", method: "PATCH", path: `/v2/plans/${plan.id}`, body: { current_progress: "zz", ...stale }, entity: "plan", entityId: plan.id, ...client },
    { name: "objective", method: "PATCH", path: `/v2/objectives/${objective.id}`, body: { name: "zz", ...stale }, entity: "objective", entityId: objective.id, ...client },
    { name: "weekly report", method: "PATCH", path: `/v2/weekly-reports/${report.id}`, body: { value: 5, ...stale }, entity: "weekly_report", entityId: report.id, ...client },
    // A create for a week that has a report answers that report (409, decision 009): the same read.
    { name: "weekly report (week taken)", method: "POST", path: `/v2/weekly-reports`, body: { plan_id: plan.id, week_end: "2026-01-03", value: 7 }, entity: "weekly_report", entityId: report.id, ...client },
    { name: "chart comment", method: "PATCH", path: `/v2/chart-comments/${comment.id}`, body: { comment: "zz", ...stale }, entity: "chart_comment", entityId: comment.id, ...client },
    { name: "intake assessment", method: "PATCH", path: `/v2/intake-assessments/${intake.id}`, body: { person_responding: "Dad", observation_date: "2026-01-05", ...stale }, entity: "intake_assessment", entityId: intake.id, ...client },
    { name: "RBT note", method: "PATCH", path: `/v2/notes-rbt/${note.id}`, body: { next_session_is_scheduled_for: "Thursday 9:00", ...stale }, entity: "note", entityId: note.id, ...client },
    { name: "RBT note (v1)", method: "PUT", path: `/note_rbt/update/${note.id}`, body: async () => ({ ...(await stored(`/v2/notes-rbt/${note.id}`)), next_session_is_scheduled_for: "Friday 9:00", ...stale }), entity: "note", entityId: note.id, ...client },
  ];
});

/** A PUT replaces the whole record: its body is the record as shown, with the change. */
async function stored(path: string): Promise<Record<string, unknown>> {
  const res = await api(path, { token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: Record<string, unknown> }).data;
}

async function lastAuditId(): Promise<number> {
  const [row] = await db().select({ id: auditLog.id }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row?.id ?? 0;
}

describe("a stale change answers the stored record as an audited read", () => {
  it("covers every case", () => expect(cases.map((c) => c.name)).toEqual(NAMES));

  it.each(NAMES)("%s: 409 with the current record, one read row naming it and its client, nothing written", async (name) => {
    const c = cases.find((x) => x.name === name)!;
    const sent = typeof c.body === "function" ? await c.body() : c.body;
    const before = await lastAuditId();
    const res = await api(c.path, { method: c.method, token, body: sent });
    expect(res.status, name).toBe(409);
    const body = (await res.json()) as { message: string; current: { id?: number; version?: number } };
    expect(body.current.id).toBe(c.entityId);
    const rows = await db().select().from(auditLog).where(gt(auditLog.id, before));
    expect(rows.map((r) => ({ action: r.action, entity: r.entity, entityId: r.entityId, patientId: r.patientId })), name).toEqual([
      { action: "read", entity: c.entity, entityId: String(c.entityId), patientId: c.patientId },
    ]);
    if (c.detail) expect(JSON.parse(rows[0]!.detail ?? "null")).toEqual(c.detail);
    // Nothing changed: a second stale try answers the same stored version.
    const again = await api(c.path, { method: c.method, token, body: sent });
    expect(((await again.json()) as typeof body).current.version).toBe(body.current.version);
  });
});
