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
