-- Lists read in their own order from an index instead of sorting every row of their scope (decision 043,
-- 2026-11-28 (stop 41); declared in app/db/schema.ts): the BIPs that need attention (newest first), the clients of one
-- location (last_name, first_name, id) and the employees (surname, name, id), live rows only.
CREATE INDEX `bips_attention_idx` ON `bips` (`attention`,`id`) WHERE "bips"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `patients_location_name_idx` ON `patients` (`location_id`,`last_name`,`first_name`,`id`) WHERE "patients"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `users_live_name_idx` ON `users` (`surname`,`name`,`id`) WHERE "users"."deleted_at" is null;