import { eq } from "drizzle-orm";
import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { patients } from "~/db/schema";
import { parsePatient, PATIENT_FIELDS } from "~/domain/patients";
import { api, createLocation, createPatient, createUser, db, oneRecordOfEach, request, signInCookie } from "./helpers";

/**
 * Probe 8921 #3 and #8 (decision 017): a field a screen shows as a single-line <input> refuses a line break (CR, LF,
 * U+2028, U+2029) with 422 "Keep <label> on one line." and writes nothing; the browser would drop the break and the
 * next screen save store the value changed. Textareas keep their lines. Every text field refuses a lone surrogate
 * (ill-formed UTF-16, stored as invalid UTF-8).
 */

const BREAKS = ["Line\nBreak", "Line\r\nBreak", "Line\rBreak", "Line\u2028Break", "Line\u2029Break"];

type Json = { message?: string; errors?: Record<string, string>; data?: unknown };
/** An update path, the field and its message; `show` reads the record when it is not at `path` (`pick` from a list). */
type Case = { name: string; path: string; method?: "PATCH" | "POST"; show?: string; pick?: (data: { id: number }[]) => unknown; body?: Record<string, unknown>; field: string; errorKey?: string; message: string };

let token: string;
let oneLine: Case[];
let multiLine: Case[];
/** A list item or table cell a screen shows one to an <input> or a line: the body that puts `value` in it. */
type ItemCase = { name: string; path: string; body: (value: string) => Record<string, unknown>; errorKey: string; message: string };
let oneLineItems: ItemCase[];

