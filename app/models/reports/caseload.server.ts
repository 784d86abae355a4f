import { asc, desc, inArray, sql } from "drizzle-orm";
import { notes, patients, users } from "~/db/schema";
import { reportHours } from "~/domain/report-operations";
import type { CaseloadRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { clientLabel, employeeLabel, groupsTotal, noteReportWhere, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";

/**
 * Provider-clients (caseload, decision 039): per provider, the number of distinct clients seen in the period,
 * their sessions and hours, and the clients themselves (for the page's providers only). One batch: the page of
 * providers (grouped over (provider, client) pairs, with the count of providers) and the pairs of that page's
 * providers with the clients' names.
 */
export type { CaseloadRow };

export interface CaseloadReport {
  rows: CaseloadRow[];
  total: number;
}

export async function caseloadReport(ctx: ModelContext, f: NoteReportFilters, page: Window, batch: ReadBatch = dbBatch(ctx)): Promise<CaseloadReport> {
  const where = noteReportWhere(ctx, f);
  const pairs = ctx.db
    .select({
      providerId: notes.providerId,
      patientId: notes.patientId,
      sessions: sql<number>`count(*)`.as("sessions"),
      minutes: sql<number>`sum(${notes.minutes})`.as("minutes"),
    })
    .from(notes)
    .where(where)
    .groupBy(notes.providerId, notes.patientId)
    .as("pairs");
  const g = ctx.db
    .select({
      providerId: pairs.providerId,
      clients: sql<number>`count(*)`.as("clients"),
      sessions: sql<number>`sum(${pairs.sessions})`.as("sessions"),
      minutes: sql<number>`sum(${pairs.minutes})`.as("minutes"),
    })
    .from(pairs)
    .groupBy(pairs.providerId)
    .as("g");
  const order = [desc(g.clients), asc(users.surname), asc(users.name), asc(g.providerId)] as const;
  const pageOf = () =>
    ctx.db
      .select({
        providerId: g.providerId,
        clients: g.clients,
        sessions: g.sessions,
        minutes: g.minutes,
        name: users.name,
        surname: users.surname,
        total: groupsTotal,
      })
      .from(g)
      .leftJoin(users, sql`${users.id} = ${g.providerId}`)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset);
  const pageIds = ctx.db.select({ id: sql`page_ids.provider_id` }).from(
    ctx.db
      .select({ providerId: g.providerId })
      .from(g)
      .leftJoin(users, sql`${users.id} = ${g.providerId}`)
      .orderBy(...order)
      .limit(page.limit)
      .offset(page.offset)
      .as("page_ids")
  );
  const [rows, seen] = await batch([
    pageOf(),
    ctx.db
      .selectDistinct({
        providerId: notes.providerId,
        patientId: notes.patientId,
        firstName: patients.firstName,
        lastName: patients.lastName,
        identifier: patients.patientIdentifier,
      })
      .from(notes)
      .innerJoin(patients, sql`${patients.id} = ${notes.patientId}`)
      .where(sql`${where} and ${inArray(notes.providerId, pageIds)}`)
      .orderBy(asc(patients.lastName), asc(patients.firstName), asc(notes.patientId)),
  ]);
  const byProvider = new Map<number | null, { names: string[]; ids: number[] }>();
  for (const s of seen) {
    const e = byProvider.get(s.providerId) ?? { names: [], ids: [] };
    e.names.push(clientLabel(s));
    e.ids.push(s.patientId);
    byProvider.set(s.providerId, e);
  }
  return {
    rows: rows.map((r) => {
      const list = byProvider.get(r.providerId) ?? { names: [], ids: [] };
      return {
        provider_id: r.providerId,
        provider: employeeLabel(r),
        clients: Number(r.clients),
        sessions: Number(r.sessions),
        minutes: Number(r.minutes),
        hours: reportHours(Number(r.minutes)),
        client_names: list.names,
        patient_ids: list.ids,
      };
    }),
    total: rows[0]?.total ?? 0,
  };
}
