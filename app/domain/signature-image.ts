/**
 * A drawn signature (the signature pad's PNG data URL): the one rule for every place that stores one — a
 * parent's consent signature, a note's provider signature and the supervisor's countersignature
 * (decisions 023 and 040). Pure.
 *
 * The PDFs embed the stored image, and embedding decodes it to full RGBA: a small file that claims a huge
 * canvas (a 20000×20000 one-bit PNG compresses to under 50 KB) would take a Worker's memory and time on
 * every PDF of a record that can never change again. So the image is read, not just its label: the PNG
 * signature, then the chunks in order — IHDR first with sane dimensions and a valid bit depth and colour
 * type, each chunk's CRC, image data, and IEND last.
 *
 * A drawing must also show something (decision 040, stop 42): at least 20×10 pixels (a 2000×1 image printed 0.11 pt
 * tall), and ink — its image data, inflated (fflate, bounded by the size the header states) and unfiltered, holds a
 * pixel that is not transparent and differs from the others. A fully transparent image, or one flat colour (a blank
 * white canvas), is no drawing. The scan stops at the first pixel that tells, so a real stroke is found early.
 */
import { Unzlib } from "fflate";


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

/** The image's size when the data URL is a well-formed PNG a signature may be (with ink: see above), else null. */
export function signatureImageSize(url: string): { width: number; height: number } | null {
  const b = decode(url);
  if (!b || b.length < 8 + 25 + 12) return null;
  for (let i = 0; i < 8; i++) if (b[i] !== PNG_MAGIC[i]) return null;
  let at = 8;
  let header: Header | null = null;
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
      return hasInk(header, data, palette, transparency) ? { width: header.width, height: header.height } : null;
    }
    at = end + 4;
  }
  return null; // no IEND: truncated
}

/** True when the data URL is a drawn signature the product keeps (see signatureImageSize). */
export function isSignatureImage(url: string): boolean {
  return signatureImageSize(url) !== null;
}

/* ------------------------------------------------------------------ ink */

interface Header {
  width: number;
  height: number;
  depth: number;
  colourType: number;
  interlaced: boolean;
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };
/** Adam7's passes: first column, first row, column step, row step (PNG specification, 8.2). */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The scan lines the image data holds, as [width, rows] per pass (one pass unless interlaced; empty passes left out). */
function passes(h: Header): [number, number][] {
  if (!h.interlaced) return [[h.width, h.height]];
  return ADAM7.map(([x, y, dx, dy]): [number, number] => [Math.ceil(Math.max(0, h.width - x) / dx), Math.ceil(Math.max(0, h.height - y) / dy)]).filter(([w, r]) => w > 0 && r > 0);
}

/**
 * Whether the image shows anything: a pixel whose colour (a transparent pixel counts as "transparent", whatever its
 * colour values) differs from the first pixel's. False as well for image data that is not what the header states
 * (too short, not zlib, a palette index past the palette).
 */
function hasInk(h: Header, data: Uint8Array[], palette: Uint8Array | null, transparency: Uint8Array | null): boolean {
  const bitsPerPixel = CHANNELS[h.colourType]! * h.depth;
  const bpp = Math.max(1, bitsPerPixel >> 3);
  const lines = passes(h).map(([w, rows]) => ({ w, rows, bytes: Math.ceil((w * bitsPerPixel) / 8) }));
  const total = lines.reduce((n, p) => n + (p.bytes + 1) * p.rows, 0);
  const raw = new Uint8Array(total);
  let length = 0;
  let overflow = false;
  const inflate = new Unzlib((chunk) => {
    // Never more than the header states: the buffer is its size (a larger stream is malformed).
    if (length + chunk.length > total) overflow = true;
    raw.set(chunk.subarray(0, Math.max(0, total - length)), length);
    length = Math.min(total, length + chunk.length);
  });
  const pixel = pixelKey(h, palette, transparency);
  let first: number | null = null;
  let pass = 0;
  let row = 0;
  let offset = 0;
  /** Unfilters and reads the complete scan lines inflated so far: true at the first pixel that differs. */
  const scan = (): boolean | null => {
    while (pass < lines.length) {
      const p = lines[pass]!;
      if (offset + 1 + p.bytes > length) return null;
      const line = raw.subarray(offset + 1, offset + 1 + p.bytes);
      const prev = row === 0 ? null : raw.subarray(offset - p.bytes, offset);
      if (!unfilter(raw[offset]!, line, prev, bpp)) return false;
      for (let x = 0; x < p.w; x++) {
        const k = pixel(line, x);
        if (k === BAD_INDEX) return false;
        if (first === null) first = k;
        else if (k !== first) return true;
      }
      offset += 1 + p.bytes;
      if (++row === p.rows) [pass, row] = [pass + 1, 0];
    }
    return false;
  };
  try {
    const STEP = 4096;
    const chunks = data.length === 1 ? data[0]! : concat(data);
    for (let i = 0; i < chunks.length; i += STEP) {
      inflate.push(chunks.subarray(i, i + STEP), i + STEP >= chunks.length);
      if (overflow) return false;
      const found = scan();
      if (found !== null) return found;
    }
    return scan() === true;
  } catch {
    return false;
  }
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Undoes a scan line's filter in place (PNG specification, 9.2); false for an unknown filter type. */
function unfilter(type: number, line: Uint8Array, prev: Uint8Array | null, bpp: number): boolean {
  const n = line.length;
  switch (type) {
    case 0:
      return true;
    case 1:
      for (let i = bpp; i < n; i++) line[i] = (line[i]! + line[i - bpp]!) & 0xff;
      return true;
    case 2:
      if (prev) for (let i = 0; i < n; i++) line[i] = (line[i]! + prev[i]!) & 0xff;
      return true;
    case 3:
      for (let i = 0; i < n; i++) line[i] = (line[i]! + (((i >= bpp ? line[i - bpp]! : 0) + (prev ? prev[i]! : 0)) >> 1)) & 0xff;
      return true;
    case 4:
      for (let i = 0; i < n; i++) {
        const a = i >= bpp ? line[i - bpp]! : 0;
        const b = prev ? prev[i]! : 0;
        const c = i >= bpp && prev ? prev[i - bpp]! : 0;
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        line[i] = (line[i]! + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c)) & 0xff;
      }
      return true;
    default:
      return false;
  }
}

