import { env } from "cloudflare:test";
import { and, count, desc, eq, gt } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { auditLog, insurances, paServices } from "~/db/schema";
import { noteBodyToFormFields } from "~/domain/note-form";
import { todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import { NOT_A_FORM } from "../../workers/form-bodies";
import { api, apiToken, createLocation, createParent, createPatient, createUser, db, request, signInCookie } from "./helpers";

/** The AI summary: POST /api/note_{rbt,bcba,combined}/generate-summary and the note forms' POST /notes/generate-summary. */

const rbtNote = {
  /** The client (set in beforeAll): a summary request names its client (decision 026, stop 41). */
  patient_id: 0 as number | undefined,
  cpt_code: "97153",
  diagnosis_code: "F84.0",
  pos: "12",
  time_in: "09:00",
  time_out: "10:30",
  patient_name: "Jane Doe",
  session_date: "2026-03-14",
  content: {
    participants: "Mother",
    maladaptives: [{ plan_id: 1, name: "Aggression", frequency: 3 }],
    replacements: [{ plan_id: 2, name: "Manding", total_trials: 10, correct_responses: 7 }],
    interventions: ["DRA", "Prompting"],
    client_appeared: "Calm",
    as_evidenced_by: "Jane followed directions",
    client_response_to_treatment_this_session: "responded well to prompting",
    rbt_modeled_and_demonstrated_to_caregiver: "labeled praise",
  },
};

const bcba97156 = {
  patient_id: 0,
  cpt_code: "97156",
  diagnosis_code: "F84.0",
  pos: "home", // the legacy client sends the POS normalised
  time_in2: "13:00",
  time_out2: "14:00",
  participants: "Mother", // and the content fields beside the others
  environmental_changes: "None",
  caregiver_goals: [{ name: "First-then language", percent: 70 }],
  demonstrated_replacement_protocols: ["Manding"],
  demonstrated_intervention_protocols: ["DRA"],
  discussed_behaviors: ["Aggression"],
  progress_noted_this_session_compared_to_previous_session: "more consistent",
};

async function auditRows() {
  const [row] = await db().select({ n: count() }).from(auditLog);
  return row!.n;
}

const lastAudit = async () => (await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1))[0]!;
/** The audit rows of one action written after the row `afterId`. */
const auditSince = async (afterId: number, action: string) => db().select().from(auditLog).where(and(gt(auditLog.id, afterId), eq(auditLog.action, action)));

let rbtId: number;
let location: { id: number };
let token: string;
let noPermissionToken: string;
let cookie: string;
let noPermissionCookie: string;
let clientId: number;

beforeAll(async () => {
  location = await createLocation();
  const rbt = await createUser({ permissions: ["view_notes"], locations: [location.id] });
  rbtId = rbt.id;
  const other = await createUser({ permissions: ["view_clients"], locations: [location.id] });
  [token, noPermissionToken, cookie, noPermissionCookie] = await Promise.all([apiToken(rbt), apiToken(other), signInCookie(rbt), signInCookie(other)]);
  clientId = (await createPatient({ locationId: location.id, firstName: "Jane", lastName: "Doe" })).id;
  rbtNote.patient_id = clientId;
  bcba97156.patient_id = clientId;
});

