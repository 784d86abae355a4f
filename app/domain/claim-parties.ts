import { pricingProvider } from "./billing";
import type { NoteType } from "./notes";
import { splitName, uniqueDiagnoses, type ClaimData, type ClaimParties, type PatientRelationship, type RelatedCause } from "./x12-837p";

/**
 * A claim's parties from the records they are kept in (decision 032): the billing provider from the note's location,
 * the subscriber (the client, or the parent named on the client's profile) and the client from the client's profile
 * and insurance details (with CLM11's causes and the referring provider), the payer from the insurer, the rendering
 * provider (renderingProvider: the note's provider, or its supervisor) from the employee's profile. Pure: the claims
 * model and the pre-billing scrubber (decision 034) read the same columns and map them here, so both check the same
 * parties with the same rules (app/domain/x12-837p.ts).
 */

export interface PartyRows {
  /** parentId: the parent portal account linked to the client (its name is never the subscriber's, decision 032). */
  patient: { firstName: string; lastName: string; birthDate: string | null; gender: number | null; details: string; parentId?: number | null };
  location: { title: string; address: string | null; city: string | null; state: string | null; zip: string | null; phone1: string | null; npi: string | null; taxId: string | null };
  /** The rendering provider's record (renderingProvider). */
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
  "emmployment",
  "auto_accident",
  "other_accident",
  "referring_provider_first_name",
  "referring_provider_last_name",
  "referring_provider_npi",
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
/** Whole words, letters with accents included (`\b` knows only ASCII letters: "mamá" would never end). */
const words = (...alternatives: string[]) => new RegExp(`(?<!\\p{L})(${alternatives.join("|")})(?!\\p{L})`, "iu");

const RELATIONSHIPS: readonly (readonly [words: RegExp, code: PatientRelationship])[] = [
  [words("in[- ]law", "ex", "former", "suegr[oa]"), "G8"],
  // English and Spanish, as clinics record them.
  [words("mother", "father", "parent", "mom", "dad", "stepmother", "stepfather", "stepparent", "stepmom", "stepdad", "madre", "padre", "mam[aá]", "pap[aá]", "madrastra", "padrastro"), "19"],
  [words("spouse", "husband", "wife", "esposo", "esposa", "c[oó]nyuge"), "01"],
  [words("(life|domestic) partner"), "53"],
];

export function patientRelationship(recorded: string | null): PatientRelationship {
  if (!recorded?.trim()) return "19";
  return RELATIONSHIPS.find(([words]) => words.test(recorded))?.[1] ?? "G8";
}

/** CLM11's causes from the profile's flags, in this order (the profile's key is spelled `emmployment`). */
const RELATED_CAUSES: readonly (readonly [key: string, cause: RelatedCause])[] = [
  ["emmployment", "EM"],
  ["auto_accident", "AA"],
  ["other_accident", "OA"],
];

/** 2310A from the profile's referring provider fields (the NPI without spaces or dashes); null when all are blank. */
function referringProvider(d: Details): ClaimData["referringProvider"] {
  const firstName = str(d, "referring_provider_first_name");
  const lastName = str(d, "referring_provider_last_name");
  const npi = str(d, "referring_provider_npi")?.replace(/[\s-]/g, "") || null;
  return firstName || lastName || npi ? { firstName: firstName ?? "", lastName: lastName ?? "", npi } : null;
}

/** A note as the choice of its claim's rendering provider reads it (renderingProvider). */
export interface RenderedNote {
  type: NoteType;
  /** The provider's credential (providerCredentialSql), as the note is priced. */
  providerCredential: string | null;
  providerId: number | null;
  supervisorId: number | null;
}

/**
 * The rendering provider (2310B) of a note's claim (decision 032, stop 35; probe 8981 §4): the note's supervisor when
 * its payer bills under the supervisor (the insurer's `uses_supervisor_as_provider`) and the note is an RBT's, as it is
 * priced (pricingProvider: the provider's credential, else the note's type); otherwise the note's provider. The one
 * rule: the build groups claims by this id (one claim per client + location + rendering provider + payer) and stores
 * it as the claim's provider, generation compares it, the claim's parties are this `record`, and the scrubber checks
 * it. `bySupervisor`: the supervisor was chosen; a note without one then has no rendering provider (id and record null).
 */
export function renderingProvider<T>(note: RenderedNote, payerUsesSupervisor: boolean, records: { provider: T; supervisor: T }): { id: number | null; record: T; bySupervisor: boolean } {
  const bySupervisor = payerUsesSupervisor && pricingProvider(note.type, note.providerCredential) === "rbt";
  return bySupervisor ? { id: note.supervisorId, record: records.supervisor, bySupervisor } : { id: note.providerId, record: records.provider, bySupervisor };
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
    subscriber: self ? { ...client, ...ids, selfSubscriber: true } : { ...splitName(str(d, "parent_name")), ...ids, selfSubscriber: false, ...(rows.patient.parentId != null ? { parentAccountLinked: true } : {}) },
    patient: self ? null : { ...client, relationship: patientRelationship(str(d, "relationship")) },
    payer: { name: rows.insurer?.name ?? "", payerId: rows.insurer?.payerId ?? null },
    renderingProvider: { firstName: rows.provider?.name ?? "", lastName: rows.provider?.surname ?? "", npi: str(profile, "npi") },
    relatedCauses: RELATED_CAUSES.filter(([key]) => flag(d, key)).map(([, cause]) => cause),
    referringProvider: referringProvider(d),
  };
}
