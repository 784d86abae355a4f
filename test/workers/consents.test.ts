import { env } from "cloudflare:test";
import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, chartComments, clientConsents, notes, plans, pdfJobs, scheduledSessions, settings, sharedDocuments } from "~/db/schema";
import { CONSENT_MESSAGES } from "~/domain/consents";
import { REFERENCE_MESSAGES } from "~/domain/references";
import { MESSAGES as FIELD_MESSAGES } from "~/domain/fields";
import { PORTAL_SHOW_NARRATIVE } from "~/domain/settings";
import { SIGNATURE_IMAGE_MESSAGE } from "~/domain/signature-image";
import { SIGNATURE_PNG } from "../support/note-fixtures";
import { HUGE_SIGNATURE, pngBytes, pngDataUrl } from "../support/png";
import { getActor } from "~/models/actors.server";
import { saveConsentDraft, signConsent } from "~/models/consents.server";
import { pdfLineEnds, pdfText } from "../support/pdf-text";
import { api, apiToken, beforeWriteDb, createBip, createLocation, createParent, createPatient, createPlan, createUser, createWeeklyReport, db, form, request, signInCookie, type TestUser, expectUnsupportedMethods, withoutFlashTag } from "./helpers";

/**
 * Client consents and the parent portal (docs/decisions/040): the four consent calls, the staff screen,
 * the parent's child page (reads audited, narrative hidden by default), signing (once, by the child's own
 * parent), and shared documents from R2.
 */

const PNG = SIGNATURE_PNG;

let home: { id: number };
let away: { id: number };
let parent: TestUser;
let otherParent: TestUser;
let child: Awaited<ReturnType<typeof createPatient>>;
let otherChild: Awaited<ReturnType<typeof createPatient>>;
let awayChild: Awaited<ReturnType<typeof createPatient>>;
let provider: TestUser;
let manager: string;
let viewer: string;
let outsider: string;
let noPerms: string;

async function consentRow(id: number) {
  const [row] = await db().select().from(clientConsents).where(eq(clientConsents.id, id));
  return row!;
}
async function consentCount() {
  return (await db().select({ id: clientConsents.id }).from(clientConsents)).length;
}
async function lastAudit() {
  const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row!;
}
async function draft(patientId: number, sections = [1, 2, 3]) {
  const res = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { patient_id: patientId, sections } });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: number; version: number } }).data;
}

beforeAll(async () => {
  home = await createLocation();
  away = await createLocation();
  parent = await createParent({ locationId: home.id, name: "Rosa", surname: "Family" });
  otherParent = await createParent({ locationId: home.id });
  child = await createPatient({ locationId: home.id, parentId: parent.id, firstName: "Mia" });
  otherChild = await createPatient({ locationId: home.id, parentId: otherParent.id, firstName: "Leo" });
  awayChild = await createPatient({ locationId: away.id });
  provider = await createUser({ permissions: ["view_notes"], locations: [home.id], name: "Jordan" });
  manager = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [home.id] }));
  viewer = await apiToken(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
  outsider = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [away.id] }));
  noPerms = await apiToken(await createUser({ permissions: ["view_notes"], locations: [home.id] }));
});

describe("consent API", () => {
  it("GET /v2/get-client-consents-sections answers the map from id to label; view_clients", async () => {
    const res = await api("/v2/get-client-consents-sections", { token: viewer });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Record<string, string> };
    expect(body.data["1"]).toBe("Consent to assessment and treatment");
    expect(Object.keys(body.data).length).toBeGreaterThanOrEqual(8);
    expect((await api("/v2/get-client-consents-sections", { token: noPerms })).status).toBe(403);
  });

  it("any other method on the consent paths answers 405 JSON 'Unsupported HTTP method' to a Bearer client (not the screens' cross-site 403)", async () => {
    const cases: [method: string, path: string][] = [
      ["PUT", "/v2/store-client-consents"],
      ["GET", "/v2/store-client-consents"],
      ["POST", "/v2/get-client-consents/1"],
      ["POST", "/v2/get-client-consents-sections"],
      ["GET", "/v2/get-client-consent-pdf/1"],
      ["PATCH", "/v2/client-consents/1"],
    ];
    await expectUnsupportedMethods(manager, cases);
  });

  it("POST /v2/store-client-consents creates a draft and updates it with its version (409 when stale); each change audited", async () => {
    const created = await draft(child.id, [1, 4]);
    expect(await lastAudit()).toMatchObject({ action: "create", entity: "consent", entityId: String(created.id), patientId: child.id });
    const row = await consentRow(created.id);
    expect(row).toMatchObject({ status: "draft", sections: "[1,4]", patientId: child.id });
    const upd = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: created.id, version: 1, sections: [2], notes: "Annual renewal" } });
    expect(upd.status, await upd.clone().text()).toBe(200);
    expect(await consentRow(created.id)).toMatchObject({ sections: "[2]", notes: "Annual renewal", version: 2 });
    const stale = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: created.id, version: 1, sections: [3] } });
    expect(stale.status).toBe(409);
    expect(await consentRow(created.id)).toMatchObject({ sections: "[2]", version: 2 });
    // The 409 answers the stored consent: an audited read, as the list's is (and no update row).
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "consent", entityId: String(created.id), patientId: child.id });
  });

  it("without manage_clients 403; another location's client 422 at patient_id (decision 017); bad input 422 with field errors; nothing written", async () => {
    const before = await consentCount();
    expect((await api("/v2/store-client-consents", { method: "POST", token: viewer, body: { patient_id: child.id, sections: [1] } })).status).toBe(403);
    const far = await api("/v2/store-client-consents", { method: "POST", token: outsider, body: { patient_id: child.id, sections: [1] } });
    expect(far.status).toBe(422);
    expect(((await far.json()) as { errors: Record<string, string> }).errors.patient_id).toBe(REFERENCE_MESSAGES.client);
    const bad = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { patient_id: child.id, sections: [] } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: Record<string, string> }).errors.sections).toBe(CONSENT_MESSAGES.sectionsRequired);
    const unknown = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { patient_id: child.id, sections: [77] } });
    expect(unknown.status).toBe(422);
    expect((await api("/v2/store-client-consents", { method: "POST", token: manager, body: { patient_id: awayChild.id, sections: [1] } })).status).toBe(422);
    expect((await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: "x", sections: [1] } })).status).toBe(422);
    expect((await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: 999999, sections: [1] } })).status).toBe(404);
    expect(await consentCount()).toBe(before);
  });

  it("a consent cannot move to another client", async () => {
    const c = await draft(child.id);
    const res = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, patient_id: otherChild.id, sections: [1] } });
    expect(res.status).toBe(422);
    expect((await consentRow(c.id)).patientId).toBe(child.id);
  });

  it("GET /v2/get-client-consents/{client} lists the client's consents, audited; another location 404", async () => {
    await draft(child.id);
    const res = await api(`/v2/get-client-consents/${child.id}`, { token: viewer });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { patient_id: number; status: string; section_labels: string[] }[] };
    expect(body.data.length).toBeGreaterThan(0);
    expect(body.data.every((c) => c.patient_id === child.id)).toBe(true);
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "consent", patientId: child.id, actorType: "user" });
    expect((await api(`/v2/get-client-consents/${child.id}`, { token: outsider })).status).toBe(404);
    expect((await api(`/v2/get-client-consents/${child.id}`, { token: noPerms })).status).toBe(403);
  });

  it("POST /v2/get-client-consent-pdf/{id} is a PDF with the chosen sections' labels; isPrint inline, else a download", async () => {
    const c = await draft(child.id, [1, 3, 5]);
    const res = await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: { sections: [1, 5], isPrint: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pdf");
    expect(res.headers.get("Content-Disposition")).toMatch(/^inline; filename="consent-\d+\.pdf"$/);
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    const text = await pdfText(bytes);
    expect(text).toContain("Consent to assessment and treatment");
    expect(text).toContain("Financial responsibility");
    expect(text).not.toContain("Telehealth");
    const download = await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: {} });
    expect(download.headers.get("Content-Disposition")).toMatch(/^attachment;/);
    expect(await pdfText(new Uint8Array(await download.arrayBuffer()))).toContain("Telehealth");
    expect((await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: outsider, body: {} })).status).toBe(404);
    expect((await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: { sections: [42] } })).status).toBe(422);
  });

  it("a signed consent's PDF asked for none of its own sections is refused with 422 (API and screen), never a signature under nothing", async () => {
    const c = await draft(child.id, [3, 4]);
    const actor = (await getActor(db(), "parent", parent.id))!;
    expect(await signConsent({ db: db(), actor, ip: "127.0.0.1", now: () => new Date() }, c.id, { signer_name: "Rosa Family", agree: "on" }, { version: c.version })).toMatchObject({ ok: true });
    const refused = await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: { sections: [1, 5], isPrint: true } });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ message: CONSENT_MESSAGES.noCoveredSection, errors: { sections: CONSENT_MESSAGES.noCoveredSection } });
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
    const screen = await request(`/patients/consents/pdf/${c.id}?sections=1&print=1`, { cookie });
    expect(screen.status).toBe(422);
    expect(await screen.text()).toContain(CONSENT_MESSAGES.noCoveredSection);
    // One of its sections among others still prints just that one, with the signature.
    const some = await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: { sections: [1, 4] } });
    expect(some.status).toBe(200);
    const text = await pdfText(new Uint8Array(await some.arrayBuffer()));
    expect(text).toContain("Signed by Rosa Family");
    expect(text).not.toContain("Telehealth");
  });
});

