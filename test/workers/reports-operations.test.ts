import { env } from "cloudflare:test";
import { count, desc, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { auditLog, insurances, insuranceServices, notes, rateRecords, tickets } from "~/db/schema";
import { zonedDate } from "~/domain/time";
import { getUserActor } from "~/models/actors.server";
import { amountsFromTheStart } from "~/models/rate-records.server";
import type { ReadBatch } from "~/models/reports/note-scope.server";
import { supervisionReport } from "~/models/reports/supervision.server";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * The six operations reports (issue 12; decision 039) through the report screen and CSV of decision 038:
 * payroll, hours, bcba-report, location-cpt, provider-clients and ticket-support. For each: the sums a user
 * would check by hand, 403 without the permission, another location's rows absent, a bad filter is a field
 * message (400), the CSV is an attachment from the same columns.
 */

const OCT = "date_from=2026-10-01&date_to=2026-10-31";

let w: {
  cookie: string;
  notesOnlyCookie: string;
  noPermCookie: string;
  alice: number;
  bob: number;
  stranger: number;
  here: number;
  managerId: number;
};

async function auditRows(): Promise<number> {
  const [row] = await db().select({ n: count() }).from(auditLog);
  return row!.n;
}

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

beforeAll(async () => {
  const here = await createLocation({ title: "Here Clinic" });
  const there = await createLocation({ title: "There Clinic" });
  const [insurer] = await db().insert(insurances).values({ name: "Acme Health" }).returning();
  await db()
    .insert(insuranceServices)
    .values([
      {
        insuranceId: insurer!.id,
        cptCode: "97153",
        provider: "rbt",
        type: "rbt",
        unitPrice: 12.5,
      },
      {
        insuranceId: insurer!.id,
        cptCode: "97155",
        provider: "bcba",
        type: "bcba",
        unitPrice: 30,
      },
    ]);
  const alice = await createPatient({
    locationId: here.id,
    firstName: "Alice",
    lastName: "Adams",
    insurerId: insurer!.id,
  });
  const bob = await createPatient({
    locationId: here.id,
    firstName: "Bob",
    lastName: "Baker",
    insurerId: insurer!.id,
  });
  const stranger = await createPatient({
    locationId: there.id,
    firstName: "Zed",
    lastName: "Elsewhere",
    insurerId: insurer!.id,
  });
  const rita = await createUser({
    permissions: ["view_notes"],
    locations: [here.id],
    name: "Rita",
  });
  const bert = await createUser({
    permissions: ["view_notes"],
    locations: [here.id],
    name: "=Bert",
  });
  const otto = await createUser({
    permissions: ["view_notes"],
    locations: [there.id],
    name: "Otto",
  });
  await db()
    .insert(rateRecords)
    .values([
      { name: "Standard", locationId: here.id, rbt: 20, bcba: 50 },
      { name: "Later", locationId: here.id, rbt: 99, bcba: 99 },
      { name: "There", locationId: there.id, rbt: 30, bcba: 60 },
    ]);
  await amountsFromTheStart(db());
  const note = (
    over: Partial<typeof notes.$inferInsert> & {
      patientId: number;
      locationId: number;
      sessionDate: string;
    }
  ) => ({
    type: "rbt" as const,
    cptCode: "97153",
    minutes: 60,
    units: 4,
    ...over,
  });
  // One insert per note (D1 takes at most 100 bound values a statement).
  const rows = [
    note({
      patientId: alice.id,
      locationId: here.id,
      providerId: rita.id,
      sessionDate: "2026-10-05",
      minutes: 120,
      units: 8,
    }),
    note({
      patientId: alice.id,
      locationId: here.id,
      providerId: rita.id,
      sessionDate: "2026-10-06",
      minutes: 90,
      units: 6,
    }),
    note({
      patientId: bob.id,
      locationId: here.id,
      providerId: rita.id,
      sessionDate: "2026-10-07",
      minutes: 60,
      units: 4,
    }),
    note({
      patientId: alice.id,
      locationId: here.id,
      providerId: bert.id,
      type: "bcba",
      cptCode: "97155",
      sessionDate: "2026-10-05",
      minutes: 15,
      units: 1,
    }),
    // Not counted: a deleted note, a note after the period, another location's note.
    note({
      patientId: alice.id,
      locationId: here.id,
      providerId: rita.id,
      sessionDate: "2026-10-08",
      minutes: 600,
      units: 40,
      deletedAt: "2026-10-09T00:00:00Z",
    }),
    note({
      patientId: alice.id,
      locationId: here.id,
      providerId: rita.id,
      sessionDate: "2026-11-02",
      minutes: 60,
      units: 4,
    }),
    note({
      patientId: stranger.id,
      locationId: there.id,
      providerId: otto.id,
      sessionDate: "2026-10-05",
      minutes: 300,
      units: 20,
    }),
  ];
  for (const row of rows) await db().insert(notes).values(row);
  const manager = await createUser({
    permissions: ["manage_notes", "manage_employees", "manage_claims", "view_clients"],
    locations: [here.id],
    name: "Mona",
  });
  await db()
    .insert(tickets)
    .values(
      [
        {
          userId: manager.id,
          locationId: here.id,
          subject: "New",
          status: "open",
          createdAt: hoursAgo(2),
        },
        {
          userId: manager.id,
          locationId: here.id,
          subject: "Answered",
          status: "answered",
          createdAt: hoursAgo(48),
          firstResponseAt: hoursAgo(44),
        },
        {
          userId: manager.id,
          locationId: here.id,
          subject: "Closed",
          status: "closed",
          createdAt: hoursAgo(240),
          firstResponseAt: hoursAgo(238),
          closedAt: hoursAgo(120),
        },
        {
          userId: manager.id,
          locationId: here.id,
          subject: "Old open",
          status: "open",
          createdAt: hoursAgo(24 * 9),
        },
        {
          userId: otto.id,
          locationId: there.id,
          subject: "Elsewhere",
          status: "open",
          createdAt: hoursAgo(1),
        },
      ]
        // The day each is opened on at its location (New York, createLocation's zone), as createTicket stores it.
        .map((t) => ({ ...t, openedOn: zonedDate(new Date(t.createdAt), "America/New_York") })),
    );
  w = {
    cookie: await signInCookie(manager),
    notesOnlyCookie: await signInCookie(
      await createUser({
        permissions: ["manage_notes", "view_clients"],
        locations: [here.id],
      })
    ),
    noPermCookie: await signInCookie(
      await createUser({
        permissions: ["view_notes", "view_clients", "manage_employees"],
        locations: [here.id],
      })
    ),
    alice: alice.id,
    bob: bob.id,
    stranger: stranger.id,
    here: here.id,
    managerId: manager.id,
  };
});

async function page(path: string, cookie = w.cookie): Promise<{ status: number; html: string }> {
  const res = await request(path, { cookie });
  return { status: res.status, html: await res.text() };
}

/** The text of each table row (cells joined by " | "), tags stripped. */
function tableRows(html: string): string[] {
  const body = html.slice(html.indexOf("<tbody"), html.indexOf("</tbody>"));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)]
      .map((c) =>
        c[1]!
          .replace(/<[^>]+>/g, "")
          .replace(/&amp;/g, "&")
          .replace(/&#x27;/g, "'")
          .trim()
      )
      .join(" | ")
  );
}

