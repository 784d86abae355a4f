import * as v from "valibot";
import { choiceList, MESSAGES, optionalDigits, optionalEmail, optionalLine, optionalNpi, optionalPhone, optionalState, optionalZip, requiredLine } from "./fields";
import { TAX_ID_MESSAGE } from "./npi";
import { canonicalTimeZone, isValidTimeZone } from "./time";
import { isControlOrInvisible } from "./x12";

/** Place-of-service codes (platform §3, clinical §3). */
export const POS_CODES = [
  { code: "02", label: "Telehealth" },
  { code: "03", label: "School" },
  { code: "11", label: "Office" },
  { code: "12", label: "Home" },
  { code: "99", label: "Other" },
  { code: "10", label: "Telehealth in Patient Home" },
] as const;
export const POS_CODE_VALUES = POS_CODES.map((p) => p.code) as unknown as readonly ["02", "03", "11", "12", "99", "10"];

/** A location's stored place-of-service codes (`locations.pos_codes`, comma-separated) as a list. */
export function posCodesOf(stored: string | null): string[] {
  return (stored ?? "").split(",").map((s) => s.trim()).filter(Boolean);
}

export function posLabel(code: string): string {
  return POS_CODES.find((p) => p.code === code)?.label ?? code;
}

/** A place-of-service code with its meaning, as every screen shows it: "12 Home"; a code the list does not know stays bare. */
export function posText(code: string): string {
  const label = posLabel(code);
  return label === code ? code : `${code} ${label}`;
}

/** The US time zones offered first in forms; any IANA zone is accepted. */
export const COMMON_TIME_ZONES = ["America/New_York", "America/Chicago", "America/Denver", "America/Phoenix", "America/Los_Angeles", "America/Anchorage", "Pacific/Honolulu", "America/Puerto_Rico"] as const;

/**
 * One schema for the location form and the location API. `storedState`: an edit's stored state, kept when sent back
 * as it is (optionalState).
 */
export const locationInput = (storedState: string | null = null) => v.object({
  title: requiredLine("Title", 120),
  address: optionalLine("Address", 255),
  phone1: optionalPhone,
  phone2: optionalPhone,
  email: optionalEmail,
  city: optionalLine("City", 100),
  state: optionalState("State", storedState),
  zip: optionalZip,
  telfax: optionalPhone,
  // Stored as IANA spells it, whatever the case typed (probe 8962 item 4).
  time_zone: v.pipe(
    v.string(MESSAGES.required("Time zone")),
    v.trim(),
    v.nonEmpty(MESSAGES.required("Time zone")),
    v.check(isValidTimeZone, "Choose a valid time zone."),
    v.transform((zone) => canonicalTimeZone(zone) ?? zone),
  ),
  pos_codes: v.pipe(choiceList(POS_CODE_VALUES, "Choose place-of-service codes from the list."), v.minLength(1, "Choose at least one place-of-service code.")),
  /** The billing provider of this location's claims (837P 2010AA). Optional here; a claim is refused without them. */
  npi: optionalNpi,
  tax_id: optionalDigits(TAX_ID_MESSAGE, 9),
});
export const LocationInput = locationInput();

/** Two live locations may not share a title (decision 017, stop 33): twins in every chooser put people on the wrong one. */
export const DUPLICATE_LOCATION_TITLE = "A location with this title already exists.";

/**
 * A title as titles are compared: case does not count, nor spaces (at the ends, or several where one would do), nor
 * what does not show (`isControlOrInvisible`: a zero-width space, soft hyphen, byte-order mark; a tab or line break is
 * a space), and compatibility forms are their letters (NFKC: a full-width "Ｍ" is "M").
 */
export function locationTitleKey(title: string): string {
  const spaced = title.normalize("NFKC").replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, " ");
  return [...spaced]
    .filter((ch) => !isControlOrInvisible(ch))
    .join("")
    .trim()
    .replace(/\s+/g, " ")
    .toLowerCase();
}

export type LocationInput = v.InferOutput<typeof LocationInput>;

/**
 * Why a location cannot be deleted yet: who still belongs to it (live clients, employees, parents), and the records
 * stored there that would drop out of sight with it (live notes, future bookings, claims, rate records). Someone who
 * works at a deleted location would keep a membership nobody sees or can remove (decision 015, stop 25); a note or
 * claim keeps its stored location and is seen by who covers that location (decision 017), so a location with
 * clinical or billing history is never deleted (decision 015, stop 40).
 */
export const LOCATION_IN_USE = {
  clients: (n: number) => `This location still has ${n} client(s). Move them to another location first.`,
  employees: (n: number) => `${n} employee(s) still work at this location: move them to another location first.`,
  parents: (n: number) => `${n} parent(s) still belong to this location: move them to another location first.`,
  notes: (n: number) => `${n} session note(s) are stored at this location: they are its clients' clinical history, so the location cannot be deleted.`,
  bookings: (n: number) => `${n} future session(s) are booked at this location: cancel them first.`,
  claims: (n: number) => `${n} claim(s) were billed from this location: they are its billing history, so the location cannot be deleted.`,
  rateRecords: (n: number) => `${n} rate record(s) name this location: give them another location or delete them first.`,
  insurerPrices: (n: number) => `${n} insurer price(s) are set for this location: delete them on their insurer's page first.`,
} as const;

/** The kinds of LOCATION_IN_USE, in the order its messages are joined. */
export const LOCATION_IN_USE_KINDS = ["clients", "employees", "parents", "notes", "bookings", "claims", "rateRecords", "insurerPrices"] as const;
