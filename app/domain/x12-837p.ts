import { dollarsOf } from "./billing";
import { isValidNpi, isValidTaxId } from "./npi";
import { codePoint, isControlOrInvisible } from "./x12";

/**
 * The X12 837P 5010 writer (005010X222A1), pure: plain claim data in, the interchange text out. No clock and
 * no I/O inside: the file id (the interchange and group control number) and the creation time are passed in, so
 * the same input always gives the same bytes (golden files in test/golden/837p).
 *
 * One interchange (ISA/IEA) holds one functional group (GS/GE) with one transaction set (ST/SE) per claim, so
 * each claim has its own set control number (ST02 = 0001, 0002, … within the file; stored in claims.set_control).
 * ISA13 = the x12_files id padded to 9 digits, GS06 = the same id: unique and increasing by construction.
 *
 * Charges are never computed here: every line's charge comes in already priced by `priceNote`
 * (app/domain/billing.ts) and the claim total is their sum.
 */

export const ELEMENT = "*";
export const SEGMENT = "~";
export const COMPONENT = ":";
export const REPETITION = "^";
const SEPARATORS = /[*~:^]/;
/** Printable ASCII (the X12 extended character set); a claim's text holds it without the separators. */
const PRINTABLE = /^[\x20-\x7e]*$/;

/**
 * The longest value each text element of the file carries (005010X222A1). A longer value is refused by
 * `validateClaim`, naming the field and its limit; the writer never cuts one (probe 8921).
 */
export const ELEMENT_MAX = {
  /** NM103 (a last or organization name: billing provider, subscriber, client, payer, rendering provider) and PER02. */
  lastName: 60,
  /** NM104: a first name. */
  firstName: 35,
  /** NM109: the subscriber's member id. */
  id: 80,
  /** N301 and N302: each of the two address lines. */
  addressLine: 55,
  /** N401: the city. */
  city: 30,
  /** SBR03 (the policy group) and REF02 (the prior authorization number). */
  reference: 50,
} as const;

/** A text element of the file, by its ELEMENT_MAX name. */
type TextElement = keyof typeof ELEMENT_MAX;

/** The elements that carry identifiers: written letter for letter, never transliterated (refusedCharacter). */
const IDENTIFIERS: ReadonlySet<TextElement> = new Set(["id", "reference"]);

/**
 * The shortest value of the text elements whose X12 minimum is more than one character: NM109 (element 67, AN 2/80)
 * and N401 (element 19, AN 2/30). A shorter value is refused by `validateClaim` as a longer one is (probe 8981 §6);
 * the others (a last name, a street, a group) take one character.
 */
const ELEMENT_MIN: Readonly<Partial<Record<TextElement, number>>> = { id: 2, city: 2 };

/** Letters NFD does not take apart, spaces and typographic marks, in X12's characters (after upper-casing). */
const SPELLED: Record<string, string> = { Æ: "AE", Œ: "OE", Ø: "O", Ł: "L", Đ: "D", Þ: "TH", ẞ: "SS", "\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-" };

/**
 * Text in X12's character set: upper-case, accents dropped (NFD, combining marks removed; ß → SS, Æ → AE, Œ → OE,
 * Ø → O, Ł → L, Đ → D, Þ → TH, ı → I), typographic quotes and dashes as ' " -, any space as a space. What is still
 * outside the set afterwards ('山', a control character) stays, for `validateClaim` to refuse by name.
 */
export function transliterate(value: string): string {
  return value
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toUpperCase()
    .replace(/\p{Zs}/gu, " ")
    .replace(/[ÆŒØŁĐÞẞ\u2018\u2019\u201c\u201d\u2013\u2014]/g, (c) => SPELLED[c]!);
}

/** A value as the file carries it: transliterated, trimmed, runs of spaces collapsed. */
function t(value: string | null | undefined): string {
  return transliterate(value ?? "").trim().replace(/\s+/g, " ");
}

/** N301 and N302: the address on one line, or split at the last space that lets both lines fit; null when it cannot fit. */
export function addressLines(value: string | null | undefined): string[] | null {
  const text = t(value);
  const max = ELEMENT_MAX.addressLine;
  if (text.length <= max) return [text];
  const cut = text.lastIndexOf(" ", max);
  return cut > 0 && text.length - cut - 1 <= max ? [text.slice(0, cut), text.slice(cut + 1)] : null;
}

export interface ClaimIssue {
  field: string;
  message: string;
}

export interface X12Address {
  address: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
}

export interface ClaimLineData {
  serviceDate: string; // YYYY-MM-DD
  cptCode: string;
  modifiers: string[];
  units: number;
  chargeCents: number;
  pos: string;
  paNumber: string | null;
  /**
   * The line's own diagnoses, each among the claim's `diagnosisCodes`: its notes' codes (a note without one takes the
   * client's principal code), the first the line's primary (SV107's first pointer, `diagnosisPointers`). Absent on
   * lines built before stop 31, which pointed to the claim's diagnoses 1 to 4.
   */
  diagnosisCodes?: string[];
}

/** The patient's address, birth date and gender: N3, N4 and DMG of 2010BA (a self-subscriber) or 2010CA (a client who is not). */
export interface Demographics extends X12Address {
  birthDate: string | null;
  gender: "M" | "F" | "U";
}

/** PAT01, the client's relationship to the subscriber: 01 spouse, 19 child, 53 life partner, G8 other relationship. */
export type PatientRelationship = "01" | "19" | "53" | "G8";

/** CLM11-1 to CLM11-3, the causes the services are related to: EM employment, AA auto accident, OA other accident. */
export type RelatedCause = "EM" | "AA" | "OA";

/** The related causes in words, as the client's profile names its flags (the edit-viewer). */
export const RELATED_CAUSE_LABELS: Readonly<Record<RelatedCause, string>> = { EM: "Employment related", AA: "Auto accident", OA: "Other accident" };

