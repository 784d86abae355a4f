import * as v from "valibot";
import type { CsvCell } from "./csv";
import { MAX_PAGE, PositiveInt } from "./paging";
import { canReadClients, canReadEmployees, type Actor, type Permission } from "./permissions";
import { isProductDate } from "./weeks";

/**
 * The reports (platform §2 reports routes; issue 12; decision 038). Pure and client-safe: a report's
 * definition says what the screen and the CSV show; the query that fills it lives on the server
 * (app/models/reports/*.server.ts, registered in app/services/report-screens.server.ts).
 *
 * ONE column list per report serves both the screen (app/components/ui/data-list.tsx) and the CSV: a
 * column's `value` is the cell's content on the screen and in the file, except where the column gives the file
 * its own `csv` value (money, hours and percentages as plain decimals, decision 038, 2026-11-28 (stop 43)).
 */

/** The twelve reports of platform §2, in the index's order. */
export const REPORT_KEYS = [
  "logs",
  "access",
  "pas",
  "payroll",
  "hours",
  "expiration-dates",
  "bcba-report",
  "client-projection",
  "location-cpt",
  "provider-clients",
  "ticket-support",
  "client-eligibility",
] as const;
export type ReportKey = (typeof REPORT_KEYS)[number];

export function isReportKey(x: string | undefined): x is ReportKey {
  return !!x && (REPORT_KEYS as readonly string[]).includes(x);
}

/** Titles and one-line descriptions of the index (each report's definition repeats its own). */
export const REPORT_TITLES: Record<ReportKey, { title: string; description: string }> = {
  logs: {
    title: "Logs",
    description: "The audit trail: who did what, to which record, when; with the chain's integrity check.",
  },
  access: {
    title: "Access",
    description: "Who read or changed which client's record.",
  },
  pas: {
    title: "Prior authorizations",
    description: "Authorizations with units used, remaining, expiry and pacing.",
  },
  payroll: {
    title: "Payroll",
    description: "Hours times the pay rates per employee and period.",
  },
  hours: {
    title: "Hours",
    description: "Hours per provider, client or CPT code.",
  },
  "expiration-dates": {
    title: "Expiration dates",
    description: "Employees' compliance dates: expired, due within 30 days, ok.",
  },
  "bcba-report": {
    title: "BCBA supervision",
    description: "BCBA hours against RBT hours per client, with the ratio.",
  },
  "client-projection": {
    title: "Client projection",
    description: "Each authorization's projected use by its end date at the current weekly rate.",
  },
  "location-cpt": {
    title: "Location and CPT",
    description: "Units and charges by location and CPT code.",
  },
  "provider-clients": {
    title: "Provider caseload",
    description: "The clients each provider saw in the period.",
  },
  "ticket-support": {
    title: "Ticket support",
    description: "Tickets by status and age.",
  },
  "client-eligibility": {
    title: "Client eligibility",
    description: "Clients whose insurance or authorization lapses within 60, 30 or 14 days.",
  },
};

/** Every report needs manage_notes (platform §2: sidebar Reports → reports/access with manage_notes; legacy `logs`). */
export const REPORTS_PERMISSION: Permission = "manage_notes";

/** At most this many rows in one CSV export (the screen says so; narrow the filters for more). */
export const CSV_MAX_ROWS = 50_000;
/** Report pages: 25 rows by default, at most 100. */
export const REPORT_PER_PAGE = 25;
export const REPORT_MAX_PER_PAGE = 100;

/* ------------------------------------------------------------------ columns */

/** A cell as the screen shows it (and the CSV writes it unless the column gives a `csv` value). */
export type ReportCell = string | number | boolean | null | undefined;

export interface ReportColumn<R> {
  /** The header on the screen and in the CSV's first record (unless `csvHeader`). */
  header: string;
  /** The cell: shown on the screen and written to the CSV unless `csv` is given (numbers stay numbers in the file). */
  value: (row: R) => ReportCell;
  /**
   * The CSV's cell when it differs from the screen's: a money, hours or percent figure as a plain decimal
   * (`csvCents`, `csvFixed`), a sentinel text ("No rate", "—") as an empty cell (decision 038, stop 43).
   */
  csv?: (row: R) => CsvCell;
  /** The CSV's header when the screen's relies on a symbol of the cells ("Pay" → "Pay ($)"). */
  csvHeader?: string;
  /** A link for the cell on the screen (not in the CSV); null for no link. `links`: the profiles the reader may open. */
  href?: (row: R, links: ProfileLinks) => string | null;
  /** Right-aligned figures. */
  numeric?: boolean;
}

