import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { scheduled } from "../../workers/app";
import { beforeAll, describe, expect, it } from "vitest";
import { noteDrafts, notes, paServices, sessions } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { addDays } from "~/domain/weeks";
import { NOTE_MESSAGES } from "~/domain/note-rules";
import { AI_SUMMARY_BUTTON } from "~/domain/note-summary";
import { sha256Hex } from "~/services/crypto.server";
import { createBip, createLocation, createPatient, createPlan, createUser, db, request, signInCookie, type TestUser } from "./helpers";
import { SIGNATURE_IMAGE_MESSAGE } from "~/domain/signature-image";
import { HUGE_SIGNATURE, pngBytes, pngDataUrl } from "../support/png";

/** A drawing the pad could make (a small valid PNG). */
const DRAWN = pngDataUrl(pngBytes(48, 14));

/**
 * The note screens (issue 10 "Notes", "A note is never lost"; decision 025), JavaScript off: create, edit,
 * amend, view with status and modifiers, list by client, the one-time form token, and server-side drafts
 * when the session has ended.
 */

const VIEW: Permission[] = ["view_notes"];
const MANAGE: Permission[] = ["view_notes", "manage_notes"];

function post(path: string, fields: Record<string, string | string[]>, cookie?: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

/** Yesterday in New York (the test locations' zone): a date the rules accept. */
function recentDay(back = 1): string {
  const today = new Intl.DateTimeFormat("en-CA", { timeZone: "America/New_York", year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date());
  return addDays(today, -back);
}

async function noteCount(): Promise<number> {
  const [r] = await db().select({ n: sql<number>`count(*)` }).from(notes);
  return Number(r!.n);
}

let w: {
  rbt: TestUser;
  rbtCookie: string;
  manager: TestUser;
  managerCookie: string;
  other: TestUser;
  otherCookie: string;
  outsiderCookie: string;
  noPermCookie: string;
  patient: { id: number; firstName: string; lastName: string };
  stranger: { id: number };
  pa: number;
  maladaptive: { id: number; name: string };
  replacement: { id: number; name: string };
};

beforeAll(async () => {
  const loc = await createLocation({ posCodes: "12,11" });
  const elsewhere = await createLocation();
  const patient = await createPatient({ locationId: loc.id, firstName: "Noah" });
  const stranger = await createPatient({ locationId: elsewhere.id });
  // The plan names its own intervention besides a default one (offered once).
  const bip = await createBip(patient, { document: JSON.stringify({ interventions: [{ index: 1, title: "Visual schedule", description: "Picture schedule before transitions" }, { index: 2, title: "Redirection", description: "" }] }) });
  const maladaptive = await createPlan(bip, { name: "Elopement" });
  const replacement = await createPlan(bip, { name: "Requesting a break", category: "replacement", timeframe: null, baselineTimeframe: null, unitType: null });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "RBT direct", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
  await db().insert(paServices).values({ patientId: patient.id, paService: "Old auth", cpt: "97153", nUnits: 40, startDate: "2019-01-01", endDate: "2019-12-31" });
  const rbt = await createUser({ permissions: VIEW, locations: [loc.id], name: "Riley" });
  const manager = await createUser({ permissions: MANAGE, locations: [loc.id], name: "Morgan" });
  const other = await createUser({ permissions: VIEW, locations: [loc.id], name: "Olive", role: "BCBA" });
  const outsider = await createUser({ permissions: MANAGE, locations: [elsewhere.id] });
  const noPerm = await createUser({ permissions: [], locations: [loc.id] });
  w = {
    rbt,
    rbtCookie: await signInCookie(rbt),
    manager,
    managerCookie: await signInCookie(manager),
    other,
    otherCookie: await signInCookie(other),
    outsiderCookie: await signInCookie(outsider),
    noPermCookie: await signInCookie(noPerm),
    patient,
    stranger,
    pa: pa!.id,
    maladaptive: { id: maladaptive.id, name: maladaptive.name },
    replacement: { id: replacement.id, name: replacement.name },
  };
});

/** The fields of a complete RBT note as the form sends them. */
function rbtFields(over: Record<string, string | string[]> = {}): Record<string, string | string[]> {
  return {
    intent: "save",
    form_token: crypto.randomUUID(),
    type: "rbt",
    patient_id: String(w.patient.id),
    provider_id: String(w.rbt.id),
    supervisor_id: "",
    session_date: recentDay(),
    cpt_code: "97153",
    pa_service_id: String(w.pa),
    pos: "12",
    diagnosis_code: "F84.0",
    time_in: "09:00",
    time_out: "10:00",
    time_in2: "",
    time_out2: "",
    "content.participants": "Client and mother",
    "content.environmental_changes": "None",
    "content.maladaptives[0].plan_id": String(w.maladaptive.id),
    "content.maladaptives[0].name": w.maladaptive.name,
    "content.maladaptives[0].frequency": "3",
    "content.replacements[0].plan_id": String(w.replacement.id),
    "content.replacements[0].name": w.replacement.name,
    "content.replacements[0].total_trials": "10",
    "content.replacements[0].correct_responses": "7",
    "content.interventions[]": ["Redirection", "Response Block"],
    "content.client_appeared": "Calm",
    "content.as_evidenced_by": "Smiling and following directions",
    "content.rbt_modeled_and_demonstrated_to_caregiver": "Modeled the break request",
    "content.client_response_to_treatment_this_session": "Good progress",
    "content.next_session_is_scheduled_for": "Thursday",
    "content.summary_note": "Met with client at home.",
    provider_name: "",
    provider_signed_on: "",
    provider_signature: "",
    supervisor_name: "",
    supervisor_signed_on: "",
    supervisor_signature: "",
    ...over,
  };
}

/** Creates a note through the screen; answers its id. */
async function createViaForm(cookie: string, over: Record<string, string | string[]> = {}): Promise<number> {
  const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields(over), cookie);
  expect(res.status, await res.clone().text().then((t) => t.slice(0, 300))).toBe(303);
  const m = /\/note-rbt\/view\/(\d+)/.exec(res.headers.get("Location") ?? "");
  expect(m).not.toBeNull();
  return Number(m![1]);
}

let dayOffset = 1;
/** A fresh session day for each note so notes of different tests never overlap (each test day moves back). */
function nextDay(): string {
  dayOffset = (dayOffset % 12) + 1;
  return recentDay(dayOffset);
}
let slot = 0;
/** Distinct hours on a day, far enough apart for the provider buffer. */
function nextTimes(): { time_in: string; time_out: string } {
  const h = 6 + ((slot++ * 2) % 14);
  const hh = (n: number) => String(n).padStart(2, "0");
  return { time_in: `${hh(h)}:00`, time_out: `${hh(h)}:45` };
}

describe("create", () => {
  it("offers the client chooser, then the form with the client's goals, PA services and the local time zone", async () => {
    const chooser = await (await request("/note-rbt", { cookie: w.rbtCookie })).text();
    expect(chooser).toContain(`href="/note-rbt?patient_id=${w.patient.id}">Noah ${w.patient.lastName}`);
    const res = await request(`/note-rbt?patient_id=${w.patient.id}`, { cookie: w.rbtCookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain('name="form_token"');
    expect(html).toContain("Elopement");
    expect(html).toContain("Requesting a break");
    expect(html).toContain("RBT direct");
    expect(html).toContain("America/New York");
    expect(html).toContain('type="time"');
    // The button says what the script restores after "Generating..." (AI_SUMMARY_BUTTON, one place).
    expect(html).toMatch(new RegExp(`<button[^>]*data-ai-summary="/notes/generate-summary"[^>]*>${AI_SUMMARY_BUTTON}</button>`));
    // The interventions: the client's plan's own, then the defaults, each once.
    expect(html).toContain('value="Visual schedule"');
    expect(html.match(/name="content\.interventions\[\]" value="Redirection"|value="Redirection"[^>]*name="content\.interventions\[\]"/g)).toHaveLength(1);
    expect(html).toContain('value="Functional Communication Training (FCT)"');
    // The 2019 authorization does not cover today: listed, but not offered.
    expect(html).toMatch(/<option[^>]*disabled=""[^>]*>Old auth/);
  });

  it("403 without view_notes; another location's client 404", async () => {
    expect((await request("/note-rbt", { cookie: w.noPermCookie })).status).toBe(403);
    expect((await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields(), w.noPermCookie)).status).toBe(403);
    expect((await request(`/note-rbt?patient_id=${w.patient.id}`, { cookie: w.outsiderCookie })).status).toBe(404);
    const before = await noteCount();
    expect((await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields(), w.outsiderCookie)).status).toBe(404);
    expect(await noteCount()).toBe(before);
  });

  it("saves a note (303 to its view with its units); a second submit of the same form lands on the first note", async () => {
    const before = await noteCount();
    const token = crypto.randomUUID();
    const fields = rbtFields({ form_token: token, session_date: nextDay(), time_in: "08:00", time_out: "09:30" });
    const first = await post(`/note-rbt?patient_id=${w.patient.id}`, fields, w.rbtCookie);
    expect(first.status).toBe(303);
    const again = await post(`/note-rbt?patient_id=${w.patient.id}`, fields, w.rbtCookie);
    expect(again.status).toBe(303);
    const path = (l: string | null) => (l ?? "").split("?")[0];
    expect(path(again.headers.get("Location"))).toBe(path(first.headers.get("Location")));
    expect(await noteCount()).toBe(before + 1);
    const view = await (await request(first.headers.get("Location")!, { cookie: w.rbtCookie })).text();
    expect(view).toMatch(/data-testid="note-units"><strong>6<\/strong>/);
    expect(view).toContain("Elopement: 3 times");
    expect(view).toContain("7 correct of 10 trials");
  });

  it("a refused save re-renders with every typed value and the message next to the field; nothing is saved", async () => {
    const before = await noteCount();
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ time_in: "10:00", time_out: "09:00", "content.as_evidenced_by": "Typed text kept <b>" }), w.rbtCookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toMatch(/id="f-time_out"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-time_out"/);
    expect(html).toMatch(/id="f-time_out-error" class="field-error" role="alert">[^<]+</);
    expect(html).toContain("Typed text kept &lt;b&gt;");
    expect(html).toContain('value="10:00"');
    expect(await noteCount()).toBe(before);
  });

  it.each([
    ["the afternoon wholly before the morning", { time_in: "15:00", time_out: "16:00", time_in2: "09:00", time_out2: "10:00" }, "16:00"],
    ["the probe's 18:00–19:00 then 16:00–17:00", { time_in: "18:00", time_out: "19:00", time_in2: "16:00", time_out2: "17:00" }, "19:00"],
  ])("%s is refused beside the afternoon's time in, every typed time kept, nothing saved (probe 8985 §3)", async (_, times, firstEnd) => {
    const before = await noteCount();
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ ...times, "content.client_appeared": "Typed mood" }), w.rbtCookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toMatch(/id="f-time_in2"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="f-time_in2"/);
    expect(html).toContain(`id="f-time_in2-error" class="field-error" role="alert">${NOTE_MESSAGES.pairsOrder(firstEnd)}<`);
    for (const t of Object.values(times)) expect(html).toContain(`value="${t}"`);
    expect(html).toContain('value="Typed mood"');
    expect(await noteCount()).toBe(before);
  });

  it("an overlap with another note of the client is refused beside the time", async () => {
    const day = nextDay();
    await createViaForm(w.rbtCookie, { session_date: day, time_in: "13:00", time_out: "14:00" });
    const before = await noteCount();
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ session_date: day, provider_id: String(w.other.id), time_in: "13:30", time_out: "14:30" }), w.otherCookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toMatch(/class="field-error" role="alert">[^<]*overlap/i);
    expect(await noteCount()).toBe(before);
  });

  it("'Update the form' re-renders with the typed values and saves nothing", async () => {
    const before = await noteCount();
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ intent: "options", "content.client_appeared": "Sleepy" }), w.rbtCookie);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('value="Sleepy"');
    expect(await noteCount()).toBe(before);
  });

  it("'Generate AI Summary' without JavaScript renders the built-in summary into the form, typed values kept; missing fields are listed", async () => {
    const before = await noteCount();
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ intent: "generate-summary", "content.summary_note": "", "content.client_appeared": "Focused" }), w.rbtCookie);
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toMatch(/<textarea[^>]*name="content.summary_note"[^>]*>Met with client at/);
    expect(html).toContain('value="Focused"');
    const missing = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ intent: "generate-summary", "content.as_evidenced_by": "" }), w.rbtCookie);
    expect(missing.status).toBe(200);
    expect(await missing.text()).toMatch(/data-summary-error="true">Missing Required Fields\. Please complete the required fields below/);
    expect(await noteCount()).toBe(before);
  });

  it("'Generate AI Summary' with a field beyond a note's bounds: 422 with the save's message beside the field, typed values kept, on create and edit", async () => {
    const id = await createViaForm(w.rbtCookie, { session_date: nextDay(), ...nextTimes() });
    const before = await noteCount();
    const fields = { intent: "generate-summary", "content.as_evidenced_by": "z".repeat(200_000), "content.client_appeared": "Focused" };
    for (const path of [`/note-rbt?patient_id=${w.patient.id}`, `/note-rbt/edit/${id}`]) {
      const res = await post(path, rbtFields(fields), w.rbtCookie);
      expect(res.status, path).toBe(422);
      const html = await res.text();
      expect(html, path).toMatch(/id="f-content-as_evidenced_by-error" class="field-error" role="alert">As evidenced by must be at most 5000 characters\.</);
      expect(html, path).toContain('value="Focused"');
    }
    expect(await noteCount()).toBe(before);
  });

  it("a user without manage_notes cannot write a note for another provider", async () => {
    const before = await noteCount();
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ provider_id: String(w.other.id), session_date: nextDay(), ...nextTimes() }), w.rbtCookie);
    expect(res.status).toBe(403);
    expect(await noteCount()).toBe(before);
  });
});

