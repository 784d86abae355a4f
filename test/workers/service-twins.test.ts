import { and, eq, isNull } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insurances, insuranceServices } from "~/db/schema";
import { api, apiToken, createLocation, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * An insurer prices a CPT + modifier set + provider + location once (probe 8974 §1, decision 044): a second such
 * service would never be used by billing (`pickService` keeps the oldest), so creating or editing a service into a
 * twin of a live one is refused on `code`, naming the one that prices notes; twins already stored are marked on
 * the insurer's service tables.
 */

let seq = 0;
async function insurer() {
  const [row] = await db().insert(insurances).values({ name: `Twin Health ${Date.now().toString(36)}${++seq}`, payerId: "TWN01" }).returning();
  return row!;
}
async function service(insuranceId: number, over: Partial<typeof insuranceServices.$inferInsert> = {}) {
  const [row] = await db()
    .insert(insuranceServices)
    .values({ insuranceId, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", unitPrice: 17.25, ...over })
    .returning();
  return row!;
}
const liveServices = async (insuranceId: number) => db().select().from(insuranceServices).where(and(eq(insuranceServices.insuranceId, insuranceId), isNull(insuranceServices.deletedAt)));
const admin = () => createUser({ permissions: ["manage_insurances"] });

describe("a twin of a live service is refused (API)", () => {
  const twins: [string, Partial<typeof insuranceServices.$inferInsert>, Record<string, unknown>][] = [
    ["the same code, provider and location", {}, { code: "97153 HM", provider: "rbt" }],
    ["modifiers in another order (the lookup compares them as a set)", { modifiers: "HM-GT" }, { code: "97153 GT HM", provider: "rbt" }],
    ["modifiers typed in lower case with dashes", { modifiers: "HM-GT" }, { code: "97153-gt-hm", provider: "RBT" }],
    ["two all-provider services (no provider, or one the lookup never matches)", { modifiers: "", provider: "", type: "all" }, { code: "97153", provider: "therapist" }],
  ];
  it.each(twins)("%s → 422 on code naming the service, nothing written", async (_, stored, body) => {
    const i = await insurer();
    const first = await service(i.id, stored);
    const token = await apiToken(await admin());
    const res = await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: i.id, unit_price: 16.25, ...body } });
    expect(res.status, await res.clone().text()).toBe(422);
    const answer = (await res.json()) as { errors: Record<string, string> };
    expect(answer.errors.code).toContain(`service ${first.id} (`);
    expect(answer.errors.code).toContain("All locations");
    expect(await liveServices(i.id)).toHaveLength(1);
  });

  const distinct: [string, Partial<typeof insuranceServices.$inferInsert>, Record<string, unknown>][] = [
    ["other modifiers", {}, { code: "97153 HM GT", provider: "rbt" }],
    ["no modifiers", {}, { code: "97153", provider: "rbt" }],
    ["another provider type", {}, { code: "97153 HM", provider: "" }],
    ["BCaBA beside BCBA (the lookup prefers the exact provider)", { cptCode: "97155", modifiers: "HO", provider: "bcba", type: "bcba" }, { code: "97155 HO", provider: "bcaba" }],
  ];
  it.each(distinct)("%s is another service → 201", async (_, stored, body) => {
    const i = await insurer();
    await service(i.id, stored);
    const token = await apiToken(await admin());
    const res = await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: i.id, unit_price: 16.25, ...body } });
    expect(res.status, await res.clone().text()).toBe(201);
    expect(await liveServices(i.id)).toHaveLength(2);
  });

  it("another location, another insurer or a deleted service is not a twin", async () => {
    const i = await insurer();
    const location = await createLocation({ title: `Denver ${Date.now().toString(36)}` });
    await service(i.id);
    await service(i.id, { locationId: location.id, deletedAt: "2026-11-01T00:00:00.000Z" });
    const other = await insurer();
    await service(other.id, { locationId: location.id });
    const token = await apiToken(await createUser({ permissions: ["manage_insurances"], locations: [location.id] }));
    const res = await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: i.id, code: "97153 HM", provider: "rbt", unit_price: 16.25, location_id: location.id } });
    expect(res.status, await res.clone().text()).toBe(201);
    // And now that location has its own price, a second one there is a twin, named with the location.
    const again = await api("/insurance/store/service", { method: "POST", token, body: { insurance_id: i.id, code: "97153 HM", provider: "rbt", unit_price: 15, location_id: location.id } });
    expect(again.status).toBe(422);
    expect(((await again.json()) as { errors: { code: string } }).errors.code).toContain(location.title);
  });

  it("an update into a twin is refused (PUT and PATCH); re-pricing a service itself is not", async () => {
    const i = await insurer();
    const hm = await service(i.id);
    const plain = await service(i.id, { modifiers: "", unitPrice: 15 });
    const token = await apiToken(await admin());
    const patch = await api(`/insurance/update/service/${plain.id}`, { method: "PATCH", token, body: { code: "97153 HM" } });
    expect(patch.status).toBe(422);
    expect(((await patch.json()) as { errors: { code: string } }).errors.code).toContain(`service ${hm.id} (`);
    const put = await api(`/insurance/update/service/${plain.id}`, { method: "PUT", token, body: { code: "97153 HM", provider: "rbt", unit_price: 15 } });
    expect(put.status).toBe(422);
    const [still] = await db().select().from(insuranceServices).where(eq(insuranceServices.id, plain.id));
    expect(still).toMatchObject({ modifiers: "", version: 1 });
    const own = await api(`/insurance/update/service/${hm.id}`, { method: "PATCH", token, body: { unit_price: 20 } });
    expect(own.status, await own.clone().text()).toBe(200);
  });
});

describe("the insurer's edit screen (JavaScript off)", () => {
  it("refuses a twin with the message at the code and keeps the typed values", async () => {
    const i = await insurer();
    const first = await service(i.id, { cptCode: "97155", modifiers: "HO", provider: "bcba", type: "bcba", unitPrice: 30.75 });
    const cookie = await signInCookie(await admin());
    const res = await form(`/insurance/list/edit/${i.id}`, { intent: "add-service", code: "97155 HO", provider: "bcba", unit_price: "99", multiplier: "1", location_id: "", description: "New rate" }, cookie);
    expect(res.status).toBe(422);
    const html = await res.text();
    expect(html).toContain(`service ${first.id} (97155 HO, bcba, All locations`);
    expect(html).toContain('value="99"');
    expect(html).toContain('value="New rate"');
    expect(await liveServices(i.id)).toHaveLength(1);
  });

  it("marks which of stored twins prices notes, on the edit and view pages", async () => {
    const i = await insurer();
    const used = await service(i.id, { unitPrice: 17.25 });
    const twin = await service(i.id, { modifiers: "HM", unitPrice: 16.25 });
    const alone = await service(i.id, { cptCode: "97155", modifiers: "HO", provider: "bcba", type: "bcba", unitPrice: 30 });
    const cookie = await signInCookie(await admin());
    for (const path of [`/insurance/list/edit/${i.id}`, `/insurance/view/${i.id}`]) {
      const html = await (await request(path, { cookie })).text();
      expect(html).toContain(`Prices notes (service ${twin.id} is a duplicate)`);
      expect(html).toContain(`Not used: service ${used.id} prices this code. Delete this one.`);
      expect(html).not.toContain(`service ${alone.id} is a duplicate`);
    }
  });
});
