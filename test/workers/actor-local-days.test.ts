import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { patients } from "~/db/schema";
import type { Permission } from "~/domain/permissions";
import { getUserActor } from "~/models/actors.server";
import { billingList } from "~/models/client-reports.server";
import type { ModelContext } from "~/models/context";
import { getAdminDashboard } from "~/models/dashboard.server";
import { createLocation, createPatient, createUser, db } from "./helpers";

/**
 * "This month" and "the day" on a screen are the actor's, at their location (decision 039), not UTC's: the billing
 * list's default month agrees with the reports', and the dashboard's "Added" date with its month counts.
 */

async function actorAt(timeZone: string, permissions: readonly Permission[], now: string): Promise<ModelContext & { locationId: number }> {
  const loc = await createLocation({ timeZone });
  const user = await createUser({ permissions, locations: [loc.id] });
  return { db: db(), actor: (await getUserActor(db(), user.id))!, ip: "127.0.0.1", now: () => new Date(now), locationId: loc.id };
}

describe("the billing list's default month is the actor's", () => {
  it.each<[string, string, string, { from: string; to: string }]>([
    ["30 November 20:00 in Los Angeles (1 December UTC): November", "America/Los_Angeles", "2026-12-01T04:00:00Z", { from: "2026-11-01", to: "2026-11-30" }],
    ["30 November 23:00 in Miami (1 December UTC): November", "America/New_York", "2026-12-01T04:00:00Z", { from: "2026-11-01", to: "2026-11-30" }],
    ["1 December 01:00 in Auckland (30 November 12:00 UTC): December", "Pacific/Auckland", "2026-11-30T12:00:00Z", { from: "2026-12-01", to: "2026-12-31" }],
    ["mid-month, everywhere the same: November", "America/Los_Angeles", "2026-11-15T12:00:00Z", { from: "2026-11-01", to: "2026-11-30" }],
  ])("%s", async (_label, zone, now, period) => {
    const ctx = await actorAt(zone, ["manage_claims"], now);
    const res = await billingList(ctx, {});
    expect(res.ok).toBe(true);
    if (res.ok) expect(res.data.period).toEqual(period);
  });
});

describe("the dashboard's recent clients: the day added is the actor's, as the month counts", () => {
  it.each<[string, string, string]>([
    ["added 23:00 in Miami on 31 October (1 November UTC)", "America/New_York", "2026-10-31"],
    ["the same instant is 1 November in Auckland", "Pacific/Auckland", "2026-11-01"],
  ])("%s", async (_label, zone, shown) => {
    const ctx = await actorAt(zone, ["view_clients"], "2026-11-28T12:00:00Z");
    const client = await createPatient({ locationId: ctx.locationId });
    await db().update(patients).set({ createdAt: "2026-11-01T03:00:00.000Z" }).where(eq(patients.id, client.id));
    const d = await getAdminDashboard(ctx.db, ctx.actor, ctx.now(), ctx.ip);
    expect(d.recent_patients?.find((p) => p.id === client.id)?.added_on).toBe(shown);
  });
});
