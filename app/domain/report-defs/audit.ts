import * as v from "valibot";
import { changeText } from "../audit-changes";
import { clientHref, defineReport, optionalId, optionalText, PERIOD_FILTERS, REPORTS_PERMISSION, withPeriod, REPORT_TITLES, type ReportColumn } from "../reports";

/**
 * The logs and access reports (issue 12): both read the audit trail (app/services/audit.server.ts). Logs is
 * every row in the actor's scope with the chain's integrity check over the rows shown; access is the rows that
 * name one client (who read or changed which client's record). Times are UTC (the trail's own clock).
 */

export interface AuditReportRow {
  id: number;
  at: string;
  actor_type: string;
  actor_id: number | null;
  actor_name: string | null;
  action: string;
  entity: string;
  entity_id: string | null;
  patient_id: number | null;
  client_name: string | null;
  /** How many clients a list read named (its detail), or null. */
  clients_named: number | null;
  /** An update's detail when it says what changed (`{"changed": […]}`, decision 019, stop 43), else null. */
  change_detail?: string | null;
  ip: string | null;
}

/** "2026-01-31 14:05:09 UTC" from the trail's ISO time. */
export function auditTime(at: string): string {
  return `${at.slice(0, 10)} ${at.slice(11, 19)} UTC`;
}

/**
 * Who a row names, in words. The system's rows say what ran: the email queue's last retry ("email queue", decision
 * 005, stop 42), a failed email recorded before stop 42 ("email": the queue or a send during a request, which was
 * not told apart then), or the scheduled work (PDF expiry, "cron").
 */
export function actorText(r: Pick<AuditReportRow, "actor_type" | "actor_id" | "actor_name"> & { ip?: string | null }): string {
  if (r.actor_type === "system") return r.ip === "email queue" ? "System (email queue)" : r.ip === "email" ? "System (email)" : "System (scheduled)";
  if (r.actor_type === "anonymous" || r.actor_id == null) return "Anonymous";
  const who = r.actor_name?.trim() || `#${r.actor_id}`;
  return r.actor_type === "parent" ? `${who} (parent)` : who;
}

export function recordText(r: Pick<AuditReportRow, "entity" | "entity_id">): string {
  return r.entity_id ? `${r.entity} #${r.entity_id}` : r.entity;
}


const whenColumn: ReportColumn<AuditReportRow> = {
  header: "When",
  value: (r) => auditTime(r.at),
};
const whoColumn: ReportColumn<AuditReportRow> = {
  header: "Who",
  value: actorText,
};
const actionColumn: ReportColumn<AuditReportRow> = {
  header: "Action",
  value: (r) => r.action,
};
const recordColumn: ReportColumn<AuditReportRow> = {
  header: "Record",
  value: recordText,
};
/** What an update changed: field names, and the old and new values of the fields the trail shows (changeText). */
const changesColumn: ReportColumn<AuditReportRow> = {
  header: "Changes",
  value: (r) => changeText(r.change_detail),
};
const clientColumn: ReportColumn<AuditReportRow> = {
  header: "Client",
  value: (r) => r.client_name ?? (r.patient_id ? `#${r.patient_id}` : ""),
  href: (r, links) => clientHref(r.patient_id, links),
};
const addressColumn: ReportColumn<AuditReportRow> = {
  header: "Address",
  value: (r) => r.ip ?? "",
};

const AuditFilters = withPeriod({
  actor_id: optionalId("Who"),
  patient_id: optionalId("Client"),
  action: optionalText("Action"),
});
export type AuditFilters = v.InferOutput<typeof AuditFilters>;

export const logsReport = defineReport<AuditFilters, AuditReportRow>({
  key: "logs",
  ...REPORT_TITLES.logs,
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: [
    ...PERIOD_FILTERS,
    { name: "actor_id", label: "Who", kind: "actor", any: "Anyone" },
    { name: "action", label: "Action", kind: "text" },
    { name: "patient_id", label: "Client ID", kind: "client" },
  ],
  schema: AuditFilters,
  columns: [
    whenColumn,
    whoColumn,
    actionColumn,
    recordColumn,
    changesColumn,
    clientColumn,
    { header: "Clients named", value: (r) => r.clients_named, numeric: true },
    addressColumn,
    { header: "Entry", value: (r) => r.id, numeric: true },
  ],
  rowKey: (r) => r.id,
  note: "Newest first; times in UTC. The period defaults to the last 7 days. The integrity check recomputes the hash of each entry shown and its link to the entry just before it (by id), not the whole trail.",
});

export const accessReport = defineReport<AuditFilters, AuditReportRow>({
  key: "access",
  ...REPORT_TITLES.access,
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: [
    ...PERIOD_FILTERS,
    { name: "patient_id", label: "Client ID", kind: "client" },
    { name: "actor_id", label: "Who", kind: "actor", any: "Anyone" },
    { name: "action", label: "Action", kind: "text" },
  ],
  schema: AuditFilters,
  columns: [whenColumn, clientColumn, whoColumn, actionColumn, recordColumn, addressColumn],
  rowKey: (r) => r.id,
  note: "Every read or change recorded against one client's record, newest first; times in UTC. The period defaults to the last 30 days. A list that showed several clients at once is one entry of the logs report (its clients are counted there).",
});
