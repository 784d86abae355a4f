import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { claims, insurances, insuranceServices, notes, paServices, users } from "~/db/schema";
import { npiFrom } from "~/domain/npi";
import { getUserActor } from "~/models/actors.server";
import { claimedNoteCptSums } from "~/models/reports/note-scope.server";
import { locationCptReport } from "~/models/reports/location-cpt.server";
import { api, apiToken, countingDb, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";
import { parseCsv } from "../support/csv";

/**
 * The location-and-CPT report charges every note as billing charges it (decision 039, 2026-11-28 (stop 42)): a note
 * on a generated, sent or accepted claim at its claim line's price (decision 030, stop 34), any other note (none, a
 * draft's, a rejected claim's) at the payer's price of today. So after a price change its Charges still equal
 * billing's for the same client, period and CPT, on the screen and in the CSV.
 */

type Status = "none" | "draft" | "generated" | "sent" | "accepted" | "rejected";
// One note per status, each on its own day of November: the claim's price is $21.33 × 1.15, today's becomes $20.00.
const NOTES: { status: Status; day: string; units: number; claimCents: number }[] = [
  { status: "sent", day: "2026-11-02", units: 8, claimCents: 19624 }, // 8 × 2133 × 1.15 = 19623.6
  { status: "accepted", day: "2026-11-03", units: 11, claimCents: 26982 }, // 26982.45
  { status: "generated", day: "2026-11-04", units: 6, claimCents: 14718 }, // 14717.7
  { status: "draft", day: "2026-11-05", units: 7, claimCents: 0 },
  { status: "rejected", day: "2026-11-06", units: 9, claimCents: 0 },
  { status: "none", day: "2026-11-09", units: 5, claimCents: 0 },
];
const TODAY_CENTS = 2000;
const chargeAfterChange = (n: (typeof NOTES)[number]) => (["generated", "sent", "accepted"].includes(n.status) ? n.claimCents : n.units * TODAY_CENTS);

let c: { locationId: number; patientId: number; token: string; cookie: string; managerId: number; serviceId: number; noteIds: Record<Status, number> };

beforeAll(async () => {
  const location = await createLocation({ title: "Claimed Price Clinic", address: "1 Main St", city: "Denver", state: "CO", zip: "80202-1234", phone1: "303-555-0100", npi: "1234567893", taxId: "841234567" });
  const [insurer] = await db().insert(insurances).values({ name: "Claimed Care", payerId: "CLC01" }).returning();
  const [service] = await db().insert(insuranceServices).values({ insuranceId: insurer!.id, cptCode: "97153", modifiers: "HM", provider: "rbt", type: "rbt", unitPrice: 21.33, multiplier: 1.15, maxPerDay: 32 }).returning();
  const details = { insuranceId: "CLC1", insured_policy_group: "GRP", is_self_subscriber: true, address: "5 Elm St", city: "Denver", state: "CO", zip: "80203", diagnosis_code: "F84.0" };
  const patient = await createPatient({ locationId: location.id, insurerId: insurer!.id, birthDate: "2018-04-02", gender: 2, details: JSON.stringify(details) });
  const rbt = await createUser({ role: "RBT", permissions: ["view_notes"], locations: [location.id] });
  await db().update(users).set({ name: "Rhea", surname: "Okafor", profile: JSON.stringify({ npi: npiFrom("222333445") }) }).where(eq(users.id, rbt.id));
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "PA-LCPT", cpt: "97153", nUnits: 960, startDate: "2026-11-01", endDate: "2027-04-30", insuranceId: insurer!.id }).returning();
  const manager = await createUser({ permissions: ["manage_claims", "manage_notes", "view_clients", "manage_insurances"], locations: [location.id] });
  const token = await apiToken(manager);
  const noteIds = {} as Record<Status, number>;
  for (const n of NOTES) {
    const [row] = await db()
      .insert(notes)
      .values({ type: "rbt", patientId: patient.id, locationId: location.id, providerId: rbt.id, paServiceId: pa!.id, cptCode: "97153", md: "HM", diagnosisCode: "F84.0", pos: "12", sessionDate: n.day, minutes: n.units * 15, units: n.units, status: "ok", billed: true, signedAt: `${n.day}T23:30:00.000Z`, providerName: "Rhea Okafor", providerSignedOn: n.day })
      .returning();
    noteIds[n.status] = row!.id;
    if (n.status === "none") continue;
    const built = await api("/v2/claims", { method: "POST", token, body: { note_ids: [row!.id] } });
    expect(built.status, await built.clone().text()).toBe(201);
    const claimId = ((await built.json()) as { data: { id: number }[] }).data[0]!.id;
    if (n.status === "draft") continue;
    const gen = await api("/v2/claims/generate", { method: "POST", token, body: { claim_ids: [claimId] } });
    expect(gen.status, await gen.clone().text()).toBe(201);
    if (n.status !== "generated") await db().update(claims).set({ status: n.status }).where(eq(claims.id, claimId));
  }
  // A normal price update after the claims went out.
  const changed = await api(`/insurance/update/service/${service!.id}`, { method: "PATCH", token, body: { unit_price: 20, multiplier: 1 } });
  expect(changed.status, await changed.clone().text()).toBe(200);
  c = { locationId: location.id, patientId: patient.id, token, cookie: await signInCookie(manager), managerId: manager.id, serviceId: service!.id, noteIds };
});


