import { and, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { bips, chartComments, objectives, plans, weeklyReports } from "../app/db/schema";
import { DEFAULT_CAREGIVER_GOALS } from "../app/domain/bip-defaults";
import { addDays, weekEndingOn } from "../app/domain/weeks";

/**
 * Demo goals for every demo BIP: two maladaptive behaviors, two replacement skills, an RBT-training and
 * a teacher-training goal, each with objectives, about a year of weekly data and a few chart comments —
 * so the charts look like a real caseload. Plans and objectives have fixed ids and are inserted when
 * missing; weekly data and comments are written only for a seeded plan that has none yet, so what a
 * user adds to the demo survives `npm start`.
 */

/** Deterministic pseudo-random numbers (mulberry32), so every seed run draws the same caseload. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface GoalSpec {
  category: string;
  name: string;
  description: string;
  /** Weekly value at the start of treatment and at the end of the year (trend with noise). */
  from: number;
  to: number;
  baseline: number;
  perHour?: boolean;
  unitType?: string | null;
}

const GOALS: GoalSpec[] = [
  { category: "maladaptive", name: "Physical aggression", description: "Hitting, kicking or pushing others with enough force to leave a mark or cause pain.", from: 24, to: 4, baseline: 28 },
  { category: "maladaptive", name: "Elopement", description: "Leaving the supervised area without permission by more than 10 feet.", from: 9, to: 1, baseline: 11, perHour: true },
  { category: "replacement", name: "Functional communication (manding)", description: "Requests preferred items and breaks with words, signs or a device instead of problem behavior.", from: 20, to: 85, baseline: 15, unitType: null },
  { category: "replacement", name: "Tolerating denied access", description: "Accepts 'not now' or 'wait' calmly and engages with an alternative within 10 seconds.", from: 10, to: 70, baseline: 5, unitType: null },
  { category: "rbt_training", name: "RBT: prompting hierarchy", description: "Implements the most-to-least prompting hierarchy as written across 4 observed data points.", from: 60, to: 95, baseline: 55, unitType: null },
  { category: "teacher_training", name: "Teacher: antecedent strategies", description: "Teacher delivers visual schedules and transition warnings as written in the classroom.", from: 40, to: 90, baseline: 35, unitType: null },
];

const WEEKS = 48;
const BASELINE_WEEKS = 4;
const COMMENTS = ["Started new school year", "Medication change", "Family vacation", "New RBT assigned", "Parent training began", "Holiday break", "Sick for part of week"];

export const DEMO_BIP_COUNT = 14;
/** Plan ids are (bip − 1) × 20 + goal + 1; ids 7–20 of each block are left for the caregiver goals. */
export const demoPlanId = (bipId: number, goal: number) => (bipId - 1) * 20 + goal + 1;

