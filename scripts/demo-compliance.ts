import { and, inArray, isNotNull, sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { userLocations } from "../app/db/schema";
import { DEMO_USER_IDS } from "./demo-ids";

/**
 * Demo compliance dates for the expiration-dates report (decision 038): every demo employee's location entries (scripts/demo-ids.ts; a clinic's own staff keep theirs) get
 * a CPR date, a BACB license date and a driver license date spread around today, so some are expired, some due
 * within 30 days and the rest OK. Entries that already have dates keep them. Idempotent.
 */
export async function seedDemoComplianceDates(db: Db, now = new Date()): Promise<void> {
  const today = now.toISOString().slice(0, 10);
  await db
    .update(userLocations)
    .set({
      compliance: sql`json_object('cpr_every_2_years', date(${today}, ((${userLocations.userId} * 7) % 60 - 15) || ' days'), 'bacb_license_expiration', date(${today}, ((${userLocations.userId} * 13) % 120 - 10) || ' days'), 'driver_license_expiration', date(${today}, ((${userLocations.userId} * 29) % 400 + 20) || ' days'))`,
    })
    .where(and(sql`${userLocations.compliance} = '{}'`, isNotNull(userLocations.userId), inArray(userLocations.userId, [...DEMO_USER_IDS])));
}
