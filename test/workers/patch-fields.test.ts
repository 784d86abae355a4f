import { beforeAll, describe, expect, it } from "vitest";
import { api, createChartComment, createWeeklyReport, oneRecordOfEach } from "./helpers";

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
    { name: "BIP (v1)", path: `/bip/update/${bip.id}`, show: `/v2/bips/${bip.id}`, field: { needs_attention: true } },
    { name: "RBT note (v1)", path: `/note_rbt/update/${note!.id}`, show: `/v2/notes-rbt/${note!.id}`, field: { next_session_is_scheduled_for: "Friday 9:00" } },
  ];
});

async function recordOf(c: Case): Promise<{ version?: unknown } | undefined> {
  const res = await api(c.show ?? c.path, { token });
  expect(res.status, c.name).toBe(200);
  const data = ((await res.json()) as { data: unknown }).data;
  return (c.pick ? c.pick(data as { id: number }[]) : data) as { version?: unknown } | undefined;
}

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
    const res = await api(c.path, { method: "PUT", token, body: { ...UNKNOWN_ONLY, ...ownId(c), ...c.field, version: before } });
    const answer = (await res.json()) as { message?: string };
    expect(answer.message, c.name).not.toBe(NOTHING);
    if (["BIP", "BIP (v1)", "objective"].includes(c.name)) {
      expect(res.status, `${c.name}: ${JSON.stringify(answer)}`).toBe(200);
      expect(await versionOf(c), c.name).toBe(before + 1);
    }
  });
});
