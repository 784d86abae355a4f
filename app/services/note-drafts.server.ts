import { and, eq, lt, or } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { noteDrafts } from "~/db/schema";
import { randomToken } from "./crypto.server";
import { secretKey } from "./tokens.server";
import { DRAFT_TTL_MS } from "~/domain/note-drafts";

/**
 * Server-side drafts of a note form (docs/decisions/025): when a note form is posted after the session has
 * ended (locked after the idle limit, or expired), its fields are kept here for the user of that session,
 * encrypted at rest with AES-GCM under a key derived (HKDF-SHA-256) from the app secret, and handed back once
 * to that same user on that same form within 24 hours. The ciphertext is bound to its id, user and path (the
 * AES-GCM additional data), so a row moved to another user or form does not decrypt. Their lifetime,
 * DRAFT_TTL_MS, is the browser copy's too (app/domain/note-drafts.ts).
 */

/** A form larger than this is not kept (two drawn signatures and long text fit well under it). */
export const DRAFT_MAX_BYTES = 400_000;

type DraftEnv = Pick<Env, "JWT_SECRET" | "APP_ENV">;
export type DraftFields = [string, string][];

const encoder = new TextEncoder();
let keyCache: { secret: Uint8Array; key: Promise<CryptoKey> } | null = null;

function draftKey(env: DraftEnv): Promise<CryptoKey> {
  const secret = secretKey(env);
  if (!keyCache || !sameBytes(keyCache.secret, secret)) {
    const key = crypto.subtle
      .importKey("raw", secret as Uint8Array<ArrayBuffer>, "HKDF", false, ["deriveKey"])
      .then((base) =>
        crypto.subtle.deriveKey(
          { name: "HKDF", hash: "SHA-256", salt: encoder.encode("baseline-note-drafts"), info: encoder.encode("note drafts v1") },
          base,
          { name: "AES-GCM", length: 256 },
          false,
          ["encrypt", "decrypt"],
        ),
      );
    keyCache = { secret, key };
  }
  return keyCache.key;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));
const unb64 = (text: string) => Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const aad = (id: string, userId: number, path: string) => encoder.encode(`${id}|${userId}|${path}`);

/** base64 in chunks: String.fromCharCode(...big) overflows the stack. */
function toBase64(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i += 0x8000) out += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(out);
}

export async function sealDraft(env: DraftEnv, id: string, userId: number, path: string, fields: DraftFields): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const plain = encoder.encode(JSON.stringify(fields));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: aad(id, userId, path) }, await draftKey(env), plain));
  return `${b64(iv)}.${toBase64(sealed)}`;
}

export async function openDraft(env: DraftEnv, id: string, userId: number, path: string, ciphertext: string): Promise<DraftFields | null> {
  const [iv, body] = ciphertext.split(".");
  if (!iv || !body) return null;
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(iv), additionalData: aad(id, userId, path) }, await draftKey(env), unb64(body));
    const fields = JSON.parse(new TextDecoder().decode(plain)) as unknown;
    return Array.isArray(fields) && fields.every((f) => Array.isArray(f) && f.length === 2 && typeof f[0] === "string" && typeof f[1] === "string") ? (fields as DraftFields) : null;
  } catch {
    return null;
  }
}

/** The text fields of a posted form (files are never kept). */
export function draftFieldsOf(form: FormData): DraftFields {
  const out: DraftFields = [];
  for (const [name, value] of form) if (typeof value === "string") out.push([name, value]);
  return out;
}

function byteSize(fields: DraftFields): number {
  let n = 0;
  for (const [k, v] of fields) n += k.length + v.length;
  return n;
}

/**
 * Keeps a form's fields for the user; answers the draft's id, or null when it was too large to keep. Also
 * purges the user's drafts that are past their 24 hours.
 */
export async function keepDraft(db: Db, env: DraftEnv, userId: number, path: string, fields: DraftFields, now: Date): Promise<string | null> {
  if (byteSize(fields) > DRAFT_MAX_BYTES) return null;
  const id = randomToken(18);
  const at = now.toISOString();
  const ciphertext = await sealDraft(env, id, userId, path, fields);
  await db.batch([
    db.delete(noteDrafts).where(and(eq(noteDrafts.userId, userId), lt(noteDrafts.expiresAt, at))),
    db.insert(noteDrafts).values({ id, userId, path, ciphertext, expiresAt: new Date(now.getTime() + DRAFT_TTL_MS).toISOString(), createdAt: at, updatedAt: at }),
  ]);
  return id;
}

export type TakenDraft = { ok: true; fields: DraftFields; savedAt: string } | { ok: false };

/**
 * The draft `id` of this user on this form, once: it is deleted as it is read (as are the user's expired
 * drafts). Another user's draft, another form's, an expired one or one that does not decrypt answers
 * `{ ok: false }` — and another user's draft is left alone.
 */
export async function takeDraft(db: Db, env: DraftEnv, id: string, userId: number, path: string, now: Date): Promise<TakenDraft> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(id)) return { ok: false };
  const at = now.toISOString();
  const [[row]] = await db.batch([
    db.select().from(noteDrafts).where(and(eq(noteDrafts.id, id), eq(noteDrafts.userId, userId))),
    db.delete(noteDrafts).where(and(eq(noteDrafts.userId, userId), or(and(eq(noteDrafts.id, id), eq(noteDrafts.path, path)), lt(noteDrafts.expiresAt, at)))),
  ]);
  if (!row || row.path !== path || row.expiresAt <= at) return { ok: false };
  const fields = await openDraft(env, row.id, userId, row.path, row.ciphertext);
  return fields ? { ok: true, fields, savedAt: row.createdAt } : { ok: false };
}

/** Drafts past their 24 hours, everyone's (for a scheduled clean-up). */
export async function purgeExpiredDrafts(db: Db, now: Date): Promise<void> {
  await db.delete(noteDrafts).where(lt(noteDrafts.expiresAt, now.toISOString()));
}
