import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, clientConsents, locations, patients } from "~/db/schema";
import { NOTHING_CHANGED_NOTICE, NOTHING_TO_CHANGE } from "~/models/results";
import { SIGNATURE_PNG } from "../support/note-fixtures";
import { pdfImageCount, pdfText } from "../support/pdf-text";
import { api, apiToken, createLocation, createParent, createPatient, createUser, db, form, request, signInCookie, type TestUser } from "./helpers";

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
async function pdfOf(res: Response) {
  expect(res.status).toBe(200);
  const bytes = new Uint8Array(await res.arrayBuffer());
  return { text: (await pdfText(bytes)).replace(/\n/g, " "), images: await pdfImageCount(bytes) };
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

describe("a signed consent's document is the one signed (decision 040, stop 45)", () => {
  let a: typeof locations.$inferSelect;
  let b: typeof locations.$inferSelect;
  let mom: TestUser;
  let dad: TestUser;
  let kid: Awaited<ReturnType<typeof createPatient>>;
  let both: string;
  let onlyA: string;
  let signedId: number;
  let draftId: number;

  beforeAll(async () => {
    a = await createLocation({ title: "Sunrise Clinic Miami" });
    b = await createLocation({ title: "Harbor Clinic Denver" });
    mom = await createParent({ locationId: a.id, name: "Mom", surname: "One" });
    dad = await createParent({ locationId: a.id, name: "Dad", surname: "Two" });
    kid = await createPatient({ locationId: a.id, parentId: mom.id, firstName: "Kiddo", lastName: "Firstname" });
    both = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [a.id, b.id] }));
    onlyA = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [a.id] }));
    const c = await draft(kid.id, [1], "", both);
    expect((await sign(kid.id, c, await signInCookie(mom, true), "Mom One", SIGNATURE_PNG)).status).toBe(303);
    signedId = c.id;
    draftId = (await draft(kid.id, [3], "", both)).id;
  });

  it("the signing stores the clinic and the client's name as the document shows them", async () => {
    expect(await consentRow(signedId)).toMatchObject({ status: "signed", signedLocationId: a.id, signedLocationTitle: "Sunrise Clinic Miami", signedClientName: "Kiddo Firstname" });
    expect(await consentRow(draftId)).toMatchObject({ status: "draft", signedLocationId: null, signedLocationTitle: null, signedClientName: null });
  });

  it("after the client moves to another clinic and is renamed (and the clinic renamed), the signed PDF still names what was signed; a draft shows the client as now", async () => {
    await db().update(patients).set({ locationId: b.id, lastName: "Renamed" }).where(eq(patients.id, kid.id));
    await db().update(locations).set({ title: "Sunrise Clinic Miami Beach" }).where(eq(locations.id, a.id));
    const momCookie = await signInCookie(mom, true);
    const staffCookie = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [b.id] }));
    for (const res of [
      await request(`/portal/consents/${signedId}/pdf`, { cookie: momCookie }),
      await api(`/v2/get-client-consent-pdf/${signedId}`, { method: "POST", token: both, body: {} }),
      await request(`/patients/consents/pdf/${signedId}`, { cookie: staffCookie }),
    ]) {
      const { text } = await pdfOf(res);
      expect(text).toContain("Sunrise Clinic Miami ");
      expect(text).not.toContain("Miami Beach");
      expect(text).not.toContain("Harbor Clinic Denver");
      expect(text).toContain("Client: Kiddo Firstname");
      expect(text).not.toContain("Renamed");
      expect(text).toContain("Signed by Mom One (parent/guardian)");
    }
    // A draft is not on record yet: it shows the client's clinic and name as they are now.
    const { text: draftText } = await pdfOf(await api(`/v2/get-client-consent-pdf/${draftId}`, { method: "POST", token: both, body: {} }));
    expect(draftText).toContain("Harbor Clinic Denver");
    expect(draftText).toContain("Client: Kiddo Renamed");
  });

  it("who may see it still follows the client's current clinic: staff of the clinic it was signed at only answer 404", async () => {
    const res = await api(`/v2/get-client-consent-pdf/${signedId}`, { method: "POST", token: onlyA, body: {} });
    expect(res.status).toBe(404);
  });

  it("a parent linked to the client later sees 'signed by another parent or guardian', never the first parent's name or drawing; staff still see both", async () => {
    await db().update(patients).set({ parentId: dad.id }).where(eq(patients.id, kid.id));
    const dadCookie = await signInCookie(dad, true);
    const page = await request(`/portal/child/${kid.id}`, { cookie: dadCookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toMatch(new RegExp(`Consent #${signedId} \\([^)]*\\): signed by another parent or guardian on \\d{4}-\\d{2}-\\d{2}`));
    expect(html).not.toContain("Mom One");
    const data = await (await request(`/portal/child/${kid.id}.data`, { cookie: dadCookie })).text();
    expect(data).not.toContain("Mom One");
    expect(data).not.toContain("data:image/png");
    const dadPdf = await pdfOf(await request(`/portal/consents/${signedId}/pdf`, { cookie: dadCookie }));
    expect(dadPdf.text).toContain("Signed by another parent or guardian");
    expect(dadPdf.text).not.toContain("Mom One");
    expect(dadPdf.images).toBe(0);
    const staffPdf = await pdfOf(await api(`/v2/get-client-consent-pdf/${signedId}`, { method: "POST", token: both, body: {} }));
    expect(staffPdf.text).toContain("Signed by Mom One (parent/guardian)");
    expect(staffPdf.images).toBe(1);
    // The first parent, no longer linked to the client, no longer reaches the consent.
    expect((await request(`/portal/consents/${signedId}/pdf`, { cookie: await signInCookie(mom, true) })).status).toBe(404);
  });

  it("the signer's own page and PDF still show their name and drawing", async () => {
    const own = await draft(child.id, [8], "", manager);
    const cookie = await signInCookie(parent, true);
    expect((await sign(child.id, own, cookie, "Rosa Family", SIGNATURE_PNG)).status).toBe(303);
    expect(await (await request(`/portal/child/${child.id}`, { cookie })).text()).toContain(`signed by Rosa Family on`);
    const mine = await pdfOf(await request(`/portal/consents/${own.id}/pdf`, { cookie }));
    expect(mine.text).toContain("Signed by Rosa Family (parent/guardian)");
    expect(mine.images).toBe(1);
  });
});

