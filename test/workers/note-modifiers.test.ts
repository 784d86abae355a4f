import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, clientReports, insurances, insuranceServices, notes, paServices } from "~/db/schema";
import { todayIn } from "~/domain/note-rules";
import { addDays, dayNumber } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * A note's modifiers fit its type (clinical §3's Modifiers table, Type column; probe 8922 §4): HM and XP are an
 * RBT note's, HO a BCBA or combined note's, the rest any note's, and no code twice. Every writer refuses a misfit
 * with 422 at its field and writes nothing — the notes' modifier call, a note's body, the billing save (API and
 * screen) — and the selectors offer only the codes that fit, plus a stored one that does not.
 */

const XP_ON_BCBA = "Modifier XP (RBT overlap, not reimbursed) is for RBT notes and does not fit a BCBA note: choose XE, HO, GT, TS, 95.";
const HM_ON_BCBA = "Modifier HM (RBT) is for RBT notes and does not fit a BCBA note: choose XE, HO, GT, TS, 95.";
const HO_ON_RBT = "Modifier HO (BCBA) is for BCBA notes and does not fit an RBT note: choose HM, XE, XP, GT, TS, 95.";
const HM_ON_COMBINED = "Modifier HM (RBT) is for RBT notes and does not fit a combined note (billed as BCBA): choose XE, HO, GT, TS, 95.";
const twice = (code: string) => `Modifier ${code} is chosen twice: give each modifier once.`;

let location: { id: number };
let client: { id: number; locationId: number };
let provider: { id: number };
let manager: { id: number; token: string; cookie: string };
const pa: Record<string, number> = {};

const day = (offset: number) => addDays(todayIn(new Date(), "America/New_York"), offset);
let slot = 0;

/** A signed note stored as it is (a "stored" modifier may be one written before the rule). */
async function note(type: "rbt" | "bcba" | "combined", mods: { md?: string | null; md2?: string | null } = {}) {
  const date = addDays("2026-03-01", slot++);
  const s = dayNumber(date)! * 1440 + 9 * 60;
  const [row] = await db()
    .insert(notes)
    .values({ type, patientId: client.id, locationId: location.id, providerId: provider.id, paServiceId: type === "rbt" ? pa.rbt! : pa.bcba!, diagnosisCode: "F84.0", signedAt: `${date}T23:00:00.000Z`, providerSignedOn: date, cptCode: type === "rbt" ? "97153" : "97155", pos: "12", sessionDate: date, timeIn: "09:00", timeOut: "10:00", start1At: s, end1At: s + 60, startAt: s, endAt: s + 60, minutes: 60, units: 4, md: mods.md ?? null, md2: mods.md2 ?? null })
    .returning();
  return row!;
}

const stored = async (id: number) => (await db().select({ md: notes.md, md2: notes.md2, md3: notes.md3, version: notes.version }).from(notes).where(eq(notes.id, id)))[0]!;
const counts = async () => ({ audit: (await db().select({ n: count() }).from(auditLog))[0]!.n, reports: (await db().select({ n: count() }).from(clientReports))[0]!.n });
const optionsOf = (select: string) => [...select.matchAll(/<option value="([^"]*)"/g)].map((m) => m[1]);

beforeAll(async () => {
  location = await createLocation();
  const [ins] = await db().insert(insurances).values({ name: "Fit Health", payerId: "PAYER1" }).returning();
  await db()
    .insert(insuranceServices)
    .values([
      { insuranceId: ins!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 15 },
      { insuranceId: ins!.id, cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 30 },
    ]);
  client = await createPatient({ locationId: location.id, insurerId: ins!.id });
  for (const cpt of ["97153", "97155"]) {
    const [row] = await db().insert(paServices).values({ patientId: client.id, paService: `PA ${cpt}`, cpt, nUnits: 4000, startDate: "2026-01-01", endDate: addDays(day(0), 365), insuranceId: ins!.id }).returning();
    pa[cpt === "97153" ? "rbt" : "bcba"] = row!.id;
  }
  provider = await createUser({ permissions: ["view_notes"], locations: [location.id] });
  const user = await createUser({ role: "MANAGER", permissions: ["view_notes", "manage_notes", "manage_claims", "ignore_time_limits"], locations: [location.id] });
  manager = { id: user.id, token: await apiToken(user), cookie: await signInCookie(user) };
});

