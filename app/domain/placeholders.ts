/**
 * Placeholders in plan text (clinical §1, §3): `{name}` and pronoun tokens are replaced with the client's
 * first name and pronouns when the plan is shown or exported. The stored text keeps the tokens, so a
 * change of name or gender shows everywhere at once. Pure.
 *
 * Supported tokens (case of the first letter is kept: `{He|She|They}` gives "He", "She" or "They"):
 *   {name}
 *   {he|she|they}            subject
 *   {him|her|them}           object
 *   {his|her|their}          possessive adjective
 *   {his|hers|theirs}        possessive pronoun
 *   {himself|herself|themselves}
 *   {is|are} {was|were} {has|have} {does|do}   verb agreement ("they are", "she is")
 * Anything else between braces is left as it is.
 */
import { GENDERS } from "./patients";

export type Pronouns = "male" | "female" | "neutral";

/** The client's pronouns from the stored gender code (patients.gender: 1 Male, 2 Female); unknown → they. */
export function pronounsFor(gender: number | string | null | undefined): Pronouns {
  const code = gender === null || gender === undefined ? "" : String(gender).trim();
  const label = GENDERS.find((g) => g.value === code)?.label;
  if (label === "Male") return "male";
  if (label === "Female") return "female";
  return "neutral";
}

/** Each token's three forms: male, female, neutral. The token text is the three forms joined by "|". */
const FORMS: readonly (readonly [string, string, string])[] = [
  ["he", "she", "they"],
  ["him", "her", "them"],
  ["his", "her", "their"],
  ["his", "hers", "theirs"],
  ["himself", "herself", "themselves"],
];
/** Verb agreement: he/she take the first form, they the second. */
const VERBS: readonly (readonly [string, string])[] = [
  ["is", "are"],
  ["was", "were"],
  ["has", "have"],
  ["does", "do"],
];

const TOKENS: ReadonlyMap<string, Record<Pronouns, string>> = new Map([
  ...FORMS.map(([m, f, n]) => [`${m}|${f}|${n}`, { male: m, female: f, neutral: n }] as const),
  ...VERBS.map(([one, many]) => [`${one}|${many}`, { male: one, female: one, neutral: many }] as const),
]);

export const PLACEHOLDER_TOKENS: readonly string[] = ["name", ...TOKENS.keys()];

export interface PlaceholderClient {
  firstName: string;
  gender: number | string | null | undefined;
}

const capitalise = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/** Replaces the known tokens in one text. */
export function fillPlaceholders(text: string, client: PlaceholderClient): string {
  const pronouns = pronounsFor(client.gender);
  return text.replace(/\{([A-Za-z|]+)\}/g, (whole, inner: string) => {
    if (inner.toLowerCase() === "name") return client.firstName.trim() || whole;
    const forms = TOKENS.get(inner.toLowerCase());
    if (!forms) return whole;
    const word = forms[pronouns];
    return inner.charAt(0) === inner.charAt(0).toUpperCase() ? capitalise(word) : word;
  });
}

/** Fills every string inside a value (objects and arrays walked; other values kept). */
export function fillPlaceholdersDeep<T>(value: T, client: PlaceholderClient): T {
  if (typeof value === "string") return fillPlaceholders(value, client) as T;
  if (Array.isArray(value)) return value.map((x) => fillPlaceholdersDeep(x, client)) as T;
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, x]) => [k, fillPlaceholdersDeep(x, client)])) as T;
  }
  return value;
}