/** 2310A, the provider who referred the client (named on the client's profile). */
export interface ReferringProvider {
  firstName: string;
  lastName: string;
  npi: string | null;
}

export interface ClaimData {
  claimNumber: string;
  billingProvider: X12Address & { name: string; npi: string | null; taxId: string | null; phone: string | null };
  /**
   * The subscriber (2010BA). A self-subscriber (SBR02 18) carries their address and demographics; a parent only their
   * name and member id: 005010X222A1 sends N3, N4 and DMG in 2010BA only when the patient is the subscriber, and the
   * client's in 2010CA otherwise, never both (X12 RFI 2281, 1925; probe 8981 §2).
   */
  subscriber: {
    memberId: string | null;
    groupNumber: string | null;
    firstName: string;
    lastName: string;
    /** The parent's name as written when its first and last names cannot be told apart (three words or more, no comma). */
    unclear?: string;
  } & ((Demographics & { selfSubscriber: true }) | { selfSubscriber: false; /** A parent portal account is linked to the client: its name is not the subscriber's (decision 032). */ parentAccountLinked?: boolean });
  /** The client when they are not the subscriber (loop 2000C: PAT, then 2010CA). */
  patient: (Demographics & { firstName: string; lastName: string; relationship: PatientRelationship }) | null;
  payer: { name: string; payerId: string | null };
  renderingProvider: { firstName: string; lastName: string; npi: string | null };
  /**
   * CLM11: the causes the client's profile relates the services to (its flags emmployment, auto_accident,
   * other_accident), in that order (probe 8981 §5). Absent in the data of claims generated before stop 35.
   */
  relatedCauses?: RelatedCause[];
  /** 2310A: the referring provider of the client's profile, null when it names none. Absent before stop 35. */
  referringProvider?: ReferringProvider | null;
  /** ICD-10 codes (dots are removed on output), principal first. */
  diagnosisCodes: string[];
  lines: ClaimLineData[];
}

export interface Envelope {
  /** The x12_files id: ISA13 (padded to 9) and GS06. */
  fileId: number;
  /** ISO date-time of creation (UTC): ISA09/10, GS04/05, BHT04/05. */
  createdAt: string;
  senderId: string;
  senderName: string;
  receiverId: string;
  receiverName: string;
  /** ISA15: P production, T test. */
  usage: "P" | "T";
}

/** The submitter and receiver when no clearinghouse is configured (the local sender records the file). */
export const DEFAULT_ENVELOPE = { senderId: "BASELINE", senderName: "BASELINE ABA", receiverId: "CLEARINGHOUSE", receiverName: "CLEARINGHOUSE", usage: "P" } as const;

export const MAX_LINES = 50;
export const MAX_DIAGNOSES = 12;

/**
 * A diagnosis code's identity: the form the 837P writes (no dot, upper case, trimmed), so F84.0, f84.0 and F840 are
 * one code. Every dedupe and comparison of diagnosis codes uses it (decision 032, stop 31, later).
 */
export function diagnosisKey(code: string): string {
  return code.replace(/\./g, "").trim().toUpperCase();
}

/** The codes without blanks or repeats (one `diagnosisKey` each), each in its first-written form (trimmed, upper case). */
export function uniqueDiagnoses(codes: Iterable<string>): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const code of codes) {
    const key = diagnosisKey(code);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    out.push(code.trim().toUpperCase());
  }
  return out;
}

/**
 * A claim's diagnosis codes (HI, decision 032, stop 31, later): its lines' own codes in line order (each note's code,
 * else the client's principal), never left out, then the client's profile codes (principal, secondary) only while
 * there is room, up to MAX_DIAGNOSES. A profile code no line names is informational. More than MAX_DIAGNOSES only when
 * the lines' own codes are (validateClaim refuses it).
 */
export function claimDiagnoses(lineCodes: readonly (readonly string[])[], profile: readonly string[]): string[] {
  const own = uniqueDiagnoses(lineCodes.flat());
  return uniqueDiagnoses([...own, ...profile]).slice(0, Math.max(own.length, MAX_DIAGNOSES));
}

/** SV107 holds at most this many diagnosis pointers. */
const MAX_POINTERS = 4;

/**
 * A service line's diagnosis pointers (SV107, 1-based indexes into the claim's HI list): the line's own codes first
 * (the first is its primary diagnosis), then the claim's other codes in HI order, MAX_POINTERS in all (decision 032,
 * stop 31). A line without its own codes (built before stop 31) points to the claim's first codes, as it was sent.
 * Only codes the claim carries are pointed to, so a pointer never exceeds the HI count.
 */
export function diagnosisPointers(claimCodes: readonly string[], lineCodes: readonly string[] = []): number[] {
  const hi = claimCodes.map(diagnosisKey);
  const own = lineCodes.map((c) => hi.indexOf(diagnosisKey(c)) + 1).filter((p) => p > 0);
  const all = [...new Set([...own, ...hi.map((_, i) => i + 1)])];
  return all.slice(0, MAX_POINTERS);
}

/**
 * Why a character the value holds cannot go on a claim, naming it; null when every character can (once transliterated).
 * `again` ends the sentence's advice: "Edit it and build again." on a claim, " and save again" where the value is typed.
 */
