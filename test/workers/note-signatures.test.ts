import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices } from "~/db/schema";
import { NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import { NOTHING_TO_CHANGE } from "~/models/results";
import { SIGNATURE_IMAGE_MESSAGE } from "~/domain/signature-image";
import { SIGNATURE_PNG } from "../support/note-fixtures";
import { HUGE_SIGNATURE, pngBytes, pngDataUrl } from "../support/png";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * Who signs what on a note (decision 023): the provider signs on a date from the session date to today; only the
 * note's supervisor countersigns (from the view), so no create or edit writes the supervisor's signature; an
 * amendment leaves the countersignature with the version it signed; an edit to another provider leaves the note
 * unsigned until that provider signs it. And a user without manage_notes keeps the modifiers a full PUT leaves out.
 */

const today = () => todayIn(new Date(), "America/New_York");
const day = (offset: number) => addDays(today(), offset);

let location: { id: number };
let supervisor: { id: number; token: string };
let manager: { id: number; token: string };
let managerUser: Awaited<ReturnType<typeof createUser>>;

beforeAll(async () => {
  location = await createLocation();
  const s = await createUser({ permissions: ["view_notes"], locations: [location.id], role: "BCBA" });
  supervisor = { id: s.id, token: await apiToken(s) };
  const m = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [location.id] });
  manager = { id: m.id, token: await apiToken(m) };
  managerUser = m;
});

async function scene() {
  const patient = await createPatient({ locationId: location.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 400, startDate: day(-200), endDate: day(200) }).returning();
  const user = await createUser({ permissions: ["view_notes"], locations: [location.id] });
  const rbt = { id: user.id, token: await apiToken(user) };
  const body = (over: Record<string, unknown> = {}) => ({ patient_id: patient.id, provider_id: rbt.id, supervisor_id: supervisor.id, pa_service_id: pa!.id, cpt_code: "97153", session_date: day(-1), time_in: "09:00", time_out: "10:00", pos: "12", ...over });
  return { patient, rbt, body };
}

async function call(token: string, method: string, path: string, b?: unknown) {
  const res = await api(path, { method, token, body: b });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

const rowOf = async (id: number) => (await db().select().from(notes).where(eq(notes.id, id)))[0]!;

describe("the supervisor's signature is the supervisor's", () => {
  it.each([
    ["a typed name", { supervisor_name: "Elena Moreno" }],
    ["a date", { supervisor_signed_on: "DAY" }],
    ["both", { supervisor_name: "Elena Moreno", supervisor_signed_on: "DAY" }],
  ])("a create carrying the supervisor's signature (%s) is refused on both paths and writes nothing", async (_, over) => {
    const s = await scene();
    const sent = Object.fromEntries(Object.entries(over).map(([k, v]) => [k, v === "DAY" ? day(-1) : v]));
    for (const path of ["/v2/notes-rbt", "/note_rbt/store"]) {
      const res = await call(s.rbt.token, "POST", path, s.body(sent));
      expect(res.status, path).toBe(422);
      expect(res.json.errors).toEqual({ supervisor_name: NOTE_MESSAGES.countersignOnView });
    }
    expect(await db().select().from(notes).where(eq(notes.patientId, s.patient.id))).toEqual([]);
  });

  it("an edit cannot write it (PATCH or PUT); a PUT that leaves it out or repeats it keeps it", async () => {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body())).json.data;
    const patch = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { supervisor_name: "Elena Moreno", supervisor_signed_on: day(0), version: n.version });
    expect(patch.status).toBe(422);
    expect(patch.json.errors).toEqual({ supervisor_name: NOTE_MESSAGES.countersignOnView });
    const put = await call(manager.token, "PUT", `/v2/notes-rbt/${n.id}`, { ...s.body(), supervisor_signed_on: day(0), version: n.version });
    expect(put.status).toBe(422);
    expect(await rowOf(n.id)).toMatchObject({ version: n.version, supervisorName: "", supervisorSignedOn: null });
    const plain = await call(s.rbt.token, "PUT", `/v2/notes-rbt/${n.id}`, { ...s.body({ time_out: "10:15" }), version: n.version });
    expect(plain.status, JSON.stringify(plain.json)).toBe(200);
    expect(plain.json.data).toMatchObject({ total_minutes: 75, supervisor_name: "" });
  });

  it.each(["", "   ", "\u200b\u200b"])("an amendment cannot leave a signed note without a typed name (%j): 422, nothing changed (probe 8895, stop 25)", async (name) => {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ provider_name: "Robin RBT", provider_signed_on: day(-1) }))).json.data;
    const blank = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { provider_name: name, amendment_reason: "remove name", version: n.version });
    expect(blank.status).toBe(422);
    expect(blank.json.errors).toEqual({ provider_name: NOTE_MESSAGES.signedKeepsName });
    expect(await rowOf(n.id)).toMatchObject({ version: n.version, providerName: "Robin RBT" });
  });

  it("an amendment leaves the countersignature with the version it signed; the amended note waits for a new one", async () => {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ provider_name: "Robin RBT", provider_signed_on: day(-1) }))).json.data;
    // The supervisor's countersignature (the view's form; decision 023), written here as it stores it.
    await db().update(notes).set({ supervisorName: "Sam Supervisor", supervisorSignedOn: day(0) }).where(eq(notes.id, n.id));
    // A whole-note PUT that repeats the countersignature is not a new one: the amendment goes through.
    const amended = await call(s.rbt.token, "PUT", `/v2/notes-rbt/${n.id}`, { ...s.body({ time_out: "10:30", provider_name: "Robin RBT", provider_signed_on: day(-1), supervisor_name: "Sam Supervisor", supervisor_signed_on: day(0) }), amendment_reason: "Session ran longer", version: n.version });
    expect(amended.status, JSON.stringify(amended.json)).toBe(200);
    expect(await rowOf(n.id)).toMatchObject({ minutes: 90, supervisorName: "", supervisorSignedOn: null, supervisorSignature: null });
    const shown = await call(s.rbt.token, "GET", `/v2/notes-rbt/${n.id}`);
    expect(shown.json.data.history[0].note).toMatchObject({ supervisor_name: "Sam Supervisor", supervisor_signed_on: day(0) });
  });
});

