import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { claimLineNotes, clientReports, insuranceServices, locations, notes, paServices, patients } from "../app/db/schema";
import { notePayer, priceNote, type PriceService } from "../app/domain/billing";
import { getUserActor } from "../app/models/actors.server";
import { providerCredentialSql } from "../app/models/billing-prices.server";
import { scrubNotes } from "../app/models/scrubber.server";
import { DEMO_INSURER_IDS, DEMO_PATIENT_IDS } from "./demo-ids";

/**
 * Demo billing (issue 11 "Seed"): billing records (client_reports) for part of the demo notes, so that the
 * billing screens show something real — some billed, some billed and paid, some saved but not billed, a few
 * RBT rows with the XP modifier (charged 0, the amount shown beside) — priced by the one price function.
 * Only signed notes of more than a week ago are billed. A note the claims seed put on a claim keeps what the
 * claim says (billed, its modifiers, and not paid: only a remittance pays a claimed note, so no draft claim holds
 * a paid note). Each insurer also gets a BCBA price for 97153 (a BCBA delivering direct therapy), so every demo
 * note (97151, 97153, 97155, 97156; RBT or BCBA) has a price.
 * Only the demo clients' notes and the demo insurers (scripts/demo-ids.ts). Idempotent: a note that already has its
 * billing record is left as it is.
 */
export async function seedDemoBilling(db: Db, now: Date): Promise<void> {
  // A BCBA price for 97153 at each demo insurer that has none (the other pairs come with demo-data's services); a
  // clinic's own insurers are not the demo's to price (decision 002).
  const services = await db.select().from(insuranceServices).where(and(isNull(insuranceServices.deletedAt), inArray(insuranceServices.insuranceId, [...DEMO_INSURER_IDS])));
  const missing = DEMO_INSURER_IDS.filter((id) => services.some((s) => s.insuranceId === id) && !services.some((s) => s.insuranceId === id && s.cptCode === "97153" && s.type === "bcba"));
  if (missing.length) {
    const rbtPrice = (id: number) => services.find((s) => s.insuranceId === id && s.cptCode === "97153")?.unitPrice ?? 15;
    await db.insert(insuranceServices).values(missing.map((insuranceId) => ({ insuranceId, cptCode: "97153", provider: "bcba", type: "bcba" as const, modifiers: "HO", description: "97153 by a BCBA", unitPrice: rbtPrice(insuranceId) + 10, maxPerDay: 32 })));
  }

  const cutoff = new Date(now.getTime() - 7 * 86_400_000).toISOString().slice(0, 10);
  const rows = await db
    .select({
      n: notes,
      patientInsurer: patients.insurerId,
      paInsurer: paServices.insuranceId,
      npi: locations.npi,
      existing: clientReports.id,
      providerCredential: providerCredentialSql(notes.providerId).as("prov_credential"),
      onClaim: sql<number>`exists (select 1 from ${claimLineNotes} where ${claimLineNotes.noteId} = ${notes.id})`.as("on_claim"),
    })
    .from(notes)
    .innerJoin(patients, eq(patients.id, notes.patientId))
    .innerJoin(locations, eq(locations.id, notes.locationId))
    .leftJoin(paServices, eq(paServices.id, notes.paServiceId))
    .leftJoin(clientReports, eq(clientReports.noteId, notes.id))
    .where(and(isNull(notes.deletedAt), isNull(patients.deletedAt), inArray(notes.patientId, [...DEMO_PATIENT_IDS])))
    .orderBy(asc(notes.sessionDate), asc(notes.id));
  const priced: PriceService[] = await db
    .select({ id: insuranceServices.id, insuranceId: insuranceServices.insuranceId, locationId: insuranceServices.locationId, cptCode: insuranceServices.cptCode, modifiers: insuranceServices.modifiers, provider: insuranceServices.provider, type: insuranceServices.type, unitPrice: insuranceServices.unitPrice, multiplier: insuranceServices.multiplier, maxPerDay: insuranceServices.maxPerDay })
    .from(insuranceServices)
    .where(isNull(insuranceServices.deletedAt));

  const stamp = now.toISOString();
  const reports: (typeof clientReports.$inferInsert)[] = [];
  const noteChanges: { id: number; md2: string | null; billed: boolean; paid: boolean; status: string }[] = [];
  rows.forEach((r, i) => {
    if (r.existing != null || r.n.sessionDate > cutoff) return;
    const kind = i % 6; // 0: billed and paid, 1: billed, 2: saved, not billed, 3–5: no billing record yet
    if (kind > 2) return;
    const billable = !!r.n.signedAt;
    const onClaim = !!r.onClaim;
    const billed = onClaim ? r.n.billed : billable && kind <= 1;
    const paid = onClaim ? r.n.paid : billed && kind === 0;
    // A few RBT rows overlap another session: XP, not reimbursed (a claimed note keeps its claim line's modifiers).
    const md2 = !onClaim && r.n.type === "rbt" && i % 17 === 2 ? "XP" : r.n.md2;
    const insurerId = notePayer(r.paInsurer, r.patientInsurer);
    const price = priceNote(priced, { type: r.n.type, cptCode: r.n.cptCode, units: r.n.units, modifiers: [r.n.md, md2], locationId: r.n.locationId, insurerId, providerCredential: r.providerCredential, unitPriceCents: r.n.unitPriceCents });
    reports.push({
      noteId: r.n.id,
      noteType: r.n.type,
      patientId: r.n.patientId,
      locationId: r.n.locationId,
      insurerId,
      sessionDate: r.n.sessionDate,
      pos: r.n.pos,
      minutes: r.n.minutes,
      cptCode: r.n.cptCode,
      md: r.n.md,
      md2,
      units: r.n.units,
      unitPriceCents: price.unitPriceCents,
      multiplier: price.multiplier,
      chargesCents: price.chargesCents,
      xpCents: price.xpCents,
      npi: r.npi,
      billed,
      pay: paid,
      createdAt: stamp,
      updatedAt: stamp,
    });
    noteChanges.push({ id: r.n.id, md2, billed, paid, status: billed ? "ok" : "pending" });
  });
  for (let i = 0; i < reports.length; i += 50) await db.insert(clientReports).values(reports.slice(i, i + 50)).onConflictDoNothing();
  // The notes' billing view follows its record (md2, billed, paid, and status ok once billed).
  for (const group of ["billed-paid", "billed", "saved"] as const) {
    const ids = noteChanges.filter((c) => (group === "billed-paid" ? c.paid : group === "billed" ? c.billed && !c.paid : !c.billed)).map((c) => c.id);
    for (let i = 0; i < ids.length; i += 90) {
      const chunk = ids.slice(i, i + 90);
      if (group !== "saved") await db.update(notes).set({ billed: true, paid: group === "billed-paid", status: "ok" }).where(inArray(notes.id, chunk));
    }
  }
  const xp = noteChanges.filter((c) => c.md2 === "XP").map((c) => c.id);
  if (xp.length) await db.update(notes).set({ md2: "XP" }).where(inArray(notes.id, xp));
}