describe("edit, amend, view", () => {
  it("the provider edits their own note; another provider without manage_notes gets 403; another location 404; a stale version 409", async () => {
    const day = nextDay();
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...nextTimes() });
    const page = await request(`/note-rbt/edit/${id}`, { cookie: w.rbtCookie });
    expect(page.status).toBe(200);
    const editHtml = await page.text();
    expect(editHtml).toContain('value="Calm"');
    expect(editHtml).not.toContain("data-conflict");
    expect((await request(`/note-rbt/edit/${id}`, { cookie: w.otherCookie })).status).toBe(403);
    expect((await request(`/note-rbt/edit/${id}`, { cookie: w.outsiderCookie })).status).toBe(404);
    expect((await request(`/note-rbt/view/${id}`, { cookie: w.outsiderCookie })).status).toBe(404);
    expect((await request(`/note-bcba/view/${id}`, { cookie: w.rbtCookie })).status).toBe(404);
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    const saved = await post(`/note-rbt/edit/${id}`, rbtFields({ session_date: day, time_in: row!.timeIn!, time_out: row!.timeOut!, version: String(row!.version), "content.client_appeared": "Cheerful" }), w.rbtCookie);
    expect(saved.status).toBe(303);
    const stale = await post(`/note-rbt/edit/${id}`, rbtFields({ session_date: day, time_in: row!.timeIn!, time_out: row!.timeOut!, version: String(row!.version), "content.client_appeared": "Grumpy" }), w.rbtCookie);
    expect(stale.status).toBe(409);
    const html = await stale.text();
    expect(html).toContain("Someone else saved a newer version");
    expect(html).toContain('value="Cheerful"');
    // The stored values and version are shown: a browser draft restored on this answer is saved on purpose (decision 025).
    expect(html).toContain(`name="version" value="${row!.version + 1}"`);
    expect(html).toMatch(/<form[^>]*data-note-form[^>]*data-conflict=""/);
    const [after] = await db().select().from(notes).where(eq(notes.id, id));
    expect(JSON.parse(after!.content).client_appeared).toBe("Cheerful");
  });

  it("a stale save without JavaScript lists only the fields the user changed, not the hidden fields of the blank goal rows (as with JavaScript)", async () => {
    const day = nextDay();
    const times = nextTimes();
    const blankRows = { "content.maladaptives[0].frequency": "", "content.replacements[0].total_trials": "", "content.replacements[0].correct_responses": "" };
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...times, ...blankRows });
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    const form = rbtFields({ session_date: day, time_in: row!.timeIn!, time_out: row!.timeOut!, version: String(row!.version), ...blankRows });
    expect((await post(`/note-rbt/edit/${id}`, { ...form, "content.client_appeared": "Cheerful" }, w.managerCookie)).status).toBe(303);
    const stale = await post(`/note-rbt/edit/${id}`, { ...form, time_out: "14:45", "content.client_appeared": "Grumpy" }, w.rbtCookie);
    expect(stale.status).toBe(409);
    const html = await stale.text();
    const listed = /<summary>Your changes that were not saved<\/summary>([\s\S]*?)<\/details>/.exec(html)?.[1] ?? "";
    const pairs = [...listed.matchAll(/<dt>([^<]*)<\/dt><dd[^>]*>([^<]*)<\/dd>/g)].map((m) => `${m[1]}: ${m[2]}`);
    expect(pairs).toEqual(["Time out: 14:45", "Client appeared: Grumpy"]);
  });

  it("a note stored with its afternoon first saves from the edit form with its times as they are; a changed time must put the pairs in order (probe 8985 §3)", async () => {
    // A day of its own (nextDay cycles 1 to 12 days back), so the other tests' sessions stay where they are.
    const day = recentDay(13);
    const id = await createViaForm(w.rbtCookie, { session_date: day, time_in: "01:00", time_out: "01:30", time_in2: "03:00", time_out2: "03:30" });
    // As written before the rule: the afternoon's times and interval stored first.
    await db()
      .update(notes)
      .set({ timeIn: sql`${notes.timeIn2}`, timeOut: sql`${notes.timeOut2}`, timeIn2: sql`${notes.timeIn}`, timeOut2: sql`${notes.timeOut}`, start1At: sql`${notes.start2At}`, end1At: sql`${notes.end2At}`, start2At: sql`${notes.start1At}`, end2At: sql`${notes.end1At}` })
      .where(eq(notes.id, id));
    const stored = { session_date: day, time_in: "03:00", time_out: "03:30", time_in2: "01:00", time_out2: "01:30" };
    const saved = await post(`/note-rbt/edit/${id}`, rbtFields({ ...stored, version: "1", "content.client_appeared": "Cheerful" }), w.rbtCookie);
    expect(saved.status).toBe(303);
    const moved = await post(`/note-rbt/edit/${id}`, rbtFields({ ...stored, time_out2: "01:45", version: "2", "content.client_appeared": "Grumpy" }), w.rbtCookie);
    expect(moved.status).toBe(422);
    const html = await moved.text();
    expect(html).toContain(`id="f-time_in2-error" class="field-error" role="alert">${NOTE_MESSAGES.pairsOrder("03:30")}<`);
    expect(html).toContain('value="01:45"');
    expect(html).toContain('value="Grumpy"');
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    expect(row).toMatchObject({ timeIn: "03:00", timeOut2: "01:30", version: 2 });
    expect(JSON.parse(row!.content).client_appeared).toBe("Cheerful");
  });

  it("a save from the edit form keeps the clinical §3 fields the form does not show (written through the API; stop 25)", async () => {
    const day = nextDay();
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...nextTimes() });
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    const content = JSON.parse(row!.content);
    const extra = { note_description: "Observed at school", teacher_goals: [{ plan_id: null, name: "Visual schedule", percent: 50 }], was_the_rbt_present: true };
    await db().update(notes).set({ content: JSON.stringify({ ...content, ...extra }) }).where(eq(notes.id, id));
    const saved = await post(`/note-rbt/edit/${id}`, rbtFields({ session_date: day, time_in: row!.timeIn!, time_out: row!.timeOut!, version: String(row!.version), "content.client_appeared": "Cheerful" }), w.rbtCookie);
    expect(saved.status).toBe(303);
    const [after] = await db().select().from(notes).where(eq(notes.id, id));
    expect(JSON.parse(after!.content)).toMatchObject({ client_appeared: "Cheerful", ...extra });
  });

  it("a signed note is read-only: its edit screen is an amendment with a required reason, and the view lists the earlier version", async () => {
    const day = nextDay();
    const times = nextTimes();
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...times, provider_name: "Riley User", provider_signed_on: day });
    const view = await (await request(`/note-rbt/view/${id}`, { cookie: w.rbtCookie })).text();
    expect(view).toContain("read-only");
    const edit = await (await request(`/note-rbt/edit/${id}`, { cookie: w.rbtCookie })).text();
    expect(edit).toContain("Reason for the amendment");
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    const base = rbtFields({ intent: "amend", session_date: day, ...times, provider_name: "Riley User", provider_signed_on: day, version: String(row!.version), "content.client_appeared": "Tired" });
    const refused = await post(`/note-rbt/edit/${id}`, { ...base, amendment_reason: "" }, w.rbtCookie);
    expect(refused.status).toBe(422);
    expect(await refused.text()).toMatch(/id="f-amendment_reason-error"/);
    const amended = await post(`/note-rbt/edit/${id}`, { ...base, amendment_reason: "Mood was recorded wrong" }, w.rbtCookie);
    expect(amended.status).toBe(303);
    const after = await (await request(`/note-rbt/view/${id}`, { cookie: w.rbtCookie })).text();
    expect(after).toContain("Mood was recorded wrong");
    expect(after).toContain("Tired");
  });

  it("the note's supervisor countersigns a signed note from its view — not an amendment; nobody else, not before the provider signs, not twice, not on a future date", async () => {
    const day = nextDay();
    const countersign = (id: number, over: Record<string, string>, cookie = w.otherCookie) =>
      post(`/note-rbt/view/${id}`, { intent: "countersign", supervisor_name: "Olive User", supervisor_signed_on: day, supervisor_signature: "", ...over }, cookie);
    const versionOf = async (id: number) => (await db().select({ v: notes.version }).from(notes).where(eq(notes.id, id)))[0]!.v;

    // The provider has not signed: no form, and a post is refused.
    const unsigned = await createViaForm(w.rbtCookie, { session_date: day, ...nextTimes(), supervisor_id: String(w.other.id) });
    expect(await (await request(`/note-rbt/view/${unsigned}`, { cookie: w.otherCookie })).text()).not.toContain("Countersign as supervisor");
    const early = await countersign(unsigned, { version: String(await versionOf(unsigned)) });
    expect(early.status).toBe(422);
    expect(await early.text()).toContain("The provider signs the note first; then the supervisor countersigns it.");

    const id = await createViaForm(w.rbtCookie, { session_date: day, ...nextTimes(), supervisor_id: String(w.other.id), provider_name: "Riley User", provider_signed_on: day });
    const version = await versionOf(id);
    const [before] = await db().select().from(notes).where(eq(notes.id, id));
    // Only the supervisor is offered the form; the provider and a manager are not, and a manager's post is 403.
    expect(await (await request(`/note-rbt/view/${id}`, { cookie: w.rbtCookie })).text()).not.toContain("Countersign as supervisor");
    const offered = await (await request(`/note-rbt/view/${id}`, { cookie: w.otherCookie })).text();
    expect(offered).toContain("Countersign as supervisor");
    expect(offered).toMatch(/name="supervisor_name"[^>]*value="Olive User"|value="Olive User"[^>]*name="supervisor_name"/);
    expect((await countersign(id, { version: String(version) }, w.managerCookie)).status).toBe(403);
    expect((await countersign(id, { version: String(version) }, w.outsiderCookie)).status).toBe(404);
    // A future date: the field's message, the typed name kept, nothing changed.
    const future = await countersign(id, { version: String(version), supervisor_name: "Olive U.", supervisor_signed_on: "2999-01-01" });
    expect(future.status).toBe(422);
    const futureText = await future.text();
    expect(futureText).toContain(`Countersign on a date from the session date (${day}) to today`);
    expect(futureText).toContain('value="Olive U."');
    // A drawing made before another field was refused is shown again, in the hidden field and as a preview (decision 040's rule).
    const drawnRefused = await countersign(id, { version: String(version), supervisor_signed_on: "2999-01-01", supervisor_signature: DRAWN });
    expect(drawnRefused.status).toBe(422);
    const drawnText = await drawnRefused.text();
    expect(/<input[^>]*name="supervisor_signature"[^>]*value="([^"]*)"/.exec(drawnText)?.[1]).toBe(DRAWN);
    expect(drawnText).toMatch(/<img[^>]*src="data:image\/png;base64,[^"]*"[^>]*data-signature-preview/);
    // A drawing that claims a 20000×20000 canvas (decision 023, stop 36): the field's message, the name kept, nothing changed.
    const huge = await countersign(id, { version: String(version), supervisor_signature: HUGE_SIGNATURE });
    expect(huge.status).toBe(422);
    const hugeText = await huge.text();
    expect(hugeText).toContain(SIGNATURE_IMAGE_MESSAGE);
    expect(hugeText).toContain('value="Olive User"');
    // The refused drawing itself is not put back: the pad starts empty under its message.
    expect(/<input[^>]*name="supervisor_signature"[^>]*value="([^"]*)"/.exec(hugeText)?.[1]).toBe("");
    expect(hugeText).not.toContain("data-signature-preview");
    expect(await versionOf(id)).toBe(version);
    // A well-formed drawing that shows nothing (decision 040, stop 42; the server's ink check): the same.
    const blank = await countersign(id, { version: String(version), supervisor_signature: pngDataUrl(pngBytes(480, 140, { colour: 6, fill: 0, ink: false })) });
    expect(blank.status).toBe(422);
    const blankText = await blank.text();
    expect(blankText).toContain(SIGNATURE_IMAGE_MESSAGE);
    expect(/<input[^>]*name="supervisor_signature"[^>]*value="([^"]*)"/.exec(blankText)?.[1]).toBe("");
    expect(await versionOf(id)).toBe(version);
    // A stale version: 409.
    expect((await countersign(id, { version: String(version - 1) })).status).toBe(409);
    expect(await versionOf(id)).toBe(version);

    const done = await countersign(id, { version: String(version) });
    expect(done.status).toBe(303);
    const [after] = await db().select().from(notes).where(eq(notes.id, id));
    expect(after).toMatchObject({ supervisorName: "Olive User", supervisorSignedOn: day, version: version + 1, content: before!.content, signedAt: before!.signedAt, minutes: before!.minutes });
    const audits = await db().all<{ n: number }>(sql`select count(*) as n from audit_log where action = 'countersign' and entity = 'note' and entity_id = ${String(id)}`);
    expect(Number(audits[0]!.n)).toBe(1);
    const view = await (await request(`/note-rbt/view/${id}`, { cookie: w.otherCookie })).text();
    expect(view).not.toContain("Countersign as supervisor");
    expect(view).not.toContain("as it was");
    // Twice: refused, nothing changed.
    const again = await countersign(id, { version: String(version + 1), supervisor_name: "Someone Else" });
    expect(again.status).toBe(422);
    expect(await again.text()).toContain("This note is already countersigned.");
    expect((await db().select().from(notes).where(eq(notes.id, id)))[0]!.supervisorName).toBe("Olive User");
  });

  it("the edit and amend screens keep the modifiers set on the view (the form has no modifier fields)", async () => {
    const day = nextDay();
    const times = nextTimes();
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...times });
    expect((await post(`/note-rbt/view/${id}`, { intent: "modifiers", md: "HM", md2: "XE", md3: "" }, w.managerCookie)).status).toBe(303);
    const current = async () => (await db().select().from(notes).where(eq(notes.id, id)))[0]!;
    // The RBT edits their own note: saved, the manager's modifiers kept (a posted md is not the form's either).
    let row = await current();
    const byRbt = await post(`/note-rbt/edit/${id}`, rbtFields({ session_date: day, ...times, version: String(row.version), "content.client_appeared": "Relaxed", md: "" }), w.rbtCookie);
    expect(byRbt.status, await byRbt.clone().text().then((t) => (/role="alert"[^>]*>([^<]*)/.exec(t)?.[1] ?? t.slice(0, 200)))).toBe(303);
    row = await current();
    expect(row).toMatchObject({ md: "HM", md2: "XE", md3: null });
    expect(JSON.parse(row.content).client_appeared).toBe("Relaxed");
    // A manager's screen edit keeps them too.
    const byManager = await post(`/note-rbt/edit/${id}`, rbtFields({ session_date: day, ...times, version: String(row.version), "content.client_appeared": "Focused" }), w.managerCookie);
    expect(byManager.status).toBe(303);
    row = await current();
    expect(row).toMatchObject({ md: "HM", md2: "XE", md3: null });
    expect(JSON.parse(row.content).client_appeared).toBe("Focused");
    // Signed, then amended by the RBT: the amendment saves and keeps them.
    const signed = await post(`/note-rbt/edit/${id}`, rbtFields({ session_date: day, ...times, version: String(row.version), provider_name: "Riley User", provider_signed_on: day }), w.rbtCookie);
    expect(signed.status).toBe(303);
    row = await current();
    expect(row.signedAt).not.toBeNull();
    const amended = await post(
      `/note-rbt/edit/${id}`,
      rbtFields({ intent: "amend", session_date: day, ...times, provider_name: "Riley User", provider_signed_on: day, version: String(row.version), "content.client_appeared": "Sleepy", amendment_reason: "Mood corrected" }),
      w.rbtCookie,
    );
    expect(amended.status).toBe(303);
    row = await current();
    expect(row).toMatchObject({ md: "HM", md2: "XE", md3: null });
    expect(JSON.parse(row.content).client_appeared).toBe("Sleepy");
  });

  it("the view shows each earlier version of an amended note: the fields it changed, with the earlier text", async () => {
    const day = nextDay();
    const times = nextTimes();
    const signing = { provider_name: "Riley User", provider_signed_on: day };
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...times, ...signing, "content.as_evidenced_by": "Pointing at the picture card first" });
    const amend = async (over: Record<string, string>, reason: string) => {
      const [row] = await db().select().from(notes).where(eq(notes.id, id));
      const res = await post(`/note-rbt/edit/${id}`, rbtFields({ intent: "amend", session_date: day, ...times, ...signing, version: String(row!.version), amendment_reason: reason, ...over }), w.rbtCookie);
      expect(res.status).toBe(303);
    };
    await amend({ "content.as_evidenced_by": "Handing over the picture card" }, "Wrong behavior recorded");
    await amend({ "content.as_evidenced_by": "Handing over the picture card", "content.next_session_is_scheduled_for": "Friday afternoon" }, "Next session moved");
    const res = await request(`/note-rbt/view/${id}`, { cookie: w.rbtCookie });
    const html = await res.text();
    const history = html.slice(html.indexOf('id="history-head"'));
    const versions = [...history.matchAll(/<details class="note-version">([\s\S]*?)<\/details>/g)].map((m) => m[1]!);
    expect(versions).toHaveLength(2);
    // Newest first: version 2 had the earlier next session; version 1 the earlier evidence, and only what changed.
    expect(versions[0]).toContain("Version 2 as it was: 1 field changed");
    expect(versions[0]).toContain("Next session is scheduled for");
    expect(versions[0]).toContain("Thursday");
    expect(versions[1]).toContain("Version 1 as it was");
    expect(versions[1]).toContain("Pointing at the picture card first");
    expect(versions[1]).not.toContain("Client appeared");
    // The current text stays in the note itself; the earlier one only in the history.
    expect(html.indexOf("Pointing at the picture card first")).toBeGreaterThan(html.indexOf('id="history-head"'));
    // The outsider still sees nothing of it.
    expect((await request(`/note-rbt/view/${id}`, { cookie: w.outsiderCookie })).status).toBe(404);
    // The view stays small (issue 10: note view ≤ 30 KB HTML gzip).
    const gz = await new Response(new Blob([html]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
    expect(gz.byteLength).toBeLessThan(30 * 1024);
  });

  it("status and modifiers need manage_notes", async () => {
    const id = await createViaForm(w.rbtCookie, { session_date: nextDay(), ...nextTimes() });
    const asRbt = await (await request(`/note-rbt/view/${id}`, { cookie: w.rbtCookie })).text();
    expect(asRbt).not.toContain("Save status");
    expect((await post(`/note-rbt/view/${id}`, { intent: "status", status: "ok" }, w.rbtCookie)).status).toBe(403);
    expect((await post(`/note-rbt/view/${id}`, { intent: "modifiers", md: "HM" }, w.rbtCookie)).status).toBe(403);
    const ok = await post(`/note-rbt/view/${id}`, { intent: "status", status: "ok" }, w.managerCookie);
    expect(ok.status).toBe(303);
    const md = await post(`/note-rbt/view/${id}`, { intent: "modifiers", md: "HM", md2: "", md3: "" }, w.managerCookie);
    expect(md.status).toBe(303);
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    expect(row).toMatchObject({ status: "ok", md: "HM" });
    const bad = await post(`/note-rbt/view/${id}`, { intent: "status", status: "maybe" }, w.managerCookie);
    expect(bad.status).toBe(422);
    expect((await post(`/note-rbt/view/${id}`, { intent: "status", status: "ok" }, w.outsiderCookie)).status).toBe(404);
  });

  it("a manager deletes a note from its view: it leaves the client's list; others cannot", async () => {
    const id = await createViaForm(w.rbtCookie, { session_date: nextDay(), ...nextTimes() });
    expect(await (await request(`/note-rbt/view/${id}`, { cookie: w.rbtCookie })).text()).not.toContain("Delete this note");
    expect((await post(`/note-rbt/view/${id}`, { intent: "delete", confirmed: "yes" }, w.rbtCookie)).status).toBe(403);
    expect((await post(`/note-rbt/view/${id}`, { intent: "delete", confirmed: "yes" }, w.outsiderCookie)).status).toBe(404);
    expect((await db().select().from(notes).where(eq(notes.id, id)))[0]!.deletedAt).toBeNull();
    // The manager's Delete asks first: a link to the confirm step, whose 'Yes, delete it' deletes (probe 8972).
    expect(await (await request(`/note-rbt/view/${id}`, { cookie: w.managerCookie })).text()).toContain(`href="/note-rbt/view/${id}?confirm=delete#delete-note"`);
    expect(await (await request(`/note-rbt/view/${id}?confirm=delete`, { cookie: w.managerCookie })).text()).toContain("Yes, delete it");
    const res = await post(`/note-rbt/view/${id}?confirm=delete`, { intent: "delete", confirmed: "yes" }, w.managerCookie);
    expect(res.status).toBe(303);
    expect(res.headers.get("Location")).toBe(`/note-rbt/listbyclient/${w.patient.id}`);
    expect((await db().select().from(notes).where(eq(notes.id, id)))[0]!.deletedAt).not.toBeNull();
    expect((await request(`/note-rbt/view/${id}`, { cookie: w.managerCookie })).status).toBe(404);
    expect(await (await request(`/note-rbt/listbyclient/${w.patient.id}`, { cookie: w.managerCookie })).text()).not.toContain(`/note-rbt/view/${id}"`);
  });

  it("lists a client's notes of the type; another location 404; 403 without view_notes", async () => {
    const res = await request(`/note-rbt/listbyclient/${w.patient.id}`, { cookie: w.rbtCookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(`RBT notes · Noah ${w.patient.lastName}`);
    expect(html).toMatch(/href="\/note-rbt\/view\/\d+"/);
    expect(await (await request(`/note-bcba/listbyclient/${w.patient.id}`, { cookie: w.rbtCookie })).text()).toContain("No data to display.");
    expect((await request(`/note-rbt/listbyclient/${w.patient.id}`, { cookie: w.outsiderCookie })).status).toBe(404);
    expect((await request(`/note-rbt/listbyclient/${w.stranger.id}`, { cookie: w.rbtCookie })).status).toBe(404);
    expect((await request(`/note-rbt/listbyclient/${w.patient.id}`, { cookie: w.noPermCookie })).status).toBe(403);
  });
});

