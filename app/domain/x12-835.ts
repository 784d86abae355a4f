import { dollarsOf } from "./billing";
import { dayNumber } from "./weeks";
import { codePoint, isControlOrInvisible } from "./x12";
import { transliterate } from "./x12-837p";

/**
 * The X12 835 (005010X221A1, health care claim payment/advice) reader: pure, no I/O. It reads what the
 * payer sent — the envelope (ISA/GS/ST … SE/GE/IEA, with their counts and control numbers), the payment
 * (BPR), its trace (TRN), the payer (N1*PR), each claim (CLP) with its adjustments (CAS), and each service
 * line (SVC) with its date (DTM*472), adjustments (CAS) and remarks (LQ*HE) — and checks that it balances.
 * Amounts become integer cents from their decimal text (never a float sum). Anything it cannot read is an
 * error naming the segment's position (1 = the ISA segment) and a reason a person can act on.
 *
 * One payment per file: one transaction set (ST/SE), which is one remittance (one trace number). A file
 * with several sets is refused with that reason; a payer's batch is split into files before import.
 * Decision 033.
 */

export interface X12Error {
  /** 1-based position of the segment in the file (ISA = 1); null for the file as a whole. */
  position: number | null;
  /** The segment id (CLP, SVC, …) when known. */
  segment: string | null;
  message: string;
}

/** Claim adjustment group codes (CAS01). */
export const ADJUSTMENT_GROUPS = {
  CO: "Contractual obligation",
  PR: "Patient responsibility",
  OA: "Other adjustment",
  PI: "Payer initiated reduction",
  CR: "Correction or reversal",
} as const;
export type AdjustmentGroup = keyof typeof ADJUSTMENT_GROUPS;

export interface Adjustment {
  group: AdjustmentGroup;
  /** CARC, the claim adjustment reason code. */
  reason: string;
  /** Positive: taken off what was charged; negative: given back. */
  amountCents: number;
}

export interface ServicePayment {
  position: number;
  /** The procedure as charged (SVC06 when the payer changed it, else SVC01). */
  cptCode: string;
  modifiers: string[];
  /** The procedure the payer adjudicated when it differs (SVC01 when SVC06 is present). */
  paidCptCode: string | null;
  chargeCents: number;
  paidCents: number;
  units: number;
  /** DTM*472 (or DTM*150, the period's first day), YYYY-MM-DD; null when the payer left it out. */
  serviceDate: string | null;
  adjustments: Adjustment[];
  /** RARC, remark codes (LQ*HE). */
  remarks: string[];
}

export interface ClaimPayment {
  position: number;
  /** CLP01: our claim number (the 837P's CLM01). */
  claimNumber: string;
  /** CLP02: 1/2/3 processed (primary/secondary/tertiary), 4 denied, 19–21 processed and forwarded, 22 reversal, 23 not our claim. */
  statusCode: string;
  chargeCents: number;
  paidCents: number;
  patientResponsibilityCents: number;
  /** CLP07: the payer's own claim number. */
  payerClaimNumber: string;
  /** Claim-level CAS. */
  adjustments: Adjustment[];
  services: ServicePayment[];
}

export interface ProviderAdjustment {
  position: number;
  reason: string;
  /** PLB amounts: positive reduces the payment. */
  amountCents: number;
}

export interface Remittance835 {
  interchangeControl: string;
  groupControl: string;
  setControl: string;
  /** BPR02, the payment's total. */
  totalPaidCents: number;
  /** BPR04: ACH, CHK, NON, … */
  paymentMethod: string;
  /** BPR16, YYYY-MM-DD (null when absent). */
  paymentDate: string | null;
  /** TRN02, the check or EFT trace number. */
  traceNumber: string;
  /** TRN03, the payer's id on the trace. */
  payerId: string;
  /** N1*PR name. */
  payerName: string;
  /**
   * The payer's identification in the payer loop (1000A): N104 when N103 is XV, PI or FI, and REF02 of REF*2U; empty
   * when the file carries none. TRN03 is not one of them (it is the payer's id on the trace, often its tax id).
   */
  payerIds: string[];
  claims: ClaimPayment[];
  providerAdjustments: ProviderAdjustment[];
}

export type Read835 = { ok: true; remittance: Remittance835 } | { ok: false; errors: X12Error[]; remittance: Remittance835 | null };