describe("consents signed before the signing stored the document (the migration's backfill)", () => {
  /** The migration's backfill statement, found by what it does (so it is run as shipped, whatever the file is named). */
  function backfill(): string {
    const queries = (env.TEST_MIGRATIONS ?? []).flatMap((m) => m.queries);
    const found = queries.filter((q) => /UPDATE `client_consents` SET\s+`signed_location_id`/.test(q));
    expect(found).toHaveLength(1);
    return found[0]!;
  }

  it("fills a signed consent's clinic and client name from the current ones; drafts and consents that have them keep theirs", async () => {
    const clinic = await createLocation({ title: "Old Signed Clinic" });
    const kid = await createPatient({ locationId: clinic.id, parentId: parent.id, firstName: "Noor", lastName: "Older" });
    const [old] = await db().insert(clientConsents).values({ patientId: kid.id, sections: "[1]", status: "signed", signerType: "parent", signerId: parent.id, signerName: "Rosa Family", signedAt: "2026-10-01T12:00:00.000Z" }).returning();
    const [open] = await db().insert(clientConsents).values({ patientId: kid.id, sections: "[2]", status: "draft" }).returning();
    const [kept] = await db()
      .insert(clientConsents)
      .values({ patientId: kid.id, sections: "[3]", status: "signed", signerType: "parent", signerId: parent.id, signerName: "Rosa Family", signedAt: "2026-11-01T12:00:00.000Z", signedLocationId: home.id, signedLocationTitle: "Where It Was", signedClientName: "Noor Before" })
      .returning();
    await env.DB.prepare(backfill()).run();
    expect(await consentRow(old!.id)).toMatchObject({ signedLocationId: clinic.id, signedLocationTitle: "Old Signed Clinic", signedClientName: "Noor Older" });
    expect(await consentRow(open!.id)).toMatchObject({ signedLocationId: null, signedLocationTitle: null, signedClientName: null });
    expect(await consentRow(kept!.id)).toMatchObject({ signedLocationId: home.id, signedLocationTitle: "Where It Was", signedClientName: "Noor Before" });
  });
});
