import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { isSignatureImage, SIGNATURE_IMAGE_MESSAGE, signatureImageSize } from "~/domain/signature-image";
import { refuseInklessDrawing, signatureHasInk } from "~/domain/signature-ink.server";
import { ConsentSignInput } from "~/domain/consents";
import { CountersignInput } from "~/domain/note-rules";
import { parseWith } from "~/domain/validation";
import { SIGNATURE_PNG } from "../support/note-fixtures";
import { HUGE_SIGNATURE, onStroke, PNG_MAGIC, pngBytes, pngChunk, pngDataUrl, pngImage } from "../support/png";

const png = (width: number, height: number, depth = 8, colour = 0, rows?: number, ink = true) => Buffer.from(pngBytes(width, height, { depth, colour, rows, ink }));
const url = (b: Uint8Array) => pngDataUrl(b);
const chunk = (type: string, data: Uint8Array) => Buffer.from(pngChunk(type, data));
const MAGIC = Buffer.from(PNG_MAGIC);

describe("a drawn signature's image (decisions 023, 040)", () => {
  const good = png(480, 140);
  it.each([
    ["the pad's own signature (24×10 greyscale)", SIGNATURE_PNG, { width: 24, height: 10 }],
    ["a 480×140 drawing", url(good), { width: 480, height: 140 }],
    ["a high-DPI drawing, 1440×420 RGBA", url(png(1440, 420, 8, 6)), { width: 1440, height: 420 }],
    ["the largest, 2000×1000", url(png(2000, 1000, 1, 0)), { width: 2000, height: 1000 }],
    ["the smallest, 20×10 RGBA", url(png(20, 10, 8, 6)), { width: 20, height: 10 }],
  ])("keeps %s", (_name, dataUrl, size) => {
    expect(signatureImageSize(dataUrl)).toEqual(size);
    expect(signatureHasInk(dataUrl)).toBe(true);
  });

  const crcBroken = Buffer.from(good);
  crcBroken[29] ^= 0xff; // a byte of IHDR's CRC
  const ihdrSecond = Buffer.concat([MAGIC, chunk("tEXt", Buffer.from("a\0b")), good.subarray(8)]);
  const noEnd = good.subarray(0, good.length - 12);
  it.each([
    ["huge dimensions, 20000×20000 one-bit", HUGE_SIGNATURE],
    ["too wide, 2001×140", url(png(2001, 140))],
    ["too tall, 480×1001", url(png(480, 1001, 1, 0))],
    ["a 1×1 RGBA", url(png(1, 1, 8, 6))],
    // At least 20×10 pixels (decision 040, stop 42), even with a stroke.
    ["2000×1 with a stroke", url(png(2000, 1, 8, 6))],
    ["1×1000 with a stroke", url(png(1, 1000, 8, 6))],
    ["19×10 with a stroke", url(png(19, 10, 8, 6))],
    ["zero width", url(png(0, 140))],
    ["zero height", url(png(480, 0))],
    ["a bit depth colour type 2 does not take (4)", url(png(48, 14, 4, 2))],
    ["an unknown colour type (5)", url(png(48, 14, 8, 5))],
    ["a palette image without a palette", url(png(48, 14, 8, 3))],
    ["not PNG bytes after the magic", `data:image/png;base64,${Buffer.concat([MAGIC, Buffer.from("garbage".repeat(10))]).toString("base64")}`],
    ["a wrong IHDR checksum", url(crcBroken)],
    ["IHDR not the first chunk", url(ihdrSecond)],
    ["truncated inside IHDR", url(good.subarray(0, 20))],
    ["truncated before IEND", url(noEnd)],
    ["bytes after IEND", url(Buffer.concat([good, Buffer.from("extra")]))],
    ["only the magic", url(MAGIC)],
    ["a GIF labelled PNG", "data:image/png;base64,R0lGODlhAQABAAAAACw="],
    ["not base64", "data:image/png;base64,@@@@"],
    ["a JPEG data URL", "data:image/jpeg;base64,AAAA"],
    ["a script URL", "javascript:alert(1)"],
    ["empty", ""],
  ])("refuses %s", (_name, dataUrl) => {
    expect(isSignatureImage(dataUrl)).toBe(false);
    expect(signatureHasInk(dataUrl)).toBe(false);
  });

  // A drawing must show ink (decision 040, stop 42): a pixel that is neither transparent nor the colour of all the
  // others. The server checks it (signature-ink.server.ts); the structural rule the browser also runs does not.
  const stroke = onStroke(480, 140);
  const ink = (x: number, y: number) => (stroke(x, y) ? [20, 20, 60, 255] : [0, 0, 0, 0]);
  const palette = (colours: number[][], alphas: number[]) => [pngChunk("PLTE", new Uint8Array(colours.flat())), pngChunk("tRNS", new Uint8Array(alphas))];
  it.each([
    ["fully transparent RGBA, 2000×1000 (10 KB)", url(pngBytes(2000, 1000, { colour: 6, fill: 0, ink: false }))],
    ["fully transparent RGBA, 480×140", url(pngImage(480, 140, 6, () => [0, 0, 0, 0]))],
    ["transparent pixels of different colours, 480×140", url(pngImage(480, 140, 6, (x) => [x & 0xff, 255, 0, 0], { filter: 1 }))],
    ["one flat white, 480×140", url(png(480, 140, 8, 0, undefined, false))],
    ["one flat opaque colour, RGBA 480×140", url(pngImage(480, 140, 6, () => [30, 30, 30, 255], { filter: 4 }))],
    ["a transparent palette image", url(pngImage(480, 140, 3, (x) => [x % 2], { chunks: palette([[0, 0, 0], [255, 255, 255]], [0, 0]) }))],
    ["grey with alpha, all transparent", url(pngImage(480, 140, 4, () => [0, 0]))],
    ["greyscale whose every pixel is the tRNS (transparent) grey", url(pngImage(480, 140, 0, () => [255], { chunks: [pngChunk("tRNS", new Uint8Array([0, 255]))] }))],
    ["blank image data shorter than the header says", url(pngBytes(480, 140, { colour: 6, fill: 0, ink: false, rows: 70 }))],
    // Ink in the rows there are, but the data stops short of the header's height: cut off, so malformed.
    ["a stroke in image data shorter than the header says (half the rows)", url(pngBytes(480, 140, { colour: 6, fill: 0, rows: 70 }))],
    ["a stroke in image data shorter than the header says (2 of 20 rows)", url(pngBytes(40, 20, { colour: 6, fill: 0, rows: 2 }))],
    ["a stroke, then a line with an unknown filter type", url(pngBytes(480, 140, { colour: 6, fill: 0, filterAt: [130, 9] }))],
  ])("refuses %s on the server (well-formed, so the browser's structural check keeps it)", (_name, dataUrl) => {
    expect(signatureHasInk(dataUrl)).toBe(false);
    expect(isSignatureImage(dataUrl)).toBe(true);
    expect(refuseInklessDrawing({ signature: ` ${dataUrl} ` }, ["signature"])).toEqual({ signature: SIGNATURE_IMAGE_MESSAGE });
  });

  it.each([0, 1, 2, 3, 4])("keeps a stroke on a transparent pad, RGBA, each scan line filtered with type %i", (filter) => {
    const dataUrl = url(pngImage(480, 140, 6, ink, { filter }));
    expect(signatureImageSize(dataUrl)).toEqual({ width: 480, height: 140 });
    expect(signatureHasInk(dataUrl)).toBe(true);
  });

  it.each([
    ["interlaced (Adam7), RGBA", url(pngImage(480, 140, 6, ink, { interlaced: true, filter: 4 }))],
    ["a palette with a transparent background", url(pngImage(480, 140, 3, (x, y) => [stroke(x, y) ? 1 : 0], { filter: 1, chunks: palette([[0, 0, 0], [20, 20, 60]], [0]) }))],
    ["grey with alpha", url(pngImage(480, 140, 4, (x, y) => (stroke(x, y) ? [0, 255] : [0, 0]), { filter: 2 }))],
    ["RGB, a dark stroke on white", url(pngImage(480, 140, 2, (x, y) => (stroke(x, y) ? [0, 0, 0] : [255, 255, 255]), { filter: 3 }))],
    ["greyscale, a dark stroke on the tRNS (transparent) white", url(pngImage(480, 140, 0, (x, y) => [stroke(x, y) ? 0 : 255], { chunks: [pngChunk("tRNS", new Uint8Array([0, 255]))] }))],
    ["a single dot", url(pngImage(480, 140, 6, (x, y) => (x === 479 && y === 139 ? [0, 0, 0, 255] : [0, 0, 0, 0])))],
  ])("keeps a real stroke: %s", (_name, dataUrl) => {
    expect(signatureImageSize(dataUrl)).toEqual({ width: 480, height: 140 });
    expect(signatureHasInk(dataUrl)).toBe(true);
  });

  it("the server's check leaves alone what the schema answers for: no drawing, a field already refused", () => {
    const blank = url(pngImage(480, 140, 6, () => [0, 0, 0, 0]));
    expect(refuseInklessDrawing({ a: null, b: "", c: "  ", d: SIGNATURE_PNG, e: blank }, ["a", "b", "c", "d", "e"], { e: "too large" })).toBeNull();
    expect(refuseInklessDrawing({ a: blank, b: blank }, ["b"])).toEqual({ b: SIGNATURE_IMAGE_MESSAGE });
  });

  it("the huge image compressed is small enough to pass the length limits, so only its header tells", () => {
    const ihdr = Buffer.from(pngBytes(20000, 20000, { depth: 1, rows: 1 }).subarray(8, 33));
    const idat = chunk("IDAT", deflateSync(Buffer.alloc(2501 * 20000), { level: 9 }));
    const file = Buffer.concat([MAGIC, ihdr, idat, chunk("IEND", new Uint8Array())]);
    expect(url(file).length).toBeLessThan(100_000);
    expect(isSignatureImage(url(file))).toBe(false);
  });

  it("the consent's and the note's signatures answer the same field error", () => {
    const huge = HUGE_SIGNATURE;
    const consent = parseWith(ConsentSignInput, { signer_name: "Ana Lopez", signature: huge, agree: "on" });
    expect(consent.ok).toBe(false);
    if (!consent.ok) expect(consent.errors.signature).toBe(SIGNATURE_IMAGE_MESSAGE);
    const note = v.safeParse(CountersignInput, { supervisor_name: "Ana Lopez", supervisor_signed_on: "2026-11-20", supervisor_signature: huge });
    expect(note.success).toBe(false);
    expect(note.issues?.map((i) => i.message)).toContain(SIGNATURE_IMAGE_MESSAGE);
    expect(parseWith(ConsentSignInput, { signer_name: "Ana Lopez", signature: url(good), agree: "on" }).ok).toBe(true);
  });
});
