import { eq, sql } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../app/db/client.server";
import { backupCodes, bips, insurances, insuranceServices, locations, paServices, parents, patients, roles, settings, userLocations, userRoles, users } from "../app/db/schema";
import { PERMISSIONS, type Permission } from "../app/domain/permissions";
import { sha256Hex } from "../app/services/crypto.server";
import { hashPassword } from "../app/services/passwords.server";
import { normalizeBackupCode } from "../app/models/auth.server";
import { DEMO_BIP_COUNT, seedBipGoals } from "./demo-bips";
import { seedDemoClaims } from "./demo-claims";
import { seedDemoReports } from "./demo-reports";
import { demoNoteClients, seedDemoNotes } from "./demo-notes";
import { seedDemoBilling, unbillRefusedDemoNotes } from "./demo-billing";
import { seedDemoConsents } from "./demo-consents";
import { seedDemoRemittances } from "./demo-remittances";
import { seedDemoTickets } from "./demo-tickets";
import { seedDemoSchedule } from "./demo-schedule";
import { seedDemoComplianceDates } from "./demo-compliance";
import { DEMO_SEEDED_KEY } from "./demo-ids";

/**
 * Demo data for `npm start` and the browser tests (decision 002). Runs once: the last step records the run in
 * `settings` (DEMO_SEEDED_KEY), and a later run — every `npm start` — finds it and changes nothing, so what the
 * clinic entered since, on its own rows or on the demo's, stays. A run that stopped half-way left no record and is
 * completed by the next. `force` re-applies the demo rows (back to their seeded values). Every step touches only the
 * demo's own rows (fixed ids, scripts/demo-ids.ts) and is idempotent: created dates and password hashes are
 * written on first insert only.
 */

export const DEMO_PASSWORD = "baseline-demo-2026";
/** Backup codes of twofactor@demo.test (demo only; a real user sees theirs once). */
export const DEMO_BACKUP_CODES = ["DEMO1-AAAAA", "DEMO2-BBBBB", "DEMO3-CCCCC", "DEMO4-DDDDD", "DEMO5-EEEEE", "DEMO6-FFFFF", "DEMO7-GGGGG", "DEMO8-HHHHH", "DEMO9-JJJJJ", "DEMOA-KKKKK"];

const LOCATIONS = [
  { id: 1, title: "Miami Clinic", city: "Miami", state: "FL", zip: "33130-1812", address: "120 SW 8th St", phone1: "305-555-0101", email: "miami@demo.test", timeZone: "America/New_York", posCodes: "02,03,11,12,99,10" },
  { id: 2, title: "Denver Clinic", city: "Denver", state: "CO", zip: "80202-5305", address: "1600 Champa St", phone1: "303-555-0102", email: "denver@demo.test", timeZone: "America/Denver", posCodes: "02,11,12,99" },
  { id: 3, title: "Los Angeles Clinic", city: "Los Angeles", state: "CA", zip: "90012-3239", address: "200 N Spring St", phone1: "213-555-0103", email: "la@demo.test", timeZone: "America/Los_Angeles", posCodes: "02,03,11,12,10" },
];

/** The demo roles' permission sets; docs/decisions/002-demo-role-permissions.md explains them. */
export const ROLE_PERMISSIONS: Record<string, readonly Permission[]> = {
  SUPERADMIN: PERMISSIONS,
  ADMIN: PERMISSIONS,
  MANAGER: ["view_employees", "manage_employees", "view_clients", "manage_clients", "view_notes", "manage_notes", "view_parents", "manage_parents", "view_bips", "manage_bips", "manage_insurances", "manage_locations_access", "manage_tickets", "manage_claims", "ignore_time_limits"],
  DOCTOR: ["view_employees", "view_clients", "view_notes", "manage_notes", "view_parents", "view_bips", "manage_bips"],
  LM: ["view_employees", "manage_employees", "view_clients", "manage_clients", "view_notes", "view_parents", "manage_parents", "view_bips", "manage_locations_access"],
  BCBA: ["view_clients", "view_notes", "view_parents", "view_bips", "manage_bips"],
  BCaBA: ["view_clients", "view_notes", "view_bips", "manage_bips"],
  RBT: ["view_clients", "view_notes", "view_bips"],
};
const ROLE_IDS = ["SUPERADMIN", "ADMIN", "MANAGER", "DOCTOR", "LM", "BCBA", "BCaBA", "RBT"];