beforeAll(async () => {
  const { location, token: adminToken, parent, patient, bip, plan, objective, employee, role, insurer, service, rate, pa, intake, ticket, note } = await oneRecordOfEach();
  token = adminToken;

  const client = (field: string, message: string): Case => ({ name: `client ${field}`, path: `/v2/patients/${patient.id}`, field, message });
  const person = (kind: string, path: string) =>
    (["name", "surname", "address", "city"] as const).map((field): Case => ({ name: `${kind} ${field}`, path, field, message: `Keep ${field} on one line.` }));
  oneLine = [
    client("first_name", "Keep first name on one line."),
    client("last_name", "Keep last name on one line."),
    client("parent_name", "Keep parent name on one line."),
    client("patient_identifier", "Keep patient identifier on one line."),
    client("address", "Keep address on one line."),
    client("city", "Keep city on one line."),
    client("insuranceId", "Keep primary insurance identifier on one line."),
    client("referring_provider_first_name", "Keep referring provider first name on one line."),
    client("referring_code", "Keep referring code on one line."),
    ...person("employee", `/v2/employees/${employee.id}`),
    ...person("parent", `/v2/parents/${parent.id}`),
    { name: "location title", path: `/v2/locations/${location.id}`, field: "title", message: "Keep title on one line." },
    { name: "location address", path: `/v2/locations/${location.id}`, field: "address", message: "Keep address on one line." },
    { name: "location city", path: `/v2/locations/${location.id}`, field: "city", message: "Keep city on one line." },
    { name: "insurer name", path: `/v2/insurances/${insurer!.id}`, field: "name", message: "Keep name on one line." },
    { name: "insurer street", path: `/v2/insurances/${insurer!.id}`, field: "street", message: "Keep street on one line." },
    { name: "insurer city", path: `/v2/insurances/${insurer!.id}`, field: "city", message: "Keep city on one line." },
    { name: "insurer payer id", path: `/v2/insurances/${insurer!.id}`, field: "payer_id", message: "Keep payer ID on one line." },
    { name: "insurer service description", path: `/insurance/update/service/${service!.id}`, show: `/insurance/servicebyInsurance/${insurer!.id}`, pick: (data) => data.find((x) => x.id === service!.id), field: "description", message: "Keep description on one line." },
    { name: "role name", path: `/v2/roles/${role.id}`, field: "name", message: "Keep name on one line." },
    { name: "rate record name", path: `/v2/rate-records/${rate!.id}`, field: "name", message: "Keep name on one line." },
    { name: "PA service", path: `/v2/pa-services/${pa!.id}`, field: "pa_service", message: "Keep service on one line." },
    { name: "plan name", path: `/v2/plans/${plan.id}`, field: "name", message: "Keep name on one line." },
    { name: "objective name", path: `/v2/objectives/${objective.id}`, field: "name", message: "Keep name on one line." },
    { name: "BIP report writer", path: `/v2/bips/${bip.id}`, field: "report_writer", message: "Keep report writer on one line." },
    { name: "intake person responding", path: `/v2/intake-assessments/${intake!.id}`, body: { observation_date: "2026-01-05" }, field: "person_responding", message: "Keep person responding on one line." },
    { name: "ticket subject", path: `/v2/tickets/${ticket!.id}`, field: "subject", message: "Keep subject on one line." },
    { name: "RBT note provider name", path: `/v2/notes-rbt/${note!.id}`, field: "provider_name", message: "Keep provider name on one line." },
    { name: "RBT note mood", path: `/v2/notes-rbt/${note!.id}`, body: {}, field: "content", errorKey: "content.client_appeared", message: "Keep client appeared on one line." },
    // A create is refused alike, and nothing is made.
    { name: "new ticket subject", method: "POST", path: "/v2/tickets", show: "/v2/tickets?per_page=100", pick: (data) => data.length, body: { body: "Help", category: "general", priority: "low" }, field: "subject", message: "Keep subject on one line." },
  ];
  const table = (field: string, where: "header" | "cell"): ItemCase => ({
    name: `BIP ${field} ${where}`,
    path: `/v2/bips/${bip.id}`,
    body: (value) => ({ [field]: where === "header" ? { table_headers: ["Setting", value], table_rows: [["School", "9-12"]] } : { table_headers: ["Setting", "Monday"], table_rows: [["School", value]] } }),
    errorKey: `${field}.${where === "header" ? "table_headers" : "table_rows"}`,
    message: "Keep a table cell on one line.",
  });
  const info = (key: string, message: string): ItemCase => ({ name: `rate record ${key} info`, path: `/v2/rate-records/${rate.id}`, body: (value) => ({ info: { rbt: [], bcba: [], manager: [], [key]: ["Hourly", value] } }), errorKey: `info.${key}`, message });
  oneLineItems = [
    table("schedule_of_services_breakdown", "header"),
    table("schedule_of_services_breakdown", "cell"),
    table("behavior_assistant_rationale_work_schedule", "header"),
    table("behavior_assistant_rationale_work_schedule", "cell"),
    {
      name: "BIP behavior list",
      path: `/v2/bips/${bip.id}`,
      body: (value) => ({ prevalent_setting_event_and_antecedents: [{ prevalent_setting_event_and_antecedent: "Noise", behavior: ["Crying", value], hypothesized_functions: ["escape"] }] }),
      errorKey: "prevalent_setting_event_and_antecedents.behavior",
      message: "Keep behavior list on one line.",
    },
    info("rbt", "Keep RBT info on one line."),
    info("bcba", "Keep BCBA info on one line."),
    info("manager", "Keep manager info on one line."),
  ];
  multiLine = [
    { name: "client special note", path: `/v2/patients/${patient.id}`, field: "special_note", message: "" },
    { name: "employee note", path: `/v2/employees/${employee.id}`, field: "note", message: "" },
    { name: "insurer notes", path: `/v2/insurances/${insurer!.id}`, field: "notes", message: "" },
    { name: "plan description", path: `/v2/plans/${plan.id}`, field: "description", message: "" },
    { name: "objective description", path: `/v2/objectives/${objective.id}`, field: "description", message: "" },
    { name: "BIP weaknesses", path: `/v2/bips/${bip.id}`, field: "weaknesses", message: "" },
    { name: "ticket message", path: `/v2/tickets/${ticket!.id}`, field: "body", message: "" },
  ];
});

async function recordOf(c: Pick<Case, "name" | "path" | "show" | "pick">): Promise<unknown> {
  const res = await api(c.show ?? c.path, { token });
  expect(res.status, c.name).toBe(200);
  const data = ((await res.json()) as { data: unknown }).data;
  return c.pick ? c.pick(data as { id: number }[]) : data;
}

const bodyOf = (c: Case, value: string) => (c.errorKey?.startsWith("content.") ? { content: { [c.errorKey.slice("content.".length)]: value } } : { ...c.body, [c.field]: value });

