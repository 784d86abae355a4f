import { bodyRecordId, recordIdMessage } from "./validation";

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
 * stored value sent back (a client that read the record, a form's hidden field) is no change. A reference has every
 * name its lists or its BIP take it by (a goal's `client_id` is its `patient_id`; a chart comment's `bip_id` is its
 * goal's BIP), and each name is checked (decision 017, stop 44).
 */
export const MOVE_MESSAGES = {
  bipClient: "A behavior plan cannot move to another client.",
  /** A BIP's location is its client's (decision 010): it moves only with the client. */
  bipLocation: "A behavior plan cannot move to another location: it is at its client's location.",
  goalBip: "A goal cannot move to another behavior plan.",
  goalClient: "A goal cannot move to another client.",
  objectiveGoal: "An objective cannot move to another goal.",
  commentGoal: "A chart comment cannot move to another plan.",
  commentBip: "A chart comment cannot move to another behavior plan.",
  reportGoal: "A weekly report cannot move to another plan.",
  reportBip: "A weekly report cannot move to another behavior plan.",
  intakeClient: "An intake assessment cannot move to another client.",
} as const;

/**
 * A read-only field's refusal, or null when the body names it with the stored value, or not at all (absent, null or
 * empty). A stored number is a record id: the value must be one (the one record-id rule, `bodyRecordId`), else it
 * answers the record-id words, since a list, true or "abc" names no record; a well-formed id other than the stored one
 * is a move, whether such a record exists or not. A stored text (a week's date) is compared as text, trimmed.
 */
function refusal(body: Record<string, unknown>, key: string, stored: string | number, message: string): string | null {
  const x = body[key];
  if (x === undefined || x === null || x === "") return null;
  if (typeof stored === "number") {
    const id = bodyRecordId(x);
    return id === null ? recordIdMessage(key) : id === stored ? null : message;
  }
  return typeof x === "string" && x.trim() === stored ? null : message;
}

/**
 * The one rule for read-only references: for each `key: [stored value, message]`, the refusal when `body` names the key
 * with another value (or, for an id, with no id). Null when the body moves nothing, so the update goes on (and the
 * stored value is ignored).
 */
export function movedReferences(body: Record<string, unknown>, fixed: Readonly<Record<string, readonly [string | number, string]>>): Record<string, string> | null {
  const refused = Object.entries(fixed).flatMap(([key, [stored, message]]) => {
    const why = refusal(body, key, stored, message);
    return why === null ? [] : [[key, why] as const];
  });
  return refused.length ? Object.fromEntries(refused) : null;
}
