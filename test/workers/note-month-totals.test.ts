import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { RECOUNT_NOTES_SQL } from "~/db/note-counts";
import { notes, patients } from "~/db/schema";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { hoursReport } from "~/models/reports/hours.server";
import type { NoteReportFilters } from "~/models/reports/note-scope.server";
import { payrollReport } from "~/models/reports/payroll.server";
import { supervisionReport } from "~/models/reports/supervision.server";
import { countingDb, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * The operations reports' month sums (decision 039, rollup; migration 0015): note_month_totals,
 * note_month_client_totals and note_day_totals equal a recount from the notes after every kind of note and
 * client write; payroll, hours and the BCBA report give the same rows, paging and totals from them as from
 * the notes alone, for whole months, part months, periods across a year boundary, with every filter.
 */

type Row = Record<string, unknown>;

/** The tables as stored (rows that count anything) and as recounted from the notes by RECOUNT_NOTES_SQL's own selects. */
async function storedAndRecount() {
  const selectOf = (table: string) => {
    const insert = RECOUNT_NOTES_SQL.find((s) => s.startsWith(`insert into ${table} `))!;
    return insert.slice(insert.indexOf("select"));
  };
  const order = (rows: Row[]) => rows.map((r) => JSON.stringify(Object.values(r))).sort();
  const tables = {
    note_month_totals: "location_id, month, provider_id, type, cpt_code, n, minutes, units, all_n, all_minutes, all_units",
    note_month_client_totals: "location_id, month, patient_id, type, n, minutes, units, pending, billed, paid",
    note_day_totals: "location_id, session_date, n, minutes, all_n, all_minutes",
  };
  const stored: Record<string, string[]> = {};
  const recount: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(tables)) {
    // Rows at n = 0 may stay, but then they hold nothing.
    const counted = columns.split(", ").filter((c) => /^(all_)?(n|minutes|units)$/.test(c));
    stored[table] = order(await db().all<Row>(sql.raw(`select ${columns} from ${table} where ${counted.map((c) => `${c} <> 0`).join(" or ")}`)));
    recount[table] = order(await db().all<Row>(sql.raw(selectOf(table))));
  }
  return { stored, recount };
}

async function expectTablesExact() {
  const { stored, recount } = await storedAndRecount();
  expect(stored).toEqual(recount);
}

