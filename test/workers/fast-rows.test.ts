import { asc, count, eq, isNull, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { beforeAll, describe, expect, it } from "vitest";
import { fastRows } from "~/db/fast-rows.server";
import { clientReports, insurances, notes, paServices, patients, users } from "~/db/schema";
import { createLocation, createPatient, createUser, db } from "./helpers";

/**
 * fastRows (app/db/fast-rows.server.ts; decision 042, 2026-11-26 (stop 19)) maps a batch's rows without drizzle's
 * per-cell checks. Every read below runs twice in ONE batch, mapped by drizzle and by fastRows, and the two
 * answers must be equal: columns and their decoders (booleans), aliased SQL, nested objects, a left-joined
 * table's object that drizzle turns into null (or keeps), a subquery's fields, distinct, and no rows.
 */

const o = alias(notes, "o");

beforeAll(async () => {
  const loc = await createLocation();
  const [ins] = await db().insert(insurances).values({ name: "Fast Payer", payerId: "PAYER1" }).returning();
  const client = await createPatient({ locationId: loc.id, insurerId: ins!.id, firstName: "Fay", lastName: "Rows" });
  const bare = await createPatient({ locationId: loc.id, firstName: "Bo", lastName: "Bare" });
  const provider = await createUser({ permissions: ["view_notes"], locations: [loc.id], name: "Pia" });
  const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "Direct", cpt: "97153", nUnits: 100, startDate: "2026-01-01", endDate: "2026-12-31", insuranceId: ins!.id }).returning();
  const base = { locationId: loc.id, cptCode: "97153", pos: "12", diagnosisCode: "F84.0", timeIn: "09:00", timeOut: "10:00", minutes: 60, units: 4 };
  // A PA service without an insurer: drizzle makes the joined object null when its FIRST column is null.
  const [paBare] = await db().insert(paServices).values({ patientId: bare.id, paService: "No payer", cpt: "97153", nUnits: 50, startDate: "2026-01-01", endDate: "2026-12-31", insuranceId: null }).returning();
  const [n1] = await db()
    .insert(notes)
    .values([
      { ...base, type: "rbt" as const, patientId: client.id, providerId: provider.id, paServiceId: pa!.id, sessionDate: "2026-03-02", billed: true, paid: false, md: "XP", startAt: 1000, endAt: 1060 },
      { ...base, type: "bcba" as const, patientId: client.id, providerId: null, sessionDate: "2026-03-02", billed: false, paid: true, providerName: "Legacy Name", startAt: 1100, endAt: 1160 },
      { ...base, type: "rbt" as const, patientId: bare.id, providerId: provider.id, paServiceId: paBare!.id, sessionDate: "2026-03-03", startAt: 2000, endAt: 2060 },
    ])
    .returning();
  await db().insert(clientReports).values({ noteId: n1!.id, noteType: "rbt", patientId: client.id, locationId: loc.id, insurerId: ins!.id, sessionDate: "2026-03-02", pos: "12", minutes: 60, cptCode: "97153", units: 4, unitPriceCents: 1500, multiplier: 1, chargesCents: 6000, xpCents: 0, billed: true, pay: false });
});

async function bothWays(read: () => unknown) {
  const [drizzles, fast] = (await db().batch([read(), fastRows(read() as never)] as never)) as unknown as [unknown[], unknown[]];
  return { drizzles, fast };
}

describe("fastRows maps a batch's rows as drizzle does", () => {
  const reads: [string, () => unknown][] = [
    [
      "columns, booleans, aliased SQL and left-joined objects (null, kept, or partly null)",
      () =>
        db()
          .select({
            n: { id: notes.id, type: notes.type, billed: notes.billed, paid: notes.paid, md: notes.md, md2: notes.md2, sessionDate: notes.sessionDate },
            providerName: sql<string>`coalesce(trim(${users.name} || ' ' || ${users.surname}), ${notes.providerName})`.as("prov_name"),
            pa: { insurer: paServices.insuranceId, name: paServices.paService, units: paServices.nUnits },
            cr: { charges: clientReports.chargesCents, pay: clientReports.pay },
            mixed: { start: notes.startAt, multiplier: clientReports.multiplier },
            aliased: { id: sql<number | null>`${clientReports.id}`.mapWith(Number).as("cr_id_alias"), pay: sql`${clientReports.pay}`.mapWith(clientReports.pay).as("cr_pay_alias") },
            flag: sql<number>`${notes.billed} + 0`.mapWith(Boolean).as("flag"),
          })
          .from(notes)
          .leftJoin(users, eq(users.id, notes.providerId))
          .leftJoin(paServices, eq(paServices.id, notes.paServiceId))
          .leftJoin(clientReports, eq(clientReports.noteId, notes.id))
          .orderBy(asc(notes.id)),
    ],
    [
      "a grouped subquery's fields joined to a table, with a window count",
      () => {
        const g = db()
          .select({ patientId: notes.patientId, n: sql<number>`count(*)`.as("n_notes"), billed: sql<number>`sum(${notes.billed})`.as("n_billed"), first: sql<string>`min(${notes.sessionDate})`.as("first_d") })
          .from(notes)
          .groupBy(notes.patientId)
          .as("g");
        return db()
          .select({ g: { patientId: g.patientId, n: g.n, billed: g.billed, first: g.first }, name: patients.firstName, insurer: { id: insurances.id, name: insurances.name }, total: sql<number>`count(*) over ()`.as("total_n") })
          .from(g)
          .innerJoin(patients, eq(patients.id, g.patientId))
          .leftJoin(insurances, eq(insurances.id, patients.insurerId))
          .orderBy(asc(patients.lastName));
      },
    ],
    [
      "distinct rows of an aliased table",
      () => db().selectDistinct({ id: o.id, patientId: o.patientId, date: o.sessionDate, billed: o.billed }).from(notes).innerJoin(o, eq(o.patientId, notes.patientId)).orderBy(asc(o.id)),
    ],
    ["a count", () => db().select({ n: count() }).from(notes)],
    ["no rows", () => db().select({ id: notes.id, billed: notes.billed, pa: { id: paServices.id } }).from(notes).leftJoin(paServices, eq(paServices.id, notes.paServiceId)).where(isNull(notes.sessionDate))],
  ];

  it.each(reads)("%s", async (_, read) => {
    const { drizzles, fast } = await bothWays(read);
    expect(fast).toEqual(drizzles);
    // toEqual treats undefined and absent keys alike; the JSON (what a screen hands on) must match too.
    expect(JSON.stringify(fast)).toBe(JSON.stringify(drizzles));
  });

  it("the first read shows each case it is meant to cover", async () => {
    const { fast } = await bothWays(reads[0]![1]);
    const rows = fast as { n: { billed: boolean; paid: boolean }; pa: unknown; cr: unknown; mixed: unknown; flag: boolean }[];
    expect(rows.map((r) => [r.n.billed, r.n.paid, r.flag])).toEqual([
      [true, false, true],
      [false, true, false],
      [false, false, false],
    ]);
    // Note 1 has an insured PA service; note 2 none; note 3 one without an insurer (first column null).
    expect(rows.map((r) => r.pa === null)).toEqual([false, true, true]);
    expect(rows.map((r) => r.cr === null)).toEqual([false, true, true]);
    expect(rows.every((r) => r.mixed !== null)).toBe(true);
  });
});