describe("the notes' modifier call (PUT …/update/modifier/{id})", () => {
  it.each([
    // note type, stored, body → status, field, message
    ["bcba", {}, { md: "XP" }, "md", XP_ON_BCBA],
    ["bcba", {}, { md: "HM", md2: "XP" }, "md", HM_ON_BCBA],
    ["rbt", {}, { md: "HO", md2: "HO" }, "md", HO_ON_RBT],
    ["rbt", {}, { md: "HM", md2: "hm" }, "md2", twice("HM")],
    ["rbt", { md: "HM" }, { md2: "HM" }, "md2", twice("HM")],
    ["bcba", { md: "HO" }, { md3: "HO" }, "md3", twice("HO")],
  ] as const)("a %s note with %j: %j answers 422 and writes nothing", async (type, before, body, field, message) => {
    const n = await note(type, before);
    const was = await stored(n.id);
    const c = await counts();
    const res = await api(`/note_${type}/update/modifier/${n.id}`, { method: "PUT", token: manager.token, body });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ [field]: message });
    expect(await stored(n.id)).toEqual(was);
    expect(await counts()).toEqual(c);
  });

  it.each([
    ["rbt", {}, { md: "HM", md2: "XP" }, { md: "HM", md2: "XP", md3: null }],
    ["bcba", {}, { md: "HO", md2: "GT", md3: "TS" }, { md: "HO", md2: "GT", md3: "TS" }],
    ["bcba", { md: "HO", md2: "GT" }, { md2: "95" }, { md: "HO", md2: "95", md3: null }],
    // A misfit stored before the rule is kept when the call does not set it (the scrubber names it), and may be cleared.
    ["bcba", { md: "XP" }, { md2: "GT" }, { md: "XP", md2: "GT", md3: null }],
    ["bcba", { md: "XP", md2: "HM" }, { md: null, md2: null }, { md: null, md2: null, md3: null }],
  ] as const)("a %s note with %j: %j is saved", async (type, before, body, after) => {
    const n = await note(type, before);
    const res = await api(`/note_${type}/update/modifier/${n.id}`, { method: "PUT", token: manager.token, body });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await stored(n.id)).toMatchObject({ ...after, version: n.version + 1 });
  });
});

describe("a note's body (create, PUT, PATCH) with modifiers", () => {
  const body = (over: Record<string, unknown>) => ({ patient_id: client.id, provider_id: provider.id, pa_service_id: pa.bcba, cpt_code: "97155", session_date: day(-1), time_in: "07:00", time_out: "07:30", pos: "12", diagnosis_code: "F84.0", ...over });

  it("create answers 422 at the misfit or repeated field and writes no note", async () => {
    const before = await db().select({ n: count() }).from(notes);
    for (const [over, field, message] of [
      [{ md: "XP" }, "md", XP_ON_BCBA],
      [{ md: "HO", md2: "GT", md3: "HO" }, "md3", twice("HO")],
    ] as const) {
      const res = await api("/v2/notes-bcba", { method: "POST", token: manager.token, body: body(over) });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ [field]: message });
    }
    const combined = await api("/v2/notes-combined", { method: "POST", token: manager.token, body: body({ md: "HM", time_in: "07:40", time_out: "08:10" }) });
    expect(combined.status).toBe(422);
    expect(((await combined.json()) as { errors: Record<string, string> }).errors).toEqual({ md: HM_ON_COMBINED });
    expect(await db().select({ n: count() }).from(notes)).toEqual(before);
  });

  it("a PATCH or PUT that sets a misfit answers 422 and changes nothing; one that keeps a stored misfit saves", async () => {
    const created = await api("/v2/notes-bcba", { method: "POST", token: manager.token, body: body({ md: "HO", time_in: "08:20", time_out: "08:50" }) });
    expect(created.status, await created.clone().text()).toBe(201);
    const id = ((await created.json()) as { data: { id: number } }).data.id;
    const was = await stored(id);
    const patch = await api(`/v2/notes-bcba/${id}`, { method: "PATCH", token: manager.token, body: { md2: "XP" } });
    expect(patch.status).toBe(422);
    expect(((await patch.json()) as { errors: Record<string, string> }).errors).toEqual({ md2: XP_ON_BCBA });
    const put = await api(`/v2/notes-bcba/${id}`, { method: "PUT", token: manager.token, body: body({ md: "HO", md2: "HO", time_in: "08:20", time_out: "08:50" }) });
    expect(put.status).toBe(422);
    expect(((await put.json()) as { errors: Record<string, string> }).errors).toEqual({ md2: twice("HO") });
    expect(await stored(id)).toEqual(was);
    // A misfit stored before the rule does not block an edit of something else.
    await db().update(notes).set({ md: "XP" }).where(eq(notes.id, id));
    const other = await api(`/v2/notes-bcba/${id}`, { method: "PATCH", token: manager.token, body: { participants: "Mother" } });
    expect(other.status, await other.clone().text()).toBe(200);
    expect(await stored(id)).toMatchObject({ md: "XP", md2: null });
  });
});