describe("a one-line field refuses a line break (probe 8921 #3)", () => {
  it("answers 422 at the field with 'Keep <label> on one line.' for CR, LF, CRLF, U+2028 and U+2029, and writes nothing", async () => {
    for (const c of oneLine) {
      const before = await recordOf(c);
      // The refusals write nothing, so a case's five bodies are sent together (the loop is long on a slow machine).
      await Promise.all(
        BREAKS.map(async (value) => {
          const res = await api(c.path, { method: c.method ?? "PATCH", token, body: bodyOf(c, value) });
          const answer = (await res.json()) as Json;
          expect(res.status, `${c.name} ${JSON.stringify(value)}: ${JSON.stringify(answer)}`).toBe(422);
          expect(answer.message, c.name).toBeTruthy();
          expect(answer.errors?.[c.errorKey ?? c.field], `${c.name} ${JSON.stringify(value)}`).toBe(c.message);
        }),
      );
      expect(await recordOf(c), c.name).toEqual(before);
    }
  }, 120_000);

  it("the same field takes the text on one line (200), and leading or trailing breaks are trimmed like spaces", async () => {
    for (const c of oneLine.filter((x) => x.method !== "POST")) {
      const res = await api(c.path, { method: "PATCH", token, body: bodyOf(c, "\nOne line\r\n") });
      expect(res.status, `${c.name}: ${await res.clone().text()}`).toBe(200);
    }
  }, 60_000);

  it("textareas keep their lines: line breaks (and a whole emoji) are stored as sent", async () => {
    for (const c of multiLine) {
      const res = await api(c.path, { method: "PATCH", token, body: { [c.field]: "First line\r\nSecond 😀 line\u2028third" } });
      expect(res.status, `${c.name}: ${await res.clone().text()}`).toBe(200);
      expect(((await recordOf(c)) as Record<string, unknown>)[c.field], c.name).toBe("First line\r\nSecond 😀 line\u2028third");
    }
  });
});

/**
 * Probe 8924 #2 and #4: the plan's schedule tables (headers and cells are <input>s) and the lists a screen shows one
 * entry per line (a rate record's info, a setting event's behavior list) took an entry with a break, which the next
 * untouched save of the screen then changed ("9-12\n1-3" became "9-121-3", "Hourly\nrate" two entries).
 */
describe("a table cell or a one-per-line list entry refuses a line break (probe 8924 #2, #4)", () => {
  it("answers 422 at the table or list with 'Keep <label> on one line.' and writes nothing", async () => {
    for (const c of oneLineItems) {
      const before = await recordOf(c);
      await Promise.all(
        BREAKS.map(async (value) => {
          const res = await api(c.path, { method: "PATCH", token, body: c.body(value) });
          const answer = (await res.json()) as Json;
          expect(res.status, `${c.name} ${JSON.stringify(value)}: ${JSON.stringify(answer)}`).toBe(422);
          expect(answer.errors?.[c.errorKey], `${c.name} ${JSON.stringify(value)}`).toBe(c.message);
        }),
      );
      expect(await recordOf(c), c.name).toEqual(before);
    }
  }, 120_000);

  it("the same entry on one line is saved (200), its outer breaks trimmed", async () => {
    for (const c of oneLineItems) {
      const res = await api(c.path, { method: "PATCH", token, body: c.body("\nOne line\r\n") });
      expect(res.status, `${c.name}: ${await res.clone().text()}`).toBe(200);
      expect(JSON.stringify(await recordOf(c)), c.name).toContain('"One line"');
    }
  }, 60_000);
});

describe("a lone surrogate is refused in every text field (probe 8921 #8)", () => {
  it("answers 422 naming the field, one-line or not, and writes nothing", async () => {
    const broken = ["Ai\ud800den", "x\udc00"];
    for (const c of [...oneLine.filter((x) => !x.errorKey && x.method !== "POST"), ...multiLine]) {
      const before = await recordOf(c);
      await Promise.all(
        broken.map(async (value) => {
          const res = await api(c.path, { method: "PATCH", token, body: { [c.field]: value } });
          const answer = (await res.json()) as Json;
          expect(res.status, `${c.name} ${JSON.stringify(value)}`).toBe(422);
          expect(answer.errors?.[c.field], c.name).toMatch(/: remove the broken character \(half of an emoji or symbol\)\.$/);
        }),
      );
      expect(await recordOf(c), c.name).toEqual(before);
    }
  }, 120_000);

  it("an email with a lone surrogate is not a valid address", async () => {
    const c = oneLine.find((x) => x.name === "parent name")!;
    const res = await api(c.path, { method: "PATCH", token, body: { email: "ana\ud800@example.test" } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as Json).errors?.email).toBe("Enter a valid email address.");
  });
});

