import { createClient, type InStatement } from "@libsql/client";
import { argValue, localD1File } from "./local-d1";
import { seedDemo } from "./demo-data";
import { libsqlDatabase } from "../app/db/libsql.server";
import { hashPassword } from "../app/services/passwords.server";

/**
 * Fills a local D1 database with a practice at scale: 40 locations, 2,000 employees, 20,000 clients,
 * 10,000 parents, 20 insurers with CPT services, two PA services per client and a BIP with two goals and
 * about 500,000 weekly reports in all, on top of the demo data
 * (so the demo sign-ins still work). Deterministic and idempotent (fixed ids, INSERT OR REPLACE).
 * Usage: npm run bench:data [-- --persist-to DIR | --url file:x.db] [--clients N]
 */
const url = argValue("--url") ?? `file:${localD1File(argValue("--persist-to"))}`;
const CLIENTS = Number(argValue("--clients") ?? 20_000);
const LOCATIONS = 40;
const EMPLOYEES = 2_000;
const PARENTS = Math.floor(CLIENTS / 2);
const INSURERS = 20;
const BASE = 1_000; // generated ids start above the demo data's

const { db, client: demoClient } = libsqlDatabase(url);
await seedDemo(db);
demoClient.close();

const client = createClient({ url });
let seed = 42;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
const FIRST = ["Liam", "Olivia", "Noah", "Emma", "Mateo", "Ava", "Lucas", "Mia", "Ethan", "Sofia", "Leo", "Isabella", "Aiden", "Zoe", "Owen", "Layla", "Elijah", "Chloe", "Jack", "Nora"];
const LAST = ["Garcia", "Smith", "Nguyen", "Johnson", "Lopez", "Williams", "Brown", "Davis", "Martinez", "Wilson", "Anderson", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Clark", "Lewis", "Walker"];
const ZONES = ["America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"];
const STATUSES = ["active", "active", "active", "active", "inactive", "incoming"];
const day = (offset: number) => new Date(Date.UTC(2026, 10, 1) - offset * 86_400_000).toISOString();

async function inChunks(rows: InStatement[], size = 2_000) {
  for (let i = 0; i < rows.length; i += size) await client.batch(rows.slice(i, i + size), "write");
}

const started = Date.now();
const passwordHash = await hashPassword("baseline-demo-2026");
const loc = (i: number) => BASE + i;

await inChunks(
  Array.from({ length: LOCATIONS }, (_, i) => ({
    sql: "insert or replace into locations (id, title, city, state, time_zone, pos_codes) values (?, ?, ?, ?, ?, ?)",
    args: [loc(i), `Bench Clinic ${String(i + 1).padStart(2, "0")}`, `City ${i + 1}`, "FL", ZONES[i % ZONES.length]!, "02,03,11,12"],
  })),
);
await inChunks(
  Array.from({ length: INSURERS }, (_, i) => ({ sql: "insert or replace into insurances (id, name, payer_id) values (?, ?, ?)", args: [BASE + i, `Bench Insurer ${i + 1}`, `P${10_000 + i}`] })),
);
await inChunks(
  Array.from({ length: INSURERS }, (_, i) =>
    ["97151", "97153", "97155", "97156"].flatMap((cpt, k) => [
      { sql: "insert or replace into insurance_services (id, insurance_id, cpt_code, provider, type, unit_price) values (?, ?, ?, 'bcba', 'bcba', ?)", args: [BASE + i * 10 + k * 2, BASE + i, cpt, 20 + k] },
      { sql: "insert or replace into insurance_services (id, insurance_id, cpt_code, provider, type, unit_price) values (?, ?, ?, 'rbt', 'rbt', ?)", args: [BASE + i * 10 + k * 2 + 1, BASE + i, cpt, 12 + k] },
    ]),
  ).flat(),
);
const employees: InStatement[] = [];
for (let i = 0; i < EMPLOYEES; i++) {
  const id = BASE + i;
  employees.push({
    sql: "insert or replace into users (id, name, surname, email, password_hash, status, location_id, created_at) values (?, ?, ?, ?, ?, 'active', ?, ?)",
    args: [id, pick(FIRST), pick(LAST), `bench-employee-${i}@bench.test`, passwordHash, loc(i % LOCATIONS), day(i % 700)],
  });
  employees.push({ sql: "insert or ignore into user_roles (user_id, role_id) values (?, ?)", args: [id, i % 3 === 0 ? 6 : 8] });
  employees.push({ sql: "insert or ignore into user_locations (user_id, location_id) values (?, ?)", args: [id, loc(i % LOCATIONS)] });
}
await inChunks(employees);
await inChunks(
  Array.from({ length: PARENTS }, (_, i) => ({
    sql: "insert or replace into parents (id, name, surname, email, location_id) values (?, ?, ?, ?, ?)",
    args: [BASE + i, pick(FIRST), pick(LAST), `bench-parent-${i}@bench.test`, loc(i % LOCATIONS)],
  })),
);
const patients: InStatement[] = [];
for (let i = 0; i < CLIENTS; i++) {
  const id = BASE + i;
  const l = i % LOCATIONS;
  const staff = (k: number) => BASE + ((l + LOCATIONS * ((i + k) % (EMPLOYEES / LOCATIONS))) % EMPLOYEES);
  patients.push({
    sql: `insert or replace into patients (id, patient_identifier, first_name, last_name, status, gender, birth_date, location_id, parent_id, insurer_id,
          rbt_home_id, bcba_home_id, clin_director_id, details, created_at) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    args: [id, `BN-${100_000 + i}`, pick(FIRST), pick(LAST), pick(STATUSES), (i % 2) + 1, `20${String(10 + (i % 12)).padStart(2, "0")}-0${(i % 9) + 1}-15`, loc(l), BASE + (i % PARENTS), BASE + (i % INSURERS), staff(0), staff(1), staff(2), JSON.stringify({ city: `City ${l + 1}`, diagnosis_code: "F84.0", onboarding: { welcome: "yes", consent: pick(["yes", "requested", "waiting"]) } }), day(i % 900)],
  });
  for (let k = 0; k < 2; k++) {
    patients.push({
      sql: "insert or replace into pa_services (id, patient_id, pa_service, cpt, n_units, start_date, end_date, insurance_id, is_primary) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      args: [BASE + i * 2 + k, id, k === 0 ? "Direct therapy" : "Supervision", k === 0 ? "97153" : "97155", k === 0 ? 960 : 120, day(120).slice(0, 10), day(-60 + (i % 90)).slice(0, 10), BASE + (i % INSURERS), k === 0 ? 1 : 0],
    });
  }
}
await inChunks(patients);

// Behavior plans: one BIP per client with a maladaptive and a replacement goal, three objectives each,
// and weekly data — three years for the first 100 clients (the chart budget), twelve weeks for the rest:
// about 500,000 weekly reports in all. Multi-row inserts keep this to a few thousand statements.
const HEAVY_CLIENTS = 100;
const lastSaturday = Date.UTC(2026, 9, 31); // a Saturday
const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const bipRows: InStatement[] = [];
const valueRows: (string | number | null)[][] = [];
let reports = 0;
for (let i = 0; i < CLIENTS; i++) {
  const bipId = BASE + i;
  bipRows.push({ sql: "insert or replace into bips (id, patient_id, location_id, doctor_id, type_of_assessment) values (?, ?, ?, ?, 1)", args: [bipId, BASE + i, loc(i % LOCATIONS), BASE + (i % EMPLOYEES)] });
  const weeks = i < HEAVY_CLIENTS ? 157 : 12;
  for (let k = 0; k < 2; k++) {
    const planId = BASE + i * 2 + k;
    const maladaptive = k === 0;
    const baselineMs = lastSaturday - (weeks - 2) * 7 * 86_400_000;
    bipRows.push({
      sql: `insert or replace into plans (id, bip_id, patient_id, name, category, status, baseline_level, baseline_date, baseline_timeframe, timeframe, unit_type, position)
            values (?, ?, ?, ?, ?, 'active', ?, ?, ?, ?, ?, 1)`,
      args: [planId, bipId, BASE + i, maladaptive ? "Physical aggression" : "Functional communication", maladaptive ? "maladaptive" : "replacement", maladaptive ? 20 : 10, isoDay(baselineMs), maladaptive ? "per_hour" : null, maladaptive ? "per_week" : null, maladaptive ? "occurrences" : null],
    });
    for (let j = 0; j < 3; j++) {
      bipRows.push({
        sql: "insert or replace into objectives (id, plan_id, type, status, name, target, start_point, initial_date, end_date, position) values (?, ?, ?, 'in progress', ?, ?, ?, ?, ?, ?)",
        args: [planId * 3 + j, planId, j === 2 ? "LTO" : "STO", `Objective ${j + 1}`, maladaptive ? 15 - j * 6 : 40 + j * 25, maladaptive ? 20 : 10, isoDay(baselineMs), isoDay(baselineMs + (j + 1) * 120 * 86_400_000), j + 1],
      });
    }
    for (let w = 0; w < weeks; w++) {
      const end = lastSaturday - (weeks - 1 - w) * 7 * 86_400_000;
      const v = maladaptive ? Math.max(0, Math.round(20 - (12 * w) / weeks + rand() * 6 - 3)) : Math.min(100, Math.round(10 + (70 * w) / weeks + rand() * 10));
      valueRows.push([planId, isoDay(end - 6 * 86_400_000), isoDay(end), v, rand() < 0.2 ? null : 80]);
      reports++;
    }
  }
}
await inChunks(bipRows);
const PER_INSERT = 200;
const reportStatements: InStatement[] = [];
for (let i = 0; i < valueRows.length; i += PER_INSERT) {
  const chunk = valueRows.slice(i, i + PER_INSERT);
  reportStatements.push({
    sql: `insert or replace into weekly_reports (plan_id, week_start, week_end, value, total_units) values ${chunk.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
    args: chunk.flat(),
  });
}
await inChunks(reportStatements, 200);
client.close();
console.log(`Bench data: ${LOCATIONS} locations, ${EMPLOYEES} employees, ${CLIENTS} clients, ${PARENTS} parents, ${CLIENTS * 2} PA services, ${CLIENTS} BIPs, ${CLIENTS * 2} goals, ${reports} weekly reports into ${url} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