function refusedCharacter(label: string, value: string, again = " and build again", verbatim = false): string | null {
  for (const ch of value) {
    const written = transliterate(ch);
    // An identifier (a member id, a group or authorization number) goes out letter for letter: "ÄB" sent as "AB" would
    // be another member's id, unnoticed (probe 8987 §3).
    if (verbatim && !/^[\x20-\x7e]$/.test(ch) && !SEPARATORS.test(ch) && !isControlOrInvisible(ch)) return `${label} contains '${ch}', which a claim cannot carry as typed: an identifier goes out letter for letter (A–Z, digits and basic punctuation). Edit it${again}.`;
    if (PRINTABLE.test(written) && !SEPARATORS.test(written)) continue;
    if (SEPARATORS.test(ch)) return `${label} contains '${ch}', which a claim cannot carry (* ~ : ^ separate the file's parts). Edit it${again}.`;
    if (isControlOrInvisible(ch)) return `${label} contains a control or invisible character (${codePoint(ch)}), which a claim cannot carry. Edit it${again}.`;
    return `${label} contains '${ch}', which a claim cannot carry (letters, digits and basic punctuation only). Edit it${again}.`;
  }
  return null;
}

/**
 * A text the claim carries as it is written (`t`): every character in X12's set once transliterated and, when the
 * `element` is named, within its bounds (ELEMENT_MAX, ELEMENT_MIN). True when the value can go out as it is.
 */
function checkText(label: string, field: string, value: string | null | undefined, element: TextElement | null, out: ClaimIssue[], again = " and build again"): boolean {
  if (value == null) return true;
  const refused = refusedCharacter(label, value, again, element !== null && IDENTIFIERS.has(element));
  const length = t(value).length;
  const max = element && ELEMENT_MAX[element];
  const min = element && ELEMENT_MIN[element];
  if (refused) out.push({ field, message: refused });
  else if (max && length > max) out.push({ field, message: `${label} is longer than the ${max} characters a claim can carry. Shorten it${again}.` });
  else if (min && length > 0 && length < min) out.push({ field, message: `${label} is shorter than the ${min} characters a claim needs. Correct it${again}.` });
  return !refused;
}

/**
 * The prior authorization number as REF*G1 carries it (REF02): X12's characters once transliterated, at most 50 as
 * written. One rule: each claim line's check (serviceLineIssues, so the scrubber's too) and the billing save's PA
 * number field (app/domain/client-reports.ts, decision 034 stop 31), which passes `again` " and save again".
 */
export function paNumberIssues(value: string, label: string, field: string, again?: string): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  checkText(label, field, value, "reference", out, again);
  return out;
}

/**
 * A party's text the claim needs. Its advice says where to edit it, not to build again: generation reads the parties
 * again (decision 032), so a corrected value goes out without a new build (stop 35).
 */
function requireText(label: string, field: string, value: string | null | undefined, element: TextElement | null, out: ClaimIssue[], where: string): boolean {
  if (!t(value)) {
    out.push({ field, message: `${label} is missing. Add it ${where}.` });
    return false;
  }
  return checkText(label, field, value, element, out, ` ${where}`);
}

/** A ZIP code of 5 or 9 digits (ZIP+4, with or without its dash). */
const ZIP = /^\d{5}(-?\d{4})?$/;
/** The full nine-digit ZIP+4. */
const ZIP_PLUS_4 = /^\d{5}-?\d{4}$/;

/**
 * An address's street, city, state and ZIP (5 or 9 digits unless `zip` asks for another rule and message). Its advice
 * says where to edit it, not to build again: generation reads the parties again (decision 032), so a corrected address
 * goes out without a new build (probe 8974 §5).
 */
function checkAddress(who: string, field: string, a: X12Address, out: ClaimIssue[], where: string, zip = { rule: ZIP, message: `${who} ZIP code must be 5 or 9 digits. Set it ${where}.` }) {
  if (requireText(`${who} address`, `${field}.address`, a.address, null, out, where) && !addressLines(a.address)) {
    out.push({ field: `${field}.address`, message: `${who} address is longer than the two lines of ${ELEMENT_MAX.addressLine} characters a claim can carry. Shorten it ${where}.` });
  }
  requireText(`${who} city`, `${field}.city`, a.city, "city", out, where);
  if (!a.state || !/^[A-Za-z]{2}$/.test(a.state.trim())) out.push({ field: `${field}.state`, message: `${who} state must be a 2-letter code (for example FL). Set it ${where}.` });
  if (!a.zip || !zip.rule.test(a.zip.trim())) out.push({ field: `${field}.zip`, message: zip.message });
}

/**
 * The billing provider's ZIP (2010AA N403): 005010X222A1 requires the full nine digits there (X12 RFI 1533; a
 * clearinghouse rejects a 5-digit one at its front end). The subscriber's and the client's (2010BA, 2010CA) take
 * 5 or 9 digits; the writer has no pay-to address (2010AB).
 */
function billingZip(bp: ClaimData["billingProvider"]) {
  const typed = (bp.zip ?? "").trim();
  const example = `${/^\d{5}/.exec(typed)?.[0] ?? "33130"}-1234`;
  return {
    rule: ZIP_PLUS_4,
    message: `The ZIP code of the location ${bp.name.trim() || "(no name)"} ${typed ? `is ${typed}` : "is missing"}: a claim's billing provider needs the 9-digit ZIP+4 (for example ${example}). Enter the ZIP+4 on the location's page.`,
  };
}

