import { count, desc } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, insurances, notes, noteVersions, paServices } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import type { NoteContent, NoteType } from "~/domain/notes";
import { SIGNATURE_PNG } from "../support/note-fixtures";
import { pdfImageCount, pdfText } from "../support/pdf-text";
import { api, apiToken, createLocation, createParent, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * Note PDFs (decision 027): GET /api/v2/note_{rbt,bcba,combined}/pdf/{id} and the screens' resource
 * routes /note-{rbt,bcba,combined}/pdf/{id}. The PDFs are read back and their text checked.
 */

let home: Awaited<ReturnType<typeof createLocation>>;
let elsewhere: Awaited<ReturnType<typeof createLocation>>;
let ids: Record<NoteType | "amended" | "other" | "deleted", number>;
let patientId: number;
let token: string;
let cookie: string;
let staffId: number;

async function insertNote(type: NoteType, cpt: string, locationId: number, patient: number, over: Partial<typeof notes.$inferInsert> = {}, content: NoteContent = {}) {
  const [row] = await db()
    .insert(notes)
    .values({
      type,
      patientId: patient,
      locationId,
      cptCode: cpt,
      pos: "12",
      diagnosisCode: "F84.0",
      sessionDate: "2026-11-20",
      timeIn: "09:00",
      timeOut: "11:30",
      timeIn2: "13:00",
      timeOut2: "14:00",
      minutes: 210,
      units: 14,
      md: "HN",
      providerName: "Ruth Banks",
      providerSignedOn: "2026-11-20",
      supervisorName: "Simone Clark",
      summaryNote: "Met with client at home. Client requested items with words.",
      content: JSON.stringify({ participants: "Client and mother", environmental_changes: "New baby sister", ...content }),
      ...over,
    })
    .returning();
  return row!.id;
}

async function auditRows(): Promise<number> {
  const [row] = await db().select({ n: count() }).from(auditLog);
  return row!.n;
}

async function lastAudit() {
  const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row!;
}

beforeAll(async () => {
  home = await createLocation({ title: "Sunrise ABA Center", address: "12 Main St", city: "Springfield", state: "IL", zip: "62701", phone1: "(217) 555-0142", timeZone: "America/Chicago" });
  elsewhere = await createLocation({ title: "Other Clinic" });
  const [insurer] = await db().insert(insurances).values({ name: "Blue Cross" }).returning();
  const patient = await createPatient({ locationId: home.id, firstName: "Mia", lastName: "Rivera", birthDate: "2019-11-21", insurerId: insurer!.id, details: JSON.stringify({ insuranceId: "BCX-99812" }) });
  const outsider = await createPatient({ locationId: elsewhere.id, firstName: "Olga", lastName: "Outside" });
  patientId = patient.id;
  ids = {
    rbt: await insertNote("rbt", "97153", home.id, patient.id, { providerSignature: SIGNATURE_PNG }, { maladaptives: [{ plan_id: null, name: "Elopement", frequency: 3 }], replacements: [{ plan_id: null, name: "Functional communication", total_trials: 12, correct_responses: 8 }] }),
    bcba: await insertNote("bcba", "97155", home.id, patient.id, {}, { protocol_modifications: [{ name: "Transition warnings", assessed: true, modified: true, demonstrated: false }] }),
    combined: await insertNote("combined", "97156", home.id, patient.id, {}, { caregiver_goals: [{ plan_id: null, name: "Parent uses first-then language", percent: 80 }] }),
    amended: await insertNote("rbt", "97153", home.id, patient.id, { version: 2, signedAt: "2026-11-20T20:00:00.000Z" }),
    other: await insertNote("rbt", "97153", elsewhere.id, outsider.id),
    deleted: await insertNote("rbt", "97153", home.id, patient.id, { deletedAt: "2026-11-21T00:00:00.000Z" }),
  };
  const staff = await createUser({ permissions: ["view_notes"], locations: [home.id] });
  await db().insert(noteVersions).values({ noteId: ids.amended, version: 1, snapshot: "{}", reason: "Wrong time out", amendedBy: staff.id, createdAt: "2026-11-21T15:00:00.000Z" });
  staffId = staff.id;
  token = await apiToken(staff);
  cookie = await signInCookie(staff);
});

const API_PATH: Record<NoteType, string> = { rbt: "/v2/note_rbt/pdf", bcba: "/v2/note_bcba/pdf", combined: "/v2/note_combined/pdf" };
const SCREEN_PATH: Record<NoteType, string> = { rbt: "/note-rbt/pdf", bcba: "/note-bcba/pdf", combined: "/note-combined/pdf" };
const TITLE: Record<NoteType, [string, string]> = { rbt: ["Appointment Note", "appointment-note"], bcba: ["Supervision Note", "supervision-note"], combined: ["Session Note", "session-note"] };

async function expectPdf(res: Response, type: NoteType, id: number) {
  if (res.status !== 200) expect(res.status, await res.text()).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("application/pdf");
  expect(res.headers.get("Content-Disposition")).toBe(`inline; filename="${TITLE[type][1]}-${id}.pdf"`);
  expect(res.headers.get("Cache-Control")).toBe("no-store");
  // Chrome's PDF viewer is an <embed> under the response's own policy: object-src must allow it.
  expect(res.headers.get("Content-Security-Policy")).toContain("object-src 'self'");
  expect(res.headers.get("Content-Security-Policy")).toContain("default-src 'none'");
  const bytes = new Uint8Array(await res.arrayBuffer());
  expect(Number(res.headers.get("Content-Length"))).toBe(bytes.byteLength);
  return { bytes, text: await pdfText(bytes) };
}

describe("GET /api/v2/note_{type}/pdf/{id}", () => {
  it.each(["rbt", "bcba", "combined"] as const)("a %s note's PDF: the location header, the client and the session", async (type) => {
    const started = performance.now();
    const res = await api(`${API_PATH[type]}/${ids[type]}`, { token });
    const ms = performance.now() - started;
    const { text } = await expectPdf(res, type, ids[type]);
    console.log(`GET ${API_PATH[type]}/{id}: ${ms.toFixed(0)} ms in the workers pool`);
    for (const s of [
      "Sunrise ABA Center",
      "12 Main St",
      "Springfield, IL 62701",
      "Phone: (217) 555-0142",
      TITLE[type][0],
      "Mia Rivera",
      "11/21/2019 (age 6)",
      "Blue Cross",
      "BCX-99812",
      "Ruth Banks",
      "Simone Clark",
      "11/20/2026",
      "09:00 – 11:30",
      "13:00 – 14:00",
      "3.5 h (210 min)",
      "12 Home",
      "Client and mother",
      "Met with client at home. Client requested items with words.",
    ])
      expect(text, s).toContain(s);
    expect(text).not.toContain("Amended");
  });

  it("each CPT's data and the drawn signature are in the PDF", async () => {
    const rbt = await expectPdf(await api(`${API_PATH.rbt}/${ids.rbt}`, { token }), "rbt", ids.rbt);
    expect(rbt.text).toContain("Functional communication");
    expect(rbt.text).toContain("66.7%");
    expect(rbt.text).toContain("Provider signature (drawn)");
    expect(await pdfImageCount(rbt.bytes)).toBe(1);
    expect((await expectPdf(await api(`${API_PATH.bcba}/${ids.bcba}`, { token }), "bcba", ids.bcba)).text).toContain("Transition warnings");
    expect((await expectPdf(await api(`${API_PATH.combined}/${ids.combined}`, { token }), "combined", ids.combined)).text).toContain("Parent uses first-then language");
  });

  it("an amended note says so and lists the earlier version with its reason", async () => {
    const { text } = await expectPdf(await api(`${API_PATH.rbt}/${ids.amended}`, { token }), "rbt", ids.amended);
    expect(text).toContain("Amended — version 2");
    expect(text).toContain("Wrong time out");
    expect(text).toContain("11/21/2026");
  });

  it("writes one audit row for the read, naming the note and its client", async () => {
    const before = await auditRows();
    expect((await api(`${API_PATH.bcba}/${ids.bcba}`, { token })).status).toBe(200);
    expect(await auditRows()).toBe(before + 1);
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "note", entityId: String(ids.bcba), patientId });
  });

  it("without a token 401, without view_notes 403", async () => {
    const none = await api(`${API_PATH.rbt}/${ids.rbt}`);
    expect(none.status).toBe(401);
    expect(((await none.json()) as { message: string }).message).toBeTruthy();
    const other = await apiToken(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
    const denied = await api(`${API_PATH.rbt}/${ids.rbt}`, { token: other });
    expect(denied.status).toBe(403);
    expect(((await denied.json()) as { message: string }).message).toBe("You don't have permission to access this resource.");
    const parent = await apiToken(await createParent(), true);
    expect((await api(`${API_PATH.rbt}/${ids.rbt}`, { token: parent })).status).toBe(403);
  });

  it.each([
    ["another location's note", () => `${API_PATH.rbt}/${ids.other}`],
    ["a note of another type (an RBT note as BCBA)", () => `${API_PATH.bcba}/${ids.rbt}`],
    ["a BCBA note as combined", () => `${API_PATH.combined}/${ids.bcba}`],
    ["a deleted note", () => `${API_PATH.rbt}/${ids.deleted}`],
    ["a note that does not exist", () => `${API_PATH.rbt}/999999`],
    ["an id that is not a number", () => `${API_PATH.rbt}/abc`],
  ])("%s: 404 JSON, nothing read or audited", async (_name, path) => {
    const before = await auditRows();
    const res = await api(path(), { token });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toContain("application/json");
    expect(((await res.json()) as { message: string }).message).toBe("Note not found.");
    expect(await auditRows()).toBe(before);
  });
});

