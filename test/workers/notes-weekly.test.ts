import { and, asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, notes, paServices, plans, weeklyReports } from "~/db/schema";
import { NOTES_WEEKLY_MESSAGES } from "~/domain/notes-weekly";
import type { NoteContent } from "~/domain/notes";
import type { Permission } from "~/domain/permissions";
import { verifyAuditChain } from "~/services/audit.server";
import type { Actor } from "~/domain/permissions";
import { generateWeeklyReportsFromNotes } from "~/models/notes-weekly.server";
import { api, apiToken, countingDb, createBip, createLocation, createPatient, createPlan, createUser, createWeeklyReport, db, request, signInCookie } from "./helpers";

/**
 * Weekly data from RBT notes (issue 10; docs/decisions/029): POST /api/v2/weekly-reports/from-notes, the
 * goal screen's "Generate from notes" with JavaScript off, PA services' spent units from notes, and the
 * dashboard's note counts. Notes are inserted directly with the columns of app/db/schema.ts.
 */

const MANAGE: Permission[] = ["view_bips", "manage_bips"];
const VIEW: Permission[] = ["view_bips"];

/** A client with a maladaptive and a replacement goal, a second client in the same location, and a client elsewhere. */
async function world() {
  const loc = await createLocation();
  const elsewhere = await createLocation();
  const patient = await createPatient({ locationId: loc.id, firstName: "Mia", lastName: "Lopez" });
  const bip = await createBip(patient);
  const mal = await createPlan(bip, { name: "Tantrums", category: "maladaptive" });
  const rep = await createPlan(bip, { name: "Asks for a break", category: "replacement" });
  const sibling = await createPatient({ locationId: loc.id });
  const siblingPlan = await createPlan(await createBip(sibling), { category: "maladaptive" });
  const other = await createPatient({ locationId: elsewhere.id });
  const otherPlan = await createPlan(await createBip(other), { category: "maladaptive" });
  const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
  const viewer = await createUser({ permissions: VIEW, locations: [loc.id] });
  return { loc, elsewhere, patient, bip, mal, rep, sibling, siblingPlan, other, otherPlan, manager, viewer };
}

let formToken = 0;
/** A note row as the note model stores it (only what the weekly data and units read matters here). */
async function note(
  patient: { id: number; locationId: number },
  sessionDate: string,
  content: NoteContent | string,
  over: Partial<typeof notes.$inferInsert> = {},
) {
  const [row] = await db()
    .insert(notes)
    .values({
      type: "rbt",
      patientId: patient.id,
      locationId: patient.locationId,
      cptCode: "97153",
      sessionDate,
      timeIn: "09:00",
      timeOut: "10:00",
      minutes: 60,
      units: 4,
      content: typeof content === "string" ? content : JSON.stringify(content),
      formToken: `t-${Date.now()}-${++formToken}`,
      ...over,
    })
    .returning();
  return row!;
}

const maladaptive = (planId: number, frequency: number | null) => ({ maladaptives: [{ plan_id: planId, name: "Tantrums", frequency }] });
const replacement = (planId: number, total_trials: number, correct_responses: number) => ({ replacements: [{ plan_id: planId, name: "Asks", total_trials, correct_responses }] });

async function reportsOf(planId: number) {
  return db().select().from(weeklyReports).where(eq(weeklyReports.planId, planId)).orderBy(asc(weeklyReports.weekEnd));
}

async function changeCounts() {
  const [r] = await db().select({ n: sql<number>`count(*)` }).from(weeklyReports);
  const [a] = await db().select({ n: sql<number>`count(*)` }).from(auditLog).where(sql`${auditLog.action} = 'generate_weekly_reports'`);
  return { reports: r!.n, audit: a!.n };
}

const generate = (token: string, body: unknown) => api("/v2/weekly-reports/from-notes", { method: "POST", token, body });

type Answer = { data: { created: number; updated: number; unchanged: number; sessions: number; week_from: string; week_to: string; weeks: { plan_id: number; week_end: string; value: number; total_units: number | null; status: string }[] }; message: string };