const TRANSPARENT = -1;
const BAD_INDEX = -2;

/**
 * A pixel's colour as one number, TRANSPARENT for a pixel that shows nothing (alpha 0, the tRNS colour, or a
 * palette entry whose alpha is 0), BAD_INDEX for a palette index past the palette. Exact for 8-bit samples; a 16-bit
 * RGBA pixel is told by its colour (two pixels differing only in a non-zero alpha count as one colour).
 */
function pixelKey(h: Header, palette: Uint8Array | null, transparency: Uint8Array | null): (line: Uint8Array, x: number) => number {
  const d = h.depth;
  const mask = (1 << Math.min(d, 8)) - 1;
  const sample =
    d === 8
      ? (line: Uint8Array, i: number) => line[i]!
      : d === 16
        ? (line: Uint8Array, i: number) => (line[2 * i]! << 8) | line[2 * i + 1]!
        : (line: Uint8Array, i: number) => {
            const bit = i * d;
            return (line[bit >> 3]! >> (8 - d - (bit & 7))) & mask;
          };
  const trns = (i: number) => (transparency && transparency.length >= 2 * (i + 1) ? (transparency[2 * i]! << 8) | transparency[2 * i + 1]! : null);
  const wide = d === 16 ? 65536 : 256;
  switch (h.colourType) {
    case 0: {
      const key = trns(0);
      return (line, x) => {
        const g = sample(line, x);
        return g === key ? TRANSPARENT : g;
      };
    }
    case 2: {
      const [r0, g0, b0] = [trns(0), trns(1), trns(2)];
      return (line, x) => {
        const r = sample(line, 3 * x);
        const g = sample(line, 3 * x + 1);
        const b = sample(line, 3 * x + 2);
        return r === r0 && g === g0 && b === b0 ? TRANSPARENT : (r * wide + g) * wide + b;
      };
    }
    case 3: {
      // Each palette index as its first twin's (same colour and alpha), or transparent.
      const entries = Math.floor((palette?.length ?? 0) / 3);
      const canonical: number[] = [];
      const seen = new Map<string, number>();
      for (let i = 0; i < entries; i++) {
        const alpha = transparency && i < transparency.length ? transparency[i]! : 255;
        const name = `${palette![3 * i]},${palette![3 * i + 1]},${palette![3 * i + 2]},${alpha}`;
        if (!seen.has(name)) seen.set(name, i);
        canonical.push(alpha === 0 ? TRANSPARENT : seen.get(name)!);
      }
      return (line, x) => canonical[sample(line, x)] ?? BAD_INDEX;
    }
    case 4:
      return (line, x) => {
        const a = sample(line, 2 * x + 1);
        return a === 0 ? TRANSPARENT : sample(line, 2 * x) * wide + a;
      };
    default:
      return (line, x) => {
        const i = 4 * x;
        const a = sample(line, i + 3);
        if (a === 0) return TRANSPARENT;
        const rgb = (sample(line, i) * wide + sample(line, i + 1)) * wide + sample(line, i + 2);
        return d === 8 ? rgb * 256 + a : rgb;
      };
  }
}
