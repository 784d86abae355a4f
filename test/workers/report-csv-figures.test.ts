import { beforeAll, describe, expect, it } from "vitest";
import { insurances, insuranceServices, notes, rateRecords, tickets } from "~/db/schema";
import { amountsFromTheStart } from "~/models/rate-records.server";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";
import { parseCsv } from "../support/csv";

/**
 * The report CSVs write money, hours and percentages as plain numbers (decision 038, 2026-11-28 (stop 43)): a
 * spreadsheet sums them, and the sums are the screen's. Money is dollars with two decimals under a header that says
 * "($)", hours are hours with the screen's two decimals, a percentage is its number without the sign, and the
 * screen's "No rate" or "—" is an empty cell. One case per report family that writes such figures.
 */

const PERIOD = "date_from=2026-10-01&date_to=2026-10-31";
const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000).toISOString();

let cookie: string;

beforeAll(async () => {
  const loc = await createLocation({ title: "Figures Clinic" });
  const [insurer] = await db().insert(insurances).values({ name: "Figures Health" }).returning();
  // 12.99 a unit: nine units are 116.91, a sum a float would print as 116.91000000000001.
  await db().insert(insuranceServices).values({ insuranceId: insurer!.id, cptCode: "97153", provider: "rbt", type: "rbt", unitPrice: 12.99 });
  // An RBT amount with cents, and no BCBA amount: the analyst's row is "No rate".
  await db().insert(rateRecords).values({ name: "Figures rates", locationId: loc.id, rbt: 22.35, bcba: null });
  await amountsFromTheStart(db());
  const ann = await createPatient({ locationId: loc.id, firstName: "Ann", lastName: "Avery", insurerId: insurer!.id });
  const ben = await createPatient({ locationId: loc.id, firstName: "Ben", lastName: "Booth", insurerId: insurer!.id });
  // Cal has BCBA hours and no RBT hours: the BCBA report's share is "—".
  const cal = await createPatient({ locationId: loc.id, firstName: "Cal", lastName: "Cole", insurerId: insurer!.id });
  const tech = await createUser({ role: "RBT", permissions: ["view_notes"], locations: [loc.id], name: "Tara" });
  const analyst = await createUser({ role: "BCBA", permissions: ["view_notes"], locations: [loc.id], name: "Abe" });
  const rows: (typeof notes.$inferInsert)[] = [
    { type: "rbt", cptCode: "97153", patientId: ann.id, locationId: loc.id, providerId: tech.id, sessionDate: "2026-10-05", minutes: 50, units: 4 },
    { type: "rbt", cptCode: "97153", patientId: ann.id, locationId: loc.id, providerId: tech.id, sessionDate: "2026-10-12", minutes: 70, units: 5 },
    { type: "rbt", cptCode: "97153", patientId: ben.id, locationId: loc.id, providerId: tech.id, sessionDate: "2026-10-13", minutes: 45, units: 3 },
    { type: "bcba", cptCode: "97155", patientId: ann.id, locationId: loc.id, providerId: analyst.id, sessionDate: "2026-10-14", minutes: 25, units: 2 },
    { type: "bcba", cptCode: "97155", patientId: cal.id, locationId: loc.id, providerId: analyst.id, sessionDate: "2026-10-15", minutes: 15, units: 1 },
  ];
  for (const row of rows) await db().insert(notes).values(row);
  const manager = await createUser({ permissions: ["manage_notes", "manage_employees", "manage_claims", "view_clients"], locations: [loc.id], name: "Mia" });
  await db()
    .insert(tickets)
    .values([
      { userId: manager.id, locationId: loc.id, subject: "Waiting", status: "open", createdAt: hoursAgo(3) },
      { userId: manager.id, locationId: loc.id, subject: "Answered", status: "answered", createdAt: hoursAgo(50), firstResponseAt: hoursAgo(47) },
      { userId: manager.id, locationId: loc.id, subject: "Answered too", status: "answered", createdAt: hoursAgo(30), firstResponseAt: hoursAgo(28) },
    ]);
  cookie = await signInCookie(manager);
});