describe("note_month_totals and note_day_totals follow every write", () => {
  let a: { id: number };
  let b: { id: number };
  let p1: { id: number };
  let p2: { id: number };
  let gone: { id: number };
  let prov: number;
  let prov2: number;
  let noteId: number;
  let deletedClientsNote: number;
  const insert = async (over: Partial<typeof notes.$inferInsert> = {}) => {
    const [row] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: p1.id, locationId: a.id, providerId: prov, cptCode: "97153", sessionDate: "2026-10-30", minutes: 60, units: 4, ...over })
      .returning({ id: notes.id });
    return row!.id;
  };
  // Values read when the step runs (the rows are made in beforeAll).
  const edit = (values: Partial<typeof notes.$inferInsert> | (() => Partial<typeof notes.$inferInsert>)) => () =>
    db().update(notes).set(typeof values === "function" ? values() : values).where(eq(notes.id, noteId)).then(() => undefined);

  beforeAll(async () => {
    a = await createLocation();
    b = await createLocation();
    p1 = await createPatient({ locationId: a.id });
    p2 = await createPatient({ locationId: b.id });
    gone = await createPatient({ locationId: a.id });
    prov = (await createUser({ permissions: ["view_notes"], locations: [a.id] })).id;
    prov2 = (await createUser({ permissions: ["view_notes"], locations: [a.id, b.id] })).id;
    // Notes present before the writes: the same groups, so leaving and entering move shared rows.
    for (const d of ["2026-10-01", "2026-10-30", "2026-11-02"]) await insert({ sessionDate: d });
    await insert({ patientId: gone.id, sessionDate: "2026-10-30", minutes: 45, units: 3 });
    await insert({ patientId: gone.id, sessionDate: "2026-11-01", providerId: null, minutes: 30, units: 2 });
    noteId = await insert({ minutes: 90, units: 6 });
    await expectTablesExact();
  });

  const steps: [string, () => Promise<unknown>][] = [
    ["create a note of a client", async () => insert({ sessionDate: "2026-09-15" })],
    ["edit the time (minutes and units)", edit({ minutes: 97, units: 6 })],
    ["edit the date within the month", edit({ sessionDate: "2026-10-12" })],
    ["edit the date into the next month", edit({ sessionDate: "2026-11-03" })],
    ["edit the date across the year", edit({ sessionDate: "2027-01-02" })],
    ["remove the provider", edit({ providerId: null })],
    ["set another provider", edit(() => ({ providerId: prov2 }))],
    ["change the CPT code", edit({ cptCode: "97155" })],
    ["change the type", edit({ type: "bcba" })],
    ["move to another client", edit(() => ({ patientId: p2.id }))],
    ["move to another location", edit(() => ({ locationId: b.id }))],
    ["move to a deleted client's name (no longer counted)", async () => {
      await db().update(patients).set({ deletedAt: "2026-11-20T00:00:00.000Z" }).where(eq(patients.id, gone.id));
      await edit(() => ({ patientId: gone.id }))();
    }],
    ["move back to a live client", edit(() => ({ patientId: p1.id, locationId: a.id }))],
    ["an update that changes no summed column", edit({ summaryNote: "Re-read" })],
    // The billing list's counts (migration 0019).
    ["status to ok", edit({ status: "ok" })],
    ["billed", edit({ billed: true })],
    ["paid", edit({ paid: true })],
    ["status back to pending, billed and paid cleared in one update", edit({ status: "pending", billed: false, paid: false })],
    ["billed and paid again, then moved to another month with them", async () => {
      await edit({ billed: true, paid: true })();
      await edit({ sessionDate: "2026-12-01" })();
    }],
    ["soft delete", edit({ deletedAt: "2026-11-21T00:00:00.000Z" })],
    ["edit a deleted note (nothing counted)", edit({ minutes: 10, units: 1 })],
    ["undo the soft delete", edit({ deletedAt: null })],
    ["hard delete", () => db().delete(notes).where(eq(notes.id, noteId))],
    ["a client's deletion", async () => db().update(patients).set({ deletedAt: "2026-11-22T00:00:00.000Z" }).where(eq(patients.id, p1.id))],
    ["a note created for a deleted client", async () => {
      deletedClientsNote = await insert({ sessionDate: "2026-10-03" });
    }],
    // A deleted client's note still counts in the all_ columns (decision 039, 2026-11-27 "deleted clients").
    ["a deleted client's note edited (time, provider, date)", () =>
      db().update(notes).set({ minutes: 75, units: 5, providerId: prov2, sessionDate: "2026-11-04" }).where(eq(notes.id, deletedClientsNote)).then(() => undefined)],
    ["a deleted client's note soft deleted and restored", async () => {
      await db().update(notes).set({ deletedAt: "2026-11-23T00:00:00.000Z" }).where(eq(notes.id, deletedClientsNote));
      await db().update(notes).set({ deletedAt: null }).where(eq(notes.id, deletedClientsNote));
    }],
    ["a deleted client's note moved to a live client and back", async () => {
      await db().update(notes).set({ patientId: p2.id }).where(eq(notes.id, deletedClientsNote));
      await db().update(notes).set({ patientId: p1.id }).where(eq(notes.id, deletedClientsNote));
    }],
    ["a client's restore", async () => db().update(patients).set({ deletedAt: null }).where(eq(patients.id, p1.id))],
    ["the other deleted client's restore", async () => db().update(patients).set({ deletedAt: null }).where(eq(patients.id, gone.id))],
    ["a created note without provider", async () => insert({ providerId: null, sessionDate: "2026-10-31", cptCode: "" })],
    ["a client's deletion again, then its note hard deleted", async () => {
      await db().update(patients).set({ deletedAt: "2026-11-24T00:00:00.000Z" }).where(eq(patients.id, p1.id));
      await db().delete(notes).where(eq(notes.id, deletedClientsNote));
    }],
  ];

  it.each(steps)("%s", async (_name, write) => {
    await write();
    await expectTablesExact();
  });

  it("the stored rows were not all trivially empty", async () => {
    const [row] = await db().all<{ n: number; all: number }>(sql`select sum(n) as n, sum(all_n) as "all" from note_month_totals`);
    expect(row!.all).toBeGreaterThan(5);
    expect(row!.n).toBeGreaterThan(0);
    // p1 is deleted at the end: its notes are in all_n only.
    expect(row!.all).toBeGreaterThan(row!.n);
  });
});

