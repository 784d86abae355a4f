import type { Db } from "~/db/client.server";
import { PRUNE_LIMITS } from "~/db/prune.server";
import { pruneLoginFailures, pruneOldChallenges } from "~/models/auth.server";
import { pruneEndedSessions } from "./session.server";
import { pruneRevokedTokens, pruneTokenRefreshes } from "./tokens.server";

/**
 * Waits for every task, then throws the first failure: one task failing does not stop the others (the hourly
 * cron and the clean-up below).
 */
export async function allSettledOrThrow<T extends readonly unknown[]>(tasks: readonly [...{ [K in keyof T]: Promise<T[K]> }]): Promise<T> {
  const results = await Promise.allSettled(tasks);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return results.map((r) => (r as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * The hourly clean-up of the sign-in tables that only grow (decision 001, 2026-11-27): sessions past the absolute
 * limit, revoked token ids past their keep, two-factor and reset challenges past their hour, and failed sign-ins and
 * token refreshes out of their throttling windows (stop 29: no longer deleted on each attempt). Each table's
 * cut-off is the rule its reading code applies; each delete is bounded (deleteInSteps). Answers what went.
 */
export async function pruneSignInRecords(db: Db, now: Date, limits = PRUNE_LIMITS) {
  const [sessions, revokedTokens, challenges, loginFailures, tokenRefreshes] = await allSettledOrThrow<[number, number, number, number, number]>([
    pruneEndedSessions(db, now, limits),
    pruneRevokedTokens(db, now, limits),
    pruneOldChallenges(db, now, limits),
    pruneLoginFailures(db, now, limits),
    pruneTokenRefreshes(db, now, limits),
  ]);
  return { sessions, revokedTokens, challenges, loginFailures, tokenRefreshes };
}
