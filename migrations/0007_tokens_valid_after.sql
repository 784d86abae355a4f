-- Ending every API token of a user or parent at once (password, two-factor, email, role, location or status change).
ALTER TABLE `users` ADD `tokens_valid_after` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
ALTER TABLE `parents` ADD `tokens_valid_after` integer DEFAULT 0 NOT NULL;