/**
 * What the payer did with a service line: `paid` in full (a zero-charge XP line paid 0 too), `partial` (something
 * paid), `patient` (nothing paid, the payer adjudicated it and put it on the patient) or `denied` (nothing paid,
 * refused by the payer).
 */
export type LineStatus = "paid" | "partial" | "patient" | "denied";

/**
 * A contractual reduction that denies nothing: CO-45, the charge above the payer's fee schedule. Beside a patient
 * responsibility it is the usual shape of a deductible ("allowed 100.00, all of it the patient's").
 */
const isContractualReduction = (a: Adjustment) => a.group === "CO" && a.reason === "45";

/**
 * A line's status (decision 033, stop 33): paid ≥ charge → paid; something paid → partial; nothing paid of a charge
 * → patient when the payer put an amount on the patient (group PR: deductible, coinsurance, co-payment …) and every
 * other adjustment is a contractual reduction (CO-45) — the payer adjudicated the line, and the patient owes it —
 * else denied (CO-50, CO-97, OA-23, PI-…, a CO-45 of the whole charge, or a PR beside any of them). The reader has
 * checked that the adjustments add up to charge − paid.
 */
export function lineStatus(chargeCents: number, paidCents: number, adjustments: readonly Adjustment[]): LineStatus {
  if (paidCents >= chargeCents) return "paid";
  if (paidCents > 0) return "partial";
  const patient = adjustments.filter((a) => a.group === "PR").reduce((n, a) => n + a.amountCents, 0);
  return patient > 0 && adjustments.every((a) => a.group === "PR" || isContractualReduction(a)) ? "patient" : "denied";
}

/**
 * A service line's status in its claim's payment (decision 033, stop 33). When the payer paid the claim nothing
 * (CLP04 = 0), its claim-level adjustments took what the lines were paid (Σ SVC03 − Σ claim CAS = CLP04), so no line was
 * paid by it: a line paid something is judged as if those adjustments were its own (lineStatus with nothing paid: PR
 * alone, or beside CO-45 → patient; else denied). A line paid nothing, and every line of a claim paid something
 * (CLP04 > 0), keeps its own rule.
 */
export function serviceStatus(claim: Pick<ClaimPayment, "paidCents" | "adjustments">, service: Pick<ServicePayment, "chargeCents" | "paidCents" | "adjustments">): LineStatus {
  if (claim.paidCents === 0 && service.paidCents > 0) return lineStatus(service.chargeCents, 0, [...service.adjustments, ...claim.adjustments]);
  return lineStatus(service.chargeCents, service.paidCents, service.adjustments);
}

/** The largest file we read (a payment of some thousand service lines is ~200 KB). */
/** N103 qualifiers whose N104 identifies the payer (CMS plan id, payer id, federal tax id). */
const PAYER_ID_QUALIFIERS: ReadonlySet<string> = new Set(["XV", "PI", "FI"]);

/** The claim's payer as its 837P named it (NM1*PR, decision 032): the insurer's name and payer id. */
export interface ClaimPayer {
  name: string;
  payerId: string | null;
}

/** A payer name or id as compared: as the 837P writes it (upper-case, accents dropped), trimmed, inner spaces collapsed. */
export function payerKey(value: string | null | undefined): string {
  return transliterate(value ?? "").trim().replace(/\s+/g, " ");
}

/**
 * Whether a remittance is from the payer a claim was billed to (decision 033, stop 37), the one rule the import
 * applies to every CLP: when the file identifies its payer (N104 with XV/PI/FI, or REF*2U), one of those ids must be
 * the claim's payer id; when it carries none, its N1*PR name must be the claim's payer name. Null when it is;
 * otherwise the refusal, naming both payers.
 */
export function payerMismatch(claimNumber: string, claimPayer: ClaimPayer | null, file: Pick<Remittance835, "payerName" | "payerIds">): string | null {
  const fileIds = file.payerIds.map(payerKey).filter(Boolean);
  const name = payerKey(claimPayer?.name);
  const id = payerKey(claimPayer?.payerId);
  const same = fileIds.length ? id !== "" && fileIds.includes(id) : name !== "" && payerKey(file.payerName) === name;
  if (same) return null;
  const from = `${file.payerName.trim()}${fileIds.length ? ` (${[...new Set(fileIds)].join(", ")})` : ""}`;
  const billedTo = claimPayer?.name.trim() ? `${claimPayer.name.trim()}${claimPayer.payerId?.trim() ? ` (${claimPayer.payerId.trim()})` : ""}` : null;
  return billedTo
    ? `Claim ${claimNumber} was billed to ${billedTo}; this remittance is from ${from}.`
    : `Claim ${claimNumber} names no payer, so this remittance from ${from} cannot be its payer's.`;
}

