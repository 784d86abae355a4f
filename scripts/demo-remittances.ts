import { and, asc, eq, inArray, notExists, sql } from "drizzle-orm";
import type { Db } from "../app/db/client.server";
import { claimLines, claims, remittanceLines, remittances } from "../app/db/schema";
import { addDays } from "../app/domain/weeks";
import { getActor } from "../app/models/actors.server";
import { claimPayerColumns, importRemittance } from "../app/models/remittances.server";
import { write835, type Line835 } from "../test/support/x12-835";
import { DEMO_PATIENT_IDS } from "./demo-ids";

/** The demo remittance's trace number: the seed is idempotent (a second run finds it and stops). */
export const DEMO_TRACE = "DEMO-EFT-0001";
/** Days from the last service a payer pays to its payment: a month, a common turnaround. */
const PAYER_DAYS = 30;

/**
 * The remittance's payment date, from the claims' dates of service: a month after the last service it pays, or
 * today when that is still ahead, but always after that service (a payer pays what happened).
 */
export function demoPaymentDate(serviceDates: readonly string[], today: string): string {
  const last = serviceDates.reduce((a, b) => (b > a ? b : a));
  const due = addDays(last, PAYER_DAYS);
  return due <= today ? due : today > last ? today : addDays(last, 1);
}

/**
 * One remittance against the demo claims (run after the claims seed), from one payer: the first sent claim of the
 * demo manager's locations (1 and 2) that no remittance paid yet and the next such claim billed to the same payer
 * (only a claim's own payer pays it, decision 033), the file naming that payer (N1*PR name and payer id); their lines are paid in full, the second line of
 * each in part (CO-45, 80% paid) and the third denied (CO-197 with N54). Paid on demoPaymentDate of those lines.
 * Applied through the same model as the import screen (as the demo admin), so the claims' totals, statuses and
 * the notes' pay flags follow. Does nothing when there are no such claims (the claims seed has not run) or when
 * it ran before.
 */
export async function seedDemoRemittances(db: Db, now = new Date()): Promise<{ imported: boolean; message: string }> {
  const [done] = await db.select({ id: remittances.id }).from(remittances).where(eq(remittances.traceNumber, DEMO_TRACE));
  if (done) return { imported: false, message: "The demo remittance is there already." };
  const unpaid = await db
    .select({ id: claims.id, claimNumber: claims.claimNumber, ...claimPayerColumns() })
    .from(claims)
    .where(and(eq(claims.status, "sent"), inArray(claims.locationId, [1, 2]), inArray(claims.patientId, [...DEMO_PATIENT_IDS]), notExists(db.select({ x: sql`1` }).from(remittanceLines).where(eq(remittanceLines.claimId, claims.id)))))
    .orderBy(asc(claims.id));
  // One payer's remittance: the first such claim's payer (as its 837P named it), and its next claim of that payer.
  const payer = unpaid[0];
  if (!payer) return { imported: false, message: "No sent demo claims to pay: run the claims seed first." };
  const sent = unpaid.filter((c) => c.claimPayerName === payer.claimPayerName && c.claimPayerId === payer.claimPayerId).slice(0, 2);
  const lines = await db.select().from(claimLines).where(inArray(claimLines.claimId, sent.map((c) => c.id))).orderBy(asc(claimLines.claimId), asc(claimLines.lineNumber));
  const text = write835({
    trace: DEMO_TRACE,
    payerName: (payer.claimPayerName ?? "").toUpperCase(),
    ...(payer.claimPayerId ? { payerIdentifier: payer.claimPayerId } : {}),
    paymentDate: demoPaymentDate(lines.map((l) => l.serviceDate), now.toISOString().slice(0, 10)),
    claims: sent.map((c) => ({
      claimNumber: c.claimNumber,
      lines: lines
        .filter((l) => l.claimId === c.id)
        .map((l, i): Line835 => ({
          cpt: l.cptCode,
          modifiers: l.modifiers ? l.modifiers.split("-") : [],
          serviceDate: l.serviceDate,
          chargeCents: l.chargeCents,
          units: l.units,
          outcome: i === 1 && l.chargeCents > 0 ? { kind: "partial", paidCents: Math.floor((l.chargeCents * 8) / 10) } : i === 2 && l.chargeCents > 0 ? { kind: "denied" } : { kind: "paid" },
        })),
    })),
  });
  const actor = await getActor(db, "user", 1);
  if (!actor) return { imported: false, message: "The demo admin (user 1) is missing." };
  const result = await importRemittance({ db, actor, ip: "127.0.0.1", now: () => now }, text, { dryRun: false, fileName: "demo-remittance.835" });
  return { imported: result.ok, message: result.message };
}