describe("payroll", () => {
  it("pays each employee's hours at the location's rate record for the role", async () => {
    const { status, html } = await page(`/reports/payroll?${OCT}`);
    expect(status).toBe(200);
    const rows = tableRows(html);
    expect(rows).toContainEqual(expect.stringMatching(/^Rita User \| Here Clinic \| RBT \| 3 \| 4\.50 \| Standard \| \$20\.00 \| \$90\.00$/));
    expect(rows).toContainEqual(expect.stringMatching(/^=Bert User \| Here Clinic \| BCBA \| 1 \| 0\.25 \| Standard \| \$50\.00 \| \$12\.50$/));
    expect(rows).toHaveLength(2);
    expect(html).toContain("pay $102.50");
    expect(html).not.toContain("Otto");
  });

  it("needs manage_employees besides manage_notes (pay is theirs alone), and manage_notes", async () => {
    expect((await page(`/reports/payroll?${OCT}`, w.notesOnlyCookie)).status).toBe(403);
    expect((await page(`/reports/payroll?${OCT}`, w.noPermCookie)).status).toBe(403);
    expect(
      (
        await request(`/reports/payroll/export.csv?${OCT}`, {
          cookie: w.notesOnlyCookie,
        })
      ).status
    ).toBe(403);
  });

  it("the /reports index links payroll only for those who may open it (manage_employees too); the others still see the rest", async () => {
    const full = await (await request("/reports", { cookie: w.cookie })).text();
    expect(full).toContain('href="/reports/payroll"');
    const notesOnly = await request("/reports", { cookie: w.notesOnlyCookie });
    expect(notesOnly.status).toBe(200);
    const html = await notesOnly.text();
    expect(html).not.toContain('href="/reports/payroll"');
    expect(html).not.toContain("Payroll");
    expect(html).toContain('href="/reports/hours"');
  });

  it("exports the same columns as CSV, formulas neutralised, money as plain dollars under headers that say so", async () => {
    const res = await request(`/reports/payroll/export.csv?${OCT}`, {
      cookie: w.cookie,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Disposition")).toMatch(/^attachment; filename="baseline-payroll/);
    const text = await res.text();
    const lines = text
      .replace(/^\uFEFF/, "")
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe("Employee,Location,Role,Sessions,Hours,Rate record,Hourly rate ($),Pay ($)");
    expect(lines).toContain("Rita User,Here Clinic,RBT,3,4.50,Standard,20.00,90.00");
    expect(lines).toContain("'=Bert User,Here Clinic,BCBA,1,0.25,Standard,50.00,12.50");
  });

  // A year before 1900 was a valid date to the filters but not to the day arithmetic: 500 (decision 017, stop 24).
  it.each(["hours", "payroll", "bcba-report", "provider-clients"])("%s refuses a date before 1900 with the field's message (400), screen and CSV", async (report) => {
    for (const query of ["date_from=0050-01-01&date_to=0050-03-31", "date_from=0099-01-01"]) {
      const screen = await page(`/reports/${report}?${query}`);
      expect(screen.status).toBe(400);
      expect(screen.html).toContain("Dates must be real dates like 2026-01-31.");
      const csv = await request(`/reports/${report}/export.csv?${query}`, { cookie: w.cookie });
      expect(csv.status).toBe(400);
      expect(((await csv.json()) as { message: string }).message).toBe("Dates must be real dates like 2026-01-31.");
    }
  });

  it("refuses a period longer than a year or ending before it starts, with the field's message", async () => {
    const long = await page("/reports/payroll?date_from=2025-01-01&date_to=2026-06-30");
    expect(long.status).toBe(400);
    expect(long.html).toContain("Choose a period of at most one year.");
    const reversed = await page("/reports/payroll?date_from=2026-10-31&date_to=2026-10-01");
    expect(reversed.status).toBe(400);
    const csv = await request("/reports/payroll/export.csv?date_from=2025-01-01&date_to=2026-06-30", { cookie: w.cookie });
    expect(csv.status).toBe(400);
    expect(((await csv.json()) as { message: string }).message).toBe("Choose a period of at most one year.");
  });

  it("another location chosen in the filter gives no rows", async () => {
    const { html } = await page(`/reports/payroll?${OCT}&location_id=999999`);
    expect(tableRows(html).filter((r) => r.includes("Clinic"))).toHaveLength(0);
  });

  // Probe 8902 §3: a combined note's provider was paid, and labelled, as a BCBA even when an RBT.
  it("pays a combined note at its provider's own role: an RBT's at the RBT amount, an analyst's at the BCBA amount", async () => {
    const team = await createLocation({ title: "Team Clinic" });
    await db().insert(rateRecords).values({ name: "Team rates", locationId: team.id, rbt: 20, bcba: 50 });
    await amountsFromTheStart(db());
    const tech = await createUser({ role: "RBT", locations: [team.id], name: "Tess" });
    const analyst = await createUser({ role: "BCBA", locations: [team.id], name: "Ana" });
    const client = await createPatient({ locationId: team.id, firstName: "Cory", lastName: "Combined" });
    const at = (providerId: number, type: "rbt" | "bcba" | "combined", minutes: number, sessionDate: string) => ({ patientId: client.id, locationId: team.id, providerId, type, cptCode: type === "rbt" ? "97153" : "97155", sessionDate, minutes, units: minutes / 15 });
    for (const row of [
      at(tech.id, "combined", 60, "2026-10-12"), // led by the RBT: RBT pay
      at(tech.id, "rbt", 60, "2026-10-13"),
      at(analyst.id, "combined", 30, "2026-10-12"), // led by the analyst: BCBA pay
      at(analyst.id, "bcba", 30, "2026-10-14"),
    ])
      await db().insert(notes).values(row);
    const cookie = await signInCookie(await createUser({ permissions: ["manage_notes", "manage_employees"], locations: [team.id] }));
    const { status, html } = await page(`/reports/payroll?${OCT}&location_id=${team.id}`, cookie);
    expect(status).toBe(200);
    expect(tableRows(html)).toEqual(["Ana User | Team Clinic | BCBA | 2 | 1.00 | Team rates | $50.00 | $50.00", "Tess User | Team Clinic | RBT | 2 | 2.00 | Team rates | $20.00 | $40.00"]);
    expect(html).toContain("pay $90.00");
    const csv = await request(`/reports/payroll/export.csv?${OCT}&location_id=${team.id}`, { cookie });
    expect((await csv.text()).replace(/^\uFEFF/, "").trim().split("\r\n").slice(1)).toEqual(["Ana User,Team Clinic,BCBA,2,1.00,Team rates,50.00,50.00", "Tess User,Team Clinic,RBT,2,2.00,Team rates,20.00,40.00"]);
  });
});

describe("hours", () => {
  it("sums hours per provider, client or CPT, with a chart of the weeks", async () => {
    const byProvider = await page(`/reports/hours?${OCT}`);
    expect(byProvider.status).toBe(200);
    expect(tableRows(byProvider.html)).toEqual(["Rita User | 3 | 18 | 4.50", "=Bert User | 1 | 1 | 0.25"]);
    expect(byProvider.html).toContain("<svg");
    expect(byProvider.html).toContain("Week ending 2026-10-10");
    expect(byProvider.html).toContain("4.75 hours in 4 sessions.");
    const byClient = await page(`/reports/hours?${OCT}&by=client`);
    expect(tableRows(byClient.html)).toEqual([
      expect.stringMatching(/^Adams, Alice \(P-.*\) \| 3 \| 15 \| 3\.75$/),
      expect.stringMatching(/^Baker, Bob \(P-.*\) \| 1 \| 4 \| 1\.00$/),
    ]);
    const byCpt = await page(`/reports/hours?${OCT}&by=cpt`);
    expect(tableRows(byCpt.html)).toEqual(["97153 | 3 | 18 | 4.50", "97155 | 1 | 1 | 0.25"]);
  });

  it("records which clients a page by client showed, in one audit row", async () => {
    const before = await auditRows();
    expect((await page(`/reports/hours?${OCT}&by=client`)).status).toBe(200);
    expect(await auditRows()).toBe(before + 1);
    const [last] = await db().select().from(auditLog).orderBy(desc(auditLog.id)).limit(1);
    expect(last).toMatchObject({
      action: "read",
      entity: "report",
      entityId: "hours",
    });
    expect(JSON.parse(last!.detail!).patients).toEqual([w.alice, w.bob].sort((a, b) => a - b));
  });

  it("filters by provider and client, and refuses an unknown grouping", async () => {
    const one = await page(`/reports/hours?${OCT}&by=client&patient_id=${w.bob}`);
    expect(tableRows(one.html)).toEqual([expect.stringMatching(/^Baker, Bob/)]);
    const stranger = await page(`/reports/hours?${OCT}&by=client&patient_id=${w.stranger}`);
    expect(stranger.html).not.toContain("Elsewhere");
    const bad = await page(`/reports/hours?${OCT}&by=weather`);
    expect(bad.status).toBe(400);
    expect(bad.html).toContain("Group by provider, client or CPT.");
  });

  it("403 without manage_notes", async () => {
    expect((await page(`/reports/hours?${OCT}`, w.noPermCookie)).status).toBe(403);
  });
});

describe("bcba-report", () => {
  it("shows BCBA hours against RBT hours per client and flags those below 5%", async () => {
    const { status, html } = await page(`/reports/bcba-report?${OCT}`);
    expect(status).toBe(200);
    expect(tableRows(html)).toEqual([
      expect.stringMatching(/^Baker, Bob.* \| Here Clinic \| 1\.00 \| 0\.00 \| 0\.0% \| Below 5%$/),
      expect.stringMatching(/^Adams, Alice.* \| Here Clinic \| 3\.50 \| 0\.25 \| 7\.1% \| Meets 5%$/),
    ]);
    const below = await page(`/reports/bcba-report?${OCT}&show=below`);
    expect(tableRows(below.html)).toEqual([expect.stringMatching(/^Baker, Bob/)]);
    expect(html).not.toContain("Elsewhere");
  });

  it("CSV, 403 and a bad filter", async () => {
    const csv = await request(`/reports/bcba-report/export.csv?${OCT}`, {
      cookie: w.cookie,
    });
    expect(csv.status).toBe(200);
    expect((await csv.text()).split("\r\n")[0]).toContain("Client,Location,RBT hours,BCBA hours,BCBA % of RBT,Supervision");
    expect((await page(`/reports/bcba-report?${OCT}`, w.noPermCookie)).status).toBe(403);
    expect((await page(`/reports/bcba-report?${OCT}&show=most`)).status).toBe(400);
  });
});

// Probe 8971 §1: the Provider filter threw away every other provider's notes before the share was taken, so an RBT's
// clients all showed 0 BCBA hours and "Below 5%", and an analyst's "No RBT hours".
describe("bcba-report filtered by provider", () => {
  let s: { cookie: string; location: number; tech: number; tech2: number; analyst: number; manager: number };
  // Each client's row as the unfiltered report shows it: its name, then RBT hours, BCBA hours, share and flag.
  const ROWS = {
    cara: ["Cara, Cole", "10.00 | 1.00 | 10.0% | Meets 5%"],
    dale: ["Dale, Dunn", "6.00 | 1.00 | 16.7% | Meets 5%"],
    evan: ["Evan, Eyre", "10.00 | 0.00 | 0.0% | Below 5%"],
    fay: ["Fay, Ford", "11.00 | 1.00 | 9.1% | Meets 5%"],
  } as const;
  type Client = keyof typeof ROWS;
  const escape = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const screenRows = (clients: readonly Client[]) => clients.map((c) => expect.stringMatching(new RegExp(`^${escape(ROWS[c][0])} \\(P-[^)]*\\) \\| Supervision Clinic \\| ${escape(ROWS[c][1])}$`)));
  const csvRows = (clients: readonly Client[]) => clients.map((c) => expect.stringMatching(new RegExp(`^"${escape(ROWS[c][0])} \\(P-[^)]*\\)",Supervision Clinic,${escape(ROWS[c][1].replace(/ \| /g, ",").replace("%,", ","))}$`)));

  beforeAll(async () => {
    const loc = await createLocation({ title: "Supervision Clinic" });
    const tech = await createUser({ role: "RBT", locations: [loc.id], name: "Tia" });
    const tech2 = await createUser({ role: "RBT", locations: [loc.id], name: "Tom" });
    const analyst = await createUser({ role: "BCBA", locations: [loc.id], name: "Ana" });
    const client = (lastName: string, firstName: string) => createPatient({ locationId: loc.id, lastName, firstName });
    const [cara, dale, evan, fay] = [await client("Cara", "Cole"), await client("Dale", "Dunn"), await client("Evan", "Eyre"), await client("Fay", "Ford")];
    const at = (patientId: number, providerId: number, type: "rbt" | "bcba" | "combined", sessionDate: string, minutes: number, over: Partial<typeof notes.$inferInsert> = {}) => ({
      patientId,
      locationId: loc.id,
      providerId,
      type,
      cptCode: type === "rbt" ? "97153" : "97155",
      sessionDate,
      minutes,
      units: minutes / 15,
      ...over,
    });
    for (const row of [
      // Cara: Tia's RBT sessions, Ana's BCBA session: 10 %.
      at(cara.id, tech.id, "rbt", "2026-10-05", 600),
      at(cara.id, analyst.id, "bcba", "2026-10-06", 60),
      // Dale: Tom's RBT session and a combined session Tom led with Ana supervising: 6.00 RBT / 1.00 BCBA.
      at(dale.id, tech2.id, "rbt", "2026-10-07", 300),
      at(dale.id, tech2.id, "combined", "2026-10-08", 60, { supervisorId: analyst.id }),
      // Evan: only Tom in October. Ana's BCBA session is in November, and her October one was deleted.
      at(evan.id, tech2.id, "rbt", "2026-10-09", 600),
      at(evan.id, analyst.id, "bcba", "2026-11-05", 60),
      at(evan.id, analyst.id, "bcba", "2026-10-10", 60, { deletedAt: "2026-10-11T00:00:00Z" }),
      // Fay: Tom's RBT session and a combined session Tia led with Ana supervising.
      at(fay.id, tech2.id, "rbt", "2026-10-11", 600),
      at(fay.id, tech.id, "combined", "2026-10-12", 60, { supervisorId: analyst.id }),
    ])
      await db().insert(notes).values(row);
    const manager = await createUser({ permissions: ["manage_notes", "view_clients"], locations: [loc.id], name: "Sue" });
    s = { cookie: await signInCookie(manager), location: loc.id, tech: tech.id, tech2: tech2.id, analyst: analyst.id, manager: manager.id };
  });

  const base = () => `/reports/bcba-report?${OCT}&location_id=${s.location}`;

  it("unfiltered: every client's share over all their sessions (a combined session counts as RBT and BCBA hours)", async () => {
    const { status, html } = await page(base(), s.cookie);
    expect(status).toBe(200);
    expect(tableRows(html)).toEqual(screenRows(["evan", "fay", "cara", "dale"]));
  });

  // Each provider's clients are those with a note of theirs in the period (as the note's provider, or a combined
  // session's supervisor); each client's figures and flag are those of the unfiltered report.
  it.each([
    ["an RBT (Tia: her RBT session, a combined session she led)", "tech", "all", ["fay", "cara"]],
    ["another RBT (Tom: RBT sessions, a combined session he led)", "tech2", "all", ["evan", "fay", "dale"]],
    ["the analyst (BCBA sessions, combined sessions she supervised; not a deleted note or one after the period)", "analyst", "all", ["fay", "cara", "dale"]],
    ["an RBT, below 5% only", "tech2", "below", ["evan"]],
    ["an RBT whose clients all meet 5%, below only", "tech", "below", []],
    ["someone with no notes", "manager", "all", []],
    ["the analyst, at a location not the actor's", "analyst", "all", [], "elsewhere"],
  ] as const)("%s: the clients they served, with every session of each", async (_who, who, show, expected, where?: "elsewhere") => {
    const query = `${base()}&provider_id=${s[who]}&show=${show}`.replace(`location_id=${s.location}`, `location_id=${where ? 999_999 : s.location}`);
    const { status, html } = await page(query, s.cookie);
    expect(status).toBe(200);
    expect(tableRows(html)).toEqual(screenRows(expected));
    const csv = await request(query.replace("/bcba-report?", "/bcba-report/export.csv?"), { cookie: s.cookie });
    expect(csv.status).toBe(200);
    expect((await csv.text()).replace(/^\uFEFF/, "").trim().split("\r\n").slice(1)).toEqual(csvRows(expected));
  });

  it("says by the filter what a provider picks", async () => {
    const { html } = await page(base(), s.cookie);
    expect(html).toContain("Picks the clients this provider served in the period");
  });

  it("the filtered statement reads the provider's clients through indexes, once; the unfiltered one is unchanged", async () => {
    const actor = (await getUserActor(db(), s.manager))!;
    const ctx = { db: db(), actor, ip: "127.0.0.1", now: () => new Date("2026-11-26T12:00:00Z") };
    const statementOf = async (providerId: number | null) => {
      let captured: { sql: string; params: unknown[] } | null = null;
      const capture = (async (reads: { toSQL(): { sql: string; params: unknown[] } }[]) => {
        captured = reads[0]!.toSQL();
        return [[]];
      }) as unknown as ReadBatch;
      await supervisionReport(ctx, { locationId: null, providerId, patientId: null, from: "2026-09-15", to: "2026-11-14" }, { belowOnly: false }, { limit: 26, offset: 0 }, capture);
      return captured!;
    };
    const filtered = await statementOf(s.analyst);
    const plan = await env.DB.prepare(`explain query plan ${filtered.sql}`)
      .bind(...filtered.params)
      .all<{ detail: string }>();
    const steps = plan.results.map((r) => r.detail);
    // The provider's notes and the combined ones they may have supervised, each read once from an index.
    expect(steps).toContain("SEARCH notes USING COVERING INDEX notes_provider_report_idx (provider_id=? AND session_date>? AND session_date<?)");
    expect(steps).toContain("SEARCH notes USING INDEX notes_location_type_idx (location_id=? AND type=? AND session_date>? AND session_date<?)");
    expect(steps.filter((d) => d.startsWith("SCAN notes"))).toEqual([]);
    const unfiltered = await statementOf(null);
    expect(unfiltered.sql).not.toContain("supervisor_id");
    expect(filtered.sql.startsWith(unfiltered.sql.slice(0, unfiltered.sql.indexOf(" having ")))).toBe(true);
  });
});

describe("location-cpt", () => {
  it("sums units and prices them with the payer's services", async () => {
    const { status, html } = await page(`/reports/location-cpt?${OCT}`);
    expect(status).toBe(200);
    expect(tableRows(html)).toEqual(["Here Clinic | 97153 | 3 | 18 | 4.50 | $225.00 | 0", "Here Clinic | 97155 | 1 | 1 | 0.25 | $30.00 | 0"]);
    expect(html).toContain("19 units; charges $255.00.");
    expect(html).not.toContain("There Clinic |");
  });

  // Probe 8971 §2: the charges were shown to users every billing screen refuses (no manage_claims).
  it.each([
    ["the screen", `/reports/location-cpt?${OCT}`],
    ["the CSV", `/reports/location-cpt/export.csv?${OCT}`],
    ["the screen narrowed to a client", `/reports/location-cpt?${OCT}&patient_id=ALICE`],
  ])("%s needs manage_claims besides manage_notes (charges are billing's), as payroll needs manage_employees: 403", async (_what, path) => {
    const res = await request(path.replace("ALICE", String(w.alice)), { cookie: w.notesOnlyCookie });
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain("$225.00");
  });

  it("the /reports index leaves Location and CPT off for manage_notes alone, and lists it with manage_claims", async () => {
    const notesOnly = await (await request("/reports", { cookie: w.notesOnlyCookie })).text();
    expect(notesOnly).not.toContain('href="/reports/location-cpt"');
    expect(notesOnly).not.toContain("Location and CPT");
    expect(notesOnly).toContain('href="/reports/bcba-report"');
    expect(await (await request("/reports", { cookie: w.cookie })).text()).toContain('href="/reports/location-cpt"');
  });

  it("CSV and 403", async () => {
    const csv = await request(`/reports/location-cpt/export.csv?${OCT}`, {
      cookie: w.cookie,
    });
    expect(await csv.text()).toContain("Here Clinic,97153,3,18,4.50,225.00,0");
    expect((await page(`/reports/location-cpt?${OCT}`, w.noPermCookie)).status).toBe(403);
    expect((await page("/reports/location-cpt?date_from=2026-13-01")).status).toBe(400);
  });
});

describe("provider-clients", () => {
  it("counts and lists the clients each provider saw, providers in name order", async () => {
    const { status, html } = await page(`/reports/provider-clients?${OCT}`);
    expect(status).toBe(200);
    const rows = tableRows(html);
    // Both surnames are "User": "=Bert" sorts before "Rita".
    expect(rows[0]).toMatch(/^=Bert User \| 1 \| 1 \| 0\.25 \| Adams, Alice/);
    expect(rows[1]).toMatch(/^Rita User \| 2 \| 3 \| 4\.50 \| Adams, Alice \(P-[^)]*\); Baker, Bob \(P-[^)]*\)$/);
    expect(html).toContain("Providers in name order");
    expect(html).not.toContain("Elsewhere");
    expect(html).toContain("Clients per provider");
  });

  it("CSV, 403", async () => {
    const csv = await request(`/reports/provider-clients/export.csv?${OCT}`, {
      cookie: w.cookie,
    });
    expect(csv.headers.get("Content-Type")).toContain("text/csv");
    expect(await csv.text()).toContain("Rita User,2,3,4.50,");
    expect((await page(`/reports/provider-clients?${OCT}`, w.noPermCookie)).status).toBe(403);
  });
});

