import * as v from "valibot";
import { centsOf, money } from "../billing";
import { csvCents, csvFixed } from "../csv";
import { clientHref, defineReport, employeeHref, oneOf, optionalId, PERIOD_FILTERS, REPORT_TITLES, REPORTS_PERMISSION, withPeriod, type ReportColumn, type ReportFilter } from "../reports";
import {
  AGE_BUCKETS,
  HOURS_GROUP_LABELS,
  HOURS_GROUPS,
  hoursText,
  reportHours,
  SUPERVISION_LABELS,
  SUPERVISION_MIN_PERCENT,
  TICKET_STATUS_LABELS,
  type AgeBucket,
  type HoursGroup,
  type PayRole,
  type SupervisionState,
  type TicketStatus,
} from "../report-operations";

/**
 * The six operations reports (decision 039): payroll, hours, bcba-report, location-cpt, provider-clients and
 * ticket-support. Each is one definition — filters and the ONE column list of the screen and the CSV — read by
 * the report screen of decision 038; the sums are app/models/reports/*.server.ts. Money is integer cents shown
 * with `money`; hours have two decimals. In the CSV, money, hours and percentages are plain decimals ("1234.50",
 * "12.50", "12.5") under a header that says the unit, and "No rate" or "—" is an empty cell (decision 038,
 * 2026-11-28 (stop 43)). Client-safe (no server import).
 */

/* ---------------------------------------------------------------- rows */

export interface PayrollRow {
  provider_id: number | null;
  employee: string;
  location_id: number;
  location: string;
  role: PayRole;
  sessions: number;
  minutes: number;
  hours: number;
  /** Dollars per hour as stored on the rate record; null: the location has no rate for this role. */
  hourly_rate: number | null;
  rate_record: string | null;
  /** The date the row's amount applies from (decision 039, stop 40); null: from the start (before any session). */
  rate_from: string | null;
  pay_cents: number | null;
}

export interface HoursRow {
  key: string;
  label: string;
  /** Set when grouped by client (the audit row names the clients a page shows). */
  patient_id: number | null;
  sessions: number;
  units: number;
  minutes: number;
  hours: number;
}

export interface SupervisionRow {
  patient_id: number;
  client: string;
  location: string;
  rbt_minutes: number;
  bcba_minutes: number;
  rbt_hours: number;
  bcba_hours: number;
  /** BCBA hours as a percentage of RBT hours (one decimal); null without RBT hours. */
  percent: number | null;
  state: SupervisionState;
}

export interface LocationCptRow {
  location_id: number;
  location: string;
  cpt_code: string;
  sessions: number;
  units: number;
  minutes: number;
  hours: number;
  charges_cents: number;
  /** Units no service of the payer prices (they add nothing to the charges; the scrubber says why per note). */
  unpriced_units: number;
}

export interface CaseloadRow {
  provider_id: number | null;
  provider: string;
  clients: number;
  sessions: number;
  minutes: number;
  hours: number;
  /** The clients named, "Last, First (ID)", by name: the first CASELOAD_NAMES_SHOWN on the screen, all in the CSV. */
  client_names: string[];
  patient_ids: number[];
  /** The provider's clients not named (clients − client_names.length). */
  more_clients: number;
  /** The provider's clients in the period, every one, paged: hours by client for this provider; null without one. */
  clients_href: string | null;
}

/** Clients named per provider on the provider-clients screen (the CSV names them all). */
export const CASELOAD_NAMES_SHOWN = 10;

export interface TicketSupportRow {
  status: TicketStatus;
  total: number;
  buckets: Record<AgeBucket, number>;
  /** Mean hours from opening to the first response, one decimal; null when none was answered. */
  mean_first_response_hours: number | null;
}

/* ---------------------------------------------------------------- filters */

const NoteFilters = withPeriod({
  location_id: optionalId("Location"),
  provider_id: optionalId("Provider"),
  patient_id: optionalId("Client"),
});
export type NoteFilters = v.InferOutput<typeof NoteFilters>;

const NOTE_FILTERS: readonly ReportFilter[] = [
  ...PERIOD_FILTERS,
  {
    name: "location_id",
    label: "Location",
    kind: "location",
    any: "All my locations",
  },
  { name: "provider_id", label: "Provider", kind: "provider", any: "Everyone" },
  { name: "patient_id", label: "Client ID", kind: "client" },
];

const HoursFilters = withPeriod({
  location_id: optionalId("Location"),
  provider_id: optionalId("Provider"),
  patient_id: optionalId("Client"),
  by: oneOf(HOURS_GROUPS, "provider", "Group by provider, client or CPT."),
});
export type HoursFilters = v.InferOutput<typeof HoursFilters>;

const SupervisionFilters = withPeriod({
  location_id: optionalId("Location"),
  provider_id: optionalId("Provider"),
  patient_id: optionalId("Client"),
  show: oneOf(["all", "below"] as const, "all", "Choose all clients or only those below 5%."),
});
export type SupervisionFilters = v.InferOutput<typeof SupervisionFilters>;

