import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insurances, parents, patients, rateRecords, roles, userLocations, userRoles, users } from "~/db/schema";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { createEmployee, getEmployee, updateEmployee, updateEmployeeStatus } from "~/models/employees.server";
import { createParent, findParent, updateParent } from "~/models/parents.server";
import { findPatient, patientAsInput, updatePatient } from "~/models/patients.server";
import { createRateRecord, getRateRecord, updateRateRecord } from "~/models/rate-records.server";
import { getRole, updateRole } from "~/models/roles.server";
import { verifyAuditChain } from "~/services/audit.server";
import { emailSenderFor } from "~/services/email.server";
import { beforeWriteDb, countingDb, createLocation, createParent as createParentRow, createPatient, createRole, createUser, db, emailTo } from "./helpers";

/**
 * An administrator's saves of an employee, a parent, a client, a role or a rate record cost at most two D1 round trips
 * inside the model (one read batch, one write batch that reads the saved record back), so a request stays within three
 * with the guard's session read (decision 043, stops 36 and 37). A save that changes neither roles nor locations leaves
 * their rows and the employee's bookings alone.
 */

let n = 0;
const uniq = () => `${Date.now().toString(36)}${++n}`;
const app = { env, email: emailSenderFor(env, db()) };

async function adminSetup() {
  const loc = await createLocation();
  const other = await createLocation();
  const role = await createRole(`RBT_${uniq()}`, []);
  const otherRole = await createRole(`BT_${uniq()}`, []);
  const me = await createUser({ permissions: ["manage_employees", "manage_parents"], locations: [loc.id, other.id] });
  const actor = (await getUserActor(db(), me.id))!;
  const ctx = (database = db()): ModelContext => ({ db: database, actor, ip: "203.0.113.9", now: () => new Date() });
  const created = await createEmployee(
    ctx(),
    {
      name: "Ana",
      surname: "Lopez",
      email: `ana-${uniq()}@staff.test`,
      phone: "305-555-0100",
      status: "active",
      roles: [role.id],
      locations: [loc.id],
      npi: "9988776651",
      ss_number: "123-45-6789",
      employment: [{ location_id: loc.id, position_id: 2, salary: 30, telehealth_salary: 25, fixed_hours_salary: null, fixed_weekly_hours: 40, cpr_every_2_years: "2027-06-01" }],
      password: "a strong passphrase",
      password_confirmation: "a strong passphrase",
    },
    env.PASSWORD_PEPPER ?? "",
  );
  if (!created.ok) throw new Error(JSON.stringify(created));
  return { loc, other, role, otherRole, ctx, employee: created.data };
}

type Setup = Awaited<ReturnType<typeof adminSetup>>;

interface Case {
  name: string;
  /** The save, on a context whose database counts round trips. */
  save: (s: Setup, ctx: ModelContext) => Promise<{ ok: boolean }>;
  /** What the user sees afterwards. */
  check: (s: Setup) => Promise<void>;
  /** Tables the save must not write (a phone-only save rewrites no memberships). */
  untouched?: RegExp[];
}

const UNTOUCHED_MEMBERSHIPS = [/^delete from "user_roles"/i, /^insert into "user_roles" \("user_id", "role_id"\) values/i, /^delete from "user_locations"/i, /^insert into "user_locations"/i, /^update "scheduled_sessions"/i];

