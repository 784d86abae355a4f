import { and, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { parents, sessions, twoFactorChallenges, users } from "~/db/schema";
import type { PrincipalType } from "~/models/actors.server";

/**
 * Ending every way a principal is signed in: the principal's access generation goes up by one, and each screen
 * session and API token carries the generation it was issued with (read in the same statement as the password
 * hash at sign-in), so none issued until now is valid any more — not even one whose sign-in checked the old
 * password before this change and is issued after it (probe 8905). Each screen session is deleted too. What was
 * under way ends as well: every pending two-factor sign-in and password reset (code or verified reset token) is
 * voided, so a code or reset token obtained before the change leads nowhere after it. Called on every change of
 * who someone is: password (own, reset, set by staff), two-factor (own switch, reset), email, roles, locations,
 * status (deactivation) and deletion. The statements go into the same batch as the change itself; a session that
 * one's own change keeps for this browser goes after them in that batch (sessionAfterOwnChange).
 */
export function endAllAccessStatements(db: Db, principal: { type: PrincipalType; id: number }, now: Date) {
  const table = principal.type === "user" ? users : parents;
  return [
    db
      .update(table)
      .set({ accessGeneration: sql`${table.accessGeneration} + 1` })
      .where(eq(table.id, principal.id)),
    db.delete(sessions).where(and(eq(sessions.principalType, principal.type), eq(sessions.principalId, principal.id))),
    db
      .update(twoFactorChallenges)
      .set({ consumedAt: now.toISOString(), codeHash: null, resetTokenHash: null })
      .where(and(eq(twoFactorChallenges.principalType, principal.type), eq(twoFactorChallenges.principalId, principal.id), isNull(twoFactorChallenges.consumedAt))),
  ] as const;
}