/**
 * The profiles a report's reader may open. Reports need only manage_notes (decision 038), so a client or employee
 * name links to its profile only when the reader passes that profile's guard; otherwise it is plain text
 * (decision 007: a link that always ends in Access Denied helps nobody).
 */
export interface ProfileLinks {
  clients: boolean;
  employees: boolean;
}

export const NO_PROFILE_LINKS: ProfileLinks = { clients: false, employees: false };

export function profileLinksOf(actor: Pick<Actor, "roles" | "permissions" | "kind">): ProfileLinks {
  return { clients: canReadClients(actor), employees: canReadEmployees(actor) };
}

/** A client's profile, when the reader may open it. */
export const clientHref = (id: number | null | undefined, links: ProfileLinks): string | null => (id && links.clients ? `/patients/profile/${id}` : null);
/** An employee's profile, when the reader may open it. */
export const employeeHref = (id: number | null | undefined, links: ProfileLinks): string | null => (id && links.employees ? `/doctors/profile/${id}` : null);

/* ------------------------------------------------------------------ filters */

/**
 * One control of a report's GET filter form. `location`, `provider` and `actor` are selects whose options the
 * server reads in the actor's scope; `client` takes a client's record id; `date` a yyyy-mm-dd date; `select`
 * fixed options; `text` free text.
 */
export interface ReportFilter {
  name: string;
  label: string;
  kind: "location" | "provider" | "actor" | "client" | "date" | "select" | "text";
  /** For `select`: the options (the first is the default unless `any` is given). */
  options?: readonly { value: string; label: string }[];
  /** The empty option's text ("All locations"); without it a select has no empty option. */
  any?: string;
  /** A short line by the control saying what it picks (the BCBA report's provider). */
  hint?: string;
}

/** The options the server read for the filters of kind location, provider and actor. */
export interface FilterOptions {
  locations: { value: string; label: string }[];
  staff: { value: string; label: string }[];
  /** Set when the scope has too many staff to list: the select shows only the chosen one, and this hint. */
  staffHint?: string;
}

export interface ReportDefinition<F = Record<string, unknown>, R = Record<string, unknown>> {
  key: ReportKey;
  title: string;
  description: string;
  permission: Permission;
  /**
   * Whether the rows name clients: the read is then audited (decision 019, 038). A report narrowed to one client
   * (a filter of kind client) is audited naming that client whenever it returns a row, whatever this says.
   */
  clientData: boolean;
  filters: readonly ReportFilter[];
  /** Parses the filter fields of the address (strings; absent fields are ""), with field messages. */
  schema: v.GenericSchema<Record<string, string>, F>;
  columns: readonly ReportColumn<R>[];
  /** A stable key per row for the table. */
  rowKey?: (row: R) => string | number;
  /** Said under the title (how the report reads, what its states mean). */
  note?: string;
}

/** Defines a report with its types checked (a plain object otherwise). */
export function defineReport<F, R>(def: ReportDefinition<F, R>): ReportDefinition<F, R> {
  return def;
}

/* ------------------------------------------------------------------ shared filter schemas */

const DATE_MESSAGE = "Dates must be real dates like 2026-01-31.";

/** An optional yyyy-mm-dd date: "" → null. */
export const optionalDate = v.pipe(
  v.optional(v.string(), ""),
  v.trim(),
  v.check((s) => s === "" || (/^\d{4}-\d{2}-\d{2}$/.test(s) && isProductDate(s)), DATE_MESSAGE),
  v.transform((s) => (s === "" ? null : s))
);

/** An optional record id (a select of locations, staff, or a client id): "" → null. */
export function optionalId(what: string) {
  return v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.check((s) => s === "" || (/^\d{1,15}$/.test(s) && Number(s) > 0), `${what} must be a record id.`),
    v.transform((s) => (s === "" ? null : Number(s)))
  );
}

