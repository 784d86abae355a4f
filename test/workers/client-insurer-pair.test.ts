import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { insurances, patients } from "~/db/schema";
import { insurerPairRefusal, SAME_INSURERS } from "~/domain/patients";
import type { Permission } from "~/domain/permissions";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * A client's secondary insurer must be another insurer than the primary (decision 017, stop 37): a claim would
 * otherwise bill one insurer twice. A pair stored so before the rule and saved as it is still passes.
 */

const MANAGE: Permission[] = ["view_clients", "manage_clients"];

describe("insurerPairRefusal", () => {
  const rows: [string, { insurer_id: number | null; insurer_secondary_id: number | null }, { insurer_id: number | null; insurer_secondary_id: number | null } | null, string | null][] = [
    ["two insurers", { insurer_id: 1, insurer_secondary_id: 2 }, null, null],
    ["no secondary", { insurer_id: 1, insurer_secondary_id: null }, null, null],
    ["no primary", { insurer_id: null, insurer_secondary_id: 1 }, null, null],
    ["neither", { insurer_id: null, insurer_secondary_id: null }, null, null],
    ["the same insurer twice, new client", { insurer_id: 1, insurer_secondary_id: 1 }, null, SAME_INSURERS],
    ["the same insurer twice, newly set", { insurer_id: 1, insurer_secondary_id: 1 }, { insurer_id: 1, insurer_secondary_id: 2 }, SAME_INSURERS],
    ["primary changed to the secondary", { insurer_id: 2, insurer_secondary_id: 2 }, { insurer_id: 1, insurer_secondary_id: 2 }, SAME_INSURERS],
    ["a stored equal pair kept as it is", { insurer_id: 3, insurer_secondary_id: 3 }, { insurer_id: 3, insurer_secondary_id: 3 }, null],
    ["a stored equal pair changed to another equal pair", { insurer_id: 4, insurer_secondary_id: 4 }, { insurer_id: 3, insurer_secondary_id: 3 }, SAME_INSURERS],
    ["a stored equal pair corrected", { insurer_id: 3, insurer_secondary_id: 4 }, { insurer_id: 3, insurer_secondary_id: 3 }, null],
  ];
  it.each(rows)("%s", (_, input, stored, expected) => {
    expect(insurerPairRefusal(input, stored)).toBe(expected);
  });
});

