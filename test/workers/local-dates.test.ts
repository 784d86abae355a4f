import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { claims, locations } from "~/db/schema";
import { createClaim } from "./claim-fixtures";
import { createBip, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/**
 * When a row was created or updated is printed on the actor's clock (decision 039: their location's zone, as
 * `actorToday`), not as the UTC date of the stored instant: a row written at 19:00 in Denver reads that day.
 */

/** 19:00 on 27 November in Denver, 16:00 in Honolulu, 11:00 on 28 November in Tokyo. */
const AT = "2026-11-28T02:00:00.000Z";

async function actorIn(timeZone: string) {
  const home = await createLocation({ timeZone });
  // The rows live in a Denver clinic the actor also works at; the actor's own (first) location decides the clock.
  const clinic = await createLocation({ timeZone: "America/Denver" });
  await db().update(locations).set({ createdAt: AT }).where(eq(locations.id, clinic.id));
  const user = await createUser({ permissions: ["manage_claims", "manage_locations_access", "view_bips"], locations: [home.id, clinic.id] });
  const patient = await createPatient({ locationId: clinic.id });
  const bip = await createBip(patient, { createdAt: AT, updatedAt: AT });
  const { claim } = await createClaim(patient, [{ cpt: "97153", serviceDate: "2026-11-20", units: 4, chargeCents: 8000 }]);
  await db().update(claims).set({ createdAt: AT }).where(eq(claims.id, claim.id));
  return { cookie: await signInCookie(user), clinic, bip, claim };
}

const page = async (path: string, cookie: string) => {
  const res = await request(path, { cookie });
  expect(res.status, path).toBe(200);
  return res.text();
};

describe("stored instants are shown on the actor's clock", () => {
  it.each<[string, string, string]>([
    ["an actor in Denver: 27 November", "America/Denver", "2026-11-27"],
    ["an actor in Honolulu: 27 November", "Pacific/Honolulu", "2026-11-27"],
    ["an actor in Tokyo: 28 November", "Asia/Tokyo", "2026-11-28"],
  ])("%s", async (_label, zone, day) => {
    const x = await actorIn(zone);
    const other = day === "2026-11-27" ? "2026-11-28" : "2026-11-27";

    // The location's "Created".
    const location = await page(`/location/view/${x.clinic.id}`, x.cookie);
    expect(/<dt>Created<\/dt>\s*<dd>([^<]*)<\/dd>/.exec(location)?.[1]).toBe(day);

    // The BIP list's "Created" and "Updated" and the plan's own page.
    const list = await page(`/bip/list?location_id=${x.clinic.id}`, x.cookie);
    const row = list.split("<tr").find((r) => r.includes(`/bip/profile/${x.bip.id}"`));
    expect(row).toContain(`>${day}<`);
    expect(row).not.toContain(other);
    const profile = await page(`/bip/profile/${x.bip.id}`, x.cookie);
    expect(profile).toMatch(new RegExp(`<dd>${day}</dd>`));
    expect(profile).not.toContain(`<dd>${other}</dd>`);

    // The claims list's "Created".
    const claimsList = await page(`/claims?location_id=${x.clinic.id}`, x.cookie);
    const claimRow = claimsList.split("<tr").find((r) => r.includes(x.claim.claimNumber));
    expect(claimRow).toContain(`>${day}<`);
    expect(claimRow).not.toContain(other);
  });
});
