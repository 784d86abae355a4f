import { and, eq, isNull } from "drizzle-orm";
import { claimLineNotes, claimLines, claims, clientReports, insurances, notes } from "~/db/schema";
import { db } from "./helpers";

/**
 * A claim as the claims screens would have built it (tests insert it directly): its lines, and for each line a
 * note (with its client_report row) that the line bills. Status "sent" unless told.
 */
export interface FixtureLine {
  cpt: string;
  modifiers?: string;
  serviceDate: string;
  units: number;
  chargeCents: number;
}

let seq = 0;

/** The fixture claims' payer: the name write835 writes by default (N1*PR "DEMO HEALTH PLAN", no payer id). */
export const FIXTURE_PAYER = { name: "Demo Health Plan", payerId: "DHP01" };

/** The insurer named `payer.name` (made on first use; looked up each time, since a test's writes may be undone). */
export async function fixtureInsurer(payer: { name: string; payerId: string | null } = FIXTURE_PAYER): Promise<number> {
  const [found] = await db().select({ id: insurances.id }).from(insurances).where(and(eq(insurances.name, payer.name), isNull(insurances.deletedAt))).limit(1);
  if (found) return found.id;
  const [made] = await db().insert(insurances).values({ name: payer.name, payerId: payer.payerId }).returning({ id: insurances.id });
  return made!.id;
}

export async function createClaim(
  patient: { id: number; locationId: number },
  lines: readonly FixtureLine[],
  over: { claimNumber?: string; status?: "draft" | "generated" | "sent" | "accepted" | "rejected"; payer?: { name: string; payerId: string | null }; sentPayer?: { name: string; payerId: string | null } } = {},
) {
  const claimNumber = over.claimNumber ?? `CLM-${Date.now().toString(36)}-${++seq}`;
  const total = lines.reduce((a, l) => a + l.chargeCents, 0);
  const [claim] = await db()
    .insert(claims)
    // Billed to `payer` (default FIXTURE_PAYER); `sentPayer`: the payer its 837P named, kept as generation keeps it (claims.sent_data).
    .values({ patientId: patient.id, locationId: patient.locationId, insurerId: await fixtureInsurer(over.payer), claimNumber, status: over.status ?? "sent", totalCents: total, diagnosisCodes: "F840", sentData: over.sentPayer ? JSON.stringify({ payer: over.sentPayer }) : null })
    .returning();
  const out: { lineId: number; noteId: number; reportId: number }[] = [];
  for (const [i, l] of lines.entries()) {
    const mods = (l.modifiers ?? "").split("-").filter(Boolean);
    const [line] = await db()
      .insert(claimLines)
      .values({ claimId: claim!.id, lineNumber: i + 1, serviceDate: l.serviceDate, cptCode: l.cpt, modifiers: l.modifiers ?? "", units: l.units, unitPriceCents: l.units ? Math.round(l.chargeCents / l.units) : 0, chargeCents: l.chargeCents, pos: "12" })
      .returning();
    const [note] = await db()
      .insert(notes)
      // The note says what its line billed (CPT, date, units, modifiers, place of service), as a build makes it.
      .values({ type: l.cpt === "97155" ? "bcba" : "rbt", patientId: patient.id, locationId: patient.locationId, sessionDate: l.serviceDate, cptCode: l.cpt, units: l.units, minutes: l.units * 15, md: mods[0] ?? null, md2: mods[1] ?? null, pos: "12", billed: true })
      .returning();
    const [report] = await db()
      .insert(clientReports)
      .values({ noteId: note!.id, noteType: note!.type, patientId: patient.id, locationId: patient.locationId, sessionDate: l.serviceDate, cptCode: l.cpt, units: l.units, chargesCents: l.chargeCents, billed: true })
      .returning();
    await db().insert(claimLineNotes).values({ claimLineId: line!.id, noteId: note!.id });
    out.push({ lineId: line!.id, noteId: note!.id, reportId: report!.id });
  }
  return { claim: claim!, lines: out };
}

/** The claim, its lines and its notes' pay flags as stored now. */
export async function claimState(claimId: number) {
  const [claim] = await db().select().from(claims).where(eq(claims.id, claimId));
  const lines = await db().select().from(claimLines).where(eq(claimLines.claimId, claimId)).orderBy(claimLines.lineNumber);
  const flags = [];
  for (const l of lines) {
    const [link] = await db().select().from(claimLineNotes).where(eq(claimLineNotes.claimLineId, l.id));
    const [note] = await db().select({ paid: notes.paid, version: notes.version }).from(notes).where(eq(notes.id, link!.noteId));
    const [report] = await db().select({ pay: clientReports.pay }).from(clientReports).where(eq(clientReports.noteId, link!.noteId));
    flags.push({ notePaid: note!.paid, reportPay: report!.pay });
  }
  return { claim: claim!, lines, flags };
}
