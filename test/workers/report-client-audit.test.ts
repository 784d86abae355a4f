import { count, desc } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, notes, paServices, rateRecords } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import { REPORT_DEFINITIONS } from "~/domain/report-registry";
import { addDays, REPORT_KEYS, type ReportKey } from "~/domain/reports";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * Every report narrowed to one client by its Client ID filter writes its audit row naming that client
 * (`patient_id`, and the client in detail.patients), screen and CSV, whether or not its rows name clients
 * (payroll, location-cpt and hours by provider or CPT name none); the access report then lists the read
 * (decision 019; probe 8902 §2).
 */

let w: { cookie: string; client: number; stranger: number };

const today = () => todayAtLocation(new Date(), "America/New_York");

async function newestEntry() {
  const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
  return row!;
}

async function auditRows(): Promise<number> {
  const [row] = await db().select({ n: count() }).from(auditLog);
  return row!.n;
}

beforeAll(async () => {
  const here = await createLocation({ title: "Audit Clinic" });
  const there = await createLocation({ title: "Far Clinic" });
  const t = today();
  const client = await createPatient({ locationId: here.id, firstName: "Nora", lastName: "Named", details: JSON.stringify({ elegibility_date: addDays(t, 10) }) });
  const other = await createPatient({ locationId: here.id, firstName: "Otis", lastName: "Other" });
  const stranger = await createPatient({ locationId: there.id, firstName: "Zed", lastName: "Elsewhere" });
  const [pa] = await db().insert(paServices).values({ patientId: client.id, paService: "Direct therapy", cpt: "97153", nUnits: 200, startDate: addDays(t, -9), endDate: addDays(t, 20) }).returning();
  const tech = await createUser({ role: "RBT", locations: [here.id], name: "Tess" });
  await db().insert(rateRecords).values({ name: "Standard", locationId: here.id, rbt: 20, bcba: 50 });
  for (const [patientId, paServiceId] of [
    [client.id, pa!.id],
    [other.id, null],
  ] as const)
    await db().insert(notes).values({ type: "rbt", patientId, locationId: here.id, providerId: tech.id, paServiceId, cptCode: "97153", sessionDate: t, timeIn: "09:00", timeOut: "10:00", minutes: 60, units: 4, pos: "12" });
  await db().insert(notes).values({ type: "rbt", patientId: stranger.id, locationId: there.id, cptCode: "97153", sessionDate: t, minutes: 60, units: 4 });
  const manager = await createUser({ permissions: ["manage_notes", "manage_employees", "manage_claims", "view_clients"], locations: [here.id], name: "Mona" });
  const cookie = await signInCookie(manager);
  // A read of the client's profile: an entry naming them, for the logs and access reports to show.
  expect((await request(`/patients/profile/${client.id}`, { cookie })).status).toBe(200);
  w = { cookie, client: client.id, stranger: stranger.id };
});

/** Every report with a Client ID filter; hours once per grouping. */
const NARROWED: { key: ReportKey; query: string }[] = REPORT_KEYS.filter((k) => REPORT_DEFINITIONS[k]!.filters.some((f) => f.kind === "client")).flatMap((key): { key: ReportKey; query: string }[] =>
  key === "hours" ? ["provider", "client", "cpt"].map((by) => ({ key, query: `by=${by}&` })) : [{ key, query: "" }]
);

describe("a report narrowed to one client", () => {
  it("covers every report that takes a Client ID", () => {
    expect(NARROWED.map((c) => c.key + (c.query ? `?${c.query}` : ""))).toEqual([
      "logs",
      "access",
      "pas",
      "payroll",
      "hours?by=provider&",
      "hours?by=client&",
      "hours?by=cpt&",
      "bcba-report",
      "client-projection",
      "location-cpt",
      "provider-clients",
      "client-eligibility",
    ]);
  });

  describe.each(NARROWED)("$key $query", ({ key, query }) => {
    it.each([
      ["screen", ""],
      ["csv", "/export.csv"],
    ])("%s: one audit row naming the client, which the access report lists", async (format, suffix) => {
      const res = await request(`/reports/${key}${suffix}?${query}patient_id=${w.client}`, { cookie: w.cookie });
      expect(res.status).toBe(200);
      const body = await res.text();
      // It returned the client's data: at least one row of figures.
      if (format === "csv") expect(body.replace(/^\uFEFF/, "").trim().split("\r\n").length).toBeGreaterThan(1);
      else expect(body).not.toContain("No data to display.");
      const entry = await newestEntry();
      expect(entry).toMatchObject({ action: "read", entity: "report", entityId: key, patientId: w.client });
      expect(JSON.parse(entry.detail!)).toMatchObject({ report: key, format, patients: [w.client] });
      // The access report of that client: its newest entry is this read.
      const access = await request(`/reports/access/export.csv?patient_id=${w.client}`, { cookie: w.cookie });
      const lines = (await access.text()).replace(/^\uFEFF/, "").split("\r\n");
      expect(lines[1]).toContain(`Nora Named,Mona User,read,report #${key},`);
    });
  });

  it.each(["payroll", "location-cpt"])("%s narrowed to a client it shows nothing of (another location's) writes no row, as before", async (key) => {
    const before = await auditRows();
    const res = await request(`/reports/${key}?patient_id=${w.stranger}`, { cookie: w.cookie });
    expect(res.status).toBe(200);
    expect(await res.text()).not.toContain("Zed");
    expect(await auditRows()).toBe(before);
  });

  it.each(["payroll", "location-cpt"])("%s not narrowed to a client still writes no row (its rows name no client)", async (key) => {
    const before = await auditRows();
    expect((await request(`/reports/${key}`, { cookie: w.cookie })).status).toBe(200);
    expect(await auditRows()).toBe(before);
  });

  it("hours by provider narrowed to another location's client names no one", async () => {
    const res = await request(`/reports/hours?patient_id=${w.stranger}`, { cookie: w.cookie });
    expect(res.status).toBe(200);
    const entry = await newestEntry();
    expect(entry).toMatchObject({ entity: "report", entityId: "hours", patientId: null });
    expect(JSON.parse(entry.detail!).patients).toEqual([]);
  });
});
