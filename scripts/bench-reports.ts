import { createClient, type InStatement } from "@libsql/client";
import { chainedHash, GENESIS } from "../app/services/audit.server";
import { argValue, localD1File } from "./local-d1";
import { BENCH_BASE, BENCH_CLIENTS, BENCH_EMPLOYEES } from "./bench-shape";

/**
 * Adds what the reports read at scale to a bench database (decision 038): an audit trail of `--audit N`
 * entries (default 300,000) over the last 90 days, chained like the app's (each hash over the previous one),
 * 70 % naming one bench client, by bench employees; and compliance dates on every bench employee's location
 * entry (three dates each: some expired, some within 30 days, the rest later). Idempotent for the dates; the
 * audit entries are appended after the current tail. Usage: node --import tsx scripts/bench-reports.ts
 * [--url file:x.db | --persist-to DIR] [--audit N]
 */
const url = argValue("--url") ?? `file:${localD1File(argValue("--persist-to"))}`;
const AUDIT = Number(argValue("--audit") ?? 300_000);
const client = createClient({ url });
const started = Date.now();

const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
await client.execute({
  sql: `update user_locations set compliance = json_object('cpr_every_2_years', date('now', ((user_id % 97) - 20) || ' days'), 'bacb_license_expiration', date('now', ((user_id % 400) - 10) || ' days'), 'driver_license_expiration', date('now', ((user_id % 700) + 31) || ' days'))
        where user_id between ? and ?`,
  args: [BENCH_BASE, BENCH_BASE + BENCH_EMPLOYEES - 1],
});

const tail = (await client.execute("select hash from audit_log order by id desc limit 1")).rows[0];
let prev = tail ? String(tail.hash) : GENESIS;
const ACTIONS = ["read", "read", "read", "update", "create", "status"] as const;
const ENTITIES = ["patient", "note", "pa_service", "bip", "report"] as const;
const spanMs = 90 * 86_400_000;
const t0 = Date.now() - spanMs;
let batch: InStatement[] = [];
for (let i = 0; i < AUDIT; i++) {
  const actorId = BENCH_BASE + ((i * 7919) % BENCH_EMPLOYEES);
  const patientId = i % 10 < 7 ? BENCH_BASE + ((i * 104_729) % BENCH_CLIENTS) : null;
  const row = {
    actorType: "user",
    actorId,
    action: ACTIONS[i % ACTIONS.length]!,
    entity: ENTITIES[i % ENTITIES.length]!,
    entityId: String(i),
    patientId,
    ip: "127.0.0.1",
    at: new Date(t0 + Math.floor((spanMs * i) / AUDIT)).toISOString(),
    detail: patientId === null ? JSON.stringify({ patients: [BENCH_BASE + (i % BENCH_CLIENTS), BENCH_BASE + ((i + 1) % BENCH_CLIENTS)] }) : null,
  };
  const hash = await chainedHash(prev, row);
  batch.push({
    sql: "insert into audit_log (actor_type, actor_id, action, entity, entity_id, patient_id, ip, at, detail, prev_hash, hash) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    args: [row.actorType, row.actorId, row.action, row.entity, row.entityId, row.patientId, row.ip, row.at, row.detail, prev, hash],
  });
  prev = hash;
  if (batch.length === 5000) {
    await client.batch(batch, "write");
    batch = [];
  }
}
if (batch.length) await client.batch(batch, "write");
await client.execute("analyze audit_log");
await client.execute("analyze pa_services");
client.close();
console.log(`Reports bench data: ${AUDIT} audit entries, compliance dates of ${BENCH_EMPLOYEES} employees (today ${day(0)}) into ${url} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
