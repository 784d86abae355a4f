import { centsOf, claimedPrice, notePayer, priceNote, pricingProvider, unitPriceText, type ClaimedLine, type NotePrice, type PriceService } from "./billing";
import { claimParties, profileDiagnoses, renderingProvider, type PartyRows } from "./claim-parties";
import { complianceState, COMPLIANCE_FIELDS, type ComplianceKey } from "./employees";
import { modifierFits, modifierRefusal, NOTE_KIND, providerType, serviceCode, splitModifiers } from "./insurance";
import { posLabel } from "./locations";
import { unitsLeftText } from "./pa-pacing";
import { overlaps, zoneShift, type Interval } from "./note-rules";
import type { NoteType } from "./notes";
import { dayNumber } from "./weeks";
import { billingProviderIssues, claimDiagnoses, diagnosisIssues, diagnosisKey, payerIssues, referringProviderIssues, relatedCausesIssues, renderingProviderIssues, serviceLineIssues, subscriberIssues, type ClaimIssue } from "./x12-837p";

/**
 * The pre-billing scrubber (issue 11, decision 034): from the plain facts of a note — its client, payer, the
 * payer's services, its provider's credential and compliance dates, its PA service and the other notes of the
 * same day — the reasons a claim for it would fail, each a sentence a biller can act on. Pure: the facts are
 * read by app/models/scrubber.server.ts. A note with no reason may be billed; one with any reason may not.
 */

export const SCRUB_CODES = [
  "unsigned",
  "no_provider",
  "no_supervisor",
  "missing_diagnosis",
  "missing_pos",
  "no_units",
  "pos_not_allowed",
  "pos_not_covered",
  "credential_expired",
  "compliance_expired",
  "no_pa",
  "pa_other_client",
  "pa_out_of_dates",
  "pa_other_cpt",
  "pa_exhausted",
  "client_overlap",
  "provider_overlap",
  "no_payer",
  "payer_not_primary",
  "no_price",
  "modifier_misfit",
  "price_for_other_modifier",
  "zero_charge",
  "above_max_per_day",
  // The note's own service line (the 837P's line checks, app/domain/x12-837p.ts): what the claim would be refused for.
  "invalid_cpt",
  "invalid_session_date",
  "invalid_pos",
  "invalid_pa_number",
  // The claim's parties (the 837P's own checks, app/domain/x12-837p.ts): what the claim would be refused for.
  "location_npi",
  "location_tax_id",
  "location_zip",
  "location_details",
  "member_id",
  "subscriber_details",
  "client_details",
  "payer_id",
  "payer_details",
  "provider_npi",
  "provider_name",
  "auto_accident_state",
  "referring_provider",
  "invalid_diagnosis",
] as const;
export type ScrubCode = (typeof SCRUB_CODES)[number];

export interface ScrubReason {
  code: ScrubCode;
  message: string;
}

/** The report covers at most this many days (one location's month of notes is read at once). */
export const SCRUB_MAX_DAYS = 31;

/** Caregiver training CPTs (97156 with the caregiver, 97157 multi-family group): their POS list is pos_allowed_to_cg. */
export const CAREGIVER_CPTS: readonly string[] = ["97156", "97157"];

/**
 * The compliance dates (platform §3) a payer checks on the date of service. BACB license is the credential
 * (its own reason); the others are the dates whose lapse makes a session unbillable for most payers. Driver
 * license, work authorisation, E-Verify and CEU dates are HR matters that do not void a claim.
 */
export const CREDENTIAL_DATE: ComplianceKey = "bacb_license_expiration";
export const BILLING_COMPLIANCE_DATES: readonly ComplianceKey[] = ["medicaid_provider_expiration", "liability_insurance_annually", "background_every_5_years", "cpr_every_2_years"];

