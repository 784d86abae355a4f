import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, paServices } from "~/db/schema";
import { NOTE_MESSAGES, todayIn } from "~/domain/note-rules";
import { addDays } from "~/domain/weeks";
import { api, apiToken, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * A note's answer carries the session summary twice, as `summary_note` and as `content.summary_note` (probe 8941 §3,
 * stop 31). A body that sends a content field both ways with different values is refused at that field with nothing
 * written, instead of the top-level one being dropped under a 200 "Note updated."; the same value both ways, or one
 * form alone, saves as before. An update whose one summary is the stored one saves the other, its edit (stop 42).
 * Every note type, v1 and v2, create, PUT and PATCH.
 */

const today = () => todayIn(new Date(), "America/New_York");
const day = (offset: number) => addDays(today(), offset);

let location: { id: number };

const CPT = { rbt: "97153", bcba: "97155", combined: "97153" } as const;
type Type = keyof typeof CPT;
const V2 = { rbt: "/v2/notes-rbt", bcba: "/v2/notes-bcba", combined: "/v2/notes-combined" } as const;
const V1: Partial<Record<Type, string>> = { rbt: "/note_rbt", bcba: "/note_bcba" };

async function call(token: string, method: string, path: string, b?: unknown) {
  const res = await api(path, { method, token, body: b });
  return { status: res.status, json: (await res.json()) as Record<string, any> };
}

/** A provider and a client of their own with one unsigned note of `type` (summary "Before", participants "Mother"). */
async function scene(type: Type) {
  const user = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [location.id] });
  const token = await apiToken(user);
  const patient = await createPatient({ locationId: location.id });
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Therapy", cpt: CPT[type], nUnits: 400, startDate: day(-200), endDate: day(200) }).returning();
  const body = { patient_id: patient.id, provider_id: user.id, pa_service_id: pa!.id, cpt_code: CPT[type], session_date: day(-1), time_in: "09:00", time_out: "10:00", pos: "12" };
  const created = await call(token, "POST", V2[type], { ...body, content: { summary_note: "Before", participants: "Mother" } });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  const id = created.json.data.id as number;
  return { token, body, id };
}

async function stored(id: number) {
  const [row] = await db().select().from(notes).where(eq(notes.id, id));
  return { summary: row!.summaryNote, participants: (JSON.parse(row!.content) as Record<string, unknown>).participants, version: row!.version };
}

beforeAll(async () => {
  location = await createLocation();
});

/** [type, method, path of the note, by id]. */
const WRITES: [Type, "PUT" | "PATCH", string][] = (["rbt", "bcba", "combined"] as const).flatMap((t): [Type, "PUT" | "PATCH", string][] => [
  [t, "PUT", `${V2[t]}/{id}`],
  [t, "PATCH", `${V2[t]}/{id}`],
  ...(V1[t] ? ([[t, "PUT", `${V1[t]}/update/{id}`]] as [Type, "PUT", string][]) : []),
]);

describe("the fields a note's answer carries twice", () => {
  it("are the summary alone (top level and content), for every note type", async () => {
    for (const type of ["rbt", "bcba", "combined"] as const) {
      const s = await scene(type);
      const read = (await call(s.token, "GET", `${V2[type]}/${s.id}`)).json.data as Record<string, unknown>;
      const twice = Object.keys(read.content as object).filter((k) => k in read);
      expect(twice, type).toEqual(["summary_note"]);
    }
  });
});