describe("a consent PDF's options: one rule on the screen link and the API (decision 040, stop 38)", () => {
  type Answer = { status: number; message: string | null; field: string | null; disposition: string | null };
  let consentId: number;
  let screenCookie: string;
  beforeAll(async () => {
    consentId = (await draft(child.id, [1, 3])).id;
    screenCookie = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
  });

  /** The screen's link: ?sections=…&print=… ; a refusal is plain text. */
  async function viaScreen(id: number, sections: string[], print: string | undefined): Promise<Answer> {
    const q = new URLSearchParams(sections.map((s) => ["sections", s]));
    if (print !== undefined) q.set("print", print);
    const res = await request(`/patients/consents/pdf/${id}?${q}`, { cookie: screenCookie });
    const pdf = res.headers.get("Content-Type") === "application/pdf";
    return { status: res.status, message: pdf ? null : await res.text(), field: null, disposition: res.headers.get("Content-Disposition") };
  }
  /** The API: {sections, isPrint}; a refusal is JSON with message and errors by field. */
  async function viaApi(id: number, sections: unknown[], isPrint: unknown): Promise<Answer> {
    const res = await api(`/v2/get-client-consent-pdf/${id}`, { method: "POST", token: viewer, body: isPrint === undefined ? { sections } : { sections, isPrint } });
    if (res.headers.get("Content-Type") === "application/pdf") return { status: res.status, message: null, field: null, disposition: res.headers.get("Content-Disposition") };
    const body = (await res.json()) as { message: string; errors?: Record<string, string> };
    return { status: res.status, message: body.message, field: body.errors ? Object.keys(body.errors)[0]! : null, disposition: null };
  }

  // [case, screen print, API isPrint, sections (both), status, message or inline/attachment, API error field]
  const cases: [string, string | undefined, unknown, string[], number, string, string | null][] = [
    ["print missing", undefined, undefined, [], 200, "attachment", null],
    ["print 1 / true", "1", true, [], 200, "inline", null],
    ["print true / \"true\"", "true", "true", ["1"], 200, "inline", null],
    ["print on / \"on\"", "on", "on", [], 200, "inline", null],
    ["print yes / \"YES\"", "yes", "YES", [], 200, "inline", null],
    ["print 0 / false", "0", false, [], 200, "attachment", null],
    ["print off / \"false\"", "off", "false", [], 200, "attachment", null],
    ["print no / 0", "no", 0, [], 200, "attachment", null],
    ["print empty / \"\"", "", "", [], 200, "attachment", null],
    ["print maybe", "maybe", "maybe", [], 422, FIELD_MESSAGES.flag, "isPrint"],
    ["print 2", "2", 2, [], 422, FIELD_MESSAGES.flag, "isPrint"],
    ["print y", "y", "y", [], 422, FIELD_MESSAGES.flag, "isPrint"],
    ["an unknown section", undefined, undefined, ["9"], 422, CONSENT_MESSAGES.unknownSection, "sections"],
    ["an unknown section among known ones", "1", true, ["1", "99"], 422, CONSENT_MESSAGES.unknownSection, "sections"],
    ["no section the consent covers", undefined, undefined, ["2"], 422, CONSENT_MESSAGES.noCoveredSection, "sections"],
  ];

  it.each(cases)("%s: the same answer on both", async (_label, print, isPrint, sections, status, expected, field) => {
    const auditBefore = (await lastAudit()).id;
    const screen = await viaScreen(consentId, sections, print);
    const viaJson = await viaApi(consentId, sections.map(Number), isPrint);
    for (const [where, got] of [["screen", screen], ["api", viaJson]] as const) {
      expect(got.status, where).toBe(status);
      if (status === 200) expect(got.disposition, where).toMatch(new RegExp(`^${expected};`));
      else expect(got.message, where).toBe(expected);
    }
    if (status !== 200) {
      expect(viaJson.field).toBe(field);
      // A refused request is no read of the consent: nothing is recorded.
      expect((await lastAudit()).id).toBe(auditBefore);
    }
  });

  it("another location's consent answers 404 on both before its options are read (even bad ones)", async () => {
    const [away] = await db().insert(clientConsents).values({ patientId: awayChild.id, sections: "[1]", status: "draft" }).returning();
    for (const [sections, print] of [[["9"], "maybe"], [[], "1"], [["1"], undefined]] as const) {
      expect((await viaScreen(away!.id, [...sections], print)).status).toBe(404);
      expect((await viaApi(away!.id, sections.map(Number), print)).status).toBe(404);
    }
  });
});