export interface ScrubNoteFacts {
  id: number;
  type: NoteType;
  patientId: number;
  locationId: number;
  cptCode: string;
  diagnosisCode: string;
  pos: string;
  sessionDate: string;
  /** Minutes of both time pairs (notes.minutes); units = unitsForMinutes(minutes). */
  minutes: number;
  units: number;
  signedAt: string | null;
  providerId: number | null;
  /** notes.supervisor_id: the rendering provider when the payer bills under the supervisor (renderingProvider). */
  supervisorId?: number | null;
  /** md and md2: the billing modifiers. */
  modifiers: readonly (string | null | undefined)[];
  /**
   * The PA number saved on the note's billing record (client_reports.pa_number), null when none: the claim line's
   * prior authorization number (REF*G1), else the PA service's own text (decision 032).
   */
  paNumber?: string | null;
  unitPriceCents: number | null;
  /** The note's time pairs (local minutes, end exclusive). */
  pairs: readonly Interval[];
  /** Its location's UTC offset at the session (notes.utc_offset; null: written before offsets were kept). */
  utcOffset?: number | null;
  /**
   * The line of the generated, sent or accepted claim that bills the note (claimedLineOf), null when none: such a
   * note is judged at the line's price, as the billing rows show it (claimedPrice, decision 030).
   */
  claimedLine?: ClaimedLine | null;
}

export interface ScrubClientFacts {
  insurerId: number | null;
  /** The client's own diagnosis code (details.diagnosis_code): a note without one uses it on the claim. */
  diagnosisCode: string;
  /** details.pos_covered; empty: not restricted. */
  posCovered: readonly string[];
}

export interface ScrubInsurerFacts {
  id: number;
  name: string;
  posAllowedToCg: readonly string[];
  posAllowedToTt: readonly string[];
  extraPosForBcba: readonly string[];
  /** uses_supervisor_as_provider: an RBT's note is billed under its supervisor (renderingProvider). */
  usesSupervisorAsProvider?: boolean;
}

export interface ScrubProviderFacts {
  name: string;
  /** bcba, bcaba or rbt (the provider's role), or null: the note's type decides (pricingProvider). */
  credential: string | null;
  /** The compliance dates of the provider's entry at the note's location (YYYY-MM-DD or missing). */
  compliance: Readonly<Record<string, string | null | undefined>>;
}

export interface ScrubPaFacts {
  id: number;
  patientId: number;
  name: string;
  cpt: string;
  nUnits: number;
  startDate: string;
  endDate: string;
  insuranceId: number | null;
  /** Units of the PA service's other live notes ordered before this one (session date, start, id). */
  unitsBefore: number;
}

export interface ScrubOtherNote {
  id: number;
  /** Its location: a note of another location is not named by number (the biller may not see it). */
  locationId?: number;
  cptCode: string;
  units: number;
  pairs: readonly Interval[];
  /** Its location's UTC offset (as ScrubNoteFacts.utcOffset). */
  utcOffset?: number | null;
}

export interface ScrubFacts {
  note: ScrubNoteFacts;
  client: ScrubClientFacts;
  /** The payer (the PA service's insurer, else the client's primary), null when unknown or deleted. */
  insurer: ScrubInsurerFacts | null;
  /** The payer's services (priceServicesQuery). */
  services: readonly PriceService[];
  /** Null when the note names no provider (or the user is gone). */
  provider: ScrubProviderFacts | null;
  /** Null when the note has no PA service (or it was deleted). */
  pa: ScrubPaFacts | null;
  /** The client's other live notes of the same session date. */
  clientSameDay: readonly ScrubOtherNote[];
  /** The provider's other live notes that may overlap (any client). */
  providerNearby: readonly ScrubOtherNote[];
  /** The records of the claim's parties, as the claims model reads them (claimParties): location, client, the note's provider, payer. */
  parties: PartyRows;
  /** The note's supervisor's record (their name and NPI), null when the note names none or they were deleted. */
  supervisor?: PartyRows["provider"];
}

/**
 * The scrubber's code for a claim check's field (the first prefix that matches): the 837P validator's party checks
 * name the field they refuse, the scrubber lists them under stable codes.
 */
const PARTY_CODES: readonly (readonly [field: string, code: ScrubCode])[] = [
  ["billing.npi", "location_npi"],
  ["billing.tax_id", "location_tax_id"],
  ["billing.zip", "location_zip"],
  ["billing.", "location_details"],
  ["subscriber.member_id", "member_id"],
  ["subscriber.", "subscriber_details"],
  ["patient.", "client_details"],
  ["payer.payer_id", "payer_id"],
  ["payer.", "payer_details"],
  ["rendering.npi", "provider_npi"],
  ["rendering.", "provider_name"],
  ["related_causes.auto_accident", "auto_accident_state"],
  ["referring.", "referring_provider"],
  ["diagnosis", "invalid_diagnosis"],
];