const USERS: { id: number; email: string; name: string; surname: string; role: string; locations: number[]; twoFactor?: boolean; gender: string }[] = [
  { id: 1, email: "superadmin@demo.test", name: "Sofia", surname: "Alvarez", role: "SUPERADMIN", locations: [1, 2, 3], gender: "female" },
  { id: 2, email: "admin@demo.test", name: "Marcus", surname: "Reed", role: "ADMIN", locations: [1, 2, 3], gender: "male" },
  { id: 3, email: "manager@demo.test", name: "Priya", surname: "Natarajan", role: "MANAGER", locations: [1, 2], gender: "female" },
  { id: 4, email: "doctor@demo.test", name: "Daniel", surname: "Okafor", role: "DOCTOR", locations: [1], gender: "male" },
  { id: 5, email: "lm@demo.test", name: "Hannah", surname: "Kowalski", role: "LM", locations: [2], gender: "female" },
  { id: 6, email: "bcba@demo.test", name: "Elena", surname: "Moreno", role: "BCBA", locations: [1, 3], gender: "female" },
  { id: 7, email: "bcaba@demo.test", name: "Tyler", surname: "Brooks", role: "BCaBA", locations: [3], gender: "male" },
  { id: 8, email: "rbt@demo.test", name: "Jasmine", surname: "Carter", role: "RBT", locations: [1], gender: "female" },
  { id: 9, email: "twofactor@demo.test", name: "Noah", surname: "Fischer", role: "BCBA", locations: [2], twoFactor: true, gender: "male" },
  // Accounts the browser tests change (test/e2e): a two-factor user whose challenges they exhaust, and one
  // password-reset user per run (JavaScript off / on), so no other demo account is touched.
  { id: 10, email: "twofactor-lockout@demo.test", name: "Grace", surname: "Lindqvist", role: "RBT", locations: [2], twoFactor: true, gender: "female" },
  { id: 11, email: "reset-nojs@demo.test", name: "Omar", surname: "Haddad", role: "RBT", locations: [3], gender: "male" },
  { id: 12, email: "reset-js@demo.test", name: "Ines", surname: "Duarte", role: "RBT", locations: [3], gender: "female" },
  // RBTs whose caseloads fill the demo notes (one more at Miami, one at Denver and one at Los Angeles).
  { id: 13, email: "rbt2@demo.test", name: "Maya", surname: "Thompson", role: "RBT", locations: [1], gender: "female" },
  { id: 14, email: "rbt-denver@demo.test", name: "Diego", surname: "Ramirez", role: "RBT", locations: [2], gender: "male" },
  { id: 15, email: "rbt-la@demo.test", name: "Aisha", surname: "Bello", role: "RBT", locations: [3], gender: "female" },
];

const FIRST = ["Liam", "Olivia", "Mateo", "Emma", "Lucas", "Mia", "Ethan", "Ava", "Leo", "Isabella", "Noah", "Zoe", "Elijah", "Chloe", "Aiden", "Layla", "Owen", "Nora"];
const LAST = ["Garcia", "Johnson", "Nguyen", "Smith", "Lopez", "Williams", "Brown", "Davis", "Martinez", "Wilson", "Anderson", "Thomas", "Taylor", "Moore", "Jackson", "Martin", "Lee", "Perez"];

function daysAgo(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString();
}