function isDate(s: string | null): boolean {
  if (!s || !/^\d{4}-\d{2}-\d{2}$/.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

/**
 * The parent's one name field as the subscriber's first and last names (decision 032, stop 29): "Last, First" when it
 * has a comma ("de la Cruz, Mary Ann"); else one word is the last name and two are first and last. Three or more words
 * without a comma cannot be told apart ("Mary Ann de la Cruz", "Juan Carlos Pérez García"): `unclear` holds the name
 * and the claim is refused until the profile says which is which, rather than a guessed surname sent to the payer.
 */
export function splitName(full: string | null): { firstName: string; lastName: string; unclear?: string } {
  const text = (full ?? "").trim();
  const comma = text.indexOf(",");
  if (comma >= 0) return { lastName: text.slice(0, comma).trim(), firstName: text.slice(comma + 1).trim() };
  const parts = text.split(/\s+/).filter(Boolean);
  if (parts.length === 0) return { firstName: "", lastName: "" };
  if (parts.length === 1) return { firstName: "", lastName: parts[0]! };
  if (parts.length === 2) return { firstName: parts[0]!, lastName: parts[1]! };
  return { firstName: parts.slice(0, -1).join(" "), lastName: parts[parts.length - 1]!, unclear: text };
}

/** The parties of a claim: the billing provider (location), subscriber and client, payer and rendering provider. */
export type ClaimParties = Pick<ClaimData, "billingProvider" | "subscriber" | "patient" | "payer" | "renderingProvider" | "relatedCauses" | "referringProvider">;

/*
 * The checks of a claim's parties, one function per party. validateClaim runs them on the claim, and the
 * pre-billing scrubber (app/domain/scrubber.ts, decision 034) on each note's parties: one rule in one place.
 */

/** The billing provider (2010AA, the note's location): name, NPI, tax id, address with ZIP+4, phone. */
export function billingProviderIssues(bp: ClaimData["billingProvider"]): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  const loc = "on the location's page";
  const named = `The location ${bp.name.trim() || "(no name)"}`;
  requireText("Billing provider (location) name", "billing.name", bp.name, "lastName", out, loc);
  if (!bp.npi) out.push({ field: "billing.npi", message: `${named} has no NPI. Add the billing provider's 10-digit NPI on the location's page.` });
  else if (!isValidNpi(bp.npi)) out.push({ field: "billing.npi", message: `${named}'s NPI ${bp.npi} is not a valid NPI (10 digits with a check digit). Correct it on the location's page.` });
  if (!bp.taxId) out.push({ field: "billing.tax_id", message: `${named} has no tax id. Add the 9-digit tax id (EIN) on the location's page.` });
  else if (!isValidTaxId(bp.taxId)) out.push({ field: "billing.tax_id", message: `${named}'s tax id must be 9 digits. Correct it on the location's page.` });
  checkAddress("Location", "billing", bp, out, loc, billingZip(bp));
  if (!bp.phone?.trim()) out.push({ field: "billing.phone", message: `${named} needs a phone number (10 digits) for the claim's contact. Add it on the location's page.` });
  else if (!contactPhone(bp.phone)) out.push({ field: "billing.phone", message: `${named}'s phone number ${bp.phone.trim()} is not a 10-digit number (for example (305) 555-0100; a leading +1 may be typed). Correct it on the location's page.` });
  return out;
}

/**
 * PER04, the billing provider's phone as the file carries it: its 10 digits (005010X222A1: AAABBBCCCC for a
 * North-American number), a number typed with the country code (+1, 1) without it; null when that leaves other
 * than 10 digits, which `billingProviderIssues` refuses (probe 8981 §7).
 */
function contactPhone(phone: string | null): string | null {
  const digits = (phone ?? "").replace(/\D/g, "");
  const national = digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits;
  return national.length === 10 ? national : null;
}

/** Where a parent subscriber's name is written: the client form's field, by its label and section. */
export const PARENT_NAME_WHERE = `in "Parent name" (the "Parent or guardian" section) on the client's profile`;
/** Said when a parent account is linked to the client. */
export const PARENT_ACCOUNT_NOT_USED = ". The linked parent account's name is not used as the insurance subscriber";

/**
 * The subscriber (2010BA: the client, or the parent named on the client's profile) and, when not the same, the client
 * (2010CA). Only a self-subscriber's address and birth date are needed: a parent's are not sent (ClaimData.subscriber).
 */
export function subscriberIssues(s: ClaimData["subscriber"], patient: ClaimData["patient"]): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  const client = "on the client's insurance details";
  requireText("Member id (primary insurance identifier)", "subscriber.member_id", s.memberId, "id", out, client);
  checkText("Insured policy group", "subscriber.group", s.groupNumber, "reference", out, ` ${client}`);
  // The subscriber's name is the client's own (self) or the "Parent name" field of the client's profile. A linked parent
  // account's name is never used for it: the portal's account holder need not be the insured person (decision 032).
  const subscriberName = s.selfSubscriber ? "on the client's profile" : PARENT_NAME_WHERE + (s.parentAccountLinked ? PARENT_ACCOUNT_NOT_USED : "");
  requireText("Subscriber first name", "subscriber.first_name", s.firstName, "firstName", out, subscriberName);
  requireText("Subscriber last name", "subscriber.last_name", s.lastName, "lastName", out, subscriberName);
  if (s.unclear) out.push({ field: "subscriber.last_name", message: `The parent's name "${s.unclear}" has more than two words, so its first and last names cannot be told apart. In "Parent name" (the "Parent or guardian" section) on the client's profile, write it as "Last name, First name" (for example "de la Cruz, Mary Ann").` });
  if (s.selfSubscriber) {
    if (!isDate(s.birthDate)) out.push({ field: "subscriber.birth_date", message: "The subscriber's birth date is missing. Add it on the client's profile." });
    checkAddress("Subscriber", "subscriber", s, out, "on the client's profile");
  }
  if (patient) {
    requireText("Client first name", "patient.first_name", patient.firstName, "firstName", out, "on the client's profile");
    requireText("Client last name", "patient.last_name", patient.lastName, "lastName", out, "on the client's profile");
    if (!isDate(patient.birthDate)) out.push({ field: "patient.birth_date", message: "The client's birth date is missing. Add it on the client's profile." });
    checkAddress("Client", "patient", patient, out, "on the client's profile");
  }
  return out;
}

