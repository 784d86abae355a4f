import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { libsqlDatabase, migrateLibsql } from "~/db/libsql.server";
import { seedDemo } from "../../scripts/demo-data";

/**
 * `npm start` seeds on every start (decision 002): a second run must leave the clinic's data — its own clients,
 * employees and insurers, and what it changed on the demo's rows — exactly as it was, and a forced run (which
 * puts the demo rows back) must still touch none of the clinic's own rows.
 */

const NOW = new Date("2026-11-25T15:00:00Z");
const LATER = new Date(NOW.getTime() + 3 * 86_400_000);

let dir: string;
let url: string;
let query: <T>(sql: string) => Promise<T[]>;
let exec: (sql: string) => Promise<void>;
let close: () => void;

async function seed(now: Date, options?: { force?: boolean }) {
  const { db, client } = libsqlDatabase(url);
  try {
    return await seedDemo(db, now, options);
  } finally {
    client.close();
  }
}

/**
 * A hash of every table's rows, by table name. The full-text index's segment tables are left out: rewriting a row
 * with the same values re-files its terms there; what it indexes (patients_search and its content) is compared.
 */
async function snapshot(): Promise<Record<string, string>> {
  const tables = await query<{ name: string }>("select name from sqlite_master where type = 'table' and name not like 'sqlite_%' and name not in ('patients_search_data', 'patients_search_idx') order by name");
  const out: Record<string, string> = {};
  for (const { name } of tables) {
    const rows = (await query<Record<string, unknown>>(`select * from "${name}"`)).map((r) => JSON.stringify(r)).sort();
    out[name] = `${rows.length}:${createHash("sha256").update(rows.join("\n")).digest("hex")}`;
  }
  return out;
}

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), "baseline-demo-seed-"));
  url = `file:${path.join(dir, "demo.db")}`;
  await migrateLibsql(url);
  const { client } = libsqlDatabase(url);
  query = async <T>(sql: string) => (await client.execute(sql)).rows as unknown as T[];
  exec = async (sql: string) => {
    await client.execute(sql);
  };
  close = () => client.close();
  expect(await seed(NOW)).toEqual({ seeded: true });
  // What a clinic enters on its first day: a client with a member id, linked to a parent, without birth date or
  // address; an insurer with only an RBT price for 97153; an employee without an NPI; and an edit of a demo client.
  await exec(`insert into insurances (id, name) values (900, 'Probe Ins')`);
  await exec(`insert into insurance_services (insurance_id, cpt_code, provider, type, modifiers, unit_price) values (900, '97153', 'rbt', 'rbt', 'HM', 15.5)`);
  await exec(`insert into users (id, name, surname, email, password_hash, location_id) values (900, 'Pat', 'Clinic', 'pat@clinic.test', 'x', 1)`);
  await exec(`insert into user_locations (user_id, location_id) values (900, 1)`);
  await exec(`insert into patients (id, patient_identifier, first_name, last_name, location_id, parent_id, insurer_id, details) values (900, 'CL-900', 'Kai', 'Clinic', 1, 1, 900, '{"insuranceId":"MBR12345"}')`);
  await exec(`update patients set details = json_set(details, '$.insuranceId', 'MBR-EDITED') where id = 1`);
}, 120_000);

afterAll(() => {
  close?.();
  rmSync(dir, { recursive: true, force: true });
});

describe("the demo seed run again (npm start)", () => {
  it("changes nothing in the whole database", async () => {
    const before = await snapshot();
    expect(await seed(LATER)).toEqual({ seeded: false });
    expect(await snapshot()).toEqual(before);
    const [demoClient] = await query<{ member: string }>("select json_extract(details, '$.insuranceId') member from patients where id = 1");
    expect(demoClient?.member).toBe("MBR-EDITED");
  }, 60_000);

  it("forced, puts the demo rows back and leaves the clinic's own rows as they were", async () => {
    await exec(`update patients set details = json_set(details, '$.insuranceId', 'MBR100200') where id = 1`);
    const before = await snapshot();
    expect(await seed(NOW, { force: true })).toEqual({ seeded: true });
    const after = await snapshot();
    expect(after).toEqual(before);
    const [client] = await query<{ birth_date: string | null; details: string }>("select birth_date, details from patients where id = 900");
    expect(client).toEqual({ birth_date: null, details: '{"insuranceId":"MBR12345"}' });
    expect(await query("select profile from users where id = 900")).toEqual([{ profile: "{}" }]);
    expect(await query("select compliance from user_locations where user_id = 900")).toEqual([{ compliance: "{}" }]);
    expect(await query("select cpt_code, type, unit_price from insurance_services where insurance_id = 900")).toEqual([{ cpt_code: "97153", type: "rbt", unit_price: 15.5 }]);
    expect(await query("select count(*) n from client_consents where patient_id = 900")).toEqual([{ n: 0 }]);
  }, 60_000);

  it("the demo's signed consent carries the clinic and client name its PDF shows, as a signature stores them (decision 040, stop 45)", async () => {
    const rows = await query<{ stored: string; title: string; name: string; location_id: number; signed_location_id: number }>(
      "select c.signed_location_title stored, l.title title, c.signed_client_name name, p.location_id, c.signed_location_id from client_consents c join patients p on p.id = c.patient_id join locations l on l.id = p.location_id where c.status = 'signed'",
    );
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) {
      expect(r.stored).toBe(r.title);
      expect(r.signed_location_id).toBe(r.location_id);
      expect(r.name).toMatch(/\S \S/);
    }
  });
});