/** The rendering provider of the note's claim (renderingProvider, the one rule), from the note's facts. */
function renderingOf(f: ScrubFacts) {
  const note = { type: f.note.type, providerCredential: f.provider?.credential ?? null, providerId: f.note.providerId, supervisorId: f.note.supervisorId ?? null };
  return renderingProvider(note, f.insurer?.usesSupervisorAsProvider ?? false, { provider: f.parties.provider, supervisor: f.supervisor ?? null });
}

/**
 * What the 837P validator would refuse about the note's claim parties: the location (billing provider), the
 * subscriber and client (with CLM11's causes and the referring provider of the client's profile), the payer and the
 * rendering provider (the note's, or its supervisor: renderingProvider), and the diagnoses the note's own claim would
 * carry (HI's one rule, `claimDiagnoses`: the note's code, then the client's profile codes while there is room; every
 * profile code that a claim with this note carries is among them). A missing provider, supervisor, payer or diagnosis
 * is its own reason above (no_provider, no_supervisor, no_payer, missing_diagnosis), so those parties are checked only
 * when present.
 */
function partyReasons(f: ScrubFacts, rendering: Rendering, memo: PartyMemo | undefined): ScrubReason[] {
  const p = claimParties({ ...f.parties, provider: rendering.record });
  // The supervisor's issues say why the supervisor is checked on an RBT's note.
  const renderer = () => renderingProviderIssues(p.renderingProvider).map((i) => (rendering.bySupervisor ? { ...i, message: `${underSupervisor(f)}: ${i.message}` } : i));
  const diagnoses = claimDiagnoses([[f.note.diagnosisCode]], profileDiagnoses(f.parties.patient.details));
  // Each party checked once per scrub (PartyMemo), keyed by what its check reads.
  const once = (what: string, of: unknown, check: () => ClaimIssue[]): ClaimIssue[] => {
    if (!memo) return check();
    const key = what + JSON.stringify(of);
    let issues = memo.get(key);
    if (!issues) memo.set(key, (issues = check()));
    return issues;
  };
  const issues: ClaimIssue[] = [
    ...once("billing", p.billingProvider, () => billingProviderIssues(p.billingProvider)),
    ...once("subscriber", [p.subscriber, p.patient], () => subscriberIssues(p.subscriber, p.patient)),
    ...(f.insurer ? once("payer", p.payer, () => payerIssues(p.payer)) : []),
    ...(rendering.record && (rendering.bySupervisor || f.provider) ? once("rendering", [p.renderingProvider, rendering.bySupervisor && f.insurer?.name], renderer) : []),
    ...once("profile claim data", [p.relatedCauses, p.referringProvider], () => [...relatedCausesIssues(p.relatedCauses), ...referringProviderIssues(p.referringProvider)]),
    ...(diagnoses.length ? once("diagnoses", diagnoses, () => diagnosisIssues(diagnoses)) : []),
  ];
  return issues.map((i) => ({ code: PARTY_CODES.find(([field]) => i.field.startsWith(field))![1], message: i.message }));
}

/**
 * The claim parties' checks of many notes scrubbed together (a billing page, a month's report): a page's notes
 * share their client, location and payer and a few providers, so each party is checked once. Keyed by the party
 * each check reads; one memo per scrub, never kept between requests.
 */
export type PartyMemo = Map<string, ClaimIssue[]>;

const partyRule = (code: ScrubCode) => ({ code, rule: ((_f, d) => d.parties.filter((r) => r.code === code)) as Rule });

/**
 * The scrubber's code for a service line check's field (serviceLineIssues), or null for the checks another rule
 * already names with its own cause: units (no_units), the $0 charge (no_price, zero_charge) and the modifiers
 * (modifier_misfit: every code of the modifiers table is 2 letters or digits, so a code of another shape is not in
 * it; a note has two billing modifiers, never more than 4).
 */
const LINE_CODES: Readonly<Record<string, ScrubCode | null>> = {
  cpt: "invalid_cpt",
  date: "invalid_session_date",
  pos: "invalid_pos",
  pa_number: "invalid_pa_number",
  units: null,
  charge: null,
  modifiers: null,
};

/**
 * What the 837P validator would refuse about the note's own service line: the line the claim builder makes of it
 * alone (groupClaims: CPT upper-case, the session date, the price's modifiers and charge, the POS, the PA number).
 * A missing POS is missing_pos.
 */