describe("POST /api/v2/weekly-reports/from-notes", () => {
  it("writes one report per plan and week: mean maladaptive frequency per session, pooled replacement percentage, to 2 decimals", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    // Week ending 2026-0110: three sessions record the maladaptive (1, 2, 2 → 5/3), two the replacement (3/4 and 4/5 → 7/9).
    await note(w.patient, "2026-01-05", { ...maladaptive(w.mal.id, 1), ...replacement(w.rep.id, 4, 3) });
    await note(w.patient, "2026-01-06", { ...maladaptive(w.mal.id, 2), ...replacement(w.rep.id, 5, 4) });
    await note(w.patient, "2026-01-08", maladaptive(w.mal.id, 2));
    await note(w.patient, "2026-01-09", { participants: "Mother" }); // a session without data for either goal
    // Week ending 2026-01-17: one session.
    await note(w.patient, "2026-01-12", { ...maladaptive(w.mal.id, 6), ...replacement(w.rep.id, 2, 0) });
    // Not counted: a deleted note, a BCBA note, another client's note, a note of a week outside the range.
    await note(w.patient, "2026-01-07", maladaptive(w.mal.id, 100), { deletedAt: "2026-01-08T00:00:00Z" });
    await note(w.patient, "2026-01-07", maladaptive(w.mal.id, 100), { type: "bcba", cptCode: "97155" });
    await note(w.sibling, "2026-01-07", maladaptive(w.mal.id, 100));
    await note(w.patient, "2026-01-19", maladaptive(w.mal.id, 100));

    const res = await generate(token, { patient_id: w.patient.id, date_from: "2026-01-07", date_to: "2026-01-14" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Answer;
    expect(body.message).toBe("4 weeks updated from session notes");
    // Whole weeks: the range is widened to Sunday 2026-01-04 .. Saturday 2026-01-17.
    expect(body.data).toMatchObject({ created: 4, updated: 0, unchanged: 0, sessions: 5, week_from: "2026-01-04", week_to: "2026-01-17" });
    expect((await reportsOf(w.mal.id)).map((r) => [r.weekStart, r.weekEnd, r.value, r.totalUnits])).toEqual([
      ["2026-01-04", "2026-01-10", 1.67, null], // 5 / 3, stored to 2 decimals (decision 029, stop 36)
      ["2026-01-11", "2026-01-17", 6, null],
    ]);
    expect((await reportsOf(w.rep.id)).map((r) => [r.weekEnd, r.value])).toEqual([
      ["2026-01-10", 77.78], // 700 / 9
      ["2026-01-17", 0],
    ]);
    expect(await reportsOf(w.siblingPlan.id)).toEqual([]);
    // The list shows them (the cache was bumped: a cached list made before is renewed).
    const list = (await (await api(`/v2/weekly-reports?plan_id=${w.mal.id}&cache=true`, { token })).json()) as { data: { value: number }[] };
    expect(list.data.map((r) => r.value)).toEqual([1.67, 6]);
  });

  it("a re-run writes nothing new (no duplicates); a changed note updates its week; a report typed by hand is overwritten, its total units kept; audited, chain intact", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    const first = await note(w.patient, "2026-02-02", maladaptive(w.mal.id, 4));
    await note(w.patient, "2026-02-10", maladaptive(w.mal.id, 1));
    const typed = await createWeeklyReport(w.mal, "2026-02-14", 9, 12);
    const body = { patient_id: w.patient.id, plan_id: w.mal.id, date_from: "2026-02-01", date_to: "2026-02-14" };

    const one = (await (await generate(token, body)).json()) as Answer;
    expect(one.data).toMatchObject({ created: 1, updated: 1, unchanged: 0 });
    const afterOne = await reportsOf(w.mal.id);
    expect(afterOne.map((r) => [r.weekEnd, r.value, r.totalUnits])).toEqual([
      ["2026-02-07", 4, null],
      ["2026-02-14", 1, 12],
    ]);
    expect(afterOne[1]).toMatchObject({ id: typed.id, version: 2 });

    const two = (await (await generate(token, body)).json()) as Answer;
    expect(two.data).toMatchObject({ created: 0, updated: 0, unchanged: 2 });
    expect(two.message).toBe("0 weeks updated from session notes");
    expect(await reportsOf(w.mal.id)).toEqual(afterOne);

    await db().update(notes).set({ content: JSON.stringify(maladaptive(w.mal.id, 7)) }).where(eq(notes.id, first.id));
    const three = (await (await generate(token, body)).json()) as Answer;
    expect(three.data).toMatchObject({ created: 0, updated: 1, unchanged: 1 });
    expect((await reportsOf(w.mal.id)).map((r) => [r.weekEnd, r.value, r.version])).toEqual([
      ["2026-02-07", 7, 2],
      ["2026-02-14", 1, 2],
    ]);

    const rows = await db().select().from(auditLog).where(and(eq(auditLog.action, "generate_weekly_reports"), eq(auditLog.patientId, w.patient.id))).orderBy(asc(auditLog.id));
    expect(rows).toHaveLength(3);
    expect(rows.map((r) => [r.entity, r.entityId, r.actorId])).toEqual(Array(3).fill(["patient", String(w.patient.id), w.manager.id]));
    expect(JSON.parse(rows[0]!.detail!)).toEqual({ source: "notes", plans: [w.mal.id], week_from: "2026-02-01", week_to: "2026-02-14", created: 1, updated: 1 });
    expect(JSON.parse(rows[1]!.detail!)).toMatchObject({ plans: [], created: 0, updated: 0 });
    expect((await verifyAuditChain(db())).ok).toBe(true);
    // The plan's updated_at moved with its data.
    const [plan] = await db().select().from(plans).where(eq(plans.id, w.mal.id));
    expect(plan!.updatedAt > w.mal.updatedAt).toBe(true);
  });

  it("the answer's total_units is what each week holds after the run: the typed units an updated or unchanged week keeps (probe 8922 §6)", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    await note(w.patient, "2026-11-09", maladaptive(w.mal.id, 5));
    await note(w.patient, "2026-11-16", maladaptive(w.mal.id, 2));
    await createWeeklyReport(w.mal, "2026-11-14", 9, 84);
    const body = { patient_id: w.patient.id, plan_id: w.mal.id, date_from: "2026-11-08", date_to: "2026-11-21" };
    const weeks = async () => ((await (await generate(token, body)).json()) as Answer).data.weeks.map((x) => [x.week_end, x.value, x.total_units, x.status]);
    expect(await weeks()).toEqual([
      ["2026-11-14", 5, 84, "updated"],
      ["2026-11-21", 2, null, "created"],
    ]);
    expect(await weeks()).toEqual([
      ["2026-11-14", 5, 84, "unchanged"],
      ["2026-11-21", 2, null, "unchanged"],
    ]);
    expect((await reportsOf(w.mal.id)).map((r) => [r.weekEnd, r.value, r.totalUnits])).toEqual([
      ["2026-11-14", 5, 84],
      ["2026-11-21", 2, null],
    ]);
  });

  it("a per-hour goal gets the week's count with its sessions' units, so the chart shows the notes' own rate; a re-run keeps it, a changed duration updates it", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    const hourly = await createPlan(w.bip, { name: "Elopement", category: "maladaptive", timeframe: "per_hour" });
    // Probe, stop 24: two sessions of 8 and 9 units (4.25 h), 5 elopements each. The chart plotted 0.3 an hour
    // (the mean 5 ÷ a default 20 hours); the notes' rate is 10 ÷ 4.25 = 2.35.
    await note(w.patient, "2026-11-23", maladaptive(hourly.id, 5), { units: 8, minutes: 120, timeOut: "11:00" });
    const second = await note(w.patient, "2026-11-24", maladaptive(hourly.id, 5), { units: 9, minutes: 135, timeOut: "11:15" });
    const body = { patient_id: w.patient.id, plan_id: hourly.id, date_from: "2026-11-22", date_to: "2026-11-28" };
    expect(((await (await generate(token, body)).json()) as Answer).data).toMatchObject({ created: 1 });
    expect((await reportsOf(hourly.id)).map((r) => [r.weekEnd, r.value, r.totalUnits])).toEqual([["2026-11-28", 10, 17]]);
    const cookie = await signInCookie(w.manager);
    const goal = await (await request(`/bip/goal/${hourly.id}`, { cookie })).text();
    expect(goal).toContain("<td>11/28/2026</td><td>2.4</td><td>10</td><td>4.25</td>");
    expect(((await (await generate(token, body)).json()) as Answer).data).toMatchObject({ created: 0, updated: 0, unchanged: 1 });
    await db().update(notes).set({ units: 5, minutes: 75 }).where(eq(notes.id, second.id));
    expect(((await (await generate(token, body)).json()) as Answer).data).toMatchObject({ updated: 1 });
    expect((await reportsOf(hourly.id)).map((r) => [r.value, r.totalUnits])).toEqual([[10, 13]]);
  });

  it("plan_id limits the generation to that goal; content that is not JSON is skipped, not a 500", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    await note(w.patient, "2026-03-02", { ...maladaptive(w.mal.id, 3), ...replacement(w.rep.id, 10, 10) });
    await note(w.patient, "2026-03-03", "{not json");
    const res = await generate(token, { patient_id: String(w.patient.id), plan_id: String(w.rep.id), date_from: "2026-03-01", date_to: "2026-03-07" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as Answer).data.weeks).toEqual([expect.objectContaining({ plan_id: w.rep.id, week_end: "2026-03-07", value: 100, status: "created" })]);
    expect(await reportsOf(w.mal.id)).toEqual([]);
  });

  it("bad input answers 422 with the message and changes nothing; a range over one year is refused", async () => {
    const w = await world();
    const token = await apiToken(w.manager);
    await note(w.patient, "2026-01-05", maladaptive(w.mal.id, 3));
    const before = await changeCounts();
    const cases: [unknown, string, string][] = [
      [{ patient_id: w.patient.id, date_from: "2025-01-01", date_to: "2026-01-02" }, "date_to", NOTES_WEEKLY_MESSAGES.tooLong],
      [{ patient_id: w.patient.id, date_from: "2026-02-01", date_to: "2026-01-01" }, "date_to", NOTES_WEEKLY_MESSAGES.order],
      [{ patient_id: w.patient.id, date_from: "2026-02-30", date_to: "2026-03-01" }, "date_from", NOTES_WEEKLY_MESSAGES.date],
      [{ patient_id: w.patient.id, date_to: "2026-03-01" }, "date_from", NOTES_WEEKLY_MESSAGES.dateFromRequired],
      [{ date_from: "2026-01-01", date_to: "2026-03-01" }, "patient_id", NOTES_WEEKLY_MESSAGES.patient],
      [{ patient_id: "x", date_from: "2026-01-01", date_to: "2026-03-01" }, "patient_id", NOTES_WEEKLY_MESSAGES.patient],
    ];
    for (const [body, field, message] of cases) {
      const res = await generate(token, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      const answer = (await res.json()) as { message: string; errors: Record<string, string> };
      expect(answer.errors[field]).toBe(message);
      expect(answer.message).toBeTruthy();
    }
    expect((await api("/v2/weekly-reports/from-notes", { method: "POST", token, body: [1] })).status).toBe(400);
    expect(await changeCounts()).toEqual(before);
  });

  it("another location's client or plan 422 at its field, another client's plan 422, a viewer 403, other methods 405; nothing changes", async () => {
    const w = await world();
    const manager = await apiToken(w.manager);
    const viewer = await apiToken(w.viewer);
    await note(w.patient, "2026-01-05", maladaptive(w.mal.id, 3));
    await note(w.other, "2026-01-05", maladaptive(w.otherPlan.id, 3));
    const before = await changeCounts();
    const range = { date_from: "2026-01-01", date_to: "2026-01-31" };
    // Body references (decision 017): 422 at the field, the same for another location's and for none.
    const refused = async (body: Record<string, unknown>) => {
      const res = await generate(manager, body);
      return [res.status, ((await res.json()) as { errors?: Record<string, string> }).errors];
    };
    expect(await refused({ patient_id: w.other.id, ...range })).toEqual([422, { patient_id: "Choose one of your clients." }]);
    expect(await refused({ plan_id: w.otherPlan.id, ...range })).toEqual([422, { plan_id: "Choose one of your clients' goals." }]);
    expect(await refused({ patient_id: w.patient.id, plan_id: w.siblingPlan.id, ...range })).toEqual([422, { plan_id: "Choose one of your clients' goals." }]);
    expect(await refused({ patient_id: 999_999, ...range })).toEqual([422, { patient_id: "Choose one of your clients." }]);
    expect((await generate(viewer, { patient_id: w.patient.id, ...range })).status).toBe(403);
    expect((await api("/v2/weekly-reports/from-notes", { token: manager })).status).toBe(405);
    expect(await changeCounts()).toEqual(before);
    // An admin with every location may generate for the other location's client.
    const admin = await apiToken(await createUser({ role: "ADMIN" }));
    expect((await generate(admin, { patient_id: w.other.id, ...range })).status).toBe(200);
    expect((await reportsOf(w.otherPlan.id)).map((r) => r.value)).toEqual([3]);
  });
});

