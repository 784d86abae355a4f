/**
 * Text for PDFs drawn with the standard fonts (Helvetica): they encode text in WinAnsi (Windows-1252),
 * which has no glyph for most of Unicode. Every string a PDF draws passes through `toWinAnsi` first, so
 * no user text (accents, emoji, CJK, control characters) can make the renderer throw (decision 027).
 */

/** The characters WinAnsi adds in 0x80–0x9F beyond Latin-1. */
const WINANSI_EXTRA = "€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ";
const EXTRA = new Set(Array.from(WINANSI_EXTRA, (c) => c.codePointAt(0)!));

/** Whether the standard fonts can draw the code point. */
export function isWinAnsi(cp: number): boolean {
  return (cp >= 0x20 && cp <= 0x7e) || (cp >= 0xa0 && cp <= 0xff) || EXTRA.has(cp);
}

/** Close stand-ins for common characters outside WinAnsi. */
const SUBSTITUTES = new Map<number, string>([
  [0x2010, "-"], [0x2011, "-"], [0x2012, "-"], [0x2015, "—"], [0x2212, "-"],
  [0x2032, "'"], [0x2033, '"'], [0x2035, "'"], [0x201b, "'"], [0x201f, '"'],
  [0x2264, "<="], [0x2265, ">="], [0x2260, "!="], [0x2192, "->"], [0x2190, "<-"], [0x2194, "<->"],
  [0x2713, "v"], [0x2714, "v"], [0x25cf, "•"], [0x2043, "-"],
  [0x0131, "i"], [0x0141, "L"], [0x0142, "l"], [0x0110, "D"], [0x0111, "d"], [0x0126, "H"], [0x0127, "h"],
  [0x2116, "No."], [0x2103, "°C"], [0x2109, "°F"],
]);

/** Spaces of other widths become a space; these zero-width and joining marks vanish. */
const isOtherSpace = (cp: number) => (cp >= 0x2000 && cp <= 0x200a) || cp === 0x202f || cp === 0x205f || cp === 0x3000 || cp === 0x1680;
const isInvisible = (cp: number) =>
  (cp >= 0x200b && cp <= 0x200f) || (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x206f) || cp === 0xfeff || (cp >= 0xfe00 && cp <= 0xfe0f) || (cp >= 0xe0100 && cp <= 0xe01ef) || cp === 0x00ad;
const isCombining = (cp: number) => (cp >= 0x0300 && cp <= 0x036f) || (cp >= 0x1ab0 && cp <= 0x1aff) || (cp >= 0x1dc0 && cp <= 0x1dff) || (cp >= 0x20d0 && cp <= 0x20ff) || (cp >= 0xfe20 && cp <= 0xfe2f);

/** The letter with as many of its accents as WinAnsi can draw ("ễ" → "ê", "ř" → "r"), or null. */
function withFewerAccents(ch: string): string | null {
  const [base, ...marks] = Array.from(ch.normalize("NFD"));
  if (!base || isCombining(base.codePointAt(0)!)) return null;
  for (let k = marks.length; k >= 0; k--) {
    const s = (base + marks.slice(0, k).join("")).normalize("NFC");
    if (Array.from(s).every((c) => isWinAnsi(c.codePointAt(0)!))) return s;
  }
  return null;
}

/** What a character that no font can draw becomes. */
export const UNDRAWABLE = "?";

/**
 * Text the standard fonts can draw: line breaks (CR LF, CR, vertical tab, form feed, NEL, U+2028/9) become "\n", tabs a space, other control characters and
 * invisible marks vanish, letters outside WinAnsi lose the accents it cannot draw
 * ("ő" → "o", "ễ" → "ê"), a few symbols get a stand-in ("≤" → "<="), anything else becomes "?" (one per character).
 */
export function toWinAnsi(text: string): string {
  let out = "";
  for (const ch of text.normalize("NFC").replace(/\r\n?/g, "\n")) {
    const cp = ch.codePointAt(0)!;
    if (isWinAnsi(cp) || cp === 0x0a) out += ch;
    else if (cp === 0x0b || cp === 0x0c || cp === 0x85 || cp === 0x2028 || cp === 0x2029) out += "\n";
    else if (cp === 0x09 || isOtherSpace(cp)) out += " ";
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0) || isInvisible(cp) || isCombining(cp)) continue;
    else if (SUBSTITUTES.has(cp)) out += SUBSTITUTES.get(cp);
    else {
      out += withFewerAccents(ch) ?? UNDRAWABLE;
    }
  }
  return out;
}

/**
 * Lines of at most `maxWidth` (as `widthOf` measures them; widths add up, as the standard fonts' do):
 * each "\n" starts a new line (an empty paragraph stays an empty line), words are filled greedily, a word
 * wider than a line is broken between characters. Runs of spaces collapse; the text should already be
 * `toWinAnsi`.
 */
export function wrapText(text: string, maxWidth: number, widthOf: (s: string) => number): string[] {
  const lines: string[] = [];
  const space = widthOf(" ");
  for (const paragraph of text.split("\n")) {
    const words = paragraph.split(" ").filter(Boolean);
    if (words.length === 0) {
      lines.push("");
      continue;
    }
    let line = "";
    let width = 0;
    const flush = () => {
      if (line) lines.push(line);
      line = "";
      width = 0;
    };
    for (const word of words) {
      const w = widthOf(word);
      if (line && width + space + w <= maxWidth) {
        line += " " + word;
        width += space + w;
        continue;
      }
      flush();
      if (w <= maxWidth) {
        line = word;
        width = w;
        continue;
      }
      // A word wider than the line: as many characters as fit on each line (at least one).
      for (const ch of word) {
        const cw = widthOf(ch);
        if (line && width + cw > maxWidth) flush();
        line += ch;
        width += cw;
      }
    }
    flush();
  }
  return lines;
}
