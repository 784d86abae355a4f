import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, avatars, locations, users } from "~/db/schema";
import { AVATAR_MAX_BYTES, AVATAR_MESSAGES } from "~/domain/avatars";
import { createLocation, createParent, createUser, db, request, signInCookie, withoutFlashTag } from "./helpers";

const PNG_HEAD = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_HEAD = [0xff, 0xd8, 0xff, 0xe0];

function image(head: number[], size = 64): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  bytes.set(head);
  for (let i = head.length; i < size; i++) bytes[i] = i % 251;
  return bytes;
}

/** A multipart POST of an avatar form, as a browser without JavaScript sends it. */
function upload(path: string, cookie: string, file: { bytes: Uint8Array<ArrayBuffer>; name: string; type: string } | null, intent = "avatar") {
  const body = new FormData();
  body.set("intent", intent);
  if (file) body.set("avatar", new File([file.bytes], file.name, { type: file.type }));
  return request(path, { method: "POST", body, cookie });
}

const png = (size = 64) => ({ bytes: image(PNG_HEAD, size), name: "me.png", type: "image/png" });
const userAvatar = async (id: number) => (await db().select({ avatar: users.avatar }).from(users).where(eq(users.id, id)))[0]!.avatar;
const locationAvatar = async (id: number) => (await db().select({ avatar: locations.avatar }).from(locations).where(eq(locations.id, id)))[0]!.avatar;
const storedFor = (type: "user" | "location", id: number) => db().select().from(avatars).where(and(eq(avatars.ownerType, type), eq(avatars.ownerId, id)));

