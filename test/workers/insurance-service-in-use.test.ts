import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, insurances, insuranceServices, notes, paServices, patients } from "~/db/schema";
import { getActor } from "~/models/actors.server";
import { deleteInsuranceService } from "~/models/insurances.server";
import { SERVICE_IN_USE } from "~/domain/insurance";
import { api, apiToken, beforeWriteDb, createLocation, createPatient, createUser, db, form, request, signInCookie } from "./helpers";

/**
 * An insurer's price (service) that notes are priced by is not deleted (decision 017, stop 40): their charges would
 * fall to $0.00. "Priced by" is the price function's own pick, so a price shadowed for those notes, a price of
 * another provider type, and notes priced otherwise (a price of their own, a deleted note or client) do not hold it.
 */

let seq = 0;
async function payer() {
  seq++;
  const location = await createLocation({ title: `Priced Clinic ${seq}` });
  const [insurer] = await db().insert(insurances).values({ name: `Priced Plan ${seq}`, payerId: "PP01" }).returning();
  const service = async (over: Partial<typeof insuranceServices.$inferInsert>) =>
    (await db().insert(insuranceServices).values({ insuranceId: insurer!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 18.25, ...over }).returning())[0]!;
  const rbtPrice = await service({});
  const bcbaPrice = await service({ provider: "bcba", type: "bcba", unitPrice: 30 });
  const otherCpt = await service({ cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 40 });
  const rbt = await createUser({ role: "RBT", permissions: ["view_notes"], locations: [location.id] });
  const note = async (patientId: number, over: Partial<typeof notes.$inferInsert> = {}) =>
    (await db().insert(notes).values({ type: "rbt", patientId, locationId: location.id, providerId: rbt.id, cptCode: "97153", sessionDate: "2026-11-23", timeIn: "09:00", timeOut: "10:00", minutes: 60, units: 4, ...over }).returning())[0]!;
  const client = await createPatient({ locationId: location.id, insurerId: insurer!.id });
  await note(client.id);
  await note(client.id, { timeIn: "11:00", timeOut: "12:00" });
  // Priced otherwise: its own price, a deleted note, a deleted client's note.
  await note(client.id, { timeIn: "13:00", timeOut: "14:00", unitPriceCents: 2000 });
  await note(client.id, { timeIn: "15:00", timeOut: "16:00", deletedAt: "2026-11-24T00:00:00.000Z" });
  const gone = await createPatient({ locationId: location.id, insurerId: insurer!.id });
  await note(gone.id);
  await db().update(patients).set({ deletedAt: "2026-11-24T00:00:00.000Z" }).where(eq(patients.id, gone.id));
  // A client of another insurer whose PA service bills this one: the PA service's insurer is the payer.
  const [elsewhere] = await db().insert(insurances).values({ name: `Other Plan ${seq}`, payerId: "OP01" }).returning();
  const third = await createPatient({ locationId: location.id, insurerId: elsewhere!.id });
  const [pa] = await db().insert(paServices).values({ patientId: third.id, paService: `PA-P${seq}`, cpt: "97153", nUnits: 100, startDate: "2026-11-01", endDate: "2027-04-30", insuranceId: insurer!.id }).returning();
  await note(third.id, { paServiceId: pa!.id });
  const manager = await createUser({ permissions: ["manage_insurances"], locations: [location.id] });
  return { location, insurer: insurer!, rbtPrice, bcbaPrice, otherCpt, service, token: await apiToken(manager), cookie: await signInCookie(manager) };
}

const deleteAudits = async (id: number) => (await db().select().from(auditLog).where(and(eq(auditLog.entity, "insurance_service"), eq(auditLog.action, "delete"), eq(auditLog.entityId, String(id))))).length;
const liveService = async (id: number) => (await db().select().from(insuranceServices).where(eq(insuranceServices.id, id)))[0]!.deletedAt === null;

