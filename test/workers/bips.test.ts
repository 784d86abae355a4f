import { and, asc, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, bips, plans, userLocations } from "~/db/schema";
import { DEFAULT_CAREGIVER_GOALS } from "~/domain/bip-defaults";
import { readDocument } from "~/domain/bip-document";
import type { Permission } from "~/domain/permissions";
import { addDays, weekEndingOn } from "~/domain/weeks";
import { api, apiToken, createBip, createLocation, createPatient, createPlan, createUser, createWeeklyReport, db, request, signInCookie, withoutFlashTag } from "./helpers";

/** Behavior intervention plans (clinical §3, §4; platform §2 bip routes): API and screens with JavaScript off. */

const VIEW: Permission[] = ["view_bips"];
const MANAGE: Permission[] = ["view_bips", "manage_bips"];

function post(path: string, fields: Record<string, string | string[]>, cookie: string) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(fields)) for (const x of Array.isArray(v) ? v : [v]) body.append(k, x);
  return request(path, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
}

async function setup(permissions: Permission[] = MANAGE) {
  const loc = await createLocation();
  const other = await createLocation();
  const user = await createUser({ permissions, locations: [loc.id] });
  const patient = await createPatient({ locationId: loc.id, firstName: "Leo", gender: 1 });
  const stranger = await createPatient({ locationId: other.id, firstName: "Mia", gender: 2 });
  return { loc, other, user, patient, stranger };
}

async function bipRow(id: number) {
  const [r] = await db().select().from(bips).where(eq(bips.id, id));
  return r!;
}
async function counts() {
  const [r] = await db()
    .select({ bips: sql<number>`(select count(*) from bips)`, plans: sql<number>`(select count(*) from plans)`, audit: sql<number>`(select count(*) from audit_log)` })
    .from(sql`(select 1)`);
  return r!;
}
async function auditActions(entityId: number) {
  const rows = await db().select().from(auditLog).where(and(eq(auditLog.entity, "bip"), eq(auditLog.entityId, String(entityId)))).orderBy(asc(auditLog.id));
  return rows.map((r) => r.action);
}
async function caregiverGoals(bipId: number) {
  return db().select().from(plans).where(and(eq(plans.bipId, bipId), eq(plans.category, "caregiver_training"))).orderBy(asc(plans.position));
}

type Json = Record<string, unknown> & { id: number; version: number };

