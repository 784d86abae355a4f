import { MULTIPLIER_DECIMALS, PROVIDER_LABELS, PROVIDERS, providerType, splitModifiers, unitMultiplier, type ProviderType } from "./insurance";
import type { NoteType } from "./notes";
import { groupDigits } from "./validation";

/**
 * Prices and charges (clinical §3 billing entities and modifiers, §9 billing): the one place where a note's
 * unit price, multiplier and charges are decided. The billing table, the client_report API, claims, the
 * scrubber and reports all call `priceNote` (through `app/models/billing-prices.server.ts`, which loads the
 * insurer's services in one query). Money is integer cents; a charge is rounded once, at the end.
 */

/** A priced service as the lookup needs it (an insurance_services row). */
export interface PriceService {
  id: number;
  insuranceId: number;
  locationId: number | null;
  cptCode: string;
  /** Dash-separated, as stored. */
  modifiers: string;
  provider: string;
  type: ProviderType;
  /** Dollars as stored (REAL); converted to cents once by `centsOf`. */
  unitPrice: number;
  multiplier: number;
  maxPerDay: number | null;
}

/** Dollars (a REAL with at most 2 decimals, decision 017) to integer cents. */
export function centsOf(dollars: number): number {
  return Math.round(dollars * 100);
}

/** "1234.50" from 123450 cents; negative amounts keep their sign. For CSV, X12 and screens alike. */
export function dollarsOf(cents: number): string {
  const sign = cents < 0 ? "-" : "";
  const abs = Math.abs(Math.trunc(cents));
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

/** A stored dollar price (an insurer service's unit price or hourly fee, decision 017) for people; "" for none. */
export function dollarPrice(dollars: number | null): string {
  return dollars === null ? "" : money(centsOf(dollars));
}

/** "$1,234.50" for people. */
export function money(cents: number): string {
  const [whole, frac] = dollarsOf(Math.abs(cents)).split(".");
  return `${cents < 0 ? "-" : ""}$${groupDigits(Number(whole))}.${frac}`;
}

/**
 * A unit price with its price's multiplier when that is not 1 ("$12.99 × 1.15"; XP's 0 too), so units × this
 * reads as the charge beside it (decision 030, stop 28). The multiplier is priceNote's, as stored or answered
 * with the charge; null (a claim line built before stop 28) shows the price alone.
 */
export function unitPriceText(unitPriceCents: number, multiplier: number | null): string {
  return multiplier === null || multiplier === 1 ? money(unitPriceCents) : `${money(unitPriceCents)} × ${Number(multiplier.toFixed(8))}`;
}

/**
 * The provider whose price applies to a note: its provider's credential when known (bcba, bcaba, rbt), else the
 * note's type (an RBT note is priced as rbt, a BCBA note as bcba; a combined note as bcba, the supervising
 * analyst's session).
 */
export function pricingProvider(noteType: NoteType, credential?: string | null): string {
  const c = (credential ?? "").trim().toLowerCase();
  if (c === "bcba" || c === "bcaba" || c === "rbt") return c;
  return noteType === "rbt" ? "rbt" : "bcba";
}

/**
 * The insurer's service for a CPT, provider, location and the note's billing modifiers (the lookup of clinical §7
 * showInsuranceCpt, as a pure pick over the insurer's services): same insurer and CPT; type equal to the provider's
 * type, else "all"; a service of another location never applies. Among those, by the modifiers first (decision 030,
 * 2026-11-27 (probe 8933)), compared as sets (order-insensitive): the service with exactly the note's modifiers,
 * then one whose modifiers are a part of the note's (the most of them first: "97153 HM" for an HM GT note), then
 * one with none; a service with a modifier the note does not carry only when no other applies (the fewest such
 * first). Then the provider's own type over "all", the note's location over the insurer-wide service, the exact
 * provider (bcaba over bcba), the oldest. Null when none matches — never another CPT's price.
 */
export function pickService(
  services: readonly PriceService[],
  insurerId: number | null,
  cpt: string,
  provider: string,
  locationId: number | null,
  modifiers: readonly (string | null | undefined)[] = [],
): PriceService | null {
  if (insurerId === null) return null;
  const code = cpt.trim().toUpperCase();
  if (!code) return null;
  const type = providerType(provider);
  const p = provider.trim().toLowerCase();
  const wanted = new Set(modifiers.map((m) => (m ?? "").trim().toUpperCase()).filter(Boolean));
  let best: PriceService | null = null;
  let bestKey: number[] | null = null;
  for (const s of services) {
    if (s.insuranceId !== insurerId || s.cptCode !== code) continue;
    if (s.type !== type && s.type !== "all") continue;
    if (s.locationId !== null && s.locationId !== locationId) continue;
    const own = new Set(splitModifiers(s.modifiers).map((m) => m.toUpperCase()));
    const shared = [...own].filter((m) => wanted.has(m)).length;
    const key = [own.size - shared, -shared, s.type === type ? 0 : 1, s.locationId !== null ? 0 : 1, s.provider === p ? 0 : 1, s.id];
    if (!bestKey || lexLess(key, bestKey)) {
      best = s;
      bestKey = key;
    }
  }
  return best;
}

/**
 * A payer's services that price notes at a location, for the CPTs given (the billing header's "Insurer rate and
 * CPT", decision 030, stop 35): each service the one pick (`pickService`) chooses for a note of its CPT carrying
 * exactly its modifiers, for one of the credentials. That is every service some note there can be priced with: a
 * service not picked for its own modifiers is shadowed there whatever the note carries (by the location's own price
 * of the same code and provider, or an older twin), and is left out. By the CPTs' order, then the services' (id).
 */
export function servicesInUse(services: readonly PriceService[], insurerId: number | null, locationId: number | null, cpts: readonly string[]): PriceService[] {
  if (insurerId === null) return [];
  const codes = [...new Set(cpts.map((c) => c.trim().toUpperCase()).filter(Boolean))];
  return codes.flatMap((cpt) =>
    services
      .filter((s) => s.insuranceId === insurerId && s.cptCode === cpt && PROVIDERS.some((p) => pickService(services, insurerId, cpt, p, locationId, splitModifiers(s.modifiers)) === s))
      .sort((a, b) => a.id - b.id),
  );
}

/** The provider a service prices for, as the lookup reads it: bcba, bcaba or rbt; anything else (or none) all. */
export function serviceProvider(s: Pick<PriceService, "provider">): (typeof PROVIDERS)[number] | "all" {
  const p = s.provider.trim().toLowerCase();
  return (PROVIDERS as readonly string[]).includes(p) ? (p as (typeof PROVIDERS)[number]) : "all";
}

/** A service as the billing header names it: its CPT, the provider it is for and its modifiers ("97153 RBT HM GT"). */
export function serviceLabel(s: Pick<PriceService, "cptCode" | "provider" | "modifiers">): string {
  const p = serviceProvider(s);
  return [s.cptCode, p === "all" ? "all providers" : PROVIDER_LABELS[p], ...splitModifiers(s.modifiers).map((m) => m.toUpperCase())].join(" ");
}

/** The price lookup's answers (the insurer view's form and showInsuranceCpt, decision 030). */
export const PRICE_LOOKUP_MESSAGES = {
  none: "No price for that CPT and provider.",
  locationNotFound: "Location not found.",
  /** No insurer-wide price, but some locations have their own: name them and ask for the location. */
  perLocation: (prices: readonly { location: string; unitPrice: number; code: string }[]) =>
    `Priced per location: ${prices.map((p) => `${p.location} ${dollarPrice(p.unitPrice)} (service ${p.code})`).join("; ")}. Give the location to look up the price billing uses there.`,
} as const;

function lexLess(a: number[], b: number[]): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]!;
  return false;
}

