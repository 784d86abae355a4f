import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, insurances, insuranceServices, notes, paServices } from "~/db/schema";
import { getActor } from "~/models/actors.server";
import { updateInsuranceService } from "~/models/insurances.server";
import { SERVICE_COVERS_PA, SERVICE_IN_USE, SERVICE_MATCH_IN_USE } from "~/domain/insurance";
import { api, apiToken, beforeWriteDb, createLocation, createPatient, createUser, db, form, signInCookie } from "./helpers";

/**
 * An edit of an insurer's price that changes what it matches (its code with modifiers, its provider type, its
 * location) is refused while notes are priced by it, as its delete is (decision 017, stop 40 and stop 44): their
 * charges would fall to $0.00. An edit of its CPT (or its delete) is also refused while PA services billed to the
 * insurer authorize that CPT and no other price of it covers the CPT (decision 031's coverage). Re-pricing passes.
 */

let seq = 0;
async function payer() {
  seq++;
  const location = await createLocation({ title: `Edited Clinic ${seq}` });
  const [insurer] = await db().insert(insurances).values({ name: `Edited Plan ${seq}`, payerId: "EP01" }).returning();
  const service = async (over: Partial<typeof insuranceServices.$inferInsert>) =>
    (await db().insert(insuranceServices).values({ insuranceId: insurer!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 18.25, description: "RBT", ...over }).returning())[0]!;
  const prices = {
    // Prices the client's two RBT notes.
    rbt: await service({}),
    // Prices nothing (no BCBA note), its CPT still covered by the RBT price.
    bcba: await service({ provider: "bcba", type: "bcba", unitPrice: 30 }),
    // The only price of CPT 97155, which a PA service naming the insurer authorizes.
    cpt97155: await service({ cptCode: "97155", provider: "bcba", type: "bcba", unitPrice: 40 }),
    // The only price of CPT 97151, which a PA service naming no insurer, of a client whose primary insurer this is, authorizes.
    cpt97151: await service({ cptCode: "97151", provider: "bcba", type: "bcba", unitPrice: 45 }),
    // Used by nothing.
    unused: await service({ cptCode: "97156", provider: "bcba", type: "bcba", unitPrice: 50 }),
  };
  const rbt = await createUser({ role: "RBT", permissions: ["view_notes"], locations: [location.id] });
  const client = await createPatient({ locationId: location.id, insurerId: insurer!.id });
  for (const timeIn of ["09:00", "11:00"])
    await db().insert(notes).values({ type: "rbt", patientId: client.id, locationId: location.id, providerId: rbt.id, cptCode: "97153", sessionDate: "2026-11-23", timeIn, timeOut: `${Number(timeIn.slice(0, 2)) + 1}:00`, minutes: 60, units: 4 });
  await db().insert(paServices).values({ patientId: client.id, paService: `Named ${seq}`, cpt: "97155", nUnits: 100, startDate: "2026-11-01", endDate: "2027-04-30", insuranceId: insurer!.id });
  const other = await createPatient({ locationId: location.id, insurerId: insurer!.id });
  await db().insert(paServices).values({ patientId: other.id, paService: `Unnamed ${seq}`, cpt: "97151", nUnits: 100, startDate: "2026-11-01", endDate: "2027-04-30", insuranceId: null });
  const manager = await createUser({ permissions: ["manage_insurances", "manage_claims", "view_clients"], locations: [location.id] });
  return { location, insurer: insurer!, prices, service, client, manager, token: await apiToken(manager), cookie: await signInCookie(manager) };
}
type Payer = Awaited<ReturnType<typeof payer>>;

const row = async (id: number) => (await db().select().from(insuranceServices).where(eq(insuranceServices.id, id)))[0]!;
const updateAudits = async (id: number) => (await db().select().from(auditLog).where(and(eq(auditLog.entity, "insurance_service"), eq(auditLog.action, "update"), eq(auditLog.entityId, String(id))))).length;
/** The client's billing rows as the report by client prices them: unit price and charges of each note. */
async function charges(p: Payer) {
  const res = await api(`/client_report/byprofile/${p.client.id}`, { token: p.token });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { noteRbts: { unit_price_cents: number; charges_cents: number }[] };
  return body.noteRbts.map((n) => [n.unit_price_cents, n.charges_cents]);
}