export const MAX_835_BYTES = 1_000_000;

const CLAIM_STATUS: Record<string, string> = {
  "1": "Processed as primary",
  "2": "Processed as secondary",
  "3": "Processed as tertiary",
  "4": "Denied",
  "19": "Processed as primary, forwarded to another payer",
  "20": "Processed as secondary, forwarded to another payer",
  "21": "Processed as tertiary, forwarded to another payer",
  "22": "Reversal of a previous payment",
  "23": "Not our claim, forwarded to another payer",
  "25": "Predetermination pricing only, no payment",
};

/** The meaning of a CLP02 claim status code, for people. */
export function claimStatusText(code: string): string {
  return CLAIM_STATUS[code] ?? `Status ${code}`;
}

/** The common CARC codes of ABA claims, for people (the full list is the X12 code list; others show their code). */
const CARC: Record<string, string> = {
  "1": "Deductible amount",
  "2": "Coinsurance amount",
  "3": "Co-payment amount",
  "4": "The procedure code is inconsistent with the modifier used",
  "5": "The procedure code or bill type is inconsistent with the place of service",
  "11": "The diagnosis is inconsistent with the procedure",
  "15": "The authorization number is missing, invalid, or does not apply to the billed services or provider",
  "16": "Claim or service lacks information needed for adjudication",
  "18": "Exact duplicate claim or service",
  "22": "This care may be covered by another payer (coordination of benefits)",
  "23": "The impact of prior payer(s) adjudication",
  "24": "Charges are covered under a capitation agreement or managed care plan",
  "26": "Expenses incurred before coverage",
  "27": "Expenses incurred after coverage terminated",
  "29": "The time limit for filing has expired",
  "31": "Patient cannot be identified as our insured",
  "45": "Charge exceeds fee schedule or maximum allowable amount",
  "50": "Not deemed a medical necessity by the payer",
  "96": "Non-covered charge(s)",
  "97": "The benefit for this service is included in the payment for another service already adjudicated",
  "109": "Claim or service not covered by this payer; send to the correct payer",
  "119": "Benefit maximum for this time period or occurrence has been reached",
  "151": "Payment adjusted because the payer deems the information does not support this many or this frequency of services",
  "167": "This (these) diagnosis(es) is (are) not covered",
  "170": "Payment is denied when performed or billed by this type of provider",
  "185": "The rendering provider is not eligible to perform the service billed",
  "197": "Precertification, notification, authorization or pre-treatment absent",
  "198": "Precertification, notification, authorization or pre-treatment exceeded",
  "204": "This service, equipment or drug is not covered under the patient's current benefit plan",
  "242": "Services not provided by network or primary care providers",
  "252": "An attachment or other documentation is required to adjudicate this claim or service",
  "253": "Sequestration: reduction in federal payment",
  "273": "Coverage or program guidelines were exceeded",
  "B7": "This provider was not certified or eligible to be paid for this procedure or service on this date",
};

/** The meaning of a CARC (claim adjustment reason code) for people; null when it is not a common one. */
export function carcText(code: string): string | null {
  return CARC[code] ?? null;
}

/** The common RARC codes of ABA claims, for people. */
const RARC: Record<string, string> = {
  M15: "Separately billed services or tests have been bundled as they are considered components of the same procedure",
  M20: "Missing or incomplete or invalid HCPCS",
  M51: "Missing, incomplete or invalid procedure code(s)",
  M62: "Missing, incomplete or invalid treatment authorization code",
  M76: "Missing, incomplete or invalid diagnosis or condition",
  M77: "Missing, incomplete or invalid place of service",
  M80: "Not covered when performed during the same session or date as another service",
  M86: "Service denied because payment already made for the same or similar procedure within the set time frame",
  MA04: "Secondary payment cannot be considered without the identity of or payment information from the primary payer",
  MA130: "Your claim contains incomplete and/or invalid information, and no appeal rights are afforded; submit a new claim",
  N4: "Missing or incomplete or invalid prior insurance carrier EOB",
  N20: "Service not payable with other service rendered on the same date",
  N54: "Claim information is inconsistent with pre-certified or authorized services",
  N290: "Missing, incomplete or invalid rendering provider primary identifier",
  N362: "The number of days or units of service exceeds our acceptable maximum",
  N386: "This decision was based on a National Coverage Determination",
  N522: "Duplicate of a claim processed, or to be processed, as a crossover claim",
  N640: "Exceeds number or frequency limits",
};

