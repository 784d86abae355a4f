import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { libsqlDatabase, migrateLibsql } from "../../app/db/libsql.server";
import { claimLineNotes, claimLines, claims, insurances, locations, notes, patients, users } from "../../app/db/schema";
import type { Actor } from "../../app/domain/permissions";
import { importRemittance } from "../../app/models/remittances.server";
import { write835, type Line835 } from "../support/x12-835";

/**
 * Issue 11: "importing an 835 for 1,000 lines ≤ 500 ms". In process on the libSQL driver (the same schema and
 * SQL, a fresh database with the real migrations): 100 sent claims of 10 lines, each line billing one note, and
 * an 835 that pays, part-pays or denies each line. Timed: `importRemittance` (read, match, write, audit). Each run
 * imports its own claims (an 835 is applied once). Its D1 round trips (3) are counted by the workers test
 * (test/workers/remittances.test.ts, "scale").
 */
export const TARGET_835_MS = 500;

const CLAIMS = 100;
const LINES = 10;

type Db = ReturnType<typeof libsqlDatabase>["db"];

async function sentClaims(db: Db, patient: { id: number; locationId: number }, insurerId: number, run: number) {
  const made: string[] = [];
  for (let c = 0; c < CLAIMS; c++) {
    const claimNumber = `BENCH-${run}-${c}`;
    const [claim] = await db.insert(claims).values({ patientId: patient.id, locationId: patient.locationId, insurerId, claimNumber, status: "sent", totalCents: LINES * 10_000, diagnosisCodes: "F840" }).returning({ id: claims.id });
    const dates = Array.from({ length: LINES }, (_, i) => `2026-03-${String(i + 1).padStart(2, "0")}`);
    const lineRows = await db
      .insert(claimLines)
      .values(dates.map((d, i) => ({ claimId: claim!.id, lineNumber: i + 1, serviceDate: d, cptCode: "97153", modifiers: "", units: 8, unitPriceCents: 1250, chargeCents: 10_000, pos: "12" })))
      .returning({ id: claimLines.id });
    const noteRows = await db
      .insert(notes)
      .values(dates.map((d) => ({ type: "rbt" as const, patientId: patient.id, locationId: patient.locationId, sessionDate: d, cptCode: "97153", units: 8, minutes: 120, billed: true })))
      .returning({ id: notes.id });
    await db.insert(claimLineNotes).values(lineRows.map((l, i) => ({ claimLineId: l.id, noteId: noteRows[i]!.id })));
    made.push(claimNumber);
  }
  return made;
}

export async function bench835(runs = 5): Promise<{ medianMs: number; p95Ms: number; lines: number; met: boolean }> {
  const dir = mkdtempSync(path.join(tmpdir(), "baseline-bench-835-"));
  const url = `file:${path.join(dir, "bench.db")}`;
  try {
    await migrateLibsql(url);
    const { db, client } = libsqlDatabase(url);
    try {
      const [loc] = await db.insert(locations).values({ title: "Bench 835", timeZone: "America/New_York" }).returning({ id: locations.id });
      const [patient] = await db.insert(patients).values({ patientIdentifier: "BENCH-835", firstName: "Remy", lastName: "Payne", locationId: loc!.id }).returning({ id: patients.id, locationId: patients.locationId });
      // The biller: a user row, as the remittance and its file name who imported them.
      // The claims' payer: the 835's N1*PR names it (write835's default name), as decision 033 requires.
      const [payer] = await db.insert(insurances).values({ name: "Demo Health Plan", payerId: "DHP01" }).returning({ id: insurances.id });
      const [biller] = await db.insert(users).values({ name: "Bench", surname: "Biller", email: "bench@example.test", passwordHash: "-", locationId: loc!.id }).returning({ id: users.id });
      const actor: Actor = { kind: "user", id: biller!.id, name: "Bench", surname: "Biller", email: "bench@example.test", roles: ["ADMIN"], permissions: ["manage_claims"], locationIds: [loc!.id], locationId: loc!.id, timeZone: "America/New_York", avatar: null, status: "active", phone: null, twoFactorEnabled: false };
      const outcomes: Line835["outcome"][] = [{ kind: "paid" }, { kind: "partial", paidCents: 8000 }, { kind: "denied" }];
      const times: number[] = [];
      // One warm-up run, then `runs` timed ones, each on its own 100 claims.
      for (let run = 0; run <= runs; run++) {
        const numbers = await sentClaims(db, { id: patient!.id, locationId: patient!.locationId }, payer!.id, run);
        const text = write835({
          claims: numbers.map((claimNumber) => ({ claimNumber, lines: Array.from({ length: LINES }, (_, i) => ({ cpt: "97153", serviceDate: `2026-03-${String(i + 1).padStart(2, "0")}`, chargeCents: 10_000, units: 8, outcome: outcomes[i % 3]! })) })),
          trace: `BENCH835${run}`,
        });
        const ctx = { db, actor, ip: "127.0.0.1", now: () => new Date() };
        const t0 = performance.now();
        const result = await importRemittance(ctx, text, { dryRun: false });
        const ms = performance.now() - t0;
        if (!result.ok) throw new Error(`835 not imported: ${result.message}`);
        if (result.report.summary.lines !== CLAIMS * LINES) throw new Error(`835 matched ${result.report.summary.lines} of ${CLAIMS * LINES} lines`);
        if (run > 0) times.push(ms);
      }
      times.sort((a, b) => a - b);
      const pick = (q: number) => Math.round(times[Math.min(times.length - 1, Math.floor(times.length * q))]!);
      const p95Ms = pick(0.95);
      return { medianMs: pick(0.5), p95Ms, lines: CLAIMS * LINES, met: p95Ms <= TARGET_835_MS };
    } finally {
      client.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith("remittance-835.ts")) {
  const r = await bench835();
  console.log(`835 of ${r.lines} lines: median ${r.medianMs} ms, p95 ${r.p95Ms} ms, target ≤ ${TARGET_835_MS} ms: ${r.met ? "met" : "MISSED"}`);
}