describe("/api/v2/bips", () => {
  it("creates a BIP with the 13 default caregiver-training goals in one write, audited; defaults shown, placeholders left in", async () => {
    const { loc, user, patient } = await setup();
    const doctor = await createUser({ permissions: [], locations: [loc.id] });
    const token = await apiToken(user);
    const res = await api("/v2/bips", { method: "POST", token, body: { client_id: patient.id, type_of_assessment: "2", doctor_id: doctor.id, strengths: "Loves {his|her|their} trains" } });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { data: Json & { caregiver_trainings: { name: string; index: number }[]; interventions: unknown[]; strengths: string; hypothesis_based_intervention: string }; message: string };
    expect(body.message).toBe("BIP created.");
    expect(body.data).toMatchObject({ client_id: patient.id, patient_id: patient.id, patient_identifier: patient.patientIdentifier, type_of_assessment: "2", doctor_id: doctor.id, needs_attention: false, version: 1 });
    expect(body.data.strengths).toBe("Loves {his|her|their} trains");
    expect(body.data.interventions).toHaveLength(6);
    expect(body.data.hypothesis_based_intervention).toContain("{name}");
    expect(body.data.caregiver_trainings.map((p) => p.name)).toEqual(DEFAULT_CAREGIVER_GOALS.map((g) => g.name));
    const goals = await caregiverGoals(body.data.id);
    expect(goals.map((g) => [g.position, g.status, g.unitType, g.patientId])).toEqual(DEFAULT_CAREGIVER_GOALS.map((_, i) => [i + 1, "active", null, patient.id]));
    expect(goals[0]!.description).toMatch(/4 data points/);
    expect((await bipRow(body.data.id)).locationId).toBe(loc.id);
    expect(await auditActions(body.data.id)).toEqual(["create"]);
  });

  it.each([
    [{ type_of_assessment: "3" }, "type_of_assessment", "Choose Initial Assessment or Reassessment."],
    [{ documents_reviewed: [{ title: "IEP", status: "maybe" }] }, "documents_reviewed.status", "Choose a document status: pending, reviewing, yes or no."],
    [{ consent_to_treatment: { physician: { signature_date: "01/02/2025" } } }, "consent_to_treatment.physician.signature_date", "Enter a valid date (YYYY-MM-DD)."],
    [{ attention: true }, "attention", "Attention strategies must be a list."],
    [{ patient_id: "" }, "patient_id", "Choose one of your clients."],
  ])("refuses bad input with 422 and writes nothing (%#)", async (over, field, message) => {
    const { user, patient } = await setup();
    const token = await apiToken(user);
    const before = await counts();
    const res = await api("/v2/bips", { method: "POST", token, body: { patient_id: patient.id, ...over } });
    expect(res.status).toBe(422);
    const body = (await res.json()) as { message: string; errors: Record<string, string> };
    expect(body.errors[field]).toBe(message);
    expect(body.message).toBeTruthy();
    expect(await counts()).toEqual(before);
  });

  it("refuses a client of another location and a doctor who does not work at the client's location", async () => {
    const { other, user, patient, stranger } = await setup();
    const outsider = await createUser({ permissions: [], locations: [other.id] });
    const token = await apiToken(user);
    const before = await counts();
    const a = await api("/v2/bips", { method: "POST", token, body: { patient_id: stranger.id } });
    expect(a.status).toBe(422);
    expect(((await a.json()) as { errors: Record<string, string> }).errors).toEqual({ patient_id: "Choose one of your clients." });
    const b = await api("/v2/bips", { method: "POST", token, body: { patient_id: patient.id, doctor_id: outsider.id } });
    expect(((await b.json()) as { errors: Record<string, string> }).errors).toEqual({ doctor_id: "Choose an employee of the client's location." });
    expect(await counts()).toEqual(before);
  });

  it("show: 200 with plan lists and an audit read; 404 for another location; 403 without view_bips or for a viewer writing", async () => {
    const { user, patient, stranger } = await setup(VIEW);
    const bip = await createBip(patient);
    const goal = await createPlan(bip, { name: "Hitting" });
    const theirs = await createBip(stranger);
    const token = await apiToken(user);
    const res = await api(`/v2/bips/${bip.id}`, { token });
    expect(res.status).toBe(200);
    const data = ((await res.json()) as { data: Json & { maladaptives: { id: number; name: string }[]; recommendations: { cpt: string }[]; consent_to_treatment: Record<string, unknown> } }).data;
    expect(data.maladaptives.map((p) => p.name)).toEqual(["Hitting"]);
    expect(data.maladaptives[0]!.id).toBe(goal.id);
    expect(data.recommendations.map((r) => r.cpt)).toEqual(["97151", "97153", "97155", "97156"]);
    expect(data.consent_to_treatment).toMatchObject({ bip_id: bip.id, client_id: patient.id });
    expect(await auditActions(bip.id)).toEqual(["read"]);
    expect((await (await api(`/bip/show/${bip.id}`, { token })).json()) as { data: Json }).toMatchObject({ data: { id: bip.id } });
    expect((await api(`/v2/bips/${theirs.id}`, { token })).status).toBe(404);
    expect((await api(`/bip/show/${theirs.id}`, { token })).status).toBe(404);
    expect(await auditActions(theirs.id)).toEqual([]);
    expect((await api(`/v2/bips/${bip.id}`, { method: "PUT", token, body: { version: 1 } })).status).toBe(403);
    expect((await api("/v2/bips", { method: "POST", token, body: { patient_id: patient.id } })).status).toBe(403);
    const none = await apiToken(await createUser({ permissions: ["view_clients"], locations: [patient.locationId] }));
    expect((await api(`/v2/bips/${bip.id}`, { token: none })).status).toBe(403);
  });

  it("lists BIPs of the user's locations, filtered by patient_id and searchable", async () => {
    const { user, patient, stranger } = await setup(VIEW);
    const other = await createPatient({ locationId: patient.locationId, firstName: "Zoe" });
    const a = await createBip(patient);
    const b = await createBip(other, { attention: true });
    await createPlan(a);
    await createBip(stranger);
    const token = await apiToken(user);
    const all = (await (await api("/v2/bips", { token })).json()) as { data: { id: number; goals_count: number }[]; total: number };
    expect(all.data.map((x) => x.id)).toEqual([b.id, a.id]);
    expect(all.data.find((x) => x.id === a.id)!.goals_count).toBe(1);
    const mine = (await (await api(`/v2/bips?patient_id=${patient.id}`, { token })).json()) as { data: { id: number }[] };
    expect(mine.data.map((x) => x.id)).toEqual([a.id]);
    const flagged = (await (await api("/v2/bips?needs_attention=true", { token })).json()) as { data: { id: number }[] };
    expect(flagged.data.map((x) => x.id)).toEqual([b.id]);
    const found = (await (await api("/v2/bips?search=Zoe", { token })).json()) as { data: { id: number }[] };
    expect(found.data.map((x) => x.id)).toEqual([b.id]);
    expect((await api("/v2/bips?type_of_assessment=7", { token })).status).toBe(422);
  });

  it("update: versioned (stale → 409 with current values, nothing changed), PATCH merges, bad input → 422 unchanged, soft delete", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const token = await apiToken(user);
    const put = await api(`/v2/bips/${bip.id}`, { method: "PUT", token, body: { version: 1, type_of_assessment: 2, strengths: "Curious", interventions: [{ title: "DRO", description: "Reinforce the absence of hitting." }] } });
    expect(put.status).toBe(200);
    expect(((await put.json()) as { data: Json }).data).toMatchObject({ version: 2, type_of_assessment: "2", strengths: "Curious", interventions: [{ index: 1, title: "DRO" }] });
    const stale = await api(`/v2/bips/${bip.id}`, { method: "PUT", token, body: { version: 1, strengths: "Other" } });
    expect(stale.status).toBe(409);
    expect(((await stale.json()) as { current: Json }).current).toMatchObject({ version: 2, strengths: "Curious" });
    expect(readDocument((await bipRow(bip.id)).document).strengths).toBe("Curious");
    const patch = await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body: { weaknesses: "Waiting", version: 2 } });
    expect(((await patch.json()) as { data: Json }).data).toMatchObject({ strengths: "Curious", weaknesses: "Waiting", type_of_assessment: "2", version: 3 });
    const bad = await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body: { documents_reviewed: [{ title: "IEP", status: "done" }] } });
    expect(bad.status).toBe(422);
    expect((await bipRow(bip.id)).version).toBe(3);
    expect((await api(`/bip/destroy/${bip.id}`, { method: "DELETE", token })).status).toBe(200);
    expect((await bipRow(bip.id)).deletedAt).not.toBeNull();
    expect((await api(`/v2/bips/${bip.id}`, { token })).status).toBe(404);
    expect(await auditActions(bip.id)).toEqual(["update", "read", "update", "delete"]);
  });
});

