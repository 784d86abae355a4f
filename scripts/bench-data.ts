import { createClient, type InStatement } from "@libsql/client";
import { argValue, localD1File } from "./local-d1";
import { seedDemo } from "./demo-data";
import { libsqlDatabase } from "../app/db/libsql.server";
import { hashPassword } from "../app/services/passwords.server";
import { dayNumber } from "../app/domain/weeks";
import { zoneOffsetAtLocal } from "../app/domain/time";
import { RECOUNT_NOTES_SQL } from "../app/db/note-counts";
import { BENCH_BASE, BENCH_CLIENTS, BENCH_EMPLOYEES, BENCH_LOCATIONS, benchDay, benchPaService } from "./bench-shape";

/**
 * Fills a local D1 database with a practice at scale: 40 locations, 2,000 employees, 20,000 clients,
 * 10,000 parents, 20 insurers with CPT services, two PA services per client, a BIP with two goals and
 * about 500,000 weekly reports in all, and about 2,000,000 session notes, on top of the demo data
 * (so the demo sign-ins still work). Deterministic and idempotent (fixed ids, INSERT OR REPLACE).
 * Usage: npm run bench:data [-- --persist-to DIR | --url file:x.db] [--clients N] [--notes N]
 */
const url = argValue("--url") ?? `file:${localD1File(argValue("--persist-to"))}`;
const CLIENTS = Number(argValue("--clients") ?? BENCH_CLIENTS);
const LOCATIONS = BENCH_LOCATIONS;
const EMPLOYEES = BENCH_EMPLOYEES;
const PARENTS = Math.floor(CLIENTS / 2);
const INSURERS = 20;
const BASE = BENCH_BASE;
const NOTES = Number(argValue("--notes") ?? 2_000_000);
/** Notes: four two-hour-or-shorter slots a day per provider (08:00, 10:30, 13:00, 15:30: gaps of 30 minutes). */
const NOTE_SLOTS = [480, 630, 780, 930];
const PER_LOCATION_EMPLOYEES = EMPLOYEES / LOCATIONS;
const NOTE_DAYS = Math.ceil(NOTES / (LOCATIONS * PER_LOCATION_EMPLOYEES * NOTE_SLOTS.length));
const NOTE_BASE = 1_000_000;

const { db, client: demoClient } = libsqlDatabase(url);
await seedDemo(db);
demoClient.close();

const client = createClient({ url });
// A bulk load on a throwaway database: a large page cache, temporary data in memory and no fsync
// per statement (these settings last for this connection only; the file stays a normal SQLite file).
for (const pragma of ["cache_size = -1000000", "synchronous = OFF", "temp_store = MEMORY"]) await client.execute(`pragma ${pragma}`);
let seed = 42;
const rand = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
const FIRST = ["Liam", "Olivia", "Noah", "Emma", "Mateo", "Ava", "Lucas", "Mia", "Ethan", "Sofia", "Leo", "Isabella", "Aiden", "Zoe", "Owen", "Layla", "Elijah", "Chloe", "Jack", "Nora"];
const LAST = ["Garcia", "Smith", "Nguyen", "Johnson", "Lopez", "Williams", "Brown", "Davis", "Martinez", "Wilson", "Anderson", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez", "Clark", "Lewis", "Walker"];
const ZONES = ["America/New_York", "America/Chicago", "America/Denver", "America/Los_Angeles"];
const STATUSES = ["active", "active", "active", "active", "inactive", "incoming"];
const dayNumberOf = (date: string) => dayNumber(date)!;
const day = benchDay;

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
  for (const k of [0, 1] as const) {
    const pa = benchPaService(i, k, NOTE_DAYS);
    patients.push({
      sql: "insert or replace into pa_services (id, patient_id, pa_service, cpt, n_units, start_date, end_date, insurance_id, is_primary) values (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      // From before the first bench note (below) to after today; enough units for the client's bench notes.
      args: [pa.id, id, k === 0 ? "Direct therapy" : "Supervision", pa.cpt, pa.nUnits, pa.startDate, pa.endDate, BASE + (i % INSURERS), k === 0 ? 1 : 0],
    });
  }
}
await inChunks(patients);
// What a claim needs of its parties (decision 034: the scrubber checks them as the 837P does), as the demo seed
// gives them (scripts/demo-claims.ts): the locations' billing NPI, tax id, ZIP+4, address and phone; every
// employee's NPI; each client's member id and subscriber (the parent). Without them every bench note would list a
// dozen claim reasons, which no billable clinic's notes do.
await client.batch(
  [
    {
      sql: "update locations set address = (100 + id) || ' Main St', zip = '33130-1812', phone1 = '305-555-0101', npi = '1234567893', tax_id = '591234567' where id >= ? and id < ?",
      args: [BASE, BASE + LOCATIONS],
    },
    { sql: "update users set profile = json_set(coalesce(profile, '{}'), '$.npi', '1999999992') where id >= ? and id < ?", args: [BASE, BASE + EMPLOYEES] },
    {
      sql: `update patients set details = json_set(details, '$.insuranceId', 'MBR' || id, '$.insured_policy_group', 'GRP-100', '$.is_self_subscriber', json('false'),
              '$.address', (100 + id % 900) || ' Palm Ave', '$.state', 'FL', '$.zip', '33131', '$.parent_name', 'Parent' || id || ', Maria',
              '$.parent_birth_date', '1986-05-14', '$.parent_gender', '2') where id >= ? and id < ?`,
      args: [BASE, BASE + CLIENTS],
    },
  ],
  "write",
);

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