const TicketFilters = withPeriod({ location_id: optionalId("Location") });
export type TicketReportFilters = v.InferOutput<typeof TicketFilters>;

/* ---------------------------------------------------------------- columns */

/** Hours: "12.50" on the screen, the decimal 12.50 in the CSV (the same rounding). */
function hoursColumn<R>(header: string, minutes: (r: R) => number): ReportColumn<R> {
  return {
    header,
    value: (r) => hoursText(minutes(r)),
    csv: (r) => csvFixed(reportHours(minutes(r)), 2),
    numeric: true,
  };
}

/** Money: "$1,234.50" on the screen, the decimal 1234.50 under "<header> ($)" in the CSV; no amount: "No rate" on the screen, an empty cell in the CSV. */
function moneyColumn<R>(header: string, cents: (r: R) => number | null): ReportColumn<R> {
  return {
    header,
    value: (r) => {
      const c = cents(r);
      return c === null ? "No rate" : money(c);
    },
    csv: (r) => csvCents(cents(r)),
    csvHeader: `${header} ($)`,
    numeric: true,
  };
}

const PERIOD_NOTE = "The period defaults to this month (a missing end is the end of the start's month); at most one year.";
const NOTES_COUNTED = "Counts the live session notes of live clients whose session date is in the period.";
/** Payroll and hours by provider or CPT measure the staff's work: a deleted client's sessions still happened (decision 039, 2026-11-27). */
const STAFF_NOTES_COUNTED = "Counts every live session note whose session date is in the period, a deleted client's too (the session was delivered).";

export const payrollReport = defineReport<NoteFilters, PayrollRow>({
  key: "payroll",
  ...REPORT_TITLES.payroll,
  permission: "manage_employees",
  clientData: false,
  filters: NOTE_FILTERS,
  schema: NoteFilters,
  columns: [
    {
      header: "Employee",
      value: (r) => r.employee,
      href: (r, links) => employeeHref(r.provider_id, links),
    },
    { header: "Location", value: (r) => r.location },
    { header: "Role", value: (r) => r.role.toUpperCase() },
    { header: "Sessions", value: (r) => r.sessions, numeric: true },
    hoursColumn("Hours", (r) => r.minutes),
    // A period across an amount change has a row per amount, each naming the date its amount applies from.
    { header: "Rate record", value: (r) => (r.rate_record === null ? "" : r.rate_from ? `${r.rate_record} (from ${r.rate_from})` : r.rate_record) },
    moneyColumn("Hourly rate", (r) => (r.hourly_rate === null ? null : centsOf(r.hourly_rate))),
    moneyColumn("Pay", (r) => r.pay_cents),
  ],
  rowKey: (r) => `${r.provider_id}-${r.location_id}-${r.role}-${r.hourly_rate}`,
  note: `Pay = hours × the location's rate/pay record amount for the role in effect on each session's date: RBT notes at the RBT amount, BCBA notes at the BCBA amount, combined notes at the amount of their provider's own role (an RBT's at the RBT amount); the location's oldest record. A period across an amount change shows one row per amount, with the date it applies from. Pay figures need manage_employees. ${STAFF_NOTES_COUNTED} ${PERIOD_NOTE}`,
});

const HOURS_FILTERS: readonly ReportFilter[] = [
  ...NOTE_FILTERS,
  {
    name: "by",
    label: "Group by",
    kind: "select",
    options: HOURS_GROUPS.map((g) => ({
      value: g,
      label: HOURS_GROUP_LABELS[g],
    })),
  },
];

export const hoursReport = defineReport<HoursFilters, HoursRow>({
  key: "hours",
  ...REPORT_TITLES.hours,
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: HOURS_FILTERS,
  schema: HoursFilters,
  columns: [
    {
      header: "Provider, client or CPT",
      value: (r) => r.label,
      href: (r, links) => clientHref(r.patient_id, links),
    },
    { header: "Sessions", value: (r) => r.sessions, numeric: true },
    { header: "Units", value: (r) => r.units, numeric: true },
    hoursColumn("Hours", (r) => r.minutes),
  ],
  rowKey: (r) => r.key,
  note: `Most hours first. By provider or CPT: ${STAFF_NOTES_COUNTED} By client: ${NOTES_COUNTED} The chart shows the hours of every Sunday–Saturday week of the period. ${PERIOD_NOTE}`,
});

/**
 * The BCBA report's provider picks clients, not notes: a share of one provider's notes would flag every RBT's client
 * (no analyst's hours) and give every analyst's "No RBT hours" (decision 039, 2026-11-27 (stop 34)).
 */
const SUPERVISION_FILTERS: readonly ReportFilter[] = [
  ...NOTE_FILTERS.map((f) =>
    f.kind === "provider"
      ? { ...f, hint: "Picks the clients this provider served in the period (any session they led, or a combined one they supervised); each client's hours and flag still count all the client's sessions." }
      : f
  ),
  {
    name: "show",
    label: "Show",
    kind: "select",
    options: [
      { value: "all", label: "All clients" },
      { value: "below", label: `Below ${SUPERVISION_MIN_PERCENT}% only` },
    ],
  },
];