describe("payroll, hours and the BCBA report from the month sums equal the notes alone", () => {
  let admin: ModelContext;
  let local: ModelContext;
  let here: number;
  let there: number;
  let provider: number;
  let client: number;
  let deletedClient: number;

  beforeAll(async () => {
    const h = await createLocation({ title: "Here" });
    const t = await createLocation({ title: "There" });
    here = h.id;
    there = t.id;
    const clients = [await createPatient({ locationId: h.id, lastName: "Ames" }), await createPatient({ locationId: h.id, lastName: "Boyd" }), await createPatient({ locationId: t.id, lastName: "Cole" })];
    const dead = await createPatient({ locationId: h.id, lastName: "Gone" });
    client = clients[0]!.id;
    deletedClient = dead.id;
    const providers = [
      (await createUser({ permissions: ["view_notes"], locations: [h.id], name: "Ann" })).id,
      (await createUser({ permissions: ["view_notes"], locations: [h.id, t.id], name: "Ben" })).id,
      (await createUser({ permissions: ["view_notes"], locations: [t.id], name: "Cy" })).id,
    ];
    provider = providers[1]!;
    const dates = ["2025-11-28", "2025-12-01", "2025-12-14", "2025-12-15", "2025-12-31", "2026-01-01", "2026-01-17", "2026-01-31", "2026-02-01", "2026-02-10", "2026-02-11", "2026-02-28",
      "2026-09-26", "2026-09-27", "2026-09-30", "2026-10-01", "2026-10-04", "2026-10-05", "2026-10-13", "2026-10-20", "2026-10-21", "2026-10-31", "2026-11-01", "2026-11-03", "2026-11-04"];
    const values: (typeof notes.$inferInsert)[] = [];
    dates.forEach((d, i) => {
      for (let k = 0; k < 4; k++) {
        const c = [...clients, dead][(i + k) % 4]!;
        const loc = c.locationId;
        const type = (["rbt", "bcba", "combined", "rbt"] as const)[(i * 3 + k) % 4]!;
        values.push({
          type,
          patientId: c.id,
          locationId: loc,
          providerId: (i + 2 * k) % 5 === 0 ? null : providers[(i + k) % 3]!,
          cptCode: (["97153", "97155", "97153", ""] as const)[(i + k) % 4]!,
          sessionDate: d,
          minutes: 30 + ((i * 7 + k * 11) % 90),
          units: 2 + ((i + k) % 6),
        });
      }
    });
    // A client seen only on October 1st: gone from a period of October 2nd … 31st, which reads October's sums minus
    // that day (the group nets to no notes and must not be a row).
    const once = await createPatient({ locationId: h.id, lastName: "Once" });
    values.push({ type: "bcba", patientId: once.id, locationId: h.id, providerId: providers[0]!, cptCode: "97155", sessionDate: "2026-10-01", minutes: 45, units: 3 });
    // One soft-deleted note, never summed.
    values.push({ type: "rbt", patientId: clients[0]!.id, locationId: h.id, providerId: providers[0]!, cptCode: "97153", sessionDate: "2026-10-13", minutes: 500, units: 33, deletedAt: "2026-11-01T00:00:00.000Z" });
    for (let i = 0; i < values.length; i += 4) await db().insert(notes).values(values.slice(i, i + 4));
    await db().update(patients).set({ deletedAt: "2026-11-05T00:00:00.000Z" }).where(eq(patients.id, dead.id));
    const boss = await createUser({ permissions: ["view_notes", "manage_notes", "manage_employees", "access_all_locations"], locations: [h.id] });
    const clerk = await createUser({ permissions: ["view_notes", "manage_notes", "manage_employees"], locations: [h.id] });
    const ctxOf = async (id: number): Promise<ModelContext> => ({ db: db(), actor: (await getUserActor(db(), id))!, ip: "127.0.0.1", now: () => new Date("2026-11-26T12:00:00Z") });
    admin = await ctxOf(boss.id);
    local = await ctxOf(clerk.id);
  });

  const periods: [string, string, string][] = [
    ["one whole month", "2026-10-01", "2026-10-31"],
    ["a month plus days either side", "2026-09-27", "2026-11-03"],
    ["days inside one month", "2026-10-05", "2026-10-20"],
    ["a few days inside one month", "2026-10-05", "2026-10-13"],
    ["one month minus a day either side", "2026-10-02", "2026-10-30"],
    ["part months either side", "2026-09-15", "2026-11-14"],
    ["a month minus its first days through the next minus its last", "2026-09-09", "2026-10-29"],
    ["across a year boundary", "2025-12-15", "2026-02-10"],
    ["three whole months across a year boundary", "2025-12-01", "2026-02-28"],
  ];
  const filters = ["none", "location", "provider", "client"] as const;
  const cases = periods.flatMap(([name, from, to]) => filters.map((filter) => [name, filter, from, to] as const));

  it.each(cases)("%s, filter: %s", async (_name, filter, from, to) => {
    for (const ctx of [admin, local]) {
      const f: NoteReportFilters = {
        from,
        to,
        locationId: filter === "location" ? here : null,
        providerId: filter === "provider" ? provider : null,
        patientId: filter === "client" ? client : null,
      };
      const reference = { ...f, notesOnly: true };
      for (const page of [{ limit: 25, offset: 0 }, { limit: 2, offset: 1 }]) {
        expect(await payrollReport(ctx, f, page)).toEqual(await payrollReport(ctx, reference, page));
        for (const by of ["provider", "client", "cpt"] as const) expect(await hoursReport(ctx, f, by, page)).toEqual(await hoursReport(ctx, reference, by, page));
        for (const belowOnly of [false, true]) expect(await supervisionReport(ctx, f, { belowOnly }, page)).toEqual(await supervisionReport(ctx, reference, { belowOnly }, page));
      }
    }
  });

  it("sums what it should: a deleted note's minutes are absent, a deleted client's only in the staff's work (payroll, hours by provider or CPT), another location's only for the actor who may see it", async () => {
    const f: NoteReportFilters = { from: "2025-12-01", to: "2026-02-28", locationId: null, providerId: null, patientId: null };
    const live = async (locationOnly: boolean, everyClient: boolean) => {
      const [row] = await db().all<{ m: number; n: number }>(
        sql`select sum(minutes) as m, count(*) as n from notes where deleted_at is null and session_date between ${f.from} and ${f.to} ${everyClient ? sql`` : sql`and patient_id <> ${deletedClient}`} ${locationOnly ? sql`and location_id = ${here}` : sql``}`
      );
      return { minutes: row!.m, sessions: row!.n };
    };
    const page = { limit: 25, offset: 0 };
    const all = await hoursReport(admin, f, "provider", page);
    expect(all.totals).toEqual(await live(false, true));
    expect((await hoursReport(admin, f, "cpt", page)).totals).toEqual(await live(false, true));
    expect((await hoursReport(admin, f, "client", page)).totals).toEqual(await live(false, false));
    expect((await live(false, false)).minutes).toBeLessThan(all.totals.minutes); // the deleted client had notes then
    expect((await payrollReport(admin, f, page)).totals.minutes).toBe((await live(false, true)).minutes);
    const mine = await hoursReport(local, f, "provider", page);
    expect(mine.totals).toEqual(await live(true, true));
    expect(mine.totals.minutes).toBeLessThan(all.totals.minutes);
    expect(all.rows.some((r) => r.key === "")).toBe(true); // the notes without a provider keep their own row
    // Hours by client and the BCBA report never list the deleted client.
    expect((await hoursReport(admin, f, "client", page)).rows.some((r) => r.patient_id === deletedClient)).toBe(false);
    expect((await supervisionReport(admin, f, { belowOnly: false }, page)).rows.some((r) => r.client.startsWith("Gone,"))).toBe(false);
  });

  it("an actor with many locations (more than D1's 100 bound values over the period's three parts) gets the report", async () => {
    const many: number[] = [here];
    for (let i = 0; i < 40; i++) many.push((await createLocation()).id);
    const wide = await createUser({ permissions: ["view_notes", "manage_notes", "manage_employees"], locations: many });
    const ctx: ModelContext = { ...local, actor: (await getUserActor(db(), wide.id))! };
    const f: NoteReportFilters = { from: "2025-12-15", to: "2026-02-10", locationId: null, providerId: null, patientId: null };
    const page = { limit: 25, offset: 0 };
    expect(await payrollReport(ctx, f, page)).toEqual(await payrollReport(local, f, page));
    expect(await hoursReport(ctx, f, "client", page)).toEqual(await hoursReport(local, f, "client", page));
    expect(await supervisionReport(ctx, f, { belowOnly: false }, page)).toEqual(await supervisionReport(local, f, { belowOnly: false }, page));
  });

  it("edge days: a location outside the actor's scope, or no location at all, is an empty report, not an error", async () => {
    const page = { limit: 25, offset: 0 };
    const nowhere = await createUser({ permissions: ["view_notes", "manage_notes", "manage_employees"], locations: [] });
    const none: ModelContext = { ...local, actor: (await getUserActor(db(), nowhere.id))! };
    for (const [ctx, locationId] of [[local, there], [none, null], [none, here]] as const) {
      const f: NoteReportFilters = { from: "2026-09-27", to: "2026-11-03", locationId, providerId: null, patientId: null };
      expect((await hoursReport(ctx, f, "client", page)).rows).toEqual([]);
      expect((await hoursReport(ctx, f, "provider", page)).totals).toEqual({ minutes: 0, sessions: 0 });
      expect((await supervisionReport(ctx, f, { belowOnly: false }, page)).total).toBe(0);
      expect((await payrollReport(ctx, f, page)).rows).toEqual([]);
    }
    // The same period for the admin over every location is not empty (so the above is the scope, not the dates).
    expect((await hoursReport(admin, { from: "2026-09-27", to: "2026-11-03", locationId: there, providerId: null, patientId: null }, "client", page)).rows.length).toBeGreaterThan(0);
  });

  it("the hours chart reads every day of a period with edge days from note_day_totals", async () => {
    const f: NoteReportFilters = { from: "2026-09-27", to: "2026-11-03", locationId: null, providerId: null, patientId: null };
    const page = { limit: 25, offset: 0 };
    const before = await hoursReport(admin, f, "client", page);
    // An edge day's stored sum changed by hand (and put back): the chart and totals follow the table, not the notes.
    await db().run(sql`update note_day_totals set minutes = minutes + 600 where session_date = '2026-09-27' and location_id = ${here}`);
    try {
      const after = await hoursReport(admin, f, "client", page);
      expect(after.totals.minutes).toBe(before.totals.minutes + 600);
      expect(after.rows).toEqual(before.rows);
    } finally {
      await db().run(sql`update note_day_totals set minutes = minutes - 600 where session_date = '2026-09-27' and location_id = ${here}`);
    }
    expect(await hoursReport(admin, f, "client", page)).toEqual(before);
  });

  it("a client seen only on the days taken off a month's sums is not a row", async () => {
    const page = { limit: 25, offset: 0 };
    const f: NoteReportFilters = { from: "2026-10-02", to: "2026-10-31", locationId: null, providerId: null, patientId: null };
    const labels = (await hoursReport(admin, f, "client", page)).rows.map((r) => r.label);
    expect(labels.some((l) => l.startsWith("Once,"))).toBe(false);
    expect((await supervisionReport(admin, f, { belowOnly: false }, page)).rows.some((r) => r.client.startsWith("Once,"))).toBe(false);
    expect((await hoursReport(admin, { ...f, from: "2026-10-01" }, "client", page)).rows.some((r) => r.label.startsWith("Once,"))).toBe(true);
  });

  it("each report is still one round trip", async () => {
    const counting = countingDb();
    const ctx = { ...admin, db: counting.db };
    const f: NoteReportFilters = { from: "2025-12-15", to: "2026-02-10", locationId: null, providerId: null, patientId: null };
    await payrollReport(ctx, f, { limit: 25, offset: 0 });
    await hoursReport(ctx, f, "provider", { limit: 25, offset: 0 });
    await supervisionReport(ctx, f, { belowOnly: false }, { limit: 25, offset: 0 });
    expect(counting.roundTrips()).toBe(3);
  });
});
