import { count, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog } from "~/db/schema";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * The reports (issue 12; decision 038): the framework (guard, filters, paging, CSV) and the logs and access
 * reports. For each: allowed succeeds, 403 without manage_notes, another location's rows absent, a bad filter
 * is a field message (400) with nothing read, the CSV is an attachment with its cells quoted and neutralised.
 */

let w: {
  cookie: string;
  noPermCookie: string;
  outsiderCookie: string;
  patient: number;
  patientName: string;
  stranger: number;
  strangerName: string;
};

async function auditRows(): Promise<number> {
  const [row] = await db().select({ n: count() }).from(auditLog);
  return row!.n;
}

beforeAll(async () => {
  const here = await createLocation();
  const there = await createLocation();
  const patient = await createPatient({ locationId: here.id, firstName: "=HYPERLINK(1)", lastName: "Doe, Jr." });
  const stranger = await createPatient({ locationId: there.id, firstName: "Zed", lastName: "Elsewhere" });
  const manager = await createUser({ permissions: ["manage_notes", "view_clients", "manage_clients"], locations: [here.id], name: "Mona" });
  const outsider = await createUser({ permissions: ["manage_notes", "view_clients", "manage_clients"], locations: [there.id], name: "Otto" });
  const cookie = await signInCookie(manager);
  const outsiderCookie = await signInCookie(outsider);
  // Each reads its own client's profile: one audit row naming the client.
  expect((await request(`/patients/profile/${patient.id}`, { cookie })).status).toBe(200);
  expect((await request(`/patients/profile/${stranger.id}`, { cookie: outsiderCookie })).status).toBe(200);
  w = {
    cookie,
    outsiderCookie,
    noPermCookie: await signInCookie(await createUser({ permissions: ["view_notes", "view_clients"], locations: [here.id] })),
    patient: patient.id,
    patientName: "=HYPERLINK(1) Doe, Jr.",
    stranger: stranger.id,
    strangerName: "Zed Elsewhere",
  };
});

describe("the reports index", () => {
  it("lists the twelve reports for manage_notes, 403 without", async () => {
    const res = await request("/reports", { cookie: w.cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const title of ["Logs", "Access", "Prior authorizations", "Payroll", "Hours", "Expiration dates", "BCBA supervision", "Client projection", "Location and CPT", "Provider caseload", "Ticket support", "Client eligibility"]) expect(html).toContain(title);
    expect(html).toContain('href="/reports/logs"');
    expect((await request("/reports", { cookie: w.noPermCookie })).status).toBe(403);
  });

  it("an unknown report answers 404", async () => {
    expect((await request("/reports/nope", { cookie: w.cookie })).status).toBe(404);
    expect((await request("/reports/nope/export.csv", { cookie: w.cookie })).status).toBe(404);
  });
});

describe.each(["logs", "access"])("the %s report", (key) => {
  it("shows the actor's location's entries, not another location's, and records the read", async () => {
    const before = await auditRows();
    const res = await request(`/reports/${key}`, { cookie: w.cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("Doe, Jr.");
    expect(html).not.toContain(w.strangerName);
    expect(await auditRows()).toBe(before + 1);
    const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(last).toMatchObject({ action: "read", entity: "report", entityId: key });
    expect(JSON.parse(last!.detail!).patients).toContain(w.patient);
  });

  it("403 without manage_notes, for the screen and the CSV", async () => {
    expect((await request(`/reports/${key}`, { cookie: w.noPermCookie })).status).toBe(403);
    expect((await request(`/reports/${key}/export.csv`, { cookie: w.noPermCookie })).status).toBe(403);
  });

  it.each([
    ["date_from=2026-02-30", "date_from", "Dates must be real dates"],
    ["date_from=2026-03-01&date_to=2026-02-01", "date_to", "To must be on or after From."],
    ["date_from=2024-01-01&date_to=2026-01-01", "date_to", "at most one year"],
    ["patient_id=abc", "patient_id", "Client must be a record id."],
    ["actor_id=-1", "actor_id", "Who must be a record id."],
    ["page=0", "page", "page must be at least 1."],
    ["per_page=1000", "per_page", "per_page must be at most 100."],
  ])("a bad filter (%s) is a field message with the typed value kept, and reads nothing", async (query, _field, message) => {
    const before = await auditRows();
    const res = await request(`/reports/${key}?${query}`, { cookie: w.cookie });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(message);
    expect(html).not.toContain("Doe, Jr.");
    expect(await auditRows()).toBe(before);
    const csv = await request(`/reports/${key}/export.csv?${query}`, { cookie: w.cookie });
    expect(csv.status).toBe(400);
    expect(((await csv.json()) as { message: string }).message).toContain(message.replace(/^Check the filters: /, ""));
  });

  it("filters by client: another location's client shows nothing", async () => {
    const res = await request(`/reports/${key}?patient_id=${w.stranger}`, { cookie: w.cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).not.toContain(w.strangerName);
    expect(html).toContain("No data to display.");
  });

  it("exports a CSV attachment: BOM, CRLF, quoted commas, formula cells neutralised", async () => {
    const res = await request(`/reports/${key}/export.csv?patient_id=${w.patient}`, { cookie: w.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("text/csv; charset=utf-8");
    expect(res.headers.get("Content-Disposition")).toMatch(new RegExp(`^attachment; filename="baseline-${key}-\\d{4}-\\d{2}-\\d{2}\\.csv"$`));
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = new TextDecoder().decode(bytes); // the decoder drops the BOM
    const lines = text.split("\r\n");
    expect(lines[0]).toContain("When,");
    expect(text).toContain(`"'=HYPERLINK(1) Doe, Jr."`);
    expect(text).not.toContain(w.strangerName);
    expect(lines.at(-1)).toBe("");
    const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(last).toMatchObject({ entity: "report", entityId: key, patientId: w.patient });
    expect(JSON.parse(last!.detail!).format).toBe("csv");
  });
});

describe("the logs report's integrity check", () => {
  it("says the chain holds for the entries shown", async () => {
    const html = await (await request("/reports/logs", { cookie: w.cookie })).text();
    expect(html).toMatch(/Integrity check: the chain holds for entries \d+ to \d+/);
  });

  it("says where it breaks when an entry was edited", async () => {
    const [row] = await db().select().from(auditLog).where(eq(auditLog.patientId, w.patient)).limit(1);
    await db().update(auditLog).set({ ip: "10.9.9.9" }).where(eq(auditLog.id, row!.id));
    const html = await (await request("/reports/logs", { cookie: w.cookie })).text();
    expect(html).toContain(`Integrity check FAILED: entry ${row!.id}`);
  });
});