// Session notes: every provider sees a client in each of four daily slots, on every day of the last
// NOTE_DAYS days before 2026-11-01. On day n in slot k, a location's 50 providers see 50 different clients
// of one block of 50 (block (4n + k) mod 10, rotated by n), so no client and no provider has two sessions
// at once, a provider has 30 minutes between sessions, and a client has at most one session a day. RBTs
// (two employees in three) write 97153 notes of 90–118 minutes, BCBAs 97155 notes of 45–60 minutes; units
// follow unitsForMinutes (whole 15-minute blocks, plus one from 8 minutes). Generated inside SQLite, one
// INSERT … SELECT per day, so 2,000,000 rows take seconds rather than megabytes of parameters.
const perLocationClients = Math.floor(CLIENTS / LOCATIONS);
const blocks = Math.floor(perLocationClients / PER_LOCATION_EMPLOYEES);
if (blocks < NOTE_SLOTS.length) throw new Error(`--clients ${CLIENTS} is too few for the notes: need ${NOTE_SLOTS.length * EMPLOYEES} or more.`);
const notesStarted = Date.now();
// Building the notes' indexes once after the load is several times faster than updating them row by
// row: drop them (their definitions come from the schema, as the migrations created them) and recreate.
const noteIndexes = (await client.execute("select name, sql from sqlite_master where type = 'index' and tbl_name = 'notes' and sql is not null")).rows.map((r) => ({ name: String(r.name), sql: String(r.sql) }));
for (const ix of noteIndexes) await client.execute(`drop index if exists "${ix.name}"`);
// The note triggers — note_counts (migration 0010, decision 035) and the reports' month and day sums (migration
// 0015, decision 039) — would run once per row, and INSERT OR REPLACE does not fire their delete side: drop them
// for the load, recount all those tables once after it (RECOUNT_NOTES_SQL), and put them back.
const noteTriggers = (await client.execute("select name, sql from sqlite_master where type = 'trigger' and tbl_name = 'notes'")).rows.map((r) => ({ name: String(r.name), sql: String(r.sql) }));
for (const tr of noteTriggers) await client.execute(`drop trigger if exists "${tr.name}"`);
const lastNoteDay = dayNumberOf("2026-10-31");
let noteCount = 0;
for (let n = 0; n < NOTE_DAYS; n++) {
  const perDay = LOCATIONS * PER_LOCATION_EMPLOYEES * NOTE_SLOTS.length;
  const take = Math.min(perDay, NOTES - noteCount);
  if (take <= 0) break;
  const dn = lastNoteDay - n;
  const date = new Date(dn * 86_400_000).toISOString().slice(0, 10);
  // Each location's UTC offset on that day (location x is in ZONES[x % 4]); every slot starts after 02:00, so
  // the offset at the first slot is the day's (decision 024, 2026-11-26: the provider rules compare moments).
  const utcOffset = `case x % ${ZONES.length} ${ZONES.map((z, k) => `when ${k} then ${zoneOffsetAtLocal(dn * 1440 + NOTE_SLOTS[0]!, z)}`).join(" ")} end`;
  await client.execute({
    sql: `insert or replace into notes (id, type, patient_id, location_id, provider_id, supervisor_id, bip_id, pa_service_id, cpt_code, diagnosis_code, pos,
            session_date, time_in, time_out, start1_at, end1_at, start_at, end_at, utc_offset, minutes, units, md, status, provider_name, provider_signed_on, signed_at,
            summary_note, content, created_by, created_at, updated_at)
          with recursive
            l(x) as (select 0 union all select x + 1 from l where x < ${LOCATIONS - 1}),
            e(y) as (select 0 union all select y + 1 from e where y < ${PER_LOCATION_EMPLOYEES - 1}),
            s(k, st) as (values ${NOTE_SLOTS.map((m, k) => `(${k}, ${m})`).join(", ")}),
            g as (select x, y, k, st, x + ${LOCATIONS} * y as emp,
                         x + ${LOCATIONS} * (((:n * ${NOTE_SLOTS.length} + k) % ${blocks}) * ${PER_LOCATION_EMPLOYEES} + ((y + :n) % ${PER_LOCATION_EMPLOYEES})) as cli
                  from l, e, s),
            h as (select *, (emp % 3 = 0) as bcba,
                         cast(case when emp % 3 = 0 then 45 + ((cli + :n) % 4) * 5 else 90 + ((cli + :n) % 5) * 7 end as integer) as m
                  from g)
          select ${NOTE_BASE} + :n * ${perDay} + (x * ${PER_LOCATION_EMPLOYEES} + y) * ${NOTE_SLOTS.length} + k,
                 case when bcba then 'bcba' else 'rbt' end, ${BASE} + cli, ${BASE} + x, ${BASE} + emp,
                 case when bcba then null else ${BASE} + x + ${LOCATIONS} * ((3 - x % 3) % 3) end,
                 ${BASE} + cli, ${BASE} + cli * 2 + bcba, case when bcba then '97155' else '97153' end, 'F84.0', '12',
                 :date, printf('%02d:%02d', st / 60, st % 60), printf('%02d:%02d', (st + m) / 60, (st + m) % 60),
                 :dn * 1440 + st, :dn * 1440 + st + m, :dn * 1440 + st, :dn * 1440 + st + m, ${utcOffset}, m, m / 15 + (m % 15 >= 8),
                 case when bcba then 'HO' else 'HM' end, case when (cli + :n) % 7 = 0 then 'pending' else 'ok' end,
                 'Bench employee ' || emp, :date, :date || 'T23:00:00.000Z',
                 'Met with client at home for a direct therapy session. Maladaptive behaviors were recorded and replacement skills were practised with prompts faded as the client responded.',
                 printf('{"maladaptives":[{"plan_id":%d,"name":"Physical aggression","frequency":%d}],"replacements":[{"plan_id":%d,"name":"Functional communication","total_trials":10,"correct_responses":%d}],"client_appeared":"Calm"}',
                        ${BASE} + cli * 2, (cli + :n) % 6, ${BASE} + cli * 2 + 1, (cli + :n) % 11),
                 ${BASE} + emp, :date || 'T23:00:00.000Z', :date || 'T23:00:00.000Z'
          from h order by 1 limit :take`,
    args: { n, dn, date, take },
  });
  noteCount += take;
}
// Every note's minutes, units and UTC offset are whole numbers, as the app writes them (a REAL here once gave units such as
// 7.93 = 104 ÷ 15 + 1, because libSQL binds :n as a REAL and SQLite's % then answers REAL).
const fractional = Number((await client.execute("select count(*) as n from notes where typeof(units) <> 'integer' or typeof(minutes) <> 'integer' or (utc_offset is not null and typeof(utc_offset) <> 'integer')")).rows[0]!.n);
if (fractional) throw new Error(`Bench data: ${fractional} notes have minutes, units or a UTC offset that are not whole numbers.`);
for (const ix of noteIndexes) await client.execute(ix.sql);
await client.batch(RECOUNT_NOTES_SQL.map((sql) => ({ sql, args: [] })), "write");
for (const tr of noteTriggers) await client.execute(tr.sql);
await client.execute("analyze notes");
await client.execute("analyze patients");
client.close();
console.log(`Bench data: ${LOCATIONS} locations, ${EMPLOYEES} employees, ${CLIENTS} clients, ${PARENTS} parents, ${CLIENTS * 2} PA services, ${CLIENTS} BIPs, ${CLIENTS * 2} goals, ${reports} weekly reports, ${noteCount} notes (${((Date.now() - notesStarted) / 1000).toFixed(1)} s) into ${url} in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