/** The meaning of a RARC (remittance advice remark code) for people; null when it is not a common one. */
export function rarcText(code: string): string | null {
  return RARC[code] ?? null;
}

/**
 * X12 decimal text ("120", "120.5", "-12.50", ".75") to integer cents; null when it is not an amount with at most
 * two decimals (further zeros are allowed: "12.500"). String arithmetic, no float.
 */
export function centsFromX12(text: string): number | null {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text.trim());
  if (!m || (!m[2] && !m[3])) return null;
  const [, sign, whole = "", frac = ""] = m;
  if (frac.length > 2 && !/^0+$/.test(frac.slice(2))) return null;
  if (whole.length > 12) return null;
  const cents = Number(whole || "0") * 100 + Number((frac + "00").slice(0, 2));
  return sign ? -cents : cents;
}

/** CCYYMMDD to YYYY-MM-DD; null when it is not a calendar date. */
export function dateFromX12(text: string): string | null {
  if (!/^\d{8}$/.test(text)) return null;
  const iso = `${text.slice(0, 4)}-${text.slice(4, 6)}-${text.slice(6, 8)}`;
  return dayNumber(iso) === null ? null : iso;
}

interface Segment {
  position: number;
  id: string;
  /** elements[0] is the id; elements[n] is the n-th element (CLP01 = elements[1]). */
  elements: string[];
}

interface Separators {
  element: string;
  component: string;
  segment: string;
}

/**
 * The separators, from the ISA segment itself: the element separator is the character after "ISA"; ISA16
 * (the component separator) is the single character after the 16th element separator; the segment terminator
 * is the character after it.
 */
function separatorsOf(text: string): Separators | string {
  if (!text.startsWith("ISA")) return "The file does not start with an ISA segment: it is not an X12 file.";
  const element = text[3]!;
  if (/[A-Za-z0-9 ]/.test(element)) return "The ISA segment's element separator must be a special character.";
  let at = 3;
  for (let n = 1; n < 16; n++) {
    at = text.indexOf(element, at + 1);
    if (at < 0) return "The ISA segment is cut short: it needs 16 elements.";
  }
  const component = text[at + 1];
  const segment = text[at + 2];
  if (!component || !segment) return "The ISA segment is cut short: it needs 16 elements.";
  if (segment === element || segment === component || component === element) return "The ISA segment's separators must be three different characters.";
  if (/[A-Za-z0-9]/.test(component) || /[A-Za-z0-9]/.test(segment)) return "The ISA segment's separators must be special characters.";
  return { element, component, segment };
}

function splitSegments(text: string, sep: Separators): Segment[] {
  const out: Segment[] = [];
  for (const raw of text.split(sep.segment)) {
    const s = raw.replace(/^[\r\n]+|[\r\n]+$/g, "");
    if (!s.trim()) continue;
    const elements = s.split(sep.element);
    out.push({ position: out.length + 1, id: elements[0]!.trim(), elements });
  }
  return out;
}

const el = (s: Segment, n: number): string => (s.elements[n] ?? "").trim();

/**
 * The first control or invisible character of an element's text, as the 837P side refuses them (x12.ts): decision
 * 017's controls and bidi overrides, a tab or line break (the format allows one only between segments), the line and
 * paragraph separators, zero-width characters, the soft hyphen and direction marks; null when none.
 */
function unsafeCharacter(text: string): string | null {
  for (const ch of text) if (isControlOrInvisible(ch)) return ch;
  return null;
}

/**
 * Every element holding such a character, named by segment and element (ISA11 and ISA16 are separators, any
 * character; a composite's component separator is not text either).
 */
