import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { claimLineNotes, claimLines, claims, clientReports, insurances, insuranceServices, notes, paServices, users } from "~/db/schema";
import { npiFrom } from "~/domain/npi";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A note held by a generated, sent or accepted claim shows and saves the price its claim line carries, not the
 * payer's price of today (probe 8974 §2; decision 030, stop 34). A draft is priced again on generation and a
 * rejected claim frees its notes: those show today's price.
 */

let seq = 0;
async function clinic() {
  seq++;
  const location = await createLocation({ title: `Denver Claimed ${seq}`, address: "1 Main St", city: "Denver", state: "CO", zip: "80202-1234", phone1: "303-555-0100", npi: "1234567893", taxId: "841234567" });
  const [insurer] = await db().insert(insurances).values({ name: `Rocky Care ${seq}`, payerId: "RMC01" }).returning();
  const [hm] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", unitPrice: 21.33, multiplier: 1.15, maxPerDay: 32 }).returning();
  const details = { insuranceId: `RMC${seq}`, insured_policy_group: "GRP", is_self_subscriber: true, address: "5 Elm St", city: "Denver", state: "CO", zip: "80203", diagnosis_code: "F84.0" };
  const patient = await createPatient({ locationId: location.id, insurerId: insurer!.id, birthDate: "2018-04-02", gender: 2, details: JSON.stringify(details) });
  const rbt = await createUser({ role: "RBT", permissions: ["view_notes"], locations: [location.id] });
  await db().update(users).set({ name: "Ryan", surname: "Ortiz", profile: JSON.stringify({ npi: npiFrom("222333444") }) }).where(eq(users.id, rbt.id));
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: `PA-C${seq}`, cpt: "97153", nUnits: 960, startDate: "2026-11-01", endDate: "2027-04-30", insuranceId: insurer!.id }).returning();
  const note = async (over: Partial<typeof notes.$inferInsert>) => {
    const [row] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: patient.id, locationId: location.id, providerId: rbt.id, paServiceId: pa!.id, cptCode: "97153", md: "HM", diagnosisCode: "F84.0", pos: "12", sessionDate: "2026-11-23", minutes: 128, units: 8, status: "ok", billed: true, signedAt: "2026-11-23T23:30:00.000Z", providerName: "Ryan Ortiz", providerSignedOn: "2026-11-23", ...over })
      .returning();
    return row!;
  };
  const manager = await createUser({ permissions: ["manage_claims", "manage_notes", "view_clients", "manage_insurances"], locations: [location.id] });
  const token = await apiToken(manager);
  // Two sessions of one day and CPT: one claim line of 19 units at $21.33 × 1.15.
  const morning = await note({});
  const afternoon = await note({ units: 11, minutes: 170 });
  const built = await api("/v2/claims", { method: "POST", token, body: { note_ids: [morning.id, afternoon.id] } });
  expect(built.status, await built.clone().text()).toBe(201);
  const claim = ((await built.json()) as { data: { id: number }[] }).data[0]!;
  const gen = await api("/v2/claims/generate", { method: "POST", token, body: { claim_ids: [claim.id] } });
  expect(gen.status, await gen.clone().text()).toBe(201);
  return { location, insurer: insurer!, hm: hm!, patient, morning, afternoon, claimId: claim.id, token, cookie: await signInCookie(manager), note };
}

