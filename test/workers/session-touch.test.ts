import { createExecutionContext, env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { d1SessionDatabase, flushCarriedWrites } from "~/db/client.server";
import { isolateState } from "~/db/isolate-state";
import { notes, sessions, settings, tickets } from "~/db/schema";
import { dayNumber } from "~/domain/weeks";
import { readSessionActor } from "~/services/session.server";
import countingWorker from "../bench/d1-count-worker";
import { D1_COUNT_HEADER } from "../bench/d1-count-header";
import { apiToken, createLocation, createPatient, createUser, db, signInCookie, type TestUser } from "./helpers";

/**
 * The first page after a minute away (decision 001): the session's limits are read with the session row and the
 * last-seen touch rides in the page's own batch, so such a request costs what any other does (≤ 3 round trips),
 * while the idle lock is still decided on the stored last-seen time.
 */

let admin: TestUser;
let cookie: string;
let token: string;

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const ofUser = (id: number) => and(eq(sessions.principalType, "user"), eq(sessions.principalId, id));
const sessionOf = async (id: number) => (await db().select().from(sessions).where(ofUser(id)))[0]!;
/** The auth settings' per-isolate cache, emptied as it is 30 seconds after its last read. */
const settingsCache = isolateState<{ value: unknown }>("authSettings", () => ({ value: null }));
const awayFor = async (user: TestUser, minutes: number) => {
  await db().update(sessions).set({ lastSeenAt: minutesAgo(minutes) }).where(ofUser(user.id));
  settingsCache.value = null;
};

async function counted(path: string, headers: Record<string, string>) {
  const res = await countingWorker.fetch(new Request(`http://localhost${path}`, { headers }) as Request<unknown, IncomingRequestCfProperties>, env, createExecutionContext());
  const [, roundTrips] = res.headers.get(D1_COUNT_HEADER)!.split(";").map(Number);
  return { res, roundTrips: roundTrips! };
}

beforeAll(async () => {
  const loc = await createLocation();
  const patient = await createPatient({ locationId: loc.id });
  admin = await createUser({ role: "ADMIN", locations: [loc.id] });
  cookie = await signInCookie(admin);
  token = await apiToken(admin);
  // A note on the list, so its page audits the read (the list's heaviest case: page batch, then the audit row).
  const s = dayNumber("2026-03-02")! * 1440 + 540;
  await db()
    .insert(notes)
    .values({ type: "rbt", patientId: patient.id, locationId: loc.id, providerId: admin.id, providerName: "", cptCode: "97153", sessionDate: "2026-03-02", timeIn: "09:00", timeOut: "10:00", start1At: s, end1At: s + 60, startAt: s, endAt: s + 60, minutes: 60, units: 4, status: "pending" });
  await db().insert(tickets).values({ userId: admin.id, locationId: loc.id, subject: "A printer", body: "Out of toner", openedOn: "2026-03-02" });
});

describe("a page after a minute away", () => {
  it.each(["/notes-list", "/tickets/list", "/tickets/list?search=a&date_from=2026-01-01&date_to=2026-11-28", "/dashboard"])("%s: at most 3 round trips, and last seen moves to now", async (path) => {
    await awayFor(admin, 2);
    const before = await sessionOf(admin.id);
    const { res, roundTrips } = await counted(path, { Cookie: cookie });
    expect(res.status, res.headers.get("Location") ?? "").toBe(200);
    expect(roundTrips).toBeLessThanOrEqual(3);
    const after = await sessionOf(admin.id);
    expect(after.lastSeenAt > before.lastSeenAt).toBe(true);
    expect(Date.now() - new Date(after.lastSeenAt).getTime()).toBeLessThan(60_000);
    expect(after.locked).toBe(false);
  });

  it("an API list call with a bearer token: at most 3 round trips with the settings' cache cold (tokens carry no touch)", async () => {
    settingsCache.value = null;
    const { res, roundTrips } = await counted("/api/v2/patients", { Authorization: `Bearer ${token}` });
    expect(res.status).toBe(200);
    expect(roundTrips).toBeLessThanOrEqual(3);
  });

  it("past the idle limit the session is locked, not touched: the lock screen, and last seen stays where it was", async () => {
    await awayFor(admin, 31);
    const before = await sessionOf(admin.id);
    const { res } = await counted("/notes-list", { Cookie: cookie });
    expect(res.status).toBe(302);
    expect(res.headers.get("Location")).toBe("/lock-screen?redirectTo=%2Fnotes-list");
    const after = await sessionOf(admin.id);
    expect(after.locked).toBe(true);
    expect(after.lastSeenAt).toBe(before.lastSeenAt);
    await db().update(sessions).set({ locked: false, lastSeenAt: new Date().toISOString() }).where(ofUser(admin.id));
  });

  it("a shorter idle limit holds from the next request, whatever this isolate cached", async () => {
    const user = await createUser({ permissions: ["view_notes"] });
    const own = await signInCookie(user);
    await db().update(sessions).set({ lastSeenAt: minutesAgo(6) }).where(ofUser(user.id));
    // The cache still says 30 minutes; the stored setting says 5.
    const warm = await counted("/dashboard", { Cookie: cookie });
    expect(warm.res.status).toBe(200);
    await db().insert(settings).values({ key: "session_idle_minutes", value: "5" });
    try {
      const { res } = await counted("/dashboard", { Cookie: own });
      expect(res.headers.get("Location")).toBe("/lock-screen?redirectTo=%2Fdashboard");
      expect((await sessionOf(user.id)).locked).toBe(true);
    } finally {
      await db().delete(settings).where(eq(settings.key, "session_idle_minutes"));
      settingsCache.value = null;
    }
  });
});

describe("the touch on a request's database", () => {
  const at = (c: string) => new Request("http://localhost/dashboard", { headers: { Cookie: c } });

  it("waits for the request's next batch, and what none carried is written when the request ends", async () => {
    await awayFor(admin, 2);
    const before = await sessionOf(admin.id);
    const { db: requestDb } = d1SessionDatabase(env.DB, "first-primary");
    const now = new Date();
    expect((await readSessionActor(requestDb, at(cookie), now)).session?.state).toBe("active");
    expect((await sessionOf(admin.id)).lastSeenAt).toBe(before.lastSeenAt);
    await flushCarriedWrites(requestDb);
    expect((await sessionOf(admin.id)).lastSeenAt).toBe(now.toISOString());
    // Nothing left to write: no round trip.
    await flushCarriedWrites(requestDb);
  });

  it("rides in a batch; a batch that fails keeps it for the next one", async () => {
    await awayFor(admin, 2);
    const { db: requestDb } = d1SessionDatabase(env.DB, "first-primary");
    const now = new Date();
    await readSessionActor(requestDb, at(cookie), now);
    const failing = requestDb.insert(settings).values({ key: "demo_mode", value: null as unknown as string });
    await expect(requestDb.batch([requestDb.select().from(settings), failing])).rejects.toThrow();
    expect((await sessionOf(admin.id)).lastSeenAt).not.toBe(now.toISOString());
    const [rows] = await requestDb.batch([requestDb.select({ key: settings.key }).from(settings).where(eq(settings.key, "no such key"))]);
    // The batch's own results only, the carried write's left out.
    expect(rows).toEqual([]);
    expect((await sessionOf(admin.id)).lastSeenAt).toBe(now.toISOString());
  });
});
