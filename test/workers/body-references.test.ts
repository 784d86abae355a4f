import { count } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { bips, chartComments, clientConsents, intakeAssessments, notes, objectives, paServices, plans, scheduledSessions, weeklyReports } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import { REFERENCE_MESSAGES } from "~/domain/references";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createBip, createLocation, createPatient, createPlan, createUser, db, form, signInCookie } from "./helpers";

/**
 * A record named by id in a body (decision 017, "Reference ids in a body"): an id that does not exist and an id of
 * another location get the same 422 at the field, so a caller knows which field is wrong and learns nothing about the
 * other location; nothing is written. A record named by the address keeps its 404 (the screens post their parent as
 * their address).
 */

const MISSING = 99_999_999;

async function world() {
  const mine = await createLocation();
  const theirs = await createLocation();
  const client = await createPatient({ locationId: mine.id });
  const bip = await createBip(client);
  const plan = await createPlan(bip);
  const away = await createPatient({ locationId: theirs.id });
  const awayBip = await createBip(away);
  const awayPlan = await createPlan(awayBip);
  const manager = await createUser({ permissions: ["view_clients", "manage_clients", "view_bips", "manage_bips"], locations: [mine.id] });
  return { client, bip, plan, away, awayBip, awayPlan, manager, token: await apiToken(manager) };
}
type World = Awaited<ReturnType<typeof world>>;

async function counts() {
  const n = async (table: SQLiteTable) => (await db().select({ n: count() }).from(table))[0]!.n;
  return { bips: await n(bips), plans: await n(plans), objectives: await n(objectives), weeklyReports: await n(weeklyReports), chartComments: await n(chartComments), consents: await n(clientConsents), paServices: await n(paServices) };
}

/** Each call that names a record in its body: the path, the field, the message, the body with a given id, and the own record's id. */
const CASES: readonly (readonly [path: string, field: string, message: string, body: (id: number) => Record<string, unknown>, own: (w: World) => number, away: (w: World) => number])[] = [
  ["/v2/store-client-consents", "patient_id", REFERENCE_MESSAGES.client, (id) => ({ patient_id: id, sections: [1] }), (w) => w.client.id, (w) => w.away.id],
  ["/v2/pa-services", "patient_id", REFERENCE_MESSAGES.client, (id) => ({ patient_id: id, pa_service: "Direct therapy", cpt: "97153", n_units: 120, start_date: "2026-01-01", end_date: "2026-06-30" }), (w) => w.client.id, (w) => w.away.id],
  ["/v2/bips", "patient_id", REFERENCE_MESSAGES.client, (id) => ({ patient_id: id }), (w) => w.client.id, (w) => w.away.id],
  ["/v2/plans", "bip_id", REFERENCE_MESSAGES.bip, (id) => ({ bip_id: id, name: "Hitting", category: "maladaptive" }), (w) => w.bip.id, (w) => w.awayBip.id],
  ["/v2/objectives", "plan_id", REFERENCE_MESSAGES.goal, (id) => ({ plan_id: id, name: "Reduce to 3 per week" }), (w) => w.plan.id, (w) => w.awayPlan.id],
  ["/v2/weekly-reports", "plan_id", REFERENCE_MESSAGES.goal, (id) => ({ plan_id: id, week_end: "2026-01-10", value: 1 }), (w) => w.plan.id, (w) => w.awayPlan.id],
  ["/v2/chart-comments", "plan_id", REFERENCE_MESSAGES.goal, (id) => ({ plan_id: id, comment_date: "2026-01-07", comment: "Calm week" }), (w) => w.plan.id, (w) => w.awayPlan.id],
];

describe("a body reference the actor cannot see: one answer, 422 at its field", () => {
  it.each(CASES.flatMap(([path, field, message, body, own, away]) => (["missing", "of another location"] as const).map((which) => [path, which, field, message, body, own, away] as const)))(
    "POST %s naming a record %s: 422 at %s, nothing written",
    async (path, which, field, message, body, _own, away) => {
      const w = await world();
      const before = await counts();
      const res = await api(path, { method: "POST", token: w.token, body: body(which === "missing" ? MISSING : away(w)) });
      expect(res.status).toBe(422);
      expect(await res.json()).toMatchObject({ message, errors: { [field]: message } });
      expect(await counts()).toEqual(before);
    },
  );

  it.each(CASES.map(([path, , , body, own]) => [path, body, own] as const))("POST %s naming the actor's own record is saved (the bodies above are otherwise valid)", async (path, body, own) => {
    const w = await world();
    const res = await api(path, { method: "POST", token: w.token, body: body(own(w)) });
    expect(res.status, await res.clone().text()).toBe(201);
  });
});

