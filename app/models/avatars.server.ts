import { and, eq } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Db } from "~/db/client.server";
import { avatars, locations, users } from "~/db/schema";
import { AVATAR_MAX_BYTES, AVATAR_SNIFF_BYTES, checkAvatar } from "~/domain/avatars";
import { can } from "~/domain/permissions";
import { withAudit } from "~/services/audit.server";
import { bumpListVersion } from "~/services/list-cache.server";
import type { ModelContext } from "./context";
import { EMPLOYEES, loadForChange } from "./employees.server";
import { getLocation, LOCATIONS } from "./locations.server";
import { denied, invalid, notFound, ok, type ModelResult } from "./results";

/**
 * Avatars of users and locations (platform §3). The image is stored in `avatars`; the owner's `avatar`
 * column points at `/avatars/{id}`. Replacing or removing an avatar deletes the owner's previous image,
 * and the bytes and the pointer change in one batch. Every new image has a new id, so its URL may be cached.
 */

type Owner = { type: "user" | "location"; id: number };
export type AvatarAnswer = { avatar: string | null };

export const avatarUrl = (id: string) => `/avatars/${id}`;

type Upload = { ok: true; contentType: string; size: number; bytes: Uint8Array<ArrayBuffer> } | { ok: false; errors: Record<string, string> };

/** The upload's bytes and type, or the field error. An oversized file is refused after reading its first bytes only. */
async function readUpload(file: unknown): Promise<Upload> {
  const blob = file instanceof Blob && file.size > 0 ? file : null;
  const bytes = blob ? new Uint8Array(await (blob.size <= AVATAR_MAX_BYTES ? blob : blob.slice(0, AVATAR_SNIFF_BYTES)).arrayBuffer()) : null;
  const check = checkAvatar(bytes, blob?.size ?? 0);
  // An accepted check had bytes to sniff.
  return check.ok ? { ...check, bytes: bytes! } : check;
}

/** May the actor change this user's avatar? Themself always; others with manage_employees, within their scope. */
async function userAllowed(ctx: ModelContext, userId: number): Promise<ModelResult<null>> {
  if (ctx.actor.kind === "user" && ctx.actor.id === userId) return ok(null);
  if (!can(ctx.actor, "manage_employees")) return denied();
  const loaded = await loadForChange(ctx, userId);
  return loaded.ok ? ok(null) : loaded;
}

async function locationAllowed(ctx: ModelContext, locationId: number): Promise<ModelResult<null>> {
  if (!can(ctx.actor, "manage_locations")) return denied();
  return (await getLocation(ctx, locationId)) ? ok(null) : notFound("Location");
}

/** The statements that replace (image given) or remove (null) an owner's avatar. */
function avatarWrites(ctx: ModelContext, owner: Owner, image: Image | null): BatchItem<"sqlite">[] {
  const pointer = image ? avatarUrl(image.id) : null;
  const updatedAt = ctx.now().toISOString();
  const writes: BatchItem<"sqlite">[] = [ctx.db.delete(avatars).where(and(eq(avatars.ownerType, owner.type), eq(avatars.ownerId, owner.id)))];
  if (image) writes.push(ctx.db.insert(avatars).values({ id: image.id, ownerType: owner.type, ownerId: owner.id, contentType: image.contentType, bytes: image.bytes, size: image.size }));
  if (owner.type === "user") {
    writes.push(ctx.db.update(users).set({ avatar: pointer, updatedAt }).where(eq(users.id, owner.id)), bumpListVersion(ctx.db, EMPLOYEES));
  } else {
    writes.push(ctx.db.update(locations).set({ avatar: pointer, updatedAt }).where(eq(locations.id, owner.id)), bumpListVersion(ctx.db, LOCATIONS));
  }
  return writes;
}

type Image = { id: string; contentType: string; bytes: Uint8Array<ArrayBuffer>; size: number };

/** Stores the image (or removes the avatar: null); user avatars are audited as an employee change. */
async function apply(ctx: ModelContext, owner: Owner, image: Image | null): Promise<ModelResult<AvatarAnswer>> {
  const writes = () => avatarWrites(ctx, owner, image) as [BatchItem<"sqlite">];
  if (owner.type === "user") await withAudit(ctx.db, { actor: ctx.actor, ip: ctx.ip }, { action: "avatar", entity: "employee", entityId: owner.id }, writes);
  else await ctx.db.batch(writes());
  return ok({ avatar: image ? avatarUrl(image.id) : null }, image ? "Avatar updated." : "Avatar removed.");
}

/** Checks the upload, then stores it: a bad file changes nothing. */
async function upload(ctx: ModelContext, owner: Owner, file: unknown): Promise<ModelResult<AvatarAnswer>> {
  const read = await readUpload(file);
  if (!read.ok) return invalid(read.errors);
  return apply(ctx, owner, { id: crypto.randomUUID(), contentType: read.contentType, bytes: read.bytes, size: read.size });
}

/** A new avatar for a user (`file`: the form's `avatar` field). */
export async function setUserAvatar(ctx: ModelContext, userId: number, file: unknown): Promise<ModelResult<AvatarAnswer>> {
  const allowed = await userAllowed(ctx, userId);
  return allowed.ok ? upload(ctx, { type: "user", id: userId }, file) : allowed;
}

export async function removeUserAvatar(ctx: ModelContext, userId: number): Promise<ModelResult<AvatarAnswer>> {
  const allowed = await userAllowed(ctx, userId);
  return allowed.ok ? apply(ctx, { type: "user", id: userId }, null) : allowed;
}

export async function setLocationAvatar(ctx: ModelContext, locationId: number, file: unknown): Promise<ModelResult<AvatarAnswer>> {
  const allowed = await locationAllowed(ctx, locationId);
  return allowed.ok ? upload(ctx, { type: "location", id: locationId }, file) : allowed;
}

export async function removeLocationAvatar(ctx: ModelContext, locationId: number): Promise<ModelResult<AvatarAnswer>> {
  const allowed = await locationAllowed(ctx, locationId);
  return allowed.ok ? apply(ctx, { type: "location", id: locationId }, null) : allowed;
}

/** The stored image, for GET /avatars/{id}; null when there is none (ids are random UUIDs). */
export async function getAvatar(db: Db, id: string): Promise<{ contentType: string; bytes: Uint8Array<ArrayBuffer> } | null> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  const [row] = await db.select({ contentType: avatars.contentType, bytes: avatars.bytes }).from(avatars).where(eq(avatars.id, id)).limit(1);
  return row ?? null;
}