const cases: Case[] = [
  {
    name: "an employee's phone alone (PATCH)",
    save: (s, ctx) => updateEmployee(ctx, s.employee.id, { phone: "305-555-0199" }, { partial: true, version: null, app }),
    check: async (s) => {
      const e = (await getEmployee(s.ctx(), s.employee.id))!;
      expect(e.phone).toBe("305-555-0199");
      expect(e.roles.map((r) => r.id)).toEqual([s.role.id]);
      expect(e.locations.map((l) => [l.id, l.salary, l.fixed_weekly_hours, l.compliance.cpr_every_2_years])).toEqual([[s.loc.id, 30, 40, "2027-06-01"]]);
    },
    untouched: UNTOUCHED_MEMBERSHIPS,
  },
  {
    name: "an employee's whole record sent back as read, with a new phone (PUT, the screen)",
    save: async (s, ctx) => {
      const e = (await getEmployee(s.ctx(), s.employee.id))!;
      const { id: _i, version, created_at: _c, full_name: _f, avatar: _a, two_factor_enabled: _t, roles, locations, ...rest } = e;
      const body = {
        ...rest,
        phone: "305-555-0177",
        roles: roles.map((r) => r.id),
        locations: locations.map((l) => l.id),
        employment: locations.map((l) => ({ location_id: l.id, position_id: l.position_id, salary: l.salary, telehealth_salary: l.telehealth_salary, fixed_hours_salary: l.fixed_hours_salary, fixed_weekly_hours: l.fixed_weekly_hours, ...l.compliance })),
      };
      return updateEmployee(ctx, s.employee.id, body, { partial: false, version, app });
    },
    check: async (s) => expect((await getEmployee(s.ctx(), s.employee.id))!.phone).toBe("305-555-0177"),
    untouched: UNTOUCHED_MEMBERSHIPS,
  },
  {
    name: "an employee's roles and locations",
    save: (s, ctx) => updateEmployee(ctx, s.employee.id, { roles: [s.otherRole.id], locations: [s.loc.id, s.other.id] }, { partial: true, version: null, app }),
    check: async (s) => {
      const e = (await getEmployee(s.ctx(), s.employee.id))!;
      expect(e.roles.map((r) => r.id)).toEqual([s.otherRole.id]);
      expect(e.locations.map((l) => l.id).sort()).toEqual([s.loc.id, s.other.id].sort());
      // The kept location keeps its pay (decision 017).
      expect(e.locations.find((l) => l.id === s.loc.id)?.salary).toBe(30);
    },
  },
  {
    name: "an employee's pay at a location",
    save: (s, ctx) => updateEmployee(ctx, s.employee.id, { employment: [{ location_id: s.loc.id, salary: 35, fixed_weekly_hours: 40 }] }, { partial: true, version: null, app }),
    check: async (s) => expect((await getEmployee(s.ctx(), s.employee.id))!.locations[0]!.salary).toBe(35),
  },
  {
    name: "an employee's email (the old address gets the notice)",
    save: (s, ctx) => updateEmployee(ctx, s.employee.id, { email: `new-${uniq()}@staff.test` }, { partial: true, version: null, app }),
    check: async (s) => {
      expect((await getEmployee(s.ctx(), s.employee.id))!.email).toMatch(/^new-/);
      expect((await emailTo(s.employee.email, /Your sign-in email was changed/))?.subject).toBe("Baseline security notice: Your sign-in email was changed");
    },
  },
  {
    name: "an employee's status",
    save: (s, ctx) => updateEmployeeStatus(ctx, s.employee.id, { status: "inactive" }),
    check: async (s) => expect((await getEmployee(s.ctx(), s.employee.id))!.status).toBe("inactive"),
  },
  {
    name: "a new parent",
    save: (s, ctx) => createParent(ctx, { name: "Rosa", surname: "Diaz", email: `rosa-${uniq()}@family.test`, phone: "305-555-0111", status: "active", location_id: s.loc.id }),
    check: async () => {},
  },
  {
    name: "a parent's phone alone (PATCH)",
    save: async (s, ctx) => {
      const p = await createParent(s.ctx(), { name: "Luis", surname: "Diaz", email: `luis-${uniq()}@family.test`, status: "active", location_id: s.loc.id });
      if (!p.ok) throw new Error(JSON.stringify(p));
      (s as Setup & { parentId?: number }).parentId = p.data.id;
      return updateParent(ctx, p.data.id, { phone: "305-555-0122" }, { partial: true, version: null, app });
    },
    check: async (s) => expect((await findParent(s.ctx(), (s as Setup & { parentId?: number }).parentId!))!.phone).toBe("305-555-0122"),
  },
  {
    name: "a parent's email and location",
    save: async (s, ctx) => {
      const p = await createParent(s.ctx(), { name: "Eva", surname: "Diaz", email: `eva-${uniq()}@family.test`, status: "active", location_id: s.loc.id });
      if (!p.ok) throw new Error(JSON.stringify(p));
      (s as Setup & { parentId?: number }).parentId = p.data.id;
      return updateParent(ctx, p.data.id, { email: `eva2-${uniq()}@family.test`, location_id: s.other.id }, { partial: true, version: p.data.version, app });
    },
    check: async (s) => {
      const p = (await findParent(s.ctx(), (s as Setup & { parentId?: number }).parentId!))!;
      expect(p.email).toMatch(/^eva2-/);
      expect(p.location_id).toBe(s.other.id);
    },
  },
];

