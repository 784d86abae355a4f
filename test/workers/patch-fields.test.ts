import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, patients } from "~/db/schema";
import { api, apiToken, createBip, createChartComment, createLocation, createObjective, createPatient, createPlan, createUser, createWeeklyReport, db, form, oneRecordOfEach, request, signInCookie } from "./helpers";

/**
 * A PATCH changes the fields it names. A body that names none of the record's fields — only unknown or
 * read-only keys (a misspelt name, `id`, `created_at`) and perhaps its version — changes nothing: 422 "Nothing to
 * change", no write, the version as it was (probe 8884, seen at stop 24 and fixed at stop 25).
 */

const NOTHING = "Nothing to change: send at least one field to update.";
const UNKNOWN_ONLY = { created_at: "2020-01-01", frist_name: "Typo", version: 1 };
/** The record's own id, as a body read from it carries (another id is refused: api-body-rules.test.ts). */
const ownId = (c: Case) => ({ id: Number(c.path.split("/").pop()) });

/** `show`: where the record is read when not at `path` (with `pick` choosing it from a list). */
type Case = { name: string; path: string; show?: string; pick?: (data: { id: number }[]) => unknown; field: Record<string, unknown> };
let token: string;
let cases: Case[];
/** Update paths that take only PUT (the v1 calls). */
let putOnly: Case[];

/** One test per record (the cases are built in `beforeAll`; their names are known up front). */
const NAMES = ["client", "parent", "employee", "location", "insurer", "insurer service", "role", "rate record", "PA service", "BIP", "plan", "objective", "weekly report", "chart comment", "intake assessment", "ticket", "RBT note"];
const ALL_NAMES = [...NAMES, "BIP (v1)", "RBT note (v1)"];
const named = (name: string): Case => [...cases, ...putOnly].find((c) => c.name === name)!;

beforeAll(async () => {
  const { location, token: adminToken, parent, patient, bip, plan, objective, employee, role, insurer, service, rate, pa, intake, ticket, note } = await oneRecordOfEach();
  token = adminToken;
  const report = await createWeeklyReport(plan, "2026-01-03", 4);
  const comment = await createChartComment(plan, "2026-01-02", "New routine");
  cases = [
    { name: "client", path: `/v2/patients/${patient.id}`, field: { first_name: "Eve" } },
    { name: "parent", path: `/v2/parents/${parent.id}`, field: { phone: "555-0100" } },
    { name: "employee", path: `/v2/employees/${employee.id}`, field: { phone: "555-0101" } },
    { name: "location", path: `/v2/locations/${location.id}`, field: { city: "Denver" } },
    { name: "insurer", path: `/v2/insurances/${insurer!.id}`, field: { name: "Acme Health Plus" } },
    { name: "insurer service", path: `/insurance/update/service/${service!.id}`, show: `/insurance/servicebyInsurance/${insurer!.id}`, pick: (data) => data.find((x) => x.id === service!.id), field: { unit_price: 25 } },
    { name: "role", path: `/v2/roles/${role.id}`, field: { name: "Front office" } },
    { name: "rate record", path: `/v2/rate-records/${rate!.id}`, field: { name: "Standard 2027" } },
    { name: "PA service", path: `/v2/pa-services/${pa!.id}`, field: { n_units: 40 } },
    { name: "BIP", path: `/v2/bips/${bip.id}`, field: { needs_attention: true } },
    { name: "plan", path: `/v2/plans/${plan.id}`, field: { name: "Fewer outbursts" } },
    { name: "objective", path: `/v2/objectives/${objective.id}`, field: { name: "Reduce to 1 per week" } },
    { name: "weekly report", path: `/v2/weekly-reports/${report.id}`, field: { value: 3 } },
    { name: "chart comment", path: `/v2/chart-comments/${comment.id}`, field: { comment: "New school" } },
    { name: "intake assessment", path: `/v2/intake-assessments/${intake!.id}`, field: { person_responding: "Mother", observation_date: "2026-01-05" } },
    { name: "ticket", path: `/v2/tickets/${ticket!.id}`, field: { subject: "Printer jam" } },
    { name: "RBT note", path: `/v2/notes-rbt/${note!.id}`, field: { next_session_is_scheduled_for: "Thursday 9:00" } },
  ];
  putOnly = [
    // Not the value the BIP's own PUT just wrote: the same document sent again would change nothing (decision 017, stop 44).
    { name: "BIP (v1)", path: `/bip/update/${bip.id}`, show: `/v2/bips/${bip.id}`, field: { needs_attention: false } },
    { name: "RBT note (v1)", path: `/note_rbt/update/${note!.id}`, show: `/v2/notes-rbt/${note!.id}`, field: { next_session_is_scheduled_for: "Friday 9:00" } },
  ];
});