/** Upsert by id: on conflict every column is refreshed except those in `keep` (created dates, password hashes). */
async function upsert<T extends SQLiteTable>(db: Db, table: T, rows: T["$inferInsert"][], keep: string[] = ["createdAt"]) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!).filter((k) => k !== "id" && !keep.includes(k));
  const cols = (table as unknown as Record<string, { name: string }>);
  const set = Object.fromEntries(columns.map((k) => [k, sql.raw(`excluded.${cols[k]!.name}`)]));
  const target = (table as unknown as Record<string, unknown>).id as never;
  for (let i = 0; i < rows.length; i += 50) {
    const q = db.insert(table).values(rows.slice(i, i + 50) as never);
    await (columns.length ? q.onConflictDoUpdate({ target, set: set as never }) : q.onConflictDoNothing());
  }
}

export async function seedDemo(db: Db, now = new Date(), options: { force?: boolean } = {}): Promise<{ seeded: boolean }> {
  const [done] = await db.select({ value: settings.value }).from(settings).where(eq(settings.key, DEMO_SEEDED_KEY));
  if (done && !options.force) return { seeded: false };
  const passwordHash = await hashPassword(DEMO_PASSWORD);

  await upsert(db, locations, LOCATIONS);
  await upsert(
    db,
    roles,
    ROLE_IDS.map((name, i) => ({ id: i + 1, name, permissions: JSON.stringify(ROLE_PERMISSIONS[name]) })),
  );
  await upsert(
    db,
    users,
    USERS.map((u) => ({
      id: u.id,
      name: u.name,
      surname: u.surname,
      email: u.email,
      passwordHash,
      status: "active",
      gender: u.gender,
      phone: `555-010-${String(u.id).padStart(4, "0")}`,
      locationId: u.locations[0]!,
      twoFactorEnabled: !!u.twoFactor,
      createdAt: daysAgo(now, 400 - u.id),
    })),
    ["createdAt", "passwordHash"],
  );
  for (const u of USERS) {
    await db.insert(userRoles).values({ userId: u.id, roleId: ROLE_IDS.indexOf(u.role) + 1 }).onConflictDoNothing();
    for (const loc of u.locations) await db.insert(userLocations).values({ userId: u.id, locationId: loc }).onConflictDoNothing();
  }
  const twoFactor = USERS.find((u) => u.twoFactor)!;
  await upsert(
    db,
    backupCodes,
    await Promise.all(
      DEMO_BACKUP_CODES.map(async (code, i) => ({ id: i + 1, principalType: "user" as const, principalId: twoFactor.id, codeHash: await sha256Hex(normalizeBackupCode(code)), usedAt: null })),
    ),
  );

  await upsert(
    db,
    parents,
    [{ id: 1, name: "Laura", surname: "Garcia", email: "parent@demo.test", passwordHash, phone: "305-555-0199", city: "Miami", state: "FL", zipCode: "33130", locationId: 1, status: "active", createdAt: daysAgo(now, 200) }],
    ["createdAt", "passwordHash"],
  );

  // Eighteen clients across the three locations, two of them the demo parent's children, with created
  // dates spread over the last year (several in this and last month, so the trends have figures).
  const ages = [3, 10, 20, 35, 38, 45, 60, 75, 90, 120, 150, 180, 210, 240, 270, 300, 330, 5];
  await upsert(
    db,
    patients,
    FIRST.map((first, i) => ({
      id: i + 1,
      patientIdentifier: `BL-${String(1001 + i)}`,
      firstName: first,
      lastName: i < 2 ? "Garcia" : LAST[i]!,
      status: i % 9 === 8 ? "inactive" : i % 7 === 6 ? "incoming" : "active",
      gender: (i % 2) + 1,
      birthDate: `20${String(12 + (i % 8)).padStart(2, "0")}-0${(i % 9) + 1}-1${i % 9}`,
      locationId: (i % 3) + 1,
      parentId: i < 2 ? 1 : null,
      createdAt: daysAgo(now, ages[i]!),
    })),
  );
  // Both of the parent's children are at the Miami clinic.
  await db.update(patients).set({ locationId: 1 }).where(sql`${patients.id} in (1, 2)`);

  // Insurers with their CPT services (prices per provider type), the clients' insurance, staff and
  // onboarding documents, and two PA services per active client.
  await upsert(db, insurances, [
    { id: 1, name: "Sunshine Health", payerId: "68069", city: "Miami", state: "FL", usesIsTelehealth: true, posAllowedToCg: "12,02" },
    { id: 2, name: "Rocky Mountain Care", payerId: "84980", city: "Denver", state: "CO", posAllowedToCg: "12" },
    { id: 3, name: "Pacific Kids Plan", payerId: "95567", city: "Los Angeles", state: "CA", posAllowedToCg: "12,03" },
  ]);
  const services: (typeof insuranceServices.$inferInsert)[] = [];
  let serviceId = 1;
  for (const insuranceId of [1, 2, 3]) {
    for (const [cpt, bcba, rbt] of [["97151", 30.5, null], ["97153", null, 15.25], ["97155", 28.75, null], ["97156", 27.5, null]] as const) {
      if (bcba !== null) services.push({ id: serviceId++, insuranceId, cptCode: cpt, provider: "bcba", type: "bcba", modifiers: "HO", description: `${cpt} by a BCBA`, unitPrice: bcba + insuranceId, maxPerDay: 32 });
      if (rbt !== null) services.push({ id: serviceId++, insuranceId, cptCode: cpt, provider: "rbt", type: "rbt", modifiers: "HM", description: `${cpt} by an RBT`, unitPrice: rbt + insuranceId, maxPerDay: 32 });
    }
  }
  await upsert(db, insuranceServices, services);
  // Staff who work at each clinic (user_locations above): RBT, BCBA, clinical director.
  const staffAt: Record<number, { rbt: number | null; bcba: number; director: number }> = { 1: { rbt: 8, bcba: 6, director: 4 }, 2: { rbt: 14, bcba: 9, director: 5 }, 3: { rbt: 15, bcba: 7, director: 6 } };
  // Miami's caseload is shared by its two RBTs.
  const rbtOf = (locationId: number, i: number) => (locationId === 1 && i % 2 === 1 ? 13 : staffAt[locationId]!.rbt);
  for (let i = 0; i < FIRST.length; i++) {
    const locationId = i < 2 ? 1 : (i % 3) + 1;
    const staff = staffAt[locationId]!;
    await db
      .update(patients)
      .set({
        insurerId: locationId,
        rbtHomeId: rbtOf(locationId, i),
        bcbaHomeId: staff.bcba,
        clinDirectorId: staff.director,
        details: JSON.stringify({
          city: LOCATIONS[locationId - 1]!.city,
          state: LOCATIONS[locationId - 1]!.state,
          language: i % 4 === 0 ? "Spanish" : "English",
          diagnosis_code: "F84.0",
          insurance_identifier: `MBR${100200 + i}`,
          welcome: "yes",
          consent: "yes",
          insurance_card: i % 3 === 0 ? "requested" : "yes",
          eligibility: "yes",
          referral: i % 4 === 0 ? "waiting" : "yes",
          asd_diagnosis: "yes",
          interview: i % 2 === 0 ? "receive" : "send",
          pos_covered: ["12", "03"],
        }),
      })
      .where(sql`${patients.id} = ${i + 1}`);
  }
  const dayOffset = (days: number) => new Date(now.getTime() + days * 86_400_000).toISOString().slice(0, 10);
  // Four authorizations per client with a plan, one per CPT the notes use; the units cover the demo
  // notes (scripts/demo-notes.ts) with room left for the notes a demo user writes.
  const PA_KINDS = [
    { paService: "Direct ABA therapy", cpt: "97153", nUnits: 960, end: (i: number) => [10, 25, 50, 120][i % 4]!, primary: true },
    { paService: "Protocol modification", cpt: "97155", nUnits: 160, end: () => 120, primary: false },
    { paService: "Caregiver training", cpt: "97156", nUnits: 48, end: () => 120, primary: false },
    { paService: "Assessment and reassessment", cpt: "97151", nUnits: 32, end: () => 120, primary: false },
  ];
  await upsert(
    db,
    paServices,
    FIRST.slice(0, 14).flatMap((_, i) =>
      // Ids 1–28 are the first two kinds (as before); the later kinds follow from 101.
      PA_KINDS.map((k, n) => ({ id: n < 2 ? i * 2 + n + 1 : 100 + i * 2 + n - 1, patientId: i + 1, paService: k.paService, cpt: k.cpt, nUnits: k.nUnits, startDate: dayOffset(-90), endDate: dayOffset(k.end(i)), insuranceId: i < 2 ? 1 : (i % 3) + 1, isPrimary: k.primary })),
    ),
    ["createdAt", "startDate", "endDate"],
  );

  await upsert(
    db,
    bips,
    FIRST.slice(0, 14).map((_, i) => ({
      id: i + 1,
      patientId: i + 1,
      locationId: i < 2 ? 1 : (i % 3) + 1,
      // A doctor of the client's location (Miami and LA: Elena Moreno; Denver: Noah Fischer; LA also Tyler Brooks).
      doctorId: i < 2 ? 6 : [6, 9, 7][i % 3]!,
      typeOfAssessment: i % 4 === 3 ? 2 : 1,
      attention: i % 5 === 0,
      createdAt: daysAgo(now, ages[i]! - 1 > 0 ? ages[i]! - 1 : 0),
    })),
  );

  await seedBipGoals(db, now);

  // About six weeks of RBT and BCBA notes for every client with a plan, from their plans and PA services.
  const person = (id: number) => {
    const u = USERS.find((x) => x.id === id)!;
    return { id, name: `${u.name} ${u.surname}` };
  };
  await seedDemoNotes(
    db,
    now,
    await demoNoteClients(db, DEMO_BIP_COUNT, (locationId, patientId) => ({ rbt: person(rbtOf(locationId, patientId - 1)!), bcba: person(staffAt[locationId]!.bcba) })),
  );
  // Claims in every status from some of those notes, and the locations' billing NPI and tax id (scripts/demo-claims.ts).
  await seedDemoClaims(db, now);

  // Billing records for part of the notes: billed, billed and paid, saved, a few with XP (issue 11).
  await seedDemoBilling(db, now);

  // Tickets with responses in every state (scripts/demo-tickets.ts).
  await seedDemoTickets(db, now);

  // A rate/pay record per location for the payroll report (scripts/demo-reports.ts).
  await seedDemoReports(db);

  // Consents for the demo parent's children: one to sign on the parent portal, one signed (issue 12).
  await seedDemoConsents(db, now);

  // Last, after the claims: one remittance that pays, partly pays and denies lines of two sent demo claims
  // (scripts/demo-remittances.ts; nothing happens while there are no sent claims).
  await seedDemoRemittances(db, now);
  // Weekly scheduled sessions in three time zones for the calendar (scripts/demo-schedule.ts).
  await seedDemoSchedule(db, now);
  // Employees' compliance dates around today for the expiration-dates report (scripts/demo-compliance.ts).
  await seedDemoComplianceDates(db, now);
  // Then no billed note the scrubber refuses (an expired date above before its session), unless a claim holds it.
  await unbillRefusedDemoNotes(db, now);
  // Done: later runs leave the database as it is (the first run's date is kept).
  await db.insert(settings).values({ key: DEMO_SEEDED_KEY, value: now.toISOString() }).onConflictDoNothing();
  return { seeded: true };
}