/** Each table row's cells, tags stripped. */
function screenRows(html: string): string[][] {
  const body = html.slice(html.indexOf("<tbody"), html.indexOf("</tbody>"));
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) =>
    [...m[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((c) => c[1]!.replace(/<[^>]+>/g, "").replace(/&amp;/g, "&").trim())
  );
}


/** A figure in hundredths (cents, or hundredths of an hour or a percent), exactly: "1,234.5" → 123450. */
const hundredths = (text: string) => {
  const [whole, frac = ""] = text.replace(/[$,%]/g, "").split(".");
  const sign = whole!.startsWith("-") ? -1 : 1;
  return sign * (Math.abs(Number(whole)) * 100 + Number(frac.padEnd(2, "0").slice(0, 2)));
};

const SENTINELS = ["No rate", "—"];
const PLAIN_NUMBER = /^-?\d+\.\d+$/;

interface FiguresCase {
  family: string;
  path: () => string;
  /** The CSV headers of the figures, with the screen's header of the same column. */
  figures: Record<string, string>;
  /** The screen's totals line: each figure's total by CSV header (from the notes above the table), if it has one. */
  totals?: (html: string) => Record<string, string>;
  /** A sentinel the screen shows in this fixture, to be an empty cell in the CSV. */
  sentinel?: string;
}

const noteTotal = (html: string, re: RegExp) => {
  const m = html.match(re);
  if (!m) throw new Error(`no total ${re} on the screen`);
  return m.slice(1);
};

const CASES: FiguresCase[] = [
  {
    family: "payroll",
    path: () => `payroll?${PERIOD}`,
    figures: { Hours: "Hours", "Hourly rate ($)": "Hourly rate", "Pay ($)": "Pay" },
    totals: (html) => {
      const [hours, pay] = noteTotal(html, /([\d.,]+) hours; pay \$([\d.,]+)\./);
      return { Hours: hours!, "Pay ($)": pay! };
    },
    sentinel: "No rate",
  },
  ...(["provider", "client", "cpt"] as const).map(
    (by): FiguresCase => ({
      family: `hours by ${by}`,
      path: () => `hours?${PERIOD}&by=${by}`,
      figures: { Hours: "Hours" },
      totals: (html) => ({ Hours: noteTotal(html, /([\d.,]+) hours in \d+ sessions\./)[0]! }),
    })
  ),
  {
    family: "bcba-report",
    path: () => `bcba-report?${PERIOD}`,
    figures: { "RBT hours": "RBT hours", "BCBA hours": "BCBA hours", "BCBA % of RBT": "BCBA / RBT" },
    sentinel: "—",
  },
  {
    family: "location-cpt",
    path: () => `location-cpt?${PERIOD}`,
    figures: { Hours: "Hours", "Charges ($)": "Charges" },
    totals: (html) => ({ "Charges ($)": noteTotal(html, /charges \$([\d.,]+)\./)[0]! }),
  },
  {
    family: "provider-clients",
    path: () => `provider-clients?${PERIOD}`,
    figures: { Hours: "Hours" },
  },
  {
    family: "ticket-support",
    path: () => {
      const from = new Date(Date.now() - 30 * 86_400_000).toISOString().slice(0, 10);
      const to = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      return `ticket-support?date_from=${from}&date_to=${to}`;
    },
    figures: { "Mean hours to first response": "Mean hours to first response" },
    sentinel: "—",
  },
];