/** The field with another value than the PATCH above wrote (a flag flipped, a number up one, a text extended). */
const another = (field: Record<string, unknown>) => Object.fromEntries(Object.entries(field).map(([k, v]) => [k, typeof v === "boolean" ? !v : typeof v === "number" ? v + 1 : `${String(v)} again`]));

async function recordOf(c: Case): Promise<{ version?: unknown } | undefined> {
  const res = await api(c.show ?? c.path, { token });
  expect(res.status, c.name).toBe(200);
  const data = ((await res.json()) as { data: unknown }).data;
  return (c.pick ? c.pick(data as { id: number }[]) : data) as { version?: unknown } | undefined;
}

/** How many update rows the audit trail holds for a record. */
const updateRows = async (entity: string, id: number) =>
  (await db().select({ id: auditLog.id }).from(auditLog).where(and(eq(auditLog.entity, entity), eq(auditLog.entityId, String(id)), eq(auditLog.action, "update")))).length;

async function versionOf(c: Case): Promise<unknown> {
  return (await recordOf(c))?.version;
}

it("the tables below name every record with an update call", () => {
  expect([...cases, ...putOnly].map((c) => c.name)).toEqual(ALL_NAMES);
});

describe("a PATCH naming none of the record's fields", () => {
  it.each(NAMES)("%s: answers 422 'Nothing to change' and leaves the record and its version as it was", async (name) => {
    const c = named(name);
    const before = await versionOf(c);
    expect(before, c.name).toBeTypeOf("number");
    const res = await api(c.path, { method: "PATCH", token, body: { ...UNKNOWN_ONLY, ...ownId(c), version: before } });
    expect(res.status, c.name).toBe(422);
    expect(((await res.json()) as { message: string }).message, c.name).toBe(NOTHING);
    expect(await versionOf(c), c.name).toBe(before);
  });

  it.each(NAMES)("%s: a PATCH naming one field among unknown keys changes that field and the version", async (name) => {
    const c = named(name);
    const before = (await versionOf(c)) as number;
    const res = await api(c.path, { method: "PATCH", token, body: { ...UNKNOWN_ONLY, ...ownId(c), ...c.field, version: before } });
    expect(res.status, `${c.name}: ${await res.clone().text()}`).toBe(200);
    expect(await versionOf(c), c.name).toBe(before + 1);
  });
});

describe("a note's PATCH whose content names only unknown keys (probe 8895, stop 25)", () => {
  it("answers 422 'Nothing to change' and keeps the version; a content key the note has saves", async () => {
    const note = cases.find((c) => c.name === "RBT note")!;
    const before = (await versionOf(note)) as number;
    const res = await api(note.path, { method: "PATCH", token, body: { content: { typo: 1, frist: "x" }, version: before } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { message: string }).message).toBe(NOTHING);
    expect(await versionOf(note)).toBe(before);
    const ok = await api(note.path, { method: "PATCH", token, body: { content: { typo: 1, client_appeared: "Calm" }, version: before } });
    expect(ok.status, await ok.clone().text()).toBe(200);
    expect(await versionOf(note)).toBe(before + 1);
  });
});