type Price = keyof Payer["prices"];
// label, price edited, PATCH body, refused errors (null: saved)
const edits: [label: string, price: Price, body: (p: Payer) => Record<string, unknown>, errors: ((p: Payer) => Record<string, string>) | null][] = [
  ["another CPT for a price notes are priced by", "rbt", () => ({ code: "97154" }), () => ({ code: SERVICE_MATCH_IN_USE(2) })],
  ["a modifier added to it", "rbt", () => ({ code: "97153 HM" }), () => ({ code: SERVICE_MATCH_IN_USE(2) })],
  ["its provider type changed", "rbt", () => ({ provider: "" }), () => ({ provider: SERVICE_MATCH_IN_USE(2) })],
  ["its location changed", "rbt", (p) => ({ location_id: p.location.id }), () => ({ location_id: SERVICE_MATCH_IN_USE(2) })],
  ["its unit price, description, max per day and multiplier", "rbt", () => ({ unit_price: 20, description: "RBT 97153", max_per_day: 24, multiplier: 1.1 }), null],
  ["the code and provider sent back as they are, with a new price", "rbt", () => ({ code: "97153", provider: "rbt", unit_price: 19 }), null],
  ["another CPT for a price no note uses, whose CPT another price still covers", "bcba", () => ({ code: "97154" }), null],
  ["another CPT for the only price of a CPT a PA service authorizes", "cpt97155", () => ({ code: "97154" }), (p) => ({ code: SERVICE_COVERS_PA(1, "97155", "edit") })],
  ["another provider type for it (the CPT stays covered)", "cpt97155", () => ({ provider: "rbt" }), null],
  ["another CPT for the only price a PA service with no insurer needs (the client's primary insurer pays)", "cpt97151", () => ({ code: "97152" }), () => ({ code: SERVICE_COVERS_PA(1, "97151", "edit") })],
  ["another CPT for a price used by nothing", "unused", () => ({ code: "97158", provider: "rbt" }), null],
];

describe("editing what an insurer's price matches while it is in use (decision 017, stop 44)", () => {
  it.each(edits)("API PATCH: %s", async (_label, price, body, errors) => {
    const p = await payer();
    const id = p.prices[price].id;
    const before = await row(id);
    const billed = await charges(p);
    const res = await api(`/insurance/update/service/${id}`, { method: "PATCH", token: p.token, body: body(p) });
    const json = (await res.json()) as { message: string; errors?: Record<string, string> };
    if (errors) {
      expect(res.status, JSON.stringify(json)).toBe(422);
      expect(json.errors).toEqual(errors(p));
      expect(json.message).toBe(Object.values(errors(p))[0]);
      expect(await row(id)).toEqual(before);
      expect(await updateAudits(id)).toBe(0);
      expect(await charges(p)).toEqual(billed);
    } else {
      expect(res.status, JSON.stringify(json)).toBe(200);
      expect((await row(id)).version).toBe(before.version + 1);
      expect(await updateAudits(id)).toBe(1);
      // No note lost its price.
      expect((await charges(p)).every(([unit, total]) => unit! > 0 && total! > 0)).toBe(true);
    }
  });

  it("a PUT that changes the code is refused the same way; one that keeps it re-prices the notes", async () => {
    const p = await payer();
    const s = p.prices.rbt;
    const full = { code: "97153", provider: "rbt", description: "RBT", unit_price: 18.25, max_per_day: "", multiplier: 1, location_id: null };
    expect(await charges(p)).toEqual([
      [1825, 7300],
      [1825, 7300],
    ]);
    const refused = await api(`/insurance/update/service/${s.id}`, { method: "PUT", token: p.token, body: { ...full, code: "97154" } });
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { errors: Record<string, string> }).errors).toEqual({ code: SERVICE_MATCH_IN_USE(2) });
    const saved = await api(`/insurance/update/service/${s.id}`, { method: "PUT", token: p.token, body: { ...full, unit_price: 20 } });
    expect(saved.status, await saved.clone().text()).toBe(200);
    expect(await charges(p)).toEqual([
      [2000, 8000],
      [2000, 8000],
    ]);
  });

  it("the insurer screen refuses it at the code without JavaScript, keeps the typed values and saves nothing", async () => {
    const p = await payer();
    const s = p.prices.rbt;
    const here = `/insurance/list/edit/${p.insurer.id}`;
    const fields = { intent: "update-service", service_id: String(s.id), version: String(s.version), code: "97154 HM", provider: "rbt", description: "Moved by hand", unit_price: "17.25", max_per_day: "32", multiplier: "1", location_id: "" };
    const res = await form(here, fields, p.cookie);
    expect(res.status, `${res.headers.get("Location")} ${JSON.stringify(await row(s.id))}`).toBe(422);
    const html = (await res.text()).replaceAll("&#x27;", "'");
    expect(html).toContain(SERVICE_MATCH_IN_USE(2));
    expect(html).toMatch(/aria-invalid="true"[^>]*name="code"|name="code"[^>]*aria-invalid="true"/);
    expect(html).toContain('value="97154 HM"');
    expect(html).toContain('value="Moved by hand"');
    expect(await row(s.id)).toMatchObject({ cptCode: "97153", modifiers: "", unitPrice: 18.25, version: s.version });
    expect(await updateAudits(s.id)).toBe(0);
    // The same form changing only the price and description saves.
    expect((await form(here, { ...fields, code: "97153" }, p.cookie)).status).toBe(303);
    expect(await row(s.id)).toMatchObject({ cptCode: "97153", unitPrice: 17.25, description: "Moved by hand" });
  });

  it("a price sent back as stored while notes and a PA service rely on it: 'Nothing to change', not the refusal; nothing written (stop 45)", async () => {
    const p = await payer();
    const nothing = "Nothing to change: send at least one field to update.";
    for (const price of ["rbt", "cpt97155"] as const) {
      const s = p.prices[price];
      const before = await row(s.id);
      const billed = await charges(p);
      const stored = { code: s.cptCode, provider: s.provider, description: s.description, unit_price: s.unitPrice, max_per_day: s.maxPerDay, multiplier: s.multiplier, location_id: s.locationId };
      const bodies: [string, Record<string, unknown>][] = [
        ["PATCH", { code: s.cptCode, provider: s.provider, location_id: null }],
        ["PATCH", { unit_price: String(s.unitPrice), version: s.version }],
        ["PUT", stored],
        // The code and provider typed another way read as the stored ones.
        ["PUT", { ...stored, code: ` ${s.cptCode} `, provider: s.provider!.toUpperCase(), version: s.version }],
      ];
      for (const [method, body] of bodies) {
        const res = await api(`/insurance/update/service/${s.id}`, { method, token: p.token, body });
        const json = (await res.json()) as { message: string; errors?: Record<string, string> };
        expect(res.status, `${price} ${method} ${JSON.stringify(json)}`).toBe(422);
        expect(json, `${price} ${method}`).toMatchObject({ message: nothing, errors: { form: nothing } });
      }
      expect(await row(s.id)).toEqual(before);
      expect(await updateAudits(s.id)).toBe(0);
      expect(await charges(p)).toEqual(billed);
      // What it matches, changed, is still refused.
      const moved = await api(`/insurance/update/service/${s.id}`, { method: "PUT", token: p.token, body: { ...stored, code: "97154" } });
      expect(moved.status).toBe(422);
      expect(((await moved.json()) as { message: string }).message).not.toBe(nothing);
    }
  });

  it("another price covering the CPT lets the PA services' price change its code", async () => {
    const p = await payer();
    await p.service({ cptCode: "97155", provider: "rbt", type: "rbt", locationId: p.location.id, unitPrice: 41 });
    const res = await api(`/insurance/update/service/${p.prices.cpt97155.id}`, { method: "PATCH", token: p.token, body: { code: "97154" } });
    expect(res.status, await res.clone().text()).toBe(200);
  });

  it("a note written between the in-use read and the write: the edit writes nothing and is refused with the count", async () => {
    const p = await payer();
    const actor = (await getActor(db(), "user", p.manager.id))!;
    // The BCBA price prices no note when read; a BCBA note written before the write makes it in use.
    const racing = beforeWriteDb(
      () => db().insert(notes).values({ type: "bcba", patientId: p.client.id, locationId: p.location.id, cptCode: "97153", sessionDate: "2026-11-25", timeIn: "09:00", timeOut: "10:00", minutes: 60, units: 4 }),
      1,
    );
    const before = await row(p.prices.bcba.id);
    const result = await updateInsuranceService({ db: racing, actor, ip: "127.0.0.1", now: () => new Date() }, p.prices.bcba.id, { code: "97154" }, { partial: true, version: null });
    expect(result).toMatchObject({ ok: false, status: 422, errors: { code: SERVICE_MATCH_IN_USE(1) } });
    expect(await row(p.prices.bcba.id)).toEqual(before);
    expect(await updateAudits(p.prices.bcba.id)).toBe(0);
  });
});