describe("ticket-support", () => {
  it("counts the location's tickets by status and age", async () => {
    const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
    const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const { status, html } = await page(`/reports/ticket-support?date_from=${from}&date_to=${to}`);
    expect(status).toBe(200);
    expect(tableRows(html)).toEqual(["Open | 1 | 0 | 0 | 1 | 2 | —", "Answered | 0 | 1 | 0 | 0 | 1 | 4.0", "Closed | 0 | 0 | 1 | 0 | 1 | 2.0"]);
    const csv = await request(`/reports/ticket-support/export.csv?date_from=${from}&date_to=${to}`, { cookie: w.cookie });
    expect((await csv.text()).replace(/^\uFEFF/, "").split("\r\n")[0]).toBe("Status,< 1 day,1–3 days,3–7 days,> 7 days,Total,Mean hours to first response");
    expect((await page("/reports/ticket-support", w.noPermCookie)).status).toBe(403);
    expect((await page("/reports/ticket-support?location_id=abc")).status).toBe(400);
  });

  it("counts a ticket on the day it was opened at its location, the Opened day the tickets lists show", async () => {
    // 23:30 on 14 October in New York is 03:30 UTC on the 15th: the lists file it on the 14th, and so does the report.
    const [late] = await db()
      .insert(tickets)
      .values({ userId: w.managerId, locationId: w.here, subject: "Late evening", status: "closed", createdAt: "2026-10-15T03:30:00.000Z", firstResponseAt: "2026-10-15T04:00:00.000Z", closedAt: "2026-10-15T05:00:00.000Z", openedOn: "2026-10-14" })
      .returning();
    try {
      const closed = async (day: string) => tableRows((await page(`/reports/ticket-support?date_from=${day}&date_to=${day}`)).html).find((r) => r.startsWith("Closed"));
      expect(await closed("2026-10-14")).toBe("Closed | 1 | 0 | 0 | 0 | 1 | 0.5");
      expect(await closed("2026-10-15")).not.toBe("Closed | 1 | 0 | 0 | 0 | 1 | 0.5");
    } finally {
      await db().delete(tickets).where(eq(tickets.id, late!.id));
    }
  });
});
