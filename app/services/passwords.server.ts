import { fromHex, randomBytes, timingSafeEqual, toHex } from "./crypto.server";

/**
 * PBKDF2-SHA256 through WebCrypto. 100,000 iterations is the most Workers allows.
 * Stored form records its parameters: `pbkdf2-sha256$<iterations>$<salt hex>$<hash hex>`.
 */
export const PBKDF2_ITERATIONS = 100_000;
const HASH_BYTES = 32;

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number, pepper: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password + pepper), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BYTES * 8);
  return toHex(bits);
}

export async function hashPassword(password: string, pepper = ""): Promise<string> {
  const salt = randomBytes(16);
  return `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${toHex(salt)}$${await derive(password, salt, PBKDF2_ITERATIONS, pepper)}`;
}

export async function verifyPassword(password: string, stored: string, pepper = ""): Promise<boolean> {
  const [scheme, iterations, salt, hash] = stored.split("$");
  if (scheme !== "pbkdf2-sha256" || !iterations || !salt || !hash) return false;
  const n = Number(iterations);
  if (!Number.isInteger(n) || n < 1 || n > PBKDF2_ITERATIONS) return false;
  return timingSafeEqual(await derive(password, fromHex(salt), n, pepper), hash);
}

/** A stored hash that no password matches: used to spend the same time when an account does not exist. */
export const DUMMY_PASSWORD_HASH = `pbkdf2-sha256$${PBKDF2_ITERATIONS}$${"00".repeat(16)}$${"00".repeat(HASH_BYTES)}`;
