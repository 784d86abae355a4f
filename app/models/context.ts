import type { Db } from "~/db/client.server";
import type { Actor } from "~/domain/permissions";

/**
 * What a model use case receives: the database, the acting user, and the request's address and clock
 * (for the audit trail). Routes build it from the load context, API handlers from the Hono context.
 */
export interface ModelContext {
  db: Db;
  actor: Actor;
  ip: string;
  now: () => Date;
}
