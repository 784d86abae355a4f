import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { parents, sessions, twoFactorChallenges, users } from "~/db/schema";
import type { PrincipalType } from "~/models/actors.server";

/**
 * Ending every way a principal is signed in: each screen session is deleted and each API token issued
 * until now stops working (its refresh too), because `verifyAccessToken` compares the token's issue
 * time with `tokens_valid_after` in the same statement that loads the principal. What was under way
 * ends too: every pending two-factor sign-in and password reset (code or verified reset token) is voided,
 * so a code or reset token obtained before the change leads nowhere after it. Called on every change of
 * who someone is: password (own, reset, set by staff), two-factor (own switch, reset), email, roles,
 * locations, status (deactivation) and deletion. The statements go into the same batch as the change itself.
 */
export function endAllAccessStatements(db: Db, principal: { type: PrincipalType; id: number }, now: Date) {
  const table = principal.type === "user" ? users : parents;
  return [
    db.update(table).set({ tokensValidAfter: now.getTime() }).where(eq(table.id, principal.id)),
    db.delete(sessions).where(and(eq(sessions.principalType, principal.type), eq(sessions.principalId, principal.id))),
    db
      .update(twoFactorChallenges)
      .set({ consumedAt: now.toISOString(), codeHash: null, resetTokenHash: null })
      .where(and(eq(twoFactorChallenges.principalType, principal.type), eq(twoFactorChallenges.principalId, principal.id), isNull(twoFactorChallenges.consumedAt))),
  ] as const;
}
