import { splitName, uniqueDiagnoses, type ClaimParties, type PatientRelationship } from "./x12-837p";

/**
 * A claim's parties from the records they are kept in (decision 032): the billing provider from the note's location,
 * the subscriber (the client, or the parent named on the client's profile) and the client from the client's profile
 * and insurance details, the payer from the insurer, the rendering provider from the employee's profile. Pure: the
 * claims model and the pre-billing scrubber (decision 034) read the same columns and map them here, so both check the
 * same parties with the same rules (app/domain/x12-837p.ts).
 */

export interface PartyRows {
  patient: { firstName: string; lastName: string; birthDate: string | null; gender: number | null; details: string };
  location: { title: string; address: string | null; city: string | null; state: string | null; zip: string | null; phone1: string | null; npi: string | null; taxId: string | null };
  provider: { name: string; surname: string; profile: string } | null;
  insurer: { name: string; payerId: string | null } | null;
}

/**
 * The keys of the client's `details` that claimParties and profileDiagnoses read: a reader that cannot afford the
 * whole profile (the scrubber reads a month of notes at once) reads these alone (test/unit/claim-parties.test.ts
 * checks that they give the same parties as the whole profile).
 */
export const PARTY_DETAIL_KEYS = [
  "is_self_subscriber",
  "insuranceId",
  "insured_policy_group",
  "address",
  "city",
  "state",
  "zip",
  "parent_name",
  "relationship",
  "diagnosis_code",
  "secondary_diagnosis_codes",
] as const;

type Details = Record<string, unknown>;

function parseJson(text: string | null | undefined): Details {
  try {
    const v = JSON.parse(text ?? "{}");
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Details) : {};
  } catch {
    return {};
  }
}

function str(d: Details, key: string): string | null {
  const v = d[key];
  return typeof v === "string" && v.trim() ? v.trim() : typeof v === "number" ? String(v) : null;
}

function flag(d: Details, key: string): boolean {
  const v = d[key];
  return v === true || v === 1 || (typeof v === "string" && ["1", "true", "on", "yes"].includes(v.toLowerCase()));
}

function genderOf(v: unknown): "M" | "F" | "U" {
  const s = String(v ?? "");
  return s === "1" ? "M" : s === "2" ? "F" : "U";
}

/** The client's diagnoses from the profile (principal, then secondary), upper-case, one per `diagnosisKey` (F84.0 and F840 are one). */
export function profileDiagnoses(details: string): string[] {
  const d = parseJson(details);
  const secondary = Array.isArray(d.secondary_diagnosis_codes) ? d.secondary_diagnosis_codes.map(String) : typeof d.secondary_diagnosis_codes === "string" ? d.secondary_diagnosis_codes.split(/[,;]/) : [];
  return uniqueDiagnoses([str(d, "diagnosis_code") ?? "", ...secondary]);
}

/**
 * PAT01 from the parent's recorded relationship to the client (the profile's `relationship`, free text): the first
 * row whose words the text holds, case-insensitive and as whole words, so "Grandmother" is not a mother and
 * "Mother-in-law" not a parent. Blank is the usual case, a parent. Any other relationship (grandmother, guardian,
 * aunt) is G8, other relationship (probe 8981 §3).
 */
const RELATIONSHIPS: readonly (readonly [words: RegExp, code: PatientRelationship])[] = [
  [/\b(in[- ]law|ex|former)\b/i, "G8"],
  [/\b(mother|father|parent|mom|dad|stepmother|stepfather|stepparent|stepmom|stepdad)\b/i, "19"],
  [/\b(spouse|husband|wife)\b/i, "01"],
  [/\b(life|domestic) partner\b/i, "53"],
];

export function patientRelationship(recorded: string | null): PatientRelationship {
  if (!recorded?.trim()) return "19";
  return RELATIONSHIPS.find(([words]) => words.test(recorded))?.[1] ?? "G8";
}

/**
 * The 837P parties: billing provider from the location, subscriber from the client's insurance details. A parent
 * subscriber is their name alone (with the member id): the client's address and demographics go in 2010CA, and no
 * address is ever put together from two people's records (probe 8981 §2).
 */
export function claimParties(rows: PartyRows): ClaimParties {
  const d = parseJson(rows.patient.details);
  const self = flag(d, "is_self_subscriber");
  const client = {
    firstName: rows.patient.firstName,
    lastName: rows.patient.lastName,
    birthDate: rows.patient.birthDate,
    gender: genderOf(rows.patient.gender),
    address: str(d, "address"),
    city: str(d, "city"),
    state: str(d, "state"),
    zip: str(d, "zip"),
  };
  const ids = { memberId: str(d, "insuranceId"), groupNumber: str(d, "insured_policy_group") };
  const profile = parseJson(rows.provider?.profile);
  const l = rows.location;
  return {
    billingProvider: { name: l.title, address: l.address, city: l.city, state: l.state, zip: l.zip, npi: l.npi, taxId: l.taxId, phone: l.phone1 },
    subscriber: self ? { ...client, ...ids, selfSubscriber: true } : { ...splitName(str(d, "parent_name")), ...ids, selfSubscriber: false },
    patient: self ? null : { ...client, relationship: patientRelationship(str(d, "relationship")) },
    payer: { name: rows.insurer?.name ?? "", payerId: rows.insurer?.payerId ?? null },
    renderingProvider: { firstName: rows.provider?.name ?? "", lastName: rows.provider?.surname ?? "", npi: str(profile, "npi") },
  };
}
