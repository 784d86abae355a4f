import { env } from "cloudflare:test";
import { asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, parents, patients } from "~/db/schema";
import { verifyAuditChain } from "~/services/audit.server";
import { api, apiToken, codeIn, cookiesFrom, createLocation, createParent, createPatient, createUser, db, emailsTo, emailTo, form, lastEmail, request, signInCookie, withoutFlashTag } from "./helpers";

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
    expect((await audits(created.id)).map((r) => r.action)).toEqual(["create", "read", "update", "read", "delete"]);
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

  it("a deleted parent's email is free again; a live parent's is not (probe 8962 item 3)", async () => {
    const token = await apiToken(await createUser({ role: "ADMIN" }));
    const address = email();
    const first = (await (await api("/v2/parents", { method: "POST", token, body: { name: "A", surname: "B", email: address } })).json()) as { data: { id: number } };
    expect((await api(`/v2/parents/${first.data.id}`, { method: "DELETE", token })).status).toBe(200);
    const again = await api("/v2/parents", { method: "POST", token, body: { name: "A", surname: "Again", email: address } });
    expect(again.status, await again.clone().text()).toBe(201);
    const dup = await api("/v2/parents", { method: "POST", token, body: { name: "A", surname: "Third", email: address } });
    expect(((await dup.json()) as { errors: Record<string, string> }).errors.email).toBe("This email is already in use.");
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

  it.each([
    ["the profile's save", "screen"],
    ["PATCH /api/v2/parents/{id}", "api"],
  ] as const)("%s with a new email tells the old address, without naming the new one; a save without one sends nothing", async (_label, via) => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id, name: "Notice" });
    await createPatient({ locationId: loc.id, parentId: parent.id });
    const staff = await createUser({ permissions: ["view_parents", "manage_parents", "view_clients"], locations: [loc.id] });
    const cookie = await signInCookie(staff);
    const token = await apiToken(staff);
    const save = (fields: { name: string; email: string }, version: number) =>
      via === "screen"
        ? post(`/parents/profile/${parent.id}`, { intent: "save", version: String(version), surname: "P", location_id: String(loc.id), ...fields }, cookie)
        : api(`/v2/parents/${parent.id}`, { method: "PATCH", token, body: fields });
    expect((await save({ name: "Renamed", email: parent.email }, 1)).status).toBe(via === "screen" ? 303 : 200);
    const moved = `moved-${email()}`;
    expect((await save({ name: "Renamed", email: moved }, 2)).status).toBe(via === "screen" ? 303 : 200);
    const notice = await emailTo(parent.email, /Your sign-in email was changed/);
    expect(notice?.subject).toBe("Baseline security notice: Your sign-in email was changed");
    expect(notice?.text).not.toContain(moved);
    // One notice, for the save that changed the email.
    expect(await emailsTo(parent.email)).toHaveLength(1);
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
    expect(withoutFlashTag(res.headers.get("Location"))).toMatch(new RegExp(`^/parents/profile/${parent.id}\\?flash=`));
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
    let jar = cookiesFrom(await form("/forgot-password", { email: parent.email, parent: "on" }));
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
    expect(withoutFlashTag(res.headers.get("Location"))).toBe(`/parents/list?search=${encodeURIComponent(address)}&flash=${encodeURIComponent("Parent created.")}`);
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

  it("the Location select offers None only to those who may save it (decision 015, probe 9041 §3)", async () => {
    const denver = await createLocation();
    const miami = await createLocation();
    const select = (html: string) => html.match(/<select[^>]*name="location_id"[^>]*>[\s\S]*?<\/select>/)![0];
    // A manager of two locations: a required select with "Choose a location" first, no "None".
    const manager = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [denver.id, miami.id] }));
    const managers = select(await (await request("/parents/add", { cookie: manager })).text());
    expect(managers).toMatch(/<select[^>]*required=""/);
    expect(managers).toMatch(/<option value=""[^>]*>Choose a location<\/option>/);
    expect(managers).not.toContain(">None<");
    // One location: it is chosen already (unchanged), and still no "None".
    const lm = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [denver.id] }));
    const lms = select(await (await request("/parents/add", { cookie: lm })).text());
    expect(lms).toContain(`<option value="${denver.id}" selected="">`);
    expect(lms).not.toContain(">None<");
    // An all-location actor may leave it empty: "None" stays, not required.
    const admin = await signInCookie(await createUser({ role: "ADMIN" }));
    const admins = select(await (await request("/parents/add", { cookie: admin })).text());
    expect(admins).toMatch(/<option value=""[^>]*>None<\/option>/);
    expect(admins).not.toMatch(/<select[^>]*required=""/);
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