/** "$1,033.24" or 1033.24 → 103324. */
const centsOf = (cell: string) => Math.round(Number(cell.replace(/[$,"]/g, "")) * 100);

/** Billing's charges (the client_report rows) for the client's notes of the period: what billing by client shows. */
async function billingCents(from: string, to: string): Promise<number> {
  const res = await api(`/client_report/byprofile/${c.patientId}?date_start=${from}&date_end=${to}`, { token: c.token });
  expect(res.status).toBe(200);
  return ((await res.json()) as { noteRbts: { charges_cents: number }[] }).noteRbts.reduce((s, r) => s + r.charges_cents, 0);
}

/** The 97153 row's Charges on the screen and in the CSV, in cents. */
async function reportCents(from: string, to: string, extra = ""): Promise<{ screen: number; csv: number }> {
  const query = `date_from=${from}&date_to=${to}&location_id=${c.locationId}${extra}`;
  const html = await (await request(`/reports/location-cpt?${query}`, { cookie: c.cookie })).text();
  const row = [...html.slice(html.indexOf("<tbody"), html.indexOf("</tbody>")).matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)]
    .map((m) => [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((x) => x[1]!.replace(/<[^>]+>/g, "").trim()))
    .find((cells) => cells[1] === "97153");
  const csv = await (await request(`/reports/location-cpt/export.csv?${query}`, { cookie: c.cookie })).text();
  const [header, ...records] = parseCsv(csv);
  const record = records.find((cells) => cells[1] === "97153");
  return { screen: row ? centsOf(row[5]!) : 0, csv: record ? centsOf(record[header.indexOf("Charges ($)")]!) : 0 };
}

describe("location-cpt charges a note as billing does, after the price changed", () => {
  it.each(NOTES.map((n) => [n.status, n] as const))("a note on %s: the report's Charges equal billing's for its day", async (_status, n) => {
    const expected = chargeAfterChange(n);
    expect(await billingCents(n.day, n.day)).toBe(expected);
    // The day from the day sums (no client filter) and from the notes (the client's).
    expect(await reportCents(n.day, n.day)).toEqual({ screen: expected, csv: expected });
    expect(await reportCents(n.day, n.day, `&patient_id=${c.patientId}`)).toEqual({ screen: expected, csv: expected });
  });

  it.each([
    ["the whole month (day sums)", "2026-11-01", "2026-11-30", ""],
    ["the whole month narrowed to the client (notes)", "2026-11-01", "2026-11-30", "client"],
    ["part of the month", "2026-11-03", "2026-11-06", ""],
  ])("%s: the report's total is billing's, each claimed note at its claim line's price", async (_what, from, to, who) => {
    const expected = NOTES.filter((n) => n.day >= from && n.day <= to).reduce((s, n) => s + chargeAfterChange(n), 0);
    expect(await billingCents(from, to)).toBe(expected);
    expect(await reportCents(from, to, who ? `&patient_id=${c.patientId}` : "")).toEqual({ screen: expected, csv: expected });
  });

  it("a later price change moves only the notes no generated, sent or accepted claim holds", async () => {
    const before = (await reportCents("2026-11-01", "2026-11-30")).screen;
    const changed = await api(`/insurance/update/service/${c.serviceId}`, { method: "PATCH", token: c.token, body: { unit_price: 25 } });
    expect(changed.status).toBe(200);
    try {
      const free = NOTES.filter((n) => n.claimCents === 0).reduce((s, n) => s + n.units, 0);
      const after = await reportCents("2026-11-01", "2026-11-30");
      expect(after.screen - before).toBe(free * 500);
      expect(after).toEqual({ screen: await billingCents("2026-11-01", "2026-11-30"), csv: after.screen });
    } finally {
      await api(`/insurance/update/service/${c.serviceId}`, { method: "PATCH", token: c.token, body: { unit_price: 20 } });
    }
  });

  it("stays one round trip, and reads the period's claimed notes from the claim lines' date index, not every note", async () => {
    const counting = countingDb();
    const actor = (await getUserActor(db(), c.managerId))!;
    const ctx = { db: counting.db, actor, ip: "127.0.0.1", now: () => new Date("2026-11-28T12:00:00Z") };
    const f = { locationId: null, providerId: null, patientId: null, from: "2026-11-01", to: "2026-11-30" };
    const report = await locationCptReport(ctx, f, { limit: 25, offset: 0 });
    expect(counting.roundTrips()).toBe(1);
    expect(report.totals.charges_cents).toBe(NOTES.reduce((s, n) => s + chargeAfterChange(n), 0));
    const q = claimedNoteCptSums({ ...ctx, db: db() }, f).toSQL();
    const plan = (await env.DB.prepare(`explain query plan ${q.sql}`).bind(...q.params).all<{ detail: string }>()).results.map((r) => r.detail);
    expect(plan[0]).toMatch(/^SEARCH cl USING INDEX claim_lines_service_date_idx \(service_date>\? AND service_date<\?\)/);
    expect(plan).toContain("SEARCH c USING INTEGER PRIMARY KEY (rowid=?)");
    // No walk of a table: only the deleted clients' list, read once from its covering index (noteReportWhere).
    expect(plan.filter((d) => d.startsWith("SCAN") && !d.includes("CONSTANT ROW"))).toEqual(["SCAN patients USING COVERING INDEX patients_deleted_idx"]);
  });
});