describe("POST /api/note_*/generate-summary", () => {
  it("answers the built-in summary for a complete RBT note, with nothing identifying in it", async () => {
    const before = await auditRows();
    const res = await api("/note_rbt/generate-summary", { method: "POST", token, body: rbtNote });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { summary: string; provider: string };
    expect(body.provider).toBe("built-in");
    expect(body.summary).toMatch(/^Met with client at home/);
    expect(body.summary).toContain("aggression observed 3 times");
    expect(body.summary).not.toMatch(/Jane|Doe|2026|97153|F84|09:00/);
    const sentences = body.summary.split(/(?<=[.!?])\s+/).length;
    expect(sentences).toBeGreaterThanOrEqual(5);
    expect(sentences).toBeLessThanOrEqual(9);
    // Nothing stored; the request itself is recorded (probe 8964 §4): who, the note type, the provider, no content.
    expect(await auditRows()).toBe(before + 1);
    expect(await lastAudit()).toMatchObject({ actorId: rbtId, action: "ai_summary", entity: "note", entityId: null, patientId: clientId, detail: JSON.stringify({ patients: [clientId], type: "rbt", provider: "built-in" }) });
  });

  it("BCBA and combined notes, from the legacy client's flat fields and normalised POS", async () => {
    const bcba = await api("/note_bcba/generate-summary", { method: "POST", token, body: bcba97156 });
    expect(bcba.status).toBe(200);
    expect(((await bcba.json()) as { summary: string }).summary).toMatch(/^The BCBA met with client at home/);
    const combined = await api("/note_combined/generate-summary", { method: "POST", token, body: rbtNote });
    expect(combined.status).toBe(200);
    expect(((await combined.json()) as { summary: string }).summary).toMatch(/^Met with client at home/);
  });

  const NO_CPT = { missing: ["CPT Code"], errors: { cpt_code: "CPT Code is required." } };
  it.each([
    ["an empty RBT body", "/note_rbt/generate-summary", {}, NO_CPT],
    ["an empty BCBA body", "/note_bcba/generate-summary", {}, NO_CPT],
    ["only unknown keys", "/note_rbt/generate-summary", { foo: 1 }, NO_CPT],
    ["no CPT code", "/note_rbt/generate-summary", { ...rbtNote, cpt_code: "" }, NO_CPT],
    [
      "missing RBT fields",
      "/note_rbt/generate-summary",
      { ...rbtNote, pos: "", content: { ...rbtNote.content, interventions: [], client_appeared: "" } },
      { missing: ["POS", "Interventions", "Mood"], errors: { pos: "POS is required.", "content.interventions": "Interventions is required.", "content.client_appeared": "Mood is required." } },
    ],
    ["97153 on a BCBA note", "/note_bcba/generate-summary", rbtNote, { missing: ["THIS CPT HAS NOT BEEN IMPLEMENTED YET"], errors: { cpt_code: "THIS CPT HAS NOT BEEN IMPLEMENTED YET." } }],
    ["97156 at home without caregiver goals", "/note_bcba/generate-summary", { ...bcba97156, caregiver_goals: [] }, { missing: ["Caregiver Goals"], errors: { "content.caregiver_goals": "Caregiver Goals is required." } }],
  ])("%s → 422 Missing Required Fields with the list and the errors per field", async (_label, path, note, expected) => {
    const res = await api(path, { method: "POST", token, body: note });
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ message: "Missing Required Fields", ...expected });
  });

  it("a field beyond a note's bounds → 422 quickly with the save's message and the field, nested or flat; at the bound it is summarised", async () => {
    const long = "z".repeat(200_000);
    const started = performance.now();
    const res = await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...rbtNote, content: { ...rbtNote.content, as_evidenced_by: long } } });
    // Scrubbing a 200,000-character field used to take minutes.
    expect(performance.now() - started).toBeLessThan(3000);
    expect(res.status).toBe(422);
    const message = "As evidenced by must be at most 5000 characters.";
    expect(await res.json()).toEqual({ message, errors: { "content.as_evidenced_by": message } });
    const flat = await api("/note_bcba/generate-summary", { method: "POST", token, body: { ...bcba97156, participants: long } });
    expect(flat.status).toBe(422);
    expect(((await flat.json()) as { errors: Record<string, string> }).errors).toEqual({ "content.participants": "Participants must be at most 5000 characters." });
    const atBound = await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...rbtNote, content: { ...rbtNote.content, as_evidenced_by: "z".repeat(5000) } } });
    expect(atBound.status).toBe(200);
  });

  it("a content field sent flat and in content with two values → 422 at it, as a save answers; the same value both ways is summarised", async () => {
    const before = (await lastAudit()).id;
    const twice = await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...rbtNote, participants: "Father" } });
    expect(twice.status).toBe(422);
    const message = "participants and content.participants differ: send participants once, at the top level or in content.";
    expect(await twice.json()).toEqual({ message, errors: { participants: message } });
    expect((await lastAudit()).id).toBe(before);
    const same = await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...rbtNote, participants: rbtNote.content.participants } });
    expect(same.status).toBe(200);
  });

  it("401 without a token, 403 without view_notes", async () => {
    const anonymous = await api("/note_rbt/generate-summary", { method: "POST", body: rbtNote });
    expect(anonymous.status).toBe(401);
    for (const path of ["/note_rbt/generate-summary", "/note_bcba/generate-summary", "/note_combined/generate-summary"]) {
      const res = await api(path, { method: "POST", token: noPermissionToken, body: rbtNote });
      expect(res.status, path).toBe(403);
      expect(((await res.json()) as { message: string }).message).toBeTruthy();
    }
  });

  it("415 for a body that is not JSON, 400 for JSON that is not an object", async () => {
    const res = await request("/api/note_rbt/generate-summary", {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/x-www-form-urlencoded" },
      body: "cpt_code=97153",
    });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { message: string }).message).toMatch(/JSON/);
    const list = await api("/note_rbt/generate-summary", { method: "POST", token, body: [1, 2] });
    expect(list.status).toBe(400);
    const broken = await request("/api/note_rbt/generate-summary", { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: "{" });
    expect(broken.status).toBe(400);
  });
});