export interface Charge {
  unitPriceCents: number;
  /** The modifiers' multiplier (XP → 0, others 1) times the service's own multiplier (default 1). */
  multiplier: number;
  chargesCents: number;
  /** With XP: what the units would have been charged without it (shown beside the charges; not billed). */
  xpCents: number;
  /** The multiplier `xpCents` is taken at: the service's own, without the modifiers' part (a claim line keeps it). */
  xpMultiplier: number;
}

const MULTIPLIER_SCALE = 10 ** MULTIPLIER_DECIMALS;

/**
 * A multiplier as a whole number of ten-thousandths (1.15 → 11500): exact, since a multiplier is entered with at
 * most MULTIPLIER_DECIMALS decimals (app/domain/insurance.ts) and the REAL it is stored as rounds back to it. A
 * stored value with more decimals (older data) counts to 4 of them; a negative or non-finite one as 0.
 */
export function multiplierScaled(multiplier: number): number {
  return Number.isFinite(multiplier) && multiplier > 0 ? Math.round(multiplier * MULTIPLIER_SCALE) : 0;
}

/** numerator ÷ denominator (> 0) to a whole number, half up (a half rounds away from zero), in integers only. */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  const q = n / denominator;
  const rounded = 2n * (n % denominator) >= denominator ? q + 1n : q;
  return negative ? -rounded : rounded;
}

