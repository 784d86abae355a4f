import { and, asc, sql } from "drizzle-orm";
import { locations, patients } from "~/db/schema";
import { reportHours, supervisionPercent, supervisionState, SUPERVISION_MIN_PERCENT } from "~/domain/report-operations";
import type { SupervisionRow } from "~/domain/report-defs/operations";
import type { ModelContext } from "../context";
import { clientLabel, clientServedBy, clientSumsSeen, groupsCount, noteClientSums, type NoteReportFilters, type Window, dbBatch, type ReadBatch } from "./note-scope.server";

/**
 * BCBA report (supervision, decision 039): per client, the RBT hours (RBT and combined notes) and the BCBA
 * hours (BCBA and combined notes: a combined session is an RBT session with its analyst present) of the
 * period, the BCBA share of the RBT hours and whether it meets the 5% supervision minimum. `below_only` keeps
 * the clients under it (a HAVING on the sums, so the paging and the count stay in SQL). A provider picks the
 * clients they served in the period (`clientServedBy`), whose sums still count every session: a client's share
 * and flag never depend on the provider chosen (decision 039, 2026-11-27 (stop 34)).
 */
export type { SupervisionRow };

export interface SupervisionReport {
  rows: SupervisionRow[];
  total: number;
}

export async function supervisionReport(
  ctx: ModelContext,
  f: NoteReportFilters,
  opts: { belowOnly: boolean },
  page: Window,
  batch: ReadBatch = dbBatch(ctx)
): Promise<SupervisionReport> {
  // The period's notes as sums per client and type (whole months from note_month_client_totals, edge days
  // from the notes; decision 039).
  // Every provider's notes: the provider filter picks clients (the HAVING below), not notes.
  const src = noteClientSums(ctx, { ...f, providerId: null }, {
    rbt: (r) => sql`case when ${r.type} in ('rbt', 'combined') then ${r.minutes} else 0 end`,
    bcba: (r) => sql`case when ${r.type} in ('bcba', 'combined') then ${r.minutes} else 0 end`,
  });
  const rbt = sql<number>`sum(${src.rbt})`;
  const bcba = sql<number>`sum(${src.bcba})`;
  // The groups as a common table expression the page and its count both read (groupsCount).
  const g = ctx.db.$with("g").as(
    ctx.db
      .select({
        patientId: sql<number>`${src.patientId}`.as("g_patient_id"),
        rbt: rbt.as("rbt"),
        bcba: bcba.as("bcba"),
      })
      .from(src)
      .groupBy(sql`${src.patientId}`)
      // Exact comparison in integers: bcba × 100 < 5 × rbt (the same rule as supervisionState).
      // A client netted to no notes (seen only on days taken off a month's sums) is not a row.
      .having(
        and(
          clientSumsSeen(ctx, src),
          opts.belowOnly ? sql`${rbt} > 0 and ${bcba} * 100 < ${SUPERVISION_MIN_PERCENT} * ${rbt}` : undefined,
          f.providerId !== null ? clientServedBy(ctx, f, sql`${src.patientId}`, f.providerId) : undefined
        )
      )
  );
  const [rows] = await batch([
    ctx.db
      .with(g)
      .select({
        patientId: g.patientId,
        rbt: g.rbt,
        bcba: g.bcba,
        firstName: patients.firstName,
        lastName: patients.lastName,
        identifier: patients.patientIdentifier,
        location: locations.title,
        total: groupsCount(g),
      })
      .from(g)
      .innerJoin(patients, sql`${patients.id} = ${g.patientId}`)
      .leftJoin(locations, sql`${locations.id} = ${patients.locationId}`)
      // Lowest share first (the clients needing supervision on top); clients without RBT hours last.
      .orderBy(sql`case when ${g.rbt} > 0 then 0 else 1 end`, sql`(${g.bcba} * 1.0) / nullif(${g.rbt}, 0)`, asc(patients.lastName), asc(g.patientId))
      .limit(page.limit)
      .offset(page.offset),
  ]);
  return {
    rows: rows.map((r) => {
      const rbtMinutes = Number(r.rbt);
      const bcbaMinutes = Number(r.bcba);
      return {
        patient_id: r.patientId,
        client: clientLabel(r),
        location: r.location ?? "",
        rbt_minutes: rbtMinutes,
        bcba_minutes: bcbaMinutes,
        rbt_hours: reportHours(rbtMinutes),
        bcba_hours: reportHours(bcbaMinutes),
        percent: supervisionPercent(bcbaMinutes, rbtMinutes),
        state: supervisionState(bcbaMinutes, rbtMinutes),
      };
    }),
    total: rows[0]?.total ?? 0,
  };
}