function lineReasons(f: ScrubFacts, price: NotePrice): ScrubReason[] {
  const cpt = f.note.cptCode.trim().toUpperCase();
  const record = f.note.paNumber?.trim() || null;
  const paNumber = record ?? f.pa?.name ?? null;
  const paLabel = record ? "the PA number saved on its billing record" : `the prior authorization number (the name of PA service '${paNumber}', sent when the billing record has no PA number: edit it on the client's PA services)`;
  const issues = serviceLineIssues(
    { serviceDate: f.note.sessionDate, cptCode: cpt, modifiers: price.modifiers.slice(0, 4), units: f.note.units, chargeCents: price.chargesCents, pos: f.note.pos, paNumber },
    `The claim line of this note (${cpt || "no CPT"} on ${f.note.sessionDate})`,
    "line",
    paLabel,
  );
  return issues.flatMap((i) => {
    const code = LINE_CODES[i.field.slice("line.".length)];
    if (!code || (code === "invalid_pos" && !f.note.pos.trim())) return [];
    return [{ code, message: i.message }];
  });
}

const lineRule = (code: ScrubCode) => ({ code, rule: ((_f, d) => d.line.filter((r) => r.code === code)) as Rule });

/**
 * The price came from pickService's last choice (decision 030): a service for a modifier the note lacks, since the
 * payer has no price with the note's modifiers or fewer. Null when the service's modifiers are all the note's, and
 * for a note priced by its own unit price (a combined note's: the service gives only its multiplier, whose $0 is
 * zero_charge).
 */
function otherModifierPrice(f: ScrubFacts, price: NotePrice): ScrubReason | null {
  const s = price.service;
  if (!s || (f.note.unitPriceCents ?? 0) > 0) return null;
  const own = splitModifiers(s.modifiers).map((m) => m.toUpperCase());
  const lacking = own.filter((m) => !price.modifiers.includes(m));
  if (!lacking.length) return null;
  const payer = f.insurer?.name ?? "The payer";
  const cpt = s.cptCode;
  const them = lacking.join(" and ");
  const plural = lacking.length > 1;
  const provider = pricingProvider(f.note.type, f.provider?.credential ?? null);
  const withNote = `${price.modifiers.length ? `with only ${price.modifiers.join(" and ")}` : "without modifiers"} for ${credentialLabel(provider)} providers`;
  const service = `${payer}'s price for this note is its service ${serviceCode(cpt, own)} (${unitPriceText(centsOf(s.unitPrice), s.multiplier)}), a price for modifier${plural ? "s" : ""} ${them}`;
  const addPrice = `add a price for CPT ${cpt} ${withNote} on ${payer}'s services`;
  // Advice the billing row can follow (probe 8984 §L2): a modifier of the other provider type (a BCBA's HO on an RBT
  // note written by a BCBA), or more than the row's modifier slots, cannot be added there; only a price can help.
  const misfit = lacking.filter((m) => !modifierFits(m, f.note.type));
  const noRoom = price.modifiers.length + lacking.length > f.note.modifiers.length;
  if (misfit.length || noRoom) {
    const cannot = misfit.length ? `${NOTE_KIND[f.note.type]} cannot carry ${misfit.join(" and ")}` : `the note's billing row has room for ${f.note.modifiers.length} modifiers`;
    return { code: "price_for_other_modifier", message: `${service}, which this note lacks and ${cannot}: ${payer} has no price for CPT ${cpt} ${withNote}. ${addPrice[0]!.toUpperCase()}${addPrice.slice(1)}.` };
  }
  return { code: "price_for_other_modifier", message: `${service}, which this note lacks: ${payer} has no price for CPT ${cpt} ${withNote}. Add ${them} to the note's modifiers on its billing row, or ${addPrice}.` };
}

const CREDENTIAL_LABEL: Record<string, string> = { bcba: "BCBA", bcaba: "BCaBA", rbt: "RBT" };
/** A provider type as users write it: BCBA, BCaBA, RBT; "all" and others upper-cased. */
const credentialLabel = (provider: string) => CREDENTIAL_LABEL[provider] ?? provider.toUpperCase();
const complianceLabel = (key: ComplianceKey) => COMPLIANCE_FIELDS.find(([k]) => k === key)![1];
const posText = (pos: string) => (posLabel(pos) === pos ? `POS ${pos}` : `POS ${pos} (${posLabel(pos)})`);

/** Comma- or array-stored code lists, trimmed, without empties. */
export function codeList(stored: unknown): string[] {
  const parts = Array.isArray(stored) ? stored.map(String) : typeof stored === "string" ? stored.split(",") : [];
  return parts.map((s) => s.trim()).filter(Boolean);
}