describe("who may change a parent's sign-in (decision 015, stop 24)", () => {
  const NEW = "garden-gate-42";
  const NOT_COVERED = "You can change this parent's password, email, status or location, or delete them, only if you work at every location of their children.";
  const rowOf = async (id: number) => (await db().select().from(parents).where(eq(parents.id, id)))[0]!;
  /** The changes recorded against the parent (not reads, not their own sign-ins). */
  const changeAudits = async (id: number) => (await audits(id)).filter((r) => ["update", "password", "delete"].includes(r.action));
  /** The message as the screens render it. */
  const onScreen = (text: string) => text.replace(/'/g, "&#x27;");
  type Place = "A" | "B" | "C";
  type Case = [label: string, actor: Place[] | "ADMIN", parent: Place | null, children: Place[], expected: 200 | 403 | 404];

  // A, B, C: three fresh locations per case. A parent without a location is seen by all staff (403, not 404).
  const CASES: Case[] = [
    ["own location, no children", ["A"], "A", [], 200],
    ["own location, child at A", ["A"], "A", ["A"], 200],
    ["own location, child at B", ["A"], "A", ["B"], 403],
    ["own location, children at A and B", ["A"], "A", ["A", "B"], 403],
    ["covers A and B, children at A and B", ["A", "B"], "A", ["A", "B"], 200],
    ["no location, no children", ["A"], null, [], 200],
    ["no location, child at A", ["A"], null, ["A"], 200],
    ["no location, child at B", ["A"], null, ["B"], 403],
    ["parent at B, child at A", ["A"], "B", ["A"], 404],
    ["parent at B, no children", ["A"], "B", [], 404],
    ["ADMIN, no location, children at B and C", "ADMIN", null, ["B", "C"], 200],
  ];

  async function setup(actorAt: Case[1], parentAt: Case[2], childrenAt: Case[3]) {
    const loc = { A: await createLocation(), B: await createLocation(), C: await createLocation() };
    const staff =
      actorAt === "ADMIN"
        ? await createUser({ role: "ADMIN" })
        : await createUser({ permissions: ["view_parents", "manage_parents", "view_clients"], locations: actorAt.map((p) => loc[p].id) });
    const parentFor = async () => {
      const parent = await createParent({ locationId: parentAt ? loc[parentAt].id : null });
      for (const p of childrenAt) await createPatient({ locationId: loc[p].id, parentId: parent.id });
      return parent;
    };
    return { loc, cookie: await signInCookie(staff), token: await apiToken(staff), parentFor };
  }

  it.each(CASES)("%s (staff at %j, parent at %s, children at %j): password, email, status, delete → %s; a refusal changes nothing", async (_label, actorAt, parentAt, childrenAt, expected) => {
    const { loc, cookie, token, parentFor } = await setup(actorAt, parentAt, childrenAt);
    const locationId = parentAt ? String(loc[parentAt].id) : "";
    const screenForm = (p: { email: string }, over: Record<string, string>) => ({ intent: "save", version: "1", name: "Pat", surname: "Parent", email: p.email, location_id: locationId, status: "active", ...over });
    const ok = { 200: 303, 403: 403, 404: 404 }[expected];
    type Row = Awaited<ReturnType<typeof rowOf>>;
    const operations: [string, (p: { id: number; email: string }) => Promise<Response>, number, (after: Row, before: Row) => boolean][] = [
      ["password (screen)", (p) => post(`/parents/profile/${p.id}`, { intent: "password", password: NEW, password_confirmation: NEW }, cookie), ok, (a, b) => a.passwordHash !== b.passwordHash],
      ["email (screen)", (p) => post(`/parents/profile/${p.id}`, screenForm(p, { email: `new-${p.email}` }), cookie), ok, (a, b) => a.email === `new-${b.email}`],
      ["status (screen)", (p) => post(`/parents/profile/${p.id}`, screenForm(p, { status: "inactive" }), cookie), ok, (a) => a.status === "inactive"],
      ["email (API)", (p) => api(`/v2/parents/${p.id}`, { method: "PATCH", token, body: { email: `new-${p.email}` } }), expected, (a, b) => a.email === `new-${b.email}`],
      ["status (API)", (p) => api(`/v2/parents/${p.id}`, { method: "PATCH", token, body: { status: "inactive" } }), expected, (a) => a.status === "inactive"],
      ["status (update-status API)", (p) => api(`/v2/parents/update-status/${p.id}`, { method: "PUT", token, body: { status: "inactive" } }), expected, (a) => a.status === "inactive"],
      // A parent still linked to a client is not deleted, even by someone who covers every location.
      ["delete (API)", (p) => api(`/v2/parents/${p.id}`, { method: "DELETE", token }), expected === 200 && childrenAt.length ? 422 : expected, (a) => a.deletedAt !== null],
    ];
    for (const [what, run, status, changed] of operations) {
      const parent = await parentFor();
      const before = await rowOf(parent.id);
      const res = await run(parent);
      expect(res.status, what).toBe(status);
      if (status === 403) expect(await res.text(), what).toContain(what.includes("API") ? NOT_COVERED : onScreen(NOT_COVERED));
      if (status === 422) expect(((await res.json()) as { message: string }).message).toBe("Unlink this parent from their children first.");
      if (status === 303 || status === 200) {
        expect(changed(await rowOf(parent.id), before), what).toBe(true);
        continue;
      }
      expect(await rowOf(parent.id), what).toEqual(before);
      expect(await changeAudits(parent.id), what).toHaveLength(0);
    }
    // Other edits keep today's rule: anyone who sees the parent may change their phone.
    const parent = await parentFor();
    const phone = await api(`/v2/parents/${parent.id}`, { method: "PATCH", token, body: { phone: "813-555-0199" } });
    expect(phone.status).toBe(expected === 404 ? 404 : 200);
  });

  it("PUT /api/v2/parents/update-status/{id}: the status changes and the parent's sessions and tokens end; a bad status is 422; no permission 403", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const staff = await createUser({ permissions: ["view_parents", "manage_parents"], locations: [loc.id] });
    const token = await apiToken(staff);
    const session = await signInCookie(parent, true);
    const parentToken = await apiToken(parent, true);
    const before = await rowOf(parent.id);
    for (const body of [{ status: "retired" }, {}, { status: "" }]) {
      const bad = await api(`/v2/parents/update-status/${parent.id}`, { method: "PUT", token, body });
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(((await bad.json()) as { errors: Record<string, string> }).errors.status).toBe("Choose a status from the list.");
    }
    const viewer = await apiToken(await createUser({ permissions: ["view_parents"], locations: [loc.id] }));
    expect((await api(`/v2/parents/update-status/${parent.id}`, { method: "PUT", token: viewer, body: { status: "inactive" } })).status).toBe(403);
    expect(await rowOf(parent.id)).toEqual(before);
    expect(await changeAudits(parent.id)).toHaveLength(0);
    expect((await api("/auth/me", { method: "POST", token: parentToken })).status).toBe(200);

    const res = await api(`/v2/parents/update-status/${parent.id}`, { method: "PUT", token, body: { status: "inactive", name: "Not Changed" } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { status: string; name: string } }).data).toMatchObject({ status: "inactive", name: "Pat" });
    expect(await rowOf(parent.id)).toMatchObject({ status: "inactive", name: "Pat", version: before.version + 1 });
    expect(await changeAudits(parent.id)).toHaveLength(1);
    expect((await rowOf(parent.id)).accessGeneration).toBe(before.accessGeneration + 1);
    expect((await api("/auth/me", { method: "POST", token: parentToken })).status).toBe(401);
    expect((await request("/change-password", { cookie: session })).status).toBe(302);
  });

  // Probe 8986 #6: a change of the parent's location ends their sessions and tokens, as email, password and status do.
  it.each<[label: string, move: boolean, run: (p: { id: number; email: string }, at: { A: number; B: number }, s: { cookie: string; token: string }) => Promise<Response>]>([
    ["profile save, location A → B", true, (p, at, s) => post(`/parents/profile/${p.id}`, { intent: "save", version: "1", name: "Pat", surname: "Parent", email: p.email, location_id: String(at.B), status: "active" }, s.cookie)],
    ["PATCH /api/v2/parents/{id} location_id B", true, (p, at, s) => api(`/v2/parents/${p.id}`, { method: "PATCH", token: s.token, body: { location_id: at.B } })],
    ["PUT /api/parent/update/{id} location_id B", true, (p, at, s) => api(`/parent/update/${p.id}`, { method: "PUT", token: s.token, body: { name: "Pat", surname: "Parent", email: p.email, location_id: at.B, status: "active" } })],
    ["profile save, location kept, phone changed", false, (p, at, s) => post(`/parents/profile/${p.id}`, { intent: "save", version: "1", name: "Pat", surname: "Parent", email: p.email, location_id: String(at.A), status: "active", phone: "813-555-0199" }, s.cookie)],
    ["PATCH /api/v2/parents/{id} location_id A (as stored)", false, (p, at, s) => api(`/v2/parents/${p.id}`, { method: "PATCH", token: s.token, body: { location_id: at.A, phone: "813-555-0199" } })],
  ])("%s: the parent's sessions and tokens end → %s", async (label, move, run) => {
    const at = { A: (await createLocation()).id, B: (await createLocation()).id };
    const staff = await createUser({ permissions: ["view_parents", "manage_parents"], locations: [at.A, at.B] });
    const parent = await createParent({ locationId: at.A });
    const session = await signInCookie(parent, true);
    const parentToken = await apiToken(parent, true);
    const res = await run(parent, at, { cookie: await signInCookie(staff), token: await apiToken(staff) });
    expect(res.status, label).toBe(label.startsWith("profile") ? 303 : 200);
    expect((await rowOf(parent.id)).locationId, label).toBe(move ? at.B : at.A);
    expect((await request("/change-password", { cookie: session })).status, label).toBe(move ? 302 : 200);
    expect((await api("/auth/me", { method: "POST", token: parentToken })).status, label).toBe(move ? 401 : 200);
  });

  // A parent's location (another one, or none) is changed only by someone covering every location of their live
  // children, as for email and status (decision 015, stop 36): a clinic serving none of the children cannot take the
  // family's parent record over, nor sign the parent out by moving them.
  type Move = [label: string, actor: Place[] | "ADMIN", parent: Place | null, children: Place[], to: Place | null, expected: 200 | 403];
  it.each<Move>([
    ["no location, child at A, staff at B moves the parent to B", ["B"], null, ["A"], "B", 403],
    ["no location, children at A and C, staff at A and B moves the parent to B", ["A", "B"], null, ["A", "C"], "B", 403],
    ["parent at B, child at A, staff at B moves the parent elsewhere (C)", ["B", "C"], "B", ["A"], "C", 403],
    ["no location, child at A, staff at A and B moves the parent to B", ["A", "B"], null, ["A"], "B", 200],
    ["parent at A, child at A, staff at A and B moves the parent to B", ["A", "B"], "A", ["A"], "B", 200],
    ["no location, no children, staff at B moves the parent to B", ["B"], null, [], "B", 200],
    ["ADMIN clears the location of a parent with children at A and B", "ADMIN", "A", ["A", "B"], null, 200],
  ])("location change: %s → %s (screen and API); a refusal writes nothing and ends no session", async (_label, actorAt, parentAt, childrenAt, to, expected) => {
    const { loc, cookie, token, parentFor } = await setup(actorAt, parentAt, childrenAt);
    const target = to ? loc[to].id : null;
    const runs: [string, (p: { id: number; email: string }) => Promise<Response>, number][] = [
      ["screen", (p) => post(`/parents/profile/${p.id}`, { intent: "save", version: "1", name: "Pat", surname: "Parent", email: p.email, location_id: target === null ? "" : String(target), status: "active" }, cookie), expected === 200 ? 303 : 403],
      ["API PATCH", (p) => api(`/v2/parents/${p.id}`, { method: "PATCH", token, body: { location_id: target } }), expected],
    ];
    for (const [what, run, status] of runs) {
      const parent = await parentFor();
      const parentToken = await apiToken(parent, true);
      const before = await rowOf(parent.id);
      const res = await run(parent);
      expect(res.status, what).toBe(status);
      if (status === 403) {
        expect(await res.text(), what).toContain(what === "screen" ? onScreen(NOT_COVERED) : NOT_COVERED);
        expect(await rowOf(parent.id), what).toEqual(before);
        expect(await changeAudits(parent.id), what).toHaveLength(0);
        expect((await api("/auth/me", { method: "POST", token: parentToken })).status, what).toBe(200);
      } else {
        expect((await rowOf(parent.id)).locationId, what).toBe(target);
        expect((await api("/auth/me", { method: "POST", token: parentToken })).status, what).toBe(401);
      }
      // Other edits keep their rule: whoever sees the parent may change the phone.
      expect((await api(`/v2/parents/${parent.id}`, { method: "PATCH", token, body: { phone: "813-555-0199" } })).status, what).toBe(200);
    }
  });

  it("a parent without a location whose child is elsewhere: the profile offers no other location; the children's own clinic still reads the parent", async () => {
    const miami = await createLocation();
    const denver = await createLocation();
    const parent = await createParent({ locationId: null });
    const child = await createPatient({ locationId: miami.id, parentId: parent.id });
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [denver.id] }));
    const html = await (await request(`/parents/profile/${parent.id}`, { cookie })).text();
    const select = /<select[^>]*name="location_id"[\s\S]*?<\/select>/.exec(html)![0];
    expect(select).not.toContain(`value="${denver.id}"`);
    expect(select).toMatch(/<option value=""[^>]*>None<\/option><\/select>/);
    const moved = await api(`/v2/parents/${parent.id}`, { method: "PATCH", token: await apiToken(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [denver.id] })), body: { location_id: denver.id } });
    expect(moved.status).toBe(403);
    const doctor = await apiToken(await createUser({ permissions: ["view_parents", "view_clients"], locations: [miami.id] }));
    expect((await api(`/v2/parents/${parent.id}`, { token: doctor })).status).toBe(200);
    expect((await (await api(`/v2/patients/${child.id}`, { token: doctor })).json()) as { data: { parent_id: number } }).toMatchObject({ data: { parent_id: parent.id } });
  });

  it("a refused password, email, status or delete leaves the parent's password, email, sessions and tokens as they were", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const parent = await createParent({ locationId: mine.id });
    const child = await createPatient({ locationId: theirs.id, parentId: parent.id });
    const staff = await createUser({ permissions: ["view_parents", "manage_parents"], locations: [mine.id] });
    const cookie = await signInCookie(staff);
    const token = await apiToken(staff);
    const session = await signInCookie(parent, true);
    const parentToken = await apiToken(parent, true);
    const before = await rowOf(parent.id);

    const password = await post(`/parents/profile/${parent.id}`, { intent: "password", password: NEW, password_confirmation: NEW }, cookie);
    expect(password.status).toBe(403);
    const shown = await password.text();
    expect(shown).toContain(onScreen(NOT_COVERED));
    expect(shown).not.toContain(NEW);
    const save = await post(`/parents/profile/${parent.id}`, { intent: "save", version: "1", name: "Pat", surname: "Parent", email: "taken-over@test.example", location_id: String(mine.id), status: "active" }, cookie);
    expect(save.status).toBe(403);
    expect(await save.text()).toContain(onScreen(NOT_COVERED));
    expect((await api(`/v2/parents/${parent.id}`, { method: "PATCH", token, body: { email: "taken-over@test.example" } })).status).toBe(403);
    expect((await api(`/v2/parents/${parent.id}`, { method: "PUT", token, body: { name: "Pat", surname: "Parent", email: parent.email, location_id: mine.id, status: "inactive" } })).status).toBe(403);
    const removed = await api(`/v2/parents/${parent.id}`, { method: "DELETE", token });
    expect(removed.status).toBe(403);
    expect(((await removed.json()) as { message: string }).message).toBe(NOT_COVERED);

    expect(await rowOf(parent.id)).toEqual(before);
    expect((await db().select().from(patients).where(eq(patients.id, child.id)))[0]!.parentId).toBe(parent.id);
    expect(await changeAudits(parent.id)).toHaveLength(0);
    expect((await request("/change-password", { cookie: session })).status).toBe(200);
    expect((await api("/auth/me", { method: "POST", token: parentToken })).status).toBe(200);
    expect(await signInCookie(parent, true)).toMatch(/__session=/);
  });

  it("deleting a parent linked to a live client: 422, nothing written; once unlinked (or the client deleted) it goes", async () => {
    const loc = await createLocation();
    const parent = await createParent({ locationId: loc.id });
    const child = await createPatient({ locationId: loc.id, parentId: parent.id });
    const token = await apiToken(await createUser({ permissions: ["view_parents", "manage_parents", "view_clients", "manage_clients"], locations: [loc.id] }));
    const session = await signInCookie(parent, true);
    const refused = await api(`/v2/parents/${parent.id}`, { method: "DELETE", token });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ message: "Unlink this parent from their children first.", errors: { form: "Unlink this parent from their children first." } });
    expect((await rowOf(parent.id)).deletedAt).toBeNull();
    expect((await db().select().from(patients).where(eq(patients.id, child.id)))[0]!.parentId).toBe(parent.id);
    expect(await changeAudits(parent.id)).toHaveLength(0);
    expect((await request("/change-password", { cookie: session })).status).toBe(200);

    // A deleted client no longer counts, and keeps its link (the record's history).
    await db().update(patients).set({ deletedAt: new Date().toISOString() }).where(eq(patients.id, child.id));
    expect((await api(`/v2/parents/${parent.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await rowOf(parent.id)).deletedAt).not.toBeNull();
    expect((await db().select().from(patients).where(eq(patients.id, child.id)))[0]!.parentId).toBe(parent.id);
    expect((await changeAudits(parent.id)).map((r) => r.action)).toEqual(["delete"]);
    expect((await request("/change-password", { cookie: session })).status).toBe(302);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("the profile of a parent whose child is elsewhere says so, hides the password form and fixes email and status; the full form still saves the phone", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const parent = await createParent({ locationId: mine.id });
    await createPatient({ locationId: theirs.id, parentId: parent.id });
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [mine.id] }));
    const html = await (await request(`/parents/profile/${parent.id}`, { cookie })).text();
    expect(html).toContain(onScreen(NOT_COVERED));
    // The child is not listed (another location) but not denied either: not "No linked clients."
    expect(html).not.toContain("No linked clients.");
    expect(html).toContain("Linked clients at locations you do not work at are not listed.");
    expect(html).not.toContain("Set password");
    expect(html).toMatch(/<input[^>]*name="email"[^>]*readonly=""/);
    expect(html).not.toContain('value="inactive"');
    const saved = await post(`/parents/profile/${parent.id}`, { intent: "save", version: "1", name: "Pat", surname: "Parent", email: parent.email, phone: "813-555-0123", location_id: String(mine.id), status: "active" }, cookie);
    expect(saved.status).toBe(303);
    expect((await rowOf(parent.id)).phone).toBe("813-555-0123");

    // Someone who covers both locations gets the forms.
    const both = await signInCookie(await createUser({ permissions: ["view_parents", "manage_parents"], locations: [mine.id, theirs.id] }));
    const full = await (await request(`/parents/profile/${parent.id}`, { cookie: both })).text();
    expect(full).toContain("Set password");
    expect(full).toContain('value="inactive"');
    expect(full).not.toContain("only if you work at every location of their children");
    expect(full).not.toContain("are not listed");
  });

  it("the profile's audit row names the children it shows (decision 019)", async () => {
    const mine = await createLocation();
    const theirs = await createLocation();
    const parent = await createParent({ locationId: mine.id });
    const kids = [await createPatient({ locationId: mine.id, parentId: parent.id, firstName: "Ada" }), await createPatient({ locationId: mine.id, parentId: parent.id, firstName: "Bo" })];
    await createPatient({ locationId: theirs.id, parentId: parent.id, firstName: "Hidden" });
    const cookie = await signInCookie(await createUser({ permissions: ["view_parents", "view_clients"], locations: [mine.id] }));
    const html = await (await request(`/parents/profile/${parent.id}`, { cookie })).text();
    expect(html).toContain("Ada ");
    expect(html).not.toContain("Hidden ");
    const [row] = await audits(parent.id);
    expect(row).toMatchObject({ action: "read", entity: "parent", entityId: String(parent.id), patientId: null });
    expect(JSON.parse(row!.detail!)).toEqual({ patients: kids.map((k) => k.id).sort((a, b) => a - b) });

    // One child: also in patient_id. No child: no client named.
    const single = await createParent({ locationId: mine.id });
    const only = await createPatient({ locationId: mine.id, parentId: single.id });
    await request(`/parents/profile/${single.id}`, { cookie });
    expect((await audits(single.id))[0]).toMatchObject({ patientId: only.id, detail: JSON.stringify({ patients: [only.id] }) });
    const alone = await createParent({ locationId: mine.id });
    await request(`/parents/profile/${alone.id}`, { cookie });
    expect((await audits(alone.id))[0]).toMatchObject({ patientId: null, detail: null });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});