describe("the client-consent-form screen", () => {
  it("staff list the consents and create a draft without JavaScript; bad input keeps the typed notes; other location 404; view only 403 on POST", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [home.id] }));
    const page = await request(`/patients/consents/${child.id}`, { cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Release of information");
    expect(html).toContain("New consent");
    const before = await consentCount();
    const bad = await form(`/patients/consents/${child.id}`, { intent: "save", notes: "Typed before the error" }, cookie);
    expect(bad.status).toBe(422);
    const badHtml = await bad.text();
    expect(badHtml).toContain(CONSENT_MESSAGES.sectionsRequired);
    expect(badHtml).toContain("Typed before the error");
    expect(await consentCount()).toBe(before);
    const body = new URLSearchParams([["intent", "save"], ["sections", "1"], ["sections", "6"], ["notes", "Intake packet"]]);
    const ok = await request(`/patients/consents/${child.id}`, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(ok.status).toBe(303);
    expect(await consentCount()).toBe(before + 1);
    const [row] = await db().select().from(clientConsents).orderBy(desc(clientConsents.id)).limit(1);
    expect(row).toMatchObject({ patientId: child.id, sections: "[1,6]", notes: "Intake packet", status: "draft" });
    const pdf = await request(`/patients/consents/pdf/${row!.id}?print=1&sections=6`, { cookie });
    expect(pdf.status).toBe(200);
    expect(await pdfText(new Uint8Array(await pdf.arrayBuffer()))).toContain("Notice of privacy practices");
    // An unknown section id is the asker's mistake: 422 (as the API answers it) with the message as text, not the error page.
    const unknown = await request(`/patients/consents/pdf/${row!.id}?sections=999`, { cookie });
    expect(unknown.status).toBe(422);
    expect(unknown.headers.get("Content-Type")).toMatch(/^text\/plain/);
    expect(await unknown.text()).not.toContain("Unexpected Server Error");

    const elsewhere = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [away.id] }));
    expect((await request(`/patients/consents/${child.id}`, { cookie: elsewhere })).status).toBe(404);
    expect((await request(`/patients/consents/pdf/${row!.id}`, { cookie: elsewhere })).status).toBe(404);
    expect((await form(`/patients/consents/${child.id}`, { intent: "save", sections: "1" }, elsewhere)).status).toBe(404);
    const viewOnly = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
    expect((await request(`/patients/consents/${child.id}`, { cookie: viewOnly })).status).toBe(200);
    expect((await form(`/patients/consents/${child.id}`, { intent: "save", sections: "1" }, viewOnly)).status).toBe(403);
    // A consent of another client cannot be edited through this client's screen.
    const foreign = await draft(otherChild.id);
    expect((await form(`/patients/consents/${child.id}`, { intent: "save", id: String(foreign.id), sections: "2" }, cookie)).status).toBe(404);
    expect((await consentRow(foreign.id)).sections).toBe("[1,2,3]");
    expect(await consentCount()).toBe(before + 2);
  });

  it("/client-consent-form (clinical §2): a client's consent screen with patient_id, else the clients list to choose one; view_clients; never the 404 page", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
    const direct = await request(`/client-consent-form?patient_id=${child.id}`, { cookie });
    expect(direct.status).toBe(302);
    expect(direct.headers.get("Location")).toBe(`/patients/consents/${child.id}`);
    expect((await request(direct.headers.get("Location")!, { cookie })).status).toBe(200);
    const choose = await request("/client-consent-form", { cookie });
    expect(choose.status).toBe(302);
    expect(withoutFlashTag(choose.headers.get("Location"))).toMatch(/^\/patients\/list\?flash=/);
    const list = await request(choose.headers.get("Location")!, { cookie });
    expect(list.status).toBe(200);
    expect(await list.text()).toContain("Choose a client: their consents open from the client&#x27;s page (Consents).");
    // A client of another location: the consent screen's own 404 (nothing of it is shown).
    const elsewhere = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [away.id] }));
    const far = await request(`/client-consent-form?patient_id=${child.id}`, { cookie: elsewhere });
    expect((await request(far.headers.get("Location")!, { cookie: elsewhere })).status).toBe(404);
    expect((await request("/client-consent-form", { cookie: await signInCookie(await createUser({ permissions: ["view_notes"], locations: [home.id] })) })).status).toBe(403);
    expect((await request("/client-consent-form", { cookie: await signInCookie(parent, true) })).status).toBe(403);
  });

  it("a parent is refused the staff screens", async () => {
    const cookie = await signInCookie(parent, true);
    for (const path of [`/patients/consents/${child.id}`, `/patients/profile/${child.id}`, "/patients/list", "/notes-list", "/billing/list", "/claims"]) {
      expect((await request(path, { cookie })).status, path).toBe(403);
    }
  });
});

