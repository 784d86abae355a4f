import { sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import type { StaffGone } from "~/domain/patients";

/*
 * Who may be newly chosen as staff: a booking's provider, a note's provider or supervisor, a client's assigned
 * employee. One rule for every select that offers them and every save that checks them (decision 037, stop 31): an
 * employee not deleted and active. A stored link to someone who no longer passes stays as it is (decision 017); the
 * forms keep it in its own field, named with why (goneStaffLabel).
 *
 * Written with "users" spelled out: drizzle leaves a one-table select's columns unqualified, which a subquery's own
 * table would capture.
 */
const CHOOSABLE = sql`("users"."deleted_at" is null and "users"."status" = 'active')`;

/** The condition on `users`: a live, active employee. */
export function choosableStaff(): SQL {
  return sql`${CHOOSABLE}`;
}

/** The same as a column (1 or 0), for a save that tells an inactive employee from one who is not staff at all. */
export function isChoosableStaff(): SQL<number> {
  return sql<number>`${CHOOSABLE}`.mapWith(Number);
}

/** A choosable employee of the location (an id or a subquery). */
export function choosableStaffAt(locationId: number | SQL): SQL {
  return sql`(${CHOOSABLE} and exists (select 1 from "user_locations" where "user_locations"."user_id" = "users"."id" and "user_locations"."location_id" = ${locationId}))`;
}

/**
 * Why a joined employee (a table alias: a ticket's assignee) fails choosableStaff — deleted or inactive — or null
 * while they pass. For a list that names its stored staff as the forms do (goneStaffLabel).
 */
export function goneStaffOf(user: { deletedAt: SQLiteColumn; status: SQLiteColumn }): SQL<Exclude<StaffGone, "elsewhere"> | null> {
  return sql<Exclude<StaffGone, "elsewhere"> | null>`case when ${user.deletedAt} is not null then 'deleted' when ${user.status} <> 'active' then 'inactive' end`;
}

/** Why a stored staff link fails choosableStaffAt: deleted, inactive, or no longer at the location. */
export function whyNotChoosable(): SQL<StaffGone> {
  return sql<StaffGone>`case when "users"."deleted_at" is not null then 'deleted' when "users"."status" <> 'active' then 'inactive' else 'elsewhere' end`;
}
