/**
 * Avatar images (platform §3 User.avatar, Location.avatar). Pure: the type is read from the file's first
 * bytes (its magic number), never from its name or the type the browser claims.
 */

export const AVATAR_MAX_BYTES = 200 * 1024;
export const AVATAR_FIELD = "avatar";

export const AVATAR_MESSAGES = {
  type: "Choose a PNG, JPEG or WebP image.",
  size: "The image must be 200 KB or smaller.",
} as const;

export type AvatarType = "image/png" | "image/jpeg" | "image/webp";

const startsWith = (bytes: Uint8Array, at: number, sig: readonly number[]) => bytes.length >= at + sig.length && sig.every((b, i) => bytes[at + i] === b);
const ascii = (s: string) => [...s].map((c) => c.charCodeAt(0));

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const RIFF = ascii("RIFF");
const WEBP = ascii("WEBP");

/** The image type the bytes begin with, or null when they are not a PNG, JPEG or WebP file. */
export function sniffImageType(bytes: Uint8Array): AvatarType | null {
  if (startsWith(bytes, 0, PNG)) return "image/png";
  if (startsWith(bytes, 0, JPEG)) return "image/jpeg";
  if (startsWith(bytes, 0, RIFF) && startsWith(bytes, 8, WEBP)) return "image/webp";
  return null;
}

export type AvatarCheck = { ok: true; contentType: AvatarType; size: number } | { ok: false; errors: Record<typeof AVATAR_FIELD, string> };

/** How many leading bytes are enough to tell the type. */
export const AVATAR_SNIFF_BYTES = 16;

/**
 * An uploaded avatar: the type first (an empty or missing file is "choose an image"), then the size.
 * `bytes` may be only the file's first bytes when `size` (the whole file's) is given, so an oversized
 * upload need not be read whole.
 */
export function checkAvatar(bytes: Uint8Array | null, size = bytes?.length ?? 0): AvatarCheck {
  const contentType = bytes && size > 0 ? sniffImageType(bytes) : null;
  if (!contentType) return { ok: false, errors: { avatar: AVATAR_MESSAGES.type } };
  if (size > AVATAR_MAX_BYTES) return { ok: false, errors: { avatar: AVATAR_MESSAGES.size } };
  return { ok: true, contentType, size };
}
