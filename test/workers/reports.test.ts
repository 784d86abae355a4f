import { count, desc, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, notes, paServices, patients, userLocations } from "~/db/schema";
import { todayAtLocation } from "~/domain/pa-pacing";
import { addDays, REPORT_KEYS, REPORT_MAX_PER_PAGE } from "~/domain/reports";
import { STAFF_OPTIONS_MAX } from "~/domain/employees";
import { chainedHash, GENESIS } from "~/services/audit.server";
import * as build from "../../build/index.js";
import { createLocation, createManyStaff, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * The reports (issue 12; decision 038): the framework (guard, filters, paging, CSV) and the logs and access
 * reports. For each: allowed succeeds, 403 without manage_notes, another location's rows absent, a bad filter
 * is a field message (400) with nothing read, the CSV is an attachment with its cells quoted and neutralised.
 */

const today = () => todayAtLocation(new Date(), "America/New_York");

let w: {
  cookie: string;
  noPermCookie: string;
  outsiderCookie: string;
  patient: number;
  patientName: string;
  stranger: number;
  strangerName: string;
  employee: number;
  here: number;
  there: number;
};

async function auditRows(): Promise<number> {
  const [row] = await db().select({ n: count() }).from(auditLog);
  return row!.n;
}

beforeAll(async () => {
  const here = await createLocation();
  const there = await createLocation();
  const t = today();
  const patient = await createPatient({ locationId: here.id, firstName: "=HYPERLINK(1)", lastName: "Doe, Jr.", details: JSON.stringify({ elegibility_date: addDays(t, 10) }) });
  const stranger = await createPatient({ locationId: there.id, firstName: "Zed", lastName: "Elsewhere", details: JSON.stringify({ elegibility_date: addDays(t, 10) }) });
  const manager = await createUser({ permissions: ["manage_notes", "view_clients", "manage_clients"], locations: [here.id], name: "Mona" });
  const outsider = await createUser({ permissions: ["manage_notes", "view_clients", "manage_clients"], locations: [there.id], name: "Otto" });
  const cookie = await signInCookie(manager);
  const outsiderCookie = await signInCookie(outsider);
  // Each reads its own client's profile: one audit row naming the client.
  expect((await request(`/patients/profile/${patient.id}`, { cookie })).status).toBe(200);
  expect((await request(`/patients/profile/${stranger.id}`, { cookie: outsiderCookie })).status).toBe(200);
  // A running authorization of 50 units used at 4 units a day: it runs out before its end date.
  const [pa] = await db().insert(paServices).values({ patientId: patient.id, paService: "Direct therapy", cpt: "97153", nUnits: 50, startDate: addDays(t, -9), endDate: addDays(t, 20) }).returning();
  // One that lapses in 5 days but is renewed from the next day on: not a lapse.
  await db().insert(paServices).values({ patientId: patient.id, paService: "Supervision", cpt: "97155", nUnits: 10, startDate: addDays(t, -30), endDate: addDays(t, 5) });
  await db().insert(paServices).values({ patientId: patient.id, paService: "Supervision renewal", cpt: "97155", nUnits: 10, startDate: addDays(t, 6), endDate: addDays(t, 200) });
  await db().insert(paServices).values({ patientId: stranger.id, paService: "Stranger therapy", cpt: "97153", nUnits: 50, startDate: addDays(t, -9), endDate: addDays(t, 20) });
  const provider = await createUser({ permissions: ["view_notes"], locations: [here.id], name: "Compliant" });
  for (let d = 0; d < 8; d++) {
    await db()
      .insert(notes)
      .values({ type: "rbt", patientId: patient.id, locationId: here.id, providerId: provider.id, paServiceId: pa!.id, cptCode: "97153", sessionDate: addDays(t, -8 + d), timeIn: "09:00", timeOut: "10:00", minutes: 60, units: 4, pos: "12" });
  }
  const compliance = { cpr_every_2_years: addDays(t, -3), bacb_license_expiration: addDays(t, 12), driver_license_expiration: addDays(t, 300) };
  await db().update(userLocations).set({ compliance: JSON.stringify(compliance) }).where(eq(userLocations.userId, provider.id));
  const elsewhereStaff = await createUser({ permissions: [], locations: [there.id], name: "Faraway" });
  await db().update(userLocations).set({ compliance: JSON.stringify({ cpr_every_2_years: addDays(t, -3) }) }).where(eq(userLocations.userId, elsewhereStaff.id));
  w = {
    cookie,
    outsiderCookie,
    noPermCookie: await signInCookie(await createUser({ permissions: ["view_notes", "view_clients"], locations: [here.id] })),
    patient: patient.id,
    patientName: "=HYPERLINK(1) Doe, Jr.",
    stranger: stranger.id,
    strangerName: "Zed Elsewhere",
    employee: provider.id,
    here: here.id,
    there: there.id,
  };
});

describe("the reports index", () => {
  it("lists the reports for manage_notes (payroll only with manage_employees too, location-cpt only with manage_claims too), 403 without", async () => {
    const res = await request("/reports", { cookie: w.cookie });
    expect(res.status).toBe(200);
    const html = await res.text();
    for (const title of [
      "Logs",
      "Access",
      "Prior authorizations",
      "Hours",
      "Expiration dates",
      "BCBA supervision",
      "Client projection",
      "Provider caseload",
      "Ticket support",
      "Client eligibility",
    ])
      expect(html).toContain(title);
    expect(html).toContain('href="/reports/logs"');
    // This manager lacks manage_employees, so payroll (which would answer 403) is not offered.
    expect(html).not.toContain('href="/reports/payroll"');
    // Nor manage_claims, so the charges of location-cpt (403 for them, as every billing screen) are not offered.
    expect(html).not.toContain('href="/reports/location-cpt"');
    expect(html).not.toContain("Location and CPT");
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
    expect(last).toMatchObject({
      action: "read",
      entity: "report",
      entityId: key,
    });
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
    ["page=0", "page", "Page must be at least 1."],
    ["per_page=1000", "per_page", "Rows per page must be at most 100."],
  ])("a bad filter (%s) is a field message with the typed value kept, and reads nothing", async (query, _field, message) => {
    const before = await auditRows();
    const res = await request(`/reports/${key}?${query}`, {
      cookie: w.cookie,
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain(message);
    expect(html).not.toContain("Doe, Jr.");
    expect(await auditRows()).toBe(before);
    const csv = await request(`/reports/${key}/export.csv?${query}`, {
      cookie: w.cookie,
    });
    expect(csv.status).toBe(400);
    expect(((await csv.json()) as { message: string }).message).toContain(message.replace(/^Check the filters: /, ""));
  });

  it("filters by client: another location's client shows nothing", async () => {
    const res = await request(`/reports/${key}?patient_id=${w.stranger}`, {
      cookie: w.cookie,
    });
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
    expect(last).toMatchObject({
      entity: "report",
      entityId: key,
      patientId: w.patient,
    });
    expect(JSON.parse(last!.detail!).format).toBe("csv");
  });
});

describe("the logs report's integrity check", () => {
  it("says the chain holds for the entries shown", async () => {
    const html = await (await request("/reports/logs", { cookie: w.cookie })).text();
    expect(html).toMatch(/Integrity check: the \d+ entries shown and their links to the entries before them hold\./);
  });

  it("its note says what is checked: each entry shown and its link to the entry before it", async () => {
    const html = await (await request("/reports/logs", { cookie: w.cookie })).text();
    expect(html).toContain("The integrity check recomputes the hash of each entry shown and its link to the entry just before it (by id), not the whole trail.");
    expect(html).not.toContain("consecutive");
  });

  it("says where it breaks when a list read's clients were moved onto the end of its time (probe 8902)", async () => {
    expect((await request("/patients/list", { cookie: w.cookie })).status).toBe(200);
    const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(JSON.parse(row!.detail!).patients).toContain(w.patient);
    const screen = async () => (await request(`/reports/logs?action=read&per_page=100`, { cookie: w.cookie })).text();
    await db().run(sql`update audit_log set at = at || '|' || detail, detail = null where id = ${row!.id}`);
    expect(await screen()).toContain(`Integrity check FAILED: entry ${row!.id} `);
    await db().update(auditLog).set({ at: row!.at, detail: row!.detail }).where(eq(auditLog.id, row!.id));
    expect(await screen()).toMatch(/Integrity check: the \d+ entries shown and their links to the entries before them hold\./);
  });

  it("says where it breaks when an entry was edited", async () => {
    const [row] = await db().select().from(auditLog).where(eq(auditLog.patientId, w.patient)).limit(1);
    await db().update(auditLog).set({ ip: "10.9.9.9" }).where(eq(auditLog.id, row!.id));
    const html = await (await request(`/reports/logs?patient_id=${w.patient}&per_page=100`, { cookie: w.cookie })).text();
    expect(html).toContain(`Integrity check FAILED: entry ${row!.id}`);
  });
});

describe("a full page of the logs and access reports (probe 8905)", () => {
  /** `n` chained entries naming the client, with their own action so a filter shows just them. */
  async function chainedEntries(action: string, n: number): Promise<number[]> {
    const ids: number[] = [];
    for (let i = 0; i < n; i++) {
      const [tail] = await db().select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
      const prevHash = tail?.hash ?? GENESIS;
      const row = { actorType: "user", actorId: null, action, entity: "client", entityId: String(w.patient), patientId: w.patient, ip: "198.51.100.8", at: new Date().toISOString(), detail: null };
      const [written] = await db().insert(auditLog).values({ ...row, prevHash, hash: await chainedHash(prevHash, row) }).returning();
      ids.push(written!.id);
    }
    return ids;
  }

  it.each([[99], [REPORT_MAX_PER_PAGE]])("per_page=%i answers the page with its integrity check, and the CSV every entry", async (perPage) => {
    const action = `bulk_${perPage}`;
    await chainedEntries(action, 130);
    const screen = await request(`/reports/logs?action=${action}&per_page=${perPage}`, { cookie: w.cookie });
    expect(screen.status).toBe(200);
    expect(await screen.text()).toContain(`Integrity check: the ${perPage} entries shown and their links to the entries before them hold.`);
    const next = await request(`/reports/logs?action=${action}&per_page=${perPage}&page=2`, { cookie: w.cookie });
    expect(next.status).toBe(200);
    expect(await next.text()).toContain(`Integrity check: the ${130 - perPage} entries shown`);
    const csv = await request(`/reports/logs/export.csv?action=${action}&per_page=${perPage}`, { cookie: w.cookie });
    expect(csv.status).toBe(200);
    expect((await csv.text()).split("\r\n").filter((line) => line.includes(action))).toHaveLength(130);
    const access = await request(`/reports/access?action=${action}&per_page=${perPage}`, { cookie: w.cookie });
    expect(access.status).toBe(200);
  });

  it("an actor at 40 locations reads both reports (the scope is named three times in a statement)", async () => {
    const tag = `Many${Date.now().toString(36)}`;
    const actor = await createUser({ permissions: ["manage_notes", "view_clients"], locations: [(await db().select({ id: patients.locationId }).from(patients).where(eq(patients.id, w.patient)))[0]!.id] });
    await db().run(
      sql`insert into locations (title, time_zone, pos_codes) with recursive c(n) as (select 0 union all select n + 1 from c where n < 38) select ${tag} || n, 'America/New_York', '12' from c`,
    );
    await db().run(sql`insert into user_locations (user_id, location_id) select ${actor.id}, id from locations where title like ${`${tag}%`}`);
    const cookie = await signInCookie(actor);
    for (const key of ["logs", "access"]) {
      const res = await request(`/reports/${key}?patient_id=${w.patient}&per_page=${REPORT_MAX_PER_PAGE}`, { cookie });
      expect([key, res.status]).toEqual([key, 200]);
      expect(await res.text()).toContain(w.patientName.replace(/&/g, "&amp;").split(" ")[1]!);
    }
  });
});

describe("the logs report's Clients named (probe 8902)", () => {
  /** The logs CSV's Clients named cell of entry `id` (the third cell from the end: an address and the id follow). */
  async function clientsNamedCell(query: string, id: number): Promise<string | undefined> {
    const text = await (await request(`/reports/logs/export.csv?per_page=100&${query}`, { cookie: w.cookie })).text();
    return text.split("\r\n").find((line) => line.endsWith(`,${id}`))?.split(",").at(-3);
  }

  it("counts the clients of a report run (its detail holds the report, then the patients)", async () => {
    expect((await request(`/reports/client-projection/export.csv`, { cookie: w.cookie })).status).toBe(200);
    const [run] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const named = JSON.parse(run!.detail!) as { report: string; patients: number[] };
    expect(named.report).toBe("client-projection");
    expect(named.patients.length).toBeGreaterThan(0);
    expect(await clientsNamedCell("action=read", run!.id)).toBe(String(named.patients.length));
  });

  it.each([
    ['{"patients":[1,2,3]}', "3"],
    ['{"report":"pas","format":"screen","filters":{},"patients":[4,5]}', "2"],
    ['{"report":"pas","format":"csv","filters":{},"patients_count":6000}', "6000"],
    ['{"patients":[]}', "0"],
    ['{"parents":[1,2]}', ""],
    ['{"email":"a@example.com","via":"screen"}', ""],
    ['{"patients":"many"}', ""],
    ["[1,2]", ""],
    ["not json {", ""],
    [null, ""],
  ])("an entry whose detail is %j shows %j", async (detail, cell) => {
    const [tail] = await db().select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const prevHash = tail?.hash ?? GENESIS;
    const row = { actorType: "user", actorId: null, action: "odd_detail", entity: "report", entityId: "pas", patientId: w.patient, ip: "198.51.100.7", at: new Date().toISOString(), detail };
    const [written] = await db().insert(auditLog).values({ ...row, prevHash, hash: await chainedHash(prevHash, row) }).returning();
    expect(await clientsNamedCell(`action=odd_detail&patient_id=${w.patient}`, written!.id)).toBe(cell);
  });
});

describe("the logs report's scope for entries listing clients (decision 038 §7, 2026-11-28)", () => {
  let colleague: number;
  let colleagueCookie: string;
  beforeAll(async () => {
    // A colleague of both locations: their entries naming no client show to a user of either location.
    const user = await createUser({ permissions: ["view_clients"], locations: [w.here, w.there], name: "Elena" });
    // Two clients a location more, so a list of either names several clients (an entry with no single client).
    for (const locationId of [w.here, w.there]) await createPatient({ locationId, firstName: "Second", lastName: "Client" });
    colleague = user.id;
    colleagueCookie = await signInCookie(user);
  });

  it("a colleague's list of the other location's clients is not shown; their list of this location's is", async () => {
    const listRead = async (location: number) => {
      expect((await request(`/patients/list?location_id=${location}`, { cookie: colleagueCookie })).status).toBe(200);
      const [row] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
      expect(row).toMatchObject({ actorId: colleague, action: "read", patientId: null });
      return row!;
    };
    const theirs = await listRead(w.there);
    expect(JSON.parse(theirs.detail!).patients).toContain(w.stranger);
    expect(JSON.parse(theirs.detail!).patients).not.toContain(w.patient);
    const ours = await listRead(w.here);
    expect(JSON.parse(ours.detail!).patients).toContain(w.patient);
    expect([await shownTo(w.cookie, theirs.id), await shownTo(w.cookie, ours.id)]).toEqual([false, true]);
    expect([await shownTo(w.outsiderCookie, theirs.id), await shownTo(w.outsiderCookie, ours.id)]).toEqual([true, false]);
  });

  async function shownTo(cookie: string, id: number): Promise<boolean> {
    const text = await (await request(`/reports/logs/export.csv?per_page=100&actor_id=${colleague}`, { cookie })).text();
    return text.split("\r\n").some((line) => line.endsWith(`,${id}`));
  }

  async function entry(detail: string | null): Promise<number> {
    const [tail] = await db().select({ hash: auditLog.hash }).from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    const prevHash = tail?.hash ?? GENESIS;
    const row = { actorType: "user", actorId: colleague, action: "read", entity: "patient", entityId: null, patientId: null, ip: "127.0.0.1", at: new Date().toISOString(), detail };
    const [written] = await db().insert(auditLog).values({ ...row, prevHash, hash: await chainedHash(prevHash, row) }).returning();
    return written!.id;
  }

  it.each([
    ["only the other location's client", false, true, (): string => JSON.stringify({ patients: [w.stranger] })],
    ["a client of each location", true, true, (): string => JSON.stringify({ patients: [w.stranger, w.patient] })],
    ["a report run naming the other location's client", false, true, (): string => JSON.stringify({ report: "pas", format: "screen", filters: {}, patients: [w.stranger] })],
    ["no client (an empty list: the actor's membership)", true, true, (): string => '{"patients":[]}'],
    ["no list (the actor's membership)", true, true, (): string | null => null],
    ["text that is not JSON (the actor's membership)", true, true, (): string => 'not json "patients":['],
  ])("an entry of a colleague of both locations naming %s: shown here %s, there %s", async (_what, here, there, detail) => {
    const id = await entry(detail());
    expect(await shownTo(w.cookie, id)).toBe(here);
    expect(await shownTo(w.outsiderCookie, id)).toBe(there);
  });
});

const ALL_MINE = ["logs", "access", "pas", "client-projection", "client-eligibility", "expiration-dates"] as const;

describe.each(ALL_MINE)("the %s report's guard and export", (key) => {
  it("403 without manage_notes (screen and CSV); a parent 403", async () => {
    expect((await request(`/reports/${key}`, { cookie: w.noPermCookie })).status).toBe(403);
    expect((await request(`/reports/${key}/export.csv`, { cookie: w.noPermCookie })).status).toBe(403);
  });

  it("answers the screen and a CSV attachment whose header is the screen's columns", async () => {
    const page = await request(`/reports/${key}`, { cookie: w.cookie });
    expect(page.status).toBe(200);
    const html = await page.text();
    // The trail's CSV reads up to the entry the page was read to (decision 038, 2026-11-28).
    expect(html).toMatch(new RegExp(`href="/reports/${key}/export\\.csv${key === "logs" || key === "access" ? "\\?as_of=\\d+" : ""}"`));
    const res = await request(`/reports/${key}/export.csv`, { cookie: w.cookie });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toMatch(/^attachment; filename="baseline-/);
    const [header] = (await res.text()).split("\r\n");
    for (const h of header!.split(",")) expect(html).toContain(`<th>${h.replace(/"/g, "")}</th>`.replace(/&/g, "&amp;"));
  });

  it("a bad page is a field message, 400", async () => {
    expect((await request(`/reports/${key}?page=x`, { cookie: w.cookie })).status).toBe(400);
  });

  it("a page past the last goes back to the first page with the same filters (never 'of 0 entries')", async () => {
    const res = await request(`/reports/${key}?per_page=5&page=9999`, { cookie: w.cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe(`/reports/${key}?per_page=5`);
  });
});

// Probe 8902 §6: the page's message named the raw parameter ("page must be …") where every filter has its label.
// Stop 33: the page is read by the lists' one rule (app/domain/paging.ts), so -1 is "at least 1", as 0 is, everywhere.
describe("the page field, on every report's screen and CSV", () => {
  let cookie: string;
  beforeAll(async () => {
    const [here] = await db().select({ id: patients.locationId }).from(patients).where(eq(patients.id, w.patient));
    cookie = await signInCookie(await createUser({ permissions: ["manage_notes", "manage_employees", "manage_claims", "view_clients", "manage_clients"], locations: [here!.id] }));
  });

  // Probe 8971 §4: per_page's message named the raw key ("per_page must be at most 100."); §3: under a refused
  // filter the table said "No data to display. Showing 0 to 0 of 0 entries", as if the report had run.
  it.each(REPORT_KEYS.flatMap((key) => [
    [key, "page=-1", "page", "Page must be at least 1."],
    [key, "page=0", "page", "Page must be at least 1."],
    [key, "page=1.5", "page", "Page must be a whole number."],
    [key, "page=abc", "page", "Page must be a whole number."],
    [key, "page=99999999999999999999", "page", "Page must be at most 1000000."],
    [key, "per_page=101", "per_page", "Rows per page must be at most 100."],
    [key, "per_page=0", "per_page", "Rows per page must be at least 1."],
    [key, "per_page=x", "per_page", "Rows per page must be a whole number."],
  ]))("%s?%s: %s '%s', screen and CSV, 400; the table says the filters were refused", async (key, query, field, message) => {
    const screen = await request(`/reports/${key}?${query}`, { cookie });
    expect(screen.status).toBe(400);
    const html = await screen.text();
    expect(html).toContain(message);
    expect(html.replaceAll("Rows per page must be", "")).not.toMatch(/\b(page|per_page) must be/);
    expect(html).toContain("Nothing is listed until the filters marked above are corrected.");
    expect(html).not.toContain("No data to display.");
    expect(html).not.toContain("Showing 0 to 0");
    const csv = await request(`/reports/${key}/export.csv?${query}`, { cookie });
    expect(csv.status).toBe(400);
    expect(await csv.json()).toMatchObject({ message, errors: { [field]: message } });
  });

  it.each([
    ["pas", "status=bogus&location_id=1", "Choose a status from the list."],
    ["hours", "date_from=2026-11-30&date_to=2026-11-01", "To must be on or after From."],
    ["bcba-report", "provider_id=abc", "Provider must be a record id."],
  ])("%s?%s: the field's message, and the table says the filters were refused (not 'No data … 0 of 0 entries')", async (key, query, message) => {
    const screen = await request(`/reports/${key}?${query}`, { cookie });
    expect(screen.status).toBe(400);
    const html = await screen.text();
    expect(html).toContain(message);
    expect(html).toContain("Nothing is listed until the filters marked above are corrected.");
    expect(html).not.toContain("No data to display.");
    expect(html).not.toContain("Showing 0 to 0");
  });

  it.each(REPORT_KEYS)("%s?page=1 answers the first page, screen and CSV", async (key) => {
    expect((await request(`/reports/${key}?page=1`, { cookie })).status).toBe(200);
    expect((await request(`/reports/${key}/export.csv?page=1`, { cookie })).status).toBe(200);
  });
});

// Probe 8902 §5: the CSV was named with UTC's date; at 22:30 in New York that is already tomorrow.
describe("the CSV's file name", () => {
  type Loader = (args: unknown) => Promise<unknown>;
  const routes = (build as unknown as { routes: Record<string, { module: { loader: Loader } }> }).routes;
  // 2026-03-10 02:30 UTC is 2026-03-09 22:30 in New York (the manager's location).
  const fixed = new Date("2026-03-10T02:30:00Z");
  const args = (path: string, report: string) => ({
    request: new Request(`http://localhost${path}`, { headers: { Cookie: w.cookie } }),
    params: { report },
    context: { app: { db: db(), now: () => fixed, ip: "127.0.0.1" } },
  });

  it.each(["pas", "logs", "hours"])("%s: carries the date the screens call today (the actor's time zone), not UTC's", async (key) => {
    const res = (await routes["routes/reports.$report.export[.csv]"]!.module.loader(args(`/reports/${key}/export.csv`, key))) as Response;
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toBe(`attachment; filename="baseline-${key}-2026-03-09.csv"`);
    await res.body?.cancel();
  });

  it("the pas screen says the same today", async () => {
    const out = (await routes["routes/_app.reports.$report"]!.module.loader(args("/reports/pas", "pas"))) as { notes: string[] };
    expect(out.notes).toContain("Today is the date at each client's location (it is 2026-03-09 in America/New_York).");
  });
});

describe("the pas report", () => {
  it("lists the location's authorizations with used, remaining, expiry and pacing; not another location's", async () => {
    const html = await (await request("/reports/pas", { cookie: w.cookie })).text();
    expect(html).toContain("Direct therapy");
    expect(html).toContain("Will run out");
    expect(html).toContain(addDays(today(), 20));
    expect(html).not.toContain("Stranger therapy");
  });

  it("filters by status; a made-up status is a field message", async () => {
    expect(await (await request("/reports/pas?status=ended", { cookie: w.cookie })).text()).toContain("No data to display.");
    const bad = await request("/reports/pas?status=forever", { cookie: w.cookie });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Choose a status from the list.");
  });

  it("the CSV has the units as numbers", async () => {
    const text = await (await request(`/reports/pas/export.csv?patient_id=${w.patient}&status=all`, { cookie: w.cookie })).text();
    const line = text.split("\r\n").find((l) => l.includes("Direct therapy"))!;
    expect(line).toContain(",50,32,18,");
    expect(line.startsWith(`"'=HYPERLINK(1) Doe, Jr."`)).toBe(true);
  });
});

describe("the client-projection report", () => {
  it("projects use at the current rate, draws the chart, leaves out another location", async () => {
    const html = await (await request("/reports/client-projection", { cookie: w.cookie })).text();
    expect(html).toContain("<svg");
    expect(html).toContain("Projected use by the end date");
    expect(html).toContain("Will run out");
    expect(html).not.toContain("Stranger therapy");
    expect(html).not.toContain("Elsewhere");
  });

  // Probe 8971 §4: the projection has no period; its empty chart said "nothing in this period".
  it("with no running authorization, the chart says so (it has no period)", async () => {
    const html = await (await request(`/reports/client-projection?patient_id=${w.stranger}`, { cookie: w.cookie })).text();
    expect(html).toContain("Projected use by the end date: no running authorizations.");
    expect(html).not.toContain("in this period");
  });
});

describe("the client-eligibility report", () => {
  it("60 days: the insurance and the authorization that lapse, not the renewed one, not another location's", async () => {
    const html = await (await request("/reports/client-eligibility?window=60", { cookie: w.cookie })).text();
    expect(html).toContain("Insurance eligibility");
    expect(html).toContain("Direct therapy (97153)");
    expect(html).not.toContain("Supervision (97155)");
    expect(html).not.toContain("Elsewhere");
  });

  it("14 days: only what lapses within 14 days; a made-up window is a field message", async () => {
    const html = await (await request("/reports/client-eligibility?window=14", { cookie: w.cookie })).text();
    expect(html).toContain("Insurance eligibility");
    expect(html).not.toContain("Direct therapy (97153)");
    const bad = await request("/reports/client-eligibility?window=7", { cookie: w.cookie });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain("Choose 60, 30 or 14 days.");
  });
});

describe("the expiration-dates report", () => {
  it("shows the location's employees' expired and soon-due dates with their states; no audit row (staff records)", async () => {
    const before = await auditRows();
    const html = await (await request("/reports/expiration-dates", { cookie: w.cookie })).text();
    expect(html).toContain("CPR (every 2 years)");
    expect(html).toContain("Expired");
    expect(html).toContain("BACB license expiration");
    expect(html).toContain("Within 30 days");
    expect(html).not.toContain("Driver license expiration");
    expect(html).not.toContain("Faraway");
    expect(await auditRows()).toBe(before);
  });

  it("state ok lists the later dates; a made-up state is a field message", async () => {
    const html = await (await request(`/reports/expiration-dates?state=ok&user_id=${w.employee}`, { cookie: w.cookie })).text();
    expect(html).toContain("Driver license expiration");
    expect(html).not.toContain("CPR (every 2 years)");
    expect((await request("/reports/expiration-dates?state=soon", { cookie: w.cookie })).status).toBe(400);
  });
});

describe("the provider select of a report's filters", () => {
  it("lists the chosen location's staff; with more than the limit in scope it asks for a location first and keeps the chosen one", async () => {
    const small = await createLocation();
    const big = await createLocation();
    const admin = await createUser({ permissions: ["manage_notes", "view_clients"], locations: [small.id, big.id] });
    const cookie = await signInCookie(admin);
    const few = await createUser({ permissions: [], locations: [small.id], name: "Fewfirst" });
    // More staff than a select lists, at the big location (plain rows: no sign-in needed).
    await createManyStaff(big.id, STAFF_OPTIONS_MAX + 1, "Many");
    const hint = `More than ${STAFF_OPTIONS_MAX} staff: choose a location`;

    const everyLocation = await (await request("/reports/hours", { cookie })).text();
    expect(everyLocation).toContain(hint);
    expect(everyLocation).not.toContain("Many0 Staff");
    expect(everyLocation).not.toContain("Fewfirst User");

    const smallOnly = await (await request(`/reports/hours?location_id=${small.id}`, { cookie })).text();
    expect(smallOnly).toContain("Fewfirst User");
    expect(smallOnly).not.toContain(hint);
    expect(smallOnly).not.toContain("Many0 Staff");

    // The chosen provider stays selectable even when the list is too long to show.
    const chosen = await (await request(`/reports/hours?provider_id=${few.id}`, { cookie })).text();
    expect(chosen).toContain(hint);
    expect(chosen).toMatch(new RegExp(`<option value="${few.id}"[^>]*>Fewfirst User</option>`));
    // Another location's employee given by id is not listed.
    const stranger = await (await request(`/reports/hours?provider_id=${w.employee}`, { cookie })).text();
    expect(stranger).not.toContain("Compliant User");
  });
});

// A page of 100 authorizations names 100 ids in one statement: more than D1 binds.
describe("a full page of authorizations", () => {
  it("the pas report answers per_page=100 with 100 rows, and its CSV", async () => {
    const loc = await createLocation();
    const client = await createPatient({ locationId: loc.id, firstName: "Many", lastName: "Auths" });
    const t = today();
    for (let i = 0; i < 105; i += 10)
      await db()
        .insert(paServices)
        .values(Array.from({ length: Math.min(10, 105 - i) }, (_, k) => ({ patientId: client.id, paService: `PA ${i + k}`, cpt: "97153", nUnits: 100, startDate: addDays(t, -30), endDate: addDays(t, 30 + i + k) })));
    const cookie = await signInCookie(await createUser({ permissions: ["manage_notes", "view_clients"], locations: [loc.id] }));
    const res = await request(`/reports/pas?per_page=100`, { cookie });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Showing 1 to 100 of 100+ entries");
    const csv = await request(`/reports/pas/export.csv?per_page=100`, { cookie });
    expect(csv.status).toBe(200);
  });
});
