-- One live account per email (decision 015, stop 33): an employee's or parent's address is unique among the rows not
-- deleted, so someone deleted and later hired again (or a parent added again) can be added under their own address.
-- Every lookup by email (sign-in, password reset, two-factor, the duplicate checks) reads live rows only.
DROP INDEX `parents_email_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `parents_email_unique` ON `parents` (`email`) WHERE "parents"."deleted_at" is null;--> statement-breakpoint
DROP INDEX `users_email_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`) WHERE "users"."deleted_at" is null;