import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bips, claims, locations, patients, plans } from "~/db/schema";
import { createClaim } from "./claim-fixtures";
import { api, apiToken, createBip, createLocation, createPatient, createPlan, createUser, db, request, signInCookie } from "./helpers";

/**
 * A list's From/To keep the rows whose date, as the screen prints it on the actor's clock (decision 039), is in the
 * period: a row made at 23:30 or 00:30 local is found by that local day and not by the day before or after, though
 * its UTC day differs. One clock for the column and the filter, screens and API alike.
 */

interface Case {
  zone: string;
  /** The local day. */
  day: string;
  /** 00:30 and 23:30 of that day in the zone, as stored (UTC). One of them is on another UTC day. */
  early: string;
  late: string;
}

const CASES: [string, Case][] = [
  // PST (UTC-8): 23:30 local is 07:30 UTC the next day.
  ["Los Angeles", { zone: "America/Los_Angeles", day: "2026-11-20", early: "2026-11-20T08:30:00.000Z", late: "2026-11-21T07:30:00.000Z" }],
  // NZDT (UTC+13): 00:30 local is 11:30 UTC the day before.
  ["Auckland", { zone: "Pacific/Auckland", day: "2026-11-20", early: "2026-11-19T11:30:00.000Z", late: "2026-11-20T10:30:00.000Z" }],
];

const PERIODS = (day: string) => {
  const shift = (n: number) => new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
  return { before: shift(-1), after: shift(1) };
};

async function setUp(zone: string, at: { early: string; late: string }) {
  const home = await createLocation({ timeZone: zone });
  const user = await createUser({ role: "ADMIN", locations: [home.id] });
  const rows = [];
  for (const instant of [at.early, at.late]) {
    const clinic = await createLocation({ timeZone: zone, title: `Filter clinic ${instant}` });
    await db().update(locations).set({ createdAt: instant }).where(eq(locations.id, clinic.id));
    const patient = await createPatient({ locationId: clinic.id, firstName: "Zed", lastName: `Filter${Date.parse(instant).toString(36)}` });
    await db().update(patients).set({ createdAt: instant }).where(eq(patients.id, patient.id));
    const bip = await createBip(patient);
    await db().update(bips).set({ createdAt: instant }).where(eq(bips.id, bip.id));
    const plan = await createPlan(bip);
    await db().update(plans).set({ createdAt: instant }).where(eq(plans.id, plan.id));
    const { claim } = await createClaim(patient, [{ cpt: "97153", serviceDate: "2026-11-10", units: 4, chargeCents: 8000 }]);
    await db().update(claims).set({ createdAt: instant }).where(eq(claims.id, claim.id));
    rows.push({ clinic, patient, bip, plan, claim });
  }
  return { user, cookie: await signInCookie(user), token: await apiToken(user), rows };
}

type Rows = Awaited<ReturnType<typeof setUp>>["rows"];

const page = async (path: string, cookie: string) => {
  const res = await request(path, { cookie });
  expect(res.status, path).toBe(200);
  return res.text();
};

/** Which of the two rows each list shows for the period (screens), and each API list answers. */
async function found(x: Awaited<ReturnType<typeof setUp>>, from: string, to: string) {
  const q = `date_from=${from}&date_to=${to}`;
  const screens = {
    claims: await page(`/claims?${q}`, x.cookie),
    locations: await page(`/location/list?${q}`, x.cookie),
    patients: await page(`/patients/list?${q}`, x.cookie),
    bips: await page(`/bip/list?${q}`, x.cookie),
  };
  const json = async (path: string) => {
    const res = await api(`${path}${path.includes("?") ? "&" : "?"}${q}&per_page=100`, { token: x.token });
    expect(res.status, path).toBe(200);
    return ((await res.json()) as { data: { id: number }[] }).data.map((r) => r.id);
  };
  const apis = { claims: await json("/v2/claims"), locations: await json("/v2/locations"), plans: await json(`/v2/plans?bip_id=${x.rows[0]!.bip.id}`), plans2: await json(`/v2/plans?bip_id=${x.rows[1]!.bip.id}`) };
  return (rows: Rows) =>
    rows.map((r, i) => ({
      claims: screens.claims.includes(r.claim.claimNumber),
      locations: screens.locations.includes(r.clinic.title),
      patients: screens.patients.includes(r.patient.lastName),
      bips: screens.bips.includes(`/bip/profile/${r.bip.id}"`),
      apiClaims: apis.claims.includes(r.claim.id),
      apiLocations: apis.locations.includes(r.clinic.id),
      apiPlans: (i === 0 ? apis.plans : apis.plans2).includes(r.plan.id),
    }));
}

const ALL = { claims: true, locations: true, patients: true, bips: true, apiClaims: true, apiLocations: true, apiPlans: true };
const NONE = { claims: false, locations: false, patients: false, bips: false, apiClaims: false, apiLocations: false, apiPlans: false };

describe("a list's From/To read the days on the actor's clock", () => {
  it.each(CASES)("an actor in %s", async (_label, c) => {
    const x = await setUp(c.zone, c);
    const { before, after } = PERIODS(c.day);
    // The local day finds both rows (00:30 and 23:30), whatever their UTC day.
    expect((await found(x, c.day, c.day))(x.rows)).toEqual([ALL, ALL]);
    // The neighbouring days find neither.
    expect((await found(x, before, before))(x.rows)).toEqual([NONE, NONE]);
    expect((await found(x, after, after))(x.rows)).toEqual([NONE, NONE]);
    // A From alone and a To alone bound at the same local midnights.
    expect((await found(x, c.day, after))(x.rows)).toEqual([ALL, ALL]);
    expect((await found(x, before, c.day))(x.rows)).toEqual([ALL, ALL]);
    // The column shows that day too.
    const claimsPage = await page(`/claims?date_from=${c.day}&date_to=${c.day}`, x.cookie);
    for (const r of x.rows) expect(claimsPage.split("<tr").find((row) => row.includes(r.claim.claimNumber))).toContain(`>${c.day}<`);
    // The BIP list shows the Created day its From/To filter on (it showed only Updated, a later day: probe 9034 L1).
    const bipsPage = await page(`/bip/list?date_from=${c.day}&date_to=${c.day}`, x.cookie);
    expect(bipsPage).toContain("<th>Created</th>");
    for (const r of x.rows) expect(bipsPage.split("<tr").find((row) => row.includes(`/bip/profile/${r.bip.id}"`))).toContain(`>${c.day}<`);
  });
});

