import * as v from "valibot";
import { choiceList, flag, numberOrNull, optionalId, optionalInt, optionalLine, optionalMoney, optionalNumber, optionalState, optionalText, optionalZip, requiredLine } from "./fields";
import { POS_CODE_VALUES } from "./locations";
import { hasAtMostDecimals, MAX_MONEY, searchText, type SetElsewhere } from "./validation";
import type { NoteType } from "./notes";

/** Insurers, their CPT services and unit multipliers (clinical §3 billing and insurance entities, §9). Pure. */

export type ProviderType = "bcba" | "rbt" | "all";

export interface Modifier {
  code: string;
  meaning: string;
  type: ProviderType;
  multiplier: number;
}

/** The modifiers table, exactly as clinical §3 lists it. */
export const MODIFIERS = [
  { code: "HM", meaning: "RBT", type: "rbt", multiplier: 1 },
  { code: "XE", meaning: "2 sessions same day, same provider, different POS", type: "all", multiplier: 1 },
  { code: "XP", meaning: "RBT overlap, not reimbursed", type: "rbt", multiplier: 0 },
  { code: "HO", meaning: "BCBA", type: "bcba", multiplier: 1 },
  { code: "GT", meaning: "Telehealth", type: "all", multiplier: 1 },
  { code: "TS", meaning: "Reassessment", type: "all", multiplier: 1 },
  { code: "95", meaning: "Telehealth, only for one named insurer", type: "all", multiplier: 1 },
] as const satisfies readonly Modifier[];
export type ModifierCode = (typeof MODIFIERS)[number]["code"];
export const MODIFIER_CODES = MODIFIERS.map((m) => m.code) as ModifierCode[];

export function modifierInfo(code: string): Modifier | null {
  return MODIFIERS.find((m) => m.code === code.trim().toUpperCase()) ?? null;
}

/**
 * The modifier type a note's modifiers must fit (clinical §3's Type column): an RBT note's are rbt, a BCBA or
 * combined note's bcba (a combined note is "like the BCBA note" and has the BCBA billing fields; decision 030).
 */
export function noteModifierType(noteType: NoteType): "rbt" | "bcba" {
  return noteType === "rbt" ? "rbt" : "bcba";
}

/** A modifier fits a note when its type is the note's modifier type or "all"; an unknown code fits nothing. */
export function modifierFits(code: string, noteType: NoteType): boolean {
  const m = modifierInfo(code);
  return m !== null && (m.type === "all" || m.type === noteModifierType(noteType));
}

/** The modifiers that fit a note of this type, in the table's order. */
export function fittingModifiers(noteType: NoteType): Modifier[] {
  return MODIFIERS.filter((m) => modifierFits(m.code, noteType));
}

export const NOTE_KIND: Record<NoteType, string> = { rbt: "an RBT note", bcba: "a BCBA note", combined: "a combined note (billed as BCBA)" };

export const NOTE_MODIFIER_MESSAGES = {
  misfit: (code: string, noteType: NoteType) => {
    const m = modifierInfo(code);
    const choose = `choose ${fittingModifiers(noteType).map((x) => x.code).join(", ")}`;
    if (!m) return `Modifier ${code} is not in the modifiers table: ${choose}.`;
    return `Modifier ${m.code} (${m.meaning}) is for ${m.type === "rbt" ? "RBT" : "BCBA"} notes and does not fit ${NOTE_KIND[noteType]}: ${choose}.`;
  },
  repeated: (code: string) => `Modifier ${code} is chosen twice: give each modifier once.`,
} as const;

/** One modifier field of a write: its name (md, md2, md3, mdbcba …), the code it writes, and the code stored (absent: a new note). */
export interface ModifierSlot {
  field: string;
  code: string | null;
  stored?: string | null;
}

/**
 * The first refusal of a write's modifiers (every writer of md, md2, md3 calls it): a code the write sets that
 * does not fit the note's type, else a code the write sets that another field holds too (md = md2). A stored
 * code the write keeps is not refused (decision 017: an edit fails only on what it changes); the scrubber names it.
 */
