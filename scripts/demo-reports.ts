import { sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { rateRecordAmounts, rateRecords } from "../app/db/schema";

/**
 * Demo data for the operations reports (decision 039): a rate/pay record per demo location, so the payroll
 * report prices the demo notes' hours (RBT notes at the rbt amount, BCBA and combined at the bcba amount).
 * The hours, supervision, caseload and CPT reports read the demo notes; ticket support the demo tickets.
 * Idempotent: fixed ids, upserted.
 */
export const DEMO_RATE_RECORDS = [
  {
    id: 1,
    name: "Miami standard rates",
    locationId: 1,
    rbt: 22.5,
    bcba: 65,
    manager: 40,
    client: 0,
    info: JSON.stringify({
      rbt: ["Hourly, direct sessions"],
      bcba: ["Hourly, supervision and assessment"],
      manager: [],
    }),
  },
  {
    id: 2,
    name: "Denver standard rates",
    locationId: 2,
    rbt: 21,
    bcba: 62.5,
    manager: 38,
    client: 0,
    info: JSON.stringify({ rbt: ["Hourly"], bcba: ["Hourly"], manager: [] }),
  },
  {
    id: 3,
    name: "Los Angeles standard rates",
    locationId: 3,
    rbt: 25,
    bcba: 70,
    manager: 45,
    client: 0,
    info: JSON.stringify({ rbt: ["Hourly"], bcba: ["Hourly"], manager: [] }),
  },
];

export async function seedDemoReports(db: Db): Promise<void> {
  await db
    .insert(rateRecords)
    .values(DEMO_RATE_RECORDS)
    .onConflictDoUpdate({
      target: rateRecords.id,
      set: {
        name: sql`excluded.name`,
        locationId: sql`excluded.location_id`,
        rbt: sql`excluded.rbt`,
        bcba: sql`excluded.bcba`,
        manager: sql`excluded.manager`,
        client: sql`excluded.client`,
        info: sql`excluded.info`,
      },
    });
  // Their amounts from the start (decision 039, stop 40: payroll reads the amounts in effect on each session date).
  await db
    .insert(rateRecordAmounts)
    .values(
      DEMO_RATE_RECORDS.map((r) => ({
        rateRecordId: r.id,
        effectiveFrom: "0001-01-01",
        rbtCents: Math.round(r.rbt * 100),
        bcbaCents: Math.round(r.bcba * 100),
        managerCents: Math.round(r.manager * 100),
        clientCents: Math.round(r.client * 100),
      })),
    )
    .onConflictDoUpdate({
      target: [rateRecordAmounts.rateRecordId, rateRecordAmounts.effectiveFrom],
      set: { rbtCents: sql`excluded.rbt_cents`, bcbaCents: sql`excluded.bcba_cents`, managerCents: sql`excluded.manager_cents`, clientCents: sql`excluded.client_cents` },
    });
}
