/**
 * The reports' reads at bench size, in process (decision 038): each report's runner over a bench database
 * through the libSQL driver (the SQLite engine local D1 runs), 30 runs after 3 warm-ups, median and p95, for an
 * all-locations admin and a one-location manager. It times the queries and the row shaping (pacing, the chain
 * check), not the Worker's rendering; `npm run bench` times the screens themselves (its reports-* pages).
 * Usage: node --import tsx test/bench/reports-sql.ts --url file:/path/bench.db  (after scripts/bench-reports.ts)
 */
import type { BatchItem } from "drizzle-orm/batch";
import { libsqlDatabase } from "../../app/db/libsql.server";
import type { Actor } from "../../app/domain/permissions";
import { REPORT_DEFINITIONS } from "../../app/domain/report-registry";
import type { ReportKey } from "../../app/domain/reports";
import { parseWith } from "../../app/domain/validation";
import { REPORT_RUNNERS } from "../../app/models/reports/index.server";
import type { ReportRunContext } from "../../app/services/report-screens.server";
import { argValue } from "../../scripts/local-d1";

const url = argValue("--url");
if (!url) throw new Error("--url file:… is required");
const { db, client } = libsqlDatabase(url);

const base: Omit<Actor, "roles" | "locationIds" | "locationId"> = { kind: "user", id: 1040, name: "Bench", surname: "Manager", email: "x", permissions: ["manage_notes"], timeZone: "America/New_York", avatar: null, status: "active", phone: null, twoFactorEnabled: false };
const actors: Record<string, Actor> = {
  admin: { ...base, roles: ["ADMIN"], locationIds: [], locationId: null },
  manager: { ...base, roles: ["MANAGER"], locationIds: [1005], locationId: 1005 },
};

const SCENARIOS: [ReportKey, string][] = [
  ["logs", ""],
  ["logs", "actor_id=1040"],
  ["logs", "patient_id=1500&date_from=2026-09-01&date_to=2026-11-26"],
  ["access", ""],
  ["access", "patient_id=1500"],
  ["pas", ""],
  ["pas", "status=ending"],
  ["client-projection", ""],
  ["client-eligibility", "window=60"],
  ["client-eligibility", "window=14&kind=insurance"],
  ["expiration-dates", ""],
  ["expiration-dates", "state=all&page=3"],
];

function rcFor(actor: Actor): ReportRunContext {
  const run = async (reads: BatchItem<"sqlite">[]) => (reads.length ? ((await db.batch(reads as never)) as unknown[]) : []);
  return { db, actor, ip: "127.0.0.1", now: () => new Date(), read: run as never, audited: ((_ids: unknown, reads: BatchItem<"sqlite">[]) => run(reads)) as never };
}

const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const rows: string[] = [];
for (const [who, actor] of Object.entries(actors)) {
  for (const [key, query] of SCENARIOS) {
    const def = REPORT_DEFINITIONS[key]!;
    const params = new URLSearchParams(query);
    const input = Object.fromEntries(def.filters.map((f) => [f.name, params.get(f.name) ?? ""]));
    const parsed = parseWith(def.schema, input);
    if (!parsed.ok) throw new Error(`${key}?${query}: ${JSON.stringify(parsed.errors)}`);
    const page = Number(params.get("page") ?? 1);
    const q = { filters: parsed.data, csv: false, page, per_page: 25, limit: 26, offset: (page - 1) * 25, asOf: null };
    const times: number[] = [];
    let shown = 0;
    for (let i = 0; i < 33; i++) {
      const t = performance.now();
      const answer = await REPORT_RUNNERS[key]!(rcFor(actor), q);
      if (i >= 3) times.push(performance.now() - t);
      shown = answer.rows.length;
    }
    times.sort((a, b) => a - b);
    rows.push(`${who.padEnd(8)} ${`${key}${query ? `?${query}` : ""}`.padEnd(70)} rows ${String(shown).padStart(3)}  median ${pct(times, 50).toFixed(1).padStart(6)} ms  p95 ${pct(times, 95).toFixed(1).padStart(6)} ms  ${pct(times, 95) <= 100 ? "≤ 100 ms" : "OVER 100 ms"}`);
  }
}
client.close();
console.log(rows.join("\n"));
