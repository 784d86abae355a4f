/**
 * A drawn signature (the signature pad's PNG data URL): the one rule for every place that stores one — a
 * parent's consent signature, a note's provider signature and the supervisor's countersignature
 * (decisions 023 and 040). Pure, and light enough for the browser bundles that import it (the screens use
 * isSignatureImage to show a posted drawing again).
 *
 * The PDFs embed the stored image, and embedding decodes it to full RGBA: a small file that claims a huge
 * canvas (a 20000×20000 one-bit PNG compresses to under 50 KB) would take a Worker's memory and time on
 * every PDF of a record that can never change again. So the image is read, not just its label: the PNG
 * signature, then the chunks in order — IHDR first with sane dimensions (at least 20×10 pixels: a 2000×1 image
 * printed 0.11 pt tall) and a valid bit depth and colour type, each chunk's CRC, image data, and IEND last.
 *
 * A drawing must also show ink (decision 040, stop 42): that check inflates the image data, so it lives on the
 * server only (signatureHasInk, app/domain/signature-ink.server.ts), which every write path runs after this one.
 */
export const SIGNATURE_IMAGE_MESSAGE = "The drawn signature is not a valid image. Draw it again or type your name.";

/** The largest drawn signature in pixels: the pad is 480×140 and high-DPI screens scale it up to 3×, with room to spare. */
export const SIGNATURE_MAX_WIDTH = 2000;
export const SIGNATURE_MAX_HEIGHT = 1000;
/** The smallest: a drawing narrower or lower than this cannot be read on the signed record. */
export const SIGNATURE_MIN_WIDTH = 20;
export const SIGNATURE_MIN_HEIGHT = 10;

const PREFIX = "data:image/png;base64,";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/** Bit depths allowed per colour type (PNG specification, 11.2.2 IHDR). */
const BIT_DEPTHS: Record<number, readonly number[]> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

let crcTable: Uint32Array | null = null;
function crc32(bytes: Uint8Array, start: number, end: number): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let c = 0xffffffff;
  for (let i = start; i < end; i++) c = crcTable[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function u32(b: Uint8Array, at: number): number {
  return ((b[at]! << 24) | (b[at + 1]! << 16) | (b[at + 2]! << 8) | b[at + 3]!) >>> 0;
}

function decode(url: string): Uint8Array | null {
  if (!url.startsWith(PREFIX)) return null;
  const body = url.slice(PREFIX.length);
  if (!BASE64.test(body)) return null;
  try {
    const raw = atob(body);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/** A well-formed signature PNG, read: its header, its palette and transparency chunks, and its image data chunks. */
export interface SignaturePng {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
  palette: Uint8Array | null;
  transparency: Uint8Array | null;
  data: Uint8Array[];
}

/** The image read when the data URL is a well-formed PNG a signature may be (its image data not inflated), else null. */
export function readSignaturePng(url: string): SignaturePng | null {
  const b = decode(url);
  if (!b || b.length < 8 + 25 + 12) return null;
  for (let i = 0; i < 8; i++) if (b[i] !== PNG_MAGIC[i]) return null;
  let at = 8;
  let header: Omit<SignaturePng, "palette" | "transparency" | "data"> | null = null;
  let palette: Uint8Array | null = null;
  let transparency: Uint8Array | null = null;
  const data: Uint8Array[] = [];
  while (at + 12 <= b.length) {
    const length = u32(b, at);
    const type = String.fromCharCode(b[at + 4]!, b[at + 5]!, b[at + 6]!, b[at + 7]!);
    const end = at + 8 + length;
    if (length > b.length || end + 4 > b.length) return null; // truncated
    if (crc32(b, at + 4, end) !== u32(b, end)) return null;
    if (header === null) {
      // IHDR must come first, 13 bytes.
      if (type !== "IHDR" || length !== 13) return null;
      const width = u32(b, at + 8);
      const height = u32(b, at + 12);
      const depth = b[at + 16]!;
      const colourType = b[at + 17]!;
      const [compression, filter, interlace] = [b[at + 18]!, b[at + 19]!, b[at + 20]!];
      if (width < SIGNATURE_MIN_WIDTH || width > SIGNATURE_MAX_WIDTH || height < SIGNATURE_MIN_HEIGHT || height > SIGNATURE_MAX_HEIGHT) return null;
      if (!BIT_DEPTHS[colourType]?.includes(depth)) return null;
      if (compression !== 0 || filter !== 0 || (interlace !== 0 && interlace !== 1)) return null;
      header = { width, height, depth, colourType, interlaced: interlace === 1 };
    } else if (type === "IHDR") {
      return null;
    } else if (type === "PLTE") {
      palette = b.subarray(at + 8, end);
    } else if (type === "tRNS") {
      transparency = b.subarray(at + 8, end);
    } else if (type === "IDAT") {
      if (header.colourType === 3 && !palette) return null;
      data.push(b.subarray(at + 8, end));
    } else if (type === "IEND") {
      if (!data.length || end + 4 !== b.length) return null;
      return { ...header, palette, transparency, data };
    }
    at = end + 4;
  }
  return null; // no IEND: truncated
}

/** The image's size when the data URL is a well-formed PNG a signature may be, else null. */
export function signatureImageSize(url: string): { width: number; height: number } | null {
  const png = readSignaturePng(url);
  return png && { width: png.width, height: png.height };
}

/**
 * True when the data URL is a well-formed PNG a signature may be (see above). Whether it shows ink is the server's
 * check (signatureHasInk), which the write paths run as well.
 */
export function isSignatureImage(url: string): boolean {
  return readSignaturePng(url) !== null;
}
