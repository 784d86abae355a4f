import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { intakeAssessments, notes } from "~/db/schema";
import { AUTH_MESSAGES } from "~/domain/auth-rules";
import { CONSENT_MESSAGES } from "~/domain/consents";
import { BIP_TABS } from "~/domain/bip-document";
import { dayNumber } from "~/domain/weeks";
import {
  api,
  apiToken,
  codeIn,
  cookiesFrom,
  createBip,
  createChartComment,
  createLocation,
  createParent,
  createPatient,
  createPlan,
  createUser,
  createWeeklyReport,
  db,
  form,
  lastEmail,
  oneRecordOfEach,
  request,
  scrollRegionNames,
  signInCookie,
  type TestUser,
} from "./helpers";

/**
 * What a keyboard or screen-reader user meets in the server-rendered pages (probe 8923): the skip link, required
 * fields marked in their labels, errors tied to their fields and focused, titles that tell screens and records
 * apart, and error pages with a title and a main landmark. The script's part (Escape, focus after an in-place
 * post or a redirect, the chart canvas's name) is checked in a browser.
 */

const page = async (res: Response) => (await res.text()).replaceAll("<!-- -->", "");
const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1]?.replaceAll("&#x27;", "'");
/** The controls that take the focus when the page loads. */
const autofocused = (html: string) => html.match(/<(input|select|textarea)\b[^>]*autofocus[^>]*>/g) ?? [];
/** A label's opening tag by its `for`. */
const labelFor = (html: string, id: string) => new RegExp(`<label for="${id}"[^>]*>`).exec(html)?.[0] ?? "";

let loc: { id: number };
let patient: Awaited<ReturnType<typeof createPatient>>;
let admin: string;
let rbt: TestUser;
let rbtCookie: string;

beforeAll(async () => {
  loc = await createLocation({ posCodes: "12,11" });
  patient = await createPatient({ locationId: loc.id, firstName: "Ava", lastName: "Davis" });
  admin = await signInCookie(await createUser({ role: "ADMIN", locations: [loc.id] }));
  rbt = await createUser({ permissions: ["view_notes"], locations: [loc.id] });
  rbtCookie = await signInCookie(rbt);
});

describe("the skip link (WCAG 2.4.1)", () => {
  it("is the first link of every signed-in screen and leads to the main landmark", async () => {
    const parent = await createParent({ locationId: loc.id });
    const child = await createPatient({ locationId: loc.id, parentId: parent.id });
    for (const [path, cookie] of [
      ["/patients/list", admin],
      ["/tickets/add", rbtCookie],
      [`/portal/child/${child.id}`, await signInCookie(parent, true)],
    ] as const) {
      const html = await page(await request(path, { cookie }));
      const body = html.slice(html.indexOf("<body"));
      expect(/<(a|button|input|select|textarea|summary)\b[^>]*>[^<]*/.exec(body)?.[0], path).toBe('<a class="skip-link" href="#main">Skip to main content');
      expect(body).toContain('<main class="content" id="main" tabindex="-1">');
    }
  });
});

describe("required fields are marked in their labels (WCAG 3.3.2)", () => {
  it.each([
    ["/tickets/add", ["f-subject", "f-body"], []],
    ["/change-password", ["f-current_password", "f-password", "f-password_confirmation"], []],
    [`/calendar/schedule?patient_id=:patient`, ["f-session_date", "f-time_in", "f-time_out"], []],
    [`/note-rbt?patient_id=:patient`, ["f-session_date", "f-cpt_code", "f-pa_service_id", "f-pos"], ["f-diagnosis_code", "f-supervisor_id"]],
    ["/login", ["f-email", "f-password"], []],
  ])("%s", async (path, required, optional) => {
    const html = await page(await request(path.replace(":patient", String(patient.id)), { cookie: path === "/login" ? undefined : admin }));
    // The stylesheet draws the " *" of label.required (and the line that explains it), out of the field's name.
    for (const id of required) expect(labelFor(html, id), id).toBe(`<label for="${id}" class="required">`);
    for (const id of optional) {
      expect(labelFor(html, id), id).toBe(`<label for="${id}">`);
    }
  });
});

