ALTER TABLE `two_factor_challenges` ADD `sends` integer DEFAULT 1 NOT NULL;
--> statement-breakpoint
CREATE TABLE `token_refreshes` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`family` text NOT NULL,
	`at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `token_refreshes_family_at_idx` ON `token_refreshes` (`family`,`at`);