describe("an administrator's save is at most two D1 round trips inside the model", () => {
  it.each(cases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const s = await adminSetup();
    const counting = countingDb();
    const result = await c.save(s, s.ctx(counting.db));
    expect(result).toMatchObject({ ok: true });
    // Records a case needs beforehand are made on the plain database: only the save itself is counted.
    expect(counting.roundTrips()).toBeLessThanOrEqual(2);
    for (const pattern of c.untouched ?? []) expect(counting.queries().filter((q) => pattern.test(q))).toEqual([]);
    await c.check(s);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });

  it("a phone-only save keeps the employee's role and membership rows as they were", async () => {
    const s = await adminSetup();
    const before = await db().select().from(userLocations).where(eq(userLocations.userId, s.employee.id));
    const rolesBefore = await db().select().from(userRoles).where(eq(userRoles.userId, s.employee.id));
    const r = await updateEmployee(s.ctx(), s.employee.id, { phone: "305-555-0150" }, { partial: true, version: null, app });
    expect(r).toMatchObject({ ok: true, data: { phone: "305-555-0150", version: s.employee.version + 1 } });
    expect(await db().select().from(userLocations).where(eq(userLocations.userId, s.employee.id))).toEqual(before);
    expect(await db().select().from(userRoles).where(eq(userRoles.userId, s.employee.id))).toEqual(rolesBefore);
  });

  it("the rules still answer as before: a stale version 409, a taken email 422 (employee and parent)", async () => {
    const s = await adminSetup();
    const stale = await updateEmployee(s.ctx(), s.employee.id, { phone: "305-555-0160" }, { partial: true, version: s.employee.version + 5, app });
    expect(stale).toMatchObject({ ok: false, status: 409 });
    const someone = await createUser({ locations: [s.loc.id] });
    const taken = await updateEmployee(s.ctx(), s.employee.id, { email: someone.email.toUpperCase() }, { partial: true, version: null, app });
    expect(taken).toMatchObject({ ok: false, status: 422, errors: { email: "An employee with this email already exists." } });
    const [stored] = await db().select({ phone: users.phone, email: users.email }).from(users).where(eq(users.id, s.employee.id));
    expect(stored).toEqual({ phone: "305-555-0100", email: s.employee.email });
    const a = await createParent(s.ctx(), { name: "A", surname: "P", email: `a-${uniq()}@family.test`, status: "active", location_id: s.loc.id });
    const b = await createParent(s.ctx(), { name: "B", surname: "P", email: `b-${uniq()}@family.test`, status: "active", location_id: s.loc.id });
    if (!a.ok || !b.ok) throw new Error("parents");
    expect(await createParent(s.ctx(), { name: "C", surname: "P", email: a.data.email, status: "active", location_id: s.loc.id })).toMatchObject({ ok: false, status: 422, errors: { email: "This email is already in use." } });
    expect(await updateParent(s.ctx(), b.data.id, { email: a.data.email }, { partial: true, version: null, app })).toMatchObject({ ok: false, status: 422, errors: { email: "This email is already in use." } });
    expect(await updateParent(s.ctx(), b.data.id, { phone: "305-555-0133" }, { partial: true, version: b.data.version + 3, app })).toMatchObject({ ok: false, status: 409 });
    const [pb] = await db().select({ email: parents.email }).from(parents).where(eq(parents.id, b.data.id));
    expect(pb!.email).toBe(b.data.email);
  });
});

