import { and, eq, gte, inArray, isNull, lte, notInArray, sql, type SQL } from "drizzle-orm";
import { locations, notes, patients } from "~/db/schema";
import { canSeeLocation, locationScope } from "~/domain/permissions";
import type { BatchItem } from "drizzle-orm/batch";
import type { ModelContext } from "../context";

/**
 * The notes the operations reports sum (decision 039): live notes (deleted_at null) of live clients, in the
 * actor's locations, with the session date inside the period, optionally one location, provider or client.
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
}

export function noteReportWhere(ctx: ModelContext, f: NoteReportFilters): SQL {
  const scope = locationScope(ctx.actor);
  let location: SQL;
  // A location outside the actor's scope gives an empty report, never that location's sums (decision 015).
  if (f.locationId !== null) location = canSeeLocation(ctx.actor, f.locationId) ? eq(notes.locationId, f.locationId) : sql`0`;
  else if (scope === null) location = inArray(notes.locationId, ctx.db.select({ id: locations.id }).from(locations));
  else location = scope.length ? inArray(notes.locationId, scope) : sql`0`;
  return and(
    isNull(notes.deletedAt),
    location,
    gte(notes.sessionDate, f.from),
    lte(notes.sessionDate, f.to),
    f.providerId !== null ? eq(notes.providerId, f.providerId) : undefined,
    f.patientId !== null ? eq(notes.patientId, f.patientId) : undefined,
    notInArray(
      notes.patientId,
      ctx.db
        .select({ id: patients.id })
        .from(patients)
        .where(sql`${patients.deletedAt} is not null`)
    )
  )!;
}

/** Paging of grouped rows: the page's rows plus `count(*) over ()`, the number of groups, in the same statement. */
export interface Window {
  limit: number;
  offset: number;
}

/** The window's total column (every grouped query selects it). */
export const groupsTotal = sql<number>`count(*) over ()`.mapWith(Number);

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
