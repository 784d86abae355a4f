import { and, asc, eq, gte, isNull, sql, type SQL } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { primaryOf } from "~/db/client.server";
import { locations, notes, paServices, patients, scheduledSessions, scheduleSeries, userLocations, users } from "~/db/schema";
import { can, locationScope } from "~/domain/permissions";
import { storedPairs, todayIn, ZONE_SPREAD_MINUTES } from "~/domain/note-rules";
import { NOTE_LIMITS } from "~/domain/notes";
import { bookingDates, BookingSchema, bookingStartRefusal, cancelFromInput, checkBooking, occurrenceTimes, SCHEDULE_MESSAGES, type BookedSession, type RangeQuery, type UnfitReason } from "~/domain/schedule";
import { parseWith } from "~/domain/validation";
import { addDays, dayNumber, weekEndingOn, weekStartOf } from "~/domain/weeks";
import { auditTail, clientIds, clientsReadEntry, isChainRace, withAudit, withAuditIfUnchanged, withConditionalAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { noteOfDeletedClient } from "./notes.server";
import { isKeyRace, who } from "./patients.server";
import { denied, invalid, notFound, ok, replayedOk, type ModelResult } from "./results";
import { withinUnits } from "~/domain/note-rules";
import { idempotencyKeyReused, isTokenRace, oneTimeToken, tokenMatch } from "~/services/idempotency.server";
import { REFERENCE_MESSAGES } from "~/domain/references";
import { idsIn } from "./scope.server";
import { choosableStaff, isChoosableStaff } from "./staff.server";
import { nextIdQuery } from "./ids.server";
import { staffNameForParent } from "./parent-view.server";

/** The list-version row booking writes bump (every cached list depends on every write: decision 017). */
const SCHEDULED_SESSIONS = "scheduled_sessions";

/**
 * Scheduled sessions and the calendar (issue 12, decision 037). Rules are app/domain/schedule.ts (which
 * calls the notes' rule module); this file reads and writes. Scope: a scheduled session belongs to its
 * client's location; another location's session answers 404, a booking naming a client the actor cannot see 422 at
 * patient_id, and another location's filter lists nothing (decision 017).
 *
 * Round trips: a booking is one read batch (client in scope with its location and the audit tail, the
 * provider's membership, the PA service with its used units, the client's and the provider's written notes
 * and scheduled sessions around the dates, the audit tail) and one write batch (series, occurrences, the
 * occurrences read back, audit row); a chain race reads and checks again. A calendar range is one read batch
 * and one audit row; with the guard, three.
 */

export const SESSION_BOOKED = "Session scheduled.";
export const SERIES_BOOKED = (n: number) => `Weekly series scheduled: ${n} session${n === 1 ? "" : "s"}.`;
export const SESSION_CANCELLED = "Session cancelled.";
export const SERIES_CANCELLED = (n: number) => `Rest of the series cancelled: ${n} session${n === 1 ? "" : "s"}.`;

const patientName = sql<string>`trim(${patients.firstName} || ' ' || ${patients.lastName})`;
const providerName = sql<string>`trim(${users.name} || ' ' || ${users.surname})`;

export interface ScheduledJson {
  id: number;
  series_id: number | null;
  patient_id: number;
  patient_name: string;
  provider_id: number;
  provider_name: string;
  location_id: number;
  time_zone: string;
  cpt_code: string;
  pa_service_id: number | null;
  session_date: string;
  time_in: string;
  time_out: string;
  minutes: number;
  units: number;
  status: string;
  note_id: number | null;
  version: number;
}

const scheduledColumns = {
  s: scheduledSessions,
  patientName,
  providerName,
  timeZone: locations.timeZone,
};

type ScheduledRow = { s: typeof scheduledSessions.$inferSelect; patientName: string; providerName: string; timeZone: string };

function scheduledJson(r: ScheduledRow): ScheduledJson {
  const s = r.s;
  return {
    id: s.id,
    series_id: s.seriesId,
    patient_id: s.patientId,
    patient_name: r.patientName,
    provider_id: s.providerId,
    provider_name: r.providerName,
    location_id: s.locationId,
    time_zone: r.timeZone,
    cpt_code: s.cptCode,
    pa_service_id: s.paServiceId,
    session_date: s.sessionDate,
    time_in: s.timeIn,
    time_out: s.timeOut,
    minutes: s.minutes,
    units: s.units,
    status: s.status,
    note_id: s.noteId,
    version: s.version,
  };
}

/** Scheduled sessions in the actor's scope (their client's location, the client not deleted). */
function scheduledScope(ctx: ModelContext): SQL {
  const scope = locationScope(ctx.actor);
  if (scope === null) return isNull(patients.deletedAt);
  if (!scope.length) return sql`1 = 0`;
  return and(isNull(patients.deletedAt), idsIn(scheduledSessions.locationId, scope))!;
}

function scheduledRead(ctx: ModelContext, where: SQL) {
  return ctx.db
    .select(scheduledColumns)
    .from(scheduledSessions)
    .innerJoin(patients, eq(patients.id, scheduledSessions.patientId))
    .innerJoin(users, eq(users.id, scheduledSessions.providerId))
    .innerJoin(locations, eq(locations.id, scheduledSessions.locationId))
    .where(and(where, scheduledScope(ctx)));
}

const manages = (ctx: ModelContext) => can(ctx.actor, "manage_notes");

/* ------------------------------------------------------------------ one session */

/** The client's current location, beside the session's booking location. */
const clientLocations = alias(locations, "client_locations");
/** The other occurrences of a session's series, counted for the cancel's confirm step. */
const seriesRest = alias(scheduledSessions, "series_rest");

/**
 * What "cancel the rest of the series" cancels: the series' occurrences still scheduled on or after `from`. The
 * cancel writes with it and the confirm step counts with it, so the number asked about is the number cancelled.
 */
const restOfSeries = (t: typeof scheduledSessions | typeof seriesRest, seriesId: number | typeof scheduledSessions.seriesId, from: string | typeof scheduledSessions.sessionDate) =>
  and(eq(t.seriesId, seriesId), gte(t.sessionDate, from), eq(t.status, "scheduled"))!;

/**
 * One scheduled session in scope (audited read); null when out of scope or absent. `note_time_zone` is the zone its
 * note's save checks the session in: the client's current location's (the session keeps its booking location's).
 * With `restFrom` (the cancel-the-rest confirm step: a date passed by `cancelFromInput`, "" = the session's own),
 * `rest` says from which date and how many occurrences of its series that cancel would cancel now (0 when the
 * session is in no series), counted in the same read.
 */
export async function getScheduledSession(
  ctx: ModelContext,
  id: number,
  restFrom?: string,
): Promise<(ScheduledJson & { note_time_zone: string; rest?: { from: string; count: number } }) | null> {
  const rest = ctx.db
    .select({ n: sql<number>`count(*)` })
    .from(seriesRest)
    .where(restOfSeries(seriesRest, scheduledSessions.seriesId, restFrom || scheduledSessions.sessionDate));
  // The audit chain's tail rides in the read: guard + read + audit row = 3 round trips.
  const [r] = await ctx.db
    .select({ ...scheduledColumns, noteTimeZone: clientLocations.timeZone, tail: auditTail, ...(restFrom === undefined ? {} : { rest: sql<number>`(${rest})` }) })
    .from(scheduledSessions)
    .innerJoin(patients, eq(patients.id, scheduledSessions.patientId))
    .innerJoin(users, eq(users.id, scheduledSessions.providerId))
    .innerJoin(locations, eq(locations.id, scheduledSessions.locationId))
    .innerJoin(clientLocations, eq(clientLocations.id, patients.locationId))
    .where(and(eq(scheduledSessions.id, id), scheduledScope(ctx)));
  if (!r) return null;
  const s = { ...scheduledJson(r), note_time_zone: r.noteTimeZone, ...("rest" in r ? { rest: { from: restFrom || r.s.sessionDate, count: Number(r.rest) } } : {}) };
  await withAudit(ctx.db, who(ctx), { action: "read", entity: "scheduled_session", entityId: id, patientId: s.patient_id }, () => [] as [], r.tail);
  return s;
}

/* ------------------------------------------------------------------ booking */

export interface BookingResult {
  series_id: number | null;
  sessions: ScheduledJson[];
  units: number;
  /** The PA units warning (null: the PA service has enough units left). */
  warning: string | null;
}

/** Live notes of a client or provider as booked sessions. */
/** A session's location's time zone, beside its row (named in a refusal; a key lookup per row read). */
const zoneOf = (locationId: SQL) => sql<string | null>`(select "time_zone" from "locations" where "locations"."id" = ${locationId})`;

function noteRows(ctx: ModelContext, where: SQL) {
  return ctx.db
    .select({ id: notes.id, patientId: notes.patientId, providerId: notes.providerId, date: notes.sessionDate, s1: notes.start1At, e1: notes.end1At, s2: notes.start2At, e2: notes.end2At, in1: notes.timeIn, out1: notes.timeOut, in2: notes.timeIn2, out2: notes.timeOut2, off: notes.utcOffset, minutes: notes.minutes, zone: zoneOf(sql`"notes"."location_id"`), gone: noteOfDeletedClient })
    .from(notes)
    .where(and(isNull(notes.deletedAt), where));
}

function scheduledRows(ctx: ModelContext, where: SQL) {
  return ctx.db
    .select({ id: scheduledSessions.id, patientId: scheduledSessions.patientId, providerId: scheduledSessions.providerId, date: scheduledSessions.sessionDate, s: scheduledSessions.startAt, e: scheduledSessions.endAt, in1: scheduledSessions.timeIn, out1: scheduledSessions.timeOut, off: scheduledSessions.utcOffset, minutes: scheduledSessions.minutes, zone: zoneOf(sql`"scheduled_sessions"."location_id"`) })
    .from(scheduledSessions)
    .where(and(sql`${scheduledSessions.status} = 'scheduled'`, where));
}

type NoteRow = Parameters<typeof storedPairs>[0] & { id: number; patientId: number; providerId: number; date: string; off: number | null; minutes: number; zone: string | null; gone: number };
type SchedRow = { id: number; patientId: number; providerId: number; date: string; s: number; e: number; in1: string; out1: string; off: number | null; minutes: number; zone: string | null };

function bookedOf(noteRowsList: NoteRow[][], schedRowsList: SchedRow[][]): BookedSession[] {
  const out = new Map<string, BookedSession>();
  for (const rows of noteRowsList)
    for (const r of rows)
      out.set(`note:${r.id}`, {
        key: `note:${r.id}`,
        patientId: r.patientId,
        providerId: r.providerId,
        date: r.date,
        pairs: storedPairs(r),
        minutes: Number(r.minutes ?? 0),
        utcOffset: r.off,
        zone: r.zone,
        clientDeleted: Number(r.gone) === 1,
      });
  for (const rows of schedRowsList)
    for (const r of rows) out.set(`scheduled:${r.id}`, { key: `scheduled:${r.id}`, patientId: r.patientId, providerId: r.providerId, date: r.date, pairs: storedPairs({ s1: r.s, e1: r.e, in1: r.in1, out1: r.out1 }), minutes: Number(r.minutes), utcOffset: r.off, zone: r.zone });
  return [...out.values()];
}

/** Read-check-write rounds of a booking before it gives up on concurrent writers (422, SCHEDULE_MESSAGES.raced). */
export const BOOKING_ROUNDS = 5;

/** The same Idempotency-Key sent before with another booking (422). */
export const BOOKING_KEY_REUSED = idempotencyKeyReused("booking");

/**
 * The sessions a booking's one-time token made (decision 024): the first session holds the token; a weekly booking's
 * others are of its series. For an Idempotency-Key, any token of its scope (another body answers 422). Read in the
 * booking's read batch, so a resend costs no round trip more.
 */
function tokenBookingRead(ctx: ModelContext, token: string | null) {
  if (!token) return scheduledRead(ctx, sql`1 = 0`);
  const first = sql`(select ${scheduledSessions.id} from ${scheduledSessions} where ${tokenMatch(scheduledSessions.formToken, token)})`;
  const series = sql`(select ${scheduledSessions.seriesId} from ${scheduledSessions} where ${tokenMatch(scheduledSessions.formToken, token)})`;
  return scheduledRead(ctx, sql`(${scheduledSessions.id} = ${first} or ${scheduledSessions.seriesId} = ${series})`).orderBy(asc(scheduledSessions.startAt));
}

/**
 * A resend's answer: the booking its token made, with the first answer's message, and the PA units warning as it read
 * before that booking (its sessions still scheduled are taken off the units used now). The same Idempotency-Key with
 * another body answers 422.
 */
function replayBooking(token: string, rows: ScheduledRow[], pa: { n_units: number; used_units: number } | undefined, paServiceId: number): ModelResult<BookingResult> {
  if (!rows.some((r) => r.s.formToken === token)) return invalid({ form: BOOKING_KEY_REUSED });
  const sessions = rows.map(scheduledJson);
  const units = rows.reduce((n, r) => n + r.s.units, 0);
  const own = rows.filter((r) => r.s.status === "scheduled" && r.s.paServiceId === paServiceId).reduce((n, r) => n + r.s.units, 0);
  const before = pa ? Number(pa.used_units) - own : 0;
  const warning = pa && !withinUnits(before, units, pa.n_units) ? SCHEDULE_MESSAGES.paWarning(units, pa.n_units - before, rows.length) : null;
  const seriesId = rows[0]!.s.seriesId;
  return replayedOk({ series_id: seriesId, sessions, units, warning }, seriesId !== null ? SERIES_BOOKED(rows.length) : SESSION_BOOKED);
}

/**
 * Books a one-off session or a weekly series (form or API body: BookingSchema). Every occurrence is
 * checked; any refusal refuses the whole booking (422 on the field, naming the dates). The occurrences go
 * in one batch with the series and the audit row. A booking over the PA service's units left is booked,
 * with `warning` set. The provider is the actor unless the actor holds manage_notes (decision 023).
 * `formToken` (the booking form's one-time token, or the API's Idempotency-Key as idempotencyToken made it) is stored
 * on the first session: a resend answers the booking it made, never a refusal about that booking (decision 037).
 */
export async function bookSessions(ctx: ModelContext, raw: Record<string, unknown>, opts: { formToken?: string | null } = {}): Promise<ModelResult<BookingResult>> {
  const formToken = oneTimeToken(opts.formToken);
  const parsed = parseWith(BookingSchema, raw);
  if (!parsed.ok) return invalid(parsed.errors);
  const b = parsed.data;
  const providerId = b.provider_id ?? ctx.actor.id;
  if (providerId !== ctx.actor.id && !manages(ctx)) return denied(SCHEDULE_MESSAGES.otherProvider);
  const dated = bookingDates(b);
  if (!dated.ok) return invalid({ [dated.refusal.field]: dated.refusal.message });
  const dates = dated.dates;
  const first = dates[0]!;
  const last = dates[dates.length - 1]!;
  // The client's sessions over every week the booking touches (the week cap), the provider's around each date.
  const weekFrom = weekStartOf(weekEndingOn(first));
  const weekTo = weekEndingOn(last);
  const startFrom = dayNumber(addDays(weekFrom, -1))! * 1440;
  const startTo = (dayNumber(weekTo)! + 2) * 1440;
  const B = NOTE_LIMITS.providerBufferMinutes;
  // The provider's sessions in any time zone: another zone's clock may read up to ZONE_SPREAD_MINUTES apart
  // (the rules compare moments: utc_offset, app/domain/note-rules.ts zoneShift).
  const Z = ZONE_SPREAD_MINUTES;
  const providerFrom = startFrom - B - Z;
  const providerTo = startTo + Z;
  const dayStarts = JSON.stringify(dates.map((d) => dayNumber(d)! * 1440));
  const nearDates = (col: SQL | typeof notes.startAt | typeof scheduledSessions.startAt) =>
    sql`exists (select 1 from json_each(${dayStarts}) d where ${col} > d.value - ${1440 + B + Z} and ${col} < d.value + ${1440 + B + Z})`;
  const db = primaryOf(ctx.db);
  const clientLocation = sql`(select ${patients.locationId} from ${patients} where ${patients.id} = ${b.patient_id})`;
  const weekly = b.repeat === "weekly";
  // The ids are assigned before the write (read with the tail), so the audit row names what it made (decision 019):
  // a one-off names its session; a series names itself, and its sessions in `detail`.
  const nextOf = (table: typeof scheduledSessions | typeof scheduleSeries) => nextIdQuery(table).mapWith(Number);
  // Optimistic concurrency on the audit chain (decision 037): the read batch reads the chain's tail in the same
  // transaction as everything the check uses, and the write's audit row must chain to that very tail. Every write
  // of notes and scheduled sessions appends an audit row, so while it still chains, nothing the check read has
  // changed. On a chain race the whole read and check run again (never a blind retry with a fresh tail).
  for (let round = 0; round < BOOKING_ROUNDS; round++) {
    const [[client], provider, [pa], clientNotes, clientScheduled, providerNotes, providerScheduled, sent] = await db.batch([
      db
        .select({ id: patients.id, locationId: patients.locationId, status: patients.status, name: patientName, timeZone: locations.timeZone, place: locations.title, tail: auditTail, nextSession: nextOf(scheduledSessions), nextSeries: nextOf(scheduleSeries) })
        .from(patients)
        .innerJoin(locations, eq(locations.id, patients.locationId))
        .where(and(eq(patients.id, b.patient_id), isNull(patients.deletedAt), ...scopeOfPatients(ctx))),
      db
        .select({ id: users.id, choosable: isChoosableStaff() })
        .from(users)
        .innerJoin(userLocations, eq(userLocations.userId, users.id))
        .where(and(eq(users.id, providerId), sql`${userLocations.locationId} = ${clientLocation}`, isNull(users.deletedAt))),
      db
        .select({
          cpt: paServices.cpt,
          start_date: paServices.startDate,
          end_date: paServices.endDate,
          n_units: paServices.nUnits,
          used_units: sql<number>`(select coalesce(sum(o.units), 0) from notes o where o.pa_service_id = "pa_services"."id" and o.deleted_at is null)
            + (select coalesce(sum(s.units), 0) from scheduled_sessions s where s.pa_service_id = "pa_services"."id" and s.status = 'scheduled')`.mapWith(Number),
        })
        .from(paServices)
        .where(and(eq(paServices.id, b.pa_service_id), eq(paServices.patientId, b.patient_id), isNull(paServices.deletedAt))),
      noteRows(ctx, and(eq(notes.patientId, b.patient_id), sql`${notes.sessionDate} between ${addDays(weekFrom, -1)} and ${addDays(weekTo, 1)}`)!),
      scheduledRows(ctx, and(eq(scheduledSessions.patientId, b.patient_id), sql`${scheduledSessions.startAt} > ${startFrom}`, sql`${scheduledSessions.startAt} < ${startTo}`)!),
      noteRows(ctx, and(eq(notes.providerId, providerId), sql`${notes.startAt} > ${providerFrom}`, sql`${notes.startAt} < ${providerTo}`, nearDates(notes.startAt))!),
      scheduledRows(ctx, and(eq(scheduledSessions.providerId, providerId), sql`${scheduledSessions.startAt} > ${providerFrom}`, sql`${scheduledSessions.startAt} < ${providerTo}`, nearDates(scheduledSessions.startAt))!),
      tokenBookingRead(ctx, formToken),
    ]);
    // A resend of a booking that landed answers it (its sessions would now overlap themselves).
    if (formToken && sent.length) return replayBooking(formToken, sent as ScheduledRow[], pa, b.pa_service_id);
    // The client is a body reference (decision 017): another location's, or none, is 422 at patient_id.
    if (!client) return invalid({ patient_id: REFERENCE_MESSAGES.client });
    if (!provider.length) return invalid({ provider_id: SCHEDULE_MESSAGES.providerOutOfScope });
    // Neither an inactive client nor an inactive provider is booked (probe 8931 §8, decision 037 2026-11-27).
    const inactive = {
      ...(client.status === "inactive" ? { patient_id: SCHEDULE_MESSAGES.inactiveClient } : {}),
      ...(!provider[0]!.choosable ? { provider_id: SCHEDULE_MESSAGES.inactiveProvider } : {}),
    };
    if (Object.keys(inactive).length) return invalid(inactive);
    const today = todayIn(ctx.now(), client.timeZone);
    if (first < today) return invalid({ session_date: SCHEDULE_MESSAGES.past(today) });
    // Today, but already started at the location: refused as a past day is (a series: its first session).
    const started = bookingStartRefusal({ date: first, timeIn: b.time_in, timeOut: b.time_out, weekly }, ctx.now(), client.timeZone, client.place);
    if (started) return invalid({ [started.field]: started.message });
    const booked = bookedOf([clientNotes as NoteRow[], providerNotes as NoteRow[]], [clientScheduled as SchedRow[], providerScheduled as SchedRow[]]);
    const check = checkBooking({ patientId: b.patient_id, providerId, cpt: b.cpt_code, dates, timeIn: b.time_in, timeOut: b.time_out, timeZone: client.timeZone }, booked, pa ? { ...pa, used_units: Number(pa.used_units) } : null);
    if (check.refusal) return invalid({ [check.refusal.field]: check.refusal.message });

    const now = ctx.now().toISOString();
    const rows = dates.map((date) => {
      const timed = occurrenceTimes(date, b.time_in, b.time_out, client.timeZone);
      // checkBooking refused every date whose times the zone cannot read.
      if (!timed.ok) throw new Error(`occurrence ${date}: ${timed.refusals[0]!.message}`);
      const t = timed.times;
      return [date, t.startAt, t.endAt, t.utcOffset, t.minutes, t.units];
    });
    const firstId = client.nextSession;
    const ids = dates.map((_, i) => firstId + i);
    const seriesId = weekly ? client.nextSeries : null;
    const detail = { dates: dates.length, first, last, weekly };
    const entry = weekly
      ? { action: "create", entity: "schedule_series", entityId: seriesId, patientId: b.patient_id, detail: { ...detail, sessions: ids } }
      : { action: "create", entity: "scheduled_session", entityId: firstId, patientId: b.patient_id, detail };
    try {
      const results = await withAuditIfUnchanged(
        ctx.db,
        who(ctx),
        entry,
        () => [
          weekly
            ? ctx.db
                .insert(scheduleSeries)
                .values({ id: seriesId!, patientId: b.patient_id, providerId, locationId: client.locationId, cptCode: b.cpt_code, paServiceId: b.pa_service_id, weekday: (((dayNumber(first)! + 4) % 7) + 7) % 7, startsOn: first, until: b.until!, timeIn: b.time_in, timeOut: b.time_out, createdBy: ctx.actor.id, createdAt: now, updatedAt: now })
            : ctx.db.select({ id: sql<number>`null` }).from(scheduleSeries).where(sql`1 = 0`),
          // All occurrences in one statement: one JSON parameter (D1 binds at most 100 per statement), ids in date order.
          ctx.db.insert(scheduledSessions).select(
            sql`select ${firstId} + j.key, ${seriesId}, ${b.patient_id}, ${providerId}, ${client.locationId}, ${b.cpt_code}, ${b.pa_service_id},
              json_extract(j.value, '$[0]'), ${b.time_in}, ${b.time_out}, json_extract(j.value, '$[1]'), json_extract(j.value, '$[2]'), json_extract(j.value, '$[3]'), json_extract(j.value, '$[4]'), json_extract(j.value, '$[5]'),
              'scheduled', null, ${ctx.actor.id}, 1, ${now}, ${now}, case when j.key = 0 then ${formToken} end from json_each(${JSON.stringify(rows)}) j`,
          ),
          // Read back in the same transaction.
          scheduledRead(ctx, sql`${scheduledSessions.id} between ${firstId} and ${ids[ids.length - 1]!}`).orderBy(asc(scheduledSessions.startAt)),
          bumpListVersion(ctx.db, SCHEDULED_SESSIONS),
        ],
        client.tail,
      );
      const sessions = (results[2] as ScheduledRow[]).map(scheduledJson);
      return ok({ series_id: seriesId, sessions, units: check.units, warning: check.warning }, weekly ? SERIES_BOOKED(dates.length) : SESSION_BOOKED);
    } catch (e) {
      // Another audited write landed after the read (or another booking took an id): read ids and check again.
      // A racing resend of the same form took its token: the next round reads that booking and answers it.
      if (isChainRace(e) || isKeyRace(e) || (formToken && isTokenRace(e, "scheduled_sessions.form_token"))) continue;
      throw e;
    }
  }
  return invalid({ form: SCHEDULE_MESSAGES.raced });
}

function scopeOfPatients(ctx: ModelContext): SQL[] {
  const scope = locationScope(ctx.actor);
  if (scope === null) return [];
  return [idsIn(patients.locationId, scope)];
}

/* ------------------------------------------------------------------ cancel */

/** Cancels one scheduled occurrence (its provider, or manage_notes). 404 out of scope; 422 when no longer scheduled. */
export async function cancelSession(ctx: ModelContext, id: number): Promise<ModelResult<ScheduledJson>> {
  const db = primaryOf(ctx.db);
  const [r] = await scheduledRead({ ...ctx, db }, eq(scheduledSessions.id, id));
  if (!r) return notFound("Scheduled session");
  const s = scheduledJson(r);
  if (s.provider_id !== ctx.actor.id && !manages(ctx)) return denied(SCHEDULE_MESSAGES.otherProvider);
  if (s.status !== "scheduled") return invalid({ form: SCHEDULE_MESSAGES.notScheduled });
  const now = ctx.now().toISOString();
  const [updated] = await withConditionalAudit(
    ctx.db,
    who(ctx),
    { action: "cancel", entity: "scheduled_session", entityId: id, patientId: s.patient_id, detail: { date: s.session_date } },
    (audit) => [
      ctx.db
        .update(scheduledSessions)
        .set({ status: "cancelled", version: sql`${scheduledSessions.version} + 1`, updatedAt: now })
        .where(and(eq(scheduledSessions.id, id), eq(scheduledSessions.status, "scheduled"))),
      audit(sql`changes() = 1`),
      bumpListVersion(ctx.db, SCHEDULED_SESSIONS),
    ],
  );
  if (!changedRows(updated)) return invalid({ form: SCHEDULE_MESSAGES.notScheduled });
  return ok({ ...s, status: "cancelled", version: s.version + 1 }, SESSION_CANCELLED);
}

/**
 * Cancels the rest of the series of a scheduled occurrence, from `from` (default: that occurrence's date)
 * on: every occurrence still scheduled on or after it, and the series' cancelled_from. Written and past
 * occurrences before it stay.
 */
export async function cancelRestOfSeries(ctx: ModelContext, id: number, rawFrom: unknown): Promise<ModelResult<{ series_id: number; from: string; cancelled: number }>> {
  const db = primaryOf(ctx.db);
  const [r] = await scheduledRead({ ...ctx, db }, eq(scheduledSessions.id, id));
  if (!r) return notFound("Scheduled session");
  const s = scheduledJson(r);
  if (s.provider_id !== ctx.actor.id && !manages(ctx)) return denied(SCHEDULE_MESSAGES.otherProvider);
  if (s.series_id === null) return invalid({ form: SCHEDULE_MESSAGES.notInSeries });
  const typed = cancelFromInput(rawFrom);
  if (typed === null) return invalid({ from: SCHEDULE_MESSAGES.cancelFrom });
  const from = typed || s.session_date;
  const seriesId = s.series_id;
  const now = ctx.now().toISOString();
  const where = restOfSeries(scheduledSessions, seriesId, from);
  // The write decides what is cancelled (no count read before it): the audit row and the series' cancelled_from
  // land only when it cancelled something, and the answer counts the rows it actually changed.
  const [cancelled] = await withConditionalAudit(ctx.db, who(ctx), { action: "cancel", entity: "schedule_series", entityId: seriesId, patientId: s.patient_id, detail: { from } }, (audit) => [
    ctx.db.update(scheduledSessions).set({ status: "cancelled", version: sql`${scheduledSessions.version} + 1`, updatedAt: now }).where(where).returning({ id: scheduledSessions.id }),
    audit(sql`changes() > 0`),
    ctx.db.update(scheduleSeries).set({ cancelledFrom: from, updatedAt: now }).where(and(eq(scheduleSeries.id, seriesId), audit.written)),
    bumpListVersion(ctx.db, SCHEDULED_SESSIONS),
  ]);
  const n = cancelled.length;
  if (n === 0) return invalid({ from: SCHEDULE_MESSAGES.nothingLeftInSeries });
  return ok({ series_id: seriesId, from, cancelled: n }, SERIES_CANCELLED(n));
}

/* ------------------------------------------------------------------ a deleted note's session */

/** The session a note was written for (at most one: markWritten), still marked written by it. */
const writtenBy = (noteId: number) => sql`(select "id" from "scheduled_sessions" where "note_id" = ${noteId} and "status" = 'written' order by "id" limit 1)`;
const ofWritten = (noteId: number, column: string) => sql`(select ${sql.raw(`"${column}"`)} from "scheduled_sessions" where "id" = ${writtenBy(noteId)})`;

/**
 * What a note delete reads, in its own read batch, to decide whether the session the note was written for may go
 * back on the schedule (decision 037, 2026-11-28): that session with its zone, client status, provider and PA
 * service, and — found through it by subqueries, so no read more — the client's live notes and sessions still
 * scheduled over its week and a day either side, and the provider's around its date (the note being deleted left
 * out). `sessionGiveBack` takes the results in this order.
 */
export function noteSessionReads(ctx: ModelContext, noteId: number) {
  const db = ctx.db;
  const s = scheduledSessions;
  const sid = writtenBy(noteId);
  const patientOf = ofWritten(noteId, "patient_id");
  const providerOf = ofWritten(noteId, "provider_id");
  const startOf = ofWritten(noteId, "start_at");
  const dateOf = ofWritten(noteId, "session_date");
  // The week cap needs the client's Sunday–Saturday week (checkBooking picks it by date); a wider window does no harm.
  const clientSpan = 9 * 1440;
  const providerSpan = 2 * 1440 + NOTE_LIMITS.providerBufferMinutes + ZONE_SPREAD_MINUTES;
  return [
    db
      .select({
        id: s.id,
        version: s.version,
        patientId: s.patientId,
        providerId: s.providerId,
        cpt: s.cptCode,
        date: s.sessionDate,
        timeIn: s.timeIn,
        timeOut: s.timeOut,
        timeZone: locations.timeZone,
        clientStatus: patients.status,
        providerActive: sql<number | null>`(select ${isChoosableStaff()} from "users" where "users"."id" = ${s.providerId})`.mapWith((x: unknown) => (x == null ? null : Number(x))),
        providerHere: sql<number>`exists (select 1 from "user_locations" where "user_locations"."user_id" = ${s.providerId} and "user_locations"."location_id" = ${s.locationId})`.mapWith(Number),
        paCpt: paServices.cpt,
        paStart: paServices.startDate,
        paEnd: paServices.endDate,
      })
      .from(s)
      .innerJoin(locations, eq(locations.id, s.locationId))
      .innerJoin(patients, eq(patients.id, s.patientId))
      .leftJoin(paServices, and(eq(paServices.id, s.paServiceId), eq(paServices.patientId, s.patientId), isNull(paServices.deletedAt)))
      .where(sql`${s.id} = ${sid}`),
    noteRows(ctx, sql`${notes.patientId} = ${patientOf} and ${notes.sessionDate} between date(${dateOf}, '-8 days') and date(${dateOf}, '+8 days') and ${notes.id} <> ${noteId}`),
    scheduledRows(ctx, sql`${s.patientId} = ${patientOf} and ${s.startAt} > ${startOf} - ${clientSpan} and ${s.startAt} < ${startOf} + ${clientSpan}`),
    noteRows(ctx, sql`${notes.providerId} = ${providerOf} and ${notes.startAt} > ${startOf} - ${providerSpan} and ${notes.startAt} < ${startOf} + ${providerSpan} and ${notes.id} <> ${noteId}`),
    scheduledRows(ctx, sql`${s.providerId} = ${providerOf} and ${s.startAt} > ${startOf} - ${providerSpan} and ${s.startAt} < ${startOf} + ${providerSpan}`),
  ] as const;
}

/** A deleted note's session: back to scheduled (`why` null) or left cancelled, and why. */
export interface SessionGiveBack {
  id: number;
  version: number;
  /** "18:00–19:00 on 2026-11-27" */
  when: string;
  /** Null: it still fits and is scheduled again; else the booking rule's message it fails. */
  why: string | null;
  /** The rule it fails (the audit row's detail): client_overlap, provider_buffer, day_cap, …, client_inactive, provider_inactive, provider_elsewhere. */
  rule: string | null;
}

type NoteSessionRead = Awaited<ReturnType<typeof noteSessionReads>[0]>[number];

/**
 * Runs the booking rules on a deleted note's session (decision 037, 2026-11-28), from noteSessionReads' results:
 * checkBooking (the PA service covering it, the client's overlap, the provider's overlap and 15-minute buffer, the
 * 10 h/day and 40 h/week caps, against live notes and sessions still scheduled), and, as a booking, an active
 * client and an active provider of the session's location. Null when the note was written for no session.
 */
export function sessionGiveBack(results: readonly unknown[]): SessionGiveBack | null {
  const [[session], clientNotes, clientScheduled, providerNotes, providerScheduled] = results as [NoteSessionRead[], NoteRow[], SchedRow[], NoteRow[], SchedRow[]];
  if (!session) return null;
  const base = { id: session.id, version: session.version, when: `${session.timeIn}–${session.timeOut} on ${session.date}` };
  if (session.clientStatus === "inactive") return { ...base, why: SCHEDULE_MESSAGES.inactiveClient, rule: "client_inactive" };
  if (session.providerActive !== 1) return { ...base, why: SCHEDULE_MESSAGES.inactiveProvider, rule: "provider_inactive" };
  if (session.providerHere !== 1) return { ...base, why: SCHEDULE_MESSAGES.providerOutOfScope, rule: "provider_elsewhere" };
  const booked = bookedOf([clientNotes, providerNotes], [clientScheduled, providerScheduled]);
  // Units are a warning for a booking, never a refusal: only the PA service's client, CPT and dates count here.
  const pa = session.paCpt !== null && session.paStart !== null && session.paEnd !== null ? { cpt: session.paCpt, start_date: session.paStart, end_date: session.paEnd, n_units: 0, used_units: 0 } : null;
  const check = checkBooking(
    { patientId: session.patientId, providerId: session.providerId, cpt: session.cpt, dates: [session.date], timeIn: session.timeIn, timeOut: session.timeOut, timeZone: session.timeZone },
    booked,
    pa,
  );
  if (!check.refusal) return { ...base, why: null, rule: null };
  return { ...base, why: check.rule === "pa_not_of_client" ? SCHEDULE_MESSAGES.paGone : check.refusal.message, rule: check.rule };
}

/**
 * The statement of a note delete's batch that settles its session as sessionGiveBack decided: scheduled again (note_id
 * null) or cancelled; version + 1. Only when the delete was written (`written`: its audit row is the chain's newest)
 * and the session is still the one read (same version, still written by this note).
 */
export function settleNoteSession(ctx: ModelContext, noteId: number, g: SessionGiveBack, written: SQL) {
  const s = scheduledSessions;
  return ctx.db
    .update(s)
    .set({ status: g.why === null ? "scheduled" : "cancelled", noteId: null, version: sql`${s.version} + 1`, updatedAt: ctx.now().toISOString() })
    .where(and(eq(s.id, g.id), eq(s.version, g.version), sql`${s.noteId} = ${noteId}`, eq(s.status, "written"), written));
}

/** The note delete's words when its session no longer fits and was cancelled (after "Note deleted."). */
export const sessionCancelledOnDelete = (g: SessionGiveBack) => `Its scheduled session at ${g.when} no longer fits the schedule and was cancelled: ${g.why}`;

/* ------------------------------------------------------------------ bookings a change makes unfit */

/**
 * The statement that cancels the bookings matching `which` that are still scheduled and start after now (their
 * start less their UTC offset; one booked before offsets were kept, migration 0020, on its clock time read as UTC),
 * to ride in the batch of the change that made them unfit: a client deleted or moved, a provider deactivated,
 * deleted or taken off a location (decision 037, 2026-11-27). Its result is the ids cancelled; the change's audit
 * row names the reason (`unfitDetail`). Past and written sessions stay.
 */
export function cancelUnfitBookings(ctx: ModelContext, which: SQL) {
  const s = scheduledSessions;
  return ctx.db
    .update(s)
    .set({ status: "cancelled", version: sql`${s.version} + 1`, updatedAt: ctx.now().toISOString() })
    .where(futureBookings(ctx, which))
    .returning({ id: s.id });
}

/** The bookings matching `which` that cancelUnfitBookings would cancel now: still scheduled, starting after now. */
function futureBookings(ctx: ModelContext, which: SQL) {
  const s = scheduledSessions;
  const nowMinute = Math.floor(ctx.now().getTime() / 60_000);
  return and(eq(s.status, "scheduled"), sql`${s.startAt} - coalesce(${s.utcOffset}, 0) > ${nowMinute}`, which);
}

/**
 * How many future bookings of the client deleting them would cancel, as a scalar subquery (a column of the read
 * that shows the delete's confirm step, probe 8972); its columns are unqualified, so inside a select from
 * patients they name scheduled_sessions' (the innermost table).
 */
export function futureBookingsOfClientCount(ctx: ModelContext, patientId: number) {
  return sql<number>`(select count(*) from ${scheduledSessions} where ${futureBookings(ctx, eq(scheduledSessions.patientId, patientId))})`.mapWith(Number);
}

/** The future bookings at a location (still scheduled, starting after now), as `from … where` SQL. */
export function futureBookingsAt(ctx: ModelContext, locationId: number): SQL {
  return sql`from ${scheduledSessions} where ${futureBookings(ctx, eq(scheduledSessions.locationId, locationId))}`;
}

/** The audit detail of a change that cancels the future bookings it makes unfit. */
export const unfitDetail = (reason: UnfitReason) => ({ cancelled_future_sessions: reason });

/** How many sessions a cancelUnfitBookings statement cancelled, from its batch result. */
export const cancelledCount = (result: unknown): number => (result as unknown[]).length;

function changedRows(result: unknown): boolean {
  return Number((result as { meta?: { changes?: number } })?.meta?.changes ?? 0) > 0;
}

/* ------------------------------------------------------------------ the calendar */

export interface CalendarEntry {
  kind: "note" | "scheduled";
  id: number;
  /** rbt | bcba | combined for a note; null for a scheduled session. */
  note_type: string | null;
  patient_id: number;
  patient_name: string;
  provider_id: number;
  provider_name: string;
  location_id: number;
  time_zone: string;
  date: string;
  /** The session's (first) time pair, local time. */
  time_in: string | null;
  time_out: string | null;
  /** A note's second pair (the afternoon) when it has both: its break is not part of the session. */
  time_in2: string | null;
  time_out2: string | null;
  cpt_code: string;
  status: string;
  series_id: number | null;
}

export interface CalendarData {
  entries: CalendarEntry[];
  /** Sessions per date in the range (notes and scheduled), including those beyond the day's cap. */
  day_totals: Record<string, number>;
  /** True when a day has more sessions than `perDay`: narrow the filters or open the day. */
  truncated: boolean;
  locations: { id: number; title: string; time_zone: string }[];
}

/** At most this many entries per day (the day view; the API's `per_day` may ask for up to this many). */
export const PER_DAY_CAP = 500;
/** The API's entries per day unless `per_day` says otherwise. */
export const API_PER_DAY = 50;

/**
 * The calendar between two dates (inclusive): live notes and sessions still scheduled, of the actor's
 * locations, narrowed by location, provider and client, at most `perDay` per date (in time order) with
 * each date's total. A location filter outside the actor's locations shows nothing, as every list's does
 * (decision 017), and so does a client or provider filter naming none the actor can see (of another location, or
 * none at all: the same answer). One read batch (the entries of both kinds in one ranked statement, each date's
 * totals, the filters' records, the visible locations, the audit tail) and one audit row naming the clients
 * shown. A date's entries beyond the cap are counted from the indexes, never read (decision 037).
 * `showing`: the dates actually shown, chosen from the visible locations (their time zones) once the batch has read
 * them, within from–to (the screen's "today at the chosen location", calendarTodayWindow); entries, totals and the
 * audit row are cut to them.
 */
export async function calendarRange(
  ctx: ModelContext,
  q: Pick<RangeQuery, "from" | "to" | "location_id" | "provider_id" | "patient_id">,
  perDay = PER_DAY_CAP,
  showing?: (visible: CalendarData["locations"]) => { from: string; to: string },
): Promise<ModelResult<CalendarData>> {
  const scope = locationScope(ctx.actor);
  if (scope !== null && !scope.length) return notFound("Location");
  // Another location's filter lists nothing, not a 404 (decision 017: every list answers it alike).
  const locs = q.location_id === "" ? scope : scope === null || scope.includes(q.location_id) ? [q.location_id] : [];
  const cap = Math.max(1, Math.min(PER_DAY_CAP, Math.floor(perDay)));
  // One location (the usual filter) compares directly; several go in as one JSON parameter.
  const inLocs = (alias: string) =>
    locs === null ? sql`` : locs.length === 1 ? sql` and ${sql.raw(alias)}.location_id = ${locs[0]}` : sql` and ${sql.raw(alias)}.location_id in (select value from json_each(${JSON.stringify(locs)}))`;
  const narrow = (alias: string) =>
    sql`${q.provider_id !== "" ? sql` and ${sql.raw(alias)}.provider_id = ${q.provider_id}` : sql``}${q.patient_id !== "" ? sql` and ${sql.raw(alias)}.patient_id = ${q.patient_id}` : sql``}`;
  // A deleted client's sessions are left out (patients_deleted_idx: the few deleted clients, read once).
  const live = (alias: string) => sql` and ${sql.raw(alias)}.patient_id not in (select id from patients where deleted_at is not null)`;
  // Every date of the range, for the per-date picks below (the callers bound it: 62 for the API, 42 for a month grid, 77 for the month grids around today: calendarTodayWindow).
  const days: string[] = [];
  for (let d = q.from; d <= q.to && days.length < 400; d = addDays(d, 1)) days.push(d);
  // The first `cap` entries of each date, read from the covering indexes notes_calendar_idx and
  // scheduled_calendar_idx in (date, start_at, id) order, so a date's rows beyond its cap are never read:
  // per date, the first `cap` notes and the first `cap` scheduled sessions (the first `cap` of both kinds
  // together are among them), ranked together; full rows and names are joined on the kept entries only.
  const ranked = sql`(
    with d(day) as (select value from json_each(${JSON.stringify(days)})),
    cand as (
      select 'note' as kind, n.id as id, n.session_date as date, n.start_at as start_at from d join notes n on n.id in (
        select n2.id from notes n2 where n2.deleted_at is null${inLocs("n2")} and n2.session_date = d.day${narrow("n2")}${live("n2")} order by n2.start_at, n2.id limit ${cap})
      union all
      select 'scheduled', s.id, s.session_date, s.start_at from d join scheduled_sessions s on s.id in (
        select s2.id from scheduled_sessions s2 where s2.status = 'scheduled'${inLocs("s2")} and s2.session_date = d.day${narrow("s2")}${live("s2")} order by s2.start_at, s2.id limit ${cap})
    ),
    k as (select cand.*, row_number() over (partition by cand.date order by cand.start_at, cand.kind, cand.id) as rn from cand)
    select 'note' as kind, n.id as id, n.type as note_type, n.patient_id as patient_id, n.provider_id as provider_id, n.location_id as location_id, k.date as date,
           coalesce(n.time_in, n.time_in2) as time_in, case when n.time_in is null then n.time_out2 else n.time_out end as time_out,
           case when n.time_in is null then null else n.time_in2 end as time_in2, case when n.time_in is null then null else n.time_out2 end as time_out2, n.cpt_code as cpt_code, n.status as status, null as series_id, k.start_at as start_at,
           pt.first_name as pf, pt.last_name as pl, us.name as un, us.surname as us_, l.time_zone as tz
    from k join notes n on n.id = k.id join patients pt on pt.id = n.patient_id join users us on us.id = n.provider_id join locations l on l.id = n.location_id
    where k.kind = 'note' and k.rn <= ${cap}
    union all
    select 'scheduled', s.id, null, s.patient_id, s.provider_id, s.location_id, k.date, s.time_in, s.time_out, null, null, s.cpt_code, s.status, s.series_id, k.start_at,
           pt.first_name, pt.last_name, us.name, us.surname, l.time_zone
    from k join scheduled_sessions s on s.id = k.id join patients pt on pt.id = s.patient_id join users us on us.id = s.provider_id join locations l on l.id = s.location_id
    where k.kind = 'scheduled' and k.rn <= ${cap}
  ) c`;
  // Each date's total of both kinds (index only: the same covering indexes, grouped).
  const totals = sql`(
    select t.date as date, sum(t.n) as total from (
      select n.session_date as date, count(*) as n from notes n
      where n.deleted_at is null${inLocs("n")} and n.session_date between ${q.from} and ${q.to}${narrow("n")}${live("n")} group by n.session_date
      union all
      select s.session_date, count(*) from scheduled_sessions s
      where s.status = 'scheduled'${inLocs("s")} and s.session_date between ${q.from} and ${q.to}${narrow("s")}${live("s")} group by s.session_date
    ) t group by t.date
  ) dt`;
  const none = ctx.db.select({ id: patients.id }).from(patients).where(sql`1 = 0`);
  const db = ctx.db;
  const [readRows, readTotals, locRows, clientRow, providerRow, [tailRow]] = await db.batch([
    db
      .select({
        kind: sql<string>`c.kind`,
        id: sql<number>`c.id`,
        noteType: sql<string | null>`c.note_type`,
        patientId: sql<number>`c.patient_id`,
        patientName: sql<string>`trim(c.pf || ' ' || c.pl)`,
        providerId: sql<number>`c.provider_id`,
        providerName: sql<string>`trim(c.un || ' ' || c.us_)`,
        locationId: sql<number>`c.location_id`,
        timeZone: sql<string>`c.tz`,
        date: sql<string>`c.date`,
        timeIn: sql<string | null>`c.time_in`,
        timeOut: sql<string | null>`c.time_out`,
        timeIn2: sql<string | null>`c.time_in2`,
        timeOut2: sql<string | null>`c.time_out2`,
        cpt: sql<string>`c.cpt_code`,
        status: sql<string>`c.status`,
        seriesId: sql<number | null>`c.series_id`,
      })
      .from(ranked)
      .orderBy(sql`c.date`, sql`c.start_at`, sql`c.kind`, sql`c.id`),
    db.select({ date: sql<string>`dt.date`, total: sql<number>`dt.total`.mapWith(Number) }).from(totals),
    db
      .select({ id: locations.id, title: locations.title, time_zone: locations.timeZone })
      .from(locations)
      .where(scope === null ? undefined : sql`${locations.id} in (select value from json_each(${JSON.stringify(scope)}))`)
      .orderBy(asc(locations.title)),
    q.patient_id !== "" ? db.select({ id: patients.id }).from(patients).where(and(eq(patients.id, q.patient_id), isNull(patients.deletedAt), ...scopeOfPatients(ctx))) : none,
    q.provider_id !== ""
      ? db
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.id, q.provider_id), scope === null ? undefined : sql`exists (select 1 from ${userLocations} ul where ul.user_id = ${users.id} and ul.location_id in (select value from json_each(${JSON.stringify(scope)})))`))
      : none,
    db.select({ tail: auditTail }).from(locations).limit(1),
  ]);
  // A client or provider filter the actor cannot see lists nothing (decision 017), not even entries at the actor's
  // locations that name them: the empty calendar, read or not, is what a filter naming no one answers.
  if ((q.patient_id !== "" && !clientRow.length) || (q.provider_id !== "" && !providerRow.length)) return ok({ entries: [], day_totals: {}, truncated: false, locations: locRows });
  const cut = showing?.(locRows);
  const inShown = (date: string) => !cut || (date >= cut.from && date <= cut.to);
  const rows = readRows.filter((r) => inShown(r.date));
  const totalRows = readTotals.filter((t) => inShown(t.date));
  const dayTotals: Record<string, number> = {};
  for (const t of totalRows) dayTotals[t.date] = Number(t.total);
  const entries = rows.map((r): CalendarEntry => {
    return {
      kind: r.kind === "note" ? "note" : "scheduled",
      id: Number(r.id),
      note_type: r.noteType,
      patient_id: Number(r.patientId),
      patient_name: r.patientName,
      provider_id: Number(r.providerId),
      provider_name: r.providerName,
      location_id: Number(r.locationId),
      time_zone: r.timeZone,
      date: r.date,
      time_in: r.timeIn,
      time_out: r.timeOut,
      time_in2: r.timeIn2,
      time_out2: r.timeOut2,
      cpt_code: r.cpt,
      status: r.status,
      series_id: r.seriesId === null ? null : Number(r.seriesId),
    };
  });
  const shown: Record<string, number> = {};
  for (const e of entries) shown[e.date] = (shown[e.date] ?? 0) + 1;
  const truncated = Object.entries(dayTotals).some(([d, n]) => n > (shown[d] ?? 0));
  const clients = clientIds(entries, (e) => e.patient_id);
  if (clients.length) await withAudit(ctx.db, who(ctx), { ...clientsReadEntry("calendar", clients), action: "read" }, () => [] as [], tailRow ? tailRow.tail : undefined);
  return ok({ entries, day_totals: dayTotals, truncated, locations: locRows });
}

