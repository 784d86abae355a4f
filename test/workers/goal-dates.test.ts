import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { objectives, plans } from "~/db/schema";
import { GOAL_DATE_MESSAGES } from "~/domain/weekly-reports";
import { api, createObjective, createPlan, db, form, oneRecordOfEach, signInCookie } from "./helpers";

/**
 * A goal's baseline date and an objective's dates are bounded as weekly data is (decision 009, stop 42): a mistyped
 * year (1900, 2207, 2999) is refused at its field with nothing written, on the API and the goal form alike; a normal
 * date saves; a goal stored with a far date before the rule still shows and saves its other fields.
 */
let w: Awaited<ReturnType<typeof oneRecordOfEach>>;
beforeAll(async () => {
  w = await oneRecordOfEach();
});

const FAR = [
  ["far past", "1900-01-01", /no earlier than .* \(10 years back\)\./],
  ["far future", "2999-12-31", /no later than .*\./],
  ["typo 2207", "2207-01-16", /no later than .*\./],
] as const;

describe("goal and objective dates refuse a mistyped year", () => {
  it.each(FAR)("objective end_date %s (PATCH): 422 at end_date, nothing changed", async (_n, date, message) => {
    const before = (await db().select().from(objectives).where(eq(objectives.id, w.objective.id)))[0]!;
    const res = await api(`/v2/objectives/${w.objective.id}`, { method: "PATCH", token: w.token, body: { end_date: date } });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { errors: Record<string, string> };
    expect(body.errors.end_date).toMatch(/^End date can be /);
    expect(body.errors.end_date).toMatch(message);
    expect((await db().select().from(objectives).where(eq(objectives.id, w.objective.id)))[0]).toEqual(before);
  });

  it.each(FAR)("plan baseline_date %s (PATCH): 422 at baseline_date, nothing changed", async (_n, date, message) => {
    const before = (await db().select().from(plans).where(eq(plans.id, w.plan.id)))[0]!;
    const res = await api(`/v2/plans/${w.plan.id}`, { method: "PATCH", token: w.token, body: { baseline_date: date } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.baseline_date).toMatch(message);
    expect((await db().select().from(plans).where(eq(plans.id, w.plan.id)))[0]).toEqual(before);
  });

  it("a baseline date after the current week is refused; an objective end date next year is accepted", async () => {
    const nextYear = `${new Date().getUTCFullYear() + 1}-06-01`;
    const base = await api(`/v2/plans/${w.plan.id}`, { method: "PATCH", token: w.token, body: { baseline_date: nextYear } });
    expect(base.status).toBe(422);
    expect(((await base.json()) as { errors: Record<string, string> }).errors.baseline_date).toMatch(/^Baseline date can be no later than the end of the current week/);
    const ok = await api(`/v2/objectives/${w.objective.id}`, { method: "PATCH", token: w.token, body: { initial_date: "2026-01-01", end_date: nextYear } });
    expect(ok.status).toBe(200);
    const okBase = await api(`/v2/plans/${w.plan.id}`, { method: "PATCH", token: w.token, body: { baseline_date: "2026-01-03" } });
    expect(okBase.status).toBe(200);
  });

  it("creates: a plan with a far baseline or objective period, and an objective with one, are refused at the field; nothing created", async () => {
    const count = async () => (await db().select().from(plans).where(eq(plans.bipId, w.bip.id))).length;
    const n = await count();
    const plan = await api(`/v2/plans`, { method: "POST", token: w.token, body: { bip_id: w.bip.id, name: "Hitting", category: "maladaptive", baseline_date: "2999-12-01", objectives: [{ type: "STO", initial_date: "1900-01-01", end_date: "2999-12-31" }] } });
    expect(plan.status).toBe(422);
    expect(Object.keys(((await plan.json()) as { errors: Record<string, string> }).errors).sort()).toEqual(["baseline_date", "objectives.0.end_date", "objectives.0.initial_date"]);
    const obj = await api(`/v2/objectives`, { method: "POST", token: w.token, body: { plan_id: w.plan.id, type: "STO", end_date: "2207-01-16" } });
    expect(obj.status).toBe(422);
    expect(((await obj.json()) as { errors: Record<string, string> }).errors.end_date).toMatch(/^End date can be no later than/);
    expect(await count()).toBe(n);
  });

  it("the goal form (no JavaScript): a far baseline or objective period answers 422 with the field messages, typed values kept", async () => {
    const cookie = await signInCookie(w.admin);
    const res = await form(`/bip/goal/add/${w.bip.id}`, { name: "Kept goal", category: "maladaptive", baseline_date: "2999-12-01", "objectives.0.type": "STO", "objectives.0.initial_date": "1900-01-01", "objectives.0.end_date": "2999-12-31" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain("Baseline date can be no later than the end of the current week");
    expect(html).toContain("Initial date can be no earlier than");
    expect(html).toContain("Kept goal");
  });

  it("a goal stored with a far date before the rule still shows, and a change of another field saves", async () => {
    const old = await createPlan(w.bip, { baselineDate: "2999-12-01" });
    const obj = await createObjective(old, { endDate: "2207-01-16" });
    expect((await api(`/v2/plans/${old.id}`, { token: w.token })).status).toBe(200);
    expect((await api(`/v2/plans/${old.id}`, { method: "PATCH", token: w.token, body: { name: "Renamed" } })).status).toBe(200);
    expect((await api(`/v2/objectives/${obj.id}`, { method: "PATCH", token: w.token, body: { name: "Renamed" } })).status).toBe(200);
  });

  it("messages use the weekly data's wording", () => {
    expect(GOAL_DATE_MESSAGES.tooOld("End date", "2016-11-28")).toBe("End date can be no earlier than 11/28/2016 (10 years back).");
  });
});