export function modifierRefusal(noteType: NoteType, slots: readonly ModifierSlot[]): { field: string; message: string } | null {
  const set = slots.filter((s) => s.code && s.code !== (s.stored ?? null));
  for (const s of set) if (!modifierFits(s.code!, noteType)) return { field: s.field, message: NOTE_MODIFIER_MESSAGES.misfit(s.code!, noteType) };
  // A repeat is named at its second field, or at the first when only that one is set by the write.
  for (let j = 1; j < slots.length; j++) {
    for (let i = 0; i < j; i++) {
      const [a, b] = [slots[i]!, slots[j]!];
      if (b.code && a.code === b.code && (set.includes(a) || set.includes(b))) return { field: (set.includes(b) ? b : a).field, message: NOTE_MODIFIER_MESSAGES.repeated(b.code) };
    }
  }
  return null;
}

/**
 * A note's modifier selector's codes: those that fit its type, and the `stored` code when it does not (an older
 * note's), so the form shows what is stored instead of silently selecting none.
 */
export function modifierChoicesFor(noteType: NoteType, stored: string | null = null): Modifier[] {
  const fit = fittingModifiers(noteType);
  const kept = stored ? modifierInfo(stored) : null;
  return kept && !fit.includes(kept) ? MODIFIERS.filter((m) => m === kept || fit.includes(m)) : fit;
}

/** The provider choices a service can be priced for; anything else (or none) prices for all providers. */
export const PROVIDERS = ["bcba", "bcaba", "rbt"] as const;
/** The credentials as people write them. */
export const PROVIDER_LABELS: Readonly<Record<(typeof PROVIDERS)[number], string>> = { bcba: "BCBA", bcaba: "BCaBA", rbt: "RBT" };

/** Type is bcba for providers bcba or bcaba, rbt for rbt, otherwise all (clinical §3). */
export function providerType(provider: string | null | undefined): ProviderType {
  const p = (provider ?? "").trim().toLowerCase();
  if (p === "bcba" || p === "bcaba") return "bcba";
  if (p === "rbt") return "rbt";
  return "all";
}

/**
 * A service's multiplier takes at most this many decimals (1.15, 0.85, 1.0001), so that a charge can be computed
 * exactly in integers (`chargeFor`: the multiplier as a whole number of ten-thousandths).
 */
export const MULTIPLIER_DECIMALS = 4;
export const MULTIPLIER_MESSAGE = `Multiplier takes at most ${MULTIPLIER_DECIMALS} decimals (for example 1.15).`;

/** Unit multipliers are 1 per modifier and 0 for XP (clinical §9): 0 if any modifier's is 0, else their product. */
export function unitMultiplier(modifiers: readonly string[]): number {
  let product = 1;
  for (const code of modifiers) {
    const m = modifierInfo(code);
    if (!m) continue;
    if (m.multiplier === 0) return 0;
    product *= m.multiplier;
  }
  return product;
}

export const MAX_MODIFIERS = 2;
export const SERVICE_CODE_MESSAGES = {
  required: "Code is required.",
  cpt: "The code must start with a 5-character CPT code (for example 97153).",
  tooMany: `A code takes at most ${MAX_MODIFIERS} modifiers.`,
  unknown: (code: string) => `Unknown modifier ${code}. Use one of ${MODIFIER_CODES.join(", ")}.`,
  repeated: (code: string) => `Modifier ${code} is listed twice.`,
} as const;

export type ParsedServiceCode = { ok: true; cpt: string; modifiers: ModifierCode[] } | { ok: false; error: string };

/**
 * The one CPT rule (a service code's first token, a PA service's and a PA assessment service's CPT): 4 digits, then a
 * digit or a letter, in any letter case (stored in upper case). A CPT that fails it can never match a price, a note or a
 * claim line (decision 017, stop 36).
 */
export function isCptCode(cpt: string): boolean {
  return /^\d{4}[0-9A-Z]$/.test(cpt.trim().toUpperCase());
}

/** A prior authorization's CPT field that fails isCptCode (PA services, PA assessments; screens and API alike). */
export const CPT_MESSAGE = "Enter a 5-character CPT code: 4 digits, then a digit or a letter (for example 97153).";