/** The payer (2010BB): its name and payer id. */
export function payerIssues(payer: ClaimData["payer"]): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  requireText("Payer name", "payer.name", payer.name, "lastName", out, "on the insurer's page");
  const named = `The insurer${payer.name.trim() ? ` ${payer.name.trim()}` : ""}`;
  // A payer id that is there but holds what a claim cannot carry is named as such, not as missing (probe 8974 §5).
  if (!payer.payerId?.trim()) out.push({ field: "payer.payer_id", message: `${named} has no payer id (letters and digits). Add it on the insurer's page.` });
  else if (!/^[A-Za-z0-9]{2,80}$/.test(payer.payerId.trim())) out.push({ field: "payer.payer_id", message: `${named}'s payer id "${payer.payerId.trim()}" is not valid: a claim carries 2 to 80 letters and digits only. Correct it on the insurer's page.` });
  return out;
}

/** The rendering provider (2310B, the note's provider): name and NPI. */
export function renderingProviderIssues(rp: ClaimData["renderingProvider"]): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  requireText("Rendering provider last name", "rendering.last_name", rp.lastName, "lastName", out, "on the employee's profile");
  checkText("Rendering provider first name", "rendering.first_name", rp.firstName, "firstName", out, " on the employee's profile");
  if (!rp.npi) out.push({ field: "rendering.npi", message: `${rp.firstName} ${rp.lastName}`.trim() + " has no NPI. Add the rendering provider's NPI on the employee's profile." });
  else if (!isValidNpi(rp.npi)) out.push({ field: "rendering.npi", message: `The rendering provider's NPI ${rp.npi} is not a valid NPI. Correct it on the employee's profile.` });
  return out;
}

/**
 * CLM11 (probe 8981 §5). An auto accident claim needs CLM11-4, the state where the accident happened, and no record
 * keeps it (the client's profile has the flag alone): such a claim is refused rather than sent without it.
 */
export function relatedCausesIssues(causes: readonly RelatedCause[] = []): ClaimIssue[] {
  if (!causes.includes("AA")) return [];
  return [
    {
      field: "related_causes.auto_accident",
      message:
        "An auto accident claim needs the accident's state (where it happened), and the client's profile has no place to record it, so this claim cannot be sent from here. If the services are not related to an auto accident, untick \"Auto accident\" on the client's profile.",
    },
  ];
}

/**
 * 2310A, the referring provider of the client's profile (probe 8981 §5): sent when it has a last name and a valid NPI;
 * a name without an NPI, or an NPI without a last name, is refused, naming the client's profile.
 */
export function referringProviderIssues(rp: ClaimData["referringProvider"]): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  if (!rp) return out;
  const where = "on the client's profile";
  const name = `${rp.firstName} ${rp.lastName}`.trim();
  if (!t(rp.lastName)) {
    out.push({ field: "referring.last_name", message: `The client's profile names a referring provider${name ? ` (${name})` : ` (NPI ${rp.npi})`} without a last name. Add the referring provider's last name on the client's profile, or clear the referring provider's fields if there is no referral.` });
  } else checkText("Referring provider last name", "referring.last_name", rp.lastName, "lastName", out, ` ${where}`);
  checkText("Referring provider first name", "referring.first_name", rp.firstName, "firstName", out, ` ${where}`);
  if (!rp.npi) out.push({ field: "referring.npi", message: `The client's profile names the referring provider ${name} without an NPI. Add the referring provider's 10-digit NPI on the client's profile, or clear the name if there is no referral.` });
  else if (!isValidNpi(rp.npi)) out.push({ field: "referring.npi", message: `The referring provider's NPI ${rp.npi} on the client's profile is not a valid NPI (10 digits with a check digit). Correct it on the client's profile.` });
  return out;
}

/** The diagnosis codes (HI): at least one, each an ICD-10 code. The pre-billing scrubber runs it on a note's own claim's. */
export function diagnosisIssues(codes: readonly string[]): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  if (codes.length === 0) out.push({ field: "diagnosis", message: "No diagnosis code. Add the client's diagnosis code (ICD-10) on the note or the client's profile." });
  for (const d of codes) {
    if (!/^[A-Z][0-9][0-9A-Z]{1,5}$/.test(diagnosisKey(d))) out.push({ field: "diagnosis", message: `Diagnosis code ${d} is not an ICD-10 code (for example F84.0). Correct it on the note or the client's profile.` });
  }
  return out;
}

/** What stops a claim from going out, as messages a person can act on (empty: the claim can be written). */
export function validateClaim(c: ClaimData): ClaimIssue[] {
  const out: ClaimIssue[] = [
    ...billingProviderIssues(c.billingProvider),
    ...subscriberIssues(c.subscriber, c.patient),
    ...payerIssues(c.payer),
    ...renderingProviderIssues(c.renderingProvider),
    ...relatedCausesIssues(c.relatedCauses),
    ...referringProviderIssues(c.referringProvider),
    ...diagnosisIssues(c.diagnosisCodes),
  ];
  // HI leaves out profile codes that do not fit (claimDiagnoses): over MAX_DIAGNOSES only when the lines' own codes are.
  if (c.diagnosisCodes.length > MAX_DIAGNOSES) out.push({ field: "diagnosis", message: `The claim would carry ${c.diagnosisCodes.length} diagnosis codes (${c.diagnosisCodes.join(", ")}), but a claim carries at most ${MAX_DIAGNOSES}, and its notes are written for all of them. Correct the diagnosis codes on its notes (at most ${MAX_DIAGNOSES} different ones), then generate it again.` });

  if (!/^[A-Za-z0-9-]{1,20}$/.test(c.claimNumber)) out.push({ field: "claim_number", message: "The claim number must be 1 to 20 letters, digits or dashes." });
  if (c.lines.length === 0) out.push({ field: "lines", message: "The claim has no service lines." });
  if (c.lines.length > MAX_LINES) out.push({ field: "lines", message: `A claim carries at most ${MAX_LINES} service lines; build it from fewer notes.` });
  const hi = c.diagnosisCodes.map(diagnosisKey);
  c.lines.forEach((l, i) => {
    const at = `Line ${i + 1} (${l.cptCode || "no CPT"} on ${l.serviceDate})`;
    out.push(...serviceLineIssues(l, at, `lines.${i}`));
    // SV107 points into HI: a line's own diagnosis the claim does not carry could not be its first pointer.
    const absent = (l.diagnosisCodes ?? []).filter((d) => !hi.includes(diagnosisKey(d)));
    if (absent.length) out.push({ field: `lines.${i}.diagnosis`, message: `${at}: its diagnosis ${absent.join(", ")} is not among the claim's diagnosis codes, so the line could not point to it. Void the claim (reject) and build it again.` });
  });
  return out;
}

