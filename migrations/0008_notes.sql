CREATE TABLE `note_drafts` (
	`id` text PRIMARY KEY NOT NULL,
	`user_id` integer NOT NULL,
	`path` text NOT NULL,
	`ciphertext` text NOT NULL,
	`expires_at` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `note_drafts_user_idx` ON `note_drafts` (`user_id`,`expires_at`);--> statement-breakpoint
CREATE TABLE `note_versions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`note_id` integer NOT NULL,
	`version` integer NOT NULL,
	`snapshot` text NOT NULL,
	`reason` text DEFAULT '' NOT NULL,
	`amended_by` integer,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`updated_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`note_id`) REFERENCES `notes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`amended_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `note_versions_note_version_unique` ON `note_versions` (`note_id`,`version`);--> statement-breakpoint
DROP INDEX `notes_location_type_idx`;--> statement-breakpoint
ALTER TABLE `notes` ADD `supervisor_id` integer REFERENCES users(id);--> statement-breakpoint
ALTER TABLE `notes` ADD `bip_id` integer REFERENCES bips(id);--> statement-breakpoint
ALTER TABLE `notes` ADD `pa_service_id` integer REFERENCES pa_services(id);--> statement-breakpoint
ALTER TABLE `notes` ADD `cpt_code` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `subtype` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `diagnosis_code` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `pos` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `is_telehealth` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `time_in` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `time_out` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `time_in2` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `time_out2` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `start1_at` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `end1_at` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `start2_at` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `end2_at` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `start_at` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `end_at` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `minutes` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `units` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `md` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `md2` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `md3` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `unit_price_cents` integer;--> statement-breakpoint
ALTER TABLE `notes` ADD `billed` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `paid` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `provider_name` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `provider_signature` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `provider_signed_on` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `supervisor_name` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `supervisor_signature` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `supervisor_signed_on` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `signed_at` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `summary_note` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `content` text DEFAULT '{}' NOT NULL;--> statement-breakpoint
ALTER TABLE `notes` ADD `form_token` text;--> statement-breakpoint
ALTER TABLE `notes` ADD `created_by` integer REFERENCES users(id);--> statement-breakpoint
CREATE INDEX `notes_type_date_idx` ON `notes` (`type`,`session_date`,`deleted_at`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `notes_date_idx` ON `notes` (`session_date`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX `notes_form_token_unique` ON `notes` (`form_token`);--> statement-breakpoint
CREATE INDEX `notes_provider_start_idx` ON `notes` (`provider_id`,`start_at`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `notes_patient_start_idx` ON `notes` (`patient_id`,`start_at`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `notes_patient_date_idx` ON `notes` (`patient_id`,`session_date`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `notes_pa_service_idx` ON `notes` (`pa_service_id`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `notes_location_date_idx` ON `notes` (`location_id`,`session_date`) WHERE "notes"."deleted_at" is null;--> statement-breakpoint
CREATE INDEX `notes_location_type_idx` ON `notes` (`location_id`,`type`,`session_date`,`deleted_at`) WHERE "notes"."deleted_at" is null;