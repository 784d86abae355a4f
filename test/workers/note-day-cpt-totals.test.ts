import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { RECOUNT_NOTES_SQL } from "~/db/note-counts";
import { insurances, insuranceServices, notes, paServices, patients } from "~/db/schema";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { locationCptReport } from "~/models/reports/location-cpt.server";
import type { NoteReportFilters } from "~/models/reports/note-scope.server";
import { countingDb, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * location-cpt from day sums (decision 039, 2026-11-26; migration 0016): note_day_cpt_totals equals a
 * recount from the notes after every write that moves one of its keys — a note's edit (PA service, modifiers,
 * CPT, type, date, location, own price), delete and restore, a client's insurer change, deletion and restore,
 * a PA service's insurer change — and the report gives the same rows and totals from it as from the notes
 * alone, over several periods and filters. Dropping a trigger makes the check fail.
 */

type Row = Record<string, unknown>;
const COLUMNS = "location_id, session_date, cpt_code, type, md, md2, unit_price_cents, payer_id, n, minutes, units";

async function storedAndRecount() {
  const insert = RECOUNT_NOTES_SQL.find((s) => s.startsWith("insert into note_day_cpt_totals "))!;
  const order = (rows: Row[]) => rows.map((r) => JSON.stringify(Object.values(r))).sort();
  // Rows at n = 0 may stay, but then they hold nothing.
  const stored = order(await db().all<Row>(sql.raw(`select ${COLUMNS} from note_day_cpt_totals where n <> 0 or minutes <> 0 or units <> 0`)));
  const recount = order(await db().all<Row>(sql.raw(insert.slice(insert.indexOf("select")))));
  return { stored, recount };
}

const PERIODS: [string, string][] = [
  ["2026-10-01", "2026-10-31"], // one whole month
  ["2026-09-27", "2026-11-03"], // a month plus days either side
  ["2026-10-05", "2026-10-20"], // days inside one month
  ["2025-12-15", "2026-02-10"], // across a year boundary
  ["2025-12-01", "2026-02-28"], // three whole months across a year boundary
];

let admin: ModelContext;
let local: ModelContext;
let here: number;
let there: number;
let provider: number;
let ins: number[] = [];
let clients: { id: number; locationId: number }[] = [];
let pas: number[] = [];
let noteId: number;

async function expectSameReports(filters: readonly ("none" | "location" | "provider" | "client")[] = ["none", "location"]) {
  for (const [from, to] of PERIODS)
    for (const filter of filters)
      for (const ctx of [admin, local]) {
        const f: NoteReportFilters = {
          from,
          to,
          locationId: filter === "location" ? here : null,
          providerId: filter === "provider" ? provider : null,
          patientId: filter === "client" ? clients[0]!.id : null,
        };
        for (const page of [{ limit: 25, offset: 0 }, { limit: 2, offset: 1 }])
          expect(await locationCptReport(ctx, f, page), `${from}..${to} ${filter}`).toEqual(await locationCptReport(ctx, { ...f, notesOnly: true }, page));
      }
}

async function expectExact() {
  const { stored, recount } = await storedAndRecount();
  expect(stored).toEqual(recount);
  await expectSameReports();
}

