import { zlibSync } from "fflate";
import { concatBytes } from "~/domain/signature-ink.server";

/**
 * PNGs built byte by byte for the drawn-signature rule's tests (app/domain/signature-image.ts): IHDR with the
 * given fields, one IDAT (zlib, fflate: Node and the Workers runtime alike), IEND, each chunk with its CRC.
 */

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concatBytes([new TextEncoder().encode(type), data]);
  return concatBytes([u32(data.length), typed, u32(crc32(typed))]);
}

export const PNG_MAGIC = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A PNG's bytes: every sample `fill` (0xff: white, opaque where the type has alpha), with a stroke of the other
 * value (0x00 for white) across the middle row's first half unless `ink` is false. `rows` caps the image data
 * written (a header that claims 20000 rows need not carry them: the rule refuses it by its header). `filterAt` gives one
 * row another filter type byte (an unknown one makes the data malformed).
 */
export function pngBytes(width: number, height: number, opts: { depth?: number; colour?: number; rows?: number; fill?: number; ink?: boolean; filterAt?: [row: number, type: number] } = {}): Uint8Array {
  const depth = opts.depth ?? 8;
  const colour = opts.colour ?? 0;
  const fill = opts.fill ?? 0xff;
  const ihdr = concatBytes([u32(width), u32(height), new Uint8Array([depth, colour, 0, 0, 0])]);
  const channels = colour === 2 ? 3 : colour === 6 ? 4 : colour === 4 ? 2 : 1;
  const rowBytes = Math.ceil((Math.max(width, 1) * depth * channels) / 8) + 1;
  const rows = Math.max(1, opts.rows ?? height);
  const raw = new Uint8Array(rowBytes * rows).fill(fill);
  for (let r = 0; r * rowBytes < raw.length; r++) raw[r * rowBytes] = 0; // filter type none
  if (opts.filterAt) raw[opts.filterAt[0] * rowBytes] = opts.filterAt[1];
  if (opts.ink !== false) {
    const at = Math.floor(rows / 2) * rowBytes;
    for (let i = 1; i <= Math.max(1, Math.floor((rowBytes - 1) / 2)); i++) raw[at + i] = fill === 0 ? 0xff : 0;
  }
  return concatBytes([PNG_MAGIC, pngChunk("IHDR", ihdr), pngChunk("IDAT", zlibSync(raw)), pngChunk("IEND", new Uint8Array())]);
}

export function pngDataUrl(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return `data:image/png;base64,${btoa(s)}`;
}

/** The 20000×20000 one-bit image a crafted post sent as a signature (only its first row of data). */
export const HUGE_SIGNATURE = pngDataUrl(pngBytes(20000, 20000, { depth: 1, rows: 1 }));

/**
 * An 8-bit PNG drawn pixel by pixel: `pixel(x, y)` gives the samples (1 to 4, as the colour type has), each scan
 * line encoded with `filter` (PNG specification, 9.2: 0 none, 1 sub, 2 up, 3 average, 4 Paeth), in Adam7 passes
 * when `interlaced`. `chunks` are placed before IDAT (PLTE, tRNS).
 */
export function pngImage(width: number, height: number, colour: number, pixel: (x: number, y: number) => number[], opts: { filter?: number; interlaced?: boolean; chunks?: Uint8Array[] } = {}): Uint8Array {
  const channels = colour === 2 ? 3 : colour === 6 ? 4 : colour === 4 ? 2 : 1;
  const filter = opts.filter ?? 0;
  const passes = opts.interlaced
    ? [[0, 0, 8, 8], [4, 0, 8, 8], [0, 4, 4, 8], [2, 0, 4, 4], [0, 2, 2, 4], [1, 0, 2, 2], [0, 1, 1, 2]]
    : [[0, 0, 1, 1]];
  const out: number[] = [];
  for (const [x0, y0, dx, dy] of passes) {
    let prev: number[] | null = null;
    for (let y = y0!; y < height; y += dy!) {
      const line: number[] = [];
      for (let x = x0!; x < width; x += dx!) line.push(...pixel(x, y).slice(0, channels));
      if (!line.length) break;
      out.push(filter);
      for (let i = 0; i < line.length; i++) {
        const a = i >= channels ? line[i - channels]! : 0;
        const b = prev ? prev[i]! : 0;
        const c = i >= channels && prev ? prev[i - channels]! : 0;
        const p = a + b - c;
        const paeth = Math.abs(p - a) <= Math.abs(p - b) && Math.abs(p - a) <= Math.abs(p - c) ? a : Math.abs(p - b) <= Math.abs(p - c) ? b : c;
        const predicted = [0, a, b, (a + b) >> 1, paeth][filter]!;
        out.push((line[i]! - predicted) & 0xff);
      }
      prev = line;
    }
  }
  const ihdr = concatBytes([u32(width), u32(height), new Uint8Array([8, colour, 0, 0, opts.interlaced ? 1 : 0])]);
  return concatBytes([PNG_MAGIC, pngChunk("IHDR", ihdr), ...(opts.chunks ?? []), pngChunk("IDAT", zlibSync(new Uint8Array(out))), pngChunk("IEND", new Uint8Array())]);
}

/** A pen stroke across a width×height pad: a wave two pixels thick. */
export function onStroke(width: number, height: number): (x: number, y: number) => boolean {
  return (x, y) => x > width / 10 && x < (width * 9) / 10 && Math.abs(y - Math.round(height / 2 + (height / 4) * Math.sin(x / 9))) <= 1;
}