describe("a PUT naming none of the record's fields (probe 8913 §2, stop 28)", () => {
  it.each(ALL_NAMES)("%s: answers 422 'Nothing to change' like the PATCH, and writes nothing (it used to blank a BIP or an objective)", async (name) => {
    const c = named(name);
    const before = await recordOf(c);
    for (const body of [{}, { version: before?.version, typo: "x" }, { ...UNKNOWN_ONLY, ...ownId(c), version: before?.version }]) {
      const res = await api(c.path, { method: "PUT", token, body });
      expect(res.status, `${c.name} ${JSON.stringify(body)}`).toBe(422);
      expect(((await res.json()) as { message: string }).message, `${c.name} ${JSON.stringify(body)}`).toBe(NOTHING);
    }
    expect(await recordOf(c), c.name).toEqual(before);
  });

  it.each(ALL_NAMES)("%s: a PUT naming a real field is answered as before: a BIP and an objective are replaced (200), no record says 'Nothing to change'", async (name) => {
    const c = named(name);
    const before = (await versionOf(c)) as number;
    // A value the record does not hold yet: one it holds, sent again, changes nothing (decision 017, stop 44).
    const res = await api(c.path, { method: "PUT", token, body: { ...UNKNOWN_ONLY, ...ownId(c), ...another(c.field), version: before } });
    const answer = (await res.json()) as { message?: string };
    expect(answer.message, c.name).not.toBe(NOTHING);
    if (["BIP", "BIP (v1)", "objective"].includes(c.name)) {
      expect(res.status, `${c.name}: ${JSON.stringify(answer)}`).toBe(200);
      expect(await versionOf(c), c.name).toBe(before + 1);
    }
  });
});

/**
 * An update whose parsed change leaves every field as stored writes nothing (decision 017, 2026-11-29 stop 44): an
 * integrator that sends back what it read does not move the version, so another client's next save is not a 409 for
 * a change that changed nothing. Per record: the stored value sent back (PATCH), then a real change, which saves once.
 */
