import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, patients } from "~/db/schema";
import { getUserActor } from "~/models/actors.server";
import { billingList } from "~/models/client-reports.server";
import type { ModelContext } from "~/models/context";
import { countingDb, createLocation, createPatient, createUser, db } from "./helpers";

/**
 * The billing list over whole months reads the month sums (migration 0019; decision 043, stop 22): for every
 * period, filter and actor, it answers the same rows, counts, dates and paging as grouping the notes themselves
 * (`notesOnly`), including notes pending, ok, billed and paid, a soft-deleted note and a deleted client.
 */

let admin: ModelContext;
let local: ModelContext;
let here: number;
let there: number;
let provider: number;

beforeAll(async () => {
  here = (await createLocation({ title: "Here" })).id;
  there = (await createLocation({ title: "There" })).id;
  const clients = [
    await createPatient({ locationId: here, lastName: "Ames" }),
    await createPatient({ locationId: here, lastName: "Boyd" }),
    await createPatient({ locationId: there, lastName: "Cole" }),
    await createPatient({ locationId: here, lastName: "Dunn" }),
  ];
  const gone = await createPatient({ locationId: here, lastName: "Gone" });
  provider = (await createUser({ permissions: ["view_notes"], locations: [here, there], name: "Ben" })).id;
  const dates = ["2026-09-30", "2026-10-01", "2026-10-04", "2026-10-13", "2026-10-31", "2026-11-01", "2026-11-15", "2026-11-30", "2026-12-01"];
  const values: (typeof notes.$inferInsert)[] = [];
  dates.forEach((d, i) => {
    for (let k = 0; k < 5; k++) {
      const c = [...clients, gone][(i + k) % 5]!;
      values.push({
        type: (["rbt", "bcba", "combined"] as const)[(i + k) % 3]!,
        patientId: c.id,
        // A client's note may be written at another location than the client's own.
        locationId: (i + k) % 7 === 0 ? there : c.locationId,
        providerId: provider,
        cptCode: "97153",
        sessionDate: d,
        minutes: 30 + ((i * 7 + k * 11) % 90),
        units: 2 + ((i + k) % 6),
        status: (i + k) % 3 === 0 ? "ok" : "pending",
        billed: (i + k) % 2 === 0,
        paid: (i + k) % 4 === 0,
      });
    }
  });
  values.push({ type: "rbt", patientId: clients[0]!.id, locationId: here, providerId: provider, cptCode: "97153", sessionDate: "2026-10-13", minutes: 500, units: 33, deletedAt: "2026-11-01T00:00:00.000Z" });
  for (let i = 0; i < values.length; i += 4) await db().insert(notes).values(values.slice(i, i + 4));
  // Status, billed and paid changed after the notes were written (the triggers follow them).
  const [first] = await db().select({ id: notes.id }).from(notes).where(eq(notes.sessionDate, "2026-10-04")).limit(1);
  await db().update(notes).set({ status: "ok", billed: true, paid: true }).where(eq(notes.id, first!.id));
  await db().update(patients).set({ deletedAt: "2026-11-05T00:00:00.000Z" }).where(eq(patients.id, gone.id));
  const boss = await createUser({ permissions: ["manage_claims", "access_all_locations"], locations: [here] });
  const clerk = await createUser({ permissions: ["manage_claims"], locations: [here] });
  const ctxOf = async (id: number): Promise<ModelContext> => ({ db: db(), actor: (await getUserActor(db(), id))!, ip: "127.0.0.1", now: () => new Date("2026-11-26T12:00:00Z") });
  admin = await ctxOf(boss.id);
  local = await ctxOf(clerk.id);
});

const periods: [string, Record<string, string>][] = [
  ["the default period (this month)", {}],
  ["one whole month", { date_from: "2026-10-01", date_to: "2026-10-31" }],
  ["two whole months", { date_from: "2026-10-01", date_to: "2026-11-30" }],
  ["three whole months", { date_from: "2026-09-01", date_to: "2026-11-30" }],
  ["a part month (read from the notes)", { date_from: "2026-10-02", date_to: "2026-10-31" }],
  ["a month with a day either side (read from the notes)", { date_from: "2026-09-30", date_to: "2026-11-01" }],
];
const filters: [string, () => Record<string, string>][] = [
  ["no filter", () => ({})],
  ["a location", () => ({ location_id: String(here) })],
  ["another location", () => ({ location_id: String(there) })],
  ["a provider", () => ({ provider_id: String(provider) })],
  ["a status", () => ({ status: "billed" })],
];
const cases = periods.flatMap(([name, period]) => filters.map(([filter, f]) => [name, filter, period, f] as const));

describe("the billing list from the month sums equals the notes alone", () => {
  it.each(cases)("%s, %s", async (_name, _filter, period, f) => {
    for (const ctx of [admin, local]) {
      const query = { ...period, ...f() };
      const fromSums = await billingList(ctx, query);
      const fromNotes = await billingList(ctx, query, { notesOnly: true });
      expect(fromSums).toEqual(fromNotes);
    }
  });

  it("the cases compare real rows: October has clients with billed, paid and pending notes", async () => {
    const r = await billingList(admin, { date_from: "2026-10-01", date_to: "2026-10-31" });
    if (!r.ok) throw new Error("refused");
    const rows = r.data.page.data;
    expect(rows.length).toBeGreaterThanOrEqual(3);
    expect(rows.some((x) => x.billed > 0 && x.paid > 0 && x.pending > 0 && x.unbilled > 0)).toBe(true);
    expect(rows.map((x) => x.patient_name)).not.toContain(expect.stringContaining("Gone"));
    expect(rows.every((x) => x.first_date >= "2026-10-01" && x.last_date <= "2026-10-31" && x.first_date <= x.last_date)).toBe(true);
  });

  it("whole months read no note rows for the grouping: the plan searches the month sums", async () => {
    const counted = countingDb();
    const r = await billingList({ ...admin, db: counted.db }, { date_from: "2026-10-01", date_to: "2026-10-31", location_id: String(here) });
    expect(r.ok).toBe(true);
    const page = counted.queries().find((s) => s.includes("count(*) over ()"))!;
    expect(page).toContain("note_month_client_totals");
    expect(page).not.toMatch(/group by "notes"/);
    expect(counted.roundTrips()).toBeLessThanOrEqual(2);
  });
});
