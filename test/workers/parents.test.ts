import { env } from "cloudflare:test";
import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, parents, patients } from "~/db/schema";
import { verifyAuditChain } from "~/services/audit.server";
import { api, apiToken, codeIn, cookiesFrom, createLocation, createParent, createPatient, createUser, db, form, lastEmail, request, signInCookie } from "./helpers";

/** Parents and guardians (platform §2 parent routes, §3 Parent/guardian): API and screens. */

function post(path: string, fields: Record<string, string>, cookie: string) {
  return request(path, { method: "POST", body: new URLSearchParams(fields), cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}
let n = 0;
const email = () => `guardian-${Date.now().toString(36)}-${++n}@test.example`;
async function audits(entityId: number) {
  return db().select().from(auditLog).where(sql`${auditLog.entity} = 'parent' and ${auditLog.entityId} = ${String(entityId)}`).orderBy(asc(auditLog.id));
}

describe("/api/v2/parents", () => {
  it("create, show with location, versioned update (409 stale), delete; each change audited", async () => {
    const loc = await createLocation();
    const token = await apiToken(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    const res = await api("/v2/parents", { method: "POST", token, body: { name: "Ana", surname: "Ruiz", email: email(), location_id: loc.id, phone: "813-555-0100" } });
    expect(res.status).toBe(201);
    const created = ((await res.json()) as { data: { id: number; location: { id: number; title: string } } }).data;
    expect(created.location).toEqual({ id: loc.id, title: loc.title });
    const shown = await api(`/parent/show/${created.id}`, { token });
    expect(shown.status).toBe(200);
    // A full update names the location: leaving it out would unlink the parent, which a location-limited user may not do.
    const body = { name: "Ana", surname: "Ruiz Diaz", email: `x${email()}`, location_id: loc.id };
    expect((await api(`/v2/parents/${created.id}`, { method: "PUT", token, body: { ...body, version: 1 } })).status).toBe(200);
    const stale = await api(`/v2/parents/${created.id}`, { method: "PUT", token, body: { ...body, surname: "Other", version: 1 } });
    expect(stale.status).toBe(409);
    const [row] = await db().select().from(parents).where(eq(parents.id, created.id));
    expect(row!.surname).toBe("Ruiz Diaz");
    expect((await api(`/v2/parents/${created.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await api(`/v2/parents/${created.id}`, { token })).status).toBe(404);
    // The show is a parent record read: audited like a client read; the changes each once.
    expect((await audits(created.id)).map((r) => r.action)).toEqual(["create", "read", "update", "delete"]);
  });

  it("a parent read is audited (who, from where); a miss or another location writes nothing", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const parent = await createParent({ locationId: mine.id });
    const theirs = await createParent({ locationId: other.id });
    const reader = await createUser({ permissions: ["view_parents"], locations: [mine.id] });
    const token = await apiToken(reader);
    expect((await api(`/v2/parents/${parent.id}`, { token })).status).toBe(200);
    const [row] = await audits(parent.id);
    expect(row).toMatchObject({ action: "read", entity: "parent", actorType: "user", actorId: reader.id, patientId: null });
    expect(row!.ip).toBeTruthy();
    expect((await api(`/v2/parents/${theirs.id}`, { token })).status).toBe(404);
    expect(await audits(theirs.id)).toHaveLength(0);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("bad input: 422 with the message, nothing written; duplicate email refused", async () => {
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const before = (await db().select().from(parents)).length;
    const res = await api("/v2/parents", { method: "POST", token, body: { name: "", surname: "X", email: "nope" } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toMatchObject({ name: "Name is required.", email: "Enter a valid email address." });
    const existing = await createParent();
    const dup = await api("/v2/parents", { method: "POST", token, body: { name: "A", surname: "B", email: existing.email } });
    expect(((await dup.json()) as { errors: Record<string, string> }).errors.email).toBe("This email is already in use.");
    expect((await db().select().from(parents)).length).toBe(before + 1);
  });

  it("403 without view_parents; 404 for a parent of another location", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const theirs = await createParent({ locationId: other.id });
    const none = await apiToken(await createUser({ permissions: ["view_clients"], locations: [mine.id] }));
    expect((await api("/v2/parents", { token: none })).status).toBe(403);
    const viewer = await apiToken(await createUser({ permissions: ["view_parents"], locations: [mine.id] }));
    expect((await api(`/v2/parents/${theirs.id}`, { token: viewer })).status).toBe(404);
    expect((await api("/v2/parents", { method: "POST", token: viewer, body: {} })).status).toBe(403);
  });
});

describe("parent screens", () => {
  it("list and profile with linked children; edit on the profile; another location 404", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id, name: "Guard" });
    await createPatient({ locationId: loc.id, parentId: parent.id, firstName: "Kid" });
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents", "view_clients"], locations: [loc.id] }));
    const list = await (await request("/parents/list?search=Guard", { cookie })).text();
    expect(list).toContain(`/parents/profile/${parent.id}`);
    const profile = await (await request(`/parents/profile/${parent.id}`, { cookie })).text();
    expect(profile).toContain("Kid ");
    expect((await audits(parent.id)).map((r) => r.action)).toEqual(["read"]);
    expect(profile).toContain("/patients/profile/");
    const bad = await post(`/parents/profile/${parent.id}`, { intent: "save", version: "1", name: "", surname: "P", email: parent.email }, cookie);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("Name is required.");
    const ok = await post(`/parents/profile/${parent.id}`, { intent: "save", version: "1", name: "Guardian", surname: "P", email: parent.email, location_id: String(loc.id) }, cookie);
    expect(ok.status).toBe(303);
    const [row] = await db().select().from(parents).where(eq(parents.id, parent.id));
    expect(row!.name).toBe("Guardian");
    const far = await createParent({ locationId: (await createLocation()).id });
    expect((await request(`/parents/profile/${far.id}`, { cookie })).status).toBe(404);
  });

  it("the list is in name order (name, surname, id), each page read from the name index, and carries no password hash", async () => {
    const loc = await createLocation();
    const tag = `Ordr${Date.now().toString(36)}`;
    const zed = await createParent({ locationId: loc.id, name: `${tag}Zed`, surname: "Able" });
    const amyB = await createParent({ locationId: loc.id, name: `${tag}Amy`, surname: "Baker" });
    const amyA = await createParent({ locationId: loc.id, name: `${tag}Amy`, surname: "Adams" });
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents"], locations: [loc.id] }));
    const list = await (await request(`/parents/list?search=${tag}`, { cookie })).text();
    const at = (id: number) => list.indexOf(`/parents/profile/${id}"`);
    expect([at(amyA.id), at(amyB.id), at(zed.id)].every((i) => i > 0)).toBe(true);
    expect(at(amyA.id)).toBeLessThan(at(amyB.id));
    expect(at(amyB.id)).toBeLessThan(at(zed.id));
    const token = await apiToken(await createUser({ permissions: ["view_parents"], locations: [loc.id] }));
    const shown = await (await api(`/v2/parents?search=${tag}`, { token })).text();
    expect(shown).toContain(`${tag}Zed`);
    expect(shown).not.toMatch(/password|\$argon|pbkdf2|tokens_valid_after/i);
    // The list's order is an index's (migration 0018): a page of 10,000 parents is not a sort of all of them.
    const plan = await env.DB.prepare("explain query plan select id from parents where deleted_at is null order by name, surname, id limit 25").all<{ detail: string }>();
    const steps = plan.results.map((r) => r.detail).join(" | ");
    expect(steps).toContain("parents_live_name_idx");
    expect(steps).not.toContain("TEMP B-TREE");
  });

  it("a parent who signs in gets 403 on parent and client screens", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const child = await createPatient({ locationId: loc.id, parentId: parent.id });
    const cookie = await signInCookie(parent, true);
    for (const path of ["/parents/list", `/parents/profile/${parent.id}`, `/patients/profile/${child.id}`, "/patients/list"]) expect((await request(path, { cookie })).status, path).toBe(403);
    const [kid] = await db().select().from(patients).where(eq(patients.id, child.id));
    expect(kid!.parentId).toBe(parent.id);
  });
});

describe("setting a parent's password (staff, on the profile)", () => {
  const NEW = "garden-gate-42";
  const hashOf = async (id: number) => (await db().select({ hash: parents.passwordHash }).from(parents).where(eq(parents.id, id)))[0]!.hash;

  it("a manager sets it: the parent signs in with it, their old sessions end, one audit row, the password is not echoed", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const oldSession = await signInCookie(parent, true);
    expect((await request("/change-password", { cookie: oldSession })).status).toBe(200);
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    expect(await (await request(`/parents/profile/${parent.id}`, { cookie })).text()).toContain("Set password");

    const res = await post(`/parents/profile/${parent.id}`, { intent: "password", password: NEW, password_confirmation: NEW }, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toMatch(new RegExp(`^/parents/profile/${parent.id}\\?flash=`));
    expect(await (await request(res.headers.get("Location")!, { cookie })).text()).not.toContain(NEW);

    expect((await request("/change-password", { cookie: oldSession })).status).toBe(302);
    expect((await form("/login", { email: parent.email, password: parent.password, parent: "on" })).status).toBe(401);
    const fresh = await signInCookie({ ...parent, password: NEW }, true);
    expect((await request("/change-password", { cookie: fresh })).status).toBe(200);
    expect((await audits(parent.id)).filter((r) => r.action === "password")).toHaveLength(1);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("sets an initial password for a parent who has none", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id, passwordHash: null });
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    expect((await post(`/parents/profile/${parent.id}`, { intent: "password", password: NEW, password_confirmation: NEW }, cookie)).status).toBe(303);
    expect(await signInCookie({ ...parent, password: NEW }, true)).toMatch(/__session=/);
  });

  it.each([
    [{ password: "short", password_confirmation: "short" }, "Password must be at least 8 characters."],
    [{ password: "", password_confirmation: "" }, "Password is required."],
    [{ password: "long-enough-1", password_confirmation: "long-enough-2" }, "Passwords do not match."],
    [{ password: "x".repeat(129), password_confirmation: "x".repeat(129) }, "Password must be at most 128 characters."],
  ])("refuses a password that breaks a rule with its message, changes nothing and echoes nothing (%#)", async (fields, message) => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const session = await signInCookie(parent, true);
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    const before = await hashOf(parent.id);
    const res = await post(`/parents/profile/${parent.id}`, { intent: "password", ...fields }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(message);
    if (fields.password) expect(html).not.toContain(fields.password);
    expect(await hashOf(parent.id)).toBe(before);
    expect((await request("/change-password", { cookie: session })).status).toBe(200);
    expect((await audits(parent.id)).filter((r) => r.action === "password")).toHaveLength(0);
  });

  it("403 without manage_parents; 404 for a parent of another location; nothing changed", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const far = await createParent({ locationId: (await createLocation()).id });
    const before = [await hashOf(parent.id), await hashOf(far.id)];
    const viewer = await signInCookie(await createUser({ permissions: ["view_parents"], locations: [loc.id] }));
    expect(await (await request(`/parents/profile/${parent.id}`, { cookie: viewer })).text()).not.toContain("Set password");
    expect((await post(`/parents/profile/${parent.id}`, { intent: "password", password: NEW, password_confirmation: NEW }, viewer)).status).toBe(403);
    const manager = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    expect((await post(`/parents/profile/${far.id}`, { intent: "password", password: NEW, password_confirmation: NEW }, manager)).status).toBe(404);
    expect([await hashOf(parent.id), await hashOf(far.id)]).toEqual(before);
    expect((await audits(far.id)).filter((r) => r.action === "password")).toHaveLength(0);
  });

  it("the forgot-password flow resets a parent's password", async () => {
    const parent = await createParent();
    let jar = cookiesFrom(await form("/forgot-password", { email: parent.email }));
    const code = codeIn((await lastEmail(parent.email))!.text);
    const verified = await form("/reset-password-verify", { intent: "verify", code }, jar);
    expect(verified.status).toBe(303);
    jar = cookiesFrom(verified, jar);
    const changed = await form("/reset-password-change", { password: NEW, password_confirmation: NEW }, jar);
    expect(changed.status).toBe(303);
    expect(await signInCookie({ ...parent, password: NEW }, true)).toMatch(/__session=/);
  });
});

describe("adding a parent (/parents/add) and /parents", () => {
  const parentsByEmail = (address: string) => db().select().from(parents).where(eq(parents.email, address));

  it("/parents opens the list for a user with view_parents, and answers 403 without it", async () => {
    const loc = await createLocation();
    const viewer = await signInCookie(await createUser({ permissions: ["view_parents"], locations: [loc.id] }));
    const res = await request("/parents", { cookie: viewer });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/parents/list");
    const none = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [loc.id] }));
    expect((await request("/parents", { cookie: none })).status).toBe(403);
  });

  it("a manager adds a parent at their location: the list opens on it, the create is audited once", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const manager = await createUser({ permissions: ["view_parents", "manage_parents"], locations: [mine.id] });
    const cookie = await signInCookie(manager);
    const list = await (await request("/parents/list", { cookie })).text();
    expect(list).toContain('href="/parents/add"');
    const screen = await (await request("/parents/add", { cookie })).text();
    expect(screen).toContain(mine.title);
    expect(screen).not.toContain(other.title);

    const address = email();
    const res = await post("/parents/add", { name: "Rosa", surname: "Mendez", email: address, phone: "305-555-0142", location_id: String(mine.id), status: "active" }, cookie);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`/parents/list?search=${encodeURIComponent(address)}&flash=${encodeURIComponent("Parent created.")}`);
    const [row] = await parentsByEmail(address);
    expect(row).toMatchObject({ name: "Rosa", surname: "Mendez", phone: "305-555-0142", locationId: mine.id, status: "active" });
    const shown = await (await request(res.headers.get("Location")!, { cookie })).text();
    expect(shown).toContain("Parent created.");
    expect(shown).toContain("Rosa Mendez");
    expect(shown).toContain(`/parents/profile/${row!.id}`);
    const rows = await audits(row!.id);
    expect(rows.map((r) => [r.action, r.actorId])).toEqual([["create", manager.id]]);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it.each([
    ["a missing name", { name: "" }, "name", "Name is required."],
    ["a bad email", { email: "not-an-email" }, "email", "Enter a valid email address."],
    ["a bad phone", { phone: "12" }, "phone", "Enter a valid phone number"],
    ["a bad ZIP code", { zip_code: "1234" }, "zip_code", "Enter a valid ZIP code"],
    ["no location (a location-limited user)", { location_id: "" }, "location_id", "Choose one of your locations."],
  ])("refuses %s with the field's message, keeps the typed values, writes nothing", async (_label, over, field, message) => {
    const loc = await createLocation();
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] }));
    const address = email();
    const fields = { name: "Rosa", surname: "Typed-Surname", email: address, location_id: String(loc.id), ...over };
    const before = (await db().select().from(parents)).length;
    const res = await post("/parents/add", fields, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(message);
    expect(html).toMatch(new RegExp(`id="f-${field}"[^>]*aria-invalid="true"`));
    expect(html).toContain('value="Typed-Surname"');
    expect((await db().select().from(parents)).length).toBe(before);
  });

  it("a location-limited user cannot link a parent to another location (screen and API alike); ADMIN may leave it empty", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const user = await createUser({ permissions: ["view_parents", "manage_parents"], locations: [mine.id] });
    const cookie = await signInCookie(user);
    const token = await apiToken(user);
    const far = email();
    const res = await post("/parents/add", { name: "A", surname: "B", email: far, location_id: String(other.id) }, cookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("Choose one of your locations.");
    const viaApi = await api("/v2/parents", { method: "POST", token, body: { name: "A", surname: "B", email: far } });
    expect(viaApi.status).toBe(422);
    expect(((await viaApi.json()) as { errors: Record<string, string> }).errors.location_id).toBe("Choose one of your locations.");
    expect(await parentsByEmail(far)).toHaveLength(0);

    // Unlinking a parent from its location would show it to every location: refused too.
    const linked = await createParent({ locationId: mine.id });
    const unlink = await post(`/parents/profile/${linked.id}`, { intent: "save", version: "1", name: "Pat", surname: "Parent", email: linked.email, location_id: "" }, cookie);
    expect(unlink.status).toBe(422);
    const [still] = await db().select().from(parents).where(eq(parents.id, linked.id));
    expect(still!.locationId).toBe(mine.id);

    const admin = await signInCookie(await createUser({ role: "ADMIN" }));
    const open = email();
    expect((await post("/parents/add", { name: "A", surname: "B", email: open }, admin)).status).toBe(303);
    expect((await parentsByEmail(open))[0]!.locationId).toBeNull();
  });

  it("403 without manage_parents: no form, no Add link, nothing created", async () => {
    const loc = await createLocation();
    const viewer = await signInCookie(await createUser({ permissions: ["view_parents"], locations: [loc.id] }));
    expect((await request("/parents/add", { cookie: viewer })).status).toBe(403);
    expect(await (await request("/parents/list", { cookie: viewer })).text()).not.toContain('href="/parents/add"');
    const address = email();
    expect((await post("/parents/add", { name: "A", surname: "B", email: address, location_id: String(loc.id) }, viewer)).status).toBe(403);
    const parentCookie = await signInCookie(await createParent(), true);
    expect((await post("/parents/add", { name: "A", surname: "B", email: address }, parentCookie)).status).toBe(403);
    expect(await parentsByEmail(address)).toHaveLength(0);
  });
});
