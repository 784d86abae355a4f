import { eq, sql } from "drizzle-orm";
import { bips, users } from "~/db/schema";
import { PORTAL_SHOW_NARRATIVE } from "~/domain/settings";
import type { ModelContext } from "./context";

/**
 * What a parent may be answered (decision 040), in one place for everything a family receives: the portal's pages
 * (portal.server.ts) and the family copy of a plan PDF shared with them (pdf-jobs.server.ts, decision 041 stop 38).
 * Narrative (note summaries, chart comments) only when the clinic turned `portal_show_narrative` on, decided inside
 * the SQL so that with the setting off it never leaves the database; a staff member by first name only.
 */

/** The narrative setting as a scalar subquery: true only when the clinic turned it on. Read when the query runs. */
export const portalNarrativeOn = sql<number>`coalesce((select "value" = 'true' from "settings" where "key" = ${PORTAL_SHOW_NARRATIVE}), 0)`;

/** A staff member as a parent sees them: the first name (users.name), never the surname, email or id. */
export const staffNameForParent = users.name;

/**
 * A BIP's doctor as a parent sees them (null: none), and whether chart comments are shown to parents now
 * (`narrative`, 1 or 0), one statement for the caller's read batch.
 */
export function bipDoctorForParent(ctx: ModelContext, bipId: number) {
  return ctx.db.select({ name: staffNameForParent, narrative: portalNarrativeOn }).from(bips).leftJoin(users, eq(users.id, bips.doctorId)).where(eq(bips.id, bipId));
}
