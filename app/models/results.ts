/** What a model use case answers: the data, or why not (the routes and API turn this into 4xx). */
export type ModelResult<T> =
  | { ok: true; data: T; message?: string; replayed?: boolean }
  | { ok: false; status: 404; message: string }
  | { ok: false; status: 409; message: string; current: unknown }
  | { ok: false; status: 422; message: string; errors: Record<string, string>; stored?: unknown }
  | { ok: false; status: 403; message: string; fields?: readonly string[] };

export const ok = <T>(data: T, message?: string): ModelResult<T> => ({ ok: true, data, message });
/** A create's resend (its one-time token made a record before, decision 024): the first record, with the first answer's message. */
export const replayedOk = <T>(data: T, message?: string): ModelResult<T> => ({ ok: true, data, message, replayed: true });
export const notFound = (what = "Record"): ModelResult<never> => ({ ok: false, status: 404, message: `${what} not found.` });
export const conflict = (current: unknown): ModelResult<never> => ({
  ok: false,
  status: 409,
  message: "Someone else saved a newer version of this record. Review the current values and save again.",
  current,
});
export const invalid = (errors: Record<string, string>): ModelResult<never> => ({ ok: false, status: 422, message: Object.values(errors)[0] ?? "The data is not valid.", errors });
/** `fields`: the fields whose change was refused, for a form to show the message at (the API answers the message alone). */
export const denied = (message = "You don't have permission to access this resource.", fields?: readonly string[]): ModelResult<never> => ({ ok: false, status: 403, message, ...(fields?.length ? { fields } : {}) });

/** An update (PATCH or PUT) that names none of the record's fields (see namesNoField in app/domain/validation.ts). */
export const NOTHING_TO_CHANGE = "Nothing to change: send at least one field to update.";

/**
 * The answer to such an update, or to one that leaves every field as stored (decision 017, stop 44): 422, nothing
 * written, the version as it was. `stored`: the record as the update read it, for a screen to go where a save would
 * have gone, saying "Nothing to change." (formResult); the API answers the message alone.
 */
export const nothingToChange = (stored?: unknown): ModelResult<never> => ({ ...(invalid({ form: NOTHING_TO_CHANGE }) as Extract<ModelResult<never>, { status: 422 }>), ...(stored === undefined ? {} : { stored }) });

/**
 * An update that leaves every field as stored, sent from a form made at `version`: a stale version answers 409 with
 * the record (the form was made from older values), else "Nothing to change" (decision 017, stops 44 and 45).
 */
export const unchangedAt = (stored: unknown, storedVersion: number, version: number | null): ModelResult<never> =>
  version !== null && version !== storedVersion ? conflict(stored) : nothingToChange(stored);

/** What a screen says after a save that changed nothing: success-looking, nothing written (kept with the rule). */
export { NOTHING_CHANGED_NOTICE } from "~/domain/audit-changes";

/** Whether `result` is an update that changed nothing, with the record it left as stored (nothingToChange). */
export function unchangedRecord(result: ModelResult<unknown>): { stored: unknown } | null {
  return !result.ok && result.status === 422 && result.errors.form === NOTHING_TO_CHANGE && result.stored !== undefined ? { stored: result.stored } : null;
}

/** The message of an error and its causes, for matching a constraint D1 names (the driver wraps it). */
export function errorText(e: unknown): string {
  const parts: string[] = [];
  for (let x: unknown = e, depth = 0; x && depth < 5; x = (x as { cause?: unknown }).cause, depth++) parts.push(String((x as Error).message ?? x));
  return parts.join(" ");
}