describe("a note written and amended through the notes API", () => {
  it("its PDF shows what was saved, the drawn signature and the amendment", async () => {
    const [pa] = await db().insert(paServices).values({ patientId, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: "2026-01-01", endDate: "2027-12-31" }).returning();
    const date = addDays(todayIn(new Date(), "America/Chicago"), -1);
    const write = (method: string, path: string, body: unknown) => api(path, { method, token, body });
    const created = await write("POST", "/v2/notes-rbt", {
      patient_id: patientId,
      provider_id: staffId,
      pa_service_id: pa!.id,
      cpt_code: "97153",
      session_date: date,
      time_in: "07:00",
      time_out: "08:00",
      pos: "03",
      diagnosis_code: "F84.0",
      provider_name: "Robin RBT",
      provider_signed_on: date,
      provider_signature: SIGNATURE_PNG,
      maladaptives: [{ plan_id: null, name: "Hitting", frequency: 4 }],
      replacements: [{ plan_id: null, name: "Asking for a break", total_trials: 10, correct_responses: 7 }],
      summary_note: "Met with client at school. Client asked for breaks with a card.",
    });
    const note = ((await created.json()) as { data: { id: number } }).data;
    expect(created.status, JSON.stringify(note)).toBe(201);
    const amended = await write("PATCH", `/v2/notes-rbt/${note.id}`, { time_out: "08:30", amendment_reason: "Session ran longer" });
    expect(amended.status, await amended.clone().text()).toBe(200);
    const { bytes, text } = await expectPdf(await api(`${API_PATH.rbt}/${note.id}`, { token }), "rbt", note.id);
    for (const s of ["Appointment Note", "Amended — version 2", "Robin RBT", "Provider signature (drawn)", "07:00 – 08:30", "1.5 h (90 min)", "Hitting", "Asking for a break", "70%", "Session ran longer", "Met with client at school. Client asked for breaks with a card."])
      expect(text, s).toContain(s);
    expect(text.split("\n")).toContain("6"); // units of 90 minutes
    expect(await pdfImageCount(bytes)).toBe(1);
  });
});

