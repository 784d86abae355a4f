import { asc, desc, sql } from "drizzle-orm";
import { patients, users } from "~/db/schema";
import { reportHours, weeklyMinutes, type HoursGroup, type WeekHours } from "~/domain/report-operations";
import type { HoursRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { clientLabel, clientSumsSeen, employeeLabel, groupsCount, noteClientSums, noteDaySums, noteSums, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";

/**
 * Hours (decision 039): sessions, units and hours of the period per provider, client or CPT (the group-by
 * selector), and hours per week for the chart. One batch: the page of groups (with the number of groups,
 * `count(*) over ()`) and the minutes per session date (at most 366 rows), folded into Sunday–Saturday weeks.
 */
export type { HoursRow };

export interface HoursReport {
  rows: HoursRow[];
  total: number;
  weeks: WeekHours[];
  totals: { minutes: number; sessions: number };
  /**
   * By client: the part of `totals` in no row — the sessions at the user's locations of clients now at a location
   * the user does not see (decision 038 §7: a row names a client only at their current location). Null when every
   * session of the total has its row, or when the page is past the last (the rows' sums are then unknown).
   */
  unlisted: { minutes: number; sessions: number } | null;
}

export async function hoursReport(ctx: ModelContext, f: NoteReportFilters, by: HoursGroup, page: Window, batch: ReadBatch = dbBatch(ctx)): Promise<HoursReport> {
  // The period's notes as sums (whole months from note_month_totals or, by client, note_month_client_totals;
  // edge days from the notes; decision 039).
  // The groups as a common table expression the page and its count both read (groupsCount).
  const g = ctx.db.$with("g").as(by === "client" ? clientGroupSums(ctx, f) : groupSums(ctx, f, by));
  const base = {
    key: g.key,
    sessions: g.sessions,
    units: g.units,
    minutes: g.minutes,
    total: groupsCount(g),
  };
  const pageQuery =
    by === "provider"
      ? ctx.db
          .with(g)
          .select({
            ...base,
            a: users.name,
            b: users.surname,
            c: sql<string | null>`null`,
          })
          .from(g)
          .leftJoin(users, sql`${users.id} = ${g.key}`)
          .orderBy(desc(g.minutes), asc(users.surname), asc(g.key))
      : by === "client"
      ? ctx.db
          .with(g)
          .select({
            ...base,
            a: patients.firstName,
            b: patients.lastName,
            c: patients.patientIdentifier,
            // The sums of every row (all pages), to say what part of the total no row shows.
            listedMinutes: sql<number>`(select coalesce(sum(${sql.identifier("minutes")}), 0) from ${sql.identifier(g._.alias)})`.mapWith(Number),
            listedSessions: sql<number>`(select coalesce(sum(${sql.identifier("sessions")}), 0) from ${sql.identifier(g._.alias)})`.mapWith(Number),
          })
          .from(g)
          .innerJoin(patients, sql`${patients.id} = ${g.key}`)
          .orderBy(desc(g.minutes), asc(patients.lastName), asc(g.key))
      : ctx.db
          .with(g)
          .select({
            ...base,
            a: sql<string | null>`null`,
            b: sql<string | null>`null`,
            c: sql<string | null>`null`,
          })
          .from(g)
          .orderBy(desc(g.minutes), asc(g.key));
  // The minutes per session date: every day from note_day_totals (the notes with a provider or client filter), of
  // the same notes as the rows: by provider or CPT every live note, by client the live clients' (decision 039,
  // 2026-11-27 "deleted clients").
  const days = noteDaySums(ctx, f, { everyClient: by !== "client" });
  const [rows, perDay] = await batch([
    pageQuery.limit(page.limit).offset(page.offset),
    ctx.db
      .select({
        date: days.date,
        sessions: sql<number>`sum(${days.n})`,
        minutes: sql<number>`sum(${days.minutes})`,
      })
      .from(days)
      .groupBy(sql`${days.date}`),
  ]);
  const totals = { minutes: 0, sessions: 0 };
  for (const d of perDay) {
    totals.minutes += Number(d.minutes);
    totals.sessions += Number(d.sessions);
  }
  const first = rows[0] as { listedMinutes?: number; listedSessions?: number } | undefined;
  const listed = first ? { minutes: Number(first.listedMinutes), sessions: Number(first.listedSessions) } : page.offset === 0 ? { minutes: 0, sessions: 0 } : null;
  const unlisted =
    by === "client" && listed && (listed.minutes !== totals.minutes || listed.sessions !== totals.sessions)
      ? { minutes: totals.minutes - listed.minutes, sessions: totals.sessions - listed.sessions }
      : null;
  return {
    rows: rows.map((r) => ({
      key: String(r.key ?? ""),
      label:
        by === "provider"
          ? employeeLabel({ name: r.a, surname: r.b })
          : by === "client"
          ? clientLabel({ firstName: r.a, lastName: r.b, identifier: r.c })
          : String(r.key || "(no CPT)"),
      patient_id: by === "client" && r.key != null ? Number(r.key) : null,
      sessions: Number(r.sessions),
      units: Number(r.units),
      minutes: Number(r.minutes),
      hours: reportHours(Number(r.minutes)),
    })),
    total: rows[0]?.total ?? 0,
    weeks: weeklyMinutes(
      perDay.map((d) => ({ date: d.date, minutes: Number(d.minutes) })),
      f.from,
      f.to
    ),
    totals,
    unlisted,
  };
}

/** Sessions, units and minutes per provider or CPT code from the period's sums (noteSums). */
function groupSums(ctx: ModelContext, f: NoteReportFilters, by: "provider" | "cpt") {
  const src = noteSums(ctx, f);
  const key = by === "provider" ? src.providerId : src.cptCode;
  return ctx.db
    .select({
      key: sql<string | number | null>`${key}`.as("k"),
      sessions: sql<number>`sum(${src.n})`.as("sessions"),
      units: sql<number>`sum(${src.units})`.as("units"),
      minutes: sql<number>`sum(${src.minutes})`.as("minutes"),
    })
    .from(src)
    .groupBy(sql`${key}`);
}

/** Sessions, units and minutes per client from the period's sums (noteClientSums). */
function clientGroupSums(ctx: ModelContext, f: NoteReportFilters) {
  const src = noteClientSums(ctx, f, { minutes: (r) => r.minutes, units: (r) => r.units });
  return ctx.db
    .select({
      key: sql<string | number | null>`${src.patientId}`.as("k"),
      sessions: sql<number>`sum(${src.n})`.as("sessions"),
      units: sql<number>`sum(${src.units})`.as("units"),
      minutes: sql<number>`sum(${src.minutes})`.as("minutes"),
    })
    .from(src)
    .groupBy(sql`${src.patientId}`)
    .having(clientSumsSeen(ctx, src));
}
