import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, clientConsents } from "~/db/schema";
import { NOTHING_CHANGED_NOTICE, NOTHING_TO_CHANGE } from "~/models/results";
import { api, apiToken, createLocation, createParent, createPatient, createUser, db, form, signInCookie, type TestUser } from "./helpers";

/**
 * A consent as it stays on record (decisions 017 and 040, stop 45): a draft saved unchanged writes nothing (so the
 * parent who opened it can still sign it), a body `id` that is no record id is refused, a signed consent's document
 * keeps the clinic and client it was signed with, and a parent linked later does not see the first parent's signature.
 */

let home: { id: number };
let parent: TestUser;
let child: Awaited<ReturnType<typeof createPatient>>;
let managerUser: TestUser;
let manager: string;

async function consentRow(id: number) {
  const [row] = await db().select().from(clientConsents).where(eq(clientConsents.id, id));
  return row!;
}
async function auditCount() {
  return (await db().select({ id: auditLog.id }).from(auditLog)).length;
}
async function draft(patientId: number, sections: number[], notes = "", token = manager) {
  const res = await api("/v2/store-client-consents", { method: "POST", token, body: { patient_id: patientId, sections, notes } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: number; version: number } }).data;
}
function sign(patientId: number, c: { id: number; version: number }, cookie: string, signerName: string, signature?: string) {
  return form(`/portal/child/${patientId}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: signerName, agree: "on", ...(signature ? { signature } : {}) }, cookie);
}
beforeAll(async () => {
  home = await createLocation();
  parent = await createParent({ locationId: home.id, name: "Rosa", surname: "Family" });
  child = await createPatient({ locationId: home.id, parentId: parent.id, firstName: "Mia" });
  managerUser = await createUser({ permissions: ["view_clients", "manage_clients"], locations: [home.id] });
  manager = await apiToken(managerUser);
});

describe("a consent draft saved unchanged writes nothing (decision 017, stop 45)", () => {
  it("API: the stored sections (in any order) and notes re-sent answer 422 'Nothing to change', no audit row, version kept; the parent then signs the version they opened", async () => {
    const c = await draft(child.id, [1, 3], "Annual");
    const before = await auditCount();
    for (const sections of [[1, 3], [3, 1], ["1", "3"]]) {
      const res = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, version: c.version, sections, notes: "Annual" } });
      expect(res.status, JSON.stringify(sections)).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe(NOTHING_TO_CHANGE);
    }
    // Without a version too (the body's version is optional), and with the notes' spaces trimmed as the save trims them.
    expect((await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, sections: [1, 3], notes: "  Annual " } })).status).toBe(422);
    expect(await auditCount()).toBe(before);
    expect(await consentRow(c.id)).toMatchObject({ version: c.version, sections: "[1,3]", notes: "Annual", status: "draft" });
    // The parent who read version 1 signs it: no 409 for a save that changed nothing.
    expect((await sign(child.id, c, await signInCookie(parent, true), "Rosa Family")).status).toBe(303);
    expect((await consentRow(c.id)).status).toBe("signed");
  });

  it("API: a stale version is still 409 first; a real change is 200 with one version more", async () => {
    const c = await draft(child.id, [2], "Renewal");
    expect((await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, version: c.version + 5, sections: [2], notes: "Renewal" } })).status).toBe(409);
    const changed = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, version: c.version, sections: [2], notes: "Renewal 2027" } });
    expect(changed.status).toBe(200);
    expect(await consentRow(c.id)).toMatchObject({ version: c.version + 1, notes: "Renewal 2027" });
    const moreSections = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, version: c.version + 1, sections: [2, 4], notes: "Renewal 2027" } });
    expect(moreSections.status).toBe(200);
    expect(await consentRow(c.id)).toMatchObject({ version: c.version + 2, sections: "[2,4]" });
  });

  it("screen: the edit form saved unchanged goes where a save goes with 'Nothing to change.'; nothing written", async () => {
    const c = await draft(child.id, [2], "");
    const staff = await signInCookie(managerUser);
    const before = await auditCount();
    const res = await form(`/patients/consents/${child.id}`, { intent: "save", id: String(c.id), version: String(c.version), sections: "2", notes: "" }, staff);
    expect(res.status).toBe(303);
    const to = new URL(res.headers.get("Location")!, "http://x");
    expect(to.pathname).toBe(`/patients/consents/${child.id}`);
    expect(to.searchParams.get("flash")).toBe(NOTHING_CHANGED_NOTICE);
    expect(await auditCount()).toBe(before);
    expect((await consentRow(c.id)).version).toBe(c.version);
  });
});

describe("a body id that is no record id (stop 45)", () => {
  it("a list, an object or a boolean as `id` answers 422 'id must be a record id.' and edits nothing; the id as digits still edits", async () => {
    const c = await draft(child.id, [5], "Keep");
    for (const id of [[c.id], [String(c.id)], { id: c.id }, true, false, "abc", 1.5, 0]) {
      const res = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id, sections: [6], notes: "Moved" } });
      expect(res.status, JSON.stringify(id)).toBe(422);
      const body = (await res.json()) as { errors: Record<string, string> };
      expect(body.errors.id, JSON.stringify(id)).toBe("id must be a record id.");
    }
    expect(await consentRow(c.id)).toMatchObject({ sections: "[5]", notes: "Keep", version: c.version });
    expect((await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: ` ${c.id} `, sections: [6], notes: "Keep" } })).status).toBe(200);
    expect(await consentRow(c.id)).toMatchObject({ sections: "[6]" });
  });
});