describe("a note whose provider and supervisor were chosen, without typed signature names", () => {
  it("the view and the PDF name both; the signature blocks stay unsigned", async () => {
    const provider = await createUser({ permissions: ["view_notes"], locations: [home.id], name: "Quinn" });
    const supervisor = await createUser({ permissions: ["view_notes"], locations: [home.id], name: "Sloane", role: "BCBA" });
    const [pa] = await db().insert(paServices).values({ patientId, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: "2026-01-01", endDate: "2027-12-31" }).returning();
    const date = addDays(todayIn(new Date(), "America/Chicago"), -2);
    const created = await api("/note_rbt/store", {
      method: "POST",
      token: await apiToken(provider),
      body: { patient_id: patientId, pa_service_id: pa!.id, cpt_code: "97153", session_date: date, time_in: "10:00", time_out: "11:00", supervisor_id: supervisor.id },
    });
    const note = ((await created.json()) as { data: { id: number; provider_id: number; supervisor_id: number; provider_name: string; supervisor_name: string } }).data;
    expect(created.status, JSON.stringify(note)).toBe(201);
    expect(note).toMatchObject({ provider_id: provider.id, supervisor_id: supervisor.id, provider_name: "", supervisor_name: "" });

    const view = await (await request(`/note-rbt/view/${note.id}`, { cookie })).text();
    expect(view).toContain("<dt>Provider</dt><dd>Quinn User</dd>");
    expect(view).toContain("<dt>Supervisor</dt><dd>Sloane User</dd>");
    // The signature blocks are the typed signatures: none yet, so no name in them.
    expect(view.match(/<div class="signature-view">.*?<\/div>/gs)?.join("")).not.toMatch(/Quinn|Sloane/);
    expect(view).not.toContain(" · signed ");

    const { text } = await expectPdf(await api(`${API_PATH.rbt}/${note.id}`, { token }), "rbt", note.id);
    const lines = text.split("\n");
    expect(lines).toContain("Quinn User");
    expect(lines).toContain("Sloane User");
    // Named once each, as the note's provider and supervisor; not as signatures.
    expect(lines.filter((l) => l.includes("Quinn User"))).toHaveLength(1);
    expect(lines.filter((l) => l.includes("Sloane User"))).toHaveLength(1);
    expect(text).toContain("Provider signature");
    expect(text).toContain("Supervisor signature");
  });
});

