import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { rateRecords } from "~/db/schema";
import type { ListQuery } from "~/domain/paging";
import { getActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { createRateRecord, deleteRateRecord, getRateRecord, listRateRecords, updateRateRecord } from "~/models/rate-records.server";
import { createLocation, createUser, db } from "./helpers";

/** Rate/pay records (platform §3), through the model (the API router is not mounted yet). */

async function contextFor(locationIds: number[], role?: string): Promise<ModelContext> {
  const user = await createUser({ permissions: ["manage_insurances"], locations: locationIds, role });
  const actor = await getActor(db(), "user", user.id);
  return { db: db(), actor: actor!, ip: "127.0.0.1", now: () => new Date() };
}
const query: ListQuery = { page: 1, per_page: 100, search: "", date_from: "", date_to: "", cache: false };

describe("rate records", () => {
  it("creates, reads, updates (versioned) and soft-deletes within the actor's locations", async () => {
    const loc = await createLocation();
    const ctx = await contextFor([loc.id]);
    const created = await createRateRecord(ctx, { name: "Standard", location_id: loc.id, rbt: 20, bcba: "45.5", client: 60, info: { rbt: ["Per hour", " "], bcba: [], manager: ["Monthly"] } });
    expect(created.ok).toBe(true);
    if (!created.ok) return;
    expect(created.data).toMatchObject({ name: "Standard", rbt: 20, bcba: 45.5, manager: null, client: 60, info: { rbt: ["Per hour"], bcba: [], manager: ["Monthly"] }, version: 1 });

    const updated = await updateRateRecord(ctx, created.data.id, { rbt: 22 }, { partial: true, version: 1 });
    expect(updated).toMatchObject({ ok: true, data: { rbt: 22, bcba: 45.5, version: 2 } });
    const stale = await updateRateRecord(ctx, created.data.id, { rbt: 99 }, { partial: true, version: 1 });
    expect(stale).toMatchObject({ ok: false, status: 409, current: { rbt: 22 } });

    expect((await listRateRecords(ctx, query)).data.map((r) => r.id)).toEqual([created.data.id]);
    expect(await deleteRateRecord(ctx, created.data.id)).toMatchObject({ ok: true });
    expect(await getRateRecord(ctx, created.data.id)).toBeNull();
    const [row] = await db().select().from(rateRecords).where(eq(rateRecords.id, created.data.id));
    expect(row!.deletedAt).not.toBeNull();
  });

  it("hides another location's records (404) and refuses to write into one", async () => {
    const mine = await createLocation();
    const other = await createLocation();
    const ctx = await contextFor([mine.id]);
    const [theirs] = await db().insert(rateRecords).values({ name: "Theirs", locationId: other.id }).returning();
    expect(await getRateRecord(ctx, theirs!.id)).toBeNull();
    expect((await listRateRecords(ctx, query)).data.find((r) => r.id === theirs!.id)).toBeUndefined();
    expect(await updateRateRecord(ctx, theirs!.id, { name: "Mine now", location_id: mine.id }, { partial: false, version: null })).toMatchObject({ ok: false, status: 404 });
    expect(await deleteRateRecord(ctx, theirs!.id)).toMatchObject({ ok: false, status: 404 });
    expect(await createRateRecord(ctx, { name: "Sneaky", location_id: other.id })).toMatchObject({ ok: false, status: 422, errors: { location_id: "Choose a valid option." } });
  });

  it.each([
    [{ name: "" }, "name", "Name is required."],
    [{ name: "No place", location_id: "" }, "location_id", "Location is required."],
    [{ name: "Negative", rbt: -1 }, "rbt", "RBT amount must be 0 or more."],
    [{ name: "Bad info", info: { rbt: "x".repeat(256) } }, "info", "RBT info lines must be at most 255 characters."],
  ])("refuses bad input with 422 and writes nothing (%#)", async (input, field, message) => {
    const loc = await createLocation();
    const ctx = await contextFor([loc.id]);
    const before = await db().select().from(rateRecords);
    const result = await createRateRecord(ctx, { location_id: loc.id, ...input });
    expect(result.ok).toBe(false);
    if (!result.ok && result.status === 422) expect(Object.entries(result.errors).find(([k]) => k.startsWith(field))?.[1]).toBe(message);
    else throw new Error("expected 422");
    expect(await db().select().from(rateRecords)).toHaveLength(before.length);
  });
});