/**
 * The POS codes the payer allows for a note, or null for no restriction (decision 034): caregiver training
 * (97156, 97157) → pos_allowed_to_cg; an RBT's service → pos_allowed_to_tt (technicians); a BCBA's or BCaBA's →
 * pos_allowed_to_tt plus extra_pos_for_bcba. An empty list restricts nothing.
 */
export function allowedPos(insurer: ScrubInsurerFacts, cpt: string, provider: "bcba" | "rbt" | "all"): { codes: string[]; what: string } | null {
  if (CAREGIVER_CPTS.includes(cpt)) return insurer.posAllowedToCg.length ? { codes: [...insurer.posAllowedToCg], what: `caregiver training (${cpt})` } : null;
  if (!insurer.posAllowedToTt.length) return null;
  if (provider === "rbt") return { codes: [...insurer.posAllowedToTt], what: "RBT services" };
  return { codes: [...new Set([...insurer.posAllowedToTt, ...insurer.extraPosForBcba])], what: "BCBA services" };
}

/**
 * The first other note one of whose pairs overlaps one of mine. Each other note is first moved onto my clock
 * (zoneShift with my `utcOffset`, the notes' rule; decision 024), so moments are compared: a provider's notes in
 * other zones, and a client's notes on the two offsets of a daylight-saving night (stop 32).
 */
function overlapping(mine: readonly Interval[], others: readonly ScrubOtherNote[], selfId: number, utcOffset: number | null = null): ScrubOtherNote | null {
  for (const o of others) {
    if (o.id === selfId) continue;
    const shift = zoneShift(utcOffset, o.utcOffset);
    if (o.pairs.some((p) => mine.some((m) => overlaps(m, { start: p.start + shift, end: p.end + shift })))) return o;
  }
  return null;
}

/**
 * Why a note has no units, truthfully for each cause: a unit needs 8 minutes or more (unitsForMinutes), so a
 * session of 1 to 7 minutes has none; a note with no minutes has no session time; a stored 0 beside 8 minutes
 * or more (old or imported rows) is named as such.
 */
function noUnitsMessage(minutes: number): string {
  if (!(minutes > 0)) return "No units to bill: the note has no session minutes.";
  if (minutes < 8) return `No units to bill: the session is ${minutes} minute${minutes === 1 ? "" : "s"} long, shorter than the 8 minutes a unit needs.`;
  return `No units to bill: the note records 0 units for its ${minutes} minutes.`;
}

type Rule = (f: ScrubFacts, derived: Derived) => ScrubReason | ScrubReason[] | null;

type Rendering = ReturnType<typeof renderingOf>;

/** Why the supervisor is this note's rendering provider: "Acme bills an RBT's sessions under the supervising BCBA …". */
function underSupervisor(f: ScrubFacts): string {
  return `${f.insurer?.name ?? "The payer"} bills an RBT's sessions under the supervising BCBA ("Uses the supervisor as provider" on the insurer's page), so the claim names the note's supervisor as the rendering provider`;
}

interface Derived {
  provider: string;
  payer: number | null;
  service: PriceService | null;
  /** The note's price (priceNote): the unit price and charge a claim would carry, and whether XP makes it $0 by design. */
  unitPriceCents: number;
  chargesCents: number;
  multiplier: number;
  xp: boolean;
  /** A generated, sent or accepted claim bills the note: its price is the claim line's (ScrubNoteFacts.claimedLine). */
  claimed: boolean;
  /** The claim's rendering provider (renderingOf): the note's provider, or its supervisor. */
  rendering: Rendering;
  /** The claim parties' reasons (partyReasons), each listed by its code's rule. */
  parties: ScrubReason[];
  /** The note's service line's reasons (lineReasons), each listed by its code's rule. */
  line: ScrubReason[];
  /** The price came from a service for a modifier the note lacks (otherModifierPrice). */
  otherModifier: ScrubReason | null;
}

/**
 * The rules, in the order their reasons are listed. Each answers null when the note passes it.
 */