beforeAll(async () => {
  here = (await createLocation({ title: "Here" })).id;
  there = (await createLocation({ title: "There" })).id;
  for (const name of ["Acme", "Bolt", "Crest"]) ins.push((await db().insert(insurances).values({ name }).returning())[0]!.id);
  // Prices differ per payer; Bolt's multiplier is fractional, so splitting a group would change the rounding.
  await db()
    .insert(insuranceServices)
    .values([
      { insuranceId: ins[0]!, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.5 },
      { insuranceId: ins[0]!, cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 30 },
      { insuranceId: ins[1]!, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 13.33, multiplier: 0.85 },
      { insuranceId: ins[1]!, cptCode: "97155", provider: "", type: "all", unitPrice: 31.07, multiplier: 1.15 },
      { insuranceId: ins[2]!, cptCode: "97153", provider: "", type: "all", unitPrice: 9.99, locationId: there },
    ]);
  clients = [
    await createPatient({ locationId: here, lastName: "Ames", insurerId: ins[0]! }),
    await createPatient({ locationId: here, lastName: "Boyd", insurerId: ins[1]! }),
    await createPatient({ locationId: there, lastName: "Cole", insurerId: null }),
    await createPatient({ locationId: here, lastName: "Dunn", insurerId: ins[2]! }),
  ];
  const pa = (patientId: number, insuranceId: number | null) =>
    db().insert(paServices).values({ patientId, paService: "PA", cpt: "97153", nUnits: 100, startDate: "2025-01-01", endDate: "2027-12-31", insuranceId }).returning();
  pas = [(await pa(clients[0]!.id, ins[1]!))[0]!.id, (await pa(clients[0]!.id, null))[0]!.id, (await pa(clients[2]!.id, ins[2]!))[0]!.id];
  const providers = [
    (await createUser({ permissions: ["view_notes"], locations: [here], name: "Ann" })).id,
    (await createUser({ permissions: ["view_notes"], locations: [here, there], name: "Ben" })).id,
  ];
  provider = providers[1]!;
  const dates = ["2025-11-28", "2025-12-01", "2025-12-15", "2025-12-31", "2026-01-01", "2026-01-31", "2026-02-01", "2026-02-10", "2026-02-28",
    "2026-09-27", "2026-09-30", "2026-10-01", "2026-10-05", "2026-10-13", "2026-10-20", "2026-10-31", "2026-11-01", "2026-11-03"];
  const values: (typeof notes.$inferInsert)[] = [];
  dates.forEach((d, i) => {
    for (let k = 0; k < 5; k++) {
      const c = clients[(i + k) % 4]!;
      const type = (["rbt", "bcba", "combined", "rbt", "rbt"] as const)[(i * 3 + k) % 5]!;
      values.push({
        type,
        patientId: c.id,
        locationId: c.locationId,
        providerId: (i + k) % 4 === 0 ? null : providers[(i + k) % 2]!,
        cptCode: (["97153", "97155", "97153", "", "97153"] as const)[(i + 2 * k) % 5]!,
        paServiceId: c.id === clients[0]!.id ? ([pas[0]!, pas[1]!, null] as const)[(i + k) % 3]! : c.id === clients[2]!.id && k % 2 ? pas[2]! : null,
        md: ([null, "", "HM", " hm", "GT"] as const)[(i + k) % 5]!,
        md2: ([null, "GT", null] as const)[(i * k) % 3]!,
        unitPriceCents: type === "combined" ? ([null, 0, 2500] as const)[(i + k) % 3]! : null,
        sessionDate: d,
        minutes: 30 + ((i * 7 + k * 11) % 90),
        units: 1 + ((i * 5 + k * 3) % 7),
      });
    }
  });
  values.push({ type: "rbt", patientId: clients[0]!.id, locationId: here, cptCode: "97153", sessionDate: "2026-10-13", minutes: 500, units: 33, deletedAt: "2026-11-01T00:00:00.000Z" });
  for (let i = 0; i < values.length; i += 4) await db().insert(notes).values(values.slice(i, i + 4));
  noteId = (await db()
    .insert(notes)
    .values({ type: "rbt", patientId: clients[0]!.id, locationId: here, providerId: provider, cptCode: "97153", paServiceId: pas[0]!, sessionDate: "2026-10-13", minutes: 60, units: 4 })
    .returning({ id: notes.id }))[0]!.id;
  const boss = await createUser({ permissions: ["view_notes", "manage_notes", "access_all_locations"], locations: [here] });
  const clerk = await createUser({ permissions: ["view_notes", "manage_notes"], locations: [here] });
  const ctxOf = async (id: number): Promise<ModelContext> => ({ db: db(), actor: (await getUserActor(db(), id))!, ip: "127.0.0.1", now: () => new Date("2026-11-26T12:00:00Z") });
  admin = await ctxOf(boss.id);
  local = await ctxOf(clerk.id);
});