type Row = { id: number; unit_price_cents: number; multiplier: number; charges_cents: number };
const rowsOf = async (c: Awaited<ReturnType<typeof clinic>>) => {
  const res = await api(`/client_report/byprofile/${c.patient.id}?date_start=2026-11-23&date_end=2026-11-23`, { token: c.token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { noteRbts: Row[] }).noteRbts.map((r) => [r.id, r.unit_price_cents, r.multiplier, r.charges_cents]);
};

describe("a claimed note keeps its claim line's price (probe 8974 §2)", () => {
  it("the claim line's charge is the sum of its notes' charges as generation computed them", async () => {
    const c = await clinic();
    const [line] = await db().select().from(claimLines).where(eq(claimLines.claimId, c.claimId));
    // 8 × 2133 × 1.15 = 19623.6 → 19624; 11 × 2133 × 1.15 = 26982.45 → 26982.
    expect(line).toMatchObject({ units: 19, unitPriceCents: 2133, multiplier: 1.15, chargeCents: 19624 + 26982 });
    expect(await rowsOf(c)).toEqual([
      [c.morning.id, 2133, 1.15, 19624],
      [c.afternoon.id, 2133, 1.15, 26982],
    ]);
  });

  const cases: ["draft" | "generated" | "sent" | "accepted" | "rejected", "claim" | "today"][] = [
    ["generated", "claim"],
    ["sent", "claim"],
    ["accepted", "claim"],
    ["draft", "today"],
    ["rejected", "today"],
  ];
  it.each(cases)("on a %s claim after a price change, the rows show the %s price", async (status, shown) => {
    const c = await clinic();
    await db().update(claims).set({ status }).where(eq(claims.id, c.claimId));
    const changed = await api(`/insurance/update/service/${c.hm.id}`, { method: "PATCH", token: c.token, body: { unit_price: 20, multiplier: 1 } });
    expect(changed.status, await changed.clone().text()).toBe(200);
    const expected =
      shown === "claim"
        ? [
            [c.morning.id, 2133, 1.15, 19624],
            [c.afternoon.id, 2133, 1.15, 26982],
          ]
        : [
            [c.morning.id, 2000, 1, 16000],
            [c.afternoon.id, 2000, 1, 22000],
          ];
    expect(await rowsOf(c)).toEqual(expected);
    const screen = await (await request(`/billing/by-client/${c.patient.id}?from=2026-11-23&to=2026-11-23`, { cookie: c.cookie })).text();
    expect(screen).toContain(shown === "claim" ? "$21.33 × 1.15" : "$160.00");
    expect(screen).toContain(shown === "claim" ? "$196.24" : "$220.00");
  });

  it("a claimed XP note's XP amount is its claim's (10 × $21.33 × 1.15), not today's price, on the row, the screen, a Save and show (decision 030, stop 40)", async () => {
    const c = await clinic();
    const xp = await c.note({ sessionDate: "2026-11-24", md2: "XP", units: 10, minutes: 150 });
    const built = await api("/v2/claims", { method: "POST", token: c.token, body: { note_ids: [xp.id] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const claimId = ((await built.json()) as { data: { id: number }[] }).data[0]!.id;
    expect((await api("/v2/claims/generate", { method: "POST", token: c.token, body: { claim_ids: [claimId] } })).status).toBe(201);
    const xpRow = async () => {
      const res = await api(`/client_report/byprofile/${c.patient.id}?date_start=2026-11-24&date_end=2026-11-24`, { token: c.token });
      const [r] = ((await res.json()) as { noteRbts: { unit_price_cents: number; charges_cents: number; xp_cents: number }[] }).noteRbts;
      return [r!.unit_price_cents, r!.charges_cents, r!.xp_cents];
    };
    // 10 × 2133 × 1.15 = 24529.5 → 24530, the claim basis.
    expect(await xpRow()).toEqual([2133, 0, 24530]);
    // The payer's price and multiplier change after the claim: the row keeps the claim's XP amount.
    for (const body of [{ unit_price: 16.29 }, { multiplier: 1 }]) {
      const changed = await api(`/insurance/update/service/${c.hm.id}`, { method: "PATCH", token: c.token, body });
      expect(changed.status, await changed.clone().text()).toBe(200);
      expect(await xpRow()).toEqual([2133, 0, 24530]);
    }
    const screen = await (await request(`/billing/by-client/${c.patient.id}?from=2026-11-24&to=2026-11-24`, { cookie: c.cookie })).text();
    expect(screen).toContain("(XP $245.30)");
    // A Save stores it, and show answers the same amount.
    const saved = await api("/client_report/store", { method: "POST", token: c.token, body: { note_rbt_id: xp.id, pay: false } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const [record] = await db().select().from(clientReports).where(eq(clientReports.noteId, xp.id));
    const shown = (await (await api(`/client_report/show/${record!.id}`, { token: c.token })).json()) as { data: { xp_cents: number; charges_cents: number } };
    expect(shown.data).toMatchObject({ xp_cents: 24530, charges_cents: 0 });
  });

  it("a row Save stores the claim line's price in the billing record, and show answers it", async () => {
    const c = await clinic();
    await api(`/insurance/update/service/${c.hm.id}`, { method: "PATCH", token: c.token, body: { unit_price: 20, multiplier: 1 } });
    const saved = await api("/client_report/store", { method: "POST", token: c.token, body: { note_rbt_id: c.afternoon.id, pay: false } });
    expect(saved.status, await saved.clone().text()).toBe(201);
    const [record] = await db().select().from(clientReports).where(eq(clientReports.noteId, c.afternoon.id));
    expect(record).toMatchObject({ unitPriceCents: 2133, multiplier: 1.15, chargesCents: 26982 });
    const shown = (await (await api(`/client_report/show/${record!.id}`, { token: c.token })).json()) as { data: { unit_price_cents: number; multiplier: number; charges_cents: number } };
    expect(shown.data).toMatchObject({ unit_price_cents: 2133, multiplier: 1.15, charges_cents: 26982 });
  });

  it("the scrubber judges a claimed note at its claim line's price: a price deleted or set to $0 since is no reason (stop 35)", async () => {
    const c = await clinic();
    await db().update(claims).set({ status: "sent" }).where(eq(claims.id, c.claimId));
    const reasonsOf = async () =>
      ((await (await api(`/client_report/byprofile/${c.patient.id}?date_start=2026-11-23&date_end=2026-11-23`, { token: c.token })).json()) as { noteRbts: { reasons: string[] }[] }).noteRbts.map((r) => r.reasons);
    expect(await reasonsOf()).toEqual([[], []]);
    await db().update(insuranceServices).set({ unitPrice: 0 }).where(eq(insuranceServices.id, c.hm.id));
    expect(await reasonsOf()).toEqual([[], []]);
    // A BCBA price keeps CPT 97153 covered for the client's PA service (the only price of a CPT a PA service
    // authorizes is not deleted, decision 017 stop 44); it prices no RBT note.
    await db().insert(insuranceServices).values({ insuranceId: c.insurer.id, cptCode: "97153", provider: "bcba", type: "bcba", unitPrice: 30 });
    const gone = await api(`/insurance/destroy/service/${c.hm.id}`, { method: "DELETE", token: c.token });
    expect(gone.status, await gone.clone().text()).toBe(200);
    expect(await reasonsOf()).toEqual([[], []]);
    // Once the claim is rejected the notes are free, and today's payer has no price for them.
    await db().update(claims).set({ status: "rejected" }).where(eq(claims.id, c.claimId));
    expect((await reasonsOf()).map((r) => r.some((m) => m.includes("has no price for CPT 97153")))).toEqual([true, true]);
  });

  it("a line built before stop 28 (no multiplier): each note takes its units' share of the line's charge", async () => {
    const c = await clinic();
    const [link] = await db().select().from(claimLineNotes).where(inArray(claimLineNotes.noteId, [c.morning.id]));
    await db().update(claimLines).set({ multiplier: null }).where(eq(claimLines.id, link!.claimLineId));
    await db().update(insuranceServices).set({ unitPrice: 20, multiplier: 1 }).where(eq(insuranceServices.id, c.hm.id));
    const rows = await rowsOf(c);
    // 46606 × 8 / 19 = 19623.6 → 19624 and 46606 × 11 / 19 = 26982.4 → 26982: the line's charge, shared.
    expect(rows.map((r) => [r[0], r[1], r[3]])).toEqual([
      [c.morning.id, 2133, 19624],
      [c.afternoon.id, 2133, 26982],
    ]);
    expect(rows[0]![2]).toBeCloseTo(46606 / (19 * 2133), 10);
  });
});

describe("a payer id a claim cannot carry is named as invalid, not missing (probe 8974 §5)", () => {
  it("on the billing row's Claim check and in generate's refusal", async () => {
    const c = await clinic();
    const later = await (async () => {
      const [row] = await db().select().from(notes).where(eq(notes.id, c.morning.id));
      const { id: _id, createdAt: _c, updatedAt: _u, version: _v, ...rest } = row!;
      const [copy] = await db().insert(notes).values({ ...rest, sessionDate: "2026-11-24", signedAt: "2026-11-24T23:30:00.000Z", providerSignedOn: "2026-11-24" }).returning();
      return copy!;
    })();
    const built = await api("/v2/claims", { method: "POST", token: c.token, body: { note_ids: [later.id] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const draft = ((await built.json()) as { data: { id: number }[] }).data[0]!;
    await db().update(insurances).set({ payerId: "849:80" }).where(eq(insurances.id, c.insurer.id));
    const message = `The insurer ${c.insurer.name}'s payer id "849:80" is not valid: a claim carries 2 to 80 letters and digits only. Correct it on the insurer's page.`;
    const rows = (await (await api(`/client_report/byprofile/${c.patient.id}?date_start=2026-11-24&date_end=2026-11-24`, { token: c.token })).json()) as { noteRbts: { reasons: string[] }[] };
    expect(rows.noteRbts[0]!.reasons).toContain(message);
    const gen = await api("/v2/claims/generate", { method: "POST", token: c.token, body: { claim_ids: [draft.id] } });
    expect(gen.status).toBe(422);
    const text = await gen.text();
    expect(text).toContain(`payer id \\"849:80\\" is not valid`);
    expect(text).not.toContain("has no payer id");
  });
});