/* ------------------------------------------------------------------ for the parent portal */

/**
 * The next sessions still scheduled of one client from `fromLocalMinute` (local minutes since 1970 at the
 * client's location, like start_at), in time order, at most `limit`: date, times and the provider's first
 * name only — never the CPT code or anything of billing (decision 040: not answered to a parent). One query-builder statement, to ride in the caller's read batch with its audit row; the
 * caller has already scoped the client (the parent portal reads it for the parent's own child only).
 */
export function upcomingSessionsQuery(ctx: ModelContext, patientId: number, fromLocalMinute: number, limit: number) {
  const s = scheduledSessions;
  return ctx.db
    .select({ id: s.id, session_date: s.sessionDate, time_in: s.timeIn, time_out: s.timeOut, provider_first_name: staffNameForParent })
    .from(s)
    .leftJoin(users, eq(users.id, s.providerId))
    .where(and(eq(s.patientId, patientId), eq(s.status, "scheduled"), gte(s.startAt, fromLocalMinute)))
    .orderBy(asc(s.startAt), asc(s.id))
    .limit(Math.max(1, Math.min(50, Math.floor(limit) || 1)));
}

/* ------------------------------------------------------------------ the booking form */

export interface BookingFormOptions {
  patient: { id: number; name: string; location_id: number; time_zone: string };
  /** Why nothing can be booked for the client (inactive), said before the form is filled; null when it can. */
  notice: string | null;
  today: string;
  providers: { value: number; label: string }[];
  paServices: { value: number; label: string; cpt: string }[];
}

