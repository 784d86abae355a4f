import { and, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, insuranceServices, insurances, paServices, patients, rateRecords, userRoles, users } from "~/db/schema";
import { addDays } from "~/domain/weeks";
import { verifyAuditChain } from "~/services/audit.server";
import { api, apiToken, createLocation, createParent, createPatient, createRole, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * An update's audit row says what changed (decision 019, 2026-11-28 stop 43; probe 9041 §1): for an employee, a PA
 * service and a client, the names of the fields the save changed, with the old and new values of those that decide
 * who may do what or what is billed, and only the name of any other field (the trail copies no personal or
 * clinical text). The detail is in the row's hash: the chain still holds.
 */

let seq = 0;
const uniq = () => `${Date.now().toString(36)}${++seq}`;
let w: { A: number; B: number; admin: number; token: string; cookie: string; rbt: { id: number; name: string }; manager: { id: number; name: string }; payer: number; payer2: number };

beforeAll(async () => {
  const A = (await createLocation()).id;
  const B = (await createLocation()).id;
  const admin = await createUser({ role: "ADMIN", locations: [A, B] });
  const rbt = await createRole(`RBT_${uniq()}`, []);
  const manager = await createRole(`MANAGER_${uniq()}`, ["manage_clients"]);
  const payer = async (name: string) => {
    const [i] = await db().insert(insurances).values({ name: `${name} ${uniq()}` }).returning();
    for (const cpt of ["97151", "97153"]) await db().insert(insuranceServices).values({ insuranceId: i!.id, cptCode: cpt, provider: "rbt", type: "rbt", unitPrice: 15 });
    return i!.id;
  };
  w = { A, B, admin: admin.id, token: await apiToken(admin), cookie: await signInCookie(admin), rbt: { id: rbt.id, name: rbt.name }, manager: { id: manager.id, name: manager.name }, payer: await payer("Sunshine"), payer2: await payer("Other") };
});

/** The newest `update` row of the record, with its detail parsed. */
async function updateRow(entity: string, id: number) {
  const [row] = await db()
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.entity, entity), eq(auditLog.entityId, String(id)), eq(auditLog.action, "update")))
    .orderBy(desc(auditLog.id))
    .limit(1);
  expect(row, `an update row of ${entity} #${id}`).toBeDefined();
  return { ...row!, parsed: JSON.parse(row!.detail ?? "null") as { changed: string[]; from?: Record<string, unknown>; to?: Record<string, unknown> } };
}

async function patch(path: string, body: Record<string, unknown>) {
  const res = await api(path, { method: "PATCH", token: w.token, body });
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
}

/** An employee at A holding the RBT role. */
async function employee() {
  const u = await createUser({ permissions: [], locations: [w.A], name: `Diego${uniq()}` });
  await db().delete(userRoles).where(eq(userRoles.userId, u.id));
  await db().insert(userRoles).values({ userId: u.id, roleId: w.rbt.id });
  return u.id;
}