describe("errors are tied to their fields and take the focus (WCAG 1.3.1, 3.3.1, 3.3.3)", () => {
  it("the note form focuses the PA service when it is the first field in error", async () => {
    const body = new URLSearchParams({ intent: "save", form_token: crypto.randomUUID(), type: "rbt", patient_id: String(patient.id), provider_id: String(rbt.id), session_date: new Date(Date.now() - 2 * 86_400_000).toISOString().slice(0, 10), cpt_code: "97153", pa_service_id: "", pos: "12", time_in: "09:00", time_out: "10:00" });
    const res = await request(`/note-rbt?patient_id=${patient.id}`, { method: "POST", body, cookie: rbtCookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(422);
    const html = await page(res);
    expect(html).toContain("Choose the PA service for this session.");
    const [first] = autofocused(html);
    expect(first).toMatch(/^<select[^>]*name="pa_service_id"/);
    expect(first).toContain('aria-invalid="true"');
    expect(first).toContain('aria-describedby="f-pa_service_id-hint f-pa_service_id-error"');
    expect(html).toContain('<p id="f-pa_service_id-error" class="field-error" role="alert">Choose the PA service for this session.</p>');
  });

  it("a checkbox group's error describes the group and its first box takes the focus (decision 021)", async () => {
    const res = await form("/location/register", { title: "X", time_zone: "America/Chicago" }, admin);
    expect(res.status).toBe(422);
    const html = await page(res);
    const group = /<fieldset[^>]*>\s*<legend>Place-of-service codes<\/legend>[\s\S]*?<\/fieldset>/.exec(html)?.[0] ?? "";
    expect(group).toMatch(/^<fieldset class="field" aria-invalid="true" aria-describedby="f-pos_codes-error">/);
    expect(group).toMatch(/<p id="f-pos_codes-error" class="field-error" role="alert">[^<]+<\/p>/);
    const [first] = autofocused(html);
    expect(first).toMatch(/type="checkbox" name="pos_codes"/);
    expect(first).toContain('aria-errormessage="f-pos_codes-error"');
    expect(group.indexOf(first!)).toBe(group.indexOf('<input type="checkbox" name="pos_codes"'));
    expect(autofocused(html)).toHaveLength(1);
  });

  it("a field's error is also in its aria-describedby, after its hint (screen readers that ignore aria-errormessage)", async () => {
    const res = await form("/location/register", { title: "   ", time_zone: "America/Chicago", pos_codes: "12" }, admin);
    expect(res.status).toBe(422);
    const title = /<input id="f-title"[^>]*>/.exec(await page(res))?.[0] ?? "";
    expect(title).toContain('aria-invalid="true"');
    expect(title).toContain('aria-errormessage="f-title-error"');
    expect(title).toContain('aria-describedby="f-title-error"');
    // A field with a hint keeps it first: the new password's rule, then its error.
    const change = await form("/change-password", { current_password: "whatever", password: "short", password_confirmation: "short" }, admin);
    expect(change.status).toBe(422);
    const password = /<input id="f-password"[^>]*>/.exec(await page(change))?.[0] ?? "";
    expect(password).toContain('aria-describedby="f-password-hint f-password-error"');
  });

  it("the consent's agreement box names its error, and takes the focus when it is the only one", async () => {
    const parent = await createParent({ locationId: loc.id });
    const child = await createPatient({ locationId: loc.id, parentId: parent.id });
    const manager = await apiToken(await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] }));
    const made = await api("/v2/store-client-consents", { method: "POST", token: manager, body: { patient_id: child.id, sections: [1] } });
    expect(made.status).toBe(201);
    const consent = ((await made.json()) as { data: { id: number; version: number } }).data;
    const res = await form(`/portal/child/${child.id}`, { intent: "sign", consent_id: String(consent.id), version: String(consent.version), signer_name: "Rosa Family" }, await signInCookie(parent, true));
    expect(res.status).toBe(422);
    const html = await page(res);
    const box = new RegExp(`<input id="agree-${consent.id}"[^>]*>`).exec(html)?.[0] ?? "";
    expect(box).toContain('aria-invalid="true"');
    expect(box).toContain(`aria-errormessage="agree-${consent.id}-error"`);
    expect(autofocused(html)).toEqual([box]);
    expect(html).toContain(`<p id="agree-${consent.id}-error" class="field-error" role="alert">${CONSENT_MESSAGES.agreeRequired}</p>`);
  });

  it("a wrong two-factor code marks the code field, focuses it and says what to do; the spec's 'Verification failed' stays", async () => {
    const user = await createUser({ twoFactor: true });
    const signIn = await form("/login", { email: user.email, password: user.password, redirectTo: "/dashboard" });
    const jar = cookiesFrom(signIn);
    const code = codeIn((await lastEmail(user.email))!.text);
    const res = await form("/two-factor-verify", { intent: "verify", code: code === "000000" ? "000001" : "000000" }, jar);
    expect(res.status).toBe(422);
    const html = await page(res);
    expect(html).toContain(`<p class="alert alert-danger" role="alert">${AUTH_MESSAGES.verificationFailed}</p>`);
    const [field] = autofocused(html);
    expect(field).toMatch(/name="code"/);
    expect(field).toContain('aria-invalid="true"');
    expect(field).toContain('aria-errormessage="f-code-error"');
    expect(field).toContain('aria-describedby="f-code-error"');
    expect(html).toContain(`<p id="f-code-error" class="field-error" role="alert">${AUTH_MESSAGES.wrongCode}</p>`);
  });

  it("a wrong backup code marks the backup code field, focuses it and says what to do; the spec's message stays", async () => {
    const user = await createUser({ twoFactor: true });
    const jar = cookiesFrom(await form("/login", { email: user.email, password: user.password, redirectTo: "/dashboard" }));
    const res = await form("/two-factor-verify", { intent: "backup", backup_code: "WRONG-00000" }, jar);
    expect(res.status).toBe(422);
    const html = await page(res);
    expect(html).toContain(AUTH_MESSAGES.backupFailed);
    const [field] = autofocused(html);
    expect(field).toMatch(/name="backup_code"/);
    expect(field).toContain('aria-invalid="true"');
    expect(html).toContain(`<p id="f-backup_code-error" class="field-error" role="alert">${AUTH_MESSAGES.wrongBackupCode}</p>`);
  });

  it("a wrong password-reset code does the same, for a known and an unknown email alike", async () => {
    const user = await createUser();
    for (const email of [user.email, "nobody-at-all@test.example"]) {
      const jar = cookiesFrom(await form("/forgot-password", { email }));
      const res = await form("/reset-password-verify", { intent: "verify", code: "000000" }, jar);
      expect(res.status).toBe(422);
      const html = await page(res);
      expect(html).toContain(AUTH_MESSAGES.verificationFailed);
      expect(autofocused(html)[0]).toContain('aria-errormessage="f-code-error"');
      expect(html).toContain(`<p id="f-code-error" class="field-error" role="alert">${AUTH_MESSAGES.wrongCode}</p>`);
    }
  });
});

