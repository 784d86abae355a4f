import { beforeAll, describe, expect, it } from "vitest";
import { NOTE_MESSAGES } from "~/domain/note-rules";
import { PA_SERVICE_CLIENT_FIXED } from "~/domain/patients";
import { MOVE_MESSAGES } from "~/domain/references";
import { api, createBip, createChartComment, createLocation, createPatient, createPlan, createWeeklyReport, oneRecordOfEach } from "./helpers";

/**
 * The records a record belongs to (its client, behavior plan or goal) are fixed once it exists (decision 017, stop 43).
 * An update naming one with another value answers 422 at that field with "… cannot move to another …", not "Nothing to
 * change", and writes nothing (the version stays); the stored value sent back is no change. A reference is checked under
 * each name its lists or its BIP take it by (a goal's `client_id`, a chart comment's or weekly report's `bip_id`), and
 * a value that is no record id (a list, true, "abc") answers the record-id words at its field (stop 44). A note's client
 * (`patient_id`, or the spec's `client_id`) and location, and a PA service's client, follow the same rule (stop 45).
 */

const NOTHING = "Nothing to change: send at least one field to update.";

/** `refs`: each read-only reference with another record's id; `field`, `again`: a real field the update writes, two values. */
type Case = { name: string; path: string; refs: Record<string, number>; own: Record<string, number>; messages: Record<string, string>; field: Record<string, unknown>; again: Record<string, unknown> };
let token: string;
let cases: Case[];
const NAMES = ["plan", "objective", "chart comment", "intake assessment", "BIP", "weekly report", "RBT note", "PA service"];
let world: Awaited<ReturnType<typeof oneRecordOfEach>>;
let otherLocation: { id: number };
const named = (name: string) => cases.find((c) => c.name === name)!;

beforeAll(async () => {
  const r = await oneRecordOfEach();
  world = r;
  token = r.token;
  otherLocation = await createLocation();
  const otherClient = await createPatient({ locationId: r.location.id });
  const otherBip = await createBip(r.patient);
  const otherPlan = await createPlan(r.bip);
  const report = await createWeeklyReport(r.plan, "2026-01-03", 4);
  const comment = await createChartComment(r.plan, "2026-01-02", "New routine");
  /** A record's client under both its names (`patient_id`, and the spec's `client_id`), with the words of its refusal. */
  const clientNames = (message: string) => ({
    refs: { patient_id: otherClient.id, client_id: otherClient.id },
    own: { patient_id: r.patient.id, client_id: r.patient.id },
    messages: { patient_id: message, client_id: message },
  });
  const noteClient = clientNames(NOTE_MESSAGES.patientReadOnly);
  cases = [
    {
      name: "plan",
      path: `/v2/plans/${r.plan.id}`,
      refs: { bip_id: otherBip.id, patient_id: otherClient.id, client_id: otherClient.id },
      own: { bip_id: r.bip.id, patient_id: r.patient.id, client_id: r.patient.id },
      messages: { bip_id: MOVE_MESSAGES.goalBip, patient_id: MOVE_MESSAGES.goalClient, client_id: MOVE_MESSAGES.goalClient },
      field: { name: "Fewer outbursts" },
      again: { name: "Fewer outbursts at school" },
    },
    { name: "objective", path: `/v2/objectives/${r.objective.id}`, refs: { plan_id: otherPlan.id }, own: { plan_id: r.plan.id }, messages: { plan_id: MOVE_MESSAGES.objectiveGoal }, field: { name: "Reduce to 1 per week" }, again: { name: "Reduce to 2 per week" } },
    {
      name: "chart comment",
      path: `/v2/chart-comments/${comment.id}`,
      refs: { plan_id: otherPlan.id, bip_id: otherBip.id },
      own: { plan_id: r.plan.id, bip_id: r.bip.id },
      messages: { plan_id: MOVE_MESSAGES.commentGoal, bip_id: MOVE_MESSAGES.commentBip },
      field: { comment: "New school" },
      again: { comment: "New teacher" },
    },
    {
      name: "intake assessment",
      path: `/v2/intake-assessments/${r.intake.id}`,
      ...clientNames(MOVE_MESSAGES.intakeClient),
      field: { person_responding: "Father", observation_date: "2026-01-05" },
      again: { person_responding: "Mother" },
    },
    {
      name: "BIP",
      path: `/v2/bips/${r.bip.id}`,
      // A BIP's location is its client's (decision 010): read-only as its client (decision 017, stop 45).
      refs: { patient_id: otherClient.id, client_id: otherClient.id, location_id: otherLocation.id },
      own: { patient_id: r.patient.id, client_id: r.patient.id, location_id: r.location.id },
      messages: { patient_id: MOVE_MESSAGES.bipClient, client_id: MOVE_MESSAGES.bipClient, location_id: MOVE_MESSAGES.bipLocation },
      field: { needs_attention: true },
      again: { needs_attention: false },
    },
    {
      name: "weekly report",
      path: `/v2/weekly-reports/${report.id}`,
      refs: { plan_id: otherPlan.id, bip_id: otherBip.id },
      own: { plan_id: r.plan.id, bip_id: r.bip.id },
      messages: { plan_id: "A weekly report cannot move to another plan.", bip_id: "A weekly report cannot move to another behavior plan." },
      field: { value: 3 },
      again: { value: 5 },
    },
    {
      name: "RBT note",
      path: `/v2/notes-rbt/${r.note.id}`,
      refs: { ...noteClient.refs, location_id: otherLocation.id },
      own: { ...noteClient.own, location_id: r.location.id },
      messages: { ...noteClient.messages, location_id: NOTE_MESSAGES.locationReadOnly },
      field: { next_session_is_scheduled_for: "Thursday 9:00" },
      again: { next_session_is_scheduled_for: "Friday 9:00" },
    },
    {
      name: "PA service",
      path: `/v2/pa-services/${r.pa.id}`,
      ...clientNames(PA_SERVICE_CLIENT_FIXED),
      field: { n_units: 40 },
      again: { n_units: 41 },
    },
  ];
});