describe("a plan follows its client (probe, stop 24)", () => {
  it("a stored doctor who left the client's location blocks no save; the identity tab shows them, marked; only a newly chosen doctor is checked", async () => {
    const { loc, other, user, patient } = await setup();
    const doctor = await createUser({ permissions: [], locations: [loc.id], name: "Dana" });
    const outsider = await createUser({ permissions: [], locations: [other.id], name: "Omar" });
    const bip = await createBip(patient, { doctorId: doctor.id });
    await db().delete(userLocations).where(eq(userLocations.userId, doctor.id));
    const token = await apiToken(user);
    const patch = await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body: { strengths: "Curious" } });
    expect(patch.status).toBe(200);
    const cookie = await signInCookie(user);
    const tab = await post(`/bip/tabbed/${bip.id}?tab=background`, { intent: "save-tab", tab: "background", version: "2", strengths: "Kind" }, cookie);
    expect(tab.status).toBe(303);
    const identity = await (await request(`/bip/tabbed/${bip.id}?tab=identity`, { cookie })).text();
    expect(identity).toContain(`<option value="${doctor.id}" selected="">Dana User (not at the client&#x27;s location)</option>`);
    expect(identity).not.toContain("Omar");
    // The stored doctor sent back with the tab unchanged: no refusal, and nothing to save (decision 017, stop 44).
    const same = await post(`/bip/tabbed/${bip.id}?tab=identity`, { intent: "save-tab", tab: "identity", version: "3", type_of_assessment: "1", doctor_id: String(doctor.id) }, cookie);
    expect(same.status).toBe(303);
    expect(new URL(same.headers.get("Location")!, "http://x").searchParams.get("flash")).toBe("Nothing to change.");
    const refused = await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body: { doctor_id: outsider.id } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors).toEqual({ doctor_id: "Choose an employee of the client's location." });
    const row = await bipRow(bip.id);
    expect([row.doctorId, row.version, readDocument(row.document).strengths]).toEqual([doctor.id, 3, "Kind"]);
  });

  it("a client who moves takes their plans: the dashboards and the cached plan lists of both locations follow at once", async () => {
    const { loc, other, patient } = await setup();
    const bip = await createBip(patient);
    const here = await apiToken(await createUser({ permissions: ["view_bips", "view_clients"], locations: [loc.id] }));
    const there = await apiToken(await createUser({ permissions: ["view_bips", "view_clients"], locations: [other.id] }));
    const admin = await apiToken(await createUser({ role: "ADMIN" }));
    const dash = async (token: string) => (await (await api("/dashboard/admin", { token })).json()) as { total_bips: number; bips: { patient_id: number }[] };
    const cached = async (token: string) => ((await (await api("/v2/bips?cache=true", { token })).json()) as { data: { id: number }[] }).data.map((b) => b.id);
    expect([(await dash(here)).total_bips, (await dash(there)).total_bips]).toEqual([1, 0]);
    expect([await cached(here), await cached(there)]).toEqual([[bip.id], []]);
    const move = await api(`/v2/patients/${patient.id}`, { method: "PATCH", token: admin, body: { location_id: other.id } });
    expect(move.status).toBe(200);
    expect((await bipRow(bip.id)).locationId).toBe(other.id);
    const [mine, theirs] = [await dash(here), await dash(there)];
    expect([mine.total_bips, theirs.total_bips]).toEqual([0, 1]);
    expect(mine.bips.map((b) => b.patient_id)).not.toContain(patient.id);
    expect(theirs.bips.map((b) => b.patient_id)).toContain(patient.id);
    expect([await cached(here), await cached(there)]).toEqual([[], [bip.id]]);
  });

  it("the dashboard leaves out the plans of a deleted client, as the plan list does", async () => {
    const { loc, patient } = await setup();
    await createBip(patient);
    const token = await apiToken(await createUser({ permissions: ["view_bips", "view_clients", "manage_clients"], locations: [loc.id] }));
    expect(((await (await api("/dashboard/admin", { token })).json()) as { total_bips: number }).total_bips).toBe(1);
    expect((await api(`/v2/patients/${patient.id}`, { method: "DELETE", token })).status).toBe(200);
    expect(((await (await api("/dashboard/admin", { token })).json()) as { total_bips: number }).total_bips).toBe(0);
  });
});