describe("a client whose secondary insurer is the primary one", () => {
  let loc: { id: number };
  let a: number;
  let b: number;
  let token: string;
  let cookie: string;

  beforeAll(async () => {
    loc = await createLocation();
    const [x] = await db().insert(insurances).values({ name: "Pair Primary Ins" }).returning();
    const [y] = await db().insert(insurances).values({ name: "Pair Secondary Ins" }).returning();
    a = x!.id;
    b = y!.id;
    const manager = await createUser({ permissions: MANAGE, locations: [loc.id] });
    token = await apiToken(manager);
    cookie = await signInCookie(manager);
  });

  const row = async (id: number) => (await db().select().from(patients).where(eq(patients.id, id)))[0]!;
  const errorsOf = async (res: Response) => ((await res.json()) as { errors: Record<string, string> }).errors;
  let n = 0;
  const body = (over: Record<string, unknown> = {}) => ({ patient_identifier: `PAIR-${Date.now().toString(36)}-${++n}`, first_name: "Ana", last_name: "Pair", status: "active", location_id: loc.id, ...over });

  it("API create (v2 and v1): 422 at insurer_secondary_id, nothing written; two insurers save", async () => {
    for (const path of ["/v2/patients", "/patient/store"]) {
      const sent = body({ insurer_id: a, insurer_secondary_id: a });
      const res = await api(path, { method: "POST", token, body: sent });
      expect(res.status, path).toBe(422);
      expect(await errorsOf(res), path).toEqual({ insurer_secondary_id: SAME_INSURERS });
      expect(await db().select().from(patients).where(eq(patients.patientIdentifier, sent.patient_identifier as string)), path).toHaveLength(0);
      expect((await api(path, { method: "POST", token, body: body({ insurer_id: a, insurer_secondary_id: b }) })).status, path).toBeLessThan(300);
    }
  });

  it("API update (v2 PATCH and PUT, v1 update): setting the pair equal is refused and writes nothing", async () => {
    const p = await createPatient({ locationId: loc.id, insurerId: a, insurerSecondaryId: b });
    const full = { patient_identifier: p.patientIdentifier, first_name: p.firstName, last_name: p.lastName, status: "active", location_id: loc.id };
    const attempts: [string, string, Record<string, unknown>][] = [
      ["PATCH", `/v2/patients/${p.id}`, { insurer_secondary_id: a }],
      ["PATCH", `/v2/patients/${p.id}`, { insurer_id: b }],
      ["PUT", `/v2/patients/${p.id}`, { ...full, insurer_id: b, insurer_secondary_id: b }],
      ["PUT", `/patient/update/${p.id}`, { ...full, insurer_id: a, insurer_secondary_id: a }],
    ];
    for (const [method, path, sent] of attempts) {
      const res = await api(path, { method, token, body: sent });
      expect(res.status, `${method} ${path} ${JSON.stringify(sent)}`).toBe(422);
      expect(await errorsOf(res)).toEqual({ insurer_secondary_id: SAME_INSURERS });
    }
    expect(await row(p.id)).toMatchObject({ insurerId: a, insurerSecondaryId: b, version: 1 });
  });

  it("a pair stored equal before the rule stays editable: a PATCH of another field, or the pair sent back, saves", async () => {
    const p = await createPatient({ locationId: loc.id, insurerId: a, insurerSecondaryId: a });
    expect((await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { special_note: "Kept pair" } })).status).toBe(200);
    expect((await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { insurer_id: a, insurer_secondary_id: a, phone: "305-555-1234" } })).status).toBe(200);
    expect(await row(p.id)).toMatchObject({ insurerId: a, insurerSecondaryId: a, version: 3 });
    // Moving both to another equal pair is a new choice, and refused.
    const moved = await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { insurer_id: b, insurer_secondary_id: b } });
    expect(moved.status).toBe(422);
    expect(await errorsOf(moved)).toEqual({ insurer_secondary_id: SAME_INSURERS });
    // Correcting it saves.
    expect((await api(`/v2/patients/${p.id}`, { method: "PATCH", token, body: { insurer_secondary_id: b } })).status).toBe(200);
    expect(await row(p.id)).toMatchObject({ insurerId: a, insurerSecondaryId: b, version: 4 });
  });

  it("screens (JavaScript off): add and edit answer 422 with the message, the typed values kept, nothing written", async () => {
    const identifier = `PAIR-SCREEN-${Date.now().toString(36)}`;
    const fields = { intent: "save", patient_identifier: identifier, first_name: "Typed", last_name: "Pairname", status: "active", location_id: String(loc.id), insurer_id: String(a), insurer_secondary_id: String(a) };
    const added = await form("/patients/add", fields, cookie);
    expect(added.status).toBe(422);
    const html = await added.text();
    expect(html).toContain("The secondary insurer must differ from the primary.");
    expect(html).toContain('value="Typed"');
    expect(html).toContain(`value="${identifier}"`);
    expect(html).toMatch(new RegExp(`name="insurer_secondary_id"[^>]*>[\\s\\S]*?<option value="${a}" selected=""`));
    expect(await db().select().from(patients).where(eq(patients.patientIdentifier, identifier))).toHaveLength(0);

    const p = await createPatient({ locationId: loc.id, insurerId: a, insurerSecondaryId: b });
    const edit = `/patients/list/edit/${p.id}`;
    const base = { intent: "save", patient_identifier: p.patientIdentifier, first_name: "Edited", last_name: p.lastName, status: "active", location_id: String(loc.id), version: "1" };
    const refused = await form(edit, { ...base, insurer_id: String(b), insurer_secondary_id: String(b) }, cookie);
    expect(refused.status).toBe(422);
    const page = await refused.text();
    expect(page).toContain("The secondary insurer must differ from the primary.");
    expect(page).toContain('value="Edited"');
    expect(await row(p.id)).toMatchObject({ firstName: p.firstName, insurerId: a, insurerSecondaryId: b, version: 1 });
    expect((await form(edit, { ...base, insurer_id: String(b), insurer_secondary_id: String(a) }, cookie)).status).toBe(303);
    expect(await row(p.id)).toMatchObject({ firstName: "Edited", insurerId: b, insurerSecondaryId: a, version: 2 });
  });

  it("screen: a client stored with an equal pair saves unchanged from its edit form", async () => {
    const p = await createPatient({ locationId: loc.id, insurerId: a, insurerSecondaryId: a });
    const edit = `/patients/list/edit/${p.id}`;
    expect((await request(edit, { cookie })).status).toBe(200);
    const saved = await form(edit, { intent: "save", patient_identifier: p.patientIdentifier, first_name: "Still", last_name: p.lastName, status: "active", location_id: String(loc.id), insurer_id: String(a), insurer_secondary_id: String(a), version: "1" }, cookie);
    expect(saved.status).toBe(303);
    expect(await row(p.id)).toMatchObject({ firstName: "Still", insurerId: a, insurerSecondaryId: a, version: 2 });
  });
});