function unsafeElements(segments: readonly Segment[], sep: Separators): X12Error[] {
  const out: X12Error[] = [];
  for (const s of segments) {
    s.elements.forEach((value, n) => {
      if (s.id === "ISA" && (n === 11 || n === 16)) return;
      const ch = unsafeCharacter(value.split(sep.component).join(""));
      if (ch === null) return;
      const named = n > 0 && unsafeCharacter(s.id) === null;
      const where = named ? `${s.id}${String(n).padStart(2, "0")}` : `Segment ${s.position}'s ${n === 0 ? "id" : `element ${n}`}`;
      out.push({ position: s.position, segment: named ? s.id : null, message: `${where} holds a control or invisible character (${codePoint(ch)}), which an 835's text cannot carry. Ask the payer for a corrected file.` });
    });
  }
  return out;
}

/** Reads an 835 file. Never throws: what it cannot read is in `errors`. */
export function read835(input: string): Read835 {
  const errors: X12Error[] = [];
  const fail = (position: number | null, segment: string | null, message: string) => errors.push({ position, segment, message });
  const text = input.replace(/^\uFEFF/, "").replace(/^\s+/, "");
  if (!text) return { ok: false, errors: [{ position: null, segment: null, message: "The file is empty." }], remittance: null };
  if (text.length > MAX_835_BYTES) return { ok: false, errors: [{ position: null, segment: null, message: `The file is too large: at most ${MAX_835_BYTES / 1_000_000} MB.` }], remittance: null };
  const sep = separatorsOf(text);
  if (typeof sep === "string") return { ok: false, errors: [{ position: 1, segment: "ISA", message: sep }], remittance: null };
  const separators: Separators = sep;
  const segments = splitSegments(text, separators);
  // Refused before anything is read, so no message repeats the character (decision 017).
  const unsafe = unsafeElements(segments, separators);
  if (unsafe.length) return { ok: false, errors: unsafe, remittance: null };

  const remittance: Remittance835 = {
    interchangeControl: "",
    groupControl: "",
    setControl: "",
    totalPaidCents: 0,
    paymentMethod: "",
    paymentDate: null,
    traceNumber: "",
    payerId: "",
    payerName: "",
    payerIds: [],
    claims: [],
    providerAdjustments: [],
  };

  const amount = (s: Segment, n: number, label: string, required = true): number => {
    const raw = el(s, n);
    if (!raw) {
      if (required) fail(s.position, s.id, `${s.id}${String(n).padStart(2, "0")} (${label}) is missing.`);
      return 0;
    }
    const cents = centsFromX12(raw);
    if (cents === null) {
      fail(s.position, s.id, `${s.id}${String(n).padStart(2, "0")} (${label}) "${raw}" is not an amount in dollars and cents.`);
      return 0;
    }
    return cents;
  };

  // ---- envelope
  const isa = segments[0]!;
  if (isa.elements.length !== 17) fail(1, "ISA", `The ISA segment has ${isa.elements.length - 1} elements; it must have 16.`);
  remittance.interchangeControl = el(isa, 13);
  if (!/^\d{9}$/.test(remittance.interchangeControl)) fail(1, "ISA", `ISA13 (interchange control number) "${remittance.interchangeControl}" must be 9 digits.`);

  let inGroup: Segment | null = null;
  let inSet: Segment | null = null;
  let groups = 0;
  let setsInGroup = 0;
  let sets = 0;
  let ended = false;
  let claim: ClaimPayment | null = null;
  let service: ServicePayment | null = null;
  let sawBpr = false;
  let sawTrn = false;
  let sawPayer = false;
  /** Within the payer loop (after N1*PR, before the payee's N1 or the first claim): where REF*2U names the payer. */
  let inPayerLoop = false;

  const adjustmentsOf = (s: Segment): Adjustment[] => {
    const group = el(s, 1) as AdjustmentGroup;
    if (!(group in ADJUSTMENT_GROUPS)) {
      fail(s.position, "CAS", `CAS01 (adjustment group) "${el(s, 1)}" must be CO, PR, OA, PI or CR.`);
      return [];
    }
    const out: Adjustment[] = [];
    const before = errors.length;
    for (let i = 2; i <= 17; i += 3) {
      const reason = el(s, i);
      if (!reason && !el(s, i + 1)) continue;
      if (!/^[A-Z0-9]{1,5}$/.test(reason)) {
        fail(s.position, "CAS", `CAS${String(i).padStart(2, "0")} (reason code) "${reason}" is not a claim adjustment reason code.`);
        continue;
      }
      out.push({ group, reason, amountCents: amount(s, i + 1, "adjustment amount") });
    }
    if (!out.length && errors.length === before) fail(s.position, "CAS", "The CAS segment names no reason code and amount.");
    return out;
  };

  for (const s of segments) {
    if (ended) {
      fail(s.position, s.id, `A ${s.id} segment follows the IEA segment that ends the interchange.`);
      break;
    }
    switch (s.id) {
      case "ISA":
        if (s.position !== 1) fail(s.position, "ISA", "A second ISA segment: import one interchange per file.");
        break;
      case "GS":
        if (inGroup) fail(s.position, "GS", "A GS segment before the previous group's GE segment.");
        if (el(s, 1) !== "HP") fail(s.position, "GS", `GS01 is "${el(s, 1)}": an 835 remittance group has HP (health care claim payment/advice).`);
        inGroup = s;
        groups++;
        setsInGroup = 0;
        remittance.groupControl = el(s, 6);
        if (!/^\d{1,9}$/.test(remittance.groupControl)) fail(s.position, "GS", `GS06 (group control number) "${remittance.groupControl}" must be 1 to 9 digits.`);
        break;
      case "ST":
        if (!inGroup) fail(s.position, "ST", "An ST segment outside a GS/GE group.");
        if (inSet) fail(s.position, "ST", "An ST segment before the previous transaction set's SE segment.");
        if (el(s, 1) !== "835") fail(s.position, "ST", `ST01 is "${el(s, 1)}": this reader takes 835 remittances only.`);
        inSet = s;
        sets++;
        setsInGroup++;
        if (sets > 1) fail(s.position, "ST", "The file holds more than one payment (transaction set): import one payment per file.");
        remittance.setControl = el(s, 2);
        if (!/^\d{4,9}$/.test(remittance.setControl)) fail(s.position, "ST", `ST02 (transaction set control number) "${remittance.setControl}" must be 4 to 9 digits.`);
        break;
      case "SE": {
        if (!inSet) {
          fail(s.position, "SE", "An SE segment without its ST segment.");
          break;
        }
        const count = s.position - inSet.position + 1;
        if (el(s, 1) !== String(count)) fail(s.position, "SE", `SE01 says ${el(s, 1) || "nothing"} segments; the set has ${count} (ST through SE).`);
        if (el(s, 2) !== el(inSet, 2)) fail(s.position, "SE", `SE02 "${el(s, 2)}" does not match ST02 "${el(inSet, 2)}".`);
        inSet = null;
        claim = null;
        service = null;
        break;
      }
      case "GE":
        if (!inGroup) {
          fail(s.position, "GE", "A GE segment without its GS segment.");
          break;
        }
        if (inSet) fail(s.position, "GE", "The GE segment comes before the transaction set's SE segment.");
        if (el(s, 1) !== String(setsInGroup)) fail(s.position, "GE", `GE01 says ${el(s, 1) || "nothing"} transaction sets; the group has ${setsInGroup}.`);
        if (el(s, 2) !== el(inGroup, 6)) fail(s.position, "GE", `GE02 "${el(s, 2)}" does not match GS06 "${el(inGroup, 6)}".`);
        inGroup = null;
        break;
      case "IEA":
        if (inGroup) fail(s.position, "IEA", "The IEA segment comes before the group's GE segment.");
        if (el(s, 1) !== String(groups)) fail(s.position, "IEA", `IEA01 says ${el(s, 1) || "nothing"} groups; the interchange has ${groups}.`);
        if (el(s, 2) !== el(isa, 13)) fail(s.position, "IEA", `IEA02 "${el(s, 2)}" does not match ISA13 "${el(isa, 13)}".`);
        ended = true;
        break;
      default:
        if (!inSet) {
          fail(s.position, s.id || null, `A ${s.id || "blank"} segment outside a transaction set (ST … SE).`);
          break;
        }
        readBody(s);
    }
  }
  if (!ended) fail(null, "IEA", "The file ends without its IEA segment: it may be cut short.");
  if (inSet) fail(null, "SE", "The transaction set has no SE segment: the file may be cut short.");
  if (sets === 0) fail(null, "ST", "The file holds no 835 transaction set.");
  if (sets > 0 && !sawBpr) fail(null, "BPR", "The payment has no BPR segment (the amount paid).");
  if (sets > 0 && !sawTrn) fail(null, "TRN", "The payment has no TRN segment (its trace number).");
  if (sets > 0 && !sawPayer) fail(null, "N1", "The payment names no payer (an N1*PR segment).");

  function readBody(s: Segment) {
    switch (s.id) {
      case "BPR": {
        sawBpr = true;
        remittance.totalPaidCents = amount(s, 2, "total paid");
        if (el(s, 3) && el(s, 3) !== "C" && el(s, 3) !== "D") fail(s.position, "BPR", `BPR03 "${el(s, 3)}" must be C (credit) or D (debit).`);
        if (el(s, 3) === "D") remittance.totalPaidCents = -remittance.totalPaidCents;
        remittance.paymentMethod = el(s, 4);
        if (el(s, 16)) {
          remittance.paymentDate = dateFromX12(el(s, 16));
          if (!remittance.paymentDate) fail(s.position, "BPR", `BPR16 (payment date) "${el(s, 16)}" is not a date (CCYYMMDD).`);
        }
        break;
      }
      case "TRN":
        sawTrn = true;
        remittance.traceNumber = el(s, 2);
        remittance.payerId = el(s, 3);
        if (!remittance.traceNumber) fail(s.position, "TRN", "TRN02 (the check or EFT trace number) is missing.");
        else if (remittance.traceNumber.length > 50) fail(s.position, "TRN", "TRN02 (the trace number) is longer than 50 characters.");
        break;
      case "N1":
        inPayerLoop = el(s, 1) === "PR";
        if (el(s, 1) === "PR") {
          sawPayer = true;
          if (PAYER_ID_QUALIFIERS.has(el(s, 3)) && el(s, 4)) remittance.payerIds.push(el(s, 4));
          remittance.payerName = el(s, 2);
          if (!remittance.payerName) fail(s.position, "N1", "N102 (the payer's name) is missing.");
          else if (remittance.payerName.length > 60) fail(s.position, "N1", "N102 (the payer's name) is longer than 60 characters.");
        }
        break;
      case "REF":
        if (inPayerLoop && el(s, 1) === "2U" && el(s, 2)) remittance.payerIds.push(el(s, 2));
        break;
      case "LX":
        inPayerLoop = false;
        break;
      case "CLP": {
        inPayerLoop = false;
        service = null;
        claim = {
          position: s.position,
          claimNumber: el(s, 1),
          statusCode: el(s, 2),
          chargeCents: amount(s, 3, "claim charge"),
          paidCents: amount(s, 4, "claim payment"),
          patientResponsibilityCents: amount(s, 5, "patient responsibility", false),
          payerClaimNumber: el(s, 7),
          adjustments: [],
          services: [],
        };
        if (!claim.claimNumber) fail(s.position, "CLP", "CLP01 (the claim number) is missing.");
        if (!/^\d{1,2}$/.test(claim.statusCode)) fail(s.position, "CLP", `CLP02 (claim status) "${claim.statusCode}" is not a status code.`);
        remittance.claims.push(claim);
        break;
      }
      case "CAS":
        if (service) service.adjustments.push(...adjustmentsOf(s));
        else if (claim) claim.adjustments.push(...adjustmentsOf(s));
        else fail(s.position, "CAS", "A CAS segment before any claim (CLP).");
        break;
      case "SVC": {
        if (!claim) {
          fail(s.position, "SVC", "An SVC segment before any claim (CLP).");
          service = null;
          break;
        }
        const procedure = (n: number) => {
          const parts = el(s, n).split(separators.component).map((p) => p.trim());
          return { qualifier: parts[0] ?? "", code: parts[1] ?? "", modifiers: parts.slice(2).filter(Boolean) };
        };
        const paid = procedure(1);
        const original = el(s, 6) ? procedure(6) : null;
        const charged = original ?? paid;
        if (!charged.code) fail(s.position, "SVC", "SVC01 (the procedure, e.g. HC:97153) has no procedure code.");
        else if (charged.qualifier !== "HC") fail(s.position, "SVC", `SVC01 qualifier "${charged.qualifier}" is not HC (CPT/HCPCS).`);
        const unitsText = el(s, 5);
        const units = unitsText === "" ? 1 : Number(unitsText);
        if (!Number.isFinite(units) || units < 0) fail(s.position, "SVC", `SVC05 (units) "${unitsText}" is not a number.`);
        service = {
          position: s.position,
          cptCode: charged.code,
          modifiers: charged.modifiers,
          paidCptCode: original ? paid.code : null,
          chargeCents: amount(s, 2, "line charge"),
          paidCents: amount(s, 3, "line payment"),
          units: Number.isFinite(units) ? units : 0,
          serviceDate: null,
          adjustments: [],
          remarks: [],
        };
        claim.services.push(service);
        break;
      }
      case "DTM": {
        const qualifier = el(s, 1);
        if (!service || (qualifier !== "472" && qualifier !== "150")) break;
        const date = dateFromX12(el(s, 2));
        if (!date) fail(s.position, "DTM", `DTM02 (service date) "${el(s, 2)}" is not a date (CCYYMMDD).`);
        else if (qualifier === "472" || !service.serviceDate) service.serviceDate = date;
        break;
      }
      case "LQ":
        if (service && el(s, 1) === "HE") {
          if (!/^[A-Z0-9]{1,6}$/.test(el(s, 2))) fail(s.position, "LQ", `LQ02 (remark code) "${el(s, 2)}" is not a remark code.`);
          else service.remarks.push(el(s, 2));
        }
        break;
      case "PLB":
        // PLB03/04, 05/06, …: adjustment identifier (reason:reference) and amount.
        for (let i = 3; i + 1 < s.elements.length; i += 2) {
          if (!el(s, i) && !el(s, i + 1)) continue;
          remittance.providerAdjustments.push({ position: s.position, reason: el(s, i).split(separators.component)[0] ?? "", amountCents: amount(s, i + 1, "provider adjustment") });
        }
        break;
      default:
        // Other segments (DTM*405, N3, N4, PER, NM1, MIA, MOA, AMT, QTY, TS3, TS2, LX …) carry nothing we record.
        if (!/^[A-Z][A-Z0-9]{1,2}$/.test(s.id)) fail(s.position, s.id || null, `"${s.id.slice(0, 10)}" is not a segment id.`);
    }
  }

  if (!errors.length) balance(remittance, fail);
  return errors.length ? { ok: false, errors, remittance } : { ok: true, remittance };
}

