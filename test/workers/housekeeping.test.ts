import { env } from "cloudflare:test";
import { and, eq, inArray, lte } from "drizzle-orm";
import { decodeJwt } from "jose";
import { describe, expect, it } from "vitest";
import { loginFailures, pdfJobs, revokedTokens, sessions, tokenRefreshes, twoFactorChallenges } from "~/db/schema";
import { deleteInSteps } from "~/db/prune.server";
import { challengeForgottenAt, REFRESH_LIMIT, sessionEndedAt, THROTTLE } from "~/domain/auth-rules";
import { SETTING_BOUNDS } from "~/domain/settings";
import { getAuthSettings } from "~/models/settings.server";
import { pruneSignInRecords } from "~/services/housekeeping.server";
import { revokedUntil } from "~/services/tokens.server";
import worker from "../../workers/app";
import { api, apiToken, createLocation, createPatient, createUser, db, request, signInCookie } from "./helpers";

/** The hourly clean-up of the sign-in tables (decision 001, 2026-11-27): what can no longer matter goes, the rest stays. */

const NOW = new Date("2026-11-27T12:00:00.000Z");
const at = (base: Date, seconds: number) => new Date(base.getTime() + seconds * 1000).toISOString();
const id = () => crypto.randomUUID();

async function insertSession(createdAt: string, over: Partial<typeof sessions.$inferInsert> = {}) {
  const idHash = id();
  await db().insert(sessions).values({ idHash, principalType: "user", principalId: 1, createdAt, lastSeenAt: createdAt, ...over });
  return async () => (await db().select().from(sessions).where(eq(sessions.idHash, idHash))).length === 1;
}

async function insertRevoked(expiresAt: string) {
  const jti = id();
  await db().insert(revokedTokens).values({ jti, expiresAt });
  return async () => (await db().select().from(revokedTokens).where(eq(revokedTokens.jti, jti))).length === 1;
}

async function insertChallenge(createdAt: string, over: Partial<typeof twoFactorChallenges.$inferInsert> = {}) {
  const cid = id();
  await db().insert(twoFactorChallenges).values({ id: cid, principalType: "user", principalId: 1, context: "login", createdAt, ...over });
  return async () => (await db().select().from(twoFactorChallenges).where(eq(twoFactorChallenges.id, cid))).length === 1;
}

async function insertFailure(when: string) {
  const key = `ip:${id()}`;
  await db().insert(loginFailures).values({ key, at: when });
  return async () => (await db().select().from(loginFailures).where(eq(loginFailures.key, key))).length === 1;
}

async function insertRefresh(when: string) {
  const family = id();
  await db().insert(tokenRefreshes).values({ family, at: when });
  return async () => (await db().select().from(tokenRefreshes).where(eq(tokenRefreshes.family, family))).length === 1;
}

describe("pruneSignInRecords: each table's cut-off, one second either side", async () => {
  const { absoluteHours } = await getAuthSettings(db());
  const ended = sessionEndedAt(NOW, absoluteHours);
  const forgotten = challengeForgottenAt(NOW);
  const cases: { name: string; row: () => Promise<() => Promise<boolean>>; kept: boolean }[] = [
    { name: "session signed in one second before the absolute limit's cut-off", row: () => insertSession(at(ended, -1)), kept: false },
    { name: "session exactly at the absolute limit (a read ends it)", row: () => insertSession(at(ended, 0)), kept: false },
    { name: "session one second inside the absolute limit", row: () => insertSession(at(ended, 1)), kept: true },
    { name: "session idle and locked, inside the absolute limit (the lock screen resumes it)", row: () => insertSession(at(ended, 1), { lastSeenAt: at(ended, 1), locked: true }), kept: true },
    { name: "revoked id one second past its keep", row: () => insertRevoked(at(NOW, -1)), kept: false },
    { name: "revoked id at its keep", row: () => insertRevoked(at(NOW, 0)), kept: false },
    { name: "revoked id one second before its keep", row: () => insertRevoked(at(NOW, 1)), kept: true },
    { name: "sign-in challenge one second past the hour, code expired", row: () => insertChallenge(at(forgotten, -1), { expiresAt: at(NOW, -1) }), kept: false },
    { name: "voided sign-in challenge past the hour", row: () => insertChallenge(at(forgotten, -1), { consumedAt: at(NOW, -60) }), kept: false },
    { name: "sign-in challenge one second inside the hour (still counted in the hourly code emails)", row: () => insertChallenge(at(forgotten, 1), { expiresAt: at(NOW, -1) }), kept: true },
    { name: "reset past the hour whose code is still valid for a second", row: () => insertChallenge(at(forgotten, -1), { context: "password_reset", expiresAt: at(NOW, 1) }), kept: true },
    { name: "reset past the hour whose reset token is still valid for a second", row: () => insertChallenge(at(forgotten, -1), { context: "password_reset", expiresAt: at(NOW, -1), resetTokenExpiresAt: at(NOW, 1) }), kept: true },
    { name: "reset past the hour whose code and token have expired", row: () => insertChallenge(at(forgotten, -1), { context: "password_reset", expiresAt: at(NOW, -1), resetTokenExpiresAt: at(NOW, -1) }), kept: false },
    // Throttling counts only the window's failures and refreshes (after now − window): the rest go.
    { name: "failed sign-in at the throttling window's start (no longer counted)", row: () => insertFailure(at(NOW, -THROTTLE.windowMs / 1000)), kept: false },
    { name: "failed sign-in one second inside the throttling window", row: () => insertFailure(at(NOW, 1 - THROTTLE.windowMs / 1000)), kept: true },
    { name: "token refresh at the refresh limit's window start", row: () => insertRefresh(at(NOW, -REFRESH_LIMIT.windowMs / 1000)), kept: false },
    { name: "token refresh one second inside the refresh limit's window", row: () => insertRefresh(at(NOW, 1 - REFRESH_LIMIT.windowMs / 1000)), kept: true },
  ];
  it.each(cases)("$name → kept: $kept", async ({ row, kept }) => {
    const exists = await row();
    await pruneSignInRecords(db(), NOW);
    expect(await exists()).toBe(kept);
  });
});

