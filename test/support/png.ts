/**
 * PNGs built byte by byte for the drawn-signature rule's tests (app/domain/signature-image.ts): IHDR with the
 * given fields, one IDAT (zlib "stored" blocks, so no compressor is needed: Node and the Workers runtime alike),
 * IEND, each chunk with its CRC.
 */

function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
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

function u32(n: number): Uint8Array {
  return new Uint8Array([(n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff]);
}

export function pngChunk(type: string, data: Uint8Array): Uint8Array {
  const typed = concat([new TextEncoder().encode(type), data]);
  return concat([u32(data.length), typed, u32(crc32(typed))]);
}

/** zlib with stored (uncompressed) deflate blocks. */
function zlibStored(raw: Uint8Array): Uint8Array {
  const parts: Uint8Array[] = [new Uint8Array([0x78, 0x01])];
  for (let at = 0; at < raw.length || at === 0; at += 65535) {
    const block = raw.subarray(at, at + 65535);
    const final = at + 65535 >= raw.length ? 1 : 0;
    parts.push(new Uint8Array([final, block.length & 0xff, block.length >>> 8, ~block.length & 0xff, (~block.length >>> 8) & 0xff]), block);
    if (raw.length === 0) break;
  }
  let a = 1;
  let b = 0;
  for (const x of raw) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  parts.push(u32(((b << 16) | a) >>> 0));
  return concat(parts);
}

export const PNG_MAGIC = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * A white PNG's bytes. `rows` caps the image data written (a header that claims 20000 rows need not carry them:
 * the rule refuses it by its header).
 */
export function pngBytes(width: number, height: number, opts: { depth?: number; colour?: number; rows?: number } = {}): Uint8Array {
  const depth = opts.depth ?? 8;
  const colour = opts.colour ?? 0;
  const ihdr = concat([u32(width), u32(height), new Uint8Array([depth, colour, 0, 0, 0])]);
  const channels = colour === 2 ? 3 : colour === 6 ? 4 : colour === 4 ? 2 : 1;
  const rowBytes = Math.ceil((Math.max(width, 1) * depth * channels) / 8) + 1;
  const raw = new Uint8Array(rowBytes * Math.max(1, opts.rows ?? height)).fill(0xff);
  for (let r = 0; r * rowBytes < raw.length; r++) raw[r * rowBytes] = 0; // filter type none
  return concat([PNG_MAGIC, pngChunk("IHDR", ihdr), pngChunk("IDAT", zlibStored(raw)), pngChunk("IEND", new Uint8Array())]);
}

export function pngDataUrl(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return `data:image/png;base64,${btoa(s)}`;
}

/** The 20000×20000 one-bit image a crafted post sent as a signature (only its first row of data). */
export const HUGE_SIGNATURE = pngDataUrl(pngBytes(20000, 20000, { depth: 1, rows: 1 }));