/**
 * A service code: the first token is the CPT and the next tokens are up to two modifiers (clinical §3).
 * Tokens are separated by spaces, dashes or commas ("97153 HM GT", "97153-HM-GT").
 */
export function parseServiceCode(code: string | null | undefined): ParsedServiceCode {
  const tokens = (code ?? "")
    .trim()
    .toUpperCase()
    .split(/[\s,-]+/)
    .filter(Boolean);
  const [cpt, ...rest] = tokens;
  if (!cpt) return { ok: false, error: SERVICE_CODE_MESSAGES.required };
  if (!isCptCode(cpt)) return { ok: false, error: SERVICE_CODE_MESSAGES.cpt };
  const modifiers = parseModifiers(rest.join(" "));
  return modifiers.ok ? { ok: true, cpt, modifiers: modifiers.modifiers } : modifiers;
}

/** Up to two known modifiers, each once, separated by spaces, dashes or commas ("HM GT", "HM,GT"): a code's modifiers. */
export function parseModifiers(text: string | null | undefined): { ok: true; modifiers: ModifierCode[] } | { ok: false; error: string } {
  const tokens = (text ?? "")
    .trim()
    .toUpperCase()
    .split(/[\s,-]+/)
    .filter(Boolean);
  if (tokens.length > MAX_MODIFIERS) return { ok: false, error: SERVICE_CODE_MESSAGES.tooMany };
  const modifiers: ModifierCode[] = [];
  for (const token of tokens) {
    const m = modifierInfo(token);
    if (!m) return { ok: false, error: SERVICE_CODE_MESSAGES.unknown(token) };
    if (modifiers.includes(m.code as ModifierCode)) return { ok: false, error: SERVICE_CODE_MESSAGES.repeated(m.code) };
    modifiers.push(m.code as ModifierCode);
  }
  return { ok: true, modifiers };
}

/**
 * The price lookup's optional inputs besides CPT and provider (clinical §7 showInsuranceCpt; the insurer view's form):
 * the location the price is for (none: the insurer-wide price) and the note's modifiers ("HM,GT"). Decision 030.
 */
export const PriceLookupQuery = v.object({
  location_id: optionalId,
  modifiers: v.pipe(
    v.optional(v.nullable(v.string()), null),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const parsed = parseModifiers(dataset.value);
      if (!parsed.ok) {
        addIssue({ message: parsed.error });
        return NEVER;
      }
      return parsed.modifiers;
    }),
  ),
});
export type PriceLookupQuery = v.InferOutput<typeof PriceLookupQuery>;

/** Where a service is priced, for people: "All locations" or the location's name. */
export function serviceLocationText(locationId: number | null, locations: readonly { id: number; title: string }[]): string {
  if (locationId === null) return "All locations";
  return locations.find((l) => l.id === locationId)?.title ?? `Location ${locationId}`;
}

/** The code as shown to people: CPT then modifiers, space-separated. */
export function serviceCode(cpt: string, modifiers: readonly string[]): string {
  return [cpt, ...modifiers].join(" ");
}

/** Stored modifiers are dash-separated (clinical §3 insurance service). */
export function splitModifiers(stored: string | null | undefined): string[] {
  return (stored ?? "").split("-").map((s) => s.trim()).filter(Boolean);
}

function posList(label: string) {
  return choiceList(POS_CODE_VALUES, `${label}: choose place-of-service codes from the list.`);
}

/** One schema for the insurer form and the insurer API. `storedState`: an edit's stored state (optionalState). */
export const insuranceInput = (storedState: string | null = null) => v.object({
  name: requiredLine("Name", 150),
  street: optionalLine("Street", 255),
  street2: optionalLine("Street 2", 255),
  city: optionalLine("City", 100),
  state: optionalState("State", storedState),
  zip: optionalZip,
  payer_id: optionalLine("Payer ID", 50),
  notes: optionalText("Notes", 2000),
  uses_supervisor_as_provider: flag,
  uses_is_telehealth: flag,
  pos_allowed_to_cg: posList("POS allowed to CG"),
  pos_allowed_to_tt: posList("POS allowed to TT"),
  extra_pos_for_bcba: posList("Extra POS for BCBA"),
});
export const InsuranceInput = insuranceInput();
export type InsuranceInput = v.InferOutput<typeof InsuranceInput>;

