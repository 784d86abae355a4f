/**
 * The operations reports' statements alone (decision 039) on a bench database file, best and p95 of N runs:
 * `node --import tsx test/bench/ops-reports-sql.ts file:/path/to/bench.db`. The full HTTP timings are in
 * `npm run bench` (test/bench/run.ts); this isolates SQLite's share, on libSQL instead of workerd.
 */
import { libsqlDatabase } from "../../app/db/libsql.server";
import { getUserActor } from "../../app/models/actors.server";
import type { ModelContext } from "../../app/models/context";
import { caseloadReport } from "../../app/models/reports/caseload.server";
import { hoursReport } from "../../app/models/reports/hours.server";
import { locationCptReport } from "../../app/models/reports/location-cpt.server";
import { payrollReport } from "../../app/models/reports/payroll.server";
import { supervisionReport } from "../../app/models/reports/supervision.server";
import { ticketSupportReport } from "../../app/models/reports/ticket-support.server";

const url = process.argv[2] ?? "file:bench.db";
const runs = Number(process.argv[3] ?? 10);
const { db } = libsqlDatabase(url);
const actor = (await getUserActor(db, 2))!; // admin@demo.test: every location
const ctx: ModelContext = { db, actor, ip: "127.0.0.1", now: () => new Date("2026-11-26T12:00:00Z") };
const page = { limit: 25, offset: 0 };
const month = { from: "2026-10-01", to: "2026-10-31", providerId: null, patientId: null };
const cases: [string, () => Promise<unknown>][] = [];
for (const [where, locationId] of [
  ["all locations", null],
  ["one location", 1005],
] as const) {
  const f = { ...month, locationId };
  cases.push(
    [`payroll ${where}`, () => payrollReport(ctx, f, page)],
    [`hours by provider ${where}`, () => hoursReport(ctx, f, "provider", page)],
    [`hours by client ${where}`, () => hoursReport(ctx, f, "client", page)],
    [`hours by cpt ${where}`, () => hoursReport(ctx, f, "cpt", page)],
    [`bcba-report ${where}`, () => supervisionReport(ctx, f, { belowOnly: false }, page)],
    [`location-cpt ${where}`, () => locationCptReport(ctx, f, page)],
    [`provider-clients ${where}`, () => caseloadReport(ctx, f, page)],
    [`ticket-support ${where}`, () => ticketSupportReport(ctx, f)]
  );
}
for (const [name, run] of cases) {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(36)} best ${times[0]!.toFixed(1)} ms  p50 ${times[Math.floor(runs / 2)]!.toFixed(1)} ms  p95 ${times[Math.min(runs - 1, Math.ceil(runs * 0.95) - 1)]!.toFixed(
      1
    )} ms`
  );
}