describe("the billing save (client_report store/update, the row's Save)", () => {
  it.each([
    ["a BCBA note, XP as mdbcba", "bcba", {}, { mdbcba: "XP" }, "mdbcba", XP_ON_BCBA],
    ["a BCBA note, HM as md through note_id", "bcba", {}, { md: "HM" }, "md", HM_ON_BCBA],
    ["a BCBA note, md2bcba repeating the stored HO", "bcba", { md: "HO" }, { md2bcba: "HO" }, "md2bcba", twice("HO")],
    ["an RBT note, HO as md", "rbt", {}, { md: "HO" }, "md", HO_ON_RBT],
    ["an RBT note, md = md2", "rbt", {}, { md: "XP", md2: "XP" }, "md2", twice("XP")],
    ["a combined note, HM as mdbcba", "combined", {}, { mdbcba: "HM" }, "mdbcba", HM_ON_COMBINED],
  ] as const)("store: %s answers 422 at its field; no record, the note unchanged", async (_l, type, before, body, field, message) => {
    const n = await note(type, before);
    const was = await stored(n.id);
    const c = await counts();
    const key = type === "rbt" && !("mdbcba" in body) ? "note_rbt_id" : "mdbcba" in body || "md2bcba" in body ? "note_bcba_id" : "note_id";
    const res = await api("/client_report/store", { method: "POST", token: manager.token, body: { [key]: n.id, ...body } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ [field]: message });
    expect(await stored(n.id)).toEqual(was);
    expect(await counts()).toEqual(c);
  });

  it("update: a misfit is refused on the record too; a fitting code and a kept stored misfit save", async () => {
    const n = await note("bcba");
    const created = await api("/client_report/store", { method: "POST", token: manager.token, body: { note_bcba_id: n.id, mdbcba: "HO", md2bcba: "GT" } });
    expect(created.status, await created.clone().text()).toBe(201);
    const report = ((await created.json()) as { data: { report: { id: number; version: number; charges_cents: number } } }).data.report;
    expect(report.charges_cents).toBe(12000);
    const bad = await api(`/client_report/update/${report.id}`, { method: "POST", token: manager.token, body: { md2bcba: "XP" } });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as { errors: Record<string, string> }).errors).toEqual({ md2bcba: XP_ON_BCBA });
    expect(await stored(n.id)).toMatchObject({ md: "HO", md2: "GT" });
    const [record] = await db().select({ md2: clientReports.md2, version: clientReports.version, charges: clientReports.chargesCents }).from(clientReports).where(eq(clientReports.id, report.id));
    expect(record).toEqual({ md2: "GT", version: 1, charges: 12000 });
    // A note stored with XP before the rule: the PA number still saves; billing it is refused by the scrubber's reason.
    const old = await note("bcba", { md: "XP" });
    const saved = await api("/client_report/store", { method: "POST", token: manager.token, body: { note_bcba_id: old.id, pa_number: "PA-9" } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const billed = await api("/client_report/update/" + ((await saved.json()) as { data: { report: { id: number } } }).data.report.id, { method: "POST", token: manager.token, body: { billedbcba: true } });
    expect(billed.status).toBe(422);
    expect(((await billed.json()) as { errors: Record<string, string> }).errors.billedbcba).toBe(`This note cannot be billed: ${XP_ON_BCBA}`);
  });

  it("the row's Save (JavaScript off) shows the message and saves nothing; the selectors offer the codes that fit, and a stored misfit", async () => {
    const n = await note("bcba");
    const old = await note("bcba", { md: "XP" });
    const rbt = await note("rbt", { md: "HM" });
    const path = `/billing/by-client/${client.id}?from=2026-03-01&to=2026-12-31`;
    const was = await stored(n.id);
    const c = await counts();
    const res = await form(path, { intent: "save", note_id: String(n.id), note_version: String(n.version), version: "", md: "XP", md2: "" }, manager.cookie);
    expect(res.status).toBe(422);
    const refused = await res.text();
    expect(refused).toContain(XP_ON_BCBA);
    expect(await stored(n.id)).toEqual(was);
    // No record (the page shown again records its read, as every page does).
    expect((await counts()).reports).toBe(c.reports);

    const page = await (await request(path, { cookie: manager.cookie })).text();
    const select = (id: number, name: "md" | "md2") => new RegExp(`<select name="${name}" form="row-${id}"[^>]*>[\\s\\S]*?</select>`).exec(page)?.[0] ?? "";
    expect(optionsOf(select(n.id, "md"))).toEqual(["", "XE", "HO", "GT", "TS", "95"]);
    expect(optionsOf(select(rbt.id, "md2"))).toEqual(["", "HM", "XE", "XP", "GT", "TS", "95"]);
    // The stored XP is offered (and selected) on its own row only, so a Save of the row as shown keeps it.
    expect(optionsOf(select(old.id, "md"))).toEqual(["", "XE", "XP", "HO", "GT", "TS", "95"]);
    expect(select(old.id, "md")).toMatch(/<option value="XP" selected="">/);
    expect(optionsOf(select(old.id, "md2"))).toEqual(["", "XE", "HO", "GT", "TS", "95"]);
    // The row's claim check names it.
    expect(page).toContain(`<li>${XP_ON_BCBA}</li>`);
  });
});