describe("an amendment that changes nothing (probe 8964 §3)", () => {
  /** A note signed by its RBT and countersigned by its supervisor. */
  async function countersigned() {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ provider_name: "Robin RBT", provider_signed_on: day(-1), content: { client_appeared: "Calm", interventions: ["Prompting"] } }))).json.data;
    await db().update(notes).set({ supervisorName: "Sam Supervisor", supervisorSignedOn: day(0) }).where(eq(notes.id, n.id));
    return { ...s, n };
  }
  type Countersigned = Awaited<ReturnType<typeof countersigned>>;
  const whole = (x: Countersigned) => x.body({ provider_name: "Robin RBT", provider_signed_on: day(-1), content: { client_appeared: "Calm", interventions: ["Prompting"] } });

  const unchangedSaves: [string, "PATCH" | "PUT", string, (x: Countersigned) => Record<string, unknown>][] = [
    ["a PATCH that repeats a stored value", "PATCH", "/v2/notes-rbt/ID", () => ({ time_in: "09:00" })],
    ["a PATCH that repeats the POS", "PATCH", "/v2/notes-rbt/ID", () => ({ pos: "12" })],
    ["a PATCH that repeats the content", "PATCH", "/v2/notes-rbt/ID", () => ({ content: { client_appeared: "Calm" } })],
    ["a v2 PUT of the note as stored", "PUT", "/v2/notes-rbt/ID", whole],
    ["a v1 PUT of the note as stored, the signature left out", "PUT", "/note_rbt/update/ID", (x) => x.body({ content: { interventions: ["Prompting"], client_appeared: "Calm" } })],
  ];
  // With or without a reason, an unchanged save answers "Nothing to change", never "needs a reason" first (stop 37).
  it.each(unchangedSaves.flatMap(([label, method, path, bodyOf]) => [
    [`${label}, with a reason`, method, path, bodyOf, { amendment_reason: "no change" }] as const,
    [`${label}, without a reason`, method, path, bodyOf, {}] as const,
  ]))("%s is refused as an empty PATCH is; the version and the countersignature stay", async (_, method, path, bodyOf, reason) => {
    const x = await countersigned();
    const res = await call(x.rbt.token, method, path.replace("ID", String(x.n.id)), { ...bodyOf(x), ...reason, version: x.n.version });
    expect(res.status, JSON.stringify(res.json)).toBe(422);
    expect(res.json.errors).toEqual({ form: NOTHING_TO_CHANGE });
    expect(await rowOf(x.n.id)).toMatchObject({ version: x.n.version, supervisorName: "Sam Supervisor", supervisorSignedOn: day(0) });
    // One real change still needs the reason…
    const unexplained = await call(x.rbt.token, method, path.replace("ID", String(x.n.id)), { ...bodyOf(x), time_out: "10:15", version: x.n.version });
    expect(unexplained.status, JSON.stringify(unexplained.json)).toBe(422);
    expect(unexplained.json.errors).toEqual({ amendment_reason: NOTE_MESSAGES.signed });
    // …and with it is an amendment as before.
    const real = await call(x.rbt.token, method, path.replace("ID", String(x.n.id)), { ...bodyOf(x), time_out: "10:15", amendment_reason: "Ran longer", version: x.n.version });
    expect(real.status, JSON.stringify(real.json)).toBe(200);
    expect(await rowOf(x.n.id)).toMatchObject({ version: x.n.version + 1, minutes: 75, supervisorName: "" });
  });

  it.each([
    ["v2 PUT", "PUT", "/v2/notes-rbt/ID"],
    ["v2 PATCH", "PATCH", "/v2/notes-rbt/ID"],
    ["v1 PUT", "PUT", "/note_rbt/update/ID"],
  ] as const)("the note as read (GET), its history left out, sent back by %s: 'Nothing to change', with or without a reason", async (_, method, path) => {
    const x = await countersigned();
    const { history: _history, ...read } = (await call(x.rbt.token, "GET", `/v2/notes-rbt/${x.n.id}`)).json.data as Record<string, unknown>;
    for (const reason of [{}, { amendment_reason: "no change" }]) {
      const res = await call(x.rbt.token, method, path.replace("ID", String(x.n.id)), { ...read, ...reason });
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.errors).toEqual({ form: NOTHING_TO_CHANGE });
    }
    expect(await rowOf(x.n.id)).toMatchObject({ version: x.n.version, supervisorName: "Sam Supervisor" });
  });

  it.each([
    ["with only a reason", "only looked, saved"],
    ["with nothing typed, not even a reason", ""],
  ])("screen: 'Save amendment' %s shows 'Nothing to change', keeps what was typed and writes no version", async (_, typedReason) => {
    const x = await countersigned();
    const cookie = await signInCookie(managerUser);
    // The amend form as loaded (JavaScript off), posted unchanged.
    const page = await (await request(`/note-rbt/edit/${x.n.id}`, { cookie })).text();
    const fields = noteFormFields(page, `/note-rbt/edit/${x.n.id}`);
    expect(fields.get("provider_signed_on")).toBe(day(-1));
    fields.set("intent", "amend");
    fields.set("amendment_reason", typedReason);
    const res = await request(`/note-rbt/edit/${x.n.id}`, { method: "POST", body: fields, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    const shown = await res.text();
    expect(res.status, shown.slice(0, 300)).toBe(422);
    expect(shown).toContain(NOTHING_TO_CHANGE);
    expect(shown).not.toContain(NOTE_MESSAGES.signed);
    if (typedReason) expect(shown).toContain(typedReason);
    expect(await rowOf(x.n.id)).toMatchObject({ version: x.n.version, supervisorName: "Sam Supervisor" });
    // A real change without a reason is still asked for one.
    fields.set("time_out", "10:15");
    fields.set("amendment_reason", "");
    const changed = await request(`/note-rbt/edit/${x.n.id}`, { method: "POST", body: fields, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    const asked = await changed.text();
    expect(changed.status).toBe(422);
    expect(asked).toContain(NOTE_MESSAGES.signed.replace(/'/g, "&#x27;"));
    expect(await rowOf(x.n.id)).toMatchObject({ version: x.n.version, minutes: 60 });
  });
});

/** What the browser posts from a page's form (its action): inputs, checked boxes, textareas and selected options. */
function noteFormFields(html: string, action: string): URLSearchParams {
  const start = html.indexOf(`<form method="post" action="${action}"`);
  const f = html.slice(start, html.indexOf("</form>", start));
  const text = (x: string) => x.replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
  const out = new URLSearchParams();
  for (const [tag] of f.matchAll(/<input\b[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(tag)?.[1];
    if (!name || /type="submit"/.test(tag) || (/type="(checkbox|radio)"/.test(tag) && !/\bchecked\b/.test(tag))) continue;
    out.append(name, text(/value="([^"]*)"/.exec(tag)?.[1] ?? "on"));
  }
  for (const m of f.matchAll(/<textarea\b[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/textarea>/g)) out.append(m[1]!, text(m[2]!));
  for (const m of f.matchAll(/<select\b[^>]*name="([^"]+)"[^>]*>([\s\S]*?)<\/select>/g)) out.append(m[1]!, text(/<option[^>]*value="([^"]*)"[^>]*selected/.exec(m[2]!)?.[1] ?? ""));
  return out;
}

describe("the provider's signature date", () => {
  it.each([
    ["the session date", -1, 201],
    ["today", 0, 201],
    ["before the session", -2, 422],
    ["tomorrow", 1, 422],
  ])("signed on %s: %i", async (_, offset, status) => {
    const s = await scene();
    const res = await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ provider_name: "Robin RBT", provider_signed_on: day(offset) }));
    expect(res.status, JSON.stringify(res.json)).toBe(status);
    if (status === 422) expect(res.json.errors).toEqual({ provider_signed_on: NOTE_MESSAGES.signDate(day(-1), today()) });
  });

  it("signing an unsigned note by an edit is held to the same dates", async () => {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body())).json.data;
    const future = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { provider_name: "Robin RBT", provider_signed_on: day(3), version: n.version });
    expect(future.status).toBe(422);
    expect(future.json.errors).toEqual({ provider_signed_on: NOTE_MESSAGES.signDate(day(-1), today()) });
    expect((await rowOf(n.id)).signedAt).toBeNull();
    const signed = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { provider_name: "Robin RBT", provider_signed_on: day(0), version: n.version });
    expect(signed.status).toBe(200);
    expect(signed.json.data.signed_at).toBeTruthy();
  });
});

