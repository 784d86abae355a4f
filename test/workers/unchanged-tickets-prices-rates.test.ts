import { and, asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, insurances, insuranceServices, rateRecordAmounts } from "~/db/schema";
import { getUserActor } from "~/models/actors.server";
import { updateTicket } from "~/models/tickets.server";
import { api, apiToken, createLocation, createUser, db, form, request, signInCookie, type TestUser } from "./helpers";

/**
 * "Nothing to change" for tickets, insurer prices and rate records (decision 017, stop 44's rule, applied at stop 45):
 * an update (API PUT/PATCH, or a screen's save) that sends back what is stored answers 422 "Nothing to change", writes
 * nothing, adds no audit row and keeps the version, so a client that sends back a record it read does not make another
 * client's next save stale; a screen's save without an edit goes where a save goes, saying "Nothing to change.".
 */

const NOTHING = "Nothing to change: send at least one field to update.";

let loc: number;
let admin: TestUser;
let office: TestUser;
let requesterToken: string;
let token: string;
let cookie: string;

/** A record as the API reads it. */
type Json = Record<string, unknown> & { id: number; version: number };

/** [record, audit entity, its update path, how it is read, a real change of it] */
type Case = { name: string; entity: string; path: (id: number) => string; read: (id: number) => Promise<Json>; change: (stored: Json) => Record<string, unknown>; make: () => Promise<number> };

async function data(path: string): Promise<unknown> {
  const res = await api(path, { token });
  expect(res.status, path).toBe(200);
  return ((await res.json()) as { data: unknown }).data;
}