/**
 * The checks of one service line (2400: SV1, DTP, REF*G1), each from the notes of that line alone. validateClaim runs
 * them on every line of a claim (`at` "Line 3 (97153 on 2026-11-02)", `field` "lines.2"), and the pre-billing
 * scrubber (app/domain/scrubber.ts, decision 034) on each note's own line: one rule in one place. Each issue's field
 * is `${field}.cpt`, `.date`, `.units`, `.charge`, `.pos`, `.modifiers` or `.pa_number`. `paLabel` names where the
 * prior authorization number comes from.
 */
export function serviceLineIssues(l: ClaimLineData, at: string, field: string, paLabel = "the prior authorization number"): ClaimIssue[] {
  const out: ClaimIssue[] = [];
  if (!/^[A-Z0-9]{5}$/.test(l.cptCode)) out.push({ field: `${field}.cpt`, message: `${at}: the CPT code ${l.cptCode ? `${l.cptCode} ` : ""}must be 5 letters or digits (for example 97153). Correct the CPT code on the note.` });
  if (!isDate(l.serviceDate)) out.push({ field: `${field}.date`, message: `${at}: the date of service ${l.serviceDate ? `${l.serviceDate} ` : ""}is not a date. Correct the session date on the note.` });
  if (!Number.isInteger(l.units) || l.units <= 0) out.push({ field: `${field}.units`, message: `${at}: no units to bill.` });
  // An XP line is priced at $0 by design (priceNote: XP multiplies by 0) and goes out with its units; any other
  // $0 line with units means the insurer has no price for the CPT. A line without units is $0 because it has no
  // units (said just above), not for want of a price.
  const xp = l.modifiers.includes("XP");
  if (!Number.isInteger(l.chargeCents) || l.chargeCents < 0 || (l.chargeCents === 0 && !xp && l.units > 0)) out.push({ field: `${field}.charge`, message: `${at}: the charge is $0. Set a price for this CPT on the insurer's services.` });
  if (!/^\d{2}$/.test(l.pos)) out.push({ field: `${field}.pos`, message: `${at}: the place of service ${l.pos.trim() ? `${l.pos.trim()} ` : ""}must be a 2-digit code (for example 12, Home). Choose a place of service on the note.` });
  if (l.modifiers.length > 4) out.push({ field: `${field}.modifiers`, message: `${at}: at most 4 modifiers.` });
  for (const m of l.modifiers) if (!/^[A-Z0-9]{2}$/.test(m)) out.push({ field: `${field}.modifiers`, message: `${at}: modifier ${m} must be 2 letters or digits.` });
  if (l.paNumber != null) out.push(...paNumberIssues(l.paNumber, `${at}: ${paLabel}`, `${field}.pa_number`));
  return out;
}

function d8(isoDate: string): string {
  return isoDate.replace(/-/g, "");
}

function seg(...elements: (string | number | null | undefined)[]): string {
  let last = elements.length;
  while (last > 1 && (elements[last - 1] == null || elements[last - 1] === "")) last--;
  return elements
    .slice(0, last)
    .map((e) => (e == null ? "" : String(e)))
    .join(ELEMENT);
}

function pad(value: string, width: number): string {
  return value.slice(0, width).padEnd(width, " ");
}

/** The claim's place of service (CLM05-1): the most frequent line POS, the earliest line's on a tie. */
export function claimPos(lines: readonly ClaimLineData[]): string {
  const counts = new Map<string, number>();
  for (const l of lines) counts.set(l.pos, (counts.get(l.pos) ?? 0) + 1);
  let best = lines[0]?.pos ?? "";
  for (const l of lines) if ((counts.get(l.pos) ?? 0) > (counts.get(best) ?? 0)) best = l.pos;
  return best;
}

export function claimTotalCents(c: ClaimData): number {
  return c.lines.reduce((sum, l) => sum + l.chargeCents, 0);
}

function zip(z: string | null): string {
  return (z ?? "").replace(/\D/g, "");
}

function address(a: X12Address): string[] {
  // validateClaim refuses an address that does not fit the two lines, so it is never cut here.
  return [seg("N3", ...addressLines(a.address)!), seg("N4", t(a.city), t(a.state), zip(a.zip))];
}

/** The patient's N3, N4 and DMG (2010BA for a self-subscriber, else 2010CA). */
function demographics(p: Demographics): string[] {
  return [...address(p), seg("DMG", "D8", d8(p.birthDate ?? ""), p.gender)];
}

