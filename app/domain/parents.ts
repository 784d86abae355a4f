import * as v from "valibot";
import { confirmedPassword, NewPassword } from "./auth-schemas";
import { choiceOr, MESSAGES, optionalChoice, optionalDate, optionalId, optionalLine, optionalPhone, optionalZip, requiredEmail, requiredLine } from "./fields";
import { PASSWORD_MESSAGES } from "./passwords";

/** Parents and guardians (clinical §3, platform §3 Parent/guardian). Pure. */

export const PARENT_STATUSES = ["active", "inactive"] as const;

/**
 * How a client's form and profile name a linked parent of a location the reader cannot see: the link is kept (an
 * untouched save keeps it, decision 017 stop 33) and shown, but not whose it is.
 */
export const LINKED_PARENT_ELSEWHERE = "Linked parent (another location)";

/**
 * How the client's profile names a linked parent account to a reader without view_parents (decision 007, stop 40):
 * only that one is linked, neither whose nor their sign-in email.
 */
export const LINKED_PARENT_NOT_SHOWN = "A parent account is linked";

/**
 * A parent in the client form's parent select: with view_parents, the name and sign-in email; without it (a
 * manage_clients holder must still be able to link a parent), the name and the record number, no email
 * (decision 007, stop 40).
 */
export function parentOptionLabel(p: { id: number; name: string; surname: string; email: string }, readsParents: boolean): string {
  const name = `${p.name} ${p.surname}`.trim();
  return readsParents ? `${name} (${p.email})` : `${name} (#${p.id})`;
}

export const ParentInput = v.object({
  name: requiredLine("Name", 100),
  surname: requiredLine("Surname", 100),
  email: requiredEmail,
  phone: optionalPhone,
  work_phone: optionalPhone,
  home_phone: optionalPhone,
  birth_date: optionalDate,
  gender: optionalChoice(["1", "2"], MESSAGES.gender),
  address: optionalLine("Address", 255),
  city: optionalLine("City", 100),
  state: optionalLine("State", 50),
  zip_code: optionalZip,
  location_id: optionalId,
  status: choiceOr(PARENT_STATUSES, "active", "Choose a status from the list."),
});
export type ParentInput = v.InferOutput<typeof ParentInput>;

/** The status call (PUT /update-status/{id}): the status alone, required (no default, unlike the form). */
export const ParentStatusInput = v.object({ status: v.picklist(PARENT_STATUSES, "Choose a status from the list.") });

/**
 * The fields that set a parent's password. The API's create and edit take them (decision 044, stop 35); the profile's
 * save does not: its "Set password" form does, and a save that names them answers this at `password`.
 */
export const PARENT_PASSWORD_FIELDS = ["password", "password_confirmation"] as const;
export const PARENT_PASSWORD_ON_PROFILE = "Set the parent's password with Set password on their profile.";

/**
 * Staff set a parent's password (initial or new): the change-password screen's fields, rules and messages.
 * A missing field reads as an empty one, so the message is the rule's.
 */
export const ParentPasswordInput = v.pipe(
  v.object({ password: v.pipe(v.optional(v.string(PASSWORD_MESSAGES.required), ""), NewPassword), password_confirmation: v.optional(v.string(PASSWORD_MESSAGES.mismatch), "") }),
  confirmedPassword(),
);