describe("the note view's Change modifiers (JavaScript off)", () => {
  it("offers the codes that fit the note, and a stored misfit; a misfit or repeat is refused with its message, nothing written", async () => {
    const bcba = await note("bcba", { md: "XP" });
    const view = await (await request(`/note-bcba/view/${bcba.id}`, { cookie: manager.cookie })).text();
    const select = (name: string) => new RegExp(`<select id="f-${name}" name="${name}"[^>]*>[\\s\\S]*?</select>`).exec(view)?.[0] ?? "";
    expect(optionsOf(select("md"))).toEqual(["", "XE", "XP", "HO", "GT", "TS", "95"]);
    expect(optionsOf(select("md2"))).toEqual(["", "XE", "HO", "GT", "TS", "95"]);

    for (const [type, n, fields, message] of [
      ["bcba", bcba, { md: "XP", md2: "HM", md3: "" }, HM_ON_BCBA],
      ["combined", await note("combined"), { md: "HM", md2: "", md3: "" }, HM_ON_COMBINED],
      ["rbt", await note("rbt"), { md: "GT", md2: "GT", md3: "" }, twice("GT")],
    ] as const) {
      const was = await stored(n.id);
      const res = await form(`/note-${type}/view/${n.id}`, { intent: "modifiers", ...fields }, manager.cookie);
      expect(res.status).toBe(422);
      expect(await res.text()).toContain(message);
      expect(await stored(n.id)).toEqual(was);
    }
    const fine = await note("combined");
    expect((await form(`/note-combined/view/${fine.id}`, { intent: "modifiers", md: "HO", md2: "GT", md3: "" }, manager.cookie)).status).toBe(303);
    expect(await stored(fine.id)).toMatchObject({ md: "HO", md2: "GT", md3: null });
  });
});