export const SCRUB_RULES: readonly { code: ScrubCode; rule: Rule }[] = [
  { code: "unsigned", rule: (f) => (f.note.signedAt ? null : { code: "unsigned", message: "Note is not signed by the provider." }) },
  { code: "no_provider", rule: (f) => (f.provider ? null : { code: "no_provider", message: "Note has no rendering provider." }) },
  {
    // The payer bills an RBT's note under its supervisor (renderingProvider), and there is none to name (probe 8981 §4).
    code: "no_supervisor",
    rule: (f, d) => {
      if (!d.rendering.bySupervisor || d.rendering.record) return null;
      const none = f.note.supervisorId == null ? "this note names no supervisor" : "this note's supervisor was deleted";
      return { code: "no_supervisor", message: `${underSupervisor(f)}, and ${none}. Choose the BCBA who supervised the session as the note's supervisor (on a signed note, by an amendment).` };
    },
  },
  {
    code: "missing_diagnosis",
    // A code of dots alone is no code to a claim (diagnosisKey): stored before the entry rule refused it (probe 8975 §1).
    rule: (f) => (diagnosisKey(f.note.diagnosisCode) || diagnosisKey(f.client.diagnosisCode) ? null : { code: "missing_diagnosis", message: "Diagnosis code is missing on the note and the client." }),
  },
  { code: "missing_pos", rule: (f) => (f.note.pos.trim() ? null : { code: "missing_pos", message: "Place of service (POS) is missing." }) },
  { code: "no_units", rule: (f) => (f.note.units > 0 ? null : { code: "no_units", message: noUnitsMessage(f.note.minutes) }) },
  {
    code: "pos_not_allowed",
    rule: (f, d) => {
      const pos = f.note.pos.trim();
      if (!pos || !f.insurer) return null;
      const allowed = allowedPos(f.insurer, f.note.cptCode.trim(), providerType(d.provider));
      if (!allowed || allowed.codes.includes(pos)) return null;
      return { code: "pos_not_allowed", message: `${posText(pos)} is not allowed by ${f.insurer.name} for ${allowed.what} (allowed: ${allowed.codes.join(", ")}).` };
    },
  },
  {
    code: "pos_not_covered",
    rule: (f) => {
      const pos = f.note.pos.trim();
      if (!pos || !f.client.posCovered.length || f.client.posCovered.includes(pos)) return null;
      return { code: "pos_not_covered", message: `${posText(pos)} is not covered for this client (covered: ${f.client.posCovered.join(", ")}).` };
    },
  },
  {
    code: "credential_expired",
    rule: (f, d) => {
      if (!f.provider) return null;
      const date = f.provider.compliance[CREDENTIAL_DATE];
      if (complianceState(date, f.note.sessionDate) !== "expired") return null;
      const cred = CREDENTIAL_LABEL[d.provider] ?? "";
      return { code: "credential_expired", message: `BACB license${cred ? ` (${cred})` : ""} of ${f.provider.name} expired on ${date!.slice(0, 10)}, before the session date ${f.note.sessionDate}.` };
    },
  },
  {
    code: "compliance_expired",
    rule: (f) => {
      if (!f.provider) return null;
      const out: ScrubReason[] = [];
      for (const key of BILLING_COMPLIANCE_DATES) {
        const date = f.provider.compliance[key];
        if (complianceState(date, f.note.sessionDate) === "expired") {
          out.push({ code: "compliance_expired", message: `${complianceLabel(key)} of ${f.provider.name} expired on ${date!.slice(0, 10)}, before the session date ${f.note.sessionDate}.` });
        }
      }
      return out;
    },
  },
  { code: "no_pa", rule: (f) => (f.pa ? null : { code: "no_pa", message: "Note has no prior authorization (PA service)." }) },
  {
    code: "pa_other_client",
    rule: (f) => (f.pa && f.pa.patientId !== f.note.patientId ? { code: "pa_other_client", message: `PA '${f.pa.name}' belongs to another client.` } : null),
  },
  {
    code: "pa_out_of_dates",
    rule: (f) => {
      if (!f.pa) return null;
      const d = dayNumber(f.note.sessionDate);
      const s = dayNumber(f.pa.startDate);
      const e = dayNumber(f.pa.endDate);
      if (d === null || s === null || e === null) return { code: "pa_out_of_dates", message: `PA '${f.pa.name}' has no valid dates.` };
      if (d > e) return { code: "pa_out_of_dates", message: `PA '${f.pa.name}' expired on ${f.pa.endDate}, before the session date ${f.note.sessionDate}.` };
      if (d < s) return { code: "pa_out_of_dates", message: `PA '${f.pa.name}' starts on ${f.pa.startDate}, after the session date ${f.note.sessionDate}.` };
      return null;
    },
  },
  {
    code: "pa_other_cpt",
    rule: (f) => {
      if (!f.pa) return null;
      const cpt = f.note.cptCode.trim().toUpperCase();
      return f.pa.cpt.trim().toUpperCase() === cpt ? null : { code: "pa_other_cpt", message: `PA '${f.pa.name}' covers CPT ${f.pa.cpt}, not ${cpt || "(none)"}.` };
    },
  },
  {
    code: "pa_exhausted",
    rule: (f) => {
      if (!f.pa) return null;
      const left = f.pa.nUnits - f.pa.unitsBefore;
      if (f.note.units <= left) return null;
      return { code: "pa_exhausted", message: `PA '${f.pa.name}' ran out: ${unitsLeftText(left, f.pa.nUnits)}, and this session needs ${f.note.units}.` };
    },
  },
  {
    code: "client_overlap",
    rule: (f) => {
      const o = overlapping(f.note.pairs, f.clientSameDay, f.note.id, f.note.utcOffset ?? null);
      return o ? { code: "client_overlap", message: `Session overlaps the client's note #${o.id} on ${f.note.sessionDate}.` } : null;
    },
  },
  {
    code: "provider_overlap",
    rule: (f) => {
      if (!f.provider) return null;
      const o = overlapping(f.note.pairs, f.providerNearby, f.note.id, f.note.utcOffset ?? null);
      if (!o) return null;
      const elsewhere = o.locationId !== undefined && o.locationId !== f.note.locationId;
      return { code: "provider_overlap", message: elsewhere ? `Session overlaps a note of the same provider, ${f.provider.name}, at another location.` : `Session overlaps note #${o.id} of the same provider, ${f.provider.name}.` };
    },
  },
  {
    code: "no_payer",
    rule: (f, d) => (d.payer !== null && f.insurer ? null : { code: "no_payer", message: "No payer: neither the PA service nor the client names an insurer." }),
  },
  {
    // A claim's subscriber is the client's primary insurance (its member id and group; SBR01 = P, no other payer's
    // loops), so a claim to another insurer would reach it with an id it never issued (probe 8981 §1, decision 032).
    code: "payer_not_primary",
    rule: (f, d) => {
      if (d.payer === null || !f.insurer || d.payer === f.client.insurerId) return null;
      const pa = f.pa ? `PA service '${f.pa.name}'` : "PA service";
      const primary = f.client.insurerId === null ? "the client has no primary insurer" : "that is not the client's primary insurer";
      return {
        code: "payer_not_primary",
        message: `The ${pa} is with ${f.insurer.name}, but ${primary}: a claim carries the primary insurance's member id and goes out as the primary claim, so ${f.insurer.name} would receive another insurance's member id. Make ${f.insurer.name} the client's primary insurer (with its member id), or give the PA service the client's primary insurer.`,
      };
    },
  },
  {
    code: "no_price",
    rule: (f, d) => {
      if (d.payer === null || !f.insurer || d.service || d.claimed) return null;
      const cpt = f.note.cptCode.trim().toUpperCase() || "(none)";
      return { code: "no_price", message: `${f.insurer.name} has no price for CPT ${cpt} for ${credentialLabel(d.provider)} providers.` };
    },
  },
  {
    // A modifier of another provider type (an RBT's XP on a BCBA note makes its charge $0) or one given twice: the
    // writers refuse them (modifierRefusal), so only a note stored before that rule has one.
    code: "modifier_misfit",
    rule: (f) => {
      const bad = modifierRefusal(f.note.type, f.note.modifiers.map((code, i) => ({ field: i === 0 ? "md" : `md${i + 1}`, code: code?.trim().toUpperCase() || null })));
      return bad ? { code: "modifier_misfit", message: bad.message } : null;
    },
  },
  { code: "price_for_other_modifier", rule: (_f, d) => d.otherModifier },
  {
    // A price that makes the charge $0 (a $0 unit price, a multiplier of 0 without XP, or one so small that the
    // charge rounds to $0): the 837P check refuses such a line ("the charge is $0"), so the scrubber names it first,
    // with its actual cause. XP is $0 by design; no units is no_units.
    code: "zero_charge",
    rule: (f, d) => {
      if (f.note.units <= 0 || d.xp || d.chargesCents > 0 || d.claimed || (!d.service && !(f.note.unitPriceCents && f.note.unitPriceCents > 0))) return null;
      const cpt = f.note.cptCode.trim().toUpperCase() || "(none)";
      const units = `${f.note.units} unit${f.note.units === 1 ? "" : "s"}`;
      const payer = f.insurer?.name ?? "the payer";
      // A note's own price (a combined note's) is the charge's unit price when set; the multiplier is always the service's.
      const own = f.note.unitPriceCents != null && f.note.unitPriceCents > 0;
      if (own && d.multiplier === 0) return { code: "zero_charge", message: `The charge is $0: ${payer}'s multiplier for CPT ${cpt} is 0. Set a multiplier on the insurer's services.` };
      const rounds = `${unitPriceText(d.unitPriceCents, d.multiplier)} rounds to $0.00 for ${units}`;
      if (own) return { code: "zero_charge", message: `The charge is $0: this note's own unit price for CPT ${cpt} (${rounds}). Raise the note's unit price or the multiplier on ${payer}'s services.` };
      const why = d.multiplier === 0 ? "its multiplier is 0" : d.unitPriceCents === 0 ? "its unit price is $0.00" : rounds;
      return { code: "zero_charge", message: `The charge is $0: ${payer}'s price for CPT ${cpt} (${why}). Set a price on the insurer's services.` };
    },
  },
  {
    code: "above_max_per_day",
    rule: (f, d) => {
      const max = d.service?.maxPerDay;
      if (max == null || max <= 0) return null;
      const cpt = f.note.cptCode.trim().toUpperCase();
      const others = f.clientSameDay.filter((o) => o.id !== f.note.id && o.cptCode.trim().toUpperCase() === cpt).reduce((s, o) => s + o.units, 0);
      const total = others + f.note.units;
      if (total <= max) return null;
      return { code: "above_max_per_day", message: `${total} units of CPT ${cpt} on ${f.note.sessionDate} for this client, above ${f.insurer?.name ?? "the payer"}'s maximum of ${max} a day.` };
    },
  },
  ...(["invalid_cpt", "invalid_session_date", "invalid_pos", "invalid_pa_number"] as const).map(lineRule),
  ...PARTY_CODES.map(([, code]) => partyRule(code)),
];

