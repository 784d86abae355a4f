/** What the X12 837P writer (x12-837p.ts) and the 835 reader (x12-835.ts) share. Pure. Decisions 032, 033. */

/**
 * A control or invisible character, which neither a claim nor a remittance may carry: Unicode's controls (tab and line
 * breaks included), format characters (zero-width space and joiners, word joiner, soft hyphen, byte-order mark,
 * direction marks U+200E, U+200F and U+061C, bidi overrides and isolates), lone surrogates, private-use and unassigned
 * code points, the line and paragraph separators U+2028 and U+2029, and every other character Unicode marks as
 * ignorable (Default_Ignorable_Code_Point: the Hangul fillers U+3164 and U+FFA0, the combining grapheme joiner U+034F,
 * the variation selectors U+FE00–U+FE0F; probe 8925 §5). A space of any width is a space, not one.
 */
const CONTROL_OR_INVISIBLE = /[\p{C}\p{Zl}\p{Zp}\p{Default_Ignorable_Code_Point}]/u;

/** True when `ch` (one character) is a control or invisible character. */
export function isControlOrInvisible(ch: string): boolean {
  return CONTROL_OR_INVISIBLE.test(ch);
}

/** A character's code point as a message names it: "U+202E". */
export function codePoint(ch: string): string {
  return `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
}
