import * as v from "valibot";
import { choiceList, flag, numberOrNull, optionalId, optionalInt, optionalMoney, optionalNumber, optionalText, optionalZip, requiredText } from "./fields";
import { POS_CODE_VALUES } from "./locations";
import { hasAtMostDecimals, MAX_MONEY, searchText } from "./validation";

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

/** The provider choices a service can be priced for; anything else (or none) prices for all providers. */
export const PROVIDERS = ["bcba", "bcaba", "rbt"] as const;

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
  if (!/^\d{4}[0-9A-Z]$/.test(cpt)) return { ok: false, error: SERVICE_CODE_MESSAGES.cpt };
  if (rest.length > MAX_MODIFIERS) return { ok: false, error: SERVICE_CODE_MESSAGES.tooMany };
  const modifiers: ModifierCode[] = [];
  for (const token of rest) {
    const m = modifierInfo(token);
    if (!m) return { ok: false, error: SERVICE_CODE_MESSAGES.unknown(token) };
    if (modifiers.includes(m.code as ModifierCode)) return { ok: false, error: SERVICE_CODE_MESSAGES.repeated(m.code) };
    modifiers.push(m.code as ModifierCode);
  }
  return { ok: true, cpt, modifiers };
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

/** One schema for the insurer form and the insurer API. */
export const InsuranceInput = v.object({
  name: requiredText("Name", 150),
  street: optionalText("Street", 255),
  street2: optionalText("Street 2", 255),
  city: optionalText("City", 100),
  state: optionalText("State", 50),
  zip: optionalZip,
  payer_id: optionalText("Payer ID", 50),
  notes: optionalText("Notes", 2000),
  uses_supervisor_as_provider: flag,
  uses_is_telehealth: flag,
  pos_allowed_to_cg: posList("POS allowed to CG"),
  pos_allowed_to_tt: posList("POS allowed to TT"),
  extra_pos_for_bcba: posList("Extra POS for BCBA"),
});
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
export const InsuranceServiceInput = v.pipe(
  v.object({
    code: ServiceCode,
    provider: v.pipe(
      optionalText("Provider", 30),
      v.transform((p) => (p === null ? null : p.toLowerCase())),
    ),
    description: optionalText("Description", 255),
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

/** The insurer list's name filter (GET /insurance?insurer_name=): a search like the list's own. */
export const InsurerFilter = v.object({ insurer_name: v.optional(searchText("insurer_name"), "") });