describe("the client form (probe 8921 #3, screens)", () => {
  async function scene() {
    const loc = await createLocation();
    const me = await createUser({ permissions: ["view_clients", "manage_clients"], locations: [loc.id] });
    const cookie = await signInCookie(me);
    const client = await createPatient({ locationId: loc.id, lastName: "Rivera" });
    return { loc, cookie, client };
  }

  it("shows every one-line field of the schema as an <input> and every multi-line one as a <textarea>", async () => {
    const { cookie, client } = await scene();
    const html = await (await request(`/patients/list/edit/${client.id}`, { cookie })).text();
    const texts = PATIENT_FIELDS.filter((f) => f.type === "text" || f.type === "required" || f.type === "longtext");
    expect(texts.length).toBeGreaterThan(30);
    for (const f of texts) {
      const refused = parsePatient({ patient_identifier: "P-1", first_name: "A", last_name: "B", location_id: 1, [f.name]: "a\nb" });
      const oneLineField = !refused.ok && refused.errors[f.name] === `Keep ${f.label.replace(/^[A-Z](?=[a-z])/, (ch) => ch.toLowerCase())} on one line.`;
      expect(refused.ok || oneLineField, f.name).toBe(true);
      const tag = new RegExp(`<(input|textarea)\\b[^>]*\\bname="${f.name}"`).exec(html)?.[1];
      expect(tag, f.name).toBe(oneLineField ? "input" : "textarea");
    }
  });

  it("a save with a line break in a name (JavaScript off) answers 422 with the message at the field, keeps the typed text and writes nothing", async () => {
    const { loc, cookie, client } = await scene();
    const [before] = await db().select().from(patients).where(eq(patients.id, client.id));
    const body = new URLSearchParams({ intent: "save", version: String(before!.version), patient_identifier: client.patientIdentifier!, first_name: client.firstName, last_name: "Line\r\nBreak", status: "active", location_id: String(loc.id) });
    const res = await request(`/patients/list/edit/${client.id}`, { method: "POST", body, cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toMatch(/id="f-last_name-error"[^>]*>Keep last name on one line\.</);
    const [after] = await db().select().from(patients).where(eq(patients.id, client.id));
    expect(after).toEqual(before);
  });
});

/**
 * Stop 30 (decision 017): a value stored before the one-line rule (a line break in a one-line field) does not stop an
 * API PATCH of another field of the record, and that PATCH stores it byte for byte; a PATCH that sends the field itself
 * with a break is refused as before. Each case writes the stored value straight into D1 (`set`, read back by `get`).
 */
describe("a stored line break in a field a PATCH does not send (stop 30)", () => {
  const STORED = "Line\nBreak";
  type StoredCase = { name: string; path: string; table: string; id: number; set: string; get: string; field: string; message: string; other: Record<string, unknown>; otherGet: string; otherValue: unknown };

  it("answers 200, writes the field sent and keeps the stored one; the stored field itself with a break is 422", async () => {
    const r = await oneRecordOfEach();
    const column = (name: string) => ({ set: `${name} = ?`, get: name });
    const detail = (key: string) => ({ set: `details = json_set(coalesce(details, '{}'), '$.${key}', ?)`, get: `json_extract(details, '$.${key}')` });
    const cases: StoredCase[] = [
      { name: "client first name", path: `/v2/patients/${r.patient.id}`, table: "patients", id: r.patient.id, ...column("first_name"), field: "first_name", message: "Keep first name on one line.", other: { last_name: "Rivera" }, otherGet: "last_name", otherValue: "Rivera" },
      { name: "client address", path: `/v2/patients/${r.patient.id}`, table: "patients", id: r.patient.id, ...detail("address"), field: "address", message: "Keep address on one line.", other: { last_name: "Rivas" }, otherGet: "last_name", otherValue: "Rivas" },
      { name: "parent name", path: `/v2/parents/${r.parent.id}`, table: "parents", id: r.parent.id, ...column("name"), field: "name", message: "Keep name on one line.", other: { city: "Miami" }, otherGet: "city", otherValue: "Miami" },
      { name: "employee address", path: `/v2/employees/${r.employee.id}`, table: "users", id: r.employee.id, ...column("address"), field: "address", message: "Keep address on one line.", other: { city: "Miami" }, otherGet: "city", otherValue: "Miami" },
      { name: "location title", path: `/v2/locations/${r.location.id}`, table: "locations", id: r.location.id, ...column("title"), field: "title", message: "Keep title on one line.", other: { city: "Orlando" }, otherGet: "city", otherValue: "Orlando" },
      { name: "insurer street", path: `/v2/insurances/${r.insurer.id}`, table: "insurances", id: r.insurer.id, ...column("street"), field: "street", message: "Keep street on one line.", other: { notes: "Calls back." }, otherGet: "notes", otherValue: "Calls back." },
      { name: "insurer service description", path: `/insurance/update/service/${r.service.id}`, table: "insurance_services", id: r.service.id, ...column("description"), field: "description", message: "Keep description on one line.", other: { unit_price: 25 }, otherGet: "unit_price", otherValue: 25 },
      { name: "rate record name", path: `/v2/rate-records/${r.rate.id}`, table: "rate_records", id: r.rate.id, ...column("name"), field: "name", message: "Keep name on one line.", other: { rbt: 30 }, otherGet: "rbt", otherValue: 30 },
      { name: "PA service", path: `/v2/pa-services/${r.pa.id}`, table: "pa_services", id: r.pa.id, ...column("pa_service"), field: "pa_service", message: "Keep service on one line.", other: { n_units: 40 }, otherGet: "n_units", otherValue: 40 },
      { name: "plan name", path: `/v2/plans/${r.plan.id}`, table: "plans", id: r.plan.id, ...column("name"), field: "name", message: "Keep name on one line.", other: { description: "Two\nlines" }, otherGet: "description", otherValue: "Two\nlines" },
      { name: "objective name", path: `/v2/objectives/${r.objective.id}`, table: "objectives", id: r.objective.id, ...column("name"), field: "name", message: "Keep name on one line.", other: { description: "Calmer." }, otherGet: "description", otherValue: "Calmer." },
      { name: "intake person responding", path: `/v2/intake-assessments/${r.intake.id}`, table: "intake_assessments", id: r.intake.id, ...column("person_responding"), field: "person_responding", message: "Keep person responding on one line.", other: { observation_date: "2026-01-05" }, otherGet: "observation_date", otherValue: "2026-01-05" },
      { name: "ticket subject", path: `/v2/tickets/${r.ticket.id}`, table: "tickets", id: r.ticket.id, ...column("subject"), field: "subject", message: "Keep subject on one line.", other: { body: "Still jams." }, otherGet: "body", otherValue: "Still jams." },
      { name: "RBT note provider name", path: `/v2/notes-rbt/${r.note.id}`, table: "notes", id: r.note.id, ...column("provider_name"), field: "provider_name", message: "Keep provider name on one line.", other: { diagnosis_code: "F84.0" }, otherGet: "diagnosis_code", otherValue: "F84.0" },
    ];
    const read = (c: StoredCase, expr: string) => env.DB.prepare(`select ${expr} as v from ${c.table} where id = ?`).bind(c.id).first<{ v: unknown }>().then((x) => x?.v);
    for (const c of cases) {
      await env.DB.prepare(`update ${c.table} set ${c.set} where id = ?`).bind(STORED, c.id).run();
      const res = await api(c.path, { method: "PATCH", token: r.token, body: c.other });
      expect(res.status, `${c.name}: ${await res.clone().text()}`).toBe(200);
      expect(await read(c, c.get), c.name).toBe(STORED);
      expect(await read(c, c.otherGet), c.name).toBe(c.otherValue);

      const refused = await api(c.path, { method: "PATCH", token: r.token, body: { [c.field]: "Other\nbreak" } });
      const answer = (await refused.json()) as Json;
      expect(refused.status, `${c.name}: ${JSON.stringify(answer)}`).toBe(422);
      expect(answer.errors?.[c.field], c.name).toBe(c.message);
      expect(await read(c, c.get), c.name).toBe(STORED);
    }
  }, 60_000);
});