describe("deleting the only price of a CPT a PA service authorizes (decision 017, stop 44)", () => {
  it("is refused with the count at the service; with another price of the CPT it deletes", async () => {
    const p = await payer();
    for (const price of ["cpt97155", "cpt97151"] as const) {
      const res = await api(`/insurance/destroy/service/${p.prices[price].id}`, { method: "DELETE", token: p.token });
      expect(res.status).toBe(422);
      expect(((await res.json()) as { message: string }).message).toBe(SERVICE_COVERS_PA(1, p.prices[price].cptCode, "delete"));
      expect((await row(p.prices[price].id)).deletedAt).toBeNull();
    }
    // Notes and a PA service: both said.
    await db().insert(paServices).values({ patientId: p.client.id, paService: "RBT hours", cpt: "97153", nUnits: 100, startDate: "2026-11-01", endDate: "2027-04-30", insuranceId: p.insurer.id });
    await db().update(insuranceServices).set({ deletedAt: "2026-11-28T00:00:00.000Z" }).where(eq(insuranceServices.id, p.prices.bcba.id));
    const both = await api(`/insurance/destroy/service/${p.prices.rbt.id}`, { method: "DELETE", token: p.token });
    expect(((await both.json()) as { message: string }).message).toBe(`${SERVICE_IN_USE(2)} ${SERVICE_COVERS_PA(1, "97153", "delete")}`);
    await p.service({ cptCode: "97155", provider: "rbt", type: "rbt", unitPrice: 41 });
    const res = await api(`/insurance/destroy/service/${p.prices.cpt97155.id}`, { method: "DELETE", token: p.token });
    expect(res.status, await res.clone().text()).toBe(200);
  });
});