/** The segments of one transaction set (ST … SE) for a claim. */
function transactionSet(c: ClaimData, env: Envelope, setControl: string): string[] {
  const when = env.createdAt;
  const date = d8(when.slice(0, 10));
  const time = when.slice(11, 13) + when.slice(14, 16);
  const s = c.subscriber;
  const bp = c.billingProvider;
  const body: string[] = [
    seg("ST", "837", setControl, "005010X222A1"),
    seg("BHT", "0019", "00", `${env.fileId}-${setControl}`, date, time, "CH"),
    seg("NM1", "41", "2", t(env.senderName), "", "", "", "", "46", env.senderId),
    seg("PER", "IC", t(bp.name), "TE", contactPhone(bp.phone)),
    seg("NM1", "40", "2", t(env.receiverName), "", "", "", "", "46", env.receiverId),
    seg("HL", "1", "", "20", "1"),
    seg("NM1", "85", "2", t(bp.name), "", "", "", "", "XX", bp.npi),
    ...address(bp),
    seg("REF", "EI", bp.taxId),
    seg("HL", "2", "1", "22", c.patient ? "1" : "0"),
    seg("SBR", "P", s.selfSubscriber ? "18" : "", t(s.groupNumber), "", "", "", "", "", "CI"),
    seg("NM1", "IL", "1", t(s.lastName), t(s.firstName), "", "", "", "MI", t(s.memberId)),
    // N3, N4 and DMG in 2010BA only when the client is the subscriber; otherwise in 2010CA only (ClaimData.subscriber).
    ...(s.selfSubscriber ? demographics(s) : []),
    seg("NM1", "PR", "2", t(c.payer.name), "", "", "", "", "PI", t(c.payer.payerId)),
  ];
  if (c.patient) {
    body.push(seg("HL", "3", "2", "23", "0"), seg("PAT", c.patient.relationship), seg("NM1", "QC", "1", t(c.patient.lastName), t(c.patient.firstName)), ...demographics(c.patient));
  }
  const pos = claimPos(c.lines);
  const codes = c.diagnosisCodes.map(diagnosisKey);
  const referring = c.referringProvider;
  body.push(
    // CLM11 after an empty CLM10 (patient signature source), only when the profile relates the services to a cause.
    seg("CLM", c.claimNumber, dollarsOf(claimTotalCents(c)), "", "", [pos, "B", "1"].join(COMPONENT), "Y", "A", "Y", "Y", "", (c.relatedCauses ?? []).join(COMPONENT)),
    seg("HI", ...codes.map((code, i) => [i === 0 ? "ABK" : "ABF", code].join(COMPONENT))),
    // 2310A (referring provider) comes before 2310B (rendering provider) in loop 2300.
    ...(referring ? [seg("NM1", "DN", "1", t(referring.lastName), t(referring.firstName), "", "", "", "XX", referring.npi)] : []),
    seg("NM1", "82", "1", t(c.renderingProvider.lastName), t(c.renderingProvider.firstName), "", "", "", "XX", c.renderingProvider.npi),
  );
  c.lines.forEach((l, i) => {
    body.push(
      seg("LX", String(i + 1)),
      seg("SV1", ["HC", l.cptCode, ...l.modifiers].join(COMPONENT), dollarsOf(l.chargeCents), "UN", String(l.units), l.pos === pos ? "" : l.pos, "", diagnosisPointers(c.diagnosisCodes, l.diagnosisCodes).join(COMPONENT)),
      seg("DTP", "472", "D8", d8(l.serviceDate)),
    );
    if (l.paNumber) body.push(seg("REF", "G1", t(l.paNumber)));
  });
  body.push(seg("SE", String(body.length + 1), setControl));
  return body;
}

export interface Written837 {
  content: string;
  fileName: string;
  /** Per claim, in input order: its ST02 and the number of segments ST through SE. */
  sets: { claimNumber: string; setControl: string; segments: number }[];
}

export type WriteResult = { ok: true; file: Written837 } | { ok: false; errors: (ClaimIssue & { claimNumber: string })[] };

/** ST02 of the n-th (0-based) set of a file. */
export function setControlOf(index: number): string {
  return String(index + 1).padStart(4, "0");
}

/** ISA13 of the file with this x12_files id: the id padded to 9 digits (GS06 is the id itself). */
export function interchangeControl(fileId: number): string {
  return String(fileId).padStart(9, "0");
}

/** Writes one interchange for the claims, or says what stops each claim. */
export function write837P(claims: readonly ClaimData[], env: Envelope): WriteResult {
  const errors = claims.flatMap((c) => validateClaim(c).map((e) => ({ ...e, claimNumber: c.claimNumber })));
  if (claims.length === 0) errors.push({ claimNumber: "", field: "claims", message: "No claims to write." });
  for (const [label, value] of [
    ["Sender id", env.senderId],
    ["Receiver id", env.receiverId],
  ] as const) {
    if (!/^[A-Za-z0-9 ]{1,15}$/.test(value)) errors.push({ claimNumber: "", field: "envelope", message: `${label} must be 1 to 15 letters or digits.` });
  }
  if (!Number.isInteger(env.fileId) || env.fileId <= 0 || env.fileId > 999_999_999) errors.push({ claimNumber: "", field: "envelope", message: "The file id must be 1 to 999999999." });
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(env.createdAt)) errors.push({ claimNumber: "", field: "envelope", message: "The creation time must be an ISO date-time." });
  if (errors.length) return { ok: false, errors };

  const date = d8(env.createdAt.slice(0, 10));
  const time = env.createdAt.slice(11, 13) + env.createdAt.slice(14, 16);
  const control = interchangeControl(env.fileId);
  const isa = [
    "ISA",
    "00",
    pad("", 10),
    "00",
    pad("", 10),
    "ZZ",
    pad(env.senderId, 15),
    "ZZ",
    pad(env.receiverId, 15),
    date.slice(2),
    time,
    REPETITION,
    "00501",
    control,
    "0",
    env.usage,
    COMPONENT,
  ].join(ELEMENT);
  const segments: string[] = [isa, seg("GS", "HC", env.senderId.trim(), env.receiverId.trim(), date, time, String(env.fileId), "X", "005010X222A1")];
  const sets: Written837["sets"] = [];
  claims.forEach((c, i) => {
    const setControl = setControlOf(i);
    const body = transactionSet(c, env, setControl);
    segments.push(...body);
    sets.push({ claimNumber: c.claimNumber, setControl, segments: body.length });
  });
  segments.push(seg("GE", String(claims.length), String(env.fileId)), seg("IEA", "1", control));
  return { ok: true, file: { content: segments.map((s) => s + SEGMENT + "\n").join(""), fileName: `837P-${control}.x12`, sets } };
}