describe("deleting an insurer's price that notes are priced by (decision 017, stop 40)", () => {
  it("the API refuses it with the count and deletes nothing; unused prices still delete", async () => {
    const p = await payer();
    const refused = await api(`/insurance/destroy/service/${p.rbtPrice.id}`, { method: "DELETE", token: p.token });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toBe(SERVICE_IN_USE(3));
    expect(SERVICE_IN_USE(3)).toBe("3 note(s) are priced by this service: deleting it would leave them with no price ($0.00). Change its price instead, or delete it once generated claims bill those notes.");
    expect(await liveService(p.rbtPrice.id)).toBe(true);
    for (const unused of [p.bcbaPrice, p.otherCpt]) {
      const res = await api(`/insurance/destroy/service/${unused.id}`, { method: "DELETE", token: p.token });
      expect(res.status, await res.clone().text()).toBe(200);
      expect(await liveService(unused.id)).toBe(false);
    }
  });

  it("a note written between the in-use read and the delete: the delete writes nothing and is refused with the count (decision 017, stop 41)", async () => {
    const p = await payer();
    const manager = await createUser({ permissions: ["manage_insurances"], locations: [p.location.id] });
    const actor = (await getActor(db(), "user", manager.id))!;
    const client = await createPatient({ locationId: p.location.id, insurerId: p.insurer.id });
    // The BCBA price prices no note when read; a BCBA-type note written before the write makes it in use.
    const racing = beforeWriteDb(() => db().insert(notes).values({ type: "bcba", patientId: client.id, locationId: p.location.id, cptCode: "97153", sessionDate: "2026-11-25", timeIn: "09:00", timeOut: "10:00", minutes: 60, units: 4 }), 1);
    const result = await deleteInsuranceService({ db: racing, actor, ip: "127.0.0.1", now: () => new Date() }, p.bcbaPrice.id);
    expect(result).toMatchObject({ ok: false, status: 422, message: SERVICE_IN_USE(1) });
    expect(await liveService(p.bcbaPrice.id)).toBe(true);
    expect(await deleteAudits(p.bcbaPrice.id)).toBe(0);
  });

  it("a note the read saw priced by another price does not hold the delete; an unused price deletes with one audit row", async () => {
    const p = await payer();
    const shadow = await p.service({ locationId: p.location.id, unitPrice: 19 });
    const res = await api(`/insurance/destroy/service/${p.rbtPrice.id}`, { method: "DELETE", token: p.token });
    expect(res.status, await res.clone().text()).toBe(200);
    expect(await liveService(p.rbtPrice.id)).toBe(false);
    expect(await deleteAudits(p.rbtPrice.id)).toBe(1);
    // The location's own price now prices those notes: refused with the count.
    const refused = await api(`/insurance/destroy/service/${shadow.id}`, { method: "DELETE", token: p.token });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { message: string }).message).toBe(SERVICE_IN_USE(3));
  });

  it("a price the pick no longer takes for those notes (the location's own price shadows it) deletes", async () => {
    const p = await payer();
    await p.service({ locationId: p.location.id, unitPrice: 19 });
    const res = await api(`/insurance/destroy/service/${p.rbtPrice.id}`, { method: "DELETE", token: p.token });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("the screen's confirm step says how many notes it prices, and its delete is refused with the message", async () => {
    const p = await payer();
    const here = `/insurance/list/edit/${p.insurer.id}`;
    const step = await (await request(`${here}?confirm=delete-service-${p.rbtPrice.id}`, { cookie: p.cookie })).text();
    expect(step).toContain("3 note(s) are priced by this service");
    const unusedStep = await (await request(`${here}?confirm=delete-service-${p.otherCpt.id}`, { cookie: p.cookie })).text();
    expect(unusedStep).not.toContain("priced by this service");
    const res = await form(here, { intent: "delete-service", service_id: String(p.rbtPrice.id), confirmed: "yes" }, p.cookie);
    expect(res.status).toBe(422);
    expect(await res.text()).toContain("3 note(s) are priced by this service");
    expect(await liveService(p.rbtPrice.id)).toBe(true);
    expect((await form(here, { intent: "delete-service", service_id: String(p.otherCpt.id), confirmed: "yes" }, p.cookie)).status).toBe(303);
  });
});
