import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { notes, patients } from "~/db/schema";
import { createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * A client who moved to another location (decision 038 §7, 2026-11-28): the reports that name clients (hours by
 * client, the BCBA report, provider-clients) show a client only to a user who may see the client's CURRENT location,
 * screen and CSV. Their sessions at the old location were read with it before; now a user of that location alone no
 * longer sees the client's name, nor the other location's, while a user of both locations still does. Whole months
 * read the sums tables, a period with edge days the notes (and a month minus days): both are checked.
 */

const PERIODS = ["date_from=2026-11-01&date_to=2026-11-30", "date_from=2026-10-31&date_to=2026-11-30", "date_from=2026-11-02&date_to=2026-11-29"];
const PAGES = ["hours?by=client&", "bcba-report?", "provider-clients?"];

let miamiOnly: string;
let both: string;
let isabella: number;
let la: number;

beforeAll(async () => {
  const miami = await createLocation({ title: "Miami Clinic" });
  la = (await createLocation({ title: "Los Angeles Clinic" })).id;
  isabella = (await createPatient({ locationId: miami.id, firstName: "Isabella", lastName: "Wilson" })).id;
  const ava = (await createPatient({ locationId: miami.id, firstName: "Ava", lastName: "Stone" })).id;
  const jasmine = (await createUser({ permissions: ["view_notes"], locations: [miami.id], name: "Jasmine" })).id;
  // Kim served only Isabella: her caseload row goes with Isabella.
  const kim = (await createUser({ permissions: ["view_notes"], locations: [miami.id], name: "Kimberly" })).id;
  const rows: (typeof notes.$inferInsert)[] = [
    { patientId: isabella, providerId: kim, type: "rbt" as const, sessionDate: "2026-10-31", minutes: 30, units: 2 },
    { patientId: isabella, providerId: kim, type: "rbt" as const, sessionDate: "2026-11-03", minutes: 120, units: 8 },
    { patientId: isabella, providerId: kim, type: "bcba" as const, sessionDate: "2026-11-20", minutes: 30, units: 2 },
    { patientId: ava, providerId: jasmine, type: "rbt" as const, sessionDate: "2026-11-10", minutes: 60, units: 4 },
  ].map((r) => ({ ...r, cptCode: "97153", locationId: miami.id }));
  for (const r of rows) await db().insert(notes).values(r);
  const perms = ["manage_notes", "view_clients"] as const;
  miamiOnly = await signInCookie(await createUser({ permissions: [...perms], locations: [miami.id], name: "Mia" }));
  both = await signInCookie(await createUser({ permissions: [...perms], locations: [miami.id, la], name: "Bo" }));
});

async function screen(path: string, cookie: string): Promise<string> {
  const res = await request(`/reports/${path}`, { cookie });
  expect(res.status).toBe(200);
  const html = await res.text();
  return html.slice(html.indexOf("<tbody"), html.indexOf("</tbody>"));
}

async function csv(path: string, cookie: string): Promise<string> {
  const [key, query] = path.split("?");
  const res = await request(`/reports/${key}/export.csv?${query}`, { cookie });
  expect(res.status).toBe(200);
  return res.text();
}

describe("a client moved to another location", () => {
  it("leaves the client-naming reports of a user of the old location only, and stays for one of both", async () => {
    for (const period of PERIODS)
      for (const page of PAGES) {
        for (const cookie of [miamiOnly, both]) {
          expect(await screen(`${page}${period}`, cookie)).toContain("Wilson, Isabella");
          expect(await csv(`${page}${period}`, cookie)).toContain("Wilson");
        }
      }
    expect(await screen(`provider-clients?${PERIODS[0]}`, miamiOnly)).toContain("Kimberly");

    await db().update(patients).set({ locationId: la }).where(eq(patients.id, isabella));

    for (const period of PERIODS)
      for (const page of PAGES) {
        const path = `${page}${period}`;
        const [mine, mineCsv] = [await screen(path, miamiOnly), await csv(path, miamiOnly)];
        for (const text of [mine, mineCsv]) {
          expect(text, path).not.toContain("Wilson");
          expect(text, path).not.toContain("Los Angeles");
          // Kim's only client is gone: no caseload row of hers either.
          expect(text, path).not.toContain("Kimberly");
          // The client who stayed is still there.
          expect(text, path).toContain("Stone");
        }
        const theirs = await screen(path, both);
        expect(theirs, path).toContain("Wilson, Isabella");
        expect(await csv(path, both), path).toContain("Wilson");
        if (page.startsWith("bcba")) expect(theirs, path).toContain("Los Angeles Clinic");
        if (page.startsWith("provider")) expect(theirs, path).toContain("Kimberly");
      }
  }, 60_000);

  it("hours by client says what part of its total is of clients no row shows (the total stays the location's work)", async () => {
    // Run after the move above: Isabella is at Los Angeles now.
    const notesOf = async (cookie: string, period: string) => {
      const res = await request(`/reports/hours?by=client&${period}`, { cookie });
      expect(res.status).toBe(200);
      const html = await res.text();
      return html.slice(0, html.indexOf("<tbody"));
    };
    const cases = [
      { period: PERIODS[0], total: "3.50 hours in 3 sessions.", hidden: "2.50 hours in 2 of them" },
      { period: PERIODS[1], total: "4.00 hours in 4 sessions.", hidden: "3.00 hours in 3 of them" },
      { period: PERIODS[2], total: "3.50 hours in 3 sessions.", hidden: "2.50 hours in 2 of them" },
    ];
    for (const c of cases) {
      const mine = await notesOf(miamiOnly, c.period);
      expect(mine, c.period).toContain(c.total);
      expect(mine, c.period).toContain(`${c.hidden} are of clients now at a location you do not see, who are not listed.`);
      const theirs = await notesOf(both, c.period);
      expect(theirs, c.period).toContain(c.total);
      expect(theirs, c.period).not.toContain("now at a location you do not see");
    }
  });
});