/**
 * charges = units × unit price × multiplier, in cents, rounded once, half up. Exact: the multipliers are whole
 * ten-thousandths (`multiplierScaled`) and the product is taken in integers (BigInt, so a large unit count
 * cannot lose a cent either), then divided once. In floating point 1 × 1290¢ × 1.15 is 1483.4999…, which
 * rounded to 1483¢; the exact 1483.5 is 1484¢. Units and unit prices are whole numbers (notes' units, cents).
 */
export function chargeFor(units: number, unitPriceCents: number, modifiers: readonly string[], serviceMultiplier = 1): Charge {
  const modifierPart = BigInt(multiplierScaled(unitMultiplier(modifiers)));
  const servicePart = BigInt(multiplierScaled(serviceMultiplier));
  const scale = BigInt(MULTIPLIER_SCALE);
  const base = BigInt(Math.round(units)) * BigInt(Math.round(unitPriceCents));
  const hasXp = modifiers.some((m) => m.trim().toUpperCase() === "XP");
  return {
    unitPriceCents,
    // 1.15 exactly as a number (the nearest double to the ratio), for the screens and the stored record.
    multiplier: Number(modifierPart * servicePart) / MULTIPLIER_SCALE / MULTIPLIER_SCALE,
    chargesCents: Number(divideHalfUp(base * modifierPart * servicePart, scale * scale)),
    xpCents: hasXp ? Number(divideHalfUp(base * servicePart, scale)) : 0,
    xpMultiplier: Number(servicePart) / MULTIPLIER_SCALE,
  };
}

/** What a note needs to be priced. */
export interface PricedNoteFacts {
  type: NoteType;
  cptCode: string;
  units: number;
  /** The billing modifiers (RBT md/md2, BCBA mdbcba/md2bcba: the note's md and md2). */
  modifiers: readonly (string | null | undefined)[];
  locationId: number;
  /** The payer: the PA service's insurer when it names one, else the client's primary insurer. */
  insurerId: number | null;
  /**
   * The note's provider's credential (bcba, bcaba, rbt) from their roles, as `providerCredentialSql` reads it;
   * null when they hold none (or are deleted): the note's type decides then (`pricingProvider`). Required, so
   * that every caller — billing rows, the save, claims, the scrubber — prices a note with the same inputs.
   */
  providerCredential: string | null;
  /** A combined note carries its own unit price (clinical §3 unit_price): it wins over the lookup. */
  unitPriceCents?: number | null;
}

export interface NotePrice extends Charge {
  /** The service that priced it, or null (no price: charges 0, and the scrubber says why). */
  service: PriceService | null;
  modifiers: string[];
}

