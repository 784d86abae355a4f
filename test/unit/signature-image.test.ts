import { deflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import * as v from "valibot";
import { isSignatureImage, SIGNATURE_IMAGE_MESSAGE, signatureImageSize } from "~/domain/signature-image";
import { ConsentSignInput } from "~/domain/consents";
import { CountersignInput } from "~/domain/note-rules";
import { parseWith } from "~/domain/validation";
import { SIGNATURE_PNG } from "../support/note-fixtures";
import { HUGE_SIGNATURE, PNG_MAGIC, pngBytes, pngChunk, pngDataUrl } from "../support/png";

const png = (width: number, height: number, depth = 8, colour = 0, rows?: number) => Buffer.from(pngBytes(width, height, { depth, colour, rows }));
const url = (b: Uint8Array) => pngDataUrl(b);
const chunk = (type: string, data: Uint8Array) => Buffer.from(pngChunk(type, data));
const MAGIC = Buffer.from(PNG_MAGIC);

describe("a drawn signature's image (decisions 023, 040)", () => {
  const good = png(480, 140);
  it.each([
    ["the pad's own signature (24×8 greyscale)", SIGNATURE_PNG, { width: 24, height: 8 }],
    ["a 480×140 drawing", url(good), { width: 480, height: 140 }],
    ["a high-DPI drawing, 1440×420 RGBA", url(png(1440, 420, 8, 6)), { width: 1440, height: 420 }],
    ["the largest, 2000×1000", url(png(2000, 1000, 1, 0)), { width: 2000, height: 1000 }],
    ["a 1×1 RGBA", url(png(1, 1, 8, 6)), { width: 1, height: 1 }],
  ])("keeps %s", (_name, dataUrl, size) => {
    expect(signatureImageSize(dataUrl)).toEqual(size);
  });

  const crcBroken = Buffer.from(good);
  crcBroken[29] ^= 0xff; // a byte of IHDR's CRC
  const ihdrSecond = Buffer.concat([MAGIC, chunk("tEXt", Buffer.from("a\0b")), good.subarray(8)]);
  const noEnd = good.subarray(0, good.length - 12);
  it.each([
    ["huge dimensions, 20000×20000 one-bit", HUGE_SIGNATURE],
    ["too wide, 2001×140", url(png(2001, 140))],
    ["too tall, 480×1001", url(png(480, 1001, 1, 0))],
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