/** One of fixed values; "" → the fallback. */
export function oneOf<T extends string>(values: readonly T[], fallback: T, message: string) {
  return v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.check((s) => s === "" || (values as readonly string[]).includes(s), message),
    v.transform((s) => (s === "" ? fallback : (s as T)))
  );
}

/** Optional short free text (an action's name). */
export function optionalText(label: string, max = 60) {
  return v.pipe(
    v.optional(v.string(), ""),
    v.trim(),
    v.maxLength(max, `${label} is too long: at most ${max} characters.`),
    v.check((s) => !/[\u0000-\u001f]/.test(s), `${label} must be plain text.`)
  );
}

/** The longest period a report reads (a year, issue 12's bound for the aggregating reports). */
export const MAX_PERIOD_DAYS = 366;

/** A date `days` after an ISO date: the one day rule of app/domain/weeks.ts, kept importable from here. */
export { addDays } from "./weeks";

/** Whole days from `from` to `to` (ISO dates). */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/**
 * A period filter (date_from, date_to): both optional here; `to` on or after `from` and at most
 * MAX_PERIOD_DAYS long. A report fills in its default period on the server (it knows "today").
 */
export function periodEntries() {
  return { date_from: optionalDate, date_to: optionalDate };
}

/**
 * A report's filter schema with a period (date_from, date_to) and its checks: To on or after From, and at most
 * MAX_PERIOD_DAYS long (messages on date_to). The other entries are the report's own filters.
 */
export function withPeriod<E extends v.ObjectEntries>(entries: E) {
  const schema = v.object({ ...periodEntries(), ...entries });
  type Out = v.InferOutput<typeof schema>;
  const period = (q: Out) => q as unknown as { date_from: string | null; date_to: string | null };
  return v.pipe(
    schema,
    v.forward(
      v.check((q: Out) => {
        const p = period(q);
        return !p.date_from || !p.date_to || p.date_from <= p.date_to;
      }, "To must be on or after From."),
      ["date_to"] as never
    ),
    v.forward(
      v.check((q: Out) => {
        const p = period(q);
        return !p.date_from || !p.date_to || daysBetween(p.date_from, p.date_to) < MAX_PERIOD_DAYS;
      }, "Choose a period of at most one year."),
      ["date_to"] as never
    )
  );
}

/** The period filter controls. */
export const PERIOD_FILTERS: readonly ReportFilter[] = [
  { name: "date_from", label: "From", kind: "date" },
  { name: "date_to", label: "To", kind: "date" },
];

/** The query fields the framework reads itself (not filters); the CSV link leaves them out. */
export const PAGING_FIELDS = ["page", "per_page"] as const;

/**
 * The paging fields, with their messages in the filters' form by label ("Page must be a whole number.", "Rows per page
 * must be at most 100."). `as_of`: the newest audit entry the logs and access reports read, fixed by their first page
 * and carried by the page links and the CSV link, so that the entries written meanwhile (the report's own included)
 * do not shift the pages (decision 038, 2026-11-28); the other reports ignore it.
 */
export const ReportPageQuery = v.object({
  page: PositiveInt("Page", MAX_PAGE, 1),
  per_page: PositiveInt("Rows per page", REPORT_MAX_PER_PAGE, REPORT_PER_PAGE),
  as_of: optionalId("The newest entry to list (as_of)"),
});

/** The filter fields of an address: every declared filter name, "" when absent. */
export function filterInput(def: Pick<ReportDefinition, "filters">, params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of def.filters) out[f.name] = params.get(f.name) ?? "";
  return out;
}

/** The address of a report's CSV export with the same filters (and `pinned`, the values that fix what the pages read). */
export function csvHref(key: ReportKey, params: URLSearchParams, pinned: Record<string, string> = {}): string {
  const kept = new URLSearchParams();
  for (const [k, val] of params) if (val !== "" && !(PAGING_FIELDS as readonly string[]).includes(k) && !(k in pinned)) kept.append(k, val);
  for (const [k, val] of Object.entries(pinned)) kept.set(k, val);
  const q = kept.toString();
  return `/reports/${key}/export.csv${q ? `?${q}` : ""}`;
}

/** A period as the screen says it. */
export function periodText(from: string | null, to: string | null): string {
  if (from && to) return `${from} to ${to}`;
  if (from) return `from ${from}`;
  if (to) return `until ${to}`;
  return "all dates";
}
