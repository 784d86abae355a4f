/**
 * A record named by id in a body (decision 017, "Reference ids in a body"): an id the actor cannot see answers the
 * same 422 at its field as an id that does not exist, with these words, so a caller learns which field is wrong and
 * nothing about another location's records. A record named by the address (`/v2/bips/:id`, a screen's own record)
 * is not a body reference and keeps its 404. Pure.
 */
export const REFERENCE_MESSAGES = {
  client: "Choose one of your clients.",
  bip: "Choose one of your clients' behavior plans.",
  goal: "Choose one of your clients' goals.",
} as const;

const REFUSALS = new Set<string>(Object.values(REFERENCE_MESSAGES));

/** Whether a field's message is a body reference's refusal (a record the actor cannot see, or none). */
export function isReferenceRefusal(message: string | undefined): boolean {
  return message !== undefined && REFUSALS.has(message);
}
