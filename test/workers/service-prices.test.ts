import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { insurances, insuranceServices, notes, paServices, users } from "~/db/schema";
import { npiFrom } from "~/domain/npi";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A service priced for a modifier combination (probe 8933 §1): the payer's "97153 HM GT" price is what an HM + GT
 * note is charged, on the billing row, the claim's 837P and the location-cpt report alike; and the insurer's price
 * lookup answers the price billing uses for a location and modifiers (probe 8933 §3). Decision 030.
 */

let seq = 0;
async function clinic() {
  seq++;
  const location = await createLocation({ title: `Chicago North ${seq}`, address: "1 Lake St", city: "Chicago", state: "IL", zip: "60602-1234", phone1: "312-555-0100", npi: "1234567893", taxId: "361234567" });
  const [insurer] = await db().insert(insurances).values({ name: `Prairie Health ${seq}`, payerId: "PRH01" }).returning();
  // Both scoped to the location, as the probe entered them; the HM GT one added second.
  const [hm] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, locationId: location.id, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", unitPrice: 15, maxPerDay: 32 }).returning();
  const [hmGt] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, locationId: location.id, cptCode: "97153", modifiers: "HM-GT", provider: "rbt", type: "rbt", unitPrice: 14.25, maxPerDay: 32 }).returning();
  const details = { insuranceId: `PRH${seq}`, insured_policy_group: "GRP", is_self_subscriber: true, address: "5 Elm St", city: "Chicago", state: "IL", zip: "60603", diagnosis_code: "F84.0" };
  const patient = await createPatient({ locationId: location.id, insurerId: insurer!.id, birthDate: "2018-04-02", gender: 2, details: JSON.stringify(details) });
  const rbt = await createUser({ role: "RBT", permissions: ["view_notes"], locations: [location.id] });
  await db().update(users).set({ name: "Ryan", surname: "Ortiz", profile: JSON.stringify({ npi: npiFrom("222333444") }) }).where(eq(users.id, rbt.id));
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: `PA-${seq}`, cpt: "97153", nUnits: 960, startDate: "2026-11-01", endDate: "2027-04-30", insuranceId: insurer!.id }).returning();
  const note = async (over: Partial<typeof notes.$inferInsert>) => {
    const [row] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: patient.id, locationId: location.id, providerId: rbt.id, paServiceId: pa!.id, cptCode: "97153", md: "HM", diagnosisCode: "F84.0", pos: "12", sessionDate: "2026-11-23", minutes: 128, units: 9, status: "ok", signedAt: "2026-11-23T23:30:00.000Z", providerName: "Ryan Ortiz", providerSignedOn: "2026-11-23", ...over })
      .returning();
    return row!;
  };
  const manager = await createUser({ permissions: ["manage_claims", "manage_notes", "manage_employees", "view_clients", "manage_insurances"], locations: [location.id] });
  return { location, insurer: insurer!, hm: hm!, hmGt: hmGt!, patient, note, token: await apiToken(manager), cookie: await signInCookie(manager) };
}

