import { count } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { describe, expect, it } from "vitest";
import { bips, chartComments, clientConsents, objectives, paServices, plans, weeklyReports } from "~/db/schema";
import { REFERENCE_MESSAGES } from "~/domain/references";
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
