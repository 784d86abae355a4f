import { and, eq, gte, isNull, lte, notInArray, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { locations, noteDayTotals, noteMonthClientTotals, noteDayCptTotals, noteMonthTotals, notes, paServices, patients } from "~/db/schema";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import { splitNearestMonths, splitWholeMonths, type NearestMonthsSplit, type PeriodSplit } from "~/domain/report-operations";
import type { BatchItem } from "drizzle-orm/batch";
import type { ModelContext } from "../context";
import { idsIn, inLocationScope } from "../scope.server";

/**
 * The notes the operations reports sum (decision 039): live notes (deleted_at null) of live clients — or, for the
 * reports of the staff's work (payroll, hours by provider or CPT: `everyClient`), every live note whatever became
 * of its client (decision 039, 2026-11-27 "deleted clients") — in the actor's locations, with the session date inside the period, optionally one location, provider or client.
 * Every condition is a range or an equality on `notes_report_idx (location_id, session_date, …)`, a covering
 * index: the sums never read a note's table row. With every location in scope the locations are still
 * spelled out (`location_id in (select id from locations)`), so SQLite walks that index once per location
 * instead of the date index plus a table read per note.
 */
export interface NoteReportFilters {
  locationId: number | null;
  providerId: number | null;
  patientId: number | null;
  /** yyyy-mm-dd, inclusive; at most a year apart (checked by the filter's schema). */
  from: string;
  to: string;
  /**
   * Sum every note of the period, never the month sums (note_month_totals / note_day_totals): the reference
   * the tests hold the month sums against. The screens leave it out.
   */
  notesOnly?: boolean;
}

/** The report's locations on a location column: the chosen one if the actor may see it, else the actor's scope. */
function locationWhere(ctx: ModelContext, f: NoteReportFilters, column: SQLiteColumn | SQL): SQL {
  const scope = locationScope(ctx.actor);
  // A location outside the actor's scope gives an empty report, never that location's sums (decision 015).
  if (f.locationId !== null) return canSeeLocation(ctx.actor, f.locationId) ? sql`${column} = ${f.locationId}` : sql`0`;
  if (scope === null) return sql`${column} in ${ctx.db.select({ id: locations.id }).from(locations)}`;
  if (!scope.length) return sql`0`;
  // Written into the statement (idsIn): a report's statement repeats this condition once per part of the period (noteSums).
  return idsIn(column, scope);
}

/** Whether the report reads no location at all (one outside the actor's scope, or no scope): its location condition is the constant 0. */
function noLocation(ctx: ModelContext, f: NoteReportFilters): boolean {
  const scope = locationScope(ctx.actor);
  return f.locationId !== null ? !canSeeLocation(ctx.actor, f.locationId) : scope !== null && !scope.length;
}

/**
 * `byProvider`: the location condition is written `+location_id`, which SQLite cannot answer from an index, so a
 * statement that reads a few providers' notes is never planned as a walk of the locations' notes.
 * `everyClient`: a deleted client's notes count too (the work of staff: the sessions happened).
 */
export function noteReportWhere(ctx: ModelContext, f: NoteReportFilters, opts: { byProvider?: boolean; everyClient?: boolean } = {}): SQL {
  return and(
    isNull(notes.deletedAt),
    locationWhere(ctx, f, opts.byProvider ? sql`+${notes.locationId}` : notes.locationId),
    gte(notes.sessionDate, f.from),
    lte(notes.sessionDate, f.to),
    f.providerId !== null ? eq(notes.providerId, f.providerId) : undefined,
    f.patientId !== null ? eq(notes.patientId, f.patientId) : undefined,
    opts.everyClient
      ? undefined
      : notInArray(
          notes.patientId,
          ctx.db
            .select({ id: patients.id })
            .from(patients)
            .where(sql`${patients.deletedAt} is not null`)
        )
  )!;
}

/**
 * The notes as the source of a report's edge days (or of the whole period, `notesOnly`): without a provider or
 * client filter, `notes INDEXED BY notes_report_idx`, the covering index by (location, date) — every column the
 * sums read is in it. Left to its statistics, SQLite may take `notes_calendar_idx` (the same first two columns,
 * not covering: a table read per note, ~1.5× the time over all locations; decision 039, 2026-11-26 "edge days").
 * A provider or client filter keeps the planner's choice (its own indexes are narrower), as does a report
 * with no location in scope, whose condition is the constant 0 (no index can answer it: INDEXED BY would fail).
 */
function notesByDate(ctx: ModelContext, f: NoteReportFilters): SQL {
  if (noLocation(ctx, f) || f.providerId !== null || f.patientId !== null) return sql`${notes}`;
  return sql`${notes} indexed by notes_report_idx`;
}

/** note_month_totals' rows of the whole months: the report's locations and provider, rows that count something (`n`: n or all_n). */
function monthTotalsWhere(ctx: ModelContext, f: NoteReportFilters, months: { from: string; to: string }, n: SQLiteColumn): SQL {
  const t = noteMonthTotals;
  return and(
    locationWhere(ctx, f, t.locationId),
    gte(t.month, months.from),
    lte(t.month, months.to),
    f.providerId !== null ? eq(t.providerId, f.providerId) : undefined,
    sql`${n} <> 0`
  )!;
}

/** A per-day sums table's rows of the period (note_day_totals, note_day_cpt_totals): the report's locations, rows that count something (`n`). */
function dayTotalsWhere(ctx: ModelContext, f: NoteReportFilters, t: typeof noteDayTotals | typeof noteDayCptTotals, n: SQLiteColumn = t.n): SQL {
  return and(locationWhere(ctx, f, t.locationId), gte(t.sessionDate, f.from), lte(t.sessionDate, f.to), sql`${n} <> 0`)!;
}

/** The whole months of the period and its edge days, or (`notesOnly`, or a filter the sums table lacks) the whole period as edges. */
function splitFor(f: NoteReportFilters, sumsAnswer: boolean): PeriodSplit {
  return f.notesOnly || !sumsAnswer ? { months: null, edges: [{ from: f.from, to: f.to }] } : splitWholeMonths(f.from, f.to);
}

/** The branches in one `union all`: the whole months from a sums table, the edge days from the notes. */
function periodUnion<Q>(f: NoteReportFilters, split: PeriodSplit, fromNotes: (from: string, to: string) => Q, fromSums: (months: { from: string; to: string }) => Q): Q {
  const branches = [...(split.months ? [fromSums(split.months)] : []), ...split.edges.map((e) => fromNotes(e.from, e.to))];
  let all = branches[0] ?? fromNotes(f.from, f.to);
  for (const b of branches.slice(1)) all = (all as unknown as { unionAll(other: Q): Q }).unionAll(b);
  return all;
}

/**
 * The period's notes as sums per location, provider, type and CPT code (decision 039, rollup): the whole
 * calendar months inside the period from note_month_totals (kept by migration 0015's triggers; provider 0
 * there is a note without one, read back as null), the days at either edge from the notes, in one
 * `union all` the reports group again — so their rows, paging and totals are those of the notes alone, in
 * one statement. `n` is the number of notes. A client filter reads the notes only (the table has no
 * client), as does `notesOnly`. Every live note counts, whatever became of its client (the all_ columns,
 * migration 0030): its readers, payroll and hours by provider or CPT, measure the staff's work (decision 039,
 * 2026-11-27 "deleted clients").
 */
export function noteSums(ctx: ModelContext, f: NoteReportFilters) {
  return noteSumsOf(ctx, f, null);
}

/**
 * `noteSums` with each row's day (`day`): a note's session date, a month row's first day. A month row stands for
 * every day of its month, so the months named by `splitMonths` — a subquery of (cm_location_id, cm_month 'yyyy-mm')
 * pairs, the months in which something the reader prices by day changes (payroll: a rate record's amounts, decision
 * 039, 2026-11-28 stop 40) — are read from their notes instead, each note with its own day; the other months keep
 * the sums. Still one statement.
 */
export function datedNoteSums(ctx: ModelContext, f: NoteReportFilters, splitMonths: SQL) {
  return noteSumsOf(ctx, f, splitMonths);
}

function noteSumsOf(ctx: ModelContext, f: NoteReportFilters, splitMonths: SQL | null) {
  const dated = splitMonths !== null;
  const fromNotes = (from: string, to: string, extra?: SQL) =>
    ctx.db
      .select({
        locationId: sql<number>`${notes.locationId}`.as("s_location_id"),
        providerId: sql<number | null>`${notes.providerId}`.as("s_provider_id"),
        type: sql<string>`${notes.type}`.as("s_type"),
        cptCode: sql<string>`${notes.cptCode}`.as("s_cpt_code"),
        n: sql<number>`1`.as("s_n"),
        minutes: sql<number>`${notes.minutes}`.as("s_minutes"),
        units: sql<number>`${notes.units}`.as("s_units"),
        day: sql<string>`${dated ? notes.sessionDate : sql`null`}`.as("s_day"),
      })
      // The split months' notes: the pairs first (CROSS JOIN keeps them the outer loop), then each one's range of
      // (location, date) on the notes' index.
      .from(extra ? sql`${splitMonths} as "cm" cross join ${notes}` : notesByDate(ctx, f))
      .where(and(noteReportWhere(ctx, { ...f, from, to }, { everyClient: true }), extra));
  const t = noteMonthTotals;
  const fromSums = (months: { from: string; to: string }) =>
    ctx.db
      .select({
        locationId: sql<number>`${t.locationId}`.as("s_location_id"),
        providerId: sql<number | null>`nullif(${t.providerId}, 0)`.as("s_provider_id"),
        type: sql<string>`${t.type}`.as("s_type"),
        cptCode: sql<string>`${t.cptCode}`.as("s_cpt_code"),
        n: sql<number>`${t.allN}`.as("s_n"),
        minutes: sql<number>`${t.allMinutes}`.as("s_minutes"),
        units: sql<number>`${t.allUnits}`.as("s_units"),
        day: sql<string>`${dated ? sql`${t.month} || '-01'` : sql`null`}`.as("s_day"),
      })
      .from(t)
      .where(and(monthTotalsWhere(ctx, f, months, t.allN), splitMonths ? sql`(${t.locationId}, ${t.month}) not in ${splitMonths}` : undefined)) as unknown as ReturnType<typeof fromNotes>;
  const split = splitFor(f, f.patientId === null);
  const all = periodUnion(f, split, fromNotes, fromSums);
  if (!splitMonths || !split.months) return all.as("src");
  const { from: m1, to: m2 } = split.months;
  const days = fromNotes(`${m1}-01`, `${m2}-31`, sql`${notes.locationId} = "cm"."cm_location_id" and ${notes.sessionDate} >= "cm"."cm_month" || '-01' and ${notes.sessionDate} <= "cm"."cm_month" || '-31'`);
  return (all as unknown as { unionAll(other: typeof days): typeof days }).unionAll(days).as("src");
}

/**
 * What a row of `noteClientSums` carries besides the client and `n`: integer sums named by the reader, each built
 * from a note's (or a month row's) type, minutes and units — hours by client takes the minutes and units, the BCBA
 * report the RBT and the BCBA minutes. Only integers travel through the union and its grouping: the type text
 * never does (decision 043, 2026-11-27 "stop 31").
 */
export type ClientMeasures<K extends string> = Record<K, (row: { type: SQL; minutes: SQL; units: SQL }) => SQL>;

/**
 * The period's notes as sums per client (decision 039, rollup): whole months from note_month_client_totals and
 * days from the notes, in one `union all`. A part month at either edge is the month's sums *minus* the days
 * outside the period when those are fewer than the days inside (`splitNearestMonths`; decision 039, 2026-11-26
 * "edge days"): those days' notes come in with negative n and measures. So a client may sum to n = 0 (seen only
 * on the days taken off): the readers keep the groups with `sum(n) <> 0` (`clientSumsSeen`). A provider filter
 * reads the notes only (the table has no provider), as does `notesOnly`.
 * Every client's notes come in, deleted or not: the readers keep the live clients' groups (`clientSumsSeen`, one
 * lookup per client instead of one per note; the sums of a live client are the same).
 */
export function noteClientSums<K extends string>(ctx: ModelContext, f: NoteReportFilters, measures: ClientMeasures<K>) {
  const keys = Object.keys(measures) as K[];
  const row = (type: SQL, minutes: SQL, units: SQL, sign: 1 | -1) =>
    Object.fromEntries(
      keys.map((k) => {
        const e = measures[k]({ type, minutes, units });
        return [k, (sign === 1 ? e : sql`-(${e})`).mapWith(Number).as(`c_${k}`)];
      })
    ) as Record<K, SQL.Aliased<number>>;
  const fromNotes = (from: string, to: string, sign: 1 | -1 = 1) =>
    ctx.db
      .select({
        patientId: sql<number>`${notes.patientId}`.as("c_patient_id"),
        n: sql<number>`${sql.raw(String(sign))}`.as("c_n"),
        ...row(sql`${notes.type}`, sql`${notes.minutes}`, sql`${notes.units}`, sign),
      })
      .from(notesByDate(ctx, f))
      .where(noteReportWhere(ctx, { ...f, from, to }, { everyClient: true }));
  const t = noteMonthClientTotals;
  const fromSums = (months: { from: string; to: string }) =>
    ctx.db
      .select({
        patientId: sql<number>`${t.patientId}`.as("c_patient_id"),
        n: sql<number>`${t.n}`.as("c_n"),
        ...row(sql`${t.type}`, sql`${t.minutes}`, sql`${t.units}`, 1),
      })
      .from(t)
      .where(
        and(
          locationWhere(ctx, f, t.locationId),
          gte(t.month, months.from),
          lte(t.month, months.to),
          f.patientId !== null ? eq(t.patientId, f.patientId) : undefined,
          sql`${t.n} <> 0`
        )
      ) as unknown as ReturnType<typeof fromNotes>;
  const split: NearestMonthsSplit = f.notesOnly || f.providerId !== null ? { months: null, add: [{ from: f.from, to: f.to }], minus: [] } : splitNearestMonths(f.from, f.to);
  const branches = [
    ...(split.months ? [fromSums(split.months)] : []),
    ...split.add.map((r) => fromNotes(r.from, r.to)),
    ...split.minus.map((r) => fromNotes(r.from, r.to, -1)),
  ];
  let all = branches[0] ?? fromNotes(f.from, f.to);
  for (const b of branches.slice(1)) all = (all as unknown as { unionAll(other: typeof b): typeof all }).unionAll(b);
  return all.as("csrc");
}

/**
 * The condition on a grouping of `noteClientSums` (its HAVING): the clients with notes in the period (not netted to
 * none) who are live and, for an actor without every location, whose CURRENT location is one of the actor's
 * (decision 038 §7: client rows go through the client's location; 2026-11-28). The sums bring every client's notes
 * of the actor's locations (deleted or moved away or not); such a client's group is dropped whole here, one lookup
 * per client instead of one per note, and the readers name and count only these groups. For an actor with every
 * location the condition is the liveness lookup alone, as before.
 */
export function clientSumsSeen(ctx: ModelContext, src: { n: SQL.Aliased<number> | SQL; patientId: SQL.Aliased<number> | SQL }): SQL {
  const here = inLocationScope(patients.locationId, locationScope(ctx.actor));
  if (!here) return sql`sum(${src.n}) <> 0 and (select ${patients.deletedAt} from ${patients} where ${patients.id} = ${src.patientId}) is null`;
  return sql`sum(${src.n}) <> 0 and exists (select 1 from ${patients} where ${patients.id} = ${src.patientId} and ${patients.deletedAt} is null and ${here})`;
}

/**
 * The client-location half of the same rule for a statement that joins `patients` itself (the caseload's pairs):
 * the client's current location among the actor's, or no condition for an actor with every location.
 */
export function clientLocationInScope(ctx: ModelContext): SQL | undefined {
  return inLocationScope(patients.locationId, locationScope(ctx.actor));
}

/**
 * Whether the client `patientId` (a column of the outer statement) had a note of the provider's in the period and
 * the report's locations: a live note they wrote (RBT, BCBA or combined) or a combined session they supervised. The
 * BCBA report's provider filter picks its clients with it and keeps their sums whole (decision 039, 2026-11-27 (stop
 * 34)). The clients are read once, not per client: the provider's notes from `notes_provider_report_idx` (covering),
 * the combined notes of the period from `notes_location_type_idx` (a row read each for the supervisor). Both named
 * (INDEXED BY): left to itself SQLite walks `notes_report_idx`, every note of the locations' period. A check per
 * client (EXISTS on `notes_patient_date_idx`) reads a row for every note of the period, about twice the time over
 * every location. No location: no client (and no INDEXED BY, which SQLite refuses for the constant 0).
 */
export function clientServedBy(ctx: ModelContext, f: NoteReportFilters, patientId: SQL, providerId: number): SQL {
  if (noLocation(ctx, f)) return sql`0`;
  const period = (who: SQL) => and(isNull(notes.deletedAt), gte(notes.sessionDate, f.from), lte(notes.sessionDate, f.to), locationWhere(ctx, f, notes.locationId), who)!;
  const wrote = period(eq(notes.providerId, providerId));
  const supervised = period(sql`${notes.type} = 'combined' and ${notes.supervisorId} = ${providerId}`);
  return sql`${patientId} in (select ${notes.patientId} from ${notes} indexed by notes_provider_report_idx where ${wrote} union all select ${notes.patientId} from ${notes} indexed by notes_location_type_idx where ${supervised})`;
}

/**
 * The period's notes per session date (number and minutes), for the hours chart: every day of the period from
 * note_day_totals, which is keyed per day, so no edge days are read from the notes (decision 039, 2026-11-26
 * "edge days"). That table has no provider or client: with either filter (or `notesOnly`) every day comes from
 * the notes. `everyClient`: every live note, whatever became of its client (the all_ columns; hours by provider
 * or CPT), else the live clients' notes (hours by client), so the chart and totals are those of the rows.
 */
export function noteDaySums(ctx: ModelContext, f: NoteReportFilters, opts: { everyClient: boolean }) {
  if (f.notesOnly || f.providerId !== null || f.patientId !== null)
    return ctx.db
      .select({
        date: sql<string>`${notes.sessionDate}`.as("d_date"),
        n: sql<number>`1`.as("d_n"),
        minutes: sql<number>`${notes.minutes}`.as("d_minutes"),
      })
      .from(notes)
      .where(noteReportWhere(ctx, f, opts))
      .as("days");
  const t = noteDayTotals;
  const [n, minutes] = opts.everyClient ? [t.allN, t.allMinutes] : [t.n, t.minutes];
  return ctx.db
    .select({
      date: sql<string>`${t.sessionDate}`.as("d_date"),
      n: sql<number>`${n}`.as("d_n"),
      minutes: sql<number>`${minutes}`.as("d_minutes"),
    })
    .from(t)
    .where(dayTotalsWhere(ctx, f, t, n))
    .as("days");
}

/**
 * The providers of the period's notes, each once (null for the notes without one), for the caseload report
 * (decision 039, 2026-11-26): the whole months from note_month_totals, the edge days from the notes — selecting
 * only the provider, so the notes' part is read from an index alone. A client filter (the table has no client)
 * or `notesOnly` reads the notes only. The live clients' notes only (the table's n, not all_n): caseload counts
 * and names clients (decision 039, 2026-11-27 "deleted clients").
 */
export function noteProviders(ctx: ModelContext, f: NoteReportFilters) {
  const fromNotes = (from: string, to: string) =>
    ctx.db
      .selectDistinct({ providerId: sql<number | null>`${notes.providerId}`.as("pv_provider_id") })
      .from(notes)
      .where(noteReportWhere(ctx, { ...f, from, to }));
  const t = noteMonthTotals;
  const fromSums = (months: { from: string; to: string }) =>
    ctx.db
      .selectDistinct({ providerId: sql<number | null>`nullif(${t.providerId}, 0)`.as("pv_provider_id") })
      .from(t)
      .where(monthTotalsWhere(ctx, f, months, t.n)) as unknown as ReturnType<typeof fromNotes>;
  return periodUnion(f, splitFor(f, f.patientId === null), fromNotes, fromSums).as("pv");
}

/**
 * The period's notes as sums per location and every input of the one price function (decision 039, 2026-11-26
 * "location-cpt"): CPT code, type, the two billing modifiers ('' when none), a combined note's own unit price (0
 * when none) and the payer, coalesce(PA service's insurer, client's insurer) (0 when none). Every day of the
 * period from note_day_cpt_totals (migration 0016: a few rows per location and day, so no edge days are read
 * from the notes). That table has neither provider nor client: either filter (or `notesOnly`) reads the notes,
 * grouped first per (client, PA service) so the payer is looked up once per group, not per note.
 */
export function noteCptSums(ctx: ModelContext, f: NoteReportFilters) {
  if (f.notesOnly || f.providerId !== null || f.patientId !== null) {
    const md = sql<string>`coalesce(${notes.md}, '')`;
    const md2 = sql<string>`coalesce(${notes.md2}, '')`;
    const own = sql<number>`coalesce(${notes.unitPriceCents}, 0)`;
    const g = ctx.db
      .select({
        locationId: sql<number>`${notes.locationId}`.as("g_location_id"),
        cptCode: sql<string>`${notes.cptCode}`.as("g_cpt_code"),
        type: sql<string>`${notes.type}`.as("g_type"),
        md: md.as("g_md"),
        md2: md2.as("g_md2"),
        ownPrice: own.as("g_own_price"),
        paServiceId: sql<number | null>`${notes.paServiceId}`.as("g_pa_service_id"),
        patientId: sql<number>`${notes.patientId}`.as("g_patient_id"),
        n: sql<number>`count(*)`.as("g_n"),
        minutes: sql<number>`sum(${notes.minutes})`.as("g_minutes"),
        units: sql<number>`sum(${notes.units})`.as("g_units"),
      })
      .from(notes)
      .where(noteReportWhere(ctx, f))
      .groupBy(notes.locationId, notes.cptCode, notes.type, md, md2, own, notes.paServiceId, notes.patientId)
      .as("notes_groups");
    return ctx.db
      .select({
        locationId: sql<number>`${g.locationId}`.as("k_location_id"),
        cptCode: sql<string>`${g.cptCode}`.as("k_cpt_code"),
        type: sql<string>`${g.type}`.as("k_type"),
        md: sql<string>`${g.md}`.as("k_md"),
        md2: sql<string>`${g.md2}`.as("k_md2"),
        ownPrice: sql<number>`${g.ownPrice}`.as("k_own_price"),
        payerId: sql<number>`coalesce((select ${paServices.insuranceId} from ${paServices} where ${paServices.id} = ${g.paServiceId}), (select ${patients.insurerId} from ${patients} where ${patients.id} = ${g.patientId}), 0)`.as("k_payer_id"),
        n: sql<number>`${g.n}`.as("k_n"),
        minutes: sql<number>`${g.minutes}`.as("k_minutes"),
        units: sql<number>`${g.units}`.as("k_units"),
      })
      .from(g)
      .as("cpts");
  }
  const t = noteDayCptTotals;
  return ctx.db
    .select({
      locationId: sql<number>`${t.locationId}`.as("k_location_id"),
      cptCode: sql<string>`${t.cptCode}`.as("k_cpt_code"),
      type: sql<string>`${t.type}`.as("k_type"),
      md: sql<string>`${t.md}`.as("k_md"),
      md2: sql<string>`${t.md2}`.as("k_md2"),
      ownPrice: sql<number>`${t.unitPriceCents}`.as("k_own_price"),
      payerId: sql<number>`${t.payerId}`.as("k_payer_id"),
      n: sql<number>`${t.n}`.as("k_n"),
      minutes: sql<number>`${t.minutes}`.as("k_minutes"),
      units: sql<number>`${t.units}`.as("k_units"),
    })
    .from(t)
    .where(dayTotalsWhere(ctx, f, t))
    .as("cpts");
}

/**
 * The period's notes held by a generated, sent or accepted claim (decision 030, stop 34: such a note is charged at its
 * claim line's price, `claimedLineOf`), as `noteCptSums`' price inputs (the same key, so the reader takes them out of
 * those groups) plus the note's units and its line (`claimedLineOf`'s JSON), with how many notes share all of that
 * (`n`): the reader prices one note of each with `claimedPrice` and multiplies. The same notes as `noteCptSums`
 * (`noteReportWhere`). Read from the claim lines of the period's service dates (`claim_lines_service_date_idx`; a
 * line's date is its notes' session date, which the claim holds) in a fixed join order — line, claim, its notes —
 * so the statement reads the period's claimed lines, never every note of the period (decision 039, 2026-11-28 (stop 42)).
 */
export function claimedNoteCptSums(ctx: ModelContext, f: NoteReportFilters) {
  const md = sql<string>`coalesce(${notes.md}, '')`;
  const md2 = sql<string>`coalesce(${notes.md2}, '')`;
  const own = sql<number>`coalesce(${notes.unitPriceCents}, 0)`;
  const payer = sql<number>`coalesce((select ${paServices.insuranceId} from ${paServices} where ${paServices.id} = ${notes.paServiceId}), (select ${patients.insurerId} from ${patients} where ${patients.id} = ${notes.patientId}), 0)`;
  const line = sql<string>`json_array(cl.unit_price_cents, cl.multiplier, cl.charge_cents, cl.units, cl.xp_multiplier)`;
  return ctx.db
    .select({
      // Written as SQL: drizzle would refuse columns of a table its FROM (written out, for the join order) does not name.
      locationId: sql<number>`${notes.locationId}`,
      cptCode: sql<string>`${notes.cptCode}`,
      type: sql<string>`${notes.type}`,
      md,
      md2,
      ownPrice: own,
      payerId: payer,
      units: sql<number>`${notes.units}`,
      line,
      n: sql<number>`count(*)`,
    })
    .from(sql`claim_lines cl indexed by claim_lines_service_date_idx cross join claims c cross join claim_line_notes cln`)
    // Joined (not a fourth table in the FROM), so drizzle writes every notes column with its table's name; a CROSS
    // JOIN, so SQLite keeps it last instead of walking the period's notes first.
    .crossJoin(notes)
    .where(
      and(
        sql`cl.service_date >= ${f.from} and cl.service_date <= ${f.to}`,
        sql`c.id = cl.claim_id and c.status in ('generated', 'sent', 'accepted')`,
        sql`cln.claim_line_id = cl.id and ${notes.id} = cln.note_id`,
        noteReportWhere(ctx, f)
      )
    )
    .groupBy(notes.locationId, notes.cptCode, notes.type, md, md2, own, payer, notes.units, line);
}

/** Paging of grouped rows: the page's rows plus `count(*) over ()`, the number of groups, in the same statement. */
export interface Window {
  limit: number;
  offset: number;
}

/** The window's total column (every grouped query selects it). */
export const groupsTotal = sql<number>`count(*) over ()`.mapWith(Number);

/**
 * The number of groups of a common table expression (`db.$with`), for the readers of the large client groupings
 * (hours, the BCBA report): the window count (`groupsTotal`) materialises the 20,000 groups and sorts them once more
 * before the page's own sort, while SQLite materialises a CTE read twice once and counts it in a pass (decision 043,
 * stop 31).
 */
export function groupsCount(g: { _: { alias: string } }): SQL<number> {
  return sql<number>`(select count(*) from ${sql.identifier(g._.alias)})`.mapWith(Number);
}

/** "Last, First (ID)" as the lists show a client. */
export function clientLabel(p: { firstName: string | null; lastName: string | null; identifier: string | null }): string {
  if (p.firstName == null && p.lastName == null) return "";
  return `${p.lastName ?? ""}, ${p.firstName ?? ""}${p.identifier ? ` (${p.identifier})` : ""}`;
}

/** "First Last" as the lists show an employee; a note whose provider is unknown keeps its typed name. */
export function employeeLabel(u: { name: string | null; surname: string | null }, fallback = ""): string {
  const s = `${u.name ?? ""} ${u.surname ?? ""}`.trim();
  return s || fallback || "Unknown provider";
}

/**
 * How a report's reads reach D1: one batch. The report screen passes its own (which adds the filter form's
 * options to the same batch, app/services/report-screens.server.ts); scripts and tests use `dbBatch`.
 */
export type ReadBatch = <T extends BatchItem<"sqlite">[]>(
  reads: [...T]
) => Promise<{
  [K in keyof T]: T[K] extends BatchItem<"sqlite"> ? Awaited<T[K]> : never;
}>;

export function dbBatch(ctx: Pick<ModelContext, "db">): ReadBatch {
  return ((reads: BatchItem<"sqlite">[]) => ctx.db.batch(reads as unknown as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown as ReadBatch;
}
