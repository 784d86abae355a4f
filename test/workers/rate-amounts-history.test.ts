import { asc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, rateRecordAmounts, rateRecords } from "~/db/schema";
import { getActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { amountsFromTheStart, createRateRecord, updateRateRecord } from "~/models/rate-records.server";
import type { NoteReportFilters } from "~/models/reports/note-scope.server";
import { payrollReport } from "~/models/reports/payroll.server";
import { api, apiToken, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * Decision 039 (2026-11-28, stop 40): a rate/pay record's amounts have a history, and payroll pays each session at
 * the amount in effect on its session date. A raise dated D leaves every period before D as it was (to the cent),
 * splits a period across D into a row per amount, and writes nothing when its date is refused.
 */

const page = { limit: 50, offset: 0 };
let admin: ModelContext;
let token: string;
let cookie: string;
let here: number;
let recordId: number;

const period = (from: string, to: string, notesOnly = false): NoteReportFilters => ({ from, to, locationId: here, providerId: null, patientId: null, notesOnly });

async function history(id: number) {
  return db().select().from(rateRecordAmounts).where(eq(rateRecordAmounts.rateRecordId, id)).orderBy(asc(rateRecordAmounts.effectiveFrom));
}

async function contextAt(now: string, locationIds: number[]): Promise<ModelContext> {
  const user = await createUser({ permissions: ["manage_insurances"], locations: locationIds });
  return { db: db(), actor: (await getActor(db(), "user", user.id))!, ip: "127.0.0.1", now: () => new Date(now) };
}

beforeAll(async () => {
  here = (await createLocation({ title: "Miami Clinic" })).id;
  // A record as it stood before migration 0040, then the migration's backfill (its amounts from the start).
  const [rec] = await db().insert(rateRecords).values({ name: "Miami standard rates", locationId: here, rbt: 22.5, bcba: 50 }).returning();
  recordId = rec!.id;
  await amountsFromTheStart(db());
  const ethan = (await createPatient({ locationId: here, firstName: "Ethan", lastName: "Brown" })).id;
  const jasmine = (await createUser({ role: "RBT", locations: [here], name: "Jasmine" })).id;
  const rows: [string, number][] = [
    // October: 2,656 minutes (a closed month, read from the month sums).
    ["2026-10-02", 600],
    ["2026-10-09", 700],
    ["2026-10-16", 656],
    ["2026-10-31", 700],
    // November: a raise dated the 15th falls between these.
    ["2026-11-03", 60],
    ["2026-11-10", 90],
    ["2026-11-15", 120],
    ["2026-11-25", 30],
  ];
  for (const [sessionDate, minutes] of rows) await db().insert(notes).values({ patientId: ethan, locationId: here, providerId: jasmine, type: "rbt", cptCode: "97153", sessionDate, minutes, units: minutes / 15 });
  const user = await createUser({ permissions: ["manage_notes", "manage_employees", "manage_insurances"], locations: [here] });
  admin = { db: db(), actor: (await getActor(db(), "user", user.id))!, ip: "127.0.0.1", now: () => new Date() };
  token = await apiToken(user);
  cookie = await signInCookie(user);
});

const payOf = (r: { rows: { hourly_rate: number | null; minutes: number; pay_cents: number | null; rate_from: string | null }[] }) =>
  r.rows.map((x) => ({ rate: x.hourly_rate, minutes: x.minutes, pay: x.pay_cents, from: x.rate_from }));

describe("a raise dated D", () => {
  it("leaves the periods before D to the cent, splits a period across D, and keeps the API's shape", async () => {
    const octBefore = await payrollReport(admin, period("2026-10-01", "2026-10-31"), page);
    expect(payOf(octBefore)).toEqual([{ rate: 22.5, minutes: 2656, pay: 99600, from: null }]);
    const before = (await (await api(`/v2/rate-records/${recordId}`, { token })).json()) as { data: Record<string, unknown> };

    const res = await api(`/v2/rate-records/${recordId}`, { method: "PATCH", token, body: { rbt: 23.1, effective_from: "2026-11-15", version: 1 } });
    expect(res.status).toBe(200);
    const saved = (await res.json()) as { data: Record<string, unknown> };
    expect(Object.keys(saved.data).sort()).toEqual(Object.keys(before.data).sort());
    expect(saved.data).toMatchObject({ rbt: 23.1, bcba: 50, version: 2 });
    expect((await history(recordId)).map((h) => [h.effectiveFrom, h.rbtCents, h.bcbaCents])).toEqual([
      ["0001-01-01", 2250, 5000],
      ["2026-11-15", 2310, 5000],
    ]);

    // October (before D): the same report, to the cent.
    expect(await payrollReport(admin, period("2026-10-01", "2026-10-31"), page)).toEqual(octBefore);
    // November: the sessions before the 15th at $22.50, from the 15th at $23.10.
    const nov = await payrollReport(admin, period("2026-11-01", "2026-11-30"), page);
    expect(payOf(nov)).toEqual([
      { rate: 22.5, minutes: 150, pay: 5625, from: null },
      { rate: 23.1, minutes: 150, pay: 5775, from: "2026-11-15" },
    ]);
    expect(nov.totals).toEqual({ minutes: 300, pay_cents: 11400, unpriced_rows: 0 });
    // Whole months from the sums, edge days from the notes: the same as summing every note.
    for (const [from, to] of [
      ["2026-11-01", "2026-11-30"],
      ["2026-10-31", "2026-11-30"],
      ["2026-10-01", "2026-11-30"],
      ["2026-09-01", "2026-12-31"],
      ["2026-11-14", "2026-11-15"],
    ] as const) {
      expect(await payrollReport(admin, period(from, to), page)).toEqual(await payrollReport(admin, period(from, to, true), page));
    }
    const both = await payrollReport(admin, period("2026-10-01", "2026-11-30"), page);
    expect(payOf(both)).toEqual([
      { rate: 22.5, minutes: 2806, pay: 105225, from: null },
      { rate: 23.1, minutes: 150, pay: 5775, from: "2026-11-15" },
    ]);
  });

  it("shows the split on the screen and in the CSV, and the history on the record's screen", async () => {
    const csv = await (await request(`/reports/payroll/export.csv?date_from=2026-11-01&date_to=2026-11-30&location_id=${here}`, { cookie })).text();
    expect(csv).toContain("Jasmine User,Miami Clinic,RBT,2,2.50,Miami standard rates,22.50,56.25");
    expect(csv).toContain("Jasmine User,Miami Clinic,RBT,2,2.50,Miami standard rates (from 2026-11-15),23.10,57.75");
    const oct = await (await request(`/reports/payroll/export.csv?date_from=2026-10-01&date_to=2026-10-31&location_id=${here}`, { cookie })).text();
    expect(oct).toContain("Jasmine User,Miami Clinic,RBT,4,44.27,Miami standard rates,22.50,996.00");
    const screen = await (await request(`/reports/payroll?date_from=2026-11-01&date_to=2026-11-30&location_id=${here}`, { cookie })).text();
    expect(screen).toContain("Miami standard rates (from 2026-11-15)");
    expect(screen).toContain("pay $114.00");
    const edit = await (await request(`/insurance/rates/edit/${recordId}`, { cookie })).text();
    expect(edit).toContain("Amounts history");
    expect(edit).toMatch(/2026-11-15<\/td><td class="num">\$23\.10<\/td><td class="num">\$50\.00/);
    expect(edit).toMatch(/The start<\/td><td class="num">\$22\.50<\/td>/);
  });

  it.each([
    ["not a date", { rbt: 30, effective_from: "2026-02-30" }, "Enter a valid date (YYYY-MM-DD)."],
    ["not text", { rbt: 30, effective_from: 20261120 }, "Enter a valid date (YYYY-MM-DD)."],
    ["after today", { rbt: 30, effective_from: "2999-01-01" }, /^Effective from cannot be after today/],
    ["before the last change", { rbt: 30, effective_from: "2026-11-14" }, "Effective from cannot be before 2026-11-15, the date of the last amount change."],
  ])("refuses a date %s with 422 and writes nothing", async (_what, body, message) => {
    const [rowBefore] = await db().select().from(rateRecords).where(eq(rateRecords.id, recordId));
    const historyBefore = await history(recordId);
    const res = await api(`/v2/rate-records/${recordId}`, { method: "PATCH", token, body });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { errors: Record<string, string> }).errors.effective_from).toEqual(message instanceof RegExp ? expect.stringMatching(message) : message);
    expect((await db().select().from(rateRecords).where(eq(rateRecords.id, recordId)))[0]).toEqual(rowBefore);
    expect(await history(recordId)).toEqual(historyBefore);
  });
});