describe("the note view's Change modifiers form carries the note's version (decision 030's rule for a stale save)", () => {
  it("a form opened before another save is refused (409) with the stored codes shown and the typed ones listed; nothing written", async () => {
    const n = await note("rbt");
    const opened = await (await request(`/note-rbt/view/${n.id}`, { cookie: manager.cookie })).text();
    const version = /<input type="hidden" name="version" value="(\d+)"\/>/.exec(opened.slice(opened.indexOf('aria-label="Change modifiers"')))?.[1];
    expect(version).toBe(String(n.version));
    // Meanwhile HM is saved on the note (the billing row's save, or the API).
    expect((await api(`/note_rbt/update/modifier/${n.id}`, { method: "PUT", token: manager.token, body: { md: "HM" } })).status).toBe(200);
    const was = await stored(n.id);
    const c = await counts();
    const stale = await form(`/note-rbt/view/${n.id}`, { intent: "modifiers", version: version!, md: "", md2: "", md3: "XE" }, manager.cookie);
    expect(stale.status).toBe(409);
    const page = (await stale.text()).replaceAll("<!-- -->", "");
    expect(page).toContain("Someone else saved a newer version of this record.");
    expect(page).toContain(`The modifiers below show what is stored now (version ${was.version}).`);
    expect(page).toMatch(/<dt>Modifier 3<\/dt><dd[^>]*>XE<\/dd>/);
    expect(page).toMatch(/<select id="f-md" name="md"[^>]*>[\s\S]*?<option value="HM" selected="">/);
    expect(page).toContain(`<input type="hidden" name="version" value="${was.version}"/>`);
    expect(await stored(n.id)).toEqual(was);
    expect((await counts()).audit).toBe(c.audit + 1); // the view's one read, no change
    // The form as now shown saves.
    expect((await form(`/note-rbt/view/${n.id}`, { intent: "modifiers", version: String(was.version), md: "HM", md2: "", md3: "XE" }, manager.cookie)).status).toBe(303);
    expect(await stored(n.id)).toEqual({ md: "HM", md2: null, md3: "XE", version: was.version + 1 });
  });

  it("the codes the note already has are not saved again: 422 'Nothing to change', no version bump, no audit row (form and API)", async () => {
    const n = await note("rbt", { md: "HM" });
    const was = await stored(n.id);
    const c = await counts();
    const res = await api(`/note_rbt/update/modifier/${n.id}`, { method: "PUT", token: manager.token, body: { md: "HM", md3: null } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ md: "Nothing to change: the note already has these modifiers." });
    const page = await form(`/note-rbt/view/${n.id}`, { intent: "modifiers", version: String(was.version), md: "HM", md2: "", md3: "" }, manager.cookie);
    expect(page.status, page.headers.get("location") ?? "").toBe(422);
    expect(await page.text()).toContain("Nothing to change: the note already has these modifiers.");
    expect(await stored(n.id)).toEqual(was);
    expect((await counts()).audit).toBe(c.audit + 1); // the re-shown view's one read, no change
  });

  it("the API's call still changes only the codes its body names, with no version", async () => {
    const n = await note("rbt", { md: "HM" });
    expect((await api(`/note_rbt/update/modifier/${n.id}`, { method: "PUT", token: manager.token, body: { md3: "XE" } })).status).toBe(200);
    expect(await stored(n.id)).toMatchObject({ md: "HM", md2: null, md3: "XE" });
  });
});

