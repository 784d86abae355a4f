import { and, desc, eq, gte, isNotNull, lt, lte, sql, type SQL } from "drizzle-orm";
import { auditLog } from "~/db/schema";
import { locationScope } from "~/domain/permissions";
import type { AuditFilters, AuditReportRow } from "~/domain/report-defs/audit";
import { addDays } from "~/domain/reports";
import { verifyShownEntries } from "~/services/audit.server";
import { windowed, type ReportQuery, type ReportRunner } from "~/services/report-screens.server";
import type { ModelContext } from "../context";

/**
 * The logs and access reports' reads (decision 038). Scope: an entry naming a client is shown when the client
 * is in the actor's locations (one client, or any of the clients its detail lists); an entry naming no client when
 * its actor (staff or parent) belongs to one of them; sign-ins nobody made (anonymous) only to all-location actors. Indexes: audit_at_idx (at),
 * audit_actor_at_idx (actor_id, at), audit_patient_at_idx (patient_id, at) of migration 0012.
 * Id lists (the actor's locations, the entries checked) travel as one JSON parameter each (json_each), so a page
 * of 100 entries or an actor at many locations stays within D1's 100 bound parameters per statement (probe 8905).
 */

/** `ids` as one bound parameter: the rows of json_each, for `x in (…)`. */
function idList(ids: readonly number[]): SQL {
  return sql`select value from json_each(${JSON.stringify(ids)})`;
}

/**
 * Whether an entry names clients in its detail (a list read, a report run: `{"patients":[…]}`, at least one). The
 * text test comes first, so the JSON of most entries is never parsed; CASE parses only valid JSON.
 */
const namesClients = sql`(case when instr(${auditLog.detail}, '"patients"') > 0 and json_valid(${auditLog.detail})
    then json_type(${auditLog.detail}, '$.patients') = 'array' and json_array_length(${auditLog.detail}, '$.patients') > 0
    else 0 end)`;

/**
 * An entry naming one client (`patient_id`) shows when that client is in the actor's locations; one naming clients
 * in its detail's `patients` list when at least one of them is (decision 038 §7, 2026-11-28: a list read of another
 * location's clients by a colleague of two locations is not shown); one naming no client when its actor belongs to
 * one of them.
 */
