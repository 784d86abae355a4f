import { beforeAll, describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { notes, rateRecords, users } from "~/db/schema";
import { amountsFromTheStart } from "~/models/rate-records.server";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * Probe 8931 §1 (decision 039, 2026-11-27 "deleted clients"): deleting a client afterwards does not lower the
 * payroll of the provider who delivered its sessions, nor that provider's hours; the reports about clients (hours
 * by client, provider-clients) leave the deleted client out. Whole months read the sums tables (migration 0030),
 * edge days the notes: both are checked.
 */

const NOV = "date_from=2026-11-01&date_to=2026-11-30";
const EDGES = "date_from=2026-10-31&date_to=2026-11-30";

let cookie: string;
let token: string;
let ethan: number;
let jasmine: number;
let faraway: number;

beforeAll(async () => {
  const here = await createLocation({ title: "Miami Clinic" });
  await db().insert(rateRecords).values({ name: "Standard", locationId: here.id, rbt: 22.5, bcba: 50 });
  await amountsFromTheStart(db());
  ethan = (await createPatient({ locationId: here.id, firstName: "Ethan", lastName: "Brown" })).id;
  const ava = (await createPatient({ locationId: here.id, firstName: "Ava", lastName: "Stone" })).id;
  jasmine = (await createUser({ permissions: ["view_notes"], locations: [here.id], name: "Jasmine" })).id;
  faraway = (await createUser({ permissions: ["view_notes"], locations: [(await createLocation({ title: "Far Clinic" })).id], name: "Faraway" })).id;
  const rows: (typeof notes.$inferInsert)[] = [
    { patientId: ethan, sessionDate: "2026-10-31", minutes: 30, units: 2 },
    { patientId: ethan, sessionDate: "2026-11-03", minutes: 120, units: 8 },
    { patientId: ethan, sessionDate: "2026-11-20", minutes: 90, units: 6 },
    { patientId: ava, sessionDate: "2026-11-10", minutes: 60, units: 4 },
  ].map((r) => ({ ...r, type: "rbt" as const, cptCode: "97153", locationId: here.id, providerId: jasmine }));
  for (const r of rows) await db().insert(notes).values(r);
  const admin = await createUser({ permissions: ["manage_notes", "manage_employees", "view_clients", "manage_clients"], locations: [here.id] });
  cookie = await signInCookie(admin);
  token = await apiToken(admin);
});

/** The text of each table row (cells joined by " | "), tags stripped. */
async function rowsOf(path: string): Promise<string[]> {
  const res = await request(path, { cookie });
  expect(res.status).toBe(200);
  const html = await res.text();
  const body = html.slice(html.indexOf("<tbody"), html.indexOf("</tbody>"));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, "").trim()).join(" | ")
  );
}

async function csvOf(path: string): Promise<string> {
  const res = await request(path, { cookie });
  expect(res.status).toBe(200);
  return res.text();
}

describe("deleting a client afterwards", () => {
  it("keeps the provider's payroll and hours; hours by client and provider-clients leave the client out", async () => {
    const staffPages = [`/reports/payroll?${NOV}`, `/reports/payroll?${EDGES}`, `/reports/hours?${NOV}&by=provider`, `/reports/hours?${EDGES}&by=provider`, `/reports/hours?${NOV}&by=cpt`];
    const before = await Promise.all(staffPages.map(rowsOf));
    const payrollCsv = await csvOf(`/reports/payroll/export.csv?${NOV}`);
    expect(before[0]).toEqual(["Jasmine User | Miami Clinic | RBT | 3 | 4.50 | Standard | $22.50 | $101.25"]);
    expect(before[1]).toEqual(["Jasmine User | Miami Clinic | RBT | 4 | 5.00 | Standard | $22.50 | $112.50"]);
    expect((await rowsOf(`/reports/hours?${NOV}&by=client`)).some((r) => r.startsWith("Brown, Ethan"))).toBe(true);
    expect((await rowsOf(`/reports/provider-clients?${NOV}`)).join("\n")).toContain("Brown, Ethan");

    expect((await api(`/v2/patients/${ethan}`, { method: "DELETE", token })).status).toBe(200);

    // The work of staff: unchanged, screen and CSV, whole month (sums tables) and edge days (notes).
    expect(await Promise.all(staffPages.map(rowsOf))).toEqual(before);
    expect(await csvOf(`/reports/payroll/export.csv?${NOV}`)).toBe(payrollCsv);
    // About clients: the deleted client is gone, its name shown nowhere.
    for (const period of [NOV, EDGES]) {
      const byClient = await rowsOf(`/reports/hours?${period}&by=client`);
      expect(byClient).toHaveLength(1);
      expect(byClient[0]).toMatch(/^Stone, Ava/);
      const caseload = (await rowsOf(`/reports/provider-clients?${period}`)).join("\n");
      expect(caseload).not.toContain("Brown");
      expect(caseload).toContain("Stone, Ava");
    }
    expect(await csvOf(`/reports/payroll/export.csv?${NOV}`)).not.toContain("Brown");
  });
});

describe("the provider filter on a deleted employee (decision 038, 2026-11-28)", () => {
  /** The provider select's options as "label|selected". */
  async function providerOptions(path: string): Promise<string[]> {
    const html = await (await request(path, { cookie })).text();
    const select = html.match(/<select[^>]*name="provider_id"[^>]*>([\s\S]*?)<\/select>/)![1]!;
    return [...select.matchAll(/<option([^>]*)>([^<]*)<\/option>/g)].map((m) => `${m[2]}${/\bselected\b/.test(m[1]!) ? "|selected" : ""}`);
  }

  it("lists the chosen deleted provider as the selected option, marked, when in the actor's scope", async () => {
    // Deleted (soft: their work still counts, decision 039), one here and one at another location.
    for (const id of [jasmine, faraway]) await db().update(users).set({ deletedAt: new Date().toISOString() }).where(eq(users.id, id));
    const options = await providerOptions(`/reports/payroll?provider_id=${jasmine}&${NOV}`);
    expect(options).toContain("Jasmine User (deleted)|selected");
    expect(options.filter((o) => o.endsWith("|selected"))).toHaveLength(1);
    // Not chosen: a deleted employee is not offered.
    expect((await providerOptions(`/reports/payroll?${NOV}`)).join()).not.toContain("Jasmine");
    // Another location's deleted employee is never listed (the report gives nothing for them either).
    expect((await providerOptions(`/reports/payroll?provider_id=${faraway}&${NOV}`)).join()).not.toContain("Faraway");
    // The filter shown is the filter applied: the rows are Jasmine's.
    const html = await (await request(`/reports/payroll?provider_id=${jasmine}&${NOV}`, { cookie })).text();
    expect(html).toContain("$101.25");
  });
});
