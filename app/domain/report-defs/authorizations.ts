import * as v from "valibot";
import { pacingState, type Pacing } from "../pa-pacing";
import { clientHref, defineReport, oneOf, optionalId, REPORTS_PERMISSION, REPORT_TITLES } from "../reports";

/**
 * The authorization reports (issue 12; decision 038): pas (each authorization with units used, remaining,
 * expiry and pacing) and client-projection (each running authorization's projected use by its end date at
 * the current weekly rate). Both use the one pacing rule, app/domain/pa-pacing.ts (decision 031), with
 * "today" at the client's location.
 */

export interface AuthorizationRow {
  id: number;
  patient_id: number;
  client_name: string;
  location: string;
  pa_service: string;
  cpt: string;
  n_units: number;
  spent_units: number;
  start_date: string;
  end_date: string;
  /** Today at the client's location. */
  today: string;
  pacing: Pacing;
}

export const PA_STATUSES = ["active", "ending", "ended", "upcoming", "all"] as const;
export type PaStatus = (typeof PA_STATUSES)[number];
/** "Ending" means the end date is within this many days. */
export const ENDING_WITHIN_DAYS = 30;

const PaFilters = v.object({
  location_id: optionalId("Location"),
  patient_id: optionalId("Client"),
  status: oneOf(PA_STATUSES, "active", "Choose a status from the list."),
});
export type PaFilters = v.InferOutput<typeof PaFilters>;

const ProjectionFilters = v.object({
  location_id: optionalId("Location"),
  patient_id: optionalId("Client"),
});
export type ProjectionFilters = v.InferOutput<typeof ProjectionFilters>;

/** Units a running authorization will have used by its end date at the current rate. */
export function projectedUse(r: Pick<AuthorizationRow, "n_units" | "pacing">): number {
  return r.n_units - r.pacing.forecast_units_left;
}

/** Projected use as a share of the units authorized (whole percent), or null without units. */
export function projectedPercent(r: Pick<AuthorizationRow, "n_units" | "pacing">): number | null {
  return r.n_units > 0 ? Math.round((projectedUse(r) * 100) / r.n_units) : null;
}


export const pasReport = defineReport<PaFilters, AuthorizationRow>({
  key: "pas",
  ...REPORT_TITLES.pas,
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: [
    {
      name: "status",
      label: "Status",
      kind: "select",
      options: [
        { value: "active", label: "Running today" },
        { value: "ending", label: `Ending within ${ENDING_WITHIN_DAYS} days` },
        { value: "ended", label: "Ended" },
        { value: "upcoming", label: "Not started" },
        { value: "all", label: "All" },
      ],
    },
    {
      name: "location_id",
      label: "Location",
      kind: "location",
      any: "All locations",
    },
    { name: "patient_id", label: "Client ID", kind: "client" },
  ],
  schema: PaFilters,
  columns: [
    { header: "Client", value: (r) => r.client_name, href: (r, links) => clientHref(r.patient_id, links) },
    { header: "Location", value: (r) => r.location },
    { header: "Service", value: (r) => r.pa_service },
    { header: "CPT", value: (r) => r.cpt },
    { header: "Authorized units", value: (r) => r.n_units, numeric: true },
    { header: "Used units", value: (r) => r.spent_units, numeric: true },
    {
      header: "Remaining units",
      value: (r) => r.n_units - r.spent_units,
      numeric: true,
    },
    { header: "Start", value: (r) => r.start_date },
    { header: "Expires", value: (r) => r.end_date },
    {
      header: "Units per week (last 4 weeks)",
      value: (r) => r.pacing.rate_per_week,
      numeric: true,
    },
    { header: "Pacing", value: (r) => pacingState(r.pacing) },
    { header: "Forecast", value: (r) => r.pacing.summary },
  ],
  rowKey: (r) => r.id,
  note: 'Sorted by expiry, soonest first. Pacing is the rate of the last four weeks at the client\'s location\'s date; "Will run out" means the units end before the expiry date at that rate, "Under-using" that more than 20% would be left, "Overspent" that an ended authorization was used beyond its units.',
});

export const clientProjectionReport = defineReport<ProjectionFilters, AuthorizationRow>({
  key: "client-projection",
  ...REPORT_TITLES["client-projection"],
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: [
    {
      name: "location_id",
      label: "Location",
      kind: "location",
      any: "All locations",
    },
    { name: "patient_id", label: "Client ID", kind: "client" },
  ],
  schema: ProjectionFilters,
  columns: [
    { header: "Client", value: (r) => r.client_name, href: (r, links) => clientHref(r.patient_id, links) },
    { header: "Service", value: (r) => r.pa_service },
    { header: "CPT", value: (r) => r.cpt },
    { header: "Ends", value: (r) => r.end_date },
    { header: "Authorized units", value: (r) => r.n_units, numeric: true },
    { header: "Used units", value: (r) => r.spent_units, numeric: true },
    {
      header: "Units per week",
      value: (r) => r.pacing.rate_per_week,
      numeric: true,
    },
    { header: "Projected use by end", value: projectedUse, numeric: true },
    {
      header: "Projected % of authorized",
      value: projectedPercent,
      numeric: true,
    },
    {
      header: "Projected left (negative: short)",
      value: (r) => r.pacing.forecast_units_left,
      numeric: true,
    },
    { header: "Runs out on", value: (r) => r.pacing.runs_out_on },
    { header: "Outlook", value: (r) => pacingState(r.pacing) },
  ],
  rowKey: (r) => r.id,
  note: "Authorizations running today at the client's location, sorted by end date. Projected use = units used + the rate of the last four weeks carried to the end date (the pacing rule of the PA calculator). The chart shows the page's authorizations: projected use against the units authorized, in red when they run out.",
});