export async function seedBipGoals(db: Db, now = new Date()): Promise<void> {
  const lastSaturday = addDays(weekEndingOn(now.toISOString().slice(0, 10)), -7);
  const bipRows = await db.select({ id: bips.id, patientId: bips.patientId }).from(bips).where(sql`${bips.id} <= ${DEMO_BIP_COUNT}`);

  const planRows: (typeof plans.$inferInsert)[] = [];
  const objectiveRows: (typeof objectives.$inferInsert)[] = [];
  for (const bip of bipRows) {
    GOALS.forEach((g, k) => {
      const id = demoPlanId(bip.id, k);
      const maladaptive = g.category === "maladaptive";
      // Four weeks of baseline data, then treatment.
      const baselineDate = addDays(lastSaturday, -7 * (WEEKS - BASELINE_WEEKS));
      planRows.push({
        id,
        bipId: bip.id,
        patientId: bip.patientId,
        name: g.name,
        description: g.description,
        category: g.category,
        status: "active",
        baselineLevel: g.baseline,
        baselineDate,
        baselineTimeframe: maladaptive ? "per_hour" : null,
        timeframe: maladaptive ? (g.perHour ? "per_hour" : "per_week") : null,
        unitType: maladaptive ? "occurrences" : null,
        currentProgress: maladaptive ? "Decreasing steadily since treatment began." : "Increasing with the current prompting plan.",
        position: GOALS.slice(0, k).filter((x) => x.category === g.category).length + 1,
      });
      // Three objectives: two STOs at a quarter and a half of the way, the LTO at the end of the year.
      const steps = [0.35, 0.65, 1];
      steps.forEach((f, j) => {
        const target = Math.round(g.from + (g.to - g.from) * f);
        const endDate = addDays(baselineDate, Math.round(7 * 52 * f));
        objectiveRows.push({
          id: id * 5 + j,
          planId: id,
          type: j === 2 ? "LTO" : "STO",
          status: endDate < lastSaturday ? "mastered" : j === 2 ? "not started" : "in progress",
          name: j === 2 ? `${g.name}: long-term goal` : `${g.name}: step ${j + 1}`,
          description: maladaptive ? `Reduce ${g.name.toLowerCase()} to ${target} or fewer ${g.perHour ? "incidents per hour" : "per week"}.` : `Reach ${target}% of opportunities.`,
          target,
          startPoint: g.baseline,
          initialDate: baselineDate,
          endDate,
          weeksToComplete: Math.round(52 * f),
          comparisonOperator: maladaptive ? "<=" : ">=",
          position: j + 1,
        });
      });
    });
  }
  // The thirteen default caregiver-training goals, as a new BIP gets them (monthly fidelity checks: no weekly data).
  for (const bip of bipRows) {
    DEFAULT_CAREGIVER_GOALS.forEach((g, n) => {
      planRows.push({ id: demoPlanId(bip.id, GOALS.length + n), bipId: bip.id, patientId: bip.patientId, name: g.name, description: g.description, category: "caregiver_training", status: "active", position: n + 1 });
    });
  }
  for (let i = 0; i < planRows.length; i += 40) await db.insert(plans).values(planRows.slice(i, i + 40)).onConflictDoNothing();
  for (let i = 0; i < objectiveRows.length; i += 40) await db.insert(objectives).values(objectiveRows.slice(i, i + 40)).onConflictDoNothing();

  // Weekly data and comments only for seeded plans that have none.
  const planIds = planRows.filter((p) => p.category !== "caregiver_training").map((p) => p.id!);
  const withData = new Set(
    (await db.selectDistinct({ planId: weeklyReports.planId }).from(weeklyReports).where(inArray(weeklyReports.planId, planIds))).map((r) => r.planId),
  );
  const withComments = new Set(
    (await db.selectDistinct({ planId: chartComments.planId }).from(chartComments).where(inArray(chartComments.planId, planIds))).map((r) => r.planId),
  );
  for (const plan of planRows) {
    const g = GOALS.find((x) => x.name === plan.name);
    if (!g) continue;
    const rnd = random(plan.id!);
    const weeks = WEEKS;
    if (!withData.has(plan.id!)) {
      const rows: (typeof weeklyReports.$inferInsert)[] = [];
      for (let w = 0; w < weeks; w++) {
        // A few missed weeks make the gaps visible (not in the training charts, which are not gap-filled).
        if (rnd() < 0.06) continue;
        const weekEnd = addDays(lastSaturday, -7 * (weeks - 1 - w));
        const treatmentWeek = w - BASELINE_WEEKS;
        const trend = treatmentWeek < 0 ? g.baseline : g.from + ((g.to - g.from) * treatmentWeek) / (weeks - BASELINE_WEEKS - 1);
        const noise = (rnd() - 0.5) * Math.max(4, Math.abs(g.from - g.to) * 0.3);
        const totalUnits = rnd() < 0.2 ? null : 60 + Math.round(rnd() * 10) * 4;
        const value = Math.max(0, Math.round(g.category === "maladaptive" || g.category === "replacement" ? trend + noise : Math.min(100, trend + noise)));
        rows.push({ planId: plan.id!, weekStart: addDays(weekEnd, -6), weekEnd, value, totalUnits });
      }
      for (let i = 0; i < rows.length; i += 50) await db.insert(weeklyReports).values(rows.slice(i, i + 50)).onConflictDoNothing();
    }
    if (!withComments.has(plan.id!)) {
      const rows = [6, 19, 33].map((w, c) => ({
        planId: plan.id!,
        commentDate: addDays(lastSaturday, -7 * (weeks - 1 - w) - 2),
        comment: COMMENTS[(plan.id! + c) % COMMENTS.length]!,
      }));
      await db.insert(chartComments).values(rows);
    }
  }

  // A short narrative for each demo BIP whose document is still empty (defaults fill the rest when shown).
  for (const bip of bipRows) {
    await db
      .update(bips)
      .set({
        document: JSON.stringify({
          background_information: "{name} lives at home with {his|her|their} parents and attends a general education classroom with support. {He|She|They} {was|were} diagnosed with autism spectrum disorder (F84.0) and {was|were} referred for ABA services by {his|her|their} pediatrician.",
          strengths: "{name} enjoys music, puzzles and outdoor play, follows one-step instructions and imitates peers.",
          weaknesses: "{name} has difficulty waiting, transitioning between activities and requesting help.",
        }),
      })
      .where(and(eq(bips.id, bip.id), eq(bips.document, "{}")));
  }
}
