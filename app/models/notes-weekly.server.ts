import { and, eq, isNull, sql, type SQL } from "drizzle-orm";
import { bips, notes, patients, plans, weeklyReports } from "~/db/schema";
import { sameMeasure } from "~/domain/measure";
import { NotesWeeklyInput, notesWeeklyMessage, weeklyValuesFromSessions, wholeWeeks, type SessionData, type WeekValue } from "~/domain/notes-weekly";
import { parseWith } from "~/domain/validation";
import { auditTail, withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import { planInScopeWhere } from "./bip-scope.server";
import type { ModelContext } from "./context";
import { patientScope, who } from "./patients.server";
import { invalid, ok, type ModelResult } from "./results";
import { REFERENCE_MESSAGES } from "~/domain/references";
import { touchPlan, WEEKLY_REPORTS } from "./weekly-reports.server";

/**
 * Weekly reports generated from a client's RBT notes (issue 10; docs/decisions/029). The rule is in
 * app/domain/notes-weekly.ts; this reads, compares and upserts:
 *
 * 1. ONE batch reads the client in scope (with the audit chain's tail), the client's live plans, the live
 *    RBT notes of the whole weeks of the range (only the two lists of their content) and the weekly
 *    reports already stored for those plans and weeks. Every statement carries the client's scope, so
 *    nothing of another location is read; a client out of scope answers 422 at patient_id, and a plan_id that
 *    is not one of the client's live plans (or of the actor's locations) 422 at plan_id (body references,
 *    decision 017).
 * 2. ONE batch upserts the weeks whose value is new or changed (one statement for all rows; a week that
 *    has a report keeps its id and total_units, its value is replaced and its version moves), bumps the
 *    weekly-report list cache, touches the plans written, and writes the audit row (entity patient,
 *    action generate_weekly_reports, the plans, range and counts in `detail`). A generation that changes
 *    nothing still writes its audit row: the client's notes were read.
 */

export type WeekStatus = "created" | "updated" | "unchanged";

export interface GeneratedWeek extends WeekValue {
  status: WeekStatus;
  /** The value stored before, for an updated or unchanged week. */
  previous_value: number | null;
}

export interface NotesWeeklyResult {
  patient_id: number;
  plan_id: number | null;
  /** The range asked for, and the whole weeks it was widened to. */
  date_from: string;
  date_to: string;
  week_from: string;
  week_to: string;
  sessions: number;
  created: number;
  updated: number;
  unchanged: number;
  weeks: GeneratedWeek[];
}

/** A list from the content JSON (json_extract answers arrays as JSON text); anything else is no list. */
function jsonList(x: unknown): unknown {
  if (typeof x !== "string") return x ?? null;
  try {
    return JSON.parse(x) as unknown;
  } catch {
    return null;
  }
}

export async function generateWeeklyReportsFromNotes(ctx: ModelContext, raw: Record<string, unknown>): Promise<ModelResult<NotesWeeklyResult>> {
  const parsed = parseWith(NotesWeeklyInput, { patient_id: raw.patient_id, plan_id: raw.plan_id, date_from: raw.date_from, date_to: raw.date_to });
  if (!parsed.ok) return invalid(parsed.errors);
  const input = parsed.data;
  const weeks = wholeWeeks(input.date_from, input.date_to);
  // The client named, or (the goal screen) the client of the plan named: a subquery, not a round trip.
  const patientId: SQL | number = input.patient_id ?? sql`(select ${plans.patientId} from ${plans} where ${plans.id} = ${input.plan_id})`;
  const clientInScope = and(eq(patients.id, patientId), patientScope(ctx));
  // The content's lists only (not the narrative); a content that is not JSON yields nulls, not an error.
  // Named: in a batch D1 answers rows keyed by column name, and both expressions would read the same.
  const list = (key: "maladaptives" | "replacements") => sql<string | null>`case when json_valid(${notes.content}) then json_extract(${notes.content}, ${`$.${key}`}) end`.as(key);

  const [[client], planRows, noteRows, stored] = await ctx.db.batch([
    ctx.db.select({ id: patients.id, tail: auditTail }).from(patients).where(clientInScope),
    ctx.db
      .select({ id: plans.id, category: plans.category, timeframe: plans.timeframe })
      .from(plans)
      .innerJoin(bips, eq(bips.id, plans.bipId))
      .innerJoin(patients, eq(patients.id, plans.patientId))
      .where(and(eq(plans.patientId, patientId), planInScopeWhere(ctx))),
    // notes_patient_date_idx (patient_id, session_date) where deleted_at is null.
    ctx.db
      .select({ session_date: notes.sessionDate, units: notes.units, maladaptives: list("maladaptives"), replacements: list("replacements") })
      .from(notes)
      .innerJoin(patients, eq(patients.id, notes.patientId))
      .where(and(eq(notes.patientId, patientId), isNull(notes.deletedAt), eq(notes.type, "rbt"), sql`${notes.sessionDate} between ${weeks.from} and ${weeks.to}`, patientScope(ctx))),
    // weekly_reports_plan_week_unique (plan_id, week_end).
    ctx.db
      .select({ planId: weeklyReports.planId, weekEnd: weeklyReports.weekEnd, value: weeklyReports.value, totalUnits: weeklyReports.totalUnits })
      .from(weeklyReports)
      .innerJoin(plans, eq(plans.id, weeklyReports.planId))
      .innerJoin(patients, eq(patients.id, plans.patientId))
      .where(and(eq(plans.patientId, patientId), sql`${weeklyReports.weekEnd} between ${weeks.from} and ${weeks.to}`, patientScope(ctx))),
  ]);
  // Body references (decision 017): a client or goal the actor cannot see, whether of another location or none,
  // answers 422 at its field; nothing is written. Without patient_id the client is the goal's, so the goal is named.
  if (!client) return invalid(input.patient_id === null ? { plan_id: REFERENCE_MESSAGES.goal } : { patient_id: REFERENCE_MESSAGES.client });
  if (input.plan_id !== null && !planRows.some((p) => p.id === input.plan_id)) return invalid({ plan_id: REFERENCE_MESSAGES.goal });

  const sessions: SessionData[] = noteRows.map((n) => ({ session_date: n.session_date, units: n.units, maladaptives: jsonList(n.maladaptives), replacements: jsonList(n.replacements) }));
  const before = new Map(stored.map((s) => [`${s.planId}:${s.weekEnd}`, s]));
  const values = weeklyValuesFromSessions(sessions, planRows, input.plan_id);
  const generated: GeneratedWeek[] = values.map((w) => {
    const previous = before.get(`${w.plan_id}:${w.week_end}`);
    // A per-hour week also carries its units: a change of either is an update.
    // Compared as stored (2 decimals, decision 029): a value stored with more decimals before the rule is not "updated" to itself.
    const same = previous !== undefined && sameMeasure(previous.value, w.value) && (w.total_units === null || sameMeasure(previous.totalUnits, w.total_units));
    const status: WeekStatus = previous === undefined ? "created" : same ? "unchanged" : "updated";
    // The answer says what the week holds after the run: units not derived from notes keep the stored ones.
    return { ...w, total_units: w.total_units ?? previous?.totalUnits ?? null, status, previous_value: previous?.value ?? null };
  });
  // Written as the notes say (null units: the upsert keeps the stored ones, as typed).
  const writes = values.filter((_, i) => generated[i]!.status !== "unchanged");
  const count = (s: WeekStatus) => generated.filter((w) => w.status === s).length;
  const result: NotesWeeklyResult = {
    patient_id: client.id,
    plan_id: input.plan_id,
    date_from: input.date_from,
    date_to: input.date_to,
    week_from: weeks.from,
    week_to: weeks.to,
    sessions: noteRows.length,
    created: count("created"),
    updated: count("updated"),
    unchanged: count("unchanged"),
    weeks: generated,
  };
  const planIds = [...new Set(writes.map((w) => w.plan_id))];
  const entry = {
    action: "generate_weekly_reports",
    entity: "patient",
    entityId: client.id,
    patientId: client.id,
    detail: { source: "notes", plans: planIds, week_from: weeks.from, week_to: weeks.to, created: result.created, updated: result.updated },
  };
  if (writes.length === 0) {
    await withAudit(ctx.db, who(ctx), entry, () => [] as [], client.tail);
    return ok(result, notesWeeklyMessage(0));
  }
  const now = ctx.now().toISOString();
  // Every week in one statement: the rows travel as one JSON parameter (D1 binds at most 100 per statement).
  // Columns in table order: id (assigned), plan_id, week_start, week_end, value, total_units, version, created_at, updated_at.
  // `u`: a per-hour week's units (null for other plans, whose total units stay as typed).
  const payload = JSON.stringify(writes.map((w) => ({ p: w.plan_id, s: w.week_start, e: w.week_end, v: w.value, u: w.total_units })));
  const rows = sql`select null, json_extract(value, '$.p'), json_extract(value, '$.s'), json_extract(value, '$.e'), json_extract(value, '$.v'), json_extract(value, '$.u'), 1, ${now}, ${now}
    from json_each(${payload}) where true`;
  const upsert = () =>
    ctx.db
      .insert(weeklyReports)
      .select(rows)
      .onConflictDoUpdate({
        target: [weeklyReports.planId, weeklyReports.weekEnd],
        set: { value: sql`excluded.value`, totalUnits: sql`coalesce(excluded.total_units, ${weeklyReports.totalUnits})`, version: sql`${weeklyReports.version} + 1`, updatedAt: now },
        setWhere: sql`${weeklyReports.value} is not excluded.value or (excluded.total_units is not null and ${weeklyReports.totalUnits} is not excluded.total_units)`,
      });
  await withAudit(ctx.db, who(ctx), entry, () => [upsert(), bumpListVersion(ctx.db, WEEKLY_REPORTS), touchPlan(ctx, planIds)], client.tail);
  return ok(result, notesWeeklyMessage(writes.length));
}