/**
 * The booking form's choices for a client in scope (null: out of scope → 404): active staff of the client's
 * location, the client's live PA services, the location's today. One read batch and the read's audit row.
 */
export async function bookingFormOptions(ctx: ModelContext, patientId: number): Promise<BookingFormOptions | null> {
  const db = ctx.db;
  const location = sql`(select ${patients.locationId} from ${patients} where ${patients.id} = ${patientId})`;
  const [[client], staff, pas] = await db.batch([
    db
      .select({ id: patients.id, name: patientName, status: patients.status, locationId: patients.locationId, timeZone: locations.timeZone, tail: auditTail })
      .from(patients)
      .innerJoin(locations, eq(locations.id, patients.locationId))
      .where(and(eq(patients.id, patientId), isNull(patients.deletedAt), ...scopeOfPatients(ctx))),
    db
      .select({ id: users.id, name: providerName })
      .from(users)
      .innerJoin(userLocations, eq(userLocations.userId, users.id))
      .where(and(sql`${userLocations.locationId} = ${location}`, choosableStaff()))
      .orderBy(asc(users.name), asc(users.surname)),
    db
      .select({ id: paServices.id, name: paServices.paService, cpt: paServices.cpt, start: paServices.startDate, end: paServices.endDate })
      .from(paServices)
      .where(and(eq(paServices.patientId, patientId), isNull(paServices.deletedAt)))
      .orderBy(asc(paServices.endDate), asc(paServices.id)),
  ]);
  if (!client) return null;
  await withAudit(ctx.db, who(ctx), { action: "read", entity: "patient", entityId: patientId, patientId, detail: { for: "schedule_form" } }, () => [] as [], client.tail);
  return {
    patient: { id: client.id, name: client.name, location_id: client.locationId, time_zone: client.timeZone },
    // The same message bookSessions refuses with (SCHEDULE_MESSAGES.inactiveClient), before the form is filled.
    notice: client.status === "inactive" ? SCHEDULE_MESSAGES.inactiveClient : null,
    today: todayIn(ctx.now(), client.timeZone),
    providers: staff.map((s) => ({ value: s.id, label: s.name })),
    paServices: pas.map((p) => ({ value: p.id, label: `${p.name} (CPT ${p.cpt}, ${p.start} to ${p.end})`, cpt: p.cpt })),
  };
}