describe("titles tell screens and records apart (WCAG 2.4.2)", () => {
  it("a screen of one record names it", async () => {
    const bip = await createBip(patient);
    const goal = await createPlan(bip, { name: "Physical aggression" });
    const s = dayNumber("2026-10-21")! * 1440 + 9 * 60;
    const [note] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: patient.id, locationId: loc.id, providerId: rbt.id, cptCode: "97153", pos: "12", sessionDate: "2026-10-21", timeIn: "09:00", timeOut: "10:00", start1At: s, end1At: s + 60, startAt: s, endAt: s + 60, minutes: 60, units: 4 })
      .returning();
    const cases: [string, string][] = [
      [`/billing/by-client/${patient.id}`, "Billing by client · Ava Davis · Baseline"],
      [`/bip/goal/${goal.id}`, "Physical aggression · Ava Davis · Baseline"],
      [`/bip/goal/${goal.id}/edit`, "Edit goal Physical aggression · Ava Davis · Baseline"],
      [`/note-rbt?patient_id=${patient.id}`, "New RBT note · Ava Davis · Baseline"],
      [`/note-rbt/edit/${note!.id}`, "Edit RBT note · Ava Davis · Baseline"],
      ["/note-rbt", "New RBT note · Baseline"],
      [`/note-rbt/view/${note!.id}`, "RBT note · Ava Davis · 2026-10-21 · Baseline"],
      ["/calendar/view?view=month&date=2026-11-20", "November 2026 · Calendar (month) · Baseline"],
      ["/calendar/view?view=day&date=2026-11-20", "Friday 20 November 2026 · Calendar (day) · Baseline"],
      [`/bip/tabbed/${bip.id}`, `${BIP_TABS[0].label} · Edit plan of Ava Davis · Baseline`],
      [`/bip/tabbed/${bip.id}?tab=crisis`, "De-escalation & crisis · Edit plan of Ava Davis · Baseline"],
    ];
    for (const [path, title] of cases) {
      const res = await request(path, { cookie: admin });
      expect(res.status, path).toBe(200);
      expect(titleOf(await res.text())?.replaceAll("&amp;", "&"), path).toBe(title);
    }
  });
});