describe("generateWeeklyReportsFromNotes round trips", () => {
  it("reads in one batch and writes in one batch with the audit row: 2 round trips past the guard", async () => {
    const w = await world();
    await note(w.patient, "2026-01-05", { ...maladaptive(w.mal.id, 2), ...replacement(w.rep.id, 4, 2) });
    const actor = { kind: "user", id: w.manager.id, name: "T", surname: "U", email: "t@u", roles: [], permissions: MANAGE, locationIds: [w.loc.id], locationId: w.loc.id, timeZone: null, avatar: null, status: "active" } as unknown as Actor;
    const counting = countingDb();
    const ctx = { db: counting.db, actor, ip: "127.0.0.1", now: () => new Date("2026-01-20T12:00:00Z") };
    const result = await generateWeeklyReportsFromNotes(ctx, { plan_id: w.mal.id, date_from: "2026-01-01", date_to: "2026-01-10" });
    expect(result).toMatchObject({ ok: true, data: { created: 1, patient_id: w.patient.id } });
    expect(counting.roundTrips()).toBe(2);
    expect((await reportsOf(w.mal.id)).map((r) => r.value)).toEqual([2]);
    expect(await reportsOf(w.rep.id)).toEqual([]);
  });
});

describe("goal screen: Generate from notes (JavaScript off)", () => {
  it("POST → 303 with the flash → the values in the weekly data; bad dates keep the typed values; a viewer sees no form and gets 403", async () => {
    const w = await world();
    await note(w.patient, "2026-01-05", maladaptive(w.mal.id, 2));
    await note(w.patient, "2026-01-06", maladaptive(w.mal.id, 3));
    const cookie = await signInCookie(w.manager);
    const page = await (await request(`/bip/goal/${w.mal.id}`, { cookie })).text();
    expect(page).toContain("Generate from notes");
    expect(page).toMatch(/name="date_from"[^>]*value="\d{4}-\d{2}-\d{2}"|value="\d{4}-\d{2}-\d{2}"[^>]*name="date_from"/);

    const post = (fields: Record<string, string>, c = cookie) =>
      request(`/bip/goal/${w.mal.id}`, { method: "POST", body: new URLSearchParams(fields), cookie: c, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    const res = await post({ intent: "from-notes", date_from: "2026-01-04", date_to: "2026-01-10" });
    expect(res.status).toBe(303);
    const to = res.headers.get("Location")!;
    expect(decodeURIComponent(to)).toContain("1 week updated from session notes");
    const after = await (await request(to, { cookie })).text();
    expect(after).toContain("Weekly Data from Notes");
    expect(after).toContain("1 week updated from session notes");
    expect(after).toContain("01/10/2026");
    expect(after).toContain('value="2.5"');
    expect((await reportsOf(w.mal.id)).map((r) => r.value)).toEqual([2.5]);

    const bad = await post({ intent: "from-notes", date_from: "2024-01-01", date_to: "2026-01-10" });
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain(NOTES_WEEKLY_MESSAGES.tooLong);
    expect(html).toContain('value="2024-01-01"');
    expect((await reportsOf(w.mal.id)).map((r) => r.value)).toEqual([2.5]);

    const viewerCookie = await signInCookie(w.viewer);
    expect(await (await request(`/bip/goal/${w.mal.id}`, { cookie: viewerCookie })).text()).not.toContain("Generate from notes");
    expect((await post({ intent: "from-notes", date_from: "2026-01-04", date_to: "2026-01-10" }, viewerCookie)).status).toBe(403);
    // Another location's goal: 404, nothing written.
    const otherRes = await request(`/bip/goal/${w.otherPlan.id}`, { method: "POST", body: new URLSearchParams({ intent: "from-notes", date_from: "2026-01-04", date_to: "2026-01-10" }), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(otherRes.status).toBe(404);
    expect(await reportsOf(w.otherPlan.id)).toEqual([]);
  });
});

describe("PA services count the units of their notes", () => {
  it("spent_units = units of the live notes of the service, available_units = n_units − spent (list, show, client profile)", async () => {
    const w = await world();
    const [pa] = await db().insert(paServices).values({ patientId: w.patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 120, startDate: "2026-01-01", endDate: "2026-06-30" }).returning();
    const [unused] = await db().insert(paServices).values({ patientId: w.patient.id, paService: "Supervision", cpt: "97155", nUnits: 40, startDate: "2026-01-01", endDate: "2026-06-30" }).returning();
    await note(w.patient, "2026-01-05", {}, { paServiceId: pa!.id, units: 6 });
    await note(w.patient, "2026-01-06", {}, { paServiceId: pa!.id, units: 9 });
    await note(w.patient, "2026-01-07", {}, { paServiceId: pa!.id, units: 4, type: "bcba", cptCode: "97155" });
    await note(w.patient, "2026-01-08", {}, { paServiceId: pa!.id, units: 50, deletedAt: "2026-01-09T00:00:00Z" });
    const token = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [w.loc.id] }));
    const list = (await (await api(`/v2/pa-services?patient_id=${w.patient.id}`, { token })).json()) as { data: { id: number; spent_units: number; available_units: number }[] };
    expect(list.data.map((p) => [p.id, p.spent_units, p.available_units]).sort((a, b) => a[0]! - b[0]!)).toEqual([
      [pa!.id, 19, 101],
      [unused!.id, 0, 40],
    ]);
    const show = (await (await api(`/v2/pa-services/${pa!.id}`, { token })).json()) as { data: { spent_units: number; available_units: number } };
    expect(show.data).toMatchObject({ spent_units: 19, available_units: 101 });
    const nested = (await (await api(`/v2/patients/${w.patient.id}/pa-services`, { token })).json()) as { data: { id: number; spent_units: number }[] };
    expect(nested.data.find((p) => p.id === pa!.id)?.spent_units).toBe(19);
  });
});

describe("dashboard note counts", () => {
  it("counts live RBT and BCBA notes of the user's locations", async () => {
    const w = await world();
    await note(w.patient, "2026-01-05", {});
    await note(w.patient, "2026-01-06", {});
    await note(w.patient, "2026-01-07", {}, { type: "bcba", cptCode: "97155" });
    await note(w.patient, "2026-01-08", {}, { deletedAt: "2026-01-09T00:00:00Z" });
    await note(w.other, "2026-01-05", {});
    const token = await apiToken(await createUser({ permissions: ["view_notes"], locations: [w.loc.id] }));
    const body = (await (await api("/dashboard/admin", { token })).json()) as Record<string, number>;
    expect([body.total_noteRbts, body.total_noteBcbas]).toEqual([2, 1]);
  });
});