/**
 * Last of the demo seed, after the compliance dates: a billed note of a demo client on no live claim that the pre-billing scrubber
 * refuses (decision 034) — e.g. one whose provider's CPR expired, by the dates seeded around today, before its
 * session — is billed no more (nor paid): the demo's billed notes break no rule, so every one the build form
 * offers can be claimed (probe 9007 §3). The scrubber itself decides (scrubNotes), no copy of its rules.
 */
export async function unbillRefusedDemoNotes(db: Db, now: Date): Promise<number> {
  const actor = await getUserActor(db, 1);
  if (!actor) return 0;
  const billed = await db
    .select({ id: notes.id })
    .from(notes)
    .where(and(eq(notes.billed, true), isNull(notes.deletedAt), inArray(notes.patientId, [...DEMO_PATIENT_IDS]), sql`not exists (select 1 from claim_line_notes cln join claim_lines cl on cl.id = cln.claim_line_id join claims c on c.id = cl.claim_id where cln.note_id = "notes"."id" and c.status <> 'rejected')`));
  if (!billed.length) return 0;
  const reasons = await scrubNotes({ db, actor, ip: "127.0.0.1", now: () => now }, billed.map((n) => n.id));
  const refused = billed.map((n) => n.id).filter((id) => reasons.get(id)?.length);
  for (let i = 0; i < refused.length; i += 90) {
    const chunk = refused.slice(i, i + 90);
    await db.update(notes).set({ billed: false, paid: false, status: "pending" }).where(inArray(notes.id, chunk));
    await db.update(clientReports).set({ billed: false, pay: false }).where(inArray(clientReports.noteId, chunk));
  }
  return refused.length;
}
