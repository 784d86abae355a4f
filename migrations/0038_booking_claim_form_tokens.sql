-- Decisions 024, 032, 037 (2026-11-28, stop 40): a booking and a claim build carry a one-time token (a form's form_token,
-- or the API's Idempotency-Key): a resend answers what the first made.
ALTER TABLE `claims` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `claims_form_token_unique` ON `claims` (`form_token`) WHERE "claims"."form_token" is not null;--> statement-breakpoint
ALTER TABLE `scheduled_sessions` ADD `form_token` text;--> statement-breakpoint
CREATE UNIQUE INDEX `scheduled_sessions_form_token_unique` ON `scheduled_sessions` (`form_token`) WHERE "scheduled_sessions"."form_token" is not null;