describe("the screens post their parent as their address: another location's parent is the page's 404, nothing written", () => {
  it.each([
    ["/bip/goal/add/BIP", { name: "Hitting", category: "maladaptive" }],
    ["/bip/goal/PLAN/edit", { intent: "add-objective", type: "STO", name: "Reduce" }],
    ["/bip/goal/PLAN", { intent: "add-report", week_end: "2026-01-10", value: "1" }],
    ["/bip/goal/PLAN", { intent: "add-comment", comment_date: "2026-01-07", comment: "Calm week" }],
    ["/patients/consents/CLIENT", { intent: "save", sections: "1" }],
  ] as const)("POST %s %o", async (path, fields) => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const before = await counts();
    const at = (bip: number, plan: number, client: number) => path.replace("BIP", String(bip)).replace("PLAN", String(plan)).replace("CLIENT", String(client));
    for (const p of [at(w.awayBip.id, w.awayPlan.id, w.away.id), at(MISSING, MISSING, MISSING)]) expect((await form(p, { ...fields }, cookie)).status, p).toBe(404);
    expect(await counts()).toEqual(before);
  });

  it("a refused field on those forms is shown at the field with the typed values kept (the reference is not the error)", async () => {
    const w = await world();
    const cookie = await signInCookie(w.manager);
    const before = await counts();
    const res = await form(`/bip/goal/${w.plan.id}?edit=1`, { intent: "add-comment", comment_date: "2026-01-07", comment: "x".repeat(60) }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("x".repeat(60));
    expect(html).not.toContain(REFERENCE_MESSAGES.goal);
    const goal = await form(`/bip/goal/add/${w.bip.id}`, { name: "Kept name", category: "nonsense" }, cookie);
    expect(goal.status).toBe(422);
    const goalHtml = await goal.text();
    expect(goalHtml).toContain('value="Kept name"');
    expect(goalHtml).not.toContain(REFERENCE_MESSAGES.bip);
    expect(await counts()).toEqual(before);
  });
});

/**
 * The calls that still answered 404 for a body's client or goal until stop 39's second change: a new intake, a new
 * note (v1 and v2, each type), a booking, the weekly data from notes and the objectives' reorder (decision 017).
 */
const ZONE = "America/New_York";
const day = (offset: number) => addDays(todayIn(new Date(), ZONE), offset);

async function clinic() {
  const mine = await createLocation({ timeZone: ZONE });
  const theirs = await createLocation({ timeZone: ZONE });
  const client = await createPatient({ locationId: mine.id });
  const bip = await createBip(client);
  const plan = await createPlan(bip);
  const pa = async (patientId: number, cpt: string) => (await db().insert(paServices).values({ patientId, paService: "Direct therapy", cpt, nUnits: 400, startDate: day(-200), endDate: day(200) }).returning())[0]!.id;
  const pas = { "97153": await pa(client.id, "97153"), "97155": await pa(client.id, "97155"), "97156": await pa(client.id, "97156") };
  const away = await createPatient({ locationId: theirs.id });
  const awayPlan = await createPlan(await createBip(away));
  const staff = await createUser({ permissions: ["view_clients", "manage_clients", "view_bips", "manage_bips", "view_notes", "manage_notes"], locations: [mine.id] });
  return { mine, client, plan, pas, away, awayPlan, staff, token: await apiToken(staff) };
}
type Clinic = Awaited<ReturnType<typeof clinic>>;

async function written() {
  const n = async (table: SQLiteTable) => (await db().select({ n: count() }).from(table))[0]!.n;
  return { notes: await n(notes), intakes: await n(intakeAssessments), sessions: await n(scheduledSessions), weeklyReports: await n(weeklyReports), objectives: await n(objectives) };
}

const noteBody = (c: Clinic, patientId: number, cpt: "97153" | "97155" | "97156", over: Record<string, unknown> = {}) => ({
  patient_id: patientId,
  provider_id: c.staff.id,
  pa_service_id: c.pas[cpt],
  cpt_code: cpt,
  session_date: day(-1),
  time_in: "09:00",
  time_out: "10:00",
  pos: "12",
  diagnosis_code: "F84.0",
  ...over,
});
const combined = { unit_price_cents: 2500, caregiver_goals: [{ name: "Follow routine", percent: 80 }] };