describe("a note is never lost when the session has ended", () => {
  async function lockSessionOf(cookie: string) {
    const id = /__session=([^;]+)/.exec(cookie)![1]!;
    await db().update(sessions).set({ lastSeenAt: new Date(Date.now() - 3 * 3_600_000).toISOString() }).where(eq(sessions.idHash, await sha256Hex(id)));
  }

  it("keeps the typed note for the user of a locked session and restores it once, after unlocking, to that user only", async () => {
    const cookie = await signInCookie(w.rbt);
    await lockSessionOf(cookie);
    const before = await noteCount();
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ "content.as_evidenced_by": "Written before the lock" }), cookie);
    expect(res.status).toBe(303);
    const location = res.headers.get("Location")!;
    expect(location).toMatch(/^\/lock-screen\?redirectTo=/);
    const back = decodeURIComponent(location.split("redirectTo=")[1]!);
    expect(back).toMatch(new RegExp(`^/note-rbt\\?patient_id=${w.patient.id}&draft=`));
    expect(await noteCount()).toBe(before);
    const [draft] = await db().select().from(noteDrafts).where(eq(noteDrafts.userId, w.rbt.id));
    expect(draft!.ciphertext).not.toContain("Written before the lock");

    // Another user with the draft's link gets nothing, and the draft stays for its owner.
    const stolen = await (await request(back, { cookie: w.otherCookie })).text();
    expect(stolen).not.toContain("Written before the lock");
    expect(stolen).toContain("could not be restored");

    // The owner unlocks and lands on the form with everything restored.
    const unlocked = await post("/lock-screen", { password: w.rbt.password, redirectTo: back }, cookie);
    expect(unlocked.status).toBe(303);
    expect(unlocked.headers.get("Location")).toBe(back);
    const restored = await (await request(back, { cookie })).text();
    expect(restored).toContain("Written before the lock");
    expect(restored).toContain("Everything you typed has been restored");
    // Once only.
    const again = await (await request(back, { cookie })).text();
    expect(again).not.toContain("Written before the lock");
    expect(await db().select().from(noteDrafts).where(eq(noteDrafts.userId, w.rbt.id))).toHaveLength(0);
  });

  it("an edit kept when the session locked keeps the version it was typed against: changes saved since are not overwritten (stop 35)", async () => {
    const day = nextDay();
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...nextTimes() });
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    const typed = rbtFields({ session_date: day, time_in: row!.timeIn!, time_out: row!.timeOut!, version: String(row!.version), "content.client_appeared": "Typed before the lock" });
    const cookie = await signInCookie(w.rbt);
    await lockSessionOf(cookie);
    const res = await post(`/note-rbt/edit/${id}`, typed, cookie);
    const back = decodeURIComponent(res.headers.get("Location")!.split("redirectTo=")[1]!);
    expect(back).toMatch(new RegExp(`^/note-rbt/edit/${id}\\?draft=`));
    // Meanwhile the manager corrects the note.
    const corrected = await post(`/note-rbt/edit/${id}`, { ...typed, "content.client_appeared": "Corrected by the manager" }, w.managerCookie);
    expect(corrected.status).toBe(303);
    await post("/lock-screen", { password: w.rbt.password, redirectTo: back }, cookie);
    const restored = await (await request(back, { cookie })).text();
    expect(restored).toContain("Typed before the lock");
    expect(restored).toContain(`name="version" value="${row!.version}"`);
    expect(restored).toContain("The note was changed after you typed this");
    // Saving it as restored is a stale save: 409 with the stored values, the manager's correction kept.
    const saved = await post(`/note-rbt/edit/${id}`, typed, cookie);
    expect(saved.status).toBe(409);
    expect(await saved.text()).toContain("Corrected by the manager");
    const [after] = await db().select().from(notes).where(eq(notes.id, id));
    expect(JSON.parse(after!.content).client_appeared).toBe("Corrected by the manager");
    expect(after!.version).toBe(row!.version + 1);
  });

  it("an expired draft is never restored, and is purged", async () => {
    const cookie = await signInCookie(w.rbt);
    await lockSessionOf(cookie);
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ "content.as_evidenced_by": "Too old to keep" }), cookie);
    const back = decodeURIComponent(res.headers.get("Location")!.split("redirectTo=")[1]!);
    await db().update(noteDrafts).set({ expiresAt: new Date(Date.now() - 1000).toISOString() }).where(eq(noteDrafts.userId, w.rbt.id));
    await post("/lock-screen", { password: w.rbt.password, redirectTo: back }, cookie);
    const html = await (await request(back, { cookie })).text();
    expect(html).not.toContain("Too old to keep");
    expect(html).toContain("could not be restored");
    expect(await db().select().from(noteDrafts).where(eq(noteDrafts.userId, w.rbt.id))).toHaveLength(0);
  });

  it("the hourly cron deletes drafts past their 24 hours and keeps the others", async () => {
    const cookie = await signInCookie(w.rbt);
    await lockSessionOf(cookie);
    await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ "content.as_evidenced_by": "Kept for the cron" }), cookie);
    const [kept] = await db().select().from(noteDrafts).where(eq(noteDrafts.userId, w.rbt.id));
    await db().insert(noteDrafts).values({ id: "expired-by-cron", userId: w.rbt.id, path: "/note-rbt", ciphertext: "x", expiresAt: new Date(Date.now() - 60_000).toISOString() });
    await scheduled({} as ScheduledController, env);
    const left = await db().select({ id: noteDrafts.id }).from(noteDrafts).where(eq(noteDrafts.userId, w.rbt.id));
    expect(left.map((d) => d.id)).toEqual([kept!.id]);
    await db().delete(noteDrafts).where(eq(noteDrafts.userId, w.rbt.id));
  });

  it("without any session nothing is kept and the sign-in page says so", async () => {
    const [{ n }] = (await db().select({ n: sql<number>`count(*)` }).from(noteDrafts)) as [{ n: number }];
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields());
    expect(res.status).toBe(303);
    const to = res.headers.get("Location")!;
    expect(to).toMatch(/^\/login\?redirectTo=.*&draft=lost$/);
    const [{ n: after }] = (await db().select({ n: sql<number>`count(*)` }).from(noteDrafts)) as [{ n: number }];
    expect(Number(after)).toBe(Number(n));
    expect(await (await request(to)).text()).toContain("could not be kept on the server");
  });

  it("an expired session's note is kept for its user and restored after signing in again", async () => {
    const cookie = await signInCookie(w.other);
    const id = /__session=([^;]+)/.exec(cookie)![1]!;
    await db().update(sessions).set({ createdAt: new Date(Date.now() - 48 * 3_600_000).toISOString() }).where(eq(sessions.idHash, await sha256Hex(id)));
    const res = await post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields({ provider_id: String(w.other.id), "content.as_evidenced_by": "Kept across sign-in" }), cookie);
    expect(res.status).toBe(303);
    const to = res.headers.get("Location")!;
    expect(to).toMatch(/^\/login\?redirectTo=.*&draft=kept$/);
    const back = decodeURIComponent(/redirectTo=([^&]+)/.exec(to)![1]!);
    const fresh = await signInCookie(w.other);
    const html = await (await request(back, { cookie: fresh })).text();
    expect(html).toContain("Kept across sign-in");
  });
});