describe("an amendment of a signed note keeps a signature that passes the date rule (probe 8964 §1, §5)", () => {
  const png = SIGNATURE_PNG;
  /** A note of the session two days ago, signed that day with a drawing. */
  async function signed() {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ session_date: day(-2), provider_name: "Robin RBT", provider_signed_on: day(-2), provider_signature: png }))).json.data;
    return { ...s, n, body: (over: Record<string, unknown> = {}) => s.body({ session_date: day(-2), ...over }) };
  }
  type Signed = Awaited<ReturnType<typeof signed>>;
  const dateRule = (session = day(-2)) => ({ provider_signed_on: NOTE_MESSAGES.signDate(session, today()) });
  const reason = { amendment_reason: "Correcting the record" };

  it.each<[string, "PATCH" | "PUT", string, (x: Signed) => Record<string, unknown>, Record<string, string> | null, Partial<typeof notes.$inferSelect>]>([
    ["a date years back", "PATCH", "/v2/notes-rbt/ID", () => ({ provider_signed_on: "2019-01-01" }), dateRule(), {}],
    ["a date before the session", "PATCH", "/v2/notes-rbt/ID", () => ({ provider_signed_on: day(-3) }), dateRule(), {}],
    ["a date in the future", "PATCH", "/v2/notes-rbt/ID", () => ({ provider_signed_on: day(1) }), dateRule(), {}],
    ["a future date in a v1 PUT", "PUT", "/note_rbt/update/ID", (x) => x.body({ provider_name: "Robin RBT", provider_signed_on: day(1) }), dateRule(), {}],
    ["no date (null)", "PATCH", "/v2/notes-rbt/ID", () => ({ provider_signed_on: null }), { provider_signed_on: NOTE_MESSAGES.signedKeepsDate }, {}],
    ["no date (blank)", "PATCH", "/v2/notes-rbt/ID", () => ({ provider_signed_on: "" }), { provider_signed_on: NOTE_MESSAGES.signedKeepsDate }, {}],
    ["a PUT with the name and a null date", "PUT", "/v2/notes-rbt/ID", (x) => x.body({ provider_name: "Robin RBT", provider_signed_on: null }), { provider_signed_on: NOTE_MESSAGES.signedKeepsDate }, {}],
    ["a PUT with a blank name", "PUT", "/v2/notes-rbt/ID", (x) => x.body({ provider_name: " ", provider_signed_on: day(-2) }), { provider_name: NOTE_MESSAGES.signedKeepsName }, {}],
    ["a session moved after the date signed", "PATCH", "/v2/notes-rbt/ID", () => ({ session_date: day(-1) }), dateRule(day(-1)), {}],
    ["a valid new date", "PATCH", "/v2/notes-rbt/ID", () => ({ provider_signed_on: day(0) }), null, { providerSignedOn: day(0) }],
    ["the date unchanged", "PATCH", "/v2/notes-rbt/ID", () => ({ provider_signed_on: day(-2), time_out: "10:15" }), null, { providerSignedOn: day(-2), minutes: 75 }],
    ["a v2 PUT that leaves the signature out", "PUT", "/v2/notes-rbt/ID", (x) => x.body({ time_out: "10:15" }), null, { providerName: "Robin RBT", providerSignedOn: day(-2), providerSignature: png, minutes: 75 }],
    ["a v2 PUT with the name but no date", "PUT", "/v2/notes-rbt/ID", (x) => x.body({ provider_name: "Robin R. RBT", time_out: "10:15" }), null, { providerName: "Robin R. RBT", providerSignedOn: day(-2) }],
    ["a v1 PUT that leaves the signature out", "PUT", "/note_rbt/update/ID", (x) => x.body({ time_out: "10:15" }), null, { providerName: "Robin RBT", providerSignedOn: day(-2), minutes: 75 }],
  ])("%s (%s %s)", async (_, method, path, bodyOf, errors, stored) => {
    const x = await signed();
    const res = await call(x.rbt.token, method, path.replace("ID", String(x.n.id)), { ...bodyOf(x), ...reason, version: x.n.version });
    const row = await rowOf(x.n.id);
    if (errors) {
      expect(res.status, JSON.stringify(res.json)).toBe(422);
      expect(res.json.errors).toEqual(errors);
      expect(row).toMatchObject({ version: x.n.version, providerName: "Robin RBT", providerSignedOn: day(-2), sessionDate: day(-2) });
    } else {
      expect(res.status, JSON.stringify(res.json)).toBe(200);
      expect(row).toMatchObject({ version: x.n.version + 1, signedAt: x.n.signed_at, ...stored });
    }
  });

  it("screen: 'Save amendment' with a date signed years back, or cleared, shows the message beside the date and saves nothing", async () => {
    const x = await signed();
    const cookie = await signInCookie(managerUser);
    for (const [date, message] of [
      ["2020-02-02", NOTE_MESSAGES.signDate(day(-2), today())],
      ["", NOTE_MESSAGES.signedKeepsDate],
    ] as const) {
      const res = await form(
        `/note-rbt/edit/${x.n.id}`,
        {
          intent: "amend",
          type: "rbt",
          patient_id: String(x.patient.id),
          provider_id: String(x.rbt.id),
          supervisor_id: String(supervisor.id),
          session_date: day(-2),
          cpt_code: "97153",
          pa_service_id: String(x.n.pa_service_id),
          pos: "12",
          time_in: "09:00",
          time_out: "10:00",
          provider_name: "Robin RBT",
          provider_signed_on: date,
          provider_signature: png,
          version: String(x.n.version),
          amendment_reason: "Date corrected",
        },
        cookie,
      );
      expect(res.status).toBe(422);
      const html = await res.text();
      expect(html).toContain(message.replace(/'/g, "&#x27;"));
      expect(html).toContain("Date corrected");
      expect(await rowOf(x.n.id)).toMatchObject({ version: x.n.version, providerSignedOn: day(-2) });
    }
  });
});