describe("a refused Change modifiers keeps the codes chosen, its message beside the select it names (JavaScript on or off: the view hydrates nothing)", () => {
  /** The modifiers form of a view's HTML: each select's selected code ("" for None), aria attributes and the error beside it. */
  function modifiersForm(html: string) {
    const form = /<form[^>]*aria-label="Change modifiers"[^>]*>([\s\S]*?)<\/form>/.exec(html.replaceAll("<!-- -->", ""))?.[1] ?? "";
    const field = (k: string) => {
      const block = new RegExp(`<div><label for="f-${k}">[\\s\\S]*?</select>(<p[^>]*>[^<]*</p>)?</div>`).exec(form)?.[0] ?? "";
      const select = /<select[^>]*>/.exec(block)?.[0] ?? "";
      return {
        selected: /<option value="([^"]*)" selected="">/.exec(block)?.[1] ?? "",
        invalid: select.includes('aria-invalid="true"'),
        describedBy: /aria-describedby="([^"]*)"/.exec(select)?.[1] ?? null,
        error: new RegExp(`<p id="f-${k}-error" class="field-error" role="alert">([^<]*)</p>`).exec(block)?.[1] ?? null,
      };
    };
    return { md: field("md"), md2: field("md2"), md3: field("md3"), form };
  }

  it.each([
    ["a repeat (RBT note with HM, HM chosen as Modifier 3)", "rbt", { md: "HM" }, { md: "HM", md2: "", md3: "HM" }, "md3", twice("HM")],
    ["a repeat as Modifier 2", "rbt", { md: "HM" }, { md: "HM", md2: "HM", md3: "" }, "md2", twice("HM")],
    ["a misfit (HM on a BCBA note)", "bcba", { md: "XE" }, { md: "XE", md2: "HM", md3: "GT" }, "md2", HM_ON_BCBA],
    ["the codes the note has", "rbt", { md: "HM", md2: "XE" }, { md: "HM", md2: "XE", md3: "" }, "md", "Nothing to change: the note already has these modifiers."],
  ] as const)("422 on %s: the selects show the codes sent, the failing one invalid and described by the message beside it", async (_label, type, mods, sent, field, message) => {
    const n = await note(type, mods);
    const was = await stored(n.id);
    const res = await form(`/note-${type}/view/${n.id}`, { intent: "modifiers", version: String(was.version), ...sent }, manager.cookie);
    expect(res.status).toBe(422);
    const page = modifiersForm(await res.text());
    expect({ md: page.md.selected, md2: page.md2.selected, md3: page.md3.selected }).toEqual(sent);
    for (const k of ["md", "md2", "md3"] as const) {
      expect(page[k].invalid).toBe(k === field);
      expect(page[k].describedBy).toBe(k === field ? `f-${k}-error` : null);
      expect(page[k].error).toBe(k === field ? message : null);
    }
    // The message is said once, beside its select (not again under the button).
    expect(page.form.split(message).length - 1).toBe(1);
    expect(await stored(n.id)).toEqual(was);
  });

  it("409 (a form opened before another save): the stored codes with the stored version, and the whole choice listed, a code taken away as None", async () => {
    const n = await note("rbt", { md: "HM", md2: "XE" });
    const opened = (await stored(n.id)).version;
    expect((await api(`/note_rbt/update/modifier/${n.id}`, { method: "PUT", token: manager.token, body: { md3: "GT" } })).status).toBe(200);
    const res = await form(`/note-rbt/view/${n.id}`, { intent: "modifiers", version: String(opened), md: "HM", md2: "", md3: "TS" }, manager.cookie);
    expect(res.status).toBe(409);
    const html = (await res.text()).replaceAll("<!-- -->", "");
    const page = modifiersForm(html);
    expect({ md: page.md.selected, md2: page.md2.selected, md3: page.md3.selected }).toEqual({ md: "HM", md2: "XE", md3: "GT" });
    expect(html).toContain(`The modifiers below show what is stored now (version ${opened + 1}).`);
    const listed = /<summary>Your changes that were not saved<\/summary>([\s\S]*?)<\/details>/.exec(html)?.[1] ?? "";
    expect([...listed.matchAll(/<dt>([^<]*)<\/dt><dd[^>]*>([^<]*)<\/dd>/g)].map((m) => `${m[1]}: ${m[2]}`)).toEqual(["Modifier 2: None", "Modifier 3: TS"]);
  });
});

describe("Back to a refused Change modifiers and resending it (the browser's Confirm Form Resubmission) writes nothing", () => {
  it("a refused post, the corrected save, then the refused post again: refused again (409), nothing written twice", async () => {
    const n = await note("rbt", { md: "HM" });
    const version = String((await stored(n.id)).version);
    const refusedBody = { intent: "modifiers", version, md: "HM", md2: "HM", md3: "" };
    expect((await form(`/note-rbt/view/${n.id}`, refusedBody, manager.cookie)).status).toBe(422);
    expect((await form(`/note-rbt/view/${n.id}`, { ...refusedBody, md2: "XE" }, manager.cookie)).status).toBe(303);
    const saved = await stored(n.id);
    const c = await counts();
    expect((await form(`/note-rbt/view/${n.id}`, refusedBody, manager.cookie)).status).toBe(409);
    expect(await stored(n.id)).toEqual(saved);
    expect((await counts()).audit).toBe(c.audit + 1); // the re-shown view's one read, no change
  });
});
