import { describe, expect, it } from "vitest";
import { AVATAR_MAX_BYTES, AVATAR_MESSAGES, checkAvatar, sniffImageType } from "~/domain/avatars";

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff, 0xe0];
const WEBP = [...new TextEncoder().encode("RIFF"), 0x24, 0, 0, 0, ...new TextEncoder().encode("WEBPVP8 ")];
const text = (s: string) => new TextEncoder().encode(s);
/** `head` followed by zeros up to `size` bytes. */
const file = (head: number[] | Uint8Array, size = head.length + 16) => {
  const out = new Uint8Array(size);
  out.set(head);
  return out;
};

describe("sniffImageType", () => {
  it.each([
    ["a PNG", file(PNG), "image/png"],
    ["a JPEG", file(JPEG), "image/jpeg"],
    ["a WebP", file(WEBP), "image/webp"],
    ["a RIFF file that is not WebP (WAVE)", file([...text("RIFF"), 0, 0, 0, 0, ...text("WAVE")]), null],
    ["a GIF", file(text("GIF89a")), null],
    ["a text file", text("hello, this is not an image"), null],
    ["an SVG", text('<svg xmlns="http://www.w3.org/2000/svg"/>'), null],
    ["a truncated PNG signature", new Uint8Array(PNG.slice(0, 5)), null],
    ["two bytes of a JPEG signature", new Uint8Array([0xff, 0xd8]), null],
    ["no bytes", new Uint8Array(0), null],
  ] as const)("%s → %s", (_label, bytes, expected) => {
    expect(sniffImageType(bytes)).toBe(expected);
  });
});

describe("checkAvatar", () => {
  it.each([
    ["a small PNG", file(PNG), { ok: true, contentType: "image/png" }],
    ["a JPEG of exactly 200 KB", file(JPEG, AVATAR_MAX_BYTES), { ok: true, contentType: "image/jpeg" }],
    ["a WebP", file(WEBP), { ok: true, contentType: "image/webp" }],
    ["a JPEG one byte over 200 KB", file(JPEG, AVATAR_MAX_BYTES + 1), { ok: false, message: AVATAR_MESSAGES.size }],
    ["a 1 MB PNG", file(PNG, 1024 * 1024), { ok: false, message: AVATAR_MESSAGES.size }],
    ["a text file (whatever it is named)", text("name: photo.png"), { ok: false, message: AVATAR_MESSAGES.type }],
    ["a large text file: the type is reported first", file(text("plain text"), AVATAR_MAX_BYTES * 2), { ok: false, message: AVATAR_MESSAGES.type }],
    ["an empty file", new Uint8Array(0), { ok: false, message: AVATAR_MESSAGES.type }],
    ["no file", null, { ok: false, message: AVATAR_MESSAGES.type }],
  ] as const)("%s", (_label, bytes, expected) => {
    const result = checkAvatar(bytes);
    expect(result.ok).toBe(expected.ok);
    if (result.ok && expected.ok) {
      expect(result.contentType).toBe(expected.contentType);
      expect(result.size).toBe(bytes!.length);
    }
    if (!result.ok && !expected.ok) expect(result.errors).toEqual({ avatar: expected.message });
  });

  it.each([
    ["the head of a 300 KB PNG", file(PNG), 300 * 1024, AVATAR_MESSAGES.size],
    ["the head of a 300 KB text file", text("plain text file"), 300 * 1024, AVATAR_MESSAGES.type],
  ] as const)("only the first bytes and the declared size: %s", (_label, head, size, message) => {
    expect(checkAvatar(head, size)).toEqual({ ok: false, errors: { avatar: message } });
  });

  it("the messages are the spec's wording", () => {
    expect(AVATAR_MESSAGES).toEqual({ type: "Choose a PNG, JPEG or WebP image.", size: "The image must be 200 KB or smaller." });
  });
});
