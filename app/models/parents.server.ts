import { and, eq, isNull } from "drizzle-orm";
import type { Db } from "~/db/client.server";
import { patients } from "~/db/schema";
import type { Actor } from "~/domain/permissions";

/** A signed-in parent sees only their own children. */
export async function listChildrenOfParent(db: Db, actor: Actor) {
  if (actor.kind !== "parent") return [];
  return db
    .select({ id: patients.id, first_name: patients.firstName, last_name: patients.lastName, status: patients.status })
    .from(patients)
    .where(and(eq(patients.parentId, actor.id), isNull(patients.deletedAt)))
    .orderBy(patients.firstName);
}