/** The reasons a note cannot be billed; empty when it can. `memo`: shared by the notes of one scrub (PartyMemo). */
export function scrubNote(f: ScrubFacts, memo?: PartyMemo): ScrubReason[] {
  const provider = pricingProvider(f.note.type, f.provider?.credential ?? null);
  const payer = notePayer(f.pa?.insuranceId ?? null, f.client.insurerId);
  const today = priceNote(f.services, {
    type: f.note.type,
    cptCode: f.note.cptCode,
    units: f.note.units,
    modifiers: f.note.modifiers,
    locationId: f.note.locationId,
    insurerId: payer,
    providerCredential: f.provider?.credential ?? null,
    unitPriceCents: f.note.unitPriceCents,
  });
  // A claimed note's price is its claim line's: the payer's price rules (no price, a $0 charge, a price for
  // another modifier) judge what a claim would carry, and this one's is carried already (stop 35).
  const claimed = f.note.claimedLine ?? null;
  const price = claimedPrice(today, f.note.units, claimed);
  const rendering = renderingOf(f);
  const derived: Derived = {
    provider,
    payer,
    service: price.service,
    unitPriceCents: price.unitPriceCents,
    chargesCents: price.chargesCents,
    multiplier: price.multiplier,
    xp: price.modifiers.includes("XP"),
    claimed: claimed !== null,
    rendering,
    parties: partyReasons(f, rendering, memo),
    line: lineReasons(f, price),
    otherModifier: claimed ? null : otherModifierPrice(f, price),
  };
  const reasons: ScrubReason[] = [];
  for (const { rule } of SCRUB_RULES) {
    const r = rule(f, derived);
    if (!r) continue;
    if (Array.isArray(r)) reasons.push(...r);
    else reasons.push(r);
  }
  // A combined note's own unit price is a price: no "no price" reason for it.
  return !price.service && price.unitPriceCents > 0 ? reasons.filter((r) => r.code !== "no_price") : reasons;
}

/** One sentence for a refusal: "Cannot bill this note: A. B." */
export function unbillableMessage(reasons: readonly ScrubReason[]): string {
  return `Cannot bill this note: ${reasons.map((r) => r.message).join(" ")}`;
}