describe("an update that sends back the stored values", () => {
  /** [record, its audit entity, another value for its field (the field of the cases above may already be stored)] */
  const COVERED: [string, string, (stored: Record<string, unknown>) => Record<string, unknown>][] = [
    ["client", "patient", () => ({ first_name: "Mara" })],
    ["parent", "parent", () => ({ phone: "555-0199" })],
    ["employee", "employee", () => ({ phone: "555-0198" })],
    ["location", "location", () => ({ city: "Boulder" })],
    ["insurer", "insurance", () => ({ name: "Acme Health Prime" })],
    ["role", "role", () => ({ name: "Back office" })],
    ["PA service", "pa_service", () => ({ n_units: 41 })],
    ["BIP", "bip", (stored) => ({ needs_attention: !stored.needs_attention })],
    ["plan", "plan", () => ({ name: "Calmer mornings" })],
    ["intake assessment", "intake_assessment", () => ({ person_responding: "Father" })],
    ["objective", "objective", () => ({ name: "Reduce to 3 per week" })],
    ["weekly report", "weekly_report", () => ({ value: 6 })],
    ["chart comment", "chart_comment", () => ({ comment: "Other school" })],
  ];


  it.each(COVERED)("%s: 422 'Nothing to change', the version as it was and no audit row; a real change saves and moves the version once", async (name, entity, other) => {
    const c = named(name);
    const id = Number(c.path.split("/").pop());
    const record = (await recordOf(c)) as Record<string, unknown> & { version: number };
    const rows = await updateRows(entity, id);
    const resent = Object.fromEntries(Object.keys(c.field).map((k) => [k, record[k]]));
    for (const body of [resent, { ...resent, version: record.version }]) {
      const res = await api(c.path, { method: "PATCH", token, body });
      expect(res.status, `${name} ${JSON.stringify(body)}: ${await res.clone().text()}`).toBe(422);
      expect(((await res.json()) as { message: string }).message, name).toBe(NOTHING);
    }
    expect(await versionOf(c), name).toBe(record.version);
    expect(await updateRows(entity, id), name).toBe(rows);
    // A stale version is still told as one, changed or not.
    const stale = await api(c.path, { method: "PATCH", token, body: { ...resent, version: record.version - 1 } });
    expect(stale.status, name).toBe(409);
    const res = await api(c.path, { method: "PATCH", token, body: { ...other(record), version: record.version } });
    expect(res.status, `${name}: ${await res.clone().text()}`).toBe(200);
    expect(await versionOf(c), name).toBe(record.version + 1);
    expect(await updateRows(entity, id), name).toBe(rows + 1);
  });

  it("client: the record as read, PUT back whole, changes nothing", async () => {
    const c = named("client");
    const record = (await recordOf(c)) as Record<string, unknown> & { version: number };
    const res = await api(c.path, { method: "PUT", token, body: record });
    expect(res.status, await res.clone().text()).toBe(422);
    expect(((await res.json()) as { message: string }).message).toBe(NOTHING);
    expect(await versionOf(c)).toBe(record.version);
  });

  it.each([
    ["objective", "objective"],
    ["weekly report", "weekly_report"],
    ["chart comment", "chart_comment"],
  ])("%s: the record as read, PUT back whole, changes nothing: 422, the version and the audit rows as they were", async (name, entity) => {
    const c = named(name);
    const id = Number(c.path.split("/").pop());
    const record = (await recordOf(c)) as Record<string, unknown> & { version: number };
    const rows = await updateRows(entity, id);
    const res = await api(c.path, { method: "PUT", token, body: record });
    expect(res.status, `${name}: ${await res.clone().text()}`).toBe(422);
    expect(((await res.json()) as { message: string }).message).toBe(NOTHING);
    expect(await recordOf(c), name).toEqual(record);
    expect(await updateRows(entity, id), name).toBe(rows);
  });

  /** The stored details of createPatient's client (BILLABLE_DETAILS) as the edit form posts them back. */
  const BROWSER_DETAILS = { insuranceId: "MBR123", address: "5 Palm Ave", city: "Miami", state: "FL", zip: "33102", is_self_subscriber: "on" };

  it("the client edit form saved without an edit: 'Nothing to change.' where the save goes, nothing written", async () => {
    const loc = await createLocation();
    const admin = await createUser({ role: "ADMIN", locations: [loc.id] });
    const client = await createPatient({ locationId: loc.id });
    const cookie = await signInCookie(admin);
    const stored = async () => (await db().select().from(patients).where(eq(patients.id, client.id)))[0]!;
    const before = await stored();
    const fields = { intent: "save", version: String(before.version), patient_identifier: before.patientIdentifier!, first_name: before.firstName, last_name: before.lastName, status: before.status, location_id: String(loc.id), birth_date: before.birthDate!, ...BROWSER_DETAILS };
    const rows = await updateRows("patient", client.id);
    const res = await form(`/patients/list/edit/${client.id}`, fields, cookie);
    expect(res.status, await res.clone().text()).toBe(303);
    const to = new URL(res.headers.get("Location")!, "http://x");
    expect(to.pathname).toBe(`/patients/profile/${client.id}`);
    expect(to.searchParams.get("flash")).toBe("Nothing to change.");
    expect((await stored()).version).toBe(before.version);
    expect(await updateRows("patient", client.id)).toBe(rows);
    // An edit still saves.
    const saved = await form(`/patients/list/edit/${client.id}`, { ...fields, first_name: "Edited" }, cookie);
    expect(new URL(saved.headers.get("Location")!, "http://x").searchParams.get("flash")).toBe("Client updated.");
    expect((await stored()).version).toBe(before.version + 1);
  });
});