describe("GET /note-{type}/pdf/{id} (screens)", () => {
  it.each(["rbt", "bcba", "combined"] as const)("a %s note's PDF with the session cookie", async (type) => {
    const before = await auditRows();
    const { text } = await expectPdf(await request(`${SCREEN_PATH[type]}/${ids[type]}`, { cookie }), type, ids[type]);
    expect(text).toContain(TITLE[type][0]);
    expect(text).toContain("Sunrise ABA Center");
    expect(text).toContain("Mia Rivera");
    expect(text).toContain("BCX-99812");
    expect(await auditRows()).toBe(before + 1);
    expect(await lastAudit()).toMatchObject({ action: "read", entity: "note", entityId: String(ids[type]), patientId });
  });

  it("without a session: to sign-in, coming back to the PDF", async () => {
    const res = await request(`${SCREEN_PATH.rbt}/${ids.rbt}`);
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`/login?redirectTo=${encodeURIComponent(`/note-rbt/pdf/${ids.rbt}`)}`);
  });

  it("without view_notes, or as a parent: 403", async () => {
    const other = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [home.id] }));
    expect((await request(`${SCREEN_PATH.rbt}/${ids.rbt}`, { cookie: other })).status).toBe(403);
    const parent = await signInCookie(await createParent(), true);
    expect((await request(`${SCREEN_PATH.rbt}/${ids.rbt}`, { cookie: parent })).status).toBe(403);
  });

  it.each([
    ["another location's note", () => `${SCREEN_PATH.rbt}/${ids.other}`],
    ["a note of another type", () => `${SCREEN_PATH.bcba}/${ids.rbt}`],
    ["a deleted note", () => `${SCREEN_PATH.rbt}/${ids.deleted}`],
    ["an id that is not a number", () => `${SCREEN_PATH.combined}/x1`],
  ])("%s: 404, nothing audited", async (_name, path) => {
    const before = await auditRows();
    const res = await request(path(), { cookie });
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).not.toBe("application/pdf");
    expect(await auditRows()).toBe(before);
  });

  it("staff of another location with every permission gets 404 for this location's note", async () => {
    const outsider = await signInCookie(await createUser({ permissions: ["view_notes", "manage_notes", "view_clients", "manage_clients"], locations: [elsewhere.id] }));
    expect((await request(`${SCREEN_PATH.rbt}/${ids.rbt}`, { cookie: outsider })).status).toBe(404);
  });
});