/** The one price function: a note's unit price, multiplier and charges. */
export function priceNote(services: readonly PriceService[], note: PricedNoteFacts): NotePrice {
  const modifiers = note.modifiers.map((m) => (m ?? "").trim().toUpperCase()).filter(Boolean);
  const service = pickService(services, note.insurerId, note.cptCode, pricingProvider(note.type, note.providerCredential), note.locationId, modifiers);
  const own = note.unitPriceCents ?? null;
  const unitPriceCents = own !== null && own > 0 ? own : service ? centsOf(service.unitPrice) : 0;
  return { service, modifiers, ...chargeFor(note.units, unitPriceCents, modifiers, service?.multiplier ?? 1) };
}

/**
 * Notes that price alike (`priceNote`'s facts but the units and own price), with how many there are: the notes a
 * price's delete would re-price, grouped by the read (decision 017, stop 40).
 */
export type PricedNoteGroup = Omit<PricedNoteFacts, "units" | "unitPriceCents"> & { n: number };

/**
 * How many of the grouped notes the service prices today: those whose price `priceNote` takes from it. The groups
 * hold only notes priced as today (no price of their own, no generated, sent or accepted claim holding its line's).
 */
export function notesPricedBy(services: readonly PriceService[], serviceId: number, groups: readonly PricedNoteGroup[]): number {
  return groups.reduce((sum, g) => (priceNote(services, { ...g, units: 0, unitPriceCents: null }).service?.id === serviceId ? sum + g.n : sum), 0);
}

/**
 * What the claim line that bills a note carries (claim_lines): its unit price, multiplier (null on lines built before
 * stop 28), charge, units and the multiplier of its notes' XP amount (null on lines built before stop 40). Read for a
 * note held by a generated, sent or accepted claim (`claimedLineOf`).
 */
export interface ClaimedLine {
  unitPriceCents: number;
  multiplier: number | null;
  chargeCents: number;
  units: number;
  xpMultiplier: number | null;
}

/**
 * A note's price while a generated, sent or accepted claim bills it (decision 030, stop 34): its claim line's unit
 * price and multiplier, and its units × those, rounded as `chargeFor` rounds — what generation charged the note (the
 * line itself is charged once for its units, decision 032, stop 40, so the notes of a line may add up to a cent or so
 * off it). A line built before stop 28 has no multiplier: the note takes its units' share of the line's charge (half
 * up; the line's charge itself when the line bills one note), and the multiplier that charge implies. The XP amount
 * (not billed) is the units × the line's unit price × the line's XP multiplier, by `chargeFor`'s rule (decision 030,
 * stop 40); a line built before stop 40 did not keep that multiplier, so today's service multiplier stands in. No
 * line: the price as it is today.
 */
export function claimedPrice(price: NotePrice, units: number, line: ClaimedLine | null): NotePrice {
  if (!line) return price;
  const xp = chargeFor(units, line.unitPriceCents, price.modifiers, line.xpMultiplier ?? price.xpMultiplier);
  const claimedXp = { xpCents: xp.xpCents, xpMultiplier: xp.xpMultiplier };
  if (line.multiplier !== null) {
    const { multiplier, chargesCents } = chargeFor(units, line.unitPriceCents, [], line.multiplier);
    return { ...price, unitPriceCents: line.unitPriceCents, multiplier, chargesCents, ...claimedXp };
  }
  const base = line.units * line.unitPriceCents;
  return {
    ...price,
    ...claimedXp,
    unitPriceCents: line.unitPriceCents,
    multiplier: base > 0 ? line.chargeCents / base : 1,
    chargesCents: line.units > 0 ? Number(divideHalfUp(BigInt(line.chargeCents) * BigInt(Math.round(units)), BigInt(line.units))) : 0,
  };
}

/** The payer of a note: the PA service's insurer when set, else the client's primary insurer. */
export function notePayer(paServiceInsurerId: number | null | undefined, patientInsurerId: number | null | undefined): number | null {
  return paServiceInsurerId ?? patientInsurerId ?? null;
}

/** Modifiers as stored on a service: dash-separated. */
export { splitModifiers };

/** 4 units = 1 hour (clinical §9). Hours of a number of minutes, to 2 decimals, as shown. */
export function hoursOf(minutes: number): number {
  return Math.round((minutes / 60) * 100) / 100;
}
