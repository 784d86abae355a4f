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

/**
 * The records a record belongs to (its client, behavior plan or goal) are fixed once it exists (decision 017, stop 43):
 * an update that names one with another value answers 422 at that field with these words, and writes nothing. The
 * stored value sent back (a client that read the record and sends it again, a form's hidden field) is no change.
 */
export const MOVE_MESSAGES = {
  bipClient: "A behavior plan cannot move to another client.",
  goalBip: "A goal cannot move to another behavior plan.",
  goalClient: "A goal cannot move to another client.",
  objectiveGoal: "An objective cannot move to another goal.",
  commentGoal: "A chart comment cannot move to another plan.",
  reportGoal: "A weekly report cannot move to another plan.",
  intakeClient: "An intake assessment cannot move to another client.",
} as const;

/** Whether a body names a read-only field with another value than the stored one (empty or null names none). */
function changes(body: Record<string, unknown>, key: string, stored: string | number): boolean {
  const x = body[key];
  return x !== undefined && x !== null && x !== "" && String(x).trim() !== String(stored);
}

/**
 * The one rule for read-only references: for each `key: [stored value, message]`, the message when `body` names the key
 * with another value. Null when the body moves nothing, so the update goes on (and the stored value is ignored).
 */
export function movedReferences(body: Record<string, unknown>, fixed: Readonly<Record<string, readonly [string | number, string]>>): Record<string, string> | null {
  const moved = Object.entries(fixed).filter(([key, [stored]]) => changes(body, key, stored));
  return moved.length ? Object.fromEntries(moved.map(([key, [, message]]) => [key, message])) : null;
}