describe("report CSVs: money, hours and percentages are plain numbers that add up to the screen's", () => {
  it.each(CASES.map((c) => [c.family, c] as const))("%s", async (_family, c) => {
    const path = c.path();
    const screenRes = await request(`/reports/${path}${path.includes("?") ? "&" : "?"}per_page=100`, { cookie });
    expect(screenRes.status).toBe(200);
    const html = await screenRes.text();
    const screenHeaders = [...html.slice(html.indexOf("<thead"), html.indexOf("</thead>")).matchAll(/<th[^>]*>([\s\S]*?)<\/th>/g)].map((m) => m[1]!.replace(/<[^>]+>/g, "").trim());
    const screen = screenRows(html);
    const csvRes = await request(`/reports/${path.replace("?", "/export.csv?")}`, { cookie });
    expect(csvRes.status).toBe(200);
    const [header, ...records] = parseCsv(await csvRes.text());
    expect(records.length).toBeGreaterThan(0);
    expect(records).toHaveLength(screen.length);
    const sentinelsSeen = new Set<string>();
    for (const [csvHeader, screenHeader] of Object.entries(c.figures)) {
      const col = header!.indexOf(csvHeader);
      expect(col, `CSV header ${csvHeader} in ${header!.join(",")}`).toBeGreaterThanOrEqual(0);
      expect(screenHeaders[col]).toBe(screenHeader);
      records.forEach((record, i) => {
        const shown = screen[i]![col]!;
        const written = record[col]!;
        if (SENTINELS.includes(shown)) {
          sentinelsSeen.add(shown);
          expect(written, `${csvHeader} where the screen says ${shown}`).toBe("");
        } else {
          // A plain number (no $, thousands comma, % or apostrophe), the very figure the screen shows.
          expect(written).toMatch(PLAIN_NUMBER);
          expect(hundredths(written)).toBe(hundredths(shown));
        }
      });
      // The column sums to the screen's total where the screen gives one, else to the screen's cells.
      const sum = records.reduce((s, r) => s + (r[col] ? hundredths(r[col]!) : 0), 0);
      const total = c.totals?.(html)[csvHeader];
      expect(sum).toBe(total !== undefined ? hundredths(total) : screen.reduce((s, r) => s + (SENTINELS.includes(r[col]!) ? 0 : hundredths(r[col]!)), 0));
    }
    if (c.sentinel) expect([...sentinelsSeen]).toContain(c.sentinel);
  });

  it("the payroll and location-cpt figures are the amounts a user would work out by hand", async () => {
    const payroll = parseCsv(await (await request(`/reports/payroll/export.csv?${PERIOD}`, { cookie })).text());
    expect(payroll[0]).toEqual(["Employee", "Location", "Role", "Sessions", "Hours", "Rate record", "Hourly rate ($)", "Pay ($)"]);
    // 165 minutes at $22.35 an hour: $61.4625, paid $61.46; the record has no BCBA amount, so the analyst's rate and pay are empty cells ("No rate" on the screen).
    expect(payroll.slice(1)).toEqual([
      ["Abe User", "Figures Clinic", "BCBA", "2", "0.67", "Figures rates", "", ""],
      ["Tara User", "Figures Clinic", "RBT", "3", "2.75", "Figures rates", "22.35", "61.46"],
    ]);
    const cpt = parseCsv(await (await request(`/reports/location-cpt/export.csv?${PERIOD}`, { cookie })).text());
    expect(cpt[0]).toEqual(["Location", "CPT", "Sessions", "Units", "Hours", "Charges ($)", "Unpriced units"]);
    expect(cpt.slice(1)).toEqual(
      expect.arrayContaining([
        ["Figures Clinic", "97153", "3", "12", "2.75", "155.88", "0"],
        ["Figures Clinic", "97155", "2", "3", "0.67", "0.00", "3"],
      ])
    );
    const bcba = parseCsv(await (await request(`/reports/bcba-report/export.csv?${PERIOD}`, { cookie })).text());
    // Ann: 25 BCBA minutes of 120 RBT minutes is 20.8%; Ben has no BCBA hours; Cal no RBT hours (no share).
    expect(bcba.slice(1).map((r) => r.slice(2, 5))).toEqual(
      expect.arrayContaining([
        ["2.00", "0.42", "20.8"],
        ["0.75", "0.00", "0.0"],
        ["0.00", "0.25", ""],
      ])
    );
  });
});