/**
 * The goal screens' editors of an objective, a weekly report and a chart comment (decision 017, 2026-11-29 stop 45):
 * saved without an edit, they go where a save goes with "Nothing to change.", nothing written; an edit still saves.
 */
describe("the goal screens' objective, weekly report and chart comment forms saved without an edit", () => {
  /** A stored value as the form shows it (an input's text). */
  const shown = (x: unknown) => (x === null || x === undefined ? "" : String(x));

  it.each(["objective", "weekly report", "chart comment"])("%s: 'Nothing to change.' where the save goes, the version and the audit rows as they were", async (name) => {
    const loc = await createLocation();
    const admin = await createUser({ role: "ADMIN", locations: [loc.id] });
    const cookie = await signInCookie(admin);
    const adminToken = await apiToken(admin);
    const client = await createPatient({ locationId: loc.id });
    const plan = await createPlan(await createBip(client));
    const [entity, path, id, fields, edit, answer] = await (async () => {
      if (name === "objective") {
        const o = await createObjective(plan, { name: "Reduce to 2 per week", target: 2, initialDate: "2026-01-05", endDate: "2026-03-01" });
        const read = ((await (await api(`/v2/objectives/${o.id}`, { token: adminToken })).json()) as { data: Record<string, unknown> }).data;
        const keys = ["type", "status", "name", "description", "target", "start_point", "initial_date", "end_date", "weeks_to_complete", "comparison_operator", "position"];
        const f = { intent: "save-objective", objective_id: String(o.id), version: String(o.version), ...Object.fromEntries(keys.map((k) => [k, shown(read[k])])) };
        return ["objective", `/bip/goal/${plan.id}/edit`, o.id, f, { name: "Reduce to 1 per week" }, "Objective updated."] as const;
      }
      if (name === "weekly report") {
        const r = await createWeeklyReport(plan, "2026-01-03", 4.5, 12);
        const f = { intent: "update-report", report_id: String(r.id), version: String(r.version), value: "4.5", total_units: "12" };
        return ["weekly_report", `/bip/goal/${plan.id}`, r.id, f, { value: "5" }, "Value updated successfully"] as const;
      }
      const c = await createChartComment(plan, "2026-01-02", "New routine");
      const f = { intent: "update-comment", comment_id: String(c.id), version: String(c.version), comment_date: "2026-01-02", comment: "New routine" };
      return ["chart_comment", `/bip/goal/${plan.id}`, c.id, f, { comment: "New teacher" }, "Comment updated successfully"] as const;
    })();
    const rows = await updateRows(entity, id);
    const res = await form(path, fields, cookie);
    expect(res.status, await res.clone().text()).toBe(303);
    const to = new URL(res.headers.get("Location")!, "http://x");
    expect(to.pathname).toBe(path);
    expect(to.searchParams.get("flash")).toBe("Nothing to change.");
    expect(await updateRows(entity, id)).toBe(rows);
    if (entity !== "objective") {
      // The weekly editors title their notices: this one is no failure, so not under 'Error'.
      const page = await (await request(`${to.pathname}${to.search}`, { cookie })).text();
      expect(page).toMatch(/<strong>No Changes<\/strong> (<!-- -->)?Nothing to change\./);
    }
    const version = async () => ((await (await api(`/v2/${entity === "objective" ? "objectives" : entity === "weekly_report" ? "weekly-reports" : "chart-comments"}/${id}`, { token: adminToken })).json()) as { data: { version: number } }).data.version;
    expect(await version()).toBe(1);
    // An edit still saves, once.
    const saved = await form(path, { ...fields, ...edit }, cookie);
    expect(saved.status, await saved.clone().text()).toBe(303);
    expect(new URL(saved.headers.get("Location")!, "http://x").searchParams.get("flash")).toBe(answer);
    expect(await version()).toBe(2);
    expect(await updateRows(entity, id)).toBe(rows + 1);
  });
});