describe("an employee's update row", () => {
  const cases: { name: string; body: () => Record<string, unknown>; changed: string[]; from?: () => Record<string, unknown>; to?: () => Record<string, unknown>; hidden?: string[] }[] = [
    {
      name: "a role granted: the roles before and after, with their names",
      body: () => ({ roles: [w.rbt.id, w.manager.id] }),
      changed: ["roles"],
      from: () => ({ roles: [w.rbt] }),
      to: () => ({ roles: [w.rbt, w.manager].sort((a, b) => a.id - b.id) }),
    },
    {
      name: "a location added: the location ids before and after",
      body: () => ({ locations: [w.A, w.B] }),
      changed: ["locations", "employment"],
      from: () => ({ locations: [w.A] }),
      to: () => ({ locations: [w.A, w.B].sort((a, b) => a - b) }),
    },
    { name: "made inactive: the status", body: () => ({ status: "inactive" }), changed: ["status"], from: () => ({ status: "active" }), to: () => ({ status: "inactive" }) },
    { name: "the phone: its name only", body: () => ({ phone: "305-555-0199" }), changed: ["phone"], hidden: ["305-555-0199"] },
    { name: "the profile's note: its name only", body: () => ({ note: "Private remark about Diego" }), changed: ["note"], hidden: ["Private remark"] },
  ];
  it.each(cases)("$name", async (c) => {
    const id = await employee();
    await patch(`/v2/employees/${id}`, c.body());
    const row = await updateRow("employee", id);
    expect(row.parsed.changed).toEqual(c.changed);
    expect(row.parsed.from).toEqual(c.from?.());
    expect(row.parsed.to).toEqual(c.to?.());
    for (const text of c.hidden ?? []) expect(row.detail).not.toContain(text);
  });

  it("a save that changes nothing writes no row (decision 017, stop 44: 'Nothing to change')", async () => {
    const id = await employee();
    const res = await api(`/v2/employees/${id}`, { method: "PATCH", token: w.token, body: { status: "active" } });
    expect(res.status).toBe(422);
    const rows = await db().select().from(auditLog).where(and(eq(auditLog.entity, "employee"), eq(auditLog.entityId, String(id)), eq(auditLog.action, "update")));
    expect(rows).toEqual([]);
  });

  it("the edit screen: a full form saved with MANAGER ticked names the roles alone (probe 9041 §1)", async () => {
    const form = (fields: Record<string, string | string[]>) => {
      const body = new URLSearchParams();
      for (const [k, x] of Object.entries(fields)) for (const v of Array.isArray(x) ? x : [x]) body.append(k, v);
      return body;
    };
    const post = (path: string, fields: Record<string, string | string[]>) => request(path, { method: "POST", body: form(fields), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    const email = `bea-${uniq()}@staff.test`;
    const fields = { intent: "save", name: "Bea", surname: "Ramos", email, phone: "305-555-0100", status: "active", roles: [String(w.rbt.id)], locations: [String(w.A)], [`emp_${w.A}_salary`]: "28.5", note: "Works mornings" };
    expect((await post("/doctors/add", { ...fields, ss_number: "987-65-4321", password: "form passphrase 1", password_confirmation: "form passphrase 1" })).status).toBe(303);
    const id = (await db().select({ id: users.id }).from(users).where(eq(users.email, email)))[0]!.id;
    const saved = await post(`/doctors/list/edit/${id}`, { ...fields, version: "1", roles: [String(w.rbt.id), String(w.manager.id)] });
    expect(saved.status).toBe(303);
    expect((await updateRow("employee", id)).parsed).toEqual({ changed: ["roles"], from: { roles: [w.rbt] }, to: { roles: [w.rbt, w.manager].sort((a, b) => a.id - b.id) } });
  });

  it("a role grant is in the logs report, screen and CSV", async () => {
    const id = await employee();
    await patch(`/v2/employees/${id}`, { roles: [w.rbt.id, w.manager.id] });
    const expected = `roles: [#${w.rbt.id} ${w.rbt.name}] → [${[w.rbt, w.manager].sort((a, b) => a.id - b.id).map((r) => `#${r.id} ${r.name}`).join(", ")}]`;
    const csv = await (await request(`/reports/logs/export.csv?action=update&per_page=100`, { cookie: w.cookie })).text();
    const line = csv.split("\n").find((l) => l.includes(`employee #${id}`));
    expect(line).toContain(expected);
    const html = (await (await request(`/reports/logs?action=update&per_page=100`, { cookie: w.cookie })).text()).replaceAll("&#x27;", "'");
    expect(html).toContain(expected);
    expect(csv.split(/\r?\n/)[0]).toBe("When,Who,Action,Record,Changes,Client,Clients named,Address,Entry");
  });
});

describe("a PA service's update row", () => {
  const day = (n: number) => addDays(new Date().toISOString().slice(0, 10), n);
  async function paService() {
    const patient = await createPatient({ locationId: w.A });
    const [pa] = await db()
      .insert(paServices)
      .values({ patientId: patient.id, paService: `Auth ${uniq()}`, cpt: "97153", nUnits: 960, startDate: day(-30), endDate: day(30), insuranceId: w.payer })
      .returning();
    return pa!.id;
  }
  const cases: { name: string; body: () => Record<string, unknown>; changed: string[]; from?: () => Record<string, unknown>; to?: () => Record<string, unknown>; hidden?: string[] }[] = [
    { name: "units cut 960 → 100", body: () => ({ n_units: 100 }), changed: ["n_units"], from: () => ({ n_units: 960 }), to: () => ({ n_units: 100 }) },
    { name: "the insurer removed", body: () => ({ insurance_id: null }), changed: ["insurance_id"], from: () => ({ insurance_id: w.payer }), to: () => ({ insurance_id: null }) },
    { name: "another insurer", body: () => ({ insurance_id: w.payer2 }), changed: ["insurance_id"], from: () => ({ insurance_id: w.payer }), to: () => ({ insurance_id: w.payer2 }) },
    { name: "the start date", body: () => ({ start_date: day(-10) }), changed: ["start_date"], from: () => ({ start_date: day(-30) }), to: () => ({ start_date: day(-10) }) },
    { name: "the end date", body: () => ({ end_date: day(60) }), changed: ["end_date"], from: () => ({ end_date: day(30) }), to: () => ({ end_date: day(60) }) },
    { name: "the CPT", body: () => ({ cpt: "97151" }), changed: ["cpt"], from: () => ({ cpt: "97153" }), to: () => ({ cpt: "97151" }) },
    { name: "the service's name: its name only", body: () => ({ pa_service: "Renamed authorization" }), changed: ["pa_service"], hidden: ["Renamed authorization"] },
  ];
  it.each(cases)("$name", async (c) => {
    const id = await paService();
    await patch(`/v2/pa-services/${id}`, c.body());
    const row = await updateRow("pa_service", id);
    expect(row.parsed.changed).toEqual(c.changed);
    expect(row.parsed.from).toEqual(c.from?.());
    expect(row.parsed.to).toEqual(c.to?.());
    for (const text of c.hidden ?? []) expect(row.detail).not.toContain(text);
  });
});

describe("a client's update row", () => {
  let parent: number;
  beforeAll(async () => {
    parent = (await createParent({ locationId: w.A })).id;
  });
  const cases: { name: string; body: () => Record<string, unknown>; changed: string[]; from?: () => Record<string, unknown>; to?: () => Record<string, unknown>; hidden?: string[] }[] = [
    { name: "a parent linked", body: () => ({ parent_id: parent }), changed: ["parent_id"], from: () => ({ parent_id: null }), to: () => ({ parent_id: parent }) },
    { name: "another location", body: () => ({ location_id: w.B }), changed: ["location_id"], from: () => ({ location_id: w.A }), to: () => ({ location_id: w.B }) },
    { name: "made inactive", body: () => ({ status: "inactive" }), changed: ["status"], from: () => ({ status: "active" }), to: () => ({ status: "inactive" }) },
    { name: "the primary insurer", body: () => ({ insurer_id: w.payer }), changed: ["insurer_id"], from: () => ({ insurer_id: null }), to: () => ({ insurer_id: w.payer }) },
    { name: "the secondary insurer", body: () => ({ insurer_secondary_id: w.payer2 }), changed: ["insurer_secondary_id"], from: () => ({ insurer_secondary_id: null }), to: () => ({ insurer_secondary_id: w.payer2 }) },
    { name: "the diagnosis code: its name only", body: () => ({ diagnosis_code: "F84.0" }), changed: ["diagnosis_code"], hidden: ["F84.0"] },
    { name: "a special note: its name only", body: () => ({ special_note: "Allergic to peanuts" }), changed: ["special_note"], hidden: ["peanuts"] },
    { name: "the first name: its name only", body: () => ({ first_name: "Zebulon" }), changed: ["first_name"], hidden: ["Zebulon"] },
  ];
  it.each(cases)("$name", async (c) => {
    const patient = await createPatient({ locationId: w.A });
    await patch(`/v2/patients/${patient.id}`, c.body());
    const row = await updateRow("patient", patient.id);
    expect(row.parsed.changed).toEqual(c.changed);
    expect(row.parsed.from).toEqual(c.from?.());
    expect(row.parsed.to).toEqual(c.to?.());
    for (const text of c.hidden ?? []) expect(row.detail).not.toContain(text);
  });

  it("the edit screen: a full form saved with a parent linked names the parent alone (probe 9041 §1)", async () => {
    const form = (fields: Record<string, string | string[]>) => {
      const body = new URLSearchParams();
      for (const [k, x] of Object.entries(fields)) for (const v of Array.isArray(x) ? x : [x]) body.append(k, v);
      return body;
    };
    const post = (path: string, fields: Record<string, string | string[]>) => request(path, { method: "POST", body: form(fields), cookie: w.cookie, headers: { "Content-Type": "application/x-www-form-urlencoded" } });
    const identifier = `P-${uniq()}`;
    const fields = { intent: "save", patient_identifier: identifier, first_name: "Nia", last_name: "Vega", status: "active", birth_date: "2018-04-02", location_id: String(w.A), pos_covered: ["03", "12"], telehealth: "true", special_note: "Likes trains", diagnosis_code: "F84.0", insurer_id: String(w.payer) };
    expect((await post("/patients/add", fields)).status).toBe(303);
    const [{ id }] = await db().select({ id: patients.id }).from(patients).where(eq(patients.patientIdentifier, identifier));
    expect((await post(`/patients/list/edit/${id}`, { ...fields, version: "1", parent_id: String(parent) })).status).toBe(303);
    expect((await updateRow("patient", id)).parsed).toEqual({ changed: ["parent_id"], from: { parent_id: null }, to: { parent_id: parent } });
  });

  it("a move keeps the future bookings' reason beside what changed, and the chain holds", async () => {
    const patient = await createPatient({ locationId: w.A });
    await patch(`/v2/patients/${patient.id}`, { location_id: w.B });
    expect((await updateRow("patient", patient.id)).parsed).toMatchObject({ changed: ["location_id"], cancelled_future_sessions: "client_moved" });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});


/**
 * The same for a settings save, a price, a parent, a rate record and a role (decision 019, 2026-11-29 stop 44; probe
 * 9043 §4, probe 9044 L3): switches, numbers, money, locations, statuses and permissions with their old and new values;
 * a parent's names, email and phones by name only.
 */
type Case = { name: string; body: () => Record<string, unknown>; changed: string[]; from?: () => Record<string, unknown>; to?: () => Record<string, unknown>; hidden?: string[]; also?: Record<string, unknown> };

async function expectRow(entity: string, id: number, c: Case) {
  const row = await updateRow(entity, id);
  expect(row.parsed.changed).toEqual(c.changed);
  expect(row.parsed.from).toEqual(c.from?.());
  expect(row.parsed.to).toEqual(c.to?.());
  if (c.also) expect(row.parsed).toMatchObject(c.also);
  for (const text of c.hidden ?? []) expect(row.detail).not.toContain(text);
  return row;
}

/** The logs report's Changes text of the newest row of the record, on the screen and in the CSV. */
async function logsShow(record: string, text: string, actor = w.admin) {
  const query = `action=update&actor_id=${actor}&per_page=100`;
  const csv = await (await request(`/reports/logs/export.csv?${query}`, { cookie: w.cookie })).text();
  expect(csv.split("\n").find((l) => l.includes(`${record},`))).toContain(text);
  const html = (await (await request(`/reports/logs?${query}`, { cookie: w.cookie })).text()).replaceAll("&#x27;", "'").replaceAll("&gt;", ">");
  expect(html).toContain(text);
}

describe("a settings save's row", () => {
  const fields = { intent: "save", code_expiry_minutes: "5", idle_minutes: "30", absolute_hours: "12", demo_mode: "true" };
  let superadmin: string;
  let superadminId: number;
  beforeAll(async () => {
    const user = await createUser({ role: "SUPERADMIN" });
    superadminId = user.id;
    superadmin = await signInCookie(user);
  });
  const newestSettingRow = async () => {
    const [row] = await db().select().from(auditLog).where(and(eq(auditLog.entity, "setting"), eq(auditLog.action, "update"))).orderBy(desc(auditLog.id)).limit(1);
    return { ...row!, parsed: JSON.parse(row!.detail ?? "null") as unknown };
  };
  const cases: [string, Record<string, string>, Record<string, string>, unknown][] = [
    [
      "the parent-portal narrative switched on",
      fields,
      { ...fields, portal_show_narrative: "true" },
      { changed: ["portal_show_narrative"], from: { portal_show_narrative: false }, to: { portal_show_narrative: true } },
    ],
    [
      "and off again",
      { ...fields, portal_show_narrative: "true" },
      fields,
      { changed: ["portal_show_narrative"], from: { portal_show_narrative: true }, to: { portal_show_narrative: false } },
    ],
    [
      "two numbers",
      fields,
      { ...fields, idle_minutes: "45", absolute_hours: "8" },
      { changed: ["session_idle_minutes", "session_absolute_hours"], from: { session_idle_minutes: 30, session_absolute_hours: 12 }, to: { session_idle_minutes: 45, session_absolute_hours: 8 } },
    ],
  ];
  it.each(cases)("%s: the keys with their old and new values", async (_name, start, save, detail) => {
    expect((await form("/settings", start, superadmin)).status).toBe(303);
    expect((await form("/settings", save, superadmin)).status).toBe(303);
    expect((await newestSettingRow()).parsed).toEqual(detail);
    expect((await form("/settings", fields, superadmin)).status).toBe(303);
  });

  it("the logs report shows the switch going on and off", async () => {
    expect((await form("/settings", { ...fields, portal_show_narrative: "true" }, superadmin)).status).toBe(303);
    await logsShow("setting #portal_show_narrative", "portal_show_narrative: false → true", superadminId);
    expect((await form("/settings", fields, superadmin)).status).toBe(303);
    await logsShow("setting #portal_show_narrative", "portal_show_narrative: true → false", superadminId);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("a price's update row", () => {
  /** A price of its own insurer (so a new code or location is never another price's twin): 97153, rbt, 17.25. */
  async function price() {
    const [i] = await db().insert(insurances).values({ name: `Prices ${uniq()}` }).returning();
    const [s] = await db().insert(insuranceServices).values({ insuranceId: i!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 17.25, description: "Direct therapy" }).returning();
    return { id: s!.id, insurer: i!.id };
  }
  const cases: Case[] = [
    { name: "the unit price 17.25 → 20.00", body: () => ({ unit_price: "20.00" }), changed: ["unit_price"], from: () => ({ unit_price: 17.25 }), to: () => ({ unit_price: 20 }) },
    { name: "the multiplier", body: () => ({ multiplier: 1.5 }), changed: ["multiplier"], from: () => ({ multiplier: 1 }), to: () => ({ multiplier: 1.5 }) },
    { name: "a maximum per day", body: () => ({ max_per_day: 8 }), changed: ["max_per_day"], from: () => ({ max_per_day: null }), to: () => ({ max_per_day: 8 }) },
    { name: "the code", body: () => ({ code: "97155" }), changed: ["code"], from: () => ({ code: "97153" }), to: () => ({ code: "97155" }) },
    { name: "the provider (and so the type)", body: () => ({ provider: "bcba" }), changed: ["provider", "type"], from: () => ({ provider: "rbt", type: "rbt" }), to: () => ({ provider: "bcba", type: "bcba" }) },
    { name: "a location", body: () => ({ location_id: w.A }), changed: ["location_id"], from: () => ({ location_id: null }), to: () => ({ location_id: w.A }) },
    { name: "the description: its name only", body: () => ({ description: "Renamed therapy line" }), changed: ["description"], hidden: ["Renamed therapy line"] },
  ];
  it.each(cases)("$name", async (c) => {
    const { id, insurer } = await price();
    const res = await api(`/insurance/update/service/${id}`, { method: "PATCH", token: w.token, body: c.body() });
    expect(res.status, await res.clone().text()).toBe(200);
    // The insurer stays named beside the change.
    await expectRow("insurance_service", id, { ...c, also: { insurance_id: insurer } });
  });

  it("the logs report shows the old and new price", async () => {
    const { id } = await price();
    expect((await api(`/insurance/update/service/${id}`, { method: "PATCH", token: w.token, body: { unit_price: "20.00" } })).status).toBe(200);
    await logsShow(`insurance_service #${id}`, "unit_price: 17.25 → 20");
  });
});

describe("a parent's update row", () => {
  const cases: Case[] = [
    { name: "another location (who sees the family)", body: () => ({ location_id: w.B }), changed: ["location_id"], from: () => ({ location_id: w.A }), to: () => ({ location_id: w.B }) },
    { name: "no location", body: () => ({ location_id: null }), changed: ["location_id"], from: () => ({ location_id: w.A }), to: () => ({ location_id: null }) },
    { name: "made inactive", body: () => ({ status: "inactive" }), changed: ["status"], from: () => ({ status: "active" }), to: () => ({ status: "inactive" }) },
    { name: "the email: its name only", body: () => ({ email: "rosa.new@family.test" }), changed: ["email"], hidden: ["rosa.new"] },
    { name: "the phone and surname: their names only", body: () => ({ phone: "305-555-0142", surname: "Quintanilla" }), changed: ["surname", "phone"], hidden: ["555-0142", "Quintanilla"] },
    { name: "a password: named, never copied", body: () => ({ password: "a family passphrase 7", password_confirmation: "a family passphrase 7" }), changed: ["password"], hidden: ["passphrase"], also: { password: "set" } },
  ];
  it.each(cases)("$name", async (c) => {
    const parent = await createParent({ locationId: w.A });
    await patch(`/v2/parents/${parent.id}`, c.body());
    await expectRow("parent", parent.id, c);
  });

  it("the logs report shows the move", async () => {
    const parent = await createParent({ locationId: w.A });
    await patch(`/v2/parents/${parent.id}`, { location_id: w.B });
    await logsShow(`parent #${parent.id}`, `location_id: ${w.A} → ${w.B}`);
  });
});

describe("a rate record's update row", () => {
  async function rateRecord() {
    const [r] = await db().insert(rateRecords).values({ name: `Standard ${uniq()}`, locationId: w.A, rbt: 21, bcba: 50 }).returning();
    return r!.id;
  }
  const cases: Case[] = [
    { name: "the RBT amount 21 → 35, with its date", body: () => ({ rbt: 35 }), changed: ["rbt"], from: () => ({ rbt: 21 }), to: () => ({ rbt: 35 }), also: { effective_from: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/) } },
    { name: "two amounts, one cleared", body: () => ({ bcba: null, manager: 40 }), changed: ["bcba", "manager"], from: () => ({ bcba: 50, manager: null }), to: () => ({ bcba: null, manager: 40 }) },
    { name: "another location", body: () => ({ location_id: w.B }), changed: ["location_id"], from: () => ({ location_id: w.A }), to: () => ({ location_id: w.B }) },
    { name: "the name: its name only, no date", body: () => ({ name: "Weekend premium" }), changed: ["name"], hidden: ["Weekend premium", "effective_from"] },
    { name: "the info lists: their name only", body: () => ({ info: { rbt: ["Bonus for Saturdays"], bcba: [], manager: [] } }), changed: ["info"], hidden: ["Saturdays"] },
  ];
  it.each(cases)("$name", async (c) => {
    const id = await rateRecord();
    await patch(`/v2/rate-records/${id}`, c.body());
    await expectRow("rate_record", id, c);
  });

  it("the logs report shows the old and new amount", async () => {
    const id = await rateRecord();
    await patch(`/v2/rate-records/${id}`, { rbt: 35 });
    await logsShow(`rate_record #${id}`, "rbt: 21 → 35");
  });
});

describe("a role's update row", () => {
  const role = async (permissions: string[]) => (await createRole(`CUSTOM_${uniq()}`, permissions)).id;
  const cases: (Case & { start: string[] })[] = [
    {
      name: "a permission granted: the set before and after",
      start: ["view_clients"],
      body: () => ({ permissions: ["view_clients", "manage_employees"] }),
      changed: ["permissions"],
      from: () => ({ permissions: ["view_clients"] }),
      to: () => ({ permissions: ["manage_employees", "view_clients"] }),
    },
    {
      name: "a permission removed",
      start: ["manage_clients", "view_clients"],
      body: () => ({ permissions: ["view_clients"] }),
      changed: ["permissions"],
      from: () => ({ permissions: ["manage_clients", "view_clients"] }),
      to: () => ({ permissions: ["view_clients"] }),
    },
    { name: "every permission removed", start: ["view_notes"], body: () => ({ permissions: [] }), changed: ["permissions"], from: () => ({ permissions: ["view_notes"] }), to: () => ({ permissions: [] }) },
  ];
  it.each(cases)("$name", async (c) => {
    const id = await role(c.start);
    await patch(`/v2/roles/${id}`, c.body());
    await expectRow("role", id, c);
  });

  it("the same set in another order changes nothing: 422 'Nothing to change', no row (decision 017, stop 44)", async () => {
    const id = await role(["view_clients", "view_notes"]);
    const res = await api(`/v2/roles/${id}`, { method: "PATCH", token: w.token, body: { permissions: ["view_notes", "view_clients"] } });
    expect(res.status).toBe(422);
    const rows = await db().select().from(auditLog).where(and(eq(auditLog.entity, "role"), eq(auditLog.entityId, String(id)), eq(auditLog.action, "update")));
    expect(rows).toHaveLength(0);
  });

  it("renamed: the old and new name", async () => {
    const id = await role(["view_clients"]);
    const name = `RENAMED_${uniq()}`;
    const stored = (await (await api(`/v2/roles/${id}`, { token: w.token })).json()) as { data: { name: string } };
    await patch(`/v2/roles/${id}`, { name });
    await expectRow("role", id, { name: "renamed", body: () => ({}), changed: ["name"], from: () => ({ name: stored.data.name }), to: () => ({ name }) });
  });

  it("the logs report shows the grant", async () => {
    const id = await role(["view_clients"]);
    await patch(`/v2/roles/${id}`, { permissions: ["view_clients", "manage_employees"] });
    await logsShow(`role #${id}`, "permissions: [view_clients] → [manage_employees, view_clients]");
  });
});