describe("goal rows after a refused save (probe, stop 24)", () => {
  it("rows keep their places when the blank ones were not sent (JavaScript sends only measured rows); an unnamed 'Other' with a number is refused at its name", async () => {
    const loc = await createLocation();
    const patient = await createPatient({ locationId: loc.id });
    const bip = await createBip(patient);
    const first = await createPlan(bip, { name: "Hitting" });
    await createPlan(bip, { name: "Screaming" });
    const rbt = await createUser({ permissions: VIEW, locations: [loc.id] });
    const cookie = await signInCookie(rbt);
    const base = rbtFields({ patient_id: String(patient.id), provider_id: String(rbt.id), pa_service_id: "" });
    for (const k of Object.keys(base)) if (k.startsWith("content.maladaptives") || k.startsWith("content.replacements")) delete base[k];
    const sparse = {
      ...base,
      "content.maladaptives[0].plan_id": String(first.id),
      "content.maladaptives[0].name": "Hitting",
      "content.maladaptives[0].frequency": "3",
      "content.maladaptives[2].plan_id": "",
      "content.maladaptives[2].name": "Spitting",
      "content.maladaptives[2].frequency": "1",
    };
    const page = await (await post(`/note-rbt?patient_id=${patient.id}`, sparse, cookie)).text();
    const at = (needle: string) => page.indexOf(needle);
    expect(at("Choose the PA service")).toBeGreaterThan(0);
    expect([at(">Hitting<"), at(">Screaming<"), at('value="Spitting"')].every((x) => x > 0)).toBe(true);
    expect(at(">Hitting<")).toBeLessThan(at(">Screaming<"));
    expect(at(">Screaming<")).toBeLessThan(at('value="Spitting"'));
    expect(page).toContain('name="content.maladaptives[2].name" maxLength="255" value="Spitting"');
    const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "RBT direct", cpt: "97153", nUnits: 400, startDate: "2020-01-01", endDate: "2099-12-31" }).returning();
    const before = await noteCount();
    const unnamed = await post(`/note-rbt?patient_id=${patient.id}`, { ...sparse, pa_service_id: String(pa!.id), "content.maladaptives[2].name": "" }, cookie);
    expect(unnamed.status).toBe(422);
    expect(await unnamed.text()).toContain(NOTE_MESSAGES.otherName.replace("'", "&#x27;"));
    expect(await noteCount()).toBe(before);
    // Named, the same note saves.
    expect((await post(`/note-rbt?patient_id=${patient.id}`, { ...sparse, pa_service_id: String(pa!.id) }, cookie)).status).toBe(303);
  });
});