/** The form fields of a note body, as the note form posts them. */
function formOf(note: Record<string, unknown>, extra: Record<string, string> = {}): URLSearchParams {
  const params = new URLSearchParams(noteBodyToFormFields(note));
  for (const [k, v] of Object.entries(extra)) params.set(k, v);
  return params;
}

describe("POST /notes/generate-summary (the note forms, cookie session)", () => {
  const post = (body: URLSearchParams | string, init: { cookie?: string; type?: string; origin?: string } = {}) =>
    request("/notes/generate-summary", {
      method: "POST",
      cookie: init.cookie ?? cookie,
      body,
      headers: { "Content-Type": init.type ?? "application/x-www-form-urlencoded", Accept: "application/json", ...(init.origin ? { Origin: init.origin } : {}) },
    });

  it("answers the summary for the note form's fields", async () => {
    const res = await post(formOf({ type: "rbt", ...rbtNote }, { intent: "generate-summary", form_token: "abc" }));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/application\/json/);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    const body = (await res.json()) as { summary: string };
    expect(body.summary).toMatch(/^Met with client at home/);
    expect(body.summary).not.toMatch(/Jane|2026|97153/);
  });

  it("answers 422 with the missing fields", async () => {
    const res = await post(formOf({ type: "rbt", ...rbtNote, diagnosis_code: "", time_in: "", time_out: "" }));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({
      message: "Missing Required Fields",
      missing: ["Diagnosis Code", "Session Time"],
      errors: { diagnosis_code: "Diagnosis Code is required.", time_in: "Session Time is required." },
    });
  });

  it("answers 422 with the field for a field beyond a note's bounds", async () => {
    const res = await post(formOf({ type: "rbt", ...rbtNote, content: { ...rbtNote.content, as_evidenced_by: "z".repeat(200_000) } }));
    expect(res.status).toBe(422);
    const message = "As evidenced by must be at most 5000 characters.";
    expect(await res.json()).toEqual({ message, errors: { "content.as_evidenced_by": message } });
  });

  it("multipart forms are read too", async () => {
    const data = new FormData();
    for (const [k, v] of formOf({ type: "rbt", ...rbtNote })) data.append(k, v);
    const res = await request("/notes/generate-summary", { method: "POST", cookie, body: data });
    expect(res.status).toBe(200);
  });

  it("refuses: no session → sign-in, no view_notes → 403, cross-site → 403, not a form → 415, GET → 405", async () => {
    const anonymous = await request("/notes/generate-summary", { method: "POST", body: formOf(rbtNote), headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect([302, 303]).toContain(anonymous.status);
    expect(anonymous.headers.get("Location")).toMatch(/^\/login/);
    expect((await post(formOf(rbtNote), { cookie: noPermissionCookie })).status).toBe(403);
    expect((await post(formOf(rbtNote), { origin: "https://evil.example" })).status).toBe(403);
    const json = await post(JSON.stringify(rbtNote), { type: "application/json" });
    expect(json.status).toBe(415);
    expect(((await json.json()) as { message: string }).message).toBe(NOT_A_FORM);
    const get = await request("/notes/generate-summary", { cookie });
    expect(get.status).toBe(405);
  });
});

describe("the client's names, looked up from patient_id, never reach the summary (probe 8964 §2, §4)", () => {
  /** Elijah Taylor, whose parent account is Rosa Mendez and whose details name Luis Mendez; his note form carries only his id. */
  async function client() {
    const parent = await createParent({ name: "Rosa", surname: "Mendez" });
    const patient = await createPatient({ locationId: location.id, firstName: "Elijah", lastName: "Taylor", parentId: parent.id, details: JSON.stringify({ parent_name: "Luis Mendez" }) });
    const note = {
      ...rbtNote,
      patient_name: undefined,
      patient_id: patient.id,
      content: { ...rbtNote.content, as_evidenced_by: "smiling at Elijah Taylor's sister; Elijah laughed with Rosa and Luis Mendez", client_response_to_treatment_this_session: "TAYLOR responded well" },
    };
    return { patient, note };
  }
  const NAMES = /Elijah|Taylor|Rosa|Mendez|Luis/i;
  const summaryOfForm = (html: string) => /<textarea[^>]*name="content\.summary_note"[^>]*>([\s\S]*?)<\/textarea>/.exec(html)?.[1] ?? "";
  const formHeaders = { "Content-Type": "application/x-www-form-urlencoded" };

  it.each<[string, (x: Awaited<ReturnType<typeof client>>) => Promise<{ status: number; summary: string; noteId?: number; type?: string }>]>([
    ["API, RBT", async (x) => { const r = await api("/note_rbt/generate-summary", { method: "POST", token, body: x.note }); return { status: r.status, summary: ((await r.json()) as { summary: string }).summary }; }],
    ["API, combined", async (x) => { const r = await api("/note_combined/generate-summary", { method: "POST", token, body: x.note }); return { status: r.status, summary: ((await r.json()) as { summary: string }).summary, type: "combined" }; }],
    ["the forms with JavaScript (/notes/generate-summary)", async (x) => {
      const r = await request("/notes/generate-summary", { method: "POST", cookie, body: formOf({ type: "rbt", ...x.note }), headers: { ...formHeaders, Accept: "application/json" } });
      return { status: r.status, summary: ((await r.json()) as { summary: string }).summary };
    }],
    ["the new-note form without JavaScript", async (x) => {
      const r = await request(`/note-rbt?patient_id=${x.patient.id}`, { method: "POST", cookie, body: formOf({ type: "rbt", ...x.note }, { intent: "generate-summary" }), headers: formHeaders });
      return { status: r.status, summary: summaryOfForm(await r.text()) };
    }],
    ["the amend form without JavaScript", async (x) => {
      const [pa] = await db().insert(paServices).values({ patientId: x.patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
      const created = await api("/v2/notes-rbt", { method: "POST", token, body: { patient_id: x.patient.id, provider_id: rbtId, pa_service_id: pa!.id, cpt_code: "97153", session_date: addDays(todayIn(new Date(), "America/New_York"), -1), time_in: "09:00", time_out: "10:00", pos: "12" } });
      const id = ((await created.json()) as { data: { id: number } }).data.id;
      const r = await request(`/note-rbt/edit/${id}`, { method: "POST", cookie, body: formOf({ type: "rbt", ...x.note }, { intent: "generate-summary" }), headers: formHeaders });
      return { status: r.status, summary: summaryOfForm(await r.text()), noteId: id };
    }],
  ])("%s: the client's and parents' names become 'the client' or go; the request is audited with the client", async (_, ask) => {
    const x = await client();
    const before = (await lastAudit()).id;
    const { status, summary, noteId, type = "rbt" } = await ask(x);
    expect(status).toBe(200);
    expect(summary).toMatch(/the client/i);
    expect(summary).not.toMatch(NAMES);
    expect(await auditSince(before, "ai_summary")).toMatchObject([
      { actorId: rbtId, entity: "note", entityId: noteId ? String(noteId) : null, patientId: x.patient.id, detail: JSON.stringify({ patients: [x.patient.id], type, provider: "built-in" }) },
    ]);
  });

  it("a client out of the actor's scope, or a malformed id: 404, nothing asked and nothing recorded", async () => {
    const elsewhere = await createPatient({ locationId: (await createLocation()).id, firstName: "Other", lastName: "Place" });
    for (const patient_id of [elsewhere.id, 999_999_999, "abc"]) {
      const before = await auditRows();
      const res = await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...rbtNote, patient_id } });
      expect(res.status, String(patient_id)).toBe(404);
      const screen = await request("/notes/generate-summary", { method: "POST", cookie, body: formOf({ type: "rbt", ...rbtNote, patient_id }), headers: { ...formHeaders, Accept: "application/json" } });
      expect(screen.status, String(patient_id)).toBe(404);
      expect(await auditRows()).toBe(before);
    }
  });
});