/** The call, the field, the message, the body naming `id` in that field, and the record of one's own to name instead. */
const MORE: readonly (readonly [path: string, field: string, message: string, body: (c: Clinic, id: number) => Record<string, unknown>, own: (c: Clinic) => number, away: (c: Clinic) => number])[] = [
  ["/v2/intake-assessments", "patient_id", REFERENCE_MESSAGES.client, (_c, id) => ({ patient_id: id, person_responding: "Mother", observation_date: "2025-04-02", current_insurance: "Sunshine Health", impairs_other_services_without_rbt: "no" }), (c) => c.client.id, (c) => c.away.id],
  ["/note_rbt/store", "patient_id", REFERENCE_MESSAGES.client, (c, id) => noteBody(c, id, "97153"), (c) => c.client.id, (c) => c.away.id],
  ["/note_bcba/store", "patient_id", REFERENCE_MESSAGES.client, (c, id) => noteBody(c, id, "97155"), (c) => c.client.id, (c) => c.away.id],
  ["/v2/notes-rbt", "patient_id", REFERENCE_MESSAGES.client, (c, id) => noteBody(c, id, "97153"), (c) => c.client.id, (c) => c.away.id],
  ["/v2/notes-bcba", "patient_id", REFERENCE_MESSAGES.client, (c, id) => noteBody(c, id, "97155"), (c) => c.client.id, (c) => c.away.id],
  ["/v2/notes-combined", "patient_id", REFERENCE_MESSAGES.client, (c, id) => noteBody(c, id, "97156", combined), (c) => c.client.id, (c) => c.away.id],
  ["/v2/scheduled-sessions", "patient_id", REFERENCE_MESSAGES.client, (c, id) => ({ patient_id: id, cpt_code: "97153", pa_service_id: c.pas["97153"], session_date: day(3), time_in: "9:00", time_out: "10:30" }), (c) => c.client.id, (c) => c.away.id],
  ["/v2/weekly-reports/from-notes", "patient_id", REFERENCE_MESSAGES.client, (_c, id) => ({ patient_id: id, date_from: day(-14), date_to: day(-1) }), (c) => c.client.id, (c) => c.away.id],
  ["/v2/weekly-reports/from-notes", "plan_id", REFERENCE_MESSAGES.goal, (_c, id) => ({ plan_id: id, date_from: day(-14), date_to: day(-1) }), (c) => c.plan.id, (c) => c.awayPlan.id],
  ["/v2/weekly-reports/from-notes", "plan_id", REFERENCE_MESSAGES.goal, (c, id) => ({ patient_id: c.client.id, plan_id: id, date_from: day(-14), date_to: day(-1) }), (c) => c.plan.id, (c) => c.awayPlan.id],
  ["/v2/objectives/reorder", "plan_id", REFERENCE_MESSAGES.goal, (_c, id) => ({ plan_id: id, ids: [] }), (c) => c.plan.id, (c) => c.awayPlan.id],
];

describe("a new intake, note, booking or weekly data naming a client or goal the actor cannot see: 422 at the field", () => {
  it.each(MORE.flatMap(([path, field, message, body, own, away]) => (["missing", "of another location"] as const).map((which) => [path, which, field, message, body, own, away] as const)))(
    "POST %s naming a record %s: 422 at %s, nothing written",
    async (path, which, field, message, body, _own, away) => {
      const c = await clinic();
      const before = await written();
      const res = await api(path, { method: "POST", token: c.token, body: body(c, which === "missing" ? MISSING : away(c)) });
      expect(res.status, await res.clone().text()).toBe(422);
      expect(await res.json()).toMatchObject({ message, errors: { [field]: message } });
      expect(await written()).toEqual(before);
    },
  );

  it.each(MORE.filter(([path]) => path !== "/v2/objectives/reorder").map(([path, field, , body, own]) => [path, field, body, own] as const))("POST %s naming the actor's own record (%s) is answered (the bodies above are otherwise valid)", async (path, _field, body, own) => {
    const c = await clinic();
    const res = await api(path, { method: "POST", token: c.token, body: body(c, own(c)) });
    expect(res.status, await res.clone().text()).toBeLessThan(300);
  });
});

describe("the intake, note and booking screens carry their client in the address: another location's client is the page's 404, nothing written", () => {
  it.each([
    ["/medical/initial-assessment/create?patient_id=CLIENT", { intent: "save", patient_id: "CLIENT", person_responding: "Mother", observation_date: "2025-04-02" }],
    ["/note-rbt?patient_id=CLIENT", { intent: "save", patient_id: "CLIENT", cpt_code: "97153", session_date: "2026-01-05", time_in: "09:00", time_out: "10:00" }],
    ["/calendar/schedule?patient_id=CLIENT", { patient_id: "CLIENT", cpt_code: "97153", pa_service_id: "PA", session_date: "DAY3", time_in: "9:00", time_out: "10:30", repeat: "once" }],
    ["/bip/goal/PLAN", { intent: "from-notes", date_from: "2026-01-01", date_to: "2026-01-31" }],
  ] as const)("POST %s", async (path, fields) => {
    const c = await clinic();
    const cookie = await signInCookie(c.staff);
    const before = await written();
    for (const [client, plan] of [[c.away.id, c.awayPlan.id], [MISSING, MISSING]]) {
      const at = (x: string) => x.replaceAll("CLIENT", String(client)).replaceAll("PLAN", String(plan)).replaceAll("PA", String(c.pas["97153"])).replaceAll("DAY3", day(3));
      const res = await form(at(path), Object.fromEntries(Object.entries(fields).map(([k, x]) => [k, at(x)])), cookie);
      expect(res.status, at(path)).toBe(404);
    }
    expect(await written()).toEqual(before);
  });
});