function scopeOf(ctx: ModelContext): SQL | undefined {
  const scope = locationScope(ctx.actor);
  if (scope === null) return undefined;
  if (scope.length === 0) return sql`1 = 0`;
  const ids = idList(scope);
  return sql`(case
    when ${auditLog.patientId} is not null then exists (select 1 from patients p where p.id = ${auditLog.patientId} and p.location_id in (${ids}))
    when ${namesClients} then exists (select 1 from json_each(${auditLog.detail}, '$.patients') j join patients p on p.id = j.value where p.location_id in (${ids}))
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

function whereOf(ctx: ModelContext, f: AuditFilters, period: { from: string; to: string }, clientOnly: boolean, asOf: number | null): SQL {
  return and(
    asOf === null ? undefined : lte(auditLog.id, asOf),
    gte(auditLog.at, period.from),
    lt(auditLog.at, addDays(period.to, 1)),
    f.actor_id === null ? undefined : and(eq(auditLog.actorId, f.actor_id), eq(auditLog.actorType, "user")),
    f.patient_id === null ? undefined : eq(auditLog.patientId, f.patient_id),
    f.action === "" ? undefined : eq(auditLog.action, f.action),
    clientOnly ? isNotNull(auditLog.patientId) : undefined,
    scopeOf(ctx)
  )!;
}

const actorName = sql<string | null>`(case ${auditLog.actorType}
  when 'user' then (select u.name || ' ' || u.surname from users u where u.id = ${auditLog.actorId})
  when 'parent' then (select pa.name || ' ' || pa.surname from parents pa where pa.id = ${auditLog.actorId})
  else null end)`;
const clientName = sql<string | null>`(select pt.first_name || ' ' || pt.last_name from patients pt where pt.id = ${auditLog.patientId})`;
/**
 * How many clients an entry's detail names: its `patients` list wherever the object holds it (a list read,
 * a report run), else the `patients_count` of a report too large to list them; null for any other detail.
 * CASE evaluates only the branch it picks, so a detail that is not JSON is never parsed.
 */
const clientsNamed = sql<number | null>`(case when json_valid(${auditLog.detail}) then coalesce(
    case when json_type(${auditLog.detail}, '$.patients') = 'array' then json_array_length(${auditLog.detail}, '$.patients') end,
    case when json_type(${auditLog.detail}, '$.patients_count') = 'integer' then json_extract(${auditLog.detail}, '$.patients_count') end
  ) end)`;

/** An entry's detail when it lists what an update changed (`{"changed": […]}`), else null: the logs report's Changes. */
const changeDetail = sql<string | null>`(case when instr(${auditLog.detail}, '"changed"') > 0 then ${auditLog.detail} end)`;

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
      change_detail: changeDetail,
      ip: auditLog.ip,
    })
    .from(auditLog)
    .where(where)
    .orderBy(desc(auditLog.at), desc(auditLog.id))
    .limit(q.limit)
    .offset(q.offset);
}

function finish(rows: AuditReportRow[], q: ReportQuery<AuditFilters>, asOf: number | null) {
  const page = windowed(rows, q);
  const patientIds = [...new Set(page.rows.map((r) => r.patient_id).filter((x): x is number => x != null))];
  return { ...page, patientIds, asOf };
}

/**
 * The trail's newest entry, read in the page's batch (one transaction: the page holds exactly the entries up to it).
 * Every page of the trail is read up to one entry (`as_of`), the newest when its first page was read: opening a page
 * writes an entry itself, and others write meanwhile, so pages by offset over a growing trail would repeat entries
 * (decision 038, 2026-11-28).
 */
function newestEntryQuery(ctx: ModelContext) {
  return ctx.db.select({ id: sql<number | null>`max(${auditLog.id})` }).from(auditLog);
}

/** The trail read up to `as_of` (given) or to its newest entry (a first page): the page and the bound it used. */
async function readTrail(rc: Parameters<ReportRunner<AuditFilters, AuditReportRow>>[0], q: ReportQuery<AuditFilters>, period: { from: string; to: string }, clientOnly: boolean) {
  const [rows, newest] = await rc.read([pageQuery(rc, whereOf(rc, q.filters, period, clientOnly, q.asOf), q), newestEntryQuery(rc)]);
  return finish(rows as AuditReportRow[], q, q.asOf ?? (newest as { id: number | null }[])[0]?.id ?? null);
}

/** What the screen says of the bound. */
function boundNote(asOf: number | null): string[] {
  return asOf === null ? [] : [`Entries up to entry ${asOf}, the newest when the first page was opened: press Filter to include newer ones.`];
}

export const runLogsReport: ReportRunner<AuditFilters, AuditReportRow> = async (rc, q) => {
  const period = auditPeriod(q.filters, rc.now(), 7);
  const answer = await readTrail(rc, q, period, false);
  const notes = [`Period: ${period.from} to ${period.to} (UTC).`, ...boundNote(answer.asOf)];
  if (q.csv || answer.rows.length === 0) {
    await rc.audited(answer, []);
    return { ...answer, notes };
  }
  // The integrity check of the entries shown: each with the entry before it, read by id in the audit row's batch.
  const ids = answer.rows.map((r) => r.id);
  const wanted = [...new Set(ids.flatMap((id) => [id, id - 1]))];
  const [entries] = await rc.audited(answer, [rc.db.select().from(auditLog).where(sql`${auditLog.id} in (${idList(wanted)})`)]);
  const check = await verifyShownEntries(ids, entries);
  notes.push(
    check.ok
      ? `Integrity check: the ${ids.length} entries shown and their links to the entries before them hold.`
      : `Integrity check FAILED: entry ${check.brokenAt} does not match its hash or its link to the entry before it.`,
  );
  return { ...answer, notes };
};

export const runAccessReport: ReportRunner<AuditFilters, AuditReportRow> = async (rc, q) => {
  const period = auditPeriod(q.filters, rc.now(), 30);
  const answer = await readTrail(rc, q, period, true);
  return { ...answer, notes: [`Period: ${period.from} to ${period.to} (UTC).`, ...boundNote(answer.asOf)] };
};
