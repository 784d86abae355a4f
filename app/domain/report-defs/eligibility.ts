import * as v from "valibot";
import { clientHref, defineReport, oneOf, optionalId, REPORTS_PERMISSION, REPORT_TITLES } from "../reports";

/**
 * client-eligibility (issue 12; decision 038): the clients whose insurance eligibility or authorization lapses
 * within the window (60, 30 or 14 days from today, today included). An authorization renewed by another of the
 * client's authorizations for the same CPT code that starts by the day after it ends does not lapse. The
 * insurance dates are the client's eligibility dates (clinical §3 Eligibility: elegibility_date and
 * secondary_elegibility_date), read as the date the eligibility runs to.
 */

export const ELIGIBILITY_WINDOWS = ["60", "30", "14"] as const;
export type EligibilityWindow = (typeof ELIGIBILITY_WINDOWS)[number];

export interface EligibilityRow {
  patient_id: number;
  client_name: string;
  location: string;
  kind: "authorization" | "insurance" | "secondary_insurance";
  item: string;
  lapses_on: string;
  /** Days from today to the lapse (0: today). */
  days_left: number;
}

const EligibilityFilters = v.object({
  window: oneOf(ELIGIBILITY_WINDOWS, "60", "Choose 60, 30 or 14 days."),
  kind: oneOf(["all", "authorization", "insurance"] as const, "all", "Choose what lapses from the list."),
  location_id: optionalId("Location"),
  patient_id: optionalId("Client"),
});
export type EligibilityFilters = v.InferOutput<typeof EligibilityFilters>;

export const KIND_TEXT: Record<EligibilityRow["kind"], string> = {
  authorization: "Authorization",
  insurance: "Insurance eligibility",
  secondary_insurance: "Secondary insurance eligibility",
};

/** The tightest of the 14/30/60-day windows a lapse falls in. */
export function lapseWindow(daysLeft: number): 14 | 30 | 60 | null {
  if (daysLeft < 0) return null;
  return daysLeft <= 14 ? 14 : daysLeft <= 30 ? 30 : daysLeft <= 60 ? 60 : null;
}

export const clientEligibilityReport = defineReport<EligibilityFilters, EligibilityRow>({
  key: "client-eligibility",
  ...REPORT_TITLES["client-eligibility"],
  permission: REPORTS_PERMISSION,
  clientData: true,
  filters: [
    {
      name: "window",
      label: "Lapses within",
      kind: "select",
      options: [
        { value: "60", label: "60 days" },
        { value: "30", label: "30 days" },
        { value: "14", label: "14 days" },
      ],
    },
    {
      name: "kind",
      label: "What lapses",
      kind: "select",
      options: [
        { value: "all", label: "Insurance or authorization" },
        { value: "authorization", label: "Authorizations" },
        { value: "insurance", label: "Insurance eligibility" },
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
  schema: EligibilityFilters,
  columns: [
    {
      header: "Client",
      value: (r) => r.client_name,
      href: (r, links) => clientHref(r.patient_id, links),
    },
    { header: "Location", value: (r) => r.location },
    { header: "What lapses", value: (r) => KIND_TEXT[r.kind] },
    { header: "Insurer or service", value: (r) => r.item },
    { header: "Lapses on", value: (r) => r.lapses_on },
    { header: "Days left", value: (r) => r.days_left, numeric: true },
    {
      header: "Within",
      value: (r) => {
        const w = lapseWindow(r.days_left);
        return w === null ? "" : `${w} days`;
      },
    },
  ],
  rowKey: (r) => `${r.kind}-${r.patient_id}-${r.item}-${r.lapses_on}`,
  note: "Soonest first. Today is the date at each client's location. An authorization followed by a renewal for the same CPT code (starting by the next day) is not listed.",
});