describe("error pages (WCAG 2.4.2, 1.3.1)", () => {
  it("a refused or missing screen is titled by what happened and has a main landmark", async () => {
    const refused = await request("/claims", { cookie: rbtCookie });
    expect(refused.status).toBe(403);
    const denied = await page(refused);
    expect(titleOf(denied)).toBe("Access Denied · Baseline");
    expect(denied).toMatch(/<main class="dialog-backdrop"><div role="alertdialog"/);

    const missing = await request("/patients/profile/99999999", { cookie: admin });
    expect(missing.status).toBe(404);
    const gone = await page(missing);
    expect(titleOf(gone)).toBe("Page not found · Baseline");
    expect(gone).toContain('<main class="error-page">');
    expect(titleOf(await page(await request("/error/error404")))).toBe("Page not found · Baseline");
  });
});

describe("a table's scroll box is a named region (WCAG 4.1.2, probe 8923 L9)", () => {
  it("every scroll box the keyboard can focus says what its table is", async () => {
    const r = await oneRecordOfEach();
    const cookie = await signInCookie(r.admin);
    await createWeeklyReport(r.plan, "2026-10-03", 3);
    await createChartComment(r.plan, "2026-10-01", "New school");
    await db().update(intakeAssessments).set({ document: JSON.stringify({ household_members: [{ name: "Ana", relationship: "Sister", age: 9 }] }) }).where(eq(intakeAssessments.id, r.intake.id));
    await db().update(notes).set({ providerName: "Test User", providerSignedOn: r.note.sessionDate, signedAt: new Date().toISOString() }).where(eq(notes.id, r.note.id));
    const amended = await api(`/v2/notes-rbt/${r.note.id}`, { method: "PATCH", token: r.token, body: { time_out: "08:45", amendment_reason: "Session ran longer" } });
    expect(amended.status, await amended.clone().text()).toBe(200);
    const cases: [string, (string | null)[]][] = [
      [`/bip/goal/${r.plan.id}?edit=1`, [`Objectives of ${r.plan.name}`, "Weekly reports", "Comments"]],
      [`/bip/goal/${r.plan.id}/edit`, [`Objectives of ${r.plan.name}`]],
      [`/note-rbt/view/${r.note.id}`, ["Amendment history"]],
      [`/patients/profile/${r.patient.id}`, ["Prior-authorization services"]],
      [`/doctors/profile/${r.employee.id}`, [`Compliance at ${r.location.title}`]],
      [`/medical/initial-assessment/${r.intake.id}`, ["Household members"]],
      [`/insurance/view/${r.insurer.id}`, ["CPT services"]],
      [`/insurance/list/edit/${r.insurer.id}`, ["CPT services"]],
    ];
    for (const [path, names] of cases) {
      const res = await request(path, { cookie });
      expect(res.status, path).toBe(200);
      expect(scrollRegionNames(await page(res)), path).toEqual(names);
    }
    // The plan document: its schedule tables, lists and the consent's signers, each named (how many depends on the
    // default tables), none left unnamed.
    const doc = scrollRegionNames(await page(await request(`/bip/profile/${r.bip.id}`, { cookie })));
    expect(doc).toContain("Consent to treatment signatures");
    expect(doc.filter((name) => !name)).toEqual([]);
  });
});
