-- Issue 9 (hardening): token_refreshes counts refreshes per token family (decision 016); audit_log.detail holds
-- what a row cannot say elsewhere, covered by its hash (decision 019); tokens_valid_after ends every API token
-- of a person at once (decision 015); two_factor_challenges.sends limits resends (decision 016).
CREATE TABLE `token_refreshes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`family` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `token_refreshes_family_at_idx` ON `token_refreshes` (`family`,`at`);--> statement-breakpoint
ALTER TABLE `audit_log` ADD `detail` text;--> statement-breakpoint
ALTER TABLE `parents` ADD `tokens_valid_after` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `two_factor_challenges` ADD `sends` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
ALTER TABLE `users` ADD `tokens_valid_after` integer DEFAULT 0 NOT NULL;