describe.each(WRITES)("%s note, %s %s", (type, method, pattern) => {
  const path = (id: number) => pattern.replace("{id}", String(id));

  it.each(["top level", "content"])("a read sent back with only the summary in %s changed saves the edit (decision 025, stop 42)", async (where) => {
    const s = await scene(type);
    const before = await stored(s.id);
    const read = (await call(s.token, "GET", `${V2[type]}/${s.id}`)).json.data as Record<string, any>;
    const { history: _h, ...back } = read;
    const b = where === "top level" ? { ...back, summary_note: "After" } : { ...back, content: { ...back.content, summary_note: "After" } };
    const r = await call(s.token, method, path(s.id), b);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data).toMatchObject({ summary_note: "After", content: { summary_note: "After" } });
    expect(await stored(s.id)).toEqual({ summary: "After", participants: "Mother", version: before.version + 1 });
  });

  it("two different summaries, neither of them the stored one, are 422 at summary_note, nothing written", async () => {
    const s = await scene(type);
    const before = await stored(s.id);
    const read = (await call(s.token, "GET", `${V2[type]}/${s.id}`)).json.data as Record<string, any>;
    const { history: _h, ...back } = read;
    const r = await call(s.token, method, path(s.id), { ...back, summary_note: "One", content: { ...back.content, summary_note: "Two" } });
    expect(r.status, JSON.stringify(r.json)).toBe(422);
    expect(r.json.errors).toEqual({ summary_note: NOTE_MESSAGES.contentSentTwice("summary_note") });
    expect(await stored(s.id)).toEqual(before);
  });

  it("a content field sent flat and in content with different values is 422 at that field, nothing written", async () => {
    const s = await scene(type);
    const before = await stored(s.id);
    const b = method === "PATCH" ? { participants: "Father", content: { participants: "Mother" } } : { ...s.body, participants: "Father", content: { summary_note: "Before", participants: "Mother" } };
    const r = await call(s.token, method, path(s.id), b);
    expect(r.status, JSON.stringify(r.json)).toBe(422);
    expect(r.json.errors).toEqual({ participants: NOTE_MESSAGES.contentSentTwice("participants") });
    expect(await stored(s.id)).toEqual(before);
  });

  it("the same summary both ways saves it", async () => {
    const s = await scene(type);
    const read = (await call(s.token, "GET", `${V2[type]}/${s.id}`)).json.data as Record<string, any>;
    const b = method === "PATCH" ? { summary_note: "After", content: { summary_note: "After" } } : { ...read, summary_note: "After", content: { ...read.content, summary_note: "After" } };
    const r = await call(s.token, method, path(s.id), b);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json.data.summary_note).toBe("After");
    expect(await stored(s.id)).toMatchObject({ summary: "After", participants: "Mother" });
  });

  it.each(["top level", "content"])("the summary sent only in %s saves it", async (where) => {
    const s = await scene(type);
    const read = (await call(s.token, "GET", `${V2[type]}/${s.id}`)).json.data as Record<string, any>;
    const { summary_note: _top, ...rest } = read;
    const { summary_note: _nested, ...content } = read.content as Record<string, unknown>;
    const b =
      method === "PATCH"
        ? where === "top level"
          ? { summary_note: "After" }
          : { content: { summary_note: "After" } }
        : where === "top level"
          ? { ...rest, summary_note: "After", content }
          : { ...rest, content: { ...content, summary_note: "After" } };
    const r = await call(s.token, method, path(s.id), b);
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(await stored(s.id)).toMatchObject({ summary: "After", participants: "Mother" });
  });
});

describe("a create", () => {
  it.each([
    ["rbt", V2.rbt],
    ["rbt", "/note_rbt/store"],
    ["bcba", V2.bcba],
    ["bcba", "/note_bcba/store"],
    ["combined", V2.combined],
  ] as const)("%s %s: a summary sent both ways with different values is 422, no note; the same value creates it", async (type, path) => {
    const s = await scene(type);
    const b = { ...s.body, time_in: "11:00", time_out: "12:00" };
    const refused = await call(s.token, "POST", path, { ...b, summary_note: "Top", content: { summary_note: "Nested" } });
    expect(refused.status, JSON.stringify(refused.json)).toBe(422);
    expect(refused.json.errors).toEqual({ summary_note: NOTE_MESSAGES.contentSentTwice("summary_note") });
    expect(await db().select().from(notes).where(eq(notes.patientId, s.body.patient_id))).toHaveLength(1);
    const created = await call(s.token, "POST", path, { ...b, summary_note: "Same", content: { summary_note: "Same" } });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    expect(created.json.data.summary_note).toBe("Same");
  });
});
