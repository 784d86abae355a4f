import { money } from "~/domain/billing";
import { todayAtLocation } from "~/domain/pa-pacing";
import type {
  CaseloadRow,
  HoursFilters,
  HoursRow,
  LocationCptRow,
  NoteFilters,
  PayrollRow,
  SupervisionFilters,
  SupervisionRow,
  TicketReportFilters,
  TicketSupportRow,
} from "~/domain/report-defs/operations";
import { CASELOAD_NAMES_SHOWN } from "~/domain/report-defs/operations";
import { barChart, hoursText, monthOf, SUPERVISION_MIN_PERCENT } from "~/domain/report-operations";
import { periodText } from "~/domain/reports";
import type { ReportQuery, ReportRunContext, ReportRunner } from "~/services/report-screens.server";
import { caseloadReport } from "./caseload.server";
import { hoursReport } from "./hours.server";
import { locationCptReport } from "./location-cpt.server";
import type { NoteReportFilters, ReadBatch, Window } from "./note-scope.server";
import { payrollReport } from "./payroll.server";
import { supervisionReport } from "./supervision.server";
import { ticketSupportReport } from "./ticket-support.server";

/**
 * The runners of the six operations reports (decision 039) for the report screen and CSV of decision 038:
 * each reads through the screen's batch (`rc.read`, which adds the filter form's options to it), so a report
 * costs the session, one batch and, when it names clients, the audit row. The filters' period defaults to
 * this month at the actor's location; a missing end is the end of the start's month, a missing start the
 * start of the end's month.
 */

export function reportPeriod(f: { date_from: string | null; date_to: string | null }, today: string): { from: string; to: string } {
  if (f.date_from && f.date_to) return { from: f.date_from, to: f.date_to };
  if (f.date_from) return { from: f.date_from, to: monthOf(f.date_from).to };
  if (f.date_to) return { from: monthOf(f.date_to).from, to: f.date_to };
  return monthOf(today);
}

function periodOf(rc: ReportRunContext, f: { date_from: string | null; date_to: string | null }) {
  return reportPeriod(f, todayAtLocation(rc.now(), rc.actor.timeZone ?? "UTC"));
}

function noteFilters(f: NoteFilters, period: { from: string; to: string }): NoteReportFilters {
  return {
    locationId: f.location_id,
    providerId: f.provider_id,
    patientId: f.patient_id,
    ...period,
  };
}

const windowOf = (q: ReportQuery<unknown>): Window => ({
  limit: q.limit,
  offset: q.offset,
});
const readOf = (rc: ReportRunContext) => rc.read as unknown as ReadBatch;
const periodLine = (p: { from: string; to: string }) => `Period: ${periodText(p.from, p.to)}.`;

export const runPayrollReport: ReportRunner<NoteFilters, PayrollRow> = async (rc, q) => {
  const period = periodOf(rc, q.filters);
  const r = await payrollReport(rc, noteFilters(q.filters, period), windowOf(q), readOf(rc));
  const unpriced = r.totals.unpriced_rows ? ` ${r.totals.unpriced_rows} row${r.totals.unpriced_rows === 1 ? "" : "s"} without a rate are not in the pay.` : "";
  return {
    rows: r.rows,
    total: r.total,
    patientIds: [],
    notes: [periodLine(period), `${hoursText(r.totals.minutes)} hours; pay ${money(r.totals.pay_cents)}.${unpriced}`],
  };
};

export const runHoursReport: ReportRunner<HoursFilters, HoursRow> = async (rc, q) => {
  const period = periodOf(rc, q.filters);
  const r = await hoursReport(rc, noteFilters(q.filters, period), q.filters.by, windowOf(q), readOf(rc));
  const chart = q.csv
    ? null
    : {
        id: "hours-per-week",
        model: barChart(
          "Hours per week",
          "hours",
          r.weeks.map((w) => ({
            label: `Week ending ${w.weekEnd}`,
            value: Math.round((w.minutes / 60) * 100) / 100,
            text: hoursText(w.minutes),
          })),
          // The report's own total, from the minutes (the weeks' values are rounded).
          { limit: 60, total: `${hoursText(r.totals.minutes)} hours` }
        ),
      };
  return {
    rows: r.rows,
    total: r.total,
    patientIds: r.rows.flatMap((x) => (x.patient_id === null ? [] : [x.patient_id])),
    notes: [
      periodLine(period),
      `${hoursText(r.totals.minutes)} hours in ${r.totals.sessions} sessions.` +
        (r.unlisted
          ? ` ${hoursText(r.unlisted.minutes)} hours in ${r.unlisted.sessions} of them are of clients now at a location you do not see, who are not listed.`
          : ""),
    ],
    chart,
  };
};

export const runSupervisionReport: ReportRunner<SupervisionFilters, SupervisionRow> = async (rc, q) => {
  const period = periodOf(rc, q.filters);
  const r = await supervisionReport(rc, noteFilters(q.filters, period), { belowOnly: q.filters.show === "below" }, windowOf(q), readOf(rc));
  return {
    rows: r.rows,
    total: r.total,
    patientIds: r.rows.map((x) => x.patient_id),
    notes: [periodLine(period), `Flagged below ${SUPERVISION_MIN_PERCENT}% BCBA hours of RBT hours.`],
  };
};

export const runLocationCptReport: ReportRunner<NoteFilters, LocationCptRow> = async (rc, q) => {
  const period = periodOf(rc, q.filters);
  const r = await locationCptReport(rc, noteFilters(q.filters, period), windowOf(q), readOf(rc));
  const unpriced = r.totals.unpriced_units ? ` ${r.totals.unpriced_units} units have no price.` : "";
  return {
    rows: r.rows,
    total: r.total,
    patientIds: [],
    notes: [periodLine(period), `${r.totals.units} units; charges ${money(r.totals.charges_cents)}.${unpriced}`],
  };
};

export const runCaseloadReport: ReportRunner<NoteFilters, CaseloadRow> = async (rc, q) => {
  const period = periodOf(rc, q.filters);
  const r = await caseloadReport(rc, noteFilters(q.filters, period), windowOf(q), readOf(rc), { names: q.csv ? null : CASELOAD_NAMES_SHOWN });
  // Every client of a provider, paged: hours by client with the same period, location and client filters.
  const clientsHref = (providerId: number | null) => {
    if (providerId === null) return null;
    const s = new URLSearchParams({ by: "client", date_from: period.from, date_to: period.to, provider_id: String(providerId) });
    if (q.filters.location_id !== null) s.set("location_id", String(q.filters.location_id));
    if (q.filters.patient_id !== null) s.set("patient_id", String(q.filters.patient_id));
    return `/reports/hours?${s}`;
  };
  const chart = q.csv
    ? null
    : {
        id: "caseload",
        model: barChart(
          "Clients per provider (this page)",
          "clients",
          r.rows.map((x) => ({ label: x.provider, value: x.clients })),
          // No "clients in all": a client seen by two providers is in two bars.
          { total: null }
        ),
      };
  return {
    rows: r.rows.map((x) => ({ ...x, clients_href: clientsHref(x.provider_id) })),
    total: r.total,
    patientIds: r.rows.flatMap((x) => x.patient_ids),
    notes: [periodLine(period)],
    chart,
  };
};

export const runTicketSupportReport: ReportRunner<TicketReportFilters, TicketSupportRow> = async (rc, q) => {
  const period = periodOf(rc, q.filters);
  const r = await ticketSupportReport(rc, { locationId: q.filters.location_id, ...period }, readOf(rc));
  return {
    rows: r.rows,
    total: r.total,
    patientIds: [],
    notes: [periodLine(period)],
  };
};
