/**
 * Whether a drawn signature shows ink (decision 040, stop 42): server only, as it inflates the image data (fflate), which
 * the browser bundles that import the structural rule (app/domain/signature-image.ts) need not carry.
 *
 * A drawing must show something: its image data, inflated (bounded by the size the header states, at most
 * 2000×1000) and unfiltered, holds a pixel that is not transparent and differs from the others. A fully transparent
 * image, or one flat colour (a blank white canvas), is no drawing. The scan stops at the first pixel that tells, so a
 * real stroke is found early.
 *
 * Every write path that stores a drawing (a note's create and edit, the supervisor's countersignature, the parent's
 * consent signature) runs refuseInklessDrawing on the drawings it was sent, beside its schema's field errors: the same
 * field error as a malformed image, and nothing written.
 */
import { Unzlib } from "fflate";
import { readSignaturePng, SIGNATURE_IMAGE_MESSAGE, type SignaturePng } from "./signature-image";

/** True when the data URL is a well-formed signature PNG (isSignatureImage) that shows ink. */
export function signatureHasInk(url: string): boolean {
  const png = readSignaturePng(url);
  return png !== null && hasInk(png);
}

/**
 * The drawn signatures among `fields` of `values` that show no ink, each with the field error
 * (SIGNATURE_IMAGE_MESSAGE); null when there are none. Empty and non-text values, and fields that `refused` (the
 * schema's field errors) already names, are left alone: the schema answers for them.
 */
export function refuseInklessDrawing<T extends object>(values: T, fields: readonly (keyof T & string)[], refused: Record<string, unknown> = {}): Record<string, string> | null {
  let errors: Record<string, string> | null = null;
  for (const field of fields) {
    const value: unknown = values[field];
    if (typeof value !== "string" || value.trim() === "" || refused[field] !== undefined) continue;
    if (!signatureHasInk(value.trim())) (errors ??= {})[field] = SIGNATURE_IMAGE_MESSAGE;
  }
  return errors;
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
function passes(h: SignaturePng): [number, number][] {
  if (!h.interlaced) return [[h.width, h.height]];
  return ADAM7.map(([x, y, dx, dy]): [number, number] => [Math.ceil(Math.max(0, h.width - x) / dx), Math.ceil(Math.max(0, h.height - y) / dy)]).filter(([w, r]) => w > 0 && r > 0);
}

/**
 * Whether the image shows anything: a pixel whose colour (a transparent pixel counts as "transparent", whatever its
 * colour values) differs from the first pixel's. False as well for image data that is not what the header states
 * (too short or too long, not zlib, an unknown filter type, a palette index past the palette): once ink is found the
 * rest of the data is still inflated and its lines' filter types read, so a stream cut short after a stroke is
 * refused (probe 9034 L3).
 */
function hasInk(h: SignaturePng): boolean {
  const { data, palette, transparency } = h;
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
  let inked = false;
  /**
   * Unfilters and reads the complete scan lines inflated so far, until ink is found; after that only each line's
   * filter type is checked. False for malformed data; null while lines remain.
   */
  const scan = (): boolean | null => {
    while (pass < lines.length) {
      const p = lines[pass]!;
      if (offset + 1 + p.bytes > length) return null;
      if (inked) {
        if (raw[offset]! > MAX_FILTER) return false;
      } else {
        const line = raw.subarray(offset + 1, offset + 1 + p.bytes);
        const prev = row === 0 ? null : raw.subarray(offset - p.bytes, offset);
        if (!unfilter(raw[offset]!, line, prev, bpp)) return false;
        for (let x = 0; x < p.w && !inked; x++) {
          const k = pixel(line, x);
          if (k === BAD_INDEX) return false;
          if (first === null) first = k;
          else if (k !== first) inked = true;
        }
      }
      offset += 1 + p.bytes;
      if (++row === p.rows) [pass, row] = [pass + 1, 0];
    }
    return true;
  };
  try {
    const STEP = 4096;
    const chunks = data.length === 1 ? data[0]! : concatBytes(data);
    for (let i = 0; i < chunks.length; i += STEP) {
      inflate.push(chunks.subarray(i, i + STEP), i + STEP >= chunks.length);
      if (overflow || scan() === false) return false;
    }
    // Every line the header states, and no more: then the answer is whether one pixel differed.
    return !overflow && length === total && scan() === true && inked;
  } catch {
    return false;
  }
}

/** The bytes of the parts, one after another. */
export function concatBytes(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** The highest filter type (Paeth). */
const MAX_FILTER = 4;

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
function pixelKey(h: SignaturePng, palette: Uint8Array | null, transparency: Uint8Array | null): (line: Uint8Array, x: number) => number {
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