describe("own avatar (profile)", () => {
  it("uploads, shows in the user menu, and GET /avatars/:id answers the bytes with the type", async () => {
    const location = await createLocation();
    const user = await createUser({ permissions: [], locations: [location.id] });
    const cookie = await signInCookie(user);
    const file = png(300);
    const res = await upload("/profile", cookie, file);
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toMatch(/^\/profile\?flash=Avatar/);

    const pointer = await userAvatar(user.id);
    expect(pointer).toMatch(/^\/avatars\/[0-9a-f-]{36}$/);
    const page = await (await request("/profile", { cookie })).text();
    expect(page).toContain(`<img src="${pointer}"`);
    const dashboard = await (await request("/dashboard", { cookie })).text();
    expect(dashboard).toContain(`<img src="${pointer}" alt="" width="32" height="32"/>`);

    const image = await request(pointer!, { cookie });
    expect(image.status).toBe(200);
    expect(image.headers.get("Content-Type")).toBe("image/png");
    expect(image.headers.get("Cache-Control")).toBe("private, max-age=86400");
    expect(image.headers.get("X-Content-Type-Options")).toBe("nosniff");
    expect(new Uint8Array(await image.arrayBuffer())).toEqual(file.bytes);

    // Another signed-in user (a parent too) may see it; without a session it is the sign-in redirect.
    const other = await signInCookie(await createUser({ permissions: [] }));
    expect((await request(pointer!, { cookie: other })).status).toBe(200);
    expect((await request(pointer!, { cookie: await signInCookie(await createParent(), true) })).status).toBe(200);
    const anonymous = await request(pointer!);
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("Location")).toMatch(/^\/login/);

    const [audit] = await db().select().from(auditLog).where(and(eq(auditLog.entity, "employee"), eq(auditLog.action, "avatar"), eq(auditLog.entityId, String(user.id))));
    expect(audit?.actorId).toBe(user.id);
  });

  it("a new upload replaces the previous image (one stored row, a new URL, the old one 404)", async () => {
    const user = await createUser({ permissions: [] });
    const cookie = await signInCookie(user);
    await upload("/profile", cookie, png());
    const first = await userAvatar(user.id);
    await upload("/profile", cookie, { bytes: image(JPEG_HEAD, 80), name: "new.jpg", type: "image/jpeg" });
    const second = await userAvatar(user.id);
    expect(second).not.toBe(first);
    expect(await storedFor("user", user.id)).toHaveLength(1);
    expect((await request(first!, { cookie })).status).toBe(404);
    const res = await request(second!, { cookie });
    expect(res.headers.get("Content-Type")).toBe("image/jpeg");
  });

  it.each([
    ["a text file renamed .png", { bytes: new TextEncoder().encode("just some text, honestly"), name: "photo.png", type: "image/png" }, AVATAR_MESSAGES.type],
    ["an SVG", { bytes: new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"></svg>'), name: "a.svg", type: "image/svg+xml" }, AVATAR_MESSAGES.type],
    ["a PNG over 200 KB", png(AVATAR_MAX_BYTES + 1), AVATAR_MESSAGES.size],
    ["no file at all", null, AVATAR_MESSAGES.type],
  ] as const)("%s is refused with the field message and nothing changes", async (_label, file, message) => {
    const user = await createUser({ permissions: [] });
    const cookie = await signInCookie(user);
    await upload("/profile", cookie, png());
    const before = await userAvatar(user.id);
    const res = await upload("/profile", cookie, file);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(message);
    expect(html).toContain('aria-invalid="true"');
    expect(await userAvatar(user.id)).toBe(before);
    const stored = await storedFor("user", user.id);
    expect(stored.map((s) => `/avatars/${s.id}`)).toEqual([before]);
  });

  it("remove clears the pointer and the image", async () => {
    const user = await createUser({ permissions: [] });
    const cookie = await signInCookie(user);
    await upload("/profile", cookie, png());
    const pointer = await userAvatar(user.id);
    const res = await upload("/profile", cookie, null, "avatar-remove");
    expect(res.status).toBe(303);
    expect(await userAvatar(user.id)).toBeNull();
    expect(await storedFor("user", user.id)).toHaveLength(0);
    expect((await request(pointer!, { cookie })).status).toBe(404);
    expect(await (await request("/profile", { cookie })).text()).toContain("No avatar yet.");
  });
});

describe("employee avatar (manager)", () => {
  it("a manager with manage_employees sets and removes an avatar of an employee of their location", async () => {
    const location = await createLocation();
    const manager = await createUser({ permissions: ["manage_employees"], locations: [location.id] });
    const employee = await createUser({ permissions: [], locations: [location.id] });
    const cookie = await signInCookie(manager);
    const res = await upload(`/doctors/list/edit/${employee.id}`, cookie, png());
    expect(res.status).toBe(303);
    expect(withoutFlashTag(res.headers.get("Location"))).toBe(`/doctors/list/edit/${employee.id}?flash=Avatar%20updated.`);
    const pointer = await userAvatar(employee.id);
    expect(pointer).toMatch(/^\/avatars\//);
    expect(await (await request(`/doctors/list/edit/${employee.id}`, { cookie })).text()).toContain(`<img src="${pointer}"`);
    const [audit] = await db().select().from(auditLog).where(and(eq(auditLog.action, "avatar"), eq(auditLog.entityId, String(employee.id))));
    expect(audit?.actorId).toBe(manager.id);

    expect((await upload(`/doctors/list/edit/${employee.id}`, cookie, null, "avatar-remove")).status).toBe(303);
    expect(await userAvatar(employee.id)).toBeNull();
  });

  it("an employee of another location answers 404; without manage_employees 403; nothing changes", async () => {
    const [mine, theirs] = [await createLocation(), await createLocation()];
    const manager = await createUser({ permissions: ["manage_employees"], locations: [mine.id] });
    const stranger = await createUser({ permissions: [], locations: [theirs.id] });
    const colleague = await createUser({ permissions: [], locations: [mine.id] });
    expect((await upload(`/doctors/list/edit/${stranger.id}`, await signInCookie(manager), png())).status).toBe(404);
    expect((await upload(`/doctors/list/edit/${colleague.id}`, await signInCookie(await createUser({ permissions: [], locations: [mine.id] })), png())).status).toBe(403);
    expect(await userAvatar(stranger.id)).toBeNull();
    expect(await userAvatar(colleague.id)).toBeNull();
    expect(await storedFor("user", stranger.id)).toHaveLength(0);
  });

  it("a bad file on the employee screen re-renders with the message", async () => {
    const location = await createLocation();
    const manager = await createUser({ permissions: ["manage_employees"], locations: [location.id] });
    const employee = await createUser({ permissions: [], locations: [location.id] });
    const res = await upload(`/doctors/list/edit/${employee.id}`, await signInCookie(manager), { bytes: new TextEncoder().encode("text"), name: "x.png", type: "image/png" });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain(AVATAR_MESSAGES.type);
    expect(await userAvatar(employee.id)).toBeNull();
  });
});

describe("location avatar", () => {
  it("manage_locations sets and removes a location's avatar", async () => {
    const location = await createLocation();
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations", "manage_locations_access"], locations: [location.id] }));
    const res = await upload(`/location/list/edit/${location.id}`, cookie, { bytes: image(JPEG_HEAD, 120), name: "l.jpg", type: "image/jpeg" });
    expect(res.status).toBe(303);
    const pointer = await locationAvatar(location.id);
    expect(pointer).toMatch(/^\/avatars\//);
    expect(await (await request(`/location/list/edit/${location.id}`, { cookie })).text()).toContain(`<img src="${pointer}"`);
    const image_ = await request(pointer!, { cookie });
    expect(image_.headers.get("Content-Type")).toBe("image/jpeg");

    const tooBig = await upload(`/location/list/edit/${location.id}`, cookie, { bytes: image(JPEG_HEAD, AVATAR_MAX_BYTES + 10), name: "big.jpg", type: "image/jpeg" });
    expect(tooBig.status).toBe(422);
    expect(await tooBig.text()).toContain(AVATAR_MESSAGES.size);
    expect(await locationAvatar(location.id)).toBe(pointer);

    expect((await upload(`/location/list/edit/${location.id}`, cookie, null, "avatar-remove")).status).toBe(303);
    expect(await locationAvatar(location.id)).toBeNull();
    expect(await storedFor("location", location.id)).toHaveLength(0);
  });

  it("a location outside the scope answers 404, and without manage_locations 403", async () => {
    const [mine, theirs] = [await createLocation(), await createLocation()];
    const cookie = await signInCookie(await createUser({ permissions: ["manage_locations", "manage_locations_access"], locations: [mine.id] }));
    expect((await upload(`/location/list/edit/${theirs.id}`, cookie, png())).status).toBe(404);
    const noPermission = await signInCookie(await createUser({ permissions: ["manage_employees"], locations: [mine.id] }));
    expect((await upload(`/location/list/edit/${mine.id}`, noPermission, png())).status).toBe(403);
    expect(await locationAvatar(theirs.id)).toBeNull();
    expect(await locationAvatar(mine.id)).toBeNull();
  });
});

describe("GET /avatars/:id", () => {
  it.each(["00000000-0000-0000-0000-000000000000", "1", "not-an-id"])("%s that does not exist answers 404", async (id) => {
    const cookie = await signInCookie(await createUser({ permissions: [] }));
    expect((await request(`/avatars/${id}`, { cookie })).status).toBe(404);
  });
});
