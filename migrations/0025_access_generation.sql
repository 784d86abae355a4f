-- The access generation (decision 015, 2026-11-27): every change that ends access bumps the principal's counter; a
-- session or token is valid only while the counter it was issued with is current. Existing sessions and users start
-- equal (0); tokens issued before it are checked by tokens_valid_after as before, and only while the counter is 0.
ALTER TABLE `parents` ADD `access_generation` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `sessions` ADD `access_generation` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `two_factor_challenges` ADD `access_generation` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `access_generation` integer DEFAULT 0 NOT NULL;