import { sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { rateRecords } from "../app/db/schema";

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
}