describe("the amounts' history", () => {
  it("a change on the same date replaces that date's amounts; a name or info change alone adds none", async () => {
    const loc = await createLocation();
    const ctx = await contextAt("2026-11-28T15:00:00Z", [loc.id]);
    const created = await createRateRecord(ctx, { name: "Base", location_id: loc.id, rbt: 20, bcba: 40, effective_from: "2026-01-01" });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const id = created.data.id;
    expect(await updateRateRecord(ctx, id, { rbt: 21, effective_from: "2026-06-01" }, { partial: true, version: null })).toMatchObject({ ok: true });
    expect(await updateRateRecord(ctx, id, { rbt: 21.5, effective_from: "2026-06-01" }, { partial: true, version: null })).toMatchObject({ ok: true, data: { rbt: 21.5 } });
    expect(await updateRateRecord(ctx, id, { name: "Renamed", info: { rbt: ["Hourly"] }, effective_from: "2026-07-01" }, { partial: true, version: null })).toMatchObject({ ok: true, data: { name: "Renamed" } });
    expect((await history(id)).map((h) => [h.effectiveFrom, h.rbtCents, h.bcbaCents])).toEqual([
      ["2026-01-01", 2000, 4000],
      ["2026-06-01", 2150, 4000],
    ]);
    // A stale save (another saved meanwhile) changes neither the record nor its history.
    expect(await updateRateRecord(ctx, id, { rbt: 99 }, { partial: true, version: 1 })).toMatchObject({ ok: false, status: 409 });
    expect((await history(id)).length).toBe(2);
  });

  it.each([
    // 02:00 UTC on the 28th is still the 27th in Los Angeles, already the 28th in London.
    ["America/Los_Angeles", "2026-11-27"],
    ["Europe/London", "2026-11-28"],
  ])("an undated change applies from today at the record's location (%s)", async (timeZone, today) => {
    const loc = await createLocation({ timeZone });
    const ctx = await contextAt("2026-11-28T02:00:00Z", [loc.id]);
    const created = await createRateRecord(ctx, { name: "Zone", location_id: loc.id, rbt: 20 });
    if (!created.ok) throw new Error(JSON.stringify(created));
    expect((await history(created.data.id)).map((h) => h.effectiveFrom)).toEqual([today]);
    const later = await contextAt("2026-12-05T12:00:00Z", [loc.id]);
    expect(await updateRateRecord(later, created.data.id, { rbt: 25 }, { partial: true, version: null })).toMatchObject({ ok: true });
    expect((await history(created.data.id)).map((h) => [h.effectiveFrom, h.rbtCents])).toEqual([
      [today, 2000],
      ["2026-12-05", 2500],
    ]);
  });

  it("the edit form takes the date; a refused one answers 422 with the typed values kept", async () => {
    const loc = await createLocation();
    const user = await createUser({ permissions: ["manage_insurances"], locations: [loc.id] });
    const formCookie = await signInCookie(user);
    const ctx = await contextAt("2026-11-28T15:00:00Z", [loc.id]);
    const created = await createRateRecord(ctx, { name: "Form", location_id: loc.id, rbt: 20, effective_from: "2026-01-01" });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const id = created.data.id;
    const fields = { intent: "save", version: "1", name: "Form", location_id: String(loc.id), rbt: "24", bcba: "", manager: "", client: "", info_rbt: "", info_bcba: "", info_manager: "" };
    const bad = await form(`/insurance/rates/edit/${id}`, { ...fields, effective_from: "2025-12-31" }, formCookie);
    expect(bad.status).toBe(422);
    const html = await bad.text();
    expect(html).toContain("Effective from cannot be before 2026-01-01, the date of the last amount change.");
    expect(html).toMatch(/name="effective_from"[^>]*value="2025-12-31"/);
    expect(await history(id)).toHaveLength(1);
    const ok = await form(`/insurance/rates/edit/${id}`, { ...fields, effective_from: "2026-03-01" }, formCookie);
    expect(ok.status).toBe(303);
    expect((await history(id)).map((h) => [h.effectiveFrom, h.rbtCents])).toEqual([
      ["2026-01-01", 2000],
      ["2026-03-01", 2400],
    ]);
  });

  it("a session before a record's first amounts is not priced (No rate), one after is", async () => {
    const loc = await createLocation({ title: "New Clinic" });
    const ctx = await contextAt("2026-11-28T15:00:00Z", [loc.id]);
    const created = await createRateRecord(ctx, { name: "New", location_id: loc.id, rbt: 30, effective_from: "2026-11-10" });
    if (!created.ok) throw new Error(JSON.stringify(created));
    const client = (await createPatient({ locationId: loc.id })).id;
    const tech = (await createUser({ role: "RBT", locations: [loc.id], name: "Nina" })).id;
    for (const sessionDate of ["2026-11-09", "2026-11-10"]) await db().insert(notes).values({ patientId: client, locationId: loc.id, providerId: tech, type: "rbt", cptCode: "97153", sessionDate, minutes: 60, units: 4 });
    const f: NoteReportFilters = { from: "2026-11-01", to: "2026-11-30", locationId: loc.id, providerId: null, patientId: null };
    const r = await payrollReport(ctx, f, page);
    expect(payOf(r)).toEqual([
      { rate: null, minutes: 60, pay: null, from: null },
      { rate: 30, minutes: 60, pay: 3000, from: "2026-11-10" },
    ]);
    expect(r.totals).toEqual({ minutes: 120, pay_cents: 3000, unpriced_rows: 1 });
  });
});
