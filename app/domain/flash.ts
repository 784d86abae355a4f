/**
 * A screen's flash in its address: the message (`flash`) and the server's tag of it (`fs`, app/services/flash.server.ts).
 * A link or redirect built from the current address leaves both out, so an old message is neither shown again
 * nor left with a tag that no longer matches the next one.
 */
export const FLASH_PARAM = "flash";
export const FLASH_TAG_PARAM = "fs";

/** The query without the flash and its tag. */
export function withoutFlash(params: URLSearchParams): URLSearchParams {
  const next = new URLSearchParams(params);
  next.delete(FLASH_PARAM);
  next.delete(FLASH_TAG_PARAM);
  return next;
}

/** Between a flash's message and its warning: a line break, which no message holds. */
const WARNING_BREAK = "\n";

/**
 * A success with a warning (a booking over the PA service's units, decision 037) in the one flash, so the warning is
 * tagged with it like every flash and no link can put one on the page; the screen shows the two apart.
 */
export function flashWithWarning(message: string, warning: string | null): string {
  return warning ? `${message}${WARNING_BREAK}${warning}` : message;
}

/** A flash's message and its warning (flashWithWarning): a success and a warning, each shown as text. */
export function flashParts(flash: string | null): { success: string | null; warning: string | null } {
  if (flash === null) return { success: null, warning: null };
  const at = flash.indexOf(WARNING_BREAK);
  return at < 0 ? { success: flash, warning: null } : { success: flash.slice(0, at), warning: flash.slice(at + WARNING_BREAK.length) || null };
}