describe("one screen answer, one read in the audit trail (decision 019)", () => {
  /** The audit rows a request wrote: each as "action entity". */
  async function auditedBy(send: () => Promise<Response>): Promise<{ status: number; rows: string[] }> {
    const [top] = await db().all<{ id: number }>(sql`select coalesce(max(id), 0) as id from audit_log`);
    const res = await send();
    await res.text();
    const rows = await db().all<{ action: string; entity: string }>(sql`select action, entity from audit_log where id > ${top!.id} order by id`);
    return { status: res.status, rows: rows.map((r) => `${r.action} ${r.entity}`) };
  }

  it.each([
    ["create: 'Update the form'", 200, () => ({ intent: "options" })],
    ["create: a refused save", 422, () => ({ time_in: "10:00", time_out: "09:00" })],
    ["create: 'Generate AI Summary'", 200, () => ({ intent: "generate-summary", "content.summary_note": "" })],
  ] as const)("%s writes one read row", async (_label, status, over) => {
    const answer = await auditedBy(() => post(`/note-rbt?patient_id=${w.patient.id}`, rbtFields(over()), w.rbtCookie));
    expect(answer.status).toBe(status);
    expect(answer.rows.filter((r) => r.startsWith("read "))).toEqual(["read patient"]);
  });

  it.each([
    ["edit: 'Update the form'", 200, (version: number) => ({ intent: "options", version: String(version) })],
    ["edit: a refused save", 422, (version: number) => ({ version: String(version), time_in: "10:00", time_out: "09:00" })],
    ["edit: 'Generate AI Summary'", 200, (version: number) => ({ intent: "generate-summary", version: String(version), "content.summary_note": "" })],
    ["edit: a stale save", 409, (version: number) => ({ version: String(version - 1) })],
  ] as const)("%s writes one read row", async (_label, status, over) => {
    const id = await createViaForm(w.rbtCookie, { session_date: nextDay(), ...nextTimes() });
    await post(`/note-rbt/view/${id}`, { intent: "status", status: "ok" }, w.managerCookie); // version 2
    const [row] = await db().select().from(notes).where(eq(notes.id, id));
    const answer = await auditedBy(() => post(`/note-rbt/edit/${id}`, rbtFields({ session_date: row!.sessionDate, time_in: row!.timeIn!, time_out: row!.timeOut!, ...over(row!.version) }), w.rbtCookie));
    expect(answer.status).toBe(status);
    expect(answer.rows.filter((r) => r.startsWith("read ")).length).toBe(1);
  });

  it("the form as opened (GET) still records its read", async () => {
    const answer = await auditedBy(() => request(`/note-rbt?patient_id=${w.patient.id}`, { cookie: w.rbtCookie }));
    expect(answer.status).toBe(200);
    expect(answer.rows).toEqual(["read patient"]);
  });
});