/** A client with every kind of link (location, parent, insurers, staff), a role held at a location, and a rate record. */
async function recordSetup() {
  const loc = await createLocation();
  const other = await createLocation();
  const [payer] = await db().insert(insurances).values({ name: `Payer ${uniq()}` }).returning();
  const [payer2] = await db().insert(insurances).values({ name: `Payer ${uniq()}` }).returning();
  const rbt = await createUser({ locations: [loc.id] });
  const rbtThere = await createUser({ locations: [other.id] });
  const bcbaThere = await createUser({ locations: [other.id] });
  const parent = await createParentRow({ locationId: loc.id });
  const parentThere = await createParentRow({ locationId: other.id });
  const client = await createPatient({ locationId: loc.id, parentId: parent.id, insurerId: payer!.id, rbtHomeId: rbt.id });
  const me = await createUser({ permissions: ["manage_clients", "view_clients", "manage_roles", "manage_insurances", "view_notes"], locations: [loc.id, other.id] });
  const actor = (await getUserActor(db(), me.id))!;
  const ctx = (database = db()): ModelContext => ({ db: database, actor, ip: "203.0.113.9", now: () => new Date() });
  // A role someone holds at one of the actor's locations: a change of its permissions checks the holders' locations.
  const role = await createRole(`TECH_${uniq()}`, ["view_notes"]);
  await db().insert(userRoles).values({ userId: rbt.id, roleId: role.id });
  const rates = await createRateRecord(ctx(), { name: `Rates ${uniq()}`, location_id: loc.id, rbt: 20, bcba: 45, info: { rbt: ["Per hour"], bcba: [], manager: [] } });
  if (!rates.ok) throw new Error(JSON.stringify(rates));
  return { loc, other, payer: payer!, payer2: payer2!, rbt, rbtThere, bcbaThere, parentThere, client, role, rates: rates.data, ctx };
}

type RecordSetup = Awaited<ReturnType<typeof recordSetup>>;

interface RecordCase {
  name: string;
  save: (s: RecordSetup, ctx: ModelContext) => Promise<{ ok: boolean; status?: number }>;
  /** What the save answers (ok, or a 409 for a stale version). */
  expected?: Record<string, unknown>;
  check: (s: RecordSetup) => Promise<void>;
}

async function clientAsRead(s: RecordSetup) {
  const p = (await findPatient(s.ctx(), s.client.id))!;
  return { p, body: patientAsInput(p) };
}

const recordCases: RecordCase[] = [
  {
    name: "a client's phone alone (PATCH)",
    save: (s, ctx) => updatePatient(ctx, s.client.id, { phone: "305-555-0144" }, { partial: true, version: null }),
    check: async (s) => {
      const p = (await findPatient(s.ctx(), s.client.id))!;
      expect([p.phone, p.parent_id, p.insurer_id, p.rbt_home_id]).toEqual(["305-555-0144", s.client.parentId, s.payer.id, s.rbt.id]);
    },
  },
  {
    name: "a client's whole record sent back as read, with a new first name (PUT, the screen)",
    save: async (s, ctx) => {
      const { p, body } = await clientAsRead(s);
      return updatePatient(ctx, s.client.id, { ...body, first_name: "Robin" }, { partial: false, version: p.version });
    },
    check: async (s) => expect((await findPatient(s.ctx(), s.client.id))!.first_name).toBe("Robin"),
  },
  {
    name: "a client's new identifier, second insurer and staff",
    save: (s, ctx) =>
      updatePatient(ctx, s.client.id, { patient_identifier: `NEW-${uniq()}`, insurer_secondary_id: String(s.payer2.id), bcba_home_id: s.rbt.id }, { partial: true, version: null }),
    check: async (s) => {
      const p = (await findPatient(s.ctx(), s.client.id))!;
      expect([p.patient_identifier.startsWith("NEW-"), p.insurer_secondary_id, p.bcba_home_id]).toEqual([true, s.payer2.id, s.rbt.id]);
    },
  },
  {
    name: "a client's move to another location, with its staff and parent there",
    save: (s, ctx) =>
      updatePatient(ctx, s.client.id, { location_id: String(s.other.id), rbt_home_id: String(s.rbtThere.id), bcba_home_id: s.bcbaThere.id, parent_id: s.parentThere.id }, { partial: true, version: null }),
    check: async (s) => {
      const p = (await findPatient(s.ctx(), s.client.id))!;
      expect([p.location_id, p.rbt_home_id, p.bcba_home_id, p.parent_id]).toEqual([s.other.id, s.rbtThere.id, s.bcbaThere.id, s.parentThere.id]);
    },
  },
  {
    name: "a client's save on a stale version (409, nothing written)",
    save: async (s, ctx) => updatePatient(ctx, s.client.id, { phone: "305-555-0145" }, { partial: true, version: s.client.version + 4 }),
    expected: { ok: false, status: 409 },
    check: async (s) => expect((await findPatient(s.ctx(), s.client.id))!.version).toBe(s.client.version),
  },
  {
    name: "a role's name and permissions (PUT, the screen)",
    save: async (s, ctx) => {
      const r = (await getRole(s.ctx(), s.role.id))!;
      return updateRole(ctx, s.role.id, { name: `TECH2_${uniq()}`, permissions: ["view_notes", "view_clients"] }, { partial: false, version: r.version });
    },
    check: async (s) => {
      const r = (await getRole(s.ctx(), s.role.id))!;
      expect([r.name.startsWith("TECH2_"), [...r.permissions].sort(), r.users]).toEqual([true, ["view_clients", "view_notes"], 1]);
    },
  },
  {
    name: "a role's permissions alone (PATCH)",
    save: (s, ctx) => updateRole(ctx, s.role.id, { permissions: ["view_clients"] }, { partial: true, version: null }),
    check: async (s) => expect((await getRole(s.ctx(), s.role.id))!.permissions).toEqual(["view_clients"]),
  },
  {
    name: "a role's save on a stale version (409)",
    save: (s, ctx) => updateRole(ctx, s.role.id, { permissions: ["view_clients"] }, { partial: true, version: s.role.version + 3 }),
    expected: { ok: false, status: 409 },
    check: async (s) => expect((await getRole(s.ctx(), s.role.id))!.permissions).toEqual(["view_notes"]),
  },
  {
    name: "a rate record's RBT amount (PATCH)",
    save: (s, ctx) => updateRateRecord(ctx, s.rates.id, { rbt: 22.5 }, { partial: true, version: null }),
    check: async (s) => expect((await getRateRecord(s.ctx(), s.rates.id))!.rbt).toBe(22.5),
  },
  {
    name: "a rate record moved to another location (PUT, the screen)",
    save: (s, ctx) =>
      updateRateRecord(ctx, s.rates.id, { name: s.rates.name, location_id: String(s.other.id), rbt: "21", bcba: "45", info: { rbt: ["Per hour"], bcba: [], manager: [] } }, { partial: false, version: s.rates.version }),
    check: async (s) => expect((await getRateRecord(s.ctx(), s.rates.id))!.location_id).toBe(s.other.id),
  },
  {
    name: "a rate record's save on a stale version (409 with the stored values)",
    save: (s, ctx) => updateRateRecord(ctx, s.rates.id, { rbt: 30 }, { partial: true, version: s.rates.version + 2 }),
    expected: { ok: false, status: 409 },
    check: async (s) => expect((await getRateRecord(s.ctx(), s.rates.id))!.rbt).toBe(20),
  },
];