describe("/api/v2/bips document size", () => {
  it("refuses a document over 1 MB with 422 and keeps the stored one", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const token = await apiToken(user);
    const long = "x".repeat(5_000);
    const body = { interventions: Array.from({ length: 100 }, (_, i) => ({ title: `T${i}`, description: long })), de_escalation_techniques: Array.from({ length: 100 }, () => ({ description: long })) };
    const res = await api(`/v2/bips/${bip.id}`, { method: "PATCH", token, body });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.document).toBe("The plan is too long to save. Shorten the longest sections and save again.");
    expect((await bipRow(bip.id)).version).toBe(1);
  });
});

describe("BIP screens", () => {
  it("list: the user's locations only; 403 without view_bips", async () => {
    const { user, patient, stranger } = await setup(VIEW);
    await createBip(patient);
    await createBip(stranger);
    const cookie = await signInCookie(user);
    const res = await request("/bip/list", { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain(patient.lastName);
    expect(html).not.toContain(stranger.lastName);
    expect(html).not.toContain("New BIP");
    expect((await request("/bip", { cookie })).headers.get("Location")).toBe("/bip/list");
    const none = await signInCookie(await createUser({ permissions: ["view_clients"], locations: [patient.locationId] }));
    expect((await request("/bip/list", { cookie: none })).status).toBe(403);
  });

  it("register: creates the BIP and its 13 goals, then opens the editor; bad input keeps the form; a viewer is refused", async () => {
    const { loc, user, patient, stranger } = await setup();
    const doctor = await createUser({ permissions: [], locations: [loc.id], name: "Doctora" });
    const cookie = await signInCookie(user);
    const page = await request(`/bip/register?patient_id=${patient.id}`, { cookie });
    expect(await page.text()).toContain("Doctora");
    const before = await counts();
    const bad = await post(`/bip/register?patient_id=${patient.id}`, { patient_id: String(patient.id), type_of_assessment: "9", doctor_id: String(doctor.id) }, cookie);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("Choose Initial Assessment or Reassessment.");
    const out = await post(`/bip/register?patient_id=${stranger.id}`, { patient_id: String(stranger.id), type_of_assessment: "1" }, cookie);
    expect(out.status).toBe(422);
    // Nothing saved; the refused form shown again with its client records that read (decision 019, 2026-11-28).
    const after = await counts();
    expect({ bips: after.bips, plans: after.plans }).toEqual({ bips: before.bips, plans: before.plans });
    expect(await db().all<{ action: string }>(sql`select action from audit_log order by id desc limit ${after.audit - before.audit}`)).toEqual(Array.from({ length: after.audit - before.audit }, () => ({ action: "read" })));
    const res = await post(`/bip/register?patient_id=${patient.id}`, { patient_id: String(patient.id), type_of_assessment: "1", doctor_id: String(doctor.id) }, cookie);
    expect(res.status).toBe(303);
    const id = Number(/\/bip\/tabbed\/(\d+)/.exec(res.headers.get("Location") ?? "")?.[1]);
    expect((await bipRow(id)).doctorId).toBe(doctor.id);
    expect(await caregiverGoals(id)).toHaveLength(13);
    const viewer = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    expect((await post("/bip/register", { patient_id: String(patient.id) }, viewer)).status).toBe(403);
    expect((await request("/bip/register", { cookie: viewer })).status).toBe(403);
  });

  it("register search offers only clients in scope", async () => {
    const { user, patient, stranger } = await setup();
    const cookie = await signInCookie(user);
    const html = await (await request(`/bip/register?search=${encodeURIComponent("Client")}`, { cookie })).text();
    expect(html).toContain(patient.lastName);
    expect(html).not.toContain(stranger.lastName);
    // Another location's client answers 404, as the intake and note forms do (decision 019, 2026-11-28).
    expect((await request(`/bip/register?patient_id=${stranger.id}`, { cookie })).status).toBe(404);
  });

  it("profile: defaults applied, placeholders filled from the client, goals by category, audited; 404 for another location", async () => {
    const { user, patient, stranger } = await setup(VIEW);
    const bip = await createBip(patient, { document: JSON.stringify({ strengths: "{name} likes {his|her|their} trains; {he|she|they} {is|are} kind." }) });
    const goal = await createPlan(bip, { name: "Elopement" });
    const quiet = await createPlan(bip, { name: "Spitting" });
    // Recent weeks: the profile charts the last 52 weeks.
    const lastSaturday = addDays(weekEndingOn(new Date().toISOString().slice(0, 10)), -7);
    await createWeeklyReport(goal, addDays(lastSaturday, -7), 6);
    await createWeeklyReport(goal, lastSaturday, 4);
    await createWeeklyReport(goal, addDays(lastSaturday, -7 * 60), 9);
    const theirs = await createBip(stranger);
    const cookie = await signInCookie(user);
    const res = await request(`/bip/profile/${bip.id}`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Leo likes his trains; he is kind.");
    expect(html).toContain("Functional Communication Training");
    expect(html).toContain(`/bip/goal/${goal.id}`);
    // A goal with weekly data shows its chart (server SVG); one without data only its link.
    expect(html).toContain(`id="goal-chart-${goal.id}"`);
    expect(html).toContain("Target Behavior to Decrease");
    expect(html).toContain("the last 52 weeks");
    expect(html).not.toContain(`id="goal-chart-${quiet.id}"`);
    expect(html).not.toMatch(/\{name\}|\{he\|she\|they\}/);
    expect(html).not.toContain(`/bip/goal/add/${bip.id}`);
    expect(await auditActions(bip.id)).toEqual(["read"]);
    expect((await request(`/bip/profile/${theirs.id}`, { cookie })).status).toBe(404);
    expect((await request("/bip/profile/abc", { cookie })).status).toBe(404);
  });

  it("show by patient: the client's BIPs newest first; 404 for another location's client", async () => {
    const { user, patient, stranger } = await setup(VIEW);
    const first = await createBip(patient, { createdAt: "2024-01-01T00:00:00.000Z" });
    const second = await createBip(patient, { typeOfAssessment: 2, createdAt: "2025-01-01T00:00:00.000Z" });
    const cookie = await signInCookie(user);
    const html = await (await request(`/bip/show/patient/${patient.id}`, { cookie })).text();
    expect(html.indexOf(`/bip/profile/${second.id}`)).toBeGreaterThan(-1);
    expect(html.indexOf(`/bip/profile/${second.id}`)).toBeLessThan(html.indexOf(`/bip/profile/${first.id}`));
    expect((await request(`/bip/show/patient/${stranger.id}`, { cookie })).status).toBe(404);
  });

  it("attention: flagged plans; on request, plans with a behavior goal without data in 4 weeks", async () => {
    const { user, patient } = await setup(VIEW);
    const other = await createPatient({ locationId: patient.locationId, firstName: "Ivy" });
    const flagged = await createBip(patient, { attention: true });
    const quiet = await createBip(other);
    await createPlan(quiet);
    const busy = await createBip(await createPatient({ locationId: patient.locationId, firstName: "Ben" }));
    const recent = new Date();
    recent.setUTCDate(recent.getUTCDate() + (6 - recent.getUTCDay()));
    await createWeeklyReport(await createPlan(busy), recent.toISOString().slice(0, 10), 3);
    const cookie = await signInCookie(user);
    const first = await (await request("/bip/attention", { cookie })).text();
    expect(first).toContain(`/bip/profile/${flagged.id}`);
    expect(first).not.toContain(`/bip/profile/${quiet.id}`);
    expect(first).toContain('href="/bip/attention?stale=1"');
    const html = await (await request("/bip/attention?stale=1", { cookie })).text();
    const [flaggedPart, stalePart] = html.split('id="stale"');
    expect(flaggedPart).toContain(`/bip/profile/${flagged.id}`);
    expect(flaggedPart).not.toContain(`/bip/profile/${quiet.id}`);
    expect(stalePart).toContain(`/bip/profile/${quiet.id}`);
    expect(stalePart).not.toContain(`/bip/profile/${busy.id}`);
  });
});

describe("tabbed editor (JavaScript off)", () => {
  it("opens a tab by link; needs manage_bips; 404 for another location", async () => {
    const { loc, user, patient, stranger } = await setup();
    const bip = await createBip(patient);
    const theirs = await createBip(stranger);
    const cookie = await signInCookie(user);
    const res = await request(`/bip/tabbed/${bip.id}?tab=crisis`, { cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("De-escalation techniques");
    expect(html).toContain("call 911");
    expect(html).toContain("{name}");
    expect((await request(`/bip/tabbed/${theirs.id}`, { cookie })).status).toBe(404);
    expect((await post(`/bip/tabbed/${theirs.id}`, { intent: "save-tab", tab: "background", strengths: "x", version: "1" }, cookie)).status).toBe(404);
    const viewer = await signInCookie(await createUser({ permissions: VIEW, locations: [loc.id] }));
    expect((await request(`/bip/tabbed/${bip.id}`, { cookie: viewer })).status).toBe(403);
    expect((await post(`/bip/tabbed/${bip.id}?tab=background`, { intent: "save-tab", tab: "background", strengths: "x", version: "1" }, viewer)).status).toBe(403);
    expect((await bipRow(bip.id)).version).toBe(1);
  });

  it("saves a tab's text fields with the version; a stale save answers 409, keeps the stored text and says so", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const cookie = await signInCookie(user);
    const ok = await post(`/bip/tabbed/${bip.id}?tab=background`, { intent: "save-tab", tab: "background", version: "1", strengths: "Curious", weaknesses: "Waiting" }, cookie);
    expect(ok.status).toBe(303);
    expect(withoutFlashTag(ok.headers.get("Location"))).toBe(`/bip/tabbed/${bip.id}?tab=background&flash=${encodeURIComponent("Background & narratives: saved.")}`);
    const stale = await post(`/bip/tabbed/${bip.id}?tab=background`, { intent: "save-tab", tab: "background", version: "1", strengths: "Overwritten" }, cookie);
    expect(stale.status).toBe(409);
    const html = await stale.text();
    expect(html).toContain("Someone else saved a newer version");
    expect(html).toContain("Curious");
    expect(html).toContain("Overwritten");
    const doc = readDocument((await bipRow(bip.id)).document);
    expect([doc.strengths, doc.weaknesses]).toEqual(["Curious", "Waiting"]);
    const consent = await post(
      `/bip/tabbed/${bip.id}`,
      { intent: "save-tab", tab: "consent", version: "2", "consent_to_treatment.statement": "I consent.", "consent_to_treatment.parent_guardian.signature": "Ana Diaz", "consent_to_treatment.parent_guardian.signature_date": "2025-03-01", "consent_to_treatment.physician.signature_placeholder": "true" },
      cookie,
    );
    expect(consent.status).toBe(303);
    const c = readDocument((await bipRow(bip.id)).document).consent_to_treatment;
    expect(c.parent_guardian).toEqual({ signature: "Ana Diaz", signature_date: "2025-03-01", signature_placeholder: false });
    expect(c.physician.signature_placeholder).toBe(true);
    const badDate = await post(`/bip/tabbed/${bip.id}?tab=consent`, { intent: "save-tab", tab: "consent", version: "3", "consent_to_treatment.analyst_1.signature_date": "3/1/2025" }, cookie);
    expect(badDate.status).toBe(422);
    expect(await badDate.text()).toContain("Enter a valid date (YYYY-MM-DD).");
    expect((await bipRow(bip.id)).version).toBe(3);
  });

  it("list sections without JavaScript: add (defaults kept, item appended), incomplete add refused, delete renumbers, move up", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const cookie = await signInCookie(user);
    const interventions = async () => readDocument((await bipRow(bip.id)).document).interventions;
    const add = await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-save", section: "interventions", version: "1", title: "Token economy", description: "Tokens for on-task behavior." }, cookie);
    expect(add.status).toBe(303);
    expect(decodeURIComponent(withoutFlashTag(add.headers.get("Location"))!)).toBe(`/bip/tabbed/${bip.id}?tab=interventions&flash=Interventions: item added.`);
    let list = await interventions();
    expect(list).toHaveLength(7);
    expect(list.at(-1)).toMatchObject({ index: 7, title: "Token economy" });

    const incomplete = await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-save", section: "interventions", version: "2", title: "DRO", description: "" }, cookie);
    expect(incomplete.status).toBe(422);
    const html = await incomplete.text();
    expect(html).toContain("Please enter all fields");
    expect(html).toContain('value="DRO"');
    expect((await bipRow(bip.id)).version).toBe(2);

    expect((await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-delete", section: "interventions", index: "2", version: "2", confirmed: "yes" }, cookie)).status).toBe(303);
    list = await interventions();
    expect(list.map((i) => i.index)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(list.map((i) => i.title)).not.toContain("Redirection");

    expect((await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-move", section: "interventions", index: "6", direction: "up", version: "3" }, cookie)).status).toBe(303);
    list = await interventions();
    expect(list[4]).toMatchObject({ index: 5, title: "Token economy" });

    expect((await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-save", section: "interventions", index: "1", version: "4", title: "DRA", description: "Edited." }, cookie)).status).toBe(303);
    expect((await interventions())[0]).toMatchObject({ index: 1, title: "DRA", description: "Edited." });

    const reorder = await post(`/bip/tabbed/${bip.id}`, { intent: "item-reorder", section: "interventions", order: "6,5,4,3,2,1", version: "5" }, cookie);
    expect(reorder.status).toBe(303);
    expect((await interventions()).map((i) => i.title)[0]).toBe((list.at(-1) as { title: string }).title);

    const stale = await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-delete", section: "interventions", index: "1", version: "5", confirmed: "yes" }, cookie);
    expect(stale.status).toBe(409);
    expect(await interventions()).toHaveLength(6);
    const gone = await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-delete", section: "interventions", index: "9", version: "6", confirmed: "yes" }, cookie);
    expect(gone.status).toBe(422);
    expect(await gone.text()).toContain("That item is no longer in the list.");
  });

  it("a list item's Delete asks first: the page links to the item's confirm step, which posts the delete", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const cookie = await signInCookie(user);
    const fading = async () => readDocument((await bipRow(bip.id)).document).fading_plan_phases;
    const step = `/bip/tabbed/${bip.id}?tab=fading&confirm=delete-fading_plan_phases-3`;
    const page = await (await request(`/bip/tabbed/${bip.id}?tab=fading`, { cookie })).text();
    expect(page).toContain(`href="${step.replace(/&/g, "&amp;")}#fading_plan_phases-item-3"`);
    expect(page).not.toContain('value="item-delete"');

    // A post without the step's field (JavaScript on or off, or an old page's form) answers the step; nothing is deleted.
    const unconfirmed = await post(`/bip/tabbed/${bip.id}?tab=fading`, { intent: "item-delete", section: "fading_plan_phases", index: "3", version: "1" }, cookie);
    expect(unconfirmed.status).toBe(303);
    expect(unconfirmed.headers.get("Location")).toBe(`${step}#fading_plan_phases-item-3`);
    expect((await bipRow(bip.id)).version).toBe(1);
    expect(await fading()).toHaveLength(0); // nothing stored: the six default phases are shown

    const html = await (await request(step, { cookie })).text();
    expect(html).toContain("Are you sure you want to delete phase 3 (“");
    expect(html).toContain("deleting an item saves the other items as this plan&#x27;s own.");
    expect(html).toContain("Yes, delete it");
    expect(html).toContain('name="confirmed" value="yes"');
    expect(html).toContain(`href="/bip/tabbed/${bip.id}?tab=fading#fading_plan_phases-item-3"`); // Cancel

    const yes = await post(`/bip/tabbed/${bip.id}?tab=fading`, { intent: "item-delete", section: "fading_plan_phases", index: "3", version: "1", confirmed: "yes" }, cookie);
    expect(yes.status).toBe(303);
    expect(decodeURIComponent(withoutFlashTag(yes.headers.get("Location"))!)).toBe(`/bip/tabbed/${bip.id}?tab=fading&flash=Fading plan phases: item deleted.`);
    expect((await fading()).map((p) => p.index)).toEqual([1, 2, 3, 4, 5]);

    // A post that names no list item is not deleted either: it goes back to the tab.
    const odd = await post(`/bip/tabbed/${bip.id}`, { intent: "item-delete", section: "fading_plan_phases", index: " 1", version: "2" }, cookie);
    expect(odd.status).toBe(303);
    expect(odd.headers.get("Location")).toBe(`/bip/tabbed/${bip.id}?tab=fading`);
    expect(await fading()).toHaveLength(5);
  });

  it("a move that changes nothing (first up, last down, the same order) saves nothing and says so", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const cookie = await signInCookie(user);
    const before = await bipRow(bip.id);
    const writes = async () => (await auditActions(bip.id)).filter((a) => a !== "read");
    const writesBefore = await writes();
    const cases: [Record<string, string>, string][] = [
      [{ intent: "item-move", index: "1", direction: "up" }, "Interventions: Already first."],
      [{ intent: "item-move", index: "6", direction: "down" }, "Interventions: Already last."],
      [{ intent: "item-reorder", order: "1,2,3,4,5,6" }, "Interventions: Already in that order."],
    ];
    for (const [fields, flash] of cases) {
      const res = await post(`/bip/tabbed/${bip.id}?tab=interventions`, { section: "interventions", version: "1", ...fields }, cookie);
      expect(res.status).toBe(303);
      expect(decodeURIComponent(withoutFlashTag(res.headers.get("Location"))!)).toBe(`/bip/tabbed/${bip.id}?tab=interventions&flash=${flash}`);
    }
    const after = await bipRow(bip.id);
    expect({ version: after.version, updatedAt: after.updatedAt, document: after.document }).toEqual({ version: 1, updatedAt: before.updatedAt, document: before.document });
    expect(await writes()).toEqual(writesBefore);

    // A real move still saves (and the defaults become the plan's own).
    const moved = await post(`/bip/tabbed/${bip.id}?tab=interventions`, { intent: "item-move", section: "interventions", index: "2", direction: "up", version: "1" }, cookie);
    expect(decodeURIComponent(withoutFlashTag(moved.headers.get("Location"))!)).toBe(`/bip/tabbed/${bip.id}?tab=interventions&flash=Interventions: item moved.`);
    expect((await bipRow(bip.id)).version).toBe(2);
  });

  it("list sections of other kinds: setting events with functions, documents reviewed with a bad status refused", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const cookie = await signInCookie(user);
    const res = await post(
      `/bip/tabbed/${bip.id}`,
      { intent: "item-save", section: "prevalent_setting_event_and_antecedents", version: "1", prevalent_setting_event_and_antecedent: "Transitions from play", behavior: "Crying\nDropping", hypothesized_functions: ["escape", "tangible"] },
      cookie,
    );
    expect(res.status).toBe(303);
    expect(readDocument((await bipRow(bip.id)).document).prevalent_setting_event_and_antecedents).toEqual([
      { index: 1, prevalent_setting_event_and_antecedent: "Transitions from play", behavior: ["Crying", "Dropping"], hypothesized_functions: ["escape", "tangible"] },
    ]);
    const bad = await post(`/bip/tabbed/${bip.id}?tab=assessment`, { intent: "item-save", section: "documents_reviewed", version: "2", title: "IEP", status: "later" }, cookie);
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain("Choose a document status: pending, reviewing, yes or no.");
    const unknown = await post(`/bip/tabbed/${bip.id}`, { intent: "item-save", section: "nonsense", version: "2" }, cookie);
    expect(unknown.status).toBe(422);
    expect(await unknown.text()).toContain("Choose a list section of the plan.");
    expect((await bipRow(bip.id)).version).toBe(2);
  });

  // Probe 8924 #2: a cell's <input> cannot show a break, so the next untouched save stored "9-12\n1-3" as "9-121-3".
  it("a schedule table with a line break in a header or cell answers 422 with the message at the table and writes nothing", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const cookie = await signInCookie(user);
    const before = await bipRow(bip.id);
    for (const [section, fields] of [
      ["schedule_of_services_breakdown", { "header.0": "Setting", "header.1": "Monday", "cell.0.0": "School", "cell.0.1": "9-12\n1-3" }],
      ["behavior_assistant_rationale_work_schedule", { "header.0": "Day", "header.1": "Hou\u2028rs", "cell.0.0": "Monday", "cell.0.1": "8:00" }],
    ] as const) {
      const res = await post(`/bip/tabbed/${bip.id}?tab=recommendations`, { intent: "save-table", section, version: "1", ...fields }, cookie);
      expect(res.status, section).toBe(422);
      expect(await res.text(), section).toContain("Keep a table cell on one line.");
    }
    expect(await bipRow(bip.id)).toEqual(before);
  });

  it("saves a schedule table, toggles needs attention, deletes the plan", async () => {
    const { user, patient } = await setup();
    const bip = await createBip(patient);
    const cookie = await signInCookie(user);
    const table = await post(
      `/bip/tabbed/${bip.id}`,
      { intent: "save-table", section: "schedule_of_services_breakdown", version: "1", "header.0": "Setting", "header.1": "Monday", "cell.0.0": "School", "cell.0.1": "8:00-3:00", "cell.1.0": "", "cell.1.1": "" },
      cookie,
    );
    expect(table.status).toBe(303);
    expect(readDocument((await bipRow(bip.id)).document).schedule_of_services_breakdown).toEqual({ table_headers: ["Setting", "Monday"], table_rows: [["School", "8:00-3:00"]] });
    expect((await post(`/bip/tabbed/${bip.id}`, { intent: "attention", needs_attention: "true", version: "2" }, cookie)).status).toBe(303);
    expect((await bipRow(bip.id)).attention).toBe(true);
    expect((await post(`/bip/tabbed/${bip.id}`, { intent: "attention", needs_attention: "false", version: "2" }, cookie)).status).toBe(409);
    expect((await bipRow(bip.id)).attention).toBe(true);
    const del = await post(`/bip/tabbed/${bip.id}`, { intent: "delete", confirmed: "yes" }, cookie);
    expect(withoutFlashTag(del.headers.get("Location"))).toMatch(/^\/bip\/list\?flash=/);
    expect((await bipRow(bip.id)).deletedAt).not.toBeNull();
    expect((await request(`/bip/profile/${bip.id}`, { cookie })).status).toBe(404);
  });
});