describe("a date or a drawing without the typed name (probe, stop 24)", () => {
  const png = SIGNATURE_PNG;
  it.each([
    ["a date before the session", { provider_signed_on: "-2" }],
    ["a valid date", { provider_signed_on: "0" }],
    ["a drawing", { provider_signature: png }],
    ["a drawing and a date", { provider_signature: png, provider_signed_on: "0" }],
  ])("%s is refused at the name, on create and on an edit of an unsigned note; nothing is stored", async (_, over) => {
    const s = await scene();
    const sent = Object.fromEntries(Object.entries(over).map(([k, v]) => [k, k === "provider_signed_on" ? day(Number(v)) : v]));
    const created = await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body(sent));
    expect(created.status).toBe(422);
    expect(created.json.errors).toEqual({ provider_name: NOTE_MESSAGES.signName });
    expect(await db().select().from(notes).where(eq(notes.patientId, s.patient.id))).toEqual([]);
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body())).json.data;
    const edited = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${n.id}`, { ...sent, version: n.version });
    expect(edited.status).toBe(422);
    expect(edited.json.errors).toEqual({ provider_name: NOTE_MESSAGES.signName });
    const row = await rowOf(n.id);
    expect([row.signedAt, row.providerSignedOn, row.providerSignature, row.version]).toEqual([null, null, null, n.version]);
  });

  it("the name with the date signs; the name alone is kept and does not sign", async () => {
    const s = await scene();
    const named = await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ provider_name: "Robin RBT" }));
    expect(named.status).toBe(201);
    expect(named.json.data.signed_at).toBeNull();
    const signed = await call(s.rbt.token, "PATCH", `/v2/notes-rbt/${named.json.data.id}`, { provider_signed_on: day(0), version: named.json.data.version });
    expect(signed.status).toBe(200);
    expect(signed.json.data.signed_at).toBeTruthy();
  });
});

describe("modifiers a user without manage_notes cannot change", () => {
  it("a full PUT that leaves them out keeps them (one that sends others is refused)", async () => {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body())).json.data;
    expect((await call(manager.token, "PUT", `/note_rbt/update/modifier/${n.id}`, { md: "HM" })).status).toBe(200);
    const put = await call(s.rbt.token, "PUT", `/note_rbt/update/${n.id}`, s.body({ time_out: "10:15" }));
    expect(put.status, JSON.stringify(put.json)).toBe(200);
    expect(await rowOf(n.id)).toMatchObject({ md: "HM", minutes: 75 });
    const other = await call(s.rbt.token, "PUT", `/note_rbt/update/${n.id}`, s.body({ md: "XP" }));
    expect(other.status).toBe(422);
    // A manager's full PUT keeps the whole-note meaning: leaving them out clears them.
    expect((await call(manager.token, "PUT", `/note_rbt/update/${n.id}`, s.body())).status).toBe(200);
    expect((await rowOf(n.id)).md).toBeNull();
  });
});

describe("a new provider does not inherit the signature (probe 8922 §1)", () => {
  /** A note the RBT signed (and the supervisor countersigned), and another provider of the location. */
  async function signedScene() {
    const s = await scene();
    const n = (await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ provider_name: "Robin RBT", provider_signed_on: day(-1) }))).json.data;
    await db().update(notes).set({ supervisorName: "Sam Supervisor", supervisorSignedOn: day(0) }).where(eq(notes.id, n.id));
    const maya = await createUser({ permissions: ["view_notes"], locations: [location.id], name: "Maya" });
    return { ...s, note: (await rowOf(n.id)) as typeof notes.$inferSelect, maya: { id: maya.id, token: await apiToken(maya), cookie: await signInCookie(maya) } };
  }
  type Signed = Awaited<ReturnType<typeof signedScene>>;

  it.each<[string, "PATCH" | "PUT", (x: Signed) => Record<string, unknown>, boolean]>([
    ["PATCH to another provider", "PATCH", (x) => ({ provider_id: x.maya.id }), false],
    ["PUT to another provider, repeating the signature", "PUT", (x) => x.body({ provider_id: x.maya.id, provider_name: "Robin RBT", provider_signed_on: day(-1) }), false],
    ["PATCH to another provider with a name and date typed for them", "PATCH", (x) => ({ provider_id: x.maya.id, provider_name: "Maya User", provider_signed_on: day(0) }), false],
    ["PATCH keeping the provider", "PATCH", () => ({ time_out: "10:30" }), true],
    ["PUT keeping the provider", "PUT", (x) => x.body({ time_out: "10:30", provider_name: "Robin RBT", provider_signed_on: day(-1) }), true],
  ])("an amendment by a manager: %s (%s; stays signed: %s)", async (_, method, bodyOf, staysSigned) => {
    const x = await signedScene();
    const res = await call(manager.token, method, `/v2/notes-rbt/${x.note.id}`, { ...bodyOf(x), amendment_reason: "Correcting the record", version: x.note.version });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const row = await rowOf(x.note.id);
    // The countersignature goes with any amendment (stop 23).
    expect(row).toMatchObject({ version: x.note.version + 1, supervisorName: "", supervisorSignedOn: null });
    if (staysSigned) {
      expect(row).toMatchObject({ providerId: x.rbt.id, providerName: "Robin RBT", providerSignedOn: day(-1), signedAt: x.note.signedAt });
      expect(res.json.message).not.toContain(NOTE_MESSAGES.newProviderUnsigned);
    } else {
      expect(row).toMatchObject({ providerId: x.maya.id, providerName: "", providerSignedOn: null, providerSignature: null, signedAt: null });
      expect(res.json.message).toContain(NOTE_MESSAGES.newProviderUnsigned);
      // The signed version, with the earlier provider's signature, stays in the history.
      const shown = await call(manager.token, "GET", `/v2/notes-rbt/${x.note.id}`);
      expect(shown.json.data.history[0].note).toMatchObject({ provider_id: x.rbt.id, provider_name: "Robin RBT", provider_signed_on: day(-1), signed_at: x.note.signedAt });
    }
  });

  it("the new provider then signs it like any unsigned note (no amendment), or a manager writes it for them", async () => {
    for (const signer of ["maya", "manager"] as const) {
      const x = await signedScene();
      const moved = await call(manager.token, "PATCH", `/v2/notes-rbt/${x.note.id}`, { provider_id: x.maya.id, amendment_reason: "Wrong provider", version: x.note.version });
      expect(moved.status).toBe(200);
      const token = signer === "maya" ? x.maya.token : manager.token;
      const signed = await call(token, "PATCH", `/v2/notes-rbt/${x.note.id}`, { provider_name: "Maya User", provider_signed_on: day(0), version: moved.json.data.version });
      expect(signed.status, JSON.stringify(signed.json)).toBe(200);
      expect(signed.json.message).toBe("Note updated.");
      expect(await rowOf(x.note.id)).toMatchObject({ providerId: x.maya.id, providerName: "Maya User", providerSignedOn: day(0), signedAt: expect.any(String) });
      // The earlier provider can no longer change it.
      expect((await call(x.rbt.token, "PATCH", `/v2/notes-rbt/${x.note.id}`, { time_out: "10:15", amendment_reason: "x" })).status).toBe(403);
    }
  });

  it("an unsigned note's typed name does not pass to the new provider; a name and date typed for them sign it", async () => {
    const x = await signedScene();
    const n = (await call(x.rbt.token, "POST", "/v2/notes-rbt", x.body({ session_date: day(-2), provider_name: "Robin RBT" }))).json.data;
    const moved = await call(manager.token, "PATCH", `/v2/notes-rbt/${n.id}`, { provider_id: x.maya.id, version: n.version });
    expect(moved.status).toBe(200);
    expect(await rowOf(n.id)).toMatchObject({ providerId: x.maya.id, providerName: "", signedAt: null });
    const back = await call(manager.token, "PATCH", `/v2/notes-rbt/${n.id}`, { provider_id: x.rbt.id, provider_name: "Robin RBT", provider_signed_on: day(-1), version: moved.json.data.version });
    expect(back.status).toBe(200);
    expect(await rowOf(n.id)).toMatchObject({ providerId: x.rbt.id, providerName: "Robin RBT", providerSignedOn: day(-1), signedAt: expect.any(String) });
  });

  /** The edit form as a manager posts it (JavaScript off), from the stored note. */
  const editForm = (x: Signed, over: Record<string, string>) => ({
    intent: "amend",
    type: "rbt",
    patient_id: String(x.patient.id),
    provider_id: String(x.rbt.id),
    supervisor_id: String(supervisor.id),
    session_date: day(-1),
    cpt_code: "97153",
    pa_service_id: String(x.note.paServiceId),
    pos: "12",
    time_in: "09:00",
    time_out: "10:00",
    provider_name: "Robin RBT",
    provider_signed_on: day(-1),
    provider_signature: "",
    version: String(x.note.version),
    amendment_reason: "Correcting the record",
    ...over,
  });

  it.each([
    ["another provider chosen", true],
    ["the same provider", false],
  ])("screen: 'Save amendment' with %s", async (_, changes) => {
    const x = await signedScene();
    const cookie = await signInCookie(managerUser);
    const res = await form(`/note-rbt/edit/${x.note.id}`, editForm(x, changes ? { provider_id: String(x.maya.id) } : { time_out: "10:30" }), cookie);
    expect(res.status, await res.clone().text().then((t) => t.slice(0, 300))).toBe(303);
    const view = await (await request(res.headers.get("Location")!, { cookie })).text();
    if (changes) {
      expect(view).not.toContain("Signed on");
      expect(view).toContain('<h3>Provider</h3><p>—<span class="muted"> · not signed</span>');
      expect(view).toContain(NOTE_MESSAGES.newProviderUnsigned.replace(/'/g, "&#x27;"));
      expect(await rowOf(x.note.id)).toMatchObject({ providerId: x.maya.id, providerName: "", signedAt: null });
      // The new provider signs it from the edit screen: a save, not an amendment.
      const signed = await form(`/note-rbt/edit/${x.note.id}`, editForm(x, { intent: "save", amendment_reason: "", provider_id: String(x.maya.id), provider_name: "Maya User", provider_signed_on: day(0), version: String(x.note.version + 1) }), x.maya.cookie);
      expect(signed.status, await signed.clone().text().then((t) => t.slice(0, 300))).toBe(303);
      expect(await (await request(signed.headers.get("Location")!, { cookie: x.maya.cookie })).text()).toContain("Signed on");
    } else {
      expect(view).toContain("Signed on");
      expect(view).toContain(`<h3>Provider</h3><p>Robin RBT<span class="muted"> · signed <!-- -->${day(-1)}`);
      expect(await rowOf(x.note.id)).toMatchObject({ providerId: x.rbt.id, providerName: "Robin RBT", signedAt: x.note.signedAt });
    }
  });
});

describe("a drawn signature is a small, well-formed PNG (decision 023, stop 36)", () => {
  it.each([
    ["a 20000×20000 canvas", HUGE_SIGNATURE],
    ["a zero-height canvas", pngDataUrl(pngBytes(480, 0))],
    ["a fully transparent canvas", pngDataUrl(pngBytes(480, 140, { colour: 6, fill: 0, ink: false }))],
    ["PNG magic and then anything", "data:image/png;base64," + btoa("\x89PNG\r\n\x1a\n" + "{\"drawn\":true}".repeat(4))],
  ])("the provider's drawing as %s is refused on the field on both create paths, and nothing is written", async (_, image) => {
    const s = await scene();
    const before = (await db().select({ id: notes.id }).from(notes)).length;
    for (const path of ["/v2/notes-rbt", "/note_rbt/store"]) {
      const res = await call(s.rbt.token, "POST", path, s.body({ provider_name: "Robin RBT", provider_signed_on: day(-1), provider_signature: image }));
      expect(res.status, path).toBe(422);
      expect(res.json.errors.provider_signature, path).toBe(SIGNATURE_IMAGE_MESSAGE);
    }
    expect((await db().select({ id: notes.id }).from(notes)).length).toBe(before);
  });

  // The ink check runs on the server only (app/domain/signature-ink.server.ts, decision 040): every edit path too.
  const BLANK = pngDataUrl(pngBytes(480, 140, { colour: 6, fill: 0, ink: false }));
  it.each([
    ["a v2 PUT", "PUT", "/v2/notes-rbt/ID", true],
    ["a v2 PATCH", "PATCH", "/v2/notes-rbt/ID", false],
    ["a v1 PUT", "PUT", "/note_rbt/update/ID", true],
  ] as const)("an edit sending a blank drawing (%s) is refused on the field, and nothing is written", async (_, method, path, whole) => {
    const s = await scene();
    const created = await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body());
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const n = created.json.data ?? created.json;
    const before = await rowOf(n.id);
    const sent = { provider_name: "Robin RBT", provider_signed_on: day(-1), provider_signature: BLANK, version: n.version };
    const res = await call(s.rbt.token, method, path.replace("ID", String(n.id)), whole ? { ...s.body(), ...sent } : sent);
    expect(res.status, JSON.stringify(res.json)).toBe(422);
    expect(res.json.errors.provider_signature).toBe(SIGNATURE_IMAGE_MESSAGE);
    expect(await rowOf(n.id)).toEqual(before);
  });

  it("a blank drawing beside another refused field answers both fields", async () => {
    const s = await scene();
    const res = await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ md: "ZZ", provider_name: "Robin RBT", provider_signed_on: day(-1), provider_signature: BLANK }));
    expect(res.status).toBe(422);
    expect(res.json.errors).toMatchObject({ provider_signature: SIGNATURE_IMAGE_MESSAGE, md: expect.any(String) });
  });

  it("a drawing of the pad at 3× (1440×420) signs the note", async () => {
    const s = await scene();
    const res = await call(s.rbt.token, "POST", "/v2/notes-rbt", s.body({ provider_name: "Robin RBT", provider_signed_on: day(-1), provider_signature: pngDataUrl(pngBytes(1440, 420, { depth: 1 })) }));
    expect(res.status, JSON.stringify(res.json)).toBe(201);
  });
});