async function stored(c: Case): Promise<Record<string, unknown>> {
  const res = await api(c.path, { token });
  expect(res.status, c.name).toBe(200);
  const { updated_at: _u, ...rest } = ((await res.json()) as { data: Record<string, unknown> }).data;
  return rest;
}

describe("an update naming another client, plan or goal than the record's", () => {
  it.each(NAMES.flatMap((name) => ["PATCH", "PUT"].flatMap((method) => [[name, method, "alone"] as const, [name, method, "beside a real field"] as const])))(
    "%s, %s, the reference %s: 422 at the reference's field, the record and its version unchanged",
    async (name, method, how) => {
      const c = named(name);
      const before = await stored(c);
      for (const [key, id] of Object.entries(c.refs)) {
        const body = { ...(how === "alone" ? {} : c.field), [key]: id, version: before.version };
        const res = await api(c.path, { method, token, body });
        expect(res.status, `${c.name} ${key}`).toBe(422);
        const answer = (await res.json()) as { message: string; errors: Record<string, string> };
        expect(answer.errors, `${c.name} ${key}`).toEqual({ [key]: c.messages[key] });
        expect(answer.message).not.toBe(NOTHING);
      }
      expect(await stored(c), c.name).toEqual(before);
    },
  );

  it.each(NAMES)("%s: every reference moved at once is named, each at its field", async (name) => {
    const c = named(name);
    const res = await api(c.path, { method: "PATCH", token, body: { ...c.field, ...c.refs } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual(c.messages);
  });
});

describe("the stored reference sent back is no change", () => {
  it.each(NAMES)("%s: alone it is 'Nothing to change' (the version stays); beside a real field the field saves", async (name) => {
    const c = named(name);
    const before = await stored(c);
    const alone = await api(c.path, { method: "PATCH", token, body: { ...c.own, version: before.version } });
    expect(alone.status).toBe(422);
    expect(((await alone.json()) as { message: string }).message).toBe(NOTHING);
    expect((await stored(c)).version).toBe(before.version);
    const saved = await api(c.path, { method: "PATCH", token, body: { ...c.own, ...c.field, version: before.version } });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect((await stored(c)).version).toBe((before.version as number) + 1);
  });
});

describe("a BIP's location_id sent empty names nothing, as every read-only reference", () => {
  it.each([null, ""])("location_id %j beside a real field: the field saves", async (empty) => {
    const c = named("BIP");
    const before = await stored(c);
    const res = await api(c.path, { method: "PATCH", token, body: { location_id: empty, needs_attention: !before.needs_attention, version: before.version } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await stored(c)).version).toBe((before.version as number) + 1);
  });
});

describe("a reference sent as something that is not a record id", () => {
  /** Each is no id, whatever it holds: `own` is the record's stored id. */
  const NOT_IDS: [string, (own: number) => unknown][] = [
    ["a list holding the stored id", (own) => [own]],
    ["an object", (own) => ({ id: own })],
    ["true", () => true],
    ["letters", () => "abc"],
    ["a fraction", (own) => own + 0.5],
    ["zero", () => 0],
  ];
  const keysOf = (name: string) => Object.keys(named(name).refs);

  it.each(NAMES)("%s: each reference's name answers 422 '<name> must be a record id.' at it, nothing written", async (name) => {
    const c = named(name);
    const before = await stored(c);
    for (const key of keysOf(name))
      for (const [what, value] of NOT_IDS)
        for (const method of ["PATCH", "PUT"]) {
          const res = await api(c.path, { method, token, body: { ...c.field, [key]: value(c.own[key]!), version: before.version } });
          expect(res.status, `${c.name} ${method} ${key}: ${what}`).toBe(422);
          expect(((await res.json()) as { errors: Record<string, string> }).errors, `${c.name} ${key}: ${what}`).toEqual({ [key]: `${key} must be a record id.` });
        }
    expect(await stored(c), c.name).toEqual(before);
  });

  it.each(NAMES)("%s: a well-formed id that is not the stored one is a move, whether a record has it or not", async (name) => {
    const c = named(name);
    for (const key of keysOf(name))
      for (const value of [999999, "999999", String(c.refs[key])]) {
        const res = await api(c.path, { method: "PATCH", token, body: { ...c.field, [key]: value } });
        expect(res.status, `${c.name} ${key}: ${value}`).toBe(422);
        expect(((await res.json()) as { errors: Record<string, string> }).errors).toEqual({ [key]: c.messages[key] });
      }
  });

  it.each(NAMES)("%s: the stored id sent as its digits is no change; the real field saves", async (name) => {
    const c = named(name);
    const before = await stored(c);
    const own = Object.fromEntries(Object.entries(c.own).map(([k, id]) => [k, ` ${id} `]));
    const res = await api(c.path, { method: "PATCH", token, body: { ...own, ...c.again, version: before.version } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect((await stored(c)).version).toBe((before.version as number) + 1);
  });
});

describe("a note's client and location on the legacy update (PUT /note_rbt/update/{id})", () => {
  it("another client under either name, or another location, is refused at the field; the stored ones sent back save", async () => {
    const note = named("RBT note");
    const before = await stored(note);
    const path = `/note_rbt/update/${world.note.id}`;
    for (const [key, id] of Object.entries(note.refs)) {
      const res = await api(path, { method: "PUT", token, body: { ...before, ...note.field, [key]: id } });
      expect(res.status, key).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors, key).toEqual({ [key]: note.messages[key] });
    }
    for (const [key, value] of [["patient_id", true], ["client_id", [world.patient.id]], ["location_id", "abc"]] as const) {
      const res = await api(path, { method: "PUT", token, body: { ...before, ...note.field, [key]: value } });
      expect(res.status, key).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors, key).toEqual({ [key]: `${key} must be a record id.` });
    }
    expect(await stored(note)).toEqual(before);
    const saved = await api(path, { method: "PUT", token, body: { ...before, ...note.own, content: { ...(before.content as object), next_session_is_scheduled_for: "Monday 8:00" } } });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect(((await saved.json()) as { data: { location_id: number } }).data.location_id).toBe(world.location.id);
  });
});

describe("a PA service's client is required on an update that names it (decision 044)", () => {
  it.each([null, ""])("patient_id or client_id sent as %j: 422 at the field, nothing written", async (value) => {
    const c = named("PA service");
    const before = await stored(c);
    for (const key of ["patient_id", "client_id"]) {
      const res = await api(c.path, { method: "PATCH", token, body: { ...c.field, [key]: value } });
      expect(res.status, key).toBe(422);
      expect(((await res.json()) as { errors: Record<string, string> }).errors, key).toEqual({ [key]: PA_SERVICE_CLIENT_FIXED });
    }
    expect(await stored(c)).toEqual(before);
  });
});