describe("a status form sent twice saves once (decision 023, 2026-11-28)", () => {
  const stored = async (id: number) => (await db().select({ status: notes.status, version: notes.version }).from(notes).where(eq(notes.id, id)))[0]!;
  const statusRows = async (id: number) => Number((await db().all<{ n: number }>(sql`select count(*) as n from audit_log where action = 'status' and entity = 'note' and entity_id = ${String(id)}`))[0]!.n);

  it("the view's form: the second post changes nothing and says so; a different status still saves", async () => {
    const id = await createViaForm(w.rbtCookie, { session_date: nextDay(), ...nextTimes() });
    const first = await post(`/note-rbt/view/${id}`, { intent: "status", status: "ok" }, w.managerCookie);
    expect(first.status).toBe(303);
    const after = await stored(id);
    const again = await post(`/note-rbt/view/${id}`, { intent: "status", status: "ok" }, w.managerCookie);
    expect(again.status).toBe(422);
    expect(await again.text()).toMatch(/id="f-status-error" class="field-error" role="alert">Nothing to change: the status is already OK\.</);
    expect(await stored(id)).toEqual(after);
    expect(await statusRows(id)).toBe(1);
    expect((await post(`/note-rbt/view/${id}`, { intent: "status", status: "pending" }, w.managerCookie)).status).toBe(303);
    expect(await stored(id)).toEqual({ status: "pending", version: after.version + 1 });
    expect(await statusRows(id)).toBe(2);
  });
});