const ServiceCode = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()], SERVICE_CODE_MESSAGES.cpt)), ""),
  v.rawTransform(({ dataset, addIssue, NEVER }) => {
    const parsed = parseServiceCode(dataset.value === null ? null : String(dataset.value));
    if (!parsed.ok) {
      addIssue({ message: parsed.error });
      return NEVER;
    }
    return { cpt: parsed.cpt, modifiers: parsed.modifiers };
  }),
);

const UnitPrice = v.pipe(
  v.optional(v.nullable(v.union([v.string(), v.number()], "Unit price must be a number.")), null),
  v.transform(numberOrNull),
  v.check((n) => n !== null, "Unit price is required."),
  v.transform((n) => n as number),
  v.check((n) => Number.isFinite(n), "Unit price must be a number."),
  v.minValue(0, "Unit price must be 0 or more."),
  v.maxValue(MAX_MONEY, "Unit price must be at most 1,000,000."),
  v.check((n) => hasAtMostDecimals(n, 2), "Unit price takes at most 2 decimals (whole cents)."),
);

/** One schema for the service form and the service API (clinical §3 insurance service entry). */
/** The spec's service field the service calls do not write (decision 044; fieldsSetElsewhere): 422 at the field. */
export const SERVICE_SET_ELSEWHERE: SetElsewhere = {
  provider_types: "A service has one provider (provider): price each provider type as its own service.",
};

export const InsuranceServiceInput = v.pipe(
  v.object({
    code: ServiceCode,
    provider: v.pipe(
      optionalLine("Provider", 30),
      v.transform((p) => (p === null ? null : p.toLowerCase())),
    ),
    description: optionalLine("Description", 255),
    unit_price: UnitPrice,
    hourly_fee: optionalMoney("Hourly fee"),
    max_allowed: optionalMoney("Max allowed"),
    max_per_day: optionalInt("Max per day", 0, 1000),
    multiplier: v.pipe(
      optionalNumber("Multiplier", 0, 100),
      v.check((m) => m === null || hasAtMostDecimals(m, MULTIPLIER_DECIMALS), MULTIPLIER_MESSAGE),
      v.transform((m) => m ?? 1),
    ),
    location_id: optionalId,
    auto_on_pos: flag,
    auto_on_provider: flag,
    auto_on_same_day: flag,
    auto_on_overlapping: flag,
  }),
  v.transform((x) => ({ ...x, type: providerType(x.provider) })),
);
export type InsuranceServiceInput = v.InferOutput<typeof InsuranceServiceInput>;

/** What the twin rule compares of a service (modifiers as codes, however they were typed or stored). */
export interface ServiceTwinFacts {
  insuranceId: number;
  cptCode: string;
  modifiers: readonly string[];
  provider: string | null;
  locationId: number | null;
}

/**
 * Two services of an insurer are twins when billing's lookup (`pickService`, app/domain/billing.ts) cannot tell them
 * apart: same CPT, same modifiers as a set (the lookup's order-insensitive match), same location, and the same provider
 * as the lookup reads it — bcba, bcaba and rbt each their own (it prefers the exact one, so a BCaBA price beside a BCBA
 * price is used), any other provider or none pricing for all. The lookup then always takes the oldest, so a second
 * one is a price nobody is billed (probe 8974 §1, decision 044).
 */
export function serviceTwinKey(s: ServiceTwinFacts): string {
  const p = (s.provider ?? "").trim().toLowerCase();
  const modifiers = s.modifiers.map((m) => m.trim().toUpperCase()).filter(Boolean).sort();
  return [s.insuranceId, s.cptCode.trim().toUpperCase(), modifiers.join("-"), (PROVIDERS as readonly string[]).includes(p) ? p : "", s.locationId ?? ""].join("|");
}