const money = dollarsOf;
const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/**
 * The payment balances (005010X221A1): BPR02 = Σ CLP04 − Σ PLB; each line's charge − paid = Σ its CAS; each claim's
 * charge − paid = Σ of its own (claim-level) and its lines' CAS; so its lines' payments less its own CAS are its
 * payment (Σ SVC03 − Σ claim CAS = CLP04).
 */
function balance(r: Remittance835, fail: (position: number | null, segment: string | null, message: string) => void) {
  const claimsPaid = sum(r.claims.map((c) => c.paidCents));
  const plb = sum(r.providerAdjustments.map((p) => p.amountCents));
  if (r.totalPaidCents !== claimsPaid - plb) {
    fail(null, "BPR", `The payment does not balance: BPR02 is ${money(r.totalPaidCents)}, the claims paid ${money(claimsPaid)}${plb ? ` less provider adjustments ${money(plb)}` : ""}.`);
  }
  for (const c of r.claims) {
    for (const s of c.services) {
      const adjusted = sum(s.adjustments.map((a) => a.amountCents));
      if (s.chargeCents - s.paidCents !== adjusted) fail(s.position, "SVC", `Claim ${c.claimNumber}, ${s.cptCode}: charged ${money(s.chargeCents)}, paid ${money(s.paidCents)}, but the adjustments (CAS) add up to ${money(adjusted)}, not ${money(s.chargeCents - s.paidCents)}.`);
    }
    const claimAdjusted = sum(c.adjustments.map((a) => a.amountCents));
    if (c.services.length) {
      const linesPaid = sum(c.services.map((s) => s.paidCents));
      const lines = claimAdjusted
        ? `but its service lines paid ${money(linesPaid)} less the claim's own adjustments (CAS) ${money(claimAdjusted)}, which is ${money(linesPaid - claimAdjusted)}`
        : `its service lines ${money(linesPaid)}`;
      if (linesPaid - claimAdjusted !== c.paidCents) fail(c.position, "CLP", `Claim ${c.claimNumber}: CLP04 paid ${money(c.paidCents)}, ${lines}.`);
    }
    const adjusted = claimAdjusted + sum(c.services.flatMap((s) => s.adjustments.map((a) => a.amountCents)));
    if (c.chargeCents - c.paidCents !== adjusted) fail(c.position, "CLP", `Claim ${c.claimNumber}: charged ${money(c.chargeCents)}, paid ${money(c.paidCents)}, but the adjustments (CAS) add up to ${money(adjusted)}, not ${money(c.chargeCents - c.paidCents)}.`);
  }
}