describe("a note is priced at the payer's service for its modifiers (probe 8933 §1)", () => {
  it("bills HM + GT at the HM GT price: the billing row, the 837P and the location-cpt report", async () => {
    const c = await clinic();
    const telehealth = await c.note({});
    // A second, in-person session a day later: HM alone keeps the HM price.
    const inPerson = await c.note({ sessionDate: "2026-11-24", minutes: 60, units: 4, signedAt: "2026-11-24T23:30:00.000Z", providerSignedOn: "2026-11-24" });

    // The row's Save: Modifier 1 HM, Modifier 2 GT, billed.
    const saved = await api("/client_report/store", { method: "POST", token: c.token, body: { note_rbt_id: telehealth.id, md: "HM", md2: "GT", billed: true } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const report = ((await saved.json()) as { data: { report: { unit_price_cents: number; charges_cents: number } } }).data.report;
    expect(report).toMatchObject({ unit_price_cents: 1425, charges_cents: 12825 });
    expect((await api("/client_report/store", { method: "POST", token: c.token, body: { note_rbt_id: inPerson.id, billed: true } })).status).toBe(201);

    const rows = (await (await api(`/client_report/byprofile/${c.patient.id}?date_start=2026-11-01&date_end=2026-11-30`, { token: c.token })).json()) as { noteRbts: { id: number; unit_price_cents: number; charges_cents: number }[] };
    expect(rows.noteRbts.map((r) => [r.id, r.unit_price_cents, r.charges_cents])).toEqual([
      [telehealth.id, 1425, 12825],
      [inPerson.id, 1500, 6000],
    ]);
    const screen = await (await request(`/billing/by-client/${c.patient.id}?from=2026-11-01&to=2026-11-30`, { cookie: c.cookie })).text();
    expect(screen).toContain("$128.25");
    expect(screen).not.toContain("$135.00");

    // The scrubber finds nothing to fix, and the claim carries the HM GT price.
    const built = await api("/v2/claims", { method: "POST", token: c.token, body: { note_ids: [telehealth.id, inPerson.id] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const claim = ((await built.json()) as { data: { id: number; total_cents: number; errors: unknown[] }[] }).data[0]!;
    expect(claim).toMatchObject({ total_cents: 12825 + 6000, errors: [] });
    const gen = await api("/v2/claims/generate", { method: "POST", token: c.token, body: { claim_ids: [claim.id] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    const x12 = await (await api(`/v2/claims/${claim.id}/download`, { token: c.token })).text();
    expect(x12).toContain("SV1*HC:97153:HM:GT*128.25*UN*9***1~");
    expect(x12).toContain("SV1*HC:97153:HM*60.00*UN*4***1~");

    // A generated claim keeps the lines it sent when the payer's price changes afterwards (decision 032).
    await db().update(insuranceServices).set({ unitPrice: 14 }).where(eq(insuranceServices.id, c.hmGt.id));
    const shown = (await (await api(`/v2/claims/${claim.id}`, { token: c.token })).json()) as { data: { lines: { modifiers: string; charge_cents: number }[] } };
    expect(shown.data.lines.map((l) => [l.modifiers, l.charge_cents])).toEqual([
      ["HM-GT", 12825],
      ["HM", 6000],
    ]);
    await db().update(insuranceServices).set({ unitPrice: 14.25 }).where(eq(insuranceServices.id, c.hmGt.id));

    const cpt = await (await request(`/reports/location-cpt?date_from=2026-11-01&date_to=2026-11-30&location_id=${c.location.id}`, { cookie: c.cookie })).text();
    expect(cpt).toContain("13 units; charges $188.25.");
  });

  it("reprices a draft on generation with the modifiers' service", async () => {
    const c = await clinic();
    const n = await c.note({ md2: "GT", billed: true });
    const built = await api("/v2/claims", { method: "POST", token: c.token, body: { note_ids: [n.id] } });
    const claim = ((await built.json()) as { data: { id: number; total_cents: number }[] }).data[0]!;
    expect(claim.total_cents).toBe(12825);
    // The payer's telehealth rate changes while the claim is a draft: generating prices it again (decision 032, stop 28).
    await db().update(insuranceServices).set({ unitPrice: 14.5 }).where(eq(insuranceServices.id, c.hmGt.id));
    expect((await api("/v2/claims/generate", { method: "POST", token: c.token, body: { claim_ids: [claim.id] } })).status).toBe(201);
    const x12 = await (await api(`/v2/claims/${claim.id}/download`, { token: c.token })).text();
    expect(x12).toContain("SV1*HC:97153:HM:GT*130.50*UN*9***1~");
  });
});

describe("the insurer's price lookup finds the price billing uses (probe 8933 §3)", () => {
  type Lookup = { message?: string; unit_price?: number; code?: string; errors?: Record<string, string>; by_location?: { location_id: number; location: string; service: { unit_price: number; code: string } }[] };
  const lookup = async (token: string, path: string) => {
    const res = await api(path, { token });
    return { status: res.status, body: (await res.json()) as Lookup };
  };

  it.each([
    ["", 422, null],
    [`?location_id=LOC`, 200, [15, "97153 HM"]],
    [`?location_id=LOC&modifiers=HM,GT`, 200, [14.25, "97153 HM GT"]],
    [`?location_id=LOC&modifiers=GT%20HM`, 200, [14.25, "97153 HM GT"]],
    [`?location_id=LOC&modifiers=hm`, 200, [15, "97153 HM"]],
  ] as const)("97153/rbt%s → %i", async (query, status, price) => {
    const c = await clinic();
    const { status: got, body } = await lookup(c.token, `/insurance/showInsuranceCpt/${c.insurer.id}/97153/rbt${query.replace("LOC", String(c.location.id))}`);
    expect(got).toBe(status);
    if (price) expect([body.unit_price, body.code]).toEqual(price);
    else {
      // Only location-scoped services: the answer names each location's price and asks for the location, not "No price".
      expect(body.message).toBe(`Priced per location: ${c.location.title} $15.00 (service 97153 HM). Give the location to look up the price billing uses there.`);
      expect(body.errors?.location_id).toBe(body.message);
      expect(body.by_location?.map((p) => [p.location_id, p.service.unit_price])).toEqual([[c.location.id, 15]]);
    }
  });

  it("refuses a location the user may not see and a bad modifier; an insurer-wide price also names each location's own", async () => {
    const c = await clinic();
    const elsewhere = await createLocation({ title: "Miami" });
    const base = `/insurance/showInsuranceCpt/${c.insurer.id}/97153/rbt`;
    expect(await lookup(c.token, `${base}?location_id=${elsewhere.id}`)).toEqual({ status: 404, body: { message: "Location not found." } });
    const bad = await lookup(c.token, `${base}?location_id=${c.location.id}&modifiers=HM,ZZ`);
    expect(bad.status).toBe(422);
    expect(bad.body.errors?.modifiers).toBe("Unknown modifier ZZ. Use one of HM, XE, XP, HO, GT, TS, 95.");
    expect((await lookup(c.token, `${base}?location_id=x`)).status).toBe(422);

    await db().insert(insuranceServices).values({ insuranceId: c.insurer.id, locationId: null, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", unitPrice: 16.25 });
    const wide = await lookup(c.token, base);
    expect(wide.status).toBe(200);
    expect(wide.body.unit_price).toBe(16.25);
    expect(wide.body.by_location?.map((p) => [p.location, p.service.unit_price])).toEqual([[c.location.title, 15]]);
    // At the location itself its own price wins, as billing prices a note there.
    expect((await lookup(c.token, `${base}?location_id=${c.location.id}`)).body.unit_price).toBe(15);
    // A CPT with no service at all is still "No price".
    expect(await lookup(c.token, `/insurance/showInsuranceCpt/${c.insurer.id}/97156/bcba`)).toEqual({ status: 404, body: { message: "No price for that CPT and provider." } });
  });

  it("the insurer view's lookup takes a location and modifiers, and both service tables show each service's location", async () => {
    const c = await clinic();
    await db().insert(insuranceServices).values({ insuranceId: c.insurer.id, locationId: null, cptCode: "97155", modifiers: "HO", provider: "bcba", type: "bcba", unitPrice: 30.5 });
    const view = async (query: string) => {
      const html = await (await request(`/insurance/view/${c.insurer.id}${query}`, { cookie: c.cookie })).text();
      return { html, status: /data-testid="price-lookup"[^>]*>([^<]*)</.exec(html)?.[1]?.replace(/&#x27;/g, "'") ?? null };
    };
    const perLocation = await view("?cpt=97153&provider=rbt");
    expect(perLocation.status).toBe(`Priced per location: ${c.location.title} $15.00 (service 97153 HM). Give the location to look up the price billing uses there.`);
    expect(perLocation.html).toContain(`<option value="${c.location.id}">${c.location.title}</option>`);
    expect((await view(`?cpt=97153&provider=rbt&location_id=${c.location.id}&modifiers=HM+GT`)).status).toBe(
      `Unit price for 97153 HM GT (rbt) at ${c.location.title}: $14.25 — service 97153 HM GT, rbt providers, ${c.location.title} only.`,
    );
    expect((await view("?cpt=97155&provider=bcba")).status).toBe("Unit price for 97155 (bcba): $30.50 — service 97155 HO, bcba providers, all locations.");
    const bad = await view(`?cpt=97153&provider=rbt&modifiers=HM+HM`);
    expect(bad.status).toBeNull();
    expect(bad.html).toContain("Modifier HM is listed twice.");

    for (const path of [`/insurance/view/${c.insurer.id}`, `/insurance/list/edit/${c.insurer.id}`]) {
      const html = await (await request(path, { cookie: c.cookie })).text();
      const cells = [...html.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);
      expect(cells.filter((t) => t === c.location.title || t === "All locations").sort(), path).toEqual(["All locations", c.location.title, c.location.title].sort());
    }
  });
});