export const supervisionReport = defineReport<SupervisionFilters, SupervisionRow>({
  key: "bcba-report",
  ...REPORT_TITLES["bcba-report"],
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: SUPERVISION_FILTERS,
  schema: SupervisionFilters,
  columns: [
    {
      header: "Client",
      value: (r) => r.client,
      href: (r, links) => clientHref(r.patient_id, links),
    },
    { header: "Location", value: (r) => r.location },
    hoursColumn("RBT hours", (r) => r.rbt_minutes),
    hoursColumn("BCBA hours", (r) => r.bcba_minutes),
    {
      header: "BCBA / RBT",
      value: (r) => (r.percent === null ? "—" : `${r.percent.toFixed(1)}%`),
      csv: (r) => csvFixed(r.percent, 1),
      csvHeader: "BCBA % of RBT",
      numeric: true,
    },
    { header: "Supervision", value: (r) => SUPERVISION_LABELS[r.state] },
  ],
  rowKey: (r) => r.patient_id,
  note: `RBT hours are RBT and combined sessions; BCBA hours are BCBA and combined sessions (the analyst is present in a combined one). A client is flagged when the BCBA hours are below ${SUPERVISION_MIN_PERCENT}% of the RBT hours (the BACB's monthly minimum for RBT supervision). Lowest share first. ${PERIOD_NOTE}`,
});

export const locationCptReport = defineReport<NoteFilters, LocationCptRow>({
  key: "location-cpt",
  ...REPORT_TITLES["location-cpt"],
  // Charges are billing's (decision 030: every billing screen needs manage_claims), as pay is payroll's.
  permission: "manage_claims",
  clientData: false,
  filters: NOTE_FILTERS,
  schema: NoteFilters,
  columns: [
    { header: "Location", value: (r) => r.location },
    { header: "CPT", value: (r) => r.cpt_code || "(none)" },
    { header: "Sessions", value: (r) => r.sessions, numeric: true },
    { header: "Units", value: (r) => r.units, numeric: true },
    hoursColumn("Hours", (r) => r.minutes),
    moneyColumn("Charges", (r) => r.charges_cents),
    { header: "Unpriced units", value: (r) => r.unpriced_units, numeric: true },
  ],
  rowKey: (r) => `${r.location_id}-${r.cpt_code}`,
  note: `Charges are priced as billing prices each note: the payer's service for the CPT, provider type, location and modifiers (XP bills nothing); units no service prices are counted apart. Charges need manage_claims. ${NOTES_COUNTED} ${PERIOD_NOTE}`,
});

export const caseloadReport = defineReport<NoteFilters, CaseloadRow>({
  key: "provider-clients",
  ...REPORT_TITLES["provider-clients"],
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: NOTE_FILTERS,
  schema: NoteFilters,
  columns: [
    {
      header: "Provider",
      value: (r) => r.provider,
      href: (r, links) => employeeHref(r.provider_id, links),
    },
    { header: "Clients", value: (r) => r.clients, numeric: true, href: (r) => r.clients_href },
    { header: "Sessions", value: (r) => r.sessions, numeric: true },
    hoursColumn("Hours", (r) => r.minutes),
    { header: "Clients seen", value: (r) => r.client_names.join("; ") + (r.more_clients > 0 ? `; and ${r.more_clients} more` : "") },
  ],
  rowKey: (r) => String(r.provider_id),
  note: `Providers in name order (surname, then first name); sessions without a provider last. A client counts once per provider however many sessions. The screen names each provider's first ${CASELOAD_NAMES_SHOWN} clients by name ("and N more" counts the rest); the number of clients links to all of them in Hours by client, and the CSV names every client. ${NOTES_COUNTED} ${PERIOD_NOTE}`,
});

export const ticketSupportReport = defineReport<TicketReportFilters, TicketSupportRow>({
  key: "ticket-support",
  ...REPORT_TITLES["ticket-support"],
  permission: REPORTS_PERMISSION,
  clientData: false,
  filters: [
    ...PERIOD_FILTERS,
    {
      name: "location_id",
      label: "Location",
      kind: "location",
      any: "All my locations",
    },
  ],
  schema: TicketFilters,
  columns: [
    { header: "Status", value: (r) => TICKET_STATUS_LABELS[r.status] },
    ...AGE_BUCKETS.map(
      (b): ReportColumn<TicketSupportRow> => ({
        header: b.label,
        value: (r) => r.buckets[b.key],
        numeric: true,
      })
    ),
    { header: "Total", value: (r) => r.total, numeric: true },
    {
      header: "Mean hours to first response",
      value: (r) => (r.mean_first_response_hours === null ? "—" : r.mean_first_response_hours.toFixed(1)),
      csv: (r) => csvFixed(r.mean_first_response_hours, 1),
      numeric: true,
    },
  ],
  rowKey: (r) => r.status,
  note: `Tickets opened in the period, by status and age: from opening to now, or to closing for a closed ticket. A ticket is opened on the day at its location, the Opened day the tickets lists show and filter by. ${PERIOD_NOTE}`,
});

export type { HoursGroup };
