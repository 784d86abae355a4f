import { and, asc, exists, isNull, sql } from "drizzle-orm";
import { notes, patients, users } from "~/db/schema";
import { reportHours } from "~/domain/report-operations";
import type { CaseloadRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { clientLabel, clientLocationInScope, employeeLabel, groupsTotal, noteProviders, noteReportWhere, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";

/**
 * Provider-clients (caseload, decision 039, 2026-11-26): per provider, the number of distinct clients seen in the
 * period, their sessions and hours, and the clients themselves, providers in name order. One batch: the page of
 * providers (the period's providers from the month sums and edge days, `noteSums`, with their count) and the
 * (provider, client) pairs of that page's providers only, with the clients' names; the per-provider figures are
 * window sums over those pairs, and the screen names only the first clients by name of each provider (decision
 * 039, 2026-11-26 "names per provider"). No statement groups every pair of the period.
 */
export type { CaseloadRow };

export interface CaseloadReport {
  rows: CaseloadRow[];
  total: number;
}

/**
 * `names`: how many clients to name per provider (the first by name; `more_clients` counts the rest), or null
 * for every one (the CSV). The figures (clients, sessions, hours) are always every client's.
 */
export async function caseloadReport(
  ctx: ModelContext,
  f: NoteReportFilters,
  page: Window,
  batch: ReadBatch = dbBatch(ctx),
  opts: { names: number | null } = { names: null }
): Promise<CaseloadReport> {
  // The period's providers: whole months from note_month_totals, edge days from the notes, each once.
  const src = noteProviders(ctx, f);
  // For an actor without every location, a provider is listed only with a client the actor may see: a live client
  // whose current location is one of the actor's (decision 038 §7, 2026-11-28), so no row is left of a provider whose
  // clients of the period have all moved to another location. One probe per provider of the period, through their
  // notes (provider, session date); every location: no condition, as before.
  const here = clientLocationInScope(ctx);
  const provSrc = sql<number | null>`${src.providerId}`;
  const prov = ctx.db
    .selectDistinct({ providerId: provSrc.as("p_provider_id") })
    .from(src)
    .where(here ? sql`exists (select 1 from ${notes} inner join ${patients} on ${patients.id} = ${notes.patientId} where ${notes.providerId} is ${provSrc} and ${noteReportWhere(ctx, f, { byProvider: true })} and ${here})` : undefined)
    .as("prov");
  // Name order (surname, first name, id); the notes without a provider last.
  const order = [sql`${prov.providerId} is null`, asc(users.surname), asc(users.name), asc(prov.providerId)] as const;
  const pageOf = () =>
    ctx.db
      .select({ providerId: prov.providerId, name: users.name, surname: users.surname, total: groupsTotal })
      .from(prov)
      .leftJoin(users, sql`${users.id} = ${prov.providerId}`)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset);
  const pageIds = () => {
    const ids = ctx.db
      .select({ providerId: prov.providerId })
      .from(prov)
      .leftJoin(users, sql`${users.id} = ${prov.providerId}`)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset)
      .as("page_ids");
    return ids;
  };
  // The page's (provider, client) pairs, from notes_provider_report_idx (provider, session date). The location
  // condition is kept off the indexes (`byProvider`) and the page's providers are the outer loop (CROSS JOIN
  // keeps SQLite's join order), so each provider's notes of the period are read by provider, never every note of
  // the locations. The notes without a provider are a second branch, read only when that row is on the page.
  const providerWhere = noteReportWhere(ctx, f, { byProvider: true });
  const pairCols = {
    providerId: sql<number | null>`${notes.providerId}`.as("q_provider_id"),
    patientId: sql<number>`${notes.patientId}`.as("q_patient_id"),
    sessions: sql<number>`count(*)`.as("q_sessions"),
    minutes: sql<number>`sum(${notes.minutes})`.as("q_minutes"),
  };
  const pairsOf = (which: "ids" | "none") => {
    const ids = pageIds();
    return which === "ids"
      ? ctx.db
          .select(pairCols)
          .from(ids)
          .crossJoin(notes)
          .where(and(sql`${notes.providerId} = ${ids.providerId}`, providerWhere))
          .groupBy(notes.providerId, notes.patientId)
      : ctx.db
          .select(pairCols)
          .from(notes)
          .where(and(providerWhere, isNull(notes.providerId), exists(ctx.db.select({ one: sql`1` }).from(ids).where(sql`${ids.providerId} is null`))))
          .groupBy(notes.providerId, notes.patientId);
  };
  const pairs = pairsOf("ids").unionAll(pairsOf("none")).as("pairs");
  // Per provider: the clients by name (`rn`), and the exact figures over all of that provider's pairs (window
  // sums), so naming only the first `names` clients changes no count.
  const byName = sql`partition by ${pairs.providerId} order by ${patients.lastName}, ${patients.firstName}, ${pairs.patientId}`;
  const whole = sql`partition by ${pairs.providerId}`;
  const named = ctx.db
    .select({
      providerId: sql<number | null>`${pairs.providerId}`.as("n_provider_id"),
      patientId: sql<number>`${pairs.patientId}`.as("n_patient_id"),
      firstName: sql<string | null>`${patients.firstName}`.as("n_first_name"),
      lastName: sql<string | null>`${patients.lastName}`.as("n_last_name"),
      identifier: sql<string | null>`${patients.patientIdentifier}`.as("n_identifier"),
      rn: sql<number>`row_number() over (${byName})`.as("n_rn"),
      clients: sql<number>`count(*) over (${whole})`.as("n_clients"),
      sessions: sql<number>`sum(${pairs.sessions}) over (${whole})`.as("n_sessions"),
      minutes: sql<number>`sum(${pairs.minutes}) over (${whole})`.as("n_minutes"),
    })
    .from(pairs)
    // The clients the actor may see (decision 038 §7): their current location among the actor's. The figures are
    // window sums over these pairs, so a client moved away is neither named nor counted.
    .innerJoin(patients, and(sql`${patients.id} = ${pairs.patientId}`, here))
    .as("named");
  const [rows, seen] = await batch([
    pageOf(),
    ctx.db
      .select({
        providerId: named.providerId,
        patientId: named.patientId,
        firstName: named.firstName,
        lastName: named.lastName,
        identifier: named.identifier,
        clients: named.clients,
        sessions: named.sessions,
        minutes: named.minutes,
      })
      .from(named)
      .where(opts.names === null ? undefined : sql`${named.rn} <= ${opts.names}`)
      .orderBy(asc(named.rn)),
  ]);
  const byProvider = new Map<number | null, { names: string[]; ids: number[]; clients: number; sessions: number; minutes: number }>();
  for (const s of seen) {
    const e = byProvider.get(s.providerId) ?? { names: [], ids: [], clients: Number(s.clients), sessions: Number(s.sessions), minutes: Number(s.minutes) };
    e.names.push(clientLabel(s));
    e.ids.push(s.patientId);
    byProvider.set(s.providerId, e);
  }
  return {
    rows: rows.map((r) => {
      const list = byProvider.get(r.providerId) ?? { names: [], ids: [], clients: 0, sessions: 0, minutes: 0 };
      return {
        provider_id: r.providerId,
        provider: employeeLabel(r),
        clients: list.clients,
        sessions: list.sessions,
        minutes: list.minutes,
        hours: reportHours(list.minutes),
        client_names: list.names,
        patient_ids: list.ids,
        more_clients: list.clients - list.ids.length,
        clients_href: null,
      };
    }),
    total: rows[0]?.total ?? 0,
  };
}