describe("a client, role or rate record save is at most two D1 round trips inside the model", () => {
  it.each(recordCases.map((c) => [c.name, c] as const))("%s", async (_name, c) => {
    const s = await recordSetup();
    const counting = countingDb();
    const result = await c.save(s, s.ctx(counting.db));
    expect(result).toMatchObject(c.expected ?? { ok: true });
    expect(counting.roundTrips()).toBeLessThanOrEqual(2);
    await c.check(s);
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});

describe("read ahead in one batch, a client, role or rate record save answers every rule as before", () => {
  it.each([
    ["an employee of another location as RBT", (s: RecordSetup) => ({ rbt_home_id: String(s.rbtThere.id) }), { rbt_home_id: "Choose an employee of the client's location." }],
    ["an inactive employee as BCBA", (s: RecordSetup & { inactive: number }) => ({ bcba_home_id: s.inactive }), { bcba_home_id: "This employee is inactive: choose an active employee." }],
    ["a deleted insurer", (s: RecordSetup & { deletedPayer: number }) => ({ insurer_secondary_id: s.deletedPayer }), { insurer_secondary_id: "Choose an insurer from the list." }],
    ["a parent of a location the editor does not see", (s: RecordSetup & { hiddenParent: number }) => ({ parent_id: s.hiddenParent }), { parent_id: "Choose a parent from the list." }],
    ["a location the editor does not see", (s: RecordSetup & { hidden: number }) => ({ location_id: s.hidden }), { location_id: "Choose one of your locations." }],
    ["a move whose stored RBT does not work at the new location", (s: RecordSetup) => ({ location_id: s.other.id }), { rbt_home_id: "Choose an employee of the client's location." }],
    ["another client's identifier in another letter case", (s: RecordSetup & { takenIdentifier: string }) => ({ patient_identifier: s.takenIdentifier.toLowerCase() }), { patient_identifier: "This patient identifier is already in use." }],
  ] as const)("a client: %s (422, one round trip, nothing written)", async (_name, body, errors) => {
    const s = await recordSetup();
    const hidden = await createLocation();
    const inactive = await createUser({ locations: [s.loc.id], status: "inactive" });
    const [gone] = await db().insert(insurances).values({ name: `Gone ${uniq()}`, deletedAt: new Date().toISOString() }).returning();
    const hiddenParent = await createParentRow({ locationId: hidden.id });
    const taken = await createPatient({ locationId: s.loc.id, patientIdentifier: `TAKEN-${uniq()}` });
    const extra = { inactive: inactive.id, deletedPayer: gone!.id, hiddenParent: hiddenParent.id, hidden: hidden.id, takenIdentifier: taken.patientIdentifier };
    const counting = countingDb();
    const r = await updatePatient(s.ctx(counting.db), s.client.id, (body as (x: typeof s & typeof extra) => Record<string, unknown>)({ ...s, ...extra }), { partial: true, version: null });
    expect(r).toMatchObject({ ok: false, status: 422, errors });
    expect(counting.roundTrips()).toBe(1);
    expect((await findPatient(s.ctx(), s.client.id))!.version).toBe(s.client.version);
  });

  it("a role: a taken name (any case) 422; a permission change by an editor who does not cover every holder's location 403", async () => {
    const s = await recordSetup();
    const taken = await createRole(`Taken_${uniq()}`, []);
    expect(await updateRole(s.ctx(), s.role.id, { name: taken.name.toLowerCase() }, { partial: true, version: null })).toMatchObject({ ok: false, status: 422, errors: { name: "A role with this name already exists." } });
    const elsewhere = await createLocation();
    const holder = await createUser({ locations: [elsewhere.id] });
    await db().insert(userRoles).values({ userId: holder.id, roleId: s.role.id });
    expect(await updateRole(s.ctx(), s.role.id, { permissions: ["view_clients"] }, { partial: true, version: null })).toMatchObject({ ok: false, status: 403 });
    // Its name may still change (decision 015, stop 24).
    expect(await updateRole(s.ctx(), s.role.id, { name: `Renamed_${uniq()}` }, { partial: true, version: null })).toMatchObject({ ok: true, data: { permissions: ["view_notes"], users: 2 } });
  });

  it("a rate record: a location the editor does not see, or a deleted one, 422", async () => {
    const s = await recordSetup();
    const hidden = await createLocation();
    const closed = await createLocation({ deletedAt: new Date().toISOString() });
    for (const location of [hidden.id, String(closed.id)])
      expect(await updateRateRecord(s.ctx(), s.rates.id, { location_id: location }, { partial: true, version: null })).toMatchObject({ ok: false, status: 422, errors: { location_id: "Choose a valid option." } });
    expect((await getRateRecord(s.ctx(), s.rates.id))!.location_id).toBe(s.loc.id);
  });

  it("another save landing between the read and the write: 409 with that save's values, from the write batch's read-back", async () => {
    const s = await recordSetup();
    const racingClient = beforeWriteDb(() => db().update(patients).set({ firstName: "Racer", version: s.client.version + 1 }).where(eq(patients.id, s.client.id)), 1);
    expect(await updatePatient(s.ctx(racingClient), s.client.id, { first_name: "Mine" }, { partial: true, version: s.client.version })).toMatchObject({ ok: false, status: 409, current: { first_name: "Racer" } });
    const racingRole = beforeWriteDb(() => db().update(roles).set({ permissions: JSON.stringify(["view_clients"]), version: s.role.version + 1 }).where(eq(roles.id, s.role.id)), 1);
    expect(await updateRole(s.ctx(racingRole), s.role.id, { permissions: ["view_notes", "view_clients"] }, { partial: true, version: s.role.version })).toMatchObject({ ok: false, status: 409, current: { permissions: ["view_clients"] } });
    const racingRates = beforeWriteDb(() => db().update(rateRecords).set({ rbt: 99, version: s.rates.version + 1 }).where(eq(rateRecords.id, s.rates.id)), 1);
    expect(await updateRateRecord(s.ctx(racingRates), s.rates.id, { rbt: 21 }, { partial: true, version: s.rates.version })).toMatchObject({ ok: false, status: 409, current: { rbt: 99 } });
    expect((await verifyAuditChain(db())).ok).toBe(true);
  });
});