describe("location-cpt from the day sums equals the notes alone", () => {
  it("the initial notes: every period with every filter, for an every-location and a one-location actor", async () => {
    const { stored, recount } = await storedAndRecount();
    expect(stored).toEqual(recount);
    await expectSameReports(["none", "location", "provider", "client"]);
  });

  it("the days are read from the table (a changed row changes the report)", async () => {
    const f: NoteReportFilters = { from: "2026-10-01", to: "2026-10-31", locationId: null, providerId: null, patientId: null };
    const before = await locationCptReport(admin, f, { limit: 25, offset: 0 });
    expect(before.totals.units).toBeGreaterThan(0);
    expect(before.totals.charges_cents).toBeGreaterThan(0);
    const [one] = await db().all<Row>(sql`select location_id, session_date, cpt_code, type, md, md2, unit_price_cents, payer_id from note_day_cpt_totals where session_date between '2026-10-01' and '2026-10-31' and n > 0 and payer_id <> 0 and cpt_code <> '' limit 1`);
    const key = sql`session_date = ${one!.session_date} and location_id = ${one!.location_id} and cpt_code = ${one!.cpt_code} and type = ${one!.type} and md = ${one!.md} and md2 = ${one!.md2} and unit_price_cents = ${one!.unit_price_cents} and payer_id = ${one!.payer_id}`;
    await db().run(sql`update note_day_cpt_totals set units = units + 1000 where ${key}`);
    const changed = await locationCptReport(admin, f, { limit: 25, offset: 0 });
    expect(changed.totals.units).toBe(before.totals.units + 1000);
    expect(await locationCptReport(admin, { ...f, notesOnly: true }, { limit: 25, offset: 0 })).toEqual(before);
    await db().run(sql`update note_day_cpt_totals set units = units - 1000 where ${key}`);
    expect(await locationCptReport(admin, f, { limit: 25, offset: 0 })).toEqual(before);
  });

  it("charges are the priced groups: a payer's fractional multiplier is rounded once per group, unpriced units apart", async () => {
    const f: NoteReportFilters = { from: "2025-11-01", to: "2026-11-30", locationId: null, providerId: null, patientId: null };
    const r = await locationCptReport(admin, f, { limit: 50, offset: 0 });
    expect(r.totals.unpriced_units).toBeGreaterThan(0); // the notes without a CPT code, and Crest's 97155
    expect(r.totals.charges_cents).toBe(r.rows.reduce((s, x) => s + x.charges_cents, 0));
    expect(r.rows.map((x) => x.location)).toEqual([...r.rows.map((x) => x.location)].sort());
  });

  it("is one round trip", async () => {
    const counting = countingDb();
    await locationCptReport({ ...admin, db: counting.db }, { from: "2026-09-27", to: "2026-11-03", locationId: null, providerId: null, patientId: null }, { limit: 25, offset: 0 });
    expect(counting.roundTrips()).toBe(1);
  });
});

