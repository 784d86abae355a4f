import * as v from "valibot";
import { COMPLIANCE_FIELDS } from "../employees";
import { defineReport, employeeHref, oneOf, optionalId, REPORTS_PERMISSION, REPORT_TITLES } from "../reports";

/**
 * expiration-dates (issue 12; decision 038): each employee's compliance dates (platform §3, the `compliance`
 * map of each location entry, app/domain/employees.ts COMPLIANCE_FIELDS) with their state on today: expired
 * (before today), within 30 days (today up to 30 days ahead), ok (later). Entries without a date are not
 * listed. No client data.
 */

export const EXPIRY_STATES = ["expired", "within_30", "ok"] as const;
export type ExpiryState = (typeof EXPIRY_STATES)[number];
export const EXPIRY_WITHIN_DAYS = 30;

export interface ExpirationRow {
  user_id: number;
  employee: string;
  location: string;
  item: string;
  date: string;
  days_left: number;
}

/** The state of a date `daysLeft` days from today. */
export function expiryState(daysLeft: number): ExpiryState {
  return daysLeft < 0 ? "expired" : daysLeft <= EXPIRY_WITHIN_DAYS ? "within_30" : "ok";
}

export const EXPIRY_STATE_TEXT: Record<ExpiryState, string> = {
  expired: "Expired",
  within_30: "Within 30 days",
  ok: "OK",
};

const LABELS = new Map<string, string>(COMPLIANCE_FIELDS.map(([k, label]) => [k, label]));
export function complianceLabel(key: string): string {
  return LABELS.get(key) ?? key;
}

const ExpirationFilters = v.object({
  state: oneOf(["attention", ...EXPIRY_STATES, "all"] as const, "attention", "Choose a state from the list."),
  location_id: optionalId("Location"),
  user_id: optionalId("Employee"),
});
export type ExpirationFilters = v.InferOutput<typeof ExpirationFilters>;

export const expirationDatesReport = defineReport<ExpirationFilters, ExpirationRow>({
  key: "expiration-dates",
  ...REPORT_TITLES["expiration-dates"],
  permission: REPORTS_PERMISSION,
  clientData: false,
  filters: [
    {
      name: "state",
      label: "State",
      kind: "select",
      options: [
        { value: "attention", label: "Expired or within 30 days" },
        { value: "expired", label: "Expired" },
        { value: "within_30", label: "Within 30 days" },
        { value: "ok", label: "OK" },
        { value: "all", label: "All" },
      ],
    },
    {
      name: "location_id",
      label: "Location",
      kind: "location",
      any: "All locations",
    },
    {
      name: "user_id",
      label: "Employee",
      kind: "provider",
      any: "All employees",
    },
  ],
  schema: ExpirationFilters,
  columns: [
    {
      header: "Employee",
      value: (r) => r.employee,
      href: (r, links) => employeeHref(r.user_id, links),
    },
    { header: "Location", value: (r) => r.location },
    { header: "Item", value: (r) => complianceLabel(r.item) },
    { header: "Date", value: (r) => r.date },
    { header: "Days left", value: (r) => r.days_left, numeric: true },
    {
      header: "State",
      value: (r) => EXPIRY_STATE_TEXT[expiryState(r.days_left)],
    },
  ],
  rowKey: (r) => `${r.user_id}-${r.location}-${r.item}`,
  note: "Soonest first. Expired: the date is before today; within 30 days: today up to 30 days ahead; OK: later. Today is the date at the location the dates are kept for.",
});