/** The refusal of a service that would be a twin of a live one, naming that one (422 on `code`). */
export const SERVICE_TWIN_MESSAGE = (s: { id: number; code: string; provider: string | null; location: string; price: string }) =>
  `This insurer already prices this code: service ${s.id} (${s.code}, ${s.provider || "all providers"}, ${s.location}, ${s.price}), which billing uses. Change that service's price instead of adding a second one.`;

/**
 * Twins stored before the rule (the oldest of each prices notes, as `pickService` picks among equals): for each
 * service that has a twin, the one that prices notes and the others. Services without a twin are not in the map.
 */
export function serviceTwins(services: readonly (ServiceTwinFacts & { id: number })[]): Map<number, { pricing: number; others: number[] }> {
  const groups = new Map<string, number[]>();
  for (const s of services) {
    const key = serviceTwinKey(s);
    groups.set(key, [...(groups.get(key) ?? []), s.id]);
  }
  const out = new Map<number, { pricing: number; others: number[] }>();
  for (const ids of groups.values()) {
    if (ids.length < 2) continue;
    const [pricing, ...others] = [...ids].sort((a, b) => a - b) as [number, ...number[]];
    for (const id of ids) out.set(id, { pricing, others });
  }
  return out;
}

/** What the insurer's service tables say of a stored twin; "" for a service without one. */
export function serviceTwinText(id: number, twins: ReadonlyMap<number, { pricing: number; others: number[] }>): string {
  const t = twins.get(id);
  if (!t) return "";
  if (t.pricing !== id) return `Not used: service ${t.pricing} prices this code. Delete this one.`;
  return t.others.length === 1 ? `Prices notes (service ${t.others[0]} is a duplicate)` : `Prices notes (services ${t.others.join(", ")} are duplicates)`;
}

/** The insurer list's name filter (GET /insurance?insurer_name=): a search like the list's own. */
export const InsurerFilter = v.object({ insurer_name: v.optional(searchText("insurer_name"), "") });

/**
 * Why an insurer cannot be deleted yet: the live clients who have it as their primary or secondary insurer and the
 * live PA services billed to it. Worded as LOCATION_IN_USE (decision 017, stop 33).
 */
export const INSURER_IN_USE = {
  clients: (n: number) => `${n} client(s) still have this insurer as their primary or secondary insurer: choose another insurer on them first.`,
  paServices: (n: number) => `${n} PA service(s) still use this insurer: choose another insurer on them first.`,
} as const;

/**
 * Why an insurer's price (service) cannot be deleted yet: the live notes of live clients it prices today (no price of
 * their own, no generated, sent or accepted claim holding one), which would fall to $0.00 (decision 017, stop 40).
 */
/**
 * The refusal of an edit that changes what a price matches (its code with modifiers, provider type or location) while
 * notes are priced by it: they would fall to $0.00 as for a delete (decision 017, stop 44).
 */
export const SERVICE_MATCH_IN_USE = (n: number) =>
  `${n} note(s) are priced by this service: changing its code, modifiers, provider or location would leave them with no price ($0.00). Add a new price for the new code instead, or change only its price, description or limits.`;

/**
 * The refusal of an edit of a price's CPT, or of its delete, while PA services billed to the insurer authorize that CPT
 * and no other live price of the insurer covers it (the PA service's coverage rule, decision 031, stop 38).
 */
export const SERVICE_COVERS_PA = (n: number, cpt: string, change: "edit" | "delete") =>
  `${n} PA service(s) billed to this insurer authorize CPT ${cpt}, and no other price of it covers CPT ${cpt}: ${
    change === "edit" ? "changing this price's code would leave them authorizing a CPT the insurer does not cover. Add a new price for the new code instead." : "deleting this price would leave them authorizing a CPT the insurer does not cover. Change their CPT (or delete them) first."
  }`;

export const SERVICE_IN_USE = (n: number) =>
  `${n} note(s) are priced by this service: deleting it would leave them with no price ($0.00). Change its price instead, or delete it once generated claims bill those notes.`;

/** How a select names a stored insurer that was deleted (kept so that an untouched save keeps the link). */
export function deletedInsurerLabel(name: string): string {
  return `${name} (deleted)`;
}