describe("the parent portal", () => {
  let cookie: string;
  beforeAll(async () => {
    cookie = await signInCookie(parent, true);
    const bip = await createBip(child);
    const plan = await createPlan(bip, { name: "Reduce hitting" });
    await createWeeklyReport(plan, new Date(Date.now() - 14 * 86_400_000).toISOString().slice(0, 10), 3);
    // A session next year, and a session note with a clinical narrative.
    const year = new Date().getUTCFullYear() + 1;
    const startAt = Math.floor(Date.UTC(year, 0, 6, 9, 0) / 60_000);
    await db().insert(scheduledSessions).values({ patientId: child.id, providerId: provider.id, locationId: home.id, cptCode: "97153", sessionDate: `${year}-01-06`, timeIn: "09:00", timeOut: "11:00", startAt, endAt: startAt + 120, minutes: 120, units: 8 });
    await db().insert(notes).values({ type: "rbt", patientId: child.id, locationId: home.id, providerId: provider.id, cptCode: "97153", sessionDate: "2026-01-05", timeIn: "10:00", timeOut: "10:30", minutes: 30, units: 2, summaryNote: "SECRET NARRATIVE about the session" });
  });

  it("the dashboard links each of the parent's children, and only theirs", async () => {
    const html = await (await request("/dashboard", { cookie })).text();
    expect(html).toContain(`/portal/child/${child.id}`);
    expect(html).not.toContain(`/portal/child/${otherChild.id}`);
  });

  it("the child's page: next sessions, goal chart, session dates without narrative; audited as the parent", async () => {
    const res = await request(`/portal/child/${child.id}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Mia");
    expect(html).toContain("09:00");
    expect(html).toContain("Jordan");
    expect(html).not.toMatch(/Jordan\s+User|provider@|@test\.example/);
    expect(html).toContain("Reduce hitting");
    expect(html).toContain("<svg");
    expect(html).toContain("2026-01-05");
    expect(html).not.toContain("SECRET NARRATIVE");
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "portal_child", actorType: "parent", actorId: parent.id, patientId: child.id });
  });

  it("the page's data (/portal/child/:id.data, what single fetch sends) carries no CPT code, staff details or stored signatures", async () => {
    const signedOne = await draft(child.id, [6]);
    expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(signedOne.id), version: String(signedOne.version), signer_name: "Rosa Family", signature: PNG, agree: "on" }, cookie)).status).toBe(303);
    const res = await request(`/portal/child/${child.id}.data`, { cookie });
    expect(res.status).toBe(200);
    const body = await res.text();
    // The next session is there (date, times, the provider's first name) ...
    expect(body).toContain("09:00");
    expect(body).toContain("Jordan");
    expect(body).toContain("Rosa Family");
    // ... but not its CPT code (decision 040: never answered to a parent), nor the staff's fields of a consent.
    expect(body).not.toContain("97153");
    expect(body).not.toMatch(/cpt_code|"cpt"/i);
    expect(body).not.toContain("signer_type");
    expect(body).not.toContain(PNG);
    expect(body).not.toMatch(/provider@|@test\.example/);
  });

  it("the clinic's narrative setting shows the note summary", async () => {
    await db().insert(settings).values({ key: PORTAL_SHOW_NARRATIVE, value: "true" });
    try {
      expect(await (await request(`/portal/child/${child.id}`, { cookie })).text()).toContain("SECRET NARRATIVE");
    } finally {
      await db().delete(settings).where(eq(settings.key, PORTAL_SHOW_NARRATIVE));
    }
  });

  it("staff chart comments are narrative: off by default they are not on the page nor in its data; with the setting on, they are", async () => {
    const [plan] = await db().select({ id: plans.id }).from(plans).where(eq(plans.patientId, child.id));
    const commentDate = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    await db().insert(chartComments).values({ planId: plan!.id, commentDate, comment: "STAFF COMMENT about home" });
    const page = async () => (await request(`/portal/child/${child.id}`, { cookie })).text();
    const data = async () => (await request(`/portal/child/${child.id}.data`, { cookie })).text();
    const off = await page();
    expect(off).toContain("Reduce hitting"); // the chart is there ...
    expect(off).toContain("<svg");
    expect(off).not.toContain("STAFF COMMENT"); // ... without the comment
    expect(await data()).not.toContain("STAFF COMMENT");
    await db().insert(settings).values({ key: PORTAL_SHOW_NARRATIVE, value: "true" });
    try {
      expect(await page()).toContain("STAFF COMMENT about home");
      expect(await data()).toContain("STAFF COMMENT about home");
    } finally {
      await db().delete(settings).where(eq(settings.key, PORTAL_SHOW_NARRATIVE));
    }
    expect(await page()).not.toContain("STAFF COMMENT");
  });

  it("the signed and shared dates are the child's location's days (New York), as the sessions on the page", async () => {
    const c = await draft(child.id, [7]);
    expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", agree: "on" }, cookie)).status).toBe(303);
    // Signed and shared at 20:55 in New York on 11/27 — already 11/28 in UTC.
    const evening = "2026-11-28T01:55:00.000Z";
    await db().update(clientConsents).set({ signedAt: evening }).where(eq(clientConsents.id, c.id));
    const owner = await createUser({ role: "ADMIN", locations: [home.id] });
    const jobId = crypto.randomUUID();
    const bip = await createBip({ id: child.id, locationId: home.id });
    // The staff job and its family copy, the file a parent is served (decision 041, stop 38).
    const staffJobId = crypto.randomUUID();
    await db().insert(pdfJobs).values({ id: staffJobId, kind: "plan", patientId: child.id, bipId: bip.id, status: "done", fileKey: `pdf/${staffJobId}.pdf`, requestedBy: owner.id });
    await db().insert(pdfJobs).values({ id: jobId, kind: "plan", audience: "family", narrative: 0, patientId: child.id, bipId: bip.id, status: "done", fileKey: `pdf/${jobId}.pdf`, requestedBy: owner.id });
    const [doc] = await db().insert(sharedDocuments).values({ patientId: child.id, title: "Evening plan", pdfJobId: staffJobId, familyJobId: jobId, sharedBy: owner.id, createdAt: evening, updatedAt: evening }).returning();
    const html = await (await request(`/portal/child/${child.id}`, { cookie })).text();
    const signedLine = html.match(new RegExp(`data-testid="signed-consent-${c.id}"[^>]*>([^<]*)`))![1]!;
    expect(signedLine).toContain("signed by Rosa Family on 2026-11-27");
    expect(html).toMatch(new RegExp(`/portal/documents/${doc!.id}">Evening plan</a> <small>shared <!-- -->2026-11-27</small>|/portal/documents/${doc!.id}">Evening plan</a> <small>shared 2026-11-27</small>`));
  });

  it("another family's child answers 404, staff 403; nothing is audited for them", async () => {
    const before = (await db().select({ id: auditLog.id }).from(auditLog)).length;
    expect((await request(`/portal/child/${otherChild.id}`, { cookie })).status).toBe(404);
    expect((await request(`/portal/child/99999999`, { cookie })).status).toBe(404);
    expect((await db().select({ id: auditLog.id }).from(auditLog)).length).toBe(before);
    const staff = await signInCookie(await createUser({ role: "ADMIN", locations: [home.id] }));
    expect((await request(`/portal/child/${child.id}`, { cookie: staff })).status).toBe(403);
  });

  it("the parent signs a consent once (typed and drawn); staff then see who signed and when", async () => {
    const c = await draft(child.id, [1, 2]);
    const page = await (await request(`/portal/child/${child.id}`, { cookie })).text();
    expect(page).toContain(`Consent #${c.id}`);
    expect(page).toContain("Release of information");

    // Bad input: nothing changes, the typed name is kept.
    const noAgree = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family" }, cookie);
    expect(noAgree.status).toBe(422);
    expect(await noAgree.text()).toContain("Rosa Family");
    const noName = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "", agree: "on" }, cookie);
    expect(noName.status).toBe(422);
    expect((await consentRow(c.id)).status).toBe("draft");

    // Another family cannot sign it.
    const intruder = await signInCookie(otherParent, true);
    expect((await form(`/portal/child/${otherChild.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Intruder", agree: "on" }, intruder)).status).toBe(404);
    expect((await consentRow(c.id)).status).toBe("draft");

    const signed = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", signature: PNG, agree: "on" }, cookie);
    expect(signed.status).toBe(303);
    const row = await consentRow(c.id);
    expect(row).toMatchObject({ status: "signed", signerType: "parent", signerId: parent.id, signerName: "Rosa Family", signature: PNG });
    expect(row.signedAt).toBeTruthy();
    expect(await lastAudit()).toMatchObject({ action: "sign", entity: "consent", actorType: "parent", actorId: parent.id });

    // Signed is final: a second signature, or a staff edit, changes nothing.
    const again = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Someone Else", agree: "on" }, cookie);
    expect(again.status).toBe(422);
    expect(await again.text()).toContain(CONSENT_MESSAGES.signedReadOnly);
    const edit = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, sections: [3] } });
    expect(edit.status).toBe(422);
    expect(await consentRow(c.id)).toMatchObject({ signerName: "Rosa Family", sections: "[1,2]", version: row.version });

    const staff = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
    const staffHtml = await (await request(`/patients/consents/${child.id}`, { cookie: staff })).text();
    expect(staffHtml).toContain("Rosa Family (parent)");
    expect(staffHtml).toContain(row.signedAt!.slice(0, 10));
    const pdf = await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: { isPrint: true } });
    const text = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(text).toContain("Signed by Rosa Family");
  });

  it("a sign refused for the unticked box keeps the drawn signature, as the typed name: the re-shown form carries it and signs with it", async () => {
    const c = await draft(child.id, [1]);
    const refused = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", signature: PNG }, cookie);
    expect(refused.status).toBe(422);
    const html = await refused.text();
    expect(html).toContain("Tick the box to confirm you agree.");
    const kept = /<input[^>]*name="signature"[^>]*value="([^"]*)"/.exec(html)?.[1];
    expect(kept).toBe(PNG);
    expect(html).toMatch(/<img[^>]*src="data:image\/png;base64,[^"]*"[^>]*data-signature-preview/);
    expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", signature: kept!, agree: "on" }, cookie)).status).toBe(303);
    expect(await consentRow(c.id)).toMatchObject({ status: "signed", signature: PNG });
  });

  it.each([
    ["claims a 20000×20000 canvas", HUGE_SIGNATURE],
    ["has PNG's first bytes and then anything", "data:image/png;base64," + btoa("\x89PNG\r\n\x1a\n" + "{\"drawn\":true}".repeat(4))],
    // No ink (decision 040, stop 42): a valid image that shows nothing is no drawing.
    ["is a fully transparent 2000×1000 image", pngDataUrl(pngBytes(2000, 1000, { colour: 6, fill: 0, ink: false }))],
    ["is 2000×1 pixels", pngDataUrl(pngBytes(2000, 1, { colour: 6 }))],
    ["is one flat white", pngDataUrl(pngBytes(480, 140, { ink: false }))],
  ])("a drawn signature that %s is refused on the field (422), the typed name kept, nothing signed or audited", async (_, image) => {
    const c = await draft(child.id, [2]);
    const before = await consentRow(c.id);
    const res = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", signature: image, agree: "on" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(SIGNATURE_IMAGE_MESSAGE);
    expect(html).toContain("Rosa Family");
    // The refused drawing is not put back: the pad starts empty.
    expect(/<input[^>]*name="signature"[^>]*value="([^"]*)"/.exec(html)?.[1]).toBe("");
    expect(html).not.toContain("data-signature-preview");
    expect(await consentRow(c.id)).toEqual(before);
    const trail = await db().select().from(auditLog).where(and(eq(auditLog.entity, "consent"), eq(auditLog.entityId, String(c.id))));
    expect(trail.map((a) => a.action)).toEqual(["create"]);
    // The pad's drawing at 3× signs it.
    const ok = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", signature: pngDataUrl(pngBytes(1440, 420, { depth: 1 })), agree: "on" }, cookie);
    expect(ok.status).toBe(303);
    expect((await consentRow(c.id)).status).toBe("signed");
  });

  it("a blank drawing without the typed name answers both fields, nothing signed", async () => {
    const c = await draft(child.id, [2]);
    const before = await consentRow(c.id);
    const res = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "", signature: pngDataUrl(pngBytes(480, 140, { ink: false })), agree: "on" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(SIGNATURE_IMAGE_MESSAGE);
    expect(html).toContain(CONSENT_MESSAGES.nameRequired);
    expect(await consentRow(c.id)).toEqual(before);
  });

  it("a parent signs only the text they read: a draft the clinic changed since answers 409 with the current text, nothing signed", async () => {
    const c = await draft(child.id, [1, 2]);
    const page = await (await request(`/portal/child/${child.id}`, { cookie })).text();
    expect(page).toContain(`name="version" value="${c.version}"`);
    // The clinic changes the draft after the parent opened the page.
    const edited = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, version: c.version, sections: [3] } });
    expect(edited.status).toBe(200);
    const before = await consentRow(c.id);
    const stale = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", agree: "on" }, cookie);
    expect(stale.status).toBe(409);
    const html = await stale.text();
    expect(html).toContain(CONSENT_MESSAGES.changedBeforeSigning);
    expect(html).toContain("Telehealth"); // the current text, to read before signing
    expect(html).toContain(`name="version" value="${before.version}"`);
    expect(html).toContain("Rosa Family"); // the typed name is kept
    // Without a version (a form that does not say what was read): 409 too.
    expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), signer_name: "Rosa Family", agree: "on" }, cookie)).status).toBe(409);
    expect(await consentRow(c.id)).toEqual(before);
    // No signature recorded (the page's re-render records its read, as every portal page does).
    const trail = await db().select().from(auditLog).where(and(eq(auditLog.entity, "consent"), eq(auditLog.entityId, String(c.id))));
    expect(trail.map((a) => a.action)).toEqual(["create", "update"]);
    // Signing the text as it now stands works.
    expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(before.version), signer_name: "Rosa Family", agree: "on" }, cookie)).status).toBe(303);
    expect(await consentRow(c.id)).toMatchObject({ status: "signed", sections: "[3]", signerName: "Rosa Family" });
  });

  it("a draft edited between the parent's read and the signature's write: the signature does not land on the new text", async () => {
    const c = await draft(child.id, [1]);
    const actor = (await getActor(db(), "parent", parent.id))!;
    // Right before the signature's write, the clinic edits the draft (the version moves on).
    const racing = beforeWriteDb(async () => expect((await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, sections: [8] } })).status).toBe(200));
    const result = await signConsent({ db: racing, actor, ip: "127.0.0.1", now: () => new Date() }, c.id, { signer_name: "Rosa Family", agree: "on" }, { version: c.version });
    expect(result).toMatchObject({ ok: false, status: 409, message: CONSENT_MESSAGES.changedBeforeSigning, current: { id: c.id, version: c.version + 1, section_labels: ["Cancellation policy"] } });
    expect(await consentRow(c.id)).toMatchObject({ status: "draft", sections: "[8]", signedAt: null, version: c.version + 1 });
    const trail = await db().select().from(auditLog).where(and(eq(auditLog.entity, "consent"), eq(auditLog.entityId, String(c.id))));
    expect(trail.map((a) => a.action)).toEqual(["create", "update"]);
  });

  it("shared documents download from R2 for the child's parent only; revoked or another family's: 404", async () => {
    const owner = await createUser({ role: "ADMIN", locations: [home.id] });
    const share = async (patientId: number, revoked = false) => {
      const jobId = crypto.randomUUID();
      const key = `pdf/${jobId}.pdf`;
      await env.FILES!.put(key, "%PDF-1.7\n% shared test document\n");
      // A plan PDF is of a BIP: a share of a deleted plan is not the family's to see (decision 041).
      const bip = await createBip({ id: patientId, locationId: home.id });
      // The staff job and its family copy, the file a parent is served (decision 041, stop 38).
      const staffJobId = crypto.randomUUID();
      await db().insert(pdfJobs).values({ id: staffJobId, kind: "plan", patientId, bipId: bip.id, status: "done", fileKey: `pdf/${staffJobId}.pdf`, requestedBy: owner.id });
      await db().insert(pdfJobs).values({ id: jobId, kind: "plan", audience: "family", narrative: 0, patientId, bipId: bip.id, status: "done", fileKey: key, requestedBy: owner.id });
      const [doc] = await db()
        .insert(sharedDocuments)
        .values({ patientId, title: "Treatment plan 2026", pdfJobId: staffJobId, familyJobId: jobId, sharedBy: owner.id, revokedAt: revoked ? new Date().toISOString() : null })
        .returning();
      return doc!.id;
    };
    const mine = await share(child.id);
    const revoked = await share(child.id, true);
    const theirs = await share(otherChild.id);
    const page = await (await request(`/portal/child/${child.id}`, { cookie })).text();
    expect(page).toContain(`/portal/documents/${mine}`);
    expect(page).not.toContain(`/portal/documents/${revoked}`);
    const res = await request(`/portal/documents/${mine}`, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pdf");
    expect((await res.text()).startsWith("%PDF-")).toBe(true);
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "shared_document", entityId: String(mine), actorType: "parent" });
    expect((await request(`/portal/documents/${revoked}`, { cookie })).status).toBe(404);
    expect((await request(`/portal/documents/${theirs}`, { cookie })).status).toBe(404);
    const staff = await signInCookie(owner);
    expect((await request(`/portal/documents/${mine}`, { cookie: staff })).status).toBe(403);
    const rows = await db().select().from(auditLog).where(and(eq(auditLog.entity, "shared_document"), eq(auditLog.entityId, String(theirs))));
    expect(rows).toHaveLength(0);
  });
});

describe("a staff edit of a draft that loses the race to the parent's signature", () => {
  it("answers 409 with a clear message, changes nothing and writes no audit row against the signed consent", async () => {
    const c = await draft(child.id, [2, 4]);
    const staff = await createUser({ permissions: ["view_clients", "manage_clients"], locations: [home.id] });
    const actor = (await getActor(db(), "user", staff.id))!;
    const parentCookie = await signInCookie(parent, true);
    // The edit has read the draft (and passed its checks); right before its write, the parent signs.
    const racing = beforeWriteDb(async () =>
      expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", agree: "on" }, parentCookie)).status).toBe(303),
    );
    const result = await saveConsentDraft({ db: racing, actor, ip: "127.0.0.1", now: () => new Date() }, { sections: [5], notes: "Too late" }, { id: c.id, version: c.version });
    expect(result).toMatchObject({ ok: false, status: 409, message: CONSENT_MESSAGES.signedWhileEditing, current: { id: c.id, status: "signed" } });
    expect(await consentRow(c.id)).toMatchObject({ status: "signed", sections: "[2,4]", notes: "", signerName: "Rosa Family" });
    const trail = await db().select().from(auditLog).where(and(eq(auditLog.entity, "consent"), eq(auditLog.entityId, String(c.id))));
    expect(trail.map((a) => a.action)).toEqual(["create", "sign"]);
  });
});

describe("the narrative setting on the settings screen", () => {
  it("a SUPERADMIN turns portal narratives on and off (default off); the portal follows", async () => {
    const cookie = await signInCookie(await createUser({ role: "SUPERADMIN" }));
    const page = await (await request("/settings", { cookie })).text();
    expect(page).toContain("Parent portal: show parents the summary");
    expect(page).not.toMatch(/name="portal_show_narrative"[^>]*checked/);
    const fields = { intent: "save", code_expiry_minutes: "5", idle_minutes: "30", absolute_hours: "12", demo_mode: "true" };
    expect((await form("/settings", { ...fields, portal_show_narrative: "true" }, cookie)).status).toBe(303);
    const [on] = await db().select().from(settings).where(eq(settings.key, PORTAL_SHOW_NARRATIVE));
    expect(on?.value).toBe("true");
    const parentCookie = await signInCookie(parent, true);
    expect(await (await request(`/portal/child/${child.id}`, { cookie: parentCookie })).text()).toContain("SECRET NARRATIVE");
    expect((await form("/settings", fields, cookie)).status).toBe(303);
    const [off] = await db().select().from(settings).where(eq(settings.key, PORTAL_SHOW_NARRATIVE));
    expect(off?.value).toBe("false");
    expect(await (await request(`/portal/child/${child.id}`, { cookie: parentCookie })).text()).not.toContain("SECRET NARRATIVE");
  });
});

describe("a parent downloads the PDF of a consent they signed (decision 040, stop 17)", () => {
  let cookie: string;
  const sign = (patientId: number, consent: { id: number; version: number }, who: string, by = cookie) =>
    form(`/portal/child/${patientId}`, { intent: "sign", consent_id: String(consent.id), version: String(consent.version), signer_name: who, agree: "on" }, by);
  beforeAll(async () => {
    cookie = await signInCookie(parent, true);
  });

  it("the child's page links the signed consent's PDF; it is the staff's PDF, audited with the parent as actor", async () => {
    const c = await draft(child.id, [2, 7]);
    expect((await sign(child.id, c, "Rosa Family")).status).toBe(303);
    const page = await (await request(`/portal/child/${child.id}`, { cookie })).text();
    expect(page).toContain(`href="/portal/consents/${c.id}/pdf"`);
    expect(page).toContain("Download PDF");
    const res = await request(`/portal/consents/${c.id}/pdf`, { cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/pdf");
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="consent-${c.id}.pdf"`);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const text = await pdfText(new Uint8Array(await res.arrayBuffer()));
    expect(text).toContain("Release of information");
    expect(text).toContain("Emergency care");
    expect(text).toContain("Signed by Rosa Family");
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "consent", entityId: String(c.id), patientId: child.id, actorType: "parent", actorId: parent.id });
    // The staff's PDF of the same consent says the same.
    const staffPdf = await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: {} });
    expect(await pdfText(new Uint8Array(await staffPdf.arrayBuffer()))).toBe(text);
  });

  // Probe 8983 L2: "Signed by <name> (parent/guardian)" was one line, cut at the page's edge past about 95 characters.
  it("a long signer name (120 characters, the most allowed) and long client and clinic names wrap: whole, with the role, inside the margins", async () => {
    const signer = "Mariah de los Angeles Fernandez-Gutierrez y Montenegro de la Santa Trinidad Alvarez Castillo Rodriguez Villanueva Ortega";
    expect(signer).toHaveLength(120);
    const clinic = await createLocation({ title: "Centro de Analisis Conductual Aplicado para Ninos y Familias de la Comunidad Hispana del Condado Metropolitano Sur" });
    const longChild = await createPatient({ locationId: clinic.id, parentId: parent.id, firstName: "Alexandria Konstantina ".repeat(10).trim(), lastName: "Montgomery Vanderbilt ".repeat(10).trim() });
    const clinicManager = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [clinic.id] }));
    const created = await api("/v2/store-client-consents", { method: "POST", token: clinicManager, body: { patient_id: longChild.id, sections: [1] } });
    expect(created.status, await created.clone().text()).toBe(201);
    const c = ((await created.json()) as { data: { id: number; version: number } }).data;
    expect((await sign(longChild.id, c, signer)).status).toBe(303);
    const staffPdf = await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: clinicManager, body: {} });
    for (const res of [await request(`/portal/consents/${c.id}/pdf`, { cookie }), staffPdf]) {
      expect(res.status).toBe(200);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const flat = (await pdfText(bytes)).replace(/\n/g, " ");
      expect(flat).toContain(`Signed by ${signer} (parent/guardian)`);
      expect(flat).toContain(`Client: ${longChild.firstName} ${longChild.lastName}`);
      expect(flat).toContain(clinic.title);
      // The consent PDF's margins are 54 pt each side of a 612-pt page.
      for (const line of await pdfLineEnds(bytes)) expect(line.right, line.text.slice(0, 40)).toBeLessThanOrEqual(612 - 54 + 0.01);
    }
  });

  it("a draft, a withdrawn consent and another family's signed consent answer 404 with no audit row; staff 403", async () => {
    const unsigned = await draft(child.id, [1]);
    const withdrawn = await draft(child.id, [1]);
    expect((await api(`/v2/client-consents/${withdrawn.id}`, { method: "DELETE", token: manager })).status).toBe(200);
    const theirs = await draft(otherChild.id, [1]);
    expect((await sign(otherChild.id, theirs, "Other Parent", await signInCookie(otherParent, true))).status).toBe(303);
    const before = (await db().select({ id: auditLog.id }).from(auditLog)).length;
    for (const id of [unsigned.id, withdrawn.id, theirs.id, 99999999]) expect((await request(`/portal/consents/${id}/pdf`, { cookie })).status, String(id)).toBe(404);
    expect((await db().select({ id: auditLog.id }).from(auditLog)).length).toBe(before);
    const staff = await signInCookie(await createUser({ role: "ADMIN", locations: [home.id] }));
    expect((await request(`/portal/consents/${theirs.id}/pdf`, { cookie: staff })).status).toBe(403);
    // The other family downloads their own.
    expect((await request(`/portal/consents/${theirs.id}/pdf`, { cookie: await signInCookie(otherParent, true) })).status).toBe(200);
  });
});

