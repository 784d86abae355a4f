import { expect } from "vitest";
import { locations, notes, userLocations } from "~/db/schema";
import { POS_CODE_VALUES } from "~/domain/locations";
import { PERMISSIONS } from "~/domain/permissions";
import { dayNumber } from "~/domain/weeks";
import { getUserActor } from "~/models/actors.server";
import type { ModelContext } from "~/models/context";
import { createPatient, createUser, db, type TestUser } from "./helpers";

/**
 * A regional manager: a staff user with every staff permission but access_all_locations, assigned explicitly
 * to 120 locations, with a client and a few notes at the first. D1 binds at most 100 parameters per statement,
 * so no statement may bind the actor's location ids one by one (the many-locations*.test.ts files).
 */
export const MANY = 120;

export interface ManyLocations {
  user: TestUser;
  locationIds: number[];
  client: { id: number; patientIdentifier: string };
  noteIds: number[];
  ctx: ModelContext;
}

export async function manyLocationsActor(): Promise<ManyLocations> {
  const stamp = Date.now().toString(36);
  const locationIds: number[] = [];
  // 15 rows a statement: a row binds several values, and D1 binds at most 100 a statement.
  for (let i = 0; i < MANY; i += 15) {
    const rows = Array.from({ length: Math.min(15, MANY - i) }, (_, k) => ({ title: `Region ${stamp} ${String(i + k).padStart(3, "0")}`, timeZone: "America/New_York", posCodes: POS_CODE_VALUES.join(",") }));
    locationIds.push(...(await db().insert(locations).values(rows).returning({ id: locations.id })).map((r) => r.id));
  }
  const home = locationIds[0]!;
  const user = await createUser({ permissions: PERMISSIONS.filter((p) => p !== "access_all_locations"), locations: [home], name: "Regina" });
  const rest = locationIds.slice(1);
  for (let i = 0; i < rest.length; i += 15) await db().insert(userLocations).values(rest.slice(i, i + 15).map((locationId) => ({ userId: user.id, locationId })));
  const client = await createPatient({ locationId: home, firstName: "Rhea", lastName: "Regional" });
  const noteIds: number[] = [];
  for (const [type, date] of [["rbt", "2026-03-02"], ["rbt", "2026-03-03"], ["bcba", "2026-03-04"], ["combined", "2026-03-05"]] as const) {
    const start = dayNumber(date)! * 1440 + 9 * 60;
    const [row] = await db()
      .insert(notes)
      .values({ type, patientId: client.id, locationId: home, providerId: user.id, providerName: "Regina User", cptCode: type === "rbt" ? "97153" : "97155", sessionDate: date, timeIn: "09:00", timeOut: "10:00", start1At: start, end1At: start + 60, startAt: start, endAt: start + 60, minutes: 60, units: 4, status: "pending" })
      .returning({ id: notes.id });
    noteIds.push(row!.id);
  }
  const actor = (await getUserActor(db(), user.id))!;
  expect(actor.locationIds).toHaveLength(MANY);
  return { user, locationIds, client, noteIds, ctx: { db: db(), actor, ip: "127.0.0.1", now: () => new Date("2026-03-20T12:00:00Z") } };
}

/** Paths in groups of five (requested together), each group a test of its own. */
export function inGroups(paths: readonly string[], size = 5): string[][] {
  return Array.from({ length: Math.ceil(paths.length / size) }, (_, i) => paths.slice(i * size, i * size + size));
}