describe("bounded deletes", () => {
  it("one run deletes at most batch × steps rows; the next run takes the rest", async () => {
    const jtis = Array.from({ length: 5 }, id);
    await db().insert(revokedTokens).values(jtis.map((jti) => ({ jti, expiresAt: at(NOW, -3600) })));
    const mine = and(inArray(revokedTokens.jti, jtis), lte(revokedTokens.expiresAt, NOW.toISOString()))!;
    expect(await deleteInSteps(db(), revokedTokens, mine, { batch: 2, maxSteps: 2 })).toBe(4);
    expect(await db().select().from(revokedTokens).where(inArray(revokedTokens.jti, jtis))).toHaveLength(1);
    expect(await deleteInSteps(db(), revokedTokens, mine, { batch: 2, maxSteps: 2 })).toBe(1);
    expect(await db().select().from(revokedTokens).where(inArray(revokedTokens.jti, jtis))).toHaveLength(0);
  });
});

describe("a revoked token's id is kept while the token could be used", () => {
  const longest = SETTING_BOUNDS.absolute_hours.max * 3600;
  it.each([
    { name: "a token of a fresh sign-in: until the longest absolute limit allowed", claims: { authTime: 1_000, exp: 1_900 }, until: (1_000 + longest) * 1000 },
    { name: "a token refreshed a second before that limit: until its own expiry", claims: { authTime: 1_000, exp: 1_000 + longest + 899 }, until: (1_000 + longest + 899) * 1000 },
  ])("$name", ({ claims, until }) => {
    expect(revokedUntil(claims).getTime()).toBe(until);
  });

  it("after a logout the clean-up keeps the id, so the token stays refused, and drops it once no limit could accept it", async () => {
    const token = await apiToken(await createUser());
    const { jti, auth_time } = decodeJwt(token) as { jti: string; auth_time: number };
    expect((await api("/auth/logout", { method: "POST", token })).status).toBe(200);
    const [row] = await db().select().from(revokedTokens).where(eq(revokedTokens.jti, jti));
    expect(row!.expiresAt).toBe(new Date((auth_time + longest) * 1000).toISOString());
    await pruneSignInRecords(db(), new Date());
    expect((await api("/auth/me", { method: "POST", token })).status).toBe(401);
    expect(await db().select().from(revokedTokens).where(eq(revokedTokens.jti, jti))).toHaveLength(1);
    await pruneSignInRecords(db(), new Date(row!.expiresAt));
    expect(await db().select().from(revokedTokens).where(eq(revokedTokens.jti, jti))).toHaveLength(0);
  });
});

describe("the hourly cron", () => {
  it("prunes the sign-in tables even when another task throws, then fails the run; a live session still works", async () => {
    const location = await createLocation();
    const user = await createUser({ locations: [location.id] });
    const patient = await createPatient({ locationId: location.id });
    // An expired PDF job whose file delete will fail: expirePdfFiles throws.
    const jobId = id();
    await db().insert(pdfJobs).values({ id: jobId, kind: "plan", patientId: patient.id, status: "expired", fileKey: `pdf-jobs/${jobId}.pdf`, requestedBy: user.id, finishedAt: at(new Date(), -40 * 86_400) });
    const failingFiles = { delete: async () => Promise.reject(new Error("R2 is down")) } as unknown as R2Bucket;
    const now = new Date();
    const monthAgo = at(now, -30 * 86_400);
    const oldSession = await insertSession(monthAgo);
    const oldRevoked = await insertRevoked(monthAgo);
    const oldChallenge = await insertChallenge(monthAgo, { expiresAt: monthAgo });
    const cookie = await signInCookie(user);

    const run = worker.scheduled({ scheduledTime: Date.now(), cron: "17 * * * *", noRetry: () => undefined } as ScheduledController, { ...env, FILES: failingFiles });
    await expect(run).rejects.toThrow("R2 is down");

    expect(await oldSession()).toBe(false);
    expect(await oldRevoked()).toBe(false);
    expect(await oldChallenge()).toBe(false);
    const [job] = await db().select().from(pdfJobs).where(eq(pdfJobs.id, jobId));
    expect(job!.fileKey).toBe(`pdf-jobs/${jobId}.pdf`);
    expect((await request("/dashboard", { cookie })).status).toBe(200);
  });
});
