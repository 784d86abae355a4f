import { and, asc, between, desc, eq, gte, isNotNull, lt, sql, type SQL } from "drizzle-orm";
import { auditLog } from "~/db/schema";
import { locationScope } from "~/domain/permissions";
import type { AuditFilters, AuditReportRow } from "~/domain/report-defs/audit";
import { addDays } from "~/domain/reports";
import { verifyChainSegment } from "~/services/audit.server";
import type { ReportQuery, ReportRunner } from "~/services/report-screens.server";
import type { ModelContext } from "../context";

/**
 * The logs and access reports' reads (decision 038). Scope: an entry naming a client is shown when the client
 * is in the actor's locations; an entry naming no client when its actor (staff or parent) belongs to one of
 * them; sign-ins nobody made (anonymous) only to all-location actors. Indexes: audit_at_idx (at),
 * audit_actor_at_idx (actor_id, at), audit_patient_at_idx (patient_id, at) of migration 0012.
 */

/** Counted at most this far (like the notes lists, decision 035): "10,000+ entries". */
export const AUDIT_COUNT_CAP = 10_000;
/** The integrity check reads at most this many consecutive entries. */
export const CHAIN_CHECK_MAX = 2_000;

function scopeOf(ctx: ModelContext): SQL | undefined {
  const scope = locationScope(ctx.actor);
  if (scope === null) return undefined;
  if (scope.length === 0) return sql`1 = 0`;
  const ids = sql.join(
    scope.map((id) => sql`${id}`),
    sql`, `,
  );
  return sql`(case
    when ${auditLog.patientId} is not null then exists (select 1 from patients p where p.id = ${auditLog.patientId} and p.location_id in (${ids}))
    when ${auditLog.actorType} = 'user' then exists (select 1 from user_locations ul where ul.user_id = ${auditLog.actorId} and ul.location_id in (${ids}))
    when ${auditLog.actorType} = 'parent' then exists (select 1 from parents pa where pa.id = ${auditLog.actorId} and pa.location_id in (${ids}))
    else 0 end)`;
}

/** The period read: the filters', else the last `days` days up to today (UTC, the trail's clock). */
export function auditPeriod(f: Pick<AuditFilters, "date_from" | "date_to">, now: Date, days: number): { from: string; to: string } {
  const today = now.toISOString().slice(0, 10);
  const to = f.date_to ?? (f.date_from ? addDays(f.date_from, days - 1) : today);
  const from = f.date_from ?? addDays(to, -(days - 1));
  return { from, to };
}

function whereOf(ctx: ModelContext, f: AuditFilters, period: { from: string; to: string }, clientOnly: boolean): SQL {
  return and(
    gte(auditLog.at, period.from),
    lt(auditLog.at, addDays(period.to, 1)),
    f.actor_id === null ? undefined : and(eq(auditLog.actorId, f.actor_id), eq(auditLog.actorType, "user")),
    f.patient_id === null ? undefined : eq(auditLog.patientId, f.patient_id),
    f.action === "" ? undefined : eq(auditLog.action, f.action),
    clientOnly ? isNotNull(auditLog.patientId) : undefined,
    scopeOf(ctx),
  )!;
}

const actorName = sql<string | null>`(case ${auditLog.actorType}
  when 'user' then (select u.name || ' ' || u.surname from users u where u.id = ${auditLog.actorId})
  when 'parent' then (select pa.name || ' ' || pa.surname from parents pa where pa.id = ${auditLog.actorId})
  else null end)`;
const clientName = sql<string | null>`(select pt.first_name || ' ' || pt.last_name from patients pt where pt.id = ${auditLog.patientId})`;
const clientsNamed = sql<number | null>`(case when ${auditLog.detail} like '{"patients":[%' then json_array_length(${auditLog.detail}, '$.patients') else null end)`;

function pageQuery(ctx: ModelContext, where: SQL, q: ReportQuery<AuditFilters>) {
  return ctx.db
    .select({
      id: auditLog.id,
      at: auditLog.at,
      actor_type: auditLog.actorType,
      actor_id: auditLog.actorId,
      actor_name: actorName,
      action: auditLog.action,
      entity: auditLog.entity,
      entity_id: auditLog.entityId,
      patient_id: auditLog.patientId,
      client_name: clientName,
      clients_named: clientsNamed,
      ip: auditLog.ip,
    })
    .from(auditLog)
    .where(where)
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(q.limit)
    .offset(q.offset);
}

function cappedCount(ctx: ModelContext, where: SQL, q: ReportQuery<AuditFilters>) {
  const cap = Math.max(AUDIT_COUNT_CAP, q.page * q.per_page);
  const inner = ctx.db.select({ one: sql`1` }).from(auditLog).where(where).limit(q.csv ? 0 : cap + 1);
  return ctx.db.select({ n: sql<number>`count(*)`.mapWith(Number) }).from(inner.as("capped"));
}

function finish(rows: AuditReportRow[], counted: number, q: ReportQuery<AuditFilters>) {
  const cap = Math.max(AUDIT_COUNT_CAP, q.page * q.per_page);
  const patientIds = [...new Set(rows.map((r) => r.patient_id).filter((x): x is number => x != null))];
  return { rows, total: Math.min(counted, cap), totalIsLowerBound: counted > cap, patientIds };
}

export const runLogsReport: ReportRunner<AuditFilters, AuditReportRow> = async (rc, q) => {
  const period = auditPeriod(q.filters, rc.now(), 7);
  const where = whereOf(rc, q.filters, period, false);
  const [rows, [counted]] = await rc.read([pageQuery(rc, where, q), cappedCount(rc, where, q)]);
  const answer = finish(rows as AuditReportRow[], counted?.n ?? 0, q);
  const notes = [`Period: ${period.from} to ${period.to} (UTC).`];
  if (q.csv || rows.length === 0) {
    await rc.audited(answer.patientIds, []);
    return { ...answer, notes };
  }
  // The integrity check of the entries shown: the consecutive run from the oldest to the newest shown (at most CHAIN_CHECK_MAX).
  const ids = rows.map((r) => r.id);
  const top = Math.max(...ids);
  const bottom = Math.max(Math.min(...ids), top - CHAIN_CHECK_MAX + 1);
  const [segment] = await rc.audited(answer.patientIds, [rc.db.select().from(auditLog).where(between(auditLog.id, bottom, top)).orderBy(asc(auditLog.id))]);
  const check = await verifyChainSegment(segment);
  notes.push(
    check.ok
      ? `Integrity check: the chain holds for entries ${check.from} to ${check.to} (${check.rows} entries checked).`
      : `Integrity check FAILED: entry ${check.brokenAt} does not match its hash or its link to the entry before it (entries ${check.from} to ${check.to} checked).`,
  );
  return { ...answer, notes };
};

export const runAccessReport: ReportRunner<AuditFilters, AuditReportRow> = async (rc, q) => {
  const period = auditPeriod(q.filters, rc.now(), 30);
  const where = whereOf(rc, q.filters, period, true);
  const [rows, [counted]] = await rc.read([pageQuery(rc, where, q), cappedCount(rc, where, q)]);
  return { ...finish(rows as AuditReportRow[], counted?.n ?? 0, q), notes: [`Period: ${period.from} to ${period.to} (UTC).`] };
};