describe("withdrawing a draft consent (decision 040, stop 17)", () => {
  it("DELETE /v2/client-consents/{id} withdraws a draft: kept on record as withdrawn, audited, gone from the parent's page", async () => {
    const c = await draft(child.id, [3]);
    const cookie = await signInCookie(parent, true);
    expect(await (await request(`/portal/child/${child.id}`, { cookie })).text()).toContain(`>Consent #${c.id}<`);
    const res = await api(`/v2/client-consents/${c.id}`, { method: "DELETE", token: manager });
    expect(res.status, await res.clone().text()).toBe(200);
    const body = (await res.json()) as { data: { status: string; withdrawn_at: string | null }; message: string };
    expect(body.data.status).toBe("withdrawn");
    expect(body.data.withdrawn_at).toBeTruthy();
    expect(body.message).toBe(CONSENT_MESSAGES.withdrawn);
    const row = await consentRow(c.id);
    expect(row).toMatchObject({ status: "withdrawn", deletedAt: null, version: c.version + 1 });
    expect(row.withdrawnBy).toBeGreaterThan(0);
    expect(await lastAudit()).toMatchObject({ action: "withdraw", entity: "consent", entityId: String(c.id), patientId: child.id, actorType: "user" });
    // Staff still see it, as withdrawn; the parent no longer sees it, and cannot sign it.
    const list = (await (await api(`/v2/get-client-consents/${child.id}`, { token: viewer })).json()) as { data: { id: number; status: string }[] };
    expect(list.data.find((x) => x.id === c.id)?.status).toBe("withdrawn");
    // Its PDF (staff) is headed withdrawn, not "Draft (not signed)" (probe 8893, stop 25).
    const pdf = await pdfText(new Uint8Array(await (await api(`/v2/get-client-consent-pdf/${c.id}`, { method: "POST", token: viewer, body: {} })).arrayBuffer()));
    expect(pdf).toContain(`Consent #${c.id} · Withdrawn`);
    expect(pdf).not.toContain("Draft");
    expect(await (await request(`/portal/child/${child.id}`, { cookie })).text()).not.toContain(`>Consent #${c.id}<`);
    expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", agree: "on" }, cookie)).status).toBe(404);
    // A withdrawn consent stays withdrawn: a second withdrawal and an edit answer 422.
    const again = await api(`/v2/client-consents/${c.id}`, { method: "DELETE", token: manager });
    expect(again.status).toBe(422);
    expect(((await again.json()) as { message: string }).message).toBe(CONSENT_MESSAGES.alreadyWithdrawn);
    const edit = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { id: c.id, sections: [1] } });
    expect(edit.status).toBe(422);
    expect(((await edit.json()) as { message: string }).message).toBe(CONSENT_MESSAGES.withdrawnReadOnly);
    expect(await consentRow(c.id)).toMatchObject({ status: "withdrawn", sections: "[3]", version: row.version });
  });

  it("a signed consent cannot be withdrawn (422, unchanged); 403 without manage_clients; another location 404; stale version 409", async () => {
    const cookie = await signInCookie(parent, true);
    const s = await draft(child.id, [1]);
    expect((await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(s.id), version: String(s.version), signer_name: "Rosa Family", agree: "on" }, cookie)).status).toBe(303);
    const signedBefore = await consentRow(s.id);
    const refused = await api(`/v2/client-consents/${s.id}`, { method: "DELETE", token: manager });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toBe(CONSENT_MESSAGES.withdrawSigned);
    expect(await consentRow(s.id)).toEqual(signedBefore);

    const d = await draft(child.id, [2]);
    const before = await consentRow(d.id);
    expect((await api(`/v2/client-consents/${d.id}`, { method: "DELETE", token: viewer })).status).toBe(403);
    expect((await api(`/v2/client-consents/${d.id}`, { method: "DELETE", token: outsider })).status).toBe(404);
    expect((await api(`/v2/client-consents/x`, { method: "DELETE", token: manager })).status).toBe(404);
    expect((await api(`/v2/client-consents/99999999`, { method: "DELETE", token: manager })).status).toBe(404);
    const stale = await request(`/api/v2/client-consents/${d.id}`, { method: "DELETE", headers: { Authorization: `Bearer ${manager}`, "If-Match": String(d.version + 5) } });
    expect(stale.status).toBe(409);
    expect(await consentRow(d.id)).toEqual(before);
  });

  it("a parent signing while staff withdraw: exactly one wins, and the record says which", async () => {
    const cookie = await signInCookie(parent, true);
    for (let i = 0; i < 3; i++) {
      const c = await draft(child.id, [5]);
      const [signed, withdrawn] = await Promise.all([
        form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(c.id), version: String(c.version), signer_name: "Rosa Family", agree: "on" }, cookie),
        api(`/v2/client-consents/${c.id}`, { method: "DELETE", token: manager }),
      ]);
      const row = await consentRow(c.id);
      const wins = [signed.status === 303, withdrawn.status === 200];
      expect(wins.filter(Boolean), `round ${i}: sign ${signed.status}, withdraw ${withdrawn.status}`).toHaveLength(1);
      if (wins[0]) {
        expect(row.status).toBe("signed");
        expect(row.withdrawnAt).toBeNull();
        expect(withdrawn.status).toBe(422);
      } else {
        expect(row.status).toBe("withdrawn");
        expect(row.signedAt).toBeNull();
        expect([404, 422]).toContain(signed.status);
      }
      const trail = await db().select().from(auditLog).where(and(eq(auditLog.entity, "consent"), eq(auditLog.entityId, String(c.id))));
      expect(trail.filter((a) => a.action === "sign" || a.action === "withdraw")).toHaveLength(1);
    }
  });

  it("the screen: a Withdraw button beside each draft (not signed ones), POST → 303 → shown as withdrawn; refusals without JavaScript", async () => {
    const cookie = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [home.id] }));
    const d = await draft(child.id, [4]);
    const html = await (await request(`/patients/consents/${child.id}`, { cookie })).text();
    expect(html).toContain(`aria-label="Withdraw consent #${d.id}"`);
    const signedRow = (await db().select().from(clientConsents).where(and(eq(clientConsents.patientId, child.id), eq(clientConsents.status, "signed"))))[0]!;
    expect(html).not.toContain(`aria-label="Withdraw consent #${signedRow.id}"`);
    const ok = await form(`/patients/consents/${child.id}`, { intent: "withdraw", id: String(d.id), version: String(d.version) }, cookie);
    expect(ok.status).toBe(303);
    expect(ok.headers.get("Location")).toContain(`/patients/consents/${child.id}?flash=`);
    expect((await consentRow(d.id)).status).toBe("withdrawn");
    const after = await (await request(ok.headers.get("Location")!, { cookie })).text();
    expect(after).toMatch(new RegExp(`data-testid="status-${d.id}"[^>]*>Withdrawn<`));
    expect(after).toContain(CONSENT_MESSAGES.withdrawn);
    expect(after).not.toContain(`aria-label="Withdraw consent #${d.id}"`);
    // A signed consent: 422 with the message on the page, nothing changed.
    const refused = await form(`/patients/consents/${child.id}`, { intent: "withdraw", id: String(signedRow.id), version: String(signedRow.version) }, cookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toContain(CONSENT_MESSAGES.withdrawSigned);
    expect((await consentRow(signedRow.id)).status).toBe("signed");
    // Another client's draft through this client's page: 404, unchanged. View only: 403. Another location: 404.
    const foreign = await draft(otherChild.id, [1]);
    expect((await form(`/patients/consents/${child.id}`, { intent: "withdraw", id: String(foreign.id) }, cookie)).status).toBe(404);
    const mine = await draft(child.id, [1]);
    const viewOnly = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
    expect((await form(`/patients/consents/${child.id}`, { intent: "withdraw", id: String(mine.id) }, viewOnly)).status).toBe(403);
    const elsewhere = await signInCookie(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [away.id] }));
    expect((await form(`/patients/consents/${child.id}`, { intent: "withdraw", id: String(mine.id) }, elsewhere)).status).toBe(404);
    for (const id of [foreign.id, mine.id]) expect((await consentRow(id)).status).toBe("draft");
  });
});