/* ---------- The human-readable rendering (the edit-viewer) ---------- */

export interface ReadableSegment {
  /** The loop the segment belongs to (e.g. "2010AA Billing provider name"). */
  loop: string;
  id: string;
  label: string;
  /** The segment's text as in the file. */
  raw: string;
  /** The elements with their meaning, where known. */
  parts: { name: string; value: string }[];
}

const NM1_LOOPS: Record<string, string> = {
  "41": "1000A Submitter",
  "40": "1000B Receiver",
  "85": "2010AA Billing provider",
  IL: "2010BA Subscriber",
  PR: "2010BB Payer",
  QC: "2010CA Patient",
  DN: "2310A Referring provider",
  "82": "2310B Rendering provider",
};

const LABELS: Record<string, string> = {
  ISA: "Interchange header",
  GS: "Functional group header",
  ST: "Transaction set header",
  BHT: "Beginning of hierarchical transaction",
  NM1: "Name",
  PER: "Submitter contact",
  HL: "Hierarchical level",
  N3: "Address",
  N4: "City, state, ZIP",
  REF: "Reference",
  SBR: "Subscriber information",
  DMG: "Demographics",
  PAT: "Patient relationship",
  CLM: "Claim",
  HI: "Diagnosis codes",
  LX: "Service line number",
  SV1: "Professional service",
  DTP: "Date of service",
  SE: "Transaction set trailer",
  GE: "Functional group trailer",
  IEA: "Interchange trailer",
};

const PARTS: Record<string, string[]> = {
  ISA: ["Authorization qualifier", "Authorization", "Security qualifier", "Security", "Sender qualifier", "Sender id", "Receiver qualifier", "Receiver id", "Date", "Time", "Repetition separator", "Version", "Interchange control number", "Acknowledgment requested", "Usage", "Component separator"],
  GS: ["Functional id", "Sender", "Receiver", "Date", "Time", "Group control number", "Agency", "Version"],
  ST: ["Transaction set", "Set control number", "Implementation guide"],
  BHT: ["Structure", "Purpose", "Reference", "Date", "Time", "Type"],
  NM1: ["Entity", "Entity type", "Last or organization name", "First name", "Middle name", "Prefix", "Suffix", "Id qualifier", "Id"],
  PER: ["Contact function", "Name", "Number qualifier", "Number"],
  HL: ["Id", "Parent id", "Level code", "Has children"],
  N3: ["Address", "Address, second line"],
  N4: ["City", "State", "ZIP"],
  REF: ["Qualifier", "Value"],
  SBR: ["Payer responsibility", "Relationship", "Group number", "Group name", "Insurance type", "", "", "", "Claim filing indicator"],
  DMG: ["Format", "Birth date", "Gender"],
  PAT: ["Relationship"],
  CLM: ["Claim number (patient control)", "Total charge", "", "", "Place of service : facility qualifier : frequency", "Provider signature", "Assignment", "Benefits assigned", "Release of information", "Patient signature source", "Related causes"],
  HI: ["Principal diagnosis", "Diagnosis 2", "Diagnosis 3", "Diagnosis 4", "Diagnosis 5", "Diagnosis 6", "Diagnosis 7", "Diagnosis 8", "Diagnosis 9", "Diagnosis 10", "Diagnosis 11", "Diagnosis 12"],
  LX: ["Line number"],
  SV1: ["Procedure (HC : CPT : modifiers)", "Charge", "Unit basis", "Units", "Place of service", "", "Diagnosis pointers"],
  DTP: ["Qualifier", "Format", "Date"],
  SE: ["Segment count", "Set control number"],
  GE: ["Transaction sets", "Group control number"],
  IEA: ["Functional groups", "Interchange control number"],
};

const REF_LABELS: Record<string, string> = { EI: "Billing provider tax id", G1: "Prior authorization number" };
const HL_LOOPS: Record<string, string> = { "20": "2000A Billing provider", "22": "2000B Subscriber", "23": "2000C Patient" };

/** The file segment by segment, with loop names and labels, for people (the claim's edit-viewer). */
export function readable837P(content: string): ReadableSegment[] {
  const out: ReadableSegment[] = [];
  let loop = "Envelope";
  for (const raw of content.split(SEGMENT).map((s) => s.trim()).filter(Boolean)) {
    const elements = raw.split(ELEMENT);
    const id = elements[0]!;
    const values = elements.slice(1);
    if (id === "ISA" || id === "GS" || id === "GE" || id === "IEA") loop = "Envelope";
    else if (id === "ST" || id === "BHT") loop = "Header";
    else if (id === "NM1") loop = NM1_LOOPS[values[0] ?? ""] ?? loop;
    else if (id === "HL") loop = HL_LOOPS[values[2] ?? ""] ?? loop;
    else if (id === "CLM") loop = "2300 Claim";
    else if (id === "LX") loop = `2400 Service line ${values[0] ?? ""}`;
    else if (id === "SE") loop = "Trailer";
    let label = LABELS[id] ?? id;
    if (id === "NM1") label = `${NM1_LOOPS[values[0] ?? ""]?.replace(/^\S+ /, "") ?? "Name"}`;
    if (id === "REF") label = REF_LABELS[values[0] ?? ""] ?? "Reference";
    const names = PARTS[id] ?? [];
    out.push({ loop, id, label, raw, parts: values.map((value, i) => ({ name: names[i] || `${id}${String(i + 1).padStart(2, "0")}`, value })).filter((p) => p.value.trim() !== "") });
  }
  return out;
}