const CASES: Case[] = [
  {
    name: "ticket",
    entity: "ticket",
    path: (id) => `/v2/tickets/${id}`,
    read: async (id) => (await data(`/v2/tickets/${id}`)) as Json,
    change: () => ({ subject: "Printer jam, second floor" }),
    make: async () => {
      // Opened by a colleague; the office (the admin) edits and assigns it.
      const res = await api("/v2/tickets", { method: "POST", token: requesterToken, body: { subject: "Printer jam", body: "It jams on page 2.", category: "technical", priority: "high" } });
      expect(res.status).toBe(201);
      return ((await res.json()) as { data: Json }).data.id;
    },
  },
  {
    name: "insurer service",
    entity: "insurance_service",
    path: (id) => `/insurance/update/service/${id}`,
    read: async (id) => {
      const [s] = await db().select({ insurer: insuranceServices.insuranceId }).from(insuranceServices).where(eq(insuranceServices.id, id));
      return ((await data(`/insurance/servicebyInsurance/${s!.insurer}`)) as Json[]).find((x) => x.id === id)!;
    },
    change: (stored) => ({ unit_price: Number(stored.unit_price) + 1 }),
    make: async () => {
      const [insurer] = await db().insert(insurances).values({ name: "Unchanged Health" }).returning();
      const [s] = await db()
        .insert(insuranceServices)
        .values({ insuranceId: insurer!.id, locationId: loc, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", description: "RBT session", unitPrice: 18.25, maxPerDay: 24, autoOnPos: true })
        .returning();
      return s!.id;
    },
  },
  {
    name: "rate record",
    entity: "rate_record",
    path: (id) => `/v2/rate-records/${id}`,
    read: async (id) => (await data(`/v2/rate-records/${id}`)) as Json,
    change: () => ({ name: "Standard rates 2027" }),
    make: async () => {
      const res = await api("/v2/rate-records", { method: "POST", token, body: { name: "Standard rates", location_id: loc, rbt: 22.5, bcba: 50, info: { rbt: ["Hourly"], bcba: [], manager: [] }, effective_from: "2026-01-01" } });
      expect(res.status, await res.clone().text()).toBe(201);
      return ((await res.json()) as { data: Json }).data.id;
    },
  },
];

const auditRows = async (entity: string, id: number) => (await db().select({ id: auditLog.id }).from(auditLog).where(and(eq(auditLog.entity, entity), eq(auditLog.entityId, String(id))))).length;

beforeAll(async () => {
  loc = (await createLocation({ title: "Unchanged Clinic" })).id;
  admin = await createUser({ role: "ADMIN", permissions: ["manage_tickets", "manage_insurances"], locations: [loc], name: "Ada" });
  office = await createUser({ permissions: ["manage_tickets"], locations: [loc], name: "Otto" });
  requesterToken = await apiToken(await createUser({ permissions: [], locations: [loc], name: "Rita" }));
  token = await apiToken(admin);
  cookie = await signInCookie(admin);
});

describe("an update that sends back the stored values (API)", () => {
  it.each(CASES.map((c) => [c.name, c] as const))("%s: PATCH and PUT of the record as read answer 422 'Nothing to change'; version and audit trail as they were; a stale version is 409; a real change saves once", async (_name, c) => {
    const id = await c.make();
    const record = await c.read(id);
    const rows = await auditRows(c.entity, id);
    const { version, ...fields } = record;
    const bodies: [string, Record<string, unknown>][] = [
      ["PATCH", fields],
      ["PATCH", record],
      ["PUT", record],
      ["PUT", fields],
    ];
    for (const [method, body] of bodies) {
      const res = await api(c.path(id), { method, token, body });
      const text = await res.clone().text();
      expect(res.status, `${c.name} ${method} ${text}`).toBe(422);
      expect(((await res.json()) as { message: string }).message, `${c.name} ${method}`).toBe(NOTHING);
    }
    expect(await c.read(id), c.name).toEqual(record);
    expect(await auditRows(c.entity, id), c.name).toBe(rows);
    // A stale version is still told as one, changed or not.
    expect((await api(c.path(id), { method: "PATCH", token, body: { ...record, version: version - 1 } })).status, c.name).toBe(409);
    const res = await api(c.path(id), { method: "PATCH", token, body: { ...c.change(record), version } });
    expect(res.status, `${c.name}: ${await res.clone().text()}`).toBe(200);
    expect((await c.read(id)).version, c.name).toBe(version + 1);
    expect(await auditRows(c.entity, id), c.name).toBe(rows + 1);
  });
});

describe("tickets", () => {
  it("the edit screen and the view's 'Save assignment' saved without an edit: 'Nothing to change.' on the ticket, nothing written", async () => {
    const id = await CASES[0]!.make();
    expect((await form(`/tickets/view/${id}`, { intent: "assign", assigned_to: String(office.id) }, cookie)).status).toBe(303);
    const record = await CASES[0]!.read(id);
    const rows = await auditRows("ticket", id);
    const edit = await form(`/tickets/edit/${id}`, { version: String(record.version), subject: "Printer jam", body: "It jams on page 2.", category: "technical", priority: "high" }, cookie);
    const assign = await form(`/tickets/view/${id}`, { intent: "assign", version: String(record.version), assigned_to: String(office.id) }, cookie);
    for (const res of [edit, assign]) {
      expect(res.status).toBe(303);
      const to = new URL(res.headers.get("Location")!, "http://x");
      expect(to.pathname).toBe(`/tickets/view/${id}`);
      expect(to.searchParams.get("flash")).toBe("Nothing to change.");
    }
    // (`seen`: the view's one redirect after marking the ticket read, taken already.)
    const page = await (await request(`${edit.headers.get("Location")!}&seen=1`, { cookie })).text();
    expect(page).toContain("Nothing to change.");
    expect(await CASES[0]!.read(id)).toMatchObject({ version: record.version, assigned_to: office.id });
    expect(await auditRows("ticket", id)).toBe(rows);
    // An edit still saves.
    const saved = await form(`/tickets/edit/${id}`, { version: String(record.version), subject: "Printer jam (2nd floor)", body: "It jams on page 2.", category: "technical", priority: "high" }, cookie);
    expect(new URL(saved.headers.get("Location")!, "http://x").searchParams.get("flash")).toBe("Ticket updated.");
    expect((await CASES[0]!.read(id)).version).toBe(record.version + 1);
  });

  it("re-assigning to the same person is nothing to change: 422, no audit row, no second email", async () => {
    const id = await CASES[0]!.make();
    const ctx = { db: db(), actor: (await getUserActor(db(), admin.id))!, ip: "127.0.0.1", now: () => new Date() };
    const sent: string[] = [];
    const notice = { send: async (e: { to: string }) => void sent.push(e.to), origin: "https://app.example" };
    expect(await updateTicket(ctx, id, { assigned_to: office.id }, { partial: true, version: null, notice })).toMatchObject({ ok: true, message: "Ticket assigned." });
    expect(sent).toEqual([office.email]);
    const record = await CASES[0]!.read(id);
    const rows = await auditRows("ticket", id);
    for (const body of [{ assigned_to: office.id }, { assigned_to: String(office.id) }, { assigned_to: office.id, subject: "Printer jam", priority: "high" }]) {
      const out = await updateTicket(ctx, id, body, { partial: true, version: record.version, notice });
      expect(out, JSON.stringify(body)).toMatchObject({ ok: false, status: 422, message: NOTHING });
      const put = await updateTicket(ctx, id, { ...record, ...body }, { partial: false, version: null, notice });
      expect(put, JSON.stringify(body)).toMatchObject({ ok: false, status: 422, message: NOTHING });
    }
    expect(sent).toEqual([office.email]);
    expect(await CASES[0]!.read(id)).toEqual(record);
    expect(await auditRows("ticket", id)).toBe(rows);
  });
});

describe("insurer prices", () => {
  it("the insurer screen's price form saved without an edit: 'Nothing to change.' on the insurer, nothing written", async () => {
    const id = await CASES[1]!.make();
    const s = await CASES[1]!.read(id);
    const rows = await auditRows("insurance_service", id);
    const here = `/insurance/list/edit/${s.insurance_id}`;
    const fields = {
      intent: "update-service",
      service_id: String(id),
      version: String(s.version),
      code: "97153 HM",
      provider: "rbt",
      description: "RBT session",
      unit_price: "18.25",
      hourly_fee: "",
      max_allowed: "",
      max_per_day: "24",
      multiplier: "1",
      location_id: String(loc),
      auto_on_pos: "on",
    };
    const res = await form(here, fields, cookie);
    expect(res.status, await res.clone().text()).toBe(303);
    const to = new URL(res.headers.get("Location")!, "http://x");
    expect(to.pathname).toBe(here);
    expect(to.searchParams.get("flash")).toBe("Nothing to change.");
    expect(await CASES[1]!.read(id)).toEqual(s);
    expect(await auditRows("insurance_service", id)).toBe(rows);
    // The price typed "18.250" and the code in another spelling are the stored ones too; a new price saves.
    expect(new URL((await form(here, { ...fields, unit_price: "18.250", code: "97153-hm" }, cookie)).headers.get("Location")!, "http://x").searchParams.get("flash")).toBe("Nothing to change.");
    const saved = await form(here, { ...fields, unit_price: "19" }, cookie);
    expect(new URL(saved.headers.get("Location")!, "http://x").searchParams.get("flash")).toBe("Service updated.");
    expect(await CASES[1]!.read(id)).toMatchObject({ unit_price: 19, version: s.version + 1 });
  });
});

describe("rate records", () => {
  const history = async (id: number) =>
    (await db().select().from(rateRecordAmounts).where(eq(rateRecordAmounts.rateRecordId, id)).orderBy(asc(rateRecordAmounts.effectiveFrom))).map((h) => [h.effectiveFrom, h.rbtCents, h.bcbaCents]);

  it("the stored amounts sent back with their own effective date, another date or none change nothing: 422, the history as it was", async () => {
    const id = await CASES[2]!.make();
    const record = await CASES[2]!.read(id);
    const before = await history(id);
    expect(before).toEqual([["2026-01-01", 2250, 5000]]);
    const rows = await auditRows("rate_record", id);
    for (const effective_from of ["2026-01-01", "2026-02-01", "", null]) {
      for (const method of ["PATCH", "PUT"]) {
        const res = await api(`/v2/rate-records/${id}`, { method, token, body: { ...record, effective_from } });
        expect(res.status, `${method} ${effective_from}: ${await res.clone().text()}`).toBe(422);
        expect(((await res.json()) as { message: string }).message).toBe(NOTHING);
      }
    }
    expect(await history(id)).toEqual(before);
    expect(await CASES[2]!.read(id)).toEqual(record);
    expect(await auditRows("rate_record", id)).toBe(rows);
    // A changed amount on that date still replaces that date's amounts, once.
    const res = await api(`/v2/rate-records/${id}`, { method: "PATCH", token, body: { rbt: 23, effective_from: "2026-01-01", version: record.version } });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await history(id)).toEqual([["2026-01-01", 2300, 5000]]);
    expect(await auditRows("rate_record", id)).toBe(rows + 1);
  });

  it("the edit screen saved without an edit: 'Nothing to change.' on the record, nothing written", async () => {
    const id = await CASES[2]!.make();
    const record = await CASES[2]!.read(id);
    const rows = await auditRows("rate_record", id);
    const fields = { intent: "save", version: String(record.version), name: "Standard rates", location_id: String(loc), rbt: "22.50", bcba: "50", manager: "", client: "", effective_from: "", info_rbt: "Hourly", info_bcba: "", info_manager: "" };
    for (const effective_from of ["", "2026-01-01"]) {
      const res = await form(`/insurance/rates/edit/${id}`, { ...fields, effective_from }, cookie);
      expect(res.status, await res.clone().text()).toBe(303);
      const to = new URL(res.headers.get("Location")!, "http://x");
      expect(to.pathname).toBe(`/insurance/rates/edit/${id}`);
      expect(to.searchParams.get("flash")).toBe("Nothing to change.");
    }
    expect(await CASES[2]!.read(id)).toEqual(record);
    expect(await history(id)).toEqual([["2026-01-01", 2250, 5000]]);
    expect(await auditRows("rate_record", id)).toBe(rows);
    const saved = await form(`/insurance/rates/edit/${id}`, { ...fields, info_rbt: "Hourly\nWeekends" }, cookie);
    expect(new URL(saved.headers.get("Location")!, "http://x").searchParams.get("flash")).toBe("Rate record updated.");
    expect((await CASES[2]!.read(id)).version).toBe(record.version + 1);
  });
});