describe("a remote provider gets nothing until the client is named and in scope, and none of their stored details (decision 026, stop 41)", () => {
  /** The user messages the fake OpenAI-compatible provider received. */
  const sent: string[] = [];
  /** Runs `ask` with AI_BASE_URL set and the provider answered by a fake `fetch` that records what it was sent. */
  async function withRemoteProvider<T>(ask: () => Promise<T>): Promise<T> {
    const vars = env as unknown as Record<string, unknown>;
    const before = vars.AI_BASE_URL;
    vars.AI_BASE_URL = "https://ai.test/v1";
    const fake = vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
      const url = input instanceof Request ? input.url : String(input);
      if (!url.startsWith("https://ai.test/v1/")) throw new Error(`unexpected fetch: ${url}`);
      const { messages } = JSON.parse(String(init?.body)) as { messages: { role: string; content: string }[] };
      sent.push(messages.find((m) => m.role === "user")!.content);
      return Response.json({ choices: [{ message: { role: "assistant", content: "Met with client at home." } }] });
    });
    try {
      return await ask();
    } finally {
      fake.mockRestore();
      if (before === undefined) delete vars.AI_BASE_URL;
      else vars.AI_BASE_URL = before;
    }
  }

  /**
   * Chloe Moore of 114 Palm Ave, Denver, insured by Colorado Medicaid; her parent account is Maria Lopez, her details
   * name Carlos Moore. An insurer's name counts whole: "Medicaid" alone is not this insurer's name (decision 026).
   */
  async function chloe() {
    const [insurer] = await db().insert(insurances).values({ name: "Colorado Medicaid" }).returning();
    const parent = await createParent({ name: "Maria", surname: "Lopez", phone: "303-555-0142" });
    const patient = await createPatient({
      locationId: location.id,
      firstName: "Chloe",
      lastName: "Moore",
      parentId: parent.id,
      insurerId: insurer!.id,
      details: JSON.stringify({ address: "114 Palm Ave", city: "Denver", zip: "80203", insuranceId: "MBR100213", parent_name: "Carlos Moore" }),
    });
    const note = {
      ...rbtNote,
      patient_id: patient.id,
      patient_name: undefined,
      content: {
        ...rbtNote.content,
        client_appeared: "Calm in denver",
        as_evidenced_by: "chloe smiling after her colorado medicaid visit; Maria Lopez called from 303-555-0142 and said Chloe slept well since moving to 114 palm avenue",
        client_response_to_treatment_this_session: "Responded well; Chloe Moore (member MBR100213) needed fewer prompts at Palm Ave",
      },
    };
    return { patient, note };
  }
  const DETAILS = /Chloe|Moore|Palm|114|Denver|Medicaid|MBR|Maria|Lopez|Carlos|0142|80203/i;
  const formHeaders = { "Content-Type": "application/x-www-form-urlencoded" };
  const CLIENT_FIRST = { message: "Choose the client first.", errors: { patient_id: "Choose the client first." } };

  it("a body without patient_id → 422 at patient_id for anyone (in scope or not), nothing sent and nothing recorded", async () => {
    const x = await chloe();
    const elsewhere = await createUser({ permissions: ["view_notes"], locations: [(await createLocation()).id] });
    const [outsider, outsiderCookie] = await Promise.all([apiToken(elsewhere), signInCookie(elsewhere)]);
    const body = { ...x.note, patient_id: undefined };
    await withRemoteProvider(async () => {
      const before = await auditRows();
      for (const [t, c] of [[token, cookie], [outsider, outsiderCookie]] as const) {
        for (const path of ["/note_rbt/generate-summary", "/note_bcba/generate-summary", "/note_combined/generate-summary"]) {
          const res = await api(path, { method: "POST", token: t, body: path.includes("bcba") ? { ...bcba97156, patient_id: undefined } : body });
          expect(res.status, path).toBe(422);
          expect(await res.json(), path).toEqual(CLIENT_FIRST);
        }
        const screen = await request("/notes/generate-summary", { method: "POST", cookie: c, body: formOf({ type: "rbt", ...body }), headers: { ...formHeaders, Accept: "application/json" } });
        expect(screen.status).toBe(422);
        expect(await screen.json()).toEqual(CLIENT_FIRST);
      }
      // The outsider naming the client: 404, as before.
      expect((await api("/note_rbt/generate-summary", { method: "POST", token: outsider, body: x.note })).status).toBe(404);
      expect(await auditRows()).toBe(before);
    });
    expect(sent).toEqual([]);
  });

  it("with patient_id: the client's names, address, city, insurer, member id and parents' names and phone are not sent; the row names the client", async () => {
    const x = await chloe();
    sent.length = 0;
    const before = (await lastAudit()).id;
    const res = await withRemoteProvider(() => api("/note_rbt/generate-summary", { method: "POST", token, body: x.note }));
    expect(res.status).toBe(200);
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toMatch(DETAILS);
    expect(sent[0]).toContain("the client");
    expect(sent[0]).toMatch(/As evidenced by: the client smiling after her visit, .*said the client slept well since moving\n/);
    expect(await auditSince(before, "ai_summary")).toMatchObject([{ actorId: rbtId, patientId: x.patient.id, detail: JSON.stringify({ patients: [x.patient.id], type: "rbt", provider: "openai-compatible" }) }]);
  });

  it("an edited note's summary is about the stored note's client, whatever patient_id the form or body posts (screens with and without JavaScript, API note_id)", async () => {
    const x = await chloe();
    const someoneElse = await createPatient({ locationId: location.id, firstName: "Other", lastName: "Person" });
    const [pa] = await db().insert(paServices).values({ patientId: x.patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
    const created = await api("/v2/notes-rbt", { method: "POST", token, body: { patient_id: x.patient.id, provider_id: rbtId, pa_service_id: pa!.id, cpt_code: "97153", session_date: addDays(todayIn(new Date(), "America/New_York"), -1), time_in: "11:00", time_out: "12:00", pos: "12" } });
    const id = ((await created.json()) as { data: { id: number } }).data.id;
    // The edit form's button asks about its note.
    const page = await request(`/note-rbt/edit/${id}`, { cookie });
    expect(await page.text()).toContain(`data-ai-summary="/notes/generate-summary?note_id=${id}"`);
    const posted = { type: "rbt", ...x.note, patient_id: someoneElse.id };
    sent.length = 0;
    const before = (await lastAudit()).id;
    const statuses = await withRemoteProvider(async () => [
      (await request(`/note-rbt/edit/${id}`, { method: "POST", cookie, body: formOf(posted, { intent: "generate-summary" }), headers: formHeaders })).status,
      (await request(`/notes/generate-summary?note_id=${id}`, { method: "POST", cookie, body: formOf(posted), headers: { ...formHeaders, Accept: "application/json" } })).status,
      (await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...x.note, note_id: id, patient_id: someoneElse.id } })).status,
      (await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...x.note, note_id: id, patient_id: undefined } })).status,
    ]);
    expect(statuses).toEqual([200, 200, 200, 200]);
    expect(sent).toHaveLength(4);
    for (const text of sent) expect(text).not.toMatch(DETAILS);
    const rows = await auditSince(before, "ai_summary");
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row).toMatchObject({ entity: "note", entityId: String(id), patientId: x.patient.id, detail: JSON.stringify({ patients: [x.patient.id], type: "rbt", provider: "openai-compatible" }) });
  });

  it("a note outside the actor's scope, of another type, or not an id: 404, nothing sent or recorded", async () => {
    const x = await chloe();
    const [pa] = await db().insert(paServices).values({ patientId: x.patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
    const created = await api("/v2/notes-rbt", { method: "POST", token, body: { patient_id: x.patient.id, provider_id: rbtId, pa_service_id: pa!.id, cpt_code: "97153", session_date: addDays(todayIn(new Date(), "America/New_York"), -1), time_in: "13:00", time_out: "14:00", pos: "12" } });
    const id = ((await created.json()) as { data: { id: number } }).data.id;
    const elsewhere = await createUser({ permissions: ["view_notes"], locations: [(await createLocation()).id] });
    const [outsider, outsiderCookie] = await Promise.all([apiToken(elsewhere), signInCookie(elsewhere)]);
    sent.length = 0;
    const before = await auditRows();
    const statuses = await withRemoteProvider(async () => [
      (await api("/note_rbt/generate-summary", { method: "POST", token: outsider, body: { ...x.note, note_id: id } })).status,
      (await request(`/notes/generate-summary?note_id=${id}`, { method: "POST", cookie: outsiderCookie, body: formOf({ type: "rbt", ...x.note }), headers: { ...formHeaders, Accept: "application/json" } })).status,
      (await api("/note_combined/generate-summary", { method: "POST", token, body: { ...x.note, note_id: id } })).status,
      (await api("/note_rbt/generate-summary", { method: "POST", token, body: { ...x.note, note_id: "abc" } })).status,
      (await request(`/notes/generate-summary?note_id=abc`, { method: "POST", cookie, body: formOf({ type: "rbt", ...x.note }), headers: { ...formHeaders, Accept: "application/json" } })).status,
    ]);
    expect(statuses).toEqual([404, 404, 404, 404, 404]);
    expect(sent).toEqual([]);
    expect(await auditRows()).toBe(before);
  });
});