describe("a note edit sent twice without JavaScript (a double click on Save) answers the first save (decision 025, 2026-11-28)", () => {
  const stored = async (id: number) => (await db().select({ version: notes.version, content: notes.content }).from(notes).where(eq(notes.id, id)))[0]!;
  /** The rows a request wrote to the audit trail and the versions kept, and its answer. */
  async function sent(send: () => Promise<Response>) {
    const [top] = await db().all<{ id: number }>(sql`select coalesce(max(id), 0) as id from audit_log`);
    const [kept] = await db().all<{ n: number }>(sql`select count(*) as n from note_versions`);
    const res = await send();
    const body = await res.text();
    const rows = await db().all<{ action: string }>(sql`select action from audit_log where id > ${top!.id} and action <> 'read' order by id`);
    const [keptAfter] = await db().all<{ n: number }>(sql`select count(*) as n from note_versions`);
    return { status: res.status, location: res.headers.get("Location") ?? "", body, writes: rows.map((r) => r.action), versionsKept: Number(keptAfter!.n) - Number(kept!.n) };
  }
  /** A note of the RBT's, and its edit form as opened (its version), with the fields given. */
  async function opened(signed: boolean) {
    const day = nextDay();
    const times = nextTimes();
    const sign: Record<string, string> = signed ? { provider_name: "Riley User", provider_signed_on: day } : {};
    const id = await createViaForm(w.rbtCookie, { session_date: day, ...times, ...sign });
    const { version } = await stored(id);
    const form = (over: Record<string, string> = {}) => rbtFields({ session_date: day, ...times, ...sign, ...(signed ? { intent: "amend" } : {}), version: String(version), ...over });
    return { id, version, form };
  }
  const send = (id: number, fields: Record<string, string | string[]>, cookie: string) => sent(() => post(`/note-rbt/edit/${id}`, fields, cookie));

  it.each([
    ["an edit", false, {}, "Note updated.", "update"],
    ["an amendment", true, { amendment_reason: "Mood was recorded wrong" }, "Note amended; the earlier version is kept in its history.", "amend"],
  ] as const)("%s posted twice: the second answers the first's success and writes nothing (no version, no audit row)", async (_label, signed, extra, message, action) => {
    const { id, version, form } = await opened(signed);
    const fields = form({ "content.client_appeared": "Cheerful", ...extra });
    const first = await send(id, fields, w.rbtCookie);
    expect(first.status).toBe(303);
    expect(first.writes).toEqual([action]);
    const saved = await stored(id);
    expect(saved.version).toBe(version + 1);
    const again = await send(id, fields, w.rbtCookie);
    expect(again.status, again.body.slice(0, 300)).toBe(303);
    expect(again.location).toBe(first.location);
    expect(decodeURIComponent(again.location)).toContain(`?flash=${message}`);
    expect(again.writes).toEqual([]);
    expect(again.versionsKept).toBe(0);
    expect(await stored(id)).toEqual(saved);
    const view = await (await request(again.location, { cookie: w.rbtCookie })).text();
    expect(view).toContain(message);
    expect(view).not.toContain("Someone else saved");
  });

  it.each([
    ["different content on the old version", (f: (o?: Record<string, string>) => Record<string, string | string[]>) => f({ "content.client_appeared": "Grumpy" }), "rbt"],
    ["another user's same content (a manager saved it first)", (f: (o?: Record<string, string>) => Record<string, string | string[]>) => f({ "content.client_appeared": "Cheerful" }), "manager"],
  ] as const)("a real conflict is still 409: %s", async (_label, second, firstBy) => {
    const { id, form } = await opened(false);
    expect((await send(id, form({ "content.client_appeared": "Cheerful" }), firstBy === "manager" ? w.managerCookie : w.rbtCookie)).status).toBe(303);
    const saved = await stored(id);
    const stale = await send(id, second(form), w.rbtCookie);
    expect(stale.status).toBe(409);
    expect(stale.body).toContain("Someone else saved a newer version");
    expect(stale.writes).toEqual([]);
    expect(await stored(id)).toEqual(saved);
  });

  it("a resend after another save landed on top of the first (a status change) is 409; an amendment resent with another reason is 409", async () => {
    const edit = await opened(false);
    const fields = edit.form({ "content.client_appeared": "Cheerful" });
    expect((await send(edit.id, fields, w.rbtCookie)).status).toBe(303);
    expect((await post(`/note-rbt/view/${edit.id}`, { intent: "status", status: "ok" }, w.managerCookie)).status).toBe(303);
    expect((await send(edit.id, fields, w.rbtCookie)).status).toBe(409);

    const amend = await opened(true);
    expect((await send(amend.id, amend.form({ "content.client_appeared": "Tired", amendment_reason: "Mood was recorded wrong" }), w.rbtCookie)).status).toBe(303);
    const saved = await stored(amend.id);
    const other = await send(amend.id, amend.form({ "content.client_appeared": "Tired", amendment_reason: "Another reason" }), w.rbtCookie);
    expect(other.status).toBe(409);
    expect(other.writes).toEqual([]);
    expect(await stored(amend.id)).toEqual(saved);
  });
});