describe("note_day_cpt_totals follows every write that moves a key", () => {
  const edit = (values: Partial<typeof notes.$inferInsert> | (() => Partial<typeof notes.$inferInsert>)) => () =>
    db().update(notes).set(typeof values === "function" ? values() : values).where(eq(notes.id, noteId)).then(() => undefined);
  const patient = (i: number, values: Partial<typeof patients.$inferInsert> | (() => Partial<typeof patients.$inferInsert>)) => () =>
    db().update(patients).set(typeof values === "function" ? values() : values).where(eq(patients.id, clients[i]!.id)).then(() => undefined);
  const pa = (i: number, values: () => Partial<typeof paServices.$inferInsert>) => () =>
    db().update(paServices).set(values()).where(eq(paServices.id, pas[i]!)).then(() => undefined);

  const steps: [string, () => Promise<unknown>][] = [
    ["a note's PA service changes to one without an insurer", edit(() => ({ paServiceId: pas[1]! }))],
    ["a note's PA service is removed", edit({ paServiceId: null })],
    ["a note's PA service is set again", edit(() => ({ paServiceId: pas[0]! }))],
    ["a note's modifiers change", edit({ md: "HM", md2: "GT" })],
    ["a note's modifier is cleared", edit({ md: null })],
    ["a note's CPT changes", edit({ cptCode: "97155" })],
    ["a note's type changes (combined, with its own price)", edit({ type: "combined", unitPriceCents: 4100 })],
    ["a note's own price changes", edit({ unitPriceCents: 3900 })],
    ["a note's date moves within the month", edit({ sessionDate: "2026-10-14" })],
    ["a note's date moves into the next month", edit({ sessionDate: "2026-11-02" })],
    ["a note's date moves across the year", edit({ sessionDate: "2026-01-15" })],
    ["a note moves to another location", edit(() => ({ locationId: there }))],
    ["a note's time changes", edit({ minutes: 75, units: 5 })],
    ["a note moves to another client", edit(() => ({ patientId: clients[1]!.id, locationId: here, sessionDate: "2026-10-20" }))],
    ["an update that moves no key", edit({ status: "ok", summaryNote: "Re-read" })],
    ["a client's insurer changes (notes without a PA service or whose PA service has no insurer move)", patient(0, () => ({ insurerId: ins[1]! }))],
    ["a client's insurer is removed", patient(1, { insurerId: null })],
    ["a client's insurer is set", patient(2, () => ({ insurerId: ins[0]! }))],
    ["a PA service's insurer changes", pa(0, () => ({ insuranceId: ins[2]! }))],
    ["a PA service's insurer is removed (its notes fall back to the client's)", pa(2, () => ({ insuranceId: null }))],
    ["a PA service's insurer is set", pa(1, () => ({ insuranceId: ins[0]! }))],
    ["a PA service is soft-deleted (its insurer still prices its notes)", pa(0, () => ({ deletedAt: "2026-11-20T00:00:00.000Z" }))],
    ["a note is soft-deleted", edit({ deletedAt: "2026-11-21T00:00:00.000Z" })],
    ["a deleted note's keys change (nothing counted)", edit({ md: "GT", cptCode: "97153" })],
    ["a note's delete is undone", edit({ deletedAt: null })],
    ["a note is hard-deleted", () => db().delete(notes).where(eq(notes.id, noteId))],
    ["a client is deleted", patient(0, { deletedAt: "2026-11-22T00:00:00.000Z" })],
    ["a deleted client's insurer changes (nothing counted)", patient(0, () => ({ insurerId: ins[2]! }))],
    ["a deleted client's PA service changes insurer (nothing counted)", pa(1, () => ({ insuranceId: ins[1]! }))],
    ["a note is created for a deleted client", () => db().insert(notes).values({ type: "rbt", patientId: clients[0]!.id, locationId: here, cptCode: "97153", sessionDate: "2026-10-03", minutes: 30, units: 2 })],
    ["a client is restored", patient(0, { deletedAt: null })],
    ["a client's insurer changes in the statement that deletes them", patient(3, () => ({ insurerId: ins[1]!, deletedAt: "2026-11-23T00:00:00.000Z" }))],
    ["a client's insurer changes in the statement that restores them", patient(3, () => ({ insurerId: ins[0]!, deletedAt: null }))],
    ["a note is created with a PA service and modifiers", () =>
      db().insert(notes).values({ type: "bcba", patientId: clients[2]!.id, locationId: there, cptCode: "97155", paServiceId: pas[2]!, md: "HM", sessionDate: "2026-10-31", minutes: 45, units: 3 })],
  ];

  it.each(steps)("%s", async (_name, write) => {
    await write();
    await expectExact();
  });

  it("the refill (RECOUNT_NOTES_SQL) gives the same table", async () => {
    const before = await storedAndRecount();
    for (const s of RECOUNT_NOTES_SQL) await db().run(sql.raw(s));
    const after = await storedAndRecount();
    expect(after.stored).toEqual(before.recount);
    expect(after.stored).toEqual(after.recount);
    await expectSameReports(["none", "location", "provider", "client"]);
  });

  // Last in the file: the dropped triggers stay dropped for this file's database.
  it.each([
    ["pa_services_note_day_cpt_enter", pa(0, () => ({ insuranceId: ins[0]! }))],
    ["patients_note_day_cpt_insurer_leave", patient(1, () => ({ insurerId: ins[2]! }))],
    ["notes_day_cpt_leave", () => db().update(notes).set({ md2: "XX" }).where(eq(notes.patientId, clients[2]!.id))],
    ["patients_note_day_cpt_delete", patient(2, { deletedAt: "2026-11-24T00:00:00.000Z" })],
  ] as const)("without the trigger %s the check fails", async (trigger, write) => {
    await db().run(sql.raw(`drop trigger ${trigger}`));
    await write();
    const { stored, recount } = await storedAndRecount();
    expect(stored).not.toEqual(recount);
    for (const s of RECOUNT_NOTES_SQL) await db().run(sql.raw(s));
  });
});
